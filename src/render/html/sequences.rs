//! The sections on what followed the failures (recovery, cost, streaks,
//! repairs, feedback) and on what the report found (schemas, findings).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::charts::{Bar, Segment, hbar_chart, vbar_chart};
use super::{
    Anchors, CHART_TOOLS, LONG_ROWS, SECTION_ROWS, TIME_BARS, TOP_TOOLS, esc, esc_cut, escape, more_row, num, pct,
    section_row, section_start, table_start,
};
use crate::render::{plural, rows};
use crate::report::{Report, ToolReport, rate};
use crate::sanitize::{one_line, truncate};

pub(super) fn recovery_section(report: &Report, tools: &[&ToolReport], anchors: &Anchors, h: &mut String) {
    if report.recovery.is_empty() {
        return;
    }
    section_start(
        h,
        "recovery-section",
        "Recovery: did a later call of the same tool succeed, and after how many calls?",
    );
    // Per tool: recovered at 1, 2, 3, later; never; abandoned.
    let mut per: BTreeMap<&str, [u64; 6]> = BTreeMap::new();
    for r in &report.recovery {
        let e = per.entry(r.tool.as_str()).or_default();
        let later = r.recovered.saturating_sub(r.recovered_at_1 + r.recovered_at_2 + r.recovered_at_3);
        let never = r.failures.saturating_sub(r.recovered + r.abandoned);
        for (i, n) in
            [r.recovered_at_1, r.recovered_at_2, r.recovered_at_3, later, never, r.abandoned].into_iter().enumerate()
        {
            e[i] += n;
        }
    }
    let names = ["at 1", "at 2", "at 3", "later", "retried, never recovered", "abandoned"];
    // Light to dark when printed: at 1 lightest, abandoned black.
    let classes = ["c3", "c6", "c2", "c7", "c1", "hidden"];
    let order: Vec<&str> =
        tools.iter().map(|t| t.tool.as_str()).filter(|t| per.contains_key(t)).take(CHART_TOOLS).collect();
    let bars: Vec<Bar> = order
        .iter()
        .map(|t| Bar {
            label: t.to_string(),
            segments: (0..6)
                .map(|i| Segment { class: classes[i].into(), name: names[i].into(), n: per[t][i] })
                .collect(),
        })
        .collect();
    let mut all = [0u64; 6];
    for v in per.values() {
        for i in 0..6 {
            all[i] += v[i];
        }
    }
    let failures: u64 = report.recovery.iter().map(|r| r.failures).sum();
    let desc = format!(
        "{} failures: recovered at the next call {}, at the 2nd {}, at the 3rd {}, later {}; retried but never recovered {}; abandoned {}.",
        failures, all[0], all[1], all[2], all[3], all[4], all[5]
    );
    let legend: Vec<(&str, &str)> = classes.iter().copied().zip(names.iter().copied()).collect();
    hbar_chart(h, "chart-recovery", "What followed each failure, per tool", &desc, &bars, &legend);
    table_start(
        h,
        ("recovery", true),
        "Recovery per tool and category",
        &[
            "tool",
            "category",
            "failures",
            "recovered",
            "at 1",
            "at 2",
            "at 3",
            "median",
            "identical retries",
            "of them ok",
            "abandoned",
        ],
    );
    let mut rows: Vec<_> = report.recovery.iter().collect();
    rows.sort_by(|a, b| b.failures.cmp(&a.failures).then(a.tool.cmp(&b.tool)).then(a.category.cmp(&b.category)));
    for r in rows.iter().take(LONG_ROWS) {
        section_row(h, &rows::recovery(r), anchors);
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if rows.len() > LONG_ROWS {
        let rest: u64 = rows[LONG_ROWS..].iter().map(|r| r.failures).sum();
        more_row(h, 11, rows.len(), LONG_ROWS, "rows", &format!(" ({})", plural(rest, "failure")));
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

/// What the failures cost per tool and category: retries and time lost
/// (estimates; docs/json.md, "Cost of failures"), most time lost first.
pub(super) fn cost_section(report: &Report, anchors: &Anchors, h: &mut String) {
    let rows = crate::render::cost_rows(report);
    if rows.is_empty() {
        return;
    }
    section_start(h, "cost-section", "Cost: calls and time from each failure to the tool's next success");
    let _ = writeln!(
        h,
        "<p>Estimates: retries count the calls of the tool after a failure up to its next success (every later call when none came); time runs from the failed call to that success; when the tool never succeeded again, to the next successful call of any tool, or to the session's last recorded time when no call succeeded after it.</p>"
    );
    table_start(
        h,
        ("cost", true),
        "Cost per tool and category",
        &["tool", "category", "failures", "retries", "time lost", "per failure", "untimed"],
    );
    for r in rows.iter().take(LONG_ROWS) {
        section_row(h, &rows::cost(r), anchors);
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if rows.len() > LONG_ROWS {
        let rest: u64 = rows[LONG_ROWS..].iter().map(|r| r.failures).sum();
        more_row(h, 7, rows.len(), LONG_ROWS, "rows", &format!(" ({})", plural(rest, "failure")));
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

/// The tokens the failures cost: the usage line, a chart of tokens lost per
/// tool and category (own, retry, rent stacked) and its table.
pub(super) fn tokens_section(report: &Report, anchors: &Anchors, h: &mut String) {
    section_start(h, "tokens-section", "Tokens: what the failures cost in tokens and dollars");
    let _ = writeln!(h, "<p>{}.</p>", esc(&crate::render::usage_line(report)));
    let rows = crate::render::token_rows(report);
    if rows.is_empty() {
        h.push_str("</section>\n");
        return;
    }
    let _ = writeln!(h, "<p>{}</p>", esc(crate::render::TOKENS_ABOUT));
    let bars: Vec<Bar> = rows
        .iter()
        .take(CHART_TOOLS)
        .map(|r| Bar {
            label: format!("{} · {}", one_line(&r.tool), r.category),
            segments: [
                ("c0", "own", r.own_tokens),
                ("c1", "retry", r.retry_tokens),
                ("c2", "rent (estimate)", r.rent_tokens),
            ]
            .into_iter()
            .map(|(class, name, n)| Segment { class: class.into(), name: name.into(), n })
            .collect(),
        })
        .collect();
    let desc: Vec<String> = rows
        .iter()
        .take(CHART_TOOLS)
        .map(|r| {
            format!(
                "{} {}: {} tokens ({} own, {} retry, {} rent)",
                one_line(&r.tool),
                r.category,
                r.tokens(),
                r.own_tokens,
                r.retry_tokens,
                r.rent_tokens
            )
        })
        .collect();
    hbar_chart(
        h,
        "chart-tokens",
        "Tokens lost per tool and category",
        &format!("{}.", desc.join("; ")),
        &bars,
        &[("c0", "own share"), ("c1", "successful retry"), ("c2", "rent (estimate)")],
    );
    table_start(h, ("tokens", true), "Tokens lost per tool and category", &crate::render::rows::TOKENS_HEADER);
    for r in rows.iter().take(LONG_ROWS) {
        section_row(h, &rows::tokens(r), anchors);
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if rows.len() > LONG_ROWS {
        more_row(h, 9, rows.len(), LONG_ROWS, "rows", "");
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

pub(super) fn streaks_section(report: &Report, anchors: &Anchors, h: &mut String) {
    let st = &report.streaks;
    if st.by_tool.is_empty() {
        return;
    }
    section_start(h, "streaks-section", "Streaks: the same tool failing with the same message in a row");
    let blind: u64 = st.by_tool.iter().map(|s| s.hidden_at_or_above_threshold).sum();
    let _ = writeln!(
        h,
        "<p>{} reached the guard threshold of {} with hidden errors only, so a guard reading the flag never fired.</p>",
        plural(blind, "streak"),
        st.threshold
    );
    // Streak lengths, all tools: the histogram's buckets in length order.
    let mut hist: BTreeMap<&str, u64> = ["2", "3", "4", "5-9", "10+"].into_iter().map(|k| (k, 0)).collect();
    for r in &st.by_tool {
        for (k, v) in &r.histogram {
            *hist.entry(k.as_str()).or_default() += v;
        }
    }
    let start = |k: &str| k.split(['-', '+']).next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(u64::MAX);
    let mut hist: Vec<(&str, u64)> = hist.into_iter().collect();
    hist.sort_by(|a, b| start(a.0).cmp(&start(b.0)).then(a.0.cmp(b.0)));
    let bars: Vec<Bar> = hist
        .iter()
        .take(TIME_BARS)
        .map(|(k, n)| Bar {
            label: k.to_string(),
            segments: vec![Segment { class: "c0".into(), name: "streaks".into(), n: *n }],
        })
        .collect();
    let list: Vec<String> = hist.iter().map(|(k, n)| format!("length {} {n}", one_line(k))).collect();
    let total: u64 = st.by_tool.iter().map(|s| s.streaks).sum();
    let desc = format!("{total} streaks: {}; {blind} at or above {} hidden only.", list.join(", "), st.threshold);
    vbar_chart(h, "chart-streaks", "Streak lengths, all tools", &desc, &bars, &[("c0", "streaks")]);
    let at = format!("at or above {}", st.threshold);
    table_start(
        h,
        ("streaks", true),
        "Streaks per tool",
        &["tool", "streaks", "longest", "p50", "p95", "lengths", &at, "hidden at or above"],
    );
    for r in st.by_tool.iter().take(TOP_TOOLS) {
        section_row(h, &rows::streaks(r), anchors);
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 8, st.by_tool.len(), TOP_TOOLS, "tools", "");
    h.push_str("</tfoot></table>\n</section>\n");
}

pub(super) fn repairs_section(report: &Report, h: &mut String) {
    if report.repairs.is_empty() {
        return;
    }
    let mut rows: Vec<_> = report.repairs.iter().collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.tool.cmp(&b.tool)).then(a.change.cmp(&b.change)));
    section_start(h, "repairs-section", "Repairs: argument changes between a failure and the next, successful call");
    table_start(
        h,
        ("repairs", true),
        "Observed repairs, most frequent first",
        &["tool", "category", "change", "kind", "count", "of"],
    );
    for r in rows.iter().take(SECTION_ROWS) {
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><th scope=\"row\">{}</th><td>{}</td><td><code>{}</code></td><td>{}</td>{}{}</tr>",
            esc(&r.tool),
            esc_cut(&r.tool, 64),
            esc(&r.category),
            esc_cut(&r.change, 80),
            esc(&r.kind),
            num("count", r.count),
            num("of", r.of)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 6, rows.len(), SECTION_ROWS, "repairs", "");
    h.push_str("</tfoot></table>\n</section>\n");
}

pub(super) fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

pub(super) fn feedback_section(report: &Report, h: &mut String) {
    if report.feedback.is_empty() {
        return;
    }
    section_start(h, "feedback-section", "Feedback: error messages most worth rewriting first");
    table_start(
        h,
        ("feedback", true),
        "Error messages, with whether they locate the fault and direct the next step",
        &["message", "tool", "count", "locates", "directs", "fixed next call"],
    );
    for r in report.feedback.iter().take(SECTION_ROWS) {
        let example = report.examples.get(&(r.tool.clone(), r.template.clone())).map_or(String::new(), |e| {
            format!("<br><span class=\"muted\">e.g. <code>{}</code></span>", esc_cut(e, 160))
        });
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><td><code>{}</code>{example}</td><td>{}</td>{}<td>{}</td><td>{}</td>{}</tr>",
            esc(&r.tool),
            esc_cut(&r.template, 160),
            esc_cut(&r.tool, 64),
            num("count", r.count),
            yes(r.locates),
            yes(r.directs),
            pct("fixed_next_call", rate(r.recovered_at_1, r.count), 0)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 6, report.feedback.len(), SECTION_ROWS, "messages", " (in --format json, `feedback`)");
    h.push_str("</tfoot></table>\n</section>\n");
}

pub(super) fn schema_section(report: &Report, h: &mut String) {
    let sc = &report.schema;
    if sc.tools.is_empty() {
        return;
    }
    section_start(h, "schema-section", "Schema: calls checked against their tools' schemas");
    let validated: u64 = sc.tools.iter().map(|t| t.validated).sum();
    let violations: u64 = sc.tools.iter().map(|t| t.violations).sum();
    let _ = writeln!(
        h,
        "<p>{} of {} checked against their schemas; {violations} violate them.</p>",
        plural(validated, "call"),
        plural(sc.tools.len() as u64, "tool")
    );
    let mut tools: Vec<_> = sc.tools.iter().collect();
    tools.sort_by(|a, b| b.violations.cmp(&a.violations).then(b.validated.cmp(&a.validated)).then(a.tool.cmp(&b.tool)));
    table_start(
        h,
        ("schema", true),
        "Schema validation per tool",
        &["tool", "schema", "validated", "violations", "accepted anyway", "categories"],
    );
    for t in tools.iter().take(TOP_TOOLS) {
        let cats: Vec<String> = t.categories.iter().map(|(k, v)| format!("{}:{v}", one_line(k))).collect();
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}{}{}<td>{}</td></tr>",
            esc(&t.tool),
            esc_cut(&t.tool, 64),
            esc_cut(&t.origin, 64),
            num("validated", t.validated),
            num("violations", t.violations),
            num("accepted_violations", t.accepted_violations),
            esc_cut(&cats.join(" "), 160)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 6, tools.len(), TOP_TOOLS, "tools", "");
    h.push_str("</tfoot></table>\n");
    if !sc.drift.is_empty() {
        table_start(
            h,
            ("drift", true),
            "Schema drift: where the schema and the tool's behaviour disagree",
            &["drift", "tool", "parameter", "count", "recommendation"],
        );
        for d in sc.drift.iter().take(SECTION_ROWS) {
            let param = match &d.value {
                Some(v) => format!("{} = {}", d.param, truncate(&one_line(v), 24)),
                None => d.param.clone(),
            };
            let _ = writeln!(
                h,
                "<tr data-tool=\"{}\"><td>{}</td><td>{}</td><td><code>{}</code></td>{}<td class=\"prose\">{}</td></tr>",
                esc(&d.tool),
                esc(d.rule.as_str()),
                esc_cut(&d.tool, 64),
                esc_cut(&param, 80),
                num("count", d.count),
                esc_cut(&d.recommendation, 240)
            );
        }
        h.push_str("</tbody>\n<tfoot>\n");
        more_row(h, 5, sc.drift.len(), SECTION_ROWS, "drift rows", "");
        h.push_str("</tfoot></table>\n");
    }
    h.push_str("</section>\n");
}

pub(super) fn findings_section(report: &Report, h: &mut String) {
    if report.findings.is_empty() {
        return;
    }
    section_start(h, "findings-section", "Findings");
    let mut by_rule: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for f in &report.findings {
        let e = by_rule.entry(f.rule.as_str()).or_insert((0, f.severity.as_str()));
        e.0 += 1;
    }
    let mut by_rule: Vec<(&str, (usize, &str))> = by_rule.into_iter().collect();
    by_rule.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    table_start(h, ("finding-rules", true), "Findings by rule", &["rule", "severity", "findings"]);
    for (rule, (n, severity)) in &by_rule {
        let _ = writeln!(
            h,
            "<tr data-rule=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}</tr>",
            esc(rule),
            esc(rule),
            esc(severity),
            num("findings", *n as u64)
        );
    }
    h.push_str("</tbody></table>\n");
    // Errors first, and among them the rarer rules first: a flood of one
    // rule must not hide the one finding of another.
    let count = |rule: &str| by_rule.iter().find(|r| r.0 == rule).map_or(0, |r| r.1.0);
    let mut list: Vec<_> = report.findings.iter().collect();
    list.sort_by_key(|f| (f.severity.as_str() != "error", count(f.rule.as_str())));
    table_start(
        h,
        ("findings", true),
        "Findings: errors first, the rarer rules first",
        &["severity", "rule", "tool", "category", "session", "call", "message"],
    );
    for f in list.iter().take(LONG_ROWS) {
        // The call's sequence number (`show --call N` takes it), its id when
        // there is none: a column of long ids would push the table off the screen.
        let call = match (&f.call_id, f.seq) {
            (_, Some(seq)) => seq.to_string(),
            (Some(id), None) => truncate(&one_line(id), 24),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td><span class=\"id\">{}</span></td><td>{}</td><td><span class=\"id\">{}</span></td><td><code class=\"id\">{}</code></td><td><code class=\"id\">{}</code></td><td class=\"prose\">{}</td></tr>",
            esc(f.severity.as_str()),
            esc(f.rule.as_str()),
            esc_cut(f.tool.as_deref().unwrap_or(""), 64),
            esc(f.category.as_deref().unwrap_or("")),
            esc_cut(&f.session, 48),
            escape(&call),
            esc_cut(&f.message, 300)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 7, list.len(), LONG_ROWS, "findings", " (listed by --format json)");
    h.push_str("</tfoot></table>\n</section>\n");
}
