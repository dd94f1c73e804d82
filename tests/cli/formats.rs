//! Format detection, `--source-format` and `falseok formats`.

use crate::util::*;

#[test]
fn formats_lists_every_format_with_its_signature() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["formats"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let listed: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).collect();
    // Every format of the registry, databases first, each as `name (agent)`.
    let registry: Vec<String> = falseok::formats().map(|f| format!("{} ({})", f.name(), f.agent)).collect();
    assert!(registry.len() >= 25, "{registry:?}");
    assert_eq!(listed, registry);
    assert!(text.contains("detected by:") && text.contains("recognised:") && text.contains("default:"), "{text}");
}

#[test]
fn unknown_source_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    let out = run_in(dir.path(), &["scan", "threads.db", "--source-format", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let known: Vec<&str> = falseok::formats().map(|f| f.name()).collect();
    assert!(known.starts_with(&["peri", "crush"]) && known.contains(&"claude-code"), "{known:?}");
    assert!(
        stderr(&out).contains(&format!("unknown format \"nope\"; known: {}\n", known.join(", "))),
        "{}",
        stderr(&out)
    );
    let out = run_in(dir.path(), &["scan", "threads.db", "--source-format", "peri", "--format", "json"]);
    assert_eq!(json(&out)["sources"][0]["format"], "peri");
}

#[test]
fn unknown_schema_names_the_formats() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "other.db", "CREATE TABLE messages(id INTEGER, body TEXT);");
    let out = run_in(dir.path(), &["scan", "other.db"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    // The database formats, every one, and no transcript format.
    let databases: Vec<&str> = falseok::database_formats().map(|f| f.name()).collect();
    assert!(databases.contains(&"peri") && !databases.contains(&"claude-code"), "{databases:?}");
    assert!(
        err.contains(&format!(
            "other.db: unknown trace schema (tables: messages); not one of {} (see",
            databases.join(", ")
        )),
        "{err}"
    );
}

#[test]
fn every_format_name_fits_the_contract() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schema/report-v10.schema.json")).unwrap()).unwrap();
    let pattern = schema["properties"]["sources"]["items"]["properties"]["format"]["pattern"].as_str().unwrap();
    let re = regex::Regex::new(pattern).unwrap();
    let text = stdout(&run_in(root, &["formats"]));
    let names: Vec<&str> =
        text.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).map(|l| l.split(' ').next().unwrap()).collect();
    assert!(names.len() >= 9, "{names:?}");
    for n in names {
        assert!(re.is_match(n), "format name {n} does not fit the contract's pattern {pattern}");
    }
}

#[test]
fn same_table_names_other_columns_are_refused() {
    // Crush, Goose and llm 0.32 all have `messages`; names alone prove nothing.
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(
        dir.path(),
        "x.db",
        "CREATE TABLE sessions(id TEXT, parent_session_id TEXT); CREATE TABLE messages(id TEXT, session_id TEXT, body TEXT);",
    );
    let out = run_in(dir.path(), &["scan", "x.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown trace schema (tables: messages, sessions)"), "{}", stderr(&out));
}

#[test]
fn scan_without_paths_reads_every_default_location_that_exists() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sql = |name: &str| std::fs::read_to_string(root.join("sample-traces").join(name)).unwrap();
    std::fs::create_dir_all(h.join(".crush")).unwrap();
    db_from_sql(&h.join(".crush"), "crush.db", &sql("crush.sql"));
    let rollouts = h.join(".codex/sessions/2026/05/10");
    std::fs::create_dir_all(&rollouts).unwrap();
    let cx = root.join("sample-traces/codex/2026/05/10");
    for f in std::fs::read_dir(&cx).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, rollouts.join(f.file_name().unwrap())).unwrap();
    }
    std::fs::create_dir_all(h.join("data/goose/sessions")).unwrap();
    db_from_sql(&h.join("data/goose/sessions"), "sessions.db", &sql("goose.sql"));
    let run = |args: &[&str]| {
        std::process::Command::new(BIN)
            .args(args)
            .current_dir(h)
            .env("HOME", h)
            .env("XDG_DATA_HOME", h.join("data"))
            .env("XDG_CONFIG_HOME", h.join("config"))
            .env_remove("LLM_USER_PATH")
            .env_remove("CODEX_HOME")
            .output()
            .unwrap()
    };
    let v = json(&run(&["scan", "--format", "json"]));
    let formats: Vec<&str> = v["sources"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["crush", "goose", "codex"]);
    let listing = stdout(&run(&["formats"]));
    assert!(listing.contains("./.crush/crush.db  [found]"), "{listing}");
    assert!(listing.contains("~/.codex/sessions  [found]"), "{listing}");
    assert!(!listing.contains("opencode/opencode.db  [found]"), "{listing}");
}

#[test]
fn a_forced_format_must_match_its_signature() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = run_in(root, &["scan", "sample-traces/goose.db", "--source-format", "crush"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("sample-traces/goose.db: is not a crush database (--source-format crush"), "{err}");
}

/// Issue 21: every name `falseok formats` prints is a `--source-format`
/// (a database format or an agent's transcripts).
#[test]
fn every_listed_format_is_accepted_by_source_format() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout(&run_in(dir.path(), &["formats"]));
    let names: Vec<&str> =
        text.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).map(|l| l.split(' ').next().unwrap()).collect();
    assert!(names.len() >= 19 && names.contains(&"claude-code") && names.contains(&"otel"), "{names:?}");
    std::fs::write(dir.path().join("empty.jsonl"), "{}\n").unwrap();
    for name in names {
        let out = run_in(dir.path(), &["scan", "empty.jsonl", "--source-format", name]);
        assert!(!stderr(&out).contains("unknown format"), "{name}: {}", stderr(&out));
    }
}

/// Issue 21: a file is recognised by what it holds, not by its name.
#[test]
fn files_are_recognised_by_content_whatever_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let spans = std::fs::read(root().join("sample-traces/otel/phoenix-spans.json")).unwrap();
    let expected = totals(&scan_json(&["sample-traces/otel/phoenix-spans.json"], &[]));
    // The Python console exporter's pretty-printed spans, in a file named `.jsonl`, or `.log`.
    for name in ["traces.jsonl", "spans.log", "spans"] {
        std::fs::write(dir.path().join(name), &spans).unwrap();
        let out = run_in(dir.path(), &["scan", name, "--format", "json"]);
        assert_eq!(totals(&json(&out)), expected, "{name}: {}", stderr(&out));
    }
    // A SQLite database of any name is a database.
    std::fs::copy(root().join("sample-traces/crush.db"), dir.path().join("crush.data")).unwrap();
    let out = run_in(dir.path(), &["scan", "crush.data", "--format", "json"]);
    assert_eq!(json(&out)["sources"][0]["format"], "crush");
    // Neither: the database's error, named.
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let out = run_in(dir.path(), &["scan", "notes.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("notes.txt: not a SQLite database"), "{}", stderr(&out));
}

/// Issue 21: a transcript format can be forced; a file that gives nothing
/// as that agent's is named, never a silent 0.
#[test]
fn forced_transcript_formats_and_files_that_give_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let codex = root().join("sample-traces/codex");
    let out = run_in(dir.path(), &["scan", codex.to_str().unwrap(), "--source-format", "codex", "--format", "json"]);
    assert!(totals(&json(&out)).0 > 0, "{}", stderr(&out));
    let out = run_in(dir.path(), &["scan", codex.to_str().unwrap(), "--source-format", "claude-code"]);
    let err = stderr(&out);
    assert!(
        err.contains("rollout-") && err.contains("read as a Claude Code transcript, but it holds no tool call"),
        "{err}"
    );
    let db = root().join("sample-traces/crush.db");
    let out = run_in(dir.path(), &["scan", db.to_str().unwrap(), "--source-format", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("crush.db: is a SQLite database, not codex transcripts"), "{}", stderr(&out));
    // import takes the transcript names too, and refuses database formats.
    let out = run_in(dir.path(), &["import", codex.to_str().unwrap(), "--into", "x.db", "--source-format", "crush"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("x.db").exists());
}

/// Issue 21: Qwen Code's chats share `uuid`/`sessionId` with Claude Code
/// but not its messages: they are not read as Claude Code (0 calls,
/// silently). Issue 27: they are read as Qwen Code's.
#[test]
fn qwen_code_chats_are_not_claude_code() {
    let dir = tempfile::tempdir().unwrap();
    let line = |uuid: &str, kind: &str, message: serde_json::Value| {
        serde_json::json!({"uuid": uuid, "parentUuid": null, "sessionId": "q1", "timestamp": "2026-01-01T00:00:00Z",
            "type": kind, "cwd": "/p", "version": "0.5.1", "message": message})
        .to_string()
    };
    let text = [
        line("u1", "user", serde_json::json!({"role": "user", "parts": [{"text": "list files"}]})),
        line("u2", "assistant", serde_json::json!({"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "list_directory", "args": {"path": "/p"}}}]})),
    ]
    .join("\n");
    std::fs::write(dir.path().join("q1.jsonl"), text).unwrap();
    let v = json(&run_in(dir.path(), &["scan", "q1.jsonl", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "qwen");
    assert_eq!((v["totals"]["calls"].as_u64(), v["totals"]["unpaired_calls"].as_u64()), (Some(1), Some(1)));
}

/// Issue 24 (new user F9): with no PATH and nothing at the default
/// locations, a few short lines say where to look and what to try, instead
/// of one line listing 31 places.
#[test]
fn no_traces_found_is_a_few_short_lines_pointing_to_formats_and_the_sample() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for cmd in [&["scan"][..], &["check"], &["examples"]] {
        let out = std::process::Command::new(BIN)
            .args(cmd)
            .current_dir(h)
            .env("HOME", h)
            .env("XDG_DATA_HOME", h.join("data"))
            .env("XDG_CONFIG_HOME", h.join("config"))
            .env_remove("LLM_USER_PATH")
            .env_remove("CODEX_HOME")
            .env_remove("KILO_DB")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = stderr(&out);
        assert!(err.starts_with("falseok: error: no traces found at the default locations\n"), "{err}");
        assert!(err.contains("`falseok formats`") && err.contains("falseok scan sample-traces/peri-postmortem.db"));
        assert!(err.len() < 400 && err.lines().count() <= 6, "{} characters:\n{err}", err.len());
        assert!(err.lines().all(|l| l.chars().count() <= 80), "{err}");
    }
}
