//! Judging a session: pair its calls, apply both signals to every pair,
//! classify every failure (content rules, tool schemas, stale edits from
//! the session's order), run the sequence analyses and emit the findings.
//! Everything that decides is here; aggregation only counts.
#![warn(missing_docs)]

pub mod findings;
pub mod normalize;
pub mod sequence;
pub(crate) mod tokens;

use std::borrow::Cow;
use std::sync::Arc;

use chrono::{DateTime, Utc};

pub use crate::model::Usage;
use crate::model::{Args, Call, Dialect, Event, Malformed, Session, ToolResult};
use crate::pair::pair;
use crate::redact::Redaction;
use crate::rules::tools::{FileEffect, file_effect, file_path};
use crate::rules::{self, Category, JudgeReason};
use crate::sanitize;
use crate::schema::{SchemaSet, Violation, validate_args};
pub use findings::{Counted, SessionFinding};

/// Longest error message kept as evidence, in characters.
pub const MESSAGE_CHARS: usize = 200;

/// Why and how a call failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The source flagged the result as an error.
    pub flagged: bool,
    /// The content rule that fired, if any.
    pub content_rule: Option<&'static str>,
    /// The failure's category.
    pub category: Category,
    /// The classification rule behind the category, or the judge's own
    /// reason (`rules::JudgeReason`: `unclassified` if no rule matched).
    /// Every value is in `rules::REGISTRY.reason_ids()`.
    pub reason: &'static str,
    /// A short human label for `reason`.
    pub label: &'static str,
    /// The first line of the error text, sanitized and truncated.
    pub message: String,
    /// `message` with its variable parts replaced (see `normalize`).
    pub template: String,
}

impl Failure {
    /// Content says failure, the flag says success.
    pub fn is_hidden(&self) -> bool {
        self.content_rule.is_some() && !self.flagged
    }
}

/// What came of a call: no result, a success, or a failure.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No result was recorded for the call.
    Unpaired,
    /// The result says the call worked.
    Success,
    /// The call failed, and why.
    Failed(Failure),
}

/// Per file a session's calls touched, whether its last successful call
/// modified it with no successful read since (for stale edits).
pub type FileStates<'a> = foldhash::HashMap<Cow<'a, str>, bool>;

/// One call of a session, paired with its result and judged.
#[derive(Debug, Clone)]
pub struct JudgedCall {
    /// The call's position in the session, from 1.
    pub seq: usize,
    /// The id the source gave the call.
    pub call_id: String,
    /// The name of the tool called.
    pub tool: String,
    /// The arguments of the call, for the sequence analyses.
    pub input: Args,
    /// When the call was made, if the source records it.
    pub time: Option<DateTime<Utc>>,
    /// Where the call is stored (a rowid or line number), for evidence.
    pub row: i64,
    /// Whether the call worked, and if not why.
    pub outcome: Outcome,
    /// How the arguments violate the tool's schema, most telling first;
    /// `None` when the tool has no schema.
    pub violations: Option<Vec<Violation>>,
    /// The result it was paired with, as read.
    pub result: Option<ToolResult>,
    /// The tokens of the response that emitted the call, if recorded.
    pub usage: Option<Arc<crate::model::Usage>>,
    /// How many calls of the session that response emitted: the call's
    /// share of its tokens is `1 / share` (1 without usage).
    pub share: u32,
    /// The call's place among them, from 0.
    pub rank: u32,
}

impl JudgedCall {
    /// The call's share of its response's `tokens` (`Usage::tokens` or one
    /// kind of them): an equal part, the remainder going to the response's
    /// first calls so that the shares sum to the whole. `None` without
    /// usage.
    pub fn share_of(&self, tokens: impl Fn(&crate::model::Usage) -> u64) -> Option<u64> {
        let u = self.usage.as_deref()?;
        let whole = tokens(u);
        let n = u64::from(self.share.max(1));
        Some(whole / n + u64::from(u64::from(self.rank) < whole % n))
    }
}

/// A result whose call is not in the session.
#[derive(Debug, Clone)]
pub struct Orphan {
    /// The id of the call it claims to answer.
    pub call_id: String,
    /// Where the result is stored (a rowid or line number), for evidence.
    pub row: i64,
    /// When the result was recorded, if the source records it.
    pub time: Option<DateTime<Utc>>,
}

/// A session after judging: its calls, orphans, sequences and findings.
#[derive(Debug, Clone)]
pub struct JudgedSession {
    /// The session's id in its source.
    pub id: String,
    /// Whose conventions the session follows (its SQLite format, or the
    /// agent of its transcript): its built-in tool schemas and scoped rules
    /// are that dialect's. Printed as `agent` in reports and exports.
    pub dialect: Dialect,
    /// The id of the session that started it, for a sub-agent's.
    pub parent: Option<String>,
    /// When the session started, as its source records it.
    pub started: Option<chrono::DateTime<chrono::Utc>>,
    /// The file it was read from (a folder's transcripts), redacted.
    pub origin: Option<String>,
    /// The session's calls, in order, each judged.
    pub calls: Vec<JudgedCall>,
    /// Results that answer no call of the session.
    pub orphans: Vec<Orphan>,
    /// Indexes into `calls` of calls that reuse an earlier call's id.
    pub duplicates: Vec<usize>,
    /// Rows of the session the adapter could not read.
    pub malformed: Vec<Malformed>,
    /// Streaks, recovery, oscillations and repairs of the session.
    pub sequences: sequence::SessionSequences,
    /// The tool schemas its calls were validated against (its dialect's).
    pub schemas: Arc<SchemaSet>,
    /// The defects found in the session, in emission order.
    pub findings: Vec<SessionFinding>,
}

/// What the judge is told besides the tool schemas, the same for every
/// source of a run: how long a failure streak must be to be flagged, and
/// whether the trace text it quotes is redacted (`--no-redact`). The
/// aggregator takes them too: it finishes the streaks and places findings
/// with the judge's threshold and redaction, so the two cannot disagree.
#[derive(Debug, Clone, Copy)]
pub struct JudgeOptions {
    /// Streaks this long or longer are reported (Peri's guard fires at 5).
    pub streak_threshold: usize,
    /// Whether quoted trace text is redacted (`--no-redact` turns it off).
    pub redaction: Redaction,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions { streak_threshold: sequence::DEFAULT_STREAK_THRESHOLD, redaction: Redaction::On }
    }
}

/// Judges the sessions of one source: the tool schemas in effect for it and
/// the settings of the analyses.
#[derive(Default, Clone)]
pub struct Judge {
    schemas: Arc<SchemaSet>,
    /// Each dialect's own schemas, for the sessions of a source holding
    /// several dialects (a folder of several agents' transcripts); a
    /// session of a dialect not listed is judged with `schemas`.
    by_dialect: Vec<(Dialect, Arc<SchemaSet>)>,
    streak_threshold: usize,
    redaction: Redaction,
}

impl Judge {
    /// A judge with these schemas, flagging failure streaks of at least `streak_threshold` (2 or more).
    pub fn new(schemas: Arc<SchemaSet>, streak_threshold: usize) -> Judge {
        Judge { schemas, by_dialect: Vec::new(), streak_threshold: streak_threshold.max(2), redaction: Redaction::On }
    }

    /// Judge the sessions of `dialect` with `schemas` instead.
    pub fn add_dialect(&mut self, dialect: Dialect, schemas: Arc<SchemaSet>) {
        self.by_dialect.push((dialect, schemas));
    }

    /// The same judge, redacting as `redaction` says (`--no-redact`).
    pub fn redacting(self, redaction: Redaction) -> Judge {
        Judge { redaction, ..self }
    }

    /// The tool schemas this judge validates against.
    pub fn schemas(&self) -> &Arc<SchemaSet> {
        &self.schemas
    }

    /// The tool schemas of `dialect`'s sessions.
    pub fn schemas_of(&self, dialect: Dialect) -> &Arc<SchemaSet> {
        self.by_dialect.iter().find(|(d, _)| *d == dialect).map_or(&self.schemas, |(_, s)| s)
    }

    /// The streak length from which a run of hidden failures is a finding.
    pub fn streak_threshold(&self) -> usize {
        self.streak_threshold.max(2)
    }

    /// Judge every call of a session, then analyse its order and list its
    /// findings.
    pub fn judge(&self, session: Session) -> JudgedSession {
        self.judge_in(session, None)
    }

    /// `judge` for a session of the source at `source`: the configuration's
    /// `per-path-ignores` for its transcript file (its `origin`), else for
    /// the source, apply.
    pub fn judge_in(&self, session: Session, source: Option<&std::path::Path>) -> JudgedSession {
        let config = crate::config::active();
        let at = config.paths_matching(session.origin.as_deref().map(std::path::Path::new).or(source));
        let schemas = self.schemas_of(session.dialect).clone();
        let mut s = judge_calls(session, self.redaction, &at);
        if !schemas.is_empty() {
            for c in &mut s.calls {
                c.violations = schemas.get(&c.tool).map(|ts| validate_args(ts, &c.input));
                reclassify(c);
            }
        }
        s.schemas = schemas;
        hide_secrets(&mut s, self.redaction);
        s.sequences = sequence::analyze(&s);
        s.findings = findings::of_session(&s, self.streak_threshold());
        s.findings.retain(|f| config.keeps_finding_at(f.rule.as_str(), &at));
        s
    }
}

/// One call and its result judged alone, exactly as `Judge::judge` judges
/// them inside their session (the live guard's entrance): `modified_unread`
/// says, per file, whether an earlier successful call of the session
/// modified it with no successful read since (stale edits). The tool
/// schemas are built only when a failure is left unclassified, the one
/// case where they change the verdict.
pub fn judge_alone(
    dialect: Dialect,
    call: &Call,
    result: &ToolResult,
    modified_unread: &FileStates<'_>,
    redaction: Redaction,
    schemas: impl FnOnce() -> Arc<SchemaSet>,
) -> Outcome {
    let outcome = judge_pair(dialect, call, result, modified_unread, (redaction, &[]));
    if !matches!(&outcome, Outcome::Failed(f) if f.category == Category::Other) {
        return outcome;
    }
    let schemas = schemas();
    let mut c = JudgedCall {
        seq: 1,
        call_id: String::new(),
        tool: call.tool.clone(),
        input: Args::default(),
        time: None,
        row: 0,
        outcome,
        violations: schemas.get(&call.tool).map(|ts| validate_args(ts, &call.input)),
        result: None,
        usage: None,
        share: 1,
        rank: 0,
    };
    reclassify(&mut c);
    c.outcome
}

/// A failed call whose message no rule classified gets the category of its
/// first schema violation: the arguments say what the text did not.
fn reclassify(c: &mut JudgedCall) {
    if let (Outcome::Failed(f), Some(first)) = (&mut c.outcome, c.violations.as_ref().and_then(|v| v.first()))
        && f.category == Category::Other
    {
        f.category = first.category;
        f.reason = JudgeReason::SchemaViolation.id();
        f.label = JudgeReason::SchemaViolation.label();
    }
}

/// Judge a session with no tool schemas and the default streak threshold.
pub fn judge(session: Session) -> JudgedSession {
    Judge::new(Arc::default(), sequence::DEFAULT_STREAK_THRESHOLD).judge(session)
}

/// Secrets in what names a call (tool names, ids, the session id) and in
/// what is said about it (schema violations, malformed rows) replaced,
/// once the names have served to pair calls and look up schemas, and
/// before anything groups, counts or prints them.
fn hide_secrets(s: &mut JudgedSession, redaction: Redaction) {
    if redaction == Redaction::Off {
        return;
    }
    let hide = |t: &mut String| {
        if let std::borrow::Cow::Owned(o) = redaction.apply(t) {
            *t = o;
        }
    };
    hide(&mut s.id);
    if let Some(p) = s.parent.as_mut() {
        hide(p);
    }
    if let Some(o) = s.origin.as_mut() {
        hide(o);
    }
    // Call ids are searched for secrets all at once first: most hold none.
    let ids_may_hold = crate::redact::may_hold_secret(s.calls.iter().map(|c| c.call_id.as_str()));
    // A session calls a few tools many times: each name is read once.
    let mut tools: Vec<(String, Option<String>)> = Vec::new();
    for c in &mut s.calls {
        let known = tools.iter().position(|(name, _)| *name == c.tool);
        let i = known.unwrap_or_else(|| {
            let hidden = match redaction.apply(&c.tool) {
                std::borrow::Cow::Owned(o) => Some(o),
                std::borrow::Cow::Borrowed(_) => None,
            };
            tools.push((c.tool.clone(), hidden));
            tools.len() - 1
        });
        if let Some(hidden) = &tools[i].1 {
            c.tool.clone_from(hidden);
        }
        if ids_may_hold {
            hide(&mut c.call_id);
        }
        for v in c.violations.iter_mut().flatten() {
            hide(&mut v.text);
        }
    }
    for o in &mut s.orphans {
        hide(&mut o.call_id);
    }
    for m in &mut s.malformed {
        hide(&mut m.problem);
    }
}

/// Pair a session's calls and judge each pair by both signals and the
/// classification rules, with stale edits decided in call order.
fn judge_calls(session: Session, redaction: Redaction, at: &[usize]) -> JudgedSession {
    let mut calls_in: Vec<Call> = Vec::new();
    let mut results: Vec<ToolResult> = Vec::new();
    for event in session.events {
        match event {
            Event::Call(c) => calls_in.push(c),
            Event::Result(r) => results.push(r),
        }
    }
    let mut paired = pair(&calls_in, &results);
    // Calls without an id share none: they are not reused ids.
    paired.duplicates.retain(|&i| !calls_in[i].id.is_empty());
    // Per file: was it modified by a successful edit/write with no successful
    // read since? Walked in call order, so only earlier calls count.
    let mut modified_unread: FileStates<'_> = FileStates::default();
    let mut outcomes = Vec::with_capacity(paired.pairs.len());
    let mut background = Background::default();
    for p in &paired.pairs {
        let call = &calls_in[p.call];
        let outcome = match p.result.map(|r| &results[r]) {
            None => Outcome::Unpaired,
            Some(result) => {
                // A poll is judged with the command it polls, for the benign
                // exits (a background `rg` that found nothing).
                let polled = background.polled(session.dialect, call);
                let outcome = judge_pair(
                    session.dialect,
                    polled.as_ref().unwrap_or(call),
                    result,
                    &modified_unread,
                    (redaction, at),
                );
                background.note(session.dialect, call, result);
                outcome
            }
        };
        if outcome == Outcome::Success
            && let Some((effect, path)) = file_effect(&call.tool, &call.input)
        {
            modified_unread.insert(path, effect == FileEffect::Modifies);
        }
        outcomes.push(outcome);
    }
    let orphans = paired
        .orphans
        .iter()
        .map(|&r| &results[r])
        .map(|r| Orphan { call_id: r.call_id.clone(), row: r.row, time: r.time.or(session.started) })
        .collect();
    // Each result moves into the call it answers (kept for drill-down).
    let mut results: Vec<Option<ToolResult>> = results.into_iter().map(Some).collect();
    let (shares, ranks) = response_shares(&calls_in);
    let calls = paired
        .pairs
        .iter()
        .zip(outcomes)
        .zip(calls_in)
        .map(|((p, outcome), call)| JudgedCall {
            seq: p.seq,
            // A call its source gave no id (paired by order) is shown by its place.
            call_id: if call.id.is_empty() { crate::model::synthetic_id(p.seq) } else { call.id },
            tool: call.tool,
            input: call.input,
            time: call.time.or(session.started),
            row: call.row,
            outcome,
            violations: None,
            result: p.result.and_then(|r| results.get_mut(r).and_then(Option::take)),
            usage: call.usage,
            share: shares[p.call],
            rank: ranks[p.call],
        })
        .collect();
    JudgedSession {
        id: session.id,
        dialect: session.dialect,
        parent: session.parent,
        started: session.started,
        origin: session.origin,
        calls,
        orphans,
        duplicates: paired.duplicates,
        malformed: session.malformed,
        sequences: sequence::SessionSequences::default(),
        schemas: Arc::default(),
        findings: Vec::new(),
    }
}

/// Per call, how many calls of the session share its response (by the
/// response's id) and its place among them; 1 and 0 for a call without
/// usage. Most sessions record none: they are answered without a map.
fn response_shares(calls: &[Call]) -> (Vec<u32>, Vec<u32>) {
    let mut shares = vec![1u32; calls.len()];
    let mut ranks = vec![0u32; calls.len()];
    if calls.iter().all(|c| c.usage.is_none()) {
        return (shares, ranks);
    }
    let mut seen: foldhash::HashMap<&str, (u32, Vec<usize>)> = foldhash::HashMap::default();
    for (i, c) in calls.iter().enumerate() {
        if let Some(u) = &c.usage {
            let e = seen.entry(u.response.as_str()).or_default();
            ranks[i] = e.0;
            e.0 += 1;
            e.1.push(i);
        }
    }
    for (n, members) in seen.into_values() {
        for i in members {
            shares[i] = n;
        }
    }
    (shares, ranks)
}

/// Commands a call started in the background, by the id a later call polls
/// them with: Codex's unified exec (`Process running with session ID N`,
/// polled by `write_stdin`'s `session_id`) and Claude Code's background
/// Bash (`Command running in background with ID: X`, polled by
/// `TaskOutput`'s `task_id` or `BashOutput`'s `bash_id`). The poll's result
/// is the command's: its exit status means what the command's would (a
/// search that found nothing), so the poll is judged with that command.
#[derive(Default)]
struct Background {
    started: std::collections::HashMap<String, String>,
}

impl Background {
    /// The tool that starts a background command in each dialect, and the
    /// words its result gives the id with.
    const STARTERS: [(Dialect, &'static str, &'static str); 2] = [
        (Dialect::CODEX, "exec_command", "Process running with session ID "),
        (Dialect::CLAUDE_CODE, "Bash", "Command running in background with ID: "),
    ];

    /// Remember the command `call` started, if its result says it runs on.
    fn note(&mut self, dialect: Dialect, call: &Call, result: &ToolResult) {
        // Only the starting tool's results are searched: a poll or a reader
        // may quote the words.
        let Some((_, _, marker)) = Self::STARTERS.iter().find(|(d, t, _)| *d == dialect && *t == call.tool) else {
            return;
        };
        let Some(at) = result.text.find(marker) else { return };
        let id: String = result.text[at + marker.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        if id.is_empty() {
            return;
        }
        if let Some(command) = rules::benign::command_line(&call.input) {
            self.started.insert(id, command);
        }
    }

    /// `call` with the command it polls as its `cmd`, when it polls one.
    fn polled(&self, dialect: Dialect, call: &Call) -> Option<Call> {
        if self.started.is_empty() {
            return None;
        }
        let key = match (dialect, call.tool.as_str()) {
            (Dialect::CODEX, "write_stdin") => "session_id",
            (Dialect::CLAUDE_CODE, "TaskOutput") => "task_id",
            (Dialect::CLAUDE_CODE, "BashOutput") => "bash_id",
            _ => return None,
        };
        let id = match call.input.value().get(key)? {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return None,
        };
        let command = self.started.get(&id)?;
        let mut input = match call.input.value() {
            serde_json::Value::Object(o) => o.clone(),
            _ => serde_json::Map::new(),
        };
        input.insert("cmd".into(), serde_json::Value::String(command.clone()));
        Some(Call { input: serde_json::Value::Object(input).into(), ..call.clone() })
    }
}

/// Both signals, the category and, for anchors not found, staleness.
fn judge_pair(
    format: Dialect,
    call: &Call,
    result: &ToolResult,
    modified_unread: &FileStates<'_>,
    (redaction, at): (Redaction, &[usize]),
) -> Outcome {
    let flagged = result.flag == Some(true);
    // Read as a terminal shows it, a JSON envelope judged inside (see `rules::present`).
    let plain = rules::plain(&result.text);
    let (text, envelope_exit) = rules::present_with_exit(Some(format), &call.tool, &plain);
    let reading = rules::Reading {
        dialect: format,
        tool: &call.tool,
        input: &call.input,
        text: &text,
        exit_code: result.exit_code.or(envelope_exit),
        flagged,
    };
    // The configuration's own shapes first (docs/config.md): a benign one
    // is no failure; a custom rule decides the failure and its category.
    let config = crate::config::active();
    let custom = if config.is_empty() { None } else { config.judge(&call.tool, call.input.value(), &plain, &text) };
    let (mut content_rule, category, reason, label) = match custom {
        Some(crate::config::Verdict::Benign(_)) => return Outcome::Success,
        Some(crate::config::Verdict::Fails(rule)) => (Some(rule.id), rule.category, rule.id, rule.label),
        None => {
            let content = rules::detect_result(&reading).filter(|c| !config.ignores_id(c.id));
            if !flagged && content.is_none() {
                return Outcome::Success;
            }
            let class = rules::classify_result(&reading, content);
            (
                content.map(|r| r.id),
                class.map_or(Category::Other, |r| r.category),
                class.map_or(JudgeReason::Unclassified.id(), |r| r.id),
                class.map_or(JudgeReason::Unclassified.label(), |r| r.label),
            )
        }
    };
    // A verdict `ignore` or `select` drops is falseok's own; the source's flag stays.
    if content_rule.is_some_and(|id| !config.keeps_at(id, category, at, &call.tool)) {
        if !flagged {
            return Outcome::Success;
        }
        content_rule = None;
    }
    let unwrapped = rules::unwrap_text(&text);
    // Secrets go first, from the whole text (a key block spans lines):
    // normalizing would break a token's shape (`xoxb-<n>-…`) and the cut a
    // key's length, and what is left of them would be shown.
    let examined = rules::examined(unwrapped);
    let shown = redaction.apply(&examined);
    // The most informative line, sanitized and redacted again (a key split
    // by invisible characters is whole once they are gone): the message
    // is it cut, the template its placeholders.
    let line = normalize::shown_line(&shown, redaction);
    let message = sanitize::truncate(&line, MESSAGE_CHARS);
    let mut failure = Failure {
        flagged,
        content_rule,
        category,
        reason,
        label,
        // From the whole line: truncating first would split one template in two.
        template: normalize::placeholders(&line),
        message,
    };
    if failure.category == Category::EditMatchNotFound {
        let stale = file_path(&call.tool, &call.input)
            .is_some_and(|path| modified_unread.get(&*path).copied().unwrap_or(false));
        if stale {
            failure.category = Category::StaleEditMatch;
            failure.reason = JudgeReason::StaleAfterOwnEdit.id();
            failure.label = JudgeReason::StaleAfterOwnEdit.label();
        }
    }
    Outcome::Failed(failure)
}

/// The one-line fix of the configuration's custom rule `id`
/// (docs/config.md), when `id` names one: the judge applies those rules,
/// and the report's headlines quote their fix.
pub(crate) fn custom_fix(id: &str) -> Option<&'static str> {
    crate::config::active().rules.iter().find(|c| c.id == id).map(|c| c.fix.as_str())
}

#[cfg(test)]
mod catalogue;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, Event, ToolResult};
    use serde_json::{Value, json};

    struct Builder {
        events: Vec<Event>,
        n: i64,
    }

    impl Builder {
        fn new() -> Self {
            Builder { events: vec![], n: 0 }
        }
        fn call(mut self, tool: &str, input: Value, text: &str, flag: Option<bool>) -> Self {
            self.n += 1;
            let id = format!("c{}", self.n);
            self.events.push(Event::Call(Call {
                id: id.clone(),
                tool: tool.into(),
                input: input.into(),
                time: None,
                row: self.n,
                usage: None,
            }));
            self.events.push(Event::Result(ToolResult {
                truncated: false,
                call_id: id,
                text: text.into(),
                flag,
                exit_code: None,
                time: None,
                row: self.n,
            }));
            self
        }
        fn judge(self) -> JudgedSession {
            judge(Session { id: "s".into(), events: self.events, ..Session::default() })
        }
        fn judge_as(self, dialect: Dialect) -> JudgedSession {
            judge(Session { id: "s".into(), dialect, events: self.events, ..Session::default() })
        }
    }

    /// A poll of a background command is judged with that command: a
    /// background `rg` or `grep` that found nothing (exit 1) is an answer
    /// when Codex's `write_stdin` or Claude Code's `TaskOutput` reports it;
    /// a poll of a command the session never started, or of a build that
    /// failed, is still judged by its exit.
    #[test]
    fn a_poll_is_judged_with_the_command_it_polls() {
        let running = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 57423\nOriginal token count: 0\nOutput:\n";
        let exited =
            "Chunk ID: 2\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n";
        let poll = json!({"session_id": 57423, "chars": "", "yield_time_ms": 1000});
        let s = Builder::new()
            .call("exec_command", json!({"cmd": "rg -n sdk_server src"}), running, None)
            .call("write_stdin", poll.clone(), exited, None)
            .judge_as(Dialect::CODEX);
        assert_eq!(s.calls[1].outcome, Outcome::Success, "the polled rg found nothing");
        let s = Builder::new()
            .call("exec_command", json!({"cmd": "cargo build"}), running, None)
            .call("write_stdin", poll.clone(), exited, None)
            .judge_as(Dialect::CODEX);
        assert!(failure(&s.calls[1]).is_hidden(), "the polled build failed");
        let s = Builder::new().call("write_stdin", poll, exited, None).judge_as(Dialect::CODEX);
        assert!(failure(&s.calls[0]).is_hidden(), "no command is known: the exit speaks");
        let started = "Command running in background with ID: b69wgle41. Output is being written to: /tmp/x.output";
        let done = "<retrieval_status>success</retrieval_status>\n\n<task_id>b69wgle41</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>";
        let s = Builder::new()
            .call("Bash", json!({"command": "grep -rn TODO src", "run_in_background": true}), started, Some(false))
            .call("TaskOutput", json!({"task_id": "b69wgle41", "block": true}), done, Some(false))
            .judge_as(Dialect::CLAUDE_CODE);
        assert_eq!(s.calls[1].outcome, Outcome::Success, "the background grep found nothing");
    }

    fn failure(c: &JudgedCall) -> &Failure {
        match &c.outcome {
            Outcome::Failed(f) => f,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    const NOT_FOUND: &str = "Error: old_string not found in /a.rs";

    #[test]
    fn both_signals() {
        let s = Builder::new()
            .call("Agent", json!({}), "Error: please provide subagent_type parameter", Some(false))
            .call("Task", json!({}), "the flag is set", Some(true))
            .call("Edit", json!({}), "Tool execution failed: Edit - Error: old_string not found in /x", Some(true))
            .call("Read", json!({}), "     1\tError: x", Some(false))
            .judge();
        let hidden = failure(&s.calls[0]);
        assert!(hidden.is_hidden());
        assert_eq!(hidden.category, Category::MissingRequiredParam);
        let flag_only = failure(&s.calls[1]);
        assert!(flag_only.flagged && flag_only.content_rule.is_none());
        assert_eq!(flag_only.category, Category::Other);
        let both = failure(&s.calls[2]);
        assert!(both.flagged && !both.is_hidden());
        assert_eq!(both.message, "Error: old_string not found in /x");
        assert_eq!(s.calls[3].outcome, Outcome::Success);
    }

    /// A tool name is read for secrets once a session, and every call of
    /// the tool gets the redacted name (and none without redaction).
    #[test]
    fn secrets_in_tool_names_are_hidden_on_every_call() {
        let secret = "mcp__x__sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA";
        let session = || {
            let events = Builder::new()
                .call(secret, json!({}), "ok", Some(false))
                .call("Read", json!({}), "ok", Some(false))
                .call(secret, json!({}), "ok", Some(false))
                .events;
            Session { id: "s".into(), events, ..Session::default() }
        };
        let judge = Judge::new(Arc::default(), sequence::DEFAULT_STREAK_THRESHOLD);
        let on = judge.clone().judge(session());
        let tools: Vec<&str> = on.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools[1], "Read");
        assert!(tools[0] == tools[2] && !tools[0].contains("AAAAAAAA"), "{tools:?}");
        let off = judge.redacting(Redaction::Off).judge(session());
        assert!(off.calls.iter().filter(|c| c.tool == secret).count() == 2);
    }

    #[test]
    fn absent_or_unknown_flag_with_clean_text_is_success() {
        let s = Builder::new().call("Read", json!({}), "fine", None).judge();
        assert_eq!(s.calls[0].outcome, Outcome::Success);
    }

    #[test]
    fn stale_needs_an_earlier_successful_modification_and_no_read_since() {
        let f = |p: &str| json!({"file_path": p, "old_string": "x", "new_string": "y"});
        let s = Builder::new()
            .call("Edit", f("/a.rs"), "Replaced text (same line count) to a.rs", Some(false))
            .call("Edit", f("/a.rs"), NOT_FOUND, Some(false)) // stale
            .call("Read", f("/a.rs"), "     1\tx", Some(false))
            .call("Edit", f("/a.rs"), NOT_FOUND, Some(false)) // read since: not stale
            .call("Write", json!({"file_path": "/b.rs", "content": ""}), "Wrote 1 line(s) b.rs", Some(false))
            .call("Edit", f("/b.rs"), NOT_FOUND, Some(false)) // stale after a write
            .call("Edit", f("/c.rs"), NOT_FOUND, Some(false)) // never modified
            .call("Edit", f("/c.rs"), "Error: old_string is not unique in /c.rs", Some(false))
            .call("Edit", f("/c.rs"), NOT_FOUND, Some(false)) // failed edits do not modify
            .call("Read", f("/d.rs"), "Error: File not found at /d.rs", Some(false))
            .call("Edit", f("/b.rs"), NOT_FOUND, Some(false)) // a failed read of another file
            .judge();
        let cats: Vec<_> = s
            .calls
            .iter()
            .map(|c| match &c.outcome {
                Outcome::Failed(f) => f.category.as_str(),
                _ => "ok",
            })
            .collect();
        assert_eq!(
            cats,
            vec![
                "ok",
                "stale-edit-match",
                "ok",
                "edit-match-not-found",
                "ok",
                "stale-edit-match",
                "edit-match-not-found",
                "edit-match-not-unique",
                "edit-match-not-found",
                "not-found",
                "stale-edit-match",
            ]
        );
        assert_eq!(failure(&s.calls[1]).reason, JudgeReason::StaleAfterOwnEdit.id());
    }

    /// The live guard's entrance gives every call the verdict the session
    /// gives it, when told which files are modified and unread (stale
    /// edits) and given the schemas (an unclassified failure).
    #[test]
    fn a_call_judged_alone_gets_its_sessions_verdict() {
        use crate::schema::FileSchemas;
        let f = |p: &str| json!({"file_path": p, "old_string": "x", "new_string": "y"});
        let b = Builder::new()
            .call("Edit", f("/a.rs"), "Replaced text (same line count) to a.rs", Some(false))
            .call("Edit", f("/a.rs"), NOT_FOUND, Some(false))
            .call("Tool", json!({}), "Error: it broke", Some(false))
            .call("Read", f("/b.rs"), "     1\tfine", Some(false));
        let events = b.events.clone();
        let schema = json!({"type": "object", "required": ["needed"]});
        let schemas =
            Arc::new(SchemaSet::build(None, &[("Tool".to_string(), schema)], &FileSchemas::default()).unwrap());
        let whole = Judge::new(schemas.clone(), 5).judge(Session {
            id: "s".into(),
            events: events.clone(),
            ..Session::default()
        });
        let mut modified: Vec<(String, bool)> = Vec::new();
        let mut built = 0;
        for (n, pair) in events.chunks(2).enumerate() {
            let (Event::Call(call), Event::Result(result)) = (&pair[0], &pair[1]) else { panic!("call, result") };
            let map: FileStates<'_> = modified.iter().map(|(p, m)| (Cow::Borrowed(p.as_str()), *m)).collect();
            let alone = judge_alone(Dialect::default(), call, result, &map, Redaction::On, || {
                built += 1;
                schemas.clone()
            });
            assert_eq!(alone, whole.calls[n].outcome, "call {}", n + 1);
            if alone == Outcome::Success
                && let Some((effect, path)) = file_effect(&call.tool, &call.input)
            {
                modified.push((path.to_string(), effect == FileEffect::Modifies));
            }
        }
        assert_eq!(failure(&whole.calls[1]).category, Category::StaleEditMatch);
        assert_eq!(failure(&whole.calls[2]).reason, JudgeReason::SchemaViolation.id());
        assert_eq!(built, 1, "the schemas are built for the unclassified failure only");
    }

    #[test]
    fn failed_read_does_not_clear_staleness() {
        let f = |p: &str| json!({"file_path": p});
        let s = Builder::new()
            .call("Edit", f("/a"), "Replaced text (same line count) to a", Some(false))
            .call("Read", f("/a"), "Tool execution failed: Read - Error: File too large", Some(true))
            .call("Edit", f("/a"), NOT_FOUND, Some(false))
            .judge();
        assert_eq!(failure(&s.calls[2]).category, Category::StaleEditMatch);
    }

    #[test]
    fn unpaired_and_orphans() {
        let mut events = Builder::new().call("Read", json!({}), "ok", Some(false)).events;
        events.push(Event::Call(Call {
            id: "lost".into(),
            tool: "Bash".into(),
            input: json!({}).into(),
            time: None,
            row: 9,
            usage: None,
        }));
        events.push(Event::Result(ToolResult {
            truncated: false,
            call_id: "nobody".into(),
            text: "x".into(),
            flag: None,
            exit_code: None,
            time: None,
            row: 10,
        }));
        let s = judge(Session { id: "s".into(), events, ..Session::default() });
        assert_eq!(s.calls[1].outcome, Outcome::Unpaired);
        assert_eq!(s.orphans.len(), 1);
        assert_eq!(s.orphans[0].call_id, "nobody");
    }

    /// A source of two dialects (a folder of Claude Code and Peri
    /// transcripts): each session is validated against its own dialect's
    /// schemas, and a session of a dialect the judge was not given one for
    /// against the source's.
    #[test]
    fn each_dialect_is_judged_with_its_own_schemas() {
        use crate::schema::FileSchemas;
        let requiring = |param: &str| {
            let schema = json!({"type": "object", "required": [param]});
            Arc::new(SchemaSet::build(None, &[("Tool".to_string(), schema)], &FileSchemas::default()).unwrap())
        };
        let (peri, claude) = (requiring("x"), requiring("y"));
        let mut judge = Judge::new(Arc::default(), sequence::DEFAULT_STREAK_THRESHOLD);
        judge.add_dialect(Dialect::PERI, peri.clone());
        judge.add_dialect(Dialect::CLAUDE_CODE, claude.clone());
        assert!(Arc::ptr_eq(judge.schemas_of(Dialect::PERI), &peri));
        assert!(Arc::ptr_eq(judge.schemas_of(Dialect::CLAUDE_CODE), &claude));
        let session = |dialect| {
            let events = Builder::new().call("Tool", json!({"y": 1}), "done", Some(false)).events;
            judge.judge(Session { id: "s".into(), dialect, events, ..Session::default() })
        };
        let violations = |s: &JudgedSession| {
            s.calls[0].violations.as_ref().map(|v| v.iter().map(|v| v.text.clone()).collect::<Vec<_>>())
        };
        let p = session(Dialect::PERI);
        assert_eq!(p.dialect, Dialect::PERI);
        assert!(Arc::ptr_eq(&p.schemas, &peri));
        assert_eq!(violations(&p).map(|v| v.len()), Some(1), "Peri's schema requires x");
        let c = session(Dialect::CLAUDE_CODE);
        assert_eq!(c.dialect, Dialect::CLAUDE_CODE);
        assert!(Arc::ptr_eq(&c.schemas, &claude));
        assert_eq!(violations(&c), Some(vec![]), "Claude Code's schema requires y, which the call gives");
        let other = session(Dialect::CODEX);
        assert!(other.schemas.is_empty() && violations(&other).is_none(), "no set for Codex: the source's (none)");
    }

    /// A reason the judge writes is a classification rule's id or a row of
    /// `rules::JUDGE_REASONS`, never a string written here: so every reason
    /// a report can show is in `falseok rules` (which lists the registry).
    #[test]
    fn every_reason_the_judge_writes_comes_from_the_registry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/judge");
        let mut assignments = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                let Some((_, value)) = line.split_once("reason =").or_else(|| line.split_once("reason:")) else {
                    continue;
                };
                assignments += 1;
                assert!(!value.contains('"'), "{}: a reason written by hand: {line}", path.display());
            }
        }
        assert!(assignments >= 3, "the scan sees the judge's assignments");
        let ids: Vec<&str> = rules::REGISTRY.reason_ids().collect();
        for reason in JudgeReason::all() {
            assert!(ids.contains(&reason.id()), "{reason:?}");
        }
    }
}
