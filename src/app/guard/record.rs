//! The guard's record as `scan` reports it (`guard[]` of the JSON contract,
//! the table's "Guard" section): per scanned session the guard acted in,
//! each intervention and whether the agent recovered after it. Recovery is
//! counted in the guard's own record of the session, as `guard log` counts
//! it, so the two never disagree: the results of the same tool after the
//! intervention, up to and including the first success.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::aggregate::Filters;
use crate::redact::Redaction;
use crate::report::{GuardSession, Intervention};

/// The interventions the guard kept in `state_dir` (the default folder when
/// `None`) for the sessions of `sessions`, within the scan's time window and
/// tools, by session. No folder, or nothing kept there: nothing.
pub(crate) fn for_sessions(
    state_dir: Option<&Path>,
    sessions: &BTreeSet<String>,
    filters: &Filters,
    redaction: Redaction,
) -> Vec<GuardSession> {
    if sessions.is_empty() {
        return Vec::new();
    }
    let Ok(dir) = super::state::dir(state_dir) else { return Vec::new() };
    let mut verdicts = super::state::verdicts(&dir);
    if verdicts.is_empty() {
        return Vec::new();
    }
    verdicts.retain(|v| sessions.contains(redaction.apply(&v.session).as_ref()));
    // By time, then as kept: a session's verdicts stay in their order.
    verdicts.sort_by(|a, b| a.time.cmp(&b.time));
    let recovered = super::log::recoveries(&verdicts);
    let mut out: BTreeMap<String, GuardSession> = BTreeMap::new();
    for (v, r) in verdicts.iter().zip(recovered) {
        let Some(after) = r else { continue };
        let time = chrono::DateTime::parse_from_rfc3339(&v.time).ok().map(|t| t.with_timezone(&chrono::Utc));
        let tool = redaction.apply(&v.tool).into_owned();
        if !filters.time_ok(time) || !(filters.tools.is_empty() || filters.tools.contains(&tool)) {
            continue;
        }
        let session = redaction.apply(&v.session).into_owned();
        let intervention = Intervention {
            time: v.time.clone(),
            tool,
            call_id: redaction.apply(&v.call_id).into_owned(),
            action: v.action.clone(),
            category: v.category.clone(),
            streak: v.streak as u64,
            recovered_after: after.map(|n| n as u64),
        };
        let g = out.entry(session.clone()).or_insert_with(|| GuardSession {
            session,
            agent: v.agent.clone(),
            interventions: Vec::new(),
        });
        g.interventions.push(intervention);
    }
    out.into_values().collect()
}
