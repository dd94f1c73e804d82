//! `--format csv`: one row per tool × category, for spreadsheets. Cells are
//! sanitized to one line and neutralized against formula injection.

use std::io::Write;

use crate::error::Result;
use crate::sanitize::one_line;

/// A cell a spreadsheet will not evaluate: text starting with `=`, `+`,
/// `-`, `@` (or a tab or CR) gets a leading apostrophe.
pub fn cell(s: &str) -> String {
    let t = one_line(s);
    match t.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{t}"),
        _ => t,
    }
}

/// Writes the report as CSV, one row per tool and category.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let report = view.report;
    let mut w = csv::Writer::from_writer(out);
    let io = |e: csv::Error| crate::error::Error::Output(std::io::Error::other(e));
    w.write_record([
        "tool",
        "category",
        "errors",
        "hidden_errors",
        "share_of_tool_errors",
        "tool_calls",
        "tool_errors",
        "tool_error_rate",
    ])
    .map_err(io)?;
    for t in &report.tools {
        let rows: Vec<_> = report.categories.iter().filter(|c| c.tool == t.tool).collect();
        if rows.is_empty() {
            w.write_record([
                cell(&t.tool),
                String::new(),
                "0".into(),
                "0".into(),
                String::new(),
                t.calls.to_string(),
                "0".into(),
                format!("{:.6}", t.error_rate),
            ])
            .map_err(io)?;
        }
        for c in rows {
            w.write_record([
                cell(&t.tool),
                cell(&c.category),
                c.errors.to_string(),
                c.hidden_errors.to_string(),
                format!("{:.6}", c.errors as f64 / t.errors.max(1) as f64),
                t.calls.to_string(),
                t.errors.to_string(),
                format!("{:.6}", t.error_rate),
            ])
            .map_err(io)?;
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formula_injection_is_neutralized() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(cell("+1"), "'+1");
        assert_eq!(cell("-2"), "'-2");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("Edit"), "Edit");
        assert_eq!(cell("a\nb"), "a b");
    }
}
