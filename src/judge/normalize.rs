//! Error messages to templates: the variable parts (numbers, quoted strings,
//! paths, URLs, ids, hex, UUIDs) become placeholders, so that the same error
//! about different files or values groups as one message.

use std::sync::LazyLock;

use regex::Regex;

use crate::redact::Redaction;
use crate::sanitize;

/// Longest template, in characters.
pub const TEMPLATE_CHARS: usize = 160;

struct Step {
    re: Regex,
    with: &'static str,
}

/// The steps before quoted strings become `<str>` (`quoted`).
static BEFORE_QUOTED: LazyLock<Vec<Step>> = LazyLock::new(|| {
    vec![
        step(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'`<>]+", "<url>"),
        step(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<uuid>"),
    ]
});

fn step(pattern: &str, with: &'static str) -> Step {
    Step { re: Regex::new(pattern).expect("normalize pattern"), with }
}

/// The quotes a quoted string opens with, each with the one that closes it.
const QUOTES: [(char, char); 5] = [('\'', '\''), ('"', '"'), ('`', '`'), ('‘', '’'), ('“', '”')];

/// The most characters between two quotes that make a quoted string.
const QUOTED_CHARS: usize = 200;

/// `line` with each quoted string (`QUOTES`, at most `QUOTED_CHARS`
/// characters on one line between them) replaced by `<str>`, leftmost
/// first, as the regex `'[^'\n]{0,200}'|"[^"\n]{0,200}"|…` would; `None`
/// when there is none. Written out, because that regex is compiled as
/// 1,000 repetitions of a Unicode class and took a tenth of a small
/// scan's start-up.
fn quoted(line: &str) -> Option<String> {
    let mut out = String::new();
    let (mut kept, mut at) = (0, 0);
    while let Some(c) = line[at..].chars().next() {
        let body = at + c.len_utf8();
        let close = QUOTES.iter().find(|(open, _)| *open == c).map(|&(_, close)| close);
        let end = close.and_then(|close| {
            for (n, (i, d)) in line[body..].char_indices().enumerate() {
                if d == close {
                    return Some(body + i + d.len_utf8());
                }
                if d == '\n' || n == QUOTED_CHARS {
                    return None;
                }
            }
            None
        });
        match end {
            Some(end) => {
                out.push_str(&line[kept..at]);
                out.push_str("<str>");
                (kept, at) = (end, end);
            }
            None => at = body,
        }
    }
    (kept > 0).then(|| {
        out.push_str(&line[kept..]);
        out
    })
}

/// The steps after quoted strings became `<str>`.
static AFTER_QUOTED: LazyLock<Vec<Step>> = LazyLock::new(|| {
    vec![
        // A path starts a token: absolute, home- or dot-relative, Windows,
        // or relative with two slashes, or one slash and an extension.
        step(
            r#"(?P<pre>^|[\s(\[=,])(?:(?:[A-Za-z]:\\|~/|\.{1,2}/|/)|[\w.-]+/[\w.-]+/|[\w.-]+/[\w.-]*\.\w)[^\s:'"`,;()\[\]{}<>]*"#,
            "${pre}<path>",
        ),
        step(
            r"(?i)\b0x[0-9a-f]+\b|\b(?:[0-9a-f]*[0-9][0-9a-f]*[a-f]|[0-9a-f]*[a-f][0-9a-f]*[0-9])[0-9a-f]*\b",
            "<hex>",
        ),
        step(r"\b(?:call|toolu|tooluse|fc|chatcmpl)_[A-Za-z0-9_]+\b", "<id>"),
        step(r"[-+]?\b\d+(?:[.,]\d+)*\b", "<n>"),
    ]
});

/// Lines agents put around a program's output (exit code, wall time,
/// `Output:`, Gemini's `Command:`/`Directory:` lines, a `> pkg@1.0 test`
/// npm banner, `Compiling …`): they say nothing about which failure it was.
static FRAMING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:Exit [Cc]ode:? -?\d+|Process exited with code|Wall time:|Chunk ID:|Original token count:|Output:\s*(?:\(empty\))?$|Command:|Directory:|Error: \(none\)|Signal:|Background PIDs:|Process Group PGID:|Process running with session ID|<cwd>|<(?:shellId: |exited with exit code|command with (?:shellId|id|sessionId): )|</?(?:output|status|exit_code|task_id|task_type|retrieval_status|shell_metadata)>|> \S+@\S+ |\s*Compiling |\s*Running |\$ )",
    )
    .expect("framing pattern")
});

/// Words that make a line look like the error itself.
static ERRORISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:error|errors|fail|failed|failure|fatal|denied|not found|no such|cannot|can't|unable|invalid|exception|panic(?:ked)?|timed out|timeout|refused|unknown|missing|exceeded|rejected|cancell?ed|aborted|not allowed|already exists|does not exist)\b|✗|✖",
    )
    .expect("errorish pattern")
});

/// The most informative line of an error text: the first line that looks
/// like an error and is not framing, else the last non-blank line that is
/// not framing, else the first non-blank line. Real output often starts
/// with a banner (`Chunk ID: …`, `> pkg@1.0 test`, `Compiling …`), and
/// grouping by it would merge different failures into one.
pub fn informative_line(text: &str) -> &str {
    let lines = || text.lines().filter(|l| !l.trim().is_empty());
    let content = || lines().filter(|l| !FRAMING.is_match(l.trim_start_matches(' ').trim_end()));
    content().find(|l| ERRORISH.is_match(l)).or_else(|| content().next_back()).or_else(|| lines().next()).unwrap_or("")
}

/// The template of an error text: its most informative line (see
/// `informative_line`), sanitized, secrets redacted, with variable parts
/// replaced by `<url>`, `<uuid>`, `<str>`, `<path>`, `<hex>`, `<id>` and
/// `<n>`, then cut to `TEMPLATE_CHARS`.
pub fn template(text: &str) -> String {
    template_with(text, Redaction::On)
}

/// `template`, redacting as `redaction` says. Redaction comes before the
/// placeholders and the cut: `xoxb-123-…` would no longer look like a Slack
/// token once its digits are `<n>`, and a key cut short not like a key.
pub fn template_with(text: &str, redaction: Redaction) -> String {
    placeholders(&shown_line(text, redaction))
}

/// The line of `text` a failure is shown and grouped by: its most
/// informative line (see `informative_line`), sanitized, secrets redacted.
pub fn shown_line(text: &str, redaction: Redaction) -> String {
    redaction.apply(&sanitize::one_line(informative_line(text))).into_owned()
}

/// The template of a line `shown_line` gave: variable parts replaced by
/// placeholders, then cut to `TEMPLATE_CHARS`.
pub fn placeholders(line: &str) -> String {
    let mut t = line.to_string();
    let apply = |t: &mut String, steps: &[Step]| {
        for s in steps {
            if s.re.is_match(t) {
                *t = s.re.replace_all(t, s.with).into_owned();
            }
        }
    };
    apply(&mut t, &BEFORE_QUOTED);
    if let Some(q) = quoted(&t) {
        t = q;
    }
    apply(&mut t, &AFTER_QUOTED);
    sanitize::truncate(&t, TEMPLATE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::{template, template_with};
    use crate::redact::Redaction;

    #[test]
    fn placeholders() {
        let cases = [
            ("Error: old_string not found in /Users/dev/peri/src/edit.rs", "Error: old_string not found in <path>"),
            (
                "Error: old_string is not unique in /a/b.rs (found 3 occurrences). Please provide more context",
                "Error: old_string is not unique in <path> (found <n> occurrences). Please provide more context",
            ),
            ("工具 'Task' 不存在", "工具 <str> 不存在"),
            (
                "Error: cannot find agent definition 'tester'. Check .claude/agents/ directory",
                "Error: cannot find agent definition <str>. Check <path> directory",
            ),
            (
                "Extract API returned HTTP 502: https://api.example.com/v1?q=1 failed",
                "Extract API returned HTTP <n>: <url> failed",
            ),
            ("thread 019e9069-e494-70c6-a6a3-a4506513270e gone", "thread <uuid> gone"),
            ("commit deadbeef42 and 0x1F", "commit <hex> and <hex>"),
            ("no result for call_00_JpAjQZBIpNj4qysohdBQ6732", "no result for <id>"),
            (
                "Error: Command timed out after 120 seconds.\nCommand: sleep 500",
                "Error: Command timed out after <n> seconds.",
            ),
            ("File src/lib.rs and ./x and C:\\work\\a.txt and ~/notes", "File <path> and <path> and <path> and <path>"),
            ("use read/write access", "use read/write access"),
            ("offset -5 exceeds 1,024 lines", "offset <n> exceeds <n> lines"),
            ("\u{1b}[31mError\u{1b}[0m: red", "Error: red"),
        ];
        for (input, want) in cases {
            assert_eq!(template(input), want, "for {input:?}");
        }
    }

    /// `quoted` replaces what the regex it stands for replaces: random
    /// lines of quotes of every kind, newlines, letters and wide
    /// characters, quoted runs about 200 characters long among them.
    #[test]
    fn quoted_strings_as_the_regex_finds_them() {
        let re =
            regex::Regex::new(r#"'[^'\n]{0,200}'|"[^"\n]{0,200}"|`[^`\n]{0,200}`|‘[^’\n]{0,200}’|“[^”\n]{0,200}”"#)
                .expect("the oracle compiles");
        let alphabet = ['\'', '"', '`', '‘', '’', '“', '”', '\n', 'a', 'é', '工', ' '];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).expect("small")
        };
        let (mut lines, mut replaced) = (0, 0);
        for _ in 0..20_000 {
            let mut line = String::new();
            for _ in 0..next(6) {
                match next(4) {
                    // A run long enough to cross the 200-character limit.
                    0 => line.extend(std::iter::repeat_n(alphabet[8 + next(4)], 195 + next(10))),
                    _ => {
                        for _ in 0..next(5) {
                            line.push(alphabet[next(alphabet.len())]);
                        }
                    }
                }
            }
            let want = re.replace_all(&line, "<str>");
            assert_eq!(super::quoted(&line).as_deref().unwrap_or(&line), want, "for {line:?}");
            lines += 1;
            replaced += usize::from(want != line);
        }
        assert!(replaced > lines / 10 && replaced < lines * 9 / 10, "{replaced} of {lines} lines have one");
    }

    #[test]
    fn same_shape_same_template() {
        assert_eq!(
            template("Error: File not found at /a/one.rs"),
            template("Error: File not found at /b/two/three.py")
        );
        assert_ne!(template("Error: File not found at /a"), template("Error: old_string not found in /a"));
    }

    /// Issue 12, shape 10: banners do not make different failures one.
    #[test]
    fn banners_are_not_the_error() {
        let a = "Chunk ID: 7a1\nWall time: 0.4 seconds\nProcess exited with code 1\nOutput:\nerror: could not find `Cargo.toml`";
        let b =
            "Chunk ID: 9f2\nWall time: 1.2 seconds\nProcess exited with code 1\nOutput:\nfatal: not a git repository";
        assert_ne!(template(a), template(b));
        assert_eq!(template(a), "error: could not find <str>");
        let npm = "Exit code 1\n\n> app@1.0.0 test\n> jest\n\nFAIL src/a.test.ts\n  ● adds";
        assert_eq!(template(npm), "FAIL <path>");
        // No error word: the last line of the output, not the banner.
        assert_eq!(template("Exit code 2\n   Compiling x v0.1.0\nsomething odd happened"), "something odd happened");
        assert_eq!(template("Exit code 1"), "Exit code <n>");
    }

    /// Issue 22, F8 and F9: a Slack token's digits do not become `<n>`
    /// before it is redacted, and a key at the 160-character cut is
    /// redacted whole before the cut.
    #[test]
    fn secrets_are_redacted_before_placeholders_and_the_cut() {
        let slack = template("Error: auth failed for xoxb-123456789012-Rel3SlackBotAbCdEf");
        assert_eq!(slack, "Error: auth failed for xox-[REDACTED]");
        for key in [
            "AKIAZ7Q3REL3EXAMPLE9",
            "ghp_Rel3GhpTokenAbCdEfGhIjKlMnOpQrStUvWx12",
            "sk-proj-Rel3OpenAIkeyAbCdEfGhIjKlMnOpQrStUvWx",
        ] {
            for keep in [4, 10, 19, 33] {
                let pad = "w".repeat(super::TEMPLATE_CHARS - 1 - keep - "Error: ".len() - 1);
                let t = template(&format!("Error: {pad} {key} and more text after the key"));
                assert!(t.contains("[RED") || t.ends_with('…'), "{key} at {keep}: {t}");
                assert!(!t.contains(&key[4..8]), "{key} at {keep}: {t}");
            }
        }
        let open = template_with("Error: auth failed for xoxb-123456789012-Rel3SlackBotAbCdEf", Redaction::Off);
        assert!(open.contains("Rel3SlackBotAbCdEf"), "--no-redact keeps it: {open}");
    }

    #[test]
    fn plain_words_are_kept() {
        assert_eq!(
            template("Error: please provide subagent_type parameter"),
            "Error: please provide subagent_type parameter"
        );
        assert_eq!(template(""), "");
    }
}
