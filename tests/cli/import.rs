//! `falseok import`: Claude Code and Codex transcripts into the own
//! schema, on the shipped JSONL samples (which carry the research's traps:
//! repeated lines, per-block lines, a cross-file pair, both sub-agent
//! layouts, unknown record types) and on their copies in
//! `tests/fixtures/defects/` that add a cut line and a lone surrogate (the
//! samples a new user runs print no warning).

use std::path::Path;

use crate::util::*;
use serde_json::json;

/// Import `src`, a sample's name in `sample-traces/` or a path from the root.
fn import(dir: &Path, src: &str) -> std::process::Output {
    let src = if src.contains('/') { root().join(src) } else { root().join("sample-traces").join(src) };
    run_in(dir, &["import", src.to_str().unwrap(), "--into", "traces.db"])
}

/// Every row of the three tables, in a stable order.
fn dump(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut out = vec![];
    for q in [
        "SELECT rowid, * FROM sessions ORDER BY id",
        "SELECT rowid, * FROM calls ORDER BY session_id, id",
        "SELECT rowid, * FROM results ORDER BY session_id, call_id",
        "SELECT * FROM falseok_meta",
    ] {
        let mut stmt = conn.prepare(q).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| Ok((0..n).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect::<Vec<_>>().join("|")))
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

#[test]
fn claude_code_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = import(dir.path(), "tests/fixtures/defects/claude-code");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("imported 4 files"), "{text}");
    assert!(text.contains("3 repeated"), "the repeated lines are recognised: {text}");
    assert!(text.contains("1 invalid, 1 lone surrogates replaced"), "{text}");
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["totals"]["sessions"], 4, "session, resumed session, two sub-agents (both layouts)");
    assert_eq!(v["totals"]["unpaired_calls"], 0, "the result in the resumed file pairs with its call");
    assert_eq!(v["totals"]["orphan_results"], 0);
    assert_eq!(counts(&v, "Bash"), (6, 4, 4, 0), "grep exit 1 and <persisted-output> are successes");
    assert_eq!(
        tool(&v, "Bash")["categories"],
        json!({"nonzero-exit": 3, "collateral-cancel": 1}),
        "the parallel cascade is collateral; `ls` failing is the program's failure (issue 12, shape 9)"
    );
    assert_eq!(counts(&v, "Edit"), (2, 2, 2, 0), "the repeated per-block line is one call");
    assert_eq!(tool(&v, "Edit")["categories"], json!({"edit-match-not-found": 1, "missing-required-param": 1}));
    assert_eq!(tool(&v, "Write")["categories"], json!({"user-rejected": 1}));
    assert_eq!(counts(&v, "Read"), (3, 1, 1, 0));
    assert_eq!(counts(&v, "Task"), (1, 0, 0, 0), "a call repeated under a new uuid in the resumed file counts once");
    assert_eq!(counts(&v, "mcp__github__get_issue"), (1, 1, 0, 1), "is_error absent: a hidden error");
    let sub = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json", "--no-subagents"]));
    assert_eq!(sub["totals"]["sessions"], 2);
}

#[test]
fn codex_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = import(dir.path(), "codex");
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["totals"]["flagged_errors"], 0, "Codex writes no flag");
    assert_eq!(counts(&v, "shell"), (4, 2, 0, 2), "exit 101 (JSON shape) and a rejection; rg exit 1 is benign");
    assert_eq!(tool(&v, "shell")["categories"], json!({"tests-failed": 1, "user-rejected": 1}));
    assert_eq!(counts(&v, "exec_command"), (3, 1, 0, 1), "Process exited with code 1; grep's exit 1 is benign");
    assert_eq!(counts(&v, "local_shell"), (1, 1, 0, 1), "Exit code: 2");
    assert_eq!(tool(&v, "apply_patch")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(tool(&v, "shell2")["categories"], json!({"unknown-tool": 1}));
    assert_eq!(v["totals"]["unpaired_calls"], 1);
    assert_eq!(v["totals"]["calls"], 12, "the repeated call is counted once");
}

#[test]
fn importing_twice_changes_nothing() {
    for src in ["claude-code", "codex", "gemini"] {
        let dir = tempfile::tempdir().unwrap();
        assert!(import(dir.path(), src).status.success());
        let first = dump(&dir.path().join("traces.db"));
        let again = import(dir.path(), src);
        assert!(again.status.success(), "{}", stderr(&again));
        assert!(stdout(&again).contains("0 new calls, 0 new results"), "{}", stdout(&again));
        assert_eq!(dump(&dir.path().join("traces.db")), first, "{src}");
    }
}

#[test]
fn both_agents_into_one_database() {
    let dir = tempfile::tempdir().unwrap();
    let cc = root().join("sample-traces/claude-code");
    let cx = root().join("sample-traces/codex");
    let out = run_in(dir.path(), &["import", cc.to_str().unwrap(), cx.to_str().unwrap(), "--into", "traces.db"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["totals"]["sessions"], 5);
    assert_eq!(v["totals"]["calls"], 27);
}

#[test]
fn import_refuses_other_databases_and_reports_strange_files() {
    let dir = tempfile::tempdir().unwrap();
    let sql = std::fs::read_to_string(root().join("sample-traces/crush.sql")).unwrap();
    let db = db_from_sql(dir.path(), "crush.db", &sql);
    let before = std::fs::read(&db).unwrap();
    let cx = root().join("sample-traces/codex");
    let out = run_in(dir.path(), &["import", cx.to_str().unwrap(), "--into", "crush.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(stderr(&out).contains("crush.db: is a crush trace database"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&db).unwrap(), before, "nothing was written");
    std::fs::write(dir.path().join("notes.jsonl"), "{\"hello\": 1}\n").unwrap();
    let out = run_in(dir.path(), &["import", "notes.jsonl", "--into", "traces.db"]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("notes.jsonl: not a Claude Code, Codex, Gemini, ")
            && stderr(&out).contains(" transcript, skipped"),
        "{}",
        stderr(&out)
    );
    let out = run_in(dir.path(), &["import", "missing.jsonl", "--into", "traces.db"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn scan_reads_transcripts_directly() {
    // Copy a sample so that we can check nothing is written beside it.
    let dir = tempfile::tempdir().unwrap();
    let src = root().join("tests/fixtures/defects/codex/2026/05/10");
    let file = std::fs::read_dir(&src).unwrap().next().unwrap().unwrap().path();
    std::fs::copy(&file, dir.path().join("rollout.jsonl")).unwrap();
    let before = listing(dir.path());
    let out = run_in(dir.path(), &["scan", "rollout.jsonl", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["sources"][0]["format"], "codex");
    assert_eq!(v["totals"]["calls"], 12);
    assert_eq!(v["totals"]["hidden_errors"], 6);
    assert!(stderr(&out).contains("rollout.jsonl: 1 line is not a JSON record, skipped (line "), "{}", stderr(&out));
    assert_eq!(finding_messages(&v, "malformed-row").len(), 1, "the broken line is a finding");
    assert_eq!(listing(dir.path()), before, "nothing written beside the transcript");
    // A folder, the same counts as import + scan.
    let cc = root().join("sample-traces/claude-code");
    let direct = json(&run_in(dir.path(), &["scan", cc.to_str().unwrap(), "--format", "json"]));
    assert!(import(dir.path(), "claude-code").status.success());
    let imported = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(direct["tools"], imported["tools"]);
    assert_eq!(direct["sources"][0]["format"], "claude-code");
    // An empty folder is refused.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = run_in(dir.path(), &["scan", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("empty: is a directory with no Claude Code, Codex, Gemini, ")
            && stderr(&out).contains(" transcript (*.jsonl, *.json)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn gemini_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = import(dir.path(), "gemini");
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json"]));
    assert_eq!(v["totals"]["sessions"], 2, "the session and its sub-agent");
    assert_eq!(counts(&v, "read_file"), (2, 1, 1, 0), "the last copy of a message wins: executing, then success");
    assert_eq!(tool(&v, "replace")["categories"], json!({"edit-match-not-found": 1}), "status error is the flag");
    assert_eq!(counts(&v, "write_file"), (1, 1, 1, 0), "cancelled is a failure");
    assert_eq!(counts(&v, "google_web_search"), (1, 1, 0, 1), "status success with an error text: hidden");
    assert_eq!(counts(&v, "glob"), (1, 0, 0, 0), "the rewound call is gone");
    assert_eq!(v["totals"]["unpaired_calls"], 0);
    let sub = json(&run_in(dir.path(), &["scan", "traces.db", "--format", "json", "--no-subagents"]));
    assert_eq!(sub["totals"]["calls"], 5);
    let direct =
        json(&run_in(dir.path(), &["scan", root().join("sample-traces/gemini").to_str().unwrap(), "--format", "json"]));
    assert_eq!(direct["sources"][0]["format"], "gemini");
    assert_eq!(direct["tools"], v["tools"]);
}

/// A PATH means the same to every command: the drill-down and the schema
/// listing read transcript folders as `scan` does.
#[test]
fn every_command_reads_transcript_folders() {
    let sample = |name: &str| root().join("sample-traces").join(name).to_str().unwrap().to_string();
    let out = run_in(root(), &["examples", "--category", "not-found", &sample("claude-code")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("not-found"), "{}", stdout(&out));
    let out = run_in(root(), &["show", "0196b1e2", &sample("codex")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("session 0196b1e2-7c3d-7a4b-9c5d-6e7f8a9b0c1d · 12 calls"), "{}", stdout(&out));
    let out = run_in(root(), &["schemas", &sample("gemini")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("(gemini): "), "{}", stdout(&out));
    let out = run_in(root(), &["schemas", &sample("claude-code")]);
    assert!(stdout(&out).contains("built-in claude-code"), "{}", stdout(&out));
}

/// A transcript line that is not JSON (here a result cut in half) is a
/// counted `malformed-row` finding naming the file and the line, which
/// `check --fail-on malformed-row` sees; the warning names the file, not
/// the folder, and its lines ("1 line") (new-user F5).
#[test]
fn broken_transcript_lines_are_malformed_row_findings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("proj/p")).unwrap();
    let text = transcript_with_a_cut_line();
    std::fs::write(d.join("proj/p/s-1.jsonl"), &text).unwrap();
    for (path, file) in [("proj/p/s-1.jsonl", "proj/p/s-1.jsonl"), ("proj", "proj/p/s-1.jsonl")] {
        let out = run_in(d, &["scan", path, "--format", "json"]);
        let err = stderr(&out);
        assert_eq!(
            err,
            format!(
                "falseok: warning: {file}: 1 line is not a JSON record, skipped (line 2; a malformed-row finding)\n"
            )
        );
        let v = json(&out);
        let found: Vec<&serde_json::Value> =
            v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "malformed-row").collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["session"], "s-1");
        assert_eq!(found[0]["source"], path);
        assert_eq!(
            found[0]["message"],
            format!("line 2 of {file} skipped: cut short: the line ends inside a JSON value")
        );
        let out = run_in(d, &["check", path, "--fail-on", "malformed-row", "--max-hidden", "9"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stdout(&out).contains("falseok check failed: 1 malformed-row finding."), "{}", stdout(&out));
    }
    // Many broken lines in one file; and a cut .json document.
    let junk: String = (0..150).map(|i| format!("{{\"n\": {i},\n")).collect();
    std::fs::write(d.join("proj/p/junk.jsonl"), format!("{}\n{junk}", claude_make_call("t9"))).unwrap();
    std::fs::write(d.join("proj/p/cut.json"), "{\"history\": [").unwrap();
    let out = run_in(d, &["scan", "proj", "--format", "json"]);
    let err = stderr(&out);
    assert!(
        err.contains("proj/p/junk.jsonl: 150 lines are not JSON records, skipped (lines 2, 3, 4, 5, 6, and 145 more;"),
        "{err}"
    );
    assert!(err.contains("proj/p/cut.json: not a whole JSON document (cut or broken?), skipped"), "{err}");
    let v = json(&out);
    let messages = finding_messages(&v, "malformed-row");
    assert_eq!(messages.iter().filter(|m| m.contains("junk.jsonl")).count(), 100, "listed one by one up to 100");
    assert!(messages.iter().any(|m| m.starts_with("line 101 of proj/p/junk.jsonl")
        && m.ends_with("and 50 more broken lines of the file after it")));
    assert!(messages.contains(&"proj/p/cut.json skipped: not a whole JSON document (cut or broken?)"), "{messages:?}");
}

/// Issue 24 (new user F11): a file is read once however it is given: the
/// same PATH twice, another spelling of it, a symbolic or hard link to it, a
/// folder and a folder inside it (in either order), a transcript inside a
/// folder given too. Each dropped PATH gets one warning line naming it.
#[test]
fn every_file_is_read_once_however_often_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(
        std::process::Command::new("cp")
            .arg("-r")
            .arg(root().join("sample-traces/claude-code"))
            .arg(d.join("cc"))
            .status()
            .unwrap()
            .success()
    );
    std::fs::copy(root().join("sample-traces/crush.db"), d.join("crush.db")).unwrap();
    std::fs::hard_link(d.join("crush.db"), d.join("crush-hard.db")).unwrap();
    std::os::unix::fs::symlink(d.join("cc"), d.join("cc-link")).unwrap();
    let main = "cc/-home-u-proj/1f0e5c3a-7b2d-4e8f-9a10-2c3d4e5f6a7b.jsonl";
    // A second name of a transcript inside the folder.
    std::fs::hard_link(d.join(main), d.join("cc/-home-u-proj/again.jsonl")).unwrap();
    let scan = |args: &[&str]| {
        let mut cmd = vec!["scan"];
        cmd.extend_from_slice(args);
        cmd.extend_from_slice(&["--format", "json"]);
        let out = run_in(d, &cmd);
        let warnings: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| l.contains("read once"))
            .map(|l| l.strip_prefix("falseok: warning: ").unwrap().to_string())
            .collect();
        let v = json(&out);
        (totals(&v), v["sources"].as_array().unwrap().len(), warnings)
    };
    let cc = totals(&scan_json(&["sample-traces/claude-code"], &[]));
    let crush = totals(&scan_json(&["sample-traces/crush.db"], &[]));
    assert_eq!(scan(&["cc"]), (cc, 1, vec![]), "a hard link inside a folder is one transcript");
    for (args, warning) in [
        (&["cc", "cc"][..], "cc: given twice, read once".to_string()),
        (&["cc", "cc-link"], "cc-link: the same folder as cc, read once".into()),
        (&["cc", "cc/-home-u-proj"], "cc/-home-u-proj: is inside cc, read once".into()),
        (&["cc/-home-u-proj", "cc"], "cc/-home-u-proj: is inside cc, read once".into()),
        (&["cc", main], format!("{main}: is inside cc, read once")),
        (&[main, "cc-link"], format!("{main}: is inside cc-link, read once")),
    ] {
        assert_eq!(scan(args), (cc, 1, vec![warning]), "{args:?}");
    }
    for (args, warning) in [
        (&["crush.db", "crush.db"][..], "crush.db: given twice, read once"),
        (&["crush.db", "./crush.db"], "./crush.db: the same file as crush.db, read once"),
        (&["crush.db", "crush-hard.db"], "crush-hard.db: the same file as crush.db, read once"),
    ] {
        assert_eq!(scan(args), (crush, 1, vec![warning.to_string()]), "{args:?}");
    }
    // A database inside a folder is not a transcript the folder reads: both count.
    std::fs::copy(root().join("sample-traces/crush.db"), d.join("cc/crush.db")).unwrap();
    let (both, sources, warnings) = scan(&["cc", "cc/crush.db"]);
    assert_eq!((both.0, sources, warnings), (cc.0 + crush.0, 2, vec![]));
}
