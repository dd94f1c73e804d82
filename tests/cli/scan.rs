//! The binary on fixture databases built from SQL text.

use crate::util::*;
use serde_json::json;

fn small() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    (dir, db)
}

#[test]
fn small_fixture_totals() {
    let (dir, _) = small();
    let v = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    assert_eq!(v["schema_version"], 10);
    assert_eq!(
        v["sources"],
        json!([{"path": "threads.db", "format": "peri", "sessions": 3, "calls": 13,
                "results": 12, "results_with_text": 12, "content_coverage": 1.0}])
    );
    assert_eq!(
        v["totals"],
        json!({"sessions": 3, "calls": 13, "unpaired_calls": 1, "orphan_results": 1, "duplicate_call_ids": 1,
               "errors": 6, "flagged_errors": 4, "content_errors": 5, "hidden_errors": 2, "flag_only_errors": 1})
    );
    let tool = |name: &str| v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == name).unwrap().clone();
    assert_eq!(tool("Agent")["calls"], 3);
    assert_eq!(tool("Agent")["hidden_errors"], 1);
    assert_eq!(tool("Agent")["categories"], json!({"missing-required-param": 2}));
    assert_eq!(tool("Edit")["categories"], json!({"edit-match-not-found": 1, "stale-edit-match": 1}));
    assert_eq!(tool("Task")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(tool("Bash")["categories"], json!({"nonzero-exit": 1}), "a flagged shell result no rule knows");
    assert_eq!(tool("AgentResult")["errors"], 0, "ExecuteExtraTool counted under the real tool");
    assert_eq!(tool("Read")["errors"], 0, "a Read of a log full of error words is a success");
    assert_eq!(tool("Grep")["errors"], 0, "grep output listing `Error:` lines is a success");
    let rules: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    for r in ["hidden-error", "unpaired-call", "orphan-result", "duplicate-call-id", "malformed-row"] {
        assert!(rules.contains(&r), "missing finding {r}: {rules:?}");
    }
}

#[test]
fn small_fixture_golden_json() {
    let (dir, _) = small();
    let out = run_in(dir.path(), &["scan", "threads.db", "--format", "json"]);
    assert_golden("peri_small.json", &stdout(&out));
}

#[test]
fn small_fixture_golden_table() {
    let (dir, _) = small();
    let out = run_in(dir.path(), &["scan", "threads.db"]);
    assert!(out.status.success());
    assert_golden("peri_small.txt", &stdout(&out));
    assert!(!stdout(&out).contains('\u{1b}'), "no colour when stdout is not a terminal");
    assert!(stderr(&out).contains(": 1 row skipped or repaired"), "malformed rows are reported once: {}", stderr(&out));
}

#[test]
fn subagents_are_included_unless_excluded() {
    let (dir, _) = small();
    let all = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    let roots = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json", "--no-subagents"]));
    assert_eq!(all["totals"]["calls"], 13);
    assert_eq!(roots["totals"]["calls"], 11);
    assert_eq!(roots["totals"]["unpaired_calls"], 0, "the unpaired Bash call lives in the sub-agent");
}

#[test]
fn filters() {
    let (dir, _) = small();
    let run = |extra: &[&str]| {
        let mut args = vec!["scan", "threads.db", "--format", "json"];
        args.extend_from_slice(extra);
        json(&run_in(dir.path(), &args))
    };
    let v = run(&["--tool", "Edit", "--tool", "Agent"]);
    assert_eq!(v["totals"]["calls"], 6);
    assert_eq!(v["totals"]["orphan_results"], 0, "orphans have no tool");
    // Stale is decided on the whole session even when only Edit is counted.
    assert_eq!(run(&["--tool", "Edit"])["tools"][0]["categories"]["stale-edit-match"], 1);
    let v = run(&["--since", "2026-06-10"]);
    assert_eq!(v["totals"]["calls"], 4, "only session C is after June 10");
    let v = run(&["--until", "2026-06-10"]);
    assert_eq!(v["totals"]["calls"], 9);
    // Message times come from the UUID v7 ids: the sub-agent's two calls are
    // made 1.024 s and 1.026 s after 10:00.
    let v = run(&["--since", "2026-06-01T10:00:00.500Z", "--until", "2026-06-01T10:00:01.500Z"]);
    assert_eq!(v["totals"]["calls"], 2);
    assert_eq!(v["tools"][0]["tool"], "Bash");
    let v = run(&["--session", "019e6f00"]);
    assert_eq!(v["totals"]["sessions"], 1);
    assert_eq!(v["totals"]["calls"], 4);
    let v = run(&["--since", "1d"]);
    assert_eq!(v["totals"]["calls"], 0);
}

#[test]
fn bad_time_filter_is_a_usage_error() {
    let (dir, _) = small();
    let out = run_in(dir.path(), &["scan", "threads.db", "--since", "last tuesday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--since"));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let (dir, _) = small();
    let out = run_in(dir.path(), &["scan", "threads.db", "--color", "always"]);
    assert!(stdout(&out).contains("\u{1b}["));
    let out = std::process::Command::new(BIN)
        .args(["scan", "threads.db", "--color", "never"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!stdout(&out).contains('\u{1b}'));
}

#[test]
fn nothing_is_written_beside_the_database() {
    let (dir, db) = small();
    let before = listing(dir.path());
    let bytes = std::fs::read(&db).unwrap();
    let out = run_in(dir.path(), &["scan", "threads.db"]);
    assert!(out.status.success());
    assert_eq!(listing(dir.path()), before);
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}

#[test]
fn wal_database_without_wal_file_is_read_without_creating_files() {
    let dir = tempfile::tempdir().unwrap();
    let sql = format!("PRAGMA journal_mode=WAL;\n{}", fixture_sql("peri_small.sql"));
    let db = db_from_sql(dir.path(), "threads.db", &sql);
    assert_eq!(listing(dir.path()), vec!["threads.db"], "a clean close removes the WAL");
    let bytes = std::fs::read(&db).unwrap();
    let v = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    assert_eq!(v["totals"]["calls"], 13);
    assert_eq!(listing(dir.path()), vec!["threads.db"]);
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}

#[test]
fn wal_database_with_a_live_writer_gives_a_committed_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let sql = format!("PRAGMA journal_mode=WAL;\n{}", fixture_sql("peri_small.sql"));
    let db = db_from_sql(dir.path(), "threads.db", &sql);
    let writer = rusqlite::Connection::open(&db).unwrap();
    // Committed, living only in the -wal file: must be seen.
    writer
        .execute_batch(
            r#"INSERT INTO messages VALUES ('m-extra', '019e6f00-0000-7000-8000-00000000000c', 'assistant',
               '{"role":"assistant","id":"m-extra","content":[{"type":"tool_use","id":"toolu_x","name":"Glob","input":{"pattern":"*"}}]}');"#,
        )
        .unwrap();
    // Uncommitted, inside an open write transaction: must not be seen, and must not block.
    writer
        .execute_batch(
            r#"BEGIN IMMEDIATE; INSERT INTO messages VALUES ('m-pending', '019e6f00-0000-7000-8000-00000000000c', 'tool',
               '{"role":"tool","id":"m-pending","tool_call_id":"toolu_x","content":"x","is_error":false}');"#,
        )
        .unwrap();
    let v = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    assert_eq!(v["totals"]["calls"], 14);
    assert_eq!(v["totals"]["unpaired_calls"], 2, "the pending result is not visible");
    writer.execute_batch("COMMIT").unwrap();
}

#[test]
fn default_location() {
    let home = tempfile::tempdir().unwrap();
    // Only HOME decides: no other agent's default location may leak in.
    let bin = || {
        let mut c = std::process::Command::new(BIN);
        c.current_dir(home.path()).env("HOME", home.path());
        for var in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "LLM_USER_PATH", "CODEX_HOME"] {
            c.env_remove(var);
        }
        c
    };
    let out = bin().arg("scan").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The places are many: the message points to `falseok formats`, which lists them.
    assert!(stderr(&out).contains("no traces found at the default locations"), "{}", stderr(&out));
    assert!(stderr(&out).contains("`falseok formats`"), "{}", stderr(&out));
    let peri = home.path().join(".peri/threads");
    std::fs::create_dir_all(&peri).unwrap();
    db_from_sql(&peri, "threads.db", &fixture_sql("peri_small.sql"));
    let out = bin().args(["scan", "--format", "json"]).output().unwrap();
    assert_eq!(json(&out)["totals"]["calls"], 13);
}

#[test]
fn several_sources_add_up() {
    let (dir, _) = small();
    std::fs::copy(dir.path().join("threads.db"), dir.path().join("copy.db")).unwrap();
    let v = json(&run_in(dir.path(), &["scan", "threads.db", "copy.db", "--format", "json"]));
    assert_eq!(v["sources"].as_array().unwrap().len(), 2);
    assert_eq!(v["totals"]["calls"], 26);
    assert_eq!(v["totals"]["hidden_errors"], 4);
}
