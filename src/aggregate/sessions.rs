//! Sessions one by one, worst first: what each did, what its failures cost,
//! and a grade that hidden errors and guard-blind streaks weigh in (the
//! formula is in docs/analyses.md, "Session grades").

use std::cmp::Reverse;

use crate::judge::{JudgedSession, Outcome};
use crate::report::SessionRow;

use super::Filters;

/// The points a session starts from and the grade boundaries: A from 90,
/// B from 80, C from 70, D from 60, F below.
const BOUNDS: [(i64, &str); 4] = [(90, "A"), (80, "B"), (70, "C"), (60, "D")];

/// Penalties: per hidden error, at most `HIDDEN_CAP` in all; per
/// guard-blind streak; per abandoned failure, at most `ABANDONED_CAP`.
const PER_HIDDEN: i64 = 3;
const HIDDEN_CAP: i64 = 45;
const PER_BLIND_STREAK: i64 = 20;
const PER_ABANDONED: i64 = 5;
const ABANDONED_CAP: i64 = 25;

/// The row of one judged session, counting the calls `filters` keep;
/// `None` when it has none. `source` is the PATH it was read from.
pub(crate) fn row(s: &JudgedSession, source: &str, filters: &Filters, threshold: usize) -> Option<SessionRow> {
    let counted = |i: usize| filters.call_ok(&s.calls[i]);
    let kept: Vec<usize> = (0..s.calls.len()).filter(|&i| counted(i)).collect();
    if kept.is_empty() {
        return None;
    }
    let (mut errors, mut flagged, mut hidden) = (0u64, 0u64, 0u64);
    for &i in &kept {
        if let Outcome::Failed(f) = &s.calls[i].outcome {
            errors += 1;
            flagged += u64::from(f.flagged);
            hidden += u64::from(f.is_hidden());
        }
    }
    let q = &s.sequences;
    let blind = q.streaks.iter().filter(|st| st.len >= threshold && st.all_hidden && counted(st.calls[0])).count();
    let fates: Vec<_> = q.fates.iter().filter(|f| counted(f.call)).collect();
    let abandoned = fates.iter().filter(|f| f.abandoned).count() as u64;
    let retries = fates.iter().map(|f| f.retries as u64).sum();
    // Failures overlap (two abandoned failures both run to the end): the
    // session lost the time their intervals cover, never more than it lasted.
    let mut spans: Vec<(i64, i64)> = fates
        .iter()
        .filter_map(|f| {
            let from = s.calls[f.call].time?.timestamp_millis();
            Some((from, from.saturating_add(i64::try_from(f.lost_ms?).unwrap_or(i64::MAX))))
        })
        .collect();
    let lost_ms = covered(&mut spans);
    let times = kept.iter().flat_map(|&i| [s.calls[i].time, s.calls[i].result.as_ref().and_then(|r| r.time)]).flatten();
    let (first, last) = times.fold((None, None), |(lo, hi): (Option<_>, Option<_>), t| {
        (
            Some(lo.map_or(t, |l: chrono::DateTime<chrono::Utc>| l.min(t))),
            Some(hi.map_or(t, |h: chrono::DateTime<chrono::Utc>| h.max(t))),
        )
    });
    let start = s.started.filter(|_| filters.since.is_none() && filters.until.is_none()).or(first);
    let duration_ms = match (start.or(first), last) {
        (Some(a), Some(b)) => Some(u64::try_from((b - a).num_milliseconds()).unwrap_or(0)),
        _ => None,
    };
    let calls = kept.len() as u64;
    let prices = crate::prices::active();
    let costs = crate::judge::tokens::failure_costs(s, prices);
    let with_usage: Vec<usize> = kept.iter().copied().filter(|&i| s.calls[i].usage.is_some()).collect();
    let tokens = (!with_usage.is_empty()).then(|| {
        with_usage
            .iter()
            .fold(0u64, |a, &i| a.saturating_add(s.calls[i].share_of(crate::judge::Usage::tokens).unwrap_or(0)))
    });
    let spent: Vec<_> = kept.iter().filter_map(|&i| costs.get(i).copied().flatten()).collect();
    let failure_tokens = tokens.map(|_| spent.iter().fold(0u64, |a, c| a.saturating_add(c.tokens())));
    let priced: Vec<u64> = spent.iter().filter_map(|c| c.micros).collect();
    let failure_dollars =
        (!priced.is_empty()).then(|| priced.iter().fold(0u64, |a, &m| a.saturating_add(m)) as f64 / 1e6);
    let cost = match (tokens, failure_tokens) {
        (Some(t), Some(f)) if f > 0 => Some(Cost { failure_tokens: f, tokens: t, dollars: failure_dollars }),
        _ => None,
    };
    let (grade, score, reasons) = grade_with_cost(calls, errors, hidden, blind as u64, abandoned, cost);
    let file = s.origin.as_deref().map(|o| relative(o, source));
    Some(SessionRow {
        session: s.id.clone(),
        parent: s.parent.clone(),
        agent: s.dialect.to_string(),
        source: source.to_string(),
        file,
        start: start.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        duration_ms,
        calls,
        errors,
        flagged_errors: flagged,
        hidden_errors: hidden,
        guard_blind_streaks: blind as u64,
        abandoned,
        retries,
        lost_ms,
        tokens,
        failure_tokens,
        failure_dollars,
        grade: grade.to_string(),
        score,
        reasons,
    })
}

/// Milliseconds the intervals cover together.
fn covered(spans: &mut [(i64, i64)]) -> u64 {
    spans.sort_unstable();
    let mut total: i64 = 0;
    let mut reach = i64::MIN;
    for &(from, to) in spans.iter() {
        let from = from.max(reach);
        if to > from {
            total = total.saturating_add(to - from);
        }
        reach = reach.max(to);
    }
    u64::try_from(total).unwrap_or(0)
}

/// `file` below the folder `source`, when it is.
fn relative(file: &str, source: &str) -> String {
    let root = source.trim_end_matches('/');
    match file.strip_prefix(root).and_then(|r| r.strip_prefix('/')) {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => file.to_string(),
    }
}

/// The grade, the score and the reasons that decide them (docs/analyses.md).
///
/// Score: 100, minus the error rate in points (12% costs 12), minus 3 per
/// hidden error (at most 45), 20 per guard-blind streak, 5 per abandoned
/// failure (at most 25). Grade: A from 90, B from 80, C from 70, D from 60,
/// else F; then capped: any hidden error at most B, 5 or more at most C, a
/// guard-blind streak at most D.
#[cfg(test)]
pub(crate) fn grade(
    calls: u64,
    errors: u64,
    hidden: u64,
    blind: u64,
    abandoned: u64,
) -> (&'static str, i64, Vec<String>) {
    grade_with_cost(calls, errors, hidden, blind, abandoned, None)
}

/// What a session's failures cost, for its grade.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cost {
    pub failure_tokens: u64,
    pub tokens: u64,
    pub dollars: Option<f64>,
}

/// The most points the failures' share of the session's tokens costs.
const COST_CAP: i64 = 20;

/// `grade`, with what the failures cost where the trace records usage:
/// their share of the session's tokens costs up to `COST_CAP` points (all
/// of them at 100%), said among the reasons.
pub(crate) fn grade_with_cost(
    calls: u64,
    errors: u64,
    hidden: u64,
    blind: u64,
    abandoned: u64,
    cost: Option<Cost>,
) -> (&'static str, i64, Vec<String>) {
    let mut penalties: Vec<(i64, String)> = Vec::new();
    if let Some(c) = cost {
        let share = (c.failure_tokens as f64 / c.tokens.max(1) as f64).min(1.0);
        let points = (share * COST_CAP as f64).round() as i64;
        let dollars = c.dollars.map_or(String::new(), |d| format!(", {}", crate::prices::dollars(d)));
        penalties.push((
            points,
            format!(
                "failures cost {} tokens{dollars}, {}% of the session's (-{points})",
                crate::prices::tokens(c.failure_tokens),
                (share * 100.0).round()
            ),
        ));
    }
    let rate_points = if calls == 0 { 0 } else { ((errors as f64 / calls as f64) * 100.0).round() as i64 };
    if rate_points > 0 {
        penalties.push((rate_points, format!("error rate {rate_points}% (-{rate_points})")));
    }
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let hidden_points = clamp(hidden).saturating_mul(PER_HIDDEN).min(HIDDEN_CAP);
    let blind_points = clamp(blind).saturating_mul(PER_BLIND_STREAK);
    let abandoned_points = clamp(abandoned).saturating_mul(PER_ABANDONED).min(ABANDONED_CAP);
    let cap = if blind > 0 {
        Some("D")
    } else if hidden >= 5 {
        Some("C")
    } else if hidden > 0 {
        Some("B")
    } else {
        None
    };
    if hidden > 0 {
        let capped = if blind > 0 { String::new() } else { format!(", at most {}", cap.unwrap_or("B")) };
        penalties.push((hidden_points, format!("{} (-{hidden_points}{capped})", count(hidden, "hidden error"))));
    }
    if blind > 0 {
        penalties.push((blind_points, format!("{} (-{blind_points}, at most D)", count(blind, "guard-blind streak"))));
    }
    if abandoned > 0 {
        penalties.push((abandoned_points, format!("{} (-{abandoned_points})", count(abandoned, "abandoned failure"))));
    }
    let score = penalties.iter().fold(100i64, |s, (p, _)| s.saturating_sub(*p));
    let by_score = BOUNDS.iter().find(|(from, _)| score >= *from).map_or("F", |(_, g)| g);
    // Letters compare in order: the worse of the score's grade and the cap.
    let grade = match cap {
        Some(c) if c > by_score => c,
        _ => by_score,
    };
    penalties.sort_by_key(|(p, _)| Reverse(*p));
    let mut reasons: Vec<String> = penalties.into_iter().map(|(_, r)| r).collect();
    if reasons.is_empty() {
        reasons.push(if errors == 0 { "no failed call".into() } else { "every failure flagged and retried".into() });
    }
    (grade, score, reasons)
}

fn count(n: u64, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// Worst first, by what the tool is about: guard-blind streaks, then hidden
/// errors, then grade, score, errors, then source and id. A one-call
/// sub-agent whose only call failed scores low, but a session whose
/// failures no flag-reading guard saw comes before it (docs/analyses.md).
pub(crate) fn sort(rows: &mut [SessionRow]) {
    rows.sort_by(|a, b| {
        b.guard_blind_streaks
            .cmp(&a.guard_blind_streaks)
            .then(b.hidden_errors.cmp(&a.hidden_errors))
            .then(b.grade.cmp(&a.grade))
            .then(a.score.cmp(&b.score))
            .then(b.errors.cmp(&a.errors))
            .then(a.source.cmp(&b.source))
            .then(a.session.cmp(&b.session))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_by_hand() {
        // Clean: A.
        assert_eq!(grade(100, 0, 0, 0, 0), ("A", 100, vec!["no failed call".to_string()]));
        // 5% flagged errors, all retried: 95, A.
        assert_eq!(grade(100, 5, 0, 0, 0).0, "A");
        // One hidden error in a long clean session: 97 by points, capped at B.
        let (g, s, r) = grade(1000, 1, 1, 0, 0);
        assert_eq!((g, s), ("B", 97));
        assert_eq!(r, vec!["1 hidden error (-3, at most B)".to_string()]);
        // Five hidden errors never grade A or B, however many calls.
        for calls in [5, 50, 5_000, 5_000_000] {
            let g = grade(calls, 5, 5, 0, 0).0;
            assert!(g >= "C", "{calls} calls: {g}");
        }
        // A guard-blind streak: at most D (a streak of 2 under
        // `--streak-threshold 2` leaves 74 points, which would be C).
        let (g, s, r) = grade(1000, 2, 2, 1, 0);
        assert_eq!((g, s), ("D", 100 - 6 - 20));
        assert_eq!(r, vec!["1 guard-blind streak (-20, at most D)", "2 hidden errors (-6)"]);
        // Below 60 it is F whatever the caps.
        assert_eq!(
            grade(1000, 7, 7, 1, 0),
            (
                "F",
                58,
                vec![
                    "7 hidden errors (-21)".to_string(),
                    "1 guard-blind streak (-20, at most D)".to_string(),
                    "error rate 1% (-1)".to_string(),
                ]
            )
        );
        // Crush's 136 real failures in 300 calls: F.
        assert_eq!(grade(300, 136, 136, 3, 4).0, "F");
        // Abandoned failures cost, capped.
        assert_eq!(
            grade(100, 10, 0, 0, 10),
            ("D", 65, vec!["10 abandoned failures (-25)".to_string(), "error rate 10% (-10)".to_string()])
        );
    }

    #[test]
    fn overlapping_failures_lose_the_time_once() {
        assert_eq!(covered(&mut [(0, 10), (5, 20), (30, 40), (35, 36)]), 30);
        assert_eq!(covered(&mut []), 0);
    }

    #[test]
    fn worst_first() {
        let mk = |id: &str, grade: &str, score: i64| SessionRow {
            session: id.into(),
            parent: None,
            agent: "peri".into(),
            source: "db".into(),
            file: None,
            start: None,
            duration_ms: None,
            calls: 1,
            errors: 0,
            flagged_errors: 0,
            hidden_errors: 0,
            guard_blind_streaks: 0,
            abandoned: 0,
            retries: 0,
            lost_ms: 0,
            tokens: None,
            failure_tokens: None,
            failure_dollars: None,
            grade: grade.into(),
            score,
            reasons: vec![],
        };
        let mut rows = vec![mk("a", "A", 100), mk("f", "F", 10), mk("c", "C", 75), mk("d", "F", 5)];
        sort(&mut rows);
        let ids: Vec<_> = rows.iter().map(|r| r.session.as_str()).collect();
        assert_eq!(ids, vec!["d", "f", "c", "a"]);
        // Issue 50: a one-call sub-agent whose call failed (score -5) comes
        // after a session with 6 hidden errors, and both after a guard-blind
        // streak, whatever their scores.
        let sub = SessionRow { errors: 1, abandoned: 1, ..mk("sub", "F", -5) };
        let hidden = SessionRow { errors: 6, hidden_errors: 6, ..mk("hidden", "C", 70) };
        let blind = SessionRow { errors: 3, hidden_errors: 3, guard_blind_streaks: 1, ..mk("blind", "D", 61) };
        let mut rows = vec![sub, mk("a", "A", 100), hidden, blind];
        sort(&mut rows);
        let ids: Vec<_> = rows.iter().map(|r| r.session.as_str()).collect();
        assert_eq!(ids, vec!["blind", "hidden", "sub", "a"]);
    }
}
