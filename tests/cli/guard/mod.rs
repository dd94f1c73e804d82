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

mod replay;
mod settings;

/// Run `falseok guard ARGS` with `payload` on stdin and the state in `dir`:
/// (exit code, stdout, stderr).
fn guard(dir: &Path, args: &[&str], payload: &str) -> (i32, String, String) {
    let mut child = spawn(dir, args);
    match child.stdin.take().unwrap().write_all(payload.as_bytes()) {
        Ok(()) => {}
        // A guard that answers before it reads (a mistyped option fails
        // open at once) may have closed its input: its answer is checked.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("writing the hook payload: {e}"),
    }
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
