//! The agents added in issue 27, each on its shipped sample (hand-counted,
//! golden) and on a held-out fixture of its real format: GitHub Copilot
//! CLI, Qwen Code, Pi, Kiro CLI and Aider (Kilo, a database, is in
//! `adapters`).

use crate::util::*;
use serde_json::json;

#[test]
fn copilot_cli_session_folder() {
    let out = run_in(root(), &["scan", "sample-traces/copilot", "--format", "json"]);
    assert_eq!(stderr(&out), "", "workspace.yaml is not a transcript and is passed over");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "copilot");
    assert_eq!(
        totals(&v),
        (16, 4, 4),
        "success:false ×3 and a denial at the prompt are flagged; exit 101, exit 2, a refused view and an \
         empty fetch are hidden"
    );
    assert_eq!(v["totals"]["unpaired_calls"], 0, "the denied call, which has no completion, is a failure");
    assert_eq!(tool(&v, "create")["categories"], json!({"user-rejected": 1}));
    assert_eq!(tool(&v, "edit")["categories"], json!({"edit-match-not-found": 1}), "the stored label No match found");
    assert_eq!(tool(&v, "view")["categories"], json!({"not-found": 1, "resource-exhausted": 1}));
    assert_eq!(tool(&v, "bash")["categories"], json!({"nonzero-exit": 1, "tests-failed": 1}));
    assert_eq!(tool(&v, "glob")["errors"], 0, "No files matched the pattern. is a search that found nothing");
    assert_eq!(v["totals"]["sessions"], 2, "the explore sub-agent is a session of its own");
    let top = scan_json(&["sample-traces/copilot"], &["--no-subagents"]);
    assert_eq!(totals(&top), (14, 3, 4), "the sub-agent's grep (rg: unrecognized file type) is its own");
}

/// A held-out file of another generation: the flat legacy layout, the
/// `<exited with exit code N>` marker, PowerShell, a denial by rule with no
/// completion, a denial with feedback (a flagged completion).
#[test]
fn copilot_cli_held_out() {
    let v = scan_json(&["tests/fixtures/copilot"], &[]);
    assert_eq!(totals(&v), (8, 3, 2));
    assert_eq!(
        tool(&v, "powershell")["categories"],
        json!({"nonzero-exit": 1, "permission-denied": 1, "tests-failed": 1}),
        "Select-String finding nothing (exit 1) is benign"
    );
    assert_eq!(tool(&v, "str_replace_editor")["categories"], json!({"user-rejected": 1}));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "a call with no completion and no denial is unpaired");
}

/// The document layout before the event log (0.0.3xx,
/// `history-session-state/session_<id>_<ms>.json`), written here from the
/// CLI's own schema: OpenAI chat messages, the flag in the timeline's
/// completion of each call.
#[test]
fn copilot_cli_history_documents() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(".copilot/history-session-state");
    std::fs::create_dir_all(&folder).unwrap();
    let call = |id: &str, tool: &str, args: serde_json::Value| json!({"id": id, "type": "function", "function": {"name": tool, "arguments": args.to_string()}});
    let done = |id: &str, kind: &str| {
        json!({"id": format!("t-{id}"), "timestamp": "2025-10-05T10:00:02.000Z", "type": "tool_call_completed",
               "callId": id, "name": "x", "intentionSummary": null, "result": {"type": kind, "log": ""}})
    };
    let doc = json!({
        "sessionId": "0b5e", "startTime": "2025-10-05T10:00:00.000Z",
        "chatMessages": [
            {"role": "system", "content": "You are"},
            {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": null, "tool_calls": [
                call("a", "bash", json!({"command": "cargo test"})),
                call("b", "view", json!({"path": "/p/missing.rs"})),
                call("c", "bash", json!({"command": "rm -rf /tmp/x"})),
                call("d", "bash", json!({"command": "ls"}))
            ]},
            {"role": "tool", "tool_call_id": "a", "content": "test result: FAILED. 3 passed; 1 failed\n<exited with exit code 101>"},
            {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "Path does not exist"}]},
            {"role": "tool", "tool_call_id": "c", "content": "The user rejected this tool call."},
            {"role": "tool", "tool_call_id": "d", "content": "src\n<exited with exit code 0>"}
        ],
        "timeline": [done("a", "success"), done("b", "failure"), done("c", "rejected"), done("d", "success")]
    });
    std::fs::write(folder.join("session_0b5e_1759658400000.json"), doc.to_string()).unwrap();
    let out = run_in(root(), &["scan", dir.path().join(".copilot").to_str().unwrap(), "--format", "json"]);
    assert_eq!(stderr(&out), "");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "copilot");
    assert_eq!(totals(&v), (4, 2, 1), "failure and rejected are flagged; exit 101 under success is hidden");
    assert_eq!(tool(&v, "bash")["categories"], json!({"tests-failed": 1, "user-rejected": 1}));
    assert_eq!(tool(&v, "view")["categories"], json!({"not-found": 1}));
    assert_eq!(v["totals"]["unpaired_calls"], 0);
}

#[test]
fn qwen_code_chats() {
    let out = run_in(root(), &["scan", "sample-traces/qwen", "--format", "json"]);
    assert_eq!(stderr(&out), "", "the sub-agent's meta.json is claimed, not named");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "qwen");
    assert_eq!(
        totals(&v),
        (15, 5, 3),
        "the rewound turn's call is dropped; status error/cancelled and a sub-agent's error key are flagged; \
         exit 1, a timeout and ripgrep's own error are hidden"
    );
    assert_eq!(tool(&v, "write_file")["categories"], json!({"user-rejected": 1}), "User did not allow tool call");
    assert_eq!(tool(&v, "run_shell_comand")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(tool(&v, "edit")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(v["totals"]["sessions"], 2, "subagents/<session>/agent-<id>.jsonl is a session of its own");
    let top = scan_json(&["sample-traces/qwen"], &["--no-subagents"]);
    assert_eq!(totals(&top), (13, 4, 3));
}

/// Issue 27: a Qwen Code chat is never read as Claude Code's, though its
/// records carry `uuid`, `parentUuid` and `sessionId`; beside Claude Code
/// transcripts each is read as its own agent's.
#[test]
fn qwen_code_is_never_claude_code() {
    let dir = tempfile::tempdir().unwrap();
    let chat = "sample-traces/qwen/projects/-home-dev-shop/chats/5b0c3f0e-1a2b-4c3d-8e9f-0123456789ab.jsonl";
    std::fs::copy(root().join(chat), dir.path().join("a.jsonl")).unwrap();
    let claude = std::fs::read_dir(root().join("sample-traces/claude-code")).unwrap();
    let first = claude.map(|e| e.unwrap().path()).find(|p| p.is_dir()).unwrap();
    copy_tree(&first, &dir.path().join("claude"));
    let v = json(&run_in(dir.path(), &["scan", ".", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "jsonl", "two agents in one folder");
    let alone = json(&run_in(dir.path(), &["scan", "a.jsonl", "--format", "json"]));
    assert_eq!(alone["sources"][0]["format"], "qwen");
    assert_eq!(alone["totals"]["calls"], 13);
    let forced = run_in(dir.path(), &["scan", "a.jsonl", "--source-format", "claude-code", "--format", "json"]);
    assert_eq!(json(&forced)["totals"]["calls"], 0, "read as Claude Code only when forced, and then nothing is a call");
}

/// A held-out chat of Qwen Code 0.13: a cancelled write only the telemetry
/// records, a rewound turn, a side file, and a chat from before 0.4.
#[test]
fn qwen_code_held_out() {
    let out = run_in(root(), &["scan", "tests/fixtures/qwen", "--format", "json"]);
    assert_eq!(stderr(&out), "", "runtime.json and the legacy chat are Qwen Code's");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "qwen");
    assert_eq!(totals(&v), (5, 2, 2), "git reset --hard on the rewound branch is not counted");
    assert_eq!(tool(&v, "write_file")["categories"], json!({"user-rejected": 1}), "telemetry: canceled by the user");
    assert_eq!(tool(&v, "grep_search")["errors"], 0, "No matches found is a search that found nothing");
    assert_eq!(v["totals"]["unpaired_calls"], 0);
}

/// A Qwen Code sub-agent stopped by its turn limit: an empty output under
/// `status: success`, and only its display says `failed` (qwen-code's
/// task tool, `terminateReason: MAX_TURNS`): a hidden error in the display's
/// words. One that completed is a success.
#[test]
fn a_qwen_subagent_stopped_by_its_limit_is_a_hidden_error() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("projects/-w/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let record = |uuid: &str, parent: &str, kind: &str, rest: &str| {
        format!(
            r#"{{"uuid": "{uuid}", "parentUuid": {parent}, "sessionId": "s1", "timestamp": "2026-03-02T10:0{}:00.000Z", "type": "{kind}", "cwd": "/w", "version": "0.21.0", {rest}}}"#,
            &uuid[1..]
        )
    };
    let call = |id: &str| {
        format!(
            r#""message": {{"role": "model", "parts": [{{"functionCall": {{"id": "{id}", "name": "task", "args": {{"description": "d", "prompt": "p", "subagent_type": "general-purpose"}}}}}}]}}"#
        )
    };
    let result = |id: &str, output: &str, display: &str| {
        format!(
            r#""message": {{"role": "user", "parts": [{{"functionResponse": {{"id": "{id}", "name": "task", "response": {{"output": "{output}"}}}}}}]}}, "toolCallResult": {{"callId": "{id}", "status": "success", "resultDisplay": {display}}}"#
        )
    };
    let lines = [
        record("r1", "null", "user", r#""message": {"role": "user", "parts": [{"text": "go"}]}"#),
        record("r2", r#""r1""#, "assistant", &call("c1")),
        record(
            "r3",
            r#""r2""#,
            "tool_result",
            &result("c1", "", r#"{"type": "task_execution", "status": "failed", "terminateReason": "MAX_TURNS"}"#),
        ),
        record("r4", r#""r3""#, "assistant", &call("c2")),
        record(
            "r5",
            r#""r4""#,
            "tool_result",
            &result(
                "c2",
                "Found the bug in cart.py.",
                r#"{"type": "task_execution", "status": "completed", "terminateReason": "GOAL"}"#,
            ),
        ),
    ];
    std::fs::write(chats.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let v = scan_json(&[dir.path().to_str().unwrap()], &[]);
    assert_eq!(v["sources"][0]["format"], "qwen");
    assert_eq!(totals(&v), (2, 0, 1), "the status says success: a hidden error, in the display's words");
    assert_eq!(tool(&v, "task")["categories"], json!({"resource-exhausted": 1}), "its turn limit");
    let out = run_in(dir.path(), &["export", ".", "--no-index"]);
    let first: serde_json::Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!((&first["error"], &first["hidden"]), (&json!(true), &json!(true)));
    assert!(stdout(&out).contains("Subagent failed: MAX_TURNS"), "{}", stdout(&out));
}

#[test]
fn pi_sessions() {
    let out = run_in(root(), &["scan", "sample-traces/pi", "--format", "json"]);
    assert_eq!(stderr(&out), "");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "pi");
    assert_eq!(
        totals(&v),
        (18, 9, 2),
        "the branch left with /tree is not counted; pi flags bash exits (grep's exit 1 too: the flag is the \
         store's); a build failure under | tail and a sub-agent's 429 are hidden"
    );
    assert_eq!(tool(&v, "subagent")["categories"], json!({"rate-limit": 1}), "Agent error: 429 …");
    assert_eq!(tool(&v, "edit")["categories"], json!({"edit-match-not-found": 1, "missing-required-param": 1}));
    assert_eq!(tool(&v, "todo_write")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(tool(&v, "bash")["categories"]["user-rejected"], 2, "Blocked by user, Command aborted");
}

/// A held-out pair: a version-1 session and its /fork (whose copied calls
/// count once), a message aborted with two calls that never ran.
#[test]
fn pi_held_out() {
    let v = scan_json(&["tests/fixtures/pi"], &[]);
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(
        totals(&v),
        (6, 3, 1),
        "the fork's copies of toolu_p1/p2 are not counted again; the two calls of the aborted message never ran"
    );
    assert_eq!(tool(&v, "read")["categories"], json!({}), "aborted before it ran: no result, not flagged");
    assert_eq!(tool(&v, "write")["categories"], json!({"permission-denied": 1}));
    assert_eq!(v["totals"]["unpaired_calls"], 2, "the aborted message's calls have no result (LABELS.md: none)");
}

#[test]
fn kiro_cli_sessions() {
    let out = run_in(root(), &["scan", "sample-traces/kiro", "--format", "json"]);
    assert_eq!(stderr(&out), "", "the <id>.json metadata is read with its journal, not named");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "kiro");
    assert_eq!(
        totals(&v),
        (19, 6, 5),
        "status error ×6 (a refusal among them); exit 101, exit 1, a glob's {{\"error\"}}, use_aws 255 and an \
         MCP isError are hidden; the compaction's copy of a call is not counted"
    );
    assert_eq!(tool(&v, "write")["categories"], json!({"edit-match-not-found": 1, "edit-match-not-unique": 1}));
    assert_eq!(tool(&v, "fs_delete")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(tool(&v, "glob")["categories"], json!({"not-found": 1}));
    assert_eq!(tool(&v, "shell")["categories"]["user-rejected"], 1, "Tool use was cancelled by the user");
    assert_eq!(v["totals"]["sessions"], 2, "the sub-agent's session names its parent_session_id");
    let top = scan_json(&["sample-traces/kiro"], &["--no-subagents"]);
    assert_eq!(top["totals"]["calls"], 17);
}

/// A held-out `/chat save` export: its log entries are the session.
#[test]
fn kiro_cli_held_out() {
    let v = scan_json(&["tests/fixtures/kiro"], &[]);
    assert_eq!(v["sources"][0]["format"], "kiro");
    assert_eq!(totals(&v), (5, 1, 2), "mkdocs exit 2 and an MCP isError are hidden; grep exit 1 is benign");
    assert_eq!(tool(&v, "grep")["errors"], 0, "No matches found");
}

#[test]
fn aider_chat_history() {
    let out = run_in(root(), &["scan", "sample-traces/aider", "--format", "json"]);
    assert_eq!(stderr(&out), "");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "aider");
    assert_eq!(
        totals(&v),
        (18, 5, 2),
        "14 SEARCH/REPLACE blocks and 4 shell prompts; a block that failed to match, a parse error, a skipped \
         file, a declined command and a ^C are flagged; a command's exit status 1 and its Errno are hidden"
    );
    assert_eq!(v["totals"]["sessions"], 2, "one per `# aider chat started at`");
    assert_eq!(
        v["totals"]["unpaired_calls"], 1,
        "the block aider dropped after adding a mentioned file to the chat got no verdict"
    );
    let edit = tool(&v, "edit");
    assert_eq!((edit["calls"].as_u64(), edit["errors"].as_u64()), (Some(14), Some(4)));
    assert_eq!(edit["categories"]["edit-match-not-found"], 1, "SearchReplaceNoExactMatch");
    assert_eq!(tool(&v, "shell")["calls"], 4, "/run and /test are not calls");
}

/// A held-out history of aider 0.50 under another name: the failure
/// message quoted line by line, `--yes-always` declining a command, a file
/// the user would not let aider edit, and an `/ask` reply whose block is
/// never applied (not a call).
#[test]
fn aider_held_out() {
    let v = scan_json(&["tests/fixtures/aider/history.md"], &[]);
    assert_eq!(v["sources"][0]["format"], "aider");
    assert_eq!(totals(&v), (4, 3, 0));
    assert_eq!(tool(&v, "edit")["categories"], json!({"edit-match-not-found": 1, "user-rejected": 1}));
    assert_eq!(tool(&v, "shell")["categories"], json!({"permission-denied": 1}), "--yes-always answers no");
    assert_eq!(v["totals"]["unpaired_calls"], 0);
}

/// Issue 27: every new store is found at its default location by a scan
/// with no PATH (a fresh home, nothing else), and `formats` marks it found.
#[test]
fn the_new_stores_are_read_from_their_default_locations() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let work = h.join("work");
    copy_tree(&root().join("sample-traces/copilot/session-state"), &h.join(".copilot/session-state"));
    copy_tree(&root().join("sample-traces/qwen/projects"), &h.join(".qwen/projects"));
    copy_tree(&root().join("sample-traces/pi"), &h.join(".pi/agent/sessions"));
    copy_tree(&root().join("sample-traces/kiro/sessions/cli"), &h.join(".kiro/sessions/cli"));
    std::fs::create_dir_all(h.join("data/kilo")).unwrap();
    std::fs::copy(root().join("sample-traces/kilo.db"), h.join("data/kilo/kilo.db")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(root().join("sample-traces/aider/.aider.chat.history.md"), work.join(".aider.chat.history.md"))
        .unwrap();
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(args).current_dir(&work).env("HOME", h).env("XDG_DATA_HOME", h.join("data"));
        cmd.env("XDG_CONFIG_HOME", h.join("config"));
        for var in
            ["COPILOT_HOME", "QWEN_HOME", "QWEN_RUNTIME_DIR", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"]
        {
            cmd.env_remove(var);
        }
        for var in ["KIRO_HOME", "KILO_DB", "CODEX_HOME", "LLM_USER_PATH"] {
            cmd.env_remove(var);
        }
        cmd.output().unwrap()
    };
    let v = json(&run(&["scan", "--format", "json"]));
    let mut formats: Vec<&str> =
        v["sources"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    formats.sort_unstable();
    assert_eq!(formats, ["aider", "copilot", "kilo", "kiro", "pi", "qwen"]);
    let listing = stdout(&run(&["formats"]));
    for found in [
        "~/.copilot/session-state  [found]",
        "~/.qwen/projects  [found]",
        "~/.pi/agent/sessions  [found]",
        "~/.kiro/sessions/cli  [found]",
        "(~/.local/share/kilo/kilo.db)  [found]",
        "./.aider.chat.history.md  [found]",
    ] {
        assert!(listing.contains(found), "{found} in\n{listing}");
    }
}

/// Claude Code 2.1 warms its sub-agents up: a sidechain whose prompt is
/// `Warmup`, whose tool calls the harness answers `Warmup` with
/// `is_error: true`. They are calls, flagged, in the `warmup` category
/// (cause class `harness`): never hidden, never `other`, never
/// `nonzero-exit` (LABELS.md: rejected by the harness).
#[test]
fn claude_code_warmup_calls_have_a_category_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let line = |uuid: &str, kind: &str, message: serde_json::Value| {
        serde_json::json!({"parentUuid": null, "isSidechain": true, "userType": "external", "cwd": "/home/u/p",
            "sessionId": "5e1f0000-0000-4000-8000-000000000001", "version": "2.1.2", "agentId": "a1b2c3d",
            "uuid": uuid, "timestamp": "2026-11-02T10:00:00.000Z", "type": kind, "message": message})
        .to_string()
    };
    let lines = [
        line("w-1", "user", serde_json::json!({"role": "user", "content": "Warmup"})),
        line(
            "w-2",
            "assistant",
            serde_json::json!({"id": "msg_w1", "type": "message", "role": "assistant",
            "model": "claude-haiku-4-5", "content": [
                {"type": "tool_use", "id": "toolu_w1", "name": "Bash", "input": {"command": "ls -la"}},
                {"type": "tool_use", "id": "toolu_w2", "name": "Glob", "input": {"pattern": "**/*.md"}}]}),
        ),
        line(
            "w-3",
            "user",
            serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_w1", "content": "Warmup", "is_error": true}]}),
        ),
        line(
            "w-4",
            "user",
            serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_w2", "content": "Warmup", "is_error": true}]}),
        ),
    ];
    let folder = dir.path().join("-home-u-p");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("agent-a1b2c3d.jsonl"), lines.join("\n") + "\n").unwrap();
    let v = json(&run_in(dir.path(), &["scan", "./-home-u-p", "--format", "json"]));
    assert_eq!(v["totals"]["calls"], 2);
    assert_eq!(v["totals"]["flagged_errors"], 2);
    assert_eq!(v["totals"]["hidden_errors"], 0);
    for tool in v["tools"].as_array().unwrap() {
        assert_eq!(tool["categories"], serde_json::json!({"warmup": 1}), "{tool}");
        assert_eq!(tool["classes"], serde_json::json!({"harness": 1}), "{tool}");
    }
}
