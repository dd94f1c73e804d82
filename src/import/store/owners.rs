//! The sessions holding each call id, kept in memory by an import while
//! the database held no call at its start (`Writer::owners`), so that
//! `session_of_call` and the duplicate check need no query.
//!
//! A scan keeps up to `OWNERS_CAP` ids (200,000) before it asks the
//! database instead, and the 6 GB bench folder reaches its peak of memory
//! while they are held: each id is kept once, its sessions as numbers of
//! an interned list, and the one session nearly every id has inline. A map
//! of id strings to lists of session strings (a string and a list
//! allocated per id) made that folder's peak RSS 184-188 MB; this one,
//! 172-177 MB.

use foldhash::HashMap;

/// The sessions holding one call id, oldest row first: nearly always one.
/// An id repeated in every session (`#1`, a model's `call_0`) is held by
/// thousands, so a list of more is also counted by session: asking whether
/// a session holds the id costs the same at any length.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Held {
    One(u32),
    /// None, or more than one, and how many times each session is listed.
    Many(Vec<u32>, HashMap<u32, u32>),
}

impl Held {
    fn as_slice(&self) -> &[u32] {
        match self {
            Held::One(s) => std::slice::from_ref(s),
            Held::Many(v, _) => v,
        }
    }

    fn of(list: Vec<u32>) -> Held {
        match list[..] {
            [one] => Held::One(one),
            _ => {
                let mut count = HashMap::default();
                for s in &list {
                    *count.entry(*s).or_insert(0) += 1;
                }
                Held::Many(list, count)
            }
        }
    }

    fn contains(&self, s: u32) -> bool {
        match self {
            Held::One(one) => *one == s,
            Held::Many(_, count) => count.contains_key(&s),
        }
    }

    fn push(&mut self, s: u32) {
        match self {
            Held::One(first) => *self = Held::of(vec![*first, s]),
            Held::Many(v, _) if v.is_empty() => *self = Held::One(s),
            Held::Many(v, count) => {
                v.push(s);
                *count.entry(s).or_insert(0) += 1;
            }
        }
    }
}

/// Call ids and the sessions holding them, in the order rows were written.
#[derive(Debug, Default)]
pub(crate) struct Owners {
    names: Vec<Box<str>>,
    number: HashMap<Box<str>, u32>,
    ids: HashMap<Box<str>, Held>,
}

impl Owners {
    /// Call ids known (an id whose rows were all forgotten still counts).
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    fn number_of(&mut self, session: &str) -> u32 {
        if let Some(&n) = self.number.get(session) {
            return n;
        }
        let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(session.into());
        self.number.insert(session.into(), n);
        n
    }

    /// The session of the oldest row holding `id`.
    pub(crate) fn first(&self, id: &str) -> Option<&str> {
        let s = *self.ids.get(id)?.as_slice().first()?;
        Some(&self.names[s as usize])
    }

    /// Does `session` hold `id`?
    pub(crate) fn holds(&self, id: &str, session: &str) -> bool {
        match (self.ids.get(id), self.number.get(session)) {
            (Some(held), Some(&n)) => held.contains(n),
            _ => false,
        }
    }

    /// `session` wrote a row of `id`, after those written before.
    pub(crate) fn push(&mut self, id: &str, session: &str) {
        let s = self.number_of(session);
        match self.ids.get_mut(id) {
            Some(held) => held.push(s),
            None => {
                self.ids.insert(id.into(), Held::One(s));
            }
        }
    }

    /// The row of `id` held by `from` moved to `to`, in its place.
    pub(crate) fn moved(&mut self, id: &str, from: &str, to: &str) {
        let (Some(&f), true) = (self.number.get(from), self.ids.contains_key(id)) else { return };
        let t = self.number_of(to);
        if let Some(held) = self.ids.get_mut(id)
            && held.contains(f)
        {
            let mut list = held.as_slice().to_vec();
            if let Some(s) = list.iter_mut().find(|s| **s == f) {
                *s = t;
            }
            *held = Held::of(list);
        }
    }

    /// The rows of `id` held by `session` were deleted.
    pub(crate) fn forgot(&mut self, id: &str, session: &str) {
        let Some(&n) = self.number.get(session) else { return };
        if let Some(held) = self.ids.get_mut(id)
            && held.contains(n)
        {
            *held = Held::of(held.as_slice().iter().copied().filter(|s| *s != n).collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the writer kept before: each id's sessions as strings.
    #[derive(Default)]
    struct Plain(std::collections::HashMap<String, Vec<String>>);

    impl Plain {
        fn first(&self, id: &str) -> Option<&str> {
            self.0.get(id).and_then(|o| o.first()).map(String::as_str)
        }
        fn holds(&self, id: &str, session: &str) -> bool {
            self.0.get(id).is_some_and(|o| o.iter().any(|s| s == session))
        }
        fn push(&mut self, id: &str, session: &str) {
            self.0.entry(id.to_string()).or_default().push(session.to_string());
        }
        fn moved(&mut self, id: &str, from: &str, to: &str) {
            if let Some(o) = self.0.get_mut(id)
                && let Some(s) = o.iter_mut().find(|s| *s == from)
            {
                *s = to.to_string();
            }
        }
        fn forgot(&mut self, id: &str, session: &str) {
            if let Some(o) = self.0.get_mut(id) {
                o.retain(|s| s != session);
            }
        }
    }

    /// Every answer is the plain map's, over seeded runs of writes, moves
    /// and deletions on few ids and sessions (so that they meet).
    #[test]
    fn answers_as_a_map_of_session_lists() {
        for seed in 0..200u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut next = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let (mut owners, mut plain) = (Owners::default(), Plain::default());
            for _ in 0..300 {
                let id = format!("toolu_{}", next(12));
                let (a, b) = (format!("s{}", next(5)), format!("s{}", next(5)));
                match next(6) {
                    0..=2 => {
                        owners.push(&id, &a);
                        plain.push(&id, &a);
                    }
                    3 => {
                        owners.moved(&id, &a, &b);
                        plain.moved(&id, &a, &b);
                    }
                    _ => {
                        owners.forgot(&id, &a);
                        plain.forgot(&id, &a);
                    }
                }
                assert_eq!(owners.len(), plain.0.len(), "seed {seed}");
                for i in 0..12 {
                    let id = format!("toolu_{i}");
                    assert_eq!(owners.first(&id), plain.first(&id), "seed {seed}, {id}");
                    for s in 0..5 {
                        let s = format!("s{s}");
                        assert_eq!(owners.holds(&id, &s), plain.holds(&id, &s), "seed {seed}, {id} in {s}");
                    }
                }
            }
        }
    }
}
