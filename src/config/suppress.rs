//! Suppressions (`[[suppress]]`, docs/config.md): findings a team accepts,
//! each with its reason and, optionally, the last day it holds. They change
//! no verdict: the report marks the findings they accept
//! (`app::suppressions`), and only `check`'s gate leaves those out.

use chrono::NaiveDate;

use super::Suppression;

/// Today (UTC), the day suppressions expire against.
pub(crate) fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

/// What a suppression is matched against: one finding's names.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Named<'a> {
    /// The finding rule's id.
    pub(crate) rule: &'a str,
    /// The category of the failure it is about.
    pub(crate) category: Option<&'a str>,
    /// The call's tool.
    pub(crate) tool: Option<&'a str>,
    /// The session's id.
    pub(crate) session: &'a str,
    /// The call's id.
    pub(crate) call: Option<&'a str>,
}

impl Suppression {
    /// Is the day `today` past the last day it holds?
    pub(crate) fn expired(&self, today: NaiveDate) -> bool {
        self.expires.is_some_and(|last| today > last)
    }

    /// Does it name the finding `f`: its rule or category, its tool (a
    /// finding about no tool has the empty name), and its session and call
    /// when it gives them?
    pub(crate) fn names(&self, f: Named<'_>) -> bool {
        (f.rule == self.rule || f.category == Some(self.rule.as_str()))
            && self.tool.is_match(f.tool.unwrap_or(""))
            && self.session.as_deref().is_none_or(|s| s == f.session)
            && self.call.as_deref().is_none_or(|c| f.call == Some(c))
    }
}
