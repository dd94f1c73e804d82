//! Suppressions (`[[suppress]]`, docs/config.md): findings a team accepts,
//! each with its reason and, optionally, the last day it holds. They change
//! no verdict: a suppressed finding stays in the report, marked with the
//! suppression that accepts it, and only `check`'s gate leaves it out.

use chrono::NaiveDate;

use super::{Config, Suppression};
use crate::report::{Finding, Report, SuppressionRow, Suppressions};

/// Today (UTC), the day suppressions expire against.
pub(crate) fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

impl Suppression {
    /// Is the day `today` past the last day it holds?
    pub(crate) fn expired(&self, today: NaiveDate) -> bool {
        self.expires.is_some_and(|last| today > last)
    }

    /// Does it name `f`: the rule or category, the tool, and the session and
    /// call when it gives them?
    fn matches(&self, f: &Finding) -> bool {
        let rule = f.rule.as_str() == self.rule || f.category.as_deref() == Some(self.rule.as_str());
        rule && self.tool.is_match(f.tool.as_deref().unwrap_or(""))
            && self.session.as_ref().is_none_or(|s| *s == f.session)
            && self.call.as_ref().is_none_or(|c| f.call_id.as_ref() == Some(c))
    }

    /// Its row of the report, counting nothing yet.
    fn row(&self, today: NaiveDate) -> SuppressionRow {
        SuppressionRow {
            origin: shown_origin(&self.origin),
            rule: self.rule.clone(),
            tool: self.tool_pattern.clone(),
            session: self.session.clone(),
            call: self.call.clone(),
            reason: self.reason.clone(),
            expires: self.expires.map(|d| d.format("%Y-%m-%d").to_string()),
            expired: self.expired(today),
            suppressed: 0,
        }
    }
}

impl Config {
    /// Mark each finding of `report` that a suppression in force on `today`
    /// accepts (the first in the file's order), and count them.
    pub(crate) fn suppress(&self, report: &mut Report, today: NaiveDate) {
        if self.suppress.is_empty() {
            return;
        }
        let mut rows: Vec<SuppressionRow> = self.suppress.iter().map(|s| s.row(today)).collect();
        for f in &mut report.findings {
            let by = self.suppress.iter().enumerate().find(|(_, s)| !s.expired(today) && s.matches(f));
            if let Some((i, _)) = by {
                rows[i].suppressed += 1;
                f.suppressed = Some(rows[i].origin.clone());
            }
        }
        report.suppressions = summarize(rows);
    }
}

/// The counts over `rows`: the findings they accepted, and the distinct
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
