//! `falseok sessions`: the sessions worst first, as a table, JSON
//! (`schema/sessions-v2.schema.json`) or CSV.

use std::io::Write;

use comfy_table::Cell;

use super::table::{Style, count_cell, new_table, right_align, write_table};
use super::{csv::cell, duration};
use crate::error::Result;
use crate::report::SessionsReport;
use crate::sanitize::{one_line, truncate};

/// Writes the sessions as a table, worst first, with why each is graded so.
pub fn table(r: &SessionsReport, style: &Style, out: &mut dyn Write) -> Result<()> {
    if r.sessions.is_empty() {
        writeln!(out, "No session with a counted call.")?;
        return Ok(());
    }
    let mut t = new_table(
        style,
        &[
            "grade",
            "session",
            "agent",
            "start",
            "duration",
            "calls",
            "errors",
            "hidden",
            "blind",
            "abandoned",
            "lost",
            "tokens lost",
        ],
    );
    for s in &r.sessions {
        t.add_row(vec![
            Cell::new(&s.grade),
            Cell::new(truncate(&one_line(&s.session), 64)),
            Cell::new(one_line(&s.agent)),
            Cell::new(
                s.start.as_deref().map_or("-".to_string(), |t| t.replace('T', " ").trim_end_matches('Z').to_string()),
            ),
            Cell::new(s.duration_ms.map_or("-".to_string(), duration)),
            Cell::new(s.calls),
            Cell::new(s.errors),
            count_cell(s.hidden_errors, style.color),
            count_cell(s.guard_blind_streaks, style.color),
            Cell::new(s.abandoned),
            Cell::new(duration(s.lost_ms)),
            Cell::new(match (s.failure_tokens, s.failure_dollars) {
                (None, _) => "-".to_string(),
                (Some(t), None) => crate::prices::tokens(t),
                (Some(t), Some(d)) => format!("{} ({})", crate::prices::tokens(t), crate::prices::dollars(d)),
            }),
        ]);
    }
    right_align(&mut t, 5);
    let mut text = Vec::new();
    // On a narrow terminal: start, duration, agent, abandoned, lost, tokens
    // lost, blind, errors and calls go first; grade, session and hidden stay.
    write_table(&mut text, &mut t, style, &[3, 4, 2, 9, 10, 11, 8, 6, 5])?;
    writeln!(text, "Why:")?;
    for s in &r.sessions {
        writeln!(text, "  {} {} ({}): {}", s.grade, one_line(&s.session), s.score, one_line(&s.reasons.join("; ")))?;
    }
    writeln!(text, "{} of {} sessions shown, worst first (--limit N; 0 for all).", r.shown, r.total)?;
    if let Some(worst) = r.sessions.first() {
        writeln!(text, "Next: falseok show {} {}", one_line(&worst.session), one_line(&worst.source))?;
    }
    let text = String::from_utf8_lossy(&text);
    match style.width {
        Some(w) => out.write_all(super::fit(&text, usize::from(w)).as_bytes())?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}

/// Writes the sessions as JSON (`schema/sessions-v2.schema.json`).
pub fn json(r: &SessionsReport, out: &mut dyn Write) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, r).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// Writes the sessions as CSV, one row per session.
pub fn csv(r: &SessionsReport, out: &mut dyn Write) -> Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    let io = |e: ::csv::Error| crate::error::Error::Output(std::io::Error::other(e));
    w.write_record([
        "grade",
        "score",
        "session",
        "parent",
        "agent",
        "source",
        "file",
        "start",
        "duration_ms",
        "calls",
        "errors",
        "flagged_errors",
        "hidden_errors",
        "guard_blind_streaks",
        "abandoned",
        "retries",
        "lost_ms",
        "tokens",
        "failure_tokens",
        "failure_dollars",
        "reasons",
    ])
    .map_err(io)?;
    let opt = |v: Option<u64>| v.map_or(String::new(), |n| n.to_string());
    for s in &r.sessions {
        w.write_record([
            cell(&s.grade),
            s.score.to_string(),
            cell(&s.session),
            cell(s.parent.as_deref().unwrap_or("")),
            cell(&s.agent),
            cell(&s.source),
            cell(s.file.as_deref().unwrap_or("")),
            cell(s.start.as_deref().unwrap_or("")),
            opt(s.duration_ms),
            s.calls.to_string(),
            s.errors.to_string(),
            s.flagged_errors.to_string(),
            s.hidden_errors.to_string(),
            s.guard_blind_streaks.to_string(),
            s.abandoned.to_string(),
            s.retries.to_string(),
            s.lost_ms.to_string(),
            opt(s.tokens),
            opt(s.failure_tokens),
            s.failure_dollars.map_or(String::new(), |d| format!("{d:.6}")),
            cell(&s.reasons.join("; ")),
        ])
        .map_err(io)?;
    }
    w.flush()?;
    Ok(())
}
