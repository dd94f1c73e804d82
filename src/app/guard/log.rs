//! `falseok guard log`: the verdicts the guard kept, session by session,
//! oldest first: one line each, or one JSON object per line.

use std::io::Write;

use crate::cli::GuardLogArgs;
use crate::error::{Error, Result};

pub(super) fn run(args: &GuardLogArgs, out: &mut dyn Write) -> Result<()> {
    let dir = super::state::dir(args.state_dir.as_deref()).map_err(Error::Usage)?;
    let mut verdicts = super::state::verdicts(&dir);
    if let Some(prefix) = &args.session {
        verdicts.retain(|v| v.session.starts_with(prefix.as_str()));
    }
    // By time, then as kept: a session's verdicts stay in their order.
    verdicts.sort_by(|a, b| a.time.cmp(&b.time));
    if args.json {
        for v in &verdicts {
            serde_json::to_writer(&mut *out, v).map_err(|e| Error::Output(e.into()))?;
            writeln!(out)?;
        }
        return Ok(());
    }
    if verdicts.is_empty() {
        writeln!(out, "No verdict kept in {} (the guard has not run, or its sessions went quiet).", dir.display())?;
        return Ok(());
    }
    for v in &verdicts {
        let what = match (&v.category, v.streak) {
            (Some(c), n) if n > 1 => format!("{} {c} ×{n}", v.verdict),
            (Some(c), _) => format!("{} {c}", v.verdict),
            (None, _) => v.verdict.clone(),
        };
        let session: String = v.session.chars().take(12).collect();
        writeln!(
            out,
            "{}  {:<11} {:<12} {:<6} {:<16} {:<36} {}",
            v.time,
            v.agent,
            session,
            v.event,
            crate::sanitize::one_line(&v.tool),
            what,
            v.action
        )?;
    }
    let count = |action: &str| verdicts.iter().filter(|v| v.action == action).count();
    let sessions: std::collections::BTreeSet<&str> = verdicts.iter().map(|v| v.session.as_str()).collect();
    writeln!(
        out,
        "{} verdicts in {} sessions: {} hidden, {} flagged, {} told, {} denied",
        verdicts.len(),
        sessions.len(),
        verdicts.iter().filter(|v| v.verdict == "hidden").count(),
        verdicts.iter().filter(|v| v.verdict == "flagged").count(),
        count("context"),
        count("deny") + count("stop")
    )?;
    Ok(())
}
