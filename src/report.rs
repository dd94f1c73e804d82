//! The `Report`: the one thing the gate and every renderer see. Plain
//! serde types (the JSON contract, `schema/report-v10.schema.json`) and the
//! number formatting they share; nothing here reads a trace or judges.

// What stays public is documented (issue 25); lib.rs lists the surface.
#![warn(missing_docs)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::{FindingRule, Severity};

/// Version of the JSON contract (docs/json.md).
pub const CONTRACT_VERSION: u32 = 10;

/// The oldest contract `merge` reads: v8 is v9 without suppressions.
pub const OLDEST_MERGED: u32 = 8;

/// One PATH as given on the command line and what was read from it (`sources[]`, in command-line
/// order).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceReport {
    /// The PATH as given (redacted).
    pub path: String,
    /// The format or transcript agent it was read as (`falseok formats`).
    pub format: String,
    /// Sessions with at least one counted call.
    pub sessions: u64,
    /// Tool calls counted.
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
    /// An empty row for the source at `path`, read as `format`.
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

/// The tokens of the responses behind the counted calls, where the trace
/// records them (`usage`, v10; docs/analyses.md, "Tokens and money"). Each
/// call carries its share of its response, so these are the responses'
/// tokens over the calls counted.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct UsageReport {
    /// Counted calls whose response's usage is recorded: the figures
    /// below are theirs alone (0: no usage recorded, not zero tokens).
    pub calls: u64,
    /// Input tokens at the full price.
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Of the output, tokens spent reasoning (where recorded).
    pub reasoning_tokens: u64,
    /// US dollars of the calls that could be priced (`calls - unpriced_calls`).
    pub dollars: f64,
    /// Calls with usage whose model the price table does not know and whose
    /// source records no cost: counted in tokens only.
    pub unpriced_calls: u64,
    /// Those calls' models, sorted.
    pub unpriced_models: Vec<String>,
    /// The session whose failures cost the most tokens, for
    /// `check --max-session-failure-cost` (`null`: no failure with usage).
    #[serde(default)]
    pub costliest_session_tokens: Option<CostliestSession>,
    /// The session whose failures cost the most dollars (`null`: none priced).
    #[serde(default)]
    pub costliest_session_dollars: Option<CostliestSession>,
}

/// A session and what its failures cost (`usage.costliest_session_*`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CostliestSession {
    /// The PATH it was read from.
    pub source: String,
    /// Its id.
    pub session: String,
    /// What its failures cost in tokens (own, retry, rent).
    pub failure_tokens: u64,
    /// ... and in dollars, over the failures that could be priced.
    pub failure_dollars: f64,
}

impl UsageReport {
    /// Every token billed: input, output and the cache's.
    pub fn tokens(&self) -> u64 {
        [self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_write_tokens]
            .iter()
            .fold(0u64, |a, &b| a.saturating_add(b))
    }
}

/// Counts over every counted call of every source (`totals`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Totals {
    /// Sessions with at least one counted call.
    pub sessions: u64,
    /// Tool calls counted.
    pub calls: u64,
    /// Calls whose result never came back.
    pub unpaired_calls: u64,
    /// Results with no call to pair with.
    pub orphan_results: u64,
    /// Call ids more than one call used.
    pub duplicate_call_ids: u64,
    /// Failed calls, a pair once even when both signals fire:
    /// `flagged_errors + content_errors - (flagged and content)`.
    pub errors: u64,
    /// Failures the trace's own error flag marks.
    pub flagged_errors: u64,
    /// Failures the content rules find in the result's text.
    pub content_errors: u64,
    /// Failures the content rules find and the flag does not mark: what a guard reading the flag
    /// never sees.
    pub hidden_errors: u64,
    /// Failures the flag marks and the content rules do not find.
    pub flag_only_errors: u64,
}

/// One tool's counts over every source (`tools[]`, sorted by tool).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ToolReport {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// Calls of the tool counted.
    pub calls: u64,
    /// Failed calls, each once (as in `totals`).
    pub errors: u64,
    /// Failures the trace's error flag marks.
    pub flagged_errors: u64,
    /// Failures the content rules find.
    pub content_errors: u64,
    /// Failures the content rules find and the flag does not mark.
    pub hidden_errors: u64,
    /// `errors / calls`, rounded to 6 decimals.
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
    /// The tool the sentence is about.
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
    /// The tool's errors in that category.
    pub category_errors: u64,
    /// For `missing-required-param`: the optional parameter its errors
    /// name most (the schema's `missing_named`), with how often.
    pub param: Option<String>,
    /// How many of the category's errors name `param`.
    pub param_errors: Option<u64>,
    /// The first clause of the category's `fix`.
    pub fix: String,
    /// "Agent: 42 of 45 errors (93%) are argument problems; …".
    pub sentence: String,
}

/// The errors of one category of one tool (`categories[]`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CategoryRow {
    /// The category's slug (docs/rules.md).
    pub category: String,
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The tool's errors in the category.
    pub errors: u64,
    /// Those of them the trace's error flag does not mark (hidden from a guard that reads it).
    pub hidden_errors: u64,
}

/// Errors of one tool for one classification rule: the rows of the
/// postmortem-style breakdown (category, reason, count, share).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReasonRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The category the rule classified the errors as.
    pub category: String,
    /// The classification rule's id; `unclassified` when none matched.
    pub reason: String,
    /// The rule's label, for people.
    pub label: String,
    /// Errors the rule classified.
    pub errors: u64,
    /// Those of them the trace's error flag does not mark (hidden from a guard that reads it).
    pub hidden_errors: u64,
}

/// What a finding rule found at one call or row (`findings[]`, sorted by source, session, seq,
/// rule).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Finding {
    /// The finding rule (`falseok rules`).
    pub rule: FindingRule,
    /// The rule's severity, which `--fail-on` compares.
    pub severity: Severity,
    /// The PATH it was found in, as `sources[].path` shows it.
    pub source: String,
    /// The session it was found in (for a transcript line, the session its file's records went to,
    /// else the file's name).
    pub session: String,
    /// The call's id, for a finding about a call.
    pub call_id: Option<String>,
    /// The call's 1-based position among its session's calls; `None` for a finding about rows
    /// rather than calls.
    pub seq: Option<usize>,
    /// The call's tool, when there is a call.
    pub tool: Option<String>,
    /// The failure's category, when the finding is about one.
    pub category: Option<String>,
    /// What was found, in one line.
    pub message: String,
    /// The normalized evidence that identifies this finding across scans
    /// (with rule, tool and category): the baseline key. Never row ids,
    /// times or absolute paths.
    #[serde(skip, default)]
    pub key: String,
    /// The suppression that accepts it (`suppressions.entries[].origin`,
    /// the file and line of its `[[suppress]]`): `check` does not count it.
    /// Absent when none does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<String>,
    /// Where the finding's evidence is stored, for outputs that point at it
    /// (SARIF). Not in the JSON contract; the index keeps it beside the report.
    #[serde(skip, default)]
    pub place: Option<Place>,
}

/// Where a finding's call, result or row is stored.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Place {
    /// The transcript file the session was read from (redacted), when the
    /// source is a folder of transcripts or a broken line names its file.
    pub file: Option<String>,
    /// The database row of the result (else of the call); with `line`, a
    /// line number of `file` (or of the source, when `file` is `None`).
    pub row: i64,
    /// `row` is a line number, not a database row.
    pub line: bool,
    /// The classification rule or custom rule that decided the failure
    /// (`reasons[].reason`), for a finding about a failed call.
    pub reason: Option<String>,
}

/// The configuration's suppressions and what they accepted
/// (`suppressions`; docs/config.md, "suppress").
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Suppressions {
    /// Findings a suppression accepts.
    pub suppressed: u64,
    /// The distinct reasons of the suppressions that accept at least one.
    pub reasons: u64,
    /// Every suppression of the configuration, in the file's order.
    pub entries: Vec<SuppressionRow>,
}

impl Suppressions {
    /// "12 suppressed, 3 reasons", when the configuration has suppressions.
    pub fn summary(&self) -> Option<String> {
        (!self.entries.is_empty()).then(|| {
            let reasons = if self.reasons == 1 { "reason" } else { "reasons" };
            format!("{} suppressed, {} {reasons}", self.suppressed, self.reasons)
        })
    }
}

/// One `[[suppress]]` table and the findings it accepted.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SuppressionRow {
    /// Where it is written: the file (relative to the current folder when
    /// under it) and the line.
    pub origin: String,
    /// The finding rule id or category it names.
    pub rule: String,
    /// Its tool-name pattern.
    pub tool: String,
    /// The session it is limited to.
    pub session: Option<String>,
    /// The call id it is limited to.
    pub call: Option<String>,
    /// Why the findings are accepted.
    pub reason: String,
    /// The last day it holds, YYYY-MM-DD (UTC).
    pub expires: Option<String>,
    /// The day of the scan is past `expires`: it accepts nothing and fails the gate.
    pub expired: bool,
    /// Findings it accepted.
    pub suppressed: u64,
}

/// The result of a scan or a merge (contract v9, docs/json.md): what the gate and every renderer
/// read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// The contract's version (`CONTRACT_VERSION`).
    pub schema_version: u32,
    /// One row per PATH, in command-line order.
    pub sources: Vec<SourceReport>,
    /// Counts over every counted call.
    pub totals: Totals,
    /// The tokens and dollars of the counted calls' responses, where recorded (v10).
    #[serde(default)]
    pub usage: UsageReport,
    /// Per tool, sorted by tool.
    pub tools: Vec<ToolReport>,
    /// Per category and tool, sorted by tool, then errors (descending), then category.
    pub categories: Vec<CategoryRow>,
    /// What the finding rules found, sorted by source, session, seq, rule.
    pub findings: Vec<Finding>,
    /// What the agent did after the failures, per tool and category.
    pub recovery: Vec<RecoveryRow>,
    /// What the failures cost, per tool and category (`recovery`'s rows).
    #[serde(default)]
    pub cost: Vec<CostRow>,
    /// Runs of one tool's calls failing with the same template, per tool.
    pub streaks: StreakReport,
    /// How failed calls' arguments changed on the next successful call, per tool and category.
    pub repairs: Vec<RepairRow>,
    /// Per error template and tool: whether the text helped the agent fix the call, most worth
    /// rewriting first.
    pub feedback: Vec<FeedbackRow>,
    /// Tool-schema validation and drift.
    pub schema: SchemaReport,
    /// Errors per tool, category and classification rule (the postmortem's
    /// breakdown).
    pub reasons: Vec<ReasonRow>,
    /// Per tool with errors, in `tools` order: the cause in one sentence.
    #[serde(default)]
    pub headlines: Vec<Headline>,
    /// Per scanned session the guard acted in, by session: its
    /// interventions and whether the agent recovered after each.
    #[serde(default)]
    pub guard: Vec<GuardSession>,
    /// The configuration's suppressions and the findings they accepted
    /// (v9; a v8 report has none).
    #[serde(default)]
    pub suppressions: Suppressions,
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
    /// Sessions read.
    pub sessions: u64,
    /// Calls read.
    pub calls: u64,
    /// Calls per tool name.
    pub tools: BTreeMap<String, u64>,
    /// The ids of the sessions read (to find the guard's record of them).
    #[serde(default)]
    pub session_ids: std::collections::BTreeSet<String>,
    /// The earliest call time read.
    #[serde(with = "exact_time")]
    pub first: Option<chrono::DateTime<chrono::Utc>>,
    /// The latest call time read.
    #[serde(with = "exact_time")]
    pub last: Option<chrono::DateTime<chrono::Utc>>,
}

/// The guard's interventions in one scanned session (`guard[]`;
/// docs/guard.md, "Reading the counts afterwards").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GuardSession {
    /// The session's id, as `scan` read it.
    pub session: String,
    /// The agent the guard answered (the hook payload's dialect).
    pub agent: String,
    /// In the order the guard gave them.
    pub interventions: Vec<Intervention>,
}

/// One time the guard acted: it told the agent of a hidden error
/// (`context`), refused a repeated call (`deny`), or refused it and ended
/// the turn (`stop`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Intervention {
    /// When, RFC 3339, as the guard recorded it.
    pub time: String,
    /// The tool of the call the guard judged.
    pub tool: String,
    /// The call's id, as the hook payload gave it (empty when it gave none).
    pub call_id: String,
    /// `context`, `deny` or `stop`.
    pub action: String,
    /// The failure's category.
    pub category: Option<String>,
    /// The run of identical failures the call was in (or repeated).
    pub streak: u64,
    /// The results of the same tool in the session, after this one, up to
    /// and including its first success; `null` when none succeeded since.
    pub recovered_after: Option<u64>,
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

/// What the agent did after the failures of one tool and category (`recovery[]`, sorted by tool,
/// category; docs/analyses.md, "Recovery").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecoveryRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The failures' category.
    pub category: String,
    /// Failures of the tool in the category.
    pub failures: u64,
    /// A later call of the same tool in the session succeeded.
    pub recovered: u64,
    /// Failures whose next call of the tool succeeded.
    pub recovered_at_1: u64,
    /// Failures whose first success was the second call of the tool after them.
    pub recovered_at_2: u64,
    /// Failures whose first success was the third call of the tool after them.
    pub recovered_at_3: u64,
    /// Median calls until the first success, over recovered failures.
    pub median_attempts: Option<f64>,
    /// Recovered failures by calls until the first success (exact, so
    /// reports merge).
    pub attempts: BTreeMap<u64, u64>,
    /// Failures whose next call of the tool had the same arguments (key order ignored).
    pub identical_retries: u64,
    /// Those identical retries that succeeded.
    pub identical_retry_successes: u64,
    /// Failures after which the session never called the tool again.
    pub abandoned: u64,
}

/// What the failures of one tool and category cost (docs/json.md, "Cost of
/// failures"): estimates from the trace's own times and order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CostRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The failures' category.
    pub category: String,
    /// Failures of the tool in the category (as in `recovery`).
    pub failures: u64,
    /// Calls of the tool after each failure up to and including its first
    /// success (every later call of the tool when none succeeded), summed.
    pub retries: u64,
    /// Failures whose time could be measured (the trace records both ends).
    pub timed: u64,
    /// Milliseconds from each timed failure to the tool's next success, or
    /// to the session's last recorded time when none came, summed.
    pub lost_ms: u64,
    /// Failures whose response's token usage the trace records (v10): the
    /// token and dollar figures below are theirs alone.
    #[serde(default)]
    pub with_usage: u64,
    /// Their share of the responses that emitted them, summed.
    #[serde(default)]
    pub own_tokens: u64,
    /// The share of the tool's next call when it succeeded: the work done
    /// again (docs/analyses.md, "Tokens and money").
    #[serde(default)]
    pub retry_tokens: u64,
    /// An estimate: the failed results' tokens read again by every later
    /// response until a compaction or the session's end.
    #[serde(default)]
    pub rent_tokens: u64,
    /// US dollars of the three, over the failures that could be priced
    /// (`with_usage - unpriced`).
    #[serde(default)]
    pub dollars: f64,
    /// Failures with usage whose model the price table does not know and
    /// whose source records no cost: counted in tokens only.
    #[serde(default)]
    pub unpriced: u64,
}

impl CostRow {
    /// Every token the failures cost: own, retry and rent.
    pub fn tokens(&self) -> u64 {
        self.own_tokens.saturating_add(self.retry_tokens).saturating_add(self.rent_tokens)
    }
}

/// One tool's streaks (`streaks.by_tool[]`, sorted by tool).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StreakRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// Runs of 2 or more consecutive calls failing with the same template.
    pub streaks: u64,
    /// The longest streak's length.
    pub longest: u64,
    /// The median streak length (nearest rank).
    pub p50: u64,
    /// The 95th percentile of the streak lengths (nearest rank).
    pub p95: u64,
    /// Streak lengths: "2", "3", "4", "5-9", "10+".
    pub histogram: BTreeMap<String, u64>,
    /// Streaks by exact length (so reports merge).
    pub lengths: BTreeMap<u64, u64>,
    /// Streaks at least `threshold` calls long.
    pub at_or_above_threshold: u64,
    /// Those of them made only of hidden errors (`guard-blind-streak` findings).
    pub hidden_at_or_above_threshold: u64,
}

/// Streaks per tool (`streaks`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StreakReport {
    /// `--streak-threshold`: the length from which a streak counts as reaching the threshold.
    pub threshold: u64,
    /// Per tool with streaks, sorted by tool.
    pub by_tool: Vec<StreakRow>,
}

/// One change between failed calls' arguments and their next successful call's (`repairs[]`;
/// docs/analyses.md, "Repairs").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RepairRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The repaired failures' category.
    pub category: String,
    /// The top-level argument change (`added`, `removed`, `changed`, or a type change such as ``
    /// `limit` string → number ``).
    pub change: String,
    /// `faithful`, `rewrite` or `relaxation`.
    pub kind: String,
    /// Repairs of this (tool, category) that made this change.
    pub count: u64,
    /// All repairs of this (tool, category).
    pub of: u64,
}

/// One error text and whether it helps the agent fix the call (`feedback[]`, most worth rewriting
/// first).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FeedbackRow {
    /// The error's first line with its variable parts replaced (`<path>`, `<n>`, …).
    pub template: String,
    /// The tool's name as the trace records it.
    pub tool: String,
    /// Failures with this text.
    pub count: u64,
    /// The text names the field, the path or the line at fault.
    pub locates: bool,
    /// The text gives allowed values, an example or a next step.
    pub directs: bool,
    /// Failures with this text whose next call of the tool succeeded.
    pub recovered_at_1: u64,
}

/// One tool's schema and its calls' validation (`schema.tools[]`, sorted by tool).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SchemaToolRow {
    /// The tool's name as the trace records it.
    pub tool: String,
    /// Where the schema came from: `built-in peri`, a file, `trace`.
    pub origin: String,
    /// Calls validated against the schema.
    pub validated: u64,
    /// Calls that violate it.
    pub violations: u64,
    /// Calls that violate the schema but came back as successes.
    pub accepted_violations: u64,
    /// Violating calls per category of their first violation.
    pub categories: BTreeMap<String, u64>,
}

/// One place where a tool's schema and its calls disagree (`schema.drift[]`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftRow {
    /// `optional-but-required`, `enum-too-narrow` or `undocumented-param`.
    pub rule: FindingRule,
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The parameter concerned.
    pub param: String,
    /// For `enum-too-narrow`, the value accepted outside the enum.
    pub value: Option<String>,
    /// Calls that show the disagreement.
    pub count: u64,
    /// What to change in the schema.
    pub recommendation: String,
}

/// Tool-schema validation and drift (`schema`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SchemaReport {
    /// Per tool with a schema, sorted by tool.
    pub tools: Vec<SchemaToolRow>,
    /// What the drift finding rules found.
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
    /// The tool's name as the trace records it.
    pub tool: String,
    /// The optional parameter.
    pub param: String,
    /// Missing-parameter errors that named it.
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

/// Version of the `falseok sessions --format json` output
/// (`schema/sessions-v2.schema.json`; v2 added `tokens`, `failure_tokens`
/// and `failure_dollars`).
pub const SESSIONS_VERSION: u32 = 2;

/// `falseok sessions --format json`: the sessions, worst first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionsReport {
    /// The output's version (`SESSIONS_VERSION`).
    pub sessions_version: u32,
    /// Sessions with at least one counted call.
    pub total: u64,
    /// Rows listed (`--limit`).
    pub shown: u64,
    /// The sessions listed, worst first.
    pub sessions: Vec<SessionRow>,
}

/// One session: what it did, what its failures cost, and its grade.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionRow {
    /// The session's id.
    pub session: String,
    /// The id of the session that started it, for a sub-agent's.
    pub parent: Option<String>,
    /// The format or transcript agent it was read as.
    pub agent: String,
    /// The PATH it was read from.
    pub source: String,
    /// The transcript file, for a folder's sessions.
    pub file: Option<String>,
    /// RFC 3339, the session's first recorded time.
    pub start: Option<String>,
    /// From the first to the last recorded time.
    pub duration_ms: Option<u64>,
    /// Calls counted.
    pub calls: u64,
    /// Failed calls.
    pub errors: u64,
    /// Failures the trace's error flag marks.
    pub flagged_errors: u64,
    /// Failures the content rules find and the flag does not mark.
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
    /// The tokens of the session's counted calls' responses; `null` when the
    /// trace records no usage (v2).
    #[serde(default)]
    pub tokens: Option<u64>,
    /// What its failures cost in tokens (own, retry, rent; docs/analyses.md,
    /// "Tokens and money"); `null` when the trace records no usage (v2).
    #[serde(default)]
    pub failure_tokens: Option<u64>,
    /// ... and in US dollars, over the failures that could be priced; `null`
    /// when none could (v2).
    #[serde(default)]
    pub failure_dollars: Option<f64>,
    /// `A` to `F` (docs/analyses.md, "Session grades").
    pub grade: String,
    /// 100 minus the penalties (docs/analyses.md, "Session grades").
    pub score: i64,
    /// What decided the grade, largest penalty first.
    pub reasons: Vec<String>,
}
