//! `falseok watch`: the events agree with scan, arrive within a second of
//! the write, once each across rewrites, with stores appearing, rotating
//! and going away, a writer holding a transaction, signals and --exec.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use serde_json::Value;

use crate::util::*;

/// A running `falseok watch`: its stdout lines as they come (with when
/// they came), its stderr so far.
struct Watching {
    child: Child,
    lines: Receiver<(Instant, String)>,
    stderr: Arc<Mutex<String>>,
}

impl Watching {
    fn start(args: &[&str]) -> Watching {
        let mut child = Command::new(BIN)
            .arg("watch")
            .args(args)
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = crossbeam_channel::unbounded();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send((Instant::now(), line));
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().unwrap();
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                keep.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let w = Watching { child, lines, stderr };
        w.wait_stderr("new events follow");
        w
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Wait (at most 20 s) until stderr says `what`.
    fn wait_stderr(&self, what: &str) {
        let start = Instant::now();
        while !self.stderr().contains(what) {
            assert!(start.elapsed() < Duration::from_secs(20), "no {what:?} on stderr: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The next event (ndjson), or `None` after `limit`.
    fn next(&self, limit: Duration) -> Option<(Instant, Value)> {
        let (at, line) = self.lines.recv_timeout(limit).ok()?;
        Some((at, serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))))
    }

    /// Every event that comes within `quiet` of the previous one.
    fn drain(&self, quiet: Duration) -> Vec<Value> {
        std::iter::from_fn(|| self.next(quiet).map(|(_, v)| v)).collect()
    }

    fn stop(self, signal: &str) -> (std::process::ExitStatus, String) {
        let (status, err, _) = self.stop_with_rest(signal);
        (status, err)
    }

    /// `stop`, with the events written after the last one taken.
    fn stop_with_rest(mut self, signal: &str) -> (std::process::ExitStatus, String, Vec<Value>) {
        send_signal(self.child.id(), signal);
        let status = wait_bounded(&mut self.child);
        // The reader ends at the end of the output, now that watch has ended.
        let rest = std::iter::from_fn(|| self.next(Duration::from_secs(10)).map(|(_, v)| v)).collect();
        (status, self.stderr(), rest)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn claude_folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("sample-traces/claude-code"), &dir.path().join("claude-code"));
    let file = dir.path().join("claude-code/-home-u-proj/2a1b6d4c-8e3f-4a9b-8c21-3d4e5f6a7b8c.jsonl");
    (dir, file)
}

/// A Claude Code call and its result, the result stored as a success while
/// its text says it failed: a hidden error.
fn claude_hidden(n: usize) -> String {
    let session = "2a1b6d4c-8e3f-4a9b-8c21-3d4e5f6a7b8c";
    let call = serde_json::json!({"sessionId": session, "uuid": format!("w-call-{n}"), "timestamp": "2026-04-03T10:00:00.000Z",
        "type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": format!("toolu_w{n}"),
        "name": "mcp__github__get_issue", "input": {"issue": n}}]}});
    let result = serde_json::json!({"sessionId": session, "uuid": format!("w-res-{n}"), "timestamp": "2026-04-03T10:00:01.000Z",
        "type": "user", "message": {"role": "user", "content": [{"tool_use_id": format!("toolu_w{n}"), "type": "tool_result",
        "content": format!("Error: 404 Not Found: issue {n} does not exist")}]}});
    format!("{call}\n{result}\n")
}

fn append(path: &Path, text: &str) -> Instant {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
    Instant::now()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The events of `--from-start` are the scan's: its hidden and flagged
/// errors and its guard-blind streaks, on a database and on transcripts.
#[test]
fn from_start_the_events_are_the_scans() {
    for sample in ["sample-traces/crush.db", "sample-traces/claude-code", "tests/fixtures/peri_small.sql"] {
        let dir;
        let path = if sample.ends_with(".sql") {
            dir = tempfile::tempdir().unwrap();
            db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql")).display().to_string()
        } else {
            sample.to_string()
        };
        let report = scan_json(&[&path], &[]);
        let out = run_in(root(), &["watch", &path, "--from-start", "--timeout", "0", "--format", "ndjson"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let events: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let count = |kind: &str| events.iter().filter(|e| e["kind"] == kind).count() as u64;
        let (_, flagged, hidden) = totals(&report);
        assert_eq!(count("hidden-error"), hidden, "{sample}");
        assert!(hidden > 0 || sample.contains("claude"), "{sample} has hidden errors");
        assert_eq!(count("flagged-error"), flagged, "{sample}");
        let streaks = finding_messages(&report, "guard-blind-streak").len() as u64;
        assert_eq!(count("guard-blind-streak"), streaks, "{sample}");
        // Every key once.
        let mut keys: Vec<String> = events
            .iter()
            .map(|e| format!("{}|{}|{}|{}|{}", e["source"], e["session"], e["call_id"], e["seq"], e["kind"]))
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "{sample}: an event twice");
    }
}

/// Every event validates against schema/events-v1.schema.json.
#[test]
fn events_follow_their_schema() {
    let text = std::fs::read_to_string(root().join("schema/events-v1.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap();
    let out = run_in(
        root(),
        &[
            "watch",
            "sample-traces/claude-code",
            "sample-traces/crush.db",
            "--from-start",
            "--timeout",
            "0",
            "--format",
            "ndjson",
        ],
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 10);
    let kinds: std::collections::BTreeSet<String> = lines
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(
                validator.is_valid(&v),
                "{l}: {:?}",
                validator.iter_errors(&v).map(|e| e.to_string()).collect::<Vec<_>>()
            );
            v["kind"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(kinds.contains("abandoned-failure") && kinds.contains("hidden-error"), "{kinds:?}");
}

/// A hidden error appended to a transcript is an event within a second
/// (the median of three writes), each once; nothing is printed at start.
#[test]
fn a_hidden_error_appended_to_a_transcript_arrives_within_a_second() {
    let (dir, file) = claude_folder();
    let w = Watching::start(&[dir.path().join("claude-code").to_str().unwrap(), "--format", "ndjson"]);
    assert!(w.next(Duration::from_millis(300)).is_none(), "what exists is judged silently");
    let mut took = Vec::new();
    for n in 1..=3 {
        let wrote = append(&file, &claude_hidden(n));
        let (at, e) = w.next(Duration::from_secs(5)).expect("an event for the appended line");
        assert_eq!(
            (e["kind"].as_str(), e["call_id"].as_str()),
            (Some("hidden-error"), Some(format!("toolu_w{n}").as_str()))
        );
        assert_eq!(e["category"], "not-found");
        took.push(at - wrote);
    }
    assert!(median(took.clone()) <= Duration::from_secs(1), "transcript write-to-event latency: {took:?}");
    assert!(w.drain(Duration::from_millis(500)).is_empty(), "each event once");
}

/// The same in a SQLite store in WAL mode (the Crush sample), read while
/// a writer holds a transaction open: the writer is never blocked, an
/// uncommitted row is no event, a committed one is within a second.
#[test]
fn a_hidden_error_committed_to_a_database_arrives_within_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crush.db");
    std::fs::copy(root().join("sample-traces/crush.db"), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    let w = Watching::start(&[db.to_str().unwrap(), "--format", "ndjson"]);
    let insert = |n: usize| {
        let session = "5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10";
        let call = format!(
            r#"[{{"type":"tool_call","data":{{"id":"toolu_w{n}","name":"bash","input":"{{\"command\":\"make\"}}","finished":true}}}}]"#
        );
        let result = format!(
            r#"[{{"type":"tool_result","data":{{"tool_call_id":"toolu_w{n}","name":"bash","content":"make: *** No rule to make target. Stop.\n\nExit code 2","is_error":false}}}}]"#
        );
        let t = 1756730000 + n as i64 * 10;
        conn.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?1, ?2, 'assistant', ?3, 'm', ?4, ?4), (?5, ?2, 'tool', ?6, '', ?7, ?7)",
            rusqlite::params![format!("w{n}a"), session, call, t, format!("w{n}b"), result, t + 1],
        )
        .unwrap();
    };
    // A writer holding a transaction open is not blocked, and what it has
    // not committed is no event.
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    insert(0);
    assert!(w.next(Duration::from_millis(800)).is_none(), "an uncommitted row is no event");
    let wrote = Instant::now();
    conn.execute_batch("COMMIT").unwrap();
    let (at, e) = w.next(Duration::from_secs(5)).expect("the committed row's event");
    assert_eq!((e["kind"].as_str(), e["call_id"].as_str()), (Some("hidden-error"), Some("toolu_w0")));
    let mut took = vec![at - wrote];
    for n in 1..=2 {
        insert(n);
        let wrote = Instant::now();
        let (at, e) =
            w.next(Duration::from_secs(5)).unwrap_or_else(|| panic!("no event for the new row: {}", w.stderr()));
        assert_eq!(e["call_id"], format!("toolu_w{n}"));
        took.push(at - wrote);
    }
    assert!(median(took.clone()) <= Duration::from_secs(1), "database write-to-event latency: {took:?}");
    assert!(w.drain(Duration::from_millis(500)).is_empty(), "each event once");
    let (status, err) = w.stop("TERM");
    assert_eq!(status.code(), Some(0), "SIGTERM ends watch cleanly: {err}");
}

/// A Peri database that grows is read by the sessions that have new rows
/// (a session that goes on, a new one); a deleted row makes the next read
/// whole. Either way each new failure is one event, and no old one again.
#[test]
fn a_growing_peri_database_gives_each_new_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    let w = Watching::start(&[db.to_str().unwrap(), "--format", "ndjson"]);
    w.wait_stderr("new events follow");
    let add = |thread: &str, n: usize| {
        let call = format!("toolu_grow{n}");
        let a = format!(
            r#"{{"role":"assistant","id":"grow-a{n}","content":[{{"type":"tool_use","id":"{call}","name":"Read","input":{{"path":"x{n}.rs"}}}}]}}"#
        );
        let t = format!(
            r#"{{"role":"tool","id":"grow-t{n}","tool_call_id":"{call}","content":"Error: ENOENT: no such file or directory, open 'x{n}.rs'","is_error":false}}"#
        );
        conn.execute(
            "INSERT INTO messages (message_id, thread_id, role, content) VALUES (?1, ?2, 'assistant', ?3), (?4, ?2, 'tool', ?5)",
            rusqlite::params![format!("grow-a{n}"), thread, a, format!("grow-t{n}"), t],
        )
        .unwrap();
    };
    let old = "019e2a00-0000-7000-8000-00000000000a";
    // Every event so far, by (kind, call id): none twice.
    let seen = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let expect = |n: usize| {
        let (_, e) = w.next(Duration::from_secs(5)).unwrap_or_else(|| panic!("no event for row {n}: {}", w.stderr()));
        assert_eq!(
            (e["kind"].as_str(), e["call_id"].as_str()),
            (Some("hidden-error"), Some(&*format!("toolu_grow{n}")))
        );
        // Any other event of the write (none expected: a session written
        // while watch runs ends only after --idle, or when watch ends).
        for e in std::iter::once(e).chain(w.drain(Duration::from_millis(400))) {
            let key = (e["kind"].to_string(), e["call_id"].to_string());
            assert!(seen.borrow_mut().insert(key.clone()), "an event twice: {key:?}");
            assert!(e["call_id"].as_str().is_some_and(|c| c.starts_with("toolu_grow")), "an old event again: {e}");
        }
    };
    // An old session goes on, twice.
    add(old, 0);
    expect(0);
    add(old, 1);
    expect(1);
    // A new session.
    conn.execute(
        "INSERT INTO threads (id, title, created_at, updated_at) VALUES ('grow-thread', 't', '2026-07-01T10:00:00+00:00', '2026-07-01T10:00:00+00:00')",
        [],
    )
    .unwrap();
    add("grow-thread", 2);
    expect(2);
    // A row deleted, then one more failure: the read after is whole.
    conn.execute("DELETE FROM messages WHERE message_id = 'grow-a0'", []).unwrap();
    add(old, 3);
    expect(3);
    let (status, err) = w.stop("TERM");
    assert_eq!(status.code(), Some(0), "{err}");
}

/// A rewrite that keeps the earlier lines (an editor's save, a rotation
/// by copy) and a truncation report only what is new; a file replaced by
/// another (new inode) too.
#[test]
fn rewritten_and_truncated_files_report_only_new_lines() {
    let (dir, file) = claude_folder();
    let w = Watching::start(&[dir.path().join("claude-code").to_str().unwrap(), "--format", "ndjson", "--poll", "50"]);
    let before = std::fs::read_to_string(&file).unwrap();
    // Replaced (new inode) with the same lines and one new error.
    let tmp = dir.path().join("new.jsonl.tmp");
    std::fs::write(&tmp, format!("{before}{}", claude_hidden(7))).unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    let events = w.drain(Duration::from_millis(1500));
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["call_id"], "toolu_w7");
    // Truncated, then written again from the start: nothing new.
    std::fs::write(&file, "").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&file, format!("{before}{}", claude_hidden(7))).unwrap();
    assert!(w.drain(Duration::from_millis(1000)).is_empty(), "lines seen before are no new events");
    let (status, _) = w.stop("INT");
    assert_eq!(status.code(), Some(0), "SIGINT ends watch with 0");
}

/// A PATH that does not exist yet is waited for (said once); a file that
/// goes away is said once and the rest is still followed.
#[test]
fn stores_appear_and_disappear() {
    let dir = tempfile::tempdir().unwrap();
    let later = dir.path().join("later.db");
    let (_keep, file) = claude_folder();
    let folder = file.parent().unwrap().parent().unwrap().to_path_buf();
    let w = Watching::start(&[later.to_str().unwrap(), folder.to_str().unwrap(), "--format", "ndjson"]);
    assert!(w.stderr().contains("later.db: does not exist yet; waiting for it"), "{}", w.stderr());
    // It appears: what it holds is new.
    std::fs::copy(root().join("sample-traces/crush.db"), &later).unwrap();
    let events = w.drain(Duration::from_millis(1500));
    let scan = scan_json(&[later.to_str().unwrap()], &[]);
    let (_, flagged, hidden) = totals(&scan);
    assert_eq!(events.iter().filter(|e| e["kind"] == "hidden-error").count() as u64, hidden);
    assert_eq!(events.iter().filter(|e| e["kind"] == "flagged-error").count() as u64, flagged);
    // A transcript goes away; another one still reports.
    let other = folder.join("-home-u-proj/agent-b2.jsonl");
    std::fs::remove_file(&other).unwrap();
    w.wait_stderr("agent-b2.jsonl: disappeared");
    append(&file, &claude_hidden(9));
    let (_, e) = w.next(Duration::from_secs(5)).expect("the rest is still followed");
    assert_eq!(e["call_id"], "toolu_w9");
    std::fs::remove_file(&later).unwrap();
    w.wait_stderr("later.db: disappeared; waiting for it to come back");
    let err = w.stderr();
    assert_eq!(err.matches("does not exist yet").count(), 1, "{err}");
    assert_eq!(err.matches("agent-b2.jsonl: disappeared").count(), 1, "{err}");
}

/// --exec runs the command once per event, in order, the event's JSON on
/// its standard input; a failing command is reported and watch goes on.
#[test]
fn exec_runs_a_command_per_event() {
    let (dir, file) = claude_folder();
    let log = dir.path().join("events.log");
    let script = dir.path().join("hook.sh");
    std::fs::write(&script, format!("#!/bin/sh\ncat >> '{}'\n", log.display())).unwrap();
    let cmd = format!("sh '{}'", script.display());
    let w = Watching::start(&[dir.path().join("claude-code").to_str().unwrap(), "--exec", &cmd]);
    append(&file, &claude_hidden(1));
    append(&file, &claude_hidden(2));
    let start = Instant::now();
    while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 2 {
        assert!(start.elapsed() < Duration::from_secs(10), "the command did not run for both events");
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let ids: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["call_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["toolu_w1", "toolu_w2"]);
    drop(w);
    // A failing command: reported on stderr, and watch carries on.
    let w = Watching::start(&[dir.path().join("claude-code").to_str().unwrap(), "--exec", "exit 3"]);
    append(&file, &claude_hidden(3));
    w.wait_stderr("--exec: event 1: the command exit status: 3");
    append(&file, &claude_hidden(4));
    w.wait_stderr("--exec: event 2:");
}

/// A reader that goes away (`watch | head -1`) ends watch at the next
/// event, with status 0.
#[test]
fn a_closed_pipe_ends_watch() {
    let (dir, file) = claude_folder();
    let mut child = Command::new(BIN)
        .args(["watch", dir.path().join("claude-code").to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("new events follow") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "watch ended before watching");
    }
    append(&file, &claude_hidden(1));
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.contains("hidden-error"), "{first}");
    // The pipe is closed now: the next event ends it.
    append(&file, &claude_hidden(2));
    let status = wait_bounded(&mut child);
    assert_eq!(status.code(), Some(0));
}

/// --listen refuses an address beyond loopback unless --listen-any.
#[test]
fn listen_is_loopback_unless_asked() {
    let out = run_in(root(), &["watch", "sample-traces/crush.db", "--listen", "0.0.0.0:0", "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--listen-any"), "{}", stderr(&out));
}

/// A session with no write for --idle seconds has ended: its failure that
/// no later call of the tool followed is an abandoned-failure event then,
/// not before.
#[test]
fn a_failure_left_at_the_end_of_a_session_is_abandoned_when_it_goes_idle() {
    let (dir, file) = claude_folder();
    let w = Watching::start(&[dir.path().join("claude-code").to_str().unwrap(), "--format", "ndjson", "--idle", "1"]);
    let wrote = append(&file, &claude_hidden(5));
    let (_, first) = w.next(Duration::from_secs(5)).expect("the hidden error");
    assert_eq!(first["kind"], "hidden-error");
    let (at, e) = w.next(Duration::from_secs(5)).expect("the abandoned failure, once the session is idle");
    assert_eq!((e["kind"].as_str(), e["call_id"].as_str()), (Some("abandoned-failure"), Some("toolu_w5")));
    assert!(at - wrote >= Duration::from_millis(900), "not before --idle: {:?}", at - wrote);
    assert!(w.drain(Duration::from_millis(1500)).is_empty(), "once");
}

/// GET over loopback; (status line, body).
fn http_get(addr: &str, path: &str) -> (String, String) {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.to_string(), body.to_string())
}

/// The sum of `falseok_tool_errors_total` with signal="hidden".
fn hidden_total(body: &str) -> f64 {
    body.lines()
        .filter(|l| l.starts_with("falseok_tool_errors_total{") && l.contains("signal=\"hidden\""))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

/// --listen serves Prometheus text at /metrics, with the scan's counts,
/// and the counters follow what watch judges.
#[test]
fn listen_serves_metrics_that_follow_the_events() {
    let (dir, file) = claude_folder();
    let folder = dir.path().join("claude-code");
    // A free port: bind 0, note it, let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let w = Watching::start(&[folder.to_str().unwrap(), "--format", "ndjson", "--listen", &addr]);
    assert!(w.stderr().contains(&format!("serving metrics at http://{addr}/metrics")), "{}", w.stderr());
    let (head, body) = http_get(&addr, "/metrics");
    assert!(head.starts_with("HTTP/1.1 200") && head.contains("text/plain; version=0.0.4"), "{head}");
    let (_, _, hidden) = totals(&scan_json(&[folder.to_str().unwrap()], &[]));
    assert_eq!(hidden_total(&body), hidden as f64, "{body}");
    assert!(body.contains("falseok_tool_calls_total{agent=\"claude-code\""), "{body}");
    append(&file, &claude_hidden(1));
    w.next(Duration::from_secs(5)).expect("the event");
    let (_, after) = http_get(&addr, "/metrics");
    assert_eq!(hidden_total(&after), hidden as f64 + 1.0, "{after}");
    // The scrape passes promtool, as `falseok metrics` does (tests/cli/metrics.rs).
    if std::env::var("FALSEOK_SKIP_PROMTOOL").as_deref() != Ok("1") {
        let mut check = Command::new("promtool")
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promtool (Debian's prometheus package); FALSEOK_SKIP_PROMTOOL=1 skips this check");
        check.stdin.take().unwrap().write_all(after.as_bytes()).unwrap();
        let said = check.wait_with_output().unwrap();
        assert!(
            said.status.success(),
            "promtool: {}{}",
            String::from_utf8_lossy(&said.stdout),
            String::from_utf8_lossy(&said.stderr)
        );
    }
    assert!(http_get(&addr, "/other").0.starts_with("HTTP/1.1 404"));
}

/// A PATH that is no trace is an error at start, as for scan: one line, exit 2.
#[test]
fn a_path_that_is_no_trace_is_an_error() {
    let out = run_in(root(), &["watch", "Cargo.toml", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().filter(|l| l.contains("error")).count(), 1, "{err}");
    assert!(err.contains("Cargo.toml"), "{err}");
}

/// Secrets in an error text never reach the events (either format), unless --no-redact.
#[test]
fn events_are_redacted() {
    let secret = "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA";
    let (dir, file) = claude_folder();
    append(&file, &claude_hidden(1).replace("does not exist", &format!("does not exist (token {secret})")));
    let folder = dir.path().join("claude-code");
    for format in ["text", "ndjson"] {
        let out =
            run_in(root(), &["watch", folder.to_str().unwrap(), "--from-start", "--timeout", "0", "--format", format]);
        let text = stdout(&out);
        assert!(text.contains("toolu_w1") || text.contains("issue 1 does not exist"), "{text}");
        assert!(!text.contains(secret), "{format}: {text}");
    }
    let out = run_in(
        root(),
        &["watch", folder.to_str().unwrap(), "--from-start", "--timeout", "0", "--format", "ndjson", "--no-redact"],
    );
    assert!(stdout(&out).contains(secret));
}

/// The events of `watch --from-start --timeout 0` over `path` now, as
/// (kind, session, call id).
fn from_start_keys(path: &Path) -> Vec<(String, String, String)> {
    let out =
        run_in(root(), &["watch", path.to_str().unwrap(), "--from-start", "--timeout", "0", "--format", "ndjson"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).lines().map(|l| event_key(&serde_json::from_str(l).unwrap())).collect()
}

fn event_key(e: &Value) -> (String, String, String) {
    let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
    (s("kind"), s("session"), s("call_id"))
}

/// A Peri store whose threads are there when watch starts and whose
/// messages come after, in three commits (reliability-4's D3: its script
/// read watch's output only at the end, so a full pipe held watch, which
/// looked like lost events). Every event of the final store comes once,
/// more than a pipe's worth of them, read as they come.
#[test]
fn a_peri_store_whose_messages_come_after_its_threads_gives_every_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("threads.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    let sample = root().join("sample-traces/peri-postmortem.db");
    conn.execute("ATTACH DATABASE ?1 AS src", [sample.to_str().unwrap()]).unwrap();
    let schema: Vec<String> = conn
        .prepare("SELECT sql FROM src.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for sql in &schema {
        conn.execute_batch(sql).unwrap();
    }
    conn.execute_batch("INSERT INTO threads SELECT * FROM src.threads").unwrap();
    let rows: i64 = conn.query_row("SELECT max(rowid) FROM src.messages", [], |r| r.get(0)).unwrap();
    let w = Watching::start(&[db.to_str().unwrap(), "--format", "ndjson"]);
    let mut live: Vec<(String, String, String)> = Vec::new();
    for part in 1..=3 {
        conn.execute(
            "INSERT INTO messages SELECT * FROM src.messages WHERE rowid > ?1 AND rowid <= ?2 ORDER BY rowid",
            [rows * (part - 1) / 3, rows * part / 3],
        )
        .unwrap();
        // What a watch started now would print (but the abandoned failures,
        // which a live watch reports when a session ends) comes.
        let want: Vec<_> = from_start_keys(&db).into_iter().filter(|k| k.0 != "abandoned-failure").collect();
        let start = Instant::now();
        while !want.iter().all(|k| live.contains(k)) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "commit {part}: {} of {} events",
                live.len(),
                want.len()
            );
            if let Some((_, e)) = w.next(Duration::from_millis(200)) {
                live.push(event_key(&e));
            }
        }
    }
    let (status, err, rest) = w.stop_with_rest("TERM");
    assert_eq!(status.code(), Some(0), "{err}");
    live.extend(rest.iter().map(event_key));
    let mut want = from_start_keys(&db);
    assert!(want.len() > 300, "the sample's events: {}", want.len());
    want.sort();
    live.sort();
    assert_eq!(live, want, "every event of the final store, once");
}

/// A session whose recorded times are old, written while watch runs: a
/// live watch reports the same events as `--from-start` over the final
/// file. Its first failure is not abandoned at first sight (the session
/// goes on), and its last one is reported when watch ends, since the
/// session's own time says it has ended (reliability-4's D14).
#[test]
fn a_live_watch_and_from_start_agree_on_abandoned_failures() {
    let (dir, _) = claude_folder();
    let folder = dir.path().join("claude-code");
    let file = folder.join("-home-u-proj/0ld5e551-0000-4000-8000-000000000001.jsonl");
    let w = Watching::start(&[folder.to_str().unwrap(), "--format", "ndjson"]);
    // Each call and its failing result in one write; dated long ago.
    let call = |n: usize| {
        claude_hidden(n).replace("2a1b6d4c-8e3f-4a9b-8c21-3d4e5f6a7b8c", "0ld5e551-0000-4000-8000-000000000001")
    };
    std::fs::write(&file, call(1)).unwrap();
    let mut live = vec![event_key(&w.next(Duration::from_secs(10)).expect("the first call's event").1)];
    append(&file, &call(2));
    // Everything the second write gives (its hidden error; an abandoned
    // failure of the first call, if it were wrongly reported, comes before it).
    loop {
        let (_, e) = w.next(Duration::from_secs(10)).expect("the second call's event");
        live.push(event_key(&e));
        if e["call_id"] == "toolu_w2" {
            break;
        }
    }
    let (status, err, rest) = w.stop_with_rest("TERM");
    assert_eq!(status.code(), Some(0), "{err}");
    live.extend(rest.iter().map(event_key));
    let mine = |keys: Vec<(String, String, String)>| -> Vec<(String, String)> {
        let mut k: Vec<_> = keys.into_iter().filter(|k| k.1.starts_with("0ld5e551")).map(|k| (k.0, k.2)).collect();
        k.sort();
        k
    };
    let want = mine(from_start_keys(&folder));
    assert!(want.contains(&("abandoned-failure".into(), "toolu_w2".into())), "{want:?}");
    assert_eq!(mine(live), want);
}

/// SIGTERM during `--exec`: no queued command starts, the running one
/// (and what it started) is killed after a short grace, and watch ends,
/// saying how many events were not run (reliability-4's D11: it ran the
/// whole queue, each up to --exec-timeout).
#[test]
fn sigterm_stops_exec_without_running_the_queue() {
    let (dir, file) = claude_folder();
    let pids = dir.path().join("pids");
    // The command starts a child of its own and waits for it: the group is killed, not only sh.
    let cmd = format!("sleep 120 & echo $! >> '{}'; wait", pids.display());
    let w = Watching::start(&[
        dir.path().join("claude-code").to_str().unwrap(),
        "--format",
        "ndjson",
        "--exec",
        &cmd,
        "--exec-timeout",
        "1000",
    ]);
    for n in 1..=4 {
        append(&file, &claude_hidden(n));
    }
    let mut got = 0;
    while got < 4 {
        w.next(Duration::from_secs(10)).expect("an event per call");
        got += 1;
    }
    let start = Instant::now();
    while std::fs::read_to_string(&pids).map_or(true, |t| t.trim().is_empty()) {
        assert!(start.elapsed() < Duration::from_secs(20), "the command never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    // wait_bounded fails after 60 s; the queue would take 4 × 120 s.
    let (status, err) = w.stop("TERM");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("--exec: event 1: watch was stopped; the command still ran"), "{err}");
    assert!(err.contains("the command was not run for") && err.contains("queued events"), "{err}");
    let ran = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(ran.lines().count(), 1, "no queued command started: {ran}");
    let sleep = ran.trim();
    // Killed: gone, or a zombie until its new parent reaps it.
    let start = Instant::now();
    while std::fs::read_to_string(format!("/proc/{sleep}/stat")).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(start.elapsed() < Duration::from_secs(20), "the command's child {sleep} is still running");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM while watch's output is not being read (a full pipe blocks
/// the write of an event): watch still ends, with status 0, saying so.
#[test]
fn sigterm_ends_watch_whose_output_is_not_read() {
    let (dir, file) = claude_folder();
    let mut child = Command::new(BIN)
        .args(["watch", dir.path().join("claude-code").to_str().unwrap(), "--format", "ndjson"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("new events follow") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "watch ended before watching");
    }
    // Far more events than a pipe holds (64 KiB), in one write.
    append(&file, &(100..1100).map(claude_hidden).collect::<String>());
    // The first event is out: watch is writing the rest, and blocks once the pipe is full.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("hidden-error"), "{first}");
    send_signal(child.id(), "TERM");
    let status = wait_bounded(&mut child);
    assert_eq!(status.code(), Some(0));
    let mut said = String::new();
    std::io::Read::read_to_string(&mut err, &mut said).unwrap();
    assert!(said.contains("5 s after the signal, before watch could end by itself"), "{said}");
    drop(out);
}

/// Issue 50 (item 7): watch's lines fit the terminal as scan's tables do
/// (`COLUMNS` or the terminal's width), in aligned columns, and never show
/// the category a second time as the rule.
#[test]
fn watch_lines_fit_the_terminal() {
    let mut shown = 0;
    for &sample in SAMPLES.iter().filter(|s| !s.contains("peri-post")) {
        for columns in [60, 80, 120] {
            let out = Command::new(BIN)
                .args(["watch", sample, "--from-start", "--timeout", "0"])
                .current_dir(root())
                .env("COLUMNS", columns.to_string())
                .output()
                .unwrap();
            assert!(out.status.success(), "{sample}: {}", stderr(&out));
            let text = stdout(&out);
            for line in text.lines() {
                shown += 1;
                let width = line.chars().count();
                assert!(width <= columns, "{sample} at {columns} columns: a line of {width}:\n{line}");
            }
        }
    }
    assert!(shown >= 100, "only {shown} lines shown");
    // The columns line up: the category starts at the same column on every line.
    let out = Command::new(BIN)
        .args(["watch", "sample-traces/crush.db", "--from-start", "--timeout", "0"])
        .current_dir(root())
        .env("COLUMNS", "120")
        .output()
        .unwrap();
    let text = stdout(&out);
    let starts: std::collections::BTreeSet<usize> =
        text.lines().filter_map(|l| l.find("not-found").or_else(|| l.find("tests-failed"))).collect();
    assert_eq!(starts.len(), 1, "unaligned:\n{text}");
    assert!(!text.contains("not-found  not-found"), "the category repeated as the rule:\n{text}");
}
