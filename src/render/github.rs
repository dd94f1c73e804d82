//! `--format github`: GitHub Actions workflow commands. Errors first, capped
//! as GitHub caps them (10 error and 10 warning annotations per step, 50 per
//! job), with a closing notice saying how many were left out.

use std::io::Write;

use crate::error::Result;
use crate::rules::{FindingRule, Severity};
use crate::sanitize::{one_line, truncate};

/// Error annotations GitHub shows per step; more are left out.
pub const MAX_ERRORS: usize = 10;
/// Warning annotations GitHub shows per step; more are left out.
pub const MAX_WARNINGS: usize = 10;

/// Escape an annotation message (the toolkit's `escapeData`).
pub fn data(s: &str) -> String {
    one_line(s).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escape an annotation property such as `title` (`escapeProperty`).
pub fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Annotations for the findings (those beyond the baseline, under a gate),
/// and, when a gate ran and failed, its verdict first. `scan` passes no
/// gate: it reports, and never says the check failed.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let (report, verdict) = (view.report, view.verdict);
    let (mut errors, mut warnings, mut left_out) = (0usize, 0usize, 0usize);
    let mut emit = |level: &str, title: &str, message: &str, out: &mut dyn Write| -> Result<()> {
        let (count, max) = if level == "error" { (&mut errors, MAX_ERRORS) } else { (&mut warnings, MAX_WARNINGS) };
        if *count >= max {
            left_out += 1;
            return Ok(());
        }
        *count += 1;
        writeln!(out, "::{level} title={}::{}", property(title), data(&truncate(message, 1000)))?;
        Ok(())
    };
    if let Some((v, g)) = verdict
        && !v.passed()
    {
        emit("error", "falseok check", &v.sentence(report, g), out)?;
    }
    let mut order: Vec<usize> = match verdict {
        Some((v, _)) => v.new_findings.clone(),
        None => (0..report.findings.len()).collect(),
    };
    // Most severe first: the streaks a guard missed, then other errors, then warnings.
    order.sort_by_key(|&i| {
        (report.findings[i].severity != Severity::Error, report.findings[i].rule != FindingRule::GuardBlindStreak, i)
    });
    for i in order {
        let f = &report.findings[i];
        let level = f.severity.as_str();
        let title = match &f.tool {
            Some(t) => format!("falseok {} ({t})", f.rule),
            None => format!("falseok {}", f.rule),
        };
        let mut place = String::new();
        if !f.source.is_empty() {
            place = format!(" [{}, session {}", f.source, f.session);
            if let (Some(seq), Some(id)) = (f.seq, &f.call_id) {
                place.push_str(&format!(", call {seq} ({id})"));
            }
            place.push(']');
        }
        emit(level, &title, &format!("{}{place}", f.message), out)?;
    }
    if left_out > 0 {
        writeln!(
            out,
            "::notice title=falseok::{}",
            data(&format!(
                "{left_out} more findings were not annotated (GitHub shows {MAX_ERRORS} errors and {MAX_WARNINGS} warnings per step); see the job summary (--summary) or --format json"
            ))
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("50% done\nnext"), "50%25 done next");
        assert_eq!(property("a: b, c"), "a%3A b%2C c");
        assert_eq!(data("::error::forged"), "::error::forged", "harmless without a line start");
        assert_eq!(data("x\u{1b}]8;;http://e\u{7}y"), "xy");
    }
}
