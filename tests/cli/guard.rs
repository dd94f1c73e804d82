//! `falseok guard` (issue 48): each agent's hook payloads, written here
//! from the documented shapes (../shared/research/hooks-4.md; none copied
//! from a session), answered with the exact JSON and exit code that agent
//! reads; concurrent hooks on one session; a replay of the shipped Claude
//! Code sample against `export`'s verdicts.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::*;

/// Run `falseok guard ARGS` with `payload` on stdin and the state in `dir`:
/// (exit code, stdout, stderr).
fn guard(dir: &Path, args: &[&str], payload: &str) -> (i32, String, String) {
    let mut child = spawn(dir, args);
    child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap(), stdout(&out), stderr(&out))
}

fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .arg("guard")
        .args(args)
        .arg("--state-dir")
        .arg(dir.join("state"))
        // Never the user's cache, whatever the arguments say.
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The one JSON document on stdout, which must be the whole of it.
fn answer(stdout: &str) -> Value {
    assert!(stdout.ends_with('\n') && stdout.matches('\n').count() == 1, "one line of JSON: {stdout:?}");
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn log(dir: &Path, session: &str) -> Vec<Value> {
    let state = dir.join("state");
    let out = run_in(dir, &["guard", "log", "--json", "--session", session, "--state-dir", state.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// One agent's payloads for the six cases, and what it must read back.
struct Agent {
    name: &'static str,
    /// A call that worked.
    success: Value,
    /// A result not flagged whose content says it failed.
    hidden: Value,
    /// The agent's answer to `hidden` (`None`: its command hooks cannot answer after a call).
    hidden_answer: Option<Value>,
    /// A flagged failure; sent five times, the fifth reaches the threshold.
    flagged: Value,
    /// The agent's answer to the fifth.
    fifth_answer: Option<Value>,
    /// The call of `flagged` again, before it runs.
    again: Value,
    /// The agent's denial of it.
    denial: Value,
    /// Another call of the same tool, before it runs.
    other: Value,
}

const ENVELOPE: &str = r#"{"status":"error","message":"permission denied for table users"}"#;
const HIDDEN_SAID: &str = "falseok: this db_query call failed, though its result is not marked as an error: \"JSON envelope error: permission denied for table users\" (permission-denied). Fix: Document the sandbox or policy in the tool description so the agent stops asking.";

fn fifth_said(tool: &str, message: &str, category: &str, fix: &str) -> String {
    format!(
        "falseok: {tool} failed 5 times in a row with the same error: \"{message}\" ({category}). Do not repeat the call unchanged. Fix: {fix}"
    )
}

fn denial_said(tool: &str, message: &str, category: &str, fix: &str) -> String {
    format!(
        "falseok: this exact {tool} call already failed 5 times in a row with \"{message}\" ({category}). Refused: change the arguments or take another approach. Fix: {fix}"
    )
}

const NOT_FOUND_FIX: &str =
    "Name what does not exist and what does (nearby paths, available agents); validate paths before calling.";

fn claude() -> Agent {
    let common = json!({"session_id": "cc-1", "transcript_path": "/home/u/.claude/projects/p/cc-1.jsonl",
        "cwd": "/home/u/p", "permission_mode": "default"});
    let with = |extra: Value| merge(&common, extra);
    let missing = "Error: ENOENT: no such file or directory, open '/home/u/p/nope.rs'";
    Agent {
        name: "claude-code",
        success: with(json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "Cargo.toml\nsrc\n", "stderr": "", "interrupted": false, "isImage": false},
            "tool_use_id": "toolu_1"})),
        hidden: with(
            json!({"hook_event_name": "PostToolUse", "tool_name": "db_query", "tool_input": {"sql": "select 1"},
            "tool_response": [{"type": "text", "text": ENVELOPE}], "tool_use_id": "toolu_2"}),
        ),
        hidden_answer: Some(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": HIDDEN_SAID}}),
        ),
        flagged: with(json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Read",
            "tool_input": {"file_path": "/home/u/p/nope.rs"}, "tool_use_id": "toolu_3", "error": missing,
            "is_interrupt": false})),
        fifth_answer: Some(json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
            "additionalContext": fifth_said("Read", missing, "not-found", NOT_FOUND_FIX)}})),
        again: with(json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": "/home/u/p/nope.rs"}, "tool_use_id": "toolu_4"})),
        denial: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": denial_said("Read", missing, "not-found", NOT_FOUND_FIX)}}),
        other: with(json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": "/home/u/p/src/lib.rs"}, "tool_use_id": "toolu_5"})),
    }
}

fn merge(base: &Value, extra: Value) -> Value {
    let mut v = base.clone();
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn claude_code() {
    agent_cases(&claude());
}

/// The six cases of issue 48 for one agent, in enforce mode.
fn agent_cases(a: &Agent) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let send = |payload: &Value| guard(d, &["--mode", "enforce"], &payload.to_string());
    let silent = |payload: &Value, what: &str| {
        let (code, out, err) = send(payload);
        assert_eq!((code, out.as_str()), (0, ""), "{}: {what}: {err}", a.name);
        assert!(err.is_empty(), "{}: {what}: {err}", a.name);
    };
    let answered = |payload: &Value, expected: &Option<Value>, what: &str| match expected {
        None => silent(payload, what),
        Some(e) => {
            let (code, out, err) = send(payload);
            assert_eq!(code, 0, "{}: {what}: {err}", a.name);
            assert_eq!(&answer(&out), e, "{}: {what}", a.name);
        }
    };
    silent(&a.success, "a clean success");
    answered(&a.hidden, &a.hidden_answer, "a hidden error");
    for n in 1..=4 {
        silent(&a.flagged, &format!("flagged failure {n}"));
    }
    answered(&a.flagged, &a.fifth_answer, "the fifth identical failure");
    answered(&a.again, &Some(a.denial.clone()), "the identical call after it");
    silent(&a.other, "a different call");
    let (code, out, err) = guard(d, &["--mode", "enforce", "--agent", a.name], "{\"session_id\": \"x\", ");
    // Copilot CLI denies the call when its hook errs (1.0.57): for it, open is exit 0.
    let open = if a.name == "copilot" { 0 } else { 1 };
    assert_eq!((code, out.as_str()), (open, ""), "{}: a malformed payload fails open", a.name);
    assert!(err.starts_with("falseok guard: the hook payload is not JSON"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // What the guard kept: every verdict, with the action taken.
    let session = a.success.get("session_id").or_else(|| a.success.get("sessionId")).unwrap().as_str().unwrap();
    let kept: Vec<(String, String, String)> = log(d, session)
        .iter()
        .map(|v| {
            (
                v["event"].as_str().unwrap().into(),
                v["verdict"].as_str().unwrap().into(),
                v["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    let told = |said: bool| if said { "context" } else { "none" }.to_string();
    let mut expected = vec![
        ("after".to_string(), "success".to_string(), "none".to_string()),
        ("after".into(), "hidden".into(), told(a.hidden_answer.is_some())),
    ];
    for _ in 1..=4 {
        expected.push(("after".into(), "flagged".into(), "none".into()));
    }
    expected.push(("after".into(), "flagged".into(), told(a.fifth_answer.is_some())));
    expected.push(("before".into(), "repeat".into(), "deny".into()));
    assert_eq!(kept, expected, "{}", a.name);
}

fn codex() -> Agent {
    let common = json!({"session_id": "cx-1", "transcript_path": null, "cwd": "/w", "model": "gpt-5-codex",
        "permission_mode": "default", "turn_id": "turn-1"});
    let with = |extra: Value| merge(&common, extra);
    let missing = "issue 7 not found";
    Agent {
        name: "codex",
        success: with(json!({"hook_event_name": "PostToolUse", "tool_name": "shell",
            "tool_input": {"command": ["bash", "-lc", "ls"]},
            "tool_response": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc\n", "tool_use_id": "call_1"})),
        hidden: with(
            json!({"hook_event_name": "PostToolUse", "tool_name": "db_query", "tool_input": {"sql": "select 1"},
            "tool_response": {"content": [{"type": "text", "text": ENVELOPE}]}, "tool_use_id": "call_2"}),
        ),
        hidden_answer: Some(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": HIDDEN_SAID}}),
        ),
        // Codex has no failure event and writes no flag, except an MCP result's `success`.
        flagged: with(json!({"hook_event_name": "PostToolUse", "tool_name": "mcp__github__get_issue",
            "tool_input": {"number": 7}, "tool_response": {"content": [{"type": "text", "text": missing}], "success": false},
            "tool_use_id": "call_3"})),
        fifth_answer: Some(json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "additionalContext": fifth_said("mcp__github__get_issue", missing, "not-found", NOT_FOUND_FIX)}})),
        again: with(json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__github__get_issue",
            "tool_input": {"number": 7}, "tool_use_id": "call_4"})),
        denial: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": denial_said("mcp__github__get_issue", missing, "not-found", NOT_FOUND_FIX)}}),
        other: with(json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__github__get_issue",
            "tool_input": {"number": 8}, "tool_use_id": "call_5"})),
    }
}

fn gemini() -> Agent {
    let common = json!({"session_id": "gm-1", "transcript_path": "/home/u/.gemini/tmp/h/chats/session-1.json",
        "cwd": "/w", "timestamp": "2026-12-05T10:00:00.000Z"});
    let with = |extra: Value| merge(&common, extra);
    let missing = "File not found: /w/nope.rs";
    Agent {
        name: "gemini",
        success: with(json!({"hook_event_name": "AfterTool", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/src/main.rs"},
            "tool_response": {"llmContent": "fn main() {}\n", "returnDisplay": ""}})),
        hidden: with(
            json!({"hook_event_name": "AfterTool", "tool_name": "db_query", "tool_input": {"sql": "select 1"},
            "tool_response": {"llmContent": ENVELOPE, "returnDisplay": ENVELOPE},
            "mcp_context": {"server_name": "db", "tool_name": "query"}}),
        ),
        hidden_answer: Some(
            json!({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": HIDDEN_SAID}}),
        ),
        flagged: with(json!({"hook_event_name": "AfterTool", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/nope.rs"},
            "tool_response": {"llmContent": "", "returnDisplay": "File not found.",
                "error": {"message": missing, "type": "file_not_found"}}})),
        fifth_answer: Some(json!({"hookSpecificOutput": {"hookEventName": "AfterTool",
            "additionalContext": fifth_said("read_file", missing, "not-found", NOT_FOUND_FIX)}})),
        again: with(json!({"hook_event_name": "BeforeTool", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/nope.rs"}})),
        denial: json!({"decision": "deny", "reason": denial_said("read_file", missing, "not-found", NOT_FOUND_FIX)}),
        other: with(json!({"hook_event_name": "BeforeTool", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/src/lib.rs"}})),
    }
}

fn copilot() -> Agent {
    let common = json!({"sessionId": "cp-1", "timestamp": 1_767_000_000_000_u64, "cwd": "/w"});
    let with = |extra: Value| merge(&common, extra);
    let missing = "Path /w/nope.rs does not exist. Please provide a valid path.";
    Agent {
        name: "copilot",
        success: with(json!({"toolName": "bash", "toolArgs": "{\"command\":\"ls\"}",
            "toolResult": {"resultType": "success", "textResultForLlm": "src\n<exited with exit code 0>"}})),
        hidden: with(json!({"toolName": "db_query", "toolArgs": "{\"sql\":\"select 1\"}",
            "toolResult": {"resultType": "success", "textResultForLlm": ENVELOPE}})),
        // A top-level `additionalContext`, read after a call since Copilot CLI 1.0.49.
        hidden_answer: Some(json!({"additionalContext": HIDDEN_SAID})),
        flagged: with(json!({"toolName": "view", "toolArgs": "{\"path\":\"/w/nope.rs\"}", "error": missing})),
        fifth_answer: Some(json!({"additionalContext": fifth_said("view", missing, "not-found", NOT_FOUND_FIX)})),
        // The same arguments, written in another key order.
        again: with(json!({"toolName": "view", "toolArgs": "{ \"path\": \"/w/nope.rs\" }"})),
        denial: json!({"permissionDecision": "deny",
            "permissionDecisionReason": denial_said("view", missing, "not-found", NOT_FOUND_FIX)}),
        other: with(json!({"toolName": "view", "toolArgs": "{\"path\":\"/w/src\"}"})),
    }
}

fn qwen() -> Agent {
    let common = json!({"session_id": "qw-1", "transcript_path": "/home/u/.qwen/projects/w/chats/qw-1.jsonl",
        "cwd": "/w", "timestamp": "2026-12-05T10:00:00.000Z"});
    let with = |extra: Value| merge(&common, extra);
    let missing = "File not found: /w/nope.rs";
    Agent {
        name: "qwen",
        success: with(json!({"hook_event_name": "PostToolUse", "permission_mode": "default",
            "tool_name": "read_file", "tool_input": {"absolute_path": "/w/src/main.rs"},
            "tool_response": {"llmContent": "fn main() {}\n", "returnDisplay": ""},
            "tool_use_id": "q1", "tool_call_id": "q1"})),
        hidden: with(json!({"hook_event_name": "PostToolUse", "permission_mode": "default", "tool_name": "db_query",
            "tool_input": {"sql": "select 1"}, "tool_response": {"llmContent": ENVELOPE, "returnDisplay": ENVELOPE},
            "tool_use_id": "q2", "tool_call_id": "q2"})),
        hidden_answer: Some(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": HIDDEN_SAID}}),
        ),
        flagged: with(json!({"hook_event_name": "PostToolUseFailure", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/nope.rs"}, "tool_use_id": "q3", "tool_call_id": "q3",
            "error": missing, "is_interrupt": false})),
        fifth_answer: Some(json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
            "additionalContext": fifth_said("read_file", missing, "not-found", NOT_FOUND_FIX)}})),
        again: with(json!({"hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/nope.rs"}, "tool_use_id": "q4", "tool_call_id": "q4"})),
        denial: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": denial_said("read_file", missing, "not-found", NOT_FOUND_FIX)}}),
        other: with(json!({"hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/src/lib.rs"}, "tool_use_id": "q5", "tool_call_id": "q5"})),
    }
}

#[test]
fn codex_cli() {
    agent_cases(&codex());
}

#[test]
fn gemini_cli() {
    agent_cases(&gemini());
}

#[test]
fn copilot_cli() {
    agent_cases(&copilot());
}

#[test]
fn qwen_code() {
    agent_cases(&qwen());
}

/// Copilot CLI's VS Code compatible payloads (PascalCase events,
/// snake_case fields) are Copilot's too, and denied in that shape.
#[test]
fn copilot_cli_pascal_case_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let failed = json!({"hook_event_name": "PostToolUse", "session_id": "cp-2", "cwd": "/w", "tool_name": "bash",
        "tool_input": {"command": "make"}, "tool_result": {"result_type": "failure", "text_result_for_llm": "make: *** No rule to make target 'all'.  Stop."}});
    for n in 1..=3 {
        let (code, out, err) = guard(d, &["--mode", "enforce", "--streak-threshold", "3"], &failed.to_string());
        assert_eq!((code, err.as_str()), (0, ""));
        // The third reaches the threshold: told, in the top-level form.
        assert_eq!(out.is_empty(), n < 3, "{out}");
    }
    let again = json!({"hook_event_name": "PreToolUse", "session_id": "cp-2", "cwd": "/w", "tool_name": "bash",
        "tool_input": {"command": "make"}});
    let (code, out, _) =
        guard(d, &["--mode", "enforce", "--agent", "copilot", "--streak-threshold", "3"], &again.to_string());
    assert_eq!(code, 0);
    let a = answer(&out);
    assert_eq!(a["permissionDecision"], "deny", "top-level keys whatever the spelling: {a}");
    let kept = log(d, "cp-2");
    assert!(kept.iter().all(|v| v["agent"] == "copilot"), "{kept:?}");
    assert_eq!(kept.iter().filter(|v| v["verdict"] == "flagged").count(), 3);
}

/// observe says nothing and denies nothing; advise tells, before the
/// repeat too, and denies nothing; only enforce denies.
#[test]
fn modes() {
    let a = claude();
    for (mode, hidden_said, repeat) in
        [("observe", false, None), ("advise", true, Some("context")), ("enforce", true, Some("deny"))]
    {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (_, out, _) = guard(d, &["--mode", mode], &a.hidden.to_string());
        assert_eq!(!out.is_empty(), hidden_said, "{mode}: {out}");
        for _ in 0..5 {
            guard(d, &["--mode", mode], &a.flagged.to_string());
        }
        let (code, out, _) = guard(d, &["--mode", mode], &a.again.to_string());
        assert_eq!(code, 0);
        match repeat {
            None => assert_eq!(out, "", "{mode}"),
            Some("context") => {
                let said = answer(&out);
                assert_eq!(said["hookSpecificOutput"]["hookEventName"], "PreToolUse");
                assert!(said["hookSpecificOutput"].get("permissionDecision").is_none(), "{said}");
                let text = said["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
                assert!(text.contains("already failed 5 times in a row") && text.contains("will fail again"), "{text}");
            }
            Some(_) => assert_eq!(answer(&out), a.denial, "{mode}"),
        }
        let actions: Vec<String> = log(d, "cc-1").iter().map(|v| v["action"].as_str().unwrap().to_string()).collect();
        assert_eq!(actions.last().map(String::as_str), Some(repeat.unwrap_or("none")), "{mode}: {actions:?}");
    }
}

/// A threshold of 3 denies the fourth identical call; the run ends with a success.
#[test]
fn the_threshold_is_the_runs_length_and_a_success_ends_the_run() {
    let a = claude();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["--mode", "enforce", "--streak-threshold", "3"];
    for _ in 0..2 {
        guard(d, &args, &a.flagged.to_string());
    }
    assert_eq!(guard(d, &args, &a.again.to_string()).1, "", "two failures are not a run of three");
    guard(d, &args, &a.flagged.to_string());
    assert!(guard(d, &args, &a.again.to_string()).1.contains("\"deny\""));
    let ok = merge(
        &a.flagged,
        json!({"hook_event_name": "PostToolUse", "tool_response": {"type": "text",
        "file": {"filePath": "/home/u/p/nope.rs", "content": "made since", "numLines": 1, "startLine": 1, "totalLines": 1}}}),
    );
    let (code, out, err) = guard(d, &args, &ok.to_string());
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    assert_eq!(guard(d, &args, &a.again.to_string()).1, "", "the run ended");
    // The log says the denial was followed by a success, one result later.
    let kept = log(d, "cc-1");
    let denial = kept.iter().find(|v| v["action"] == "deny").unwrap();
    assert_eq!(denial["recovered_after"], 1, "{denial}");
    assert!(kept.iter().filter(|v| v["action"] == "none").all(|v| v.get("recovered_after").is_none()));
    let text = run_in(d, &["guard", "log", "--state-dir", d.join("state").to_str().unwrap()]);
    assert!(stdout(&text).contains("deny → a success 1 result later"), "{}", stdout(&text));
    assert!(
        stdout(&text).ends_with("\n5 verdicts in 1 session: 0 hidden, 3 flagged; 2 interventions (1 told, 1 denied), 2 followed by a success of the tool\n"),
        "{}",
        stdout(&text)
    );
}

/// Unwritable state, an unknown payload shape, a payload without a
/// session: one line on stderr, exit 1, nothing on stdout.
#[test]
fn everything_that_goes_wrong_fails_open() {
    let a = claude();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("state"), "a file where the folder should be").unwrap();
    let (code, out, err) = guard(d, &[], &a.hidden.to_string());
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.starts_with("falseok guard: cannot make the guard's state folder") && err.lines().count() == 1,
        "{err}"
    );
    std::fs::remove_file(d.join("state")).unwrap();
    for (payload, said) in [
        ("[]", "the hook payload is not a JSON object"),
        ("{\"tool_name\": \"Bash\"}", "the hook payload names no hook event: pass --agent"),
        ("{\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Bash\"}", "the hook payload has no session id"),
    ] {
        let (code, out, err) = guard(d, &[], payload);
        assert_eq!((code, out.as_str()), (1, ""), "{payload}");
        assert_eq!(err, format!("falseok guard: {said}; the call goes on unguarded\n"), "{payload}");
    }
    // A mistyped option in the hook's command fails open too: 2 would block every call.
    for args in [&["--mode", "bogus"][..], &["--streak-threshold", "1"], &["--no-such-option"]] {
        let (code, out, err) = guard(d, args, &a.hidden.to_string());
        assert_eq!((code, out.as_str()), (1, ""), "{args:?}: {err}");
    }
    let human = settings_cmd(d, &["install", "--agent", "nobody"]);
    assert_eq!(human.status.code(), Some(2), "a person's usage error is still 2");
    // An event the guard has no business with is no error.
    let start = json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"});
    assert_eq!(guard(d, &[], &start.to_string()), (0, String::new(), String::new()));
}

/// Eight hooks of one session at once (parallel tool calls): each waits
/// for the session's lock, so the run counts 1 to 8, each once.
#[test]
fn eight_concurrent_hooks_lose_no_count() {
    let a = claude();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut children: Vec<_> = (0..8).map(|_| spawn(d, &["--mode", "observe"])).collect();
    for (i, c) in children.iter_mut().enumerate() {
        let payload = merge(&a.flagged, json!({"tool_use_id": format!("toolu_p{i}")}));
        c.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let kept = log(d, "cc-1");
    let mut runs: Vec<u64> = kept.iter().map(|v| v["streak"].as_u64().unwrap()).collect();
    runs.sort_unstable();
    assert_eq!(runs, (1..=8).collect::<Vec<u64>>());
    let mut ids: Vec<&str> = kept.iter().map(|v| v["call_id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 8);
    let (_, out, _) = guard(d, &["--mode", "enforce"], &a.again.to_string());
    assert!(answer(&out)["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("8 times"));
}

/// A sample's calls by id, as written: (input, the fields of the hook
/// event that carries its result). The tool's name is export's.
type Replayed = std::collections::HashMap<String, (Value, Value)>;

/// Every JSON line of every `.jsonl` file under `dir` (broken lines skipped).
fn lines_of(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for rel in tree(dir).iter().filter(|p| p.ends_with(".jsonl")) {
        let text = std::fs::read_to_string(dir.join(rel)).unwrap();
        out.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()));
    }
    out
}

/// Claude Code: `tool_use` and `tool_result` blocks (the first of each id);
/// a flagged result goes to `PostToolUseFailure` with its text as `error`.
fn claude_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let Some(blocks) = v["message"]["content"].as_array() else { continue };
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => {
                    inputs.entry(b["id"].as_str().unwrap_or("").to_string()).or_insert(b["input"].clone());
                }
                Some("tool_result") => {
                    let content = match &b["content"] {
                        Value::Null => v["toolUseResult"].clone(),
                        c => c.clone(),
                    };
                    let event = if b["is_error"] == true {
                        let text = match &content {
                            Value::String(s) => s.clone(),
                            Value::Array(items) => items
                                .iter()
                                .filter_map(|i| i.as_str().or(i["text"].as_str()))
                                .collect::<Vec<_>>()
                                .join("\n"),
                            other => other.to_string(),
                        };
                        json!({"hook_event_name": "PostToolUseFailure", "error": text, "is_interrupt": false})
                    } else {
                        json!({"hook_event_name": "PostToolUse", "tool_response": content})
                    };
                    results.entry(b["tool_use_id"].as_str().unwrap_or("").to_string()).or_insert(event);
                }
                _ => {}
            }
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Codex: `function_call` (arguments a JSON string), `custom_tool_call`
/// and `local_shell_call`; every output goes to `PostToolUse` as written.
fn codex_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let p = if v["payload"].is_object() { &v["payload"] } else { &v };
        let id = p["call_id"].as_str().unwrap_or("").to_string();
        match p["type"].as_str() {
            Some("function_call") => {
                let args = p["arguments"].as_str().map_or(Value::Null, |a| serde_json::from_str(a).unwrap_or(json!(a)));
                inputs.entry(id).or_insert(args);
            }
            Some("custom_tool_call") => {
                inputs.entry(id).or_insert(p["input"].clone());
            }
            Some("local_shell_call") => {
                inputs.entry(id).or_insert(json!({"command": p["action"]["command"]}));
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                results.insert(id, json!({"hook_event_name": "PostToolUse", "tool_response": p["output"]}));
            }
            _ => {}
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Gemini CLI: a message's `toolCalls` (the last copy of each); a call in
/// `error` or `cancelled` carries its text as `tool_response.error`.
fn gemini_replay(dir: &Path) -> Replayed {
    let mut out = Replayed::new();
    for v in lines_of(dir) {
        for tc in v["toolCalls"].as_array().into_iter().flatten() {
            let id = tc["id"].as_str().unwrap_or("").to_string();
            let parts = tc["result"].as_array().cloned().unwrap_or_default();
            let response = match tc["status"].as_str() {
                Some("success") => json!({"llmContent": parts, "returnDisplay": tc["resultDisplay"]}),
                Some("error" | "cancelled") => {
                    let said = parts
                        .iter()
                        .filter_map(|p| p["functionResponse"]["response"]["error"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n");
                    json!({"llmContent": parts, "returnDisplay": "", "error": {"message": said}})
                }
                _ => continue,
            };
            out.insert(id, (tc["args"].clone(), json!({"hook_event_name": "AfterTool", "tool_response": response})));
        }
    }
    out
}

/// Copilot CLI: `tool.execution_start` and `_complete` (camelCase hooks):
/// a success's `result.content` as `toolResult`, a failure's
/// `error.message` on `postToolUseFailure`; a call denied at the prompt
/// (no completion) as the failure the CLI reports.
fn copilot_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let data = &v["data"];
        let id = data["toolCallId"].as_str().unwrap_or("").to_string();
        match v["type"].as_str() {
            Some("tool.execution_start") => {
                inputs.entry(id).or_insert(data["arguments"].clone());
            }
            Some("tool.execution_complete") if data["success"] == true => {
                let text = data["result"]["content"].clone();
                let r = json!({"toolResult": {"resultType": "success", "textResultForLlm": text}});
                results.insert(id, r);
            }
            Some("tool.execution_complete") => {
                results.insert(id, json!({"error": data["error"]["message"]}));
            }
            Some("permission.completed") if data["result"]["kind"] == "denied-interactively-by-user" => {
                results.entry(id).or_insert(json!({"error": "The user rejected this tool call."}));
            }
            _ => {}
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Qwen Code: `functionCall` parts, and `tool_result` records: `error` or
/// `cancelled` on `PostToolUseFailure`, anything else on `PostToolUse`.
fn qwen_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for v in lines_of(dir) {
        for part in v["message"]["parts"].as_array().into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                inputs.entry(call["id"].as_str().unwrap_or("").to_string()).or_insert(call["args"].clone());
            }
            if let Some(resp) = part.get("functionResponse") {
                let id = v["toolCallResult"]["callId"].as_str().or(resp["id"].as_str()).unwrap_or("").to_string();
                let r = &resp["response"];
                let error = r.get("error").filter(|e| !e.is_null());
                let event = match (v["toolCallResult"]["status"].as_str(), error) {
                    (Some("error" | "cancelled"), e) => json!({"hook_event_name": "PostToolUseFailure",
                        "error": text(e.unwrap_or(&r["output"])), "is_interrupt": false}),
                    (None, Some(e)) => {
                        json!({"hook_event_name": "PostToolUseFailure", "error": text(e), "is_interrupt": false})
                    }
                    _ => json!({"hook_event_name": "PostToolUse", "tool_response": {"llmContent": text(&r["output"])}}),
                };
                results.insert(id, event);
            }
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Issue 48: every call of a shipped sample, in scan's order, through the
/// guard's hooks (before the call, then its result on the event the agent
/// sends it to): each verdict equals export's (the same judge as scan), and
/// the calls denied are exactly those repeating a run of five identical
/// failures, counted from export's verdicts.
fn replay(sample: &str, agent: &str, replayed: &Replayed, before: &str, common: &Value) {
    let sample = root().join(sample);
    let out = run_in(root(), &["export", sample.to_str().unwrap(), "--no-index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let verdict = |r: &Value| match (r["hidden"].as_bool().unwrap(), r["error"].as_bool().unwrap()) {
        (true, _) => "hidden",
        (false, true) => "flagged",
        (false, false) => "success",
    };
    // Runs per (session, tool), from export: (template, length, input).
    let mut runs: std::collections::HashMap<(String, String), (Value, usize, Value)> = Default::default();
    let (mut expected_denied, mut denied, mut sent) = (Vec::new(), Vec::new(), 0);
    let args = ["--mode", "enforce", "--agent", agent];
    for r in rows.iter().filter(|r| r["paired"] == true) {
        let (session, id, tool) =
            (r["session"].as_str().unwrap(), r["call_id"].as_str().unwrap(), r["tool"].as_str().unwrap());
        let (input, after) = replayed.get(id).unwrap_or_else(|| panic!("{agent}: call {id} not in the sample"));
        let key = (session.to_string(), tool.to_string());
        if runs.get(&key).is_some_and(|(_, len, last)| *len >= 5 && last == input) {
            expected_denied.push(id.to_string());
        }
        // Copilot CLI's camelCase payloads name no event; the others do.
        let (call, before_event) = if agent == "copilot" {
            let call = json!({"sessionId": session, "toolName": tool, "toolArgs": input.to_string()});
            (merge(common, call), json!({}))
        } else {
            let call = json!({"session_id": session, "tool_name": tool, "tool_input": input, "tool_use_id": id});
            (merge(common, call), json!({"hook_event_name": before}))
        };
        let (code, out, err) = guard(d, &args, &merge(&call, before_event).to_string());
        assert_eq!(code, 0, "{agent}: {err}");
        if out.contains("\"deny\"") {
            denied.push(id.to_string());
        }
        let (code, _, err) = guard(d, &args, &merge(&call, after.clone()).to_string());
        assert_eq!(code, 0, "{agent}: {err}");
        sent += 1;
        if verdict(r) == "success" {
            runs.remove(&key);
        } else {
            let run = runs.entry(key).or_insert((Value::Null, 0, Value::Null));
            *run = if run.0 == r["template"] {
                (run.0.clone(), run.1 + 1, input.clone())
            } else {
                (r["template"].clone(), 1, input.clone())
            };
        }
    }
    assert!(sent >= 5, "{agent}: the sample's calls were replayed: {sent}");
    assert_eq!(denied, expected_denied, "{agent}");
    let cut = |t: &Value| t.as_str().map(|t| t.chars().take(250).collect::<String>());
    let sessions: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["session"].as_str().unwrap()).collect();
    let mut judged = 0;
    for session in sessions {
        let kept: Vec<Value> =
            log(d, session).into_iter().filter(|v| v["event"] == "after" && v["session"] == session).collect();
        let exported: Vec<&Value> = rows.iter().filter(|r| r["session"] == session && r["paired"] == true).collect();
        assert_eq!(kept.len(), exported.len(), "{agent}: {session}");
        for (k, e) in kept.iter().zip(exported) {
            let id = e["call_id"].as_str().unwrap();
            // Copilot CLI's camelCase payloads carry no call id: the order pairs them.
            if agent != "copilot" {
                assert_eq!(k["call_id"], e["call_id"]);
            }
            assert_eq!(k["verdict"], verdict(e), "{agent}: {id}");
            assert_eq!(k["category"], e["category"], "{agent}: {id}");
            assert_eq!(cut(&k["template"]), cut(&e["template"]), "{agent}: {id}");
            judged += 1;
        }
    }
    assert_eq!(judged, sent, "{agent}");
    let any_hidden = rows.iter().any(|r| r["paired"] == true && r["hidden"] == true);
    scan_reports_the_interventions(&sample, agent, d, any_hidden);
}

/// `scan` of the replayed sample, reading the guard's state, reports per
/// session the interventions `guard log` lists, with the same recovery; a
/// scan of other sessions, or with the guard's state elsewhere, none.
fn scan_reports_the_interventions(sample: &Path, agent: &str, d: &Path, any_hidden: bool) {
    let state = d.join("state");
    let scan = |state: &Path| serde_json::from_slice::<Value>(&scan_json(sample, state)).unwrap()["guard"].clone();
    let reported = scan(&state);
    let mut expected: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for v in log(d, "") {
        if ["context", "deny", "stop"].contains(&v["action"].as_str().unwrap()) {
            let keep = ["time", "tool", "call_id", "action", "category", "streak", "recovered_after"];
            let i: serde_json::Map<String, Value> =
                keep.iter().map(|k| (k.to_string(), v.get(*k).cloned().unwrap_or(Value::Null))).collect();
            expected.entry(v["session"].as_str().unwrap().to_string()).or_default().push(Value::Object(i));
        }
    }
    // The guard tells the agent of every hidden error.
    assert_eq!(!expected.is_empty(), any_hidden, "{agent}: interventions {expected:?}");
    let expected: Vec<Value> = expected
        .into_iter()
        .map(|(session, interventions)| json!({"session": session, "agent": agent, "interventions": interventions}))
        .collect();
    assert_eq!(reported, Value::Array(expected), "{agent}");
    assert_eq!(scan(&d.join("elsewhere")), json!([]), "{agent}: no state, no interventions");
    let other = root().join("sample-traces/crush.db");
    let other_report = scan_json(&other, &state);
    let other_guard = serde_json::from_slice::<Value>(&other_report).unwrap()["guard"].clone();
    assert_eq!(other_guard, json!([]), "{agent}: another trace's sessions have none");
    // merge keeps each report's sessions' record.
    std::fs::write(d.join("a.json"), scan_json(sample, &state)).unwrap();
    std::fs::write(d.join("b.json"), &other_report).unwrap();
    let merged = json(&run_in(d, &["merge", "a.json", "b.json", "--format", "json"]));
    assert_eq!(merged["guard"], reported, "{agent}: merged");
    // The table's section says how many, and how many recovered.
    let out = run_in(d, &["scan", sample.to_str().unwrap(), "--no-index", "--guard-state", state.to_str().unwrap()]);
    let n: usize = reported.as_array().unwrap().iter().map(|g| g["interventions"].as_array().unwrap().len()).sum();
    if n > 0 {
        let helped = reported
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["interventions"].as_array().unwrap())
            .filter(|i| !i["recovered_after"].is_null())
            .count();
        let line = format!("Guard: {n} intervention{}", if n == 1 { "" } else { "s" });
        let text = stdout(&out);
        assert!(text.contains(&line) && text.contains(&format!("{helped} followed by a success")), "{agent}: {text}");
    }
}

fn scan_json(sample: &Path, state: &Path) -> Vec<u8> {
    let out = run_in(
        state.parent().unwrap(),
        &["scan", sample.to_str().unwrap(), "--no-index", "--format", "json", "--guard-state", state.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    out.stdout
}

#[test]
fn a_replayed_claude_code_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/home/u/proj", "permission_mode": "default", "transcript_path": "/x.jsonl"});
    replay(
        "sample-traces/claude-code",
        "claude-code",
        &claude_replay(&root().join("sample-traces/claude-code")),
        "PreToolUse",
        &common,
    );
}

#[test]
fn a_replayed_codex_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/home/u/web", "permission_mode": "default", "transcript_path": null,
        "model": "gpt-5-codex", "turn_id": "turn-1"});
    replay("sample-traces/codex", "codex", &codex_replay(&root().join("sample-traces/codex")), "PreToolUse", &common);
}

#[test]
fn a_replayed_gemini_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/p", "transcript_path": "/x.json", "timestamp": "2026-06-01T10:00:00.000Z"});
    replay(
        "sample-traces/gemini",
        "gemini",
        &gemini_replay(&root().join("sample-traces/gemini")),
        "BeforeTool",
        &common,
    );
}

/// Run `falseok guard SUB ARGS` in `dir` with HOME set to `dir/home`, so
/// that no real settings file is ever read or written.
fn settings_cmd(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .arg("guard")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env_remove("CODEX_HOME")
        .output()
        .unwrap()
}

/// Each agent's settings file, and one that already has a hook of the
/// user's, written with another indentation and key order than falseok's.
fn settings_of(agent: &str) -> (&'static str, String) {
    let theirs = |event: &str| {
        format!(
            "{{\n    \"theme\": \"dark\",\n    \"hooks\": {{\n        \"{event}\": [ {{ \"matcher\": \"Edit\", \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./fmt.sh\" }} ] }} ]\n    }},\n    \"zz\": {{ \"b\": 1, \"a\": 2 }}\n}}\n"
        )
    };
    match agent {
        "claude-code" => (".claude/settings.json", theirs("PostToolUse")),
        "codex" => (".codex/hooks.json", theirs("PostToolUse")),
        "gemini" => (".gemini/settings.json", theirs("AfterTool")),
        "qwen" => (".qwen/settings.json", theirs("PostToolUse")),
        _ => (
            ".github/hooks/falseok-guard.json",
            "{\"version\": 1, \"hooks\": {\"postToolUse\": [{\"type\": \"command\", \"bash\": \"./log.sh\"}]}}\n"
                .into(),
        ),
    }
}

/// The guard's commands in a settings file, per event.
fn installed(file: &Path) -> Vec<(String, String)> {
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let mut out = Vec::new();
    for (event, list) in v["hooks"].as_object().unwrap() {
        for g in list.as_array().unwrap() {
            let hooks = g["hooks"].as_array().cloned().unwrap_or_else(|| vec![g.clone()]);
            for h in hooks {
                let cmd = h["command"].as_str().or(h["bash"].as_str()).unwrap().to_string();
                out.push((event.clone(), cmd));
            }
        }
    }
    out
}

/// Issue 48: install is idempotent, keeps the user's hooks and a backup;
/// uninstall leaves the file byte for byte as it was, with other hooks or
/// none (a file install made is deleted again).
#[test]
fn install_then_uninstall_leaves_each_settings_file_as_it_was() {
    for agent in ["claude-code", "codex", "gemini", "copilot", "qwen"] {
        let (rel, original) = settings_of(agent);
        for with_others in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let file = d.join(rel);
            if with_others {
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, &original).unwrap();
            }
            let out = settings_cmd(d, &["install", "--agent", agent]);
            assert!(out.status.success(), "{agent}: {}", stderr(&out));
            let after = std::fs::read(&file).unwrap();
            let commands = installed(&file);
            let ours: Vec<&(String, String)> =
                commands.iter().filter(|(_, c)| c.starts_with("falseok guard")).collect();
            let events = if matches!(agent, "codex" | "gemini") { 2 } else { 3 };
            assert_eq!(ours.len(), events, "{agent}: {commands:?}");
            assert!(ours.iter().all(|(_, c)| *c == format!("falseok guard --agent {agent}")), "{agent}: {ours:?}");
            assert_eq!(commands.len() - ours.len(), usize::from(with_others), "{agent}: the user's hook stays");
            let backup = d.join(format!("{rel}.falseok-backup"));
            assert_eq!(backup.exists(), with_others, "{agent}");
            if with_others {
                assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
                let text = String::from_utf8(after.clone()).unwrap();
                // Sorted, "a" would come before "b", and "hooks" before "version".
                let kept = if agent == "copilot" {
                    text.find("version") < text.find("hooks")
                } else {
                    text.find("theme") < text.find("zz") && text.find("\"b\"") < text.find("\"a\"")
                };
                assert!(kept, "{agent}: key order kept:\n{text}");
            }
            let again = settings_cmd(d, &["install", "--agent", agent]);
            assert!(stdout(&again).contains("nothing changed"), "{agent}: {}", stdout(&again));
            assert_eq!(std::fs::read(&file).unwrap(), after, "{agent}: install twice is install once");
            let out = settings_cmd(d, &["uninstall", "--agent", agent]);
            assert!(out.status.success(), "{agent}: {}", stderr(&out));
            if with_others {
                assert_eq!(std::fs::read_to_string(&file).unwrap(), original, "{agent}: byte for byte");
                assert!(!backup.exists(), "{agent}");
            } else {
                assert!(!file.exists(), "{agent}: the file install made is gone");
            }
            let none = settings_cmd(d, &["uninstall", "--agent", agent]);
            assert!(none.status.success() && stdout(&none).contains("nothing"), "{agent}: {}", stdout(&none));
        }
    }
}

/// --user writes under HOME, --settings anywhere; a hook the user edited
/// since install stays edited; a file that is not JSON is refused in one
/// line and left alone; the installed command runs the guard.
#[test]
fn install_targets_and_edits_since() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = settings_cmd(d, &["install", "--agent", "qwen", "--user", "--mode", "enforce"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let user = d.join("home/.qwen/settings.json");
    assert!(installed(&user).iter().all(|(_, c)| c == "falseok guard --agent qwen --mode enforce"));
    // Copilot CLI's user hooks (0.0.422): ~/.copilot/hooks.
    let user_copilot = settings_cmd(d, &["install", "--agent", "copilot", "--user"]);
    assert!(user_copilot.status.success(), "{}", stderr(&user_copilot));
    assert!(!installed(&d.join("home/.copilot/hooks/falseok-guard.json")).is_empty());
    let codex = settings_cmd(d, &["install", "--agent", "codex", "--user"]);
    assert!(stdout(&codex).contains("only once you approve them"), "{}", stdout(&codex));

    let file = d.join("mine.json");
    std::fs::write(&file, "{\"hooks\": {}}").unwrap();
    assert!(settings_cmd(d, &["install", "--agent", "claude-code", "--settings", "mine.json"]).status.success());
    // The user adds a setting after install: uninstall keeps it.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    v["model"] = json!("opus");
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    assert!(settings_cmd(d, &["uninstall", "--agent", "claude-code", "--settings", "mine.json"]).status.success());
    let left: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(left, json!({"model": "opus"}));

    std::fs::write(&file, "{ not json").unwrap();
    let bad = settings_cmd(d, &["install", "--agent", "gemini", "--settings", "mine.json"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).starts_with("falseok: error: mine.json: not JSON") && stderr(&bad).lines().count() == 1,
        "{}",
        stderr(&bad)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ not json");

    // What install wrote runs the guard, falseok found on PATH.
    let project = settings_cmd(d, &["install", "--agent", "claude-code"]);
    assert!(project.status.success());
    let (_, cmd) = installed(&d.join(".claude/settings.json")).into_iter().find(|(e, _)| e == "PostToolUse").unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .current_dir(d)
        .env("PATH", path)
        .env("XDG_CACHE_HOME", d.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(claude().hidden.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(answer(&stdout(&out)), claude().hidden_answer.unwrap());
    assert!(d.join("cache/falseok/guard/guard-v1").is_dir(), "the state is in the index folder");
}

#[test]
fn a_replayed_copilot_sample_gets_exports_verdicts() {
    let sample = "sample-traces/copilot";
    let common = json!({"cwd": "/home/dev/projects/widget", "timestamp": 1_781_000_000_000_u64});
    replay(sample, "copilot", &copilot_replay(&root().join(sample)), "preToolUse", &common);
}

#[test]
fn a_replayed_qwen_code_sample_gets_exports_verdicts() {
    let common =
        json!({"cwd": "/home/dev/shop", "transcript_path": "/x.jsonl", "timestamp": "2026-05-10T09:00:00.000Z"});
    replay("sample-traces/qwen", "qwen", &qwen_replay(&root().join("sample-traces/qwen")), "PreToolUse", &common);
}

/// --stop-at: a run that long also ends the turn (`continue: false`) on
/// top of the denial; Copilot CLI's pre-call hook cannot, and Codex refuses
/// such an answer as invalid and runs the call: both only deny.
#[test]
fn a_longer_run_ends_the_turn() {
    for a in [claude(), copilot(), codex()] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let args = ["--mode", "enforce", "--stop-at", "6"];
        for _ in 0..5 {
            guard(d, &args, &a.flagged.to_string());
        }
        assert_eq!(answer(&guard(d, &args, &a.again.to_string()).1), a.denial, "{}: five deny", a.name);
        guard(d, &args, &a.flagged.to_string());
        let (code, out, _) = guard(d, &args, &a.again.to_string());
        assert_eq!(code, 0);
        let said = answer(&out);
        if a.name != "claude-code" {
            let sixth: Value = serde_json::from_str(&a.denial.to_string().replace("5 times", "6 times")).unwrap();
            assert_eq!(said, sixth, "{}: the denial alone", a.name);
            assert!(said.get("continue").is_none(), "{said}");
            continue;
        }
        let mut expected = a.denial.clone();
        let reason =
            expected["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().replace("5 times", "6 times");
        expected["hookSpecificOutput"]["permissionDecisionReason"] = json!(reason);
        expected["continue"] = json!(false);
        let first = reason.split(" Refused:").next().unwrap();
        expected["stopReason"] = json!(format!("{first} The turn was ended."));
        assert_eq!(said, expected);
        let actions: Vec<Value> = log(d, "cc-1").iter().map(|v| v["action"].clone()).collect();
        assert_eq!(actions.last(), Some(&json!("stop")));
    }
}

/// The Claude Code plugin (`plugin/claude-code`, listed in the repository's
/// marketplace) installs the same hooks as `guard install`.
#[test]
fn the_claude_code_plugin_has_the_hooks_install_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(settings_cmd(d, &["install", "--agent", "claude-code"]).status.success());
    let installed: Value = serde_json::from_slice(&std::fs::read(d.join(".claude/settings.json")).unwrap()).unwrap();
    let plugin: Value =
        serde_json::from_slice(&std::fs::read(root().join("plugin/claude-code/hooks/hooks.json")).unwrap()).unwrap();
    assert_eq!(plugin["hooks"], installed["hooks"]);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root().join("plugin/claude-code/.claude-plugin/plugin.json")).unwrap())
            .unwrap();
    let market: Value =
        serde_json::from_slice(&std::fs::read(root().join(".claude-plugin/marketplace.json")).unwrap()).unwrap();
    assert_eq!(market["plugins"][0]["name"], manifest["name"]);
    assert_eq!(market["plugins"][0]["source"], "./plugin/claude-code");
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains(&format!("version = {}", manifest["version"])), "the plugin's version is the crate's");
}

/// `falseok metrics` adds the guard's counts from the index folder (the
/// default state, no --state-dir), which promtool accepts; without any,
/// nothing is added.
#[test]
fn metrics_count_the_guards_verdicts_and_interventions() {
    let a = claude();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    let metrics = || {
        let out = Command::new(BIN)
            .args(["metrics", root().join("sample-traces/crush.db").to_str().unwrap(), "--no-index"])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    assert!(!metrics().contains("falseok_guard_verdicts_total"), "no guard state: no series");
    let send = |payload: &Value| {
        let mut child = Command::new(BIN)
            .args(["guard", "--mode", "enforce"])
            .env("XDG_CACHE_HOME", &cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    };
    send(&a.success);
    send(&a.hidden);
    for _ in 0..5 {
        send(&a.flagged);
    }
    send(&a.again);
    let text = metrics();
    let guard_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("falseok_guard_verdicts_total") || l.starts_with("falseok_guard_interventions_total"))
        .collect();
    assert_eq!(
        guard_lines,
        vec![
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"flagged\"} 5",
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"hidden\"} 1",
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"success\"} 1",
            "falseok_guard_interventions_total{action=\"context\",agent=\"claude-code\"} 2",
            "falseok_guard_interventions_total{action=\"deny\",agent=\"claude-code\"} 1",
        ]
    );
    // A missing promtool fails, as in the metrics tests (unless told to skip).
    if let Some(promtool) = crate::metrics::promtool() {
        let (ok, said) = crate::metrics::check_metrics(&promtool, &text);
        assert!(ok && said.trim().is_empty(), "promtool: {said}");
    }
}

/// `--state-dir` names a folder the user owns, maybe a shared one: the
/// guard makes its own folder inside it private and leaves it as it was
/// (`--state-dir /tmp` must never close `/tmp`).
#[test]
fn a_shared_state_dir_is_left_as_it_was() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let shared = d.path().join("state");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let payload = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a", "stderr": "", "interrupted": false}});
    let (code, _, err) = guard(d.path(), &["--agent", "claude-code"], &payload.to_string());
    assert_eq!(code, 0, "{err}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&shared), 0o1777, "the user's folder is not changed");
    let own: Vec<_> = std::fs::read_dir(&shared).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!own.is_empty() && own.iter().all(|p| mode(p) == 0o700), "{own:?}");
}

/// Issue 55, D13: a session id, tool name and call id holding secrets
/// (and a result quoting one) are kept in the guard's log redacted, as
/// reports show them; `guard log --session` finds the session by its id
/// as written or as shown.
#[test]
fn the_log_keeps_no_secret_of_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cores = ["Rel5GuardSess01", "Rel5GuardTool02", "Rel5GuardCall03", "Rel5GuardMsg04"];
    let session = "cc-PGPASSWORD=Rel5GuardSess01";
    let payload = json!({"session_id": session, "transcript_path": "/home/u/.claude/projects/p/x.jsonl",
        "cwd": "/home/u/p", "hook_event_name": "PostToolUse", "tool_name": "mcp__db.clientSecret=Rel5GuardTool02",
        "tool_input": {"sql": "select 1"}, "tool_use_id": "toolu_Authorization: Token Rel5GuardCall03",
        "tool_response": [{"type": "text", "text": "{\"status\":\"error\",\"message\":\"login refused for sessionToken=Rel5GuardMsg04\"}"}]});
    for _ in 0..2 {
        let (code, _, err) = guard(d, &["--mode", "advise"], &payload.to_string());
        assert_eq!(code, 0, "{err}");
    }
    let state = d.join("state");
    let state = state.to_str().unwrap();
    let text = stdout(&run_in(d, &["guard", "log", "--state-dir", state]));
    let lines = stdout(&run_in(d, &["guard", "log", "--json", "--state-dir", state]));
    for out in [&text, &lines] {
        for core in cores {
            assert!(!out.contains(core), "the log shows {core}:\n{out}");
        }
    }
    let kept: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(kept.len(), 2, "{lines}");
    assert_eq!(kept[0]["verdict"], "hidden", "{lines}");
    assert_eq!(kept[0]["session"], "cc-PGPASSWORD=[REDACTED]");
    assert_eq!(kept[0]["tool"], "mcp__db.clientSecret=[REDACTED]");
    assert_eq!(kept[0]["call_id"], "toolu_Authorization: Token [REDACTED]");
    assert!(text.contains("mcp__db.clientSecret=[REDACTED]"), "{text}");
    for wanted in [session, "cc-PGPASSWORD=[REDACTED]", "cc-PG"] {
        assert_eq!(log(d, wanted).len(), 2, "--session {wanted}");
    }
}
