//! A gate you can trust: no silent pass on an empty window, names that must
//! exist, exit codes that do not depend on the reader, one guard for every
//! file tracelint writes, and `scan` never saying that a check failed.

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
    assert!(text.starts_with("# before\n") && text.contains("# tracelint postmortem"));
}

#[test]
fn scan_reports_and_only_check_judges() {
    let dir = small();
    for format in ["github", "markdown", "junit", "table"] {
        let out = run_in(dir.path(), &["scan", "threads.db", "--format", format]);
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        assert!(!text.contains("check failed") && !text.contains("tracelint check"), "scan --format {format}:\n{text}");
    }
    let out = run_in(dir.path(), &["check", "threads.db", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("::error title=tracelint check::tracelint check failed"));
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
