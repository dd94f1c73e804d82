//! The rule registry: content rules (is this text a failure?), classification
//! rules (which category?), benign exits, the judge's own reasons, categories,
//! finding rules and tool roles (which tools read or modify files), all held
//! by one value, `REGISTRY`. All of it is data; this module only compiles and
//! applies it.

pub mod benign;
pub mod category;
pub mod classify;
pub mod content;
pub mod findings;
pub mod http;
pub mod masked;
pub mod reasons;
pub mod registry;
pub mod tools;

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::model::Dialect;

pub use category::{CATEGORIES, Category};
pub use classify::{CLASS_RULES, ClassRule, EXIT_CLASS_RULES};
pub use content::{CONTENT_RULES, ContentRule};
pub use findings::{FINDING_RULES, FindingRule, Scope, Severity};
pub use reasons::{JUDGE_REASONS, JudgeReason};
pub use registry::{REGISTRY, Registry};
pub use tools::{ToolClass, tool_class};

/// How sure a content rule is that a match means failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// An error string a specific agent is known to emit.
    High,
    /// A generic shape (`Error: …`) that nearly always means failure.
    Medium,
}

/// Which results a content rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Every result of the tools in scope: a shape the tool or its agent
    /// writes when the call failed (`<tool_use_error>`, `Exit code N`).
    Any,
    /// Only the results of tools whose text is their own verdict
    /// (`tools::ToolClass::Verdict`): wording that means failure when a
    /// custom tool says it, and means nothing in a file it read or a
    /// program's output.
    Verdicts,
    /// The reply an HTTP client printed (`curl`, `wget`) with a status of
    /// success, as `http::failed_reply` presents it.
    HttpReplies,
    /// The output of a shell pipeline whose status is its last command's,
    /// when an earlier command's own error reached it, or of a command whose
    /// whole output is its error (`rules::masked`).
    MaskedPipelines,
    /// Every result of a shell tool (`tools::ToolClass::Shell`): a shape
    /// only a shell writes when one of its commands failed, whatever the
    /// exit status (PowerShell's error records).
    ShellOutput,
}

impl Reads {
    pub fn as_str(self) -> &'static str {
        match self {
            Reads::Any => "any result",
            Reads::Verdicts => "verdicts of custom tools",
            Reads::HttpReplies => "HTTP replies printed by curl or wget",
            Reads::MaskedPipelines => "masked shell pipelines",
            Reads::ShellOutput => "shell output",
        }
    }
}

impl serde::Serialize for Reads {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl serde::Serialize for Precision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::High => "high",
            Precision::Medium => "medium",
        }
    }
}

/// Only the two ends of a result are examined: error messages are short,
/// and a 50 MB tool output must not cost a 50 MB regex scan. The readers
/// keep no more than this of each end (`model::TEXT_CAP`).
pub const EXAMINED_PREFIX_BYTES: usize = crate::model::TEXT_CAP;

/// A rule's regex, compiled the first time a result reaches it: rules
/// scoped to other stores, tools or classes are never compiled, and a
/// scan's start-up pays only for the rules it uses (a Unicode pattern
/// costs 0.1 to 3 ms to compile).
pub(crate) struct LazyRegex {
    pattern: &'static str,
    cell: std::sync::OnceLock<Regex>,
}

impl LazyRegex {
    const fn new(pattern: &'static str) -> LazyRegex {
        LazyRegex { pattern, cell: std::sync::OnceLock::new() }
    }

    fn get(&self) -> &Regex {
        // The unit tests compile every pattern of the registry.
        self.cell.get_or_init(|| Regex::new(self.pattern).expect("rule patterns compile"))
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.get().is_match(text)
    }
}

struct Compiled {
    /// One regex per rule, in registry order, each compiled when first
    /// needed: rules out of a result's tool or format scope are skipped
    /// before any matching, and anchored patterns (most of them) stop at
    /// the first byte that cannot match, so a clean 4 KiB output costs a
    /// few comparisons, not a scan.
    content: Vec<LazyRegex>,
    classify: Vec<LazyRegex>,
    exit_classify: Vec<LazyRegex>,
    wrapper: Regex,
    benign: Vec<LazyRegex>,
    exit_code: Regex,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    Compiled {
    content: CONTENT_RULES.iter().map(|r| LazyRegex::new(r.pattern)).collect(),
    classify: CLASS_RULES.iter().map(|r| LazyRegex::new(r.pattern)).collect(),
    exit_classify: EXIT_CLASS_RULES.iter().map(|r| LazyRegex::new(r.pattern)).collect(),
    wrapper: Regex::new(content::PERI_WRAPPER).expect("wrapper compiles"),
    benign: benign::BENIGN_EXITS.iter().map(|b| LazyRegex::new(b.command)).collect(),
    exit_code: Regex::new(
        r"(?m)^(?:Exit code:?|Exit Code:|Process exited with code|Command (?:failed|exited) with (?:exit )?code) (-?\d+)\.?\s*$|<exit_code>(-?\d+)</exit_code>|<(?:shellId: \S+ completed|exited|command with (?:shellId|id|sessionId): \S+ exited) with exit code (-?\d+)>",
    )
    .expect("exit code compiles"),
}
});

fn in_scope(scope: &[&str], tool: &str) -> bool {
    scope.is_empty() || scope.contains(&tool)
}

/// The head of `text` that rules look at: leading whitespace trimmed, cut at
/// a character boundary. A longer text is examined as its head, a newline
/// and its tail, so that rules about the last line (an exit code) still see
/// it; `^`-anchored rules without `(?m)` only ever see the start.
pub fn examined(text: &str) -> std::borrow::Cow<'_, str> {
    crate::model::text_ends(text)
}

/// The first content rule (in registry order) that says `text`, returned by
/// `tool`, is a failure, whatever the dialect (only unscoped rules).
pub fn detect(tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(None, tool, text)
}

/// The first content rule for a result of `tool` in a session of `dialect`
/// (rules scoped to other dialects are skipped).
pub fn detect_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(Some(dialect), tool, text)
}

fn first_content(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content_as(dialect, tool, tool_class(tool), masked::Masking::default(), text)
}

/// The first content rule that reads a result of `tool` (of `class`, its
/// command line masked as `masking`) and fires on `text`.
fn first_content_as(
    dialect: Option<Dialect>,
    tool: &str,
    class: ToolClass,
    masking: masked::Masking,
    text: &str,
) -> Option<&'static ContentRule> {
    let head = examined(text);
    CONTENT_RULES
        .iter()
        .zip(&COMPILED.content)
        .find(|(r, re)| {
            in_scope(r.tools, tool)
                && in_dialect(r.formats, dialect)
                && reads_result(r, class, masking)
                && re.is_match(&head)
        })
        .map(|(r, _)| r)
}

/// Does `rule` read a result of a tool of `class` (see `Reads`)?
fn reads_result(rule: &ContentRule, class: ToolClass, masking: masked::Masking) -> bool {
    match rule.reads {
        Reads::Any => true,
        Reads::Verdicts => class == ToolClass::Verdict,
        Reads::MaskedPipelines => class == ToolClass::Shell && masked::reads(rule.id, masking),
        Reads::ShellOutput => class == ToolClass::Shell,
        // Read only through `detect_result`, on the reply it presents.
        Reads::HttpReplies => false,
    }
}

/// A result as the rules read it: whose it is, what the call asked, and
/// what came back (its text as `present` shows it, its exit status, and
/// whether the source flagged it).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub dialect: Dialect,
    pub tool: &'a str,
    pub input: &'a Value,
    pub text: &'a str,
    pub exit_code: Option<i64>,
    pub flagged: bool,
}

impl<'a> Reading<'a> {
    /// A result of `tool` with no input, exit status or flag (tests, docs).
    pub fn of(dialect: Dialect, tool: &'a str, text: &'a str) -> Reading<'a> {
        Reading { dialect, tool, input: &Value::Null, text, exit_code: None, flagged: false }
    }
}

/// An empty scope is every dialect; `None` (no dialect) only matches that.
fn in_dialect(scope: &[Dialect], dialect: Option<Dialect>) -> bool {
    scope.is_empty() || dialect.is_some_and(|d| scope.contains(&d))
}

/// The id of the content rule for a failing JSON envelope.
pub const ENVELOPE_RULE: &str = "json-envelope-error";
/// How a failing JSON envelope is presented to the rules (see `present`).
pub const ENVELOPE_PREFIX: &str = "JSON envelope error: ";

/// The text of a result as the rules see it, and the exit status a JSON
/// envelope reports (see `present_with_exit`).
pub fn present<'a>(tool: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    present_with_exit(None, tool, text).0
}

/// Keys a tool's own JSON envelope carries around its verdict. An object
/// with only these is the tool speaking, even from a reader of files.
const ENVELOPE_KEYS: &[&str] = &[
    "error",
    "errors",
    "message",
    "msg",
    "detail",
    "details",
    "status",
    "status_code",
    "statusCode",
    "code",
    "error_code",
    "errorCode",
    "error_message",
    "errorMessage",
    "success",
    "ok",
    "isError",
    "is_error",
    "result",
    "output",
    "stdout",
    "stderr",
    "exit_code",
    "exitCode",
    "returncode",
    "return_code",
    "reason",
    "type",
    "title",
    "hint",
    "suggestion",
    "meta",
    "content",
    "data",
    "timestamp",
    "path",
    "request_id",
    "requestId",
];

/// Keys of an envelope around a process that a tool ran.
const PROCESS_KEYS: &[&str] = &["exit_code", "exitCode", "returncode", "return_code", "stderr"];

/// The text of a result as the rules see it. A result that is one JSON
/// object of a tool's envelope is judged inside it, whatever the store:
///
/// - a failing envelope becomes `JSON envelope error: <its message>`:
///   `error` (not null, false or empty), `status` of `error`/`failed`/
///   `failure`/`fail` or an HTTP error status (`"status": 401`, `"404"`),
///   `success` or `ok` false, `isError` true, a non-empty `error_code`, or
///   a non-zero `exit_code`/`returncode` (whose status is also returned,
///   so that the exit is judged as a process exit: benign exits stay
///   benign);
/// - `{"result": "…"}` / `{"output": "…"}` (at most 3 keys) is its inner text.
///
/// A reader's or a shell's output is data: its JSON is judged only when
/// the object is nothing but an envelope, and, for a reader, only in the
/// stores of agent frameworks whose tools are their users' code
/// (`tools::CUSTOM_TOOL_DIALECTS`: `{"error": "File not found"}` from a
/// custom `read_file`): never a JSON document a coding agent's reader read
/// or a program printed. Anything that is not one JSON object stays as it is.
pub fn present_with_exit<'a>(
    dialect: Option<Dialect>,
    tool: &str,
    text: &'a str,
) -> (std::borrow::Cow<'a, str>, Option<i64>) {
    use std::borrow::Cow;
    let head = text.trim_start();
    if !head.starts_with('{') || head.len() > 1 << 18 {
        return (Cow::Borrowed(text), None);
    }
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(head) else { return (Cow::Borrowed(text), None) };
    // A reader's or a shell's JSON is data unless the object is nothing but
    // an envelope, and for a shell an envelope around a process (its
    // streams or its exit status): a program may print `{"status": "error"}`.
    // An MCP server's answer is its envelope, whatever its tool reads.
    let class = if tool.starts_with("mcp__") { ToolClass::Verdict } else { tool_class(tool) };
    if class != ToolClass::Verdict {
        let only_envelope = o.keys().all(|k| ENVELOPE_KEYS.contains(&k.as_str()));
        let speaks = match class {
            ToolClass::Shell => PROCESS_KEYS.iter().any(|k| o.contains_key(*k)),
            _ => dialect.is_some_and(|d| tools::CUSTOM_TOOL_DIALECTS.contains(&d)),
        };
        if !only_envelope || !speaks {
            return (Cow::Borrowed(text), None);
        }
    }
    let truthy = |v: &Value| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        _ => true,
    };
    let said = |k: &str| o.get(k).and_then(Value::as_str).map(|s| s.to_ascii_lowercase());
    let http_error = |v: Option<&Value>| {
        let n = match v {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        n.is_some_and(|n| (400..600).contains(&n))
    };
    let exit = ["exit_code", "exitCode", "returncode", "return_code"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_i64))
        .filter(|&c| c != 0);
    let failed = o.get("error").is_some_and(truthy)
        || matches!(said("status").as_deref(), Some("error" | "failed" | "failure" | "fail"))
        || http_error(o.get("status"))
        || http_error(o.get("status_code").or_else(|| o.get("statusCode")))
        || o.get("success") == Some(&Value::Bool(false))
        || o.get("ok") == Some(&Value::Bool(false))
        || o.get("isError") == Some(&Value::Bool(true))
        || o.get("error_code").or_else(|| o.get("errorCode")).is_some_and(truthy)
        || exit.is_some();
    if failed {
        let message = [
            "error",
            "error_message",
            "errorMessage",
            "message",
            "msg",
            "detail",
            "stderr",
            "result",
            "output",
            "details",
            "error_code",
            "errorCode",
        ]
        .iter()
        .filter_map(|k| o.get(*k).filter(|v| truthy(v)))
        .map(|v| match v {
            Value::String(s) => s.clone(),
            Value::Object(m) => match m.get("message").and_then(Value::as_str) {
                Some(s) => s.to_string(),
                None => v.to_string(),
            },
            other => other.to_string(),
        })
        .next()
        .unwrap_or_else(|| head.to_string());
        let shown = match exit {
            Some(code) => format!("{ENVELOPE_PREFIX}{message}\nExit code {code}"),
            None => format!("{ENVELOPE_PREFIX}{message}"),
        };
        return (Cow::Owned(shown), exit);
    }
    match o.get("result").or_else(|| o.get("output")) {
        Some(Value::String(inner)) if o.len() <= 3 => (Cow::Owned(inner.clone()), None),
        _ => (Cow::Borrowed(text), None),
    }
}

/// `text` as a terminal shows it: ANSI escape sequences (colours, cursor
/// moves, OSC titles and links) removed, so that `ESC[31mError:ESC[0m` is
/// read as `Error:`. Borrowed when there is none.
pub fn plain(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // Up to BEL or ST (ESC \\).
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.peek() == Some(&'\\')) {
                        if c == '\u{1b}' {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The content rule for a whole result: its text, and else the exit status
/// the source stored (presented to the rules as the line `Exit code N`). A
/// rule that reports an exit code is overruled by a benign exit of the
/// call's command (see `benign`). A shell result whose status says success
/// (or nothing) is also read for an earlier command's own error that its
/// pipeline masked (see `masked`).
pub fn detect_result(r: &Reading<'_>) -> Option<&'static ContentRule> {
    let class = tool_class(r.tool);
    let head = examined(r.text);
    let said_exit = exit_code_of(&head);
    let status_ok = !r.flagged && r.exit_code.unwrap_or(0) == 0 && said_exit.unwrap_or(0) == 0;
    let masking = if class == ToolClass::Shell && status_ok {
        masked::masking_of(r.input, &head)
    } else {
        masked::Masking::default()
    };
    let dialect = Some(r.dialect);
    let (rule, shown) = match first_content_as(dialect, r.tool, class, masking, r.text) {
        Some(rule) => (rule, head.into_owned()),
        None if status_ok && class == ToolClass::Shell && http::is_request(r.input) => {
            let reply = http::failed_reply(&head)?;
            let rule = CONTENT_RULES.iter().zip(&COMPILED.content).find(|(c, re)| {
                c.reads == Reads::HttpReplies && in_dialect(c.formats, dialect) && re.is_match(&reply)
            })?;
            return Some(rule.0);
        }
        None => {
            let code = r.exit_code.filter(|&c| c != 0)?;
            let line = format!("Exit code {code}");
            (first_content_as(dialect, r.tool, class, masked::Masking::default(), &line)?, line)
        }
    };
    // A shell command that exited 0 succeeded: a generic shape in its output
    // (a script printing `ERROR: …`) is the program's text, not the tool's.
    let succeeded = r.exit_code == Some(0) || exit_code_of(&shown) == Some(0);
    if rule.precision == Precision::Medium && succeeded && class == ToolClass::Shell {
        return None;
    }
    if is_benign(rule.id, r.input, &shown, r.text) { None } else { Some(rule) }
}

/// Did `rule` fire on an exit code that the call's command makes benign?
/// The command line is parsed as a shell would (see `benign`): the status
/// is the last command's, or, when nothing was printed, that of a command
/// before `&&` that ended the list.
fn is_benign(rule: &str, input: &Value, shown: &str, output: &str) -> bool {
    let code = exit_code_of(shown);
    let Some(line) = benign::command_line(input) else { return false };
    let mut candidates = benign::exit_candidates(&line);
    if line.trim().is_empty() {
        candidates = vec![String::new()];
    }
    // Silence is the output's, not that of the `Exit code N` line a stored
    // status is presented as.
    let silent = benign::is_silent(&examined(output));
    benign::BENIGN_EXITS.iter().zip(&COMPILED.benign).any(|(b, re)| {
        b.rules.contains(&rule)
            && (if b.codes.is_empty() { true } else { code.is_some_and(|c| b.codes.contains(&c)) })
            && (silent || !b.silent_only)
            && candidates.iter().enumerate().any(|(i, c)| (i == 0 || silent) && re.is_match(c))
    })
}

/// The exit code a result reports (`Exit code N`, `Exit Code: N`,
/// `Process exited with code N`, `<exit_code>N</exit_code>`, Copilot's
/// `<shellId: N completed with exit code X>`).
pub fn exit_code_of(text: &str) -> Option<i64> {
    let c = COMPILED.exit_code.captures(text)?;
    c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3))?.as_str().parse().ok()
}

/// `text` without Peri's `Tool execution failed: <Tool> - ` wrapper.
pub fn unwrap_text(text: &str) -> &str {
    let head = text.trim_start();
    match COMPILED.wrapper.find(head) {
        Some(m) => &head[m.end()..],
        None => head,
    }
}

/// The first classification rule for the (unwrapped) text of a failed call,
/// whatever the dialect (only unscoped rules). `None` means no rule knows
/// it: the category is `other`.
pub fn classify(tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(None, tool, text)
}

/// `classify` for a result in a session of `dialect`.
pub fn classify_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(Some(dialect), tool, text)
}

/// The category rule of a failed result. A result that reports a non-zero
/// process exit (in its text or as the stored `exit_code`) is a program's
/// failure: `EXIT_CLASS_RULES` (command not found, the tool's time limit,
/// an interrupt, failing tests, a failed build), else `nonzero-exit`,
/// whatever words the program printed. Any other result goes through
/// `CLASS_RULES`; a flagged shell result that no rule there knows is a
/// program's failure too (an agent that flags a command that failed but
/// writes no exit code).
pub fn classify_result(r: &Reading<'_>, content: Option<&ContentRule>) -> Option<&'static ClassRule> {
    let head = examined(unwrap_text(r.text));
    match content.map(|c| c.reads) {
        // An earlier command of a pipeline failed: a program's failure.
        Some(Reads::MaskedPipelines) => return exit_class(r.dialect, r.tool, &head),
        // The server's reply says why the request failed.
        Some(Reads::HttpReplies) => {
            let reply = http::failed_reply(&head).unwrap_or_default();
            return first_class(Some(r.dialect), r.tool, &reply);
        }
        _ => {}
    }
    let code = exit_code_of(&head).or(r.exit_code).filter(|&c| c != 0);
    let failed_task = head.contains("<status>failed</status>");
    if code.is_none() && !failed_task {
        let class = first_class(Some(r.dialect), r.tool, r.text);
        // A shell call that failed, by its flag or by what it printed, with
        // no exit status and no words a rule knows: its program failed.
        if class.is_none() && (r.flagged || content.is_some()) && tool_class(r.tool) == ToolClass::Shell {
            return exit_class(r.dialect, r.tool, &head);
        }
        return class;
    }
    let shown = match code {
        Some(c) if exit_code_of(&head).is_none() => format!("{head}\nExit code {c}"),
        _ => head.into_owned(),
    };
    exit_class(r.dialect, r.tool, &shown)
}

/// The category of a program that failed: the first exit rule, else `nonzero-exit`.
fn exit_class(dialect: Dialect, tool: &str, shown: &str) -> Option<&'static ClassRule> {
    EXIT_CLASS_RULES
        .iter()
        .zip(&COMPILED.exit_classify)
        .find(|(r, re)| in_scope(r.tools, tool) && in_dialect(r.formats, Some(dialect)) && re.is_match(shown))
        .map(|(r, _)| r)
        .or_else(|| CLASS_RULES.iter().find(|r| r.id == "nonzero-exit"))
}

fn first_class(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ClassRule> {
    let head = examined(unwrap_text(text));
    CLASS_RULES
        .iter()
        .zip(&COMPILED.classify)
        .find(|(r, re)| in_scope(r.tools, tool) && in_dialect(r.formats, dialect) && re.is_match(&head))
        .map(|(r, _)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_result_(
        dialect: Dialect,
        tool: &str,
        input: &Value,
        text: &str,
        exit_code: Option<i64>,
    ) -> Option<&'static ContentRule> {
        detect_result(&Reading { dialect, tool, input, text, exit_code, flagged: false })
    }

    fn classify_result_(
        dialect: Dialect,
        tool: &str,
        text: &str,
        exit_code: Option<i64>,
    ) -> Option<&'static ClassRule> {
        classify_result(&Reading { dialect, tool, input: &Value::Null, text, exit_code, flagged: false }, None)
    }

    fn sample_tool(scope: &[&'static str]) -> &'static str {
        scope.first().copied().unwrap_or("SomeTool")
    }

    fn sample_dialect(scope: &[Dialect]) -> Option<Dialect> {
        scope.first().copied()
    }

    #[test]
    fn every_content_rule_has_examples_that_behave() {
        for rule in CONTENT_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let dialect = sample_dialect(rule.formats);
            let re = Regex::new(rule.pattern).unwrap();
            let masking = masked::Masking { earlier: true, earlier_work: true, only_error: true, background: true };
            let (tool, class) = match rule.reads {
                Reads::MaskedPipelines | Reads::ShellOutput => ("Bash", ToolClass::Shell),
                _ => (tool, tool_class(tool)),
            };
            if rule.reads == Reads::HttpReplies {
                for text in rule.fires_on {
                    let reply = http::failed_reply(text).unwrap_or_default();
                    assert!(re.is_match(&reply), "{} must fire on the reply {text:?}", rule.id);
                    let input = serde_json::json!({"command": "curl -s http://localhost/api"});
                    let r = Reading {
                        dialect: Dialect::CLAUDE_CODE,
                        tool: "Bash",
                        input: &input,
                        text,
                        exit_code: None,
                        flagged: false,
                    };
                    assert_eq!(detect_result(&r).map(|c| c.id), Some(rule.id), "{text:?}");
                }
                for text in rule.ignores {
                    assert!(
                        http::failed_reply(text).is_none_or(|reply| !re.is_match(&reply)),
                        "{} must ignore {text:?}",
                        rule.id
                    );
                }
                continue;
            }
            for text in rule.fires_on {
                assert!(re.is_match(&examined(text)), "{} must fire on {text:?}", rule.id);
                assert!(first_content_as(dialect, tool, class, masking, text).is_some(), "{text:?} must be detected");
            }
            for text in rule.ignores {
                assert!(!re.is_match(&examined(text)), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn every_pattern_compiles() {
        let c = &*COMPILED;
        for re in c.content.iter().chain(&c.classify).chain(&c.exit_classify).chain(&c.benign) {
            let _ = re.get();
        }
    }

    #[test]
    fn content_rule_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in CONTENT_RULES {
            assert!(seen.insert(r.id), "duplicate content rule {}", r.id);
        }
        for r in CLASS_RULES.iter().chain(EXIT_CLASS_RULES) {
            assert!(seen.insert(r.id), "rule id {} used twice", r.id);
        }
    }

    #[test]
    fn every_class_rule_is_first_on_its_examples() {
        for rule in CLASS_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let dialect = sample_dialect(rule.formats);
            let re = Regex::new(rule.pattern).unwrap();
            for text in rule.fires_on {
                let got = first_class(dialect, tool, text).map(|r| r.id);
                assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
            }
            for text in rule.ignores {
                assert!(!re.is_match(text), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn exit_class_rules_are_first_on_their_examples() {
        for rule in EXIT_CLASS_RULES {
            assert!(!rule.fires_on.is_empty() && !rule.ignores.is_empty(), "{} needs examples", rule.id);
            for text in rule.fires_on {
                let got = classify_result_(Dialect::CRUSH, "bash", text, Some(1)).map(|r| r.id);
                assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
            }
            for text in rule.ignores {
                let got = classify_result_(Dialect::CRUSH, "bash", text, None).map(|r| r.id);
                assert_ne!(got, Some(rule.id), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    /// Issue 12, shape 9: a program's words do not classify the tool call.
    #[test]
    fn failed_programs_are_nonzero_exits() {
        // Issue 21: the work failing is its own category, not the tool misused.
        for (text, slug) in [
            (
                "Exit code 101\n   Compiling x v0.1.0\nerror[E0425]: cannot find value `y` in this scope\ntest result: FAILED. internal error",
                "build-failed",
            ),
            ("Exit code 1\nsrc/a.ts(3,7): error TS2304: Cannot find name 'x'.", "build-failed"),
            ("Exit code 1\nFAILED tests/test_x.py::test_y - AssertionError\n=== 1 failed in 0.2s ===", "tests-failed"),
        ] {
            assert_eq!(
                classify_result_(Dialect::GEMINI, "run_shell_command", text, None).map(|r| r.id),
                Some(slug),
                "{text:?}"
            );
        }
        let cases = [
            "Exit code 2\nerror: unexpected argument '--frobnicate' found\n\nUsage: tool [OPTIONS]",
            "Exit code 1\n  1) page loads:\n     TimeoutError: locator.click: Timeout 5000ms exceeded.",
            "Output: \n> app@1.0.0 build\nError: (none)\nExit Code: 1\nSignal: (none)",
            "Exit code: 1\nWall time: 0.8 seconds\nOutput:\nunknown flag: --pr\n\nUsage:  gh run list [flags]",
        ];
        for text in cases {
            assert_eq!(
                classify_result_(Dialect::GEMINI, "run_shell_command", text, None).map(|r| r.id),
                Some("nonzero-exit"),
                "{text:?}"
            );
        }
        // A stored exit status (opencode) counts too.
        assert_eq!(
            classify_result_(Dialect::OPENCODE, "bash", "fatal: not a git repository", Some(128)).map(|r| r.id),
            Some("nonzero-exit")
        );
        assert_eq!(
            classify_result_(Dialect::OPENCODE, "bash", "/bin/bash: line 1: gh: command not found\n", Some(127))
                .map(|r| r.id),
            Some("command-not-found")
        );
        // Without an exit, the tool's own words classify.
        assert_eq!(
            classify_result_(Dialect::CLAUDE_CODE, "Bash", "Permission to use Bash has been denied.", None)
                .map(|r| r.category),
            Some(Category::PermissionDenied)
        );
    }

    /// Issue 12, shape 2: errors inside JSON envelopes.
    #[test]
    fn json_envelopes_are_judged_inside() {
        let judged = |tool: &str, text: &str| {
            let shown = present(tool, text);
            (detect_in(Dialect::CLAUDE_CODE, tool, &shown).map(|r| r.id), shown.into_owned())
        };
        let (rule, shown) = judged("mcp__serena__find_file", r#"{"result":"Error: No active project."}"#);
        assert_eq!((rule, shown.as_str()), (Some("error-prefix"), "Error: No active project."));
        for text in [
            r#"{"error": {"code": -32000, "message": "MCP server connection lost"}}"#,
            r#"{"status": "error", "message": "project not found"}"#,
            r#"{"success": false, "message": "Query failed"}"#,
            r#"{"isError": true, "content": [{"type": "text", "text": "boom"}]}"#,
        ] {
            assert_eq!(judged("mcp__x__y", text).0, Some(ENVELOPE_RULE), "{text}");
        }
        assert_eq!(
            judged("mcp__x__y", r#"{"error": {"code": -32000, "message": "lost"}}"#).1,
            "JSON envelope error: lost"
        );
        for text in [r#"{"error": null, "rows": []}"#, r#"{"success": true}"#, r#"{"status": "ok"}"#, "{not json"] {
            assert_eq!(judged("mcp__x__y", text).0, None, "{text}");
        }
        // Readers and shells return data, not envelopes, unless the object
        // is nothing but the tool's envelope (around a process, for a shell).
        assert_eq!(judged("read_file", r#"{"error": "fixture", "rows": [1]}"#).0, None);
        assert_eq!(judged("read_file", r#"{"error": "File not found"}"#).0, None, "a coding agent's reader");
        let custom = present_with_exit(Some(Dialect::LANGGRAPH), "read_file", r#"{"error": "File not found"}"#).0;
        assert_eq!(custom, "JSON envelope error: File not found", "a framework's custom reader");
        assert_eq!(judged("bash", r#"{"status": "error"}"#).0, None);
        let (shown, exit) = present_with_exit(
            None,
            "run_python",
            r#"{"stdout": "", "stderr": "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'", "exit_code": 1}"#,
        );
        assert!(shown.starts_with("JSON envelope error: Traceback") && shown.ends_with("Exit code 1"), "{shown}");
        assert_eq!(exit, Some(1));
        assert_eq!(present_with_exit(None, "run_python", r#"{"stdout": "ok", "stderr": "", "exit_code": 0}"#).1, None);
        // An HTTP error status and a code are failures too.
        assert_eq!(
            judged("notify", r#"{"message": "Requires authentication", "status": "401"}"#).0,
            Some(ENVELOPE_RULE)
        );
        assert_eq!(judged("notify", r#"{"error_code": "RATE_LIMITED", "retry_after": 3}"#).0, Some(ENVELOPE_RULE));
        assert_eq!(judged("notify", r#"{"status": 200, "error_code": null}"#).0, None);
    }

    #[test]
    fn tool_scope_limits_rules() {
        // The cross mark is only an error marker for folder_operations.
        assert!(detect("folder_operations", "✗ Folder not found: /x").is_some());
        assert!(detect("Bash", "✗ 2 tests failed").is_none());
        // subagent_type rules only classify the Agent tool.
        let text = "Error: please provide subagent_type parameter";
        assert_eq!(classify("Agent", text).unwrap().id, "agent-missing-subagent-type");
        assert_ne!(classify("Other", text).map(|r| r.id), Some("agent-missing-subagent-type"));
    }

    #[test]
    fn wrapper_is_stripped_before_classifying() {
        let pre = "Error: old_string not found in /a.rs";
        let post = "Tool execution failed: Edit - Error: old_string not found in /a.rs\nPlease Read this file";
        assert_eq!(classify("Edit", pre).unwrap().id, classify("Edit", post).unwrap().id);
        assert_eq!(unwrap_text(post).lines().next(), Some(pre));
        assert_eq!(unwrap_text("plain"), "plain");
    }

    #[test]
    fn benign_texts_are_not_errors() {
        let benign = [
            ("Grep", "src/edit.rs:42:        return Ok(format!(\"Error: old_string not found\"));"),
            ("Read", "     1\tError: connection refused\n     2\tERROR: disk full"),
            ("Bash", "building...\n[Exit code: 1]"),
            ("Bash", "[Command completed with exit code 1]"),
            ("Grep", "No matches found."),
            ("Glob", "No files found."),
            ("ExecuteExtraTool", "No completed background agent results available yet."),
        ];
        for (tool, text) in benign {
            assert!(detect(tool, text).is_none(), "{tool}: {text:?} is not an error");
        }
    }

    #[test]
    fn format_scope_limits_rules() {
        let crush = "FAIL\n\nExit code 1\n\n<cwd>/p</cwd>";
        assert_eq!(detect_in(Dialect::CRUSH, "bash", crush).map(|r| r.id), Some("exit-code-line"));
        assert!(detect_in(Dialect::PERI, "bash", crush).is_none(), "Crush's exit line means nothing elsewhere");
        // Any tool that reports a process exit (Crush's job_output), not a file's text.
        assert!(detect_in(Dialect::CRUSH, "job_output", crush).is_some());
        assert!(detect_in(Dialect::CRUSH, "view", "     1|Exit code 1").is_none());
        assert_eq!(detect_in(Dialect::LLM, "t", "Error: boom").map(|r| r.id), Some("llm-tool-error-output"));
        assert_eq!(detect_in(Dialect::PERI, "t", "Error: boom").map(|r| r.id), Some("error-prefix"));
        assert_eq!(classify_in(Dialect::LLM, "t", "Cancelled: no").map(|r| r.id), Some("llm-hook-cancelled"));
        assert!(classify_in(Dialect::PERI, "t", "Cancelled: no").is_none());
    }

    #[test]
    fn every_scope_names_a_dialect_tracelint_reads() {
        let scopes =
            CONTENT_RULES.iter().map(|r| (r.id, r.formats)).chain(CLASS_RULES.iter().map(|r| (r.id, r.formats)));
        for (id, scope) in scopes {
            for d in scope {
                assert_eq!(Dialect::from_name(d.as_str()), Some(*d), "{id}: unknown dialect {d}");
            }
        }
    }

    #[test]
    fn exit_codes_and_benign_exits() {
        use serde_json::json;
        // A search that finds nothing prints nothing.
        let text = |code: i64| format!("\n\nExit code {code}\n\n<cwd>/p</cwd>");
        let cmd = |c: &str| json!({"command": c});
        let rule =
            |c: &str, code: i64| detect_result_(Dialect::CRUSH, "bash", &cmd(c), &text(code), None).map(|r| r.id);
        assert_eq!(rule("cargo test", 101), Some("exit-code-line"));
        assert_eq!(rule("grep -rn x src", 1), None, "grep found nothing");
        assert_eq!(rule("grep -rn x src", 2), Some("exit-code-line"), "grep itself failed");
        assert_eq!(rule("cd /p && git diff --exit-code", 1), None);
        assert_eq!(rule("grep x f | wc -l", 1), Some("exit-code-line"));
        // Issue 12, shape 6: an alternation inside quotes is not a pipe.
        assert_eq!(rule("grep -r \"a\\|b\" dir", 1), None);
        assert_eq!(rule("rg -n \"LEVEL|OTHER\" -g \"*.md\"", 1), None);
        assert_eq!(rule("sudo timeout 5 grep -q x /etc/hosts", 1), None);
        // A search that printed an error failed, whatever its exit code.
        let noisy = "rg: regex parse error:\n    (?:x\\y)\nerror: unrecognized escape sequence\n\nExit code 1";
        assert!(detect_result_(Dialect::CRUSH, "bash", &cmd("rg 'x\\y'"), noisy, None).is_some());
        // A failed search ends an `&&` list and prints nothing.
        assert_eq!(rule("rg -n x a.py && sed -n '1,9p' a.py", 1), None);
        assert_eq!(rule("make && sed -n '1,9p' a.py", 1), Some("exit-code-line"));
        // Issue 12, shape 11: Ctrl+C sent on purpose, then exit 1 or 130.
        let ctrl_c = json!({"session_id": 1885, "chars": "\u{3}", "yield_time_ms": 1000});
        let exited = |code: i64| {
            format!("Chunk ID: 06e30f\nWall time: 0.05 seconds\nProcess exited with code {code}\nOutput:\n^C")
        };
        assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(130), None).is_none());
        assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(1), None).is_none());
        assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(2), None).is_some());
        let typed = json!({"session_id": 1885, "chars": "y\n"});
        assert!(detect_result_(Dialect::CODEX, "write_stdin", &typed, &exited(1), None).is_some());
        // A script that printed `ERROR:` and exited 0 did not fail.
        let script = "ERROR: Multiple spec directories found with prefix '001'\nCopied plan template";
        assert!(detect_result_(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, Some(0)).is_none());
        assert!(detect_result_(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, None).is_some());
        // Gemini's and Codex's shapes go through the same logic.
        let gemini = "Command: findstr /s foo *.md\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 4068";
        assert!(
            detect_result_(Dialect::GEMINI, "run_shell_command", &cmd("findstr /s foo *.md"), gemini, None).is_none()
        );
        assert!(detect_result_(Dialect::GEMINI, "run_shell_command", &cmd("npm run lint"), gemini, None).is_some());
        // A structured exit status (opencode) goes through the same rule.
        let structured =
            |c: &str, code| detect_result_(Dialect::OPENCODE, "bash", &cmd(c), "out", Some(code)).map(|r| r.id);
        assert_eq!(structured("make", 2), Some("exit-code-line"));
        let quiet = detect_result_(Dialect::OPENCODE, "bash", &cmd("rg foo"), "", Some(1));
        assert_eq!(quiet.map(|r| r.id), None, "rg found nothing");
        // The silence is the output's, not the presented `Exit code 1` line's.
        assert_eq!(structured("rg foo", 1), Some("exit-code-line"), "rg printed something and exited 1");
        assert_eq!(structured("make", 0), None);
        assert!(detect_result_(Dialect::PERI, "bash", &cmd("make"), "out", Some(2)).is_none(), "no rule for peri");
        // The exit line at the end of a long output is still seen.
        let long = format!("{}\nExit code 3\n", "x".repeat(3 * EXAMINED_PREFIX_BYTES));
        assert_eq!(
            detect_result_(Dialect::CRUSH, "bash", &cmd("make"), &long, None).map(|r| r.id),
            Some("exit-code-line")
        );
    }

    #[test]
    fn benign_exit_entries_behave() {
        for (b, re) in benign::BENIGN_EXITS.iter().zip(&COMPILED.benign) {
            for r in b.rules {
                assert!(CONTENT_RULES.iter().any(|c| c.id == *r), "{}: unknown rule {r}", b.id);
            }
            for c in b.fires_on {
                assert!(re.is_match(&benign::last_command(c)), "{} must match {c:?}", b.id);
            }
            for c in b.ignores {
                assert!(!re.is_match(&benign::last_command(c)), "{} must ignore {c:?}", b.id);
            }
        }
        assert_eq!(benign::command_line(&serde_json::json!({"cmd": ["bash", "-lc", "rg x"]})).unwrap(), "rg x");
        assert_eq!(benign::command_line(&serde_json::json!({"cmd": ["rg", "x"]})).unwrap(), "rg x");
        // PowerShell's and cmd's scripts are read as their commands.
        let ps = "powershell.exe -NoProfile -Command \"git diff --no-index --name-status -- a b\"";
        assert_eq!(benign::last_command(ps), "git diff --no-index --name-status -- a b");
        assert_eq!(benign::last_command("cmd /c \"findstr /s x *.md\""), "findstr /s x *.md");
        let quiet = serde_json::json!({"command": "", "is_input": true});
        let wait = "[Below is the output of the previous command.]\n[The command has no new output after 10 seconds. You may wait longer]";
        assert!(detect_result_(Dialect::OPENHANDS, "execute_bash", &quiet, wait, None).is_none(), "a deliberate wait");
        let started = serde_json::json!({"command": "npm run dev"});
        assert!(detect_result_(Dialect::OPENHANDS, "execute_bash", &started, wait, None).is_some());
    }

    #[test]
    fn unclassified_error_is_other() {
        assert!(classify("Edit", "Error: unexpected state while applying the edit to /a.rs").is_none());
    }

    #[test]
    fn huge_text_is_cut_at_a_char_boundary() {
        let text = format!("Error: {}", "é".repeat(EXAMINED_PREFIX_BYTES));
        let head = examined(&text);
        assert!(head.len() <= 2 * EXAMINED_PREFIX_BYTES + 1, "head, newline, tail");
        assert!(detect("Read", &text).is_some());
    }

    #[test]
    fn cline_commands_that_failed_are_hidden_errors_and_searches_finding_nothing_are_not() {
        let input = |c: &str| serde_json::json!({ "command": c });
        let failed = "Command failed with exit code 1.\nOutput:\nERROR: (gcloud.sql.connect) Psql client not found";
        let hit = detect_result_(Dialect::CLINE, "execute_command", &input("gcloud sql connect db"), failed, None);
        assert_eq!(hit.map(|r| r.id), Some("cline-command-failed"));
        let nothing = "Command failed with exit code 1.\nOutput:\n";
        assert!(
            detect_result_(Dialect::CLINE, "execute_command", &input("grep -r needle src"), nothing, None).is_none()
        );
        assert_eq!(exit_code_of(failed), Some(1));
        assert!(
            detect_result_(Dialect::CLAUDE_CODE, "Bash", &input("x"), failed, None).is_none(),
            "scoped to Cline and Roo"
        );
    }
}
