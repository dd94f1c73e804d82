//! Pairing calls with results by call id, within one session.

use std::collections::HashMap;

use crate::model::{Call, ToolResult};

/// A call (its index in `calls`), its position among the session's calls
/// (1-based) and the index of its result in `results`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub seq: usize,
    pub call: usize,
    pub result: Option<usize>,
}

#[derive(Debug, Default)]
pub struct Paired {
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
pub fn pair(calls: &[Call], results: &[ToolResult]) -> Paired {
    let mut pairs: Vec<Pair> = (0..calls.len()).map(|i| Pair { seq: i + 1, call: i, result: None }).collect();
    // Calls waiting for a result, per id, in reverse order (pop yields the first).
    let mut waiting: HashMap<&str, Vec<usize>> = HashMap::with_capacity(calls.len());
    let mut duplicates = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        let slot = waiting.entry(c.id.as_str()).or_default();
        if !slot.is_empty() {
            duplicates.push(i);
        }
        slot.insert(0, i);
    }
    let mut orphans = Vec::new();
    for (r, result) in results.iter().enumerate() {
        match waiting.get_mut(result.call_id.as_str()).and_then(Vec::pop) {
            Some(i) => pairs[i].result = Some(r),
            None => orphans.push(r),
        }
    }
    Paired { pairs, orphans, duplicates }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Call {
        Call { id: id.into(), tool: "Read".into(), input: json!({}), time: None, row: 0 }
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
}
