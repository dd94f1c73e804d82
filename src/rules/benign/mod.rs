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
//! `shlex` crate. A command the agent's own `timeout` stopped (exit 124)
//! is seen as `timeout <command>`, so that only the entries written for it
//! forgive it (`status_of`).

use serde::Serialize;
use serde_json::Value;

use crate::model::Args;

mod exits;
pub use exits::{BENIGN_EXITS, FIND_WALK_ERROR};

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
    /// A pattern the call's own `description` argument must match (the
    /// agent saying what it meant the command for), or none.
    pub described: Option<&'static str>,
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
    /// Anything, but no line matching the pattern (the program's own
    /// error), in a line of several commands: what was printed came from
    /// the others. A lone command that printed and exited non-zero is not
    /// forgiven by it.
    NoLine(&'static str),
}

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
                // Quoted where a word holds a space, so that the line splits
                // back into these words (`cmd /c "node -v"`).
                _ => Some(shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))),
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
    if let Some(branches) = powershell_if(line) {
        return pipelines(&branches);
    }
    let mut out = Vec::new();
    for (pipeline, joint) in split_operators(line) {
        let cmds: Vec<Vec<String>> = pipeline.iter().filter_map(|c| simple_command(c)).collect();
        if let [words] = cmds.as_slice()
            && let Some(script) = inner_script(words).map(str::to_string).or_else(|| remote_command(words))
        {
            let mut inner = pipelines(&script);
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

/// POSIX commands that print nothing when they work (without `-v`): what a
/// line shows around them is another command's.
pub const SILENT_WHEN_DONE: &[&str] = &["rm", "mkdir", "cp", "mv", "touch", "sleep", "cd", "chmod"];

/// A PowerShell script that is one `if (COND) { THEN } else { ELSE }`
/// statement (Codex on Windows: `if (Get-Command rg -ErrorAction
/// SilentlyContinue) { rg … } else { Get-ChildItem … }`), as a line whose
/// status a shell reads the same way: `THEN && ELSE`, whose status is
/// ELSE's, or THEN's when THEN ended it. The status of the statement is
/// that of the branch that ran; the condition runs nothing the status
/// comes from. `None` for any other line (an `elseif`, text after the
/// statement, unbalanced braces).
fn powershell_if(line: &str) -> Option<String> {
    let rest = line.trim();
    let after_if = rest.get(..2).filter(|k| k.eq_ignore_ascii_case("if")).map(|_| &rest[2..])?;
    let after_if = after_if.trim_start();
    let (_, after_cond) = balanced(after_if, '(', ')')?;
    let (then, after_then) = balanced(after_cond.trim_start(), '{', '}')?;
    let after_then = after_then.trim_start();
    let otherwise = if after_then.is_empty() {
        None
    } else {
        let after_else = after_then.get(..4).filter(|k| k.eq_ignore_ascii_case("else")).map(|_| &after_then[4..])?;
        let (otherwise, end) = balanced(after_else.trim_start(), '{', '}')?;
        if !end.trim().is_empty() {
            return None;
        }
        Some(otherwise)
    };
    let then = then.trim();
    Some(match otherwise.map(str::trim) {
        Some(e) if !then.is_empty() && !e.is_empty() => format!("{then} && {e}"),
        Some(e) if then.is_empty() => e.to_string(),
        _ => then.to_string(),
    })
}

/// `text` opening with `open`: what lies inside its matching `close` (quotes
/// and nested pairs respected), and what follows it.
fn balanced(text: &str, open: char, close: char) -> Option<(&str, &str)> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != open {
        return None;
    }
    let (mut depth, mut quote) = (1usize, None::<char>);
    for (i, c) in chars {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c == open => depth += 1,
            (None, c) if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[open.len_utf8()..i], &text[i + c.len_utf8()..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// The command a program runs elsewhere and whose exit status it returns
/// as its own: `ssh [options] HOST COMMAND…` (the remote shell runs the
/// words joined by spaces; ssh exits with its status, or 255 when ssh
/// itself failed), `docker exec [options] CONTAINER COMMAND…` and
/// `kubectl exec … -- COMMAND…`. `None` when there is no such command (an
/// interactive `ssh host`).
fn remote_command(words: &[String]) -> Option<String> {
    let (program, rest) = words.split_first()?;
    let command: &[String] = match program.as_str() {
        "ssh" => {
            // ssh(1): the options that take a value.
            const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
            let mut i = 0;
            loop {
                let w = rest.get(i)?;
                if w == "--" {
                    i += 1;
                    break;
                }
                let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) else { break };
                i += 1;
                if let Some(at) = flags.find(|c| VALUED.contains(c)) {
                    // `-p 22`: the value is the next word; `-p22`: it is attached.
                    if at + 1 == flags.len() {
                        i += 1;
                    }
                }
            }
            rest.get(i + 1..)? // after the host
        }
        "docker" | "podman" if rest.first().is_some_and(|w| w == "exec") => {
            const VALUED: &[&str] = &["-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file", "--detach-keys"];
            let mut i = 1;
            while let Some(w) = rest.get(i).filter(|w| w.starts_with('-')) {
                i += if VALUED.contains(&w.as_str()) { 2 } else { 1 };
            }
            rest.get(i + 1..)? // after the container
        }
        "kubectl" if rest.first().is_some_and(|w| w == "exec") => {
            let at = rest.iter().position(|w| w == "--")?;
            &rest[at + 1..]
        }
        _ => return None,
    };
    if command.is_empty() {
        return None;
    }
    // ssh sends the words joined by spaces for the remote shell to parse;
    // docker and kubectl run them as an argument vector.
    Some(match program.as_str() {
        "ssh" => command.join(" "),
        _ => shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" ")),
    })
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
    candidates_of(&pipelines(line))
}

/// `exit_candidates` of a line already split into pipelines.
fn candidates_of(all: &[(Vec<String>, Joint)]) -> Vec<String> {
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

/// A line as the benign exits read it (`status_of`).
#[derive(Debug, PartialEq, Eq)]
pub struct Status {
    /// The simple commands whose status a result can be, the first the
    /// line's last command.
    pub candidates: Vec<String>,
    /// How many simple commands the line runs.
    pub commands: usize,
}

/// The simple commands whose status a result with exit `code` can be, as
/// the benign exits' patterns see them: `exit_candidates`, an empty line as
/// one empty command, and the last command written `timeout <command>` when
/// the agent's own `timeout` stopped it (exit 124). The line is parsed once.
pub fn status_of(line: &str, code: Option<i64>) -> Status {
    if line.trim().is_empty() {
        return Status { candidates: vec![String::new()], commands: 0 };
    }
    let all = pipelines(line);
    let mut candidates = candidates_of(&all);
    // With pipefail the status can be any command's of the last pipeline:
    // it is read whole (`npm test 2>&1 | grep FAIL` is not grep's answer).
    if line.contains("pipefail")
        && let Some((last, _)) = all.last()
        && last.len() > 1
        && let Some(first) = candidates.first_mut()
    {
        *first = last.join(" | ");
    }
    if code == Some(124)
        && ends_under_timeout(line)
        && let Some(last) = candidates.first_mut()
    {
        *last = format!("timeout {last}");
    }
    Status { candidates, commands: all.iter().map(|(p, _)| p.len()).sum() }
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
    simple_command_timed(raw).map(|(words, _)| words)
}

/// `simple_command`, and whether a `timeout` wrapper was taken off it.
fn simple_command_timed(raw: &str) -> Option<(Vec<String>, bool)> {
    let mut timed = false;
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
            timed = true;
            words.remove(0);
            while words.first().is_some_and(|w| w.starts_with('-')) {
                let w = words.remove(0);
                // `-k 2`, `--signal KILL`: options with a value.
                if matches!(w.as_str(), "-k" | "-s" | "--kill-after" | "--signal") && !words.is_empty() {
                    words.remove(0);
                }
            }
            if !words.is_empty() {
                words.remove(0); // the duration
            }
        } else {
            break;
        }
    }
    words[0] = base_name(&words[0]);
    Some((words, timed))
}

/// Does the line's status come from a command the agent ran under its own
/// `timeout N` (the last command of the last pipeline, inside `bash -c`
/// too)? GNU timeout exits 124 when it stopped the command.
pub fn ends_under_timeout(line: &str) -> bool {
    let Some((pipeline, _)) = split_operators(line).pop() else { return false };
    let Some((words, timed)) = pipeline.iter().rev().find_map(|c| simple_command_timed(c)) else { return false };
    match inner_script(&words) {
        Some(script) => ends_under_timeout(script),
        None => timed,
    }
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
pub(crate) fn printed_as(
    printed: Printed,
    output: &str,
    several: bool,
    matches: &dyn Fn(&'static str, &str) -> bool,
) -> bool {
    // Gemini CLI writes a command's stderr after `Error: ` on its first
    // line: the patterns see the line as the command printed it.
    let mut lines = output_lines(output).map(|l| l.strip_prefix("Error:").map_or(l, str::trim_start)).peekable();
    match printed {
        Printed::Anything => true,
        Printed::Nothing => lines.peek().is_none(),
        Printed::Only(p) => lines.peek().is_some() && lines.all(|l| matches(p, l)),
        Printed::Some(p) => lines.any(|l| matches(p, l)),
        Printed::NoLine(p) => lines.peek().is_none() || (several && !lines.any(|l| matches(p, l))),
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
    FRAMING.iter().any(|f| line.starts_with(f))
        || (line.starts_with("<cwd>") && line.ends_with("</cwd>"))
        // Crush writes the Go error of a command that printed nothing on
        // stderr (`exit status 1`) before its own `Exit code 1`
        // (internal/agent/tools/bash.go, formatOutput).
        || line.strip_prefix("exit status ").is_some_and(|n| n.parse::<i64>().is_ok())
        || is_startup_noise(line)
}

/// A line a login shell's startup files printed before the command ran
/// (`/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps:
/// Operation not permitted`): Codex runs commands as `bash -lc`, which reads
/// `/etc/profile`, `~/.bash_profile` and what they source (Homebrew's
/// `brew shellenv`), and a sandbox can refuse what they run. Not the
/// command's output.
fn is_startup_noise(line: &str) -> bool {
    let Some(at) = line.find(": line ") else { return false };
    let path = &line[..at];
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        ".bashrc" | ".bash_profile" | ".bash_login" | ".profile" | ".zshrc" | ".zprofile" | ".zshenv" | ".zlogin"
    ) || path == "/etc/profile"
        || path == "/etc/bash.bashrc"
        || path.starts_with("/etc/profile.d/")
        || path.ends_with("/Homebrew/cmd/shellenv.sh")
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
    // mcp-server-kubernetes's exec_in_pod heads each stream.
    "--- stdout ---",
    "--- stderr ---",
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
        // A PowerShell `if` statement: either branch's status.
        let ps = r#"powershell.exe -NoProfile -Command "if (Get-Command rg -ErrorAction SilentlyContinue) { rg --files -S | rg -n 'db.js$' } else { Get-ChildItem -Recurse -Filter db.js | ForEach-Object { $_.FullName } }""#;
        assert_eq!(exit_candidates(ps), vec!["ForEach-Object { $_.FullName", "rg -n db.js$"]);
        assert_eq!(exit_candidates("if ($x) { rg -n TODO }"), vec!["rg -n TODO"]);
        assert_eq!(powershell_if("if ($a) { x } elseif ($b) { y }"), None, "an elseif: left as it is");
        assert_eq!(powershell_if("if ($a) { x }; y"), None, "more after the statement");
        assert_eq!(powershell_if("if (test -f x); then y; fi"), None, "bash's if");
        assert_eq!(powershell_if("if ($a) { '}' }"), Some("'}'".into()));
        assert_eq!(last_command("echo $(grep x f | head -1)"), "echo $(grep x f | head -1)");
    }

    #[test]
    fn commands_run_elsewhere_return_their_status() {
        assert_eq!(
            last_command("ssh -i k -o StrictHostKeyChecking=no u@h 'sudo ss -tuln | grep -E \"80|443\"'"),
            "grep -E 80|443"
        );
        assert_eq!(last_command("aws x && ssh -p22 -tt host grep -r key /etc"), "grep -r key /etc");
        assert_eq!(last_command("ssh host"), "ssh host", "no remote command");
        assert_eq!(last_command("docker exec -it -u root app sh -c 'pgrep -f worker'"), "pgrep -f worker");
        assert_eq!(
            last_command("kubectl exec -n prod pod-1 -c web -- grep x /var/log/app.log"),
            "grep x /var/log/app.log"
        );
        assert_eq!(last_command("ssh host 'tail log' | grep x"), "grep x", "a local pipe is read locally");
        assert_eq!(last_command("docker ps"), "docker ps");
    }

    #[test]
    fn a_login_shells_startup_noise_is_not_output() {
        assert!(is_framing(
            "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted"
        ));
        assert!(is_framing("/Users/u/.bash_profile: line 3: nvm: command not found"));
        assert!(!is_framing("./deploy.sh: line 5: foo: command not found"), "the command's own script");
        assert!(is_silent(
            "Exit code: 1\nWall time: 0 seconds\nOutput:\n/etc/profile.d/x.sh: line 2: y: No such file or directory\n"
        ));
    }

    #[test]
    fn the_agents_own_timeout() {
        assert!(ends_under_timeout("cd app && timeout 15 npm run dev"));
        assert!(ends_under_timeout("bash -lc 'timeout 10s uvicorn app:app 2>&1'"));
        assert!(ends_under_timeout("sudo timeout -k 2 5 node server.js"));
        assert_eq!(last_command("timeout -k 2 -s KILL 5 node server.js"), "node server.js");
        assert!(!ends_under_timeout("timeout 15 npm run dev; echo done"), "the status is echo's");
        assert!(!ends_under_timeout("npm run dev"));
        assert!(!ends_under_timeout("timeout 5 npm run dev | tee log"), "the status is tee's");
        assert_eq!(status_of("timeout 15 npm run dev", Some(124)).candidates, vec!["timeout npm run dev"]);
        assert_eq!(status_of("timeout 15 npm run dev", Some(1)).candidates, vec!["npm run dev"]);
        assert_eq!(status_of("npm run dev", Some(124)).candidates, vec!["npm run dev"]);
        assert_eq!(status_of("  ", Some(1)).candidates, vec![String::new()]);
        assert_eq!(
            status_of("set -o pipefail; npm test 2>&1 | grep FAIL", Some(1)).candidates,
            vec!["npm test | grep FAIL"]
        );
        assert_eq!(status_of("npm test 2>&1 | grep FAIL", Some(1)).candidates, vec!["grep FAIL"]);
    }

    #[test]
    fn a_word_list_splits_back_into_its_words() {
        let line = |v: serde_json::Value| command_line(&Args::from(serde_json::json!({ "command": v }))).unwrap();
        assert_eq!(line(serde_json::json!(["cmd", "/c", "node -v"])), "cmd /c 'node -v'");
        assert_eq!(last_command(&line(serde_json::json!(["cmd", "/c", "node -v"]))), "node -v");
        assert_eq!(line(serde_json::json!(["git", "commit", "-m", "a && b"])), "git commit -m 'a && b'");
        assert_eq!(last_command(&line(serde_json::json!(["git", "commit", "-m", "a && b"]))), "git commit -m a && b");
        assert_eq!(line(serde_json::json!(["rg", "x"])), "rg x");
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
