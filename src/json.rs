//! JSON from untrusted trace rows, and the bounds on what one document
//! (a row, a blob, a transcript line or file) may expand to.

use serde_json::Value;

/// Most JSON values (scalars, arrays, objects) one document may hold. Parsed
/// into `serde_json::Value`, each costs 32 to 100 bytes whatever its text
/// (`[0,0,…]` is 2 bytes a value): 4 million are a few hundred MB at
/// most. A long agent session holds tens of thousands.
pub(crate) const MAX_JSON_VALUES: usize = 4_000_000;

/// Documents this small are parsed without counting: even at 2 bytes a
/// value they hold too few values to matter.
const COUNT_FROM: usize = 1 << 20;

/// Why `text` is not parsed, if it holds more than `MAX_JSON_VALUES` JSON
/// values (counted without parsing: commas, brackets and braces outside
/// strings). Only documents over 1 MiB are counted.
pub(crate) fn check_size(text: &[u8]) -> Result<(), String> {
    if text.len() <= COUNT_FROM {
        return Ok(());
    }
    let mut values = 1usize;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                // Skip the string: to the next quote not escaped.
                i += 1;
                while let Some(k) = memchr::memchr2(b'"', b'\\', &text[i..]) {
                    i += k;
                    if text[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    break;
                }
            }
            b',' | b'[' | b'{' => values += 1,
            _ => {}
        }
        if values > MAX_JSON_VALUES {
            return Err(format!(
                "holds more than {MAX_JSON_VALUES} JSON values ({} MiB of text); not parsed",
                text.len() >> 20
            ));
        }
        i += 1;
    }
    Ok(())
}

/// A JSON document kept in a JSON string (arguments some providers store
/// encoded), decoded; a string that is not one, or that would expand past
/// `MAX_JSON_VALUES`, stays the string.
pub(crate) fn nested(s: String) -> Value {
    if check_size(s.as_bytes()).is_err() {
        return Value::String(s);
    }
    serde_json::from_str(&s).unwrap_or(Value::String(s))
}

/// A call's arguments stored as text: blank is an empty object, JSON is
/// decoded (`nested`), anything else stays the string (malformed
/// arguments). What `model::Args` and `source::rows::decode_arguments`
/// both decode to.
pub(crate) fn arguments(s: String) -> Value {
    if s.trim().is_empty() {
        return Value::Object(Default::default());
    }
    nested(s)
}

/// `serde_json::from_str` into a `Value`, refusing a document past
/// `MAX_JSON_VALUES` (see `check_size`) with an error that says so.
pub(crate) fn parse_bounded(text: &str) -> Result<Value, String> {
    check_size(text.as_bytes())?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// `text` with every `\uXXXX` escape that is a lone surrogate replaced by
/// `\ufffd`, and how many were; `None` if there is none.
pub(crate) fn replace_lone_surrogates(text: &str) -> Option<(String, u64)> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut replaced = 0;
    let mut last = 0;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] != b'u' {
            i += 2; // any other escape, including "\\\\"
            continue;
        }
        let Some(unit) = hex_unit(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        let paired_low = |j: usize| {
            b.get(j) == Some(&b'\\')
                && b.get(j + 1) == Some(&b'u')
                && hex_unit(&b[(j + 2).min(b.len())..]).is_some_and(|u| (0xDC00..0xE000).contains(&u))
        };
        match unit {
            0xD800..=0xDBFF if paired_low(i + 6) => i += 12,
            0xD800..=0xDFFF => {
                replaced += 1;
                let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
                s.push_str(&text[last..i]);
                s.push_str("\\ufffd");
                i += 6;
                last = i;
            }
            _ => i += 6,
        }
    }
    out.map(|mut s| {
        s.push_str(&text[last..]);
        (s, replaced)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `text`; if it fails only because of lone UTF-16 surrogate escapes
    /// (`"\ud800"`, which JSON allows and Rust strings cannot hold), replace
    /// those escapes with U+FFFD and parse again. The flag says a repair was
    /// needed.
    pub(super) fn parse_lossy(text: &str) -> Result<(Value, bool), serde_json::Error> {
        if let Err(problem) = check_size(text.as_bytes()) {
            return Err(serde::de::Error::custom(problem));
        }
        match serde_json::from_str(text) {
            Ok(v) => Ok((v, false)),
            Err(e) => match replace_lone_surrogates(text) {
                Some((fixed, _)) => serde_json::from_str(&fixed).map(|v| (v, true)).map_err(|_| e),
                None => Err(e),
            },
        }
    }

    #[test]
    fn lone_surrogates_are_replaced() {
        let (v, repaired) = parse_lossy(r#"{"a":"x\ud800y","b":"\udc00"}"#).unwrap();
        assert!(repaired);
        assert_eq!(v["a"], "x\u{fffd}y");
        assert_eq!(v["b"], "\u{fffd}");
    }

    #[test]
    fn pairs_and_escaped_backslashes_are_kept() {
        let (v, repaired) = parse_lossy(r#"{"a":"\ud83d\ude00","b":"\\ud800"}"#).unwrap();
        assert!(!repaired);
        assert_eq!(v["a"], "😀");
        assert_eq!(v["b"], "\\ud800");
    }

    /// Issue 22, F2: a document that would expand past `MAX_JSON_VALUES`
    /// is refused by counting, never parsed; strings hold any number of
    /// commas and brackets without counting.
    #[test]
    fn documents_past_the_value_bound_are_refused() {
        let zeros = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES));
        let err = check_size(zeros.as_bytes()).unwrap_err();
        assert!(err.contains("more than 4000000 JSON values"), "{err}");
        assert!(parse_bounded(&zeros).is_err() && parse_lossy(&zeros).is_err());
        let text = format!("{{\"a\":\"{}\\\"]\"}}", ",[{".repeat(MAX_JSON_VALUES));
        assert!(check_size(text.as_bytes()).is_ok());
        assert_eq!(parse_bounded(&text).unwrap()["a"].as_str().unwrap().len(), 3 * MAX_JSON_VALUES + 2);
        let under = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES / 2));
        assert!(parse_bounded(&under).is_ok());
    }

    #[test]
    fn other_errors_stay_errors() {
        assert!(parse_lossy("{broken").is_err());
        assert!(parse_lossy(r#"{"a":"\ud800"#).is_err(), "repaired but still truncated");
    }
}

/// A decoded string: its text, whether the middle was left out, and
/// whether lone surrogate escapes had to be replaced.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Decoded {
    pub text: String,
    pub cut: bool,
    pub repaired: bool,
}

fn decode_literal(lit: &str) -> (String, bool) {
    unescape(lit).unwrap_or_default()
}

/// The text of `lit`, one JSON string literal with its quotes, and whether
/// lone UTF-16 surrogate escapes in it were replaced by U+FFFD (as
/// `parse_lossy` does); `None` when `lit` is not one valid JSON string.
/// Runs without escapes are copied whole: the hot path of every id and
/// result text read.
pub(crate) fn unescape(lit: &str) -> Option<(String, bool)> {
    let b = lit.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut text = String::with_capacity(b.len());
    let (close, repaired) = scan_string(lit, 0, Some(&mut text))?;
    (close == b.len() - 1).then_some((text, repaired))
}

/// The index of the first control character, quote or backslash in `b` at
/// or after `i`: sixteen bytes at a time (`wide`'s vector types) for 256
/// bytes, then, for a long run (a file, a log line), a vector search for
/// the quote or backslash and one vectorised check of the run before it.
/// Measured on a 510-byte text with an escape every 20 bytes, one with an
/// escape every 63, and 2.4 KB with none: 182, 263 and 161 ns, where
/// serde_json's string reading takes 360, 604 and 531 ns, and eight bytes
/// at a time (SWAR, as serde_json does) 216, 441 and 416.
#[inline(always)]
fn first_special(b: &[u8], i: usize) -> Option<usize> {
    // The first sixteen bytes inline: an escape or the closing quote is
    // often there, and the loop's saved registers cost more than the test.
    if let Some(chunk) = b.get(i..i + 16) {
        let found = special_mask(chunk);
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize);
        }
        return first_special_after(b, i + 16);
    }
    first_special_after(b, i)
}

/// Bit `k` set: `chunk[k]` is a quote, a backslash or a control character.
#[inline(always)]
fn special_mask(chunk: &[u8]) -> i32 {
    use wide::u8x16;
    let (quote, backslash, control) = (u8x16::splat(b'"'), u8x16::splat(b'\\'), u8x16::splat(0x1f));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(chunk);
    let x = u8x16::from(bytes);
    // `max(x, 0x1f) == 0x1f`: x is a control character.
    (x.cmp_eq(quote) | x.cmp_eq(backslash) | x.max(control).cmp_eq(control)).move_mask()
}

/// `first_special` past its first sixteen bytes.
#[inline(never)]
fn first_special_after(b: &[u8], mut i: usize) -> Option<usize> {
    for _ in 0..15 {
        let Some(chunk) = b.get(i..i + 16) else {
            return b[i..].iter().position(|&c| c < 0x20 || c == b'"' || c == b'\\').map(|k| i + k);
        };
        let found = special_mask(chunk);
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize);
        }
        i += 16;
    }
    let at = i + memchr::memchr2(b'"', b'\\', &b[i..]).unwrap_or(b.len() - i);
    let run = &b[i..at];
    // No early exit, so that the check runs vectorised.
    if run.iter().fold(false, |control, &c| control | (c < 0x20)) {
        return run.iter().position(|&c| c < 0x20).map(|k| i + k);
    }
    (at < b.len()).then_some(at)
}

/// Reads the JSON string that opens at `b[open]` (a quote), checked as JSON
/// requires (no raw control character, only JSON's escapes), and, with
/// `out`, appends its text there: lone UTF-16 surrogate escapes become
/// U+FFFD (as `parse_lossy` does), and the flag says whether any did. The
/// index of its closing quote; `None` when it is not a valid string.
/// Runs without escapes are found eight bytes at a time and copied whole:
/// the hot path of every id and result text read.
fn scan_string(t: &str, open: usize, mut out: Option<&mut String>) -> Option<(usize, bool)> {
    let b = t.as_bytes();
    let mut repaired = false;
    let mut run = open + 1;
    let mut i = run;
    loop {
        let at = first_special(b, i)?;
        match b[at] {
            b'"' => {
                // `run` and `at` are next to ASCII bytes: character boundaries.
                if let Some(out) = out.as_deref_mut() {
                    out.push_str(&t[run..at]);
                }
                return Some((at, repaired));
            }
            b'\\' => {}
            _ => return None, // a raw control character
        }
        let escape = *b.get(at + 1)?;
        i = at + 2;
        let decoded: Option<char> = match escape {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => {
                let unit = hex_unit(b.get(i..)?)?;
                i += 4;
                if out.is_none() {
                    // Only checked: any four hex digits are an escape.
                    None
                } else {
                    let low = || {
                        let rest = b.get(i..)?;
                        (rest.starts_with(b"\\u"))
                            .then(|| hex_unit(&rest[2..]))
                            .flatten()
                            .filter(|u| (0xDC00..0xE000).contains(u))
                    };
                    let ch = match unit {
                        0xD800..=0xDBFF => low().map(|lo| {
                            i += 6;
                            0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(lo) - 0xDC00)
                        }),
                        0xDC00..=0xDFFF => None,
                        u => Some(u32::from(u)),
                    };
                    Some(ch.and_then(char::from_u32).unwrap_or_else(|| {
                        repaired = true;
                        '\u{fffd}'
                    }))
                }
            }
            _ => return None,
        };
        if let Some(out) = out.as_deref_mut() {
            out.push_str(&t[run..at]);
            // `push`, not `extend` of an `Option`: 2% of a scan's instructions.
            if let Some(c) = decoded {
                out.push(c);
            }
        }
        run = i;
    }
}

/// The four hex digits at the start of `b`, strictly (no sign).
fn hex_unit(b: &[u8]) -> Option<u16> {
    let d = b.get(..4)?;
    d.iter()
        .all(u8::is_ascii_hexdigit)
        .then(|| d.iter().fold(0u16, |n, &c| n * 16 + (c as char).to_digit(16).unwrap_or(0) as u16))
}

/// An odd number of backslashes right before `i`: `b[i]` is escaped.
fn escaped(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// The text of a JSON string literal `raw` (quotes included). A long one
/// is decoded only at its ends: the first and the last `cap` bytes or so,
/// joined by a line break. The flag says the middle was left out.
pub(crate) fn string_ends(raw: &str, cap: usize) -> Decoded {
    string_ends_bytes(raw.as_bytes(), cap).unwrap_or_default()
}

/// `string_ends` on bytes not yet checked as UTF-8: only the decoded ends
/// are checked (`None` if they are not UTF-8), the middle is never read.
pub(crate) fn string_ends_bytes(b: &[u8], cap: usize) -> Option<Decoded> {
    fn utf8(x: &[u8]) -> Option<&str> {
        std::str::from_utf8(x).ok()
    }
    if b.len() <= 2 * cap + 2 {
        let (text, repaired) = decode_literal(utf8(b)?);
        return Some(Decoded { text, cut: false, repaired });
    }
    let boundary = |i: usize| i >= b.len() || (b[i] & 0xC0) != 0x80;
    // Head: stop before `cap`, never inside an escape or a UTF-8 sequence.
    let mut i = 1;
    let mut head_end = 1;
    while i < cap {
        head_end = i;
        i += if b[i] == b'\\' { if b[i + 1] == b'u' { 6 } else { 2 } } else { 1 };
    }
    if i <= cap {
        head_end = i;
    }
    while head_end > 1 && !boundary(head_end) {
        head_end -= 1;
    }
    // Tail: start after `len - cap + 1`, never inside an escape (one byte
    // less than the head, so that head, line break and tail fit in 2 × cap).
    let last = b.len() - 1; // the closing quote
    let mut start = last - cap + 1;
    if escaped(b, start) {
        start += if b[start] == b'u' { 5 } else { 1 };
    } else if let Some(d) =
        (1..=4).find(|&d| b[start - d] == b'u' && b[start - d - 1] == b'\\' && !escaped(b, start - d - 1))
    {
        start = start - d - 1 + 6;
    }
    while start < last && !boundary(start) {
        start += 1;
    }
    let (head, r1) = decode_literal(&format!("{}\"", utf8(&b[..head_end])?));
    let (tail, r2) = decode_literal(&format!("\"{}", utf8(&b[start.min(last)..])?));
    // A surrogate pair cut in two at either end is not the trace's fault.
    let repaired = (r1 && !head.ends_with('\u{fffd}')) || (r2 && !tail.starts_with('\u{fffd}'));
    Some(Decoded { text: format!("{head}\n{tail}"), cut: true, repaired })
}

/// Reads `text` as one JSON object whose values are all scalars (strings,
/// numbers, `true`, `false`, `null`), building nothing but one string:
/// `each` is given every member in order, its key (which holds no escape)
/// and its value's raw text, as serde_json's `RawValue` would give it; the
/// text of the string value of the member `decode` is appended to `into`
/// as it is read (`scan_string`), and the flag says whether a lone
/// surrogate escape in it had to be replaced. `None` when the text is
/// anything else, or when `each` says so: a nested value, a key with an
/// escape, any syntax error; the caller then parses it with serde, which
/// decides. Every string is checked as JSON requires (no raw control
/// character, only JSON's escapes).
pub(crate) fn flat_object<'a>(
    text: &'a str,
    decode: &str,
    into: &mut String,
    mut each: impl FnMut(&'a str, &'a str) -> Option<()>,
) -> Option<bool> {
    let b = text.as_bytes();
    let mut repaired = false;
    whole_object(text, |key, at| {
        let end = match *b.get(at)? {
            b'"' if key == decode => {
                let (close, r) = scan_string(text, at, Some(&mut *into))?;
                repaired |= r;
                close + 1
            }
            b'{' | b'[' => return None,
            _ => value_end(text, at, 1)?,
        };
        each(key, &text[at..end])?;
        Some(end)
    })?;
    Some(repaired)
}

/// One top-level member of a JSON object's text: the byte ranges of its
/// key (inside the quotes) and of its value as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    pub key: std::ops::Range<u32>,
    pub raw: std::ops::Range<u32>,
}

/// Does serde surely decode `text`, one JSON value as `value_end` checks
/// it, and `nested` keep it? What `value_end` leaves to serde is ruled out:
/// a `\u` escape (a lone surrogate is refused), a number with an exponent
/// or of twenty digits or more (past `f64`'s range it is refused), a
/// document large enough for `check_size` to count. Conservative: a few
/// texts are decoded that need not be, never the other way.
pub(crate) fn surely_parses(text: &str) -> bool {
    text.len() <= COUNT_FROM && !has_u_escape(text.as_bytes()) && numbers_sure(text.as_bytes())
}

/// Does `b` hold `\u`? Most texts hold no backslash at all: a search
/// for one is cheaper than building a substring searcher per text.
fn has_u_escape(b: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', b).any(|k| b.get(k + 1) == Some(&b'u'))
}

/// Are the numbers of `b` (JSON without `\u` escapes) surely in `f64`'s
/// range? Only the bytes outside strings are looked at: each string is
/// skipped by a vector search for its closing quote.
fn numbers_sure(b: &[u8]) -> bool {
    let mut i = 0;
    loop {
        let quote = memchr::memchr(b'"', &b[i..]).map_or(b.len(), |k| i + k);
        let mut run = 0usize;
        for &c in &b[i..quote] {
            if c.is_ascii_digit() {
                run += 1;
                if run >= 20 {
                    return false;
                }
            } else {
                if run > 0 && (c | 0x20) == b'e' {
                    return false;
                }
                run = 0;
            }
        }
        if quote == b.len() {
            return true;
        }
        // To the closing quote: the next quote not escaped.
        let mut j = quote + 1;
        loop {
            let Some(k) = memchr::memchr2(b'"', b'\\', &b[j..]) else { return false };
            if b[j + k] == b'"' {
                i = j + k + 1;
                break;
            }
            j += k + 2;
            if j > b.len() {
                return false;
            }
        }
    }
}

/// The top-level members of `text` when it is one JSON object that serde
/// surely decodes to the object these members describe (`object_members`),
/// and nothing but whitespace around it. `None` otherwise: the caller
/// decodes and asks the value.
pub(crate) fn sure_members(text: &str) -> Option<Vec<Member>> {
    let b = text.as_bytes();
    let start = skip_space(b, 0);
    let (end, members) = object_members(text, start, 0)?;
    let members = members.filter(|_| skip_space(b, end) == b.len())?;
    // Relative to `start`: made relative to the whole text.
    let shift = |r: std::ops::Range<u32>| r.start + start as u32..r.end + start as u32;
    Some(members.into_iter().map(|m| Member { key: shift(m.key), raw: shift(m.raw) }).collect())
}

/// The JSON object that opens at `text[i]`, `depth` arrays and objects
/// deep, checked as `value_end` checks it: the index after it, and its
/// top-level members (ranges from `i`) when serde surely decodes it to the
/// object they describe: no `\u` escape, no doubtful number
/// (`surely_parses`), no key with an escape (`object` refuses one), no key
/// written twice (serde keeps the last). One walk: a reader that checks a
/// value anyway gets its members for the price of the check.
pub(crate) fn object_members(text: &str, i: usize, depth: usize) -> Option<(usize, Option<Vec<Member>>)> {
    if depth >= NESTING {
        return None;
    }
    let b = text.as_bytes();
    let mut members = Some(Vec::with_capacity(4));
    let end = object(text, i, |key, at| {
        let end = value_end(text, at, depth + 1)?;
        if let Some(list) = &mut members {
            let raw = &b[at..end];
            let sure = raw[0] == b'"' || numbers_sure(raw);
            let k = (key.as_ptr() as usize - b.as_ptr() as usize - i) as u32;
            let key = k..k + key.len() as u32;
            let twice = |m: &Member| {
                b[i + m.key.start as usize..i + m.key.end as usize] == b[i + key.start as usize..i + key.end as usize]
            };
            if !sure || list.iter().any(twice) {
                members = None;
            } else {
                list.push(Member { key, raw: (at - i) as u32..(end - i) as u32 });
            }
        }
        Some(end)
    })?;
    let doubtful = end - i > COUNT_FROM || has_u_escape(&b[i..end]);
    Some((end, members.filter(|_| !doubtful)))
}

/// The most arrays and objects, one inside another, that the serde-free
/// readers follow (`value_end`); a deeper value is left to serde, whose own
/// limit (128) then decides.
pub(crate) const NESTING: usize = 100;

/// The end of the JSON value that starts at `text[i]`, checked as JSON
/// requires (strings as `scan_string` checks them, numbers by their
/// grammar, arrays and objects whole); `depth` is how many arrays and
/// objects enclose it. `None` when it is not one valid value, or is nested
/// past `NESTING`.
pub(crate) fn value_end(text: &str, i: usize, depth: usize) -> Option<usize> {
    let b = text.as_bytes();
    match *b.get(i)? {
        b'"' => Some(scan_string(text, i, None)?.0 + 1),
        b't' if b[i..].starts_with(b"true") => Some(i + 4),
        b'f' if b[i..].starts_with(b"false") => Some(i + 5),
        b'n' if b[i..].starts_with(b"null") => Some(i + 4),
        b'-' | b'0'..=b'9' => number_end(b, i),
        b'[' if depth < NESTING => array(text, i, |at| value_end(text, at, depth + 1)),
        b'{' if depth < NESTING => object(text, i, |_, at| value_end(text, at, depth + 1)),
        _ => None,
    }
}

/// Reads the JSON array that opens at `text[i]` (`[`): `each` is given the
/// index each item starts at and returns the index it ends at, having read
/// it (`value_end` reads any). The index after the closing bracket.
/// (`object` walks its members the same way; one loop for both, with the
/// closing byte a parameter, cost 2% more instructions on a scan.)
pub(crate) fn array(text: &str, i: usize, mut each: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut j = skip_space(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Some(j + 1);
    }
    loop {
        j = skip_space(b, each(j)?);
        match *b.get(j)? {
            b',' => j = skip_space(b, j + 1),
            b']' => return Some(j + 1),
            _ => return None,
        }
    }
}

/// Reads the JSON object that opens at `text[i]` (`{`): `each` is given
/// every member's key, which must hold no escape (serde compares decoded
/// keys: an escaped one is left to it), and the index its value starts at,
/// and returns the index the value ends at, having read it. The index
/// after the closing brace.
pub(crate) fn object<'a>(
    text: &'a str,
    i: usize,
    mut each: impl FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut j = skip_space(b, i + 1);
    if b.get(j) == Some(&b'}') {
        return Some(j + 1);
    }
    loop {
        if b.get(j) != Some(&b'"') {
            return None;
        }
        let end = first_special(b, j + 1)?;
        if b[end] != b'"' {
            return None;
        }
        let key = &text[j + 1..end];
        j = skip_space(b, end + 1);
        if b.get(j) != Some(&b':') {
            return None;
        }
        j = skip_space(b, each(key, skip_space(b, j + 1))?);
        match *b.get(j)? {
            b',' => j = skip_space(b, j + 1),
            b'}' => return Some(j + 1),
            _ => return None,
        }
    }
}

/// Reads `text` as one JSON object and nothing else but whitespace around
/// it (see `object`).
pub(crate) fn whole_object<'a>(text: &'a str, each: impl FnMut(&'a str, usize) -> Option<usize>) -> Option<()> {
    let b = text.as_bytes();
    let end = object(text, skip_space(b, 0), each)?;
    (skip_space(b, end) == b.len()).then_some(())
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the JSON number that starts at `i`, which must be one:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i += digits(i),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

#[cfg(test)]
mod ends_tests {
    use super::tests::parse_lossy;
    use super::*;
    use serde_json::value::RawValue;

    /// The fast decoder says what serde_json (with the surrogate repair)
    /// says, on valid literals, repaired ones and broken ones.
    #[test]
    fn unescape_agrees_with_serde() {
        let cases = [
            r#""""#,
            r#""plain text""#,
            r#""a\nb\t\"q\"\\ \/ \b\f\r""#,
            r#""\u00e9\u4e2d\u0000""#,
            r#""\ud83d\ude00 pair""#,
            r#""lone \ud800 high""#,
            r#""lone \udc00 low""#,
            r#""\ud800\ud800\udc00""#,
            r#""\ud800\u0041""#,
            r#""ends high \ud83d""#,
            r#""\\ud800 escaped backslash""#,
            "\"é 中 😀\"",
            r#""bad \x escape""#,
            r#""short \u12""#,
            r#""sign \u+123""#,
            r#""inner " quote""#,
            "\"raw\ncontrol\"",
            r#""trailing backslash\""#,
            r#"no quotes"#,
            r#""unclosed"#,
        ];
        for lit in cases {
            let serde = match parse_lossy(lit) {
                Ok((Value::String(s), repaired)) => Some((s, repaired)),
                _ => None,
            };
            assert_eq!(unescape(lit), serde, "{lit}");
        }
    }

    /// `flat_object` gives the members serde_json gives, raw values as
    /// `RawValue` spells them, and refuses what is not a flat object.
    #[test]
    fn flat_objects_are_read_as_serde_reads_them() {
        let members = |text: &str| {
            let mut got = Vec::new();
            let mut decoded = String::new();
            flat_object(text, "d", &mut decoded, |k, v| {
                got.push((k.to_string(), v.to_string()));
                Some(())
            })
            .map(|repaired| (got, decoded, repaired))
        };
        let text = r#" {"a": "x\ty" , "n":-0.5e+3,"t":true,"f":false,"z":null,"d":"\u00e9\ud800"} "#;
        let serde: Vec<(String, String)> =
            serde_json::from_str::<std::collections::BTreeMap<String, Box<RawValue>>>(text)
                .unwrap()
                .into_iter()
                .map(|(k, v)| (k, v.get().to_string()))
                .collect();
        let (mut got, decoded, repaired) = members(text).unwrap();
        got.sort();
        assert_eq!(got, serde);
        assert_eq!((decoded.as_str(), repaired), ("é\u{fffd}", true));
        assert_eq!(members("{}").map(|m| m.0.len()), Some(0));
        for refused in [
            r#"{"a":{}}"#,
            r#"{"a":[1]}"#,
            r#"{"\u0061":1}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":+1}"#,
            r#"{"a":1e}"#,
            r#"{"a":nul}"#,
            r#"{"a":"\q"}"#,
            "{\"a\":\"\u{1f}\"}",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":1} x"#,
            r#"["a"]"#,
            r#"{"a":"open}"#,
        ] {
            assert!(members(refused).is_none(), "{refused}");
        }
    }

    /// Every place a special byte can stand, before, across and after the
    /// eight-byte steps and the vector search: the same answer as serde.
    #[test]
    fn specials_are_found_wherever_they_stand() {
        for len in [0, 1, 7, 8, 15, 16, 17, 31, 33, 255, 256, 257, 263, 400] {
            for at in 0..=len {
                for special in ["\\n", "\\\"", "\u{1}", "\"", "\\u00e9", "\\q", "é"] {
                    let mut body = "a".repeat(len);
                    body.insert_str(at, special);
                    let lit = format!("\"{body}\"");
                    let serde = match tests::parse_lossy(&lit) {
                        Ok((Value::String(s), repaired)) => Some((s, repaired)),
                        _ => None,
                    };
                    assert_eq!(unescape(&lit), serde, "{len} {at} {special:?}");
                }
            }
        }
    }

    #[test]
    fn short_strings_decode_whole() {
        assert_eq!(string_ends(r#""a\nb""#, 100), Decoded { text: "a\nb".into(), cut: false, repaired: false });
        assert!(string_ends(r#""a\ud800b""#, 100).repaired);
    }

    #[test]
    fn long_strings_keep_both_ends_cut_safely() {
        let body = "x\\n\\\\\\u00e9é\\\"\\ud83d\\ude00".repeat(500);
        let raw = format!("\"{body}END\"");
        let full: String = serde_json::from_str(&raw).unwrap();
        for cap in 10..40 {
            let Decoded { text, cut, repaired } = string_ends(&raw, cap);
            assert!(cut && !repaired);
            let head = text.split('\n').next().unwrap().trim_end_matches('\u{fffd}');
            assert!(full.starts_with(head), "cap {cap}: head {head:?}");
            let tail = text.rsplit('\n').next().unwrap().trim_start_matches('\u{fffd}');
            assert!(full.ends_with(tail), "cap {cap}: tail {tail:?}");
            assert!(tail.ends_with("END"));
            assert!(text.len() < 4 * cap + 16, "cap {cap}: {} bytes", text.len());
        }
    }
}
