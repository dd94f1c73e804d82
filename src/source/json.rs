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
