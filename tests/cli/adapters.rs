//! The adapters of other agents' trace stores, on the shipped samples (built
//! from the SQL text beside them) and on fixtures with the traps the
//! research lists.

use crate::util::*;
use serde_json::{Value, json};

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

/// The shipped `.db` is what its `.sql` builds: same report, path aside.
fn shipped_matches_sql(sql: &str, db: &str) {
    let (dir, fresh) = scan_sample(sql, db, &[]);
    drop(dir);
    let shipped = json(&run_in(root(), &["scan", &format!("sample-traces/{db}"), "--format", "json"]));
    let strip = |mut v: Value| {
        v["sources"][0]["path"] = json!("");
        v["findings"].as_array_mut().unwrap().iter_mut().for_each(|f| f["source"] = json!(""));
        for costliest in ["costliest_session_tokens", "costliest_session_dollars"] {
            if v["usage"][costliest].is_object() {
                v["usage"][costliest]["source"] = json!("");
            }
        }
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
    // `ls` failing on a missing path is the program's failure (issue 12, shape 9); a failing test
    // run is the work failing, and Crush's abort is its time limit (issue 21).
    assert_eq!(
        tool(&v, "bash")["categories"],
        json!({"nonzero-exit": 1, "tests-failed": 1, "timeout": 1, "user-rejected": 1})
    );
    assert_eq!(counts(&v, "edit"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "edit")["categories"], json!({"malformed-arguments": 1}));
    assert_eq!(counts(&v, "view"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "glob"), (1, 0, 0, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 0, "results in role=tool messages pair across messages");
    shipped_matches_sql("crush.sql", "crush.db");
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
    assert_eq!(tool(&v, "bash")["categories"], json!({"nonzero-exit": 1, "tests-failed": 1, "timeout": 1}));
    assert_eq!(counts(&v, "read"), (1, 1, 1, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the running part never got a result");
    // Milliseconds: 1771060003000 is 2026-02-14.
    let (_dir, v) = scan_sample("opencode.sql", "opencode.db", &["--since", "2026-02-14", "--until", "2026-02-15"]);
    assert_eq!(v["totals"]["calls"], 9);
    shipped_matches_sql("opencode.sql", "opencode.db");
}

/// Issue 27: Kilo's database is opencode's schema; its name makes it Kilo's.
#[test]
fn kilo_sample() {
    let (dir, v) = scan_sample("kilo.sql", "kilo.db", &[]);
    assert_eq!(v["sources"][0]["format"], "kilo");
    assert_eq!(totals(&v), (9, 3, 2), "2 missing files and a stop are flagged; gradle exit 1 and a timeout hidden");
    assert_eq!(tool(&v, "write")["categories"], json!({"user-rejected": 1}), "Tool execution aborted");
    assert_eq!(tool(&v, "read")["categories"], json!({"not-found": 2}));
    assert_eq!(tool(&v, "bash")["categories"], json!({"build-failed": 1, "timeout": 1}), "grep exit 1 is benign");
    assert_eq!(v["totals"]["unpaired_calls"], 1);
    assert_eq!(v["totals"]["sessions"], 2, "the task's session names its parent");
    // The same database under another name is opencode's, judged alike;
    // --source-format kilo reads it as Kilo's, and KILO_DB names it so.
    std::fs::copy(dir.path().join("kilo.db"), dir.path().join("copy.db")).unwrap();
    let renamed = json(&run_in(dir.path(), &["scan", "copy.db", "--format", "json"]));
    assert_eq!(renamed["sources"][0]["format"], "opencode");
    assert_eq!(totals(&renamed), totals(&v));
    let forced = json(&run_in(dir.path(), &["scan", "copy.db", "--source-format", "kilo", "--format", "json"]));
    assert_eq!(forced["sources"][0]["format"], "kilo");
    let by_env = std::process::Command::new(BIN)
        .args(["scan", "copy.db", "--format", "json"])
        .current_dir(dir.path())
        .env("KILO_DB", dir.path().join("copy.db"))
        .output()
        .unwrap();
    assert_eq!(json(&by_env)["sources"][0]["format"], "kilo");
    shipped_matches_sql("kilo.sql", "kilo.db");
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
    format!("{}\n{}\n{}", sql("sql/schema.sql"), sql("sql/views.sql"), sql("sample-traces/falseok.sql"))
}

#[test]
fn own_schema_sample() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_from_sql(dir.path(), "traces.db", &own_schema_sql());
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "falseok");
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
    let shipped = json(&run_in(root(), &["scan", "sample-traces/falseok.db", "--format", "json"]));
    assert_eq!(shipped["totals"], v["totals"], "rebuild sample-traces/falseok.db (see README)");
}

/// A database `tracelint import` wrote before the project's rename keeps
/// its schema version in `tracelint_meta`: it is read as the same format,
/// `--source-format tracelint` names it, and `import --into` adds to it.
#[test]
fn own_schema_written_under_the_old_name_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "new.db", &own_schema_sql());
    db_from_sql(dir.path(), "old.db", &own_schema_sql().replace("falseok_meta", "tracelint_meta"));
    let conn = rusqlite::Connection::open(dir.path().join("old.db")).unwrap();
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE name IN ('falseok_meta', 'tracelint_meta')", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(tables, 1, "the old database has only the old meta table");
    drop(conn);
    let new = json(&run_in(dir.path(), &["scan", "new.db", "--format", "json"]));
    let old = json(&run_in(dir.path(), &["scan", "old.db", "--format", "json"]));
    assert_eq!(old["sources"][0]["format"], "falseok");
    assert_eq!(old["totals"], new["totals"]);
    assert_eq!(old["tools"], new["tools"]);
    let forced = json(&run_in(dir.path(), &["scan", "old.db", "--source-format", "tracelint", "--format", "json"]));
    assert_eq!(forced["totals"], new["totals"]);
    let formats = stdout(&run_in(dir.path(), &["formats"]));
    assert!(formats.contains("also named:  tracelint"), "{formats}");
    // A version the old table records is checked like the new one's.
    let conn = rusqlite::Connection::open(dir.path().join("old.db")).unwrap();
    conn.execute("UPDATE tracelint_meta SET value = '9' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let out = run_in(dir.path(), &["scan", "old.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("old.db: falseok schema version 9 is not supported"), "{}", stderr(&out));
    // Import adds to one, and what it added is read with the rest.
    db_from_sql(dir.path(), "grow.db", &own_schema_sql().replace("falseok_meta", "tracelint_meta"));
    let cc = root().join("sample-traces/claude-code");
    let out = run_in(dir.path(), &["import", cc.to_str().unwrap(), "--into", "grow.db"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let grown = json(&run_in(dir.path(), &["scan", "grow.db", "--format", "json"]));
    let calls = |v: &Value| v["totals"]["calls"].as_u64().unwrap();
    assert!(calls(&grown) > calls(&new), "{} calls after import, {} before", calls(&grown), calls(&new));
}

#[test]
fn own_schema_of_another_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "traces.db", &own_schema_sql());
    let conn = rusqlite::Connection::open(dir.path().join("traces.db")).unwrap();
    conn.execute("UPDATE falseok_meta SET value = '9' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let out = run_in(dir.path(), &["scan", "traces.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("traces.db: falseok schema version 9 is not supported"), "{}", stderr(&out));
}

#[test]
fn langgraph_sample_counts_each_message_once() {
    let (_dir, v) = scan_sample("langgraph.sql", "langgraph.db", &[]);
    assert_eq!(v["sources"][0]["format"], "langgraph");
    assert_eq!(v["totals"]["sessions"], 5, "booking-1, its researcher subgraph, legacy-2, broken-3, hitl-5");
    // booking-1 is saved at 11 checkpoints, each holding the whole state: every call counts once.
    assert_eq!(counts(&v, "search_flights"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "book_flight"), (1, 1, 1, 0), "ToolNode's caught exception: status error");
    assert_eq!(counts(&v, "get_weather"), (1, 1, 0, 1), "`Error: …` with status success is hidden");
    assert_eq!(counts(&v, "book_hotel"), (1, 1, 1, 0), "an invalid tool call is a failed call");
    assert_eq!(tool(&v, "book_hotel")["categories"], json!({"malformed-arguments": 1}));
    assert_eq!(counts(&v, "reserve_table"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "reserve_table")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(counts(&v, "search_hotels"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "web_search"), (1, 1, 0, 1), "content blocks are read; the subgraph is a session");
    // legacy-2 has no writes: its latest checkpoint is read, Pydantic v1 messages without a status.
    assert_eq!(counts(&v, "read_file"), (1, 1, 0, 1));
    assert_eq!(counts(&v, "list_dir"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "run_query"), (2, 0, 0, 0));
    // hitl-5's answer came through update_state: only its checkpoints hold it.
    assert_eq!(counts(&v, "approve_refund"), (1, 1, 1, 0));
    assert_eq!(v["totals"]["calls"], 12);
    assert_eq!(v["totals"]["unpaired_calls"], 1, "call_b2's answer is in an undecodable row");
    let malformed = finding_messages(&v, "malformed-row");
    assert_eq!(malformed.len(), 4, "{malformed:?}");
    for want in
        ["unknown status \"cancelled\"", "pickled value", "encrypted value (msgpack+aes)", "undecodable msgpack"]
    {
        assert!(malformed.iter().any(|m| m.contains(want)), "{want}: {malformed:?}");
    }
    let (_dir, v) = scan_sample("langgraph.sql", "langgraph.db", &["--no-subagents"]);
    assert_eq!(v["totals"]["sessions"], 4, "the subgraph namespace is a sub-agent of its thread");
    shipped_matches_sql("langgraph.sql", "langgraph.db");
}

/// Without `writes` (pruned, or an old saver), a thread is read from its
/// latest checkpoint alone: still once per message, not once per checkpoint.
#[test]
fn langgraph_without_writes_reads_the_latest_checkpoint_once() {
    let dir = tempfile::tempdir().unwrap();
    let sql = format!("{}\nDELETE FROM writes;", sample_sql("langgraph.sql"));
    db_from_sql(dir.path(), "checkpoints.sqlite", &sql);
    let v = json(&run_in(dir.path(), &["scan", "checkpoints.sqlite", "--format", "json"]));
    let checkpoints: i64 = rusqlite::Connection::open(dir.path().join("checkpoints.sqlite"))
        .unwrap()
        .query_row("SELECT count(*) FROM checkpoints WHERE thread_id = 'booking-1' AND checkpoint_ns = ''", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(checkpoints >= 10, "{checkpoints}");
    assert_eq!(counts(&v, "search_flights"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "book_flight"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "get_weather"), (1, 1, 0, 1));
    assert_eq!(counts(&v, "book_hotel"), (1, 1, 1, 0));
    assert_eq!(
        v["totals"]["calls"], 10,
        "booking-1 (6), its subgraph (1), legacy-2 (2), hitl-5 (1); broken-3 had only writes"
    );
}

/// A subgraph's namespace that was given its thread's state (as
/// langgraph-supervisor's agents are) repeats the thread's calls: each
/// counts once, in the thread, and a call of the subgraph's own stays its
/// own. Messages kept as plain dicts (`role`) are read as messages.
#[test]
fn langgraph_subgraph_copies_of_the_threads_calls_count_once() {
    let dir = tempfile::tempdir().unwrap();
    let copied = r#"[{"role": "ai", "content": "", "tool_calls": [{"id": "call_1", "name": "search_flights", "args": {"to": "LIS"}}]}, {"role": "tool", "tool_call_id": "call_1", "content": "2 flights"}, {"role": "ai", "content": "", "tool_calls": [{"id": "call_p1", "name": "plan_trip", "args": {}}]}, {"role": "tool", "tool_call_id": "call_p1", "content": "Error: no dates given"}]"#;
    // Thread `booking-10` sorts between `booking-1` and `booking-1|planner:…`
    // by session id: the thread's namespaces must still be read after it.
    let other = r#"INSERT INTO checkpoints VALUES ('booking-10', '', '1f12e726-7000-6b00-8001-00c0ffee0010', NULL, 'json', CAST('{"channel_values": {}}' AS BLOB), NULL);
INSERT INTO writes VALUES ('booking-10', '', '1f12e726-7000-6b00-8001-00c0ffee0010', 'task-10', 0, 'messages', 'json', CAST('[{"role": "ai", "content": "", "tool_calls": [{"id": "call_t", "name": "get_time", "args": {}}]}, {"role": "tool", "tool_call_id": "call_t", "content": "10:02"}]' AS BLOB));"#;
    let sql = format!(
        "{}\nINSERT INTO checkpoints VALUES ('booking-1', 'planner:9f00', '1f12e726-7000-6b00-8001-00c0ffee0009', NULL, 'json', CAST('{{\"channel_values\": {{}}}}' AS BLOB), NULL);\nINSERT INTO writes VALUES ('booking-1', 'planner:9f00', '1f12e726-7000-6b00-8001-00c0ffee0009', 'task-9', 0, 'messages', 'json', CAST('{copied}' AS BLOB));\n{other}",
        sample_sql("langgraph.sql")
    );
    db_from_sql(dir.path(), "checkpoints.sqlite", &sql);
    let v = json(&run_in(dir.path(), &["scan", "checkpoints.sqlite", "--format", "json"]));
    assert_eq!(counts(&v, "search_flights"), (1, 0, 0, 0), "the copy in the planner's namespace is the thread's call");
    assert_eq!(counts(&v, "plan_trip"), (1, 1, 0, 1), "the planner's own call, a plain dict, is read");
    assert_eq!(counts(&v, "get_time"), (1, 0, 0, 0), "thread booking-10's own call");
    assert_eq!(v["totals"]["calls"], 14);
}

#[test]
fn openai_agents_sample_has_no_flag_but_hidden_errors() {
    let (_dir, v) = scan_sample("openai-agents.sql", "openai-agents.db", &[]);
    assert_eq!(v["sources"][0]["format"], "openai-agents");
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(counts(&v, "get_weather"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "fetch_page"), (2, 2, 0, 2), "the failure function's text and a timeout");
    assert_eq!(tool(&v, "fetch_page")["categories"], json!({"server-error": 1, "timeout": 1}));
    assert_eq!(counts(&v, "lookup_order"), (1, 1, 0, 1));
    assert_eq!(tool(&v, "lookup_order")["categories"], json!({"malformed-arguments": 1}));
    assert_eq!(counts(&v, "shell"), (2, 1, 0, 1), "exit 101 is hidden; grep exit 1 is benign");
    assert_eq!(counts(&v, "apply_patch"), (1, 1, 1, 0), "status failed is a flag");
    assert_eq!(counts(&v, "github.get_issue"), (1, 1, 1, 0), "mcp_call.error is a flag");
    assert_eq!(counts(&v, "delete_file"), (1, 1, 0, 1));
    assert_eq!(tool(&v, "delete_file")["categories"], json!({"user-rejected": 1}));
    assert_eq!(counts(&v, "transfer_to_billing_agent"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "web_search"), (1, 1, 1, 0));
    assert_eq!(counts(&v, "grammar_check"), (1, 0, 0, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the interrupted search");
    let malformed = finding_messages(&v, "malformed-row");
    assert_eq!(malformed.len(), 2, "{malformed:?}");
    assert!(malformed[0].contains("row 21") && malformed[0].contains("EncryptedSession"), "{malformed:?}");
    shipped_matches_sql("openai-agents.sql", "openai-agents.db");
}

#[test]
fn openai_agents_custom_table_names_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "chats.db", &fixture_sql("openai_agents_custom.sql"));
    let v = json(&run_in(dir.path(), &["scan", "chats.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "openai-agents");
    assert_eq!(counts(&v, "read_file"), (2, 1, 0, 1));
    assert_eq!(tool(&v, "read_file")["categories"], json!({"not-found": 1}));
}

#[test]
fn zed_sample_all_generations_and_the_terminal_traps() {
    let (_dir, v) = scan_sample("zed.sql", "zed.db", &[]);
    assert_eq!(v["sources"][0]["format"], "zed");
    // cargo test 101, make check 2 (sub-agent), cargo clippy 1 (a zstd CLI frame), a timeout and a refused
    // escalation are hidden; grep exit 1 is benign; the imported copy is not counted.
    assert_eq!(counts(&v, "terminal"), (7, 5, 0, 5));
    assert_eq!(tool(&v, "terminal")["categories"], json!({"nonzero-exit": 3, "timeout": 1, "user-rejected": 1}));
    assert_eq!(counts(&v, "read_file"), (2, 2, 2, 0), "0.3.0 and 0.1.0 (result on the next user message)");
    assert_eq!(counts(&v, "run_tests"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "run_tests")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(counts(&v, "edit_file"), (2, 1, 1, 0), "one failed, one still streaming when saved");
    assert_eq!(counts(&v, "list_directory"), (1, 0, 0, 0), "the unversioned generation");
    assert_eq!(counts(&v, "find_path"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "grep"), (1, 0, 0, 0), "input stored as the value itself");
    assert_eq!(counts(&v, "spawn_agent"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "fetch"), (1, 0, 0, 0), "a newer version is still read");
    assert_eq!(v["totals"]["calls"], 17);
    assert_eq!(v["totals"]["unpaired_calls"], 1);
    let malformed = finding_messages(&v, "malformed-row");
    assert_eq!(malformed.len(), 3, "{malformed:?}");
    assert!(malformed.iter().any(|m| m.starts_with("row 8 skipped: data is not a zstd frame")), "{malformed:?}");
    assert!(malformed.iter().any(|m| m.contains("Citation") && m.contains("Compaction")), "{malformed:?}");
    let (_dir, v) = scan_sample("zed.sql", "zed.db", &["--no-subagents"]);
    assert_eq!(counts(&v, "terminal"), (6, 4, 0, 4), "the child thread names its parent");
    let (_dir, v) = scan_sample("zed.sql", "zed.db", &["--since", "2026-01-01"]);
    assert_eq!(v["totals"]["calls"], 14, "calls take their thread's updated_at");
    shipped_matches_sql("zed.sql", "zed.db");
}

#[test]
fn adk_sample_conventions_not_flags() {
    let (_dir, v) = scan_sample("adk.sql", "adk.db", &[]);
    assert_eq!(v["sources"][0]["format"], "adk");
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(
        counts(&v, "get_weather"),
        (3, 1, 0, 1),
        "{{\"status\": \"error\"}} is hidden; a model error is not a tool's"
    );
    assert_eq!(counts(&v, "get_current_time"), (1, 1, 0, 1));
    assert_eq!(tool(&v, "get_current_time")["categories"], json!({"missing-required-param": 1}));
    assert_eq!(counts(&v, "get_issue"), (1, 1, 1, 0), "MCP isError is the one flag");
    assert_eq!(counts(&v, "fetch_url"), (1, 0, 0, 0), "parallel responses in one event pair by id");
    assert_eq!(counts(&v, "create_issue"), (1, 1, 0, 1), "MCP isError false with an error text");
    assert_eq!(counts(&v, "transfer_to_agent"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "delete_file"), (1, 1, 0, 1), "camelCase parts are read");
    assert_eq!(tool(&v, "delete_file")["categories"], json!({"user-rejected": 1}));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the long-running call");
    let malformed = finding_messages(&v, "malformed-row");
    assert_eq!(malformed.len(), 1, "{malformed:?}");
    assert!(malformed[0].starts_with("row 17 skipped: event_data is invalid JSON"), "{malformed:?}");
    // Epoch seconds: 1775296800 is 2026-04-04.
    let (_dir, v) = scan_sample("adk.sql", "adk.db", &["--since", "2026-04-04"]);
    assert_eq!(v["totals"]["calls"], 1);
    shipped_matches_sql("adk.sql", "adk.db");
}

#[test]
fn adk_sqlalchemy_layouts_v1_and_v0() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "v1.db", &fixture_sql("adk_v1.sql"));
    db_from_sql(dir.path(), "v0.db", &fixture_sql("adk_v0.sql"));
    let v = json(&run_in(dir.path(), &["scan", "v1.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "adk");
    assert_eq!(counts(&v, "lookup"), (1, 1, 0, 1));
    let v = json(&run_in(dir.path(), &["scan", "v0.db", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "adk");
    assert_eq!(counts(&v, "get_weather"), (1, 1, 0, 1), "the content column; the pickled actions are never read");
    assert_eq!(tool(&v, "get_weather")["categories"], json!({"missing-required-param": 1}));
    assert_eq!(finding_messages(&v, "malformed-row").len(), 0);
}

#[test]
fn cursor_is_read_only_when_asked_for_and_never_reads_item_table() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "state.vscdb", &sample_sql("cursor.sql"));
    // Never detected: a scan names the opt-in instead.
    let out = run_in(dir.path(), &["scan", "state.vscdb"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--source-format cursor (experimental)"), "{}", stderr(&out));
    let out = run_in(dir.path(), &["scan", "state.vscdb", "--source-format", "cursor", "--format", "json"]);
    assert!(stderr(&out).contains("Cursor support is experimental"), "{}", stderr(&out));
    let text = stdout(&out);
    for secret in ["SECRET-TOKEN", "never_read", "never-printed", "trap"] {
        assert!(!text.contains(secret), "{secret} leaked from ItemTable or composerData");
    }
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "cursor");
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(counts(&v, "run_terminal_cmd"), (4, 2, 1, 1), "exit 1 under completed is hidden; grep exit 1 benign");
    assert_eq!(tool(&v, "run_terminal_cmd")["categories"], json!({"tests-failed": 1, "user-rejected": 1}));
    assert_eq!(counts(&v, "search_replace"), (1, 1, 1, 0));
    assert_eq!(tool(&v, "search_replace")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(counts(&v, "read_file"), (1, 0, 0, 0));
    assert_eq!(counts(&v, "mcp_github_get_issue"), (1, 1, 1, 0));
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the call still loading");
    let malformed = finding_messages(&v, "malformed-row");
    assert_eq!(malformed.len(), 1, "the null value is not malformed, the broken one is: {malformed:?}");
    // The shipped .db is what the .sql builds.
    let fresh = json(&run_in(dir.path(), &["scan", "state.vscdb", "--source-format", "cursor", "--format", "json"]));
    let shipped =
        json(&run_in(root(), &["scan", "sample-traces/cursor.db", "--source-format", "cursor", "--format", "json"]));
    assert_eq!(fresh["tools"], shipped["tools"], "rebuild sample-traces/cursor.db from cursor.sql");
}

/// A real public LangGraph file, held out of the repository (its licence is
/// unknown): Amit0119/Multi-Agent-booking-system, `checkpoints.sqlite` at
/// 350fe20f5704a65be8bf336f3b2038c52ec89531 (219 checkpoints of 19 threads,
/// 64 ToolMessages by the research's hand decoding). Run with
/// `FALSEOK_REAL_LANGGRAPH=<path> cargo test --test adapters -- --ignored`.
#[test]
#[ignore = "needs a file outside the repository"]
fn langgraph_real_public_file() {
    let Some(path) = std::env::var_os("FALSEOK_REAL_LANGGRAPH") else { return };
    let path = std::path::PathBuf::from(path);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("checkpoints.sqlite");
    std::fs::copy(&path, &copy).unwrap();
    let v = json(&run_in(dir.path(), &["scan", "checkpoints.sqlite", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "langgraph");
    assert_eq!(v["totals"]["calls"], 65);
    assert_eq!(v["totals"]["unpaired_calls"], 1, "64 ToolMessages answer 65 calls");
    assert_eq!(counts(&v, "send_booking_notification"), (51, 0, 0, 0));
    // The same from the latest checkpoints alone.
    rusqlite::Connection::open(&copy).unwrap().execute_batch("DELETE FROM writes").unwrap();
    let w = json(&run_in(dir.path(), &["scan", "checkpoints.sqlite", "--format", "json"]));
    assert_eq!(w["totals"]["calls"], 65);
}
