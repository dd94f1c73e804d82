//! What `--format html` shows beyond the `Report`: errors per day and the
//! first example calls of every (tool, category). Collected in the same
//! walk that builds the report, from the calls the report counts (the same
//! filters), with the text shown as `examples` shows it (redacted, cut), so
//! the JSON contract does not change.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::drill;
use crate::aggregate::{Aggregator, Filters, sessions};
use crate::error::Result;
use crate::judge::{JudgedSession, Outcome};
use crate::redact::Redaction;
use crate::render::html::{EXAMPLES_SHOWN, Example, Page, SESSIONS_SHOWN, Scope};
use crate::report::{Report, SessionRow};
use crate::sanitize::{block, one_line};
use crate::spine::{ScanOptions, SourceStart, Visitor};

/// (tool, category) pairs whose examples are kept: a store with more keeps
/// only counts for the rest, so memory stays bounded (at most
/// `MAX_PAIRS × EXAMPLES_SHOWN` examples of a few KB each).
const MAX_PAIRS: usize = 2000;

/// The aggregator, and beside it what the page needs.
struct Collect {
    agg: Aggregator,
    filters: Filters,
    redaction: Redaction,
    source: String,
    /// The streak length a guard-blind streak needs (as `sessions`).
    threshold: usize,
    page: Page,
    /// The walk's notes, said by `scan` with its own.
    notes: Vec<String>,
}

impl Visitor for Collect {
    fn source(&mut self, start: SourceStart<'_>) {
        self.source = start.path.to_string();
        crate::spine::begin_source(&mut self.agg, start);
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        self.note(&s);
        self.grade(&s);
        self.agg.add(&s);
        true
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }
}

impl Collect {
    /// The session's row as `falseok sessions` computes it; only the worst
    /// are kept (sorted and cut as they come, so memory stays bounded).
    fn grade(&mut self, s: &JudgedSession) {
        let Some(row) = sessions::row(s, &self.source, &self.filters, self.threshold) else { return };
        self.page.sessions_graded += 1;
        keep_worst(&mut self.page.sessions, row);
    }

    fn note(&mut self, s: &JudgedSession) {
        for c in s.calls.iter().filter(|c| self.filters.call_ok(c)) {
            if let Some(t) = c.time {
                self.page.span = Some(match self.page.span {
                    Some((a, b)) => (a.min(t), b.max(t)),
                    None => (t, t),
                });
            }
            let day = match c.time {
                Some(t) => self.page.days.entry(t.format("%Y-%m-%d").to_string()).or_default(),
                None => &mut self.page.undated,
            };
            day.calls += 1;
            let Outcome::Failed(f) = &c.outcome else { continue };
            day.errors += 1;
            day.flagged += u64::from(f.flagged);
            day.hidden += u64::from(f.is_hidden());
            let key = (c.tool.clone(), f.category.as_str().to_string());
            let kept = self.page.examples.len();
            let examples = match self.page.examples.get_mut(&key) {
                Some(e) => e,
                None if kept < MAX_PAIRS => self.page.examples.entry(key).or_default(),
                None => {
                    self.page.examples_complete = false;
                    continue;
                }
            };
            if examples.len() >= EXAMPLES_SHOWN {
                continue;
            }
            examples.push(Example {
                source: self.source.clone(),
                session: s.id.clone(),
                seq: c.seq,
                call_id: c.call_id.clone(),
                tool: c.tool.clone(),
                verdict: format!("{} ({}; {})", drill::verdict(c), drill::flag_text(c.result.as_ref()), content(f)),
                reason: format!("{} ({})", f.label, f.reason),
                arguments: drill::arguments(c, self.redaction),
                result: c.result.as_ref().map(|r| drill::result_text(r, self.redaction, "")),
                edit: edit(c.input.value(), self.redaction),
            });
        }
    }
}

fn content(f: &crate::judge::Failure) -> String {
    match f.content_rule {
        Some(rule) => format!("content: {}", one_line(rule)),
        None => "content: no rule".into(),
    }
}

/// An edit's `old_string` and `new_string`, redacted and cut as a
/// result is (`examples`' bounds), when the arguments hold both as text.
fn edit(input: &Value, redaction: Redaction) -> Option<(String, String)> {
    let text = |k: &str| input.get(k).and_then(Value::as_str);
    let cut = |s: &str| block(&redaction.apply(s), "", 40, 2000);
    Some((cut(text("old_string")?), cut(text("new_string")?)))
}

/// When the page is made: `SOURCE_DATE_EPOCH` (seconds) when set, so a
/// build can make the same page twice, else now.
fn generated() -> DateTime<Utc> {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .unwrap_or_else(Utc::now)
}

/// Scan `paths` as `crate::scan` does, and collect the page's extras;
/// `scope` is what the page's commands name.
pub(crate) fn scan(
    paths: &[PathBuf],
    opts: &ScanOptions,
    scope: Scope,
    notes: &mut Vec<String>,
) -> Result<(Report, Page)> {
    let mut collect = Collect {
        agg: Aggregator::new(opts.aggregate.clone(), opts.judge),
        filters: opts.aggregate.filters.clone(),
        redaction: opts.judge.redaction,
        source: String::new(),
        threshold: opts.judge.streak_threshold.max(2),
        page: Page { examples_complete: true, generated: Some(generated()), scope, ..Page::default() },
        notes: Vec::new(),
    };
    let walked = crate::walk(paths, opts, &mut collect);
    notes.append(&mut collect.notes);
    walked?;
    worst_first(&mut collect.page.sessions);
    Ok((collect.agg.finish(), collect.page))
}

/// Adds `row` to `worst`, sorting and cutting to the `SESSIONS_SHOWN`
/// worst now and then, so a store of any size keeps a few rows.
fn keep_worst(worst: &mut Vec<SessionRow>, row: SessionRow) {
    worst.push(row);
    if worst.len() >= 4 * SESSIONS_SHOWN {
        worst_first(worst);
    }
}

/// The `SESSIONS_SHOWN` worst, in `falseok sessions`' order.
fn worst_first(worst: &mut Vec<SessionRow>) {
    sessions::sort(worst);
    worst.truncate(SESSIONS_SHOWN);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_sessions_are_kept_whenever_they_come() {
        let row = |i: u64| SessionRow {
            session: format!("s{i:03}"),
            parent: None,
            agent: "peri".into(),
            source: "db".into(),
            file: None,
            start: None,
            duration_ms: None,
            calls: 10,
            errors: i,
            flagged_errors: 0,
            hidden_errors: i,
            guard_blind_streaks: 0,
            abandoned: 0,
            retries: 0,
            lost_ms: 0,
            tokens: None,
            failure_tokens: None,
            failure_dollars: None,
            grade: "C".into(),
            score: 70,
            reasons: vec![],
        };
        let mut worst = Vec::new();
        for i in 0..100 {
            keep_worst(&mut worst, row(i));
            assert!(worst.len() < 4 * SESSIONS_SHOWN, "bounded");
        }
        worst_first(&mut worst);
        let hidden: Vec<u64> = worst.iter().map(|r| r.hidden_errors).collect();
        assert_eq!(hidden, (85..100).rev().collect::<Vec<u64>>(), "the last sessions read are the worst");
    }
}
