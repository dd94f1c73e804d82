//! Aggregation into the one `Report` every renderer sees.

pub mod csv;
pub mod github;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod schemas;
pub mod sequences;
pub mod table;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::analysis::sequence::{self, DEFAULT_STREAK_THRESHOLD};
use crate::analysis::{JudgedCall, JudgedSession, Outcome};
use sequences::{FeedbackRow, RecoveryRow, RepairRow, SequenceAgg, StreakReport};

/// Version of the JSON contract (README, "JSON output").
pub const SCHEMA_VERSION: u32 = 3;

/// Which calls count in the report. Sessions are judged whole first (stale
/// edits need the full order); these filters only choose what is counted.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub tools: Vec<String>,
}

/// Settings of the analyses.
#[derive(Debug, Clone)]
pub struct AnalysisOptions {
    /// Streaks this long or longer are reported (Peri's guard fires at 5).
    pub streak_threshold: usize,
    /// Missing-parameter errors naming an optional parameter before it is
    /// reported as `optional-but-required`.
    pub drift_min: u64,
    /// Tool schemas from `--tool-schemas`, over the built-in ones.
    pub tool_schemas: crate::schema::FileSchemas,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            streak_threshold: DEFAULT_STREAK_THRESHOLD,
            drift_min: 3,
            tool_schemas: crate::schema::FileSchemas::default(),
        }
    }
}

impl Filters {
    fn time_ok(&self, t: Option<DateTime<Utc>>) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let Some(t) = t else { return false };
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }
    fn call_ok(&self, c: &JudgedCall) -> bool {
        (self.tools.is_empty() || self.tools.contains(&c.tool)) && self.time_ok(c.time)
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceReport {
    pub path: String,
    pub format: String,
    pub sessions: u64,
    pub calls: u64,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
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

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
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

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CategoryRow {
    pub category: String,
    pub tool: String,
    pub errors: u64,
    pub hidden_errors: u64,
}

/// Errors of one tool for one classification rule: the rows of the
/// postmortem-style breakdown (category, reason, count, share).
#[derive(Debug, Clone, PartialEq)]
pub struct ReasonRow {
    pub tool: String,
    pub category: String,
    pub reason: String,
    pub label: String,
    pub errors: u64,
    pub hidden_errors: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: &'static str,
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
    #[serde(skip)]
    pub key: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
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
    pub schema: schemas::SchemaReport,
    #[serde(skip)]
    pub reasons: Vec<ReasonRow>,
    /// Per source (in `sources` order), its tools: for per-source renderers.
    #[serde(skip)]
    pub source_tools: Vec<Vec<ToolReport>>,
    /// One sanitized example message per (tool, template).
    #[serde(skip)]
    pub examples: BTreeMap<(String, String), String>,
    /// How sources had to be opened, for stderr.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// Collects judged sessions, one source after another, into a `Report`.
pub struct Aggregator {
    filters: Filters,
    options: AnalysisOptions,
    sequences: SequenceAgg,
    schemas: crate::schema::SchemaSet,
    schema_agg: schemas::SchemaAgg,
    sources: Vec<SourceReport>,
    totals: Totals,
    tools: BTreeMap<String, ToolReport>,
    categories: BTreeMap<(String, String), (u64, u64)>,
    reasons: BTreeMap<(String, String, String), (String, u64, u64)>,
    findings: Vec<Finding>,
    source_tools: Vec<BTreeMap<String, ToolReport>>,
    examples: BTreeMap<(String, String), String>,
    warnings: Vec<String>,
}

fn count_call(t: &mut ToolReport, outcome: &Outcome) {
    t.calls += 1;
    if let Outcome::Failed(f) = outcome {
        t.errors += 1;
        t.flagged_errors += u64::from(f.flagged);
        t.content_errors += u64::from(f.content_rule.is_some());
        t.hidden_errors += u64::from(f.is_hidden());
        *t.categories.entry(f.category.as_str().to_string()).or_default() += 1;
    }
}

fn tool_entry<'a>(map: &'a mut BTreeMap<String, ToolReport>, tool: &str) -> &'a mut ToolReport {
    // Look up by reference first: this runs for every call.
    if !map.contains_key(tool) {
        map.insert(tool.to_string(), ToolReport { tool: tool.to_string(), ..ToolReport::default() });
    }
    map.get_mut(tool).expect("inserted above")
}

impl Aggregator {
    pub fn new(filters: Filters, options: AnalysisOptions) -> Aggregator {
        Aggregator {
            filters,
            options,
            sequences: SequenceAgg::default(),
            schemas: crate::schema::SchemaSet::default(),
            schema_agg: schemas::SchemaAgg::default(),
            sources: Vec::new(),
            totals: Totals::default(),
            tools: BTreeMap::new(),
            categories: BTreeMap::new(),
            reasons: BTreeMap::new(),
            findings: Vec::new(),
            source_tools: Vec::new(),
            examples: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Record warnings about the current source.
    pub fn warn(&mut self, warnings: Vec<String>) {
        self.warnings.extend(warnings);
    }

    /// Start a new source; following sessions belong to it. `trace_schemas`
    /// are the tool schemas the source stores itself.
    pub fn begin_source(
        &mut self,
        path: &str,
        format: &str,
        trace_schemas: &[(String, serde_json::Value)],
    ) -> crate::error::Result<()> {
        self.schemas = crate::schema::SchemaSet::build(format, trace_schemas, &self.options.tool_schemas)
            .map_err(|e| crate::error::Error::input(&self.options.tool_schemas.origin, e))?;
        self.sources.push(SourceReport { path: path.to_string(), format: format.to_string(), sessions: 0, calls: 0 });
        self.source_tools.push(BTreeMap::new());
        Ok(())
    }

    pub fn add(&mut self, mut s: JudgedSession) {
        // Arguments against the tool schemas first: they can classify a
        // failure whose message says nothing.
        let violations =
            if self.schemas.is_empty() { Vec::new() } else { schemas::check_session(&self.schemas, &s.calls) };
        schemas::reclassify(&mut s.calls, &violations);
        let s = &s;
        let Some(src) = self.sources.last_mut() else { return };
        let source = src.path.clone();
        let Some(per_source) = self.source_tools.last_mut() else { return };
        let finding =
            |rule, severity, c: Option<&JudgedCall>, category: Option<String>, message: String, key: &str| Finding {
                rule,
                severity,
                source: source.clone(),
                session: s.id.clone(),
                call_id: c.map(|c| c.call_id.clone()),
                seq: c.map(|c| c.seq),
                tool: c.map(|c| c.tool.clone()),
                category,
                message,
                key: key.to_string(),
            };
        let mut counted = 0u64;
        for (i, c) in s.calls.iter().enumerate().filter(|(_, c)| self.filters.call_ok(c)) {
            counted += 1;
            if let Some(Some(v)) = violations.get(i)
                && let Some(text) = self.schema_agg.add(&self.schemas, c, v)
            {
                self.findings.push(finding(
                    "schema-violation-accepted",
                    "warning",
                    Some(c),
                    Some(v[0].category.as_str().to_string()),
                    format!("{} accepted arguments its schema rejects: {text}", c.tool),
                    &text,
                ));
            }
            count_call(tool_entry(&mut self.tools, &c.tool), &c.outcome);
            count_call(tool_entry(per_source, &c.tool), &c.outcome);
            match &c.outcome {
                Outcome::Success => {}
                Outcome::Unpaired => {
                    self.totals.unpaired_calls += 1;
                    self.findings.push(finding(
                        "unpaired-call",
                        "warning",
                        Some(c),
                        None,
                        format!("{} call has no result (session ended, crashed or was cut)", c.tool),
                        "",
                    ));
                }
                Outcome::Failed(f) => {
                    let hidden = f.is_hidden();
                    self.examples
                        .entry((c.tool.clone(), f.template.clone()))
                        .or_insert_with(|| crate::redact::redact(&f.message).into_owned());
                    self.totals.errors += 1;
                    self.totals.flagged_errors += u64::from(f.flagged);
                    self.totals.content_errors += u64::from(f.content_rule.is_some());
                    self.totals.hidden_errors += u64::from(hidden);
                    self.totals.flag_only_errors += u64::from(f.flagged && f.content_rule.is_none());
                    let cat = self.categories.entry((c.tool.clone(), f.category.as_str().to_string())).or_default();
                    cat.0 += 1;
                    cat.1 += u64::from(hidden);
                    let reason = self
                        .reasons
                        .entry((c.tool.clone(), f.category.as_str().to_string(), f.reason.to_string()))
                        .or_insert_with(|| (f.label.to_string(), 0, 0));
                    reason.1 += 1;
                    reason.2 += u64::from(hidden);
                    if hidden {
                        self.findings.push(finding(
                            "hidden-error",
                            "error",
                            Some(c),
                            Some(f.category.as_str().to_string()),
                            format!(
                                "{} failed but the result is not flagged as an error: {}",
                                c.tool,
                                crate::redact::redact(&f.message)
                            ),
                            &f.template,
                        ));
                    }
                }
            }
        }
        for &i in &s.duplicates {
            let c = &s.calls[i];
            if self.filters.call_ok(c) {
                self.totals.duplicate_call_ids += 1;
                self.findings.push(finding(
                    "duplicate-call-id",
                    "warning",
                    Some(c),
                    None,
                    "call id is used by an earlier call in this session; results were paired in order".to_string(),
                    "",
                ));
            }
        }
        if self.filters.tools.is_empty() {
            for o in s.orphans.iter().filter(|o| self.filters.time_ok(o.time)) {
                self.totals.orphan_results += 1;
                self.findings.push(Finding {
                    call_id: Some(o.call_id.clone()),
                    ..finding(
                        "orphan-result",
                        "warning",
                        None,
                        None,
                        format!("result at row {} answers no call in this session", o.row),
                        "",
                    )
                });
            }
        }
        for m in &s.malformed {
            self.findings.push(finding(
                "malformed-row",
                "warning",
                None,
                None,
                format!(
                    "row {} {}: {}",
                    m.row,
                    if m.skipped { "skipped" } else { "read with repairs" },
                    crate::sanitize::one_line(&m.problem)
                ),
                &crate::analysis::normalize::template(&m.problem),
            ));
        }
        let seq = sequence::analyze(s);
        let threshold = self.options.streak_threshold.max(2);
        let filters = &self.filters;
        self.sequences.add(s, &seq, threshold, &|i| filters.call_ok(&s.calls[i]));
        for st in seq.streaks.iter().filter(|st| st.len >= threshold && st.all_hidden) {
            let at = &s.calls[st.calls[threshold - 1]];
            if filters.call_ok(&s.calls[st.calls[0]]) {
                self.findings.push(finding(
                    "guard-blind-streak",
                    "error",
                    Some(at),
                    Some(st.category.as_str().to_string()),
                    format!(
                        "{} failed {} times in a row with the same hidden error, so a guard counting flagged failures never fired: {}",
                        st.tool, st.len, st.template
                    ),
                    &st.template,
                ));
            }
        }
        for o in seq.oscillations.iter().filter(|o| filters.call_ok(&s.calls[o.calls[0]])) {
            let first = &s.calls[o.calls[0]];
            let seqs: Vec<String> = o.calls.iter().map(|&i| s.calls[i].seq.to_string()).collect();
            self.findings.push(finding(
                "oscillation",
                "warning",
                Some(first),
                None,
                format!("{} alternated between two argument sets after a failure (calls {})", o.tool, seqs.join(", ")),
                "",
            ));
        }
        if counted > 0 {
            src.sessions += 1;
            src.calls += counted;
            self.totals.sessions += 1;
            self.totals.calls += counted;
        }
    }

    pub fn finish(self) -> Report {
        let tools = finish_tools(self.tools);
        let mut categories: Vec<CategoryRow> = self
            .categories
            .into_iter()
            .map(|((tool, category), (errors, hidden_errors))| CategoryRow { category, tool, errors, hidden_errors })
            .collect();
        categories.sort_by(|a, b| a.tool.cmp(&b.tool).then(b.errors.cmp(&a.errors)).then(a.category.cmp(&b.category)));
        let mut reasons: Vec<ReasonRow> = self
            .reasons
            .into_iter()
            .map(|((tool, category, reason), (label, errors, hidden_errors))| ReasonRow {
                tool,
                category,
                reason,
                label,
                errors,
                hidden_errors,
            })
            .collect();
        reasons.sort_by(|a, b| {
            a.tool
                .cmp(&b.tool)
                .then(b.errors.cmp(&a.errors))
                .then(a.category.cmp(&b.category))
                .then(a.reason.cmp(&b.reason))
        });
        let mut findings = self.findings;
        findings.sort_by(|a, b| {
            (&a.source, &a.session, a.seq, a.rule, &a.call_id, &a.message)
                .cmp(&(&b.source, &b.session, b.seq, b.rule, &b.call_id, &b.message))
        });
        let (recovery, streaks, repairs, feedback) = self.sequences.finish(self.options.streak_threshold.max(2));
        let schema = self.schema_agg.finish(self.options.drift_min);
        let source_tools = self.source_tools.into_iter().map(finish_tools).collect();
        Report {
            schema_version: SCHEMA_VERSION,
            sources: self.sources,
            totals: self.totals,
            tools,
            categories,
            findings,
            recovery,
            streaks,
            repairs,
            feedback,
            schema,
            reasons,
            source_tools,
            examples: self.examples,
            warnings: self.warnings,
        }
    }
}

fn finish_tools(m: BTreeMap<String, ToolReport>) -> Vec<ToolReport> {
    m.into_values()
        .map(|mut t| {
            t.error_rate = rate(t.errors, t.calls);
            t
        })
        .collect()
}

/// `errors / calls`, rounded to 6 decimals so the JSON is stable.
pub fn rate(errors: u64, calls: u64) -> f64 {
    if calls == 0 {
        return 0.0;
    }
    (errors as f64 / calls as f64 * 1e6).round() / 1e6
}
