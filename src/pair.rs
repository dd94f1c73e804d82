//! Pairing calls with results by call id, within one session.

use crate::model::{Call, ToolResult};

/// A call (its index in `calls`), its position among the session's calls
/// (1-based) and the index of its result in `results`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    pub seq: usize,
    pub call: usize,
    pub result: Option<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct Paired {
    /// Every call in session order; `result` is `None` for unpaired calls.
    pub pairs: Vec<Pair>,
    /// Indexes of results whose id matches no (remaining) call.
    pub orphans: Vec<usize>,
    /// Indexes into `pairs` of calls that reuse an id an earlier call had.
    pub duplicates: Vec<usize>,
}

/// Pair every call with the result carrying its id. When an id is used by
/// several calls, calls and results with that id are matched in order, and
/// every call after the first is reported as a duplicate.
pub(crate) fn pair(calls: &[Call], results: &[ToolResult]) -> Paired {
    const NONE: usize = usize::MAX;
    let mut pairs: Vec<Pair> = (0..calls.len()).map(|i| Pair { seq: i + 1, call: i, result: None }).collect();
    // Calls waiting for a result, per id, in call order: the first is
    // answered first. Each id keeps the first and the last call waiting;
    // `next` links a call to the next call with its id. So an id used by
    // every call of a long session costs no more than distinct ids, and
    // a distinct id (the rule) allocates nothing of its own.
    let mut waiting: foldhash::HashMap<&str, (usize, usize)> =
        foldhash::HashMap::with_capacity_and_hasher(calls.len(), Default::default());
    let mut next = vec![NONE; calls.len()];
    let mut duplicates = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        match waiting.entry(c.id.as_str()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((i, i));
            }
            std::collections::hash_map::Entry::Occupied(mut o) => {
                duplicates.push(i);
                let (_, last) = o.get_mut();
                next[*last] = i;
                *last = i;
            }
        }
    }
    let mut orphans = Vec::new();
    for (r, result) in results.iter().enumerate() {
        match waiting.get_mut(result.call_id.as_str()) {
            Some((first, _)) if *first != NONE => {
                pairs[*first].result = Some(r);
                *first = next[*first];
            }
            _ => orphans.push(r),
        }
    }
    Paired { pairs, orphans, duplicates }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Call {
        Call { id: id.into(), tool: "Read".into(), input: json!({}).into(), time: None, row: 0, usage: None }
    }
    fn result(id: &str) -> ToolResult {
        ToolResult {
            truncated: false,
            call_id: id.into(),
            text: String::new(),
            flag: Some(false),
            exit_code: None,
            time: None,
            row: 0,
        }
    }

    #[test]
    fn pairs_by_id_not_by_adjacency() {
        let calls = [call("a"), call("b"), call("c")];
        let results = [result("b"), result("a"), result("z")];
        let p = pair(&calls, &results);
        assert_eq!(p.pairs[0].result, Some(1));
        assert_eq!(p.pairs[1].result, Some(0));
        assert_eq!(p.pairs[2].result, None, "c is unpaired");
        assert_eq!(p.orphans, vec![2]);
        assert!(p.duplicates.is_empty());
        assert_eq!(p.pairs.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    /// Issue 22: one id on every call of a long session is paired in
    /// linear time (it was quadratic: each call went to the front of a
    /// list). The timeout only detects a hang; it measures nothing.
    #[test]
    fn one_id_on_every_call_does_not_hang() {
        let n = 400_000;
        let calls: Vec<Call> = (0..n).map(|_| call("same")).collect();
        let results: Vec<ToolResult> = (0..n).map(|_| result("same")).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let p = pair(&calls, &results);
            let _ = tx.send((p.duplicates.len(), p.pairs[n - 1].result, p.orphans.len()));
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(120)).expect("pairing hangs");
        assert_eq!(got, (n - 1, Some(n - 1), 0));
    }

    #[test]
    fn duplicate_ids_pair_in_order() {
        let calls = [call("a"), call("a")];
        let results = [result("a"), result("a"), result("a")];
        let p = pair(&calls, &results);
        assert_eq!(p.duplicates, vec![1]);
        assert_eq!(p.pairs[0].result, Some(0));
        assert_eq!(p.pairs[1].result, Some(1));
        assert_eq!(p.orphans, vec![2]);
    }

    /// The linked waiting lists pair as one queue per id does, on seeded
    /// sequences of few ids (many reused), results in any order.
    #[test]
    fn pairs_as_a_queue_per_id_does() {
        use std::collections::{HashMap, VecDeque};
        let reference = |calls: &[Call], results: &[ToolResult]| {
            let mut waiting: HashMap<&str, VecDeque<usize>> = HashMap::new();
            let mut duplicates = Vec::new();
            for (i, c) in calls.iter().enumerate() {
                let slot = waiting.entry(c.id.as_str()).or_default();
                if !slot.is_empty() {
                    duplicates.push(i);
                }
                slot.push_back(i);
            }
            let mut paired = vec![None; calls.len()];
            let mut orphans = Vec::new();
            for (r, result) in results.iter().enumerate() {
                match waiting.get_mut(result.call_id.as_str()).and_then(VecDeque::pop_front) {
                    Some(i) => paired[i] = Some(r),
                    None => orphans.push(r),
                }
            }
            (paired, orphans, duplicates)
        };
        let mut state: u64 = 7;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for _ in 0..500 {
            let ids = ["a", "b", "c", "", "d"];
            let calls: Vec<Call> = (0..next(12)).map(|_| call(ids[next(5) as usize])).collect();
            let results: Vec<ToolResult> = (0..next(12)).map(|_| result(ids[next(5) as usize])).collect();
            let p = pair(&calls, &results);
            let got = (p.pairs.iter().map(|p| p.result).collect::<Vec<_>>(), p.orphans, p.duplicates);
            assert_eq!(got, reference(&calls, &results));
        }
    }
}
