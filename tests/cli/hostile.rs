//! Hostile and broken traces: the read-only guarantee, and a corpus of
//! corrupt and odd input that must end in a clear error or a counted skip,
//! never a panic or a hang.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::util::*;

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    listing(dir).into_iter().map(|f| (f.clone(), std::fs::read(dir.join(&f)).unwrap())).collect()
}

fn wal_db(dir: &Path) -> PathBuf {
    let sql = format!("PRAGMA journal_mode=WAL;\n{}", fixture_sql("peri_small.sql"));
    db_from_sql(dir, "threads.db", &sql)
}

const EXTRA_CALL: &str = r#"INSERT INTO messages VALUES ('m-extra', '019e6f00-0000-7000-8000-00000000000c', 'assistant',
    '{"role":"assistant","id":"m-extra","content":[{"type":"tool_use","id":"toolu_x","name":"Glob","input":{"pattern":"*"}}]}');"#;

#[test]
fn live_wal_database_db_wal_and_shm_stay_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let db = wal_db(dir.path());
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch(EXTRA_CALL).unwrap(); // committed, only in the -wal file
    writer
        .execute_batch(
            r#"BEGIN IMMEDIATE; INSERT INTO messages VALUES ('m-pending', '019e6f00-0000-7000-8000-00000000000c', 'tool',
               '{"role":"tool","id":"m-pending","tool_call_id":"toolu_x","content":"x","is_error":false}');"#,
        )
        .unwrap();
    let before = snapshot(dir.path());
    assert_eq!(
        before.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["threads.db", "threads.db-shm", "threads.db-wal"]
    );
    let out = run_in(dir.path(), &["scan", "threads.db", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["totals"]["calls"], 14, "the committed call in the WAL is seen");
    assert_eq!(v["totals"]["unpaired_calls"], 2, "the uncommitted result is not");
    assert!(!stderr(&out).contains("immutable"), "no fallback needed: {}", stderr(&out));
    assert!(snapshot(dir.path()) == before, "database, -wal and -shm are byte-identical after the scan");
    writer.execute_batch("COMMIT").unwrap();
}

/// Run falseok as a user who cannot write `dir` (nobody, when the tests
/// run as root; the caller's own permissions otherwise).
fn run_unprivileged(dir: &Path, args: &[&str]) -> Output {
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    // A copy of the binary inside the directory, so any user can run it.
    let bin = dir.parent().unwrap().join("falseok-bin");
    std::fs::copy(BIN, &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir.parent().unwrap(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new(&bin);
    cmd.args(args).current_dir(dir);
    if root {
        cmd.uid(65534).gid(65534);
    }
    // Another test thread forking while the copy was open for writing makes
    // exec fail with "Text file busy" for a moment (ETXTBSY); try again.
    for _ in 0..50 {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(std::time::Duration::from_millis(20)),
            other => return other.unwrap(),
        }
    }
    panic!("{}: text file busy for a second", bin.display());
}

fn make_read_only(dir: &Path) {
    for f in listing(dir) {
        std::fs::set_permissions(dir.join(f), std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
}

fn make_writable(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn read_only_directory_with_wal_and_shm_is_read_fully() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    let db = wal_db(&dir);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch(EXTRA_CALL).unwrap();
    make_read_only(&dir);
    let before = snapshot(&dir);
    let out = run_unprivileged(&dir, &["scan", "threads.db", "--format", "json"]);
    let v = json(&out);
    assert_eq!(v["totals"]["calls"], 14, "the WAL is read through the read-only -shm");
    assert!(snapshot(&dir) == before);
    make_writable(&dir);
    drop(writer);
}

/// What a crash leaves behind, in a read-only folder: the database `name`
/// and its -wal, no -shm; scanned by an unprivileged user, with `args`.
fn crashed_in_read_only_folder(name: &str, args: &[&str], check: impl Fn(&std::process::Output)) {
    in_crashed_read_only_folder(name, |dir| check(&run_unprivileged(dir, &[&["scan", name][..], args].concat())));
}

/// `crashed_in_read_only_folder`, with `run` given the folder to run
/// commands in.
fn in_crashed_read_only_folder(name: &str, run: impl Fn(&Path)) {
    let outer = tempfile::tempdir().unwrap();
    let live = outer.path().join("live");
    let dir = outer.path().join("ro");
    std::fs::create_dir(&live).unwrap();
    std::fs::create_dir(&dir).unwrap();
    let db = wal_db(&live);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch("PRAGMA wal_autocheckpoint=0;").unwrap();
    writer.execute_batch(EXTRA_CALL).unwrap();
    std::fs::copy(&db, dir.join(name)).unwrap();
    std::fs::copy(live.join("threads.db-wal"), dir.join(format!("{name}-wal"))).unwrap();
    drop(writer);
    make_read_only(&dir);
    let before = snapshot(&dir);
    run(&dir);
    assert!(snapshot(&dir) == before, "nothing created, nothing changed");
    make_writable(&dir);
}

#[test]
fn read_only_directory_without_shm_falls_back_to_immutable_with_a_warning() {
    crashed_in_read_only_folder("threads.db", &["--format", "json"], |out| {
        let v = json(out);
        assert_eq!(v["totals"]["calls"], 13, "immutable: the call only in the WAL is missed");
        let err = stderr(out);
        assert!(err.contains("opened immutable") && err.contains("may be missed"), "{err}");
    });
}

/// Issue 55: the warning names the file as reports show it, redacted, and
/// as written under --no-redact.
#[test]
fn a_warning_names_a_file_named_after_a_secret_redacted() {
    let name = "threads-PGPASSWORD=Tl55WarnPw.db";
    crashed_in_read_only_folder(name, &["--format", "json"], |out| {
        let text = format!("{}{}", stdout(out), stderr(out));
        assert!(!text.contains("Tl55WarnPw"), "{text}");
        assert!(stderr(out).contains("threads-PGPASSWORD=[REDACTED] opened immutable"), "{}", stderr(out));
    });
    crashed_in_read_only_folder(name, &["--format", "json", "--no-redact"], |out| {
        assert!(stderr(out).contains("Tl55WarnPw.db: opened immutable"), "{}", stderr(out));
    });
}

/// Issue 54: how a source had to be opened is said by every command that
/// reads it, as `scan` says it (and `scan` says it once).
#[test]
fn every_command_warns_how_a_source_had_to_be_opened() {
    in_crashed_read_only_folder("threads.db", |dir| {
        let scan = run_unprivileged(dir, &["scan", "threads.db", "--no-index"]);
        let all = stderr(&scan);
        // Its line, as scan says it (scan alone adds a count of the
        // malformed rows its report holds: a summary, not a note).
        let opened: Vec<&str> = all.lines().filter(|l| l.contains("opened immutable")).collect();
        assert_eq!(opened.len(), 1, "{all}");
        let session = "019e6f00-0000-7000-8000-00000000000c";
        let commands: [&[&str]; 5] = [
            &["show", session, "threads.db"],
            &["examples", "threads.db"],
            &["schemas", "threads.db"],
            &["sessions", "threads.db", "--no-index"],
            &["export", "threads.db"],
        ];
        for args in commands {
            let out = run_unprivileged(dir, args);
            let err = stderr(&out);
            assert!(out.status.success(), "{args:?}: {err}");
            assert_eq!(err.lines().filter(|l| l.contains("opened immutable")).collect::<Vec<_>>(), opened, "{args:?}");
        }
    });
}

#[test]
fn read_only_file_in_a_read_only_directory() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    db_from_sql(&dir, "threads.db", &fixture_sql("peri_small.sql"));
    make_read_only(&dir);
    let out = run_unprivileged(&dir, &["scan", "threads.db", "--format", "json"]);
    assert_eq!(json(&out)["totals"]["calls"], 13);
    assert_eq!(listing(&dir), vec!["threads.db"]);
    make_writable(&dir);
}

/// Every corpus case: a clear one-line error (exit 2) or a report, in time.
fn scan_case(dir: &Path, file: &str) -> Output {
    let start = Instant::now();
    let out = run_in(dir, &["scan", file, "--format", "json"]);
    assert!(start.elapsed() < Duration::from_secs(60), "{file}: took {:?}", start.elapsed());
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{file}: {err}");
    match out.status.code() {
        Some(0) => {}
        Some(2) => {
            assert_eq!(err.lines().count(), 1, "{file}: {err}");
            assert!(err.contains(file), "{file}: {err}");
        }
        other => panic!("{file}: exit {other:?}: {err}"),
    }
    out
}

#[test]
fn corrupted_page() {
    let dir = tempfile::tempdir().unwrap();
    let sql = padded_small_sql(300, 200);
    let db = db_from_sql(dir.path(), "bad-page.db", &sql);
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    assert!(bytes.len() > page * 8);
    for b in &mut bytes[page * 5..page * 6] {
        *b = 0xA5;
    }
    std::fs::write(&db, bytes).unwrap();
    let out = scan_case(dir.path(), "bad-page.db");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("corrupt"), "{}", stderr(&out));
}

#[test]
fn wrong_column_types_are_counted_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(
        dir.path(),
        "types.db",
        r#"CREATE TABLE threads (id INTEGER PRIMARY KEY, created_at BLOB, parent_thread_id REAL);
           CREATE TABLE messages (message_id INTEGER, thread_id INTEGER, role BLOB, content BLOB);
           INSERT INTO threads VALUES (7, x'00ff', 1.5);
           INSERT INTO messages VALUES (1, 7, 'assistant', '{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read","input":{}}]}');
           INSERT INTO messages VALUES (2, 7, x'ff', 12345);
           INSERT INTO messages VALUES (3, 7, NULL, NULL);
           INSERT INTO messages VALUES (4, NULL, 'tool', x'7b22726f6c65223a22746f6f6c222c22746f6f6c5f63616c6c5f6964223a2261222c22636f6e74656e74223a224572726f723a20ff227d');"#,
    );
    let out = scan_case(dir.path(), "types.db");
    let v = json(&out);
    assert_eq!(v["totals"]["calls"], 1);
    let skipped = finding_messages(&v, "malformed-row").len();
    assert_eq!(skipped, 2, "an integer and a NULL content");
}

#[test]
fn odd_rows_big_deep_invalid_utf8_surrogates_nul() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_from_sql(dir.path(), "odd.db", &fixture_sql("peri_small.sql"));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let thread = "019e6f00-0000-7000-8000-00000000000c";
    let add = |id: &str, role: &str, content: rusqlite::types::Value| {
        conn.execute("INSERT INTO messages VALUES (?1, ?2, ?3, ?4)", rusqlite::params![id, thread, role, content])
            .unwrap();
    };
    let call = |id: &str| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"x"}}}}]}}"#
        )
    };
    // A 50 MB result that is an error, and one that is not.
    add("big1", "assistant", call("big1").into());
    let big = format!(
        r#"{{"role":"tool","tool_call_id":"big1","content":"Error: {}","is_error":false}}"#,
        "x".repeat(50 << 20)
    );
    add("big1r", "tool", big.into());
    // Deeply nested JSON, at the top and inside a result: counted skips, not stack overflows.
    add("deep", "tool", format!("{}{}", "[".repeat(200_000), "]".repeat(200_000)).into());
    let nested =
        format!(r#"{{"role":"tool","tool_call_id":"x","content":{}{}}}"#, "[".repeat(200_000), "]".repeat(200_000));
    add("deep2", "tool", nested.into());
    // Invalid UTF-8 inside a TEXT value.
    add("utf1", "assistant", call("utf1").into());
    let mut bytes = br#"{"role":"tool","tool_call_id":"utf1","content":"Error: bad "#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    bytes.extend_from_slice(br#"","is_error":false}"#);
    conn.execute(
        "INSERT INTO messages VALUES ('utf1r', ?1, 'tool', CAST(?2 AS TEXT))",
        rusqlite::params![thread, bytes],
    )
    .unwrap();
    // Lone UTF-16 surrogate escapes: read with a repair, reported.
    let add = |id: &str, role: &str, content: String| {
        conn.execute("INSERT INTO messages VALUES (?1, ?2, ?3, ?4)", rusqlite::params![id, thread, role, content])
            .unwrap();
    };
    add("sur1", "assistant", call("sur1"));
    add(
        "sur1r",
        "tool",
        r#"{"role":"tool","tool_call_id":"sur1","content":"Error: \ud800 broken","is_error":false}"#.into(),
    );
    // NUL bytes, escaped and raw.
    add("nul1", "assistant", call("nul1"));
    add(
        "nul1r",
        "tool",
        "{\"role\":\"tool\",\"tool_call_id\":\"nul1\",\"content\":\"ok \\u0000 fine\",\"is_error\":false}".into(),
    );
    add("nul2", "tool", "{\"role\":\"tool\",\0\"tool_call_id\":\"x\"}".into());
    drop(conn);

    let out = scan_case(dir.path(), "odd.db");
    let v = json(&out);
    let malformed = finding_messages(&v, "malformed-row");
    // The nested array where a message object belongs is refused at once;
    // nesting inside a result's content is skipped over without recursion.
    assert!(malformed.iter().any(|m| m.contains("skipped: unexpected message shape")), "{malformed:?}");
    assert_eq!(v["totals"]["orphan_results"], 2, "the fixture's orphan, and the deep result row, read");
    assert!(malformed.iter().any(|m| m.contains("read with repairs: lone UTF-16 surrogate")), "{malformed:?}");
    assert!(malformed.iter().filter(|m| m.contains("skipped")).count() >= 2, "{malformed:?}");
    let bash = v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == "Bash").unwrap();
    // big1 (50 MB error), utf1 (invalid UTF-8 replaced) and sur1 (repaired) are hidden errors; nul1 is fine.
    assert_eq!(bash["hidden_errors"], 3, "{bash}");
    let hidden = finding_messages(&v, "hidden-error");
    assert!(hidden.iter().all(|m| m.chars().count() < 400), "messages are truncated");
    assert!(hidden.iter().any(|m| m.contains("Error: bad \u{fffd}")), "{hidden:?}");
}

/// Start `falseok ARGS` on a big transcript folder with `TMPDIR` = `tmp`,
/// and return it once its scratch folder exists, with that folder.
fn started_on_transcripts(dir: &Path, tmp: &Path, args: &[&str]) -> (std::process::Child, PathBuf) {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let scratch =
        scratch_of(&mut child, tmp).expect("the run ended before its scratch database was made: a bigger folder");
    (child, scratch)
}

/// The scratch copy of the transcripts is private while it exists, and
/// SIGINT, SIGTERM and SIGHUP remove it before falseok ends as the signal
/// ends a process (the shell shows 130, 143, 129).
#[test]
fn an_interrupted_transcript_scan_leaves_nothing_in_tmpdir() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_claude_folder(&d.join("big"), 4, 20_000);
    let before = listing(d);
    for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        // Ignored in this run (`nohup`): falseok keeps it ignored, as
        // `a_signal_ignored_at_the_start_stays_ignored` tests.
        if ignored_here(number as u32) {
            continue;
        }
        for cmd in [&["scan", "big"][..], &["export", "big"], &["export", "big", "--out", "out.ndjson"]] {
            let tmp = tempfile::tempdir().unwrap();
            let (mut child, scratch) = started_on_transcripts(d, tmp.path(), cmd);
            // Stopped, so the signal arrives while the import runs.
            send_signal(child.id(), "STOP");
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&scratch), 0o700, "{cmd:?}: the scratch folder is private");
            for f in listing(&scratch) {
                assert_eq!(mode(&scratch.join(&f)), 0o600, "{cmd:?}: {f} is private");
            }
            send_signal(child.id(), signal);
            send_signal(child.id(), "CONT");
            let status = wait_bounded(&mut child);
            assert_eq!(status.signal(), Some(number), "{cmd:?} SIG{signal}: {status:?}");
            assert!(tree(tmp.path()).is_empty(), "{cmd:?} SIG{signal} left {:?}", tree(tmp.path()));
            assert_eq!(listing(d), before, "{cmd:?} SIG{signal}: no output, whole or partial");
        }
    }
}

/// A signal ignored when falseok starts (`nohup`, `trap '' HUP`) stays
/// ignored: the run goes on to its end.
#[test]
fn a_signal_ignored_at_the_start_stays_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_claude_folder(&d.join("big"), 1, 5_000);
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("trap '' HUP; exec {BIN} scan big --format json"))
        .current_dir(d)
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    scratch_of(&mut child, tmp.path()).expect("the run ended before its scratch database was made: a bigger folder");
    send_signal(child.id(), "HUP");
    assert_eq!(wait_bounded(&mut child).code(), Some(0), "SIGHUP was ignored, the scan finished");
    assert!(tree(tmp.path()).is_empty());
}

/// `import --into` a new database, cut by a signal, leaves no database:
/// it is written under a private name and renamed only once whole.
#[test]
fn an_interrupted_import_into_a_new_database_leaves_none() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_claude_folder(&d.join("big"), 4, 20_000);
    let before = listing(d);
    let mut child = Command::new(BIN)
        .args(["import", "big", "--into", "new.db"])
        .current_dir(d)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while listing(d) == before {
        assert!(child.try_wait().unwrap().is_none(), "the import ended before it wrote: a bigger folder");
        assert!(start.elapsed() < Duration::from_secs(60), "nothing written after 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    let signal = if ignored_here(2) { ("TERM", 15) } else { ("INT", 2) };
    send_signal(child.id(), signal.0);
    assert_eq!(wait_bounded(&mut child).signal(), Some(signal.1));
    assert_eq!(listing(d), before, "no new.db, no temporary file, no journal");
}

/// A run killed outright (SIGKILL, an abort) cannot clean up; the next run
/// removes what it left, and only that: not a live run's folder, and not a
/// folder that is not a falseok scratch folder.
#[test]
fn the_next_run_removes_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_claude_folder(&d.join("big"), 4, 20_000);
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (mut child, left) = started_on_transcripts(d, t, &["scan", "big"]);
    send_signal(child.id(), "KILL");
    wait_bounded(&mut child);
    assert!(left.join("transcripts.db").exists(), "SIGKILL leaves the scratch folder");
    // A live run's folder: its lock is held.
    let live = t.join("falseok-scratch-1-live");
    std::fs::create_dir(&live).unwrap();
    let lock = std::fs::File::create(live.join("lock")).unwrap();
    lock.lock().unwrap();
    std::fs::create_dir(t.join("falseok-other")).unwrap();
    // Not through the index: a warm entry for the sample would skip the
    // import, and with it the scratch folder whose making sweeps.
    let sample = root().join("sample-traces/claude-code");
    let out = run_bounded(d, t, &["scan".as_ref(), sample.as_os_str(), "--no-index".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!left.exists(), "the killed run's folder is removed");
    assert_eq!(listing(t), ["falseok-other", "falseok-scratch-1-live"]);
}

/// Run `falseok ARGS` in `dir` under `ulimit -f BLOCKS` (KiB), with
/// `TMPDIR` = `tmp`: exit code and stderr.
fn under_file_limit(dir: &Path, tmp: &Path, blocks: u32, args: &str) -> (Option<i32>, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -f {blocks}; exec {BIN} {args}"))
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .output()
        .unwrap();
    (out.status.code(), stderr(&out))
}

/// A file size limit (`ulimit -f`) or a full disk ends in one line that
/// names the file the user gave and says what happened, exit 2, never in
/// SIGXFSZ; nothing is left half-written (F16, F22).
#[test]
fn file_size_limits_name_the_file_the_user_gave() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_claude_folder(&d.join("big"), 1, 2_000);
    std::fs::copy(root().join("sample-traces/peri-postmortem.db"), d.join("p.db")).unwrap();
    std::fs::write(d.join("s.md"), "# before\n").unwrap();
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let before = listing(d);
    let cases: &[(u32, &str, &str, &str)] = &[
        (100, "scan big", "big", "cannot write the scratch copy of the transcripts in $TMPDIR ("),
        (
            20,
            "export p.db --out x.ndjson",
            "x.ndjson",
            "cannot write the export: file too large (over the file size limit, ulimit -f)",
        ),
        (20, "export p.db --out parts --partition", "parts/date=", "file too large"),
        (100, "import big --into i.db", "i.db", "cannot write the database: disk I/O error"),
        (1, "scan p.db --summary s.md", "s.md", "cannot append the summary: file too large"),
        (1, "check p.db --write-baseline b.json", "b.json", "cannot write the baseline: file too large"),
    ];
    for (blocks, args, named, what) in cases {
        let (code, err) = under_file_limit(d, &tmp, *blocks, args);
        assert_eq!(code, Some(2), "{args}: killed or wrong exit: {err}");
        assert_eq!(err.lines().count(), 1, "{args}: {err}");
        assert!(err.starts_with(&format!("falseok: error: {named}")), "{args}: {err}");
        assert!(err.contains(what), "{args}: expected {what:?}: {err}");
        assert!(!err.contains("transcripts.db") && !err.contains("falseok-scratch"), "{args}: {err}");
        assert_eq!(listing(d), before, "{args}: nothing left half-written");
        assert!(tree(&tmp).is_empty(), "{args}: {:?}", tree(&tmp));
    }
    assert_eq!(std::fs::read_to_string(d.join("s.md")).unwrap(), "# before\n", "the failed append is taken back");
}

/// falseok under a memory ceiling (`ulimit -v`, MiB) and a file size
/// ceiling (a runaway SQLite sort spills temporary files), so that a bomb
/// that escapes its bound fails the test rather than the machine; a
/// generous time limit detects a hang and measures nothing.
fn run_capped(dir: &Path, args: &[&str], mib: u64) -> Output {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; ulimit -f 2000000; exec \"$0\" \"$@\"", mib << 10))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_or_fail(child, Duration::from_secs(300), &format!("{args:?}"))
}

/// A copy of a shipped sample in `dir`, changed by `sql`.
fn sample_changed(dir: &Path, sample: &str, sql: &str) -> String {
    let name = sample.rsplit('/').next().unwrap().to_string();
    std::fs::copy(root().join("sample-traces").join(sample), dir.join(&name)).unwrap();
    let conn = rusqlite::Connection::open(dir.join(&name)).unwrap();
    conn.execute_batch(sql).unwrap();
    name
}

/// The one error line of a refused input, naming it.
fn refused(out: &Output, file: &str, why: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{file}: {err}");
    assert_eq!(err.lines().count(), 1, "{file}: {err}");
    assert!(err.contains(file) && err.contains(why), "{file}: {err}");
}

/// Issue 22, F1 (`repro_view_hang.sh`): a trace table replaced by an
/// endless recursive view, or by ten nested cross joins, is refused at
/// once (goose and llm spun forever and filled the disk with temp files).
#[test]
fn views_in_place_of_trace_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let endless = |t: &str| {
        format!(
            "PRAGMA legacy_alter_table=ON; ALTER TABLE \"{t}\" RENAME TO \"{t}_real\";
             CREATE VIEW \"{t}\" AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r)
             SELECT \"{t}_real\".* FROM r, \"{t}_real\";"
        )
    };
    for (sample, table, forced) in [
        ("goose.db", "messages", None),
        ("zed.db", "threads", None),
        ("crush.db", "messages", None),
        ("opencode.db", "part", None),
        ("adk.db", "events", None),
        ("langgraph.db", "writes", None),
        ("peri-postfix.db", "messages", None),
        ("falseok.db", "results", None),
        ("cursor.db", "cursorDiskKV", Some("cursor")),
    ] {
        let file = sample_changed(dir.path(), sample, &endless(table));
        let mut args = vec!["scan", file.as_str()];
        args.extend(forced.map(|f| ["--source-format", f]).into_iter().flatten());
        let out = run_capped(dir.path(), &args, 2048);
        refused(&out, &file, &format!("are views here (`{table}`)"));
    }
    // llm's tables are each optional: a view in place of one is refused,
    // not silently skipped with half the trace (4 of 8 calls).
    let file = sample_changed(dir.path(), "llm.db", &endless("tool_results"));
    let out = run_capped(dir.path(), &["scan", &file], 2048);
    refused(&out, &file, "are views here (`tool_results`)");
    // Issue 55: a table a format reads when it is there (Goose's and ADK's
    // `sessions`: parents and starts) as an endless view was passed over
    // as absent; it is refused too. So are views defined in a circle, and
    // a chain of 3,000 views.
    for (sample, table) in [("goose.db", "sessions"), ("adk.db", "sessions")] {
        let file = sample_changed(dir.path(), sample, &endless(table));
        refused(&run_capped(dir.path(), &["scan", &file], 2048), &file, &format!("`{table}` is a view here"));
    }
    let circle = "PRAGMA legacy_alter_table=ON; ALTER TABLE messages RENAME TO m_real;
                  CREATE VIEW messages AS SELECT * FROM m2; CREATE VIEW m2 AS SELECT * FROM messages;";
    let file = sample_changed(dir.path(), "goose.db", circle);
    refused(&run_capped(dir.path(), &["scan", &file], 2048), &file, "circularly defined");
    let mut chain = String::from("PRAGMA legacy_alter_table=ON; ALTER TABLE messages RENAME TO v0;");
    for k in 1..3000 {
        chain.push_str(&format!("CREATE VIEW v{k} AS SELECT * FROM v{};", k - 1));
    }
    chain.push_str("CREATE VIEW messages AS SELECT * FROM v2999;");
    let file = sample_changed(dir.path(), "goose.db", &chain);
    refused(&run_capped(dir.path(), &["scan", &file], 2048), &file, "nested too deep");
    // The Agents SDK takes any table with its columns: the renamed table is
    // read, whole, and the view is not.
    let file = sample_changed(dir.path(), "openai-agents.db", &endless("agent_messages"));
    let out = run_capped(dir.path(), &["scan", &file, "--format", "json"], 2048);
    assert!(out.status.success(), "{file}: {}", stderr(&out));
    let whole = scan_json(&["sample-traces/openai-agents.db"], &[]);
    assert_eq!(json(&out)["totals"]["calls"], whole["totals"]["calls"], "{file}");
    let mut joins = String::from(
        "PRAGMA legacy_alter_table=ON; ALTER TABLE messages RENAME TO messages_real;
         CREATE TABLE ten(n); INSERT INTO ten VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
         CREATE VIEW v0 AS SELECT messages_real.* FROM messages_real, ten;",
    );
    for k in 1..10 {
        joins.push_str(&format!("CREATE VIEW v{k} AS SELECT v{}.* FROM v{}, ten;", k - 1, k - 1));
    }
    joins.push_str("CREATE VIEW messages AS SELECT * FROM v9;");
    let file = sample_changed(dir.path(), "goose.db", &joins);
    let renamed = format!("joins-{file}");
    std::fs::rename(dir.path().join(&file), dir.path().join(&renamed)).unwrap();
    refused(&run_capped(dir.path(), &["scan", &renamed], 2048), &renamed, "are views here (`messages`)");
}

/// Issue 22, F1: a query that never ends on real tables (an llm message
/// chain that is a cycle, from hundreds of threads) is stopped by the
/// SQLite work budget, in one line naming the file.
#[test]
fn a_query_that_never_ends_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let file = sample_changed(
        dir.path(),
        "llm.db",
        "INSERT INTO messages (hash, parent_hash, role) VALUES ('cA', 'cB', 'user'), ('cB', 'cA', 'user');
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
         INSERT INTO threads (id, name, tip_message_hash) SELECT 'cyc' || i, 'c', 'cA' FROM n;",
    );
    refused(&run_capped(dir.path(), &["scan", &file], 2048), &file, "steps of SQLite work");
}

/// Issue 22, F2 (`gen_bombs.py`, `repro_zed_bomb.sh`): a small zstd blob of
/// `[0,0,…]` in a Zed thread and a msgpack array of millions of nils in a
/// LangGraph write are malformed rows, counted before they are decoded
/// (they took 8–13 GB and 3.6 GB), and the scan goes on.
#[test]
fn decoder_bombs_are_malformed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let values = 5_000_000;
    let mut array = b"{\"version\":\"0.3.0\",\"x\":[".to_vec();
    array.extend(std::iter::repeat_n(&b"0,"[..], values).flatten());
    array.extend_from_slice(b"0]}");
    let zstd = ruzstd::encoding::compress_to_vec(&array[..], ruzstd::encoding::CompressionLevel::Fastest);
    assert!(zstd.len() < 1 << 20, "a small blob: {}", zstd.len());
    let zed = sample_changed(dir.path(), "zed.db", "");
    let conn = rusqlite::Connection::open(dir.path().join(&zed)).unwrap();
    conn.execute(
        "UPDATE threads SET data = ?1, data_type = 'zstd' WHERE rowid = (SELECT min(rowid) FROM threads)",
        [&zstd],
    )
    .unwrap();
    let mut nils = vec![0xdd];
    nils.extend_from_slice(&(values as u32).to_be_bytes());
    nils.resize(5 + values, 0xc0);
    let langgraph = sample_changed(dir.path(), "langgraph.db", "");
    let conn = rusqlite::Connection::open(dir.path().join(&langgraph)).unwrap();
    conn.execute(
        "UPDATE writes SET value = ?1, type = 'msgpack' WHERE rowid = (SELECT min(rowid) FROM writes)",
        [&nils],
    )
    .unwrap();
    for (file, why) in [(&zed, "JSON values"), (&langgraph, "more than 4000000 values")] {
        let out = run_capped(dir.path(), &["scan", file, "--format", "json"], 2048);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let v = json(&out);
        let malformed = finding_messages(&v, "malformed-row");
        assert!(malformed.iter().any(|m| m.contains(why)), "{file}: {malformed:?}");
        assert!(v["totals"]["calls"].as_u64().unwrap() > 0, "{file}: the other rows are read");
    }
}

/// Issue 22, F2: a transcript line holding millions of JSON values (`[0,0,…]`
/// took 32 times its size) is not parsed; the lines after it are.
#[test]
fn json_lines_past_the_value_bound_are_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let line = |uuid: &str, content: serde_json::Value| {
        serde_json::json!({"type": "assistant", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-04-02T09:00:01.000Z",
            "message": {"role": "assistant", "content": content}})
        .to_string()
    };
    let call = |id: &str, input: serde_json::Value| serde_json::json!([{"type": "tool_use", "id": id, "name": "Bash", "input": input}]);
    let zeros = format!("[{}0]", "0,".repeat(5_000_000));
    let bomb =
        line("u1", call("toolu_bomb", serde_json::json!({"x": "PLACEHOLDER"}))).replace("\"PLACEHOLDER\"", &zeros);
    let fine = line("u2", call("toolu_fine", serde_json::json!({"command": "ls"})));
    std::fs::write(dir.path().join("t.jsonl"), format!("{bomb}\n{fine}\n")).unwrap();
    let out = run_capped(dir.path(), &["scan", "t.jsonl", "--format", "json"], 2048);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["totals"]["calls"], 1, "only the line after the bomb: {}", stdout(&out));
}

/// Issue 22, F2: a value past what SQLite is allowed to read (128 MiB) is
/// refused before it is allocated, in one line naming the file (a 200 MB
/// row took SQLite over 1 GB to sort).
#[test]
fn values_past_the_sqlite_bound_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = sample_changed(
        dir.path(),
        "crush.db",
        "UPDATE messages SET parts = zeroblob(129 * 1024 * 1024) WHERE rowid = (SELECT min(rowid) FROM messages);",
    );
    refused(&run_capped(dir.path(), &["scan", &file], 2048), &file, "larger than 128 MiB");
}
