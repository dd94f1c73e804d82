//! Renderers: one file per output format, each a function of the finished
//! `Report` (and, for the gate-aware formats, the gate's `Verdict`). Helpers
//! that several renderers use live here, never in one renderer borrowed by
//! another.

pub mod csv;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sessions;
pub mod table;

use crate::report::Report;
pub use crate::report::percent;
use crate::sanitize::{one_line, truncate};

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
/// bad news.
pub fn verdict_line(report: &Report) -> (String, bool) {
    let tot = &report.totals;
    if tot.hidden_errors > 0 {
        let mut worst: Vec<_> = report.tools.iter().filter(|t| t.hidden_errors > 0).collect();
        worst.sort_by(|a, b| b.hidden_errors.cmp(&a.hidden_errors).then(a.tool.cmp(&b.tool)));
        let named: Vec<String> =
            worst.iter().take(3).map(|t| format!("{} {}", truncate(&one_line(&t.tool), 48), t.hidden_errors)).collect();
        let more = if worst.len() > 3 { ", …" } else { "" };
        let text = format!(
            "✗ {} ({}{}): {} of {} came back as successes, so anything that reads the error flag missed them.",
            plural(tot.hidden_errors, "hidden error"),
            named.join(", "),
            more,
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

/// `text` with every line longer than `width` columns wrapped at spaces
/// (a word longer than the line is cut). Lines of box-drawing tables are
/// left alone: the table fitted itself.
pub fn fit(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if columns(body) <= width || body.starts_with(['╭', '│', '├', '╰', '┌', '└', '+', '|']) {
            out.push_str(line);
            continue;
        }
        let indent: String = body.chars().take_while(|c| *c == ' ').collect();
        let mut current = String::new();
        for word in body.split(' ').filter(|w| !w.is_empty()) {
            let need = columns(&current) + usize::from(!current.is_empty()) + columns(word);
            if !current.is_empty() && need > width {
                out.push_str(&current);
                out.push('\n');
                current = indent.clone() + "  ";
            }
            if current.trim().is_empty() && columns(&current) + columns(word) > width {
                // A word longer than a line: cut it.
                let room = width.saturating_sub(columns(&current)).max(1);
                current.push_str(&word.chars().take(room.saturating_sub(1)).collect::<String>());
                current.push('…');
                continue;
            }
            if !current.trim().is_empty() {
                current.push(' ');
            } else if current.is_empty() {
                current.push_str(&indent);
            }
            current.push_str(word);
        }
        out.push_str(&current);
        out.push_str(nl);
    }
    out
}

/// Display columns of `s`, ignoring ANSI colour sequences.
fn columns(s: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in s.chars() {
        match (escape, c) {
            (false, '\u{1b}') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => n += 1,
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
        assert!(fit("abcdefghijklmnop", 8).lines().all(|l| l.chars().count() <= 8));
        assert_eq!(fit("short\n", 80), "short\n");
    }
}
