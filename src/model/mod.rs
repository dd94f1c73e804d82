//! The common model every adapter maps onto: sessions of calls and results.

// What stays public is documented (issue 25); lib.rs lists the surface.
#![warn(missing_docs)]

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde_json::Value;

mod args;
pub use args::{Args, Member};

/// Bytes kept from each end of a long result text. Readers keep only the
/// two ends of a longer one (see `source::json::string_ends`), and the rules
/// examine only as much (`text_ends`), so a 400 KB output is never copied,
/// unescaped or scanned whole.
pub const TEXT_CAP: usize = 4096;

/// The part of `text` that is examined: leading whitespace trimmed, and a
/// text longer than `2 * TEXT_CAP` cut to its head, a newline and its tail
/// (`TEXT_CAP` bytes each, at character boundaries), so that what is said
/// on its last line (an exit code) is still seen.
pub fn text_ends(text: &str) -> Cow<'_, str> {
    let t = text.trim_start();
    if t.len() <= 2 * TEXT_CAP {
        return t.into();
    }
    let mut end = TEXT_CAP;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = t.len() - TEXT_CAP;
    while !t.is_char_boundary(start) {
        start += 1;
    }
    format!("{}\n{}", &t[..end], &t[start..]).into()
}

/// The id shown for a call its source recorded without one: `#` and its
/// place in the session (from 1). Stable for a given trace, and never an id
/// an agent writes.
pub fn synthetic_id(seq: usize) -> String {
    format!("#{seq}")
}

/// Whose conventions a session's text follows: the SQLite format it was read
/// from, or, for sessions of falseok's own schema (imported transcripts),
/// the agent that wrote them. Content and classification rules are scoped
/// by dialect, so a scope naming an unknown dialect does not compile.
///
/// `ALL` names the dialects of every format and importer falseok ships;
/// a new format with no rules of its own may name itself with
/// `Dialect::new` in its own file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dialect(&'static str);

impl Dialect {
    /// The conventions of Peri's traces.
    pub const PERI: Dialect = Dialect("peri");
    /// The conventions of Crush's traces.
    pub const CRUSH: Dialect = Dialect("crush");
    /// The conventions of opencode's traces.
    pub const OPENCODE: Dialect = Dialect("opencode");
    /// The conventions of Kilo Code's traces.
    pub const KILO: Dialect = Dialect("kilo");
    /// The conventions of Goose's traces.
    pub const GOOSE: Dialect = Dialect("goose");
    /// The conventions of llm (Simon Willison)'s traces.
    pub const LLM: Dialect = Dialect("llm");
    /// falseok's own schema written by an agent falseok has no rules
    /// for: only rules without a dialect scope apply.
    pub const FALSEOK: Dialect = Dialect("falseok");
    /// The conventions of Claude Code's traces.
    pub const CLAUDE_CODE: Dialect = Dialect("claude-code");
    /// The conventions of Codex's traces.
    pub const CODEX: Dialect = Dialect("codex");
    /// The conventions of Gemini CLI's traces.
    pub const GEMINI: Dialect = Dialect("gemini");
    /// The conventions of LangGraph checkpoints's traces.
    pub const LANGGRAPH: Dialect = Dialect("langgraph");
    /// The conventions of the OpenAI Agents SDK's traces.
    pub const OPENAI_AGENTS: Dialect = Dialect("openai-agents");
    /// The conventions of Zed's traces.
    pub const ZED: Dialect = Dialect("zed");
    /// The conventions of Google ADK's traces.
    pub const ADK: Dialect = Dialect("adk");
    /// The conventions of Cursor's traces.
    pub const CURSOR: Dialect = Dialect("cursor");
    /// OpenTelemetry traces (OTLP/JSON, Langfuse, Phoenix), read through import.
    pub const OTEL: Dialect = Dialect("otel");
    /// The conventions of OpenHands's traces.
    pub const OPENHANDS: Dialect = Dialect("openhands");
    /// The conventions of Cline's traces.
    pub const CLINE: Dialect = Dialect("cline");
    /// The conventions of Roo Code's traces.
    pub const ROO: Dialect = Dialect("roo-code");
    /// The conventions of Continue's traces.
    pub const CONTINUE: Dialect = Dialect("continue");
    /// The conventions of GitHub Copilot's traces.
    pub const COPILOT: Dialect = Dialect("copilot");
    /// The conventions of Qwen Code's traces.
    pub const QWEN: Dialect = Dialect("qwen");
    /// The conventions of pi's traces.
    pub const PI: Dialect = Dialect("pi");
    /// The conventions of Kiro's traces.
    pub const KIRO: Dialect = Dialect("kiro");
    /// The conventions of Aider's traces.
    pub const AIDER: Dialect = Dialect("aider");

    /// Every named dialect.
    pub const ALL: &'static [Dialect] = &[
        Dialect::PERI,
        Dialect::CRUSH,
        Dialect::OPENCODE,
        Dialect::KILO,
        Dialect::GOOSE,
        Dialect::LLM,
        Dialect::FALSEOK,
        Dialect::CLAUDE_CODE,
        Dialect::CODEX,
        Dialect::GEMINI,
        Dialect::LANGGRAPH,
        Dialect::OPENAI_AGENTS,
        Dialect::ZED,
        Dialect::ADK,
        Dialect::CURSOR,
        Dialect::OTEL,
        Dialect::OPENHANDS,
        Dialect::CLINE,
        Dialect::ROO,
        Dialect::CONTINUE,
        Dialect::COPILOT,
        Dialect::QWEN,
        Dialect::PI,
        Dialect::KIRO,
        Dialect::AIDER,
    ];

    /// A dialect named `name`, for a format with no rules of its own (see above).
    pub const fn new(name: &'static str) -> Dialect {
        Dialect(name)
    }

    /// The name used in reports, rule listings and `sessions.agent`.
    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// Old names still understood, each with the dialect it now is: the
    /// project was called tracelint until its rename to falseok, and a
    /// database written by `tracelint import` may name its own schema so.
    pub const ALIASES: &'static [(&'static str, Dialect)] = &[("tracelint", Dialect::FALSEOK)];

    /// The named dialect called `name`, or whose old name it is.
    pub fn from_name(name: &str) -> Option<Dialect> {
        let alias = || Dialect::ALIASES.iter().find(|(old, _)| *old == name).map(|&(_, d)| d);
        Dialect::ALL.iter().copied().find(|d| d.0 == name).or_else(alias)
    }

    /// The old names this dialect is still known by.
    pub fn aliases(self) -> impl Iterator<Item = &'static str> {
        Dialect::ALIASES.iter().filter(move |(_, d)| *d == self).map(|&(old, _)| old)
    }
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect::FALSEOK
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl serde::Serialize for Dialect {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// A tool invocation the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The id its result names (`ToolResult::call_id`).
    pub id: String,
    /// The real tool name (wrappers such as Peri's `ExecuteExtraTool` are
    /// resolved to the tool they run).
    pub tool: String,
    /// The arguments of the real tool, decoded when asked (`Args`).
    pub input: Args,
    /// When the call was made, if the source records it.
    pub time: Option<DateTime<Utc>>,
    /// Where the call is stored (a rowid or line number), for evidence.
    pub row: i64,
    /// The tokens of the model response that emitted the call, when the
    /// source records them (shared by every call of that response).
    pub usage: Option<std::sync::Arc<Usage>>,
}

/// The tokens one model response used, as its source records them,
/// normalised so that every store reads alike: `input` is the input billed
/// at the full price (cache reads and writes apart), `output` every output
/// token billed (reasoning included), `reasoning` the part of `output`
/// spent reasoning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    /// The response's id in its source (Claude's `message.id`, a turn's
    /// number): the calls sharing it split its tokens.
    pub response: String,
    /// The model that answered, as the source names it.
    pub model: Option<String>,
    /// Input tokens at the full price.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Of `output`, the tokens spent reasoning.
    pub reasoning: u64,
    /// What the response cost in US dollars, when the source records it.
    pub cost: Option<f64>,
}

impl Usage {
    /// A token count as a JSON value holds it: a number, zero or more (a
    /// float is cut); anything else is none. Every reader of usage counts
    /// with it.
    pub fn count(v: &Value) -> Option<u64> {
        let n = v.as_number()?;
        n.as_u64().or_else(|| n.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64))
    }

    /// A count at `key` of a usage object (`count`).
    pub fn count_at(o: &serde_json::Map<String, Value>, key: &str) -> Option<u64> {
        Usage::count(o.get(key)?)
    }

    /// The input and output counts at these keys of a usage object, a
    /// missing one beside the other as 0; `None` when it records neither
    /// (no usage, not a response that used nothing).
    pub fn input_output(o: &serde_json::Map<String, Value>, input: &str, output: &str) -> Option<(u64, u64)> {
        match (Usage::count_at(o, input), Usage::count_at(o, output)) {
            (None, None) => None,
            (i, o) => Some((i.unwrap_or(0), o.unwrap_or(0))),
        }
    }

    /// Every token the response was billed for.
    pub fn tokens(&self) -> u64 {
        self.input.saturating_add(self.output).saturating_add(self.cache_read).saturating_add(self.cache_write)
    }

    /// The context the model read: every input token, cached or not.
    pub fn context(&self) -> u64 {
        self.input.saturating_add(self.cache_read).saturating_add(self.cache_write)
    }
}

/// What came back for a call, linked by `call_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the call it answers.
    pub call_id: String,
    /// The text; of a long one only its two ends (`TEXT_CAP` bytes each).
    pub text: String,
    /// `text` lacks the middle of the result.
    pub truncated: bool,
    /// The source's own error marker; `None` when the source records none.
    pub flag: Option<bool>,
    /// The exit status of a command, when the source stores it apart from
    /// the text (opencode's `state.metadata.exit`).
    pub exit_code: Option<i64>,
    /// When the result came back, if the source records it.
    pub time: Option<DateTime<Utc>>,
    /// Where the result is stored (a rowid or line number), for evidence.
    pub row: i64,
}

/// One stored event of a session: a call or a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The model called a tool.
    Call(Call),
    /// A tool's result came back.
    Result(ToolResult),
}

/// A row the adapter could not read; counted and reported, never fatal.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// The row id; with `file`, the line number (0: the whole file).
    pub row: i64,
    /// Why it could not be read, in one line.
    pub problem: String,
    /// The row was skipped (otherwise it was read after a repair).
    pub skipped: bool,
    /// For a transcript: the file of the line, as the user would name it.
    pub file: Option<String>,
}

/// One session (a thread, conversation or transcript), its events in
/// storage order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// The session's id in its source.
    pub id: String,
    /// Whose conventions its text follows; scopes the rules.
    pub dialect: Dialect,
    /// The id of the session that started it, for a sub-agent's.
    pub parent: Option<String>,
    /// When the session started, the fallback time for calls without one.
    pub started: Option<DateTime<Utc>>,
    /// The file the session was read from, when its source is a folder of
    /// transcripts (falseok's `sessions.source`); `None` for databases.
    pub origin: Option<String>,
    /// Its calls and results, in storage order.
    pub events: Vec<Event>,
    /// The rows of it that could not be read.
    pub malformed: Vec<Malformed>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip() {
        for &d in Dialect::ALL {
            assert_eq!(Dialect::from_name(d.as_str()), Some(d));
            assert_eq!(Dialect::ALL.iter().filter(|x| x.as_str() == d.as_str()).count(), 1, "{d} named twice");
        }
        assert_eq!(Dialect::from_name("nope"), None);
    }

    #[test]
    fn long_texts_are_examined_at_both_ends() {
        let text = format!("  Error: {}\nExit code 3", "é".repeat(TEXT_CAP));
        let ends = text_ends(&text);
        assert!(ends.starts_with("Error: ") && ends.ends_with("Exit code 3"));
        assert!(ends.len() <= 2 * TEXT_CAP + 1, "head, newline, tail");
        assert_eq!(text_ends("  short"), "short");
    }
}
