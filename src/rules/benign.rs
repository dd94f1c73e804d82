//! Benign exits: a command that exits non-zero to say "nothing found", not
//! "failed". Claude Code's Bash tool treats exit code 1 of these programs
//! as success (its `isError` is `exitCode != 0` except for these); so does falseok, for the
//! content rules that report an exit code.
//!
//! Data, like every rule: the rules an entry overrules, the exit codes it
//! forgives, a pattern for the simple command whose status the line
//! returned, and examples the unit tests run.
//!
//! The command line is parsed as a shell would: quotes and escapes hide
//! operators (`rg "a|b"` is one command), `&&`, `||`, `;`, `&`, newlines and
//! `|` separate commands, and each simple command is seen without its
//! redirections, `VAR=value` prefixes and wrappers (`sudo`, `env`,
//! `timeout 10`, `nice`, `time`, `nohup`, `exec`). Words are split by the
//! `shlex` crate.

use serde::Serialize;
use serde_json::Value;

use crate::model::Args;

/// One benign exit: a command whose non-zero status is an answer.
#[derive(Debug, Serialize)]
pub struct BenignExit {
    /// The entry's stable id.
    pub id: &'static str,
    /// Content rules (ids) this entry can overrule.
    pub rules: &'static [&'static str],
    /// Exit codes that are not failures for a matching command (none: the
    /// rule reports no exit code, and the entry applies to its result).
    pub codes: &'static [i64],
    /// Matched against a simple command (see `simple_commands`): the
    /// program's base name, then its arguments, one space apart.
    pub command: &'static str,
    /// What the command must have printed for its exit to be an answer: a
    /// search that printed an error (`rg: regex parse error`) failed,
    /// whatever its code.
    pub printed: Printed,
    /// Why the exit is an answer, not a failure (for `falseok rules`).
    pub doc: &'static str,
    /// Command lines the entry must match.
    pub fires_on: &'static [&'static str],
    /// Command lines it must not match.
    pub ignores: &'static [&'static str],
}

/// What a command printed (its lines, the tool's framing aside), as a
/// benign exit requires it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Printed {
    /// Whatever it printed.
    Anything,
    /// Nothing at all.
    Nothing,
    /// At least one line, every line matching the pattern (`kill` printing
    /// only `No such process`).
    Only(&'static str),
    /// At least one line matching the pattern (ssh's greeting).
    Some(&'static str),
    /// The answer asked for, with errors beside it that leave it whole:
    /// at least one line that is not the program's error, and every error
    /// line (the first pattern) one of the harmless ones (the second:
    /// `grep: x: Permission denied` beside the matches).
    AnswerBeside(&'static str, &'static str),
}

/// The lines a `git push` (fetch, clone, checkout) that worked prints under
/// Windows PowerShell with its stderr redirected: git's progress, the refs
/// it updated, and the error record PowerShell wraps them in (`git : To
/// <url>`, `At line:2 char:1`, the echoed script line, `+ ~~~~`,
/// `+ CategoryInfo : NotSpecified: …`, `+ FullyQualifiedErrorId :
/// NativeCommandError`). Lines are seen trimmed.
const GIT_PROGRESS_UNDER_POWERSHELL: &str = r"^(?:git : )?(?:To \S+|From \S+|[-+*=]?\s*(?:[0-9a-f]{7,}\.\.\.?[0-9a-f]{7,}|\[new (?:branch|tag|ref)\]|\[up to date\])\s+\S+ -> \S+.*|Everything up-to-date|Already on '[^']+'|branch '[^']+' set up to track .*|remote:.*|(?:Enumerating|Counting|Compressing|Writing|Receiving|Resolving|Unpacking) (?:objects|deltas):.*|Total \d+.*|Delta compression.*|Cloning into .*|Switched to (?:a new )?branch .*|Your branch is .*|At line:\d+ char:\d+|\+ ~+|\+ CategoryInfo\s*: NotSpecified: .*|\+ FullyQualifiedErrorId\s*: NativeCommandError|\+ .*\bgit\b.*)\s*$";

/// The content rules that report a process exit code.
const EXIT_RULES: &[&str] = &[
    "exit-code-line",
    "codex-process-exited",
    "codex-exit-code",
    "gemini-exit-code",
    "background-task-failed",
    "openai-agents-exit-code",
    "zed-terminal-exit-code",
    "cursor-exit-code",
    "openhands-exit-code",
    "continue-exit-code",
    "copilot-exit-code",
    "pi-exit-code",
    "kiro-exit-code",
    "aider-exit-code",
    "cline-command-failed",
    "json-envelope-error",
    "codex-tool-error",
];

/// Every benign exit, checked in order.
pub static BENIGN_EXITS: &[BenignExit] = &[
    BenignExit {
        id: "search-found-nothing",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?i:grep|rg|egrep|fgrep|ag|ack|find|test|\[\[?|which|where|findstr|select-string|git grep|command -v|type|hash)(?:\s|$)",
        printed: Printed::Nothing,
        doc: "grep, rg, egrep, fgrep, ag, ack, find, test, `[`, `[[`, which, where, `command -v`, type, hash, \
              findstr, Select-String and `git grep` exit 1 to say \"no match\" (and print nothing), not that they \
              failed.",
        fires_on: &[
            "grep -rn TODO src",
            "cd /p && rg -l foo",
            "LC_ALL=C grep x f",
            "git grep needle",
            "test -f x",
            "grep -r \"a\\|b\" dir",
            "rg -n \"LEVEL|OTHER\" -g \"*.md\"",
            "sudo timeout 5 grep x /var/log/syslog 2>/dev/null",
            "cat f | /usr/bin/grep -i x",
        ],
        ignores: &["cargo test", "grep x | wc -l", "git status", "npm run find", "rg x; make"],
    },
    BenignExit {
        id: "glob-matched-nothing",
        rules: EXIT_RULES,
        codes: &[1, 2],
        command: r"^ls(?: -[\w-]+)* [^ ]*[*?][^ ]*$",
        printed: Printed::Anything,
        doc: "`ls` of one glob (`ls .heroku*`, `ls logs/*.gz`) that matched nothing: the shell passes the pattern \
              unexpanded, and ls exits 1 (BSD) or 2 (GNU coreutils) saying no such file. The call asked which \
              files match, and \"none\" is an answer (LABELS.md: a search or lookup). A named path that is \
              missing (`ls config.yml`) stays a failure.",
        fires_on: &["ls .heroku*", "ls -la logs/*.gz", "cat Procfile; ls -d .env*"],
        ignores: &["ls config.yml", "ls *.txt missing-dir", "ls src"],
    },
    BenignExit {
        id: "files-differ",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:diff|cmp)(?:\s|$)|^git (?:--no-pager )?diff\b.*\s--(?:exit-code|quiet|no-index)\b",
        printed: Printed::Anything,
        doc: "diff, cmp and `git diff --exit-code`/`--quiet`/`--no-index` exit 1 to say \"the files differ\" and \
              print the difference. A plain `git diff` exits 0 whatever it shows.",
        fires_on: &[
            "LC_ALL=C diff a b",
            "cd /p && git diff --exit-code",
            "cmp -s a b",
            "git diff --quiet HEAD",
            "git diff --no-index old.txt new.txt",
        ],
        ignores: &["git status", "make diff-check; false", "git diff --staged && git diff"],
    },
    BenignExit {
        id: "deliberate-interrupt",
        rules: EXIT_RULES,
        codes: &[1, 130],
        command: r"^\x03|^C-c$",
        printed: Printed::Anything,
        doc: "Codex's write_stdin sending Ctrl+C (`chars: \"\\u0003\"`), or OpenHands sending `C-c` as input, to a \
              running command: the process exiting 1 or 130 afterwards is the interrupt the agent asked for, not a \
              failure.",
        fires_on: &["\u{3}", "C-c"],
        ignores: &["q", "y\n"],
    },
    BenignExit {
        id: "deliberate-wait",
        rules: &["openhands-still-running"],
        codes: &[],
        command: r"^$",
        printed: Printed::Anything,
        doc: "OpenHands' agent sending an empty command to a running process asks for more of its output: a \
              `no new output after N seconds` notice then is the wait it asked for, not a failure.",
        fires_on: &[""],
        ignores: &["npm run dev", "C-c"],
    },
    BenignExit {
        id: "no-process-matched",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:pgrep|pkill|killall|pidof|lsof|fuser)(?:\s|$)",
        printed: Printed::Nothing,
        doc: "pgrep, pkill, killall, pidof, lsof and fuser exit 1 to say that no process (or no open file, no \
              listener on the port) matched, and print nothing: the agent's check found nothing, it did not fail.",
        fires_on: &["pkill -f \"python3 app.py\"", "lsof -i :3000", "pgrep -f vite", "sudo lsof -ti tcp:8080"],
        ignores: &["kill 123", "ps aux", "npm run dev"],
    },
    BenignExit {
        id: "windows-no-such-process",
        rules: EXIT_RULES,
        codes: &[128],
        command: r"^(?i:taskkill(?:\.exe)?)(?:\s|$)",
        printed: Printed::Anything,
        doc: "Windows `taskkill` exits 128 (`ERROR: The process \"x\" not found.`) when there was nothing to stop.",
        fires_on: &["taskkill /F /IM node.exe"],
        ignores: &["tasklist"],
    },
    BenignExit {
        id: "unset-git-config",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^git config (?:--(?:global|local|system) )?(?:--get(?:-all)? )?[\w.-]+$",
        printed: Printed::Nothing,
        doc: "`git config KEY` exits 1 and prints nothing when the key is not set: the answer to the agent's \
              question, not a failure.",
        fires_on: &["git config user.email", "git config --global --get core.editor"],
        ignores: &["git config user.email a@b.c", "git commit -m x"],
    },
    BenignExit {
        id: "waited-as-asked",
        rules: &["copilot-harness-wait", "openhands-still-running"],
        codes: &[],
        command: r"^(?i:sleep|start-sleep)(?:\s|$)",
        printed: Printed::Anything,
        doc: "A command whose purpose was waiting (`sleep 60`, `Start-Sleep 30`) that reached the harness's soft \
              time limit waited as it was asked: not a failure (LABELS.md).",
        fires_on: &["sleep 60", "Start-Sleep -Seconds 30"],
        ignores: &["npm run dev", "sleepwatcher"],
    },
    BenignExit {
        id: "interrupted-by-ctrl-c",
        rules: EXIT_RULES,
        codes: &[130, 3221225786, -1073741510],
        command: r"^",
        printed: Printed::Anything,
        doc: "A command that ended because Ctrl-C was pressed (exit 130 on Unix, `STATUS_CONTROL_C_EXIT` \
              0xC000013A on Windows) was cancelled by the user, not failed: rejected, never a hidden error \
              (LABELS.md).",
        fires_on: &["npm run dev", "python server.py"],
        ignores: &[],
    },
    BenignExit {
        id: "no-such-process",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:kill|pkill|killall)(?:\s|$)",
        printed: Printed::Only(r"(?i)\bno such process\b|\bno process found\b|\bno matching processes\b"),
        doc: "kill (bash's builtin and procps'), pkill and killall of a process that is already gone exit 1 \
              saying only `No such process` / `no process found`: what the agent wanted stopped is not running.",
        fires_on: &["kill 48213", "kill -9 $(cat app.pid)", "killall node"],
        ignores: &["kill-server", "npm run kill"],
    },
    BenignExit {
        id: "no-such-process-listed",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^ps\b.*(?:\s-p|\s--pid|\s-q|\s--quick-pid)\b",
        printed: Printed::Only(r"^\s*PID\s"),
        doc: "procps `ps -p PID` exits 1 when no process was selected and prints only its header: the answer \
              to \"is it still running?\" is no.",
        fires_on: &["ps -p 48213", "ps -o pid,cmd -p 12 13", "ps --pid 9"],
        ignores: &["ps aux", "psql -p 5432"],
    },
    BenignExit {
        id: "ssh-authenticated-without-shell",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^ssh\b.*\s-T\b",
        printed: Printed::Some(r"successfully authenticated|Welcome to GitLab|logged in as|authenticated via"),
        doc: "`ssh -T git@github.com` (and GitLab's, Bitbucket's) exits 1 when authentication worked, because the \
              host gives no shell: the greeting says it succeeded.",
        fires_on: &["ssh -T git@github.com", "ssh -o StrictHostKeyChecking=no -T git@gitlab.com"],
        ignores: &["ssh host uptime", "sshd -T"],
    },
    BenignExit {
        id: "git-progress-under-powershell",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^git (?:-C \S+ )?(?:push|fetch|clone|checkout|switch)\b",
        printed: Printed::Only(GIT_PROGRESS_UNDER_POWERSHELL),
        doc: "git writes its progress and the refs it updated (`To <url>`, `+ a1b2...c3d4 main -> main (forced \
              update)`) on stderr. Windows PowerShell 5.1 turns each line a native command writes there, with \
              `2>&1`, into an error record (`NativeCommandError`, category `NotSpecified`) and sets `$?` to \
              false, so a tool that reports `$?` (Copilot CLI's `finally { $__copilotSuccess = $? }`) says exit \
              code 1 for a push that worked. When every line is git's own progress or that record, with no \
              `error:`, `fatal:` or `! [rejected]`, git reported no failure (LABELS.md: PowerShell's \
              NativeCommandError around a `git push` that worked).",
        fires_on: &["git push -u origin main --force 2>&1", "cd C:\\p; git push origin main 2>&1", "git fetch --all"],
        ignores: &["git commit -m x", "git status", "gitpush origin"],
    },
    BenignExit {
        id: "search-partly-unreadable",
        rules: EXIT_RULES,
        codes: &[2],
        command: r"^(?:grep|egrep|fgrep|rg)(?:\s|$)",
        printed: Printed::AnswerBeside(
            r"^(?:grep|egrep|fgrep|rg): ",
            r"(?i)permission denied|operation not permitted|is a directory|input/output error|binary file|no such device|too many levels of symbolic links",
        ),
        doc: "grep and rg exit 2 when a file could not be read (a permission, a socket, a dangling link) even \
              when they printed the matches asked for. With the matches there and only such errors beside \
              them, the search answered; an error about the call's own arguments (a pattern taken as a path) \
              still fails it.",
        fires_on: &["grep -rn API_URL /etc/app", "rg -n TODO /"],
        ignores: &["git grep x", "grepx a"],
    },
];

/// Codex (0.39 and near) reports a sandboxed command that exited non-zero
/// as `failed in sandbox <kind> with execution error: Denied { output:
/// ExecToolCallOutput { exit_code: N, stdout: StreamOutput { text: "…", …
/// }, stderr: StreamOutput { text: "…", … }, … } }` (codex-rs/core: the
/// sandbox took any failure for a denial). The exit status and what the
/// command printed (stdout, then stderr, unescaped), when the text is that.
pub fn sandbox_exit(text: &str) -> Option<(i64, String)> {
    let rest = text.trim_start().strip_prefix("failed in sandbox ")?;
    let at = rest.find("exit_code: ")? + "exit_code: ".len();
    let digits: String = rest[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    let code = digits.parse().ok()?;
    let stream = |name: &str| -> Option<String> {
        let needle = format!("{name}: StreamOutput {{ text: \"");
        let start = rest.find(&needle)? + needle.len();
        let mut out = String::new();
        let mut chars = rest[start..].chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return Some(out),
                '\\' => match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    other => out.push(other),
                },
                c => out.push(c),
            }
        }
        None
    };
    let printed = [stream("stdout")?, stream("stderr")?].join("\n");
    Some((code, printed))
}

/// The command line of a call's arguments (`command` or `cmd`, a string or an
/// argv array; `bash -lc "…"` is unwrapped to its script), or else the
/// keystrokes a `write_stdin` call sent (`chars`).
pub fn command_line(input: &Args) -> Option<String> {
    // Kept as text: the member is read without decoding the rest.
    if let Some(members) = input.members() {
        let find = |k: &str| members.clone().find(|m| m.key == k);
        match find("command").or_else(|| find("cmd")) {
            Some(m) if m.raw.starts_with('"') => return m.as_str().map(std::borrow::Cow::into_owned),
            Some(m) if m.raw.starts_with('[') => {} // a word list: decoded below
            Some(_) => return None,
            None => return find("chars").and_then(|m| m.as_str()).map(std::borrow::Cow::into_owned),
        }
    }
    let input = input.value();
    let Some(v) = input.get("command").or_else(|| input.get("cmd")) else {
        return input.get("chars").and_then(Value::as_str).map(str::to_string);
    };
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script, ..] if is_shell(shell) && flag.starts_with('-') && flag.contains('c') => {
                    Some((*script).to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

fn is_shell(word: &str) -> bool {
    matches!(base_name(word).as_str(), "bash" | "sh" | "zsh" | "dash" | "ksh")
}

/// How a pipeline is joined to the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joint {
    /// `&&`: the next runs only if this one succeeded.
    And,
    /// `&`: this one runs in the background, the next at once.
    Background,
    /// `||`: the next runs only if this one failed.
    Or,
    /// `;`, a newline, or the end of the line.
    Other,
}

/// A command line as pipelines of simple commands, each with the joint to
/// the next pipeline. A simple command is its program's base name and
/// arguments, one space apart, without redirections, leading assignments
/// and wrappers. `bash -c '…'` is read as its script.
pub fn pipelines(line: &str) -> Vec<(Vec<String>, Joint)> {
    let mut out = Vec::new();
    for (pipeline, joint) in split_operators(line) {
        let cmds: Vec<Vec<String>> = pipeline.iter().filter_map(|c| simple_command(c)).collect();
        if let [words] = cmds.as_slice()
            && let Some(script) = inner_script(words)
        {
            let mut inner = pipelines(script);
            if let Some(last) = inner.last_mut() {
                last.1 = joint;
            }
            out.extend(inner);
            continue;
        }
        if !cmds.is_empty() {
            out.push((cmds.iter().map(|w| w.join(" ")).collect(), joint));
        }
    }
    out
}

/// The script of `bash -c 'script'` (and `-lc`, `sh`, `zsh`).
fn inner_script(words: &[String]) -> Option<&str> {
    match words {
        [shell, flag, script, ..] if is_shell(shell) && flag.starts_with('-') && flag.contains('c') => Some(script),
        // PowerShell's `-Command` (after its other options) and cmd's `/c`.
        [shell, rest @ ..] if is_powershell(shell) => {
            let at = rest.iter().position(|w| w.eq_ignore_ascii_case("-command") || w.eq_ignore_ascii_case("-c"))?;
            rest.get(at + 1).map(String::as_str)
        }
        [shell, flag, script, ..]
            if base_name(shell).trim_end_matches(".exe") == "cmd" && flag.eq_ignore_ascii_case("/c") =>
        {
            Some(script)
        }
        _ => None,
    }
}

fn is_powershell(word: &str) -> bool {
    matches!(base_name(word).to_ascii_lowercase().trim_end_matches(".exe"), "powershell" | "pwsh")
}

/// The simple command whose status a command line returns: the last command
/// of its last pipeline.
pub fn last_command(line: &str) -> String {
    pipelines(line).last().and_then(|(p, _)| p.last().cloned()).unwrap_or_default()
}

/// The simple commands whose failure can be the status of the whole line:
/// the last command of the last pipeline, and the last command of every
/// pipeline followed by `&&` (a failure there ends the list). The first is
/// always the last command of the line.
pub fn exit_candidates(line: &str) -> Vec<String> {
    let all = pipelines(line);
    let mut out: Vec<String> = all.last().and_then(|(p, _)| p.last().cloned()).into_iter().collect();
    let n = all.len();
    for (i, (p, joint)) in all.iter().enumerate() {
        if i + 1 < n
            && *joint == Joint::And
            && let Some(last) = p.last()
        {
            out.push(last.clone());
        }
    }
    out
}

/// Split at unquoted operators: pipelines (lists of raw commands) with the
/// joint that follows each.
fn split_operators(line: &str) -> Vec<(Vec<String>, Joint)> {
    let mut out: Vec<(Vec<String>, Joint)> = Vec::new();
    let mut pipeline: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let (mut single, mut double) = (false, false);
    let mut depth = 0usize; // inside $( … ) or ( … )
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        if single {
            single = c != '\'';
            cur.push(c);
            prev = c;
            continue;
        }
        if c == '\\' {
            cur.push(c);
            if let Some(n) = chars.next() {
                cur.push(n);
            }
            prev = 'x';
            continue;
        }
        if double {
            double = c != '"';
            cur.push(c);
            prev = c;
            continue;
        }
        match c {
            '\'' => single = true,
            '"' => double = true,
            // Only command substitution hides operators; a subshell's
            // parentheses are trimmed from its commands.
            '(' if prev == '$' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ => {}
        }
        let at_top = depth == 0;
        let redirect = prev == '>' || prev == '<' || chars.peek() == Some(&'>');
        if at_top && matches!(c, '|' | '&' | ';' | '\n') && !(c == '&' && redirect) {
            let next = chars.peek().copied();
            let joint = match (c, next) {
                ('&', Some('&')) => {
                    chars.next();
                    Some(Joint::And)
                }
                ('|', Some('|')) => {
                    chars.next();
                    Some(Joint::Or)
                }
                ('|', Some('&')) => {
                    chars.next();
                    None
                }
                ('|', _) => None,
                ('&', _) => Some(Joint::Background),
                _ => Some(Joint::Other),
            };
            pipeline.push(std::mem::take(&mut cur));
            if let Some(j) = joint {
                out.push((std::mem::take(&mut pipeline), j));
            }
            prev = ' ';
            continue;
        }
        cur.push(c);
        prev = c;
    }
    pipeline.push(cur);
    out.push((pipeline, Joint::Other));
    out
}

const WRAPPERS: &[&str] = &["sudo", "env", "nice", "time", "nohup", "exec", "command", "builtin", "stdbuf"];

/// One raw command as its program's base name and arguments, without
/// redirections, assignments and wrappers; `None` when nothing is left.
fn simple_command(raw: &str) -> Option<Vec<String>> {
    let mut raw = raw.trim().trim_start_matches(['(', '{', '!', ' ']).trim_end_matches(['}', ' ']);
    // A subshell's closing parentheses, not those of `$( … )`.
    while raw.ends_with(')') && raw.matches(')').count() > raw.matches('(').count() {
        raw = raw[..raw.len() - 1].trim_end();
    }
    let words = shlex::split(raw).unwrap_or_else(|| raw.split_whitespace().map(str::to_string).collect());
    let mut words: Vec<String> = strip_redirections(words);
    loop {
        let first = words.first()?.clone();
        if is_assignment(&first) || first == "!" || first == "then" || first == "do" {
            words.remove(0);
        } else if WRAPPERS.contains(&base_name(&first).as_str())
            && !(first == "command" && words.get(1).is_some_and(|w| w == "-v" || w == "-V"))
        {
            words.remove(0);
            while words.first().is_some_and(|w| w.starts_with('-') || is_assignment(w)) {
                let w = words.remove(0);
                // `sudo -u user`, `nice -n 10`: options with a value.
                if matches!(w.as_str(), "-u" | "-g" | "-n" | "-o" | "-e" | "-i") && !words.is_empty() {
                    words.remove(0);
                }
            }
        } else if base_name(&first) == "timeout" {
            words.remove(0);
            while words.first().is_some_and(|w| w.starts_with('-')) {
                words.remove(0);
            }
            if !words.is_empty() {
                words.remove(0); // the duration
            }
        } else {
            break;
        }
    }
    words[0] = base_name(&words[0]);
    Some(words)
}

fn strip_redirections(words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    let mut skip_next = false;
    for w in words {
        if skip_next {
            skip_next = false;
            continue;
        }
        let body = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if body.starts_with('>') || body.starts_with('<') {
            // `>` alone takes the next word; `>file`, `2>&1` carry their target.
            skip_next = body.trim_start_matches(['>', '<', '&', '|']).is_empty() && !body.ends_with('&');
            if body.contains('&') && body.len() > 2 {
                skip_next = false;
            }
            continue;
        }
        out.push(w);
    }
    out
}

fn is_assignment(word: &str) -> bool {
    word.find('=').is_some_and(|i| i > 0 && word[..i].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// `/usr/bin/grep` → `grep`, `rg.exe` → `rg`.
fn base_name(word: &str) -> String {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let name = name.strip_suffix(".exe").or_else(|| name.strip_suffix(".EXE")).unwrap_or(name);
    name.to_string()
}

/// Does a result show no output of the command: nothing but the framing
/// lines agents put around it (exit code, wall time, `Output:`, `<cwd>`,
/// Gemini's `Command:`/`Directory:`/`Signal:` lines, …) and counts of 0?
pub fn is_silent(text: &str) -> bool {
    output_lines(text).next().is_none()
}

/// The lines of a shell result that the command printed: not blank, not
/// the tool's framing (`Exit code N`, `Output:`, `<cwd>…</cwd>`, …).
pub fn output_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .map(unframed)
        .filter(|l| !(l.is_empty() || l.chars().all(|c| c.is_ascii_digit()) || is_framing(l)))
}

/// A line without the framing that opens the first line of a command's
/// output in some tools (Gemini CLI's `Output: <first line>`).
fn unframed(line: &str) -> &str {
    ["Output:", "Stdout:", "JSON envelope error:"].iter().find_map(|f| line.strip_prefix(f)).map_or(line, str::trim)
}

/// Does what the command printed (`output`) satisfy `printed`? The
/// patterns are compiled when a result gets this far (`rules::is_benign`).
pub(crate) fn printed_as(printed: Printed, output: &str, matches: &dyn Fn(&'static str, &str) -> bool) -> bool {
    let mut lines = output_lines(output).peekable();
    match printed {
        Printed::Anything => true,
        Printed::Nothing => lines.peek().is_none(),
        Printed::Only(p) => lines.peek().is_some() && lines.all(|l| matches(p, l)),
        Printed::Some(p) => lines.any(|l| matches(p, l)),
        Printed::AnswerBeside(error, harmless) => {
            let mut answer = false;
            for l in lines {
                if matches(error, l) {
                    if !matches(harmless, l) {
                        return false;
                    }
                } else {
                    answer = true;
                }
            }
            answer
        }
    }
}

/// Is the (trimmed) line the tool's framing of a command's output (`Exit
/// code N`, `Output:`, `<cwd>…</cwd>`, …), not something the command printed?
pub fn is_framing(line: &str) -> bool {
    FRAMING.iter().any(|f| line.starts_with(f)) || (line.starts_with("<cwd>") && line.ends_with("</cwd>"))
}

const FRAMING: &[&str] = &[
    "Exit code",
    "<shellId: ",
    "<exited with exit code",
    "<command with id: ",
    "<command with shellId: ",
    "[The command completed with exit code",
    "Exit Code:",
    "Wall time:",
    "Output:",
    "Process exited with code",
    "Command failed with exit code",
    "Command exited with code",
    "Command executed",
    "Shell cwd was reset to",
    "Command \"",
    "```",
    "Process running with session ID",
    "Chunk ID:",
    "Original token count:",
    "Command:",
    "Directory:",
    "Stdout: (empty)",
    "(empty)",
    "Stderr: (empty)",
    "Error: (none)",
    "Signal:",
    "Background PIDs:",
    "Process Group PGID:",
    "(no output)",
    "(Bash completed with no output)",
    "<status>",
    "<exit_code>",
    "<retrieval_status>",
    "<task_id>",
    "<task_type>",
    "<output>",
    "</output>",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_parsing() {
        assert_eq!(last_command("grep -r \"a\\|b\" dir"), "grep -r a\\|b dir");
        assert_eq!(last_command("cd /p && rg 'x|y' src; echo done"), "echo done");
        assert_eq!(last_command("FOO=1 sudo -u me timeout 10 /bin/grep x f 2>&1"), "grep x f");
        assert_eq!(last_command("grep x f | wc -l"), "wc -l");
        assert_eq!(last_command("bash -lc 'rg foo | head'"), "head");
        assert_eq!(last_command("rg x 2>/dev/null"), "rg x");
        assert_eq!(last_command("(cd a && git diff --stat)"), "git diff --stat");
        assert_eq!(exit_candidates("rg -n x f.py && sed -n '1,2p' f.py"), vec!["sed -n 1,2p f.py", "rg -n x f.py"]);
        assert_eq!(exit_candidates("rg x || echo none"), vec!["echo none"]);
        assert_eq!(last_command("echo $(grep x f | head -1)"), "echo $(grep x f | head -1)");
    }

    #[test]
    fn silence() {
        assert!(is_silent("Exit code: 1\nWall time: 0.6 seconds\nOutput:\n"));
        assert!(is_silent("Output: (empty)\nExit Code: 1\nProcess Group PGID: 4068"));
        assert!(is_silent("\nExit code 1\n\n<cwd>/p</cwd>"));
        assert!(is_silent("0\n"));
        assert!(!is_silent("Exit code: 1\nOutput:\nrg: regex parse error:\n    (?:x)\n"));
    }
}
