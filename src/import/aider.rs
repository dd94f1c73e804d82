//! Aider chat histories (`<repo>/.aider.chat.history.md`, moved by
//! `--chat-history-file` or `AIDER_CHAT_HISTORY_FILE`), the Markdown aider
//! appends as it runs (read from `aider/io.py`, `coders/base_coder.py` and
//! `coders/editblock_coder.py`).
//!
//! Aider has no tool calls of its own, no ids and no flags, so the file is
//! counted as a reader of it would:
//! - each run starts with `# aider chat started at YYYY-MM-DD HH:MM:SS`: a
//!   session, named by that time (local time, read as UTC);
//! - user lines are `#### …` ending in two spaces, aider's own lines `> …`,
//!   and the model's reply is the raw text between;
//! - each SEARCH/REPLACE block of a reply is one call of the tool `edit` (id
//!   `L<line>` of its `<<<<<<< SEARCH`). Aider writes one verdict per reply:
//!   `Applied edit to FILE` (every block worked), `# N SEARCH/REPLACE blocks
//!   failed to match!` with a `## SearchReplaceNoExactMatch … in FILE`
//!   section repeating each failed block (the others were applied), `The
//!   LLM did not conform to the edit format` then `^^^ Expected …` (nothing
//!   applied), `Skipping edits to FILE` (the user said no), a `^C` before
//!   the reply (interrupted) or a token limit. Those are flagged failures, in
//!   aider's words. A reply in a mode that never applies blocks (ask,
//!   architect, whole) gets no verdict, and its blocks are not calls; a
//!   block of a diff-mode reply that got none is an unpaired call;
//! - aider's own lines end in two spaces; in 0.52 a usage report whose
//!   `Cost: …` goes on a line of its own (the prompt cache, the
//!   `--no-stream` warning) leaves that line unquoted: it is read as
//!   aider's, so the reply's blocks still get the verdict after it;
//! - each `Run shell command? …: y|n|s|d` prompt (0.52: `… [Y/n] y`) is one call of the tool
//!   `shell` (id `L<line>` of the fenced block it came from): declined, it
//!   is a flagged failure. Aider gathers the blocks of a message's reply and
//!   of the retries after it and asks once per command at the end, so a
//!   prompt names the first block of its own message whose first line its
//!   subject quotes; asked again after a retry, it is a call of its own,
//!   `L<block>+P<prompt line>`. Run, its result is what aider wrote after
//!   `Running …` (`Error occurred while running command …`, or from 0.52 to
//!   0.53 `Command '…' exited with status N`), and nothing more, since aider
//!   keeps no command output.
//!
//! `/run`, `/test` and aider's own lint and test runs are not calls.

use std::path::Path;

use serde_json::json;

use super::{ImportRun, Importer, ResultRow, SessionRow, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Aider;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::AIDER,
    agent: "Aider chat histories (.aider.chat.history.md, Markdown), read through import",
    product: "Aider",
    signature: "a Markdown file whose first line is `# aider chat started at …`; SEARCH/REPLACE blocks are `edit` calls, `Run shell command?` prompts `shell` calls",
    flag: "none is written: aider's own verdict lines (`failed to match`, `Skipping edits to`, a declined prompt) are the flag",
    locations: &[Location::Cwd(".aider.chat.history.md")],
    sample: "aider",
};

const AGENT: &str = Dialect::AIDER.as_str();
const NAME: &str = ".aider.chat.history.md";
const HEADER: &str = "aider chat started at ";

impl Importer for Aider {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn recognise(&self, _v: &serde_json::Value) -> bool {
        false
    }

    /// Its name, or a first line `# aider chat started at …`.
    fn recognise_text(&self, path: &Path, head: &[u8]) -> bool {
        let named = path.file_name().is_some_and(|n| n == NAME);
        let text = String::from_utf8_lossy(head);
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        let headed = first.strip_prefix("# ").is_some_and(|r| r.to_ascii_lowercase().starts_with(HEADER));
        headed || (named && first.is_empty())
    }

    fn claims_name(&self, name: &str) -> bool {
        name == NAME
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Aider)
    }
}

impl ImportRun for Aider {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
        let file = crate::source::open::open_regular(path).map_err(|e| Error::input(path, e.to_string()))?;
        let source = path.display().to_string();
        let mut h = History { source: &source, ..History::default() };
        let mut reader = std::io::BufReader::new(file);
        let mut buf = Vec::new();
        let mut n = 0usize;
        loop {
            buf.clear();
            // A line past the bound is read past, its first bytes kept:
            // a pasted blob is never held whole.
            let read = super::read_line_at_most(&mut reader, &mut buf, super::MAX_LINE_BYTES)
                .map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
            if read.bytes == 0 {
                break;
            }
            n += 1;
            w.stats.lines += 1;
            let line = String::from_utf8_lossy(&buf);
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            h.line(n, line, w).map_err(sql)?;
        }
        h.end_reply(w).map_err(sql)?;
        Ok(())
    }
}

/// One SEARCH/REPLACE block of a reply.
#[derive(Debug, Default, Clone)]
struct Block {
    id: String,
    file: String,
    search: String,
    replace: String,
    /// Its result, once aider said: (text, flagged).
    verdict: Option<(String, bool)>,
}

/// Where the line being read is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Part {
    #[default]
    Outside,
    /// The model's reply.
    Reply,
    /// The raw continuation of aider's `failed to match` message.
    Failures,
    /// The raw continuation of a reply aider could not parse (`^^^` ends it).
    Unparsed,
}

#[derive(Default)]
struct History<'a> {
    source: &'a str,
    session: Option<String>,
    started: Option<String>,
    /// The edit format the session announced (`diff`, `whole`, …).
    format: Option<String>,
    /// Architect mode's editor applies the blocks it writes (`Editor model:
    /// M with editor-diff edit format`).
    editor_applies: bool,
    yes_always: bool,
    part: Part,
    /// The blocks of the reply read last, and whether aider wrote a verdict.
    blocks: Vec<Block>,
    verdict_seen: bool,
    /// The block being read: its id, file, and which half.
    open: Option<(Block, bool)>,
    /// The lines of the reply before the block, for its file name.
    recent: Vec<String>,
    /// Shell blocks of the message's replies.
    shells: Vec<Shell>,
    /// The blocks of the message already asked about: a reflection that
    /// passed through aider's `run_shell_commands` asks about them again.
    asked: Vec<Shell>,
    /// The first line of the reply read last.
    reply_from: usize,
    shell_open: Option<(usize, Vec<String>)>,
    /// A `^C` came before the reply's text.
    interrupted: bool,
    /// Why the reply about to be read will not be applied (a token limit).
    stopped: Option<String>,
    /// A one-shot `/ask X` (or `/architect X`) is being answered: its
    /// replies' blocks are not applied.
    asking: Option<String>,
    /// A `> The LLM did not conform` line was read.
    nonconform: bool,
    /// The failure sections read: (file, search, replace, text).
    failed: Vec<(String, String, String, String)>,
    failure: Option<(String, String, String, String, u8)>,
    others_applied: bool,
    /// The failure message is written as `> ` lines (before 0.55).
    quoted_failures: bool,
    /// Inside a fenced excerpt of the failure message.
    in_excerpt: bool,
    /// The line being read, for `line_again`.
    at: usize,
    /// The last `> ` lines (a prompt's subject), and the last prompt's answer.
    subject: Vec<String>,
    last_answer: Option<char>,
    /// The shell call waiting for what aider wrote after `Running`.
    running: Option<Running>,
    /// The usage report of the reply being read (`> Tokens: … Cost: …`),
    /// for its edit blocks.
    reply_usage: Option<crate::model::Usage>,
    /// The line read last was aider's `> Tokens: …` left open (no two
    /// spaces at its end): its `Cost: …` follows on a line of its own.
    tokens_open: bool,
}

/// A fenced shell block of a reply.
struct Shell {
    at: usize,
    /// The session whose reply wrote it: a second aider process appending
    /// to the same file can start between the block and its prompt.
    session: Option<String>,
    started: Option<String>,
    /// Its lines, trimmed, without the empty ones: never empty.
    text: String,
}

impl Shell {
    /// The line a prompt's subject quotes (a comment included).
    fn first(&self) -> &str {
        self.text.lines().next().unwrap_or_default()
    }

    /// Its first command (older subjects showed it alone).
    fn command(&self) -> Option<&str> {
        self.text.lines().find(|l| !l.starts_with('#'))
    }

    /// The session that wrote the block, and its start.
    fn owner(&self) -> Option<(String, Option<String>)> {
        Some((self.session.clone()?, self.started.clone()))
    }
}

fn is_head(l: &str) -> bool {
    let t = l.trim();
    let lt = t.trim_start_matches('<');
    (5..=9).contains(&(t.len() - lt.len())) && lt.trim_end_matches('>').trim() == "SEARCH"
}

fn is_divider(l: &str) -> bool {
    let t = l.trim();
    (5..=9).contains(&t.len()) && t.chars().all(|c| c == '=')
}

fn is_updated(l: &str) -> bool {
    let t = l.trim();
    let lt = t.trim_start_matches('>');
    (5..=9).contains(&(t.len() - lt.len())) && lt.trim() == "REPLACE"
}

/// `>>>>>>> REPLACE` as aider's Markdown quoting of its own failure message
/// writes it before 0.55: every `>` of the marker a quote level of its own,
/// `> > > > > > > REPLACE` (aider's `io.tool_error` quotes each line).
fn is_quoted_updated(l: &str) -> bool {
    let Some(rest) = l.trim().strip_suffix("REPLACE") else { return false };
    let marks = rest.chars().filter(|c| *c == '>').count();
    !rest.is_empty() && rest.chars().all(|c| c == '>' || c == ' ') && (5..=9).contains(&marks)
}

/// A fence opening a shell block. Aider's `find_original_update_blocks`
/// tests the line's start, so ```` ```shell-session ```` and ```` ```csharp ````
/// (`csh`) open one too.
fn is_shell_fence(l: &str) -> bool {
    let Some(lang) = l.trim().strip_prefix("```") else { return false };
    ["bash", "sh", "shell", "cmd", "batch", "powershell", "ps1", "zsh", "fish", "ksh", "csh", "tcsh"]
        .iter()
        .any(|start| lang.starts_with(start))
}

/// The file name aider reads from the lines before a block.
fn file_name(recent: &[String]) -> Option<String> {
    recent.iter().rev().take(3).map(|l| l.trim()).filter(|l| !l.starts_with("```") && !l.is_empty()).find_map(|l| {
        let name = l.trim_matches(|c| matches!(c, '`' | '*' | '#' | ':' | ' '));
        // Aider's `strip_filename` undoes Markdown's escaped underscore.
        (!name.is_empty() && !name.contains(' ')).then(|| name.replace("\\_", "_"))
    })
}

/// The edit formats whose replies aider applies as SEARCH/REPLACE blocks.
fn applies_blocks(format: Option<&str>) -> bool {
    format.is_none_or(|f| f.starts_with("diff") || f.starts_with("editor-diff"))
}

impl History<'_> {
    fn session(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<String> {
        if let Some(s) = &self.session {
            return Ok(s.clone());
        }
        // A file that does not start with a header: one session named by the file.
        let id = self.source.to_string();
        w.session(&SessionRow { id: &id, parent: None, agent: AGENT, source: self.source, started: None })?;
        self.session = Some(id.clone());
        Ok(id)
    }

    /// Read the current line again, in the part that follows a message.
    fn line_again(&mut self, raw: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.line(self.at, raw, w)
    }

    fn line(&mut self, n: usize, raw: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.at = n;
        let trimmed = raw.trim();
        // Aider 0.52 writes its usage report as one quoted text of two lines
        // (`Tokens: …` and `Cost: …`, joined by a newline when the prompt
        // cache was written and read, or before the `--no-stream` warning):
        // only the first is quoted. The second is aider's, not a reply.
        if std::mem::take(&mut self.tokens_open) && trimmed.starts_with("Cost: $") {
            if let Some(u) = self.reply_usage.as_mut() {
                u.cost = message_cost(trimmed);
            }
            return Ok(());
        }
        if let Some(rest) = trimmed.strip_prefix("# ")
            && rest.to_ascii_lowercase().starts_with(HEADER)
        {
            self.end_reply(w)?;
            self.finish_running(w)?;
            let when = rest[HEADER.len()..].trim().to_string();
            let started = when.replacen(' ', "T", 1) + "Z";
            w.session(&SessionRow {
                id: &when,
                parent: None,
                agent: AGENT,
                source: self.source,
                started: Some(&started),
            })?;
            self.session = Some(when);
            self.started = Some(started);
            self.format = None;
            self.editor_applies = false;
            self.yes_always = false;
            return Ok(());
        }
        let user_line = raw.starts_with("#### ") && (raw.ends_with("  ") || raw.trim_end() == "####");
        // After `(S)kip all` or `(A)ll`, aider logs each later question of
        // the group as if the user typed it, answer and all (`io.py`,
        // `confirm_ask`): not a message.
        if user_line && is_group_echo(raw[5..].trim()) {
            return Ok(());
        }
        // A user line ends any message of aider's that was never closed.
        if user_line && matches!(self.part, Part::Failures | Part::Unparsed) {
            if self.part == Part::Failures {
                self.end_failure_section();
                self.apply_failures();
            }
            self.part = Part::Outside;
        }
        match self.part {
            Part::Failures => return self.failure_line(raw, w),
            Part::Unparsed => {
                let trimmed = trimmed.strip_prefix("> ").unwrap_or(trimmed);
                if trimmed.starts_with("^^^ ") {
                    let why = format!("The LLM did not conform to the edit format.\n{trimmed}");
                    self.fail_pending(&why);
                    self.part = Part::Outside;
                }
                return Ok(());
            }
            _ => {}
        }
        // Aider's own line: `> …` from the first column (an indented `>` is a
        // reply's code); inside a SEARCH/REPLACE block only one that ends in
        // aider's two spaces (a `^C` cutting the block off).
        let tool_line =
            (raw.starts_with("> ") || raw.trim_end() == ">") && (self.open.is_none() || raw.ends_with("  "));
        if tool_line {
            if self.part == Part::Reply {
                self.close_reply();
            }
            return self.tool_line(n, raw, w);
        }
        if user_line {
            self.end_reply(w)?;
            self.finish_running(w)?;
            let said = raw.trim_start_matches("#### ").trim();
            match said.split_once(' ') {
                Some(("/ask" | "/architect" | "/context" | "/help", rest)) => {
                    self.asking = Some(rest.trim().to_string())
                }
                // The one-shot's argument, echoed as its own user line.
                _ if self.asking.as_deref() == Some(said) => {}
                _ => self.asking = None,
            }
            self.interrupted = false;
            self.stopped = None;
            self.subject.clear();
            // A message starts a run of its own: aider gathers the shell
            // blocks of its reply and of the reflections after it, and asks
            // about them once at the end. Blocks of an earlier message (one
            // cut off by `^C` or by the reflection limit) are never asked.
            self.shells.clear();
            self.asked.clear();
            return Ok(());
        }
        if self.part == Part::Outside {
            if trimmed.is_empty() {
                return Ok(());
            }
            // A reply starts: the one before it is over.
            self.end_reply(w)?;
            self.finish_running(w)?;
            self.part = Part::Reply;
            self.reply_from = n;
        }
        self.reply_line(n, raw);
        Ok(())
    }

    fn reply_line(&mut self, n: usize, raw: &str) {
        if let Some((mut block, replacing)) = self.open.take() {
            // 0.50 can write a reply's marker as it quotes its own failure
            // message, `> > > > > > > REPLACE`, for a block it applied.
            if is_updated(raw) || (replacing && is_quoted_updated(raw)) {
                self.blocks.push(block);
            } else if !replacing && is_divider(raw) {
                self.open = Some((block, true));
            } else {
                let half = if replacing { &mut block.replace } else { &mut block.search };
                half.push_str(raw);
                half.push('\n');
                self.open = Some((block, replacing));
            }
            return;
        }
        if is_head(raw) {
            // A shell fence just above is the block's, not a command.
            if let Some((at, _)) = &self.shell_open
                && n - at <= 2
            {
                self.shell_open = None;
            }
            let file =
                file_name(&self.recent).or_else(|| self.blocks.last().map(|b| b.file.clone())).unwrap_or_default();
            self.open = Some((Block { id: format!("L{n}"), file, ..Block::default() }, false));
            return;
        }
        if let Some((at, cmds)) = &mut self.shell_open {
            if raw.trim().starts_with("```") {
                // Aider shows the block stripped, one line under another, as
                // the prompt's subject: its first line (a comment included)
                // is the one quoted.
                let lines: Vec<&str> = cmds.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
                // A block of comments alone holds no command.
                if lines.iter().any(|l| !l.starts_with('#')) {
                    let (session, started) = (self.session.clone(), self.started.clone());
                    self.shells.push(Shell { at: *at, session, started, text: lines.join("\n") });
                }
                self.shell_open = None;
            } else {
                cmds.push(raw.to_string());
            }
            return;
        }
        if is_shell_fence(raw) {
            self.shell_open = Some((n, Vec::new()));
        }
        self.recent.push(raw.to_string());
        if self.recent.len() > 4 {
            self.recent.remove(0);
        }
    }

    /// The reply's text is over (aider writes again); its verdict follows.
    fn close_reply(&mut self) {
        if let Some((block, _)) = self.open.take() {
            // Cut off before `>>>>>>> REPLACE`: its verdict is the parse error.
            self.blocks.push(block);
        }
        self.shell_open = None;
        self.recent.clear();
        self.part = Part::Outside;
        if std::mem::take(&mut self.interrupted) {
            self.fail_pending("Cancelled by the user (^C) while the reply was streaming: not applied");
        }
        if let Some(why) = self.stopped.take() {
            self.fail_pending(&why);
        }
    }

    fn tool_line(&mut self, n: usize, raw: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let raw_ends_closed = raw.ends_with("  ");
        let text = raw[1..].trim();
        self.tokens_open = !raw_ends_closed && text.starts_with("Tokens: ");
        if let Some(report) = text.strip_prefix("Tokens: ") {
            self.reply_usage = usage_report(report);
        }
        let session = self.session(w)?;
        // `Model: M with diff edit format`; 0.50 `Models: M with ♾️ diff edit
        // format, weak model W`; 0.86 `Main model: M with ask edit format,
        // infinite output`.
        if let Some(format) = text
            .split_once(" with ")
            .and_then(|(_, r)| r.split_once(" edit format"))
            .and_then(|(f, _)| f.split_whitespace().last())
            .filter(|_| text.starts_with("Model:") || text.starts_with("Main model:") || text.starts_with("Models:"))
        {
            self.format = Some(format.to_string());
        }
        if let Some(rest) = text.strip_prefix("Editor model:") {
            self.editor_applies = rest
                .split_once(" with ")
                .and_then(|(_, r)| r.split_once(" edit format"))
                .and_then(|(f, _)| f.split_whitespace().last())
                .is_some_and(|f| applies_blocks(Some(f)));
        }
        if text.contains("aider") && text.contains("--yes-always") && self.format.is_none() {
            self.yes_always = true;
        }
        if text == "^C again to exit" || text == "^C KeyboardInterrupt" {
            // Before any reply, or after the last one got its verdict (a
            // retry being streamed): the reply written next was cut off.
            if self.blocks.is_empty() || self.verdict_seen {
                self.interrupted = true;
            } else {
                // At a prompt after the reply, before anything was applied.
                self.fail_pending("Cancelled by the user (^C) before the edits were applied");
            }
            return Ok(());
        }
        if let Some(file) =
            text.strip_prefix("Applied edit to ").or_else(|| text.strip_prefix("Did not apply edit to "))
        {
            let said = format!("Applied edit to {}", file.trim());
            for b in self.blocks.iter_mut().filter(|b| b.verdict.is_none()) {
                b.verdict =
                    Some((if b.file.is_empty() { said.clone() } else { format!("Applied edit to {}", b.file) }, false));
            }
            self.verdict_seen = true;
            return Ok(());
        }
        if text.starts_with("The LLM did not conform to the edit format") {
            self.nonconform = true;
            return Ok(());
        }
        // The link, and the empty quoted line aider writes after it, come
        // before the message.
        if self.nonconform && !text.is_empty() && !text.starts_with("https://") {
            self.nonconform = false;
            if text.starts_with('#') && text.contains("SEARCH/REPLACE") && text.contains("failed to match") {
                self.part = Part::Failures;
                self.failed.clear();
                self.others_applied = false;
                // Quoted throughout (before 0.55) when the header is closed itself.
                self.quoted_failures = raw_ends_closed;
                return Ok(());
            }
            // The reply repeated up to where it could not be parsed, then `^^^ …`.
            self.part = Part::Unparsed;
            return Ok(());
        }
        if let Some(file) = text.strip_prefix("Skipping edits to ") {
            let file = file.trim().trim_end_matches('.');
            let file = file.strip_suffix(" that matches gitignore spec").unwrap_or(file).to_string();
            let why = if self.last_answer == Some('n') {
                format!("The user declined: Skipping edits to {file}")
            } else {
                format!("Skipping edits to {}", text.trim_start_matches("Skipping edits to "))
            };
            for b in self.blocks.iter_mut().filter(|b| b.verdict.is_none() && (b.file == file || b.file.is_empty())) {
                b.verdict = Some((why.clone(), true));
            }
            self.verdict_seen = true;
            return Ok(());
        }
        // The reply could not be applied: a token limit (written before the
        // partial reply), or an error preparing or writing the edits.
        let cannot = [
            "Cmd('git') failed due to:",
            "Unable to write file ",
            "Exception while updating files",
            "Unable to create ",
        ];
        if text.contains("has hit a token limit!") || cannot.iter().any(|c| text.starts_with(c)) {
            if self.blocks.is_empty() && !self.verdict_seen {
                self.stopped = Some(text.to_string());
            } else if !self.verdict_seen {
                self.fail_pending(text);
            }
            return Ok(());
        }
        if let Some(answer) = prompt_answer(text) {
            self.last_answer = Some(answer);
            // Files the reply mentions, added: from aider 0.64 the request is
            // sent again before the reply is parsed (`send_message`), so its
            // shell blocks are never gathered. (Before, the question came
            // after aider had asked about them.)
            if text.starts_with("Add file to the chat?") && matches!(answer, 'y' | 'a') && !self.verdict_seen {
                let from = self.reply_from;
                self.shells.retain(|s| s.at < from);
            }
            if text.starts_with("Run shell command") {
                self.finish_running(w)?;
                // The subject is the block, stripped, the last lines before the
                // prompt; only its first line is quoted (`> `), the others
                // follow as they are. It names the first block of the message
                // that starts with it (aider asks once about blocks repeated
                // by a retry).
                let find = |shells: &[Shell]| {
                    self.subject.iter().rev().find_map(|line| {
                        let line = line.trim();
                        shells
                            .iter()
                            .position(|s| line == s.first())
                            .or_else(|| shells.iter().position(|s| s.command() == Some(line)))
                    })
                };
                let (id, command, owner) = if let Some(at) = find(&self.shells) {
                    let shell = self.shells.remove(at);
                    // Aider asks once about a block a retry repeated.
                    self.shells.retain(|s| s.text != shell.text);
                    let asked = (format!("L{}", shell.at), shell.text.clone(), shell.owner());
                    self.asked.push(shell);
                    asked
                } else if let Some(at) = find(&self.asked) {
                    // Asked again after a reflection: a call of its own, named
                    // by its block and the prompt's line.
                    let shell = &self.asked[at];
                    (format!("L{}+P{n}", shell.at), shell.text.clone(), shell.owner())
                } else {
                    (format!("L{n}"), self.subject.last().cloned().unwrap_or_default(), None)
                };
                let (session, time) = owner.unwrap_or((session, self.started.clone()));
                let input = json!({ "command": command });
                w.call(&session, &id, "shell", &input, time.as_deref())?;
                if answer == 'y' {
                    self.running = Some(Running { session, id, time, said: Vec::new() });
                } else {
                    let why = if self.yes_always {
                        "Not run: --yes-always answers no to every shell command".to_string()
                    } else {
                        "The user declined to run the shell command.".to_string()
                    };
                    w.result(&ResultRow {
                        session: &session,
                        call_id: &id,
                        text: &why,
                        flag: Some(true),
                        exit_code: None,
                        time: time.as_deref(),
                    })?;
                }
            }
            self.subject.clear();
            return Ok(());
        }
        if let Some(Running { said, .. }) = &mut self.running
            && !text.starts_with("Running ")
            && !text.starts_with("Add command output")
            && !text.starts_with("Added ")
            // Aider 0.52's advice after a failed command, not its result.
            && !text.starts_with("To retry and share output with the LLM: /run ")
            && !text.starts_with("You can find this command in your input history")
        {
            said.push(text.to_string());
        }
        self.subject.push(text.to_string());
        if self.subject.len() > 8 {
            self.subject.remove(0);
        }
        Ok(())
    }

    fn failure_line(&mut self, raw: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        // Aider 0.50 leaves the header open (no closing two spaces) yet
        // quotes the whole message: an empty quoted line or a quoted first
        // section right after the header says which it is.
        if !self.quoted_failures
            && self.failure.is_none()
            && self.failed.is_empty()
            && (raw.trim_end() == ">" || raw.starts_with("> ## SearchReplaceNoExactMatch: "))
        {
            self.quoted_failures = true;
        }
        // Before 0.55 every line of the message is aider's (`> `): it ends
        // at the first line that is not.
        if self.quoted_failures {
            match raw.strip_prefix("> ").or_else(|| (raw.trim() == ">").then_some("")) {
                Some(inner) if inner.contains("(Y)es/(N)o") => {
                    self.end_failures();
                    return self.line_again(raw, w);
                }
                Some(inner) => {
                    let closing = inner.trim_start().starts_with("Just reply with fixed versions");
                    return self.failure_body(inner, closing);
                }
                None => {
                    self.end_failures();
                    return self.line_again(raw, w);
                }
            }
        }
        if self.failure.is_none() && self.failed.is_empty() && raw.trim().is_empty() {
            return Ok(());
        }
        // One of aider's own lines: the message is over.
        if raw.starts_with("> ") {
            self.end_failures();
            return self.line_again(raw, w);
        }
        // Lines of the repeated block or of a fenced excerpt can end in two
        // spaces: only aider's closing sentences end the message.
        let inside = self.failure.as_ref().is_some_and(|f| matches!(f.4, 1 | 2));
        if !inside && raw.trim().starts_with("```") {
            self.in_excerpt = !self.in_excerpt;
        }
        let t = raw.trim();
        let closing = t.starts_with("Just reply with fixed versions")
            || (t.starts_with("The SEARCH section must exactly match") && raw.ends_with("  "));
        let ended = !inside && !self.in_excerpt && closing;
        self.failure_body(raw, ended)
    }

    fn end_failures(&mut self) {
        self.in_excerpt = false;
        self.end_failure_section();
        self.apply_failures();
        self.part = Part::Outside;
        self.quoted_failures = false;
    }

    fn failure_body(&mut self, raw: &str, ended: bool) -> rusqlite::Result<()> {
        let t = raw.trim_end();
        if let Some(rest) = t.strip_prefix("## SearchReplaceNoExactMatch: ") {
            self.end_failure_section();
            let file = rest.rsplit_once(" in ").map_or("", |(_, f)| f).trim().to_string();
            self.failure = Some((file, String::new(), String::new(), t.trim_start_matches("## ").to_string(), 0));
            return Ok(());
        }
        if let Some((_, search, replace, text, stage)) = &mut self.failure {
            match *stage {
                0 if is_head(raw) => *stage = 1,
                1 if is_divider(raw) => *stage = 2,
                1 => {
                    search.push_str(raw);
                    search.push('\n');
                }
                2 if is_updated(raw) || is_quoted_updated(raw) => *stage = 3,
                2 => {
                    replace.push_str(raw);
                    replace.push('\n');
                }
                _ => {
                    if t.starts_with("Are you sure you need this SEARCH/REPLACE block?")
                        || t.starts_with("The REPLACE lines are already in")
                    {
                        text.push('\n');
                        text.push_str(t.trim());
                    }
                }
            }
        }
        if t.trim_start().starts_with("# The other ") {
            self.others_applied = true;
        }
        // The message ends on the line aider ends in two spaces.
        if ended {
            self.end_failures();
        }
        Ok(())
    }

    fn end_failure_section(&mut self) {
        if let Some((file, search, replace, text, _)) = self.failure.take() {
            self.failed.push((file, search, replace, text));
        }
    }

    /// The failed blocks get aider's words; the others were applied.
    fn apply_failures(&mut self) {
        let failed = std::mem::take(&mut self.failed);
        for (file, search, replace, text) in &failed {
            let same =
                |b: &&mut Block| b.verdict.is_none() && same_text(&b.search, search) && same_text(&b.replace, replace);
            let hit = self.blocks.iter_mut().find(same);
            let hit = match hit {
                Some(b) => Some(b),
                None => self.blocks.iter_mut().find(|b| b.verdict.is_none() && b.file == *file),
            };
            if let Some(b) = hit {
                b.verdict = Some((text.clone(), true));
            }
        }
        let rest = if self.others_applied || !failed.is_empty() {
            Some("Applied (the other SEARCH/REPLACE blocks were applied successfully)".to_string())
        } else {
            None
        };
        for b in self.blocks.iter_mut().filter(|b| b.verdict.is_none()) {
            if let Some(r) = &rest {
                b.verdict = Some((r.clone(), false));
            }
        }
        self.verdict_seen = true;
    }

    fn fail_pending(&mut self, why: &str) {
        for b in self.blocks.iter_mut().filter(|b| b.verdict.is_none()) {
            b.verdict = Some((why.to_string(), true));
        }
        self.verdict_seen = true;
    }

    /// Write the calls of the reply read last, and their results.
    fn end_reply(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        if self.part == Part::Reply {
            self.close_reply();
        }
        let blocks = std::mem::take(&mut self.blocks);
        let verdict = std::mem::replace(&mut self.verdict_seen, false);
        let usage = self.reply_usage.take();
        if blocks.is_empty() {
            return Ok(());
        }
        // A mode that never applies blocks wrote no verdict: they are not calls.
        // Architect mode's editor, when it writes diffs, does apply them: a
        // reply of its that aider discarded (a file mention answered `y`)
        // holds calls that got no result.
        let applies = applies_blocks(self.format.as_deref())
            || (self.editor_applies && self.format.as_deref() == Some("architect"));
        if !verdict && (self.asking.is_some() || !applies) {
            return Ok(());
        }
        let session = self.session(w)?;
        let time = self.started.clone();
        let usage = usage.map(|mut u| {
            u.response = format!("{session}#{}", blocks[0].id);
            std::sync::Arc::new(u)
        });
        for b in blocks {
            let input = json!({"file_path": b.file, "search": b.search, "replace": b.replace});
            w.call(&session, &b.id, "edit", &input, time.as_deref())?;
            if let Some(u) = &usage {
                w.call_usage(&session, &b.id, u)?;
            }
            if let Some((text, flag)) = &b.verdict {
                let row = ResultRow {
                    session: &session,
                    call_id: &b.id,
                    text,
                    flag: Some(*flag),
                    exit_code: None,
                    time: time.as_deref(),
                };
                w.result(&row)?;
            }
        }
        Ok(())
    }

    /// The shell call that ran: what aider wrote after `Running …`.
    fn finish_running(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let Some(Running { session, id, time, said }) = self.running.take() else { return Ok(()) };
        let text = if said.is_empty() { "Ran (aider keeps no command output)".to_string() } else { said.join("\n") };
        let exit_code = said.iter().find_map(|l| {
            l.rsplit_once(" exited with status ").and_then(|(_, n)| n.trim().trim_end_matches('.').parse().ok())
        });
        w.result(&ResultRow {
            session: &session,
            call_id: &id,
            text: &text,
            flag: Some(false),
            exit_code,
            time: time.as_deref(),
        })
    }
}

/// Aider's usage report after a reply, past `Tokens: `: `3.1k sent, 1.5k
/// received. Cost: $0.0029 message, $0.0029 session.`, with `… cache
/// write` and `… cache hit` before `received` when the prompt cache was
/// used (aider's `base_coder.py`, `calculate_and_show_tokens_and_cost`).
/// Counts are as aider prints them, rounded (`3.1k`, `10k`); the cost is
/// the message's. `None` when neither sent nor received is there.
fn usage_report(report: &str) -> Option<crate::model::Usage> {
    let (counts, cost) = match report.split_once(". Cost: ") {
        Some((c, rest)) => (c, message_cost(&format!("Cost: {rest}"))),
        None => (report.trim_end().trim_end_matches('.'), None),
    };
    let mut u = crate::model::Usage { cost, ..Default::default() };
    let (mut sent, mut received) = (false, false);
    for part in counts.split(", ") {
        let Some((n, what)) = part.trim().split_once(' ') else { continue };
        let Some(n) = aider_count(n) else { continue };
        match what.trim_end_matches('.') {
            "sent" => (u.input, sent) = (n, true),
            "received" => (u.output, received) = (n, true),
            "cache write" => u.cache_write = n,
            "cache hit" => u.cache_read = n,
            _ => {}
        }
    }
    (sent || received).then_some(u)
}

/// A count as aider's `format_tokens` prints it: `950`, `3.1k`, `10k`,
/// `1.2M`, or (before 0.50) with thousands separators, `10,332`.
fn aider_count(s: &str) -> Option<u64> {
    let plain = s.replace(',', "");
    let s = plain.as_str();
    let (number, scale) = match s.as_bytes().last()? {
        b'k' => (&s[..s.len() - 1], 1e3),
        b'M' => (&s[..s.len() - 1], 1e6),
        _ => (s, 1.0),
    };
    let n: f64 = number.parse().ok()?;
    (n.is_finite() && n >= 0.0).then(|| (n * scale).round() as u64)
}

/// The message's cost in `Cost: $0.0029 message, $0.0042 session.`.
fn message_cost(line: &str) -> Option<f64> {
    let rest = line.trim().strip_prefix("Cost: $")?;
    let (amount, what) = rest.split_once(' ')?;
    what.starts_with("message").then(|| amount.parse::<f64>().ok()).flatten().filter(|d| d.is_finite() && *d >= 0.0)
}

/// A shell call that ran, and the lines aider wrote after `Running …`.
struct Running {
    session: String,
    id: String,
    time: Option<String>,
    said: Vec<String>,
}

/// The same lines, whatever their trailing white space (aider's quoted
/// lines end in two spaces).
fn same_text(a: &str, b: &str) -> bool {
    a.trim().lines().map(str::trim_end).eq(b.trim().lines().map(str::trim_end))
}

/// A confirmation question followed by a group's remembered answer.
fn is_group_echo(said: &str) -> bool {
    (said.ends_with("skip") || said.ends_with("all")) && said.contains("(Y)es/(N)o")
}

/// The answer letter of a confirmation prompt (`…? (Y)es/(N)o [Yes]: y`;
/// aider 0.52: `…? [Y/n] y`, `[y/N]`, `[y/n]`; before it `…? y`).
fn prompt_answer(text: &str) -> Option<char> {
    let bracketed = ["[Y/n] ", "[y/N] ", "[y/n] "].iter().any(|b| text.contains(b));
    if !text.contains("(Y)es/(N)o") && !bracketed && !text.ends_with("? y") && !text.ends_with("? n") {
        return None;
    }
    let last = text.rsplit(' ').next()?;
    let c = last.chars().next()?.to_ascii_lowercase();
    (last.chars().count() <= 3 && matches!(c, 'y' | 'n' | 's' | 'd' | 'a')).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_reports() {
        let u = usage_report("3.1k sent, 1.5k received. Cost: $0.0029 message, $0.0029 session.").unwrap();
        assert_eq!((u.input, u.output, u.cost), (3100, 1500, Some(0.0029)));
        let u = usage_report("10,332 sent, 439 received. Cost: $0.04 message, $0.04 session.").unwrap();
        assert_eq!((u.input, u.output, u.cost), (10332, 439, Some(0.04)));
        let u = usage_report("2.0k sent, 8.9k cache write, 1.4k cache hit, 300 received.").unwrap();
        assert_eq!((u.input, u.cache_write, u.cache_read, u.output, u.cost), (2000, 8900, 1400, 300, None));
        assert_eq!(message_cost("Cost: $0.01 message, $0.05 session."), Some(0.01));
        assert!(usage_report("no counts here").is_none());
    }

    #[test]
    fn markers_and_prompts() {
        assert!(is_head("<<<<<<< SEARCH") && is_head("  <<<<<<< SEARCH  ") && !is_head("<<< SEARCH"));
        assert!(is_divider("=======") && !is_divider("==="));
        assert!(is_updated(">>>>>>> REPLACE") && !is_updated("> REPLACE"));
        assert!(is_quoted_updated("> > > > > > > REPLACE  ") && is_quoted_updated(">>>>>>> REPLACE"));
        assert!(
            !is_quoted_updated("> REPLACE") && !is_quoted_updated("REPLACE") && !is_quoted_updated("> > x > > REPLACE")
        );
        assert!(is_shell_fence("```bash") && !is_shell_fence("```python"));
        assert_eq!(prompt_answer("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n"), Some('n'));
        assert_eq!(prompt_answer("Create new file? (Y)es/(N)o [Yes]: y"), Some('y'));
        assert_eq!(prompt_answer("Applied edit to a.py"), None);
        // Aider 0.52's prompts.
        assert_eq!(prompt_answer("Run shell command? [Y/n] y"), Some('y'));
        assert_eq!(prompt_answer("Run shell commands? [Y/n] n"), Some('n'));
        assert_eq!(prompt_answer("Allow edits to a.py which was not previously added to chat? [Y/n] n"), Some('n'));
        assert_eq!(prompt_answer("[Y/n] is how aider asks"), None);
        assert_eq!(file_name(&["src/app.py".into(), "```python".into()]), Some("src/app.py".into()));
    }
}
