//! Aggregating the per-session sequence analyses (streaks, recovery,
//! repairs, feedback) into report rows.

use std::collections::BTreeMap;

use crate::judge::sequence::{self, SessionSequences};
use crate::judge::{Failure, JudgedCall, JudgedSession, Outcome};
use crate::report::{FeedbackRow, RecoveryRow, RepairRow, StreakReport, StreakRow};

#[derive(Default)]
struct Recovery {
    failures: u64,
    recovered: u64,
    at: [u64; 3],
    attempts: Vec<u64>,
    identical: u64,
    identical_ok: u64,
    abandoned: u64,
}

#[derive(Default)]
struct Feedback {
    count: u64,
    locates: bool,
    directs: bool,
    recovered_at_1: u64,
}

/// Accumulates sequence analyses over sessions.
#[derive(Default)]
pub struct SequenceAgg {
    recovery: BTreeMap<(String, String), Recovery>,
    streak_lengths: BTreeMap<String, Vec<u64>>,
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
    pub fn add(&mut self, s: &JudgedSession, a: &SessionSequences, threshold: usize, counted: &dyn Fn(usize) -> bool) {
        for fate in a.fates.iter().filter(|f| counted(f.call)) {
            let c = &s.calls[fate.call];
            let f = failure(c);
            let r = self.recovery.entry((c.tool.clone(), f.category.as_str().to_string())).or_default();
            r.failures += 1;
            if let Some(n) = fate.attempts {
                r.recovered += 1;
                r.attempts.push(n as u64);
                if (1..=3).contains(&n) {
                    r.at[n - 1] += 1;
                }
            }
            r.identical += u64::from(fate.identical_retry);
            r.identical_ok += u64::from(fate.identical_retry_succeeded);
            r.abandoned += u64::from(fate.abandoned);
            let fb = self.feedback.entry((f.template.clone(), c.tool.clone())).or_default();
            fb.count += 1;
            fb.locates |= sequence::locates(&f.message);
            fb.directs |= sequence::directs(&f.message);
            fb.recovered_at_1 += u64::from(fate.attempts == Some(1));
        }
        for st in a.streaks.iter().filter(|st| counted(st.calls[0])) {
            self.streak_lengths.entry(st.tool.clone()).or_default().push(st.len as u64);
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
    /// every row holds the exact counts this aggregator keeps.
    pub fn absorb(
        &mut self,
        recovery: &[RecoveryRow],
        streaks: &StreakReport,
        repairs: &[RepairRow],
        feedback: &[FeedbackRow],
    ) {
        for row in recovery {
            let r = self.recovery.entry((row.tool.clone(), row.category.clone())).or_default();
            r.failures += row.failures;
            r.recovered += row.recovered;
            r.at[0] += row.recovered_at_1;
            r.at[1] += row.recovered_at_2;
            r.at[2] += row.recovered_at_3;
            r.attempts.extend(expand(&row.attempts));
            r.identical += row.identical_retries;
            r.identical_ok += row.identical_retry_successes;
            r.abandoned += row.abandoned;
        }
        for row in &streaks.by_tool {
            self.streak_lengths.entry(row.tool.clone()).or_default().extend(expand(&row.lengths));
            *self.hidden_above.entry(row.tool.clone()).or_default() += row.hidden_at_or_above_threshold;
        }
        let mut events_seen = std::collections::BTreeSet::new();
        for row in repairs {
            let key = (row.tool.clone(), row.category.clone(), row.change.clone(), row.kind.clone());
            *self.repairs.entry(key).or_default() += row.count;
            // `of` repeats on every row of its (tool, category): count it once per report.
            if events_seen.insert((row.tool.clone(), row.category.clone())) {
                *self.repair_events.entry((row.tool.clone(), row.category.clone())).or_default() += row.of;
            }
        }
        for row in feedback {
            let f = self.feedback.entry((row.template.clone(), row.tool.clone())).or_default();
            f.count += row.count;
            f.locates |= row.locates;
            f.directs |= row.directs;
            f.recovered_at_1 += row.recovered_at_1;
        }
    }

    pub fn finish(self, threshold: usize) -> (Vec<RecoveryRow>, StreakReport, Vec<RepairRow>, Vec<FeedbackRow>) {
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
                attempts: count_values(&r.attempts),
                median_attempts: median(r.attempts),
                identical_retries: r.identical,
                identical_retry_successes: r.identical_ok,
                abandoned: r.abandoned,
            })
            .collect();
        let by_tool = self
            .streak_lengths
            .into_iter()
            .map(|(tool, mut lens)| {
                lens.sort_unstable();
                let mut histogram = BTreeMap::new();
                for &l in &lens {
                    let bucket = match l {
                        0..=4 => l.to_string(),
                        5..=9 => "5-9".to_string(),
                        _ => "10+".to_string(),
                    };
                    *histogram.entry(bucket).or_default() += 1;
                }
                StreakRow {
                    lengths: count_values(&lens),
                    streaks: lens.len() as u64,
                    longest: lens.last().copied().unwrap_or(0),
                    p50: percentile(&lens, 50),
                    p95: percentile(&lens, 95),
                    histogram,
                    at_or_above_threshold: lens.iter().filter(|&&l| l >= threshold as u64).count() as u64,
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
            (b.count - b.recovered_at_1)
                .cmp(&(a.count - a.recovered_at_1))
                .then(b.count.cmp(&a.count))
                .then((a.locates, a.directs).cmp(&(b.locates, b.directs)))
                .then((&a.tool, &a.template).cmp(&(&b.tool, &b.template)))
        });
        (recovery, StreakReport { threshold: threshold as u64, by_tool }, repairs, feedback)
    }
}

/// How often each value occurs.
fn count_values(values: &[u64]) -> BTreeMap<u64, u64> {
    let mut h = BTreeMap::new();
    for &v in values {
        *h.entry(v).or_default() += 1;
    }
    h
}

/// The values a histogram counts, each as often as it occurs.
fn expand(h: &BTreeMap<u64, u64>) -> impl Iterator<Item = u64> + '_ {
    h.iter().flat_map(|(&v, &n)| std::iter::repeat_n(v, n as usize))
}

fn median(mut v: Vec<u64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] as f64 } else { (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0 })
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
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
        agg.add(&s, &a, 2, &|_| true);
        let (recovery, streaks, repairs, feedback) = agg.finish(2);
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

    #[test]
    fn medians_and_percentiles() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3, 1, 2]), Some(2.0));
        assert_eq!(median(vec![4, 1, 2, 3]), Some(2.5));
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), 10);
        assert_eq!(percentile(&v, 95), 19);
        assert_eq!(percentile(&[7], 95), 7);
    }
}
