//! JSON from untrusted trace rows.

use serde_json::Value;

/// Parse `text`; if it fails only because of lone UTF-16 surrogate escapes
/// (`"\ud800"`, which JSON allows and Rust strings cannot hold), replace
/// those escapes with U+FFFD and parse again. The flag says a repair was
/// needed.
pub fn parse_lossy(text: &str) -> Result<(Value, bool), serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok((v, false)),
        Err(e) => match replace_lone_surrogates(text) {
            Some(fixed) => serde_json::from_str(&fixed).map(|v| (v, true)).map_err(|_| e),
            None => Err(e),
        },
    }
}

fn hex4(b: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u16::from_str_radix(s, 16).ok()
}

/// `text` with every `\uXXXX` escape that is a lone surrogate replaced by
/// `\ufffd`; `None` if there is none.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
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
        let Some(unit) = hex4(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        let paired_low = |j: usize| {
            b.get(j) == Some(&b'\\')
                && b.get(j + 1) == Some(&b'u')
                && hex4(&b[(j + 2).min(b.len())..]).is_some_and(|u| (0xDC00..0xE000).contains(&u))
        };
        match unit {
            0xD800..=0xDBFF if paired_low(i + 6) => i += 12,
            0xD800..=0xDFFF => {
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
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn other_errors_stay_errors() {
        assert!(parse_lossy("{broken").is_err());
        assert!(parse_lossy(r#"{"a":"\ud800"#).is_err(), "repaired but still truncated");
    }
}

/// Bytes of a result's text that are kept: enough for every rule (which
/// read the first 4 KiB), messages and drill-down excerpts; a 400 KB output
/// is never copied or unescaped whole.
pub const TEXT_CAP: usize = 8192;

/// The text of a JSON string literal `raw` (quotes included), decoding at
/// most about `cap` bytes of it. The flag says the text was cut.
pub fn string_prefix(raw: &str, cap: usize) -> (String, bool) {
    let decode = |lit: &str| -> Option<String> {
        match parse_lossy(lit) {
            Ok((Value::String(s), _)) => Some(s),
            _ => None,
        }
    };
    if raw.len() <= cap + 2 {
        return (decode(raw).unwrap_or_default(), false);
    }
    // Cut before `cap`, never inside an escape or a UTF-8 sequence.
    let b = raw.as_bytes();
    let mut i = 1;
    let mut cut = 1;
    while i < b.len() - 1 && i < cap {
        cut = i;
        i += if b[i] == b'\\' { if b.get(i + 1) == Some(&b'u') { 6 } else { 2 } } else { 1 };
    }
    if i <= cap {
        cut = i;
    }
    while cut > 1 && !raw.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut lit = String::with_capacity(cut + 1);
    lit.push_str(&raw[..cut]);
    lit.push('"');
    (decode(&lit).unwrap_or_default(), true)
}

#[cfg(test)]
mod prefix_tests {
    use super::*;

    #[test]
    fn short_strings_decode_whole() {
        assert_eq!(string_prefix(r#""a\nb""#, 100), ("a\nb".to_string(), false));
    }

    #[test]
    fn long_strings_are_cut_safely() {
        let body = "x\\n\\u00e9é\\ud83d\\ude00".repeat(2000);
        let raw = format!("\"{body}\"");
        for cap in [10, 11, 12, 13, 14, 15, 16, 17, 20, 25, 8192] {
            let (text, cut) = string_prefix(&raw, cap);
            assert!(cut);
            assert!(text.len() <= cap + 8, "{cap}: {}", text.len());
            let full: String = serde_json::from_str(&raw).unwrap();
            let clean = text.trim_end_matches('\u{fffd}');
            assert!(full.starts_with(clean), "cap {cap}: {text:?}");
        }
    }
}
