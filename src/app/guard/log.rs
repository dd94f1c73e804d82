//! `falseok guard log`: the verdicts the guard kept, session by session,
//! oldest first: one line each, or one JSON object per line. For each
//! intervention (the agent told, a call denied, a turn ended) it says
//! whether the agent recovered: after how many results of the same tool
//! the first success came, in the guard's own record of the session.

use std::io::Write;

use super::state::Verdict;
use crate::cli::GuardLogArgs;
use crate::error::{Error, Result};
use crate::render::plural;

/// The guard acted on this verdict.
fn intervened(v: &Verdict) -> bool {
    matches!(v.action.as_str(), "context" | "deny" | "stop")
}

/// For each verdict, if it is an intervention: the results of its tool in
/// its session after it until the first success, that success included
/// (`Some(None)`: no success yet).
pub(super) fn recoveries(verdicts: &[Verdict]) -> Vec<Option<Option<usize>>> {
    verdicts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            intervened(v).then(|| {
                let later = verdicts[i + 1..]
                    .iter()
                    .filter(|w| w.session == v.session && w.tool == v.tool && w.event == "after");
                later.enumerate().find(|(_, w)| w.verdict == "success").map(|(n, _)| n + 1)
            })
        })
        .collect()
}

pub(super) fn run(args: &GuardLogArgs, out: &mut dyn Write) -> Result<()> {
    let dir = super::state::dir(args.state_dir.as_deref()).map_err(Error::Usage)?;
    let mut verdicts = super::state::verdicts(&dir);
    if let Some(prefix) = &args.session {
        // The log keeps ids redacted: one holding a secret is found by the
        // id as written too.
        let hidden = crate::redact::Redaction::On.apply(prefix);
        verdicts.retain(|v| v.session.starts_with(prefix.as_str()) || v.session.starts_with(hidden.as_ref()));
    }
    // By time, then as kept: a session's verdicts stay in their order.
    verdicts.sort_by(|a, b| a.time.cmp(&b.time));
    let recovered = recoveries(&verdicts);
    if args.json {
        for (v, r) in verdicts.iter().zip(&recovered) {
            let mut line = serde_json::to_value(v).map_err(|e| Error::Output(e.into()))?;
            if let Some(after) = r {
                line["recovered_after"] = serde_json::json!(after);
            }
            serde_json::to_writer(&mut *out, &line).map_err(|e| Error::Output(e.into()))?;
            writeln!(out)?;
        }
        return Ok(());
    }
    if verdicts.is_empty() {
        writeln!(out, "No verdict kept in {} (the guard has not run, or its sessions went quiet).", dir.display())?;
        return Ok(());
    }
    for (v, r) in verdicts.iter().zip(&recovered) {
        let what = match (&v.category, v.streak) {
            (Some(c), n) if n > 1 => format!("{} {c} ×{n}", v.verdict),
            (Some(c), _) => format!("{} {c}", v.verdict),
            (None, _) => v.verdict.clone(),
        };
        let after = match r {
            Some(Some(n)) => format!(" → a success {} later", plural(*n as u64, "result")),
            Some(None) => " → no success since".to_string(),
            None => String::new(),
        };
        let session: String = v.session.chars().take(12).collect();
        writeln!(
            out,
            "{}  {:<11} {:<12} {:<6} {:<16} {:<36} {}{after}",
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
    let interventions = recovered.iter().flatten().count();
    let helped = recovered.iter().flatten().flatten().count();
    writeln!(
        out,
        "{} in {}: {} hidden, {} flagged; {} ({} told, {} denied), {} followed by a success of the tool",
        plural(verdicts.len() as u64, "verdict"),
        plural(sessions.len() as u64, "session"),
        verdicts.iter().filter(|v| v.verdict == "hidden").count(),
        verdicts.iter().filter(|v| v.verdict == "flagged").count(),
        plural(interventions as u64, "intervention"),
        count("context"),
        count("deny") + count("stop"),
        helped
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(session: &str, tool: &str, event: &str, verdict: &str, action: &str) -> Verdict {
        Verdict {
            time: String::new(),
            session: session.into(),
            agent: "claude-code".into(),
            event: event.into(),
            tool: tool.into(),
            call_id: String::new(),
            verdict: verdict.into(),
            category: None,
            template: None,
            streak: 0,
            action: action.into(),
        }
    }

    #[test]
    fn recovery_counts_the_tools_results_of_the_session_until_a_success() {
        let log = vec![
            v("s", "Bash", "after", "hidden", "context"),
            v("s", "Read", "after", "success", "none"),
            v("t", "Bash", "after", "success", "none"),
            v("s", "Bash", "before", "repeat", "deny"),
            v("s", "Bash", "after", "flagged", "none"),
            v("s", "Bash", "after", "success", "none"),
            v("s", "Edit", "after", "hidden", "context"),
        ];
        let r = recoveries(&log);
        assert_eq!(r, vec![Some(Some(2)), None, None, Some(Some(2)), None, None, Some(None)]);
    }
}
