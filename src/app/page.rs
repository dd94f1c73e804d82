//! What `--format html` shows beyond the `Report`: errors per day and the
//! first example calls of every (tool, category). Collected in the same
//! walk that builds the report, from the calls the report counts (the same
//! filters), with the text shown as `examples` shows it (redacted, cut), so
//! the JSON contract does not change.

use std::path::PathBuf;

use super::drill;
use crate::aggregate::{Aggregator, Filters};
use crate::error::Result;
use crate::judge::{JudgedSession, Outcome};
use crate::redact::Redaction;
use crate::render::html::{EXAMPLES_SHOWN, Example, Page};
use crate::report::Report;
use crate::sanitize::one_line;
use crate::{ScanOptions, SourceStart, Visitor};

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
    page: Page,
}

impl Visitor for Collect {
    fn source(&mut self, start: SourceStart<'_>) {
        self.source = start.path.to_string();
        Visitor::source(&mut self.agg, start);
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        self.note(&s);
        self.agg.add(&s);
        true
    }
}

impl Collect {
    fn note(&mut self, s: &JudgedSession) {
        for c in s.calls.iter().filter(|c| self.filters.call_ok(c)) {
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

/// Scan `paths` as `crate::scan` does, and collect the page's extras.
pub(crate) fn scan(paths: &[PathBuf], opts: &ScanOptions, notes: &mut Vec<String>) -> Result<(Report, Page)> {
    let mut collect = Collect {
        agg: Aggregator::new(opts.aggregate.clone()),
        filters: opts.aggregate.filters.clone(),
        redaction: opts.aggregate.redaction,
        source: String::new(),
        page: Page { examples_complete: true, ..Page::default() },
    };
    crate::walk(paths, opts, notes, &mut collect)?;
    Ok((collect.agg.finish(), collect.page))
}
