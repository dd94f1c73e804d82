//! Format detection, `--source-format` and `tracelint formats`.

mod common;

use common::*;

#[test]
fn formats_lists_every_format_with_its_signature() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["formats"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let listed: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).collect();
    assert_eq!(listed, ["peri (Peri Code)", "crush (Crush, and the archived Go opencode)"]);
    assert!(text.contains("detected by:") && text.contains("default:"), "{text}");
}

#[test]
fn unknown_source_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    let out = run_in(dir.path(), &["scan", "threads.db", "--source-format", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown format \"nope\"; known: peri, crush"), "{}", stderr(&out));
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
    assert!(err.contains("other.db: unknown trace schema (tables: messages); not one of peri, crush"), "{err}");
}
