//! The reasons the judge gives itself: the reason id of a failure that no
//! classification rule decided, or whose rule the judge overruled. Every
//! other reason is the id of a classification rule (`CLASS_RULES`,
//! `EXIT_CLASS_RULES`). A new judge reason is one enum variant and one row;
//! the tests below keep the two in step.

use serde::Serialize;

use super::category::Category;

/// A reason the judge writes itself (`Failure.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeReason {
    /// No classification rule matched.
    Unclassified,
    /// No rule matched, and the arguments violate the tool schema.
    SchemaViolation,
    /// An anchor not found in a file the session itself edited.
    StaleAfterOwnEdit,
}

/// One row of the judge-reason table.
#[derive(Debug, Serialize)]
pub struct JudgeReasonInfo {
    /// The reason this row describes (the table's key, not serialized).
    #[serde(skip)]
    pub reason: JudgeReason,
    /// The reason id (the `reasons` breakdown of the JSON report, `--fail-on` never).
    pub id: &'static str,
    /// The category a failure with this reason gets; none: it varies (see `doc`).
    pub category: Option<Category>,
    /// The short human label shown next to the category.
    pub label: &'static str,
    /// When the judge gives the reason, and what follows (for `falseok rules`).
    pub doc: &'static str,
}

/// Every judge reason, in enum order.
pub static JUDGE_REASONS: &[JudgeReasonInfo] = &[
    JudgeReasonInfo {
        reason: JudgeReason::Unclassified,
        id: "unclassified",
        category: Some(Category::Other),
        label: "no rule matched",
        doc: "A failed call whose text no classification rule matches, and whose arguments break no tool schema: \
              its category is `other` and its message is kept.",
    },
    JudgeReasonInfo {
        reason: JudgeReason::SchemaViolation,
        id: "schema-violation",
        category: None,
        label: "arguments violate the tool schema",
        doc: "A failed call whose text no classification rule matches, but whose arguments its tool schema \
              rejects: it takes the category of the first violation (`malformed-arguments`, \
              `missing-required-param`, `unknown-param`, `invalid-param-type` or `invalid-param-value`).",
    },
    JudgeReasonInfo {
        reason: JudgeReason::StaleAfterOwnEdit,
        id: "stale-after-own-edit",
        category: Some(Category::StaleEditMatch),
        label: "old_string not found after the session edited the file",
        doc: "An edit whose anchor was not found (`edit-match-not-found`), on a file that a successful edit or \
              write of the same session modified earlier with no successful read of it since: \
              `stale-edit-match`.",
    },
];

impl JudgeReason {
    /// Every judge reason, in table order.
    pub fn all() -> impl Iterator<Item = JudgeReason> {
        JUDGE_REASONS.iter().map(|i| i.reason)
    }

    /// The reason's row of `JUDGE_REASONS`.
    pub fn info(self) -> &'static JudgeReasonInfo {
        // The table is in enum order (tested), so the discriminant indexes it.
        &JUDGE_REASONS[self as usize]
    }

    /// The stable reason id.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The short human label shown next to the category.
    pub fn label(self) -> &'static str {
        self.info().label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_reason_in_enum_order_and_no_rule_has_its_id() {
        for (i, info) in JUDGE_REASONS.iter().enumerate() {
            assert_eq!(info.reason as usize, i, "{}: the table is in enum order", info.id);
            assert_eq!(info.reason.id(), info.id);
            assert!(info.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", info.id);
            assert!(!info.label.is_empty() && !info.doc.is_empty(), "{}", info.id);
            // A reason id names one thing: no classification rule has it.
            let rules = super::super::CLASS_RULES.iter().chain(super::super::EXIT_CLASS_RULES);
            assert!(rules.clone().all(|r| r.id != info.id), "{} is also a classification rule", info.id);
        }
        // Every variant has its row: a new variant does not compile here
        // until it is given a place, and then it must have a row there.
        let place = |r: JudgeReason| match r {
            JudgeReason::Unclassified => 0,
            JudgeReason::SchemaViolation => 1,
            JudgeReason::StaleAfterOwnEdit => 2,
        };
        for r in [JudgeReason::Unclassified, JudgeReason::SchemaViolation, JudgeReason::StaleAfterOwnEdit] {
            assert_eq!(JUDGE_REASONS.get(place(r)).map(|i| i.reason), Some(r), "{r:?} has no row");
        }
        assert_eq!(JudgeReason::all().count(), JUDGE_REASONS.len());
    }
}
