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
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    let b = body.as_bytes();
    // No early exit, so that the check runs vectorised over the whole body.
    if b.iter().fold(false, |control, &c| control | (c < 0x20)) {
        return None; // JSON strings hold no raw control characters
    }
    let mut out = String::with_capacity(body.len());
    let mut repaired = false;
    let mut i = 0;
    loop {
        let Some(k) = memchr::memchr2(b'\\', b'"', &b[i..]) else {
            out.push_str(&body[i..]);
            return Some((out, repaired));
        };
        let at = i + k;
        if b[at] == b'"' {
            return None; // an unescaped quote: the literal ended early
        }
        out.push_str(&body[i..at]);
        i = at + 2;
        match *b.get(at + 1)? {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let unit = hex_unit(b.get(i..)?)?;
                i += 4;
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
                match ch.and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => {
                        repaired = true;
                        out.push('\u{fffd}');
                    }
                }
            }
            _ => return None,
        }
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

#[cfg(test)]
mod ends_tests {
    use super::tests::parse_lossy;
    use super::*;

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
