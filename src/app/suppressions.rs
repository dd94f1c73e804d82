//! The configuration's suppressions applied to a finished report
//! (docs/config.md, "suppress"): each finding a suppression in force
//! accepts is marked with the suppression's `file:line`, and the report
//! counts them. No count of the report changes.

use crate::config::{Config, Named};
use crate::report::{Report, SuppressionRow, Suppressions};

/// Mark each finding of `report` that a suppression in force on `today`
/// accepts (the first in the file's order), and count them.
pub(crate) fn apply(config: &Config, report: &mut Report, today: chrono::NaiveDate) {
    if config.suppress.is_empty() {
        return;
    }
    let mut rows: Vec<SuppressionRow> = config
        .suppress
        .iter()
        .map(|s| SuppressionRow {
            origin: shown_origin(&s.origin),
            rule: s.rule.clone(),
            tool: s.tool_pattern.clone(),
            session: s.session.clone(),
            call: s.call.clone(),
            reason: s.reason.clone(),
            expires: s.expires.map(|d| d.format("%Y-%m-%d").to_string()),
            expired: s.expired(today),
            suppressed: 0,
        })
        .collect();
    for f in &mut report.findings {
        let named = Named {
            rule: f.rule.as_str(),
            category: f.category.as_deref(),
            tool: f.tool.as_deref(),
            session: &f.session,
            call: f.call_id.as_deref(),
        };
        if let Some(i) = config.suppress.iter().position(|s| !s.expired(today) && s.names(named)) {
            rows[i].suppressed += 1;
            f.suppressed = Some(rows[i].origin.clone());
        }
    }
    report.suppressions = summarize(rows);
}

/// The counts over `entries`: the findings they accepted, and the distinct
/// reasons of those that accepted any.
pub(crate) fn summarize(entries: Vec<SuppressionRow>) -> Suppressions {
    let suppressed = entries.iter().map(|r| r.suppressed).sum();
    let mut reasons: Vec<&str> = entries.iter().filter(|r| r.suppressed > 0).map(|r| r.reason.as_str()).collect();
    reasons.sort_unstable();
    reasons.dedup();
    let reasons = reasons.len() as u64;
    Suppressions { suppressed, reasons, entries }
}

/// `path:line` with the path relative to the current folder when it is
/// under it: the same in every checkout.
fn shown_origin(origin: &str) -> String {
    let Ok(here) = std::env::current_dir() else { return origin.to_string() };
    std::path::Path::new(origin)
        .strip_prefix(&here)
        .map_or_else(|_| origin.to_string(), |rel| rel.display().to_string())
}
