//! `--format html`: the postmortem as one self-contained page. The same
//! sections as the table report, charts drawn as inline SVG here, sortable
//! tables (a small inline script; every number is readable without it) and
//! the example calls of every category embedded, so the page is the
//! drill-down too.
//!
//! The page works offline and fetches nothing: CSS and script are inline,
//! there is no URL in any `src`, `href` or `url()`, and a Content Security
//! Policy forbids every fetch anyway. Every text it writes is sanitized to
//! one line (or to a bounded block) and HTML-escaped. Its size is bounded
//! whatever the store: top-N rows per section, the rest counted.
//!
//! What the `Report` does not carry (errors per day, the example calls) the
//! caller collects in the same walk and hands in as a `Page`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

use super::{percent, plural};
use crate::error::Result;
use crate::report::{Report, ToolReport, rate};
use crate::rules::Category;
use crate::sanitize::{one_line, truncate};

/// Calls of one day (or of one bucket of days).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Day {
    pub calls: u64,
    pub errors: u64,
    pub flagged: u64,
    pub hidden: u64,
}

impl Day {
    fn add(&mut self, o: &Day) {
        self.calls += o.calls;
        self.errors += o.errors;
        self.flagged += o.flagged;
        self.hidden += o.hidden;
    }
}

/// One example call of a category, its text already redacted and cut.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Example {
    pub source: String,
    pub session: String,
    pub seq: usize,
    pub call_id: String,
    pub tool: String,
    /// "HIDDEN ERROR · stale-edit-match (flag: success; content: error-prefix)".
    pub verdict: String,
    /// The classification rule's label and id.
    pub reason: String,
    /// The arguments as JSON, on one line.
    pub arguments: String,
    /// The result text, `None` when no result came back.
    pub result: Option<String>,
}

/// What the page shows beyond the `Report`, collected from the judged
/// calls that the report counts (the same filters).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// Per UTC day, "YYYY-MM-DD".
    pub days: BTreeMap<String, Day>,
    /// Calls without a time.
    pub undated: Day,
    /// The first example calls of each (tool, category), in reading order.
    pub examples: BTreeMap<(String, String), Vec<Example>>,
    /// False when the collector stopped keeping examples for new
    /// (tool, category) pairs (a store with very many tools).
    pub examples_complete: bool,
}

/// Tools shown in the tables (by errors); the rest are counted.
pub const TOP_TOOLS: usize = 25;
/// Tools in a bar chart.
const CHART_TOOLS: usize = 12;
/// Categories coloured in a chart; the rest are one grey segment.
const CHART_CATEGORIES: usize = 8;
/// Rows of a long table (categories and reasons of a tool, recovery, findings).
const LONG_ROWS: usize = 30;
/// Rows of the other tables (repairs, feedback, drift).
const SECTION_ROWS: usize = 15;
/// Example calls shown per (tool, category).
pub const EXAMPLES_SHOWN: usize = 5;
/// (tool, category) pairs whose examples are embedded, most errors first.
const DRILL_PAIRS: usize = 60;
/// Bars of the errors-per-day chart: days are grouped into weeks or
/// months when there are more.
const TIME_BARS: usize = 120;

/// Text as HTML: one line, control and invisible characters removed,
/// `& < > " '` escaped (safe in text and in quoted attributes).
pub fn esc(s: &str) -> String {
    escape(&one_line(s))
}

/// `esc`, at most `max` characters.
fn esc_cut(s: &str, max: usize) -> String {
    escape(&truncate(&one_line(s), max))
}

/// HTML-escape text that is already sanitized (it may hold line breaks).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `escape` for a block of lines, and a colon that starts a line written
/// as `&#58;`: a page printed to a CI log must not hold a line a runner
/// reads as a workflow command (`::error::…`).
fn escape_lines(s: &str) -> String {
    let lines: Vec<String> = s
        .split('\n')
        .map(|l| match l.strip_prefix(':') {
            Some(rest) => format!("&#58;{}", escape(rest)),
            None => escape(l),
        })
        .collect();
    lines.join("\n")
}

/// Tools most errors first, then most calls, then by name (as the table).
fn sorted_tools(report: &Report) -> Vec<&ToolReport> {
    let mut tools: Vec<_> = report.tools.iter().collect();
    tools.sort_by(|a, b| b.errors.cmp(&a.errors).then(b.calls.cmp(&a.calls)).then(a.tool.cmp(&b.tool)));
    tools
}

/// Every category of the report with its errors and hidden errors, most
/// errors first.
fn sorted_categories(report: &Report) -> Vec<(String, u64, u64, usize)> {
    let mut by: BTreeMap<&str, (u64, u64, usize)> = BTreeMap::new();
    for c in &report.categories {
        let e = by.entry(c.category.as_str()).or_default();
        e.0 += c.errors;
        e.1 += c.hidden_errors;
        e.2 += 1;
    }
    let mut v: Vec<(String, u64, u64, usize)> = by.into_iter().map(|(k, (e, h, t))| (k.to_string(), e, h, t)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// The anchors of the page: tools and categories by their index, never by
/// their (untrusted) names.
struct Anchors {
    tools: BTreeMap<String, usize>,
    categories: BTreeMap<String, usize>,
}

impl Anchors {
    fn new(tools: &[&ToolReport], categories: &[(String, u64, u64, usize)]) -> Anchors {
        Anchors {
            tools: tools.iter().take(TOP_TOOLS).enumerate().map(|(i, t)| (t.tool.clone(), i)).collect(),
            // The categories the drill-down has a section for.
            categories: categories.iter().take(LONG_ROWS).enumerate().map(|(i, c)| (c.0.clone(), i)).collect(),
        }
    }

    /// `cat-3`: the drill-down of a category, all tools.
    fn category(&self, category: &str) -> Option<String> {
        self.categories.get(category).map(|i| format!("cat-{i}"))
    }

    /// `ex-2-3`: the example calls of one tool's category.
    fn pair(&self, tool: &str, category: &str) -> Option<String> {
        Some(format!("ex-{}-{}", self.tools.get(tool)?, self.categories.get(category)?))
    }

    /// The category as a link to its examples (of `tool`, or of all tools).
    fn link(&self, tool: Option<&str>, category: &str) -> String {
        let anchor = match tool {
            Some(t) => self.pair(t, category),
            None => self.category(category),
        };
        match anchor {
            Some(a) => format!("<a href=\"#{a}\">{}</a>", esc(category)),
            None => esc(category),
        }
    }
}

/// The colour class of a category in the charts: the first
/// `CHART_CATEGORIES` by errors have their own, the rest share one.
fn colour(categories: &[(String, u64, u64, usize)], category: &str) -> String {
    match categories.iter().take(CHART_CATEGORIES).position(|c| c.0 == category) {
        Some(i) => format!("c{i}"),
        None => "rest".into(),
    }
}

pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let (report, outcome) = (view.report, view.verdict);
    let empty = Page::default();
    let page = view.page.unwrap_or(&empty);
    let mut h = String::with_capacity(256 * 1024);
    let tools = sorted_tools(report);
    let categories = sorted_categories(report);
    let anchors = Anchors::new(&tools, &categories);
    head(&mut h);
    let t = &report.totals;
    h.push_str("<header>\n<h1>tracelint postmortem</h1>\n");
    sources(report, &mut h);
    let (line, bad) = super::verdict_line(report);
    let _ = writeln!(h, "<p class=\"verdict {}\" id=\"verdict\">{}</p>", if bad { "bad" } else { "good" }, esc(&line));
    if let Some((v, g)) = outcome {
        let class = if v.passed() { "good" } else { "bad" };
        let _ = writeln!(h, "<p class=\"verdict {class}\" id=\"gate\">{}</p>", esc(&v.sentence(report, g)));
    }
    h.push_str("</header>\n");
    nav(report, &mut h);
    h.push_str("<main>\n");
    totals_section(report, &mut h);
    if t.calls > 0 {
        tools_section(report, &tools, &mut h);
        categories_section(report, &tools, &categories, &anchors, &mut h);
        classes_section(&tool_classes(&tools), &mut h);
        reasons_section(report, &tools, &anchors, &mut h);
        days_section(page, &mut h);
        recovery_section(report, &tools, &anchors, &mut h);
        cost_section(report, &anchors, &mut h);
        streaks_section(report, &mut h);
        repairs_section(report, &mut h);
        feedback_section(report, &mut h);
        schema_section(report, &mut h);
        findings_section(report, &mut h);
        drill_section(report, page, &tools, &categories, &anchors, &mut h);
    }
    h.push_str("</main>\n");
    let _ = writeln!(h, "<footer><p>Generated by tracelint {}.</p></footer>", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(h, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out.write_all(h.as_bytes())?;
    Ok(())
}

fn head(h: &mut String) {
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // No fetch of any kind: styles and the script are inline, images none.
    h.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n",
    );
    h.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    h.push_str("<title>tracelint postmortem</title>\n");
    let _ = writeln!(h, "<style>{CSS}</style>\n</head>\n<body>");
}

fn sources(report: &Report, h: &mut String) {
    if report.sources.is_empty() {
        h.push_str("<p>Sources: none.</p>\n");
        return;
    }
    h.push_str("<ul class=\"sources\">\n");
    for s in report.sources.iter().take(TOP_TOOLS) {
        let coverage = s.coverage_note().map(|n| format!("; {}", esc(&n))).unwrap_or_default();
        let _ = writeln!(
            h,
            "<li><code>{}</code>: {} trace, {}, {}{coverage}</li>",
            esc_cut(&s.path, 200),
            esc_cut(&s.format, 48),
            plural(s.sessions, "session"),
            plural(s.calls, "call")
        );
    }
    more_item(report.sources.len(), TOP_TOOLS, "sources", h);
    h.push_str("</ul>\n");
}

fn more_item(len: usize, shown: usize, what: &str, h: &mut String) {
    if len > shown {
        let _ = writeln!(h, "<li class=\"more\">and {} more {what}</li>", len - shown);
    }
}

fn nav(report: &Report, h: &mut String) {
    h.push_str("<nav aria-label=\"sections\"><ul>\n<li><a href=\"#totals-section\">totals</a></li>\n");
    if report.totals.calls > 0 {
        for (id, name) in [
            ("tools-section", "tools"),
            ("categories-section", "categories"),
            ("classes-section", "cause classes"),
            ("reasons-section", "reasons"),
            ("days-section", "per day"),
            ("recovery-section", "recovery"),
            ("streaks-section", "streaks"),
            ("repairs-section", "repairs"),
            ("feedback-section", "feedback"),
            ("schema-section", "schema"),
            ("findings-section", "findings"),
            ("examples-section", "example calls"),
        ] {
            let _ = writeln!(h, "<li><a href=\"#{id}\">{name}</a></li>");
        }
    }
    h.push_str("</ul></nav>\n");
}

/// A table cell holding a count, named for tests and scripts (`data-k`).
fn num(k: &str, n: u64) -> String {
    format!("<td data-k=\"{k}\">{n}</td>")
}

/// A cell holding a fraction shown as a percentage; it sorts by the fraction.
fn pct(k: &str, x: f64, decimals: usize) -> String {
    format!("<td data-k=\"{k}\" data-v=\"{x}\">{}</td>", percent(x, decimals))
}

/// `<table>` with its caption and column headers, and an `id` (for tests
/// and links). A sortable table can be sorted on load by the address:
/// `#sort=ID:COLUMN:asc|desc`.
fn table_start(h: &mut String, (id, sortable): (&str, bool), caption: &str, columns: &[&str]) {
    let class = if sortable { " class=\"sortable\"" } else { "" };
    let _ = writeln!(h, "<table{class} id=\"{id}\">");
    let _ = writeln!(h, "<caption>{}</caption>\n<thead><tr>", esc(caption));
    for c in columns {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
}

/// "and K more …" as a last row that sorting leaves in place.
fn more_row(h: &mut String, columns: usize, len: usize, shown: usize, what: &str, counted: &str) {
    if len > shown {
        let _ = writeln!(
            h,
            "<tr class=\"more\"><td colspan=\"{columns}\" data-k=\"more\">and {} more {what}{counted}</td></tr>",
            len - shown
        );
    }
}

fn section_start(h: &mut String, id: &str, title: &str) {
    let _ = writeln!(h, "<section id=\"{id}\">\n<h2>{}</h2>", esc(title));
}

fn totals_section(report: &Report, h: &mut String) {
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

fn tools_section(report: &Report, tools: &[&ToolReport], h: &mut String) {
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
    for t in tools.iter().take(TOP_TOOLS) {
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><th scope=\"row\">{}</th>{}{}{}{}{}{}</tr>",
            esc(&t.tool),
            esc_cut(&t.tool, 64),
            num("calls", t.calls),
            num("errors", t.errors),
            num("flagged_errors", t.flagged_errors),
            num("content_errors", t.content_errors),
            num("hidden_errors", t.hidden_errors),
            pct("error_rate", t.error_rate, 2)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if tools.len() > TOP_TOOLS {
        let rest = &tools[TOP_TOOLS..];
        let sum = |f: fn(&ToolReport) -> u64| rest.iter().map(|t| f(t)).sum::<u64>();
        let (calls, errors) = (sum(|t| t.calls), sum(|t| t.errors));
        let _ = writeln!(
            h,
            "<tr class=\"more\" id=\"tools-more\"><th scope=\"row\">and {} more tools</th>{}{}{}{}{}{}</tr>",
            rest.len(),
            num("calls", calls),
            num("errors", errors),
            num("flagged_errors", sum(|t| t.flagged_errors)),
            num("content_errors", sum(|t| t.content_errors)),
            num("hidden_errors", sum(|t| t.hidden_errors)),
            pct("error_rate", rate(errors, calls), 2)
        );
    }
    let tot = &report.totals;
    let _ = writeln!(
        h,
        "<tr class=\"total\" id=\"tools-total\"><th scope=\"row\">total</th>{}{}{}{}{}{}</tr>",
        num("calls", tot.calls),
        num("errors", tot.errors),
        num("flagged_errors", tot.flagged_errors),
        num("content_errors", tot.content_errors),
        num("hidden_errors", tot.hidden_errors),
        pct("error_rate", rate(tot.errors, tot.calls), 2)
    );
    h.push_str("</tfoot></table>\n</section>\n");
}

fn categories_section(
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
fn tool_classes<'a>(tools: &[&'a ToolReport]) -> Vec<(&'a str, Vec<(&'static str, u64)>)> {
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
fn classes_section(tools: &[(&str, Vec<(&str, u64)>)], h: &mut String) {
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

fn reasons_section(report: &Report, tools: &[&ToolReport], anchors: &Anchors, h: &mut String) {
    if report.totals.errors == 0 {
        return;
    }
    section_start(h, "reasons-section", "Reasons per tool");
    let failing: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors > 0).collect();
    for (i, t) in failing.iter().take(TOP_TOOLS).enumerate() {
        let _ = writeln!(
            h,
            "<h3>{}: {} in {} ({}), {} hidden</h3>",
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
fn time_buckets(days: &BTreeMap<String, Day>) -> (Vec<(String, Day)>, &'static str) {
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

fn days_section(page: &Page, h: &mut String) {
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
        let _ = writeln!(
            h,
            "<tr data-day=\"{}\"><th scope=\"row\">{}</th>{}{}{}{}{}</tr>",
            esc(label),
            esc(label),
            num("calls", d.calls),
            num("errors", d.errors),
            num("flagged", d.flagged),
            num("hidden", d.hidden),
            pct("error_rate", rate(d.errors, d.calls), 2)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    let mut rest = Day::default();
    for (_, d) in earlier {
        rest.add(d);
    }
    if !earlier.is_empty() {
        let _ = writeln!(
            h,
            "<tr class=\"more\"><th scope=\"row\">and {} earlier {unit}s</th>{}{}{}{}{}</tr>",
            earlier.len(),
            num("calls", rest.calls),
            num("errors", rest.errors),
            num("flagged", rest.flagged),
            num("hidden", rest.hidden),
            pct("error_rate", rate(rest.errors, rest.calls), 2)
        );
    }
    let u = &page.undated;
    if u.calls > 0 {
        let _ = writeln!(
            h,
            "<tr class=\"more\"><th scope=\"row\">no time recorded</th>{}{}{}{}{}</tr>",
            num("calls", u.calls),
            num("errors", u.errors),
            num("flagged", u.flagged),
            num("hidden", u.hidden),
            pct("error_rate", rate(u.errors, u.calls), 2)
        );
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

fn recovery_section(report: &Report, tools: &[&ToolReport], anchors: &Anchors, h: &mut String) {
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
        let median = match r.median_attempts {
            Some(m) => format!("<td data-k=\"median\" data-v=\"{m}\">{m}</td>"),
            None => "<td data-k=\"median\" data-v=\"-1\">-</td>".to_string(),
        };
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\" data-category=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}{}{}{}{}{median}{}{}{}</tr>",
            esc(&r.tool),
            esc(&r.category),
            esc_cut(&r.tool, 64),
            anchors.link(Some(&r.tool), &r.category),
            num("failures", r.failures),
            num("recovered", r.recovered),
            num("recovered_at_1", r.recovered_at_1),
            num("recovered_at_2", r.recovered_at_2),
            num("recovered_at_3", r.recovered_at_3),
            num("identical_retries", r.identical_retries),
            num("identical_retry_successes", r.identical_retry_successes),
            num("abandoned", r.abandoned)
        );
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
fn cost_section(report: &Report, anchors: &Anchors, h: &mut String) {
    let rows = super::cost_rows(report);
    if rows.is_empty() {
        return;
    }
    section_start(h, "cost-section", "Cost: calls and time from each failure to the tool's next success");
    let _ = writeln!(
        h,
        "<p>Estimates: retries count the calls of the tool after a failure up to its next success (every later call when none came); time runs from the failed call to that success, or to the session's last recorded time.</p>"
    );
    table_start(
        h,
        ("cost", true),
        "Cost per tool and category",
        &["tool", "category", "failures", "retries", "time lost", "per failure", "untimed"],
    );
    for r in rows.iter().take(LONG_ROWS) {
        let per = r.lost_ms.checked_div(r.timed);
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\" data-category=\"{}\"><th scope=\"row\">{}</th><td>{}</td>{}{}<td data-k=\"lost_ms\" data-v=\"{}\">{}</td><td data-k=\"per_failure_ms\" data-v=\"{}\">{}</td>{}</tr>",
            esc(&r.tool),
            esc(&r.category),
            esc_cut(&r.tool, 64),
            anchors.link(Some(&r.tool), &r.category),
            num("failures", r.failures),
            num("retries", r.retries),
            r.lost_ms,
            esc(&super::duration(r.lost_ms)),
            per.map_or(-1i64, |p| i64::try_from(p).unwrap_or(i64::MAX)),
            esc(&super::per_failure(r)),
            num("untimed", r.failures - r.timed.min(r.failures)),
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    if rows.len() > LONG_ROWS {
        let rest: u64 = rows[LONG_ROWS..].iter().map(|r| r.failures).sum();
        more_row(h, 7, rows.len(), LONG_ROWS, "rows", &format!(" ({})", plural(rest, "failure")));
    }
    h.push_str("</tfoot></table>\n</section>\n");
}

fn streaks_section(report: &Report, h: &mut String) {
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
        let lengths: Vec<String> = r.histogram.iter().map(|(k, v)| format!("{}:{v}", one_line(k))).collect();
        let _ = writeln!(
            h,
            "<tr data-tool=\"{}\"><th scope=\"row\">{}</th>{}{}{}{}<td>{}</td>{}{}</tr>",
            esc(&r.tool),
            esc_cut(&r.tool, 64),
            num("streaks", r.streaks),
            num("longest", r.longest),
            num("p50", r.p50),
            num("p95", r.p95),
            esc_cut(&lengths.join(" "), 120),
            num("at_or_above_threshold", r.at_or_above_threshold),
            num("hidden_at_or_above_threshold", r.hidden_at_or_above_threshold)
        );
    }
    h.push_str("</tbody>\n<tfoot>\n");
    more_row(h, 8, st.by_tool.len(), TOP_TOOLS, "tools", "");
    h.push_str("</tfoot></table>\n</section>\n");
}

fn repairs_section(report: &Report, h: &mut String) {
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

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn feedback_section(report: &Report, h: &mut String) {
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

fn schema_section(report: &Report, h: &mut String) {
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

fn findings_section(report: &Report, h: &mut String) {
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
        let call = match (&f.call_id, f.seq) {
            (Some(id), Some(seq)) => format!("{} ({seq})", truncate(&one_line(id), 40)),
            (Some(id), None) => truncate(&one_line(id), 40),
            (None, Some(seq)) => seq.to_string(),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td class=\"prose\">{}</td></tr>",
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

/// The example calls: per category (most errors first), per tool, the
/// first `EXAMPLES_SHOWN`, with "N of M shown".
fn drill_section(
    report: &Report,
    page: &Page,
    tools: &[&ToolReport],
    categories: &[(String, u64, u64, usize)],
    anchors: &Anchors,
    h: &mut String,
) {
    if report.totals.errors == 0 {
        return;
    }
    section_start(h, "examples-section", "Example calls");
    h.push_str(
        "<p>The first failed calls of each category and tool, as <code>tracelint examples</code> shows them: secrets redacted, long text cut.</p>\n",
    );
    // The pairs whose examples are embedded: most errors first.
    let top: std::collections::BTreeSet<&str> = tools.iter().take(TOP_TOOLS).map(|t| t.tool.as_str()).collect();
    let mut pairs: Vec<_> = report.categories.iter().filter(|c| top.contains(c.tool.as_str())).collect();
    pairs.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.tool.cmp(&b.tool)).then(a.category.cmp(&b.category)));
    let embedded: std::collections::BTreeSet<(&str, &str)> =
        pairs.iter().take(DRILL_PAIRS).map(|c| (c.tool.as_str(), c.category.as_str())).collect();
    for (c, n, _, _) in categories.iter().take(LONG_ROWS) {
        let Some(id) = anchors.category(c) else { continue };
        let _ = writeln!(h, "<section class=\"category\" id=\"{id}\">\n<h3>{} ({})</h3>", esc(c), plural(*n, "error"));
        let mut rows: Vec<_> = report.categories.iter().filter(|r| r.category == *c).collect();
        rows.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.tool.cmp(&b.tool)));
        let outside: Vec<_> = rows.iter().filter(|r| !top.contains(r.tool.as_str())).collect();
        for r in rows.iter().filter(|r| top.contains(r.tool.as_str())) {
            let Some(pair) = anchors.pair(&r.tool, c) else { continue };
            let examples = page.examples.get(&(r.tool.clone(), c.clone())).map_or(&[][..], Vec::as_slice);
            let shown =
                if embedded.contains(&(r.tool.as_str(), c.as_str())) { examples.len().min(EXAMPLES_SHOWN) } else { 0 };
            let _ = writeln!(
                h,
                "<div class=\"pair\" id=\"{pair}\" data-tool=\"{}\" data-category=\"{}\">\n<h4>{} · {}: <span data-k=\"shown\">{shown}</span> of <span data-k=\"errors\">{}</span> shown</h4>",
                esc(&r.tool),
                esc(c),
                esc_cut(&r.tool, 64),
                esc(c),
                r.errors
            );
            for (i, e) in examples.iter().take(shown).enumerate() {
                example(h, i + 1, e);
            }
            if shown < r.errors as usize {
                let why = if shown == 0 && !embedded.contains(&(r.tool.as_str(), c.as_str())) {
                    format!("only the {DRILL_PAIRS} largest tool and category pairs are embedded; ")
                } else if examples.is_empty() && !page.examples_complete {
                    "examples were kept for the first tool and category pairs only; ".into()
                } else {
                    String::new()
                };
                let _ = writeln!(
                    h,
                    "<p class=\"muted\">{why}all of them: <code>tracelint examples --category {} --tool {} --limit {}</code></p>",
                    esc(c),
                    esc_cut(&shell_word(&r.tool), 80),
                    r.errors
                );
            }
            h.push_str("</div>\n");
        }
        if !outside.is_empty() {
            let n: u64 = outside.iter().map(|r| r.errors).sum();
            let _ = writeln!(
                h,
                "<p class=\"more\">and {} more tools ({}) outside the {TOP_TOOLS} shown.</p>",
                outside.len(),
                plural(n, "error")
            );
        }
        h.push_str("</section>\n");
    }
    h.push_str("</section>\n");
}

/// A tool name as one shell word (quoted when it needs to be).
fn shell_word(s: &str) -> String {
    let s = one_line(s);
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@".contains(c)) {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn example(h: &mut String, n: usize, e: &Example) {
    let _ = writeln!(
        h,
        "<article class=\"ex\"><p class=\"where\">[{n}] <code>{}</code> · session <code>{}</code> · call {} (<code>{}</code>) · {}</p>",
        esc_cut(&e.source, 120),
        esc_cut(&e.session, 80),
        e.seq,
        esc_cut(&e.call_id, 60),
        esc_cut(&e.tool, 60)
    );
    let _ = writeln!(h, "<p>verdict: {}</p>\n<p>reason: {}</p>", esc(&e.verdict), esc(&e.reason));
    let _ = writeln!(h, "<p>arguments:</p><pre>{}</pre>", esc(&e.arguments));
    match &e.result {
        Some(r) => {
            let _ = writeln!(h, "<p>result:</p><pre>{}</pre>", escape_lines(r.trim_end()));
        }
        None => h.push_str("<p>result: (none)</p>\n"),
    }
    h.push_str("</article>\n");
}

/// One bar of a chart: a label and its stacked segments.
struct Bar {
    label: String,
    segments: Vec<Segment>,
}

struct Segment {
    /// The CSS class that colours it (`flag`, `hidden`, `c0`…, `rest`).
    class: String,
    name: String,
    n: u64,
}

fn legend(h: &mut String, items: &[(&str, &str)]) {
    h.push_str("<ul class=\"legend\" aria-hidden=\"true\">");
    for (class, name) in items {
        let _ = write!(
            h,
            "<li><svg width=\"12\" height=\"12\"><rect class=\"{class}\" width=\"12\" height=\"12\"/></svg> {}</li>",
            esc_cut(name, 80)
        );
    }
    h.push_str("</ul>\n");
}

/// The opening of a chart: an image for assistive technology, titled and
/// described by the numbers it draws.
fn svg_start(h: &mut String, id: &str, width: u32, height: u32, title: &str, desc: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"chart\"><svg id=\"{id}\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        esc(title),
        esc_cut(desc, 2000)
    );
}

/// Horizontal stacked bars, one per row, scaled to the longest.
fn hbar_chart(h: &mut String, id: &str, title: &str, desc: &str, bars: &[Bar], items: &[(&str, &str)]) {
    const LABEL: f64 = 200.0;
    const AREA: f64 = 500.0;
    const ROW: f64 = 22.0;
    let max = bars.iter().map(|b| b.segments.iter().map(|s| s.n).sum::<u64>()).max().unwrap_or(0).max(1);
    let height = (bars.len() as f64 * ROW + 8.0) as u32;
    svg_start(h, id, 780, height, title, desc);
    for (i, b) in bars.iter().enumerate() {
        let y = 4.0 + i as f64 * ROW;
        let _ = write!(
            h,
            "<text class=\"lbl\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LABEL - 6.0,
            y + 14.0,
            esc_cut(&b.label, 28)
        );
        let mut x = LABEL;
        for s in b.segments.iter().filter(|s| s.n > 0) {
            let w = s.n as f64 / max as f64 * AREA;
            let _ = write!(
                h,
                "<rect class=\"bar {}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{}\"><title>{}: {} {}</title></rect>",
                s.class,
                w.max(1.0),
                ROW - 6.0,
                esc_cut(&b.label, 64),
                esc_cut(&s.name, 64),
                s.n
            );
            x += w;
        }
        let total: u64 = b.segments.iter().map(|s| s.n).sum();
        let _ = write!(h, "<text class=\"val\" x=\"{:.1}\" y=\"{:.1}\">{total}</text>", x + 4.0, y + 14.0);
    }
    h.push_str("</svg>");
    legend(h, items);
    h.push_str("</figure>\n");
}

/// Vertical stacked bars (a time line, a histogram), labels under some.
fn vbar_chart(h: &mut String, id: &str, title: &str, desc: &str, bars: &[Bar], items: &[(&str, &str)]) {
    const WIDTH: f64 = 780.0;
    const TOP: f64 = 16.0;
    const AREA: f64 = 160.0;
    let max = bars.iter().map(|b| b.segments.iter().map(|s| s.n).sum::<u64>()).max().unwrap_or(0).max(1);
    let slot = (WIDTH - 60.0) / bars.len().max(1) as f64;
    let bar = (slot * 0.8).clamp(1.0, 48.0);
    let height = (TOP + AREA + 36.0) as u32;
    svg_start(h, id, WIDTH as u32, height, title, desc);
    let base = TOP + AREA;
    let _ = write!(h, "<text class=\"val\" x=\"4\" y=\"{}\">{max}</text>", TOP + 4.0);
    let _ = write!(h, "<line class=\"axis\" x1=\"50\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/>", WIDTH - 6.0);
    // Labels where they fit: about 7 px a character, one in `every` bars.
    let widest = bars.iter().map(|b| b.label.chars().count().min(16)).max().unwrap_or(1) as f64 * 7.0 + 6.0;
    let every = (widest / slot).ceil().max(1.0) as usize;
    for (i, b) in bars.iter().enumerate() {
        let x = 54.0 + i as f64 * slot;
        let mut y = base;
        for s in b.segments.iter().filter(|s| s.n > 0) {
            let hgt = s.n as f64 / max as f64 * AREA;
            y -= hgt;
            let _ = write!(
                h,
                "<rect class=\"bar {}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{:.1}\"><title>{}: {} {}</title></rect>",
                s.class,
                hgt.max(0.5),
                esc_cut(&b.label, 64),
                esc_cut(&s.name, 64),
                s.n
            );
        }
        if i % every == 0 {
            let _ = write!(
                h,
                "<text class=\"lbl\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                base + 16.0,
                esc_cut(&b.label, 16)
            );
        }
    }
    h.push_str("</svg>");
    legend(h, items);
    h.push_str("</figure>\n");
}

const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--head:#f6f8fa;--link:#0969da;
--flag:#8c959f;--hidden:#cf222e;--good:#1a7f37;--bad:#cf222e;--rest:#c8d1da;
--c0:#0969da;--c1:#bf8700;--c2:#8250df;--c3:#1a7f37;--c4:#bc4c00;--c5:#bf3989;--c6:#1b7c83;--c7:#6e7781}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--head:#151b23;--link:#4493f8;
--flag:#656c76;--hidden:#ff7b72;--good:#3fb950;--bad:#ff7b72;--rest:#3d444d;
--c0:#4493f8;--c1:#d29922;--c2:#ab7df8;--c3:#3fb950;--c4:#f0883e;--c5:#f778ba;--c6:#39c5cf;--c7:#9198a1}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:76rem;padding:0 1.25rem 2rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--link)}
h1{font-size:1.6rem;margin:1rem 0 .5rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.05rem;margin:1.25rem 0 .4rem}h4{font-size:.95rem;margin:1rem 0 .3rem}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--head);border:1px solid var(--line);padding:.4rem .6rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:.2rem 0 .6rem}
.verdict{font-weight:600;padding:.5rem .75rem;border-left:4px solid}.verdict.bad{border-color:var(--bad)}.verdict.good{border-color:var(--good)}
nav{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:.3rem 0;z-index:2}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem}
.sources{padding-left:1.2rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-variant-numeric:tabular-nums;max-width:100%}
caption{text-align:left;color:var(--muted);font-size:.9rem;padding:.2rem 0}
th,td{border:1px solid var(--line);padding:.25rem .5rem;vertical-align:top;text-align:left}
td[data-k]{text-align:right}td.prose{max-width:36rem}
thead th{background:var(--head);position:sticky;top:2rem}
tfoot th,tfoot td{font-weight:600}tr.more td,tr.more th,.more{color:var(--muted);font-style:italic}
th button{all:unset;cursor:pointer}th button:focus-visible{outline:2px solid var(--link)}
th[aria-sort=ascending] button::after{content:" \25B2"}th[aria-sort=descending] button::after{content:" \25BC"}
.muted{color:var(--muted)}
figure.chart{margin:.5rem 0 1rem}figure.chart>svg{max-width:100%;height:auto;display:block}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}svg .val{fill:var(--muted)}svg .axis{stroke:var(--line)}
.flag{fill:var(--flag)}.hidden{fill:var(--hidden)}.rest{fill:var(--rest)}
.c0{fill:var(--c0)}.c1{fill:var(--c1)}.c2{fill:var(--c2)}.c3{fill:var(--c3)}.c4{fill:var(--c4)}.c5{fill:var(--c5)}.c6{fill:var(--c6)}.c7{fill:var(--c7)}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.2rem 1rem;padding:0;margin:.3rem 0;font-size:.85rem}.legend svg{vertical-align:-1px}
.ex{border:1px solid var(--line);border-radius:4px;padding:.3rem .7rem;margin:.4rem 0}.ex p{margin:.2rem 0}
.pair:target,.category:target{outline:2px solid var(--link);outline-offset:4px}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#333;--line:#888;--head:#fff;--link:#000;--flag:#fff;--hidden:#000;--rest:#eee;
--good:#000;--bad:#000;--c0:#000;--c1:#fff;--c2:#888;--c3:#ddd;--c4:#444;--c5:#eee;--c6:#bbb;--c7:#666}
body{max-width:none;padding:0;font-size:11pt}nav{display:none}thead th{position:static}
svg .bar,.legend rect{stroke:#000;stroke-width:.7}a{text-decoration:none}
.ex,figure.chart,tr{break-inside:avoid}h2,h3,h4{break-after:avoid}
}
"#;

/// Sorting by a click on a column header (numbers as numbers), and on load
/// when the address ends in `#sort=TABLE:COLUMN:asc|desc`. Rows in `tfoot`
/// (totals, "and K more") stay last.
const SCRIPT: &str = r#"
(function(){
function key(c){if(!c)return '';var v=c.getAttribute('data-v');if(v!==null)return parseFloat(v);
var t=c.textContent.trim();var n=Number(t.replace(/[,%]/g,''));return t!==''&&!isNaN(n)?n:t.toLowerCase();}
function sort(table,col,dir){var body=table.tBodies[0];if(!body)return;
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));return dir==='desc'?-r:r;});
rows.forEach(function(r){body.appendChild(r);});
var heads=table.tHead.rows[0].cells;
for(var i=0;i<heads.length;i++){heads[i].setAttribute('aria-sort',i===col?(dir==='desc'?'descending':'ascending'):'none');}
table.setAttribute('data-sorted',col+':'+dir);}
var tables=document.querySelectorAll('table.sortable');
Array.prototype.forEach.call(tables,function(table){var heads=table.tHead.rows[0].cells;
Array.prototype.forEach.call(heads,function(th,i){var b=document.createElement('button');b.type='button';
while(th.firstChild)b.appendChild(th.firstChild);th.appendChild(b);
b.addEventListener('click',function(){sort(table,i,th.getAttribute('aria-sort')==='descending'?'asc':'desc');});});});
var m=/^#sort=([A-Za-z0-9-]+):([0-9]+):(asc|desc)$/.exec(location.hash);
if(m){var t=document.getElementById(m[1]);if(t&&t.classList.contains('sortable'))sort(t,parseInt(m[2],10),m[3]);}
document.documentElement.setAttribute('data-script','ran');
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CategoryRow, ToolReport};

    fn report_with(tool: &str, category: &str) -> Report {
        let mut r = crate::aggregate::Aggregator::new(Default::default()).finish();
        r.sources.push(crate::report::SourceReport::new("a&b.db", "peri"));
        r.totals.calls = 3;
        r.totals.errors = 2;
        r.totals.hidden_errors = 2;
        r.totals.content_errors = 2;
        let mut t = ToolReport {
            tool: tool.into(),
            calls: 3,
            errors: 2,
            hidden_errors: 2,
            content_errors: 2,
            ..Default::default()
        };
        t.categories.insert(category.into(), 2);
        r.tools.push(t);
        r.categories.push(CategoryRow { category: category.into(), tool: tool.into(), errors: 2, hidden_errors: 2 });
        r
    }

    fn html(report: &Report, page: &Page) -> String {
        let mut out = Vec::new();
        let view = crate::render::View { page: Some(page), ..crate::render::View::of(report) };
        render(&view, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_text_and_attributes() {
        assert_eq!(esc("<script>&\"'x"), "&lt;script&gt;&amp;&quot;&#39;x");
        assert_eq!(esc("a\nb\u{1b}[31m\u{202e}c"), "a bc");
        assert_eq!(escape_lines("x\n::error::forged\n<a>"), "x\n&#58;:error::forged\n&lt;a&gt;");
    }

    #[test]
    fn tool_names_categories_and_results_are_escaped() {
        let tool = "<script>alert(1)</script>&Bash";
        let report = report_with(tool, "<b>cat</b>&");
        let mut page = Page::default();
        page.examples.insert(
            (tool.into(), "<b>cat</b>&".into()),
            vec![Example {
                tool: tool.into(),
                result: Some("Error: <script>x</script> & <img src=x onerror=alert(1)>".into()),
                arguments: "{\"a\":\"</pre><script>\"}".into(),
                ..Example::default()
            }],
        );
        let out = html(&report, &page);
        assert!(!out.contains("<script>alert"), "{out}");
        assert!(!out.contains("<b>cat"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("</pre><script>"), "{out}");
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;Bash"), "{out}");
        assert!(
            out.contains("Error: &lt;script&gt;x&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;"),
            "{out}"
        );
        assert!(out.contains("<code>a&amp;b.db</code>"), "{out}");
        // Only the page's own script element.
        assert_eq!(out.matches("<script").count(), 1, "{out}");
    }

    #[test]
    fn no_url_is_fetched() {
        let out = html(&report_with("Bash", "timeout"), &Page::default());
        let re = regex::Regex::new(r#"(?i)(src|href)\s*=\s*["']?\s*[a-z]+:|url\("#).unwrap();
        assert!(!re.is_match(&out), "{:?}", re.find(&out));
        assert!(out.contains("default-src 'none'"));
    }

    #[test]
    fn days_group_into_weeks_and_months() {
        let mut days = BTreeMap::new();
        let one = Day { calls: 1, errors: 1, flagged: 0, hidden: 1 };
        days.insert("2026-01-01".to_string(), one);
        days.insert("2026-01-02".to_string(), one);
        assert_eq!(time_buckets(&days).0.len(), 2);
        assert_eq!(time_buckets(&days).1, "day");
        days.insert("2026-06-30".to_string(), one);
        let (b, unit) = time_buckets(&days);
        assert_eq!(unit, "week");
        assert_eq!(b[0], ("week of 2025-12-29".to_string(), Day { calls: 2, errors: 2, flagged: 0, hidden: 2 }));
        let mut edge = BTreeMap::new();
        edge.insert(chrono::NaiveDate::MIN.format("%Y-%m-%d").to_string(), one);
        edge.insert("2026-01-01".to_string(), one);
        edge.insert("not a day".to_string(), one);
        assert_eq!(time_buckets(&edge).0.len(), 3, "no panic at the edge of the calendar");
        days.insert("2030-01-01".to_string(), one);
        let (b, unit) = time_buckets(&days);
        assert_eq!(unit, "month");
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn the_classes_section_draws_what_it_is_given() {
        let mut h = String::new();
        classes_section(&[], &mut h);
        assert!(h.is_empty());
        classes_section(&[("Agent", vec![("arguments", 41), ("environment", 4)])], &mut h);
        assert!(h.contains("Agent: arguments 41, environment 4."), "{h}");
        assert!(h.contains("<td data-k=\"share\" data-v=\"0.911111\">91.1%</td>"), "{h}");
    }

    #[test]
    fn big_reports_are_cut_and_counted() {
        let mut r = report_with("t0", "timeout");
        for i in 1..400 {
            let mut t = ToolReport { tool: format!("t{i}"), calls: 10, errors: 1, ..Default::default() };
            t.categories.insert("other".into(), 1);
            r.tools.push(t);
            r.categories.push(CategoryRow {
                category: "other".into(),
                tool: format!("t{i}"),
                errors: 1,
                hidden_errors: 0,
            });
        }
        let out = html(&r, &Page::default());
        assert!(out.contains("and 375 more tools</th>"), "{out}");
        assert!(out.contains("and 375 more tools with errors (375 errors)"), "{out}");
        assert!(out.len() < 400_000, "{}", out.len());
    }
}
