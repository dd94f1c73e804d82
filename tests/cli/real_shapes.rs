//! Failure shapes of real agent traces (issue 12), each distilled into a
//! minimal case written here (no recorded trace is copied), run through the
//! real binary: `falseok export` prints one judged call per row.

use std::path::Path;

use crate::util::{db_from_sql, json as json_of, run_in, stderr, stdout, tool, totals};
use serde_json::{Value, json};

/// The judged rows of `falseok export PATH`, by call id.
fn export(dir: &Path, path: &Path) -> std::collections::BTreeMap<String, Value> {
    let out = run_in(dir, &["export", path.to_str().unwrap()]);
    assert!(out.status.success(), "export failed: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["call_id"].as_str().unwrap().to_string(), v))
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Shape 1: a Gemini CLI chat as one JSON document, with a shell call that
/// exited 1 under `status: success`, a cancelled call and a clean read.
#[test]
fn gemini_single_document_chats_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let chat = json!({
        "sessionId": "0ed814e6-1111-2222-3333-444455556666",
        "projectHash": "56cfacee",
        "startTime": "2026-01-24T18:04:00.000Z",
        "lastUpdated": "2026-01-24T18:09:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-01-24T18:04:01.000Z", "type": "user", "content": [{"text": "lint it"}]},
            {"id": "m2", "timestamp": "2026-01-24T18:04:05.000Z", "type": "gemini", "content": "", "toolCalls": [
                {"id": "run_shell_command-1-a", "name": "run_shell_command", "args": {"command": "npm run lint"},
                 "status": "success", "timestamp": "2026-01-24T18:04:06.000Z",
                 "result": [{"functionResponse": {"id": "run_shell_command-1-a", "name": "run_shell_command",
                    "response": {"output": "Command: npm run lint\nDirectory: (root)\nOutput: \n> app@1.0.0 lint\n> eslint .\n\n  3:7  error  'x' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 16444"}}}]},
                {"id": "run_shell_command-2-b", "name": "run_shell_command", "args": {"command": "findstr /s needle *.md"},
                 "status": "success", "timestamp": "2026-01-24T18:04:07.000Z",
                 "result": [{"functionResponse": {"id": "run_shell_command-2-b", "name": "run_shell_command",
                    "response": {"output": "Output: (empty)\nExit Code: 1\nProcess Group PGID: 4068"}}}]},
                {"id": "replace-3-c", "name": "replace", "args": {"file_path": "a.js", "old_string": "x", "new_string": "y"},
                 "status": "cancelled", "timestamp": "2026-01-24T18:04:08.000Z",
                 "result": [{"functionResponse": {"id": "replace-3-c", "name": "replace",
                    "response": {"error": "[Operation Cancelled] Reason: User cancelled the operation."}}}]},
                {"id": "read_file-4-d", "name": "read_file", "args": {"file_path": "a.js"},
                 "status": "success", "timestamp": "2026-01-24T18:04:09.000Z",
                 "result": [{"functionResponse": {"id": "read_file-4-d", "name": "read_file",
                    "response": {"output": "{\"error\": \"not a failure: this is the file's text\"}"}}}]}
            ]}
        ]
    });
    let file = dir.path().join("tmp/56cfacee/chats/session-2026-01-24T18-04-0ed814e6.json");
    write(&file, &serde_json::to_string_pretty(&chat).unwrap());
    // A folder of chats (with a stray logs.json) and the file itself.
    write(&dir.path().join("tmp/56cfacee/logs.json"), "[{\"sessionId\":\"x\",\"message\":\"hi\"}]");
    for path in [dir.path().join("tmp"), file] {
        let rows = export(dir.path(), &path);
        assert_eq!(rows.len(), 4, "{rows:?}");
        let lint = &rows["run_shell_command-1-a"];
        assert_eq!((lint["hidden"].as_bool(), lint["category"].as_str()), (Some(true), Some("nonzero-exit")));
        assert_eq!(rows["run_shell_command-2-b"]["error"], false, "findstr found nothing");
        let cancel = &rows["replace-3-c"];
        assert_eq!((cancel["flagged"].as_bool(), cancel["category"].as_str()), (Some(true), Some("user-rejected")));
        assert_eq!(rows["read_file-4-d"]["error"], false, "a read returns data");
        assert_eq!(lint["session"], "0ed814e6-1111-2222-3333-444455556666");
    }
}

/// Gemini CLI's headless output (`gemini -p … --output-format stream-json`,
/// packages/core/src/output/types.ts): `tool_use` and `tool_result` events
/// paired by `tool_id`, `status: error` the flag, an MCP reply's error
/// envelope under `success` hidden, a shell command that printed nothing
/// and failed shown as `Command exited with code: N`, one that found
/// nothing benign, and a call the run never answered. An eval harness may
/// write a line of its own before `init`.
#[test]
fn gemini_headless_stream_json_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let t = |s: u32| format!("2026-02-03T09:00:{s:02}.000Z");
    let lines = [
        json!({"type": "message", "role": "user", "content": "Build the page"}),
        json!({"type": "init", "timestamp": t(0), "session_id": "7d0e8c2a-aaaa-bbbb-cccc-000011112222", "model": "gemini-2.5-pro"}),
        json!({"type": "message", "timestamp": t(1), "role": "assistant", "content": "Looking", "delta": true}),
        json!({"type": "tool_use", "timestamp": t(2), "tool_name": "activate_skill", "tool_id": "activate_skill-1-a", "parameters": {"name": "page-builder"}}),
        json!({"type": "tool_result", "timestamp": t(3), "tool_id": "activate_skill-1-a", "status": "error",
               "output": "Skill \"page-builder\" not found.", "error": {"type": "invalid_tool_params", "message": "Skill \"page-builder\" not found."}}),
        json!({"type": "tool_use", "timestamp": t(4), "tool_name": "get_layers", "tool_id": "get_layers-2-b", "parameters": {"file": "k3"}}),
        json!({"type": "tool_result", "timestamp": t(5), "tool_id": "get_layers-2-b", "status": "success",
               "output": "{\"status\":\"error\",\"error\":\"Design API error: 429 - too many requests\"}"}),
        json!({"type": "tool_use", "timestamp": t(6), "tool_name": "run_shell_command", "tool_id": "run_shell_command-3-c", "parameters": {"command": "npm run build"}}),
        json!({"type": "tool_result", "timestamp": t(7), "tool_id": "run_shell_command-3-c", "status": "success", "output": "Command exited with code: 2"}),
        json!({"type": "tool_use", "timestamp": t(8), "tool_name": "run_shell_command", "tool_id": "run_shell_command-4-d", "parameters": {"command": "grep -r TODO src"}}),
        json!({"type": "tool_result", "timestamp": t(9), "tool_id": "run_shell_command-4-d", "status": "success", "output": "Command exited with code: 1"}),
        json!({"type": "tool_use", "timestamp": t(10), "tool_name": "write_file", "tool_id": "write_file-5-e", "parameters": {"file_path": "a.tsx", "content": "x"}}),
        json!({"type": "tool_result", "timestamp": t(11), "tool_id": "write_file-5-e", "status": "success"}),
        json!({"type": "tool_use", "timestamp": t(12), "tool_name": "read_file", "tool_id": "read_file-6-f", "parameters": {"file_path": "b.tsx"}}),
        json!({"type": "error", "timestamp": t(13), "severity": "error", "message": "Invalid stream"}),
        json!({"type": "result", "timestamp": t(14), "status": "error", "error": {"type": "Error", "message": "stopped"},
               "stats": {"total_tokens": 10, "input_tokens": 8, "output_tokens": 2, "cached": 0, "input": 8, "duration_ms": 1, "tool_calls": 5}}),
        // A second run appended to the same log.
        json!({"type": "init", "timestamp": t(20), "session_id": "9e2f-second-run", "model": "gemini-2.5-flash"}),
        json!({"type": "tool_use", "timestamp": t(21), "tool_name": "list_directory", "tool_id": "list_directory-7-g", "parameters": {"dir_path": "."}}),
        json!({"type": "tool_result", "timestamp": t(22), "tool_id": "list_directory-7-g", "status": "success", "output": "Listed 3 item(s)."}),
    ];
    let file = dir.path().join("run/transcript.jsonl");
    write(&file, &jsonl(&lines));
    let rows = export(dir.path(), &file);
    assert_eq!(rows.len(), 7, "{rows:?}");
    assert_eq!(rows["list_directory-7-g"]["session"], "9e2f-second-run");
    let skill = &rows["activate_skill-1-a"];
    assert_eq!((skill["flagged"].as_bool(), skill["hidden"].as_bool()), (Some(true), Some(false)));
    let layers = &rows["get_layers-2-b"];
    assert_eq!((layers["hidden"].as_bool(), layers["category"].as_str()), (Some(true), Some("rate-limit")), "{layers}");
    let build = &rows["run_shell_command-3-c"];
    assert_eq!((build["hidden"].as_bool(), build["category"].as_str()), (Some(true), Some("nonzero-exit")), "{build}");
    assert_eq!(rows["run_shell_command-4-d"]["error"], false, "grep found nothing");
    assert_eq!(rows["write_file-5-e"]["error"], false);
    assert_eq!(rows["read_file-6-f"]["error"], false, "never answered: no verdict");
    assert_eq!(skill["session"], "7d0e8c2a-aaaa-bbbb-cccc-000011112222");
}

/// Claude Code's headless output (`claude -p --output-format stream-json`,
/// the Agent SDK's messages): `session_id` in snake case, no `uuid` before
/// 2.x, a sub-agent's messages marked by the `parent_tool_use_id` of the
/// `Task` call that started it, and a sub-agent whose report says it could
/// not do the task under no flag.
#[test]
fn claude_headless_stream_json_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let sid = "4b1e0c9d-1111-2222-3333-444455556666";
    let assistant = |parent: Value, uuid: Option<&str>, blocks: Value| {
        let mut v = json!({"type": "assistant", "message": {"id": "msg_x", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": blocks}, "parent_tool_use_id": parent, "session_id": sid});
        if let Some(u) = uuid {
            v["uuid"] = json!(u);
        }
        v
    };
    let user = |parent: Value, blocks: Value| json!({"type": "user", "message": {"role": "user", "content": blocks}, "parent_tool_use_id": parent, "session_id": sid});
    let lines = [
        json!({"type": "system", "subtype": "init", "cwd": "/home/u/p", "session_id": sid, "tools": ["Bash", "Task"], "model": "claude-sonnet-4-5"}),
        assistant(
            Value::Null,
            None,
            json!([{"type": "tool_use", "id": "toolu_b1", "name": "Bash", "input": {"command": "cargo build"}}]),
        ),
        user(
            Value::Null,
            json!([{"type": "tool_result", "tool_use_id": "toolu_b1", "content": "error[E0425]: cannot find value `x`", "is_error": true}]),
        ),
        assistant(
            Value::Null,
            Some("0d0f1a52-aaaa-bbbb-cccc-000000000001"),
            json!([{"type": "tool_use", "id": "toolu_t1", "name": "Task", "input": {"description": "Fix config", "prompt": "Set the port to 8080 in config.toml"}}]),
        ),
        assistant(
            json!("toolu_t1"),
            None,
            json!([{"type": "tool_use", "id": "toolu_r1", "name": "Read", "input": {"file_path": "/home/u/p/config.toml"}}]),
        ),
        user(
            json!("toolu_t1"),
            json!([{"type": "tool_result", "tool_use_id": "toolu_r1", "content": "     1\tport = 80\n"}]),
        ),
        user(
            Value::Null,
            json!([{"type": "tool_result", "tool_use_id": "toolu_t1",
            "content": [{"type": "text", "text": "I can't update config.toml: the file is read-only for this user."}]}]),
        ),
        json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": 1200, "num_turns": 3, "result": "done", "session_id": sid}),
    ];
    let file = dir.path().join("ci/claude-output.jsonl");
    write(&file, &jsonl(&lines));
    let rows = export(dir.path(), &file);
    assert_eq!(rows.len(), 3, "{rows:?}");
    let build = &rows["toolu_b1"];
    assert_eq!((build["flagged"].as_bool(), build["session"].as_str()), (Some(true), Some(sid)));
    let task = &rows["toolu_t1"];
    assert_eq!((task["hidden"].as_bool(), task["session"].as_str()), (Some(true), Some(sid)), "{task}");
    let read = &rows["toolu_r1"];
    assert_eq!(read["error"], false);
    assert_eq!(read["session"], format!("{sid}/agent-toolu_t1"));
    assert_eq!(read["parent_session"], sid);
}

/// Qwen Code's headless output is Claude Code's stream-json
/// (packages/cli/src/nonInteractive/types.ts), its `init` naming
/// `qwen_code_version`: the session is Qwen Code's and judged by its rules
/// (a search whose ripgrep failed, unflagged, is a hidden error there).
#[test]
fn qwen_headless_stream_json_is_qwen_code_s() {
    let dir = tempfile::tempdir().unwrap();
    let sid = "b7c1d2e3-0000-1111-2222-333344445555";
    let lines = [
        json!({"type": "system", "subtype": "init", "uuid": "u0", "session_id": sid, "cwd": "/p", "tools": ["grep_search"], "qwen_code_version": "0.6.0"}),
        json!({"type": "assistant", "uuid": "u1", "session_id": sid, "parent_tool_use_id": null,
               "message": {"id": "m1", "type": "message", "role": "assistant", "model": "qwen3-coder-plus",
                           "content": [{"type": "tool_use", "id": "call_g1", "name": "grep_search", "input": {"pattern": "TODO", "path": "src"}}],
                           "usage": {"input_tokens": 10, "output_tokens": 4}}}),
        json!({"type": "user", "uuid": "u2", "session_id": sid, "parent_tool_use_id": null,
               "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_g1",
                   "content": "Search did not complete for pattern \"TODO\" in path \"src\". No valid matches were returned; do not treat this as no matches. Error: Command failed: rg", "is_error": false}]}}),
    ];
    let file = dir.path().join("ci/qwen-output.jsonl");
    write(&file, &jsonl(&lines));
    let rows = export(dir.path(), &file);
    let grep = &rows["call_g1"];
    assert_eq!((grep["agent"].as_str(), grep["hidden"].as_bool()), (Some("qwen"), Some(true)), "{grep}");
}

/// `codex exec --json` (codex-rs/exec/src/exec_events.rs): items paired by
/// their id, `status: failed` the flag (a command that exited non-zero, a
/// patch that did not apply), an MCP call that completed with a failure in
/// its content hidden, a command cut short unanswered, and the turn's usage
/// on the turn's calls.
#[test]
fn codex_exec_json_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = |id: &str, command: &str, out: Value, code: Value, status: &str| json!({"id": id, "type": "command_execution", "command": command, "aggregated_output": out, "exit_code": code, "status": status});
    let lines = [
        json!({"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"}),
        json!({"type": "turn.started"}),
        json!({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "Looking at the tests"}}),
        json!({"type": "item.started", "item": cmd("item_1", "bash -lc 'cargo test'", json!(""), Value::Null, "in_progress")}),
        json!({"type": "item.completed", "item": cmd("item_1", "bash -lc 'cargo test'", json!("test parse ... FAILED\ntest result: FAILED. 3 passed; 1 failed"), json!(101), "failed")}),
        json!({"type": "item.completed", "item": {"id": "item_2", "type": "mcp_tool_call", "server": "fetch", "tool": "fetch",
            "arguments": {"url": "https://example.com/missing"}, "status": "completed",
            "result": {"content": [{"type": "text", "text": "Failed to fetch https://example.com/missing - status code 404"}], "structured_content": null}, "error": null}}),
        json!({"type": "item.completed", "item": {"id": "item_3", "type": "file_change", "changes": [{"path": "src/lib.rs", "kind": "update"}], "status": "failed"}}),
        json!({"type": "item.completed", "item": cmd("item_4", "bash -lc 'ls src'", json!("lib.rs\nmain.rs\n"), json!(0), "completed")}),
        json!({"type": "item.completed", "item": {"id": "item_5", "type": "agent_message", "text": "Done."}}),
        json!({"type": "turn.completed", "usage": {"input_tokens": 24763, "cached_input_tokens": 24448, "output_tokens": 122}}),
        json!({"type": "turn.started"}),
        json!({"type": "item.started", "item": cmd("item_6", "bash -lc 'npm run build'", json!(""), Value::Null, "in_progress")}),
        json!({"type": "turn.failed", "error": {"message": "stream disconnected before completion"}}),
    ];
    let file = dir.path().join("ci/codex-exec.jsonl");
    write(&file, &jsonl(&lines));
    let rows = export(dir.path(), &file);
    assert_eq!(rows.len(), 5, "{rows:?}");
    let test = &rows["item_1"];
    assert_eq!((test["flagged"].as_bool(), test["hidden"].as_bool()), (Some(true), Some(false)), "{test}");
    assert_eq!(test["session"], "0199a213-81c0-7800-8aa1-bbab2a035a53");
    // The turn's usage, shared among its four calls.
    let turn = ["item_1", "item_2", "item_3", "item_4"];
    let sum = |k: &str| turn.iter().map(|id| rows[*id][k].as_i64().unwrap_or(0)).sum::<i64>();
    assert_eq!((sum("output_tokens"), sum("cache_read_tokens")), (122, 24448), "{rows:?}");
    let fetch = &rows["item_2"];
    assert_eq!((fetch["hidden"].as_bool(), fetch["category"].as_str()), (Some(true), Some("not-found")), "{fetch}");
    assert_eq!(fetch["tool"], "mcp__fetch__fetch");
    assert_eq!(rows["item_3"]["flagged"], true, "the patch did not apply");
    assert_eq!(rows["item_4"]["error"], false);
    assert_eq!((rows["item_6"]["paired"].as_bool(), rows["item_6"]["error"].as_bool()), (Some(false), Some(false)));
}

fn claude_line(uuid: &str, kind: &str, content: Value, extra: Value) -> Value {
    let mut v = json!({
        "parentUuid": null, "isSidechain": false, "sessionId": "s1", "version": "2.1.50",
        "type": kind, "uuid": uuid, "timestamp": "2026-02-22T20:37:52.455Z",
        "message": {"role": kind, "content": content}
    });
    if let (Value::Object(o), Value::Object(e)) = (&mut v, extra) {
        o.extend(e);
    }
    v
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!([{"type": "tool_use", "id": id, "name": name, "input": input}])
}

fn tool_result(id: &str, text: &str) -> Value {
    json!([{"type": "tool_result", "tool_use_id": id, "content": text}])
}

/// Shapes 2, 3 and 12 on Claude Code: MCP JSON envelopes, a failed
/// background task read by TaskOutput, a sub-agent's API error; a file that
/// starts with a `file-history-snapshot` record is still read, and files
/// with no calls make at most one summary line.
#[test]
fn claude_code_envelopes_background_tasks_and_quiet_metadata_files() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-home-u-p");
    let snapshot = json!({"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"messageId": "m0", "trackedFileBackups": {}, "timestamp": "2026-02-22T20:37:52.460Z"}, "isSnapshotUpdate": false});
    let lines = vec![
        snapshot.clone(),
        claude_line(
            "u1",
            "assistant",
            tool_use("toolu_1", "mcp__serena__read_file", json!({"relative_path": "a.py"})),
            json!({}),
        ),
        claude_line(
            "u2",
            "user",
            tool_result(
                "toolu_1",
                "{\"result\":\"Error: No active project. Ask the user to provide the project path.\"}",
            ),
            json!({}),
        ),
        claude_line("u3", "assistant", tool_use("toolu_2", "mcp__index__search", json!({"query": "x"})), json!({})),
        claude_line(
            "u4",
            "user",
            tool_result(
                "toolu_2",
                "{\"success\":false,\"results\":[],\"message\":\"Query failed: Using SOCKS proxy, but the 'socksio' package is not installed.\"}",
            ),
            json!({}),
        ),
        claude_line("u5", "assistant", tool_use("toolu_3", "TaskOutput", json!({"task_id": "b07"})), json!({})),
        claude_line(
            "u6",
            "user",
            tool_result(
                "toolu_3",
                "<retrieval_status>success</retrieval_status>\n\n<task_id>b07</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<output>\nFAIL src/a.test.ts\n</output>",
            ),
            json!({}),
        ),
        claude_line(
            "u7",
            "assistant",
            tool_use("toolu_4", "Task", json!({"description": "d", "prompt": "p", "subagent_type": "general-purpose"})),
            json!({}),
        ),
        claude_line(
            "u8",
            "user",
            tool_result(
                "toolu_4",
                "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
            ),
            json!({}),
        ),
        claude_line("u9", "assistant", tool_use("toolu_5", "mcp__index__search", json!({"query": "y"})), json!({})),
        claude_line(
            "u10",
            "user",
            tool_result("toolu_5", "{\"success\":true,\"results\":[],\"error\":null}"),
            json!({}),
        ),
    ];
    write(&project.join("s1.jsonl"), &jsonl(&lines));
    // Metadata-only files: no calls, no warning each.
    for i in 0..3 {
        write(&project.join(format!("meta{i}.jsonl")), &jsonl(std::slice::from_ref(&snapshot)));
    }
    write(&project.join("empty1.jsonl"), "");
    write(&project.join("empty2.jsonl"), "\n");
    let out = run_in(dir.path(), &["export", project.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert!(warnings.len() <= 1, "one summary line at most: {warnings:?}");
    let rows = export(dir.path(), &project);
    let hidden = |id: &str| (rows[id]["hidden"].as_bool().unwrap(), rows[id]["category"].as_str().unwrap_or(""));
    assert_eq!(hidden("toolu_1"), (true, "not-found"), "Error: inside a result envelope");
    assert!(hidden("toolu_2").0, "success: false");
    assert_eq!(hidden("toolu_3"), (true, "tests-failed"), "a background test run that failed");
    assert_eq!(hidden("toolu_4"), (true, "server-error"));
    assert_eq!(rows["toolu_5"]["error"], false, "error: null is no error");
}

/// Shape 5: a side-question sub-agent replays its parent's calls; the
/// calls belong to the parent, even when the sub-agent's file is read first.
#[test]
fn claude_code_side_questions_leave_calls_to_their_parent() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-home-u-p");
    let line = |uuid: &str, kind: &str, content: Value, aside: bool| {
        let mut v = claude_line(uuid, kind, content, json!({"sessionId": "f1"}));
        if aside {
            v["isSidechain"] = json!(true);
            v["agentId"] = json!("aside_question-7a81");
        }
        v
    };
    let call = |aside, n: &str| {
        vec![
            line(&format!("{n}a"), "assistant", tool_use("toolu_9", "Bash", json!({"command": "ls"})), aside),
            line(&format!("{n}b"), "user", tool_result("toolu_9", "a.txt"), aside),
        ]
    };
    let mut aside = call(true, "x");
    aside.push(line("x3", "assistant", tool_use("toolu_10", "Read", json!({"file_path": "/p/a.txt"})), true));
    aside.push(line("x4", "user", tool_result("toolu_10", "     1\thello"), true));
    // The old layout puts the sub-agent beside its session: `agent-…` sorts first.
    write(&project.join("agent-aside_question-7a81.jsonl"), &jsonl(&aside));
    write(&project.join("f1.jsonl"), &jsonl(&call(false, "p")));
    let rows = export(dir.path(), &project);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows["toolu_9"]["session"], "f1", "the parent made the call");
    assert_eq!(rows["toolu_9"]["paired"], true);
    assert_eq!(rows["toolu_10"]["session"], "f1/agent-aside_question-7a81", "the side question's own call");
}

/// Issue 21: a side question replays its parent's lines under the same
/// uuids (and `isSidechain`), and may make calls of its own. Whichever file
/// is read first, a replayed call counts once, in the parent, and the side
/// question's own calls are a sub-agent's (left out by `--no-subagents`).
#[test]
fn claude_code_side_question_replays_keep_their_uuids() {
    for aside_name in ["agent-aside_question-7a81.jsonl", "zz/agent-aside_question-7a81.jsonl"] {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects/-home-u-p");
        let parent =
            |uuid: &str, kind: &str, content: Value| claude_line(uuid, kind, content, json!({"sessionId": "f1"}));
        let aside = |line: Value| {
            let mut v = line;
            v["isSidechain"] = json!(true);
            v["agentId"] = json!("aside_question-7a81");
            v
        };
        let p1 = parent("p1", "assistant", tool_use("toolu_9", "Bash", json!({"command": "ls"})));
        let p2 = parent("p2", "user", tool_result("toolu_9", "a.txt"));
        let own1 = aside(parent("x3", "assistant", tool_use("toolu_10", "Read", json!({"file_path": "/p/a.txt"}))));
        let own2 = aside(parent("x4", "user", tool_result("toolu_10", "     1\thello")));
        write(&project.join(aside_name), &jsonl(&[aside(p1.clone()), aside(p2.clone()), own1, own2]));
        write(&project.join("f1.jsonl"), &jsonl(&[p1, p2]));
        let rows = export(dir.path(), &project);
        assert_eq!(rows.len(), 2, "{aside_name}: {rows:?}");
        assert_eq!(rows["toolu_9"]["session"], "f1", "{aside_name}: the parent made the call");
        assert_eq!(rows["toolu_9"]["paired"], true);
        assert_eq!(rows["toolu_10"]["session"], "f1/agent-aside_question-7a81");
        let out = run_in(dir.path(), &["export", project.to_str().unwrap(), "--no-subagents"]);
        let ids: Vec<String> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["call_id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, ["toolu_9"], "{aside_name}: the side question's own call is a sub-agent's");
    }
}

/// Shape 1 (older Gemini CLI): a `/chat save` checkpoint is the model's
/// history, calls as `functionCall` parts without ids and results as
/// `functionResponse` parts with them; `response.error` is the flag.
#[test]
fn gemini_checkpoints_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let history = json!([
        {"role": "user", "parts": [{"text": "build it"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {"command": "go test ./..."}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "run_shell_command-1752307549897-f4c7", "name": "run_shell_command",
            "response": {"output": "Command: go test ./...\nDirectory: (root)\nStdout: FAIL\tportfolio [build failed]\nFAIL\n\nStderr: ./main.go:16:2: undefined: x\n\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 75404"}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"absolute_path": "/p/nope.go"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "read_file-1752307600000-aa", "name": "read_file",
            "response": {"error": "File not found: /p/nope.go"}}}]}
    ]);
    let file = dir.path().join("tmp/e3d0d1de/checkpoint-dev.json");
    write(&file, &serde_json::to_string(&history).unwrap());
    let rows = export(dir.path(), &file);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let test = &rows["run_shell_command-1752307549897-f4c7"];
    assert_eq!((test["hidden"].as_bool(), test["category"].as_str()), (Some(true), Some("build-failed")));
    let read = &rows["read_file-1752307600000-aa"];
    assert_eq!((read["flagged"].as_bool(), read["category"].as_str()), (Some(true), Some("not-found")));
}

/// Issue 21, the founding postmortem's case: a framework's custom tools
/// that return their failure as an ordinary result, in the shapes real
/// framework stores hold (written here, not copied from any trace), next
/// to results that only mention a problem and a benign exit.
#[test]
fn custom_tools_of_a_framework_are_judged_by_what_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, Value, &str, Option<i64>, bool)] = &[
        (
            "send_booking_notification",
            json!({"booking": 7}),
            "Notification trigger failed with status: 429",
            None,
            true,
        ),
        (
            "run_python",
            json!({"code": "rows['a']"}),
            r#"{"stdout": "", "stderr": "Traceback (most recent call last):\n  File \"job.py\", line 2\nKeyError: 'a'", "exit_code": 1}"#,
            None,
            true,
        ),
        ("lookup_customer", json!({"id": "c9"}), r#"{"error": "customer c9 not found"}"#, None, true),
        (
            "query_warehouse",
            json!({"sql": "SELECT"}),
            "### Error Querying the warehouse\n\nsyntax error at or near \"FROM\"",
            None,
            true,
        ),
        ("load_report", json!({"name": "q3.csv"}), "错误: 文件 q3.csv 不存在。", None, true),
        ("execute_sql", json!({"sql": "SELEC 1"}), "SQL执行失败: syntax error at position 1", None, true),
        ("stock_analyst", json!({"q": "ACME"}), "I encountered an error while fetching the stock price.", None, true),
        (
            "send_email",
            json!({"to": "a@b.c"}),
            "Failed to send email: SMTPServerDisconnected('Connection unexpectedly closed')",
            None,
            true,
        ),
        ("summarize_logs", json!({}), "Errors found: none. 3 warnings, all known.", None, false),
        ("code_reviewer", json!({}), "I couldn't find any issues in the code; it looks correct.", None, false),
        ("get_weather", json!({"city": "Oslo"}), "{\"temp\": 4, \"error\": null}", None, false),
        ("run_shell", json!({"command": "pgrep -f vite"}), "", Some(1), false),
    ];
    let mut sql = String::from(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_id TEXT, agent TEXT, source TEXT, started_at TEXT);
         CREATE TABLE calls (session_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, tool TEXT NOT NULL,
           input TEXT, called_at TEXT, PRIMARY KEY (session_id, id));
         CREATE TABLE results (session_id TEXT NOT NULL, call_id TEXT NOT NULL, text TEXT NOT NULL DEFAULT '',
           is_error INTEGER, exit_code INTEGER, returned_at TEXT, PRIMARY KEY (session_id, call_id));
         CREATE TABLE falseok_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO falseok_meta VALUES ('schema_version', '1');
         INSERT INTO sessions VALUES ('s1', NULL, 'langgraph', NULL, '2026-06-01T10:00:00Z');\n",
    );
    for (k, (tool, input, text, exit, _)) in cases.iter().enumerate() {
        let q = |s: &str| s.replace('\'', "''");
        sql.push_str(&format!(
            "INSERT INTO calls VALUES ('s1', 'c{k}', {k}, '{tool}', '{}', NULL);
             INSERT INTO results VALUES ('s1', 'c{k}', '{}', 0, {}, NULL);\n",
            q(&input.to_string()),
            q(text),
            exit.map_or("NULL".to_string(), |c| c.to_string())
        ));
    }
    let db = db_from_sql(dir.path(), "framework.db", &sql);
    let out = run_in(dir.path(), &["scan", db.to_str().unwrap(), "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let v = json_of(&out);
    for (tool_name, _, text, _, failed) in cases {
        let hidden = tool(&v, tool_name)["hidden_errors"].as_u64().unwrap();
        assert_eq!(hidden, u64::from(*failed), "{tool_name}: {text:?}");
    }
    let wanted = cases.iter().filter(|c| c.4).count() as u64;
    assert_eq!(totals(&v).2, wanted);
    assert_eq!(tool(&v, "send_booking_notification")["categories"], json!({"rate-limit": 1}));
    assert_eq!(tool(&v, "lookup_customer")["categories"], json!({"not-found": 1}));
    assert_eq!(tool(&v, "query_warehouse")["categories"]["other"], Value::Null, "classified");
}
