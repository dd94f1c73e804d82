//! A gate you can trust: no silent pass on an empty window, names that must
//! exist, exit codes that do not depend on the reader, one guard for every
//! file falseok writes, and `scan` never saying that a check failed.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::*;

fn sample(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces").join(name).display().to_string()
}

/// Exit code and stderr.
fn check(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = run_in(dir, args);
    (out.status.code().unwrap(), stderr(&out))
}

#[test]
fn filters_that_match_nothing_fail_the_gate_and_say_why() {
    let dir = small();
    let d = dir.path();
    let cases: &[(&[&str], &str)] = &[
        (&["--tool", "Edti"], "--tool Edti matches no tool; tools seen: Agent, AgentResult, Bash, Edit"),
        (&["--tool", "Edti"], "did you mean Edit?"),
        (&["--tool", "Edit", "--tool", "Raed"], "--tool Raed matches no tool"),
        (&["--session", "nonexistent"], "--session nonexistent matches no session"),
        (
            &["--since", "2030-01-01"],
            "--since 2030-01-01 matches no call; the 13 calls read run from 2026-06-01T10:00:00.001+00:00",
        ),
        (&["--since", "2026-07-01", "--until", "2026-06-01"], "is not before --until"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["check", "threads.db"];
        args.extend_from_slice(extra);
        let (code, err) = check(d, &args);
        assert_eq!(code, 2, "{args:?} must not pass on nothing: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("check passed"), "{args:?}: {err}");
    }
}

#[test]
fn an_empty_database_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let schema = fixture_sql("peri_small.sql");
    // The schema without its rows: the CREATE statements only.
    let creates: String = schema.split(';').filter(|s| s.contains("CREATE TABLE")).map(|s| format!("{s};")).collect();
    db_from_sql(dir.path(), "empty.db", &creates);
    let (code, err) = check(dir.path(), &["check", "empty.db"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to judge: the sources hold no sessions"), "{err}");
    let (code, err) = check(dir.path(), &["check", "empty.db", "--allow-empty"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--allow-empty"), "{err}");
    // scan reports, with a warning, and exits 0.
    let (code, err) = check(dir.path(), &["scan", "empty.db"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: nothing to report"), "{err}");
}

#[test]
fn limits_and_fail_on_must_name_what_exists() {
    let dir = tempfile::tempdir().unwrap();
    let crush = sample("crush.db");
    let (code, err) = check(dir.path(), &["check", &crush, "--max-hidden", "100", "--max-error-rate", "Bash=2%"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--max-error-rate Bash matches no tool") && err.contains("did you mean bash?"), "{err}");
    let (code, _) = check(dir.path(), &["check", &crush, "--max-hidden", "100", "--max-error-rate", "bash=2%"]);
    assert_eq!(code, 1, "the real name is compared exactly and fails the gate");
    let (code, err) = check(dir.path(), &["check", &crush, "--fail-on", "hidden-errors"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean hidden-error?"), "{err}");
}

#[test]
fn a_failed_gate_stays_failed_when_the_reader_goes_away() {
    let dir = small();
    for _ in 0..5 {
        let mut child = Command::new(BIN)
            .args(["check", "threads.db"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Read one byte, then close the pipe, as `| head -c1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        stdout.read_exact(&mut one).unwrap();
        drop(stdout);
        assert_eq!(child.wait().unwrap().code(), Some(1), "a failed gate is 1 whatever happens to the pipe");
    }
}

#[test]
fn outputs_never_land_on_an_input_or_a_foreign_file() {
    let dir = small();
    let d = dir.path();
    let before = std::fs::read(d.join("threads.db")).unwrap();
    for cmd in ["scan", "check"] {
        let (code, err) = check(d, &[cmd, "threads.db", "--summary", "threads.db"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("is a trace given as input"), "{err}");
    }
    std::fs::copy(d.join("threads.db"), d.join("other.db")).unwrap();
    let other = std::fs::read(d.join("other.db")).unwrap();
    let (code, err) = check(d, &["scan", "threads.db", "--summary", "other.db"]);
    assert_eq!(code, 2);
    assert!(err.contains("is a SQLite database"), "{err}");
    let (code, _) = check(d, &["check", "threads.db", "--write-baseline", "other.db"]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read(d.join("threads.db")).unwrap(), before);
    assert_eq!(std::fs::read(d.join("other.db")).unwrap(), other);
    // An ordinary text file is appended to.
    std::fs::write(d.join("summary.md"), "# before\n").unwrap();
    let (code, err) = check(d, &["scan", "threads.db", "--summary", "summary.md"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.join("summary.md")).unwrap();
    assert!(text.starts_with("# before\n") && text.contains("# falseok postmortem"));
}

#[test]
fn scan_reports_and_only_check_judges() {
    let dir = small();
    for format in ["github", "markdown", "junit", "table", "html"] {
        let out = run_in(dir.path(), &["scan", "threads.db", "--format", format]);
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        assert!(!text.contains("check failed") && !text.contains("falseok check"), "scan --format {format}:\n{text}");
    }
    let out = run_in(dir.path(), &["check", "threads.db", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("::error title=falseok check::falseok check failed"));
}

/// Run `args` in a pseudo-terminal of `cols` columns (util-linux `script`)
/// and return what the terminal showed, colour sequences removed.
fn on_terminal(cols: u16, args: &[&str]) -> String {
    let cmd = format!("stty rows 40 cols {cols}; {} {} 2>/dev/null", BIN, args.join(" "));
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("COLUMNS")
        .output()
        .expect("script (util-linux) runs");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let ansi = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap();
    ansi.replace_all(&text, "").into_owned()
}

/// Run the shell command `cmd` in a pseudo-terminal (stdout and stderr a
/// terminal unless `cmd` redirects them) and return what it showed,
/// colour and cursor sequences removed.
fn terminal_shows(cmd: &str) -> String {
    let out = Command::new("script").args(["-qec", cmd, "/dev/null"]).env_remove("COLUMNS").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let ansi = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap();
    // A run slowed by a loaded machine draws the progress bar (a spinner, then `(Ns)`): not output.
    let bar = regex::Regex::new(r"[\x{2800}-\x{28FF}][^\n]*?\([0-9]+s\) *").unwrap();
    bar.replace_all(&ansi.replace_all(&text, ""), "").into_owned()
}

/// Issue 24 (new user, "nothing says what to do next"): on a terminal,
/// `scan` ends with the next commands: `examples` for the hidden errors and
/// `show` for the session with the most of them, each runnable as printed.
/// Never in a pipe, a file or a machine format.
#[test]
fn scan_on_a_terminal_ends_with_the_next_commands() {
    let crush = sample("crush.db");
    let shown = terminal_shows(&format!("stty cols 200; {BIN} scan {crush}"));
    let tail: Vec<&str> = shown.lines().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect();
    assert_eq!(
        tail,
        [
            "Next: the hidden errors, call by call:",
            &format!("  falseok examples {crush}"),
            "and the session with the most of them (2):",
            &format!("  falseok show 5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10 {crush}"),
        ],
        "{shown}"
    );
    // Each runs as printed, and shows what it says.
    for line in &tail[1..] {
        if let Some(cmd) = line.trim().strip_prefix("falseok ") {
            let args: Vec<&str> = cmd.split(' ').collect();
            let out = run_in(Path::new("."), &args);
            assert!(out.status.success(), "{cmd}: {}", stderr(&out));
            assert!(stdout(&out).contains("HIDDEN ERROR"), "{cmd}");
        }
    }
    // Nothing hidden: the errors, and no session line.
    let postfix = sample("peri-postfix.db");
    let shown = terminal_shows(&format!("{BIN} scan {postfix}"));
    assert!(shown.ends_with(&format!("Next: the errors, call by call:\n  falseok examples {postfix}\n")), "{shown}");
    // Not in a pipe, a file, or another format, not after check.
    for cmd in [
        format!("{BIN} scan {crush} | cat"),
        format!("{BIN} scan {crush} > /dev/null"),
        format!("{BIN} scan {crush} --format json"),
        format!("{BIN} scan {crush} --format markdown"),
        format!("{BIN} check {crush}"),
    ] {
        assert!(!terminal_shows(&cmd).contains("Next:"), "{cmd}");
    }
    assert!(!stderr(&run_in(Path::new("."), &["scan", &crush])).contains("Next:"));
}

/// Issue 24 (new user F6): the import phase of a transcript scan is most
/// of its time, and its progress bar says what it does and moves (bytes of
/// the files imported); then the reading phase names the source.
#[test]
fn the_transcript_import_has_a_labelled_progress_bar() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    // Calls that succeed: the import takes most of the time, the judging
    // little. The bar is drawn at once (not after a second), and then every
    // 100 ms: an import of half a second in a release build shows it move,
    // however much faster the import gets than a second.
    std::fs::create_dir(&big).unwrap();
    let pad = "lorem ipsum ".repeat(40);
    // A release build imports four times faster: four times the files.
    let files = if cfg!(debug_assertions) { 20 } else { 80 };
    for k in 0..files {
        let session = format!("{k:08}-1111-4000-8000-000000000000");
        let mut text = String::new();
        for i in 0..2_000 {
            let call = serde_json::json!({"sessionId": session, "uuid": format!("c{k}-{i}"), "type": "assistant",
                "timestamp": "2026-04-02T09:00:00.000Z", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": format!("toolu_{k}_{i}"), "name": "Read", "input": {"file_path": "/a"}}]}});
            let result = serde_json::json!({"sessionId": session, "uuid": format!("r{k}-{i}"), "type": "user",
                "timestamp": "2026-04-02T09:00:01.000Z", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("toolu_{k}_{i}"), "content": format!("ok {pad}")}]}});
            text.push_str(&format!("{call}\n{result}\n"));
        }
        std::fs::write(big.join(format!("{session}.jsonl")), text).unwrap();
    }
    let big = big.display().to_string();
    for cmd in ["scan", "examples"] {
        let shell = format!("stty rows 40 cols 120; FALSEOK_PROGRESS_AFTER_MS=0 {BIN} {cmd} {big} >/dev/null");
        let out = Command::new("script").args(["-qec", &shell, "/dev/null"]).env_remove("COLUMNS").output().unwrap();
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        let label = format!("importing {big} [");
        assert!(shown.contains(&label), "{cmd}: no {label:?} in what the terminal showed:\n{shown}");
        // It moved: some state between 0% and 100% of the import was drawn.
        let re = regex::Regex::new(&format!(r"importing {} \[[=> ]+\]\s+([0-9]+)%", regex::escape(&big))).unwrap();
        let percents: Vec<u32> = re.captures_iter(&shown).map(|c| c[1].parse().unwrap()).collect();
        assert!(percents.iter().any(|p| (1..100).contains(p)), "{cmd}: {percents:?}");
    }
}

#[test]
fn tables_fit_an_80_column_terminal_and_piped_output_is_not_cut() {
    let sample = sample("peri-postmortem.db");
    let shown = on_terminal(80, &["scan", &sample]);
    assert!(shown.contains("hidden errors"), "{shown}");
    let wide: Vec<&str> = shown.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(wide.is_empty(), "{} lines wider than 80:\n{}", wide.len(), wide.join("\n"));
    // Piped, nothing is cut: the recommendation column keeps its full text.
    let piped = stdout(&run_in(Path::new("."), &["scan", &sample]));
    assert!(piped.lines().any(|l| l.chars().count() > 80));
    assert!(piped.contains(
        "add `subagent_type` to `required` in the Agent schema, or say in its description exactly when it is needed"
    ));
}

/// `falseok ARGS` with `COLUMNS=cols` (its stdout piped): what it printed.
fn at_columns(cols: u16, args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).current_dir(root()).env("COLUMNS", cols.to_string()).output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The lines of `text` wider than `cols` display columns.
fn wider_than(cols: usize, text: &str) -> Vec<String> {
    text.lines().filter(|l| unicode_width::UnicodeWidthStr::width(*l) > cols).map(str::to_string).collect()
}

/// How often each of `words` occurs whole in `text`.
fn occurrences<'a>(words: &[&'a str], text: &str) -> Vec<(&'a str, usize)> {
    words.iter().map(|w| (*w, text.matches(w).count())).collect()
}

/// Issue 24 (new user F7, F8): output fits the width it is given
/// (`COLUMNS`, here in a pipe) with no word split: the README's first
/// command has no line over 80 display columns and every category slug and
/// tool name as often, whole, as in unfitted output (columns are left out,
/// with a line saying which, rather than words cut); `rules`, `formats`,
/// `schemas`, `show` and `examples` wrap their prose at word boundaries.
/// Without `COLUMNS`, piped output is not fitted at all (the goldens).
#[test]
fn output_fits_the_given_width_and_never_splits_a_word() {
    let sample = "sample-traces/peri-postmortem.db";
    let report = json(&run_in(root(), &["scan", sample, "--format", "json"]));
    let slugs: Vec<&str> =
        report["categories"].as_array().unwrap().iter().map(|c| c["category"].as_str().unwrap()).collect();
    let tools: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["tool"].as_str().unwrap()).collect();
    assert!(slugs.contains(&"missing-required-param") && tools.contains(&"folder_operations"), "{slugs:?} {tools:?}");
    let wide = stdout(&run_in(root(), &["scan", sample]));
    assert!(!wider_than(80, &wide).is_empty(), "unfitted output has long lines");
    for cols in [80, 100, 60] {
        let text = at_columns(cols, &["scan", sample]);
        let over = wider_than(usize::from(cols), &text);
        assert!(over.is_empty(), "{} lines wider than {cols}:\n{}", over.len(), over.join("\n"));
        assert_eq!(occurrences(&slugs, &text), occurrences(&slugs, &wide), "a slug split at {cols}:\n{text}");
        // Names longer than a quarter of the width (at least 16) are shortened in the middle, never split.
        let short: Vec<&str> =
            tools.iter().copied().filter(|t| t.chars().count() <= usize::from(cols / 4).max(16)).collect();
        assert_eq!(occurrences(&short, &text), occurrences(&short, &wide), "a tool name split at {cols}:\n{text}");
        assert!(!text.contains("folder_oper\n") && !text.contains("│ ations"), "{text}");
        assert!(text.contains("✗ 329 hidden errors"), "{text}");
    }
    let text = at_columns(80, &["scan", sample]);
    assert!(text.contains("(left out at 80 columns: identical retries, median"), "{text}");
    assert!(!wide.contains("left out at"));

    let every: Vec<String> = json(&run_in(root(), &["rules", "--format", "json"]))["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["slug"].as_str().unwrap().to_string())
        .collect();
    let every: Vec<&str> = every.iter().map(String::as_str).collect();
    for args in [
        &["rules"][..],
        &["formats"],
        &["schemas"],
        &["show", "019e42d6", sample],
        &["show", "019e42d6", sample, "--call", "38"],
        &["examples", sample, "--limit", "3"],
        &["examples", "sample-traces/claude-code"],
    ] {
        let unfitted = stdout(&run_in(root(), args));
        let text = at_columns(80, args);
        let over = wider_than(80, &text);
        assert!(over.is_empty(), "{args:?}: {} lines wider than 80:\n{}", over.len(), over.join("\n"));
        assert_eq!(occurrences(&every, &text), occurrences(&every, &unfitted), "{args:?}: a slug split:\n{text}");
        // Nothing lost: the same words (a word only splits when wider than a line).
        let words = |t: &str| t.split_whitespace().map(str::len).sum::<usize>();
        assert_eq!(words(&text), words(&unfitted), "{args:?}");
    }
    // JSON is never wrapped.
    assert_eq!(at_columns(40, &["rules", "--format", "json"]), stdout(&run_in(root(), &["rules", "--format", "json"])));
}

/// Copy the Claude Code sample to `dir/cc`, and return its main transcript.
fn claude_copy(dir: &Path) -> std::path::PathBuf {
    let cc = dir.join("cc");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/claude-code");
    assert!(Command::new("cp").arg("-r").arg(&from).arg(&cc).status().unwrap().success());
    cc.join("-home-u-proj/1f0e5c3a-7b2d-4e8f-9a10-2c3d4e5f6a7b.jsonl")
}

/// `falseok ARGS` in `dir` with `HOME` = `home`: exit code and stderr.
fn run_home(dir: &Path, home: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN).args(args).current_dir(dir).env("HOME", home).output().unwrap();
    (out.status.code().unwrap(), stderr(&out))
}

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .filter(|f| dir.join(f).is_file())
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            (f, bytes)
        })
        .collect()
}

/// The refusal of an output: exit 2, one line naming the output and why,
/// and not one file under `dir` created, removed or changed.
fn assert_refused(dir: &Path, home: &Path, args: &[&str], output: &str, why: &str) {
    let before = contents(dir);
    let (code, err) = run_home(dir, home, args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with(&format!("falseok: error: {output}: ")), "{args:?}: {err}");
    assert!(err.contains(why), "{args:?}: expected {why:?} in {err}");
    assert!(contents(dir) == before, "{args:?}: files changed");
}

/// No output lands on an input, inside an input folder (named, or a default
/// location), on a hard or symbolic link to an input, or on a SQLite
/// sidecar name: decided by file identity, before anything is written
/// (F4, F5, F6; new-user F1).
#[test]
fn outputs_never_land_in_an_input_folder_on_a_link_or_on_a_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = tempfile::tempdir().unwrap();
    let t = claude_copy(d);
    let rel = t.strip_prefix(d).unwrap().to_str().unwrap().to_string();
    for args in [
        &["export", "cc", "--out", &rel][..],
        &["scan", "cc", "--summary", &rel],
        &["check", "cc", "--summary", &rel],
        &["check", "cc", "--write-baseline", &rel],
    ] {
        let out = args[3];
        assert_refused(d, home.path(), args, out, "is inside cc, a trace given as input");
    }
    // New files inside an input folder, however the path is spelled.
    std::os::unix::fs::symlink(d.join("cc"), d.join("cc-link")).unwrap();
    for out in ["cc/new.ndjson", "cc/-home-u-proj/new.md", "./cc/../cc/x", "cc-link/-home-u-proj/x", "cc/parts"] {
        for args in [
            &["export", "cc", "--out", out][..],
            &["export", "cc", "--out", out, "--partition"],
            &["scan", "cc", "--summary", out],
            &["check", "cc", "--write-baseline", out],
            &["import", "cc", "--into", out],
        ] {
            assert_refused(d, home.path(), args, out, "is inside cc, a trace given as input");
        }
    }
    // Hard links to an input, or to a file inside an input folder.
    std::fs::hard_link(&t, d.join("hard.md")).unwrap();
    assert_refused(d, home.path(), &["export", &rel, "--out", "hard.md"], "hard.md", "is a hard link to cc/");
    assert_refused(d, home.path(), &["export", "cc", "--out", "hard.md"], "hard.md", "is a hard link to cc/");
    assert_refused(d, home.path(), &["scan", "cc", "--summary", "hard.md"], "hard.md", "is a hard link to cc/");
    std::os::unix::fs::symlink(&t, d.join("soft.ndjson")).unwrap();
    assert_refused(d, home.path(), &["export", &rel, "--out", "soft.ndjson"], "soft.ndjson", "is a symbolic link to");
    assert_refused(d, home.path(), &["export", "cc", "--out", "soft.ndjson"], "soft.ndjson", "is inside cc");
    // Sidecar names of SQLite databases, inputs or not.
    std::fs::copy(sample("crush.db"), d.join("x.db")).unwrap();
    std::fs::copy(sample("crush.db"), d.join("other.db")).unwrap();
    for side in ["x.db-journal", "x.db-wal", "x.db-shm", "other.db-wal"] {
        for args in [
            &["scan", "x.db", "--summary", side][..],
            &["check", "x.db", "--write-baseline", side],
            &["export", "x.db", "--out", side],
        ] {
            assert_refused(d, home.path(), args, side, "file SQLite keeps beside the database");
        }
    }
}

/// The default locations are inputs when no PATH is given, and are never
/// written into even when PATHs are given.
#[test]
fn outputs_never_land_in_a_default_trace_location() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = tempfile::tempdir().unwrap();
    let projects = home.path().join(".claude/projects");
    std::fs::create_dir_all(&projects).unwrap();
    let t = claude_copy(&projects);
    let transcript = t.to_str().unwrap();
    let new = projects.join("summary.md");
    let new = new.to_str().unwrap();
    let before = std::fs::read(&t).unwrap();
    for args in [
        &["scan", "--summary", transcript][..],
        &["check", "--summary", transcript],
        &["export", "--out", transcript],
        &["scan", "--summary", new],
        &["export", &sample("crush.db"), "--out", transcript],
        &["scan", &sample("crush.db"), "--summary", new],
    ] {
        let out = args[args.len() - 1];
        let (code, err) = run_home(d, home.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with(&format!("falseok: error: {out}: is inside ")), "{args:?}: {err}");
        assert!(err.contains("a default trace location") || err.contains("a trace given as input"), "{err}");
        assert_eq!(std::fs::read(&t).unwrap(), before, "{args:?}");
        assert!(!Path::new(new).exists(), "{args:?}");
    }
}

/// An existing file that falseok did not write is replaced only with
/// --force; its own exports and baselines are replaced; a summary is
/// appended to text (F15).
#[test]
fn only_files_falseok_wrote_are_replaced_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = tempfile::tempdir().unwrap();
    let crush = sample("crush.db");
    std::fs::write(d.join("notes.txt"), "keep\n").unwrap();
    std::fs::write(d.join("notes.json"), "{\"mine\": true}\n").unwrap();
    assert_refused(d, home.path(), &["export", &crush, "--out", "notes.txt"], "notes.txt", "pass --force");
    assert_refused(
        d,
        home.path(),
        &["check", &crush, "--write-baseline", "notes.json"],
        "notes.json",
        "is not a falseok baseline",
    );
    std::fs::create_dir_all(d.join("parts/date=2025-09-01")).unwrap();
    std::fs::write(d.join("parts/date=2025-09-01/part-00000.ndjson"), "mine\n").unwrap();
    let part = "parts/date=2025-09-01/part-00000.ndjson";
    assert_refused(d, home.path(), &["export", &crush, "--out", "parts", "--partition"], part, "pass --force");
    // Its own files are replaced, and --force replaces the others.
    for args in [
        &["export", &crush, "--out", "notes.txt", "--force"][..],
        &["export", &crush, "--out", "notes.txt"],
        &["check", &crush, "--write-baseline", "notes.json", "--force"],
        &["check", &crush, "--write-baseline", "notes.json"],
        &["export", &crush, "--out", "parts", "--partition", "--force"],
        &["export", &crush, "--out", "parts", "--partition"],
    ] {
        let (code, err) = run_home(d, home.path(), args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    assert!(std::fs::read_to_string(d.join("notes.txt")).unwrap().starts_with("{\"source\":"));
    assert!(std::fs::read_to_string(d.join("notes.json")).unwrap().contains("\"falseok_baseline\""));
    assert_eq!(listing(d), ["notes.json", "notes.txt", "parts"], "no temporary file left");
}

/// Nothing is created or truncated before the export is whole: an export
/// that fails leaves the old file (or none), and no temporary file.
#[test]
fn a_failed_export_leaves_the_old_file_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = tempfile::tempdir().unwrap();
    let crush = sample("crush.db");
    for args in [
        &["export", &crush, "missing.db", "--out", "x.ndjson"][..],
        &["export", &crush, "missing.db", "--out", "parts", "--partition"],
        &["import", "missing", "--into", "x.db"],
    ] {
        let (code, err) = run_home(d, home.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(listing(d).is_empty(), "{args:?} left {:?}", listing(d));
    }
    let (code, _) = run_home(d, home.path(), &["export", &crush, "--out", "x.ndjson"]);
    assert_eq!(code, 0);
    let old = std::fs::read(d.join("x.ndjson")).unwrap();
    let (code, _) = run_home(d, home.path(), &["export", &crush, "missing.db", "--out", "x.ndjson"]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read(d.join("x.ndjson")).unwrap(), old, "the old export is kept whole");
    assert_eq!(listing(d), ["x.ndjson"]);
}

/// `--summary` and the closing sentence on stderr do not depend on stdout:
/// written whether the reader takes one byte and leaves (`| head -c1`) or
/// never reads (`| true`) (F21).
#[test]
fn the_summary_and_the_verdict_are_written_whatever_the_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample("peri-postmortem.db");
    for format in ["table", "json", "markdown", "html"] {
        for reads in [true, false] {
            let summary = dir.path().join(format!("{format}-{reads}.md"));
            let mut child = Command::new(BIN)
                .args(["check", &db, "--format", format, "--summary"])
                .arg(&summary)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdout = child.stdout.take().unwrap();
            if reads {
                let mut one = [0u8; 1];
                stdout.read_exact(&mut one).unwrap();
            }
            drop(stdout);
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            assert_eq!(wait_bounded(&mut child).code(), Some(1), "{format}: {err}");
            let text = std::fs::read_to_string(&summary).unwrap_or_default();
            assert!(text.contains("# falseok postmortem"), "{format}, read {reads}: summary not written");
            // After a table the sentence is on stdout, or on stderr when stdout was gone.
            let said = err.contains("falseok check failed");
            assert!(said || format == "table", "{format}, read {reads}: no verdict on stderr: {err}");
        }
    }
}

/// A summary over 512 KiB is cut at the end of a line of the report, in
/// valid UTF-8, with a note (F25).
#[test]
fn a_long_summary_is_cut_at_a_line_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let schema = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/schema.sql")).unwrap();
    db_from_sql(
        d,
        "many.db",
        &format!(
            "{schema}
             INSERT INTO sessions (id, agent) VALUES ('s', 'falseok');
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 5999)
             INSERT INTO calls (session_id, id, seq, tool, input) SELECT 's', 'c' || i, i + 1, printf('工具%05dツール', i), '{{}}' FROM n;
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 5999)
             INSERT INTO results (session_id, call_id, text, is_error)
             SELECT 's', 'c' || i, printf('Error: 失敗しました %d — ファイルが見つかりません', i), 0 FROM n;"
        ),
    );
    let full = stdout(&run_in(d, &["scan", "many.db", "--format", "markdown"]));
    assert!(full.len() > 600 * 1024, "the report is longer than the summary may be: {}", full.len());
    let out = run_in(d, &["scan", "many.db", "--format", "json", "--summary", "s.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(d.join("s.md")).unwrap();
    let text = String::from_utf8(bytes).expect("the summary is valid UTF-8");
    let kept = &text[..text.find("\n_Summary truncated at 512 KiB").expect("the cut is said")];
    assert!(kept.len() <= 512 * 1024 && kept.len() > 500 * 1024, "{}", kept.len());
    assert!(kept.ends_with('\n') && full.starts_with(kept), "cut inside a line: {:?}", &kept[kept.len() - 80..]);
}
