//! The rule registry: content rules (is this text a failure?), classification
//! rules (which category?) and tool roles (which tools read or modify files).
//! All of it is data; this module only compiles and applies it.

pub mod benign;
pub mod category;
pub mod classify;
pub mod content;
pub mod findings;
pub mod tools;

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::model::Dialect;

pub use category::{CATEGORIES, Category};
pub use classify::{CLASS_RULES, ClassRule, EXIT_CLASS_RULES};
pub use content::{CONTENT_RULES, ContentRule};
pub use findings::{FINDING_RULES, FindingRule, Severity};

/// How sure a content rule is that a match means failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// An error string a specific agent is known to emit.
    High,
    /// A generic shape (`Error: …`) that nearly always means failure.
    Medium,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::High => "high",
            Precision::Medium => "medium",
        }
    }
}

/// Only the two ends of a result are examined: error messages are short,
/// and a 50 MB tool output must not cost a 50 MB regex scan. The readers
/// keep no more than this of each end (`model::TEXT_CAP`).
pub const EXAMINED_PREFIX_BYTES: usize = crate::model::TEXT_CAP;

struct Compiled {
    /// One regex per rule, in registry order: rules out of a result's tool
    /// or format scope are skipped before any matching, and anchored
    /// patterns (most of them) stop at the first byte that cannot match, so
    /// a clean 4 KiB output costs a few comparisons, not a scan.
    content: Vec<Regex>,
    classify: Vec<Regex>,
    exit_classify: Vec<Regex>,
    wrapper: Regex,
    benign: Vec<Regex>,
    exit_code: Regex,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    content: CONTENT_RULES.iter().map(|r| Regex::new(r.pattern).expect("content rules compile")).collect(),
    classify: CLASS_RULES.iter().map(|r| Regex::new(r.pattern).expect("class rules compile")).collect(),
    exit_classify: EXIT_CLASS_RULES.iter().map(|r| Regex::new(r.pattern).expect("exit rules compile")).collect(),
    wrapper: Regex::new(content::PERI_WRAPPER).expect("wrapper compiles"),
    benign: benign::BENIGN_EXITS.iter().map(|b| Regex::new(b.command).expect("benign exits compile")).collect(),
    exit_code: Regex::new(
        r"(?m)^(?:Exit code:?|Exit Code:|Process exited with code) (-?\d+)\s*$|<exit_code>(-?\d+)</exit_code>",
    )
    .expect("exit code compiles"),
});

fn in_scope(scope: &[&str], tool: &str) -> bool {
    scope.is_empty() || scope.contains(&tool)
}

/// The head of `text` that rules look at: leading whitespace trimmed, cut at
/// a character boundary. A longer text is examined as its head, a newline
/// and its tail, so that rules about the last line (an exit code) still see
/// it; `^`-anchored rules without `(?m)` only ever see the start.
pub fn examined(text: &str) -> std::borrow::Cow<'_, str> {
    crate::model::text_ends(text)
}

/// The first content rule (in registry order) that says `text`, returned by
/// `tool`, is a failure, whatever the dialect (only unscoped rules).
pub fn detect(tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(None, tool, text)
}

/// The first content rule for a result of `tool` in a session of `dialect`
/// (rules scoped to other dialects are skipped).
pub fn detect_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ContentRule> {
    first_content(Some(dialect), tool, text)
}

fn first_content(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ContentRule> {
    let head = examined(text);
    CONTENT_RULES
        .iter()
        .zip(&COMPILED.content)
        .find(|(r, re)| in_scope(r.tools, tool) && in_dialect(r.formats, dialect) && re.is_match(&head))
        .map(|(r, _)| r)
}

/// An empty scope is every dialect; `None` (no dialect) only matches that.
fn in_dialect(scope: &[Dialect], dialect: Option<Dialect>) -> bool {
    scope.is_empty() || dialect.is_some_and(|d| scope.contains(&d))
}

/// The id of the content rule for a failing JSON envelope.
pub const ENVELOPE_RULE: &str = "json-envelope-error";
/// How a failing JSON envelope is presented to the rules (see `present`).
pub const ENVELOPE_PREFIX: &str = "JSON envelope error: ";

/// The text of a result as the rules see it. A tool result that is a JSON
/// envelope (MCP servers, Roo-style tools) is judged inside the envelope:
/// `{"error": …}`, `{"status": "error"}`, `{"success": false}` and
/// `{"isError": true}` become `JSON envelope error: <message>`, and
/// `{"result": "…"}` / `{"output": "…"}` become their inner text. Results
/// of readers and shells are data (`tools::returns_data`) and stay as they
/// are, and so does anything that is not one JSON object.
pub fn present<'a>(tool: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    use std::borrow::Cow;
    let head = text.trim_start();
    if !head.starts_with('{') || head.len() > 1 << 18 || tools::returns_data(tool) {
        return Cow::Borrowed(text);
    }
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(head) else { return Cow::Borrowed(text) };
    let truthy = |v: &Value| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        _ => true,
    };
    let said = |k: &str| o.get(k).and_then(Value::as_str).map(|s| s.to_ascii_lowercase());
    let failed = o.get("error").is_some_and(truthy)
        || matches!(said("status").as_deref(), Some("error" | "failed" | "failure"))
        || o.get("success") == Some(&Value::Bool(false))
        || o.get("ok") == Some(&Value::Bool(false))
        || o.get("isError") == Some(&Value::Bool(true));
    if failed {
        let message = ["error", "message", "result", "output", "detail"]
            .iter()
            .filter_map(|k| o.get(*k).filter(|v| truthy(v)))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                Value::Object(m) => match m.get("message").and_then(Value::as_str) {
                    Some(s) => s.to_string(),
                    None => v.to_string(),
                },
                other => other.to_string(),
            })
            .next()
            .unwrap_or_else(|| head.to_string());
        return Cow::Owned(format!("{ENVELOPE_PREFIX}{message}"));
    }
    match o.get("result").or_else(|| o.get("output")) {
        Some(Value::String(inner)) if o.len() <= 3 => Cow::Owned(inner.clone()),
        _ => Cow::Borrowed(text),
    }
}

/// The content rule for a whole result: its text, and else the exit status
/// the source stored (presented to the rules as the line `Exit code N`). A
/// rule that reports an exit code is overruled by a benign exit of the
/// call's command (see `benign`).
pub fn detect_result(
    format: Dialect,
    tool: &str,
    input: &Value,
    text: &str,
    exit_code: Option<i64>,
) -> Option<&'static ContentRule> {
    let (rule, shown) = match detect_in(format, tool, text) {
        Some(r) => (r, examined(text).into_owned()),
        None => {
            let code = exit_code.filter(|&c| c != 0)?;
            let line = format!("Exit code {code}");
            (detect_in(format, tool, &line)?, line)
        }
    };
    // A shell command that exited 0 succeeded: a generic shape in its output
    // (a script printing `ERROR: …`) is the program's text, not the tool's.
    let succeeded = exit_code == Some(0) || exit_code_of(&shown) == Some(0);
    if rule.precision == Precision::Medium && succeeded && tools::SHELL_TOOLS.contains(&tool) {
        return None;
    }
    if is_benign(rule.id, input, &shown) { None } else { Some(rule) }
}

/// Did `rule` fire on an exit code that the call's command makes benign?
/// The command line is parsed as a shell would (see `benign`): the status
/// is the last command's, or, when nothing was printed, that of a command
/// before `&&` that ended the list.
fn is_benign(rule: &str, input: &Value, text: &str) -> bool {
    let Some(code) = exit_code_of(text) else { return false };
    let Some(line) = benign::command_line(input) else { return false };
    let candidates = benign::exit_candidates(&line);
    let silent = benign::is_silent(text);
    benign::BENIGN_EXITS.iter().zip(&COMPILED.benign).any(|(b, re)| {
        b.rules.contains(&rule)
            && b.codes.contains(&code)
            && (silent || !b.silent_only)
            && candidates.iter().enumerate().any(|(i, c)| (i == 0 || silent) && re.is_match(c))
    })
}

/// The exit code a result reports (`Exit code N`, `Exit Code: N`,
/// `Process exited with code N`, `<exit_code>N</exit_code>`).
pub fn exit_code_of(text: &str) -> Option<i64> {
    let c = COMPILED.exit_code.captures(text)?;
    c.get(1).or_else(|| c.get(2))?.as_str().parse().ok()
}

/// `text` without Peri's `Tool execution failed: <Tool> - ` wrapper.
pub fn unwrap_text(text: &str) -> &str {
    let head = text.trim_start();
    match COMPILED.wrapper.find(head) {
        Some(m) => &head[m.end()..],
        None => head,
    }
}

/// The first classification rule for the (unwrapped) text of a failed call,
/// whatever the dialect (only unscoped rules). `None` means no rule knows
/// it: the category is `other`.
pub fn classify(tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(None, tool, text)
}

/// `classify` for a result in a session of `dialect`.
pub fn classify_in(dialect: Dialect, tool: &str, text: &str) -> Option<&'static ClassRule> {
    first_class(Some(dialect), tool, text)
}

/// The category rule of a failed result. A result that reports a non-zero
/// process exit (in its text or as the stored `exit_code`) is a program's
/// failure: `EXIT_CLASS_RULES` (command not found, the tool's time limit,
/// an interrupt), else `nonzero-exit`, whatever words the program printed.
/// Any other result goes through `CLASS_RULES`.
pub fn classify_result(dialect: Dialect, tool: &str, text: &str, exit_code: Option<i64>) -> Option<&'static ClassRule> {
    let head = examined(unwrap_text(text));
    let code = exit_code_of(&head).or(exit_code).filter(|&c| c != 0);
    let failed_task = head.contains("<status>failed</status>");
    if code.is_none() && !failed_task {
        return first_class(Some(dialect), tool, text);
    }
    let shown = match code {
        Some(c) if exit_code_of(&head).is_none() => format!("{head}\nExit code {c}"),
        _ => head.into_owned(),
    };
    EXIT_CLASS_RULES
        .iter()
        .zip(&COMPILED.exit_classify)
        .find(|(r, re)| in_scope(r.tools, tool) && in_dialect(r.formats, Some(dialect)) && re.is_match(&shown))
        .map(|(r, _)| r)
        .or_else(|| CLASS_RULES.iter().find(|r| r.id == "nonzero-exit"))
}

fn first_class(dialect: Option<Dialect>, tool: &str, text: &str) -> Option<&'static ClassRule> {
    let head = examined(unwrap_text(text));
    CLASS_RULES
        .iter()
        .zip(&COMPILED.classify)
        .find(|(r, re)| in_scope(r.tools, tool) && in_dialect(r.formats, dialect) && re.is_match(&head))
        .map(|(r, _)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_tool(scope: &[&'static str]) -> &'static str {
        scope.first().copied().unwrap_or("SomeTool")
    }

    fn sample_dialect(scope: &[Dialect]) -> Option<Dialect> {
        scope.first().copied()
    }

    #[test]
    fn every_content_rule_has_examples_that_behave() {
        for rule in CONTENT_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let dialect = sample_dialect(rule.formats);
            let re = Regex::new(rule.pattern).unwrap();
            for text in rule.fires_on {
                assert!(re.is_match(&examined(text)), "{} must fire on {text:?}", rule.id);
                assert!(first_content(dialect, tool, text).is_some(), "{text:?} must be detected");
            }
            for text in rule.ignores {
                assert!(!re.is_match(&examined(text)), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn content_rule_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in CONTENT_RULES {
            assert!(seen.insert(r.id), "duplicate content rule {}", r.id);
        }
        for r in CLASS_RULES.iter().chain(EXIT_CLASS_RULES) {
            assert!(seen.insert(r.id), "rule id {} used twice", r.id);
        }
    }

    #[test]
    fn every_class_rule_is_first_on_its_examples() {
        for rule in CLASS_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let dialect = sample_dialect(rule.formats);
            let re = Regex::new(rule.pattern).unwrap();
            for text in rule.fires_on {
                let got = first_class(dialect, tool, text).map(|r| r.id);
                assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
            }
            for text in rule.ignores {
                assert!(!re.is_match(text), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn exit_class_rules_are_first_on_their_examples() {
        for rule in EXIT_CLASS_RULES {
            assert!(!rule.fires_on.is_empty() && !rule.ignores.is_empty(), "{} needs examples", rule.id);
            for text in rule.fires_on {
                let got = classify_result(Dialect::CRUSH, "bash", text, Some(1)).map(|r| r.id);
                assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
            }
            for text in rule.ignores {
                let got = classify_result(Dialect::CRUSH, "bash", text, None).map(|r| r.id);
                assert_ne!(got, Some(rule.id), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    /// Issue 12, shape 9: a program's words do not classify the tool call.
    #[test]
    fn failed_programs_are_nonzero_exits() {
        let cases = [
            "Exit code 101\n   Compiling x v0.1.0\nerror[E0425]: cannot find value `y` in this scope\ntest result: FAILED. internal error",
            "Exit code 2\nerror: unexpected argument '--frobnicate' found\n\nUsage: tool [OPTIONS]",
            "Exit code 1\nsrc/a.ts(3,7): error TS2304: Cannot find name 'x'.",
            "Exit code 1\n  1) page loads:\n     TimeoutError: locator.click: Timeout 5000ms exceeded.",
            "Output: \n> app@1.0.0 build\nError: (none)\nExit Code: 1\nSignal: (none)",
            "Exit code: 1\nWall time: 0.8 seconds\nOutput:\nunknown flag: --pr\n\nUsage:  gh run list [flags]",
        ];
        for text in cases {
            assert_eq!(
                classify_result(Dialect::GEMINI, "run_shell_command", text, None).map(|r| r.id),
                Some("nonzero-exit"),
                "{text:?}"
            );
        }
        // A stored exit status (opencode) counts too.
        assert_eq!(
            classify_result(Dialect::OPENCODE, "bash", "fatal: not a git repository", Some(128)).map(|r| r.id),
            Some("nonzero-exit")
        );
        assert_eq!(
            classify_result(Dialect::OPENCODE, "bash", "/bin/bash: line 1: gh: command not found\n", Some(127))
                .map(|r| r.id),
            Some("command-not-found")
        );
        // Without an exit, the tool's own words classify.
        assert_eq!(
            classify_result(Dialect::CLAUDE_CODE, "Bash", "Permission to use Bash has been denied.", None)
                .map(|r| r.category),
            Some(Category::PermissionDenied)
        );
    }

    /// Issue 12, shape 2: errors inside JSON envelopes.
    #[test]
    fn json_envelopes_are_judged_inside() {
        let judged = |tool: &str, text: &str| {
            let shown = present(tool, text);
            (detect_in(Dialect::CLAUDE_CODE, tool, &shown).map(|r| r.id), shown.into_owned())
        };
        let (rule, shown) = judged("mcp__serena__find_file", r#"{"result":"Error: No active project."}"#);
        assert_eq!((rule, shown.as_str()), (Some("error-prefix"), "Error: No active project."));
        for text in [
            r#"{"error": {"code": -32000, "message": "MCP server connection lost"}}"#,
            r#"{"status": "error", "message": "project not found"}"#,
            r#"{"success": false, "message": "Query failed"}"#,
            r#"{"isError": true, "content": [{"type": "text", "text": "boom"}]}"#,
        ] {
            assert_eq!(judged("mcp__x__y", text).0, Some(ENVELOPE_RULE), "{text}");
        }
        assert_eq!(
            judged("mcp__x__y", r#"{"error": {"code": -32000, "message": "lost"}}"#).1,
            "JSON envelope error: lost"
        );
        for text in [r#"{"error": null, "rows": []}"#, r#"{"success": true}"#, r#"{"status": "ok"}"#, "{not json"] {
            assert_eq!(judged("mcp__x__y", text).0, None, "{text}");
        }
        // Readers and shells return data, not envelopes.
        assert_eq!(judged("read_file", r#"{"error": "fixture"}"#).0, None);
        assert_eq!(judged("bash", r#"{"status": "error"}"#).0, None);
    }

    #[test]
    fn tool_scope_limits_rules() {
        // The cross mark is only an error marker for folder_operations.
        assert!(detect("folder_operations", "✗ Folder not found: /x").is_some());
        assert!(detect("Bash", "✗ 2 tests failed").is_none());
        // subagent_type rules only classify the Agent tool.
        let text = "Error: please provide subagent_type parameter";
        assert_eq!(classify("Agent", text).unwrap().id, "agent-missing-subagent-type");
        assert_ne!(classify("Other", text).map(|r| r.id), Some("agent-missing-subagent-type"));
    }

    #[test]
    fn wrapper_is_stripped_before_classifying() {
        let pre = "Error: old_string not found in /a.rs";
        let post = "Tool execution failed: Edit - Error: old_string not found in /a.rs\nPlease Read this file";
        assert_eq!(classify("Edit", pre).unwrap().id, classify("Edit", post).unwrap().id);
        assert_eq!(unwrap_text(post).lines().next(), Some(pre));
        assert_eq!(unwrap_text("plain"), "plain");
    }

    #[test]
    fn benign_texts_are_not_errors() {
        let benign = [
            ("Grep", "src/edit.rs:42:        return Ok(format!(\"Error: old_string not found\"));"),
            ("Read", "     1\tError: connection refused\n     2\tERROR: disk full"),
            ("Bash", "building...\n[Exit code: 1]"),
            ("Bash", "[Command completed with exit code 1]"),
            ("Grep", "No matches found."),
            ("Glob", "No files found."),
            ("ExecuteExtraTool", "No completed background agent results available yet."),
        ];
        for (tool, text) in benign {
            assert!(detect(tool, text).is_none(), "{tool}: {text:?} is not an error");
        }
    }

    #[test]
    fn format_scope_limits_rules() {
        let crush = "FAIL\n\nExit code 1\n\n<cwd>/p</cwd>";
        assert_eq!(detect_in(Dialect::CRUSH, "bash", crush).map(|r| r.id), Some("exit-code-line"));
        assert!(detect_in(Dialect::PERI, "bash", crush).is_none(), "Crush's exit line means nothing elsewhere");
        // Any tool that reports a process exit (Crush's job_output), not a file's text.
        assert!(detect_in(Dialect::CRUSH, "job_output", crush).is_some());
        assert!(detect_in(Dialect::CRUSH, "view", "     1|Exit code 1").is_none());
        assert_eq!(detect_in(Dialect::LLM, "t", "Error: boom").map(|r| r.id), Some("llm-tool-error-output"));
        assert_eq!(detect_in(Dialect::PERI, "t", "Error: boom").map(|r| r.id), Some("error-prefix"));
        assert_eq!(classify_in(Dialect::LLM, "t", "Cancelled: no").map(|r| r.id), Some("llm-hook-cancelled"));
        assert!(classify_in(Dialect::PERI, "t", "Cancelled: no").is_none());
    }

    #[test]
    fn every_scope_names_a_dialect_tracelint_reads() {
        let scopes =
            CONTENT_RULES.iter().map(|r| (r.id, r.formats)).chain(CLASS_RULES.iter().map(|r| (r.id, r.formats)));
        for (id, scope) in scopes {
            for d in scope {
                assert_eq!(Dialect::from_name(d.as_str()), Some(*d), "{id}: unknown dialect {d}");
            }
        }
    }

    #[test]
    fn exit_codes_and_benign_exits() {
        use serde_json::json;
        // A search that finds nothing prints nothing.
        let text = |code: i64| format!("\n\nExit code {code}\n\n<cwd>/p</cwd>");
        let cmd = |c: &str| json!({"command": c});
        let rule = |c: &str, code: i64| detect_result(Dialect::CRUSH, "bash", &cmd(c), &text(code), None).map(|r| r.id);
        assert_eq!(rule("cargo test", 101), Some("exit-code-line"));
        assert_eq!(rule("grep -rn x src", 1), None, "grep found nothing");
        assert_eq!(rule("grep -rn x src", 2), Some("exit-code-line"), "grep itself failed");
        assert_eq!(rule("cd /p && git diff --exit-code", 1), None);
        assert_eq!(rule("grep x f | wc -l", 1), Some("exit-code-line"));
        // Issue 12, shape 6: an alternation inside quotes is not a pipe.
        assert_eq!(rule("grep -r \"a\\|b\" dir", 1), None);
        assert_eq!(rule("rg -n \"LEVEL|OTHER\" -g \"*.md\"", 1), None);
        assert_eq!(rule("sudo timeout 5 grep -q x /etc/hosts", 1), None);
        // A search that printed an error failed, whatever its exit code.
        let noisy = "rg: regex parse error:\n    (?:x\\y)\nerror: unrecognized escape sequence\n\nExit code 1";
        assert!(detect_result(Dialect::CRUSH, "bash", &cmd("rg 'x\\y'"), noisy, None).is_some());
        // A failed search ends an `&&` list and prints nothing.
        assert_eq!(rule("rg -n x a.py && sed -n '1,9p' a.py", 1), None);
        assert_eq!(rule("make && sed -n '1,9p' a.py", 1), Some("exit-code-line"));
        // Issue 12, shape 11: Ctrl+C sent on purpose, then exit 1 or 130.
        let ctrl_c = json!({"session_id": 1885, "chars": "\u{3}", "yield_time_ms": 1000});
        let exited = |code: i64| {
            format!("Chunk ID: 06e30f\nWall time: 0.05 seconds\nProcess exited with code {code}\nOutput:\n^C")
        };
        assert!(detect_result(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(130), None).is_none());
        assert!(detect_result(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(1), None).is_none());
        assert!(detect_result(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(2), None).is_some());
        let typed = json!({"session_id": 1885, "chars": "y\n"});
        assert!(detect_result(Dialect::CODEX, "write_stdin", &typed, &exited(1), None).is_some());
        // A script that printed `ERROR:` and exited 0 did not fail.
        let script = "ERROR: Multiple spec directories found with prefix '001'\nCopied plan template";
        assert!(detect_result(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, Some(0)).is_none());
        assert!(detect_result(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, None).is_some());
        // Gemini's and Codex's shapes go through the same logic.
        let gemini = "Command: findstr /s foo *.md\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 4068";
        assert!(
            detect_result(Dialect::GEMINI, "run_shell_command", &cmd("findstr /s foo *.md"), gemini, None).is_none()
        );
        assert!(detect_result(Dialect::GEMINI, "run_shell_command", &cmd("npm run lint"), gemini, None).is_some());
        // A structured exit status (opencode) goes through the same rule.
        let structured =
            |c: &str, code| detect_result(Dialect::OPENCODE, "bash", &cmd(c), "out", Some(code)).map(|r| r.id);
        assert_eq!(structured("make", 2), Some("exit-code-line"));
        assert_eq!(structured("rg foo", 1), None);
        assert_eq!(structured("make", 0), None);
        assert!(detect_result(Dialect::PERI, "bash", &cmd("make"), "out", Some(2)).is_none(), "no rule for peri");
        // The exit line at the end of a long output is still seen.
        let long = format!("{}\nExit code 3\n", "x".repeat(3 * EXAMINED_PREFIX_BYTES));
        assert_eq!(
            detect_result(Dialect::CRUSH, "bash", &cmd("make"), &long, None).map(|r| r.id),
            Some("exit-code-line")
        );
    }

    #[test]
    fn benign_exit_entries_behave() {
        for (b, re) in benign::BENIGN_EXITS.iter().zip(&COMPILED.benign) {
            for r in b.rules {
                assert!(CONTENT_RULES.iter().any(|c| c.id == *r), "{}: unknown rule {r}", b.id);
            }
            for c in b.fires_on {
                assert!(re.is_match(&benign::last_command(c)), "{} must match {c:?}", b.id);
            }
            for c in b.ignores {
                assert!(!re.is_match(&benign::last_command(c)), "{} must ignore {c:?}", b.id);
            }
        }
        assert_eq!(benign::command_line(&serde_json::json!({"cmd": ["bash", "-lc", "rg x"]})).unwrap(), "rg x");
        assert_eq!(benign::command_line(&serde_json::json!({"cmd": ["rg", "x"]})).unwrap(), "rg x");
    }

    #[test]
    fn unclassified_error_is_other() {
        assert!(classify("Edit", "Error: unexpected state while applying the edit to /a.rs").is_none());
    }

    #[test]
    fn huge_text_is_cut_at_a_char_boundary() {
        let text = format!("Error: {}", "é".repeat(EXAMINED_PREFIX_BYTES));
        let head = examined(&text);
        assert!(head.len() <= 2 * EXAMINED_PREFIX_BYTES + 1, "head, newline, tail");
        assert!(detect("Read", &text).is_some());
    }
}
