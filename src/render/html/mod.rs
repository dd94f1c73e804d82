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
mod summary;

use super::rows::Value;
use super::{percent, plural};
use crate::error::Result;
use crate::report::{Report, SessionRow, ToolReport};
use crate::sanitize::{one_line, truncate};
use chrono::{DateTime, Utc};
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
    /// An edit's `old_string` and `new_string` (redacted, sanitized, cut),
    /// shown as a diff.
    pub edit: Option<(String, String)>,
}

/// What a command printed on the page needs to read what the report read:
/// the PATHs and the options that change a verdict, as given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    /// The PATHs read (the default locations, resolved, when none was given).
    pub paths: Vec<String>,
    /// Options every judging command takes (`--source-format`, `--no-redact`, …).
    pub options: Vec<String>,
    /// The filters `examples` and `show` do not take (`--since`, `--until`,
    /// `--session`), as given: their commands read every call.
    pub window: Vec<String>,
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
    /// The worst sessions, worst first: `falseok sessions`' rows, grades
    /// and order, at most `SESSIONS_SHOWN`.
    pub sessions: Vec<SessionRow>,
    /// Sessions graded (those with a counted call).
    pub sessions_graded: u64,
    /// The first and the last time of the counted calls.
    pub span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// When the page was made (`SOURCE_DATE_EPOCH` when set).
    pub generated: Option<DateTime<Utc>>,
    /// What the page's commands name.
    pub scope: Scope,
}

/// Sessions in the sessions section; the summary shows the first
/// `SUMMARY_SESSIONS`.
pub const SESSIONS_SHOWN: usize = 15;

/// The worst sessions on the first screen.
const SUMMARY_SESSIONS: usize = 5;

/// Tools with errors on the first screen; the rest are counted.
const SUMMARY_TOOLS: usize = 5;

/// Sources on the first screen; the rest fold below them.
const SUMMARY_SOURCES: usize = 3;

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
            Some(a) => format!("<a class=\"id\" href=\"#{a}\">{}</a>", esc(category)),
            None => format!("<span class=\"id\">{}</span>", esc(category)),
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
    head(&summary::title(report, page), &mut h);
    let t = &report.totals;
    h.push_str("<header>\n<h1>falseok postmortem</h1>\n</header>\n");
    let (line, bad) = super::verdict_line(report, outcome.map(|(v, _)| v));
    let mut verdict =
        format!("<p class=\"verdict {}\" id=\"verdict\">{}</p>\n", if bad { "bad" } else { "good" }, esc(&line));
    if let Some((v, g)) = outcome {
        let class = if v.passed() { "good" } else { "bad" };
        let _ = writeln!(verdict, "<p class=\"verdict {class}\" id=\"gate\">{}</p>", esc(&v.sentence(report, g)));
    }
    summary::summary(report, page, &tools, &verdict, &mut h);
    nav(report, page, &mut h);
    h.push_str("<main>\n");
    totals_section(report, &mut h);
    if t.calls > 0 {
        tools_section(report, &tools, &mut h);
        summary::sessions_section(page, &mut h);
        categories_section(report, &tools, &categories, &anchors, &mut h);
        classes_section(&tool_classes(&tools), &mut h);
        reasons_section(report, &tools, &anchors, &mut h);
        days_section(page, &mut h);
        recovery_section(report, &tools, &anchors, &mut h);
        cost_section(report, &anchors, &mut h);
        sequences::tokens_section(report, &anchors, &mut h);
        streaks_section(report, &anchors, &mut h);
        repairs_section(report, &mut h);
        feedback_section(report, &mut h);
        schema_section(report, &mut h);
        findings_section(report, &mut h);
        drill::drill_section(report, page, &tools, &categories, &anchors, &mut h);
    }
    h.push_str("</main>\n");
    let made = page.generated.map(|g| format!(" on {}", g.format("%Y-%m-%d %H:%M UTC"))).unwrap_or_default();
    let _ = writeln!(h, "<footer><p>Generated by falseok {}{made}.</p></footer>", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(h, "<script>{}</script>\n</body>\n</html>", style::SCRIPT);
    let h = label_cells(&h);
    out.write_all(h.as_bytes())?;
    Ok(())
}

fn head(title: &str, h: &mut String) {
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // No fetch of any kind: styles and the script are inline, images none.
    h.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n",
    );
    h.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    let _ = writeln!(h, "<title>{}</title>", esc(title));
    let _ = writeln!(h, "<style>{}</style>\n</head>\n<body>", style::CSS);
}

/// The sources read: the first `SUMMARY_SOURCES` in the summary, the rest
/// (up to `TOP_TOOLS`, then counted) folded below them.
fn sources(report: &Report, h: &mut String) {
    if report.sources.is_empty() {
        h.push_str("<p>Sources: none.</p>\n");
        return;
    }
    let item = |h: &mut String, s: &crate::report::SourceReport| {
        let coverage = s.coverage_note().map(|n| format!("; {}", esc(&n))).unwrap_or_default();
        let _ = writeln!(
            h,
            "<li><code class=\"path\">{}</code>: {} trace, {}, {}{coverage}</li>",
            esc_cut(&s.path, 200),
            esc_cut(&s.format, 48),
            plural(s.sessions, "session"),
            plural(s.calls, "call")
        );
    };
    h.push_str("<ul class=\"sources\">\n");
    for s in report.sources.iter().take(SUMMARY_SOURCES) {
        item(h, s);
    }
    h.push_str("</ul>\n");
    if report.sources.len() > SUMMARY_SOURCES {
        let _ = writeln!(
            h,
            "<details id=\"more-sources\"><summary>and {} more sources</summary>\n<ul class=\"sources\">",
            report.sources.len() - SUMMARY_SOURCES
        );
        for s in report.sources.iter().take(TOP_TOOLS).skip(SUMMARY_SOURCES) {
            item(h, s);
        }
        more_item(report.sources.len(), TOP_TOOLS, "sources", h);
        h.push_str("</ul>\n</details>\n");
    }
}

fn more_item(len: usize, shown: usize, what: &str, h: &mut String) {
    if len > shown {
        let _ = writeln!(h, "<li class=\"more\">and {} more {what}</li>", len - shown);
    }
}

fn nav(report: &Report, page: &Page, h: &mut String) {
    h.push_str("<nav aria-label=\"sections\"><ul>\n<li><a href=\"#totals-section\">totals</a></li>\n");
    if report.totals.calls > 0 {
        let _ = writeln!(h, "<li><a href=\"#tools-section\">tools</a></li>");
        if !page.sessions.is_empty() {
            let _ = writeln!(h, "<li><a href=\"#sessions-section\">sessions</a></li>");
        }
        for (id, name) in [
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

/// Each body and footer cell of every table labelled with its column's
/// header (`data-label`), so a narrow screen can show a row as a block of
/// "label value" lines (the CSS), not a table cut at the right edge. The
/// page is this module's own markup, and every text in it is escaped: a
/// `<` starts a tag.
fn label_cells(page: &str) -> String {
    let mut out = String::with_capacity(page.len() + page.len() / 4);
    let (mut columns, mut in_head, mut col): (Vec<&str>, bool, usize) = (Vec::new(), false, 0);
    let mut rest = page;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let (tag, after) = rest.split_at(end);
        rest = after;
        let cell = tag.starts_with("<td") || tag.starts_with("<th ") || tag == "<th>";
        if tag.starts_with("<table") {
            columns.clear();
        } else if tag == "<thead>" {
            in_head = true;
        } else if tag == "</thead>" {
            in_head = false;
        } else if tag.starts_with("<tr") {
            col = 0;
        } else if cell && in_head {
            columns.push(rest.find("</th>").map_or("", |e| &rest[..e]));
        } else if cell && !tag.contains("colspan") {
            if let Some(label) = columns.get(col) {
                let open = tag.strip_suffix('>').unwrap_or(tag);
                let _ = write!(out, "{open} data-label=\"{label}\">");
                col += 1;
                continue;
            }
        } else if cell {
            col = usize::MAX / 2;
        }
        out.push_str(tag);
    }
    out.push_str(rest);
    out
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
        let mut r = crate::aggregate::Aggregator::new(Default::default(), Default::default()).finish();
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
        assert!(out.contains("<code class=\"path\">a&amp;b.db</code>"), "{out}");
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
    fn cells_are_labelled_with_their_column() {
        let page = "<table id=\"t\">\n<caption>c</caption>\n<thead><tr><th scope=\"col\">tool</th><th scope=\"col\">error rate</th></tr></thead>\n<tbody>\n<tr><th scope=\"row\">Bash</th><td data-k=\"r\">1%</td></tr>\n</tbody><tfoot><tr class=\"more\"><td colspan=\"2\">and 3 more</td></tr></tfoot></table><script>if(a<b){}</script>";
        let out = label_cells(page);
        assert!(
            out.contains(
                "<th scope=\"row\" data-label=\"tool\">Bash</th><td data-k=\"r\" data-label=\"error rate\">1%</td>"
            ),
            "{out}"
        );
        assert!(out.contains("<td colspan=\"2\">and 3 more</td>"), "a spanning cell has no label: {out}");
        assert!(out.ends_with("<script>if(a<b){}</script>"), "{out}");
        assert_eq!(label_cells("plain text, no tag"), "plain text, no tag");
    }

    #[test]
    fn edits_are_diffs() {
        let d = drill::diff("a\nb\nc", "a\nB\nc\nd");
        assert_eq!(d, vec![(' ', "a"), ('-', "b"), ('+', "B"), (' ', "c"), ('+', "d")]);
        assert_eq!(drill::diff("", "x"), vec![('+', "x")]);
        assert_eq!(drill::diff("x", ""), vec![('-', "x")]);
        let report = report_with("Edit", "edit-match-not-found");
        let mut page = Page::default();
        page.examples.insert(
            ("Edit".into(), "edit-match-not-found".into()),
            vec![Example { tool: "Edit".into(), edit: Some(("<old>\n:x".into(), "new".into())), ..Example::default() }],
        );
        let out = html(&report, &page);
        assert!(
            out.contains("<pre class=\"diff\"><span class=\"del\">- &lt;old&gt;</span><span class=\"del\">- :x</span><span class=\"ins\">+ new</span></pre>"),
            "{out}"
        );
    }

    #[test]
    fn the_summary_comes_first_and_names_sources_dates_and_commands() {
        let mut report = report_with("Bash", "timeout");
        report.sources[0].path = "dir/<x a>'s.db".into();
        report.headlines.push(crate::report::Headline {
            tool: "Bash".into(),
            class: "environment".into(),
            errors: 2,
            of: 2,
            share: 1.0,
            category: "timeout".into(),
            category_errors: 2,
            param: None,
            param_errors: None,
            fix: "raise the <limit>".into(),
            sentence: String::new(),
        });
        let t = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        let row = SessionRow {
            session: "s-1".into(),
            parent: None,
            agent: "peri".into(),
            source: "dir/<x a>'s.db".into(),
            file: None,
            start: None,
            duration_ms: None,
            calls: 3,
            errors: 2,
            flagged_errors: 0,
            hidden_errors: 2,
            guard_blind_streaks: 0,
            abandoned: 0,
            retries: 0,
            lost_ms: 0,
            tokens: None,
            failure_tokens: None,
            failure_dollars: None,
            grade: "B".into(),
            score: 61,
            reasons: vec!["2 hidden errors (-6, at most B)".into()],
        };
        let page = Page {
            sessions: vec![row],
            sessions_graded: 1,
            span: Some((t("2026-05-20T10:00:00Z"), t("2026-05-22T11:00:00Z"))),
            generated: Some(t("2026-06-01T08:30:00Z")),
            scope: Scope {
                paths: vec!["dir/<x a>'s.db".into()],
                options: vec!["--no-subagents".into()],
                window: vec!["--since".into(), "2d".into()],
            },
            ..Page::default()
        };
        let out = html(&report, &page);
        assert!(
            out.contains("<title>&lt;x a&gt;&#39;s.db · calls 2026-05-20 to 2026-05-22 · made 2026-06-01 · falseok postmortem</title>"),
            "{out}"
        );
        let summary = out.find("id=\"summary\"").unwrap();
        for id in ["id=\"verdict\"", "id=\"summary-tools\"", "id=\"summary-sessions\"", "id=\"summary-scope\""] {
            let at = out.find(id).unwrap_or_else(|| panic!("no {id}"));
            assert!(at > summary && at < out.find("<nav").unwrap(), "{id} is in the summary, before the detail");
        }
        assert!(out.contains("First fix (<span class=\"id\">timeout</span>, 2): raise the &lt;limit&gt;."), "{out}");
        assert!(
            out.contains("Calls from <time datetime=\"2026-05-20T10:00:00+00:00\">2026-05-20 10:00 UTC</time>"),
            "{out}"
        );
        assert!(out.contains("(2 days 1 h)"), "{out}");
        // The show command: the session's source quoted as one shell word,
        // without --no-subagents (show does not take it), with the note
        // that it reads every call.
        let w = |s: &str| format!("<span class=\"w\">{s}</span>");
        let show = [w("falseok"), w("show"), w("s-1"), w("&#39;dir/&lt;x a&gt;&#39;\\&#39;&#39;s.db&#39;")].join(" ");
        assert!(
            out.contains(&format!(
                "<code class=\"cmd\">{show}</code> (it reads every call; this page counts only --since 2d)"
            )),
            "{out}"
        );
        assert_eq!(drill::shell_word("dir/<x a>'s.db"), "'dir/<x a>'\\''s.db'");
    }

    #[test]
    fn the_summary_names_three_sources_and_folds_the_rest() {
        let mut report = report_with("Bash", "timeout");
        for i in 1..5 {
            report.sources.push(crate::report::SourceReport::new(&format!("s{i}.db"), "peri"));
        }
        let out = html(&report, &Page::default());
        let scope = &out[out.find("id=\"summary-scope\"").unwrap()..out.find("<nav").unwrap()];
        let (shown, folded) = scope.split_at(scope.find("<details id=\"more-sources\">").expect("folded"));
        assert_eq!(shown.matches("<li>").count(), 3, "{shown}");
        assert!(folded.starts_with("<details id=\"more-sources\"><summary>and 2 more sources</summary>"), "{folded}");
        assert_eq!(folded.matches("<li>").count(), 2, "{folded}");
        assert!(out.contains("<title>a&amp;b.db, s1.db, s2.db and 2 more · falseok postmortem</title>"), "{out}");
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
