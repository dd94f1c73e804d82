//! Benign exits: a command that exits non-zero to say "nothing found", not
//! "failed". Claude Code's Bash tool treats exit code 1 of these programs
//! as success (research/jsonl-and-peers.md §2a); so does tracelint, for the
//! content rules that report an exit code.
//!
//! Data, like every rule: the rules an entry overrules, the exit codes it
//! forgives, a pattern for the last simple command of the command line, and
//! examples the unit tests run.

use serde_json::Value;

pub struct BenignExit {
    pub id: &'static str,
    /// Content rules (ids) this entry can overrule.
    pub rules: &'static [&'static str],
    /// Exit codes that are not failures for a matching command.
    pub codes: &'static [i64],
    /// Matched against the last simple command of the command line.
    pub command: &'static str,
    pub doc: &'static str,
    /// Command lines the entry must match.
    pub fires_on: &'static [&'static str],
    /// Command lines it must not match.
    pub ignores: &'static [&'static str],
}

pub static BENIGN_EXITS: &[BenignExit] = &[
    BenignExit {
        id: "search-found-nothing",
        rules: &[
            "exit-code-line",
            "codex-process-exited",
            "codex-exit-code",
            "openai-agents-exit-code",
            "zed-terminal-exit-code",
            "cursor-exit-code",
        ],
        codes: &[1],
        command: r"^(?:\S*/)?(?:grep|rg|egrep|fgrep|find|diff|test|\[|git\s+(?:grep|diff))(?:\s|$)",
        doc: "grep, rg, egrep, fgrep, find, diff, test, `[`, `git grep` and `git diff` exit 1 to say \
          \"no match\" or \"different\", not that they failed.",
        fires_on: &["grep -rn TODO src", "cd /p && rg -l foo", "LC_ALL=C diff a b", "git grep needle", "test -f x"],
        ignores: &["cargo test", "grep x | wc -l", "git status", "npm run find"],
    },
    // --- traces as files: OpenHands, Continue ------------------------------------
    BenignExit {
        id: "search-found-nothing-files",
        rules: &["openhands-exit-code", "continue-exit-code"],
        codes: &[1],
        command: r"^(?:\S*/)?(?:grep|rg|egrep|fgrep|find|diff|test|\[|git\s+(?:grep|diff))(?:\s|$)",
        doc: "The same searches in the agents whose traces are files: exit 1 is \"no match\", not a failure.",
        fires_on: &["grep -rn TODO src", "rg needle"],
        ignores: &["cargo build"],
    },
];

/// The command line of a call's arguments (`command` or `cmd`, a string or an
/// argv array; `bash -lc "…"` is unwrapped to its script).
pub fn command_line(input: &Value) -> Option<String> {
    let v = input.get("command").or_else(|| input.get("cmd"))?;
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script, ..]
                    if ["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"].contains(shell)
                        && flag.starts_with('-')
                        && flag.contains('c') =>
                {
                    Some((*script).to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// The last simple command of a command line: after the last `&&`, `||`,
/// `;`, `|` or newline, without leading `VAR=value` assignments.
pub fn last_command(line: &str) -> &str {
    let cut = line.rfind(['&', '|', ';', '\n']).map_or(0, |i| i + 1);
    let mut rest = line[cut..].trim();
    while let Some((word, tail)) = rest.split_once(char::is_whitespace) {
        let is_assignment =
            word.find('=').is_some_and(|i| i > 0 && word[..i].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !is_assignment {
            break;
        }
        rest = tail.trim_start();
    }
    rest
}
