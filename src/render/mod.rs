//! Renderers: one file per output format, each a function of the finished
//! `Report` (and, for the gate-aware formats, the gate's `Verdict`), all
//! reached through one registry: `Output` and `render`. Helpers that several
//! renderers use live here, never in one renderer borrowed by another.
#![warn(missing_docs)]

pub mod csv;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod metrics;
pub mod rows;
pub mod sarif;
pub mod sessions;
pub mod table;

use std::io::Write;

use crate::error::Result;
use crate::gate::{Gate, Verdict};
use crate::report::Report;
pub use crate::report::percent;
use crate::sanitize::{one_line, truncate};

/// Every output `scan`, `check` and `merge` write: the registry, and the
/// values of their `--format` (a variant's doc comment is its `--help` line).
///
/// A new output is one renderer file in `src/render/`, whose
/// `render(&View, out)` writes it, plus its lines here: its `mod` line, its
/// variant, its arm in `render` and, when `merge` writes it, in `merges`
/// (and in `needs_page` if it shows what only a `Page` carries). No other
/// file names the outputs: the command line takes its values from this enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// Tables for a terminal or a ticket.
    Table,
    /// The versioned JSON contract.
    Json,
    /// The postmortem document (GitHub-flavoured Markdown).
    Markdown,
    /// One row per tool × category.
    Csv,
    /// GitHub Actions annotations.
    Github,
    /// JUnit XML: a testsuite per source, a testcase per tool.
    Junit,
    /// One self-contained HTML page: tables, charts and the example calls, working offline.
    Html,
    /// SARIF 2.1.0, for GitHub code scanning: a result per finding, at its trace file and line or row.
    Sarif,
}

impl Output {
    /// Whether `merge` writes this output: those that need only the report
    /// (no gate, no page), and have a use for a merged one.
    pub fn merges(self) -> bool {
        matches!(self, Output::Table | Output::Json | Output::Markdown | Output::Csv)
    }

    /// Whether the output shows what the `Report` does not carry (errors
    /// per day, the example calls), which the scan collects as a `Page`.
    pub fn needs_page(self) -> bool {
        self == Output::Html
    }
}

/// What any renderer may need: the report, the gate's verdict (`check`),
/// how a table is fitted and coloured, and the HTML page's extras.
pub struct View<'a> {
    /// The finished report to render.
    pub report: &'a Report,
    /// The verdict and the gate that reached it; `None` for `scan` and `merge`.
    pub verdict: Option<(&'a Verdict, &'a Gate)>,
    /// How tables are fitted and coloured.
    pub style: table::Style,
    /// What `--format html` shows beyond the report; an empty page if `None`.
    pub page: Option<&'a html::Page>,
    /// For `--format sarif`, where each finding points (in `findings`
    /// order), as the command resolved it; the report's places if `None`.
    pub located: Option<&'a [Option<sarif::Located>]>,
}

impl<'a> View<'a> {
    /// The report alone: no verdict, no page, a plain table of any width.
    pub fn of(report: &'a Report) -> View<'a> {
        View { report, verdict: None, style: table::Style { color: false, width: None }, page: None, located: None }
    }
}

/// Write `view` as `output`: the one entry point of every output.
pub fn render(output: Output, view: &View<'_>, out: &mut dyn Write) -> Result<()> {
    match output {
        Output::Table => table::render(view, out),
        Output::Json => json::render(view, out),
        Output::Markdown => markdown::render(view, out),
        Output::Csv => csv::render(view, out),
        Output::Github => github::render(view, out),
        Output::Junit => junit::render(view, out),
        Output::Html => html::render(view, out),
        Output::Sarif => sarif::render(view, out),
    }
}

/// "1 call", "2 calls".
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// "causes: arguments 42 (93%), environment 3 (7%)": a tool's errors per
/// cause class, largest first (ties in the class table's order).
pub fn classes_line(t: &crate::report::ToolReport) -> String {
    use crate::rules::category::CauseClass;
    let mut classes: Vec<(CauseClass, u64)> =
        CauseClass::all().filter_map(|c| t.classes.get(c.as_str()).map(|&n| (c, n))).filter(|(_, n)| *n > 0).collect();
    classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let parts: Vec<String> = classes
        .iter()
        .map(|(c, n)| format!("{} {n} ({})", c.as_str(), percent(crate::report::rate(*n, t.errors), 0)))
        .collect();
    format!("causes: {}", parts.join(", "))
}

pub use crate::prices::{dollars, tokens};

/// The cost rows of failures with usage, most tokens first.
pub fn token_rows(report: &Report) -> Vec<&crate::report::CostRow> {
    let mut rows: Vec<_> = report.cost.iter().filter(|r| r.with_usage > 0).collect();
    rows.sort_by(|a, b| b.tokens().cmp(&a.tokens()).then(a.tool.cmp(&b.tool)).then(a.category.cmp(&b.category)));
    rows
}

/// What the tokens section says of itself.
pub const TOKENS_ABOUT: &str = "Each failure's share of the response that emitted it, the share of the successful retry after it, and its result read again by the later responses until a compaction (rent, an estimate); dollars as recorded, else at the price table's (docs/analyses.md, \"Tokens and money\").";

/// The usage line of a report: the tokens and dollars of the responses
/// behind its calls, or that none is recorded (never a 0 that means none).
pub fn usage_line(report: &Report) -> String {
    let u = &report.usage;
    if u.calls == 0 {
        return "Tokens: no usage recorded by these traces".to_string();
    }
    let priced = u.calls - u.unpriced_calls;
    let mut line = format!(
        "Tokens: {} calls of {} carry their response's usage: {} tokens ({} input, {} output, {} cache reads, {} cache writes)",
        u.calls,
        report.totals.calls,
        tokens(u.tokens()),
        tokens(u.input_tokens),
        tokens(u.output_tokens),
        tokens(u.cache_read_tokens),
        tokens(u.cache_write_tokens)
    );
    if priced > 0 {
        line.push_str(&format!(", {} for the {priced} priced", dollars(u.dollars)));
    }
    if !u.unpriced_models.is_empty() {
        line.push_str(&format!("; in tokens only (no price): {}", u.unpriced_models.join(", ")));
    }
    line
}

/// A duration for people: "850 ms", "8.2 s", "4 min 10 s", "1 h 22 min".
pub fn duration(ms: u64) -> String {
    let s = ms / 1000;
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// The cost rows, most time lost first (then retries, tool, category).
pub fn cost_rows(report: &Report) -> Vec<&crate::report::CostRow> {
    let mut rows: Vec<_> = report.cost.iter().collect();
    rows.sort_by(|a, b| {
        b.lost_ms
            .cmp(&a.lost_ms)
            .then(b.retries.cmp(&a.retries))
            .then(a.tool.cmp(&b.tool))
            .then(a.category.cmp(&b.category))
    });
    rows
}

/// Mean time lost per timed failure, or "-".
pub fn per_failure(r: &crate::report::CostRow) -> String {
    r.lost_ms.checked_div(r.timed).map_or("-".to_string(), duration)
}

/// The one-line verdict naming the hidden-error count, and whether it is
/// bad news. Under a baseline (`check --baseline`), what is new leads and
/// the hidden errors the baseline holds are stated as known: a gate that
/// passes on its baseline does not print them as a red mark.
pub fn verdict_line(report: &Report, verdict: Option<&Verdict>) -> (String, bool) {
    let tot = &report.totals;
    let worst = || {
        let mut worst: Vec<_> = report.tools.iter().filter(|t| t.hidden_errors > 0).collect();
        worst.sort_by(|a, b| b.hidden_errors.cmp(&a.hidden_errors).then(a.tool.cmp(&b.tool)));
        let named: Vec<String> =
            worst.iter().take(3).map(|t| format!("{} {}", truncate(&one_line(&t.tool), 48), t.hidden_errors)).collect();
        let more = if worst.len() > 3 { ", …" } else { "" };
        format!("{}{more}", named.join(", "))
    };
    if let Some(v) = verdict.filter(|v| v.baseline_used)
        && tot.hidden_errors > 0
    {
        let known = tot.hidden_errors.saturating_sub(v.hidden);
        return if v.hidden > 0 {
            let mut per: Vec<(&str, u64)> = Vec::new();
            for f in v.new_findings.iter().map(|&i| &report.findings[i]) {
                if f.rule != crate::rules::FindingRule::HiddenError {
                    continue;
                }
                let tool = f.tool.as_deref().unwrap_or("");
                match per.iter_mut().find(|(t, _)| *t == tool) {
                    Some(e) => e.1 += 1,
                    None => per.push((tool, 1)),
                }
            }
            per.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let named: Vec<String> =
                per.iter().take(3).map(|(t, n)| format!("{} {n}", truncate(&one_line(t), 48))).collect();
            let more = if per.len() > 3 { ", …" } else { "" };
            let text = format!(
                "✗ {} ({}{more}) not in the baseline; {known} more {} known (in the baseline).",
                plural(v.hidden, "new hidden error"),
                named.join(", "),
                if known == 1 { "is" } else { "are" }
            );
            (text, true)
        } else {
            let text = format!(
                "✓ 0 new hidden errors: the {} found ({}) are known, all in the baseline.",
                plural(tot.hidden_errors, "hidden error"),
                worst()
            );
            (text, false)
        };
    }
    if tot.hidden_errors > 0 {
        let text = format!(
            "✗ {} ({}): {} of {} came back as successes, so anything that reads the error flag missed them.",
            plural(tot.hidden_errors, "hidden error"),
            worst(),
            tot.hidden_errors,
            plural(tot.errors, "error")
        );
        (text, true)
    } else if tot.errors > 0 {
        (format!("✓ 0 hidden errors: all {} flagged by the source.", plural(tot.errors, "error")), false)
    } else {
        ("✓ 0 hidden errors: no call failed.".to_string(), false)
    }
}

/// `text` with every line wider than `width` columns wrapped at spaces,
/// never inside a word: the lines a long line continues on start under its
/// text column (after the first gap of two or more spaces, as in `rules`'
/// `  id   text` layout, when that leaves half the line), else two columns in
/// from its own indent. Only a word wider than a whole line is split, in
/// pieces as wide as the line (a JSON argument string without spaces).
/// Lines of box-drawing tables are left alone: the table fitted itself.
pub fn fit(text: &str, width: usize) -> String {
    let width = width.max(8);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if columns(body) <= width || body.starts_with(['╭', '│', '├', '╰', '┌', '└', '+', '|']) {
            out.push_str(line);
            continue;
        }
        let lead = body.len() - body.trim_start_matches(' ').len();
        // The text column: after the first gap of two or more spaces, when
        // that leaves room (20 columns) for the text.
        let hang = body[lead..]
            .find("  ")
            .map(|gap| {
                let after = &body[lead + gap..];
                lead + gap + after.len() - after.trim_start_matches(' ').len()
            })
            .map(|h| columns(&body[..h]))
            .filter(|&h| h + 20 <= width)
            .unwrap_or(lead + 2);
        let hang = " ".repeat(hang.min(width.saturating_sub(8)));
        // Words with the spaces before them, kept when they stay on a line.
        let mut words: Vec<(&str, &str)> = Vec::new();
        let mut rest = &body[lead..];
        while !rest.is_empty() {
            let word_at = rest.len() - rest.trim_start_matches(' ').len();
            let (gap, tail) = rest.split_at(word_at);
            let end = tail.find(' ').unwrap_or(tail.len());
            words.push((gap, &tail[..end]));
            rest = &tail[end..];
        }
        let mut current = body[..lead].to_string();
        let mut fresh = true;
        for (gap, word) in words {
            if word.is_empty() {
                continue;
            }
            let need = columns(&current) + if fresh { 0 } else { columns(gap) } + columns(word);
            if !fresh && need > width {
                out.push_str(&current);
                out.push('\n');
                current = hang.clone();
                fresh = true;
            }
            if fresh && columns(&current) + columns(word) > width {
                // A word wider than the line: in pieces as wide as the line.
                let mut piece = String::new();
                for c in word.chars() {
                    if columns(&current) + columns(&piece) + 1 > width && !piece.is_empty() {
                        out.push_str(&current);
                        out.push_str(&piece);
                        out.push('\n');
                        current = hang.clone();
                        piece.clear();
                    }
                    piece.push(c);
                }
                current.push_str(&piece);
                fresh = false;
                continue;
            }
            if !fresh {
                current.push_str(gap);
            }
            current.push_str(word);
            fresh = false;
        }
        out.push_str(&current);
        out.push_str(nl);
    }
    out
}

/// Display columns of `s` (wide characters count two), ignoring ANSI
/// colour sequences.
fn columns(s: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in s.chars() {
        match (escape, c) {
            (false, '\u{1b}') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => n += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0),
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_wraps_text_and_leaves_tables() {
        let text = "one two three four five six\n│ a table row that is long │\n";
        let got = fit(text, 10);
        assert_eq!(got, "one two\n  three\n  four\n  five six\n│ a table row that is long │\n");
        // A word wider than the line is split in pieces, and nothing is lost.
        let long = fit("abcdefghijklmnop", 8);
        assert!(long.lines().all(|l| columns(l) <= 8), "{long}");
        assert_eq!(long.replace(['\n', ' '], ""), "abcdefghijklmnop");
        assert_eq!(fit("short\n", 80), "short\n");
    }

    #[test]
    fn fit_never_splits_a_word_that_fits_a_line_and_hangs_under_the_text_column() {
        let line = "  missing-required-param   a required argument is absent or blank (retry: yes)";
        let got = fit(line, 60);
        assert_eq!(
            got,
            "  missing-required-param   a required argument is absent or\n                           blank (retry: yes)"
        );
        for width in 24..70 {
            let got = fit(line, width);
            assert!(got.lines().all(|l| columns(l) <= width), "{width}: {got}");
            assert!(got.contains("missing-required-param"), "{width}: {got}");
            let words: Vec<&str> = got.split_whitespace().collect();
            assert_eq!(words, line.split_whitespace().collect::<Vec<_>>(), "{width}");
        }
        // Wide characters count two columns.
        assert_eq!(columns("表格"), 4);
    }
}
