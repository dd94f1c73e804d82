//! Aggregation: judged sessions counted into the one `Report` every
//! renderer sees. Counting only: every verdict, category and finding was
//! decided by the judge; here the filters choose what counts, findings are
//! placed in their source, and trace text is redacted.

pub(crate) mod schemas;
pub(crate) mod sequences;
pub(crate) mod sessions;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::judge::{Counted, JudgeOptions, JudgedCall, JudgedSession, Outcome, SessionFinding};
use crate::redact::Redaction;
use crate::report::{
    CONTRACT_VERSION, CategoryRow, CostliestSession, DriftRow, Finding, Headline, Place, ReasonRow, Report, Seen,
    SourceReport, ToolReport, Totals, UsageReport, rate,
};
use crate::rules::category::CauseClass;
use crate::rules::{Category, FindingRule};
use crate::schema::SchemaSet;
use sequences::SequenceAgg;

/// Which calls count in the report. Sessions are judged whole first (stale
/// edits need the full order); these filters only choose what is counted.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub tools: Vec<String>,
}

impl Filters {
    pub fn time_ok(&self, t: Option<DateTime<Utc>>) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let Some(t) = t else { return false };
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }

    pub fn call_ok(&self, c: &JudgedCall) -> bool {
        (self.tools.is_empty() || self.tools.contains(&c.tool)) && self.time_ok(c.time)
    }
}

/// Settings of the aggregation: what counts and when a drift is reported.
/// The judge's streak threshold and redaction are its own (`JudgeOptions`),
/// which the aggregator is given beside these.
#[derive(Debug, Clone)]
pub struct AggregateOptions {
    pub filters: Filters,
    /// Missing-parameter errors naming an optional parameter before it is
    /// reported as `optional-but-required`.
    pub drift_min: u64,
}

impl Default for AggregateOptions {
    fn default() -> Self {
        AggregateOptions { filters: Filters::default(), drift_min: 3 }
    }
}

/// The usage section as it is summed: dollars in whole millionths.
#[derive(Default)]
struct Usage {
    calls: u64,
    tokens: [u64; 5],
    micros: u64,
    unpriced_calls: u64,
    unpriced_models: std::collections::BTreeSet<String>,
    by_tokens: Option<CostliestSession>,
    by_dollars: Option<CostliestSession>,
}

/// Keep `c` in `slot` when it is costlier by `key` (ties: the first source
/// and session in order, so merges agree).
fn keep_costlier(slot: &mut Option<CostliestSession>, c: &CostliestSession, key: fn(&CostliestSession) -> f64) {
    let better = match slot {
        None => true,
        Some(s) => key(c) > key(s) || (key(c) == key(s) && (&c.source, &c.session) < (&s.source, &s.session)),
    };
    if better {
        *slot = Some(c.clone());
    }
}

impl Usage {
    fn add(&mut self, c: &JudgedCall) {
        let Some(u) = c.usage.as_deref() else { return };
        self.calls += 1;
        let kinds: [fn(&crate::judge::Usage) -> u64; 5] =
            [|u| u.input, |u| u.output, |u| u.cache_read, |u| u.cache_write, |u| u.reasoning];
        for (sum, kind) in self.tokens.iter_mut().zip(kinds) {
            *sum = sum.saturating_add(c.share_of(kind).unwrap_or(0));
        }
        match crate::judge::tokens::call_micros(c, crate::prices::active()) {
            Some(d) => self.micros = self.micros.saturating_add(d),
            None => {
                self.unpriced_calls += 1;
                let model = u.model.as_deref().unwrap_or("(no model recorded)");
                if !self.unpriced_models.contains(model) {
                    self.unpriced_models.insert(model.to_string());
                }
            }
        }
    }

    /// A session's failures' cost, for the costliest.
    fn session(&mut self, c: CostliestSession, priced: bool) {
        if c.failure_tokens > 0 {
            keep_costlier(&mut self.by_tokens, &c, |s| s.failure_tokens as f64);
        }
        if priced {
            keep_costlier(&mut self.by_dollars, &c, |s| s.failure_dollars);
        }
    }

    fn absorb(&mut self, r: &UsageReport) -> Result<(), String> {
        if let Some(c) = &r.costliest_session_tokens {
            keep_costlier(&mut self.by_tokens, c, |s| s.failure_tokens as f64);
        }
        if let Some(c) = &r.costliest_session_dollars {
            keep_costlier(&mut self.by_dollars, c, |s| s.failure_dollars);
        }
        if r.unpriced_calls > r.calls || !r.dollars.is_finite() || r.dollars < 0.0 {
            return Err(format!(
                "a usage section of {} calls, {} unpriced, {} dollars",
                r.calls, r.unpriced_calls, r.dollars
            ));
        }
        sequences::add(&mut self.calls, r.calls)?;
        let theirs = [r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, r.reasoning_tokens];
        for (mine, theirs) in self.tokens.iter_mut().zip(theirs) {
            sequences::add(mine, theirs)?;
        }
        sequences::add(&mut self.micros, crate::prices::micros(r.dollars))?;
        sequences::add(&mut self.unpriced_calls, r.unpriced_calls)?;
        self.unpriced_models.extend(r.unpriced_models.iter().cloned());
        Ok(())
    }

    fn finish(self) -> UsageReport {
        let [input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens] = self.tokens;
        UsageReport {
            calls: self.calls,
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            reasoning_tokens,
            dollars: self.micros as f64 / 1e6,
            unpriced_calls: self.unpriced_calls,
            unpriced_models: self.unpriced_models.into_iter().collect(),
            costliest_session_tokens: self.by_tokens,
            costliest_session_dollars: self.by_dollars,
        }
    }
}

/// Collects judged sessions, one source after another, into a `Report`.
pub(crate) struct Aggregator {
    options: AggregateOptions,
    /// The judge's threshold (streaks are finished here) and redaction
    /// (evidence and warnings are placed here).
    judge: JudgeOptions,
    sequences: SequenceAgg,
    schemas: Arc<SchemaSet>,
    schema_agg: schemas::SchemaAgg,
    sources: Vec<SourceReport>,
    totals: Totals,
    usage: Usage,
    tools: BTreeMap<String, ToolReport>,
    categories: BTreeMap<(String, String), (u64, u64)>,
    reasons: BTreeMap<(String, String, String), (String, u64, u64)>,
    findings: Vec<Finding>,
    source_tools: Vec<BTreeMap<String, ToolReport>>,
    examples: BTreeMap<(String, String), String>,
    warnings: Vec<String>,
    seen: Seen,
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

/// A tool row's counts added to the row of the same tool in `map`,
/// refused past what a scan can count (for `merge`).
fn add_tool(map: &mut BTreeMap<String, ToolReport>, tr: &ToolReport) -> Result<(), String> {
    add_tool_with(map, tr, sequences::add)
}

/// A tool row's counts added to the row of the same tool in `map`, each
/// by `add`.
fn add_tool_with<E>(
    map: &mut BTreeMap<String, ToolReport>,
    tr: &ToolReport,
    mut add: impl FnMut(&mut u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    let mine = tool_entry(map, &tr.tool);
    add(&mut mine.calls, tr.calls)?;
    add(&mut mine.errors, tr.errors)?;
    add(&mut mine.flagged_errors, tr.flagged_errors)?;
    add(&mut mine.content_errors, tr.content_errors)?;
    add(&mut mine.hidden_errors, tr.hidden_errors)?;
    for (k, n) in &tr.categories {
        add(mine.categories.entry(k.clone()).or_default(), *n)?;
    }
    Ok(())
}

/// What the index keeps of some sessions (src/index/): their finished
/// report with what a report file leaves out, so `absorb_partial` can
/// rebuild exactly the report that reading them again would give.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Partial {
    pub report: Report,
    /// The findings' baseline keys, in `report.findings` order.
    pub keys: Vec<String>,
    /// Per source, its tools (`Report::source_tools`).
    pub source_tools: Vec<Vec<ToolReport>>,
    /// (tool, template, redacted message), first seen first.
    pub examples: Vec<(String, String, String)>,
    pub seen: Seen,
    /// How the sources had to be opened (`Report::warnings`).
    pub warnings: Vec<String>,
    /// The findings' places, in `report.findings` order.
    #[serde(default)]
    pub places: Vec<Option<crate::report::Place>>,
}

impl Partial {
    /// The partial of a finished report.
    pub(crate) fn of(mut report: Report) -> Partial {
        let keys = report.findings.iter().map(|f| f.key.clone()).collect();
        let places = report.findings.iter().map(|f| f.place.clone()).collect();
        let source_tools = std::mem::take(&mut report.source_tools);
        let examples = std::mem::take(&mut report.examples).into_iter().map(|((t, k), m)| (t, k, m)).collect();
        let seen = std::mem::take(&mut report.seen);
        let warnings = std::mem::take(&mut report.warnings);
        Partial { report, keys, source_tools, examples, seen, warnings, places }
    }
}

impl Aggregator {
    pub(crate) fn new(options: AggregateOptions, judge: JudgeOptions) -> Aggregator {
        Aggregator {
            options,
            judge,
            sequences: SequenceAgg::default(),
            schemas: Arc::default(),
            schema_agg: schemas::SchemaAgg::default(),
            sources: Vec::new(),
            totals: Totals::default(),
            usage: Usage::default(),
            tools: BTreeMap::new(),
            categories: BTreeMap::new(),
            reasons: BTreeMap::new(),
            findings: Vec::new(),
            source_tools: Vec::new(),
            examples: BTreeMap::new(),
            warnings: Vec::new(),
            seen: Seen::default(),
        }
    }

    /// Record warnings about the current source (redacted: they name its
    /// path, which may hold a token, and reports carry them).
    pub(crate) fn warn(&mut self, warnings: Vec<String>) {
        let redaction = self.judge.redaction;
        self.warnings.extend(warnings.into_iter().map(|w| redaction.apply(&w).into_owned()));
    }

    /// Start a new source; following sessions belong to it. `schemas` are
    /// the tool schemas its judge validated against.
    pub(crate) fn begin_source(&mut self, path: &str, format: &str, schemas: Arc<SchemaSet>) {
        self.schemas = schemas;
        self.sources.push(SourceReport::new(path, format));
        self.source_tools.push(BTreeMap::new());
    }

    /// Count one judged session of the current source.
    pub(crate) fn add(&mut self, s: &JudgedSession) {
        if self.sources.is_empty() || self.source_tools.is_empty() {
            return;
        }
        // Its agent's schemas (a mixed folder's sessions have several).
        self.schemas = s.schemas.clone();
        self.see(s);
        let mut counted = 0u64;
        let (mut results, mut with_text) = (0u64, 0u64);
        // Each tool's counts for the session, added to the source's and the
        // scan's rows once a tool (a session calls a few tools many times).
        let mut per_tool: Vec<ToolReport> = Vec::new();
        for c in &s.calls {
            if self.options.filters.call_ok(c) {
                counted += 1;
                results += u64::from(c.result.is_some());
                with_text += u64::from(c.result.as_ref().is_some_and(|r| !r.text.trim_start().is_empty()));
                self.count(c, &mut per_tool);
            }
        }
        // A session's own counts: plain sums, as `count_call` makes them.
        let sum = |to: &mut u64, n: u64| -> Result<(), std::convert::Infallible> {
            *to += n;
            Ok(())
        };
        for counts in &per_tool {
            let Ok(()) = add_tool_with(&mut self.tools, counts, sum);
            if let Some(per_source) = self.source_tools.last_mut() {
                let Ok(()) = add_tool_with(per_source, counts, sum);
            }
        }
        let filters = &self.options.filters;
        for &i in &s.duplicates {
            if filters.call_ok(&s.calls[i]) {
                self.totals.duplicate_call_ids += 1;
            }
        }
        if filters.tools.is_empty() {
            self.totals.orphan_results += s.orphans.iter().filter(|o| filters.time_ok(o.time)).count() as u64;
        }
        let mut placed = Vec::new();
        for f in &s.findings {
            let keep = match f.counted {
                Counted::Call(i) => filters.call_ok(&s.calls[i]),
                Counted::Orphan(time) => filters.tools.is_empty() && filters.time_ok(time),
                Counted::Always => true,
            };
            if keep {
                placed.push(self.place(s, f));
            }
        }
        self.findings.append(&mut placed);
        let threshold = self.judge.streak_threshold.max(2);
        let filters = &self.options.filters;
        let costs = crate::judge::tokens::failure_costs(s, crate::prices::active());
        // `costs` is empty for a session that records no usage: its calls
        // are not walked again.
        let spent: Vec<_> =
            (0..costs.len()).filter_map(|i| costs[i].filter(|_| filters.call_ok(&s.calls[i]))).collect();
        if !spent.is_empty() {
            let micros: Vec<u64> = spent.iter().filter_map(|c| c.micros).collect();
            let session = CostliestSession {
                source: self.sources.last().map(|src| src.path.clone()).unwrap_or_default(),
                session: self.judge.redaction.apply(&s.id).into_owned(),
                failure_tokens: spent.iter().fold(0u64, |a, c| a.saturating_add(c.tokens())),
                failure_dollars: micros.iter().fold(0u64, |a, &m| a.saturating_add(m)) as f64 / 1e6,
            };
            self.usage.session(session, !micros.is_empty());
        }
        self.sequences.add(s, &s.sequences, threshold, &costs, &|i| filters.call_ok(&s.calls[i]));
        if counted > 0
            && let Some(src) = self.sources.last_mut()
        {
            src.sessions += 1;
            src.calls += counted;
            src.results += results;
            src.results_with_text += with_text;
            src.content_coverage = rate(src.results_with_text, src.results);
            self.totals.sessions += 1;
            self.totals.calls += counted;
        }
    }

    /// Take in a finished report (for `merge`): its sources follow the ones
    /// already taken, and every count adds. The result is the report one
    /// scan of all their sources would give, but for what a report does not
    /// carry (example messages, per-source tool rows). Counts that no scan
    /// writes (totals that contradict each other, histograms that do not
    /// add up, sums past `sequences::MAX_COUNT`) are refused, before
    /// anything is allocated for them.
    pub(crate) fn absorb(&mut self, r: &Report) -> Result<(), String> {
        check_totals(&r.totals)?;
        for src in &r.sources {
            self.sources.push(src.clone());
            self.source_tools.push(BTreeMap::new());
        }
        self.absorb_counts(r)
    }

    /// Take in a partial the index kept (src/index/): the counts of one
    /// source's sessions, or (`into_current`) of sessions of the source
    /// being read. Unlike `absorb`, what a report file does not carry is
    /// taken in too (examples, per-source tool rows, baseline keys, what
    /// the sources held), so the finished report is the one reading those
    /// sessions here would give, byte for byte.
    pub(crate) fn absorb_partial(&mut self, p: &Partial, into_current: bool) -> Result<(), String> {
        let r = &p.report;
        check_totals(&r.totals)?;
        if p.keys.len() != r.findings.len() || p.source_tools.len() != r.sources.len() {
            return Err("a partial whose findings or sources do not match their keys".into());
        }
        if into_current {
            let (Some(src), Some(tools)) = (self.sources.last_mut(), self.source_tools.last_mut()) else {
                return Err("a session partial outside a source".into());
            };
            for (theirs, their_tools) in r.sources.iter().zip(&p.source_tools) {
                src.sessions += theirs.sessions;
                src.calls += theirs.calls;
                src.results += theirs.results;
                src.results_with_text += theirs.results_with_text;
                src.content_coverage = rate(src.results_with_text, src.results);
                for t in their_tools {
                    add_tool(tools, t)?;
                }
            }
        } else {
            for (src, their_tools) in r.sources.iter().zip(&p.source_tools) {
                self.sources.push(src.clone());
                let mut tools = BTreeMap::new();
                for t in their_tools {
                    add_tool(&mut tools, t)?;
                }
                self.source_tools.push(tools);
            }
        }
        for (tool, template, message) in &p.examples {
            self.examples.entry((tool.clone(), template.clone())).or_insert_with(|| message.clone());
        }
        let seen = &mut self.seen;
        sequences::add(&mut seen.sessions, p.seen.sessions)?;
        sequences::add(&mut seen.calls, p.seen.calls)?;
        seen.session_ids.extend(p.seen.session_ids.iter().cloned());
        for (tool, n) in &p.seen.tools {
            sequences::add(seen.tools.entry(tool.clone()).or_default(), *n)?;
        }
        seen.first = match (seen.first, p.seen.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        seen.last = match (seen.last, p.seen.last) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.warnings.extend(p.warnings.iter().cloned());
        let before = self.findings.len();
        self.absorb_counts(r)?;
        // `absorb_counts` took the findings but drift in order: their keys follow.
        let keys = r.findings.iter().zip(&p.keys).filter(|(f, _)| !f.rule.is_drift()).map(|(_, k)| k);
        for (f, k) in self.findings[before..].iter_mut().zip(keys) {
            f.key = k.clone();
        }
        let places = r.findings.iter().zip(&p.places).filter(|(f, _)| !f.rule.is_drift()).map(|(_, k)| k);
        for (f, place) in self.findings[before..].iter_mut().zip(places) {
            f.place = place.clone();
        }
        Ok(())
    }

    /// Every count of `r` added to this aggregator's (its sources apart).
    fn absorb_counts(&mut self, r: &Report) -> Result<(), String> {
        use sequences::add;
        let t = &mut self.totals;
        let o = &r.totals;
        for (mine, theirs) in [
            (&mut t.sessions, o.sessions),
            (&mut t.calls, o.calls),
            (&mut t.unpaired_calls, o.unpaired_calls),
            (&mut t.orphan_results, o.orphan_results),
            (&mut t.duplicate_call_ids, o.duplicate_call_ids),
            (&mut t.errors, o.errors),
            (&mut t.flagged_errors, o.flagged_errors),
            (&mut t.content_errors, o.content_errors),
            (&mut t.hidden_errors, o.hidden_errors),
            (&mut t.flag_only_errors, o.flag_only_errors),
        ] {
            add(mine, theirs)?;
        }
        for tr in &r.tools {
            if tr.errors > tr.calls || tr.hidden_errors > tr.errors || tr.flagged_errors > tr.errors {
                return Err(format!(
                    "tool {}: {} errors ({} hidden) in {} calls",
                    tr.tool, tr.errors, tr.hidden_errors, tr.calls
                ));
            }
            add_tool(&mut self.tools, tr)?;
        }
        for c in &r.categories {
            let e = self.categories.entry((c.tool.clone(), c.category.clone())).or_default();
            add(&mut e.0, c.errors)?;
            add(&mut e.1, c.hidden_errors)?;
        }
        for x in &r.reasons {
            let e = self
                .reasons
                .entry((x.tool.clone(), x.category.clone(), x.reason.clone()))
                .or_insert_with(|| (x.label.clone(), 0, 0));
            add(&mut e.1, x.errors)?;
            add(&mut e.2, x.hidden_errors)?;
        }
        // Drift findings are recomputed from the merged counts.
        self.findings.extend(r.findings.iter().filter(|f| !f.rule.is_drift()).cloned());
        self.sequences.absorb(&r.recovery, &r.streaks, &r.repairs, &r.feedback, &r.cost)?;
        self.usage.absorb(&r.usage)?;
        self.schema_agg.absorb(&r.schema)?;
        self.warnings.extend(r.warnings.iter().cloned());
        Ok(())
    }

    /// Note what the session held before the filters.
    fn see(&mut self, s: &JudgedSession) {
        let seen = &mut self.seen;
        seen.sessions += 1;
        if !seen.session_ids.contains(&s.id) {
            seen.session_ids.insert(s.id.clone());
        }
        for c in &s.calls {
            seen.calls += 1;
            if let Some(n) = seen.tools.get_mut(&c.tool) {
                *n += 1;
            } else {
                seen.tools.insert(c.tool.clone(), 1);
            }
            if let Some(t) = c.time {
                seen.first = Some(seen.first.map_or(t, |f| f.min(t)));
                seen.last = Some(seen.last.map_or(t, |l| l.max(t)));
            }
        }
    }

    /// Count one call that passed the filters.
    fn count(&mut self, c: &JudgedCall, per_tool: &mut Vec<ToolReport>) {
        if let (Some(ts), Some(v)) = (self.schemas.get(&c.tool), &c.violations) {
            self.schema_agg.add(ts, c, v);
        }
        let i = per_tool.iter().position(|t| t.tool == c.tool).unwrap_or_else(|| {
            per_tool.push(ToolReport { tool: c.tool.clone(), ..ToolReport::default() });
            per_tool.len() - 1
        });
        count_call(&mut per_tool[i], &c.outcome);
        self.usage.add(c);
        match &c.outcome {
            Outcome::Success => {}
            Outcome::Unpaired => self.totals.unpaired_calls += 1,
            Outcome::Failed(f) => {
                let hidden = f.is_hidden();
                let redaction = self.judge.redaction;
                self.examples
                    .entry((c.tool.clone(), f.template.clone()))
                    .or_insert_with(|| redaction.apply(&f.message).into_owned());
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
            }
        }
    }

    /// A session finding placed in the current source, its text redacted.
    fn place(&self, s: &JudgedSession, f: &SessionFinding) -> Finding {
        let call = f.at.map(|i| &s.calls[i]);
        let redaction = self.judge.redaction;
        Finding {
            rule: f.rule,
            severity: f.rule.severity(),
            source: self.sources.last().map(|src| src.path.clone()).unwrap_or_default(),
            session: s.id.clone(),
            call_id: call.map(|c| c.call_id.clone()).or_else(|| f.call_id.clone()),
            seq: call.map(|c| c.seq),
            tool: call.map(|c| c.tool.clone()),
            category: f.category.map(|c| c.as_str().to_string()),
            message: redaction.apply(&f.message).into_owned(),
            key: redaction.apply(&f.key).into_owned(),
            suppressed: None,
            place: Some(evidence(s, f, redaction)),
        }
    }

    pub(crate) fn finish(self) -> Report {
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
        let redaction = self.judge.redaction;
        let sequences::Finished { recovery, cost, streaks, mut repairs, mut feedback } =
            self.sequences.finish(self.judge.streak_threshold.max(2));
        let mut schema = self.schema_agg.finish(self.options.drift_min);
        // Trace text that reaches the report is redacted here, once.
        for r in &mut feedback {
            r.template = redaction.apply(&r.template).into_owned();
        }
        for r in &mut repairs {
            r.change = redaction.apply(&r.change).into_owned();
        }
        for d in &mut schema.drift {
            d.param = redaction.apply(&d.param).into_owned();
            d.value = d.value.as_deref().map(|v| redaction.apply(v).into_owned());
            d.recommendation = redaction.apply(&d.recommendation).into_owned();
        }
        let mut findings = self.findings;
        findings.extend(schema.drift.iter().map(drift_finding));
        findings.sort_by(|a, b| {
            (&a.source, &a.session, a.seq, a.rule.as_str(), &a.call_id, &a.message).cmp(&(
                &b.source,
                &b.session,
                b.seq,
                b.rule.as_str(),
                &b.call_id,
                &b.message,
            ))
        });
        let source_tools = self.source_tools.into_iter().map(finish_tools).collect();
        let mut headlines: Vec<Headline> =
            tools.iter().filter_map(|t| headline(t, &schema.missing_named, &reasons, redaction)).collect();
        for h in &mut headlines {
            if let Some(said) = cost_said(&h.tool, &cost) {
                h.sentence.push(' ');
                h.sentence.push_str(&said);
            }
        }
        Report {
            schema_version: CONTRACT_VERSION,
            sources: self.sources,
            totals: self.totals,
            usage: self.usage.finish(),
            tools,
            categories,
            findings,
            recovery,
            cost,
            streaks,
            repairs,
            feedback,
            schema,
            reasons,
            headlines,
            guard: Vec::new(),
            suppressions: Default::default(),
            source_tools,
            examples: self.examples,
            warnings: self.warnings,
            seen: self.seen,
        }
    }
}

/// Totals as a scan counts them: no more errors than calls, no more
/// hidden, flagged or content errors than errors.
fn check_totals(t: &Totals) -> Result<(), String> {
    let ok = t.errors <= t.calls
        && t.hidden_errors <= t.content_errors
        && t.content_errors <= t.errors
        && t.flagged_errors <= t.errors
        && t.flag_only_errors <= t.flagged_errors
        && t.unpaired_calls <= t.calls
        && t.duplicate_call_ids <= t.calls;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "totals that no scan counts: {} errors ({} hidden, {} flagged, {} content) in {} calls",
            t.errors, t.hidden_errors, t.flagged_errors, t.content_errors, t.calls
        ))
    }
}

/// Where the evidence of `f` is stored: the result's row (else the call's),
/// an orphan's row, a broken line's file and line.
fn evidence(s: &JudgedSession, f: &SessionFinding, redaction: Redaction) -> Place {
    let file = s.origin.clone();
    let at = |row: i64| Place { file: file.clone(), row, line: false, reason: None };
    if let Some(c) = f.at.map(|i| &s.calls[i]) {
        let reason = match &c.outcome {
            Outcome::Failed(x) => Some(x.reason.to_string()),
            _ => None,
        };
        return Place { reason, ..at(c.result.as_ref().map_or(c.row, |r| r.row)) };
    }
    if f.rule == FindingRule::OrphanResult
        && let Some(o) = s.orphans.iter().find(|o| f.call_id.as_ref() == Some(&o.call_id))
    {
        return at(o.row);
    }
    if f.rule == FindingRule::MalformedRow
        && let Some(m) = s.malformed.iter().find(|m| f.message.contains(m.problem.trim()))
    {
        let file = m.file.as_ref().map(|x| redaction.apply(x).into_owned()).or(file);
        return Place { file, row: m.row, line: m.file.is_some(), reason: None };
    }
    at(0)
}

/// Schema drift as a finding: it concerns a tool across every source, so
/// it names no source and no session.
fn drift_finding(d: &DriftRow) -> Finding {
    let rule = d.rule;
    let what = match rule {
        FindingRule::OptionalButRequired => "missing-parameter errors name this optional parameter",
        FindingRule::EnumTooNarrow => "accepted outside the enum",
        _ => "accepted but not in the schema",
    };
    let at = match &d.value {
        Some(v) => format!("{}.{} = {v:?}", d.tool, d.param),
        None => format!("{}.{}", d.tool, d.param),
    };
    Finding {
        rule,
        severity: rule.severity(),
        source: String::new(),
        session: String::new(),
        call_id: None,
        seq: None,
        tool: Some(d.tool.clone()),
        category: None,
        message: format!("{at}: {} times {what}; {}", d.count, d.recommendation),
        // The identity across scans: the parameter (and value), not the count.
        key: at,
        suppressed: None,
        place: None,
    }
}

fn finish_tools(m: BTreeMap<String, ToolReport>) -> Vec<ToolReport> {
    m.into_values()
        .map(|mut t| {
            t.error_rate = rate(t.errors, t.calls);
            t.classes = classes_of(&t.categories);
            t
        })
        .collect()
}

/// Errors per cause class, from errors per category. A slug no category
/// has (a report of another version, merged) counts as `unknown`.
fn classes_of(categories: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let mut classes = BTreeMap::new();
    for (slug, n) in categories {
        let class = Category::from_slug(slug).map_or(CauseClass::Unknown, Category::class);
        *classes.entry(class.as_str().to_string()).or_default() += n;
    }
    classes
}

/// The first clause of a category's fix, as it reads inside a sentence.
fn first_fix(fix: &str) -> String {
    let end = fix.find("; ").or_else(|| fix.find(". ")).unwrap_or(fix.len());
    let clause = fix[..end].trim_end_matches('.');
    let mut chars = clause.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The tool's cause in one sentence: its largest class, the largest
/// category in it (or the parameter its missing-parameter errors name
/// most), and the category's first fix.
/// What a tool's failures cost, said after its headline where the traces
/// record usage: "Its failures with usage cost 1.9 M tokens ($4.10), 71% of
/// it in stale-edit-match."
fn cost_said(tool: &str, cost: &[crate::report::CostRow]) -> Option<String> {
    let rows: Vec<_> = cost.iter().filter(|r| r.tool == tool && r.with_usage > 0).collect();
    let total = rows.iter().fold(0u64, |a, r| a.saturating_add(r.tokens()));
    if total == 0 {
        return None;
    }
    let (failures, with_usage): (u64, u64) = rows.iter().fold((0, 0), |(f, u), r| (f + r.failures, u + r.with_usage));
    let top = rows.iter().max_by(|a, b| a.tokens().cmp(&b.tokens()).then(b.category.cmp(&a.category)))?;
    let priced = rows.iter().any(|r| r.with_usage > r.unpriced);
    let dollars: f64 = rows.iter().map(|r| r.dollars).sum();
    let money = if priced { format!(" ({})", crate::prices::dollars(dollars)) } else { String::new() };
    let of = if with_usage < failures { format!(" ({with_usage} of {failures} with usage)") } else { String::new() };
    Some(format!(
        "Its failures{of} cost {} tokens{money}, {} of it in {}.",
        crate::prices::tokens(total),
        crate::report::percent(rate(top.tokens(), total), 0),
        top.category
    ))
}

fn headline(
    t: &ToolReport,
    missing_named: &[crate::report::MissingNamed],
    reasons: &[ReasonRow],
    redaction: Redaction,
) -> Option<Headline> {
    if t.errors == 0 {
        return None;
    }
    let count = |c: CauseClass| t.classes.get(c.as_str()).copied().unwrap_or(0);
    // The largest class; ties go to the class table's order.
    let class = CauseClass::all().fold(None::<CauseClass>, |best, c| match best {
        Some(b) if count(b) >= count(c) => Some(b),
        _ if count(c) > 0 => Some(c),
        keep => keep,
    })?;
    let errors = count(class);
    let (category, category_errors) = t
        .categories
        .iter()
        .filter(|(slug, _)| Category::from_slug(slug).map_or(CauseClass::Unknown, Category::class) == class)
        .fold(None::<(&String, u64)>, |best, (slug, &n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((slug, n)),
        })?;
    // A custom rule (docs/config.md) that gave this tool most of the
    // category's errors brings its own fix; else the category's.
    let own = reasons
        .iter()
        .filter(|r| r.tool == t.tool && r.category == *category)
        .max_by_key(|r| r.errors)
        .and_then(|r| crate::judge::custom_fix(&r.reason))
        .map(first_fix);
    let fix = own.unwrap_or_else(|| first_fix(Category::from_slug(category).unwrap_or(Category::Other).fix()));
    let named = (category == Category::MissingRequiredParam.as_str())
        .then(|| {
            missing_named.iter().filter(|m| m.tool == t.tool).fold(None::<&crate::report::MissingNamed>, |best, m| {
                match best {
                    Some(b) if b.count >= m.count => Some(b),
                    _ => Some(m),
                }
            })
        })
        .flatten();
    let param = named.map(|m| redaction.apply(&m.param).into_owned());
    let param_errors = named.map(|m| m.count);
    let share = rate(errors, t.errors);
    let what = match (&param, param_errors) {
        (Some(p), Some(n)) => format!("`{p}` missing in {n}"),
        _ => format!("{category} in {category_errors}"),
    };
    let sentence = format!(
        "{}: {errors} of {} {} ({}) {}; {what}; first fix: {fix}.",
        redaction.apply(&t.tool),
        t.errors,
        if t.errors == 1 { "error" } else { "errors" },
        crate::report::percent(share, 0),
        if errors == 1 { format!("is {}", class.info().noun_one) } else { format!("are {}", class.info().noun) },
    );
    Some(Headline {
        tool: t.tool.clone(),
        class: class.as_str().to_string(),
        errors,
        of: t.errors,
        share,
        category: category.clone(),
        category_errors,
        param,
        param_errors,
        fix,
        sentence,
    })
}
