//! Finding rules: the defects falseok reports, one table row each.
//!
//! The judge emits the session findings and the aggregator the schema-drift
//! ones (`Scope`) by `FindingRule`, the gate selects them by it
//! (`--fail-on`), baselines and renderers key on its id, and `falseok
//! rules` prints this table. A new finding rule is one enum variant and one
//! row here; the tests below keep the two in step.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How bad a finding is by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The gate fails on it by default.
    Error,
    /// Reported; the gate fails on it only when asked (`--fail-on`).
    Warning,
}

impl Severity {
    /// The stable name (`error` or `warning`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl Serialize for Severity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            other => Err(serde::de::Error::custom(format!("unknown severity {other:?}"))),
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every kind of finding. The id (`as_str`) is part of the JSON contract
/// and of baseline fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingRule {
    /// A call failed by its content while the source flagged the result as a success.
    HiddenError,
    /// A run of identical hidden failures at least as long as the streak threshold: a guard counting flagged failures
    /// never fired.
    GuardBlindStreak,
    /// After a failure the agent alternated between two argument sets (A, B, A, B).
    Oscillation,
    /// A call has no result: the session ended, crashed or was cut.
    UnpairedCall,
    /// A result whose call id matches no call of its session.
    OrphanResult,
    /// A call reuses an earlier call's id in the same session.
    DuplicateCallId,
    /// A row or line of the trace could not be read, or was read only after a repair.
    MalformedRow,
    /// A call whose arguments its tool schema rejects came back as a success.
    SchemaViolationAccepted,
    /// Schema drift: calls without an optional parameter keep failing with messages that ask for it.
    OptionalButRequired,
    /// Schema drift: the tool accepted a value outside the enum its schema declares.
    EnumTooNarrow,
    /// Schema drift: the tool accepted a parameter its schema does not document.
    UndocumentedParam,
}

/// What a finding is about, and so which stage emits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// One session's calls: emitted by the judge, session by session
    /// (`judge/findings.rs`), with the session and call it is about.
    Session,
    /// Schema drift, over every session of a scan: emitted by the
    /// aggregator once all sessions are counted (`aggregate/schemas.rs`),
    /// so it is never a session's and merged reports recount it.
    Drift,
}

impl Scope {
    /// The stable name (`session` or `drift`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Session => "session",
            Scope::Drift => "drift",
        }
    }
}

impl Serialize for Scope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One row of the registry.
#[derive(Debug, Serialize)]
pub struct FindingInfo {
    /// The finding rule this row describes (the table's key, not serialized).
    #[serde(skip)]
    pub rule: FindingRule,
    /// The stable id (JSON contract, `--fail-on`, baselines).
    pub id: &'static str,
    /// How bad the finding is by default.
    pub severity: Severity,
    /// Whether the finding is about one session or about schema drift over all of them.
    pub scope: Scope,
    /// What the finding means, one sentence.
    pub meaning: &'static str,
    /// A message as falseok prints it.
    pub example: &'static str,
}

/// Every finding rule, in enum order.
pub static FINDING_RULES: &[FindingInfo] = &[
    FindingInfo {
        rule: FindingRule::HiddenError,
        id: "hidden-error",
        severity: Severity::Error,
        scope: Scope::Session,
        meaning: "a call failed by its content while the source flagged the result as a success",
        example: "Edit failed but the result is not flagged as an error: Error: old_string not found in /src/a.rs",
    },
    FindingInfo {
        rule: FindingRule::GuardBlindStreak,
        id: "guard-blind-streak",
        severity: Severity::Error,
        scope: Scope::Session,
        meaning: "a run of identical hidden failures at least as long as the streak threshold: a guard counting flagged failures never fired",
        example: "Agent failed 7 times in a row with the same hidden error, so a guard counting flagged failures never fired: Error: please provide subagent_type parameter",
    },
    FindingInfo {
        rule: FindingRule::Oscillation,
        id: "oscillation",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "after a failure the agent alternated between two argument sets (A, B, A, B)",
        example: "Bash alternated between two argument sets after a failure (calls 4, 5, 6, 7)",
    },
    FindingInfo {
        rule: FindingRule::UnpairedCall,
        id: "unpaired-call",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "a call has no result: the session ended, crashed or was cut",
        example: "Bash call has no result (session ended, crashed or was cut)",
    },
    FindingInfo {
        rule: FindingRule::OrphanResult,
        id: "orphan-result",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "a result whose call id matches no call of its session",
        example: "result at row 42 answers no call in this session",
    },
    FindingInfo {
        rule: FindingRule::DuplicateCallId,
        id: "duplicate-call-id",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "a call reuses an earlier call's id in the same session; results were paired in order",
        example: "call id is used by an earlier call in this session; results were paired in order",
    },
    FindingInfo {
        rule: FindingRule::MalformedRow,
        id: "malformed-row",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "a row or line of the trace could not be read, or was read only after a repair; the scan went on",
        example: "row 17 skipped: parts is invalid JSON: EOF while parsing a list at line 1 column 12",
    },
    FindingInfo {
        rule: FindingRule::SchemaViolationAccepted,
        id: "schema-violation-accepted",
        severity: Severity::Warning,
        scope: Scope::Session,
        meaning: "a call whose arguments its tool schema rejects came back as a success",
        example: "Agent accepted arguments its schema rejects: missing required parameter subagent_type",
    },
    FindingInfo {
        rule: FindingRule::OptionalButRequired,
        id: "optional-but-required",
        severity: Severity::Warning,
        scope: Scope::Drift,
        meaning: "schema drift: calls without an optional parameter keep failing with messages that ask for it (at least --drift-min times)",
        example: "Agent.subagent_type: 36 missing-parameter errors name this optional parameter; add `subagent_type` to `required` in the Agent schema, or say in its description exactly when it is needed",
    },
    FindingInfo {
        rule: FindingRule::EnumTooNarrow,
        id: "enum-too-narrow",
        severity: Severity::Warning,
        scope: Scope::Drift,
        meaning: "schema drift: the tool accepted a value outside the enum its schema declares",
        example: "Grep.output_mode = \"lines\": accepted 3 times outside the enum; add \"lines\" to the enum of `output_mode`, or reject it at runtime",
    },
    FindingInfo {
        rule: FindingRule::UndocumentedParam,
        id: "undocumented-param",
        severity: Severity::Warning,
        scope: Scope::Drift,
        meaning: "schema drift: the tool accepted a parameter its schema does not document",
        example: "Read.encoding: accepted 2 times but not in the schema; document `encoding` in the Read schema, or stop accepting it",
    },
];

impl FindingRule {
    /// The rule's row of `FINDING_RULES`.
    pub fn info(self) -> &'static FindingInfo {
        FINDING_RULES.iter().find(|i| i.rule == self).expect("every finding rule has a row (tested)")
    }

    /// The stable id, as in the JSON contract and baselines.
    pub fn as_str(self) -> &'static str {
        self.info().id
    }

    /// How bad the finding is by default.
    pub fn severity(self) -> Severity {
        self.info().severity
    }

    /// Whether it is about one session or schema drift.
    pub fn scope(self) -> Scope {
        self.info().scope
    }

    /// A schema-drift finding (`Scope::Drift`): emitted by the aggregator
    /// over all sessions, never by the judge for one session.
    pub fn is_drift(self) -> bool {
        self.scope() == Scope::Drift
    }

    /// The rule with this id, if any.
    pub fn from_id(id: &str) -> Option<FindingRule> {
        FINDING_RULES.iter().find(|i| i.id == id).map(|i| i.rule)
    }

    /// Every id, in table order.
    pub fn ids() -> impl Iterator<Item = &'static str> {
        FINDING_RULES.iter().map(|i| i.id)
    }
}

impl Serialize for FindingRule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FindingRule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        FindingRule::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("unknown finding rule {id:?}")))
    }
}

impl fmt::Display for FindingRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_rule_and_ids_are_unique_slugs() {
        let mut ids: Vec<&str> = FindingRule::ids().collect();
        for info in FINDING_RULES {
            assert_eq!(FINDING_RULES.iter().filter(|i| i.rule == info.rule).count(), 1, "{:?}", info.rule);
            assert_eq!(FindingRule::from_id(info.id), Some(info.rule));
            assert!(info.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", info.id);
            assert!(!info.meaning.is_empty() && !info.example.is_empty(), "{}", info.id);
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), FINDING_RULES.len());
        assert_eq!(FindingRule::from_id("hidden-errors"), None);
    }

    /// The `FindingRule::X` variants a source file names outside its tests.
    fn named(path: &str) -> Vec<FindingRule> {
        let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let mut rules: Vec<FindingRule> = code
            .split("FindingRule::")
            .skip(1)
            .filter_map(|rest| {
                let name: String = rest.chars().take_while(char::is_ascii_alphanumeric).collect();
                FINDING_RULES.iter().find(|i| format!("{:?}", i.rule) == name).map(|i| i.rule)
            })
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// The scope says who emits a finding: the judge emits exactly the
    /// session rules, the aggregator's schema pass exactly the drift rules.
    #[test]
    fn each_scope_is_emitted_where_it_says() {
        let session: Vec<FindingRule> = FINDING_RULES.iter().map(|i| i.rule).filter(|r| !r.is_drift()).collect();
        let drift: Vec<FindingRule> = FINDING_RULES.iter().map(|i| i.rule).filter(|r| r.is_drift()).collect();
        assert_eq!(named("src/judge/findings.rs"), session);
        assert_eq!(named("src/aggregate/schemas.rs"), drift);
        for info in FINDING_RULES {
            assert_eq!(info.meaning.starts_with("schema drift:"), info.scope == Scope::Drift, "{}", info.id);
        }
    }
}
