//! The `Report`: the one thing the gate and every renderer see. Plain
//! serde types (the JSON contract, `schema/report-v6.schema.json`) and the
//! number formatting they share; nothing here reads a trace or judges.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::{FindingRule, Severity};

/// Version of the JSON contract (docs/json.md).
pub const CONTRACT_VERSION: u32 = 6;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceReport {
    pub path: String,
    pub format: String,
    pub sessions: u64,
    pub calls: u64,
    /// Calls whose result came back (paired calls).
    #[serde(default)]
    pub results: u64,
    /// Results that carry text the content rules could judge. Traces that
    /// record results only on request (OpenTelemetry content capture)
    /// judge nothing without it, and 0 hidden errors then says nothing.
    #[serde(default)]
    pub results_with_text: u64,
    /// `results_with_text / results` (6 decimals), 0 without results.
    #[serde(default)]
    pub content_coverage: f64,
}

impl SourceReport {
    pub fn new(path: &str, format: &str) -> SourceReport {
        SourceReport {
            path: path.to_string(),
            format: format.to_string(),
            sessions: 0,
            calls: 0,
            results: 0,
            results_with_text: 0,
            content_coverage: 0.0,
        }
    }

    /// "text in 3 of 7 results (43%)" when some results have none.
    pub fn coverage_note(&self) -> Option<String> {
        (self.results_with_text < self.results).then(|| {
            format!(
                "text in {} of {} results ({})",
                self.results_with_text,
                self.results,
                percent(rate(self.results_with_text, self.results), 0)
            )
        })
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Totals {
    pub sessions: u64,
    pub calls: u64,
    pub unpaired_calls: u64,
    pub orphan_results: u64,
    pub duplicate_call_ids: u64,
    pub errors: u64,
    pub flagged_errors: u64,
    pub content_errors: u64,
    pub hidden_errors: u64,
    pub flag_only_errors: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ToolReport {
    pub tool: String,
    pub calls: u64,
    pub errors: u64,
    pub flagged_errors: u64,
    pub content_errors: u64,
    pub hidden_errors: u64,
    pub error_rate: f64,
    /// Errors per category slug.
    pub categories: BTreeMap<String, u64>,
    /// Errors per cause class slug (`arguments`, `stale-state`, …): the
    /// categories summed by their class (docs/rules.md, "Cause classes").
    #[serde(default)]
    pub classes: BTreeMap<String, u64>,
}

/// The one sentence per tool with errors: its largest cause class, the
/// largest category in it, and that category's first fix.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Headline {
    pub tool: String,
    /// The largest cause class (ties: the class table's order).
    pub class: String,
    /// The tool's errors in that class.
    pub errors: u64,
    /// The tool's errors.
    pub of: u64,
    /// `errors / of` (6 decimals).
    pub share: f64,
    /// The largest category of the class (ties: slug order).
    pub category: String,
    pub category_errors: u64,
    /// For `missing-required-param`: the optional parameter its errors
    /// name most (the schema's `missing_named`), with how often.
    pub param: Option<String>,
    pub param_errors: Option<u64>,
    /// The first clause of the category's `fix`.
    pub fix: String,
    /// "Agent: 42 of 45 errors (93%) are argument problems; …".
    pub sentence: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CategoryRow {
    pub category: String,
    pub tool: String,
    pub errors: u64,
    pub hidden_errors: u64,
}

/// Errors of one tool for one classification rule: the rows of the
/// postmortem-style breakdown (category, reason, count, share).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReasonRow {
    pub tool: String,
    pub category: String,
    pub reason: String,
    pub label: String,
    pub errors: u64,
    pub hidden_errors: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Finding {
    pub rule: FindingRule,
    pub severity: Severity,
    pub source: String,
    pub session: String,
    pub call_id: Option<String>,
    pub seq: Option<usize>,
    pub tool: Option<String>,
    pub category: Option<String>,
    pub message: String,
    /// The normalized evidence that identifies this finding across scans
    /// (with rule, tool and category): the baseline key. Never row ids,
    /// times or absolute paths.
    #[serde(skip, default)]
    pub key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub schema_version: u32,
    pub sources: Vec<SourceReport>,
    pub totals: Totals,
    pub tools: Vec<ToolReport>,
    pub categories: Vec<CategoryRow>,
    pub findings: Vec<Finding>,
    pub recovery: Vec<RecoveryRow>,
    /// What the failures cost, per tool and category (`recovery`'s rows).
    #[serde(default)]
    pub cost: Vec<CostRow>,
    pub streaks: StreakReport,
    pub repairs: Vec<RepairRow>,
    pub feedback: Vec<FeedbackRow>,
    pub schema: SchemaReport,
    /// Errors per tool, category and classification rule (the postmortem's
    /// breakdown).
    pub reasons: Vec<ReasonRow>,
    /// Per tool with errors, in `tools` order: the cause in one sentence.
    #[serde(default)]
    pub headlines: Vec<Headline>,
    /// Per source (in `sources` order), its tools: for per-source renderers.
    #[serde(skip, default)]
    pub source_tools: Vec<Vec<ToolReport>>,
    /// One sanitized example message per (tool, template).
    #[serde(skip, default)]
    pub examples: BTreeMap<(String, String), String>,
    /// How sources had to be opened, for stderr.
    #[serde(skip, default)]
    pub warnings: Vec<String>,
    /// What the sources held before the filters chose what counts: to say
    /// which filter matched nothing.
    #[serde(skip, default)]
    pub seen: Seen,
}

/// Calls read before `--tool`, `--since` and `--until` applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    pub sessions: u64,
    pub calls: u64,
    /// Calls per tool name.
    pub tools: BTreeMap<String, u64>,
    #[serde(with = "exact_time")]
    pub first: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(with = "exact_time")]
    pub last: Option<chrono::DateTime<chrono::Utc>>,
}

/// A time as RFC 3339 with every digit it has (the index keeps `Seen`).
mod exact_time {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_some(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| DateTime::parse_from_rfc3339(&t).map(|t| t.with_timezone(&Utc)).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecoveryRow {
    pub tool: String,
    pub category: String,
    pub failures: u64,
    /// A later call of the same tool in the session succeeded.
    pub recovered: u64,
    pub recovered_at_1: u64,
    pub recovered_at_2: u64,
    pub recovered_at_3: u64,
    /// Median calls until the first success, over recovered failures.
    pub median_attempts: Option<f64>,
    /// Recovered failures by calls until the first success (exact, so
    /// reports merge).
    pub attempts: BTreeMap<u64, u64>,
    pub identical_retries: u64,
    pub identical_retry_successes: u64,
    pub abandoned: u64,
}

/// What the failures of one tool and category cost (docs/json.md, "Cost of
/// failures"): estimates from the trace's own times and order.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CostRow {
    pub tool: String,
    pub category: String,
    pub failures: u64,
    /// Calls of the tool after each failure up to and including its first
    /// success (every later call of the tool when none succeeded), summed.
    pub retries: u64,
    /// Failures whose time could be measured (the trace records both ends).
    pub timed: u64,
    /// Milliseconds from each timed failure to the tool's next success, or
    /// to the session's last recorded time when none came, summed.
    pub lost_ms: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StreakRow {
    pub tool: String,
    /// Runs of 2 or more consecutive calls failing with the same template.
    pub streaks: u64,
    pub longest: u64,
    pub p50: u64,
    pub p95: u64,
    /// Streak lengths: "2", "3", "4", "5-9", "10+".
    pub histogram: BTreeMap<String, u64>,
    /// Streaks by exact length (so reports merge).
    pub lengths: BTreeMap<u64, u64>,
    pub at_or_above_threshold: u64,
    pub hidden_at_or_above_threshold: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StreakReport {
    pub threshold: u64,
    pub by_tool: Vec<StreakRow>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RepairRow {
    pub tool: String,
    pub category: String,
    pub change: String,
    pub kind: String,
    /// Repairs of this (tool, category) that made this change.
    pub count: u64,
    /// All repairs of this (tool, category).
    pub of: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FeedbackRow {
    pub template: String,
    pub tool: String,
    pub count: u64,
    /// The text names the field, the path or the line at fault.
    pub locates: bool,
    /// The text gives allowed values, an example or a next step.
    pub directs: bool,
    /// Failures with this text whose next call of the tool succeeded.
    pub recovered_at_1: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SchemaToolRow {
    pub tool: String,
    /// Where the schema came from: `built-in peri`, a file, `trace`.
    pub origin: String,
    pub validated: u64,
    pub violations: u64,
    /// Calls that violate the schema but came back as successes.
    pub accepted_violations: u64,
    /// Violating calls per category of their first violation.
    pub categories: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftRow {
    /// `optional-but-required`, `enum-too-narrow` or `undocumented-param`.
    pub rule: FindingRule,
    pub tool: String,
    pub param: String,
    /// For `enum-too-narrow`, the value accepted outside the enum.
    pub value: Option<String>,
    pub count: u64,
    pub recommendation: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SchemaReport {
    pub tools: Vec<SchemaToolRow>,
    pub drift: Vec<DriftRow>,
    /// Missing-parameter errors naming an optional parameter before it is
    /// reported as `optional-but-required` (`--drift-min`).
    pub drift_min: u64,
    /// Every optional parameter that missing-parameter errors named, with
    /// how often, below the threshold too (so reports merge).
    pub missing_named: Vec<MissingNamed>,
}

/// An optional parameter that missing-parameter errors named.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MissingNamed {
    pub tool: String,
    pub param: String,
    pub count: u64,
}

/// `errors / calls`, rounded to 6 decimals so the JSON is stable.
pub fn rate(errors: u64, calls: u64) -> f64 {
    if calls == 0 {
        return 0.0;
    }
    (errors as f64 / calls as f64 * 1e6).round() / 1e6
}

/// A fraction as a percentage with `decimals` places ("4.52%").
pub fn percent(x: f64, decimals: usize) -> String {
    format!("{:.*}%", decimals, x * 100.0)
}

/// Version of the `tracelint sessions --format json` output
/// (`schema/sessions-v1.schema.json`).
pub const SESSIONS_VERSION: u32 = 1;

/// `tracelint sessions --format json`: the sessions, worst first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionsReport {
    pub sessions_version: u32,
    /// Sessions with at least one counted call.
    pub total: u64,
    /// Rows listed (`--limit`).
    pub shown: u64,
    pub sessions: Vec<SessionRow>,
}

/// One session: what it did, what its failures cost, and its grade.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionRow {
    pub session: String,
    pub parent: Option<String>,
    pub agent: String,
    /// The PATH it was read from.
    pub source: String,
    /// The transcript file, for a folder's sessions.
    pub file: Option<String>,
    /// RFC 3339, the session's first recorded time.
    pub start: Option<String>,
    /// From the first to the last recorded time.
    pub duration_ms: Option<u64>,
    pub calls: u64,
    pub errors: u64,
    pub flagged_errors: u64,
    pub hidden_errors: u64,
    /// Streaks at or above the guard threshold whose every failure was
    /// hidden: a guard reading the flag never fired.
    pub guard_blind_streaks: u64,
    /// Failures after which the tool was never called again.
    pub abandoned: u64,
    /// The cost section's retries, summed over the session.
    pub retries: u64,
    /// The time from its failures to their tools' next success (or the
    /// session's end), overlaps counted once: at most the duration.
    pub lost_ms: u64,
    pub grade: String,
    /// 100 minus the penalties (docs/analyses.md, "Session grades").
    pub score: i64,
    /// What decided the grade, largest penalty first.
    pub reasons: Vec<String>,
}
