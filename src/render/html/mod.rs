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

mod charts;
mod drill;
mod failures;
mod sequences;
mod style;

use super::rows::Value;
use super::{percent, plural};
use crate::error::Result;
use crate::report::{Report, ToolReport};
use crate::sanitize::{one_line, truncate};
use failures::{
    categories_section, classes_section, days_section, reasons_section, tool_classes, tools_section, totals_section,
};
use sequences::{
    cost_section, feedback_section, findings_section, recovery_section, repairs_section, schema_section,
    streaks_section,
};

/// Calls of one day (or of one bucket of days).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Day {
    /// Calls made.
    pub calls: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Failed calls the source flagged as errors.
    pub flagged: u64,
    /// Failed calls the source flagged as successes.
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
    /// The source the session was read from, redacted.
    pub source: String,
    /// The session's id.
    pub session: String,
    /// The call's position in the session.
    pub seq: usize,
    /// The id the source gave the call.
    pub call_id: String,
    /// The name of the tool called.
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

/// Writes the report as one self-contained HTML page.
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
    h.push_str("<header>\n<h1>falseok postmortem</h1>\n");
    sources(report, &mut h);
    let (line, bad) = super::verdict_line(report, outcome.map(|(v, _)| v));
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
        streaks_section(report, &anchors, &mut h);
        repairs_section(report, &mut h);
        feedback_section(report, &mut h);
        schema_section(report, &mut h);
        findings_section(report, &mut h);
        drill::drill_section(report, page, &tools, &categories, &anchors, &mut h);
    }
    h.push_str("</main>\n");
    let _ = writeln!(h, "<footer><p>Generated by falseok {}.</p></footer>", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(h, "<script>{}</script>\n</body>\n</html>", style::SCRIPT);
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
    h.push_str("<title>falseok postmortem</title>\n");
    let _ = writeln!(h, "<style>{}</style>\n</head>\n<body>", style::CSS);
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

/// A section's row (`super::rows`): the tool as the row's header, the
/// category linked to its examples, each count in a cell keyed for tests and
/// scripts, a text that sorts as a number with its value (`data-v`).
fn section_row(h: &mut String, row: &[Value<'_>], anchors: &Anchors) {
    let tool = row.iter().find_map(|v| if let Value::Tool(t) = v { Some(*t) } else { None });
    let category = row.iter().find_map(|v| if let Value::Category(c) = v { Some(*c) } else { None });
    h.push_str("<tr");
    for (name, value) in [("tool", tool), ("category", category)] {
        if let Some(v) = value {
            let _ = write!(h, " data-{name}=\"{}\"", esc(v));
        }
    }
    h.push('>');
    for v in row {
        match v {
            Value::Tool(t) => {
                let _ = write!(h, "<th scope=\"row\">{}</th>", esc_cut(t, 64));
            }
            Value::Category(c) => {
                let _ = write!(h, "<td>{}</td>", anchors.link(tool, c));
            }
            Value::Count(k, n) | Value::Alarm(k, n) => h.push_str(&num(k, *n)),
            Value::OfThem { tries, ok } => {
                h.push_str(&num(tries.0, tries.1));
                h.push_str(&num(ok.0, ok.1));
            }
            Value::Text { key, text, sort: Some(v) } => {
                let _ = write!(h, "<td data-k=\"{key}\" data-v=\"{v}\">{}</td>", esc(text));
            }
            Value::Text { text, sort: None, .. } => {
                let _ = write!(h, "<td>{}</td>", esc_cut(text, 120));
            }
        }
    }
    h.push_str("</tr>\n");
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

#[cfg(test)]
mod tests {
    use super::failures::time_buckets;
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
