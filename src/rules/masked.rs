//! Masked pipelines: a shell pipeline's status is its last command's, so
//! `npm run build 2>&1 | tail -50` succeeds when the build fails, and
//! `grep KEY .env | head -1` succeeds when `.env` does not exist. A person
//! reading the output still sees the earlier command's own error; the
//! `Reads::MaskedPipelines` content rules read it.
//!
//! Data, like the benign exits: the programs whose output is data (a
//! reader's lines are what it read, not its verdict), and the rule that
//! decides which errors of an earlier command count:
//!
//! - any earlier command's own complaint about a missing file or command
//!   (`masked-command-error`);
//! - the failure lines of an earlier command that does work, not a reader
//!   (`masked-program-error`: `Error: …`, `error TS2307`, `FATAL ERROR`).
//!
//! - a command whose whole output is its own error (`Error: read
//!   ECONNRESET`) though it exited 0: it caught its failure and printed it
//!   (`sole-error-output`).
//!
//! Only a result whose status says success, or says nothing, is read: a
//! non-zero exit or a flag already says the call failed.

use super::benign;
use crate::model::Args;

/// Programs whose output is data the agent asked to see: the lines they
/// print are what they read or found, not their own verdict.
pub const READERS: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "git",
    "cat",
    "bat",
    "head",
    "tail",
    "less",
    "more",
    "find",
    "fd",
    "ls",
    "tree",
    "echo",
    "printf",
    "sed",
    "awk",
    "jq",
    "yq",
    "sort",
    "uniq",
    "cut",
    "tr",
    "wc",
    "column",
    "file",
    "stat",
    "du",
    "df",
    "ps",
    "lsof",
    "env",
    "printenv",
    "which",
    "type",
    "journalctl",
    "dmesg",
    "docker",
    "kubectl",
    "strings",
    "xxd",
    "od",
    "hexdump",
    "diff",
    "cmp",
    "nl",
    "fold",
    "paste",
    "join",
    "comm",
    "tac",
    "rev",
    "xargs",
    "findstr",
    "select-string",
    "type",
    "get-content",
    "curl",
    "wget",
];

/// What a shell call's command line allows the masked rules to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Masking {
    /// The last pipeline has a command before its last one.
    pub earlier: bool,
    /// One of those earlier commands does work (not a reader).
    pub earlier_work: bool,
    /// The command printed one or two lines, the first its error: a
    /// program that caught its own failure, printed it and exited 0.
    pub only_error: bool,
    /// The line starts a command in the background (`npm run dev &`): a
    /// job report (`[1]+ Exit 127 …`) can be about what this call started.
    pub background: bool,
    /// The line's own `pkill -f PATTERN` matches the line itself, and a
    /// later `echo` or `printf` should have printed (`kills_own_shell`).
    pub self_kill: bool,
    /// One of the earlier commands is a git command that does work (`git
    /// push`, `git merge`): git's own failure lines are then its verdict.
    pub earlier_git_work: bool,
    /// The output holds an earlier command's refusal of an option
    /// (`cat: illegal option -- A`), named by that command.
    pub refused_option: bool,
    /// The store kept no exit status for the call (a Cline log's `Command
    /// executed.`), and the line's last command does work: its own failure
    /// lines are the only verdict there is (`unknown_status`).
    pub unknown_status_work: bool,
    /// What the command printed holds a test runner's summary in which
    /// nothing failed, and no failing one (`tests_all_passed`): an error
    /// line above it is a test's own output, not the run's failure.
    pub tests_passed: bool,
    /// The last pipeline is the fallback of an `||` (`tree -L 2 || find .
    /// -type d | head`), and every missing command or file the output
    /// complains of was named before it (`failed_before_fallback`): the
    /// fallback answered that failure, and its status is the line's.
    pub answered_by_fallback: bool,
    /// Every complaint of a missing command or file is harmless: a login
    /// shell's startup noise, or, after an earlier `find`, find's own report
    /// of a directory it could not enter while walking (`find: '/x/.cache':
    /// Permission denied`): the walk printed what it found elsewhere, as the
    /// benign exit `find-partly-unreadable` says (`complaints_are_harmless`).
    pub harmless_complaints_only: bool,
    /// Some command of the line runs a program: one that is neither a
    /// reader (`tail server.log`), a reader of a service's log or status
    /// (`pm2 logs`, `systemctl status`), nor a helper that prints nothing
    /// of its own (`sleep`, `cd`, `kill`). What such a program printed about
    /// itself is its own report (`runs_program`).
    pub runs_program: bool,
    /// The output is a Cobra command's help page, and the line called that
    /// command with a subcommand its `Available Commands:` do not list
    /// (`cobra_unknown_subcommand`).
    pub unknown_subcommand: bool,
}

/// How `input`'s command line can hide an earlier command's failure: from
/// its last pipeline (the one whose status is the line's).
pub fn masking(input: &Args) -> Masking {
    let Some(line) = benign::command_line(input) else { return Masking::default() };
    let pipelines = benign::pipelines(&line);
    let background = pipelines.iter().any(|(_, joint)| *joint == benign::Joint::Background);
    let self_kill = kills_own_shell(&line, &pipelines);
    let Some((last, _)) = pipelines.last() else { return Masking { background, self_kill, ..Masking::default() } };
    let Some((_, earlier)) = last.split_last() else {
        return Masking { background, self_kill, ..Masking::default() };
    };
    Masking {
        earlier: !earlier.is_empty(),
        earlier_work: earlier.iter().any(|c| !is_reader(c)),
        only_error: false,
        background,
        self_kill,
        earlier_git_work: earlier.iter().any(|c| {
            let mut words = c.split(' ');
            words.next() == Some("git") && GIT_WORK.contains(&subcommand(words))
        }),
        refused_option: false,
        unknown_status_work: last.iter().any(|c| c.contains("drizzle-kit") && DROPS_OWN_STATUS.is_match(c)),
        tests_passed: false,
        answered_by_fallback: false,
        harmless_complaints_only: false,
        runs_program: runs_program(&pipelines),
        unknown_subcommand: false,
    }
}

/// Helpers that start nothing and whose own output, if any, is not about a
/// program the line runs: the commands around a start (`kill $(lsof -t
/// -i:3000); sleep 2; …`), beside `benign::SILENT_WHEN_DONE`.
const HELPERS: &[&str] = &[
    "pushd",
    "popd",
    "kill",
    "pkill",
    "killall",
    "taskkill",
    "pgrep",
    "fuser",
    "wait",
    "true",
    "false",
    "export",
    "set",
    "unset",
    "source",
    ".",
    "test",
    "[",
    "pwd",
    "ss",
    "netstat",
    "tasklist",
    "get-process",
    "stop-process",
    "start-sleep",
    "clear",
    "date",
];

/// Subcommands that read what a service logged or its state: what they
/// print about a port is history, not this call's start (`pm2 logs`,
/// `docker compose logs`, `systemctl status`, `fly logs`).
const LOG_SUBCOMMANDS: &[&str] = &["logs", "log", "status", "describe", "inspect", "show"];

/// Does a command of `pipelines` run a program (see `Masking::runs_program`)?
fn runs_program(pipelines: &[(Vec<String>, benign::Joint)]) -> bool {
    pipelines.iter().flat_map(|(cmds, _)| cmds).any(|c| {
        let mut words = c.split(' ');
        let program = words.next().unwrap_or("").to_ascii_lowercase();
        let program = program.as_str();
        !HELPERS.contains(&program)
            && !benign::SILENT_WHEN_DONE.contains(&program)
            && !is_reader(c)
            && !words.take(3).any(|w| LOG_SUBCOMMANDS.contains(&w))
    })
}

/// Programs that print their failure and still exit 0, so that their status
/// says nothing and their own failure lines are the verdict (as where the
/// store kept no status, `unknown_status`): `drizzle-kit push` and `migrate`
/// catch a failed statement, log it with `console.error` and return
/// (drizzle-team/drizzle-orm issues 2354, 4006, 6192: pgPush and mysqlPush
/// fall through their `catch`).
static DROPS_OWN_STATUS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(?:(?:npx|pnpx|bunx|yarn|pnpm|bun)(?: (?:exec|dlx|x))? )?drizzle-kit (?:push|migrate)\b")
        .expect("status droppers compile")
});

/// The program a missing-command or missing-file complaint names: bash's
/// `/bin/bash: line 1: tree: command not found`, zsh's `zsh: command not
/// found: tree`, a program's own `grep: .env: No such file or directory`.
static COMPLAINT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?m)^(?:(?:zsh|bash|sh): command not found: ([\w.-]+)|(?:[\w./-]+: line \d+: )?([\w./-]+): (?:[^\n:]{1,200}: )?(?:No such file or directory|command not found|Permission denied))\s*$",
    )
    .expect("complaint compiles")
});

/// Did the line end in an `||` fallback that answered what failed before
/// it? Every program the output's complaints name must be a command of the
/// pipelines before the `||`, and none of the fallback's own.
fn failed_before_fallback(input: &Args, output: &str) -> bool {
    // Most outputs complain of nothing: no second parse of the line then.
    let complains = ["No such file or directory", "command not found", "Permission denied"];
    if !complains.iter().any(|c| output.contains(c)) {
        return false;
    }
    let Some(line) = benign::command_line(input) else { return false };
    let pipelines = benign::pipelines(&line);
    let [.., (before, benign::Joint::Or), (last, _)] = pipelines.as_slice() else { return false };
    let program = |c: &String| c.split(' ').next().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
    let before: Vec<String> = before.iter().map(program).collect();
    let last: Vec<String> = last.iter().map(program).collect();
    let named: Vec<String> = COMPLAINT
        .captures_iter(output)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().rsplit('/').next().unwrap_or("").to_string())
        .collect();
    !named.is_empty() && named.iter().all(|n| before.contains(n) && !last.contains(n))
}

/// Did `input`'s command line end with `|| echo MESSAGE` (or `printf`), a
/// message the agent wrote for the case where what came before failed, and
/// did that message print without itself reporting a failure (`echo "none
/// cached"`, not `echo "query failed"`)? Then the failure was expected and
/// answered. A fallback that never printed did not run: the line failed
/// some other way.
fn answered_by_fallback(input: &Args, output: &str) -> bool {
    let Some(line) = benign::command_line(input) else { return false };
    let pipelines = benign::pipelines(&line);
    let [.., (_, benign::Joint::Or), (last, _)] = pipelines.as_slice() else { return false };
    let [fallback] = last.as_slice() else { return false };
    let Some(message) = fallback.strip_prefix("echo ").or_else(|| fallback.strip_prefix("printf ")) else {
        return false;
    };
    let message = message.trim_start_matches("-e ").trim_start_matches("-n ").trim();
    !message.is_empty() && output.contains(message) && !ERROR_LINE.is_match(message)
}

/// Stores whose shell results may carry neither a flag nor an exit status:
/// Cline's legacy XML results and UI log (`Command executed.` when the
/// terminal gave no status), Continue's terminal tool. Stores that flag a
/// failed command (Claude Code, Pi: a success simply has no exit code) are
/// not among them: there, no status means 0.
pub const STATUSLESS_SHELLS: &[crate::model::Dialect] =
    &[crate::model::Dialect::CLINE, crate::model::Dialect::CONTINUE];

/// `m` for a result whose store kept no exit status: the failure lines of
/// the line's last command, when it does work (a build, an install, a
/// script), are read as a masked pipeline's would be. A reader's lines (a
/// log it printed) stay data.
pub fn unknown_status(m: Masking, input: &Args) -> Masking {
    let Some(line) = benign::command_line(input) else { return m };
    let last = benign::last_command(&line);
    Masking { unknown_status_work: !last.is_empty() && !is_reader(&last), ..m }
}

/// The programs of the earlier commands of `input`'s last pipeline.
fn earlier_programs(input: &Args) -> Vec<String> {
    let Some(line) = benign::command_line(input) else { return Vec::new() };
    let pipelines = benign::pipelines(&line);
    let Some((last, _)) = pipelines.last() else { return Vec::new() };
    let Some((_, earlier)) = last.split_last() else { return Vec::new() };
    earlier.iter().map(|c| c.split(' ').next().unwrap_or("").to_string()).collect()
}

/// getopt's refusals of an option, the program named first: glibc's
/// `%s: invalid option -- '%c'` and `%s: unrecognized option '%s'`, BSD's
/// `%s: illegal option -- %c`.
static REFUSED_OPTION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?m)^(?:Output: |Stdout: )?([\w./-]+): (?:(?:illegal|invalid) option -- '?\S'?|unrecognized option '--?[\w=.-]+')\s*$",
    )
        .expect("refused option compiles")
});

/// Does `output` hold a refusal of an option by one of the earlier commands
/// of the last pipeline? The program must be named: a refusal by a command
/// of an earlier pipeline (`ps --ppid 1 || pgrep -P 1 | xargs ps`) was
/// answered by the line's fallback.
fn refused_option_of_earlier(input: &Args, output: &str) -> bool {
    let names: Vec<String> = REFUSED_OPTION
        .captures_iter(output)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().rsplit('/').next().unwrap_or("").to_string())
        .collect();
    !names.is_empty() && earlier_programs(input).iter().any(|p| names.contains(p))
}

/// Does `line` kill the shell that runs it? `pkill -f PATTERN` matches
/// PATTERN (an extended regex) against every process's whole command line
/// and spares only itself; an agent runs a call as `bash -c LINE` (or
/// `sh -c`, `zsh -c`), whose command line holds LINE, and so the pattern
/// itself. When the pattern matches the line (it does unless written as
/// `[v]llm` with no other `vllm` in the line), the shell is sent SIGTERM and
/// nothing after the `pkill` runs. Read only when a later `echo` or
/// `printf` should have printed: its missing output is the evidence
/// (LABELS.md, corpus/README.md's decided cases).
fn kills_own_shell(line: &str, pipelines: &[(Vec<String>, benign::Joint)]) -> bool {
    let commands: Vec<&str> = pipelines.iter().flat_map(|(p, _)| p.iter().map(String::as_str)).collect();
    commands.iter().enumerate().any(|(i, cmd)| {
        let Some(pattern) = pkill_full_pattern(cmd) else { return false };
        let prints_later = commands[i + 1..].iter().any(|c| matches!(c.split(' ').next(), Some("echo" | "printf")));
        prints_later && pattern_matches(&pattern, line)
    })
}

/// The pattern of a `pkill` that matches whole command lines (`-f`,
/// `--full`, or a cluster such as `-9f`), as the words after its options.
fn pkill_full_pattern(cmd: &str) -> Option<String> {
    let mut words = cmd.split(' ');
    if words.next()? != "pkill" {
        return None;
    }
    let mut full = false;
    let mut rest: Vec<&str> = Vec::new();
    let mut takes_value = false;
    for w in words {
        if !rest.is_empty() || !w.starts_with('-') || w == "-" {
            if takes_value {
                takes_value = false;
                continue;
            }
            rest.push(w);
        } else if w == "--full" {
            full = true;
        } else if let Some(cluster) = w.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            // Options that take a value (`-u USER`, `-t TTY`, …); a signal
            // (`-9`, `-KILL`) takes none.
            takes_value = cluster.len() == 1 && "ugGPsStU".contains(cluster);
            full |= cluster.bytes().all(|b| b.is_ascii_alphanumeric()) && cluster.contains('f');
        }
    }
    (full && !rest.is_empty()).then(|| rest.join(" "))
}

/// Does `pattern` (pkill's extended regex) match somewhere in `line`? A
/// pattern the regex engine refuses is looked for as it is written.
fn pattern_matches(pattern: &str, line: &str) -> bool {
    match regex::RegexBuilder::new(pattern).size_limit(1 << 16).build() {
        Ok(re) => re.is_match(line),
        Err(_) => line.contains(pattern),
    }
}

/// `masking(input)` for a result whose output is `output`.
pub fn masking_of(input: &Args, output: &str) -> Masking {
    let mut lines = benign::output_lines(output);
    let first = lines.next();
    let few = lines.nth(1).is_none();
    // A line that ends in its own fallback message (`ls DIR | grep x ||
    // echo "none cached"`) expected the failure and answered it: the error
    // beside the message is the probe's "no" (LABELS.md: presence probes).
    let only_error = few && first.is_some_and(|l| ERROR_LINE.is_match(l)) && !answered_by_fallback(input, output);
    let m = Masking { refused_option: refused_option_of_earlier(input, output), ..masking(input) };
    let background = m.background && own_job_died(output);
    // An earlier command cut off by a last one that stopped reading once
    // it had what was asked (`gen.py | head -3`): its broken pipe is how
    // the pipeline ends, not a failure (LABELS.md).
    if stops_reading_early(input) && BROKEN_PIPE.is_match(output) {
        return Masking { only_error, background, self_kill: m.self_kill, ..Masking::default() };
    }
    let tests_passed = runs_tests(input) && tests_all_passed(output);
    let answered_by_fallback = m.earlier && failed_before_fallback(input, output);
    let harmless_complaints_only =
        m.earlier && COMPLAINT_WORDS.iter().any(|w| output.contains(w)) && complaints_are_harmless(input, output);
    let unknown_subcommand = output.contains("Available Commands:") && cobra_unknown_subcommand(input, output);
    Masking {
        only_error,
        background,
        tests_passed,
        answered_by_fallback,
        harmless_complaints_only,
        unknown_subcommand,
        ..m
    }
}

/// Did the line call a Cobra command with a subcommand it does not have?
/// Cobra (spf13/cobra, `command.go`: `Find` and `legacyArgs`) rejects an
/// unknown subcommand only at the root; below it, a command that only
/// groups others (`bd mol`, no `Run`) prints its help and exits 0 when
/// given a word it does not know (`bd mol status`). The help names the
/// command (`Usage:` then `  bd mol [command]`), its `Aliases:` and its
/// `Available Commands:`; the line's own command path is read from the
/// call, and its next word, not an option, not `help`, and not listed, is
/// the subcommand that does not exist.
fn cobra_unknown_subcommand(input: &Args, output: &str) -> bool {
    let mut lines = output.lines().map(str::trim_end);
    let mut path: Option<Vec<&str>> = None;
    let mut aliases: Vec<&str> = Vec::new();
    let mut commands: Vec<&str> = Vec::new();
    while let Some(line) = lines.next() {
        match line {
            "Usage:" => {
                for usage in lines.by_ref().take_while(|l| !l.trim().is_empty()) {
                    if let Some(p) = usage.trim().strip_suffix(" [command]") {
                        path = Some(p.split(' ').collect());
                    }
                }
            }
            "Aliases:" => {
                if let Some(a) = lines.next() {
                    aliases.extend(a.split(',').map(str::trim));
                }
            }
            "Available Commands:" => {
                for c in lines.by_ref().take_while(|l| l.starts_with("  ")) {
                    commands.extend(c.split_whitespace().next());
                }
            }
            _ => {}
        }
    }
    let Some(path) = path.filter(|p| p.len() >= 2 && !commands.is_empty()) else { return false };
    let Some(line) = benign::command_line(input) else { return false };
    benign::pipelines(&line).iter().flat_map(|(cmds, _)| cmds).any(|c| {
        let mut words = c.split(' ').filter(|w| !w.starts_with('-'));
        // A simple command starts with its program's base name.
        if words.next() != Some(path[0]) {
            return false;
        }
        let last = path.len() - 1;
        for (i, want) in path[1..].iter().enumerate() {
            match words.next() {
                Some(w) if w == *want || (i + 1 == last && aliases.contains(&w)) => {}
                _ => return false,
            }
        }
        words.next().is_some_and(|w| w != "help" && !commands.contains(&w))
    })
}

/// `benign::FIND_WALK_ERROR`, compiled.
static FIND_WALK_ERROR: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(benign::FIND_WALK_ERROR).expect("find walk error compiles"));

/// The complaints `masked-command-error` reads in a line (its pattern's
/// alternatives).
const COMPLAINT_WORDS: &[&str] =
    &["No such file or directory", "Permission denied", "command not found", "No module named"];

/// Is every complaint `masked-command-error` could read in `output`
/// harmless: a line a login shell's startup files printed before the
/// command ran (`~/.bash_profile: line 1: $'\377\376export': command not
/// found`, not the command's output: `benign::output_lines` leaves it out),
/// or, when an earlier command of the last pipeline is `find`, find's
/// report of a directory it could not enter while walking?
fn complaints_are_harmless(input: &Args, output: &str) -> bool {
    let find = earlier_programs(input).iter().any(|p| p == "find");
    benign::output_lines(output)
        .all(|line| !COMPLAINT_WORDS.iter().any(|w| line.contains(w)) || (find && FIND_WALK_ERROR.is_match(line)))
}

/// Does the last pipeline of `input`'s line run a test runner (`bun test
/// … | tail`)? Only its summary speaks for the pipeline: a build after
/// passing tests (`pytest && npm run build | tail`) is judged by its own
/// lines.
fn runs_tests(input: &Args) -> bool {
    let Some(line) = benign::command_line(input) else { return false };
    let Some((last, _)) = benign::pipelines(&line).pop() else { return false };
    last.iter().any(|c| TEST_RUNNER.is_match(c))
}

/// Test runners as a simple command shows them (program, then arguments).
static TEST_RUNNER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"^(?:pytest|py\.test|jest|vitest|mocha|phpunit|rspec|(?:python[\d.]*|uv run|poetry run) (?:-m )?pytest|(?:npm|pnpm|yarn|bun) (?:run )?test|(?:npx|bunx|pnpx) (?:jest|vitest|mocha|playwright test)|cargo (?:test|nextest)|go test|deno test|dotnet test|mvn test|gradle test|make test)\b",
    )
    .expect("test runners compile")
});

/// The summary lines of test runners that say how many passed and that
/// none failed: bun (` 86 pass` / ` 0 fail`), pytest (`4 passed in
/// 0.05s`), cargo (`test result: ok. 3 passed; 0 failed`), Jest (`Tests:
/// 12 passed, 12 total`), Vitest (`Test Files  3 passed (3)`), mocha (`8
/// passing (20ms)`), deno (`ok | 5 passed | 0 failed`), go (`ok  \tpkg`).
static PASSED_SUMMARY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?m)^\s*(?:\d+ pass$|=*\s*\d+ passed(?:, \d+ (?:skipped|deselected|warnings?|xfailed|xpassed|subtests passed))* in [\d.]+m?s\b|test result: ok\. \d+ passed; 0 failed|Tests:\s+(?:\d+ (?:skipped|todo), )*\d+ passed, \d+ total|Test Files\s+\d+ passed|\d+ passing \(|ok \| \d+ passed \| 0 failed|ok\s+\S+\s+[\d.]+s$)",
    )
    .expect("passed summaries compile")
});

/// Summary lines that say some test failed (`1 fail`, `2 failed`, `3
/// failing`, `FAIL`, `test result: FAILED`, `1 error` in pytest's line).
static FAILED_SUMMARY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?m)^\s*(?:[1-9]\d* fail$|FAIL\b|FAILED\b|test result: FAILED)|\b[1-9]\d* (?:failed|failing|errors? in [\d.]+s)\b")
        .expect("failed summaries compile")
});

/// Does `output` hold a test run's summary in which every test passed
/// (and none in which some failed)?
pub fn tests_all_passed(output: &str) -> bool {
    PASSED_SUMMARY.is_match(output) && !FAILED_SUMMARY.is_match(output)
}

/// An earlier command's complaint that its reader went away.
static BROKEN_PIPE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\bbroken ?pipe\b|\bEPIPE\b|\bwrite error\b").expect("broken pipe compiles")
});

/// Does the last command of `input`'s last pipeline stop reading before
/// its input ends (`head`, `grep -m N`, `grep -q`, `sed Nq`)?
fn stops_reading_early(input: &Args) -> bool {
    let Some(line) = benign::command_line(input) else { return false };
    let pipelines = benign::pipelines(&line);
    let Some(last) = pipelines.last().and_then(|(p, _)| if p.len() > 1 { p.last() } else { None }) else {
        return false;
    };
    let mut words = last.split(' ');
    match words.next().unwrap_or("") {
        "head" => true,
        "grep" | "egrep" | "rg" => {
            words.any(|w| w == "-q" || w == "--quiet" || w.starts_with("-m") || w.starts_with("--max-count"))
        }
        "sed" => words.any(|w| w.ends_with('q') || w.contains("q;")),
        _ => false,
    }
}

/// Did a job this call started die? bash prints `[N] PID` for each job a
/// line starts, and reports every job that ended since the last prompt,
/// including those of earlier calls (`[5] Exit 143 …` beside a new
/// `[6] 8108`). When the call's own job numbers are shown, only their
/// reports count; when they are not, any report does.
fn own_job_died(output: &str) -> bool {
    let mut started = Vec::new();
    let mut died = Vec::new();
    for line in output.lines() {
        let Some(rest) = line.strip_prefix('[') else { continue };
        let Some((number, after)) = rest.split_once(']') else { continue };
        let Ok(number) = number.parse::<u32>() else { continue };
        let after = after.trim_start_matches(['+', '-']).trim_start();
        if !after.is_empty() && after.bytes().all(|b| b.is_ascii_digit()) {
            started.push(number);
        } else if ["Exit ", "Killed", "Segmentation fault", "Aborted"].iter().any(|p| after.starts_with(p)) {
            died.push(number);
        }
    }
    started.is_empty() || died.iter().any(|n| started.contains(n))
}

/// The first line of a program's own error report (`Error: …`,
/// `fatal: …`, `查询失败`, `lstat X: no such file or directory`); the
/// `sole-error-output` rule's pattern.
pub const SOLE_ERROR: &str = r"(?m)^(?:[\w./@-]+: )?(?:Error|ERROR|error|fatal|FATAL|Fatal)(?:\[[\w-]+\])?:[ \t]*[^(\s]|^(?:错误|失败|异常|出错|エラー|오류|에러|실패|Fehler|Erreur|Erro)(?:[:：\s!！]|$)|^[^\n]{0,40}?(?:失败|失敗|出错|出錯|に失敗しました|실패했습니다|fehlgeschlagen)|^[^\n]{1,200}: (?:[Nn]o such file or directory|[Pp]ermission denied)[ \t]*$";

static ERROR_LINE: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(SOLE_ERROR).expect("error line compiles"));

/// Subcommands of readers that do work: `docker build` builds, `kubectl
/// apply` changes a cluster; their errors are their own, where `docker logs`
/// or `kubectl get` print what they read.
const WORKING_SUBCOMMANDS: &[(&str, &[&str])] = &[
    ("docker", &["build", "run", "pull", "push", "exec", "compose", "buildx", "start", "create", "cp"]),
    ("kubectl", &["apply", "create", "delete", "rollout", "exec", "run", "scale", "patch", "replace"]),
];

/// git's subcommands that do work: their own failure lines (`error: failed
/// to push some refs`, `CONFLICT (content)`) are their verdict, while other
/// `error:` lines git prints on the way (`error: non-monotonic index …`
/// about a stray pack file) are not; so git stays a reader for the generic
/// rule and has a rule of its own (`masked-git-failure`).
const GIT_WORK: &[&str] = &[
    "push",
    "pull",
    "fetch",
    "merge",
    "rebase",
    "commit",
    "checkout",
    "switch",
    "clone",
    "am",
    "apply",
    "cherry-pick",
    "revert",
    "stash",
    "reset",
    "restore",
    "tag",
];

/// The subcommand of `words` (a simple command's words after its program):
/// the first word that is not an option or an option's value-like path.
fn subcommand<'a>(mut words: impl Iterator<Item = &'a str>) -> &'a str {
    words.find(|w| !w.starts_with('-') && !w.contains('/') && !w.contains('=')).unwrap_or("")
}

/// Is the simple command `cmd` (its program's base name first) a reader?
pub fn is_reader(cmd: &str) -> bool {
    let mut words = cmd.split(' ');
    let program = words.next().unwrap_or("").to_ascii_lowercase();
    if !READERS.contains(&program.as_str()) {
        return false;
    }
    let Some((_, working)) = WORKING_SUBCOMMANDS.iter().find(|(p, _)| *p == program) else { return true };
    !working.contains(&subcommand(words))
}

/// May the rule `id` (a `Reads::MaskedPipelines` rule) read a result of a
/// command line masked as `m`?
pub fn reads(id: &str, m: Masking) -> bool {
    match id {
        "masked-program-error" => (m.earlier_work || m.unknown_status_work) && !m.tests_passed,
        "sole-error-output" => m.only_error,
        // The shell's own report that a job this call ran in the background
        // died; a job an earlier call started is reported to whichever call
        // comes next, and is not this one's failure.
        "shell-job-exited" => m.background,
        // The shell's own complaint about the line it was given.
        "shell-syntax-error" | "shell-heredoc-failed" => true,
        "own-pkill-killed-shell" => m.self_kill,
        "masked-git-failure" => m.earlier_git_work,
        "masked-option-refused" => m.refused_option,
        "masked-command-error" => m.earlier && !m.answered_by_fallback && !m.harmless_complaints_only,
        // A server's own report that it could not take its port, printed by
        // a program the line started (not a log it read).
        "server-listen-failed" => m.runs_program && !m.tests_passed,
        "cobra-unknown-subcommand" => m.unknown_subcommand,
        _ => m.earlier,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(cmd: &str) -> Masking {
        masking(&Args::from(json!({ "command": cmd })))
    }

    #[test]
    fn a_cobra_group_given_a_subcommand_it_does_not_have() {
        let help = "Manage molecules.\n\nUsage:\n  bd mol [command]\n\nAliases:\n  mol, protomolecule\n\n\
                    Available Commands:\n  bond        Bond two protos\n  show        Show molecule details\n\n\
                    Flags:\n  -h, --help   help for mol\n\nUse \"bd mol [command] --help\" for more information.";
        let unknown = |cmd: &str| masking_of(&Args::from(json!({ "command": cmd })), help).unknown_subcommand;
        assert!(unknown("bd mol status"));
        assert!(unknown("cd repo && bd --json mol status 2>&1 | head -40"), "options and pipes around it");
        assert!(unknown("bd protomolecule status"), "called by its alias");
        assert!(!unknown("bd mol"), "asked for the group: its help is the answer");
        assert!(!unknown("bd mol --help"));
        assert!(!unknown("bd mol help"));
        assert!(!unknown("bd mol show"), "a listed subcommand printed this help itself");
        assert!(!unknown("cat docs/mol-help.txt"), "another program's output");
        let root = help.replace("  bd mol [command]", "  bd [command]");
        assert!(
            !masking_of(&Args::from(json!({ "command": "bd status" })), &root).unknown_subcommand,
            "the root rejects it itself"
        );
    }

    #[test]
    fn a_line_runs_a_program_unless_it_only_reads_or_waits() {
        assert!(of("kill $(lsof -t -i:3001); sleep 1 && npx next dev --port 3001 &").runs_program);
        assert!(of("python3 -m http.server 80 &").runs_program);
        assert!(of("start /B cloud-sql-proxy.exe db --port=5432").runs_program);
        assert!(!of("sleep 5 && tail -20 /tmp/server.log").runs_program, "a log it read");
        assert!(!of("pm2 logs api --lines 50 --nostream").runs_program, "a service's log");
        assert!(!of("systemctl status nginx | head -20").runs_program, "a service's status");
        assert!(!of("docker compose logs db | grep -i bind").runs_program);
        assert!(!of("cd /srv && cat nohup.out").runs_program);
    }

    #[test]
    fn only_the_last_pipeline_and_its_earlier_commands() {
        let both = Masking { earlier: true, earlier_work: true, runs_program: true, ..Masking::default() };
        assert_eq!(of("cd app && npm run build 2>&1 | tail -50"), both);
        assert_eq!(of("grep KEY .env.local | head -1"), Masking { earlier_work: false, runs_program: false, ..both });
        let runs = Masking { runs_program: true, ..Masking::default() };
        assert_eq!(of("npm run build"), runs, "no pipeline: its status is its own");
        assert_eq!(of("make | tee log; echo done"), runs, "the last pipeline is `echo done`");
        assert_eq!(of("bash -lc 'cargo test 2>&1 | tail -5'"), both);
        let input = Args::from(json!({"command": "node -e \"query()\""}));
        assert!(
            masking_of(&input, "Command executed successfully (exit code 0).\nOutput:\nError: read ECONNRESET")
                .only_error
        );
        assert!(!masking_of(&input, "ERROR: two spec folders\nCopied plan template\nDone").only_error);
        assert!(!masking_of(&input, "Stdout: 2\nError: (none)\nExit Code: 0").only_error);
        assert!(masking_of(&input, "查询失败\nShell cwd was reset to /home/u/docs").only_error);
        assert!(masking_of(&input, "lstat /home/u/.cache/x/: no such file or directory").only_error);
        assert!(!masking_of(&input, "a.txt\nb: Permission denied\nc.txt").only_error);
        // A test run whose summary says nothing failed: an `Error:` line
        // above it is what a test printed.
        let bun = "a.test.ts:\nError: Unexpected end of JSON input\n\n 12 pass\n 0 fail\nRan 12 tests across 2 files.";
        let tests = Args::from(json!({"command": "bun test config 2>&1 | tail -20"}));
        assert!(masking_of(&tests, bun).tests_passed);
        assert!(!masking_of(&tests, &bun.replace(" 0 fail", " 1 fail")).tests_passed);
        let build = Args::from(json!({"command": "pytest -q && npm run build 2>&1 | tail -5"}));
        assert!(
            !masking_of(&build, "10 passed in 0.3s\nError: Cannot find module 'x'").tests_passed,
            "the build's own lines"
        );
        assert!(tests_all_passed("..........\n10 passed in 0.31s"));
        assert!(tests_all_passed("test result: ok. 3 passed; 0 failed; 0 ignored"));
        assert!(tests_all_passed("Tests:       12 passed, 12 total"));
        assert!(!tests_all_passed("Tests:       1 failed, 11 passed, 12 total"));
        assert!(!tests_all_passed("==== 1 failed, 4 passed in 0.3s ===="));
        assert!(!tests_all_passed("Error: build failed"));
        let probe = Args::from(
            json!({"command": "ls /root/.cache/hub/ | grep -i qwen 2>/dev/null || echo \"No model cached\""}),
        );
        assert!(
            !masking_of(&probe, "ls: cannot access '/root/.cache/hub/': No such file or directory\nNo model cached")
                .only_error,
            "the line answered its own failure with a message"
        );
        let query = Args::from(json!({"command": "python -c \"q()\" 2>/dev/null || echo \"查询失败\""}));
        assert!(masking_of(&query, "查询失败").only_error, "the fallback's message is itself the failure");
        let unreached = Args::from(json!({"command": "ls -la ~/.stan/ 2>/dev/null || echo \"Stan not found\""}));
        assert!(
            masking_of(&unreached, "lstat /home/u/.stan/: no such file or directory").only_error,
            "a fallback that never printed did not run"
        );
        assert!(!reads("masked-program-error", of("git log | head")));
        assert!(reads("shell-job-exited", of("npm run dev > log 2>&1 & sleep 3; cat log")));
        assert!(
            !reads("shell-job-exited", of("cd ../backend && sleep 2 && cat server.log")),
            "a job an earlier call started is reported to this one, but is not its failure"
        );
        assert!(!of("cmd > out 2>&1 && tail out").background, "`2>&1` and `&&` start no job");
        let dev = Args::from(json!({"command": "python app.py > server.log 2>&1 &"}));
        assert!(masking_of(&dev, "[2] 311\n[2]+ Exit 1 python app.py > server.log 2>&1").background);
        assert!(
            !masking_of(&dev, "[6] 8108\n[5]   Exit 143   python app.py > server.log 2>&1").background,
            "job 5 was an earlier call's"
        );
        assert!(reads("masked-command-error", of("cat missing.txt | head")));
        assert!(!reads("masked-program-error", of("git push origin main 2>&1 | grep -v warning")), "git has its own");
        assert!(reads("masked-git-failure", of("git push origin main 2>&1 | grep -v warning")), "push does work");
        assert!(!reads("masked-git-failure", of("git log --oneline | head -5")));
        assert!(reads("masked-git-failure", of("git -C /srv/app pull --rebase 2>&1 | tail -3")));
        let cat = Args::from(json!({"command": "cat -A notes.md | head -20"}));
        assert!(masking_of(&cat, "cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]").refused_option);
        let tree = Args::from(json!({"command": "cd /p && tree -L 3 || find . -maxdepth 3 -type d | grep -v .git"}));
        let listed = ".\n./src\n./docs\n/bin/bash: line 1: tree: command not found";
        assert!(!reads("masked-command-error", masking_of(&tree, listed)), "the fallback answered tree's absence");
        let own = "./src\ngrep: .gitignore: No such file or directory";
        assert!(reads("masked-command-error", masking_of(&tree, own)), "the fallback's own command failed");
        let cat = Args::from(json!({"command": "cat missing.txt | head"}));
        assert!(reads("masked-command-error", masking_of(&cat, "cat: missing.txt: No such file or directory")));
        let fallback = Args::from(json!({"command": "ps --ppid 7 -o pid 2>&1 || pgrep -P 7 | xargs ps -p"}));
        assert!(
            !masking_of(&fallback, "ps: illegal option -- -\nusage: ps\n  PID TTY\n 9 ?? node").refused_option,
            "the refusing ps ran before the fallback, not in the last pipeline"
        );
        assert!(reads("masked-program-error", of("docker build -t app . 2>&1 | tail -20")));
        assert!(!reads("masked-program-error", of("git log --oneline | head -5")), "log reads");
        assert!(!reads("masked-program-error", of("docker logs api 2>&1 | tail -50")), "logs read");
    }

    #[test]
    fn a_pkill_full_whose_pattern_is_in_its_own_line_kills_the_shell() {
        let killed = |cmd: &str| of(cmd).self_kill;
        assert!(killed(
            "pkill -f \"vllm serve\" 2>/dev/null || true\nsleep 2\nnohup vllm serve m > log 2>&1 &\necho started"
        ));
        assert!(killed("pkill -9 -f app.py; sleep 1; echo restarted"), "a signal before -f");
        assert!(killed("pkill -fx 'python app.py'; echo done"), "a cluster holding f");
        assert!(killed("pkill --full 'node server' && printf 'ok\\n'"));
        assert!(killed("pkill -f '[v]llm'; nohup vllm serve x & echo up"), "the bracket trick, beaten by a later vllm");
        assert!(!killed("pkill -f '[v]llm serve'; sleep 2; echo stopped"), "the bracket trick spares the line");
        assert!(!killed("pkill vllm; echo stopped"), "without -f only process names are matched");
        assert!(!killed("echo stopping; pkill -f vllm"), "nothing should print after it");
        assert!(!killed("pkill -f vllm; nohup vllm serve m > log 2>&1 &"), "no later echo: no evidence either way");
        assert!(
            !killed("pkill -u vllm node; echo done"),
            "-u takes a value; the pattern is `node`, and matched by name"
        );
        assert!(!killed("grep -f pkill.txt log; echo done"));
        assert!(killed("bash -c 'pkill -f worker.py; echo gone'"), "the inner script of bash -c");
    }
}
