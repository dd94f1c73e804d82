//! Pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`;
//! `PI_CODING_AGENT_DIR` moves `~/.pi/agent`, `PI_CODING_AGENT_SESSION_DIR`
//! the sessions folder), in the format of pi's own `docs/session-format.md`
//! (version 3; versions 1 and 2 differ only in the header).
//!
//! The first line is the header `{"type": "session", "version", "id",
//! "timestamp", "cwd"}`; every later entry has an `id` and a `parentId`. A
//! call is a `toolCall` block (`id`, `name`, `arguments`) of an assistant
//! `message` entry; its result the `toolResult` message of the same
//! `toolCallId`, whose `content[]` text blocks are the result and `isError`
//! the flag. pi sets the flag only when a tool throws: bash throws on a
//! non-zero exit (`Command exited with code N`, so a grep that found nothing
//! is flagged), and a pipeline's status is its last command's. An
//! extension's tool that returns its failure is stored as a success (before
//! 1.6, a returned `isError` is ignored).
//!
//! The file keeps every branch the user left with `/tree`: the visible
//! conversation is the chain of `parentId` from the last entry, and the
//! calls off it are dropped (when that chain reaches the header's first
//! entry, and unless their branch was still written after the visible one
//! began: see `branches.rs`). `/fork` copies a session's entries into a new file whose header
//! names its `parentSession`: a call already read in another session is
//! counted once, where it was made first. The calls of an assistant message
//! that ended `aborted` (the user pressed Esc) or with an `error` never ran
//! and got no result: they stay unpaired (verdict none, never flagged), as
//! the labelling guide decides (`../shared/LABELS.md`); a result that does
//! come for one pairs as any other.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::branches::Branches;
use super::{ImportRun, Importer, ResultRow, SessionRow, TypedParse, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Pi;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::PI,
    agent: "Pi coding agent sessions, JSONL, read through import",
    product: "Pi",
    signature: "a header `{type: \"session\", id, cwd}`, then entries `{type, id, parentId}`; calls are `toolCall` blocks, results `toolResult` messages by `toolCallId`",
    flag: "`isError` of the `toolResult` message (set when the tool threw: bash on a non-zero exit)",
    locations: &[
        Location::EnvPath("PI_CODING_AGENT_SESSION_DIR"),
        Location::EnvDir("PI_CODING_AGENT_DIR", "sessions"),
        Location::Home(".pi/agent/sessions"),
    ],
    sample: "pi",
};

const AGENT: &str = Dialect::PI.as_str();

impl Importer for Pi {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// The header, or an entry (`{type, id, parentId, message}`) of a file
    /// whose header is missing; never a record with another agent's `uuid`,
    /// `sessionId` or `payload`.
    fn recognise(&self, v: &Value) -> bool {
        if v.get("uuid").is_some() || v.get("sessionId").is_some() || v.get("payload").is_some() {
            return false;
        }
        let kind = v.get("type").and_then(Value::as_str);
        let id = v.get("id").is_some_and(Value::is_string);
        match kind {
            Some("session") => id && v.get("cwd").is_some_and(Value::is_string),
            Some("message") => {
                id && v.get("parentId").is_some()
                    && matches!(
                        v.get("message").and_then(|m| m.get("role")).and_then(Value::as_str),
                        Some("user" | "assistant" | "toolResult")
                    )
            }
            _ => false,
        }
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Pi)
    }

    fn lines_ahead(&self) -> Option<Option<TypedParse>> {
        Some(None)
    }
}

impl ImportRun for Pi {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
        let source = path.display().to_string();
        // `<time>_<id>.jsonl`: the id until the header says otherwise.
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("pi");
        let session = stem.rsplit_once('_').map_or(stem, |(_, id)| id).to_string();
        let mut f = File { source: &source, session, ..File::default() };
        let mut lines = w.lines(path, None)?;
        while let Some(v) = lines.next_record(&mut w.stats)? {
            f.entry(&v, w).map_err(sql)?;
        }
        f.finish(w).map_err(sql)
    }
}

#[derive(Default)]
struct File<'a> {
    source: &'a str,
    session: String,
    started: bool,
    branches: Branches,
    /// Calls another session made first (a fork's copies).
    copied: HashSet<String>,
}

impl File<'_> {
    fn start(&mut self, time: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        if !self.started {
            w.session(&SessionRow {
                id: &self.session,
                parent: None,
                agent: AGENT,
                source: self.source,
                started: time,
            })?;
            self.started = true;
        }
        Ok(())
    }

    fn entry(&mut self, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let time = v.get("timestamp").and_then(Value::as_str);
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "session" {
            if let Some(id) = v.get("id").and_then(Value::as_str).filter(|s| !s.is_empty())
                && !self.started
            {
                self.session = id.to_string();
            }
            return self.start(time, w);
        }
        let id = v.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        self.branches.entry(&id, v.get("parentId").and_then(Value::as_str));
        self.start(time, w)?;
        if kind != "message" {
            w.stats.skipped += 1;
            return Ok(());
        }
        let message = &v["message"];
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let blocks = message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
                let usage = message.get("usage").and_then(Value::as_object).and_then(super::usage::pi).map(|mut u| {
                    u.response = if id.is_empty() { format!("{}#{}", self.session, w.stats.calls) } else { id.clone() };
                    u.model =
                        message.get("model").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
                    std::sync::Arc::new(u)
                });
                for block in blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall")) {
                    let tool =
                        block.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    let input = block.get("arguments").cloned().unwrap_or(Value::Null);
                    let call = match block.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                        Some(call) => {
                            if w.session_of_call(call)?.is_some_and(|s| s != self.session) {
                                self.copied.insert(call.to_string());
                                w.stats.duplicates += 1;
                                continue;
                            }
                            w.call(&self.session, call, tool, &input, time)?;
                            call.to_string()
                        }
                        None => w.call_without_id(&self.session, tool, &input, time)?,
                    };
                    if let Some(u) = &usage {
                        w.call_usage(&self.session, &call, u)?;
                    }
                    self.branches.made(&id, &call);
                }
            }
            Some("toolResult") => {
                let call = message.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                if self.copied.contains(call) {
                    w.stats.duplicates += 1;
                    return Ok(());
                }
                let text = text_of(message.get("content"));
                let flag = message.get("isError").and_then(Value::as_bool);
                let exit_code = exit_code(&text);
                w.result(&ResultRow { session: &self.session, call_id: call, text: &text, flag, exit_code, time })?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Drop the calls of the branches the user left.
    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let visible = self.branches.visible();
        for call in self.branches.dropped(visible.as_ref()) {
            w.forget_call(&self.session, call)?;
        }
        Ok(())
    }
}

/// The text blocks of a result (images are not text).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
            texts.join("\n")
        }
        _ => String::new(),
    }
}

/// The exit status bash reports: its last `Command exited with code N` line.
fn exit_code(text: &str) -> Option<i64> {
    text.lines()
        .rev()
        .find_map(|l| l.trim_end().strip_prefix("Command exited with code ").and_then(|n| n.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_and_entries_are_recognised_alone() {
        assert!(Pi.recognise(&json!({"type": "session", "version": 3, "id": "019c", "timestamp": "t", "cwd": "/p"})));
        let entry =
            json!({"type": "message", "id": "a1", "parentId": null, "message": {"role": "user", "content": []}});
        assert!(Pi.recognise(&entry));
        assert!(!Pi.recognise(&json!({"type": "session", "id": "x", "cwd": "/p", "sessionId": "s"})));
        assert_eq!(exit_code("boom\n\nCommand exited with code 2"), Some(2));
        assert_eq!(exit_code("Command timed out after 60 seconds"), None);
    }
}
