//! The hint after `scan`: the next commands, for the person reading the
//! table on a terminal. Written to stderr only when stdout and stderr are
//! both terminals and the format is `table`, so it never reaches a file, a
//! pipe, a machine format or a CI log.

use std::io::Write;
use std::path::PathBuf;

use crate::error::Result;
use crate::report::Report;
use crate::rules::FindingRule;
use crate::sanitize::one_line;

/// `word` as the shell reads it back (quoted when it must be).
fn quoted(word: &str) -> String {
    let word = one_line(word);
    shlex::try_quote(&word).map_or_else(|_| word.clone(), |q| q.into_owned())
}

/// The PATHs (and `--source-format`) a follow-up command takes to read what
/// the scan read; none when the scan read the default locations.
fn reading(paths: &[PathBuf], source_format: Option<&str>) -> String {
    let mut words: Vec<String> = paths.iter().map(|p| quoted(&p.display().to_string())).collect();
    if let Some(f) = source_format {
        words.push(format!("--source-format {}", quoted(f)));
    }
    words.iter().map(|w| format!(" {w}")).collect()
}

/// The hint lines after a scan's table: `examples` for the hidden errors
/// (or the flagged ones), and `show` for the session with the most hidden
/// errors. Nothing when no call failed.
pub(crate) fn after_scan(report: &Report, paths: &[PathBuf], source_format: Option<&str>) -> Vec<String> {
    let tot = &report.totals;
    if tot.errors == 0 {
        return Vec::new();
    }
    let args = reading(paths, source_format);
    let what = if tot.hidden_errors > 0 { "the hidden errors" } else { "the errors" };
    let mut lines = vec![format!("Next: {what}, call by call:"), format!("  falseok examples{args}")];
    // The session with the most hidden errors, first met on a tie.
    let mut by_session: Vec<(&str, &str, u64)> = Vec::new();
    for f in report.findings.iter().filter(|f| f.rule == FindingRule::HiddenError) {
        match by_session.iter_mut().find(|(src, s, _)| *s == f.session && *src == f.source) {
            Some(e) => e.2 += 1,
            None => by_session.push((&f.source, &f.session, 1)),
        }
    }
    let worst = by_session.iter().fold(None, |best: Option<&(&str, &str, u64)>, e| match best {
        Some(b) if b.2 >= e.2 => Some(b),
        _ => Some(e),
    });
    if let Some((source, session, n)) = worst {
        // That session's source alone, when it is one of the PATHs given.
        let given = paths.iter().any(|p| p.display().to_string() == *source);
        let args = if given { reading(&[PathBuf::from(source)], source_format) } else { args };
        lines.push(format!("and the session with the most of them ({n}):"));
        lines.push(format!("  falseok show {}{args}", quoted(session)));
    }
    lines
}

/// Write the hint to `err`.
pub(crate) fn write(lines: &[String], err: &mut dyn Write) -> Result<()> {
    for l in lines {
        writeln!(err, "{l}")?;
    }
    Ok(())
}
