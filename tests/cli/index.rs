//! The index of what was judged (src/index/, docs/index.md): a re-run,
//! from the index or after the input changed, prints what `--no-index`
//! prints, byte for byte; an appended Peri database is read from its last
//! row; the index is private, keyed by the options, rebuilt when corrupt,
//! never beside an input, and keeps no secret.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::*;

/// falseok with the index under `cache` (as `$XDG_CACHE_HOME`), the
/// index's log on.
fn indexed(cache: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(root())
        .env("XDG_CACHE_HOME", cache)
        .env("FALSEOK_INDEX_LOG", "1")
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .output()
        .unwrap()
}

fn plain(args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.push("--no-index");
    run_in(root(), &all)
}

/// What the index did, from its log lines; the other stderr lines apart.
fn split(o: &Output) -> (Vec<String>, String) {
    let err = stderr(o);
    let (log, rest): (Vec<&str>, Vec<&str>) = err.lines().partition(|l| l.starts_with("falseok: index: "));
    let rest: String = rest.iter().map(|l| format!("{l}\n")).collect();
    (log.iter().map(|l| l.trim_start_matches("falseok: index: ").to_string()).collect(), rest)
}

/// The run through the index says and prints exactly what `--no-index` does.
fn same(cache: &Path, args: &[&str]) -> Vec<String> {
    let a = indexed(cache, args);
    let b = plain(args);
    let (log, err) = split(&a);
    assert_eq!(stdout(&a), stdout(&b), "stdout of {args:?}");
    assert_eq!(err, stderr(&b), "stderr of {args:?}");
    assert_eq!(a.status.code(), b.status.code(), "exit code of {args:?}");
    log
}

/// Every file under `dir` (or `dir` itself) dated 10 s back, as an input
/// is when it is read again later: a file changed within 2 s of a read is
/// read again (the racy rule, tested on its own below).
fn age(dir: &Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    let all = if dir.is_dir() { files_under(dir) } else { vec![dir.to_path_buf()] };
    for p in all.iter().filter(|p| p.is_file()) {
        std::fs::File::options().append(true).open(p).unwrap().set_modified(then).unwrap();
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every sample database, in every output, is the same from the index as
/// from a whole read (Peri's small database: LOOP_SAMPLES); then several
/// sources at once, and a filter (another key: read again).
#[test]
fn every_database_sample_in_every_output_is_the_same_from_the_index() {
    let cache = tempfile::tempdir().unwrap();
    let databases: Vec<&str> = LOOP_SAMPLES.iter().copied().filter(|s| root().join(s).is_file()).collect();
    assert!(databases.len() >= 10, "{databases:?}");
    every_output_is_the_same_from_the_index(&databases, cache.path());
    // Each source's entry from a run of its own is kept in a run of both.
    same(cache.path(), &["scan", "sample-traces/claude-code", "--format", "json"]);
    let two = ["scan", "sample-traces/crush.db", "sample-traces/claude-code", "--format", "json"];
    assert!(same(cache.path(), &two).iter().all(|l| l.starts_with("kept")));
    let filtered = ["scan", "sample-traces/peri-postfix.db", "--tool", "Edit", "--streak-threshold", "3"];
    assert!(same(cache.path(), &filtered)[0].starts_with("read"));
    assert!(same(cache.path(), &filtered)[0].starts_with("kept"));
}

#[test]
fn every_transcript_sample_in_every_output_is_the_same_from_the_index() {
    let cache = tempfile::tempdir().unwrap();
    let folders: Vec<&str> = LOOP_SAMPLES.iter().copied().filter(|s| root().join(s).is_dir()).collect();
    assert!(folders.len() >= 10, "{folders:?}");
    every_output_is_the_same_from_the_index(&folders, cache.path());
}

fn every_output_is_the_same_from_the_index(samples: &[&str], cache: &Path) {
    for sample in samples {
        // The first run reads; every later one keeps, whatever it prints.
        let log = same(cache, &["scan", sample, "--format", "json"]);
        assert!(log.len() == 1 && log[0].starts_with("read"), "{sample}: {log:?}");
        for format in ["json", "table", "markdown", "csv"] {
            let log = same(cache, &["scan", sample, "--format", format]);
            assert!(log.len() == 1 && log[0].starts_with("kept"), "{sample} {format}: {log:?}");
        }
        same(cache, &["check", sample, "--format", "github"]);
        same(cache, &["sessions", sample, "--format", "json", "--limit", "0"]);
    }
}

/// A new session of a Peri database is read alone; a session that grew,
/// or one deleted, makes the database be read again.
#[test]
fn an_appended_peri_database_is_read_from_its_last_row() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let db = dir.path().join("peri.db");
    std::fs::copy(root().join("sample-traces/peri-postmortem.db"), &db).unwrap();
    let db_s = db.to_str().unwrap();
    let sql = |q: &str| {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(q).unwrap();
        drop(c);
        age(&db);
    };
    age(&db);
    let busiest = "(SELECT thread_id FROM messages GROUP BY thread_id ORDER BY count(*) DESC, thread_id LIMIT 1)";
    assert!(same(&cache, &["scan", db_s, "--format", "json"])[0].starts_with("read"));
    assert!(same(&cache, &["sessions", db_s, "--format", "json", "--limit", "0"])[0].starts_with("kept"));
    // A copy of the busiest thread under a new id: a new session.
    let copy_busiest = |suffix: &str, day: &str| {
        sql(&format!(
            "INSERT INTO threads (id, title, cwd, created_at, updated_at) SELECT id || '{suffix}', 'copy', cwd,
               '{day}T00:00:00Z', '{day}T00:00:00Z' FROM threads WHERE id = {busiest};
             INSERT INTO messages (message_id, thread_id, role, content) SELECT message_id || '{suffix}',
               thread_id || '{suffix}', role, content FROM messages WHERE thread_id = {busiest} ORDER BY rowid;"
        ))
    };
    copy_busiest("-new", "2026-12-01");
    let log = same(&cache, &["scan", db_s, "--format", "json"]);
    assert!(log[0].starts_with("appended to") && log[0].ends_with("(261 sessions)"), "{log:?}");
    let v = json(&plain(&["scan", db_s, "--format", "json"]));
    assert_eq!(v["totals"]["sessions"], 261);
    for format in ["table", "markdown", "csv"] {
        assert!(same(&cache, &["scan", db_s, "--format", format])[0].starts_with("kept"));
    }
    // `sessions` shares the entry (the same options): kept, with the new session's row.
    assert!(same(&cache, &["sessions", db_s, "--format", "json", "--limit", "0"])[0].starts_with("kept"));
    // Another new session: appended to again, the rows' signature kept by
    // the last run (worked out from the one before and the rows since) as
    // a count of every row would give it.
    copy_busiest("-newer", "2026-12-02");
    let log = same(&cache, &["scan", db_s, "--format", "json"]);
    assert!(log[0].starts_with("appended to") && log[0].ends_with("(262 sessions)"), "{log:?}");
    // A result added to an old session: read again, whole.
    sql("INSERT INTO messages (message_id, thread_id, role, content) SELECT message_id || '-again', thread_id, role,
           content FROM messages WHERE rowid = (SELECT max(rowid) FROM messages WHERE role = 'tool'
           AND thread_id NOT LIKE '%-new' AND thread_id NOT LIKE '%-newer')");
    assert!(same(&cache, &["scan", db_s, "--format", "json"])[0].starts_with("read"));
    // A few rows deleted, their pages still in use: the rows' signature tells.
    sql(&format!(
        "DELETE FROM messages WHERE rowid IN (SELECT rowid FROM messages WHERE thread_id = {busiest} LIMIT 3)"
    ));
    assert!(same(&cache, &["scan", db_s, "--format", "json"])[0].starts_with("read"));
    // A deleted session: read again (its pages are freed).
    sql(&format!("DELETE FROM messages WHERE thread_id = {busiest}"));
    assert!(same(&cache, &["scan", db_s, "--format", "json"])[0].starts_with("read"));
    assert!(same(&cache, &["scan", db_s, "--format", "json"])[0].starts_with("kept"));
}

/// Transcripts: a line appended, a new file and a deleted file are seen.
#[test]
fn a_changed_transcript_folder_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let folder = dir.path().join("claude");
    copy_tree(&root().join("sample-traces/claude-code"), &folder);
    age(&folder);
    let f = folder.to_str().unwrap();
    let args = ["scan", f, "--format", "json"];
    assert!(same(&cache, &args)[0].starts_with("read"));
    assert!(same(&cache, &args)[0].starts_with("kept"));
    let mut transcripts: Vec<PathBuf> =
        files_under(&folder).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect();
    transcripts.sort();
    let first = transcripts[0].clone();
    // Appended: the last line again, as a new record (a duplicate to the importer).
    let text = std::fs::read_to_string(&first).unwrap();
    let last = text.lines().last().unwrap().to_string();
    std::fs::write(&first, format!("{text}{last}\n")).unwrap();
    age(&folder);
    assert!(same(&cache, &args)[0].starts_with("read"));
    // A new file: a copy of another under a new session id.
    let second = std::fs::read_to_string(&transcripts[1]).unwrap();
    let id = transcripts[1].file_stem().unwrap().to_str().unwrap().to_string();
    std::fs::write(folder.join("copy-of-a-session.jsonl"), second.replace(&id, "0e0e0e0e-copy")).unwrap();
    age(&folder);
    assert!(same(&cache, &args)[0].starts_with("read"));
    assert!(same(&cache, &args)[0].starts_with("kept"));
    // A deleted file drops out.
    std::fs::remove_file(&first).unwrap();
    let log = same(&cache, &args);
    assert!(log[0].starts_with("read"), "{log:?}");
}

/// A Claude Code transcript line of `session`, its `uuid` and `parent` (a
/// JSON value), with the members of `body`.
fn claude_line(session: &str, uuid: &str, parent: &str, body: &str) -> String {
    format!(
        r#"{{"parentUuid": {parent}, "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": "{session}", "version": "2.1.30", "uuid": "{uuid}", "timestamp": "2026-04-02T09:00:01.000Z", {body}}}"#
    )
}

/// The members of an assistant line calling `make test` (Bash) as `id`.
fn make_test(id: &str) -> String {
    format!(
        r#""type": "assistant", "message": {{"model": "claude-sonnet-4-5", "id": "msg_1", "type": "message", "role": "assistant", "content": [{{"type": "tool_use", "id": "{id}", "name": "Bash", "input": {{"command": "make test"}}}}]}}"#
    )
}

/// The members of a user line with the failed result of the call `id`,
/// not flagged as an error.
fn make_failed(id: &str) -> String {
    format!(
        r#""type": "user", "message": {{"role": "user", "content": [{{"tool_use_id": "{id}", "type": "tool_result", "content": "Error: make: *** [test] Error 2"}}]}}"#
    )
}

/// A result in one file whose call is in a file of another session: the
/// result is counted in the call's session, which binds the two files (as
/// do the call id and the line id they share), so a change to the
/// result's file reads the call's file again, and the call keeps its
/// result.
#[test]
fn a_file_bound_by_a_call_id_is_read_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let folder = dir.path().join("claude").join("-home-u-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let call = claude_line("5e551011-aaaa-4bbb-8ccc-000000000001", "u-call", "null", &make_test("toolu_bound"));
    let result =
        claude_line("5e551011-aaaa-4bbb-8ccc-000000000002", "u-result", r#""u-call""#, &make_failed("toolu_bound"));
    std::fs::write(folder.join("5e551011-aaaa-4bbb-8ccc-000000000001.jsonl"), format!("{call}\n")).unwrap();
    let results = folder.join("5e551011-aaaa-4bbb-8ccc-000000000002.jsonl");
    std::fs::write(&results, format!("{result}\n")).unwrap();
    age(dir.path());
    let root_dir = dir.path().join("claude");
    let f = root_dir.to_str().unwrap();
    let args = ["scan", f, "--format", "json"];
    assert!(same(&cache, &args)[0].starts_with("read"));
    let v = json(&plain(&args));
    assert_eq!((&v["totals"]["errors"], &v["totals"]["orphan_results"]), (&1.into(), &0.into()), "paired across files");
    // A line added to the result's file only.
    let text = claude_line(
        "5e551011-aaaa-4bbb-8ccc-000000000002",
        "u-more",
        r#""u-result""#,
        r#""type": "user", "message": {"role": "user", "content": "thanks"}"#,
    );
    std::fs::write(&results, format!("{result}\n{text}\n")).unwrap();
    // Only the changed file is dated back: the call's file is unchanged.
    age(&results);
    let log = same(&cache, &args);
    assert!(log[0].starts_with("read in part"), "{log:?}");
}

/// A resumed session's file starts with copies of the lines of the session
/// it resumes (same uuids, same tool ids, its own session id): a whole read
/// counts each call once. The two files share no session, only those ids,
/// so when the copy grows, only the keys bind the original to it: read
/// without the original, the copied call would be counted twice.
#[test]
fn files_sharing_only_ids_are_read_together() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let folder = dir.path().join("claude").join("-home-u-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let (first, resumed) = ("5e551011-aaaa-4bbb-8ccc-000000000001", "5e551011-aaaa-4bbb-8ccc-000000000002");
    let (call, result) = (make_test("toolu_copied"), make_failed("toolu_copied"));
    let lines = |session: &str| {
        [claude_line(session, "u-call", "null", &call), claude_line(session, "u-result", r#""u-call""#, &result)]
    };
    let [c, r] = lines(first);
    std::fs::write(folder.join(format!("{first}.jsonl")), format!("{c}\n{r}\n")).unwrap();
    let [c, r] = lines(resumed);
    let copy = folder.join(format!("{resumed}.jsonl"));
    std::fs::write(&copy, format!("{c}\n{r}\n")).unwrap();
    age(dir.path());
    let f = dir.path().join("claude");
    let args = ["scan", f.to_str().unwrap(), "--format", "json"];
    assert!(same(&cache, &args)[0].starts_with("read"));
    let v = json(&plain(&args));
    assert_eq!((&v["totals"]["calls"], &v["totals"]["errors"]), (&1.into(), &1.into()), "one call, counted once");
    // The resumed session goes on: a line added to its file only.
    let more = claude_line(
        resumed,
        "u-more",
        r#""u-result""#,
        r#""type": "user", "message": {"role": "user", "content": "go on"}"#,
    );
    std::fs::write(&copy, format!("{c}\n{r}\n{more}\n")).unwrap();
    // Only the copy is dated back: the original is unchanged since the
    // last run, so nothing but the ids can bring it into this one.
    age(&copy);
    let log = same(&cache, &args);
    assert!(log[0].starts_with("read in part"), "{log:?}");
}

/// The transcript folders whose files can be read alone: each is read in
/// part after a change to one of its files.
const SEPARABLE: [&str; 3] = ["sample-traces/claude-code", "sample-traces/codex", "sample-traces/gemini"];

/// Every file of every transcript sample folder changed in turn (its
/// time, a line added, a line taken off, removed), and a new file beside
/// them: each re-run says and prints what a whole read does. The folders
/// of formats whose files can be read alone are read in part. Two tests
/// (the separable folders, the others), so both test threads share the work.
#[test]
fn every_change_to_a_separable_transcript_folder_is_read_in_part_as_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    for sample in SEPARABLE {
        assert!(root().join(sample).is_dir(), "{sample}");
        assert!(every_change_gives_a_whole_read(sample, dir.path(), &cache), "{sample} was never read in part");
    }
}

#[test]
fn every_change_to_any_other_transcript_folder_gives_what_a_whole_read_gives() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let others: Vec<&str> =
        SAMPLES.iter().copied().filter(|s| root().join(s).is_dir() && !SEPARABLE.contains(s)).collect();
    assert!(others.len() >= 8, "{others:?}");
    for sample in others {
        every_change_gives_a_whole_read(sample, dir.path(), &cache);
    }
}

/// Copy `sample` under `dir`, change each of its files in turn and check
/// every re-run through the index against a whole read; whether any run
/// read the folder in part.
fn every_change_gives_a_whole_read(sample: &str, dir: &Path, cache: &Path) -> bool {
    let mut in_part = std::collections::BTreeSet::new();
    let folder = dir.join(sample.replace('/', "_"));
    copy_tree(&root().join(sample), &folder);
    age(&folder);
    let f = folder.to_str().unwrap().to_string();
    let runs: [Vec<&str>; 3] = [
        vec!["scan", &f, "--format", "json"],
        vec!["sessions", &f, "--format", "json", "--limit", "0"],
        vec!["check", &f, "--format", "github"],
    ];
    let all = |what: &str, in_part: &mut std::collections::BTreeSet<String>| {
        for args in &runs {
            let log = same(cache, args);
            assert!(log.len() == 1, "{sample} {what} {args:?}: {log:?}");
            if log[0].starts_with("read in part") {
                in_part.insert(sample.to_string());
            }
        }
    };
    all("first", &mut in_part);
    let files: Vec<PathBuf> = files_under(&folder).into_iter().filter(|p| p.is_file()).collect();
    for (i, file) in files.iter().enumerate() {
        let name = file.strip_prefix(&folder).unwrap().display().to_string();
        let then = std::time::SystemTime::now() - std::time::Duration::from_secs(100 + i as u64);
        std::fs::File::options().append(true).open(file).unwrap().set_modified(then).unwrap();
        all(&format!("{name} touched"), &mut in_part);
        let text = std::fs::read(file).unwrap();
        if name.ends_with(".jsonl") {
            // Its first line again at the end, then its last line taken off.
            let first = text.split(|b| *b == b'\n').next().unwrap_or_default().to_vec();
            let mut more = text.clone();
            if !more.ends_with(b"\n") {
                more.push(b'\n');
            }
            more.extend_from_slice(&first);
            more.push(b'\n');
            std::fs::write(file, &more).unwrap();
            age(file);
            all(&format!("{name} grown"), &mut in_part);
            let body = text.strip_suffix(b"\n").unwrap_or(&text);
            let cut = body.iter().rposition(|b| *b == b'\n').map_or(0, |n| n + 1);
            std::fs::write(file, &text[..cut]).unwrap();
            age(file);
            all(&format!("{name} cut"), &mut in_part);
        }
        std::fs::write(file, &text).unwrap();
        age(file);
    }
    // A copy of a file under another name, then the first file gone.
    if let Some(first) = files.iter().find(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "json")) {
        let copy = first.with_file_name(format!("copy-{}", first.file_name().unwrap().to_str().unwrap()));
        std::fs::copy(first, &copy).unwrap();
        age(&copy);
        all("a copy added", &mut in_part);
        std::fs::remove_file(first).unwrap();
        let out = plain(&runs[0]);
        if out.status.success() {
            all("a file removed", &mut in_part);
        }
    }
    !in_part.is_empty()
}

#[test]
fn a_corrupt_entry_is_rebuilt_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let args = ["scan", "sample-traces/crush.db", "--format", "json"];
    same(&cache, &args);
    let entries: Vec<PathBuf> =
        files_under(&cache).into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    std::fs::write(&entries[0], b"{\"path\": [not json").unwrap();
    let a = indexed(&cache, &args);
    let b = plain(&args);
    assert_eq!(stdout(&a), stdout(&b));
    let (log, err) = split(&a);
    assert!(log[0].starts_with("read"), "{log:?}");
    assert_eq!(err.matches("is unreadable").count(), 1, "{err}");
    assert!(err.contains("crush.db is read again and the entry rebuilt"), "{err}");
    // Rebuilt: the next run keeps it, and warns no more.
    let (log, err) = split(&indexed(&cache, &args));
    assert!(log[0].starts_with("kept") && err.is_empty(), "{log:?} {err}");
}

#[cfg(unix)]
#[test]
fn the_index_is_private_in_the_cache_never_beside_an_input() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    let db = inputs.join("crush.db");
    std::fs::copy(root().join("sample-traces/crush.db"), &db).unwrap();
    age(&db);
    let before = tree(&inputs);
    let cache = dir.path().join("cache");
    same(&cache, &["scan", db.to_str().unwrap()]);
    assert_eq!(tree(&inputs), before, "nothing is written beside the input");
    let all = files_under(&cache.join("falseok"));
    assert!(all.iter().any(|p| p.is_file()), "{all:?}");
    for p in all.iter().chain([&cache.join("falseok")]) {
        let mode = std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{}", p.display());
    }
    // --no-index keeps nothing; --index DIR keeps it there instead.
    let other = dir.path().join("other-cache");
    let o = Command::new(BIN)
        .args(["scan", db.to_str().unwrap(), "--no-index"])
        .env("XDG_CACHE_HOME", &other)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!other.exists(), "--no-index wrote {}", other.display());
    let chosen = dir.path().join("chosen");
    let o = Command::new(BIN)
        .args(["scan", db.to_str().unwrap(), "--index", chosen.to_str().unwrap()])
        .env("XDG_CACHE_HOME", &other)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!other.exists() && files_under(&chosen).iter().any(|p| p.is_file()));
}

#[test]
fn the_index_keeps_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    crate::redaction::secret_db(dir.path());
    let db = dir.path().join("secrets.db");
    age(&db);
    let cache = dir.path().join("cache");
    let db_s = db.to_str().unwrap();
    same(&cache, &["scan", db_s, "--format", "json"]);
    same(&cache, &["sessions", db_s, "--format", "json"]);
    let mut kept = String::new();
    for p in files_under(&cache).iter().filter(|p| p.is_file()) {
        kept.push_str(&String::from_utf8_lossy(&std::fs::read(p).unwrap()));
    }
    assert!(kept.contains("REDACTED") || kept.contains("redacted"), "the entry holds the redacted text");
    for s in crate::redaction::SECRETS {
        assert!(!kept.contains(s), "the index keeps {s}");
    }
    // `--no-redact` is another key: its entry may hold them, and never serves a redacted run.
    let shown = indexed(&cache, &["scan", db_s, "--format", "json", "--no-redact"]);
    assert!(split(&shown).0[0].starts_with("read"));
    assert!(crate::redaction::SECRETS.iter().any(|s| stdout(&shown).contains(s)));
    let again = indexed(&cache, &["scan", db_s, "--format", "json"]);
    assert!(split(&again).0[0].starts_with("kept"));
    assert!(crate::redaction::SECRETS.iter().all(|s| !stdout(&again).contains(s)));
}

/// A file changed within 2 s before it was read may change again in the
/// same tick of the file system's clock, unseen by its time and size: its
/// entry is not trusted, however alike the file looks.
#[test]
fn a_file_changed_just_before_its_read_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let db = dir.path().join("crush.db");
    std::fs::copy(root().join("sample-traces/crush.db"), &db).unwrap();
    let args = ["scan", db.to_str().unwrap(), "--format", "json"];
    assert!(same(&cache, &args)[0].starts_with("read"));
    assert!(same(&cache, &args)[0].starts_with("read"), "fresh: not trusted");
    age(&db);
    assert!(same(&cache, &args)[0].starts_with("read"), "its time changed");
    assert!(same(&cache, &args)[0].starts_with("kept"));
}

/// falseok in `dir` with `envs` set (and `HOME` apart from the user's,
/// unless given), the index's log on, within a minute (a hang fails).
fn run_env(dir: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).env("FALSEOK_INDEX_LOG", "1").env_remove("NO_COLOR").env_remove("XDG_CACHE_HOME");
    cmd.env("HOME", std::env::temp_dir().join("falseok-test-no-home"));
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_or_fail(child, std::time::Duration::from_secs(60), &format!("{args:?}"))
}

/// The run in `dir` gave what `--no-index` gives there (stdout, exit
/// code), and said once, in one line holding `why`, that it did not use
/// the index.
fn refused(o: &Output, dir: &Path, args: &[&str], why: &str) {
    let b = run_in(dir, &[args, &["--no-index"]].concat());
    assert!(stdout(o) == stdout(&b), "{args:?}: not the output of --no-index");
    assert_eq!(o.status.code(), b.status.code(), "{args:?}");
    let (log, err) = split(o);
    let extra: Vec<&str> = err.lines().filter(|l| !stderr(&b).contains(l)).collect();
    assert_eq!(extra.len(), 1, "{args:?}: {err}");
    assert!(extra[0].contains(why) && extra[0].contains("reading without it"), "{args:?}: {err}");
    assert!(log.iter().all(|l| l.starts_with("read")), "{log:?}");
}

/// A crush.db copy in `dir`, dated back; its path.
fn crush_in(dir: &Path) -> String {
    let db = dir.join("crush.db");
    std::fs::copy(root().join("sample-traces/crush.db"), &db).unwrap();
    age(&db);
    db.to_str().unwrap().to_string()
}

/// Issue 55, D4: an index folder another user owns, or others can write,
/// is refused with one line and read without, and never `chmod`ed
/// (`--index /tmp` made `/tmp` `0700`). A folder of one's own that others
/// may only read is used as it is. An entry others can write is not taken.
#[cfg(unix)]
#[test]
fn an_index_folder_others_own_or_can_write_is_refused_and_left_as_it_is() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let db = crush_in(dir.path());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o7777;
    let set = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    let args = ["check", db.as_str(), "--format", "csv"];
    // Open to all, as /tmp (and with the sticky bit); or only a folder of it.
    for (open, at) in [(0o1777, ""), (0o777, ""), (0o775, ""), (0o777, "index-v1")] {
        let ix = dir.path().join(format!("ix-{open:o}-{}", at.len()));
        std::fs::create_dir_all(ix.join(at)).unwrap();
        set(&ix.join(at), open);
        let o = run_env(root(), &[&args[..], &["--index", ix.to_str().unwrap()]].concat(), &[]);
        refused(&o, root(), &args, "writable by others");
        assert_eq!(mode(&ix.join(at)), open, "never chmod'ed");
        assert!(files_under(&ix).iter().all(|p| p.is_dir()), "nothing written in {}", ix.display());
    }
    // One's own, readable by others: used, and left so.
    let ix = dir.path().join("mine");
    std::fs::create_dir(&ix).unwrap();
    set(&ix, 0o755);
    let with = [&args[..], &["--index", ix.to_str().unwrap()]].concat();
    assert!(split(&run_env(root(), &with, &[])).0[0].starts_with("read"));
    assert!(split(&run_env(root(), &with, &[])).0[0].starts_with("kept"));
    assert_eq!(mode(&ix), 0o755);
    // An entry others can write is not taken: rebuilt, with one warning.
    let entry = files_under(&ix).into_iter().find(|p| p.extension().is_some_and(|e| e == "json")).unwrap();
    set(&entry, 0o666);
    let o = run_env(root(), &with, &[]);
    assert!(split(&o).0[0].starts_with("read"), "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("is unreadable (writable by others").count(), 1, "{}", stderr(&o));
    // Another user's folder (as root only: it takes a chown), holding an
    // entry that would pass the check: refused, not chmod'ed, still theirs.
    if std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0) {
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        let o = run_env(root(), &[&args[..], &["--index", theirs.to_str().unwrap()]].concat(), &[]);
        assert!(split(&o).0[0].starts_with("read"));
        for p in files_under(&theirs).iter().chain([&theirs]) {
            std::os::unix::fs::lchown(p, Some(65534), Some(65534)).unwrap();
        }
        set(&theirs, 0o755);
        let o = run_env(root(), &[&args[..], &["--index", theirs.to_str().unwrap()]].concat(), &[]);
        refused(&o, root(), &args, "owned by another user, uid 65534");
        let meta = std::fs::metadata(&theirs).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o7777), (65534, 0o755));
    }
}

/// Issue 55, D6: an entry that is a FIFO or a link (to `/dev/zero`, or to
/// a good entry elsewhere) is never opened through: no hang, no read
/// without end; one warning, and the source is read.
#[cfg(unix)]
#[test]
fn an_index_entry_that_is_no_regular_file_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = crush_in(dir.path());
    let cache = dir.path().join("cache");
    let args = ["scan", db.as_str(), "--format", "json"];
    assert!(same(&cache, &args)[0].starts_with("read"));
    let entry = files_under(&cache).into_iter().find(|p| p.extension().is_some_and(|e| e == "json")).unwrap();
    let good = dir.path().join("good.json");
    std::fs::copy(&entry, &good).unwrap();
    let kept = std::fs::read(&good).unwrap();
    for (what, make) in [
        ("FIFO", &(|p: &Path| mkfifo(p)) as &dyn Fn(&Path)),
        ("/dev/zero", &|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
        ("a link to an entry", &|p: &Path| std::os::unix::fs::symlink(&good, p).unwrap()),
    ] {
        std::fs::remove_file(&entry).unwrap();
        make(&entry);
        let o = run_env(root(), &args, &[("XDG_CACHE_HOME", &cache)]);
        let (log, err) = split(&o);
        assert!(stdout(&o) == stdout(&plain(&args)), "{what}: not the output of --no-index");
        assert!(log[0].starts_with("read"), "{what}: {log:?}");
        assert_eq!(err.matches("is unreadable").count(), 1, "{what}: {err}");
        // Never followed: the new entry replaced the link, not its target.
        assert_eq!(std::fs::read(&good).unwrap(), kept, "{what}");
        assert!(std::fs::symlink_metadata(&entry).is_ok_and(|m| m.is_file()), "{what}");
        assert!(split(&run_env(root(), &args, &[("XDG_CACHE_HOME", &cache)])).0[0].starts_with("kept"));
    }
}

/// Issue 55, D7: an entry whose counts do not add up (one more hidden
/// error, a count past any scan's) stopped every later run (exit 2) until
/// the cache was removed. It is rebuilt with one warning; so are a
/// transcript folder's parts that do not add up.
#[test]
fn an_entry_whose_counts_do_not_add_up_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let db = crush_in(dir.path());
    let folder = dir.path().join("claude");
    copy_tree(&root().join("sample-traces/claude-code"), &folder);
    age(&folder);
    let cache = dir.path().join("cache");
    let edit = |ext: &str, change: &dyn Fn(&mut serde_json::Value)| {
        for p in files_under(&cache).iter().filter(|p| p.extension().is_some_and(|e| e == ext)) {
            let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
            change(&mut v);
            std::fs::write(p, serde_json::to_vec(&v).unwrap()).unwrap();
        }
    };
    let hidden = |v: &mut serde_json::Value| {
        let t = &mut v["partial"]["report"]["totals"];
        t["hidden_errors"] = (t["hidden_errors"].as_u64().unwrap() + 1).into();
    };
    let huge = |v: &mut serde_json::Value| {
        for k in ["calls", "errors", "hidden_errors", "content_errors"] {
            v["partial"]["report"]["totals"][k] = u64::MAX.into();
        }
    };
    for check in ["scan", "check"] {
        let args = [check, db.as_str(), folder.to_str().unwrap(), "--format", "csv"];
        for (what, change) in
            [("one more hidden error", &hidden as &dyn Fn(&mut serde_json::Value)), ("u64::MAX", &huge)]
        {
            same(&cache, &args);
            edit("json", change);
            let o = indexed(&cache, &args);
            let b = plain(&args);
            assert!(stdout(&o) == stdout(&b) && o.status.code() == b.status.code(), "{check} {what}: not --no-index");
            let (log, err) = split(&o);
            assert!(log.iter().all(|l| l.starts_with("read")), "{what}: {log:?}");
            assert_eq!(err.matches("is unreadable").count(), 2, "{what}: {err}");
            assert!(split(&indexed(&cache, &args)).0.iter().all(|l| l.starts_with("kept")), "rebuilt");
        }
    }
    // A session part of the folder that does not add up, met when a file
    // changes and the folder is read in part.
    let args = ["scan", folder.to_str().unwrap(), "--format", "json"];
    same(&cache, &args);
    edit("parts", &|v| {
        let t = &mut v["sessions"][0]["partial"]["report"]["totals"];
        t["errors"] = (t["calls"].as_u64().unwrap() + 1).into();
    });
    let file = files_under(&folder).into_iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap();
    std::fs::OpenOptions::new().append(true).open(&file).unwrap().set_modified(std::time::SystemTime::now()).unwrap();
    age(&file);
    let o = indexed(&cache, &args);
    assert!(stdout(&o) == stdout(&plain(&args)), "not the output of --no-index");
    let (log, err) = split(&o);
    assert!(log[0].starts_with("read"), "{log:?}");
    assert_eq!(err.matches("is unreadable").count(), 1, "{err}");
}

/// Issue 55, D9: a rewrite of the same size whose modification time is put
/// back (`cp -p`, `rsync -t`, `touch -r`; a file removed and made again
/// on the same inode) is seen by the change time, which no one can put
/// back: the source is read again.
#[cfg(unix)]
#[test]
fn a_same_size_rewrite_with_its_time_put_back_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("claude");
    copy_tree(&root().join("sample-traces/claude-code"), &folder);
    age(&folder);
    let cache = dir.path().join("cache");
    let file = files_under(&folder).into_iter().find(|p| p.ends_with("agent-b2.jsonl")).unwrap();
    let args = ["check", folder.to_str().unwrap(), "--format", "csv"];
    for (i, how) in ["rewritten in place", "removed and made again"].iter().enumerate() {
        same(&cache, &args);
        assert!(same(&cache, &args)[0].starts_with("kept"), "{how}");
        let before = std::fs::metadata(&file).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        // The same length: a failure becomes a success, or back.
        let changed = if text.contains("\"is_error\": true") {
            text.replacen("\"is_error\": true", "\"is_error\":false", 1)
        } else {
            text.replacen("\"is_error\":false", "\"is_error\": true", 1)
        };
        assert_eq!((changed.len(), changed != text), (text.len(), true), "{how}");
        if i == 1 {
            std::fs::remove_file(&file).unwrap();
        }
        std::fs::write(&file, &changed).unwrap();
        std::fs::File::options().append(true).open(&file).unwrap().set_modified(before.modified().unwrap()).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), before.modified().unwrap());
        let log = same(&cache, &args);
        assert!(log[0].starts_with("read"), "{how}: {log:?}");
    }
}

/// Issue 55, D8 and D15: the index never goes into an input folder, by
/// `--index` or `XDG_CACHE_HOME` (the output guard refuses it as it
/// refuses `--out`), a relative `XDG_CACHE_HOME` is ignored (the XDG
/// spec), and a `HOME` that does not exist gets no `.cache` made in it.
#[cfg(unix)]
#[test]
fn the_index_never_goes_into_an_input_or_a_missing_home() {
    let dir = tempfile::tempdir().unwrap();
    let cc = dir.path().join("cc");
    copy_tree(&root().join("sample-traces/claude-code"), &cc);
    age(&cc);
    let before = tree(&cc);
    let args = ["scan", "cc", "--format", "json"];
    let inside = cc.join(".ix");
    let o = run_env(dir.path(), &[&args[..], &["--index", inside.to_str().unwrap()]].concat(), &[]);
    refused(&o, dir.path(), &args, "is inside cc");
    let o = run_env(dir.path(), &args, &[("XDG_CACHE_HOME", &cc.join("-home-u-proj"))]);
    refused(&o, dir.path(), &args, "is inside cc");
    assert_eq!(tree(&cc), before, "nothing written into the input");
    // Relative: ignored, the cache of HOME is used instead.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let o = run_env(&cc, &["scan", ".", "--format", "json"], &[("XDG_CACHE_HOME", Path::new(".")), ("HOME", &home)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&cc), before, "a relative XDG_CACHE_HOME wrote into the input");
    assert!(home.join(".cache/falseok/index-v1").is_dir());
    // No home: nothing made, one note, the same report.
    let gone = dir.path().join("nonexistent");
    let o = run_env(dir.path(), &args, &[("HOME", &gone)]);
    refused(&o, dir.path(), &args, "is not a folder");
    assert!(!gone.exists());
}

/// The headless outputs (Claude Code's and Qwen Code's stream-json, Gemini
/// CLI's, `codex exec --json`) in one folder: a run from the index prints
/// what the first run and `--no-index` print, header included (a Qwen
/// Code file is read by the Claude Code importer, its sessions Qwen's).
#[test]
fn headless_outputs_read_from_the_index_print_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let logs = dir.path().join("ci-logs");
    std::fs::create_dir_all(&logs).unwrap();
    let write = |name: &str, lines: &[serde_json::Value]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(logs.join(name), text).unwrap();
    };
    use serde_json::json;
    write(
        "qwen.jsonl",
        &[
            json!({"type": "system", "subtype": "init", "uuid": "q0", "session_id": "q-1", "tools": ["grep_search"], "qwen_code_version": "0.6.0"}),
            json!({"type": "assistant", "uuid": "q1", "session_id": "q-1", "parent_tool_use_id": null,
               "message": {"id": "m1", "content": [{"type": "tool_use", "id": "qc1", "name": "grep_search", "input": {"pattern": "x"}}]}}),
            json!({"type": "user", "uuid": "q2", "session_id": "q-1", "parent_tool_use_id": null,
               "message": {"content": [{"type": "tool_result", "tool_use_id": "qc1", "content": "Search did not complete for pattern \"x\" in path \".\". Error: Command failed: rg"}]}}),
        ],
    );
    write(
        "gemini.jsonl",
        &[
            json!({"type": "init", "timestamp": "2026-02-03T09:00:00.000Z", "session_id": "g-1", "model": "gemini-2.5-pro"}),
            json!({"type": "tool_use", "timestamp": "2026-02-03T09:00:01.000Z", "tool_name": "run_shell_command", "tool_id": "gc1", "parameters": {"command": "npm test"}}),
            json!({"type": "tool_result", "timestamp": "2026-02-03T09:00:02.000Z", "tool_id": "gc1", "status": "success", "output": "Command exited with code: 1"}),
        ],
    );
    write(
        "codex.jsonl",
        &[
            json!({"type": "thread.started", "thread_id": "c-1"}),
            json!({"type": "item.completed", "item": {"id": "item_1", "type": "command_execution", "command": "make", "aggregated_output": "make: *** [all] Error 2", "exit_code": 2, "status": "failed"}}),
            json!({"type": "turn.completed", "usage": {"input_tokens": 9, "cached_input_tokens": 0, "output_tokens": 3}}),
        ],
    );
    // The Qwen Code file alone too: its header names one format.
    let alone = dir.path().join("qwen-only");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(logs.join("qwen.jsonl"), alone.join("qwen.jsonl")).unwrap();
    for folder in [&logs, &alone] {
        for format in ["table", "json"] {
            let args = ["scan", folder.to_str().unwrap(), "--format", format];
            let first = indexed(&cache, &args);
            let again = indexed(&cache, &args);
            let none = plain(&args);
            assert_eq!(stdout(&first), stdout(&none), "{format}: the first run");
            assert_eq!(stdout(&again), stdout(&none), "{format}: from the index");
            assert_eq!(first.status.code(), none.status.code());
        }
    }
    let path = logs.to_str().unwrap();
    let rows = stdout(&run_in(root(), &["export", path]));
    let qwen = rows.lines().find(|l| l.contains("\"qc1\"")).unwrap_or_default();
    assert!(qwen.contains("\"agent\":\"qwen\"") && qwen.contains("\"hidden\":true"), "{rows}");
}
