//! The adapters of other agents' trace stores, on the shipped samples (built
//! from the SQL text beside them) and on fixtures with the traps the
//! research lists.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sample_sql(name: &str) -> String {
    std::fs::read_to_string(root().join("sample-traces").join(name)).unwrap()
}

/// Build `file` from `sample-traces/<sql>` in a fresh directory and scan it.
fn scan_sample(sql: &str, file: &str, extra: &[&str]) -> (tempfile::TempDir, Value) {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), file, &sample_sql(sql));
    let mut args = vec!["scan", file, "--format", "json"];
    args.extend_from_slice(extra);
    let v = json(&run_in(dir.path(), &args));
    (dir, v)
}

fn tool(v: &Value, name: &str) -> Value {
    v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == name).cloned().unwrap_or_else(|| panic!("no {name}"))
}

/// (calls, errors, flagged, hidden) of a tool.
fn counts(v: &Value, name: &str) -> (u64, u64, u64, u64) {
    let t = tool(v, name);
    let n = |k: &str| t[k].as_u64().unwrap();
    (n("calls"), n("errors"), n("flagged_errors"), n("hidden_errors"))
}

/// The shipped `.db` is what its `.sql` builds: same report, path aside.
fn shipped_matches_sql(sql: &str, db: &str) {
    let (dir, fresh) = scan_sample(sql, db, &[]);
    drop(dir);
    let shipped = json(&run_in(root(), &["scan", &format!("sample-traces/{db}"), "--format", "json"]));
    let strip = |mut v: Value| {
        v["sources"][0]["path"] = json!("");
        v["findings"].as_array_mut().unwrap().iter_mut().for_each(|f| f["source"] = json!(""));
        v
    };
    assert_eq!(strip(fresh), strip(shipped), "rebuild sample-traces/{db} from {sql} (see README)");
}

#[test]
fn crush_sample() {
    let (_dir, v) = scan_sample("crush.sql", "crush.db", &[]);
    assert_eq!(v["sources"][0]["format"], "crush");
    assert_eq!(v["totals"]["sessions"], 2, "the title-generation session is skipped");
    assert_eq!(counts(&v, "bash"), (6, 4, 1, 3), "exit 1 and 2 and an abort are hidden; grep exit 1 is benign");
    // `ls` failing on a missing path is the program's failure (issue 12, shape 9).
    assert_eq!(tool(&v, "bash")["categories"], json!({"nonzero-exit": 2, "user-rejected": 2}));
    assert_eq!(counts(&v, "edit"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "edit")["categories"], json!({"malformed-arguments": 1}));
    assert_eq!(counts(&v, "view"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "glob"), (1, 0, 0, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 0, "results in role=tool messages pair across messages");
    shipped_matches_sql("crush.sql", "crush.db");
    assert_golden("crush.json", &stdout(&run_in(root(), &["scan", "sample-traces/crush.db", "--format", "json"])));
}

#[test]
fn crush_times_are_seconds_and_subagents_can_be_left_out() {
    // 1756720801 s is 2025-09-01; read as milliseconds it would be January 1970.
    let (_dir, v) = scan_sample("crush.sql", "crush.db", &["--since", "2025-09-01", "--until", "2025-09-02"]);
    assert_eq!(v["totals"]["calls"], 10);
    let (_dir, v) = scan_sample("crush.sql", "crush.db", &["--no-subagents"]);
    assert_eq!(v["totals"]["sessions"], 1);
    assert_eq!(v["totals"]["calls"], 8);
}

#[test]
fn opencode_sample() {
    let (_dir, v) = scan_sample("opencode.sql", "opencode.db", &[]);
    assert_eq!(v["sources"][0]["format"], "opencode");
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(counts(&v, "bash"), (6, 3, 0, 3), "exit 1, exit 1 (sub-agent) and a timeout; rg exit 1 is benign");
    // A program's words do not classify the call (issue 12, shape 9).
    assert_eq!(tool(&v, "bash")["categories"], json!({"nonzero-exit": 2, "timeout": 1}));
    assert_eq!(counts(&v, "read"), (1, 1, 1, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the running part never got a result");
    // Milliseconds: 1771060003000 is 2026-02-14.
    let (_dir, v) = scan_sample("opencode.sql", "opencode.db", &["--since", "2026-02-14", "--until", "2026-02-15"]);
    assert_eq!(v["totals"]["calls"], 9);
    shipped_matches_sql("opencode.sql", "opencode.db");
    assert_golden(
        "opencode.json",
        &stdout(&run_in(root(), &["scan", "sample-traces/opencode.db", "--format", "json"])),
    );
}

#[test]
fn goose_sample() {
    let (_dir, v) = scan_sample("goose.sql", "goose.db", &[]);
    assert_eq!(v["sources"][0]["format"], "goose");
    assert_eq!(counts(&v, "developer__text_editor"), (2, 2, 2, 0), "status error and isError are both flags");
    assert_eq!(counts(&v, "github__get_issue"), (1, 1, 0, 1), "an error written as content is hidden");
    assert_eq!(counts(&v, "developer__shell"), (2, 0, 0, 0), "listing test failures is a success; legacy shape read");
    assert_eq!(counts(&v, "(unparsed request)"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "(unparsed request)")["categories"], json!({"malformed-arguments": 1}));
    assert_eq!(v["totals"]["orphan_results"], 0, "the response to an unparsed request is not an orphan");
    assert_eq!(v["totals"]["unpaired_calls"], 0, "responses in user rows pair with requests in assistant rows");
    let (_dir, v) = scan_sample("goose.sql", "goose.db", &["--since", "2026-03-01", "--until", "2026-03-02"]);
    assert_eq!(v["totals"]["calls"], 6, "seconds, not milliseconds");
    shipped_matches_sql("goose.sql", "goose.db");
    assert_golden("goose.json", &stdout(&run_in(root(), &["scan", "sample-traces/goose.db", "--format", "json"])));
}

#[test]
fn llm_sample_both_generations_without_double_counting() {
    let (_dir, v) = scan_sample("llm.sql", "llm.db", &[]);
    assert_eq!(v["sources"][0]["format"], "llm");
    assert_eq!(v["totals"]["sessions"], 4, "conversation A, B (both generations), thread C and its fork D");
    assert_eq!(counts(&v, "search"), (1, 0, 0, 0), "the dual-written call is counted once");
    assert_eq!(counts(&v, "fetch_url"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "write_file"), (2, 2, 1, 1), "the fork counts only its own call");
    assert_eq!(tool(&v, "write_file")["categories"], json!({"permission-denied": 1, "resource-exhausted": 1}));
    assert_eq!(counts(&v, "list_dir"), (1, 1, 1, 0), "the exception column is the flag");
    assert_eq!(counts(&v, "read_file"), (1, 1, 0, 1), "`Error: …` output without an exception is hidden");
    assert_eq!(tool(&v, "list_dirs")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(counts(&v, "lookup"), (1, 0, 0, 0), "id-less call and result pair by tool and order");
    assert_eq!(v["totals"]["unpaired_calls"], 0);
    assert_eq!(v["totals"]["orphan_results"], 0);
    shipped_matches_sql("llm.sql", "llm.db");
    assert_golden("llm.json", &stdout(&run_in(root(), &["scan", "sample-traces/llm.db", "--format", "json"])));
}

#[test]
fn llm_before_0_27_has_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "logs.db", &fixture_sql("llm_026.sql"));
    let v = json(&run_in(dir.path(), &["scan", "logs.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "llm");
    assert_eq!(counts(&v, "read_file"), (2, 1, 0, 1), "no exception column: the content rule alone decides");
    assert_eq!(counts(&v, "count"), (1, 0, 0, 0), "arguments that are not JSON are kept as text");
}

#[test]
fn llm_session_filter_reaches_both_generations() {
    let (_dir, v) = scan_sample("llm.sql", "llm.db", &["--session", "01k2c"]);
    assert_eq!(v["totals"]["sessions"], 1);
    assert_eq!(v["totals"]["calls"], 2);
}

/// The own-schema sample: schema, views, then the sample's rows.
fn own_schema_sql() -> String {
    let sql = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    format!("{}\n{}\n{}", sql("sql/schema.sql"), sql("sql/views.sql"), sql("sample-traces/tracelint.sql"))
}

#[test]
fn own_schema_sample() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_from_sql(dir.path(), "traces.db", &own_schema_sql());
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "tracelint");
    assert_eq!(counts(&v, "shell"), (2, 1, 0, 1));
    assert_eq!(counts(&v, "read_file"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "http_get"), (2, 1, 0, 1), "a NULL flag is no flag: the error is hidden");
    assert_eq!(v["totals"]["unpaired_calls"], 1);
    let no_sub = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json", "--no-subagents"]));
    assert_eq!(no_sub["totals"]["calls"], 4);
    // The views answer the same questions in plain SQL.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let hidden: Vec<(String, String)> = conn
        .prepare("SELECT call_id, tool FROM hidden_errors ORDER BY call_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(hidden, [("c1".to_string(), "shell".to_string()), ("r1".into(), "http_get".into())]);
    let (flagged, unpaired): (i64, i64) = conn
        .query_row("SELECT sum(flagged_errors), sum(unpaired_calls) FROM per_tool", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((flagged, unpaired), (1, 1));
    // The shipped sample is what the SQL builds.
    let shipped = json(&run_in(root(), &["scan", "sample-traces/tracelint.db", "--format", "json"]));
    assert_eq!(shipped["totals"], v["totals"], "rebuild sample-traces/tracelint.db (see README)");
}

#[test]
fn own_schema_of_another_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "traces.db", &own_schema_sql());
    let conn = rusqlite::Connection::open(dir.path().join("traces.db")).unwrap();
    conn.execute("UPDATE tracelint_meta SET value = '9' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let out = run_in(dir.path(), &["scan", "traces.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("traces.db: tracelint schema version 9 is not supported"), "{}", stderr(&out));
}
