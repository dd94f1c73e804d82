//! The CI gate: thresholds and baselines applied to a finished `Report`.
//!
//! Default: any hidden error fails. A baseline records findings by stable
//! fingerprint (rule, tool, category, normalized message) with counts, the
//! ESLint way; checking against it fails only on findings beyond the
//! recorded counts. Entries no longer seen are reported, never fatal: trace
//! databases rotate old sessions out.

// What stays public is documented (issue 25); lib.rs lists the surface.
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::report::{Finding, Report, ToolReport, percent, rate};
use crate::rules::{Category, FindingRule};

/// An error-rate limit, for all calls or for one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimit {
    /// The tool it limits; `None` limits the rate over all calls.
    pub tool: Option<String>,
    /// The highest error rate that passes, a fraction (0.05 for 5%).
    pub max: f64,
}

impl RateLimit {
    /// `R` or `TOOL=R`, where R is a fraction (`0.05`) or a percentage (`5%`).
    pub fn parse(s: &str) -> std::result::Result<RateLimit, String> {
        let (tool, value) = match s.rsplit_once('=') {
            Some((t, v)) if !t.trim().is_empty() => (Some(t.trim().to_string()), v.trim()),
            Some(_) => return Err(format!("invalid rate {s:?}: the tool name before '=' is empty")),
            None => (None, s.trim()),
        };
        let max = match value.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
            None => value.parse::<f64>(),
        }
        .map_err(|_| format!("invalid rate {s:?}: expected R or TOOL=R with R like 0.05 or 5%"))?;
        if !(0.0..=1.0).contains(&max) {
            return Err(format!("invalid rate {s:?}: must be between 0 and 1 (or 0% and 100%)"));
        }
        Ok(RateLimit { tool, max })
    }
}

/// What `--fail-on` names: a finding rule or an error category.
#[derive(Debug, Clone, PartialEq)]
pub enum FailOn {
    /// Any finding of this rule fails the gate.
    Rule(FindingRule),
    /// Any error of this category fails the gate.
    Category(Category),
}

impl FailOn {
    /// The comma-separated rules and categories of one `--fail-on`.
    pub fn parse_list(s: &str) -> std::result::Result<Vec<FailOn>, String> {
        s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(FailOn::parse).collect()
    }

    fn parse(s: &str) -> std::result::Result<FailOn, String> {
        if let Some(r) = FindingRule::from_id(s) {
            return Ok(FailOn::Rule(r));
        }
        Category::from_slug(s).map(FailOn::Category).ok_or_else(|| {
            format!(
                "unknown rule or category {s:?} for --fail-on (rules: {}; categories: see `falseok rules`)",
                FindingRule::ids().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

/// The thresholds of `falseok check`: what makes a report fail.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The most hidden errors that pass (`--max-hidden`).
    pub max_hidden: u64,
    /// The error-rate limits (`--max-error-rate`), overall or per tool.
    pub max_error_rate: Vec<RateLimit>,
    /// The rules and categories that fail the gate whenever they occur (`--fail-on`).
    pub fail_on: Vec<FailOn>,
    /// The most the failures may cost over the run (`--max-failure-cost`).
    pub max_failure_cost: Option<CostLimit>,
    /// The most the failures of one session may cost (`--max-session-failure-cost`).
    pub max_session_failure_cost: Option<CostLimit>,
}

/// A limit on what the failures cost (docs/analyses.md, "Tokens and
/// money"): in tokens (own, retry and rent) or in dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CostLimit {
    /// At most so many tokens.
    Tokens(u64),
    /// At most so many US dollars.
    Dollars(f64),
}

impl CostLimit {
    /// `250000`, `250k`, `1.5M` (tokens) or `$2.50`, `2.50usd` (dollars).
    pub fn parse(s: &str) -> Result<CostLimit, String> {
        let t = s.trim();
        let bad = || format!("{s:?} is neither tokens (250000, 250k, 1.5M) nor dollars ($2.50, 2.50usd)");
        let lower = t.to_ascii_lowercase();
        if let Some(d) = lower.strip_prefix('$').or_else(|| lower.strip_suffix("usd")) {
            let d: f64 = d.trim().parse().map_err(|_| bad())?;
            return if d.is_finite() && d >= 0.0 { Ok(CostLimit::Dollars(d)) } else { Err(bad()) };
        }
        let (number, scale) = match lower.chars().last() {
            Some('k') => (&lower[..lower.len() - 1], 1e3),
            Some('m') => (&lower[..lower.len() - 1], 1e6),
            _ => (lower.as_str(), 1.0),
        };
        let n: f64 = number.trim().parse().map_err(|_| bad())?;
        let n = n * scale;
        if (0.0..1.8e19).contains(&n) { Ok(CostLimit::Tokens(n.round() as u64)) } else { Err(bad()) }
    }

    /// The limit as the user would say it.
    pub fn shown(&self) -> String {
        match self {
            CostLimit::Tokens(n) => format!("{} tokens", crate::prices::tokens(*n)),
            CostLimit::Dollars(d) => crate::prices::dollars(*d),
        }
    }
}

/// One baseline entry: a finding identity and how many times it occurred.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// A stable hash of the finding's identity (rule, tool, category, message).
    pub fingerprint: String,
    /// The finding rule's id.
    pub rule: String,
    /// The finding's tool, when it has one.
    pub tool: Option<String>,
    /// The finding's category, when it has one.
    pub category: Option<String>,
    /// The finding's normalized evidence (the report's `Finding::key`).
    pub message: String,
    /// How many findings with this identity the baseline accepts.
    pub count: u64,
}

/// A baseline file (`check --write-baseline`): the findings already known, which `check --baseline`
/// does not count again.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The file's version, `BASELINE_VERSION`.
    pub falseok_baseline: u32,
    /// The known findings, sorted.
    pub entries: Vec<Entry>,
}

/// Version of the baseline file format.
pub const BASELINE_VERSION: u32 = 1;

/// FNV-1a, 64 bits: a fully specified hash, stable across versions and
/// platforms (std's hashers are not).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

type Identity = (String, Option<String>, Option<String>, String);

fn identity(f: &Finding) -> Identity {
    (f.rule.as_str().to_string(), f.tool.clone(), f.category.clone(), f.key.clone())
}

fn fingerprint(id: &Identity) -> String {
    let text = format!("{}\0{}\0{}\0{}", id.0, id.1.as_deref().unwrap_or(""), id.2.as_deref().unwrap_or(""), id.3);
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// The baseline of a report's findings, sorted.
pub fn baseline_of(report: &Report) -> Baseline {
    let mut counts: BTreeMap<Identity, u64> = BTreeMap::new();
    // A suppressed finding is accepted by the configuration, not the baseline.
    for f in report.findings.iter().filter(|f| f.suppressed.is_none()) {
        *counts.entry(identity(f)).or_default() += 1;
    }
    let mut entries: Vec<Entry> = counts
        .into_iter()
        .map(|(id, count)| Entry {
            fingerprint: fingerprint(&id),
            rule: id.0,
            tool: id.1,
            category: id.2,
            message: id.3,
            count,
        })
        .collect();
    entries
        .sort_by(|a, b| (&a.rule, &a.tool, &a.category, &a.message).cmp(&(&b.rule, &b.tool, &b.category, &b.message)));
    Baseline { falseok_baseline: BASELINE_VERSION, entries }
}

/// Read and check the baseline file at `path`: a malformed one is an input error naming it.
pub fn read_baseline(path: &Path) -> Result<Baseline> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(
            path,
            if e.kind() == std::io::ErrorKind::NotFound {
                "baseline not found".into()
            } else {
                format!("cannot read baseline: {e}")
            },
        )
    })?;
    let b: Baseline =
        serde_json::from_str(&text).map_err(|e| Error::input(path, format!("not a falseok baseline: {e}")))?;
    if b.falseok_baseline != BASELINE_VERSION {
        return Err(Error::input(path, format!("unsupported baseline version {}", b.falseok_baseline)));
    }
    Ok(b)
}

/// `b` as a baseline file: pretty JSON, one key per line, trailing newline.
pub fn baseline_text(b: &Baseline) -> Result<String> {
    let mut text = serde_json::to_string_pretty(b).map_err(std::io::Error::from)?;
    text.push('\n');
    Ok(text)
}

/// `+added / -removed` between two baselines, counted in findings.
pub fn baseline_diff(old: &Baseline, new: &Baseline) -> (u64, u64) {
    let index = |b: &Baseline| -> BTreeMap<String, u64> {
        b.entries.iter().map(|e| (e.fingerprint.clone(), e.count)).collect()
    };
    let (o, n) = (index(old), index(new));
    let added = n.iter().map(|(k, c)| c.saturating_sub(o.get(k).copied().unwrap_or(0))).sum();
    let removed = o.iter().map(|(k, c)| c.saturating_sub(n.get(k).copied().unwrap_or(0))).sum();
    (added, removed)
}

/// Why the gate failed, one reason each.
#[derive(Debug, Clone, PartialEq)]
pub struct GateFailure {
    /// The tool it concerns, when it concerns one.
    pub tool: Option<String>,
    /// The source it concerns, when it concerns one.
    pub source: Option<String>,
    /// Why the gate failed, in one line.
    pub text: String,
}

/// What the gate decided about a report, and why.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Indexes into `report.findings` of the findings that count (all of
    /// them without a baseline; those beyond the baseline otherwise).
    pub new_findings: Vec<usize>,
    /// Baseline entries (or parts of their counts) no longer seen.
    pub stale: Vec<Entry>,
    /// Every threshold the report broke; none when it passed.
    pub failures: Vec<GateFailure>,
    /// The new hidden errors.
    pub hidden: u64,
    /// A baseline was given: `new_findings` and `hidden` count what it did not hold.
    pub baseline_used: bool,
    /// Findings a suppression accepted: not counted.
    pub suppressed: u64,
    /// The expired suppressions, one line each (file:line, date, reason).
    pub expired: Vec<String>,
}

impl Verdict {
    /// No threshold was broken (exit 0).
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// One sentence a CI log reader understands.
    pub fn sentence(&self, report: &Report, gate: &Gate) -> String {
        let against = if self.baseline_used { " not in the baseline" } else { "" };
        if self.passed() {
            let mut s = format!(
                "falseok check passed: {} hidden error{}{} (limit {}), {}",
                self.hidden,
                if self.hidden == 1 { "" } else { "s" },
                against,
                gate.max_hidden,
                rates_quoted(report, gate)
            );
            if let Some(cost) = cost_quoted(report, gate) {
                s.push_str(&format!(", {cost}"));
            }
            if let Some(counts) = report.suppressions.summary() {
                s.push_str(&format!("; {counts}"));
            }
            if !self.stale.is_empty() {
                let n: u64 = self.stale.iter().map(|e| e.count).sum();
                s.push_str(&format!("; {n} baseline findings no longer occur (refresh with --write-baseline)"));
            }
            s.push('.');
            s
        } else {
            let reasons: Vec<&str> =
                self.failures.iter().filter(|v| v.source.is_none()).map(|v| v.text.as_str()).collect();
            format!("falseok check failed: {}.", reasons.join("; "))
        }
    }
}

/// The error rates a passing gate quotes: the overall rate, unless every
/// `--max-error-rate` limit is a tool's; then each limited tool's own rate
/// beside its limit (a tool's pass is about that tool, not all calls).
fn rates_quoted(report: &Report, gate: &Gate) -> String {
    let overall = format!("error rate {}", percent(rate(report.totals.errors, report.totals.calls), 2));
    let mut parts = Vec::new();
    if gate.max_error_rate.is_empty() || gate.max_error_rate.iter().any(|l| l.tool.is_none()) {
        parts.push(overall);
    }
    for limit in &gate.max_error_rate {
        if let Some(tool) = &limit.tool {
            let r = report.tools.iter().find(|t| &t.tool == tool).map_or(0.0, |t| t.error_rate);
            parts.push(format!("{tool} error rate {} (limit {})", pct(r), pct(limit.max)));
        }
    }
    parts.join(", ")
}

/// What the run's failures cost: tokens (own, retry, rent), dollars of the
/// priced ones, and how many were not priced.
fn run_spent(report: &Report) -> (u64, f64, u64) {
    let tokens = report.cost.iter().fold(0u64, |a, r| a.saturating_add(r.tokens()));
    (tokens, report.cost.iter().map(|r| r.dollars).sum(), report.cost.iter().map(|r| r.unpriced).sum())
}

/// So many tokens or dollars, in the unit of `limit`.
fn spent_text(limit: CostLimit, tokens: u64, dollars: f64) -> String {
    match limit {
        CostLimit::Tokens(_) => format!("{} tokens", crate::prices::tokens(tokens)),
        CostLimit::Dollars(_) => crate::prices::dollars(dollars),
    }
}

/// The session the report names as costliest in the unit of `limit`, and
/// whether it is over it.
fn costliest(report: &Report, limit: CostLimit) -> Option<(&crate::report::CostliestSession, bool)> {
    match limit {
        CostLimit::Tokens(n) => report.usage.costliest_session_tokens.as_ref().map(|s| (s, s.failure_tokens > n)),
        CostLimit::Dollars(d) => {
            report.usage.costliest_session_dollars.as_ref().map(|s| (s, s.failure_dollars > d + 1e-9))
        }
    }
}

/// The failures' cost above `--max-session-failure-cost` (the costliest
/// session's) and above `--max-failure-cost` (the whole run's).
fn cost_failures(report: &Report, gate: &Gate, out: &mut Verdict) {
    if let Some(limit) = gate.max_session_failure_cost
        && let Some((s, true)) = costliest(report, limit)
    {
        out.failures.push(GateFailure {
            tool: None,
            source: None,
            text: format!(
                "the failures of session {} cost {} (limit {} per session)",
                s.session.replace(['\n', '\r'], " "),
                spent_text(limit, s.failure_tokens, s.failure_dollars),
                limit.shown()
            ),
        });
    }
    let Some(limit) = gate.max_failure_cost else { return };
    let (tokens, dollars, unpriced) = run_spent(report);
    let over = match limit {
        CostLimit::Tokens(n) => tokens > n,
        CostLimit::Dollars(d) => dollars > d + 1e-9,
    };
    if !over {
        return;
    }
    let note = match limit {
        CostLimit::Dollars(_) if unpriced > 0 => format!(", {unpriced} failures not priced"),
        _ => String::new(),
    };
    out.failures.push(GateFailure {
        tool: None,
        source: None,
        text: format!("failures cost {}{note} (limit {})", spent_text(limit, tokens, dollars), limit.shown()),
    });
}

/// What the failures cost, as a passing gate quotes it beside its limits.
fn cost_quoted(report: &Report, gate: &Gate) -> Option<String> {
    let session = gate.max_session_failure_cost.map(|limit| {
        let worst = costliest(report, limit).map(|(s, _)| spent_text(limit, s.failure_tokens, s.failure_dollars));
        format!("costliest session {} (limit {} per session)", worst.unwrap_or_else(|| "nothing".into()), limit.shown())
    });
    let Some(limit) = gate.max_failure_cost else { return session };
    let (tokens, dollars, _) = run_spent(report);
    let run = format!("failures cost {} (limit {})", spent_text(limit, tokens, dollars), limit.shown());
    Some(match session {
        Some(s) => format!("{run}, {s}"),
        None => run,
    })
}

/// Apply the gate (and the baseline, if any) to a report.
pub fn evaluate(report: &Report, gate: &Gate, baseline: Option<&Baseline>) -> Verdict {
    let mut out = Verdict { baseline_used: baseline.is_some(), ..Verdict::default() };
    // Findings that count: beyond the baseline's recorded count per identity.
    let mut allowance: BTreeMap<String, u64> =
        baseline.map(|b| b.entries.iter().map(|e| (e.fingerprint.clone(), e.count)).collect()).unwrap_or_default();
    for (i, f) in report.findings.iter().enumerate() {
        if f.suppressed.is_some() {
            out.suppressed += 1;
            continue;
        }
        let fp = fingerprint(&identity(f));
        match allowance.get_mut(&fp) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.new_findings.push(i),
        }
    }
    if let Some(b) = baseline {
        for e in &b.entries {
            let left = allowance.get(&e.fingerprint).copied().unwrap_or(0);
            if left > 0 {
                out.stale.push(Entry { count: left, ..e.clone() });
            }
        }
    }
    let new = |i: &usize| &report.findings[*i];
    out.hidden = out.new_findings.iter().map(new).filter(|f| f.rule == FindingRule::HiddenError).count() as u64;

    // Hidden errors.
    if out.hidden > gate.max_hidden {
        let against = if baseline.is_some() { " not in the baseline" } else { "" };
        out.failures.push(GateFailure {
            tool: None,
            source: None,
            text: format!(
                "{} hidden error{}{} (limit {})",
                out.hidden,
                if out.hidden == 1 { "" } else { "s" },
                against,
                gate.max_hidden
            ),
        });
        let mut per: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        for f in out.new_findings.iter().map(new).filter(|f| f.rule == FindingRule::HiddenError) {
            *per.entry((f.source.as_str(), f.tool.as_deref().unwrap_or(""))).or_default() += 1;
        }
        for ((source, tool), n) in per {
            out.failures.push(GateFailure {
                tool: Some(tool.to_string()),
                source: Some(source.to_string()),
                text: format!("{n} hidden error{}{against}", if n == 1 { "" } else { "s" }),
            });
        }
    }
    rate_failures(report, gate, &mut out);
    cost_failures(report, gate, &mut out);
    fail_on_failures(report, gate, baseline.is_some(), &mut out);
    expired_failures(report, &mut out);
    out
}

/// Every expired suppression fails the gate, named on a line of its own.
fn expired_failures(report: &Report, out: &mut Verdict) {
    let expired: Vec<_> = report.suppressions.entries.iter().filter(|e| e.expired).collect();
    if expired.is_empty() {
        return;
    }
    let n = expired.len();
    out.failures.push(GateFailure {
        tool: None,
        source: None,
        text: format!(
            "{n} expired suppression{} (renew or remove {})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" }
        ),
    });
    for e in expired {
        out.expired.push(format!(
            "{}: suppression expired on {}: {}",
            e.origin,
            e.expires.as_deref().unwrap_or("?"),
            e.reason
        ));
    }
}

/// The suppressed hidden errors of `slug`, per (source, tool): the errors
/// `--fail-on CATEGORY` leaves out.
fn suppressed_hidden<'a>(report: &'a Report, slug: &str) -> BTreeMap<(&'a str, &'a str), u64> {
    let mut per = BTreeMap::new();
    for f in &report.findings {
        if f.suppressed.is_some() && f.rule == FindingRule::HiddenError && f.category.as_deref() == Some(slug) {
            *per.entry((f.source.as_str(), f.tool.as_deref().unwrap_or(""))).or_default() += 1;
        }
    }
    per
}

/// The `--max-error-rate` limits that the report exceeds.
fn rate_failures(report: &Report, gate: &Gate, out: &mut Verdict) {
    for limit in &gate.max_error_rate {
        match &limit.tool {
            None => {
                let r = rate(report.totals.errors, report.totals.calls);
                if r > limit.max {
                    out.failures.push(GateFailure {
                        tool: None,
                        source: None,
                        text: format!("error rate {} above {}", pct(r), pct(limit.max)),
                    });
                }
                for (si, tools) in report.source_tools.iter().enumerate() {
                    let (e, c) = tools.iter().fold((0, 0), |(e, c), t| (e + t.errors, c + t.calls));
                    if rate(e, c) > limit.max {
                        for t in tools.iter().filter(|t| t.errors > 0) {
                            out.failures.push(GateFailure {
                                tool: Some(t.tool.clone()),
                                source: Some(report.sources[si].path.clone()),
                                text: format!(
                                    "{} of the source's errors (overall rate {} above {})",
                                    t.errors,
                                    pct(rate(e, c)),
                                    pct(limit.max)
                                ),
                            });
                        }
                    }
                }
            }
            Some(tool) => {
                if let Some(t) = report.tools.iter().find(|t| &t.tool == tool).filter(|t| t.error_rate > limit.max) {
                    out.failures.push(GateFailure {
                        tool: None,
                        source: None,
                        text: format!("{tool} error rate {} above {}", pct(t.error_rate), pct(limit.max)),
                    });
                }
                for (si, tools) in report.source_tools.iter().enumerate() {
                    if let Some(t) = tools.iter().find(|t| &t.tool == tool).filter(|t| t.error_rate > limit.max) {
                        out.failures.push(per_tool(
                            report,
                            si,
                            t,
                            format!("error rate {} above {}", pct(t.error_rate), pct(limit.max)),
                        ));
                    }
                }
            }
        }
    }
}

/// The `--fail-on` rules and categories that the report hits.
fn fail_on_failures(report: &Report, gate: &Gate, with_baseline: bool, out: &mut Verdict) {
    let new = |i: &usize| &report.findings[*i];
    let counted = out.new_findings.clone();
    for f in &gate.fail_on {
        match f {
            FailOn::Rule(rule) => {
                let hits: Vec<&Finding> = counted.iter().map(new).filter(|x| x.rule == *rule).collect();
                if !hits.is_empty() {
                    out.failures.push(GateFailure {
                        tool: None,
                        source: None,
                        text: format!("{} {rule} finding{}", hits.len(), if hits.len() == 1 { "" } else { "s" }),
                    });
                    let mut per: BTreeMap<(&str, &str), u64> = BTreeMap::new();
                    for x in hits {
                        *per.entry((x.source.as_str(), x.tool.as_deref().unwrap_or(""))).or_default() += 1;
                    }
                    for ((source, tool), n) in per {
                        out.failures.push(GateFailure {
                            tool: Some(tool.to_string()),
                            source: Some(source.to_string()),
                            text: format!("{n} {rule}"),
                        });
                    }
                }
            }
            FailOn::Category(cat) => {
                let slug = cat.as_str();
                if with_baseline {
                    // Only findings carry identities a baseline can hold.
                    let hits: Vec<&Finding> =
                        counted.iter().map(new).filter(|x| x.category.as_deref() == Some(slug)).collect();
                    if !hits.is_empty() {
                        out.failures.push(GateFailure {
                            tool: None,
                            source: None,
                            text: format!(
                                "{} new {slug} finding{}",
                                hits.len(),
                                if hits.len() == 1 { "" } else { "s" }
                            ),
                        });
                        for x in hits {
                            out.failures.push(GateFailure {
                                tool: x.tool.clone(),
                                source: Some(x.source.clone()),
                                text: format!("new {slug} finding"),
                            });
                        }
                    }
                } else {
                    // A suppressed hidden error is one of the category's errors that does not count.
                    let accepted = suppressed_hidden(report, slug);
                    let all: u64 = report.categories.iter().filter(|c| c.category == slug).map(|c| c.errors).sum();
                    let n = all.saturating_sub(accepted.values().sum());
                    if n > 0 {
                        out.failures.push(GateFailure {
                            tool: None,
                            source: None,
                            text: format!("{n} {slug} error{}", if n == 1 { "" } else { "s" }),
                        });
                        for (si, tools) in report.source_tools.iter().enumerate() {
                            for t in tools {
                                let source = report.sources[si].path.as_str();
                                let less = accepted.get(&(source, t.tool.as_str())).copied().unwrap_or(0);
                                if let Some(k) =
                                    t.categories.get(slug).map(|k| k.saturating_sub(less)).filter(|k| *k > 0)
                                {
                                    out.failures.push(per_tool(
                                        report,
                                        si,
                                        t,
                                        format!("{k} {slug} error{}", if k == 1 { "" } else { "s" }),
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn per_tool(report: &Report, source: usize, t: &ToolReport, text: String) -> GateFailure {
    GateFailure { tool: Some(t.tool.clone()), source: Some(report.sources[source].path.clone()), text }
}

fn pct(x: f64) -> String {
    percent(x, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_answers() {
        // Test vectors of the FNV-1a 64-bit specification.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn rates() {
        assert_eq!(RateLimit::parse("0.05").unwrap(), RateLimit { tool: None, max: 0.05 });
        assert_eq!(RateLimit::parse("5%").unwrap(), RateLimit { tool: None, max: 0.05 });
        assert_eq!(RateLimit::parse("Edit=2.5%").unwrap(), RateLimit { tool: Some("Edit".into()), max: 0.025 });
        assert!(RateLimit::parse("Edit=").is_err());
        assert!(RateLimit::parse("=0.1").is_err());
        assert!(RateLimit::parse("150%").is_err());
        assert!(RateLimit::parse("lots").is_err());
    }

    #[test]
    fn fail_on_lists() {
        assert_eq!(
            FailOn::parse_list("hidden-error, stale-edit-match").unwrap(),
            vec![FailOn::Rule(FindingRule::HiddenError), FailOn::Category(Category::StaleEditMatch)]
        );
        assert!(FailOn::parse_list("hidden-errors").unwrap_err().contains("unknown rule or category"));
    }

    #[test]
    fn diff_counts_findings() {
        let e = |fp: &str, count| Entry {
            fingerprint: fp.into(),
            rule: "hidden-error".into(),
            tool: None,
            category: None,
            message: String::new(),
            count,
        };
        let old = Baseline { falseok_baseline: 1, entries: vec![e("a", 3), e("b", 1)] };
        let new = Baseline { falseok_baseline: 1, entries: vec![e("a", 1), e("c", 2)] };
        assert_eq!(baseline_diff(&old, &new), (2, 3));
    }
}
