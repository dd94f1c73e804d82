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
    let script = dir.path().join("falseok.bash");
    std::fs::write(&script, stdout(&run_in(root(), &["completions", "bash"]))).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    let subs: Vec<String> = subcommands(&[]).into_iter().filter(|s| s.len() == 1).map(|mut s| s.remove(0)).collect();
    assert!(subs.len() >= 11, "{subs:?}");
    for sub in subs {
        let text = stdout(&run_in(root(), &[&sub, "--help"]));
        assert!(text.contains("Examples:\n  falseok "), "falseok {sub} --help has no examples:\n{text}");
    }
}

/// The subcommands `falseok <path...> --help` lists (nested ones included).
fn subcommands(path: &[&str]) -> Vec<Vec<String>> {
    let mut args: Vec<&str> = path.to_vec();
    args.push("--help");
    let help = stdout(&run_in(root(), &args));
    let mut found = Vec::new();
    for line in help.lines().skip_while(|l| !l.starts_with("Commands:")).skip(1).take_while(|l| l.starts_with("  ")) {
        // A wrapped description continues further in; a command sits at two spaces.
        if line.starts_with("   ") {
            continue;
        }
        let Some(name) = line.split_whitespace().next() else { continue };
        if name == "help" {
            continue;
        }
        let mut sub: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        sub.push(name.to_string());
        let nested: Vec<&str> = sub.iter().map(String::as_str).collect();
        found.extend(subcommands(&nested));
        found.push(sub);
    }
    found
}

#[test]
fn every_help_fits_an_80_column_terminal() {
    let subs = subcommands(&[]);
    assert!(subs.len() >= 14, "{subs:?}");
    assert!(subs.iter().any(|s| s.len() == 2), "no nested subcommand found: {subs:?}");
    for sub in std::iter::once(Vec::new()).chain(subs) {
        let mut args: Vec<&str> = sub.iter().map(String::as_str).collect();
        args.push("--help");
        let out = Command::new(BIN).args(&args).env_remove("NO_COLOR").env("COLUMNS", "80").output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "falseok {} has a line of {} columns:\n{line}",
                args.join(" "),
                line.chars().count()
            );
        }
    }
}

/// ci/action-check.sh with the environment GitHub gives a composite step.
fn action(dir: &std::path::Path, paths: &str, baseline: &str) -> (i32, String, String, String) {
    let summary = dir.join("summary.md");
    let output = dir.join("output.txt");
    let out = Command::new("bash")
        .arg(root().join("ci/action-check.sh"))
        .current_dir(dir)
        .env("FALSEOK", BIN)
        .env("FALSEOK_PATHS", paths)
        .env("FALSEOK_BASELINE", baseline)
        .env("FALSEOK_ARGS", "--max-error-rate 50%")
        .env("FALSEOK_SUMMARY", "true")
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
        annotations.starts_with("::error title=falseok check::falseok check failed: 329 hidden errors"),
        "{annotations}"
    );
    assert!(summary.contains("# falseok postmortem"));
    assert_eq!(output.lines().last(), Some("exit-code=1"));
    let out = run_in(dir.path(), &["check", &sample, "--write-baseline", "falseok-baseline.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (code, _, _, output) = action(dir.path(), &sample, "falseok-baseline.json");
    assert_eq!(code, 0, "every finding is in the baseline");
    assert_eq!(output.lines().last(), Some("exit-code=0"));
    // An error is exit 2, and the step fails with it.
    let (code, _, _, output) = action(dir.path(), "no-such.db", "");
    assert_eq!(code, 2);
    assert_eq!(output.lines().last(), Some("exit-code=2"));
}

/// The release archive's target for this machine, as ci/action-install.sh
/// and `cargo xtask dist` name it; `None` where no archive is built.
fn release_target() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-gnu"),
        ("linux", "aarch64") => Some("aarch64-unknown-linux-gnu"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        _ => None,
    }
}

/// Issue 52: the Action's steps as GitHub runs them: its install step
/// (ci/action-install.sh) takes a release archive from `release-url`,
/// checks its SHA-256 and puts it on the job's PATH (`GITHUB_PATH`); the
/// check step then runs that binary. `cargo` on the runner is a stand-in that
/// logs and fails, so the test fails if anything compiles. A tampered
/// archive is refused; a release without this platform's archive says
/// `from=source`, the condition of action.yml's build steps
/// (scripts/check-ci-yaml.py holds action.yml to that).
#[test]
fn the_action_installs_the_release_archive_without_compiling() {
    let Some(target) = release_target() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let version = env!("CARGO_PKG_VERSION");
    // A release folder as `cargo xtask dist` writes it: the archive of this
    // test's binary, and its checksum line.
    let release = d.join("release");
    let stem = format!("falseok-{version}-{target}");
    std::fs::create_dir_all(release.join(&stem)).unwrap();
    std::fs::copy(BIN, release.join(&stem).join("falseok")).unwrap();
    let name = format!("{stem}.tar.gz");
    let tar = Command::new("tar").arg("-czf").arg(release.join(&name)).arg("-C").arg(&release).arg(&stem).status();
    assert!(tar.unwrap().success());
    std::fs::remove_dir_all(release.join(&stem)).unwrap();
    let sum = Command::new("sha256sum").arg(&name).current_dir(&release).output().unwrap();
    assert!(sum.status.success());
    std::fs::write(release.join(format!("{name}.sha256")), &sum.stdout).unwrap();
    // The runner: cargo is a stand-in that logs, falseok is nowhere.
    let tools = d.join("tools");
    std::fs::create_dir(&tools).unwrap();
    let log = d.join("cargo.log");
    std::fs::write(tools.join("cargo"), format!("#!/bin/sh\necho \"cargo $*\" >> '{}'\nexit 101\n", log.display()))
        .unwrap();
    assert!(Command::new("chmod").arg("755").arg(tools.join("cargo")).status().unwrap().success());
    let path = format!("{}:/usr/bin:/bin", tools.display());
    let install = |tag: &str, version: &str| {
        let (output, github_path) = (d.join("install-output"), d.join("github-path"));
        let _ = std::fs::remove_file(&output);
        let _ = std::fs::remove_file(&github_path);
        let out = Command::new("bash")
            .arg(root().join("ci/action-install.sh"))
            .env_clear()
            .env("PATH", &path)
            .env("RUNNER_TEMP", d)
            .env("FALSEOK_VERSION", version)
            .env("FALSEOK_ACTION_REF", tag)
            .env("FALSEOK_ACTION_REPOSITORY", "example/falseok")
            .env("FALSEOK_RELEASE_URL", format!("file://{}", release.display()))
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_PATH", &github_path)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
            std::fs::read_to_string(&output).unwrap_or_default(),
            std::fs::read_to_string(&github_path).unwrap_or_default(),
        )
    };
    // The version input is empty: the Action's own tag decides.
    let (code, said, output, github_path) = install(&format!("v{version}"), "");
    assert_eq!(code, 0, "{said}");
    assert!(output.lines().any(|l| l == "from=archive"), "{output}");
    let bin_dir = github_path.trim().to_string();
    assert!(bin_dir.ends_with(&stem), "{github_path}");
    // The check step, with the job's PATH as GitHub makes it.
    let sample = root().join("sample-traces/peri-postmortem.db").display().to_string();
    let check_output = d.join("check-output");
    let check = Command::new("bash")
        .arg(root().join("ci/action-check.sh"))
        .env_clear()
        .env("PATH", format!("{bin_dir}:{path}"))
        .env("FALSEOK_PATHS", &sample)
        .env("FALSEOK_SUMMARY", "false")
        .env("GITHUB_OUTPUT", &check_output)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert!(String::from_utf8_lossy(&check.stdout).contains("329 hidden errors"));
    assert_eq!(std::fs::read_to_string(&check_output).unwrap().trim(), "exit-code=1");
    assert!(!log.exists(), "nothing compiled: {}", std::fs::read_to_string(&log).unwrap_or_default());

    // A release without this version's archive: the build steps' condition.
    let (code, said, output, github_path) = install("main", "9.9.9");
    assert_eq!((code, output.trim(), github_path.as_str()), (0, "from=source", ""), "{said}");
    assert!(said.contains("no falseok-9.9.9-"), "{said}");
    // A tampered archive is refused, and nothing is put on PATH.
    std::fs::write(release.join(format!("{name}.sha256")), format!("{}  {name}\n", "0".repeat(64))).unwrap();
    let (code, said, output, github_path) = install("", version);
    assert_eq!((code, output.as_str(), github_path.as_str()), (1, "", ""), "{said}");
    assert!(said.contains("checksum mismatch"), "{said}");
    // A version input that is no version is an error of the input.
    let (code, said, _, _) = install("", "latest");
    assert_eq!(code, 2, "{said}");
    assert!(!log.exists());
}

/// Issue 52: the README's one-line installs name the packages CI builds,
/// and scripts/package-check.sh (run by `.ci/run`) installs each of them from
/// the local artifacts as that line does: the wheel for `pip` and `uvx`, the
/// npm packages for `npm -g` and `npx`, the release archive whose name and
/// checksum xtask's tests hold to the Homebrew formula and to
/// cargo-binstall's template.
#[test]
fn readme_installs_are_the_packages_ci_builds_and_installs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme.split("\n## Install\n").nth(1).unwrap().split("\n## ").next().unwrap();
    let block = section.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    let script = std::fs::read_to_string(root().join("scripts/package-check.sh")).unwrap();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "bash scripts/package-check.sh"), ".ci/run runs the package check");
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let pyproject = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let name = env!("CARGO_PKG_NAME");
    let mut managers = Vec::new();
    for line in block.lines() {
        let (cmd, comment) = line.split_once(" # ").unwrap_or((line, ""));
        let cmd = cmd.trim();
        let w: Vec<&str> = cmd.split_whitespace().collect();
        match w.as_slice() {
            ["pip", "install", pkg] => {
                assert_eq!(*pkg, name);
                assert!(pyproject.contains(&format!("name = \"{name}\"")) && pyproject.contains("bindings = \"bin\""));
            }
            ["npm", "install", "-g", pkg] => assert_eq!(*pkg, name),
            ["brew", "install", formula] => {
                assert!(formula.ends_with(&format!("/{name}")), "{formula}");
                assert!(release.contains(&format!("dist/{name}.rb")), "the release publishes the formula");
            }
            ["cargo", "binstall", pkg] => {
                assert_eq!(*pkg, name);
                assert!(cargo.contains("[package.metadata.binstall]"));
            }
            other => panic!("README install line not checked by CI: {other:?}"),
        }
        managers.push(w[0]);
        // What CI runs for it: the line itself, or the comment's command.
        if w[0] != "brew" && w[0] != "cargo" {
            assert!(script.contains(&format!("README: `{cmd}`")), "package-check.sh does not install `{cmd}`");
        }
        for alt in comment.split(": ").filter(|c| c.starts_with("uvx ") || c.starts_with("npx ")) {
            assert!(script.contains(&format!("README: `{}`", alt.trim())), "package-check.sh does not run `{alt}`");
        }
    }
    assert_eq!(managers, ["pip", "npm", "brew", "cargo"], "the installs the issue asks for, in the README's order");
}

/// Issue 24 (new user F10): one set of format names. The shell completions
/// offer for `--source-format` exactly the names `falseok formats`
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

/// Issue 24 (new user F22): `.ci/run`, scripts/duckdb-check.sh and
/// scripts/fleet-check.sh keep their Python tools (PyYAML, DuckDB,
/// pyspark, chDB) in a virtual environment of their own under the target
/// folder (scripts/ci-python.sh), never the user's
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
    for script in [".ci/run", "scripts/duckdb-check.sh", "scripts/fleet-check.sh", "scripts/bench.sh"] {
        let text = std::fs::read_to_string(root().join(script)).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            assert!(!pip.is_match(line), "{script} runs the user's Python or pip: {line}");
        }
    }
    for script in [".ci/run", "scripts/duckdb-check.sh", "scripts/fleet-check.sh"] {
        let text = std::fs::read_to_string(root().join(script)).unwrap();
        assert!(text.contains("bash scripts/ci-python.sh "), "{script}");
    }
}

/// The fenced block of `lang` under the `## heading` of docs/ci.md.
fn ci_block(heading: &str, lang: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let section = text.split(&format!("\n## {heading}\n")).nth(1).unwrap_or_else(|| panic!("no ## {heading}"));
    let body = section.split(&format!("```{lang}\n")).nth(1).unwrap_or_else(|| panic!("no {lang} block"));
    body.split("```").next().unwrap().lines().map(str::to_string).collect()
}

/// The GitLab job's lines under `key:` (two spaces in), as `KEY: VALUE` or `- ITEM`.
fn gitlab_items(job: &[String], key: &str) -> Vec<String> {
    job.iter()
        .skip_while(|l| l.trim_end() != format!("  {key}:"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.trim().trim_start_matches("- ").to_string())
        .collect()
}

/// Issue 24 (new user F4, F18): the CI examples of docs/ci.md run as
/// pasted. GitLab: the job's `script:` lines run in `sh -e` in a project
/// laid out like the `rust` image's (cargo on `PATH`, `CARGO_HOME` as the job
/// sets it), with `cargo install` replaced by a stand-in that installs the
/// built binary and, like cargo, refuses to overwrite a binary it has no
/// record of; a second pipeline starts from only what the cache keeps.
/// Jenkins: the stage's steps are taken in their order (`sh`, `error`,
/// `junit`, `unstable`) on exit 0, 1 and 2.
#[test]
fn ci_examples_run_as_pasted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let job = ci_block("GitLab CI", "yaml");
    let script = gitlab_items(&job, "script");
    let variables = gitlab_items(&job, "variables");
    let cache = job.iter().find_map(|l| l.trim().strip_prefix("paths: [")).unwrap().trim_end_matches(']').to_string();
    let report = job.iter().find_map(|l| l.trim().strip_prefix("junit: ")).unwrap().to_string();
    assert!(script.iter().any(|l| l.contains("cargo install")), "{script:?}");

    // The image: cargo (the stand-in) on PATH, falseok nowhere.
    let image = d.join("usr-local-cargo-bin");
    std::fs::create_dir(&image).unwrap();
    let log = d.join("cargo.log");
    let cargo = format!(
        r#"#!/bin/sh
echo "cargo $*" >> "{log}"
[ "$1" = install ] || {{ echo "stand-in cargo: install only" >&2; exit 64; }}
bin="$CARGO_HOME/bin/falseok"
if [ -e "$bin" ]; then
  if grep -q falseok "$CARGO_HOME/.crates.toml" 2>/dev/null; then echo "Ignored package falseok, already installed"; exit 0; fi
  echo 'error: binary `falseok` already exists in destination' >&2
  echo 'Add --force to overwrite' >&2
  exit 101
fi
mkdir -p "$CARGO_HOME/bin"
ln -s "{bin}" "$bin"
printf '[v1]\n"falseok 0.1.0" = ["falseok"]\n' > "$CARGO_HOME/.crates.toml"
echo "  Installing $bin"
"#,
        log = log.display(),
        bin = BIN
    );
    std::fs::write(image.join("cargo"), cargo).unwrap();
    assert!(Command::new("chmod").arg("755").arg(image.join("cargo")).status().unwrap().success());
    let path = format!("{}:/usr/bin:/bin", image.display());
    let no_falseok = Command::new("sh").args(["-c", "command -v falseok"]).env("PATH", &path).status().unwrap();
    assert!(!no_falseok.success(), "a falseok on the image's PATH would hide the job's own install");

    let project = d.join("project");
    std::fs::create_dir_all(project.join("traces")).unwrap();
    let traces = project.join("traces/threads.db");
    std::fs::copy(root().join("sample-traces/peri-postfix.db"), &traces).unwrap();
    let made = run_in(&project, &["check", "traces/threads.db", "--write-baseline", "falseok-baseline.json"]);
    assert!(made.status.success(), "{}", stderr(&made));
    let pipeline = || {
        let mut sh = format!("export CI_PROJECT_DIR='{}'\ncd \"$CI_PROJECT_DIR\"\n", project.display());
        for v in &variables {
            let (k, val) = v.split_once(": ").unwrap();
            sh.push_str(&format!("export {k}=\"{val}\"\n"));
        }
        sh.push_str("export FALSEOK_GIT_URL=https://git.example.invalid/falseok.git\n");
        for line in &script {
            sh.push_str(line);
            sh.push('\n');
        }
        let out = Command::new("sh").args(["-ec", &sh]).env_clear().env("PATH", &path).env("HOME", d).output().unwrap();
        let junit = std::fs::read_to_string(project.join(&report)).unwrap_or_default();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), junit)
    };
    // First pipeline: installs, then checks.
    let (code, err, junit) = pipeline();
    assert_eq!(code, 0, "the first pipeline: {err}");
    assert!(junit.starts_with("<?xml") && junit.contains("<testsuite"), "{junit}");
    // The next pipeline starts from a fresh clone plus what the cache keeps.
    let keep = project.join(&cache);
    let kept = d.join("cache");
    std::fs::rename(&keep, &kept).unwrap();
    std::fs::remove_dir_all(project.join(".cargo")).unwrap();
    std::fs::remove_file(project.join(&report)).unwrap();
    std::fs::create_dir_all(keep.parent().unwrap()).unwrap();
    std::fs::rename(&kept, &keep).unwrap();
    let (code, err, junit) = pipeline();
    assert_eq!(code, 0, "the pipeline after a cache hit: {err}");
    assert!(junit.contains("<testsuite"), "{junit}");
    let installs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(installs.lines().count(), 1, "built once, then taken from the cache: {installs}");
    // A failing gate fails the job, and the report is still written.
    std::fs::copy(root().join("sample-traces/crush.db"), &traces).unwrap();
    let (code, _, junit) = pipeline();
    assert_eq!(code, 1);
    assert!(junit.contains("<failure"), "{junit}");

    // Jenkins, with falseok installed on the agent.
    let agent_bin = d.join("agent-bin");
    std::fs::create_dir(&agent_bin).unwrap();
    std::os::unix::fs::symlink(BIN, agent_bin.join("falseok")).unwrap();
    let stage = ci_block("Jenkins", "groovy").join("\n");
    let jenkins = |trace: Option<&str>| -> (String, Option<String>) {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("traces")).unwrap();
        if let Some(t) = trace {
            std::fs::copy(root().join(t), ws.path().join("traces/threads.db")).unwrap();
        }
        let path = format!("{}:/usr/bin:/bin", agent_bin.display());
        let quoted = regex::Regex::new(r"'([^']*)'").unwrap();
        let mut code = None;
        let mut result = "SUCCESS".to_string();
        // Statements: a `sh(...)` spanning lines is joined up to its `)`.
        let mut statements: Vec<String> = Vec::new();
        for line in stage.lines().map(str::trim) {
            match statements.last_mut() {
                Some(open) if open.matches('(').count() > open.matches(')').count() => {
                    open.push(' ');
                    open.push_str(line);
                }
                _ => statements.push(line.to_string()),
            }
        }
        for st in &statements {
            if st.ends_with('{') || st == "}" {
                continue;
            }
            if let Some(rest) = st.strip_prefix("def code = sh(returnStatus: true,") {
                let cmd = quoted.captures(rest.split("script:").nth(1).unwrap()).unwrap()[1].to_string();
                let status = Command::new("sh").args(["-c", &cmd]).current_dir(ws.path()).env("PATH", &path).status();
                code = Some(status.unwrap().code().unwrap());
            } else if let Some(rest) = st.strip_prefix("junit ") {
                let file = quoted.captures(rest.split("testResults:").nth(1).unwrap()).unwrap()[1].to_string();
                let xml = std::fs::read_to_string(ws.path().join(&file)).unwrap_or_default();
                if xml.trim().is_empty() && rest.contains("allowEmptyResults: false") {
                    return ("FAILURE".into(), Some(format!("junit: {file} holds no test results")));
                }
                if xml.contains("<failure") {
                    result = "UNSTABLE".into();
                }
            } else if let Some(cond) = st.strip_prefix("if (code == ") {
                let (n, then) = cond.split_once(") { ").unwrap();
                let message = quoted.captures(then).unwrap()[1].to_string();
                if code == Some(n.parse().unwrap()) {
                    if then.starts_with("error(") {
                        return ("FAILURE".into(), Some(message));
                    }
                    assert!(then.starts_with("unstable("), "{st}");
                    result = "UNSTABLE".into();
                }
            } else {
                panic!("a Jenkins step this test does not know: {st}");
            }
        }
        assert!(code.is_some(), "the stage never ran falseok");
        (result, None)
    };
    assert_eq!(jenkins(Some("sample-traces/peri-postfix.db")), ("SUCCESS".into(), None));
    assert_eq!(jenkins(Some("sample-traces/crush.db")), ("UNSTABLE".into(), None));
    let (result, message) = jenkins(None);
    assert_eq!(result, "FAILURE");
    assert!(message.as_deref().is_some_and(|m| m.contains("exit 2")), "exit 2 must reach its own message: {message:?}");
}
