//! The findings of one judged session, by rule (`rules::findings`). Each
//! says which call decides whether the report's filters count it; the
//! aggregator only applies the filters, names the source and redacts.

use chrono::{DateTime, Utc};

use super::{JudgedCall, JudgedSession, Outcome, normalize};
use crate::rules::{Category, FindingRule};
use crate::sanitize;

/// What decides whether a finding is counted under `--tool`, `--since`
/// and `--until`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Counted {
    /// Counted when this call (an index into the session's calls) is.
    Call(usize),
    /// An orphan result: counted when no tool filter is set and its time is
    /// in the window.
    Orphan(Option<DateTime<Utc>>),
    /// Always counted (malformed rows).
    Always,
}

/// A finding before it is placed in a source and redacted.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFinding {
    /// The kind of defect found.
    pub rule: FindingRule,
    /// What decides whether the finding is counted under the filters.
    pub counted: Counted,
    /// The call it points at (its id, sequence number and tool are shown).
    pub at: Option<usize>,
    /// The call id when it points at no call (orphan results).
    pub call_id: Option<String>,
    /// The category of the failure it is about, if it is about one.
    pub category: Option<Category>,
    /// Unredacted; the aggregator redacts.
    pub message: String,
    /// The normalized evidence for baselines (never row ids or times).
    pub key: String,
}

fn at_call(rule: FindingRule, i: usize, category: Option<Category>, message: String, key: &str) -> SessionFinding {
    SessionFinding {
        rule,
        counted: Counted::Call(i),
        at: Some(i),
        call_id: None,
        category,
        message,
        key: key.to_string(),
    }
}

/// Every finding of `s`, with `threshold` the streak length that makes a
/// run of hidden failures a `guard-blind-streak`.
pub fn of_session(s: &JudgedSession, threshold: usize) -> Vec<SessionFinding> {
    let mut out = Vec::new();
    for (i, c) in s.calls.iter().enumerate() {
        call_findings(i, c, &mut out);
    }
    for &i in &s.duplicates {
        let message = "call id is used by an earlier call in this session; results were paired in order";
        out.push(at_call(FindingRule::DuplicateCallId, i, None, message.to_string(), ""));
    }
    for o in &s.orphans {
        out.push(SessionFinding {
            rule: FindingRule::OrphanResult,
            counted: Counted::Orphan(o.time),
            at: None,
            call_id: Some(o.call_id.clone()),
            category: None,
            message: format!("result at row {} answers no call in this session", o.row),
            key: String::new(),
        });
    }
    for m in &s.malformed {
        out.push(SessionFinding {
            rule: FindingRule::MalformedRow,
            counted: Counted::Always,
            at: None,
            call_id: None,
            category: None,
            message: {
                let done = if m.skipped { "skipped" } else { "read with repairs" };
                let problem = sanitize::one_line(&m.problem);
                match &m.file {
                    None => format!("row {} {done}: {problem}", m.row),
                    Some(file) if m.row > 0 => {
                        format!("line {} of {} {done}: {problem}", m.row, sanitize::one_line(file))
                    }
                    Some(file) => format!("{} {done}: {problem}", sanitize::one_line(file)),
                }
            },
            key: normalize::template(&m.problem),
        });
    }
    for st in s.sequences.streaks.iter().filter(|st| st.len >= threshold && st.all_hidden) {
        out.push(SessionFinding {
            counted: Counted::Call(st.calls[0]),
            ..at_call(
                FindingRule::GuardBlindStreak,
                st.calls[threshold - 1],
                Some(st.category),
                format!(
                    "{} failed {} times in a row with the same hidden error, so a guard counting flagged failures never fired: {}",
                    st.tool, st.len, st.template
                ),
                &st.template,
            )
        });
    }
    for o in &s.sequences.oscillations {
        let seqs: Vec<String> = o.calls.iter().map(|&i| s.calls[i].seq.to_string()).collect();
        let message =
            format!("{} alternated between two argument sets after a failure (calls {})", o.tool, seqs.join(", "));
        out.push(at_call(FindingRule::Oscillation, o.calls[0], None, message, ""));
    }
    out
}

/// The findings about one call: an accepted schema violation, no result, a
/// hidden error.
fn call_findings(i: usize, c: &JudgedCall, out: &mut Vec<SessionFinding>) {
    let first_violation = c.violations.as_ref().and_then(|v| v.first());
    match &c.outcome {
        Outcome::Success => {
            if let Some(v) = first_violation {
                let message = format!("{} accepted arguments its schema rejects: {}", c.tool, v.text);
                out.push(at_call(FindingRule::SchemaViolationAccepted, i, Some(v.category), message, &v.text));
            }
        }
        Outcome::Unpaired => {
            let message = format!("{} call has no result (session ended, crashed or was cut)", c.tool);
            out.push(at_call(FindingRule::UnpairedCall, i, None, message, ""));
        }
        Outcome::Failed(f) if f.is_hidden() => {
            let message = format!("{} failed but the result is not flagged as an error: {}", c.tool, f.message);
            out.push(at_call(FindingRule::HiddenError, i, Some(f.category), message, &f.template));
        }
        Outcome::Failed(_) => {}
    }
}
