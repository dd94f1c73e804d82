//! The `Report`: the one thing the gate and every renderer see. Plain
//! serde types (the JSON contract, `schema/report-v5.schema.json`) and the
//! number formatting they share; nothing here reads a trace or judges.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::{FindingRule, Severity};

/// Version of the JSON contract (docs/json.md).
pub const CONTRACT_VERSION: u32 = 5;

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
    pub streaks: StreakReport,
    pub repairs: Vec<RepairRow>,
    pub feedback: Vec<FeedbackRow>,
    pub schema: SchemaReport,
    /// Errors per tool, category and classification rule (the postmortem's
    /// breakdown).
    pub reasons: Vec<ReasonRow>,
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    pub sessions: u64,
    pub calls: u64,
    /// Calls per tool name.
    pub tools: BTreeMap<String, u64>,
    pub first: Option<chrono::DateTime<chrono::Utc>>,
    pub last: Option<chrono::DateTime<chrono::Utc>>,
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
