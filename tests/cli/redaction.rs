//! Redaction everywhere: a trace full of secrets, run through every
//! renderer (every section) and the drill-down commands; none may leak,
//! and `--no-redact` shows them (so the test can fail).

use crate::util::*;

const SECRETS: &[&str] =
    &["sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA", "supersecret123", "AKIAABCDEFGHIJKLMNOP", "abcdefghijklmnop1234"];

/// A Peri database whose error texts, arguments and accepted enum values
/// carry secrets: hidden errors, a guard-blind streak, feedback rows and an
/// enum-too-narrow drift.
fn secret_db(dir: &std::path::Path) {
    let mut sql = String::from(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, cwd TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL,
           updated_at TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, parent_thread_id TEXT);
         CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL);
         INSERT INTO threads (id, title, created_at, updated_at) VALUES ('t1', 's', '2026-06-01T10:00:00+00:00', '2026-06-01T10:00:00+00:00');\n",
    );
    let mut n = 0;
    let mut msg = |role: &str, body: String| {
        n += 1;
        let id = format!("019e82a0-3d00-7000-8000-{n:012}");
        sql.push_str(&format!(
            "INSERT INTO messages VALUES ('{id}', 't1', '{role}', '{}');\n",
            body.replace('\'', "''")
        ));
    };
    for i in 0..6 {
        let call = format!("c{i}");
        msg(
            "assistant",
            format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{call}","name":"Bash","input":{{"command":"curl -H \"Authorization: Bearer abcdefghijklmnop1234\" https://x"}}}}]}}"#
            ),
        );
        msg(
            "tool",
            format!(
                r#"{{"role":"tool","tool_call_id":"{call}","content":"Error: auth failed for token=supersecret123 key sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA","is_error":false}}"#
            ),
        );
    }
    for i in 0..2 {
        let call = format!("l{i}");
        msg(
            "assistant",
            format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{call}","name":"Lookup","input":{{"id":"1","mode":"AKIAABCDEFGHIJKLMNOP"}}}}]}}"#
            ),
        );
        msg("tool", format!(r#"{{"role":"tool","tool_call_id":"{call}","content":"found","is_error":false}}"#));
    }
    db_from_sql(dir, "secrets.db", &sql);
}

fn leaks(text: &str) -> Vec<&'static str> {
    SECRETS.iter().copied().filter(|s| text.contains(s)).collect()
}

#[test]
fn no_renderer_and_no_section_shows_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    secret_db(dir.path());
    let schemas = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema_tools.json");
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for cmd in ["scan", "check"] {
        for format in ["table", "json", "markdown", "csv", "github", "junit"] {
            runs.push(vec![
                cmd,
                "secrets.db",
                "--tool-schemas",
                schemas,
                "--format",
                format,
                "--streak-threshold",
                "3",
            ]);
        }
    }
    runs.push(vec!["examples", "secrets.db", "--category", "other", "--tool-schemas", schemas]);
    runs.push(vec!["show", "t1", "secrets.db", "--tool-schemas", schemas]);
    runs.push(vec!["show", "t1", "secrets.db", "--call", "c0"]);
    let mut sections_seen = 0;
    for args in &runs {
        let out = run_in(dir.path(), args);
        assert!(out.status.code() != Some(2), "{args:?}: {}", stderr(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(leaks(&text), Vec::<&str>::new(), "{args:?} leaks:\n{text}");
        // The sections that carry trace text are there to be checked.
        if args[0] == "scan" && args.contains(&"json") {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "guard-blind-streak"), "{v}");
            assert!(!v["feedback"].as_array().unwrap().is_empty());
            assert!(v["schema"]["drift"].as_array().unwrap().iter().any(|d| d["rule"] == "enum-too-narrow"), "{v}");
            sections_seen += 1;
        }
        if args[0] == "scan" && args.contains(&"table") {
            assert!(text.contains("[REDACTED"), "the table shows the redacted messages:\n{text}");
        }
    }
    assert_eq!(sections_seen, 1);
    // And the secrets are there to leak: --no-redact shows them.
    let out = run_in(dir.path(), &["scan", "secrets.db", "--tool-schemas", schemas, "--format", "json", "--no-redact"]);
    assert_eq!(leaks(&stdout(&out)).len(), 3, "{}", stdout(&out));
}
