//! Aggregating the per-session sequence analyses (streaks, recovery,
//! repairs, feedback) into report rows.

use std::collections::BTreeMap;

use crate::judge::sequence::{self, SessionSequences};
use crate::judge::{Failure, JudgedCall, JudgedSession, Outcome};
use crate::prices::micros;
use crate::report::{CostRow, FeedbackRow, RecoveryRow, RepairRow, StreakReport, StreakRow};

#[derive(Default)]
struct Recovery {
    failures: u64,
    recovered: u64,
    at: [u64; 3],
    /// Recovered failures by calls until the first success: a histogram,
    /// never a list (a merged report may count billions).
    attempts: BTreeMap<u64, u64>,
    identical: u64,
    identical_ok: u64,
    abandoned: u64,
    retries: u64,
    timed: u64,
    lost_ms: u64,
    with_usage: u64,
    own_tokens: u64,
    retry_tokens: u64,
    rent_tokens: u64,
    /// Millionths of a dollar, summed as integers so that any order of
    /// sessions and merges gives the same figure.
    micros: u64,
    unpriced: u64,
}

#[derive(Default)]
struct Feedback {
    count: u64,
    locates: bool,
    directs: bool,
    recovered_at_1: u64,
}

/// The report sections the sequence analyses fill.
pub(crate) struct Finished {
    pub recovery: Vec<RecoveryRow>,
    pub cost: Vec<CostRow>,
    pub streaks: StreakReport,
    pub repairs: Vec<RepairRow>,
    pub feedback: Vec<FeedbackRow>,
}

/// Accumulates sequence analyses over sessions.
#[derive(Default)]
pub(crate) struct SequenceAgg {
    recovery: BTreeMap<(String, String), Recovery>,
    /// Streaks per tool by length.
    streak_lengths: BTreeMap<String, BTreeMap<u64, u64>>,
    hidden_above: BTreeMap<String, u64>,
    repairs: BTreeMap<(String, String, String, String), u64>,
    repair_events: BTreeMap<(String, String), u64>,
    feedback: BTreeMap<(String, String), Feedback>,
}

fn failure(c: &JudgedCall) -> &Failure {
    match &c.outcome {
        Outcome::Failed(f) => f,
        _ => unreachable!("sequence analyses only point at failed calls"),
    }
}

impl SequenceAgg {
    /// Count the analyses of `s` whose (first) failed call is counted.
    pub(crate) fn add(
        &mut self,
        s: &JudgedSession,
        a: &SessionSequences,
        threshold: usize,
        costs: &[Option<crate::judge::tokens::FailureCost>],
        counted: &dyn Fn(usize) -> bool,
    ) {
        for fate in a.fates.iter().filter(|f| counted(f.call)) {
            let c = &s.calls[fate.call];
            let f = failure(c);
            let r = self.recovery.entry((c.tool.clone(), f.category.as_str().to_string())).or_default();
            r.failures += 1;
            if let Some(n) = fate.attempts {
                r.recovered += 1;
                *r.attempts.entry(n as u64).or_default() += 1;
                if (1..=3).contains(&n) {
                    r.at[n - 1] += 1;
                }
            }
            r.identical += u64::from(fate.identical_retry);
            r.identical_ok += u64::from(fate.identical_retry_succeeded);
            r.abandoned += u64::from(fate.abandoned);
            r.retries = r.retries.saturating_add(fate.retries as u64);
            if let Some(ms) = fate.lost_ms {
                r.timed += 1;
                r.lost_ms = r.lost_ms.saturating_add(ms);
            }
            if let Some(Some(cost)) = costs.get(fate.call) {
                r.with_usage += 1;
                r.own_tokens = r.own_tokens.saturating_add(cost.own);
                r.retry_tokens = r.retry_tokens.saturating_add(cost.retry);
                r.rent_tokens = r.rent_tokens.saturating_add(cost.rent);
                match cost.micros {
                    Some(d) => r.micros = r.micros.saturating_add(d),
                    None => r.unpriced += 1,
                }
            }
            let fb = self.feedback.entry((f.template.clone(), c.tool.clone())).or_default();
            fb.count += 1;
            fb.locates |= sequence::locates(&f.message);
            fb.directs |= sequence::directs(&f.message);
            fb.recovered_at_1 += u64::from(fate.attempts == Some(1));
        }
        for st in a.streaks.iter().filter(|st| counted(st.calls[0])) {
            *self.streak_lengths.entry(st.tool.clone()).or_default().entry(st.len as u64).or_default() += 1;
            if st.len >= threshold && st.all_hidden {
                *self.hidden_above.entry(st.tool.clone()).or_default() += 1;
            }
        }
        for rep in a.repairs.iter().filter(|r| counted(r.failed)) {
            let c = &s.calls[rep.failed];
            let cat = failure(c).category.as_str().to_string();
            *self.repair_events.entry((c.tool.clone(), cat.clone())).or_default() += 1;
            for change in &rep.changes {
                let key = (c.tool.clone(), cat.clone(), change.clone(), rep.kind.as_str().to_string());
                *self.repairs.entry(key).or_default() += 1;
            }
        }
    }

    /// Take in the sequence sections of a finished report (for `merge`):
    /// every row holds the exact counts this aggregator keeps. A row whose
    /// counts contradict each other, or a sum past `u64`, is refused: the
    /// report was not made by a scan.
    pub(crate) fn absorb(
        &mut self,
        recovery: &[RecoveryRow],
        streaks: &StreakReport,
        repairs: &[RepairRow],
        feedback: &[FeedbackRow],
        cost: &[CostRow],
    ) -> Result<(), String> {
        for row in recovery {
            check_recovery(row)?;
            let r = self.recovery.entry((row.tool.clone(), row.category.clone())).or_default();
            add(&mut r.failures, row.failures)?;
            add(&mut r.recovered, row.recovered)?;
            add(&mut r.at[0], row.recovered_at_1)?;
            add(&mut r.at[1], row.recovered_at_2)?;
            add(&mut r.at[2], row.recovered_at_3)?;
            add_histogram(&mut r.attempts, &row.attempts)?;
            add(&mut r.identical, row.identical_retries)?;
            add(&mut r.identical_ok, row.identical_retry_successes)?;
            add(&mut r.abandoned, row.abandoned)?;
        }
        for row in cost {
            // Its failures are its recovery row's, in the same report: a
            // merge writes them so, and must read back what it writes.
            let own = recovery.iter().find(|r| r.tool == row.tool && r.category == row.category);
            let (Some(own), Some(r)) = (own, self.recovery.get_mut(&(row.tool.clone(), row.category.clone()))) else {
                return Err(format!("a cost row ({}, {}) without its recovery row", row.tool, row.category));
            };
            if row.failures != own.failures {
                return Err(format!(
                    "a cost row ({}, {}) of {} failures, where its recovery row has {}",
                    row.tool, row.category, row.failures, own.failures
                ));
            }
            if row.timed > row.failures {
                return Err(format!("a cost row times {} of {} failures", row.timed, row.failures));
            }
            if row.with_usage > row.failures || row.unpriced > row.with_usage {
                return Err(format!(
                    "a cost row ({}, {}) with usage on {} and unpriced {} of {} failures",
                    row.tool, row.category, row.with_usage, row.unpriced, row.failures
                ));
            }
            if !row.dollars.is_finite() || row.dollars < 0.0 {
                return Err(format!("a cost row ({}, {}) of {} dollars", row.tool, row.category, row.dollars));
            }
            add(&mut r.retries, row.retries)?;
            add(&mut r.timed, row.timed)?;
            add(&mut r.lost_ms, row.lost_ms)?;
            add(&mut r.with_usage, row.with_usage)?;
            add(&mut r.own_tokens, row.own_tokens)?;
            add(&mut r.retry_tokens, row.retry_tokens)?;
            add(&mut r.rent_tokens, row.rent_tokens)?;
            add(&mut r.micros, micros(row.dollars))?;
            add(&mut r.unpriced, row.unpriced)?;
        }
        for row in &streaks.by_tool {
            check_streaks(row)?;
            add_histogram(self.streak_lengths.entry(row.tool.clone()).or_default(), &row.lengths)?;
            add(self.hidden_above.entry(row.tool.clone()).or_default(), row.hidden_at_or_above_threshold)?;
        }
        let mut events_seen = std::collections::BTreeSet::new();
        for row in repairs {
            if row.count > row.of {
                return Err(format!("a repair row counts {} of {} repairs", row.count, row.of));
            }
            let key = (row.tool.clone(), row.category.clone(), row.change.clone(), row.kind.clone());
            add(self.repairs.entry(key).or_default(), row.count)?;
            // `of` repeats on every row of its (tool, category): count it once per report.
            if events_seen.insert((row.tool.clone(), row.category.clone())) {
                add(self.repair_events.entry((row.tool.clone(), row.category.clone())).or_default(), row.of)?;
            }
        }
        for row in feedback {
            if row.recovered_at_1 > row.count {
                return Err(format!("a feedback row recovers {} of {} failures", row.recovered_at_1, row.count));
            }
            let f = self.feedback.entry((row.template.clone(), row.tool.clone())).or_default();
            add(&mut f.count, row.count)?;
            f.locates |= row.locates;
            f.directs |= row.directs;
            add(&mut f.recovered_at_1, row.recovered_at_1)?;
        }
        Ok(())
    }

    pub(crate) fn finish(self, threshold: usize) -> Finished {
        let cost = self
            .recovery
            .iter()
            .map(|((tool, category), r)| CostRow {
                tool: tool.clone(),
                category: category.clone(),
                failures: r.failures,
                retries: r.retries,
                timed: r.timed,
                lost_ms: r.lost_ms,
                with_usage: r.with_usage,
                own_tokens: r.own_tokens,
                retry_tokens: r.retry_tokens,
                rent_tokens: r.rent_tokens,
                dollars: r.micros as f64 / 1e6,
                unpriced: r.unpriced,
            })
            .collect();
        let recovery = self
            .recovery
            .into_iter()
            .map(|((tool, category), r)| RecoveryRow {
                tool,
                category,
                failures: r.failures,
                recovered: r.recovered,
                recovered_at_1: r.at[0],
                recovered_at_2: r.at[1],
                recovered_at_3: r.at[2],
                median_attempts: median(&r.attempts),
                attempts: r.attempts,
                identical_retries: r.identical,
                identical_retry_successes: r.identical_ok,
                abandoned: r.abandoned,
            })
            .collect();
        let by_tool = self
            .streak_lengths
            .into_iter()
            .map(|(tool, lens)| {
                let mut histogram = BTreeMap::new();
                for (&l, &n) in &lens {
                    let bucket = match l {
                        0..=4 => l.to_string(),
                        5..=9 => "5-9".to_string(),
                        _ => "10+".to_string(),
                    };
                    // Counts were checked to add up without overflow.
                    let b: &mut u64 = histogram.entry(bucket).or_default();
                    *b = b.saturating_add(n);
                }
                StreakRow {
                    streaks: total(&lens),
                    longest: lens.keys().next_back().copied().unwrap_or(0),
                    p50: percentile(&lens, 50),
                    p95: percentile(&lens, 95),
                    histogram,
                    at_or_above_threshold: lens.range(threshold as u64..).fold(0u64, |a, (_, &n)| a.saturating_add(n)),
                    lengths: lens,
                    hidden_at_or_above_threshold: self.hidden_above.get(&tool).copied().unwrap_or(0),
                    tool,
                }
            })
            .collect();
        let repair_events = self.repair_events;
        let mut repairs: Vec<RepairRow> = self
            .repairs
            .into_iter()
            .map(|((tool, category, change, kind), count)| RepairRow {
                of: repair_events.get(&(tool.clone(), category.clone())).copied().unwrap_or(0),
                tool,
                category,
                change,
                kind,
                count,
            })
            .collect();
        repairs.sort_by(|a, b| {
            (&a.tool, &a.category)
                .cmp(&(&b.tool, &b.category))
                .then(b.count.cmp(&a.count))
                .then(a.change.cmp(&b.change))
        });
        let mut feedback: Vec<FeedbackRow> = self
            .feedback
            .into_iter()
            .map(|((template, tool), f)| FeedbackRow {
                template,
                tool,
                count: f.count,
                locates: f.locates,
                directs: f.directs,
                recovered_at_1: f.recovered_at_1,
            })
            .collect();
        // Most worth rewriting first: failures the text did not help fix.
        feedback.sort_by(|a, b| {
            (b.count.saturating_sub(b.recovered_at_1))
                .cmp(&a.count.saturating_sub(a.recovered_at_1))
                .then(b.count.cmp(&a.count))
                .then((a.locates, a.directs).cmp(&(b.locates, b.directs)))
                .then((&a.tool, &a.template).cmp(&(&b.tool, &b.template)))
        });
        Finished { recovery, cost, streaks: StreakReport { threshold: threshold as u64, by_tool }, repairs, feedback }
    }
}

/// The largest count a report may hold in one field: far beyond any
/// trace (a million calls a second for thirty years), far below where
/// sums of many reports could overflow.
pub(crate) const MAX_COUNT: u64 = 1_000_000_000_000_000;

/// `*to += n`, refusing what no scan can count.
pub(crate) fn add(to: &mut u64, n: u64) -> Result<(), String> {
    if n > MAX_COUNT {
        return Err(format!("a count of {n} (more than {MAX_COUNT})"));
    }
    *to = to
        .checked_add(n)
        .filter(|&t| t <= MAX_COUNT)
        .ok_or_else(|| format!("counts add up to more than {MAX_COUNT}"))?;
    Ok(())
}

/// A histogram's counts added to `to`'s.
fn add_histogram(to: &mut BTreeMap<u64, u64>, h: &BTreeMap<u64, u64>) -> Result<(), String> {
    for (&v, &n) in h {
        add(to.entry(v).or_default(), n)?;
    }
    Ok(())
}

/// The sum of a histogram's counts (checked when they were added).
fn total(h: &BTreeMap<u64, u64>) -> u64 {
    h.values().fold(0u64, |a, &n| a.saturating_add(n))
}

/// A recovery row whose histogram and counts agree, as a scan writes them.
fn check_recovery(r: &RecoveryRow) -> Result<(), String> {
    let at = |n: u64| r.attempts.get(&n).copied().unwrap_or(0);
    let sum = r.attempts.values().try_fold(0u64, |a, &n| a.checked_add(n));
    let ok = sum == Some(r.recovered)
        && r.recovered <= r.failures
        && r.abandoned <= r.failures
        && r.identical_retry_successes <= r.identical_retries
        && !r.attempts.contains_key(&0)
        && (r.recovered_at_1, r.recovered_at_2, r.recovered_at_3) == (at(1), at(2), at(3));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "recovery row ({}, {}): attempts adding up to {} do not match {} recovered of {} failures",
            r.tool,
            r.category,
            sum.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
            r.recovered,
            r.failures
        ))
    }
}

/// A streak row whose histogram and counts agree (streaks are runs of 2 or more).
fn check_streaks(r: &StreakRow) -> Result<(), String> {
    let sum = r.lengths.values().try_fold(0u64, |a, &n| a.checked_add(n));
    let ok = sum == Some(r.streaks)
        && r.lengths.keys().next().is_none_or(|&l| l >= 2)
        && r.lengths.keys().next_back().copied().unwrap_or(0) == r.longest
        && r.hidden_at_or_above_threshold <= r.streaks;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "streak row of {}: lengths adding up to {} do not match {} streaks, longest {}",
            r.tool,
            sum.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
            r.streaks,
            r.longest
        ))
    }
}

/// The `k`-th smallest value (from 0) of a histogram.
fn nth(h: &BTreeMap<u64, u64>, k: u128) -> u64 {
    let mut seen = 0u128;
    for (&v, &n) in h {
        seen += u128::from(n);
        if seen > k {
            return v;
        }
    }
    h.keys().next_back().copied().unwrap_or(0)
}

fn median(h: &BTreeMap<u64, u64>) -> Option<f64> {
    let n: u128 = h.values().map(|&c| u128::from(c)).sum();
    if n == 0 {
        return None;
    }
    Some(if n % 2 == 1 { nth(h, n / 2) as f64 } else { (nth(h, n / 2 - 1) as f64 + nth(h, n / 2) as f64) / 2.0 })
}

/// Nearest-rank percentile of a histogram.
fn percentile(h: &BTreeMap<u64, u64>, p: u128) -> u64 {
    let n: u128 = h.values().map(|&c| u128::from(c)).sum();
    if n == 0 {
        return 0;
    }
    let rank = (p * n).div_ceil(100).max(1);
    nth(h, rank - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::sequence::session_of as session;
    use serde_json::json;

    #[test]
    fn every_metric_of_a_hand_built_session() {
        let no_type = json!({"prompt": "p"});
        let typed = json!({"prompt": "p", "subagent_type": "explore"});
        let missing = "Error: please provide subagent_type parameter";
        let s = session(&[
            ("Agent", no_type.clone(), missing),        // 0: recovers after 3 calls
            ("Agent", no_type.clone(), missing),        // 1: identical retry, recovers after 2
            ("Agent", json!({"prompt": "q"}), missing), // 2: recovers at 1, repaired
            ("Agent", typed.clone(), "done"),           // 3
            ("Agent", typed.clone(), "Error: maximum 3 concurrent background tasks reached"), // 4: abandoned
            ("Grep", json!({"pattern": "x"}), "Error: bad regex"), // 5: abandoned, other
        ]);
        let a = sequence::analyze(&s);
        let mut agg = SequenceAgg::default();
        agg.add(&s, &a, 2, &[], &|_| true);
        let Finished { recovery, streaks, repairs, feedback, .. } = agg.finish(2);
        let missing_row = recovery.iter().find(|r| r.category == "missing-required-param").unwrap();
        assert_eq!(
            (missing_row.failures, missing_row.recovered, missing_row.recovered_at_1, missing_row.recovered_at_2),
            (3, 3, 1, 1)
        );
        assert_eq!((missing_row.recovered_at_3, missing_row.median_attempts), (1, Some(2.0)));
        assert_eq!(
            (missing_row.identical_retries, missing_row.identical_retry_successes, missing_row.abandoned),
            (1, 0, 0)
        );
        let conc = recovery.iter().find(|r| r.category == "concurrency-limit").unwrap();
        assert_eq!((conc.failures, conc.recovered, conc.abandoned, conc.median_attempts), (1, 0, 1, None));
        let agent = streaks.by_tool.iter().find(|r| r.tool == "Agent").unwrap();
        assert_eq!(
            (agent.streaks, agent.longest, agent.at_or_above_threshold, agent.hidden_at_or_above_threshold),
            (1, 3, 1, 1)
        );
        assert_eq!(agent.histogram.get("3"), Some(&1));
        assert_eq!(repairs.len(), 2, "{repairs:?}");
        let added = repairs.iter().find(|r| r.change == "added `subagent_type`").unwrap();
        assert_eq!((added.count, added.of, added.kind.as_str()), (1, 1, "rewrite"), "prompt changed too, unnamed");
        let fb = feedback.iter().find(|f| f.tool == "Agent" && f.count == 3).unwrap();
        assert_eq!((fb.locates, fb.directs, fb.recovered_at_1), (true, true, 1));
        assert_eq!(feedback[0].template, "Error: please provide subagent_type parameter", "2 unhelped failures first");
    }

    fn hist(values: &[u64]) -> BTreeMap<u64, u64> {
        let mut h = BTreeMap::new();
        for &v in values {
            *h.entry(v).or_default() += 1;
        }
        h
    }

    #[test]
    fn medians_and_percentiles() {
        assert_eq!(median(&hist(&[])), None);
        assert_eq!(median(&hist(&[3, 1, 2])), Some(2.0));
        assert_eq!(median(&hist(&[4, 1, 2, 3])), Some(2.5));
        assert_eq!(median(&hist(&[1, 1, 1, 9])), Some(1.0));
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&hist(&v), 50), 10);
        assert_eq!(percentile(&hist(&v), 95), 19);
        assert_eq!(percentile(&hist(&[7]), 95), 7);
        assert_eq!(percentile(&hist(&[]), 95), 0);
    }

    /// Issue 22, F3: histograms of billions are computed from, never
    /// expanded; counts that contradict each other or overflow are refused.
    #[test]
    fn merged_histograms_are_never_expanded() {
        let huge = BTreeMap::from([(1, 3_000_000_000), (4, 1_000_000_000)]);
        assert_eq!(median(&huge), Some(1.0));
        assert_eq!(percentile(&huge, 95), 4);
        let row = |attempts: BTreeMap<u64, u64>, recovered: u64| RecoveryRow {
            tool: "t".into(),
            category: "other".into(),
            failures: recovered,
            recovered,
            recovered_at_1: attempts.get(&1).copied().unwrap_or(0),
            recovered_at_2: attempts.get(&2).copied().unwrap_or(0),
            recovered_at_3: attempts.get(&3).copied().unwrap_or(0),
            median_attempts: None,
            attempts,
            identical_retries: 0,
            identical_retry_successes: 0,
            abandoned: 0,
        };
        let empty = StreakReport { threshold: 5, by_tool: vec![] };
        let mut agg = SequenceAgg::default();
        agg.absorb(&[row(huge.clone(), 4_000_000_000)], &empty, &[], &[], &[]).unwrap();
        let Finished { recovery, .. } = agg.finish(5);
        assert_eq!((recovery[0].median_attempts, recovery[0].recovered), (Some(1.0), 4_000_000_000));
        let mut agg = SequenceAgg::default();
        let err = agg.absorb(&[row(BTreeMap::from([(1, u64::MAX)]), 3)], &empty, &[], &[], &[]).unwrap_err();
        assert!(err.contains("do not match"), "{err}");
        let mut agg = SequenceAgg::default();
        let err = agg.absorb(&[row(BTreeMap::from([(1, u64::MAX)]), u64::MAX)], &empty, &[], &[], &[]).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        let mut agg = SequenceAgg::default();
        let near = MAX_COUNT - 1;
        agg.absorb(&[row(BTreeMap::from([(2, near)]), near)], &empty, &[], &[], &[]).unwrap();
        let err = agg.absorb(&[row(BTreeMap::from([(2, near)]), near)], &empty, &[], &[], &[]).unwrap_err();
        assert!(err.contains("add up to more than"), "{err}");
        let streak = |lengths: BTreeMap<u64, u64>, streaks, longest| StreakRow {
            tool: "t".into(),
            streaks,
            longest,
            p50: 0,
            p95: 0,
            histogram: BTreeMap::new(),
            lengths,
            at_or_above_threshold: 0,
            hidden_at_or_above_threshold: 0,
        };
        let by_tool = vec![streak(BTreeMap::from([(2, 3_000_000_000), (12, 1)]), 3_000_000_001, 12)];
        let mut agg = SequenceAgg::default();
        agg.absorb(&[], &StreakReport { threshold: 5, by_tool }, &[], &[], &[]).unwrap();
        let Finished { streaks, .. } = agg.finish(5);
        let r = &streaks.by_tool[0];
        assert_eq!((r.streaks, r.longest, r.p50, r.p95, r.at_or_above_threshold), (3_000_000_001, 12, 2, 2, 1));
        let bad = vec![streak(BTreeMap::from([(2, u64::MAX)]), 1, 2)];
        assert!(
            SequenceAgg::default().absorb(&[], &StreakReport { threshold: 5, by_tool: bad }, &[], &[], &[]).is_err()
        );
    }

    /// Issue 55: recovery and cost rows near 6e9 (past `u32`) merge, and
    /// what a merge writes it reads back; a cost row whose failures are not
    /// its recovery row's was taken, and its merge then refused.
    #[test]
    fn recovery_counts_near_six_billion_merge_and_read_back() {
        let near = 6_000_000_000u64;
        let recovery = RecoveryRow {
            tool: "t".into(),
            category: "other".into(),
            failures: near,
            recovered: near - 1,
            recovered_at_1: near - 3,
            recovered_at_2: 1,
            recovered_at_3: 0,
            median_attempts: Some(1.0),
            attempts: BTreeMap::from([(1, near - 3), (2, 1), (7, 1)]),
            identical_retries: near,
            identical_retry_successes: near - 1,
            abandoned: 1,
        };
        let cost = |failures| CostRow {
            tool: "t".into(),
            category: "other".into(),
            failures,
            retries: near,
            timed: failures,
            lost_ms: near * 1000,
            ..CostRow::default()
        };
        let empty = StreakReport { threshold: 5, by_tool: vec![] };
        let mut agg = SequenceAgg::default();
        for _ in 0..2 {
            agg.absorb(std::slice::from_ref(&recovery), &empty, &[], &[], &[cost(near)]).unwrap();
        }
        let Finished { recovery: r, cost: c, .. } = agg.finish(5);
        assert_eq!((r[0].failures, r[0].recovered, r[0].median_attempts), (2 * near, 2 * near - 2, Some(1.0)));
        assert_eq!((c[0].failures, c[0].retries, c[0].lost_ms), (2 * near, 2 * near, 2 * near * 1000));
        // What it wrote, read back.
        SequenceAgg::default().absorb(&r, &empty, &[], &[], &c).unwrap();
        let err = SequenceAgg::default().absorb(&[recovery], &empty, &[], &[], &[cost(near + 1)]).unwrap_err();
        assert!(err.contains("where its recovery row has"), "{err}");
    }
}
