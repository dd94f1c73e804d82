//! The sections on what failed: totals, tools, categories, cause classes,
//! reasons and errors per day.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::charts::{Bar, Segment, hbar_chart, vbar_chart};
use super::{
    Anchors, CHART_CATEGORIES, CHART_TOOLS, Day, LONG_ROWS, Page, TIME_BARS, TOP_TOOLS, colour, esc, esc_cut, more_row,
    num, pct, section_start, table_start,
};
use crate::render::{percent, plural};
use crate::report::{Report, ToolReport, rate};
use crate::rules::Category;
use crate::sanitize::{one_line, truncate};

pub(super) fn totals_section(report: &Report, h: &mut String) {
    let t = &report.totals;
    section_start(h, "totals-section", "Totals");
    table_start(
        h,
        ("totals-table", false),
        "All calls counted",
        &[
            "calls",
            "errors",
            "error rate",
            "flagged",
            "content",
            "hidden",
            "hidden share",
            "flag-only",
            "sessions",
            "unpaired calls",
            "orphan results",
        ],
    );
    let _ = writeln!(
        h,
        "<tr id=\"totals\">{}{}{}{}{}{}{}{}{}{}{}</tr>",
        num("calls", t.calls),
        num("errors", t.errors),
        pct("error_rate", rate(t.errors, t.calls), 2),
        num("flagged_errors", t.flagged_errors),
        num("content_errors", t.content_errors),
        num("hidden_errors", t.hidden_errors),
        pct("hidden_share", rate(t.hidden_errors, t.errors), 1),
        num("flag_only_errors", t.flag_only_errors),
        num("sessions", t.sessions),
        num("unpaired_calls", t.unpaired_calls),
        num("orphan_results", t.orphan_results),
    );
    h.push_str("</tbody></table>\n");
    if t.calls == 0 {
        let filters = if report.sources.is_empty() { "" } else { " (check the filters)" };
        let _ = writeln!(h, "<p>No tool calls found{filters}.</p>");
    }
    h.push_str("</section>\n");
}

pub(super) fn tools_section(report: &Report, tools: &[&ToolReport], h: &mut String) {
    section_start(h, "tools-section", "Hidden and flagged errors per tool");
    let failing: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors > 0).take(CHART_TOOLS).collect();
    if !failing.is_empty() {
        let bars: Vec<Bar> = failing
            .iter()
            .map(|t| Bar {
                label: t.tool.clone(),
                segments: vec![
                    Segment { class: "flag".into(), name: "flagged".into(), n: t.flagged_errors },
                    Segment { class: "hidden".into(), name: "hidden".into(), n: t.hidden_errors },
                ],
            })
            .collect();
        let summary: Vec<String> = failing
            .iter()
            .map(|t| {
                format!(
                    "{}: {} errors, {} flagged, {} hidden",
                    one_line(&t.tool),
                    t.errors,
                    t.flagged_errors,
                    t.hidden_errors
                )
            })
            .collect();
        let more =
            if tools.iter().filter(|t| t.errors > 0).count() > CHART_TOOLS { "; more tools in the table" } else { "" };
        let legend =
            [("flag", "flagged by the source"), ("hidden", "hidden (content says failure, flag says success)")];
        hbar_chart(
            h,
            "chart-tools",
            "Errors per tool: flagged and hidden",
            &format!("{}{more}.", summary.join("; ")),
            &bars,
            &legend,
        );
    }
    table_start(
        h,
        ("tools", true),
        "Per tool, most errors first",
        &["tool", "calls", "errors", "flagged", "content", "hidden", "error rate"],
    );
    // Tools with errors; those without fold into one line below.
    let (failing, clean): (Vec<&ToolReport>, Vec<&ToolReport>) = tools.iter().partition(|t| t.errors > 0);
    let tool_row = |h: &mut String, t: &ToolReport| {
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><th scope=\"row\">{}</th>{}</tr>",
            esc(&t.tool),
            esc_cut(&t.tool, 64),
            tool_cells(t)
        );
    };
    for t in failing.iter().take(TOP_TOOLS) {
        tool_row(h, t);
    }
    h.push_str("</tbody>\n<tfoot>\n");
    // The tools not shown, and all tools, as one row each.
    let counted = |calls, errors, flagged_errors, content_errors, hidden_errors| ToolReport {
        calls,
        errors,
        flagged_errors,
        content_errors,
        hidden_errors,
        error_rate: rate(errors, calls),
        ..ToolReport::default()
    };
    if failing.len() > TOP_TOOLS {
        let rest = &failing[TOP_TOOLS..];
        let sum = |f: fn(&ToolReport) -> u64| rest.iter().map(|t| f(t)).sum::<u64>();
        let more = counted(
            sum(|t| t.calls),
            sum(|t| t.errors),
            sum(|t| t.flagged_errors),
            sum(|t| t.content_errors),
            sum(|t| t.hidden_errors),
        );
        let _ = writeln!(
            h,
            "<tr class=\"more\" id=\"tools-more\"><th scope=\"row\">and {} more tools</th>{}</tr>",
            rest.len(),
            tool_cells(&more)
        );
    }
    if !clean.is_empty() {
        let calls = clean.iter().map(|t| t.calls).sum();
        let _ = writeln!(
            h,
            "<tr class=\"more\" id=\"tools-clean-row\"><th scope=\"row\">{} without errors</th>{}</tr>",
            plural(clean.len() as u64, "tool"),
            tool_cells(&counted(calls, 0, 0, 0, 0))
        );
    }
    let tot = &report.totals;
    let all = counted(tot.calls, tot.errors, tot.flagged_errors, tot.content_errors, tot.hidden_errors);
    let _ = writeln!(h, "<tr class=\"total\" id=\"tools-total\"><th scope=\"row\">total</th>{}</tr>", tool_cells(&all));
    h.push_str("</tfoot></table>\n");
    if !clean.is_empty() {
        let _ = writeln!(
            h,
            "<details id=\"tools-clean-list\"><summary>The {} without errors, by calls</summary>",
            plural(clean.len() as u64, "tool")
        );
        table_start(h, ("tools-clean", true), "Tools without errors", &["tool", "calls"]);
        for t in clean.iter().take(TOP_TOOLS) {
            let _ = writeln!(
                h,
                "<tr data-tool=\"{}\"><th scope=\"row\">{}</th>{}</tr>",
                esc(&t.tool),
                esc_cut(&t.tool, 64),
                num("calls", t.calls)
            );
        }
        h.push_str("</tbody>\n<tfoot>\n");
        more_row(h, 2, clean.len(), TOP_TOOLS, "tools", " without errors");
        h.push_str("</tfoot></table>\n</details>\n");
    }
    h.push_str("</section>\n");
}

/// The counts of a row of the tools table: calls, errors, flagged,
/// content, hidden, error rate.
fn tool_cells(t: &ToolReport) -> String {
    [
        num("calls", t.calls),
        num("errors", t.errors),
        num("flagged_errors", t.flagged_errors),
        num("content_errors", t.content_errors),
        num("hidden_errors", t.hidden_errors),
        pct("error_rate", t.error_rate, 2),
    ]
    .concat()
}

/// The counts of a row of the days table: calls, errors, flagged, hidden,
/// error rate.
fn day_cells(d: &Day) -> String {
    [
        num("calls", d.calls),
        num("errors", d.errors),
        num("flagged", d.flagged),
        num("hidden", d.hidden),
        pct("error_rate", rate(d.errors, d.calls), 2),
    ]
    .concat()
}

pub(super) fn categories_section(
    report: &Report,
    tools: &[&ToolReport],
    categories: &[(String, u64, u64, usize)],
    anchors: &Anchors,
    h: &mut String,
) {
    if report.totals.errors == 0 {
        return;
    }
    section_start(h, "categories-section", "Why calls failed: categories per tool");
    // The chart: one bar per tool, a segment per category.
    let failing: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors > 0).take(CHART_TOOLS).collect();
    let bars: Vec<Bar> = failing
        .iter()
        .map(|t| {
            let mut named: Vec<Segment> = Vec::new();
            let mut rest = 0;
            let mut cats: Vec<(&String, &u64)> = t.categories.iter().collect();
            cats.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (c, n) in cats {
                match colour(categories, c).as_str() {
                    "rest" => rest += n,
                    class => named.push(Segment { class: class.into(), name: c.clone(), n: *n }),
                }
            }
            if rest > 0 {
                named.push(Segment { class: "rest".into(), name: "other categories".into(), n: rest });
            }
            Bar { label: t.tool.clone(), segments: named }
        })
        .collect();
    let summary: Vec<String> = failing
        .iter()
        .map(|t| {
            let mut cats: Vec<(&String, &u64)> = t.categories.iter().collect();
            cats.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = cats.iter().take(4).map(|(c, n)| format!("{} {n}", one_line(c))).collect();
            let more = if cats.len() > 4 { ", …" } else { "" };
            format!("{}: {}{more}", one_line(&t.tool), list.join(", "))
        })
        .collect();
    let mut legend: Vec<(String, String)> =
        categories.iter().take(CHART_CATEGORIES).enumerate().map(|(i, c)| (format!("c{i}"), c.0.clone())).collect();
    if categories.len() > CHART_CATEGORIES {
        legend.push(("rest".into(), format!("{} other categories", categories.len() - CHART_CATEGORIES)));
    }
    let legend: Vec<(&str, &str)> = legend.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    hbar_chart(
        h,
        "chart-categories",
        "Errors per tool by category",
        &format!("{}.", summary.join("; ")),
        &bars,
        &legend,
    );

    // Every tool's categories (the top tools).
    table_start(
        h,
        ("categories", true),
        "Categories per tool (a category links to its example calls)",
        &["tool", "category", "errors", "hidden", "share of the tool's errors"],
    );
    let mut left = (0usize, 0u64);
    for t in tools.iter().filter(|t| t.errors > 0).take(TOP_TOOLS) {
        let mut cats: Vec<_> = report.categories.iter().filter(|c| c.tool == t.tool).collect();
        cats.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.category.cmp(&b.category)));
        for c in &cats[..cats.len().min(LONG_ROWS)] {
            let _ = writeln!(
                h,
                "<tr data-tool=\"{}\" data-category=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}{}{}</tr>",
                esc(&t.tool),
                esc(&c.category),
                esc_cut(&t.tool, 64),
                anchors.link(Some(&t.tool), &c.category),
                num("errors", c.errors),
                num("hidden_errors", c.hidden_errors),
                pct("share", rate(c.errors, t.errors), 1)
            );
        }
        if cats.len() > LONG_ROWS {
            left.0 += cats.len() - LONG_ROWS;
            left.1 += cats[LONG_ROWS..].iter().map(|c| c.errors).sum::<u64>();
        }
    }
    h.push_str("</tbody>\n<tfoot>\n");
    let failing_tools = tools.iter().filter(|t| t.errors > 0).count();
    if failing_tools > TOP_TOOLS {
        let rest = &tools.iter().filter(|t| t.errors > 0).collect::<Vec<_>>()[TOP_TOOLS..];
        let errors: u64 = rest.iter().map(|t| t.errors).sum();
        more_row(h, 5, failing_tools, TOP_TOOLS, "tools with errors", &format!(" ({})", plural(errors, "error")));
    }
    if left.0 > 0 {
        let _ = writeln!(
            h,
            "<tr class=\"more\"><td colspan=\"5\" data-k=\"more\">and {} more categories of the tools above ({})</td></tr>",
            left.0,
            plural(left.1, "error")
        );
    }
    h.push_str("</tfoot></table>\n");

    // All tools, by category, with the fix.
    table_start(
        h,
        ("all-categories", true),
        "All tools by category, with what to change",
        &["category", "errors", "hidden", "share", "tools", "fix"],
    );
    let errors = report.totals.errors;
    for (c, n, hidden, ntools) in categories.iter().take(LONG_ROWS) {
        let fix = Category::from_slug(c).map_or("", Category::fix);
        let _ = writeln!(
            h,
            "<tr data-category=\"{}\"><th scope=\"row\">{}</th>{}{}{}{}<td class=\"prose\">{}</td></tr>",
            esc(c),
            anchors.link(None, c),
            num("errors", *n),
            num("hidden_errors", *hidden),
            pct("share", rate(*n, errors), 1),
            num("tools", *ntools as u64),
            esc(fix)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if categories.len() > LONG_ROWS {
        let rest: u64 = categories[LONG_ROWS..].iter().map(|c| c.1).sum();
        more_row(h, 6, categories.len(), LONG_ROWS, "categories", &format!(" ({})", plural(rest, "error")));
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

/// Each tool with errors and its errors per cause class, largest first
/// (ties in the class table's order), the tools in table order.
pub(super) fn tool_classes<'a>(tools: &[&'a ToolReport]) -> Vec<(&'a str, Vec<(&'static str, u64)>)> {
    use crate::rules::category::CauseClass;
    tools
        .iter()
        .filter(|t| t.errors > 0)
        .map(|t| {
            let mut v: Vec<(&'static str, u64)> = CauseClass::all()
                .filter_map(|c| t.classes.get(c.as_str()).map(|&n| (c.as_str(), n)))
                .filter(|(_, n)| *n > 0)
                .collect();
            v.sort_by_key(|c| std::cmp::Reverse(c.1));
            (t.tool.as_str(), v)
        })
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// Cause classes per tool (issue 24, item 4): the share of each class of
/// the tool's errors, as a chart and a table. `tools` holds, per tool, its
/// errors per class; an empty list (a report without classes) writes
/// nothing.
pub(super) fn classes_section(tools: &[(&str, Vec<(&str, u64)>)], h: &mut String) {
    if tools.is_empty() {
        return;
    }
    let mut order: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, classes) in tools {
        for (c, n) in classes {
            *order.entry(c).or_default() += n;
        }
    }
    let mut order: Vec<(&str, u64)> = order.into_iter().collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let class_of = |c: &str| match order.iter().take(CHART_CATEGORIES).position(|o| o.0 == c) {
        Some(i) => format!("c{i}"),
        None => "rest".to_string(),
    };
    section_start(h, "classes-section", "Cause classes per tool");
    let bars: Vec<Bar> = tools
        .iter()
        .take(CHART_TOOLS)
        .map(|(tool, classes)| Bar {
            label: tool.to_string(),
            segments: classes.iter().map(|(c, n)| Segment { class: class_of(c), name: c.to_string(), n: *n }).collect(),
        })
        .collect();
    let summary: Vec<String> = tools
        .iter()
        .take(CHART_TOOLS)
        .map(|(tool, classes)| {
            let list: Vec<String> = classes.iter().map(|(c, n)| format!("{} {n}", one_line(c))).collect();
            format!("{}: {}", one_line(tool), list.join(", "))
        })
        .collect();
    let legend: Vec<(String, String)> = order.iter().map(|(c, _)| (class_of(c), c.to_string())).collect();
    let legend: Vec<(&str, &str)> = legend.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    hbar_chart(
        h,
        "chart-classes",
        "Errors per tool by cause class",
        &format!("{}.", summary.join("; ")),
        &bars,
        &legend,
    );
    table_start(h, ("classes", true), "Cause classes per tool", &["tool", "class", "errors", "share"]);
    for (tool, classes) in tools.iter().take(TOP_TOOLS) {
        let all: u64 = classes.iter().map(|c| c.1).sum();
        for (c, n) in classes {
            let _ = writeln!(
                h,
                "<tr data-tool=\"{}\" data-class=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}{}</tr>",
                esc(tool),
                esc(c),
                esc_cut(tool, 64),
                esc(c),
                num("errors", *n),
                pct("share", rate(*n, all), 1)
            );
        }
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 4, tools.len(), TOP_TOOLS, "tools", "");
    h.push_str("</tfoot></table>\n</section>\n");
}

pub(super) fn reasons_section(report: &Report, tools: &[&ToolReport], anchors: &Anchors, h: &mut String) {
    if report.totals.errors == 0 {
        return;
    }
    section_start(h, "reasons-section", "Reasons per tool");
    let failing: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors > 0).collect();
    for (i, t) in failing.iter().take(TOP_TOOLS).enumerate() {
        let _ = writeln!(
            h,
            "<h3 id=\"why-{i}\">{}: {} in {} ({}), {} hidden</h3>",
            esc_cut(&t.tool, 64),
            plural(t.errors, "error"),
            plural(t.calls, "call"),
            percent(t.error_rate, 2),
            t.hidden_errors
        );
        if let Some(line) = report.headlines.iter().find(|l| l.tool == t.tool) {
            let _ = writeln!(h, "<p class=\"headline\">{}</p>", esc(&line.sentence));
        }
        let rows: Vec<_> = report.reasons.iter().filter(|r| r.tool == t.tool).collect();
        let id = format!("reasons-{i}");
        let caption = format!("Why {} calls failed", truncate(&one_line(&t.tool), 64));
        table_start(h, (&id, true), &caption, &["category", "reason", "count", "share", "hidden"]);
        for r in rows.iter().take(LONG_ROWS) {
            let _ = writeln!(
                h,
                "<tr data-tool=\"{}\" data-category=\"{}\"><td>{}</td><td>{}</td>{}{}{}</tr>",
                esc(&t.tool),
                esc(&r.category),
                anchors.link(Some(&t.tool), &r.category),
                esc_cut(&r.label, 160),
                num("errors", r.errors),
                pct("share", rate(r.errors, t.errors), 1),
                num("hidden_errors", r.hidden_errors)
            );
        }
        h.push_str("</tbody>\n<tfoot>\n");
        if rows.len() > LONG_ROWS {
            let rest: u64 = rows[LONG_ROWS..].iter().map(|r| r.errors).sum();
            more_row(h, 5, rows.len(), LONG_ROWS, "reasons", &format!(" ({})", plural(rest, "error")));
        }
        h.push_str("</tfoot></table>\n");
    }
    if failing.len() > TOP_TOOLS {
        let _ = writeln!(h, "<p class=\"more\">and {} more tools with errors.</p>", failing.len() - TOP_TOOLS);
    }
    h.push_str("</section>\n");
}

/// Days, or weeks or months when there are more than `TIME_BARS` days:
/// (label, counts), oldest first, and the unit's name.
pub(super) fn time_buckets(days: &BTreeMap<String, Day>) -> (Vec<(String, Day)>, &'static str) {
    let parse = |d: &str| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok();
    let span = match (days.keys().next().and_then(|d| parse(d)), days.keys().last().and_then(|d| parse(d))) {
        (Some(a), Some(b)) => (b - a).num_days() + 1,
        _ => 0,
    };
    let (unit, key): (&str, fn(chrono::NaiveDate) -> String) = if span <= TIME_BARS as i64 {
        ("day", |d| d.format("%Y-%m-%d").to_string())
    } else if span <= 7 * TIME_BARS as i64 {
        ("week", |d| {
            use chrono::Datelike;
            // The first days chrono knows have no Monday before them: their own date.
            let back = chrono::Days::new(u64::from(d.weekday().num_days_from_monday()));
            let monday = d.checked_sub_days(back).unwrap_or(d);
            format!("week of {}", monday.format("%Y-%m-%d"))
        })
    } else {
        ("month", |d| d.format("%Y-%m").to_string())
    };
    let mut out: BTreeMap<String, Day> = BTreeMap::new();
    for (d, n) in days {
        let k = parse(d).map_or_else(|| one_line(d), key);
        out.entry(k).or_default().add(n);
    }
    (out.into_iter().collect(), unit)
}

pub(super) fn days_section(page: &Page, h: &mut String) {
    section_start(h, "days-section", "Errors per day");
    if page.days.is_empty() {
        h.push_str("<p>No call in this report has a time.</p>\n</section>\n");
        return;
    }
    let (buckets, unit) = time_buckets(&page.days);
    // At most TIME_BARS bars: the latest; earlier ones are counted.
    let cut = buckets.len().saturating_sub(TIME_BARS);
    let (earlier, shown) = buckets.split_at(cut);
    let bars: Vec<Bar> = shown
        .iter()
        .map(|(label, d)| Bar {
            label: label.clone(),
            segments: vec![
                Segment { class: "flag".into(), name: "flagged".into(), n: d.flagged },
                Segment { class: "hidden".into(), name: "hidden".into(), n: d.hidden },
            ],
        })
        .collect();
    let errors: u64 = shown.iter().map(|b| b.1.errors).sum();
    let hidden: u64 = shown.iter().map(|b| b.1.hidden).sum();
    let worst = shown.iter().max_by(|a, b| a.1.errors.cmp(&b.1.errors).then(b.0.cmp(&a.0)));
    let desc = format!(
        "{} errors ({} hidden) over {} {unit}s from {} to {}{}.",
        errors,
        hidden,
        shown.len(),
        shown.first().map_or("", |b| b.0.as_str()),
        shown.last().map_or("", |b| b.0.as_str()),
        worst.map_or(String::new(), |w| format!("; most in {}: {} errors, {} hidden", w.0, w.1.errors, w.1.hidden))
    );
    let legend = [("flag", "flagged"), ("hidden", "hidden")];
    vbar_chart(h, "chart-days", &format!("Errors per {unit}: flagged and hidden"), &desc, &bars, &legend);
    table_start(
        h,
        ("days", true),
        &format!("Calls and errors per {unit} (UTC)"),
        &[unit, "calls", "errors", "flagged", "hidden", "error rate"],
    );
    for (label, d) in shown.iter().rev() {
        let _ =
            writeln!(h, "<tr data-day=\"{}\"><th scope=\"row\">{}</th>{}</tr>", esc(label), esc(label), day_cells(d));
    }
    h.push_str("</tbody>\n<tfoot>\n");
    let mut rest = Day::default();
    for (_, d) in earlier {
        rest.add(d);
    }
    if !earlier.is_empty() {
        let label = format!("and {} earlier {unit}s", earlier.len());
        let _ = writeln!(h, "<tr class=\"more\"><th scope=\"row\">{label}</th>{}</tr>", day_cells(&rest));
    }
    let u = &page.undated;
    if u.calls > 0 {
        let _ = writeln!(h, "<tr class=\"more\"><th scope=\"row\">no time recorded</th>{}</tr>", day_cells(u));
    }
    h.push_str("</tfoot></table>\n</section>\n");
}
