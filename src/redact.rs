//! Redaction of common secret shapes in trace text shown in reports:
//! API keys, cloud keys, bearer tokens, `password=` / `token=` values and
//! private key blocks. On by default; `--no-redact` turns it off.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Whether secrets are replaced: a value handed down from the settings
/// (`--no-redact` gives `Redaction::Off`), never a process-wide switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Redaction {
    #[default]
    On,
    Off,
}

impl Redaction {
    /// `text` with secret shapes replaced, unless redaction is off.
    pub fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Redaction::On => redact(text),
            Redaction::Off => Cow::Borrowed(text),
        }
    }
}

struct Shape {
    re: Regex,
    with: &'static str,
}

static SHAPES: LazyLock<Vec<Shape>> = LazyLock::new(|| {
    let shape = |p: &str, with| Shape { re: Regex::new(p).expect("secret pattern"), with };
    vec![
        shape(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            "[REDACTED PRIVATE KEY]",
        ),
        shape(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}", "sk-[REDACTED]"),
        shape(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "AKIA[REDACTED]"),
        shape(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", "gh_[REDACTED]"),
        shape(r"\bxox[abposr]-[A-Za-z0-9-]{10,}", "xox-[REDACTED]"),
        shape(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}", "$1 [REDACTED]"),
        shape(
            r#"(?i)\b((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)["']?\s*[:=]\s*["']?)[^\s"'&,;]{3,}"#,
            "${1}[REDACTED]",
        ),
    ]
});

/// `text` with secret shapes replaced.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for s in SHAPES.iter() {
        if s.re.is_match(&out) {
            out = Cow::Owned(s.re.replace_all(&out, s.with).into_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn secret_shapes() {
        let cases = [
            ("key sk-ant-api03-abcdefghijklmnopqrstuvwx rest", "key sk-[REDACTED] rest"),
            ("OPENAI=sk-proj-ABCDEFGHIJKLMNOP1234", "OPENAI=sk-[REDACTED]"),
            ("aws AKIAIOSFODNN7EXAMPLE here", "aws AKIA[REDACTED] here"),
            ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "Authorization: Bearer [REDACTED]"),
            ("curl -u x --data password=hunter22&user=a", "curl -u x --data password=[REDACTED]&user=a"),
            ("token: abc123def456", "token: [REDACTED]"),
            ("{\"api_key\": \"zzzzzzzz\"}", "{\"api_key\": \"[REDACTED]\"}"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done",
                "[REDACTED PRIVATE KEY] done",
            ),
            ("ghp_0123456789abcdefghijklmnopqrstuvwxyz", "gh_[REDACTED]"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), want, "for {input:?}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "Error: old_string not found in /a/b.rs",
            "please provide subagent_type parameter",
            "the token count is high",
            "sk-short",
        ] {
            assert!(matches!(redact(text), std::borrow::Cow::Borrowed(_)), "{text}");
        }
    }
}
