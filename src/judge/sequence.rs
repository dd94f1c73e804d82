//! What the agent did after each failure, per session and per tool, over
//! the tool's calls in order: streaks of the same error, identical retries,
//! oscillation, abandonment, recovery, the argument changes that repaired a
//! call, and whether the error text helped.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use regex::Regex;
use serde_json::Value;

use super::{Failure, JudgedCall, JudgedSession, Outcome};
use crate::rules::Category;

/// Peri's consecutive-failure guard fires at 5 identical failures.
pub const DEFAULT_STREAK_THRESHOLD: usize = 5;

/// A run of consecutive calls of one tool failing with the same template.
#[derive(Debug, Clone, PartialEq)]
pub struct Streak {
    /// The tool every call of the run called.
    pub tool: String,
    /// The normalized error message the run's failures share.
    pub template: String,
    /// The category of the run's failures.
    pub category: Category,
    /// How many calls the run has.
    pub len: usize,
    /// Every failure of the run was hidden: a guard reading the flag saw none.
    pub all_hidden: bool,
    /// The run's calls, as indexes into the session's calls.
    pub calls: Vec<usize>,
}

/// What followed one failed call.
#[derive(Debug, Clone, PartialEq)]
pub struct Fate {
    /// Index of the failed call in the session.
    pub call: usize,
    /// Calls of the same tool until the first success (1 = the next call), if any.
    pub attempts: Option<usize>,
    /// The next call of the tool had the same arguments (key order ignored).
    pub identical_retry: bool,
    /// ... and it succeeded.
    pub identical_retry_succeeded: bool,
    /// No later call of this tool in the session.
    pub abandoned: bool,
    /// Calls of the tool after the failure up to and including its first
    /// success, or every later call of the tool when none succeeded.
    pub retries: usize,
    /// Milliseconds from the failed call to the first later success of the
    /// tool; when none came, to the next successful call of any tool, or
    /// to the session's last recorded time when no call succeeded after
    /// it; `None` when the trace records no time for either end.
    pub lost_ms: Option<u64>,
}

/// Arguments alternating A, B, A (A failed), or longer: A, B, A, B.
#[derive(Debug, Clone, PartialEq)]
pub struct Oscillation {
    /// The tool whose calls alternate.
    pub tool: String,
    /// The calls of the alternation, as indexes into the session's calls.
    pub calls: Vec<usize>,
}

/// How a repair changed the failed call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RepairKind {
    /// Only the fields the error names changed, or only the format of values.
    Faithful,
    /// The same keys with other values.
    Rewrite,
    /// Keys removed or values cut down: the call passes by asking for less.
    Relaxation,
}

impl RepairKind {
    /// The stable name of the kind (`faithful`, `rewrite`, `relaxation`).
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::Faithful => "faithful",
            RepairKind::Rewrite => "rewrite",
            RepairKind::Relaxation => "relaxation",
        }
    }
}

/// A failure whose next call of the same tool succeeded with other arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// Index of the failed call.
    pub failed: usize,
    /// Index of the successful call.
    pub fixed: usize,
    /// Human-readable changes, e.g. "added `subagent_type`".
    pub changes: Vec<String>,
    /// How the arguments were changed.
    pub kind: RepairKind,
}

/// What the sequence analyses found in one session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionSequences {
    /// Runs of identical failures of one tool.
    pub streaks: Vec<Streak>,
    /// What followed each failed call.
    pub fates: Vec<Fate>,
    /// Arguments alternating between failing and other values.
    pub oscillations: Vec<Oscillation>,
    /// Failures fixed by the next call of the tool with other arguments.
    pub repairs: Vec<Repair>,
}

fn failure(c: &JudgedCall) -> Option<&Failure> {
    match &c.outcome {
        Outcome::Failed(f) => Some(f),
        _ => None,
    }
}

/// Analyse one judged session.
pub fn analyze(s: &JudgedSession) -> SessionSequences {
    let mut by_tool: foldhash::HashMap<&str, Vec<usize>> = foldhash::HashMap::default();
    for (i, c) in s.calls.iter().enumerate() {
        by_tool.entry(c.tool.as_str()).or_default().push(i);
    }
    let mut tools: Vec<(&str, Vec<usize>)> = by_tool.into_iter().collect();
    tools.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = SessionSequences::default();
    let end = session_end(s);
    // For each call, the next successful call of any tool after it.
    let mut next_any = vec![None; s.calls.len()];
    let mut seen = None;
    for i in (0..s.calls.len()).rev() {
        next_any[i] = seen;
        if s.calls[i].outcome == Outcome::Success {
            seen = Some(i);
        }
    }
    let ends = Ends { session: end, next_any: &next_any };
    for (tool, list) in &tools {
        streaks(s, tool, list, &mut out.streaks);
        fates_and_repairs(s, list, &ends, &mut out);
        oscillations(s, tool, list, &mut out.oscillations);
    }
    out
}

fn streaks(s: &JudgedSession, tool: &str, list: &[usize], out: &mut Vec<Streak>) {
    let mut k = 0;
    while k < list.len() {
        let Some(first) = failure(&s.calls[list[k]]) else {
            k += 1;
            continue;
        };
        let mut end = k + 1;
        while end < list.len() && failure(&s.calls[list[end]]).is_some_and(|f| f.template == first.template) {
            end += 1;
        }
        if end - k >= 2 {
            let calls = list[k..end].to_vec();
            let all_hidden = calls.iter().all(|&i| failure(&s.calls[i]).is_some_and(Failure::is_hidden));
            out.push(Streak {
                tool: tool.to_string(),
                template: first.template.clone(),
                category: first.category,
                len: end - k,
                all_hidden,
                calls,
            });
        }
        k = end;
    }
}

/// The session's last recorded time: of a call or of a result.
fn session_end(s: &JudgedSession) -> Option<DateTime<Utc>> {
    s.calls.iter().flat_map(|c| [c.time, c.result.as_ref().and_then(|r| r.time)]).flatten().max()
}

/// Where a failure's time lost can end, besides its tool's next success.
struct Ends<'a> {
    /// The session's last recorded time.
    session: Option<DateTime<Utc>>,
    /// Per call, the next successful call of any tool after it.
    next_any: &'a [Option<usize>],
}

fn fates_and_repairs(s: &JudgedSession, list: &[usize], ends: &Ends<'_>, out: &mut SessionSequences) {
    // For each position, the next position at or after it whose call
    // succeeded: one pass from the end, so a tool that fails thousands of
    // times in a row costs linear time, not a search per failure.
    let mut next_success = vec![None; list.len() + 1];
    for k in (0..list.len()).rev() {
        next_success[k] = if s.calls[list[k]].outcome == Outcome::Success { Some(k) } else { next_success[k + 1] };
    }
    for (k, &i) in list.iter().enumerate() {
        let Some(f) = failure(&s.calls[i]) else { continue };
        let call = &s.calls[i];
        let next = list.get(k + 1).map(|&j| &s.calls[j]);
        let attempts = next_success[k + 1].map(|p| p - k);
        let identical_retry = next.is_some_and(|n| n.input == call.input);
        let retries = attempts.unwrap_or(list.len() - k - 1);
        let until = match (attempts, ends.next_any[i]) {
            (Some(n), _) => s.calls[list[k + n]].time,
            (None, Some(j)) => s.calls[j].time,
            (None, None) => ends.session,
        };
        let lost_ms = match (call.time, until) {
            (Some(from), Some(to)) => Some(u64::try_from((to - from).num_milliseconds()).unwrap_or(0)),
            _ => None,
        };
        out.fates.push(Fate {
            call: i,
            attempts,
            identical_retry,
            identical_retry_succeeded: identical_retry && next.is_some_and(|n| n.outcome == Outcome::Success),
            abandoned: next.is_none(),
            retries,
            lost_ms,
        });
        if let Some(n) = next
            && n.outcome == Outcome::Success
            && n.input != call.input
        {
            let (changes, kind) = diff(call.input.value(), n.input.value(), &f.message);
            out.repairs.push(Repair { failed: i, fixed: list[k + 1], changes, kind });
        }
    }
}

fn oscillations(s: &JudgedSession, tool: &str, list: &[usize], out: &mut Vec<Oscillation>) {
    let input = |k: usize| &s.calls[list[k]].input;
    let mut k = 0;
    while k + 2 < list.len() {
        let starts = failure(&s.calls[list[k]]).is_some() && input(k) != input(k + 1) && input(k) == input(k + 2);
        if !starts {
            k += 1;
            continue;
        }
        // Extend while the arguments keep alternating.
        let mut end = k + 3;
        while end < list.len() && input(end) == input(end - 2) {
            end += 1;
        }
        out.push(Oscillation { tool: tool.to_string(), calls: list[k..end].to_vec() });
        k = end;
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The same value in another format: "5" and 5, "a, b" and ["a","b"],
/// different case or spacing.
fn same_modulo_format(a: &Value, b: &Value) -> bool {
    let flat = |v: &Value| -> String {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        };
        s.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect()
    };
    flat(a) == flat(b)
}

/// The new value asks for less: a string cut to a part of itself, or an
/// array that lost items.
fn cut_down(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::String(o), Value::String(n)) => n.len() < o.len() && o.contains(n.as_str()),
        (Value::Array(o), Value::Array(n)) => n.len() < o.len() && n.iter().all(|x| o.contains(x)),
        _ => false,
    }
}

/// The byte offset where `message` names `key` as a word, if it does.
pub fn position(message: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = message[from..].find(key).map(|i| i + from) {
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
        let before = message[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = message[i + key.len()..].chars().next().is_none_or(|c| !word(c));
        if before && after {
            return Some(i);
        }
        from = i + key.len();
    }
    None
}

/// Whether `message` mentions `key` as a whole word (letters, digits, `_` and `-`).
pub fn names(message: &str, key: &str) -> bool {
    message.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).any(|w| w == key)
}

/// The changes from `old` to `new` arguments, and what kind of repair they are.
pub fn diff(old: &Value, new: &Value, message: &str) -> (Vec<String>, RepairKind) {
    let (Value::Object(o), Value::Object(n)) = (old, new) else {
        return (vec!["arguments replaced".to_string()], RepairKind::Rewrite);
    };
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    let mut changes = Vec::new();
    let mut removed = false;
    let mut reduced = false;
    let mut unexplained = false;
    for key in keys {
        match (o.get(key), n.get(key)) {
            (None, Some(_)) => {
                changes.push(format!("added `{key}`"));
                unexplained |= !names(message, key);
            }
            (Some(_), None) => {
                changes.push(format!("removed `{key}`"));
                removed = true;
            }
            (Some(a), Some(b)) if a != b => {
                if type_name(a) != type_name(b) {
                    changes.push(format!("`{key}` {} → {}", type_name(a), type_name(b)));
                } else {
                    changes.push(format!("changed `{key}`"));
                }
                if cut_down(a, b) {
                    reduced = true;
                } else if !same_modulo_format(a, b) && !names(message, key) {
                    unexplained = true;
                }
            }
            _ => {}
        }
    }
    let kind = if removed || reduced {
        RepairKind::Relaxation
    } else if unexplained {
        RepairKind::Rewrite
    } else {
        RepairKind::Faithful
    };
    (changes, kind)
}

static LOCATES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b[a-z][a-z0-9]*_[a-z0-9_]+\b|['"`][\w.-]+['"`]|(?:^|\s)(?:/|~/|\./|[A-Za-z]:\\)\S+|\b(?:parameter|field|argument|property|key|line|lines|path|file|column)\b"#).expect("locates")
});
static DIRECTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:expected|one of|must be|should be|allowed|valid values|e\.g\.|for example|such as|instead|use |try |please|provide|set |specify|re-?read|read (?:it|the|this)|check |wait|retry|add |remove )").expect("directs")
});

/// The error text names what is wrong: a field, a path, a line.
pub fn locates(message: &str) -> bool {
    LOCATES.is_match(message)
}

/// The error text says what to do: allowed values, an example, a next step.
pub fn directs(message: &str) -> bool {
    DIRECTS.is_match(message)
}

/// A judged session from (tool, input, result text) triples, results
/// unflagged: the sessions the sequence tests are written in.
#[cfg(test)]
pub(crate) fn session_of(steps: &[(&str, Value, &str)]) -> JudgedSession {
    use crate::model::{Call, Event, Session, ToolResult};
    let mut events = vec![];
    for (n, (tool, input, text)) in steps.iter().enumerate() {
        let id = format!("c{n}");
        let (tool, input, row) = (tool.to_string(), input.clone(), n as i64);
        events.push(Event::Call(Call { id: id.clone(), tool, input: input.into(), time: None, row, usage: None }));
        let text = text.to_string();
        events.push(Event::Result(ToolResult {
            truncated: false,
            call_id: id,
            text,
            flag: Some(false),
            exit_code: None,
            time: None,
            row,
        }));
    }
    crate::judge::judge(Session { id: "s".into(), events, ..Session::default() })
}

#[cfg(test)]
mod tests {
    use super::session_of as session;
    use super::*;
    use crate::judge::judge;
    use crate::model::{Call, Event, Session, ToolResult};
    use serde_json::json;

    const MISSING: &str = "Error: please provide subagent_type parameter to specify the agent type";

    #[test]
    fn streak_recovery_retry_and_repair() {
        let bad = json!({"prompt": "p", "description": "d"});
        let good = json!({"prompt": "p", "description": "d", "subagent_type": "explore"});
        let mut steps: Vec<(&str, Value, &str)> = vec![];
        for _ in 0..6 {
            steps.push(("Agent", bad.clone(), MISSING));
            steps.push(("Read", json!({"file_path": "/a"}), "ok")); // other tools do not break a streak
        }
        steps.push(("Agent", good.clone(), "done"));
        let s = session(&steps);
        let a = analyze(&s);
        assert_eq!(a.streaks.len(), 1);
        assert_eq!(a.streaks[0].len, 6);
        assert!(a.streaks[0].all_hidden);
        assert_eq!(a.fates.len(), 6);
        let attempts: Vec<_> = a.fates.iter().map(|f| f.attempts).collect();
        assert_eq!(attempts, vec![Some(6), Some(5), Some(4), Some(3), Some(2), Some(1)]);
        assert_eq!(a.fates.iter().filter(|f| f.identical_retry).count(), 5);
        assert_eq!(a.fates.iter().filter(|f| f.identical_retry_succeeded).count(), 0);
        assert_eq!(a.repairs.len(), 1);
        assert_eq!(a.repairs[0].changes, vec!["added `subagent_type`"]);
        assert_eq!(a.repairs[0].kind, RepairKind::Faithful, "the error names the field");
        assert!(a.oscillations.is_empty());
    }

    /// The cost of failures, computed by hand: times in seconds from the
    /// session's start. A failure's time ends at its tool's next success;
    /// when none comes, at the next success of any tool; when none comes
    /// either, at the session's last recorded time.
    #[test]
    fn cost_of_failures_by_hand() {
        let at = |sec: i64| Some(DateTime::from_timestamp(1_780_000_000 + sec, 0).unwrap());
        let steps = [
            // (tool, text, call time, result time)
            ("Bash", "Error: command not found: cargoo", 0, 2),
            ("Read", "fn main() {}", 4, 5),
            ("Bash", "Error: command not found: carg", 10, 11),
            ("Bash", "Finished release", 25, 40),
            ("Edit", "Error: old_string not found in /a", 60, 61),
            ("Read", "ok", 90, 100),
            ("Write", "Error: permission denied: /etc/x", 120, 150),
        ];
        let mut events = vec![];
        for (n, (tool, text, called, returned)) in steps.iter().enumerate() {
            let id = format!("c{n}");
            let row = n as i64;
            events.push(Event::Call(Call {
                id: id.clone(),
                tool: tool.to_string(),
                input: json!({}).into(),
                time: at(*called),
                row,
                usage: None,
            }));
            events.push(Event::Result(ToolResult {
                call_id: id,
                text: text.to_string(),
                truncated: false,
                flag: Some(false),
                exit_code: None,
                time: at(*returned),
                row,
            }));
        }
        let s = judge(Session { id: "s".into(), events, ..Session::default() });
        let a = analyze(&s);
        let cost: Vec<_> = a.fates.iter().map(|f| (s.calls[f.call].tool.as_str(), f.retries, f.lost_ms)).collect();
        assert_eq!(
            cost,
            vec![
                // Two Bash calls until the success at 25 s; then one.
                ("Bash", 2, Some(25_000)),
                ("Bash", 1, Some(15_000)),
                // Never retried: to the next success of any tool (Read at 90 s),
                // not to the session's end.
                ("Edit", 0, Some(30_000)),
                // No call succeeds after it: to the session's last time (its
                // own result, 150 s).
                ("Write", 0, Some(30_000)),
            ]
        );
        // No times: nothing measured, retries still counted.
        let untimed = session(&[
            ("Bash", json!({}), "Error: command not found: x"),
            ("Bash", json!({}), "Error: command not found: y"),
        ]);
        let b = analyze(&untimed);
        assert_eq!(b.fates.iter().map(|f| (f.retries, f.lost_ms)).collect::<Vec<_>>(), vec![(1, None), (0, None)]);
    }

    #[test]
    fn different_templates_are_different_streaks() {
        let s = session(&[
            ("Edit", json!({"file_path": "/a"}), "Error: old_string not found in /a"),
            ("Edit", json!({"file_path": "/b"}), "Error: old_string not found in /b"),
            ("Edit", json!({"file_path": "/b"}), "Error: old_string is not unique in /b (found 2 occurrences)"),
            ("Edit", json!({"file_path": "/b"}), "Replaced text"),
            ("Edit", json!({"file_path": "/c"}), "Error: old_string not found in /c"),
        ]);
        let a = analyze(&s);
        assert_eq!(a.streaks.iter().map(|s| s.len).collect::<Vec<_>>(), vec![2], "paths are normalized");
        assert!(a.fates.last().unwrap().abandoned);
        assert_eq!(a.fates.last().unwrap().attempts, None);
        assert_eq!(a.fates[0].attempts, Some(3));
    }

    #[test]
    fn flagged_streak_is_not_guard_blind() {
        let mut events = vec![];
        for n in 0..5 {
            let id = format!("c{n}");
            events.push(Event::Call(Call {
                id: id.clone(),
                tool: "Edit".into(),
                input: json!({}).into(),
                time: None,
                row: n,
                usage: None,
            }));
            events.push(Event::Result(ToolResult {
                truncated: false,
                call_id: id,
                text: "Tool execution failed: Edit - Error: old_string not found in /a".into(),
                flag: Some(true),
                exit_code: None,
                time: None,
                row: n,
            }));
        }
        let a = analyze(&judge(Session { id: "s".into(), events, ..Session::default() }));
        assert_eq!(a.streaks[0].len, 5);
        assert!(!a.streaks[0].all_hidden);
    }

    #[test]
    fn oscillation_aba_and_abab() {
        let a_in = json!({"command": "make"});
        let b_in = json!({"command": "make all"});
        let fail = "Error executing command: boom";
        let s = session(&[
            ("Bash", a_in.clone(), fail),
            ("Bash", b_in.clone(), fail),
            ("Bash", a_in.clone(), fail),
            ("Bash", b_in.clone(), fail),
            ("Bash", json!({"command": "ls"}), "ok"),
        ]);
        let a = analyze(&s);
        assert_eq!(a.oscillations.len(), 1);
        assert_eq!(a.oscillations[0].calls, vec![0, 1, 2, 3]);
        let s = session(&[("Bash", a_in.clone(), "ok"), ("Bash", b_in.clone(), fail), ("Bash", a_in, "ok")]);
        assert!(analyze(&s).oscillations.is_empty(), "A did not fail");
    }

    #[test]
    fn identical_retry_that_succeeds() {
        let x = json!({"url": "https://x"});
        let s = session(&[("WebFetch", x.clone(), "Error: connection reset"), ("WebFetch", x, "<html>")]);
        let a = analyze(&s);
        assert!(a.fates[0].identical_retry_succeeded);
        assert_eq!(a.fates[0].attempts, Some(1));
        assert!(a.repairs.is_empty(), "no change, no repair");
    }

    #[test]
    fn repair_kinds() {
        let msg = "Error: old_string not found in /a.rs";
        let (c, k) = diff(&json!({"a": 1, "b": "x"}), &json!({"a": 1}), msg);
        assert_eq!((c, k), (vec!["removed `b`".to_string()], RepairKind::Relaxation));
        let (_, k) = diff(&json!({"old_string": "fn main() {\n  x\n}"}), &json!({"old_string": "fn main()"}), msg);
        assert_eq!(k, RepairKind::Relaxation, "a cut-down value");
        let (c, k) = diff(&json!({"old_string": "abc"}), &json!({"old_string": "xyz"}), msg);
        assert_eq!((c, k), (vec!["changed `old_string`".to_string()], RepairKind::Faithful), "named by the error");
        let (_, k) = diff(&json!({"q": "abc"}), &json!({"q": "xyz"}), "Error: no results");
        assert_eq!(k, RepairKind::Rewrite);
        let (c, k) = diff(&json!({"limit": "5"}), &json!({"limit": 5}), "Error: bad request");
        assert_eq!((c, k), (vec!["`limit` string → number".to_string()], RepairKind::Faithful), "format only");
        let (_, k) = diff(&json!({"codes": ["a", "b"]}), &json!({"codes": "a,b"}), "Error: bad request");
        assert_eq!(k, RepairKind::Faithful);
        let (_, k) = diff(&json!({}), &json!({"extra": 1}), "Error: bad request");
        assert_eq!(k, RepairKind::Rewrite, "an added field the error does not name");
    }

    #[test]
    fn feedback_quality() {
        assert!(locates("Error: please provide subagent_type parameter"));
        assert!(directs("Error: please provide subagent_type parameter"));
        assert!(locates("Error: old_string not found in /a/b.rs"));
        assert!(!directs("Error: old_string not found in /a/b.rs"));
        assert!(!locates("Error: something went wrong"));
        assert!(!directs("Error: something went wrong"));
        assert!(directs("Error: invalid output_mode, expected one of content, count"));
    }
}
