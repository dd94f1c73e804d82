//! Agents whose traces are JSON files in folders: OpenHands (one file per
//! event), Cline / Roo Code (VS Code task folders) and Continue (one
//! session per file), on the shipped samples and a held-out set.

use crate::util::*;
use serde_json::json;

#[test]
fn openhands_conversation_folder() {
    let v = scan_json(&["sample-traces/openhands"], &[]);
    assert_eq!(v["sources"][0]["format"], "openhands");
    assert_eq!(
        totals(&v),
        (7, 3, 2),
        "exit 101 with is_error false is hidden, and so is a command the soft wait left running; grep exit 1 is no error"
    );
    assert_eq!(tool(&v, "execute_bash")["categories"], json!({"build-failed": 1, "timeout": 1, "user-rejected": 1}));
    assert_eq!(tool(&v, "str_replace_editor")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(tool(&v, "browser")["flagged_errors"], 1, "an AgentErrorEvent is a flagged result");
}

#[test]
fn openhands_held_out() {
    let out = run_in(root(), &["scan", "tests/fixtures/openhands", "--format", "json"]);
    assert!(
        stderr(&out).contains("event-00007-o4.json: not a whole JSON document (cut or broken?), skipped"),
        "{}",
        stderr(&out)
    );
    let v = json(&out);
    assert_eq!(totals(&v), (4, 1, 1), "pytest exit 1 (metadata.exit_code) is hidden, rg exit 1 is benign");
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the cut observation leaves its call unpaired");
}

#[test]
fn cline_task_folders_legacy_xml_and_native() {
    let out = run_in(root(), &["scan", "sample-traces/cline", "--format", "json"]);
    assert_eq!(stderr(&out), "", "ui_messages.json and task_metadata.json are claimed, not named");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "cline");
    assert_eq!(totals(&v), (8, 1, 3), "legacy XML results carry no flag: every failure in them is hidden");
    assert_eq!(tool(&v, "read_file")["categories"], json!({"missing-required-param": 1, "not-found": 1}));
    assert_eq!(tool(&v, "replace_in_file")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(tool(&v, "write_to_file")["categories"], json!({"user-rejected": 1}));
    assert_eq!(tool(&v, "execute_command")["errors"], 0);
}

/// Issue 21, then 47: a Cline UI log committed without its task folder's
/// conversation is read on its own. Each call is a `tool`, `command`,
/// `use_mcp_server` or `completion_result` message; its result is the
/// `[tool for '…'] Result:` block of the next API request. The log keeps no
/// flag, so every failure in it is a hidden error.
#[test]
fn a_cline_ui_log_alone_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let req = |text: &str| {
        json!({"request": format!("{text}\n\n<environment_details>\n# VSCode Visible Files\n</environment_details>")})
            .to_string()
    };
    let ui = json!([
        {"ts": 1760534080239_u64, "type": "say", "say": "text", "text": "list the files"},
        {"ts": 2, "type": "say", "say": "tool", "text": "{\"tool\":\"readFile\",\"path\":\"a.txt\"}"},
        {"ts": 3, "type": "say", "say": "api_req_started", "text": req("[read_file for 'a.txt'] Result:\nhello")},
        {"ts": 4, "type": "say", "say": "command", "text": "npm run build"},
        {"ts": 5, "type": "ask", "say": null, "ask": "command_output", "text": "npm ERR! code 1"},
        {"ts": 6, "type": "say", "say": "api_req_started", "text": req("[execute_command for 'npm run build'] Result:\nCommand executed.\nOutput:\n> build\nnpm ERR! code 1\nnpm ERR! Lifecycle script `build` failed")},
        {"ts": 7, "type": "ask", "ask": "tool", "text": "{\"tool\":\"editedExistingFile\",\"path\":\"b.txt\",\"diff\":\"-a\\n+b\"}"},
        {"ts": 8, "type": "say", "say": "api_req_started", "text": req("[write_to_file for 'b.txt'] Result:\nThe user denied this operation.")},
        {"ts": 9, "type": "ask", "ask": "use_mcp_server", "text": "{\"type\":\"use_mcp_tool\",\"serverName\":\"vscode\",\"toolName\":\"open_explorer\",\"arguments\":\"{}\"}"},
        {"ts": 10, "type": "say", "say": "mcp_server_response", "text": "Error: VSCode extension not connected"},
        {"ts": 11, "type": "say", "say": "api_req_started", "text": req("[use_mcp_tool for 'vscode'] Result:\nThe tool execution failed with the following error:\n<error>\nVSCode extension not connected\n</error>")},
        {"ts": 12, "type": "say", "say": "completion_result", "text": "Done."},
        {"ts": 13, "type": "say", "say": "checkpoint_created", "text": ""},
        {"ts": 14, "type": "ask", "ask": "completion_result", "text": ""}
    ]);
    std::fs::create_dir(dir.path().join("task")).unwrap();
    std::fs::write(dir.path().join("task/ui_messages.json"), ui.to_string()).unwrap();
    let out = run_in(dir.path(), &["scan", "task", "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "a UI log alone is read, not named as skipped");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sources"][0]["format"], "cline");
    // readFile, the build, the denied edit, the MCP call and one attempt_completion (its say and ask).
    assert_eq!(totals(&v), (5, 0, 3), "no flag in a UI log: each failure is hidden");
    assert_eq!(tool(&v, "execute_command")["errors"], 1, "npm ERR! with no exit status");
    assert_eq!(tool(&v, "write_to_file")["categories"], json!({"user-rejected": 1}), "named by its result's header");
    assert_eq!(tool(&v, "use_mcp_tool")["errors"], 1);
    assert_eq!(tool(&v, "read_file")["errors"], 0);
    let show = run_in(dir.path(), &["show", "1760534080239", "task"]);
    assert!(String::from_utf8_lossy(&show.stdout).contains("attempt_completion"), "{}", stderr(&show));
    // A UI log with no messages is named for what it is, never a silent 0.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("empty/ui_messages.json"), "[]").unwrap();
    let out = run_in(dir.path(), &["scan", "empty"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("holds only Cline or Roo Code UI logs (ui_messages.json) with no messages"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn roo_code_status_json_and_subtasks() {
    let v = scan_json(&["sample-traces/roo-code"], &[]);
    assert_eq!(v["sources"][0]["format"], "roo-code");
    assert_eq!(totals(&v), (6, 1, 3), "{{\"status\":\"error\"}} and {{\"status\":\"denied\"}} are unflagged");
    assert_eq!(tool(&v, "execute_command")["categories"], json!({"user-rejected": 1}));
    assert_eq!(tool(&v, "apply_diffs")["categories"], json!({"unknown-tool": 1}), "is_error only where it never ran");
    let top = scan_json(&["sample-traces/roo-code"], &["--no-subagents"]);
    assert_eq!(totals(&top), (4, 1, 2), "parentTaskId makes the sub-task a sub-agent");
}

#[test]
fn cline_sdk_sessions_held_out() {
    let out = run_in(root(), &["scan", "tests/fixtures/cline", "--format", "json"]);
    let err = stderr(&out);
    assert!(
        err.contains("api_conversation_history.json: not a whole JSON document (cut or broken?), skipped"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "the session manifest is claimed: {err}");
    let v = json(&out);
    assert_eq!(totals(&v), (4, 1, 1), "the teammate's `Error: …` is hidden");
    assert_eq!(v["totals"]["unpaired_calls"], 1);
    assert_eq!(v["totals"]["sessions"], 2, "a teammate transcript is its own session");
    let top = scan_json(&["tests/fixtures/cline"], &["--no-subagents"]);
    assert_eq!(totals(&top), (3, 1, 0));
}

#[test]
fn continue_sessions() {
    let out = run_in(root(), &["scan", "sample-traces/continue", "--format", "json"]);
    assert_eq!(stderr(&out), "", "the sessions.json index is claimed, not named");
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "continue");
    assert_eq!(
        totals(&v),
        (7, 2, 1),
        "`Command failed with exit code 2` in a `done` state is hidden; grep exit 1 is not"
    );
    assert_eq!(tool(&v, "run_terminal_command")["categories"], json!({"build-failed": 1}));
    assert_eq!(tool(&v, "edit_existing_file")["categories"], json!({"not-found": 1}));
    assert_eq!(tool(&v, "create_new_file")["categories"], json!({"user-rejected": 1}), "canceled");
    assert_eq!(v["totals"]["unpaired_calls"], 1, "a call still `generated` has no result");
}

#[test]
fn many_foreign_json_files_are_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = root().join("sample-traces/continue/sessions");
    for e in std::fs::read_dir(&sessions).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    for i in 0..4 {
        std::fs::write(dir.path().join(format!("logs-{i}.json")), "[{\"note\": 1}]").unwrap();
    }
    let out = run_in(dir.path(), &["scan", ".", "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("4 files are empty or not a ") && err.contains("(first: ./logs-0.json)"), "{err}");
    assert_eq!(totals(&json(&out)), (7, 2, 1));
}
