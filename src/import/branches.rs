//! Transcripts that keep every branch of a conversation (Pi's `/tree`, Qwen
//! Code's `/rewind`): each entry names its parent, and the conversation the
//! user sees is the chain of parents from the file's last entry. Calls made
//! on the other branches are dropped, but only when that chain reaches the
//! file's first entry: a file that restarted mid-way (its first entries
//! lost) is one conversation, kept whole.

use std::collections::{HashMap, HashSet};

/// The entries of one file and the calls each made.
#[derive(Debug, Default)]
pub(crate) struct Branches {
    parents: HashMap<String, Option<String>>,
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

    /// The calls made on branches the user left.
    pub(crate) fn dropped(&self, visible: Option<&HashSet<String>>) -> Vec<&str> {
        let Some(visible) = visible else { return Vec::new() };
        self.made.iter().filter(|(entry, _)| !visible.contains(entry)).map(|(_, call)| call.as_str()).collect()
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
        // a file whose first entries are gone: kept whole
        let mut cut = Branches::default();
        cut.entry("x", Some("gone"));
        cut.entry("y", None);
        cut.made("x", "k1");
        assert!(cut.visible().is_none());
        assert!(cut.dropped(None).is_empty());
    }
}
