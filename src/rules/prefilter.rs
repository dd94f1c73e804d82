//! Cheap tests run before a rule's regex, each a necessary condition of a
//! match, so a text they reject is answered "no" without the regex: the
//! bytes an anchored match can start with (`first_bytes`), and literals one
//! of which every match contains (`Needles`). Most results match no rule,
//! so most of the matching a scan does is finding that out.

use aho_corasick::{AhoCorasick, packed};
use memchr::memmem;
use regex_syntax::hir::{Hir, HirKind};

/// The syntax tree the prefilters are found from (`syntax::parse`, the
/// regex's own); `None` for a pattern regex-syntax refuses.
pub(super) fn parse(pattern: &str) -> Option<Hir> {
    super::syntax::parse(pattern)
}

/// The bytes every match of the pattern `hir` can start with, when every match
/// starts at the start of the text (`^` outside multi-line mode) and is not
/// empty: the first bytes of its literal prefixes, or, where those are not a
/// finite set (`^[A-Z][\w-]* failed`), of what its first part can match,
/// when that leaves out at least half the bytes; `None` otherwise.
pub(super) fn first_bytes(hir: &Hir) -> Option<Box<[bool; 256]>> {
    use regex_syntax::hir::Look;
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    if !hir.properties().look_set_prefix().contains(Look::Start) {
        return None;
    }
    let mut extractor = Extractor::new();
    extractor.kind(ExtractKind::Prefix);
    let prefixes = extractor.extract(hir);
    if let Some(literals) = prefixes.literals() {
        let mut first = Box::new([false; 256]);
        for literal in literals {
            first[usize::from(*literal.as_bytes().first()?)] = true;
        }
        return (!literals.is_empty()).then_some(first);
    }
    let (first, empty) = first_set(hir)?;
    let allowed = first.iter().filter(|b| **b).count();
    (!empty && allowed <= 128).then_some(first)
}

/// First bytes, with slot 256 for the empty text.
pub(super) type Opens = Box<[bool; 257]>;

/// For a pattern whose branches are each anchored or have needles
/// (`\A\s*\z|(?m)^Output: \(empty\)`), neither prefilter alone: the
/// first bytes its anchored branches can match a text starting with (slot
/// 256: the empty text), and the literals one of which every match of its
/// other branches contains. A text whose first byte is not in the set, and
/// that holds none of the literals, cannot match. `None` when the pattern
/// is not such an alternation.
pub(super) fn split(hir: &Hir) -> Option<(Opens, Vec<Vec<u8>>)> {
    let HirKind::Alternation(branches) = hir.kind() else { return None };
    let (mut first, mut literals) = (Box::new([false; 257]), Vec::new());
    let (mut anchored, mut needled) = (false, false);
    for branch in branches {
        match start_set(branch) {
            Some(set) => {
                for (a, b) in first.iter_mut().zip(set.iter()) {
                    *a |= *b;
                }
                anchored = true;
            }
            None => {
                literals.extend(searchable(branch, required)?);
                needled = true;
            }
        }
    }
    literals.sort();
    literals.dedup();
    let searchable = literals.len() <= MOST;
    (anchored && needled && searchable).then_some((first, literals))
}

/// The first bytes a match of the anchored branch `hir` can open a text
/// with, slot 256 set when it can match the empty text. A branch that can
/// match the empty string at the start matches every text, unless it must
/// also end at the end of the text (`\A\s*\z`): `None` then.
fn start_set(hir: &Hir) -> Option<Opens> {
    use regex_syntax::hir::Look;
    let props = hir.properties();
    if !props.look_set_prefix().contains(Look::Start) {
        return None;
    }
    let (bytes, empty) = first_set(hir)?;
    if empty && !props.look_set_suffix().contains(Look::End) {
        return None;
    }
    let mut set = Box::new([false; 257]);
    set[..256].copy_from_slice(&bytes[..]);
    set[256] = empty;
    Some(set)
}

/// The bytes a match of `hir` can start with, and whether it can be empty
/// (`None` for a part this does not read). A look-around consumes nothing,
/// so it counts as empty: the set can only grow.
fn first_set(hir: &Hir) -> Option<(Box<[bool; 256]>, bool)> {
    use regex_syntax::hir::Class;
    let mut set = Box::new([false; 256]);
    let empty = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(lit) => match lit.0.first() {
            Some(b) => {
                set[usize::from(*b)] = true;
                false
            }
            None => true,
        },
        HirKind::Class(Class::Bytes(c)) => {
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    set[usize::from(b)] = true;
                }
            }
            c.ranges().is_empty()
        }
        HirKind::Class(Class::Unicode(c)) => {
            for r in c.ranges() {
                leading_bytes(u32::from(r.start()), u32::from(r.end()), &mut set);
            }
            c.ranges().is_empty()
        }
        HirKind::Capture(cap) => return first_set(&cap.sub),
        HirKind::Repetition(rep) => {
            let (sub, empty) = first_set(&rep.sub)?;
            return Some((sub, empty || rep.min == 0));
        }
        HirKind::Concat(parts) => {
            for part in parts {
                let (sub, empty) = first_set(part)?;
                union(&mut set, &sub);
                if !empty {
                    return Some((set, false));
                }
            }
            true
        }
        HirKind::Alternation(branches) => {
            let mut any_empty = false;
            for branch in branches {
                let (sub, empty) = first_set(branch)?;
                union(&mut set, &sub);
                any_empty |= empty;
            }
            any_empty
        }
    };
    Some((set, empty))
}

fn union(into: &mut [bool; 256], from: &[bool; 256]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a |= *b;
    }
}

/// Marks the first bytes of the UTF-8 encodings of the code points `lo..=hi`:
/// within one encoded length the first byte grows with the code point.
fn leading_bytes(lo: u32, hi: u32, set: &mut [bool; 256]) {
    for (start, end) in [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xFFFF), (0x1_0000, 0x10_FFFF)] {
        let (a, b) = (lo.max(start), hi.min(end));
        if a > b {
            continue;
        }
        let lead = |c: u32| {
            let mut buf = [0; 4];
            char::from_u32(c).map_or(0xED, |ch| ch.encode_utf8(&mut buf).as_bytes()[0])
        };
        for byte in lead(a)..=lead(b) {
            set[usize::from(byte)] = true;
        }
    }
}

/// Literals one of which is in every text the pattern matches, searched
/// for at once (`memchr`'s `memmem` for one, Aho-Corasick's vector search
/// for several).
pub(super) enum Needles {
    One(memmem::Finder<'static>),
    Packed(packed::Searcher),
    /// A plan's gate (plan.rs) over more literals than one vector search
    /// takes: several, each over a share of them.
    Shares(Box<[packed::Searcher]>),
    Many(AhoCorasick),
    /// Literals found whatever the case of their ASCII letters
    /// (`folded_literals`).
    Folded(AhoCorasick),
}

/// Shorter literals would let most texts through: the search would cost
/// its scan and save nothing.
const SHORTEST: usize = 3;

/// More literals than a vector search (Teddy) handles at once would make
/// the search slower than many a regex.
const MOST: usize = 64;

impl Needles {
    /// The needles of the pattern `hir` (`literals`), ready to search for.
    #[cfg(test)]
    pub(super) fn of(hir: &Hir) -> Option<Needles> {
        Needles::of_literals(&literals(hir)?)
    }

    /// The search for `set`, literals as `literals` gives them.
    pub(super) fn of_literals(set: &[Vec<u8>]) -> Option<Needles> {
        if set.len() == 1 {
            return Some(Needles::One(memmem::Finder::new(&set[0]).into_owned()));
        }
        // The vector search itself (Teddy), not the automaton: for a few
        // needles its heuristics pick a search for their first bytes, and
        // an `e` is in every line of English. Where it cannot be built,
        // the automaton.
        Needles::packed(set).or_else(|| AhoCorasick::new(set).ok().map(Needles::Many))
    }

    /// The vector search (Teddy) for `set`, where it can be built.
    pub(super) fn packed(set: &[Vec<u8>]) -> Option<Needles> {
        packed::Config::new().builder().extend(set).build().map(Needles::Packed)
    }

    /// A gate's search for `set`: one vector search, or where the set is
    /// larger than one takes, a vector search per share of `MOST`
    /// literals (a few scans of a clean text cost less than one scan by
    /// the automaton), else the automaton.
    pub(super) fn gate(set: &[Vec<u8>]) -> Option<Needles> {
        if set.len() <= MOST {
            return Needles::of_literals(set);
        }
        let shares: Option<Box<[packed::Searcher]>> =
            set.chunks(MOST).map(|share| packed::Config::new().builder().extend(share).build()).collect();
        shares.map(Needles::Shares).or_else(|| AhoCorasick::new(set).ok().map(Needles::Many))
    }

    /// The search for `set`, literals as `folded_literals` gives them,
    /// whatever the case of their ASCII letters in a text.
    pub(super) fn folded(set: &[Vec<u8>]) -> Option<Needles> {
        AhoCorasick::builder().ascii_case_insensitive(true).build(set).ok().map(Needles::Folded)
    }

    /// Is one of the needles in `text`? When not, the pattern cannot match.
    pub(super) fn any_in(&self, text: &str) -> bool {
        match self {
            Needles::One(finder) => finder.find(text.as_bytes()).is_some(),
            Needles::Packed(searcher) => searcher.find(text).is_some(),
            Needles::Shares(shares) => shares.iter().any(|s| s.find(text).is_some()),
            Needles::Many(ac) | Needles::Folded(ac) => ac.is_match(text),
        }
    }
}

/// The needles of the pattern `hir`, sorted: `None` when some match need contain
/// no literal of at least `SHORTEST` bytes, when the set is too large to
/// search fast, or when the pattern is anchored and fails soon anyway.
pub(super) fn literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    searchable(hir, required)
}

/// `literals` for a pattern whose letters may be of either case: literals,
/// their ASCII letters in lower case, one of which every match contains
/// whatever the case of those letters. A case-insensitive ASCII letter
/// (`(?i)e`, the class `[Ee]`) is one of their letters; a letter with a
/// third form (`k` and the Kelvin sign, `s` and the long s) or a wider
/// class ends a literal. Searched for with `Needles::folded`.
pub(super) fn folded_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    searchable(hir, required_folded)
}

/// The set `required` finds in `hir`, sorted, when it is worth a search.
fn searchable(hir: &Hir, required: fn(&Hir) -> Option<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    // An anchored search stops at the first byte that cannot go on a
    // match, sooner than any search of the whole text, unless the match
    // may open with a long run of any characters.
    if hir.properties().look_set_prefix().contains(regex_syntax::hir::Look::Start) && !opens_with_run(hir) {
        return None;
    }
    let mut set = required(hir)?;
    set.sort();
    set.dedup();
    let searchable = !set.is_empty() && set.len() <= MOST && set.iter().all(|l| l.len() >= SHORTEST);
    searchable.then_some(set)
}

/// The lower-case ASCII letter a class stands for when it is that letter
/// in either case and nothing else (`[Ee]`).
fn either_case(hir: &Hir) -> Option<u8> {
    use regex_syntax::hir::Class;
    let pair = |a: u32, b: u32| {
        let (a, b) = (u8::try_from(a).ok()?, u8::try_from(b).ok()?);
        (a.is_ascii_uppercase() && b == a.to_ascii_lowercase()).then_some(b)
    };
    let HirKind::Class(class) = hir.kind() else { return None };
    match class {
        Class::Unicode(c) => match c.ranges() {
            [x, y] if x.start() == x.end() && y.start() == y.end() => pair(x.start().into(), y.start().into()),
            _ => None,
        },
        Class::Bytes(c) => match c.ranges() {
            [x, y] if x.start() == x.end() && y.start() == y.end() => pair(x.start().into(), y.start().into()),
            _ => None,
        },
    }
}

/// Literals one of which every match of `hir` contains, or `None` when
/// there is no such set (a class, an optional part, a branch without one).
/// A case-insensitive letter is a class, so it is never a needle.
fn required(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    required_as(hir, false)
}

/// `required`, where an either-case letter counts as a literal letter and
/// literals are in lower case.
fn required_folded(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    required_as(hir, true)
}

/// `required`, or `required_folded` when `folded`.
fn required_as(hir: &Hir, folded: bool) -> Option<Vec<Vec<u8>>> {
    let literal = |lit: &[u8]| if folded { lit.to_ascii_lowercase() } else { lit.to_vec() };
    let letter = |h: &Hir| either_case(h).filter(|_| folded);
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![literal(&lit.0)]),
        HirKind::Class(_) => letter(hir).map(|b| vec![vec![b]]),
        HirKind::Capture(cap) => required_as(&cap.sub, folded),
        HirKind::Repetition(rep) if rep.min >= 1 => required_as(&rep.sub, folded),
        // Every part of a concatenation is in the match: the part whose
        // literals are the most selective speaks for the whole. A run of
        // literals (and either-case letters) is one literal: syntax trees
        // merge adjacent literals, but not letters of either case.
        HirKind::Concat(parts) => {
            let (mut sets, mut run) = (Vec::new(), Vec::new());
            for part in parts {
                match (part.kind(), letter(part)) {
                    (HirKind::Literal(lit), _) => run.extend(literal(&lit.0)),
                    (_, Some(b)) => run.push(b),
                    _ => {
                        if !run.is_empty() {
                            sets.push(vec![std::mem::take(&mut run)]);
                        }
                        sets.extend(required_as(part, folded));
                    }
                }
            }
            if !run.is_empty() {
                sets.push(vec![run]);
            }
            sets.into_iter().max_by_key(|set| selectivity(set))
        }
        // A match is one branch's: the union of every branch's literals.
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(required_as(branch, folded)?);
            }
            Some(all)
        }
        _ => None,
    }
}

/// May a match of `hir` open with a run of up to `RUN` or more
/// characters of a class (`[^\n]{0,120}`, `.*`)?
fn opens_with_run(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Capture(cap) => opens_with_run(&cap.sub),
        HirKind::Concat(parts) => {
            parts.iter().find(|p| !matches!(p.kind(), HirKind::Look(_))).is_some_and(opens_with_run)
        }
        HirKind::Alternation(branches) => branches.iter().any(opens_with_run),
        // `[^\n]*`, or lines skipped before the match (`(?:[^\n]*\n){0,5}`):
        // a repeated part that itself opens with a run.
        HirKind::Repetition(rep) => {
            (rep.max.is_none_or(|max| max >= RUN) && matches!(rep.sub.kind(), HirKind::Class(_)))
                || (rep.max != Some(0) && opens_with_run(&rep.sub))
        }
        _ => false,
    }
}

/// A run this long before a match can fail costs an anchored search more
/// than a search for needles costs.
const RUN: u32 = 16;

/// How well a set of literals rejects texts: its shortest literal first
/// (capped: beyond a few bytes a literal is rare anyway), then fewer
/// literals.
fn selectivity(set: &[Vec<u8>]) -> (usize, std::cmp::Reverse<usize>) {
    let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
    (shortest.min(8), std::cmp::Reverse(set.len()))
}
