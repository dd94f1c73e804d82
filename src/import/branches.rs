//! Transcripts that keep every branch of a conversation (Pi's `/tree`, Qwen
//! Code's `/rewind`): each entry names its parent, and the conversation the
//! user sees is the chain of parents from the file's last entry. Calls made
//! on the other branches are dropped, but only when that chain reaches the
//! file's first entry: a file that restarted mid-way (its first entries
//! lost) is one conversation, kept whole.
//!
//! A branch left by a rewind was written before the branch that replaced
//! it. A branch written after it, interleaved with it, is a second process
//! appending to the same session (the session opened twice): its calls ran
//! and stay.

use std::collections::{HashMap, HashSet};

/// The entries of one file and the calls each made.
#[derive(Debug, Default)]
pub(crate) struct Branches {
    parents: HashMap<String, Option<String>>,
    /// Where each entry was read first.
    order: HashMap<String, usize>,
    first: Option<String>,
    last: Option<String>,
    /// (entry, call id), in the order the calls were made.
    made: Vec<(String, String)>,
}

impl Branches {
    /// Entry `id`, whose parent is `parent`, was read (the first copy of an
    /// id counts).
    pub(crate) fn entry(&mut self, id: &str, parent: Option<&str>) {
        if id.is_empty() {
            return;
        }
        self.parents.entry(id.to_string()).or_insert_with(|| parent.map(str::to_string));
        let n = self.order.len();
        self.order.entry(id.to_string()).or_insert(n);
        self.first.get_or_insert_with(|| id.to_string());
        self.last = Some(id.to_string());
    }

    /// Entry `entry` made the call `call`.
    pub(crate) fn made(&mut self, entry: &str, call: &str) {
        self.made.push((entry.to_string(), call.to_string()));
    }

    /// The entries of the visible conversation, or `None` when every entry
    /// counts (one conversation that does not reach the first entry).
    pub(crate) fn visible(&self) -> Option<HashSet<String>> {
        let mut visible = HashSet::new();
        let mut at = self.last.clone();
        while let Some(id) = at {
            if !visible.insert(id.clone()) {
                break;
            }
            at = self.parents.get(&id).cloned().flatten();
        }
        self.first.as_ref().is_some_and(|f| visible.contains(f)).then_some(visible)
    }

    /// The calls made on branches the user left: off the visible chain, on a
    /// branch whose every entry was written before the visible entry that
    /// follows its fork.
    pub(crate) fn dropped(&self, visible: Option<&HashSet<String>>) -> Vec<&str> {
        let Some(visible) = visible else { return Vec::new() };
        let written = |id: &str| self.order.get(id).copied().unwrap_or(usize::MAX);
        // The visible entry after each visible entry.
        let mut next: HashMap<&str, &str> = HashMap::new();
        for id in visible {
            if let Some(Some(parent)) = self.parents.get(id) {
                next.insert(parent.as_str(), id.as_str());
            }
        }
        // Each entry off the chain: the fork it hangs from (its nearest
        // visible ancestor, `None` when it reaches none) and the first entry
        // of its branch below that fork.
        let mut branch: HashMap<&str, Option<(&str, &str)>> = HashMap::new();
        for id in self.parents.keys().filter(|id| !visible.contains(*id)) {
            let mut path = Vec::new();
            let mut at = id.as_str();
            let found = loop {
                if let Some(known) = branch.get(at) {
                    break *known;
                }
                path.push(at);
                match self.parents.get(at) {
                    Some(Some(parent)) if visible.contains(parent) => break Some((parent.as_str(), at)),
                    Some(Some(parent)) if path.len() <= self.parents.len() => at = parent,
                    _ => break None,
                }
            };
            for p in path {
                branch.insert(p, found);
            }
        }
        // The last write of each branch.
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (id, b) in &branch {
            if let Some((_, root)) = b {
                let l = last.entry(root).or_default();
                *l = (*l).max(written(id));
            }
        }
        let left = |entry: &str| match branch.get(entry).copied().flatten() {
            Some((fork, root)) => {
                next.get(fork).is_none_or(|after| last.get(root).is_some_and(|l| *l < written(after)))
            }
            None => true,
        };
        self.made
            .iter()
            .filter(|(entry, _)| !visible.contains(entry) && left(entry))
            .map(|(_, call)| call.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_from_the_last_entry() {
        let mut b = Branches::default();
        b.entry("a", None);
        b.entry("b", Some("a"));
        b.made("b", "c1");
        b.entry("c", Some("b"));
        b.made("c", "c2");
        // a rewind to `b`: `c` is left
        b.entry("d", Some("b"));
        b.made("d", "c3");
        let v = b.visible();
        assert_eq!(b.dropped(v.as_ref()), ["c2"]);
        let v = v.unwrap();
        assert!(v.contains("d") && !v.contains("c"));
        // a second process writing the same session from `b`, interleaved
        // with the visible branch: its calls ran, those written before the
        // visible branch began too
        let mut two = Branches::default();
        two.entry("a", None);
        two.entry("b", Some("a"));
        two.entry("o0", Some("b"));
        two.made("o0", "k0");
        two.entry("v1", Some("b"));
        two.entry("o1", Some("o0"));
        two.made("o1", "k1");
        two.entry("v2", Some("v1"));
        let v = two.visible();
        assert!(two.dropped(v.as_ref()).is_empty());
        // the same branch, had it ended before `v1`, was left by a rewind
        let mut rewound = Branches::default();
        for (id, parent) in [("a", None), ("b", Some("a")), ("o0", Some("b")), ("o1", Some("o0"))] {
            rewound.entry(id, parent);
        }
        rewound.made("o0", "k0");
        rewound.made("o1", "k1");
        rewound.entry("v1", Some("b"));
        rewound.entry("v2", Some("v1"));
        let v = rewound.visible();
        assert_eq!(rewound.dropped(v.as_ref()), ["k0", "k1"]);
        // a file whose first entries are gone: kept whole
        let mut cut = Branches::default();
        cut.entry("x", Some("gone"));
        cut.entry("y", None);
        cut.made("x", "k1");
        assert!(cut.visible().is_none());
        assert!(cut.dropped(None).is_empty());
    }
}
