//! `falseok metrics`: the report as Prometheus text exposition (format
//! 0.0.4), for node_exporter's textfile collector and `watch --listen`.
//!
//! Deterministic: families in name order, series in label order, labels in
//! name order, no timestamps on samples (the textfile collector refuses
//! them). No session, call or file names in labels: every label is an agent
//! (a source format), a tool, a category slug or a signal, so the number of
//! series is bounded by tools × categories (docs/metrics.md).
//!
//! The `agent` label: the report counts per tool, with per-source tool rows
//! (`source_tools`) and each source's format. A tool's series carry the
//! formats of the sources whose calls of it were counted, joined by `,`
//! (`claude-code`, or `gemini,qwen` when two agents share the tool name),
//! so every series of one tool carries one agent label and the sums stay
//! exact. A folder of transcripts of several agents is one source of format
//! `jsonl`. A report without per-source rows (one rebuilt by `merge`) labels
//! every tool with all its sources' formats.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::report::Report;

/// How a family's stored integers are printed.
#[derive(Clone, Copy)]
enum Scale {
    /// As they are.
    Unit,
    /// Thousandths: milliseconds printed as seconds.
    Milli,
}

struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    scale: Scale,
    /// Label names, in name order.
    labels: &'static [&'static str],
    /// Label values (escaped, in `labels` order) -> value.
    samples: BTreeMap<Vec<String>, u64>,
}

impl Family {
    fn new(name: &'static str, kind: &'static str, help: &'static str, labels: &'static [&'static str]) -> Family {
        debug_assert!(labels.windows(2).all(|w| w[0] < w[1]), "{name}: labels in name order");
        Family { name, kind, help, scale: Scale::Unit, labels, samples: BTreeMap::new() }
    }

    fn milli(mut self) -> Family {
        self.scale = Scale::Milli;
        self
    }

    /// Add `value` to the series `values` (in `labels` order). Two label
    /// values that escape alike (control characters) add up in one series,
    /// so the text never holds a series twice.
    fn add(&mut self, values: &[&str], value: u64) {
        let key: Vec<String> = values.iter().map(|v| escape_label(v)).collect();
        let slot = self.samples.entry(key).or_default();
        *slot = slot.saturating_add(value);
    }

    fn write(&self, out: &mut String) {
        let _ = writeln!(out, "# HELP {} {}", self.name, self.help);
        let _ = writeln!(out, "# TYPE {} {}", self.name, self.kind);
        for (values, value) in &self.samples {
            out.push_str(self.name);
            if !values.is_empty() {
                out.push('{');
                for (i, (name, v)) in self.labels.iter().zip(values).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "{name}=\"{v}\"");
                }
                out.push('}');
            }
            out.push(' ');
            match self.scale {
                Scale::Unit => {
                    let _ = write!(out, "{value}");
                }
                Scale::Milli => out.push_str(&thousandths(*value)),
            }
            out.push('\n');
        }
    }
}

/// The names of every family `exposition` writes, in output order (for
/// tests of dashboards and alert rules that must name only these).
pub const FAMILIES: &[&str] = &[
    "falseok_build_info",
    "falseok_failure_streaks_total",
    "falseok_failure_tokens_total",
    "falseok_guard_blind_streaks_total",
    "falseok_guard_threshold_calls",
    "falseok_last_scan_timestamp_seconds",
    "falseok_lost_seconds_total",
    "falseok_retries_total",
    "falseok_sessions_total",
    "falseok_sources",
    "falseok_timed_failures_total",
    "falseok_tool_calls_total",
    "falseok_tool_errors_total",
];

/// The report as Prometheus text exposition format 0.0.4.
pub fn exposition(report: &Report, scanned_at: DateTime<Utc>) -> String {
    let agent_of = tool_agents(report);
    let agent = |tool: &str| agent_of.get(tool).map_or_else(|| all_formats(report), Clone::clone);

    let mut build = Family::new(
        "falseok_build_info",
        "gauge",
        "Always 1: the falseok version and a fingerprint of its rule set (a change of rules changes verdicts).",
        &["contract", "rules", "version"],
    );
    build.add(&[&report.schema_version.to_string(), &rules_fingerprint(), env!("CARGO_PKG_VERSION")], 1);

    let mut last = Family::new(
        "falseok_last_scan_timestamp_seconds",
        "gauge",
        "When the scan behind these numbers was made, in seconds since the Unix epoch.",
        &[],
    )
    .milli();
    last.add(&[], u64::try_from(scanned_at.timestamp_millis()).unwrap_or(0));

    let mut threshold = Family::new(
        "falseok_guard_threshold_calls",
        "gauge",
        "Consecutive same-message failures that make a streak a guard's business (--streak-threshold).",
        &[],
    );
    threshold.add(&[], report.streaks.threshold);

    let mut sources =
        Family::new("falseok_sources", "gauge", "Sources read (databases, transcript files or folders).", &["agent"]);
    let mut sessions = Family::new(
        "falseok_sessions_total",
        "counter",
        "Sessions with at least one counted call, per agent (source format).",
        &["agent"],
    );
    for s in &report.sources {
        sources.add(&[&s.format], 1);
        sessions.add(&[&s.format], s.sessions);
    }

    let mut calls = Family::new("falseok_tool_calls_total", "counter", "Tool calls counted.", &["agent", "tool"]);
    for t in &report.tools {
        calls.add(&[&agent(&t.tool), &t.tool], t.calls);
    }

    let mut errors = Family::new(
        "falseok_tool_errors_total",
        "counter",
        "Failed tool calls by category; signal=flagged: the source marked the result as an error, \
         signal=hidden: only its content says so (the two partition the errors).",
        &["agent", "category", "signal", "tool"],
    );
    for c in &report.categories {
        let a = agent(&c.tool);
        errors.add(&[&a, &c.category, "flagged", &c.tool], c.errors.saturating_sub(c.hidden_errors));
        errors.add(&[&a, &c.category, "hidden", &c.tool], c.hidden_errors);
    }

    let mut blind = Family::new(
        "falseok_guard_blind_streaks_total",
        "counter",
        "Streaks at or above the guard threshold whose every failure was hidden: a guard reading the flag never fired.",
        &["agent", "tool"],
    );
    let mut streaks = Family::new(
        "falseok_failure_streaks_total",
        "counter",
        "Streaks at or above the guard threshold: consecutive calls of a tool failing with the same message.",
        &["agent", "tool"],
    );
    // Every tool called gets its streak series, 0 until a streak comes, so
    // an alert on `increase()` sees the first one (a series that appears
    // with 1 shows no increase).
    for t in &report.tools {
        let a = agent(&t.tool);
        blind.add(&[&a, &t.tool], 0);
        streaks.add(&[&a, &t.tool], 0);
    }
    for s in &report.streaks.by_tool {
        let a = agent(&s.tool);
        blind.add(&[&a, &s.tool], s.hidden_at_or_above_threshold);
        streaks.add(&[&a, &s.tool], s.at_or_above_threshold);
    }

    let mut retries = Family::new(
        "falseok_retries_total",
        "counter",
        "Calls of the tool after each failure up to its first success (every later call when none succeeded).",
        &["agent", "category", "tool"],
    );
    let mut lost = Family::new(
        "falseok_lost_seconds_total",
        "counter",
        "Seconds from each timed failure to the tool's next success, or to the session's last recorded time.",
        &["agent", "category", "tool"],
    )
    .milli();
    let mut timed = Family::new(
        "falseok_timed_failures_total",
        "counter",
        "Failures whose lost time could be measured (divide lost seconds by these for a mean).",
        &["agent", "category", "tool"],
    );
    let mut tokens = Family::new(
        "falseok_failure_tokens_total",
        "counter",
        "Tokens the failures cost, by kind: own (their share of their response), retry (the successful retry's share), rent (an estimate: the result read again by later responses). Only where the trace records usage.",
        &["agent", "category", "kind", "tool"],
    );
    for r in &report.cost {
        let a = agent(&r.tool);
        if r.with_usage > 0 {
            tokens.add(&[&a, &r.category, "own", &r.tool], r.own_tokens);
            tokens.add(&[&a, &r.category, "rent", &r.tool], r.rent_tokens);
            tokens.add(&[&a, &r.category, "retry", &r.tool], r.retry_tokens);
        }
        retries.add(&[&a, &r.category, &r.tool], r.retries);
        lost.add(&[&a, &r.category, &r.tool], r.lost_ms);
        timed.add(&[&a, &r.category, &r.tool], r.timed);
    }

    let families =
        [build, streaks, tokens, blind, threshold, last, lost, retries, sessions, sources, timed, calls, errors];
    debug_assert!(families.iter().map(|f| f.name).eq(FAMILIES.iter().copied()));
    let mut out = String::new();
    for f in &families {
        f.write(&mut out);
    }
    out
}

/// Each tool's agent label: the formats of the sources that counted calls
/// of it, sorted and joined by `,`.
fn tool_agents(report: &Report) -> BTreeMap<String, String> {
    let mut sets: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (i, tools) in report.source_tools.iter().enumerate() {
        let Some(src) = report.sources.get(i) else { continue };
        for t in tools.iter().filter(|t| t.calls > 0) {
            sets.entry(t.tool.as_str()).or_default().insert(src.format.as_str());
        }
    }
    sets.into_iter().map(|(tool, formats)| (tool.to_string(), join(formats))).collect()
}

/// Every source's format, for a tool no per-source row names.
fn all_formats(report: &Report) -> String {
    join(report.sources.iter().map(|s| s.format.as_str()).collect())
}

fn join(formats: BTreeSet<&str>) -> String {
    if formats.is_empty() { "unknown".to_string() } else { formats.into_iter().collect::<Vec<_>>().join(",") }
}

/// A label value as the text format wants it: backslash, double quote and
/// line feed escaped; other control characters (which no tool name should
/// hold, and a line-based reader could trip on) become U+FFFD.
fn escape_label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// 1234 -> "1.234", 1500 -> "1.5", 2000 -> "2".
fn thousandths(v: u64) -> String {
    let (whole, frac) = (v / 1000, v % 1000);
    if frac == 0 { whole.to_string() } else { format!("{whole}.{frac:03}").trim_end_matches('0').to_string() }
}

/// A short fingerprint of the rule tables (ids, patterns, scopes): FNV-1a,
/// 64 bits, hex. It changes whenever a rule is added, removed or edited.
pub fn rules_fingerprint() -> String {
    use crate::rules::{CLASS_RULES, CONTENT_RULES, EXIT_CLASS_RULES};
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |s: &str| {
        for b in s.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for r in CONTENT_RULES {
        feed(r.id);
        feed(r.pattern);
        r.tools.iter().for_each(|t| feed(t));
        feed(&format!("{:?}{:?}{:?}", r.dialects, r.precision, r.reads));
    }
    for r in CLASS_RULES.iter().chain(EXIT_CLASS_RULES) {
        feed(r.id);
        feed(r.pattern);
        r.tools.iter().for_each(|t| feed(t));
        feed(&format!("{:?}{}", r.dialects, r.category.as_str()));
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{
        CategoryRow, CostRow, Finding, SchemaReport, SourceReport, StreakReport, StreakRow, ToolReport, Totals,
    };
    use crate::rules::{FindingRule, Severity};

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-06-01T12:00:00.250Z").unwrap().with_timezone(&Utc)
    }

    fn tool(name: &str, calls: u64, flagged: u64, hidden: u64) -> ToolReport {
        ToolReport {
            tool: name.to_string(),
            calls,
            errors: flagged + hidden,
            flagged_errors: flagged,
            hidden_errors: hidden,
            ..ToolReport::default()
        }
    }

    fn cat(tool: &str, category: &str, errors: u64, hidden: u64) -> CategoryRow {
        CategoryRow { category: category.into(), tool: tool.into(), errors, hidden_errors: hidden }
    }

    fn streak(tool: &str, at: u64, hidden: u64) -> StreakRow {
        StreakRow {
            tool: tool.into(),
            streaks: at,
            longest: 5,
            p50: 5,
            p95: 5,
            histogram: BTreeMap::new(),
            lengths: BTreeMap::new(),
            at_or_above_threshold: at,
            hidden_at_or_above_threshold: hidden,
        }
    }

    fn source(path: &str, format: &str, sessions: u64) -> SourceReport {
        SourceReport { sessions, ..SourceReport::new(path, format) }
    }

    /// Two sources: Edit only in Claude Code, Bash in Claude Code and
    /// Codex; a finding naming a session.
    fn report() -> Report {
        let tools = vec![tool("Bash", 10, 2, 1), tool("Edit", 20, 0, 4)];
        Report {
            schema_version: crate::report::CONTRACT_VERSION,
            usage: Default::default(),
            sources: vec![source("a", "claude-code", 3), source("b", "codex", 2)],
            totals: Totals {
                sessions: 5,
                calls: 30,
                errors: 7,
                flagged_errors: 2,
                hidden_errors: 5,
                content_errors: 5,
                ..Totals::default()
            },
            tools,
            categories: vec![
                cat("Edit", "stale-edit-match", 3, 3),
                cat("Edit", "edit-match-not-found", 1, 1),
                cat("Bash", "nonzero-exit", 3, 1),
            ],
            findings: vec![Finding {
                rule: FindingRule::HiddenError,
                severity: Severity::Error,
                source: "a".into(),
                session: "session-5f0c6c2e".into(),
                call_id: Some("toolu_secret_id".into()),
                seq: Some(1),
                tool: Some("Edit".into()),
                category: Some("stale-edit-match".into()),
                message: "m".into(),
                key: String::new(),
                suppressed: None,
                place: None,
            }],
            recovery: vec![],
            cost: vec![CostRow {
                tool: "Edit".into(),
                category: "stale-edit-match".into(),
                failures: 3,
                retries: 4,
                timed: 2,
                lost_ms: 61_500,
                ..CostRow::default()
            }],
            streaks: StreakReport { threshold: 5, by_tool: vec![streak("Edit", 2, 1)] },
            repairs: vec![],
            feedback: vec![],
            schema: SchemaReport::default(),
            reasons: vec![],
            headlines: vec![],
            guard: vec![],
            suppressions: Default::default(),
            source_tools: vec![vec![tool("Bash", 6, 1, 1), tool("Edit", 20, 0, 4)], vec![tool("Bash", 4, 1, 0)]],
            examples: BTreeMap::new(),
            warnings: vec![],
            seen: Default::default(),
        }
    }

    /// `name{labels} value` lines of one family, as (labels, value).
    fn series<'a>(text: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (key, value) = l.rsplit_once(' ')?;
                let (n, labels) = key.split_once('{').map_or((key, ""), |(n, rest)| (n, rest));
                (n == name).then_some((labels.trim_end_matches('}'), value))
            })
            .collect()
    }

    fn sum(text: &str, name: &str, with: &str) -> f64 {
        series(text, name).iter().filter(|(l, _)| l.contains(with)).map(|(_, v)| v.parse::<f64>().unwrap()).sum()
    }

    #[test]
    fn the_counters_add_up_to_the_totals() {
        let r = report();
        let text = exposition(&r, at());
        assert_eq!(sum(&text, "falseok_tool_calls_total", ""), 30.0);
        assert_eq!(sum(&text, "falseok_tool_errors_total", "signal=\"hidden\""), 5.0);
        assert_eq!(sum(&text, "falseok_tool_errors_total", "signal=\"flagged\""), 2.0);
        assert_eq!(sum(&text, "falseok_guard_blind_streaks_total", ""), 1.0);
        assert_eq!(sum(&text, "falseok_sessions_total", ""), 5.0);
        // Not the same sums when a row is wrong: the test can fail.
        assert_ne!(sum(&text, "falseok_tool_errors_total", ""), 6.0);
    }

    #[test]
    fn every_family_has_help_and_type_and_the_text_is_exact() {
        let text = exposition(&report(), at());
        for name in FAMILIES {
            assert!(text.contains(&format!("# HELP {name} ")), "{name}");
            let kind = if name.ends_with("_total") { "counter" } else { "gauge" };
            assert!(text.contains(&format!("# TYPE {name} {kind}\n")), "{name}");
        }
        let want = [
            "falseok_tool_calls_total{agent=\"claude-code,codex\",tool=\"Bash\"} 10",
            "falseok_tool_calls_total{agent=\"claude-code\",tool=\"Edit\"} 20",
            "falseok_tool_errors_total{agent=\"claude-code,codex\",category=\"nonzero-exit\",signal=\"flagged\",tool=\"Bash\"} 2",
            "falseok_tool_errors_total{agent=\"claude-code,codex\",category=\"nonzero-exit\",signal=\"hidden\",tool=\"Bash\"} 1",
            "falseok_tool_errors_total{agent=\"claude-code\",category=\"stale-edit-match\",signal=\"flagged\",tool=\"Edit\"} 0",
            "falseok_guard_blind_streaks_total{agent=\"claude-code\",tool=\"Edit\"} 1",
            "falseok_guard_blind_streaks_total{agent=\"claude-code,codex\",tool=\"Bash\"} 0",
            "falseok_failure_streaks_total{agent=\"claude-code\",tool=\"Edit\"} 2",
            "falseok_lost_seconds_total{agent=\"claude-code\",category=\"stale-edit-match\",tool=\"Edit\"} 61.5",
            "falseok_retries_total{agent=\"claude-code\",category=\"stale-edit-match\",tool=\"Edit\"} 4",
            "falseok_sessions_total{agent=\"codex\"} 2",
            "falseok_sources{agent=\"claude-code\"} 1",
            "falseok_guard_threshold_calls 5",
            "falseok_last_scan_timestamp_seconds 1780315200.25",
        ];
        for line in want {
            assert!(text.lines().any(|l| l == line), "missing {line}\n{text}");
        }
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn no_session_or_call_ids_in_labels_and_output_is_deterministic() {
        let r = report();
        let text = exposition(&r, at());
        assert!(!text.contains("5f0c6c2e") && !text.contains("toolu_secret_id"), "{text}");
        // Rows in another order give the same text.
        let mut shuffled = r.clone();
        shuffled.categories.reverse();
        shuffled.tools.reverse();
        shuffled.source_tools.reverse();
        shuffled.sources.reverse();
        assert_eq!(exposition(&shuffled, at()), text);
        // Series of a family are sorted.
        let calls = series(&text, "falseok_tool_errors_total");
        assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
    }

    #[test]
    fn label_values_are_escaped_and_never_collide() {
        let mut r = report();
        let weird = "a\"b\\c\nd";
        r.tools = vec![tool(weird, 1, 0, 0), tool("x\ry", 1, 0, 0), tool("x\ty", 2, 0, 0)];
        r.source_tools = vec![];
        let text = exposition(&r, at());
        assert!(text.contains(r#"falseok_tool_calls_total{agent="claude-code,codex",tool="a\"b\\c\nd"} 1"#), "{text}");
        // Two names that differ only in control characters: one series, summed.
        assert!(text.contains("tool=\"x\u{fffd}y\"} 3\n"), "{text}");
        assert_eq!(
            series(&text, "falseok_tool_calls_total").iter().filter(|(l, _)| l.contains("x\u{fffd}y")).count(),
            1
        );
        // No raw control character reaches the text but the line ends.
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
    }

    #[test]
    fn agents_fall_back_to_every_format_then_unknown() {
        let mut r = report();
        r.source_tools.clear();
        let text = exposition(&r, at());
        assert!(text.contains("falseok_tool_calls_total{agent=\"claude-code,codex\",tool=\"Edit\"} 20"), "{text}");
        r.sources.clear();
        let text = exposition(&r, at());
        assert!(text.contains("falseok_tool_calls_total{agent=\"unknown\",tool=\"Edit\"} 20"), "{text}");
        // An empty report still gives every family, and nothing else.
        let mut empty = report();
        empty.tools.clear();
        empty.categories.clear();
        empty.cost.clear();
        empty.streaks.by_tool.clear();
        empty.sources.clear();
        let text = exposition(&empty, at());
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(samples.len(), 3, "{samples:?}");
    }

    #[test]
    fn thousandths_and_fingerprint() {
        assert_eq!(thousandths(0), "0");
        assert_eq!(thousandths(1234), "1.234");
        assert_eq!(thousandths(1500), "1.5");
        assert_eq!(thousandths(2000), "2");
        assert_eq!(thousandths(7), "0.007");
        let f = rules_fingerprint();
        assert_eq!(f.len(), 16);
        assert_eq!(f, rules_fingerprint());
    }
}
