//! One level of encoding taken off before redacting: a base64 run that
//! decodes to text (`echo c2stcHJvai1… | base64 -d`), and a run of URL
//! text with `%XX` escapes (`?next=%2Fapp%3Fclient_secret%3D…`). The
//! decoded text is redacted with the plain shapes (not decoded again);
//! where that changes it, the encoded run is changed to match.

/// The value of a base64 digit, either alphabet (`+/` or `-_`).
fn sextet(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// `run` decoded as base64 (padded or not, either alphabet), if it is
/// base64 of text: valid UTF-8 with no control character but tab and line
/// breaks.
pub(super) fn base64_text(run: &str) -> Option<String> {
    let digits = run.trim_end_matches('=').as_bytes();
    if digits.len() % 4 == 1 {
        return None;
    }
    let (mut acc, mut bits) = (0u32, 0u32);
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for &b in digits {
        acc = (acc << 6) | sextet(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    text.chars().all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r')).then_some(text)
}

/// A run of URL text decoded: each `%XX` escape's byte, with where it
/// came from. `None` when the bytes are not UTF-8.
pub(super) struct Decoded {
    pub(super) text: String,
    /// For each byte of `text`, the byte of the run it starts at.
    from: Vec<usize>,
    /// The characters that were escaped somewhere in the run.
    escaped: Vec<char>,
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

pub(super) fn percent(run: &str) -> Option<Decoded> {
    let b = run.as_bytes();
    let (mut bytes, mut from) = (Vec::with_capacity(b.len()), Vec::with_capacity(b.len()));
    let mut escaped_bytes = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1).copied().and_then(hex), b.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                bytes.push(h << 4 | l);
                escaped_bytes.push(h << 4 | l);
                from.push(i);
                i += 3;
            }
            (c, _, _) => {
                bytes.push(c);
                from.push(i);
                i += 1;
            }
        }
    }
    let text = String::from_utf8(bytes).ok()?;
    let escaped = escaped_bytes.into_iter().filter(u8::is_ascii).map(char::from).collect();
    Some(Decoded { text, from, escaped })
}

impl Decoded {
    /// The run with the decoded text changed to `redacted`: the common
    /// start and end keep their encoding, the part between is written
    /// with every character escaped that the run escaped.
    pub(super) fn reencode(&self, run: &str, redacted: &str) -> String {
        let old = self.text.as_bytes();
        let new = redacted.as_bytes();
        let mut start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        while !self.text.is_char_boundary(start) || !redacted.is_char_boundary(start) {
            start -= 1;
        }
        let max_end = old.len().min(new.len()) - start;
        let mut end = old.iter().rev().zip(new.iter().rev()).take(max_end).take_while(|(a, b)| a == b).count();
        while !self.text.is_char_boundary(old.len() - end) || !redacted.is_char_boundary(new.len() - end) {
            end -= 1;
        }
        let run_at = |i: usize| self.from.get(i).copied().unwrap_or(run.len());
        let mut out = String::with_capacity(run.len());
        out.push_str(&run[..run_at(start)]);
        for c in redacted[start..new.len() - end].chars() {
            if self.escaped.contains(&c) {
                out.push_str(&format!("%{:02X}", c as u32));
            } else {
                out.push(c);
            }
        }
        out.push_str(&run[run_at(old.len() - end)..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{base64_text, percent};

    #[test]
    fn base64_of_text_only() {
        assert_eq!(base64_text("c2stcHJvai1SZWw0QjY0").as_deref(), Some("sk-proj-Rel4B64"));
        assert_eq!(base64_text("cGFzc3dvcmQ9aHVudGVyMjI=").as_deref(), Some("password=hunter22"));
        assert_eq!(base64_text("cGFzc3dvcmQ9aHVudGVyMjI").as_deref(), Some("password=hunter22"));
        // Binary (a hash) and impossible lengths are not text.
        assert_eq!(base64_text("4f9e2c1a7b3d5e6f8091a2b3c4d5e6f708192a3b"), None);
        assert_eq!(base64_text("abcde"), None);
        assert_eq!(base64_text("AAAAAAAA"), None);
    }

    #[test]
    fn percent_runs_keep_what_did_not_change() {
        let run = "cb?next=%2Fapp%3Fclient_secret%3DRel4%26x%3D1";
        let d = percent(run).unwrap();
        assert_eq!(d.text, "cb?next=/app?client_secret=Rel4&x=1");
        let redacted = "cb?next=/app?client_secret=[REDACTED]&x=1";
        assert_eq!(d.reencode(run, redacted), "cb?next=%2Fapp%3Fclient_secret%3D[REDACTED]%26x%3D1");
        // A lone `%` stays as it is.
        assert_eq!(percent("100%25 and 5%").unwrap().text, "100% and 5%");
        assert!(percent("%ff%fe").is_none());
    }
}
