//! What a user installs and pastes: shell completions, `--help` examples,
//! and the GitHub Action's check step run as GitHub would run it.

use std::process::Command;

use crate::util::*;

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = run_in(root(), &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let text = stdout(&out);
        for sub in ["scan", "check", "export", "merge"] {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tracelint.bash");
    std::fs::write(&script, stdout(&run_in(root(), &["completions", "bash"]))).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    let help = stdout(&run_in(root(), &["--help"]));
    let subs: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .collect();
    assert!(subs.len() >= 11, "{subs:?}");
    for sub in subs {
        let text = stdout(&run_in(root(), &[sub, "--help"]));
        assert!(text.contains("Examples:\n  tracelint "), "tracelint {sub} --help has no examples:\n{text}");
    }
}

/// ci/action-check.sh with the environment GitHub gives a composite step.
fn action(dir: &std::path::Path, paths: &str, baseline: &str) -> (i32, String, String, String) {
    let summary = dir.join("summary.md");
    let output = dir.join("output.txt");
    let out = Command::new("bash")
        .arg(root().join("ci/action-check.sh"))
        .current_dir(dir)
        .env("TRACELINT", BIN)
        .env("TRACELINT_PATHS", paths)
        .env("TRACELINT_BASELINE", baseline)
        .env("TRACELINT_ARGS", "--max-error-rate 50%")
        .env("TRACELINT_SUMMARY", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read_to_string(&summary).unwrap_or_default(),
        std::fs::read_to_string(&output).unwrap_or_default(),
    )
}

#[test]
fn the_action_fails_on_hidden_errors_and_passes_against_its_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("sample-traces/peri-postmortem.db").display().to_string();
    let (code, annotations, summary, output) = action(dir.path(), &sample, "");
    assert_eq!(code, 1);
    assert!(
        annotations.starts_with("::error title=tracelint check::tracelint check failed: 329 hidden errors"),
        "{annotations}"
    );
    assert!(summary.contains("# tracelint postmortem"));
    assert_eq!(output.lines().last(), Some("exit-code=1"));
    let out = run_in(dir.path(), &["check", &sample, "--write-baseline", "tracelint-baseline.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (code, _, _, output) = action(dir.path(), &sample, "tracelint-baseline.json");
    assert_eq!(code, 0, "every finding is in the baseline");
    assert_eq!(output.lines().last(), Some("exit-code=0"));
    // An error is exit 2, and the step fails with it.
    let (code, _, _, output) = action(dir.path(), "no-such.db", "");
    assert_eq!(code, 2);
    assert_eq!(output.lines().last(), Some("exit-code=2"));
}

/// Issue 24 (new user F10): one set of format names. The shell completions
/// offer for `--source-format` exactly the names `tracelint formats`
/// prints, in every command that takes it, and each of them is accepted.
#[test]
fn completions_offer_the_format_names_that_formats_prints() {
    let listing = stdout(&run_in(root(), &["formats"]));
    let names: Vec<&str> = listing
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert!(names.len() >= 20 && names.contains(&"claude-code"), "{names:?}");
    // bash: one `--source-format)` case per subcommand, each with the word list.
    let bash = stdout(&run_in(root(), &["completions", "bash"]));
    let words = format!("compgen -W \"{}\"", names.join(" "));
    let cases: Vec<&str> = bash.split("--source-format)").skip(1).collect();
    assert!(cases.len() >= 6, "scan, check, examples, show, export, import: {} cases", cases.len());
    for case in cases {
        let body = case.split(";;").next().unwrap();
        assert!(body.contains(&words), "bash completes --source-format with something else:\n{body}");
    }
    // fish and zsh name every format too.
    for shell in ["fish", "zsh"] {
        let text = stdout(&run_in(root(), &["completions", shell]));
        let at = text.find("source-format").unwrap();
        // The values follow the option, over several lines in fish.
        let end = text[at..].find(if shell == "fish" { "\ncomplete " } else { "\n'-" }).map_or(text.len(), |e| at + e);
        let part = &text[at..end];
        for name in &names {
            assert!(part.contains(name), "{shell}: {name} missing in {part}");
        }
    }
    // Each completed name is accepted (it may then find the file is not of that format).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.jsonl"), "{}\n").unwrap();
    for name in &names {
        let out = run_in(dir.path(), &["scan", "empty.jsonl", "--source-format", name]);
        assert!(!stderr(&out).contains("unknown format"), "{name}: {}", stderr(&out));
    }
}

/// Issue 24 (new user F22): `.ci/run` and scripts/duckdb-check.sh keep
/// their Python tools (PyYAML, DuckDB) in a virtual environment of their
/// own under the target folder (scripts/ci-python.sh), never the user's
/// Python: the user's `python3` only ever makes the venv, and no `pip` of
/// theirs runs.
#[test]
fn ci_python_tools_live_in_a_venv_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = String::from_utf8(Command::new("sh").args(["-c", "command -v python3"]).output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    assert!(!real.is_empty(), "python3 on PATH");
    // The user's python3, pip and pip3, logging every use.
    let shims = d.join("shims");
    std::fs::create_dir(&shims).unwrap();
    let log = d.join("log");
    for (name, body) in [
        ("python3", format!("echo \"python3 $*\" >> {}\nexec {real} \"$@\"", log.display())),
        ("pip", format!("echo \"pip $*\" >> {}\nexit 1", log.display())),
        ("pip3", format!("echo \"pip3 $*\" >> {}\nexit 1", log.display())),
    ] {
        let p = shims.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        assert!(Command::new("chmod").arg("755").arg(&p).status().unwrap().success());
    }
    let path = format!("{}:{}", shims.display(), std::env::var("PATH").unwrap());
    let target = d.join("target");
    let run = || {
        let out = Command::new("bash")
            .arg(root().join("scripts/ci-python.sh"))
            .arg("pip:pip")
            .env("PATH", &path)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let py = run();
    assert_eq!(py.trim(), target.join("ci-venv/bin/python").display().to_string());
    let venv =
        Command::new(py.trim()).args(["-c", "import sys; print(sys.prefix != sys.base_prefix)"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&venv.stdout).trim(), "True", "a virtual environment");
    // Again: the venv is reused, the user's Python not even asked.
    assert_eq!(run(), py);
    let used = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = used.lines().collect();
    assert_eq!(lines.len(), 1, "{used}");
    assert!(lines[0].starts_with("python3 -m venv ") && lines[0].ends_with("/ci-venv"), "{used}");
    // The CI scripts run their Python only through it.
    let pip =
        regex::Regex::new(r"\bpip3?\b.*\binstall\b|python3? -m pip|^\s*python3? |\$\(python3? |\| *python3? ").unwrap();
    for script in [".ci/run", "scripts/duckdb-check.sh", "scripts/bench.sh"] {
        let text = std::fs::read_to_string(root().join(script)).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            assert!(!pip.is_match(line), "{script} runs the user's Python or pip: {line}");
        }
    }
    for script in [".ci/run", "scripts/duckdb-check.sh"] {
        let text = std::fs::read_to_string(root().join(script)).unwrap();
        assert!(text.contains("bash scripts/ci-python.sh "), "{script}");
    }
}
