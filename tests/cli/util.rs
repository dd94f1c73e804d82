//! Helpers for the integration tests: fixture databases built from SQL text,
//! the real binary run on them, and readers of its JSON report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_falseok");

pub(crate) fn fixture_sql(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Build a database at `dir/file` from SQL text.
pub(crate) fn db_from_sql(dir: &Path, file: &str, sql: &str) -> PathBuf {
    let path = dir.join(file);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    drop(conn);
    path
}

/// Run falseok in `dir` with `args` and no colour- or width-related
/// environment (`COLUMNS` fits the output even in a pipe).
pub(crate) fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir).env_remove("NO_COLOR").env_remove("COLUMNS").output().unwrap()
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub(crate) fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "falseok failed: {}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", stdout(o)))
}

/// Compare `actual` with the golden file `tests/golden/<name>`; with
/// `UPDATE_GOLDEN=1` the golden file is rewritten instead.
pub(crate) fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display()));
    assert!(expected == actual, "{} differs from the output:\n{actual}", path.display());
}

/// How `actual` differs from the golden file `tests/golden/<name>` (its
/// first differing line), or `None`; with `UPDATE_GOLDEN=1` the golden file
/// is rewritten instead.
pub(crate) fn golden_mismatch(name: &str, actual: &str) -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return Some(format!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display())),
    };
    if expected == actual {
        return None;
    }
    let (mut want, mut have) = (expected.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (want.next(), have.next()) {
            (w, h) if w == h && w.is_some() => line += 1,
            (None, None) => return Some(format!("{} differs from the output in its line endings", path.display())),
            (w, h) => {
                return Some(format!(
                    "{} differs from the output at line {line}:\n  golden: {}\n  output: {}",
                    path.display(),
                    w.unwrap_or("(end)"),
                    h.unwrap_or("(end)")
                ));
            }
        }
    }
}

/// Every file in `dir`, sorted.
pub(crate) fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The repository root (samples, fixtures, docs).
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The small Peri fixture (tests/fixtures/peri_small.sql) as `threads.db` in a new folder.
pub(crate) fn small() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    dir
}

/// The per-tool row of `tool` in a JSON report.
pub(crate) fn tool<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// The JSON report of `falseok scan PATHS… --format json EXTRA…`, which
/// must exit 0 or 1.
pub(crate) fn scan_json(paths: &[&str], extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["scan"];
    args.extend_from_slice(paths);
    args.extend_from_slice(&["--format", "json"]);
    args.extend_from_slice(extra);
    let out = run_in(root(), &args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    json(&out)
}

/// (calls, flagged, hidden) of a whole JSON report.
pub(crate) fn totals(v: &serde_json::Value) -> (u64, u64, u64) {
    let t = &v["totals"];
    (t["calls"].as_u64().unwrap(), t["flagged_errors"].as_u64().unwrap(), t["hidden_errors"].as_u64().unwrap())
}

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A Claude Code line of session `s-1`: an assistant message whose one
/// call `id` runs `make` in Bash.
pub(crate) fn claude_make_call(id: &str) -> String {
    format!(
        r#"{{"type":"assistant","sessionId":"s-1","uuid":"a-{id}","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"make"}}}}]}}}}"#
    )
}

/// A Claude Code transcript of session `s-1` whose second line (the result
/// of call `t1`) is cut in half: two calls, a malformed line between them.
pub(crate) fn transcript_with_a_cut_line() -> String {
    let call = claude_make_call;
    let result = r#"{"type":"user","sessionId":"s-1","uuid":"r-1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2","is_error":true}]}}"#;
    format!("{}\n{}\n{}\n", call("t1"), &result[..result.len() / 2], call("t2"))
}

/// Is this source file a unit-test module of its own: a `tests.rs` whose
/// `mod.rs` declares it as `#[cfg(test)] mod tests;` (as `src/rules/tests.rs`)?
/// Such a file is test code throughout, as the tail of a file after
/// `#[cfg(test)]` is. A `tests.rs` declared otherwise fails the check.
pub(crate) fn is_unit_test_file(f: &Path) -> bool {
    if f.file_name().is_none_or(|n| n != "tests.rs") {
        return false;
    }
    let parent = std::fs::read_to_string(f.with_file_name("mod.rs")).unwrap_or_default();
    assert!(parent.contains("#[cfg(test)]\nmod tests;"), "{}: not a unit-test module", f.display());
    true
}

/// (calls, errors, flagged, hidden) of a tool in a JSON report.
pub(crate) fn counts(v: &serde_json::Value, name: &str) -> (u64, u64, u64, u64) {
    let t = tool(v, name);
    let n = |k: &str| t[k].as_u64().unwrap();
    (n("calls"), n("errors"), n("flagged_errors"), n("hidden_errors"))
}

/// The messages of a report's findings of `rule`, in report order.
pub(crate) fn finding_messages<'a>(v: &'a serde_json::Value, rule: &str) -> Vec<&'a str> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| f["message"].as_str().unwrap())
        .collect()
}

/// A format of the registry (`falseok::formats()`) and the sample it
/// carries (`FormatInfo::sample`).
pub(crate) struct Sample {
    /// The format's name (`--source-format`, `sources[].format`).
    pub format: &'static str,
    /// `sample-traces/<sample>`, relative to the repository root.
    pub path: &'static str,
    /// Its golden in `tests/golden/`: the sample's name without extension, `.json`.
    pub golden: String,
    /// Read only when named with `--source-format` (Cursor): never detected.
    pub opt_in: bool,
}

/// Every format's sample, in registry order. A new format brings its sample
/// here by its `FormatInfo`, with no test file to edit.
pub(crate) static REGISTRY: std::sync::LazyLock<Vec<Sample>> = std::sync::LazyLock::new(|| {
    let opt_in: Vec<&str> = falseok::opt_in_formats().collect();
    falseok::formats()
        .map(|f| {
            let stem = f.sample.rsplit_once('.').map_or(f.sample, |(stem, _)| stem);
            Sample {
                format: f.name(),
                path: Box::leak(format!("sample-traces/{}", f.sample).into_boxed_str()),
                golden: format!("{stem}.json"),
                opt_in: opt_in.contains(&f.name()),
            }
        })
        .collect()
});

/// One shipped sample of every format that is detected (all but the opt-in
/// ones), in registry order. `tests/golden/samples.txt` is the same list for
/// the DuckDB and fleet checks (tests/engines/).
pub(crate) static SAMPLES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| REGISTRY.iter().filter(|s| !s.opt_in).map(|s| s.path).collect());

/// SAMPLES with Peri's small database (`peri-postfix.db`, 828 KB) in place of
/// its registered sample (`peri-postmortem.db`, 18 MB, 15,257 calls), for
/// the loops that run a command over every sample: they test each format's
/// path through a command, which the small one takes too, and the large one
/// made them the longest tests of the suite. The large one keeps its golden
/// (tests/cli/samples.rs) and the postmortem's own tests.
pub(crate) static LOOP_SAMPLES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    SAMPLES
        .iter()
        .map(|&s| if s == "sample-traces/peri-postmortem.db" { "sample-traces/peri-postfix.db" } else { s })
        .collect()
});

#[test]
fn the_loop_samples_are_every_format_with_the_small_peri_database() {
    assert_eq!(LOOP_SAMPLES.len(), SAMPLES.len());
    assert!(LOOP_SAMPLES.contains(&"sample-traces/peri-postfix.db"), "{:?}", *LOOP_SAMPLES);
    assert!(!LOOP_SAMPLES.iter().any(|s| s.contains("postmortem")), "{:?}", *LOOP_SAMPLES);
    assert!(root().join("sample-traces/peri-postfix.db").is_file());
}

#[test]
fn every_format_carries_a_sample_that_exists() {
    assert!(REGISTRY.len() >= 25, "{}", REGISTRY.len());
    for s in REGISTRY.iter() {
        assert!(root().join(s.path).exists(), "{}: its sample {} does not exist", s.format, s.path);
    }
    let mut paths: Vec<&str> = REGISTRY.iter().map(|s| s.path).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), REGISTRY.len(), "two formats carry the same sample");
}

/// The list the Python checks read is the registry's, blessed with
/// `UPDATE_GOLDEN=1` like any golden.
#[test]
fn the_engines_sample_list_is_the_registry() {
    let mut text = SAMPLES.join("\n");
    text.push('\n');
    assert_golden("samples.txt", &text);
}

/// The small Peri fixture with `rows` more user messages of `blob` random
/// bytes each (hex), so its data spans many pages past the schema page.
pub(crate) fn padded_small_sql(rows: u32, blob: u32) -> String {
    let mut sql = fixture_sql("peri_small.sql");
    sql.push_str(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
         INSERT INTO messages SELECT 'pad' || i, '019e2a00-0000-7000-8000-00000000000a', 'user',
         '{{\"role\":\"user\",\"content\":\"' || hex(randomblob({blob})) || '\"}}' FROM n;"
    ));
    sql
}

/// Run falseok in `dir` with `args`, `TMPDIR` set to `tmp`, and a minute
/// to finish: a run still going after that is a hang, killed and failed.
pub(crate) fn run_bounded(dir: &Path, tmp: &Path, args: &[&std::ffi::OsStr]) -> Output {
    use std::time::Duration;
    let child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_or_fail(child, Duration::from_secs(60), &format!("{args:?}"))
}

/// The output of `child`, which must end within `limit`: one still running
/// then is a hang, killed and failed with what it wrote to stderr.
pub(crate) fn wait_or_fail(mut child: std::process::Child, limit: std::time::Duration, what: &str) -> Output {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("{what} still running after {limit:?} (a hang): {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Every path under `dir`, relative, sorted (folders too).
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(root).unwrap().display().to_string());
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                walk(root, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Make a FIFO at `path` (mkfifo(1)).
pub(crate) fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// `files` Claude Code transcripts of `calls` calls each in `dir` (about
/// 1 KB per call, one in five a hidden error): a folder that takes seconds
/// to read.
pub(crate) fn big_claude_folder(dir: &Path, files: usize, calls: usize) {
    use std::io::Write;
    std::fs::create_dir_all(dir).unwrap();
    let pad = "lorem ipsum ".repeat(40);
    for k in 0..files {
        let session = format!("{k:08}-1111-4000-8000-000000000000");
        let file = std::fs::File::create(dir.join(format!("{session}.jsonl"))).unwrap();
        let mut w = std::io::BufWriter::new(file);
        for i in 0..calls {
            let tool = ["Bash", "Edit", "Read", "Grep"][i % 4];
            let call = serde_json::json!({"sessionId": session, "uuid": format!("c{k}-{i}"), "type": "assistant",
                "timestamp": "2026-04-02T09:00:00.000Z", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": format!("toolu_{k}_{i}"), "name": tool, "input": {"command": format!("make t{}", i % 97)}}]}});
            let text = if i % 5 == 0 { format!("Error: step {} failed {pad}", i % 50) } else { format!("ok {pad}") };
            let result = serde_json::json!({"sessionId": session, "uuid": format!("r{k}-{i}"), "type": "user",
                "timestamp": "2026-04-02T09:00:01.000Z", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("toolu_{k}_{i}"), "content": text}]}});
            writeln!(w, "{call}\n{result}").unwrap();
        }
        w.flush().unwrap();
    }
}

/// Send `signal` (a name such as INT, or KILL) to process `pid` (kill(1)).
pub(crate) fn send_signal(pid: u32, signal: &str) {
    let ok = Command::new("kill").arg(format!("-{signal}")).arg(pid.to_string()).status().unwrap().success();
    assert!(ok, "kill -{signal} {pid}");
}

/// Is signal `number` ignored in this process, and so in every child it
/// starts (a test run under `nohup` ignores SIGHUP)? falseok keeps a signal
/// ignored at its start ignored, by design; a test of what a signal does
/// can only send one that is not. Read from Linux's `/proc/self/status`
/// (`SigIgn`); elsewhere, not ignored.
pub(crate) fn ignored_here(number: u32) -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| number >= 1 && mask & (1 << (number - 1)) != 0)
}

/// Wait up to a minute for `child` to end: a run still going is a hang.
pub(crate) fn wait_bounded(child: &mut std::process::Child) -> std::process::ExitStatus {
    use std::time::{Duration, Instant};
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running after 60 s (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The scratch folder a running falseok made in `tmp`, once its database
/// exists; `None` if `child` ended first.
pub(crate) fn scratch_of(child: &mut std::process::Child, tmp: &Path) -> Option<PathBuf> {
    use std::time::{Duration, Instant};
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        let found = std::fs::read_dir(tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("falseok-scratch-"));
        if let Some(dir) = found.filter(|d| d.join("transcripts.db").exists()) {
            return Some(dir);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    panic!("no scratch folder in {} after 60 s", tmp.display());
}

/// One call of a fixture session: tool, arguments, result text, the
/// result's error flag and the call id.
pub(crate) type FxCall<'a> = (&'a str, serde_json::Value, &'a str, bool, &'a str);

/// A Peri database at `dir/file` holding `sessions` (thread id, calls),
/// every text stored as given (built with bound parameters, not SQL text).
pub(crate) fn peri_db(dir: &Path, file: &str, sessions: &[(&str, Vec<FxCall<'_>>)]) -> PathBuf {
    let path = dir.join(file);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, cwd TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL,
           updated_at TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, parent_thread_id TEXT);
         CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL);",
    )
    .unwrap();
    // One transaction: a commit per row would make a large fixture slow.
    conn.execute_batch("BEGIN").unwrap();
    let mut n = 0u64;
    for (thread, calls) in sessions {
        conn.execute(
            "INSERT INTO threads (id, title, created_at, updated_at) VALUES (?1, 's', '2026-06-01T10:00:00+00:00', '2026-06-01T10:00:00+00:00')",
            [thread],
        )
        .unwrap();
        for (tool, input, text, flag, id) in calls {
            let call = serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}]});
            let result = serde_json::json!({"role": "tool", "tool_call_id": id, "content": text, "is_error": flag});
            for (role, body) in [("assistant", call), ("tool", result)] {
                n += 1;
                conn.execute(
                    "INSERT INTO messages VALUES (?1, ?2, ?3, ?4)",
                    [
                        format!("019e82a0-3d00-7000-8000-{n:012}"),
                        thread.to_string(),
                        role.to_string(),
                        body.to_string(),
                    ],
                )
                .unwrap();
            }
        }
    }
    conn.execute_batch("COMMIT").unwrap();
    path
}

/// Copy the folder `from` to `to`, recursively.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
