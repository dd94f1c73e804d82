//! Every command in README.md, CONTRIBUTING.md and docs/*.md runs here, on
//! the shipped samples, so an example that stops working fails CI.
//!
//! - In a ```console block, `$ falseok ARGS` (or `$ cargo run --release --
//!   ARGS`) runs and its output must be what follows, up to the next `$` line:
//!   stdout, then stderr. A `...` line stands for any number of lines. A
//!   `? N` line right after the command is the exit code (default 0).
//! - In a ```sh block, every `falseok ...` line (and `cargo run --release
//!   -- ...`) runs and must not exit 2; other lines (`cargo test`, `cargo
//!   install`) are the reader's to run. `> FILE` at the end is honoured.
//!
//! Commands run in a scratch folder that has the repository's
//! `sample-traces`, `tests/fixtures` and `schema` linked in, so examples may
//! write files (baselines, exports) without touching the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::*;

/// The documents whose commands are checked.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// Split a command line as a shell would, for the simple quoting docs use.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

/// The falseok arguments of a documented command line, and a file its
/// stdout is redirected to; `None` for a line that is not a falseok run.
fn command(line: &str) -> Option<(Vec<String>, Option<String>)> {
    let line = line.split(" # ").next().unwrap_or(line).trim();
    let mut w = words(line);
    let args = if w.first().map(String::as_str) == Some("falseok") {
        w.split_off(1)
    } else if w.starts_with(&["cargo".into(), "run".into(), "--release".into(), "--".into()]) {
        w.split_off(4)
    } else {
        return None;
    };
    let mut args = args;
    let mut redirect = None;
    if let Some(i) = args.iter().position(|a| a == ">") {
        redirect = args.get(i + 1).cloned();
        args.truncate(i);
    }
    Some((args, redirect))
}

/// The exit code a command line's comment promises (`# exit 1: ...`), if
/// it starts with one.
fn documented_exit(line: &str) -> Option<i32> {
    let comment = line.split_once(" # ")?.1.trim();
    comment.strip_prefix("exit ")?.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, target) in [("sample-traces", "sample-traces"), ("schema", "schema")] {
        std::os::unix::fs::symlink(root().join(target), dir.path().join(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    std::os::unix::fs::symlink(root().join("tests/fixtures"), dir.path().join("tests/fixtures")).unwrap();
    dir
}

/// Run `args` in `dir`: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[String], redirect: Option<&str>) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env("HOME", dir)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("LLM_USER_PATH")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if let Some(file) = redirect {
        std::fs::write(dir.join(file), &stdout).unwrap();
    }
    (out.status.code().unwrap_or(-1), stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Does `actual` match `expected`, where a `...` line matches any lines?
fn matches(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|i| matches(rest, &actual[i..])),
        Some((e, rest)) => actual.split_first().is_some_and(|(a, more)| a == e && matches(rest, more)),
    }
}

/// The fenced blocks of a Markdown text: (info string, first line number, lines).
fn blocks(text: &str) -> Vec<(String, usize, Vec<&str>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        match &mut open {
            None if line.starts_with("```") => open = Some((line[3..].trim().to_string(), n + 1, Vec::new())),
            Some(_) if line.starts_with("```") => out.extend(open.take()),
            Some((_, _, lines)) => lines.push(line),
            None => {}
        }
    }
    out
}

/// Does this command export Parquet (which needs `--features parquet`)?
fn writes_parquet(args: &[String]) -> bool {
    args.windows(2).any(|w| w == ["--format", "parquet"])
}

#[test]
fn every_documented_command_runs_as_documented() {
    // The Parquet commands are the next test's: `.ci/run` builds the
    // feature's test binary to run only those, not every command twice.
    run_documented_commands(|args| !writes_parquet(args), 20);
}

#[cfg(feature = "parquet")]
#[test]
fn every_documented_parquet_command_runs_as_documented() {
    run_documented_commands(writes_parquet, 3);
}

/// Run every command of every document that `pick` keeps, checking its exit
/// code (and, in `console` blocks, its output); at least `least` of them.
fn run_documented_commands(pick: fn(&[String]) -> bool, least: usize) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        let dir = scratch();
        for (info, first, lines) in blocks(&text) {
            match info.as_str() {
                "sh" | "bash" | "shell" => {
                    for (i, line) in lines.iter().enumerate() {
                        let Some((args, redirect)) = command(line) else { continue };
                        if !pick(&args) {
                            continue;
                        }
                        ran += 1;
                        let (code, _, err) = run(dir.path(), &args, redirect.as_deref());
                        if code == 2 || code < 0 {
                            failures.push(format!("{name}:{}: `{line}` exited {code}: {err}", first + i + 1));
                        } else if let Some(want) = documented_exit(line)
                            && want != code
                        {
                            failures.push(format!(
                                "{name}:{}: `{line}` exited {code}, its comment says {want}",
                                first + i + 1
                            ));
                        }
                        if name == "README.md" && err.contains("warning:") {
                            // The first commands a new user runs: a warning reads as a broken install.
                            failures.push(format!("{name}:{}: `{line}` warns: {err}", first + i + 1));
                        }
                    }
                }
                "console" => {
                    let mut i = 0;
                    while i < lines.len() {
                        let Some(cmd) = lines[i].strip_prefix("$ ") else {
                            i += 1;
                            continue;
                        };
                        let at = first + i + 1;
                        let Some((args, redirect)) = command(cmd).filter(|(args, _)| pick(args)) else {
                            i += 1;
                            continue;
                        };
                        i += 1;
                        let mut want_code = 0;
                        if let Some(c) = lines.get(i).and_then(|l| l.strip_prefix("? ")) {
                            want_code = c.trim().parse().unwrap();
                            i += 1;
                        }
                        let start = i;
                        while i < lines.len() && !lines[i].starts_with("$ ") {
                            i += 1;
                        }
                        let expected: Vec<&str> = lines[start..i].to_vec();
                        ran += 1;
                        let (code, out, err) = run(dir.path(), &args, redirect.as_deref());
                        let shown = format!("{out}{err}");
                        let actual: Vec<&str> = shown.lines().collect();
                        if code != want_code || !matches(&expected, &actual) {
                            failures.push(format!(
                                "{name}:{at}: `{cmd}` exited {code} (want {want_code}); printed:\n{shown}"
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    assert!(ran >= least, "only {ran} documented commands found, at least {least} expected");
    assert!(failures.is_empty(), "{} documented commands fail:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_checker_splits_and_matches_like_the_docs_need() {
    assert_eq!(
        words(r#"check a.db --summary "x y.md" --tool 'Edit'"#),
        vec!["check", "a.db", "--summary", "x y.md", "--tool", "Edit"]
    );
    let (args, out) = command("falseok scan a.db --format json > r.json   # note").unwrap();
    assert_eq!(
        (args, out.as_deref()),
        (vec!["scan".to_string(), "a.db".into(), "--format".into(), "json".into()], Some("r.json"))
    );
    assert!(command("cargo test").is_none());
    assert_eq!(documented_exit("falseok check a.db   # exit 1: hidden errors"), Some(1));
    assert_eq!(documented_exit("falseok check a.db   # the gate"), None);
    assert!(matches(&["a", "...", "d"], &["a", "b", "c", "d"]));
    assert!(!matches(&["a", "...", "d"], &["a", "b"]));
}
