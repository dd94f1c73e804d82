//! The registry's own tests: every rule's examples, and how the tables apply.

use super::*;

fn detect_result_(
    dialect: Dialect,
    tool: &str,
    input: &Args,
    text: &str,
    exit_code: Option<i64>,
) -> Option<&'static ContentRule> {
    detect_result(&Reading { dialect, tool, input, text, exit_code, flagged: false })
}

fn classify_result_(dialect: Dialect, tool: &str, text: &str, exit_code: Option<i64>) -> Option<&'static ClassRule> {
    classify_result(&Reading { dialect, tool, input: no_args(), text, exit_code, flagged: false }, None)
}

/// A rule's pattern compiled as the rules read it (syntax.rs), without
/// its prefilters.
fn rule_regex(pattern: &str) -> regex_automata::meta::Regex {
    syntax::regex_of(&syntax::parse(pattern).expect("rule patterns parse"))
}

fn sample_tool(scope: &[&'static str]) -> &'static str {
    scope.first().copied().unwrap_or("SomeTool")
}

fn sample_dialect(scope: &[Dialect]) -> Option<Dialect> {
    scope.first().copied()
}

/// The content rule `detect_result` finds for a result of `tool`, called
/// with `input`, unflagged and with no exit status.
fn detected(dialect: Dialect, tool: &str, input: &Args, text: &str) -> Option<&'static str> {
    let r = Reading { dialect, tool, input, text, exit_code: None, flagged: false };
    detect_result(&r).map(|c| c.id)
}

#[test]
fn every_content_rule_has_examples_that_behave() {
    for rule in CONTENT_RULES {
        assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
        assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
        let tool = sample_tool(rule.tools);
        let dialect = sample_dialect(rule.dialects);
        let re = rule_regex(rule.pattern);
        let masking = masked::Masking {
            earlier: true,
            earlier_work: true,
            only_error: true,
            background: true,
            self_kill: true,
            earlier_git_work: true,
            refused_option: true,
            unknown_status_work: true,
            tests_passed: false,
            answered_by_fallback: false,
            harmless_complaints_only: false,
            runs_program: true,
            unknown_subcommand: true,
        };
        let (tool, class) = match rule.reads {
            Reads::MaskedPipelines | Reads::ShellOutput => ("Bash", ToolClass::Shell),
            Reads::Replies => ("fetch_page", ToolClass::Data),
            _ => (tool, tool_class(tool)),
        };
        if rule.reads == Reads::Delegations {
            let input = Args::from(serde_json::json!({"request": "Do the task"}));
            for text in rule.fires_on {
                assert_eq!(detected(Dialect::ADK, "helper_agent", &input, text), Some(rule.id), "{text:?}");
            }
            for text in rule.ignores {
                let opening = delegation::opening(text).unwrap_or_default();
                assert!(!re.is_match(opening), "{} must ignore {text:?}", rule.id);
            }
            continue;
        }
        if rule.reads == Reads::HttpReplies {
            for text in rule.fires_on {
                let reply = http::failed_reply(text).unwrap_or_default();
                assert!(re.is_match(&reply), "{} must fire on the reply {text:?}", rule.id);
                let input = Args::from(serde_json::json!({"command": "curl -s http://localhost/api"}));
                assert_eq!(detected(Dialect::CLAUDE_CODE, "Bash", &input, text), Some(rule.id), "{text:?}");
            }
            for text in rule.ignores {
                assert!(
                    http::failed_reply(text).is_none_or(|reply| !re.is_match(&reply)),
                    "{} must ignore {text:?}",
                    rule.id
                );
            }
            continue;
        }
        for text in rule.fires_on {
            assert!(re.is_match(&*examined(text)), "{} must fire on {text:?}", rule.id);
            let plan = plan::of(dialect, tool);
            assert_eq!(plan.class, class);
            assert!(first_content_as(&plan, &|| masking, text).is_some(), "{text:?} must be detected");
        }
        for text in rule.ignores {
            assert!(!re.is_match(&*examined(text)), "{} must ignore {text:?}", rule.id);
        }
    }
}

#[test]
fn every_pattern_compiles() {
    let c = &*COMPILED;
    for re in c.content.iter().chain(&c.classify).chain(&c.exit_classify).chain(&c.benign) {
        let _ = re.regex();
    }
}

/// The first-byte check is taken only where it is sound and worth it:
/// every match starts at the text's start and is not empty, and its first
/// bytes (of a finite set of literals, or of the classes that open it)
/// leave out at least half of all bytes.
#[test]
fn only_anchored_selective_prefixes_get_a_first_byte_check() {
    let set = |p: &str| {
        prefilter::parse(p)
            .and_then(|h| prefilter::first_bytes(&h))
            .map(|f| (0..=255u8).filter(|b| f[usize::from(*b)]).collect::<Vec<u8>>())
    };
    assert_eq!(set(r"^(?:Error|ERROR):"), Some(vec![b'E']));
    assert_eq!(set(r"^(?:Failed to|Unable to|Cannot) \S"), Some(vec![b'C', b'F', b'U']));
    assert_eq!(set(r"(?i)^error"), Some(vec![b'E', b'e']));
    assert_eq!(set("^✗ "), Some(vec![0xE2]), "the first byte of a UTF-8 literal");
    // A class first: the bytes it can start with (every leading byte of its
    // UTF-8 encodings), through optional parts and repetitions.
    let upper: Vec<u8> = (b'A'..=b'Z').collect();
    assert_eq!(set(r"^(?:The )?[A-Z][\w-]* failed"), Some(upper.clone()));
    assert_eq!(set(r"^(?:[A-Z][A-Za-z]+ ){1,2}[Ee]rror: "), Some(upper));
    // A rule's `\s` is ASCII's (syntax.rs).
    assert_eq!(set(r"^\s*Error"), Some(vec![9, 10, 11, 12, 13, 32, b'E']));
    assert_eq!(set(r"^[é-ž]x"), Some(vec![0xC3, 0xC4, 0xC5]), "the leading bytes of a range of code points");
    // Not selective (most bytes can start it), or a match may be empty.
    for not in [r"(?m)^Exit code", r"^[^\n]{0,120}?failed", r"^a|b", r"a", r"^(?:x)?", r"\A|^x", r"^[^a]x", r"^(?s:.)x"]
    {
        assert_eq!(set(not), None, "{not}");
    }
    // Whatever the check says, the answer is the regex's.
    let rule = LazyRegex::new(r"^(?:Error|ERROR):|^Traceback");
    for (text, want) in [("Error: x", true), ("Traceback (most", true), (" Error:", false), ("", false), ("e", false)] {
        assert_eq!(rule.is_match(text), want, "{text:?}");
    }
    // `\s` is ASCII's; the examined text is trimmed of Unicode's blanks first.
    let rule = LazyRegex::new(r"^\s*(?:Échec|Error)");
    for (text, want) in [
        ("\tError", true),
        ("Échec", true),
        ("\u{a0}Error", false),
        ("\u{3000}Error", false),
        ("x Error", false),
        ("", false),
    ] {
        assert_eq!(rule.is_match(text), want, "{text:?}");
    }
}

/// A pattern whose branches are each anchored or have needles is split:
/// a text may match only if it opens as an anchored branch can, or holds
/// a needle of another. A branch that is neither, or an empty match that
/// is not held to the text's end, leaves the pattern unsplit.
#[test]
fn split_patterns_open_by_their_anchored_branches_or_hold_a_needle() {
    let split = |p: &str| {
        prefilter::parse(p).and_then(|h| prefilter::split(&h)).map(|(opens, literals)| {
            let bytes: Vec<u8> = (0..=255u8).filter(|b| opens[usize::from(*b)]).collect();
            let literals: Vec<String> = literals.into_iter().map(|l| String::from_utf8(l).unwrap()).collect();
            (bytes, opens[256], literals)
        })
    };
    assert_eq!(
        split(r"\A\s*(?:\(no output\)|<none>)?\s*\z|(?m)^Signal: 15$"),
        Some((vec![9, 10, 11, 12, 13, 32, b'(', b'<'], true, vec!["Signal: 15".to_string()]))
    );
    assert_eq!(split(r"\AError: |fatal: "), Some((vec![b'E'], false, vec!["fatal: ".to_string()])));
    for not in
        [r"\A(?:x)?|fatal: ", r"\AError|[a-z]+", r"\AError|(?i)fatal", r"Error|fatal", r"\AError: x", r"\A\s*|fatal: "]
    {
        assert_eq!(split(not), None, "{not}");
    }
    // Whatever the split says, the answer is the regex's.
    let rule = LazyRegex::new(r"\A\s*(?:\(no output\))?\s*\z|(?m)^Signal: 15$");
    for (text, want) in [
        ("", true),
        ("(no output)", true),
        ("done\nSignal: 15", true),
        ("done\nSignal: 9", false),
        ("(no output) but more", false),
        ("x", false),
    ] {
        assert_eq!(rule.is_match(text), want, "{text:?}");
    }
}

/// The needles `find` gives for `pattern`, as strings.
fn needles_of(pattern: &str, find: fn(&regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>>) -> Option<Vec<String>> {
    prefilter::parse(pattern)
        .and_then(|h| find(&h))
        .map(|set| set.into_iter().map(|l| String::from_utf8(l).unwrap()).collect())
}

#[test]
fn needles_are_literals_every_match_contains() {
    let of = |p: &str| needles_of(p, prefilter::literals);
    assert_eq!(of(r"(?m)^[A-Za-z][\w-]*: ?\r?\nLine \|\r?\n +\d+ \| "), Some(vec!["\nLine |".into()]));
    assert_eq!(of(r"(?:abc){2,}xy"), Some(vec!["abc".into()]), "the longer literal of a concatenation");
    assert_eq!(of(r"\d+ (?:failed|error)s?\b"), Some(vec!["error".into(), "failed".into()]));
    assert_eq!(of("不存在"), Some(vec!["不存在".into()]));
    // Anchored: only when a long run of any characters may open the match.
    assert_eq!(of(r"^[^\n]{0,120}?\b(?:failed|error)\b"), Some(vec!["error".into(), "failed".into()]));
    assert_eq!(of(r"^.*(?:failed|error)"), Some(vec!["error".into(), "failed".into()]));
    assert_eq!(of(r"^[^\n]{0,8}(?:failed|error)"), None);
    // Lines skipped before the match: a repeated part that opens with a run.
    assert_eq!(of(r"\A(?:[^\n]*\n){0,5}?fetch failed"), Some(vec!["fetch failed".into()]));
    assert_eq!(of(r"\A(?:[^\n]+: Error - [^\n]*\n)+\z"), Some(vec![": Error - ".into()]));
    assert_eq!(of(r"\A(?:ab\n){0,5}fetch failed"), None, "a repeated part that opens with a literal");
    assert_eq!(of(r"^(?:[A-Z][a-z]+ )?Error: "), None);
    // No needle: a branch without a literal, an optional literal, a case-insensitive one, short ones.
    for none in [r"error|\d+", r"(?:error)?x", r"(?i)error", r"ab|cd", r"\w+", r"a", r"(?:error){0,3}"] {
        assert_eq!(of(none), None, "{none}");
    }
    for pattern in [r"\bfailed\b", r"(?:failed|error|Timeout)\("] {
        let needles = prefilter::Needles::of(&prefilter::parse(pattern).unwrap()).unwrap();
        assert!(needles.any_in("the build failed, Timeout(error)"), "{pattern}");
        assert!(!needles.any_in("all good"), "{pattern}");
    }
}

/// A plan's gate over more literals than one vector search takes (64) is
/// several, and finds what each literal's own search finds.
#[test]
fn a_gate_over_many_literals_finds_each_of_them() {
    let set: Vec<Vec<u8>> = (0..150).map(|i| format!("needle{i:03}").into_bytes()).collect();
    let gate = prefilter::Needles::gate(&set).expect("a gate over 150 literals");
    assert!(matches!(gate, prefilter::Needles::Shares(_)));
    for literal in &set {
        let text = format!("ok\nsome output {} more", String::from_utf8_lossy(literal));
        assert!(gate.any_in(&text), "{text}");
    }
    assert!(!gate.any_in("needle15 and needle 001: none of them"));
    assert!(matches!(prefilter::Needles::gate(&set[..3]), Some(prefilter::Needles::Packed(_))));
}

#[test]
fn folded_needles_are_literals_whatever_their_case() {
    let of = |p: &str| needles_of(p, prefilter::folded_literals);
    assert_eq!(of(r"(?i:connection reset)"), Some(vec!["connection re".into()]), "a run ends at `s`, see below");
    assert_eq!(of(r"(?i)(?:Permission denied|\bEACCES\b)"), Some(vec!["eacce".into(), "ion denied".into()]));
    assert_eq!(of(r"(?i)Missing \w+ parameter"), Some(vec![" parameter".into()]), "the more selective run");
    assert_eq!(
        of(r"old_string not found|(?i:did not match)"),
        Some(vec!["did not match".into(), "old_string not found".into()])
    );
    // `k` and `s` have a third form (the Kelvin sign, the long s): a run ends there.
    assert_eq!(of(r"(?i)kill process"), Some(vec!["ill proce".into()]));
    // No needle: a branch without one, an anchored start, short runs, a class.
    for none in [r"(?i)error|\d+", r"(?i)^error", r"(?i)ab|cd", r"(?i)[a-z]+", r"(?i)sks"] {
        assert_eq!(of(none), None, "{none}");
    }
    let needles = prefilter::Needles::folded(&[b"connection refu".to_vec(), b"eacce".to_vec()]).unwrap();
    for text in ["CONNECTION REFUSED", "Connection Refused by host", "open: eAcCeS"] {
        assert!(needles.any_in(text), "{text}");
    }
    assert!(!needles.any_in("connection reset"));
    // The Kelvin sign and the long s match `(?i)k` and `(?i)s`: the needles leave them out.
    let rule = LazyRegex::folded(r"(?i)kill process");
    assert!(rule.is_match("\u{212a}ill proce\u{17f}\u{17f}"));
}

/// Whatever the prefilters say, every rule answers as its regex does: on
/// every example of every rule, and on those examples cut and padded.
#[test]
fn prefilters_never_change_an_answer() {
    let examples: Vec<String> = CONTENT_RULES
        .iter()
        .flat_map(|r| r.fires_on.iter().chain(r.ignores))
        .chain(CLASS_RULES.iter().chain(EXIT_CLASS_RULES).flat_map(|r| r.fires_on.iter().chain(r.ignores)))
        .flat_map(|t| {
            let half = t.char_indices().nth(t.chars().count() / 2).map_or(0, |(i, _)| i);
            [t.to_string(), format!("log line\n{t}"), t[..half].to_string(), t[half..].to_string()]
        })
        .collect();
    let patterns = CONTENT_RULES
        .iter()
        .map(|r| r.pattern)
        .chain(CLASS_RULES.iter().chain(EXIT_CLASS_RULES).map(|r| r.pattern))
        .chain(benign::BENIGN_EXITS.iter().map(|b| b.command))
        .chain([EXIT_CODE]);
    let (mut filtered, mut folded) = (0, 0);
    for pattern in patterns {
        let re = rule_regex(pattern);
        let rule = LazyRegex::new(pattern);
        filtered += usize::from(rule.get().needles.is_some());
        let either = LazyRegex::folded(pattern);
        folded += usize::from(matches!(either.get().needles, Some(prefilter::Needles::Folded(_))));
        for text in &examples {
            // Also upper-cased: a case-insensitive needle is still found.
            for text in [text.clone(), text.to_uppercase()] {
                let want = re.is_match(&text);
                assert_eq!(rule.is_match(&text), want, "{pattern} on {text:?}");
                assert_eq!(either.is_match(&text), want, "{pattern}, case-insensitive needles, on {text:?}");
            }
        }
    }
    assert!(filtered >= 5, "only {filtered} patterns have needles");
    assert!(folded >= 20, "only {folded} patterns have case-insensitive needles");
    assert!(LazyRegex::new(EXIT_CODE).get().needles.is_some(), "the exit-code search has needles");
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
        let dialect = sample_dialect(rule.dialects);
        let re = rule_regex(rule.pattern);
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
            let got = classify_result_(Dialect::CRUSH, "bash", text, Some(1)).map(|r| r.id);
            assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
        }
        for text in rule.ignores {
            let got = classify_result_(Dialect::CRUSH, "bash", text, None).map(|r| r.id);
            assert_ne!(got, Some(rule.id), "{} must ignore {text:?}", rule.id);
        }
    }
}

/// Issue 12, shape 9: a program's words do not classify the tool call.
#[test]
fn failed_programs_are_nonzero_exits() {
    // Issue 21: the work failing is its own category, not the tool misused.
    for (text, slug) in [
        (
            "Exit code 101\n   Compiling x v0.1.0\nerror[E0425]: cannot find value `y` in this scope\ntest result: FAILED. internal error",
            "build-failed",
        ),
        ("Exit code 1\nsrc/a.ts(3,7): error TS2304: Cannot find name 'x'.", "build-failed"),
        ("Exit code 1\nFAILED tests/test_x.py::test_y - AssertionError\n=== 1 failed in 0.2s ===", "tests-failed"),
    ] {
        assert_eq!(
            classify_result_(Dialect::GEMINI, "run_shell_command", text, None).map(|r| r.id),
            Some(slug),
            "{text:?}"
        );
    }
    let cases = [
        "Exit code 2\nerror: unexpected argument '--frobnicate' found\n\nUsage: tool [OPTIONS]",
        "Exit code 1\n  1) page loads:\n     TimeoutError: locator.click: Timeout 5000ms exceeded.",
        "Output: \n> app@1.0.0 build\nError: (none)\nExit Code: 1\nSignal: (none)",
        "Exit code: 1\nWall time: 0.8 seconds\nOutput:\nunknown flag: --pr\n\nUsage:  gh run list [flags]",
    ];
    for text in cases {
        assert_eq!(
            classify_result_(Dialect::GEMINI, "run_shell_command", text, None).map(|r| r.id),
            Some("nonzero-exit"),
            "{text:?}"
        );
    }
    // A stored exit status (opencode) counts too.
    assert_eq!(
        classify_result_(Dialect::OPENCODE, "bash", "fatal: not a git repository", Some(128)).map(|r| r.id),
        Some("nonzero-exit")
    );
    assert_eq!(
        classify_result_(Dialect::OPENCODE, "bash", "/bin/bash: line 1: gh: command not found\n", Some(127))
            .map(|r| r.id),
        Some("command-not-found")
    );
    // Without an exit, the tool's own words classify.
    assert_eq!(
        classify_result_(Dialect::CLAUDE_CODE, "Bash", "Permission to use Bash has been denied.", None)
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
    assert_eq!(judged("mcp__x__y", r#"{"error": {"code": -32000, "message": "lost"}}"#).1, "JSON envelope error: lost");
    // An MCP server's content items stored as a list (the Agents SDK's
    // output of more than one item) are judged as the `CallToolResult`
    // they came from: an envelope in an item is read, and plain text is
    // the answer.
    let items =
        r#"[{"type": "text", "text": "{\"success\": false, \"error\": \"quota\"}"}, {"type": "text", "text": "x"}]"#;
    let object = format!(r#"{{"content": {items}}}"#);
    assert_eq!(judged("search_docs", items).1, "JSON envelope error: quota");
    assert_eq!(judged("search_docs", items), judged("search_docs", &object));
    let plain = r#"[{"type": "text", "text": "3 results"}, {"type": "text", "text": "a, b, c"}]"#;
    assert_eq!(judged("search_docs", plain), (None, "3 results\na, b, c".to_string()));
    let one = r#"[{"type": "text", "text": "{\"success\": false, \"error\": \"quota exceeded\"}"}]"#;
    assert_eq!(judged("search_docs", one).1, "JSON envelope error: quota exceeded");
    for text in [r#"{"error": null, "rows": []}"#, r#"{"success": true}"#, r#"{"status": "ok"}"#, "{not json"] {
        assert_eq!(judged("mcp__x__y", text).0, None, "{text}");
    }
    // Readers and shells return data, not envelopes, unless the object
    // is nothing but the tool's envelope (around a process, for a shell).
    assert_eq!(judged("read_file", r#"{"error": "fixture", "rows": [1]}"#).0, None);
    assert_eq!(judged("read_file", r#"{"error": "File not found"}"#).0, None, "a coding agent's reader");
    let custom = present_with_exit(Some(Dialect::LANGGRAPH), "read_file", r#"{"error": "File not found"}"#).0;
    assert_eq!(custom, "JSON envelope error: File not found", "a framework's custom reader");
    assert_eq!(judged("bash", r#"{"status": "error"}"#).0, None);
    let (shown, exit) = present_with_exit(
        None,
        "run_python",
        r#"{"stdout": "", "stderr": "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'", "exit_code": 1}"#,
    );
    assert!(shown.starts_with("JSON envelope error: Traceback") && shown.ends_with("Exit code 1"), "{shown}");
    assert_eq!(exit, Some(1));
    assert_eq!(present_with_exit(None, "run_python", r#"{"stdout": "ok", "stderr": "", "exit_code": 0}"#).1, None);
    // An HTTP error status and a code are failures too.
    assert_eq!(judged("notify", r#"{"message": "Requires authentication", "status": "401"}"#).0, Some(ENVELOPE_RULE));
    assert_eq!(judged("notify", r#"{"error_code": "RATE_LIMITED", "retry_after": 3}"#).0, Some(ENVELOPE_RULE));
    assert_eq!(judged("notify", r#"{"status": 200, "error_code": null}"#).0, None);
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
fn every_scope_names_a_dialect_falseok_reads() {
    let scopes = CONTENT_RULES.iter().map(|r| (r.id, r.dialects)).chain(CLASS_RULES.iter().map(|r| (r.id, r.dialects)));
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
    let cmd = |c: &str| Args::from(json!({"command": c}));
    let rule = |c: &str, code: i64| detect_result_(Dialect::CRUSH, "bash", &cmd(c), &text(code), None).map(|r| r.id);
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
    assert!(detect_result_(Dialect::CRUSH, "bash", &cmd("rg 'x\\y'"), noisy, None).is_some());
    // A failed search ends an `&&` list and prints nothing.
    assert_eq!(rule("rg -n x a.py && sed -n '1,9p' a.py", 1), None);
    assert_eq!(rule("make && sed -n '1,9p' a.py", 1), Some("exit-code-line"));
    // Issue 12, shape 11: Ctrl+C sent on purpose, then exit 1 or 130.
    let ctrl_c = Args::from(json!({"session_id": 1885, "chars": "\u{3}", "yield_time_ms": 1000}));
    let exited =
        |code: i64| format!("Chunk ID: 06e30f\nWall time: 0.05 seconds\nProcess exited with code {code}\nOutput:\n^C");
    assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(130), None).is_none());
    assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(1), None).is_none());
    assert!(detect_result_(Dialect::CODEX, "write_stdin", &ctrl_c, &exited(2), None).is_some());
    let typed = Args::from(json!({"session_id": 1885, "chars": "y\n"}));
    assert!(detect_result_(Dialect::CODEX, "write_stdin", &typed, &exited(1), None).is_some());
    // A script that printed `ERROR:` and exited 0 did not fail.
    let script = "ERROR: Multiple spec directories found with prefix '001'\nCopied plan template";
    assert!(detect_result_(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, Some(0)).is_none());
    assert!(detect_result_(Dialect::CODEX, "shell", &cmd("bash setup.sh"), script, None).is_some());
    // Gemini's and Codex's shapes go through the same logic.
    let gemini = "Command: findstr /s foo *.md\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 4068";
    assert!(detect_result_(Dialect::GEMINI, "run_shell_command", &cmd("findstr /s foo *.md"), gemini, None).is_none());
    assert!(detect_result_(Dialect::GEMINI, "run_shell_command", &cmd("npm run lint"), gemini, None).is_some());
    // A structured exit status (opencode) goes through the same rule.
    let structured =
        |c: &str, code| detect_result_(Dialect::OPENCODE, "bash", &cmd(c), "out", Some(code)).map(|r| r.id);
    assert_eq!(structured("make", 2), Some("exit-code-line"));
    let quiet = detect_result_(Dialect::OPENCODE, "bash", &cmd("rg foo"), "", Some(1));
    assert_eq!(quiet.map(|r| r.id), None, "rg found nothing");
    // The silence is the output's, not the presented `Exit code 1` line's.
    assert_eq!(structured("rg foo", 1), Some("exit-code-line"), "rg printed something and exited 1");
    assert_eq!(structured("make", 0), None);
    assert!(detect_result_(Dialect::PERI, "bash", &cmd("make"), "out", Some(2)).is_none(), "no rule for peri");
    // The exit line at the end of a long output is still seen.
    let long = format!("{}\nExit code 3\n", "x".repeat(3 * EXAMINED_PREFIX_BYTES));
    assert_eq!(detect_result_(Dialect::CRUSH, "bash", &cmd("make"), &long, None).map(|r| r.id), Some("exit-code-line"));
}

#[test]
fn benign_exit_entries_behave() {
    for (b, re) in benign::BENIGN_EXITS.iter().zip(&COMPILED.benign) {
        for r in b.rules {
            assert!(CONTENT_RULES.iter().any(|c| c.id == *r), "{}: unknown rule {r}", b.id);
        }
        if let Some(p) = b.described {
            assert!(regex::Regex::new(p).is_ok(), "{}: its description pattern compiles", b.id);
        }
        // The command as `is_benign` sees it for the entry's first code.
        let seen = |c: &str| benign::status_of(c, b.codes.first().copied()).candidates.swap_remove(0);
        for c in b.fires_on {
            assert!(re.is_match(&seen(c)), "{} must match {c:?}", b.id);
        }
        for c in b.ignores {
            assert!(!re.is_match(&seen(c)), "{} must ignore {c:?}", b.id);
        }
    }
    assert_eq!(benign::command_line(&Args::from(serde_json::json!({"cmd": ["bash", "-lc", "rg x"]}))).unwrap(), "rg x");
    assert_eq!(benign::command_line(&Args::from(serde_json::json!({"cmd": ["rg", "x"]}))).unwrap(), "rg x");
    // PowerShell's and cmd's scripts are read as their commands.
    let ps = "powershell.exe -NoProfile -Command \"git diff --no-index --name-status -- a b\"";
    assert_eq!(benign::last_command(ps), "git diff --no-index --name-status -- a b");
    assert_eq!(benign::last_command("cmd /c \"findstr /s x *.md\""), "findstr /s x *.md");
    let quiet = Args::from(serde_json::json!({"command": "", "is_input": true}));
    let wait = "[Below is the output of the previous command.]\n[The command has no new output after 10 seconds. You may wait longer]";
    assert!(detect_result_(Dialect::OPENHANDS, "execute_bash", &quiet, wait, None).is_none(), "a deliberate wait");
    let started = Args::from(serde_json::json!({"command": "npm run dev"}));
    assert!(detect_result_(Dialect::OPENHANDS, "execute_bash", &started, wait, None).is_some());
}

/// Windows PowerShell 5.1 wraps each stderr line of a native command in
/// an error record and sets `$?` to false: Copilot CLI then reports exit
/// code 1 for a `git push` that worked. A push that was refused still fails.
#[test]
fn git_progress_wrapped_by_powershell_is_not_a_failure() {
    let input = Args::from(serde_json::json!({"command": "cd C:\\w; git push origin main --force 2>&1"}));
    let record = |body: &str| {
        format!(
            "git : To https://github.com/o/r.git\nAt line:2 char:1\n+ git push origin main --force 2>&1 }} finally {{ $__copilotSuccess = $?; ...\n\
             + ~~~~~~~~~~~~~~~~~~~~\n    + CategoryInfo          : NotSpecified: (To https://gith...o/r.git:String) [], RemoteException\n\
             \x20   + FullyQualifiedErrorId : NativeCommandError\n \n{body}\n<shellId: 42 completed with exit code 1>"
        )
    };
    let worked = record(" + f575996...662f86c main -> main (forced update)");
    assert!(detect_result_(Dialect::COPILOT, "powershell", &input, &worked, None).is_none(), "{worked}");
    let refused = record(
        " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'https://github.com/o/r.git'",
    );
    assert_eq!(
        detect_result_(Dialect::COPILOT, "powershell", &input, &refused, None).map(|r| r.id),
        Some("copilot-exit-code")
    );
    let other = Args::from(serde_json::json!({"command": "npm run build 2>&1"}));
    assert!(detect_result_(Dialect::COPILOT, "powershell", &other, &worked, None).is_some(), "only git's progress");
}

/// The OpenAI Agents SDK stores `str(result)` of a function tool's return
/// value (`ItemHelpers._convert_tool_output`), so a returned dict is its
/// Python repr: read as the JSON envelope it stands for.
#[test]
fn a_python_repr_of_a_failing_dict_is_an_envelope() {
    let input = Args::from(serde_json::json!({"to": "a@b.c"}));
    let d = Dialect::OPENAI_AGENTS;
    // As the judge reads a result: presented, then judged and classified.
    let judged = |text: &str| {
        let (shown, exit) = present_with_exit(Some(d), "send_mail", text);
        let rule = detect_result_(d, "send_mail", &input, &shown, exit).map(|r| r.id);
        (rule, classify_result_(d, "send_mail", &shown, exit).map(|r| r.id))
    };
    let missing = "{'error': 'subject is required', 'status': 'missing_parameters'}";
    assert_eq!(judged(missing), (Some("json-envelope-error"), Some("missing-parameter")));
    let tls = "{'error': 'An error occurred: EOF occurred in violation of protocol (_ssl.c:2427)', 'status': 'failed'}";
    assert_eq!(judged(tls), (Some("json-envelope-error"), Some("network")));
    for fine in
        ["{'msg_id': '19a3', 'status': 'success'}", "{'error': None, 'items': []}", "{'a': datetime.date(2025, 1, 1)}"]
    {
        assert_eq!(judged(fine).0, None, "{fine}");
    }
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

#[test]
fn cline_commands_that_failed_are_hidden_errors_and_searches_finding_nothing_are_not() {
    let input = |c: &str| Args::from(serde_json::json!({ "command": c }));
    let failed = "Command failed with exit code 1.\nOutput:\nERROR: (gcloud.sql.connect) Psql client not found";
    let hit = detect_result_(Dialect::CLINE, "execute_command", &input("gcloud sql connect db"), failed, None);
    assert_eq!(hit.map(|r| r.id), Some("cline-command-failed"));
    let nothing = "Command failed with exit code 1.\nOutput:\n";
    assert!(detect_result_(Dialect::CLINE, "execute_command", &input("grep -r needle src"), nothing, None).is_none());
    assert_eq!(exit_code_of(failed), Some(1));
    assert!(
        detect_result_(Dialect::CLAUDE_CODE, "Bash", &input("x"), failed, None).is_none(),
        "scoped to Cline and Roo"
    );
}

/// Benign exits are decided once, by what the command means, for every
/// store: every content rule that fires on an exit status (its examples
/// report one) is one the benign exits can overrule.
#[test]
fn every_rule_that_reports_an_exit_status_is_overruled_by_benign_exits() {
    let overruled = benign::BENIGN_EXITS.iter().find(|b| b.id == "search-found-nothing").unwrap().rules;
    for rule in CONTENT_RULES {
        let reports_exit = rule.fires_on.iter().any(|t| exit_code_of(t).is_some_and(|c| c != 0));
        if reports_exit && rule.reads != Reads::MaskedPipelines {
            assert!(overruled.contains(&rule.id), "{}: reports an exit status but benign exits do not apply", rule.id);
        }
    }
}

/// Claude Code's persisted-output notice (an MCP result saved to a file) is
/// not an error; the same notice when saving failed is.
#[test]
fn claude_codes_saved_large_result_is_not_an_error() {
    let saved = "Error: result (708,916 characters) exceeds maximum allowed tokens. Output has been saved to \
                 /home/u/.claude/projects/p/s/tool-results/mcp-x-1.txt.\nFormat: JSON array with schema: [{type: \
                 string, text: string}]\nUse offset and limit parameters to read specific portions of the file.";
    let lines = "Error: result (90,640 characters across 12 lines) exceeds maximum allowed tokens. Output has been \
                 saved to /tmp/r.txt.\nFormat: Plain text\n";
    for text in [saved, lines] {
        let shown = present("mcp__figma__get_metadata", text);
        assert!(shown.starts_with("Output has been saved to "), "{shown}");
        assert_eq!(detect_in(Dialect::CLAUDE_CODE, "mcp__figma__get_metadata", &shown).map(|r| r.id), None, "{text}");
    }
    let failed = "Error: result (708,916 characters) exceeds maximum allowed tokens. Failed to save output to file: \
                  ENOSPC. If this MCP server provides pagination or filtering tools, use them.";
    let shown = present("mcp__figma__get_metadata", failed);
    assert_eq!(detect_in(Dialect::CLAUDE_CODE, "mcp__figma__get_metadata", &shown).map(|r| r.id), Some("error-prefix"));
    // The Read tool's refusal of a too-large file is an error too.
    let read = "Error: File content (30000 tokens) exceeds maximum allowed tokens (25000).";
    assert!(detect_in(Dialect::CLAUDE_CODE, "Read", read).is_some());
}

/// A verdict tool's batch answer whose every item is a failing envelope is
/// a failure; one success, a reader's array, or items with keys of their
/// own are data.
#[test]
fn a_batch_of_failing_envelopes_is_a_failure() {
    let tool = "mcp__webflow__de_component_tool";
    let one = r#"[{"status":"error","message":"Component or element not found","data":null}]"#;
    assert_eq!(present(tool, one), "JSON envelope error: Component or element not found");
    let two = r#"[{"status":"error","message":"not found","data":null},{"success":false,"error":"locked"}]"#;
    assert_eq!(present(tool, two), "JSON envelope error: not found (each of 2 items failed)");
    assert_eq!(detect_in(Dialect::CLAUDE_CODE, tool, &present(tool, one)).map(|r| r.id), Some(ENVELOPE_RULE));
    // One item done: the batch did something.
    let mixed = r#"[{"status":"error","message":"not found"},{"status":"ok","data":{"id":1}}]"#;
    assert_eq!(present(tool, mixed), mixed);
    // A listing of failed runs is data: its items have keys of their own.
    let runs = r#"[{"status":"failure","name":"ci","databaseId":7}]"#;
    assert_eq!(present(tool, runs), runs);
    // A reader's or a shell's array is data, whatever it holds.
    assert_eq!(present("Read", one), one);
    assert_eq!(present("Bash", one), one);
    assert_eq!(present(tool, "[]"), "[]");
    // ADK stores a list a tool returned as `{"result": [...]}`: judged as
    // the list, so the same batch and the same data.
    let hotels = r#"{"result":[{"error":"MAPS_KEY missing in .env","success":false}]}"#;
    assert_eq!(present("get_hotels", hotels), "JSON envelope error: MAPS_KEY missing in .env");
    let found = r#"{"result":[{"name":"Inn","price":90},{"error":"no photo","success":false}]}"#;
    assert_eq!(present("get_hotels", found), found);
    let read = r#"{"result":[{"status":"error","message":"x"}]}"#;
    assert_eq!(present("read_file", read), read);
    let beside = r#"{"result":[{"success":false,"error":"x"}],"page":1}"#;
    assert_eq!(present("get_hotels", beside), beside);
}

/// Codex's unified exec (`Process exited with code N`) around lookups and
/// walks whose non-zero status or error lines are answers (round sixteen's
/// spent Codex set): dpkg listing some packages and missing others,
/// rospack finding no package, `npm ls` in a folder whose path has a
/// space, find walking into unreadable directories with nothing found, and
/// the same find piped into rg with matches. A find whose start path is
/// missing still fails.
#[test]
fn codex_lookups_and_walks_that_answered() {
    let exec = |cmd: &str| serde_json::json!({ "cmd": cmd }).into();
    let framed = |code: i32, out: &str| {
        format!(
            "Chunk ID: 0848e0\nWall time: 1.1 seconds\nProcess exited with code {code}\nOriginal token count: 20\nOutput:\n{out}"
        )
    };
    let answered = [
        (
            "dpkg -l ibus-mozc fonts-noto-cjk",
            framed(
                1,
                "dpkg-query: no packages found matching ibus-mozc\nDesired=Unknown/Install/Remove/Purge/Hold\n| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n||/ Name           Version      Architecture Description\n+++-==============-============-============-=================\nii  fonts-noto-cjk 1:20220127   all          fonts\n",
            ),
        ),
        (
            "rospack find teleop_twist_keyboard",
            framed(1, "[rospack] Error: package 'teleop_twist_keyboard' not found\n"),
        ),
        ("npm ls eslint --depth=0", framed(1, "shop-app@1.0.0 /Users/dev/My Shop\n└── (empty)\n\n")),
        (
            "find /home/u -type f -name sdk_server",
            framed(1, "find: ‘/home/u/.cache/dconf’: Permission denied\nfind: ‘/home/u/.dbus’: Permission denied\n"),
        ),
        (
            "find /home/u -type f | rg 'lidar|\\.pdf$'",
            framed(
                0,
                "find: ‘/home/u/.cache/dconf’: Permission denied\n/home/u/docs/lidar.pdf\n/home/u/docs/manual.pdf\n/home/u/slam/lidar.cfg\n",
            ),
        ),
    ];
    for (cmd, text) in &answered {
        let hit = detect_result_(Dialect::CODEX, "exec_command", &exec(cmd), text, None);
        assert!(hit.is_none(), "{cmd}: {:?}", hit.map(|r| r.id));
    }
    let missing_start = framed(1, "find: ‘/home/u/nope’: No such file or directory\n");
    assert!(
        detect_result_(Dialect::CODEX, "exec_command", &exec("find /home/u/nope -name x"), &missing_start, None)
            .is_some()
    );
    let piped_missing = framed(0, "find: ‘/home/u/nope’: No such file or directory\n");
    assert!(
        detect_result_(Dialect::CODEX, "exec_command", &exec("find /home/u/nope -type f | rg x"), &piped_missing, None)
            .is_some()
    );
}

/// A command line the shell could not parse never ran, so its status is
/// no search's "none": `… && ssh host "ps aux | grep x` with a quote left
/// open ends in grep, but bash stopped at the quote. The same line that
/// parsed and found nothing stays an answer.
#[test]
fn a_line_the_shell_could_not_parse_is_no_search_answer() {
    let shell = |cmd: &str| serde_json::json!({ "command": cmd }).into();
    let cmd = "aws ec2 describe-instances --output json && ssh -i k.pem u@10.0.0.5 \\\"ps aux | grep python\\\"";
    let framed = |out: &str| format!("Output: {out}\nExit Code: 1\nProcess Group PGID: 4242");
    for complaint in [
        "bash: -c: line 1: unexpected EOF while looking for matching `\"'",
        "/bin/bash: line 2: syntax error: unexpected end of file",
        "sh: 1: Syntax error: Unterminated quoted string",
        "zsh:1: unmatched \"",
        "Error: bash: -c: line 1: syntax error near unexpected token `)'",
    ] {
        let text = framed(&format!("{{\"Reservations\": []}}\n{complaint}"));
        let hit = detect_result_(Dialect::GEMINI, "run_shell_command", &shell(cmd), &text, None);
        assert!(hit.is_some(), "{complaint}");
        let class = classify_result_(Dialect::GEMINI, "run_shell_command", &text, Some(1));
        assert_eq!(class.map(|c| c.id), Some("shell-parse-error"), "{complaint}");
    }
    let answered = framed("{\"Reservations\": []}");
    assert!(detect_result_(Dialect::GEMINI, "run_shell_command", &shell(cmd), &answered, None).is_none());
    // A script that only prints the words is not the shell complaining.
    let quoted = framed("  echo 'bash: -c: line 1: unexpected EOF' is what we saw");
    assert!(detect_result_(Dialect::GEMINI, "run_shell_command", &shell("ps aux | grep x"), &quoted, None).is_none());
}

/// `drizzle-kit push` logs a failed statement and exits 0 (its pg and
/// mysql paths fall through their `catch`), so what it printed is the
/// verdict; piped into `tail`, the end of node-postgres's error dump is
/// all that is left of it. A push that applied its changes stays ok.
#[test]
fn a_program_that_drops_its_own_status_is_judged_by_its_lines() {
    let shell = |cmd: &str| serde_json::json!({ "command": cmd }).into();
    let push = "cd /srv/app && npx drizzle-kit push 2>&1";
    let failed = "Reading config file '/srv/app/drizzle.config.ts'\nUsing 'pg' driver for database querying\n[✓] Pulling schema from database...\n\nError: Interactive prompts require a TTY terminal (process.stdin.isTTY or process.stdout.isTTY is false).\n    at render (/srv/app/node_modules/drizzle-kit/bin.cjs:1450:31)\n    at pgPush (/srv/app/node_modules/drizzle-kit/bin.cjs:82737:72)\n";
    assert!(detect_result_(Dialect::PI, "bash", &shell(push), failed, None).is_some());
    let applied = "Reading config file '/srv/app/drizzle.config.ts'\nUsing 'pg' driver for database querying\n[✓] Pulling schema from database...\n[✓] Changes applied\n";
    assert!(detect_result_(Dialect::PI, "bash", &shell(push), applied, None).is_none());
    // The same lines from a program that keeps its status are its exit's to judge.
    assert!(detect_result_(Dialect::PI, "bash", &shell("npx prisma db push 2>&1"), failed, None).is_none());
    let tail = "  dataType: undefined,\n  constraint: undefined,\n  file: 'parse_type.c',\n  line: '270',\n  routine: 'typenameType'\n}\n";
    let piped = "echo y | npx drizzle-kit push --force 2>&1 | tail -6";
    assert!(detect_result_(Dialect::PI, "bash", &shell(piped), tail, None).is_some());
}

/// A login shell's startup file that fails on every command (a
/// `~/.bash_profile` saved as UTF-16, Git Bash on Windows) prints its
/// complaint before each command's output: not the command's failure, so a
/// pipeline ending in `head` is judged by what it printed.
#[test]
fn a_login_shells_startup_noise_is_no_masked_failure() {
    let bash = |cmd: &str| serde_json::json!({ "command": cmd }).into();
    let noise = "/c/Users/u/.bash_profile: line 1: $'\\377\\376export': command not found";
    let found = format!("./web/a/package.json\n./web/b/package.json\n{noise}");
    let cmd = "find . -name package.json -type f 2>/dev/null | head -5";
    assert!(detect_result_(Dialect::CLAUDE_CODE, "Bash", &bash(cmd), &found, None).is_none());
    assert!(detect_result_(Dialect::CLAUDE_CODE, "Bash", &bash(cmd), noise, None).is_none());
    // The command's own complaint, beside the same noise, is still read.
    let own = format!("{noise}\ncat: settings.json: No such file or directory");
    let cat = "cat settings.json | head -5";
    assert!(detect_result_(Dialect::CLAUDE_CODE, "Bash", &bash(cat), &own, None).is_some());
}

/// A sub-agent's reply is read for a request for input only when the call
/// was a delegation, and only at its opening.
#[test]
fn only_a_delegation_s_opening_is_read_for_a_request_for_input() {
    let ask = "I can help with that. Please upload an image of the item so I can analyze the damage.";
    let judged = |dialect: Dialect, tool: &str, args: serde_json::Value, text: &str| {
        detected(dialect, tool, &Args::from(args), text)
    };
    let request = serde_json::json!({"request": "Assess the damage of order 42"});
    assert_eq!(judged(Dialect::ADK, "damage_agent", request.clone(), ask), Some("delegation-asked-for-input"));
    assert_eq!(
        judged(Dialect::CLAUDE_CODE, "Task", serde_json::json!({"prompt": "x"}), ask),
        Some("delegation-asked-for-input")
    );
    // A custom tool with arguments of its own is not a delegation.
    assert_eq!(judged(Dialect::ADK, "damage_tool", serde_json::json!({"order": 42}), ask), None);
    // The work done first, the question at the end: an answer.
    let done = "The bag is crushed. The chips inside are broken. Damage is major. Please upload another photo if you want a second look.";
    assert_eq!(judged(Dialect::ADK, "damage_agent", request.clone(), done), None);
    // A sub-agent's exit status is read as any call's when its reply
    // does not ask.
    let input = Args::from(serde_json::json!({"prompt": "build it"}));
    let exit = |tool| {
        let r =
            Reading { dialect: Dialect::CRUSH, tool, input: &input, text: "done", exit_code: Some(1), flagged: false };
        detect_result(&r).map(|c| c.id)
    };
    assert_eq!(exit("agent"), Some("exit-code-line"));
    assert_eq!(exit("agent"), exit("build_tool"));
    // A long reply did some work, whatever it opens with.
    let long =
        format!("Could you provide the region? Meanwhile, here is the report.\n{}", "Row of data.\n".repeat(200));
    assert_eq!(judged(Dialect::ADK, "damage_agent", request, &long), None);
}
