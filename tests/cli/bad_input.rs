//! Bad input: one clear line naming the file and the problem, exit code 2,
//! no panic, and nothing written near the input.

use crate::util::*;

fn assert_rejected(dir: &std::path::Path, file: &str, expect: &str) {
    let before = listing(dir);
    let out = run_in(dir, &["scan", file]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{file}: {err}");
    assert!(out.stdout.is_empty(), "{file}: nothing on stdout");
    assert_eq!(err.lines().count(), 1, "{file}: one line: {err}");
    assert!(err.starts_with("falseok: error: "), "{err}");
    assert!(err.contains(file), "{file}: the path is named: {err}");
    assert!(err.contains(expect), "{file}: expected {expect:?} in {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(listing(dir), before, "{file}: nothing written beside it");
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    assert_rejected(dir.path(), "nope.db", "no such file");
}

#[test]
fn zero_length_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.db"), b"").unwrap();
    assert_rejected(dir.path(), "empty.db", "empty file");
}

#[test]
fn random_bytes_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(dir.path().join("random.db"), bytes).unwrap();
    assert_rejected(dir.path(), "random.db", "not a SQLite database");
    std::fs::write(dir.path().join("notes.txt"), "hello, this is text\n".repeat(20)).unwrap();
    assert_rejected(dir.path(), "notes.txt", "not a SQLite database");
}

#[test]
fn directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub.db")).unwrap();
    assert_rejected(dir.path(), "sub.db", "is a directory");
}

#[test]
fn unknown_schema() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "other.db", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);");
    assert_rejected(dir.path(), "other.db", "unknown trace schema (tables: notes)");
    db_from_sql(dir.path(), "blank.db", "PRAGMA user_version = 1;");
    assert_rejected(dir.path(), "blank.db", "unknown trace schema (tables: none)");
}

#[test]
fn newer_peri_payload_schema_is_named() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(
        dir.path(),
        "ref.db",
        "CREATE TABLE threads (id TEXT PRIMARY KEY);
         CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id TEXT, role TEXT, content_ref TEXT, transcript_seq INTEGER);",
    );
    assert_rejected(dir.path(), "ref.db", "content_ref");
}

#[test]
fn truncated_database() {
    let dir = tempfile::tempdir().unwrap();
    // Enough rows that the data spans many pages past the schema page.
    let sql = padded_small_sql(400, 300);
    let db = db_from_sql(dir.path(), "whole.db", &sql);
    let bytes = std::fs::read(&db).unwrap();
    std::fs::write(dir.path().join("cut.db"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(&db).unwrap();
    assert_rejected(dir.path(), "cut.db", "corrupt");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["scan", "--format", "yaml", "x.db"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run_in(dir.path(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn second_bad_source_fails_the_whole_scan() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "good.db", &fixture_sql("peri_small.sql"));
    let out = run_in(dir.path(), &["scan", "good.db", "missing.db", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "an incomplete scan is no verdict");
    assert!(out.stdout.is_empty(), "no partial report");
    assert!(stderr(&out).contains("missing.db: no such file"));
}

/// A path with a byte that is not UTF-8 is read like any other, by every
/// command that takes one, and named (lossily) in messages.
#[test]
fn paths_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"tr\xffaces #1?"));
    std::fs::create_dir(&odd).unwrap();
    let db = odd.join("threads.db");
    std::fs::copy(root().join("sample-traces/crush.db"), &db).unwrap();
    let jsonl = odd.join("claude");
    copy_tree(&root().join("sample-traces/claude-code"), &jsonl);
    for args in [
        vec!["scan".as_ref(), db.as_os_str()],
        vec!["check".as_ref(), db.as_os_str(), "--max-hidden".as_ref(), "1000".as_ref()],
        vec!["export".as_ref(), db.as_os_str()],
        vec!["schemas".as_ref(), db.as_os_str()],
        vec!["scan".as_ref(), jsonl.as_os_str()],
    ] {
        let out = std::process::Command::new(BIN).args(&args).output().unwrap();
        assert!(out.status.code() != Some(2), "{args:?}: {}", stderr(&out));
    }
    let into = odd.join("traces.db");
    let out = std::process::Command::new(BIN).arg("import").arg(&jsonl).arg("--into").arg(&into).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = std::process::Command::new(BIN).arg("scan").arg(&into).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A PATH that is not a regular file or a folder (a FIFO with no writer, a
/// device such as /dev/zero behind a symlink, a socket) is refused in one
/// line before it is opened: no command blocks, grows, or creates anything
/// in $TMPDIR.
#[test]
fn fifos_devices_and_sockets_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for name in ["fifo.jsonl", "fifo.json", "fifo.db"] {
        mkfifo(&d.join(name));
    }
    for name in ["zero.jsonl", "zero.json", "zero.db", "urandom.jsonl"] {
        let dev = if name.starts_with("zero") { "/dev/zero" } else { "/dev/urandom" };
        std::os::unix::fs::symlink(dev, d.join(name)).unwrap();
    }
    let _socket = std::os::unix::net::UnixListener::bind(d.join("socket.jsonl")).unwrap();
    let cases = [
        ("fifo.jsonl", "a FIFO"),
        ("fifo.json", "a FIFO"),
        ("fifo.db", "a FIFO"),
        ("zero.jsonl", "a character device"),
        ("zero.json", "a character device"),
        ("zero.db", "a character device"),
        ("urandom.jsonl", "a character device"),
        ("socket.jsonl", "a socket"),
    ];
    let before = listing(d);
    for (name, kind) in cases {
        for cmd in
            [&["scan", name][..], &["check", name], &["export", name], &["examples", "--category", "other", name]]
                .into_iter()
                .chain([&["import", name, "--into", "out.db"][..]])
        {
            let args: Vec<&std::ffi::OsStr> = cmd.iter().map(std::ffi::OsStr::new).collect();
            let out = run_bounded(d, &tmp, &args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
            assert_eq!(err, format!("falseok: error: {name}: not a regular file ({kind})\n"), "{cmd:?}");
            assert!(tree(&tmp).is_empty(), "{cmd:?} left {:?} in $TMPDIR", tree(&tmp));
            assert_eq!(listing(d), before, "{cmd:?}: nothing written beside it");
        }
    }
}

/// Inside a folder, what is not a regular file is skipped, as before.
#[test]
fn fifos_and_device_links_inside_a_folder_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    copy_tree(&root().join("sample-traces/claude-code"), &d.join("cc"));
    mkfifo(&d.join("cc/fifo.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", d.join("cc/zero.jsonl")).unwrap();
    let args: Vec<&std::ffi::OsStr> = ["scan", "cc", "--format", "json"].iter().map(std::ffi::OsStr::new).collect();
    let out = run_bounded(d, &tmp, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(json(&out)["totals"]["calls"].as_u64().unwrap() > 0);
    assert!(tree(&tmp).is_empty(), "{:?}", tree(&tmp));
}
