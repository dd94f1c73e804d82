//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`;
//! sub-agents in `chats/<parent-session-id>/<session-id>.jsonl`),
//! as gemini-cli's `chatRecordingService` writes them.
//!
//! The first record is the session's metadata (`sessionId`, `projectHash`,
//! `kind`). Every later record is a whole message, appended again each time
//! it changes (the last copy wins); `{"$rewindTo": id}` drops that message
//! and every later one; `{"$set": {…}}` updates metadata and may carry a
//! whole `messages` list. Calls and results live together in a gemini
//! message's `toolCalls[]`; the flag is each call's `status` (`error` and
//! `cancelled` are failures, `success` is not; a call still `scheduled`,
//! `executing` or awaiting approval has no result).
//!
//! The database is the buffer: each copy of a message updates its calls in
//! place and a rewind deletes the calls of the dropped messages, so memory
//! holds only message ids.
//!
//! Most chats on disk (October 2025 to March 2026 at least) are instead one
//! JSON document, `chats/session-*.json`: the metadata (`sessionId`,
//! `projectHash`, `startTime`, `lastUpdated`) and the whole `messages[]`,
//! each message as in the JSONL recordings. The document is read as its
//! metadata record followed by its messages.
//!
//! `/chat save <tag>` checkpoints (`checkpoint-<tag>.json`) are the model's
//! history: an array of `{role, parts[]}`, calls as `functionCall` parts
//! (often without an id) and results as `functionResponse` parts (with the
//! id); a call takes the id of the first later response of its name. The
//! flag is the presence of `response.error`. Each checkpoint is a session
//! `<project folder>/<file stem>`.
//!
//! Headless runs (`gemini -p … --output-format stream-json`, as CI and
//! eval harnesses run it) print one event a line instead (packages/core
//! src/output/types.ts, written by packages/cli nonInteractiveCli.ts):
//! `init` (`session_id`, `model`), `message`, `tool_use` (`tool_name`,
//! `tool_id`, `parameters`), `tool_result` (`tool_id`, `status` `success` or
//! `error` = the flag, `output` = the tool's display text, `error.message`),
//! `error` and `result`; each `init` starts its run's session (a log may
//! hold several runs). The display text of a shell command that printed
//! nothing and failed is `Command exited with code: N` (tools/shell.ts): its
//! exit status. A command that printed something shows only its output.
//!
//! A family: Qwen Code (`qwen`) is a fork of Gemini CLI. Its chats before
//! 0.4 are this document with `qwen` messages, and its checkpoints are
//! Gemini's, read by `checkpoint_of` as its own; Gemini's recognisers leave
//! those to it (`qwen::is_legacy_chat`, `qwen::is_qwen_document`), the one
//! place the two are told apart. The fork is listed after its parent in
//! `IMPORTERS` (`falseok formats` keeps that order), so the parent's
//! recogniser must step aside rather than the order deciding.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{ImportRun, Importer, LineReader, ResultRow, SessionRow, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) mod qwen;

pub(crate) struct Gemini;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::GEMINI,
    agent: "Gemini CLI chat recordings, JSONL, read through import",
    product: "Gemini",
    signature: "a metadata record with `sessionId` and `projectHash`, then messages with `toolCalls[]`; or the headless `--output-format stream-json` events (`init`, `tool_use`, `tool_result`)",
    flag: "each call's `status` (`error`, `cancelled` = flagged)",
    locations: &[Location::Home(".gemini/tmp")],
    sample: "gemini",
};

const AGENT: &str = Dialect::GEMINI.as_str();

impl Importer for Gemini {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// The metadata record, a rewind or an update, or a message (which has
    /// an `id`, and no `uuid` as Claude Code's lines have).
    fn recognise(&self, v: &Value) -> bool {
        !qwen::is_legacy_chat(v) && self.claims(v)
    }

    /// A chat before 0.4 of Qwen Code, a fork that kept this document
    /// (with `qwen` messages), is left to Qwen Code's importer.
    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        !qwen::is_qwen_document(path, doc) && self.recognise(doc)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Gemini)
    }

    /// Its files bind only through what the writer shares (sessions, call
    /// ids).
    fn separable(&self) -> bool {
        true
    }
}

impl Gemini {
    fn claims(&self, v: &Value) -> bool {
        stream_event(v).is_some()
            || is_checkpoint(v)
            || v.get("projectHash").is_some()
            || v.get("$rewindTo").is_some()
            || v.get("$set").is_some()
            || (v.get("uuid").is_none()
                && v.get("id").and_then(Value::as_str).is_some()
                && matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("user" | "gemini" | "info" | "error" | "warning")
                ))
    }
}

impl ImportRun for Gemini {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        file(path, w)
    }
}

struct File<'a> {
    session: String,
    parent: Option<String>,
    source: &'a str,
    started: bool,
    /// Message ids in order, and the call ids each one holds.
    order: Vec<String>,
    calls: HashMap<String, Vec<String>>,
}

fn file(path: &Path, w: &mut Writer<'_>) -> Result<()> {
    let source = path.display().to_string();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    // A sub-agent's file sits in a folder named after its parent session.
    let folder = path.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned());
    let mut f = File {
        session: stem,
        parent: folder.filter(|d| d != "chats"),
        source: &source,
        started: false,
        order: Vec::new(),
        calls: HashMap::new(),
    };
    let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
    if super::is_json_document(path) {
        match super::read_document(path, &mut w.stats)? {
            Some(doc) if is_checkpoint(&doc) => checkpoint(path, &doc, w).map_err(sql)?,
            Some(doc) => f.record(&doc, w).map_err(sql)?,
            None => {}
        }
        return Ok(());
    }
    let mut lines = LineReader::open(path)?;
    while let Some(v) = lines.next_record(&mut w.stats)? {
        f.record(&v, w).map_err(sql)?;
    }
    Ok(())
}

impl File<'_> {
    fn record(&mut self, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        if let Some(target) = v.get("$rewindTo").and_then(Value::as_str) {
            let from = self.order.iter().position(|id| id == target).unwrap_or(0);
            for id in self.order.split_off(from) {
                for call in self.calls.remove(&id).unwrap_or_default() {
                    w.forget_call(&self.session, &call)?;
                }
            }
            return Ok(());
        }
        if let Some(set) = v.get("$set") {
            if let Some(Value::Array(messages)) = set.get("messages") {
                for m in messages {
                    self.message(m, w)?;
                }
            } else {
                w.stats.skipped += 1;
            }
            return Ok(());
        }
        if v.get("projectHash").is_some() && v.get("id").is_none() {
            if !self.started {
                if let Some(id) = v.get("sessionId").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                    self.session = id.to_string();
                }
                if v.get("kind").and_then(Value::as_str) != Some("subagent") {
                    self.parent = None;
                }
                let started = v.get("startTime").and_then(Value::as_str);
                self.begin(started, w)?;
            }
            // A single-document chat carries its messages with its metadata.
            if let Some(Value::Array(messages)) = v.get("messages") {
                for m in messages {
                    self.message(m, w)?;
                }
            }
            return Ok(());
        }
        if v.get("id").and_then(Value::as_str).is_some() {
            return self.message(v, w);
        }
        if let Some(event) = stream_event(v) {
            return self.stream(event, v, w);
        }
        w.stats.skipped += 1;
        Ok(())
    }

    /// One event of a headless run's `stream-json` output (see the module
    /// doc). The session is the `init` event's, else the file's name.
    fn stream(&mut self, event: Stream, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let time = v.get("timestamp").and_then(Value::as_str);
        let text_of = |key: &str| v.get(key).and_then(Value::as_str);
        match event {
            // A log may hold several runs one after the other: each `init`
            // with its own id starts that run's session.
            Stream::Init => {
                let id = text_of("session_id").filter(|s| !s.is_empty());
                if !self.started || id.is_some_and(|id| id != self.session) {
                    if let Some(id) = id {
                        self.session = id.to_string();
                    }
                    self.parent = None;
                    self.begin(time, w)?;
                }
            }
            Stream::ToolUse | Stream::ToolResult => {
                let Some(call_id) = text_of("tool_id").filter(|s| !s.is_empty()) else {
                    w.stats.skipped += 1;
                    return Ok(());
                };
                if !self.started {
                    self.parent = None;
                    self.begin(time, w)?;
                }
                if event == Stream::ToolResult {
                    return self.stream_result(call_id, v, time, w);
                }
                let name = text_of("tool_name").filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                let args = v.get("parameters").unwrap_or(&Value::Null);
                w.call(&self.session, call_id, name, args, time)?;
            }
            Stream::Other => w.stats.skipped += 1,
        }
        Ok(())
    }

    /// A `tool_result` event: its flag, its display text (with the error's
    /// message when the display does not hold it) and the exit status a
    /// silent shell command shows.
    fn stream_result(&self, call_id: &str, v: &Value, time: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let text_of = |key: &str| v.get(key).and_then(Value::as_str);
        let flag = match text_of("status") {
            Some("success") => Some(false),
            Some("error") => Some(true),
            _ => None,
        };
        let error = v.get("error").and_then(|e| e.get("message")).and_then(Value::as_str);
        let output = text_of("output").filter(|s| !s.trim().is_empty());
        let text = match (output, error) {
            (Some(out), Some(err)) if !out.contains(err) => format!("{out}\n{err}"),
            (Some(out), _) => out.to_string(),
            (None, Some(err)) => err.to_string(),
            (None, None) => String::new(),
        };
        w.result(&ResultRow {
            session: &self.session,
            call_id,
            text: &text,
            flag,
            exit_code: stream_exit_code(&text),
            time,
        })
    }

    fn begin(&mut self, started: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.started = true;
        w.session(&SessionRow {
            id: &self.session,
            parent: self.parent.as_deref(),
            agent: AGENT,
            source: self.source,
            started,
        })
    }

    /// One copy of a message: its calls are added or brought up to date.
    fn message(&mut self, m: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let Some(id) = m.get("id").and_then(Value::as_str) else { return Ok(()) };
        let time = m.get("timestamp").and_then(Value::as_str);
        if !self.started {
            self.begin(time, w)?;
        }
        if !self.calls.contains_key(id) {
            self.order.push(id.to_string());
            self.calls.insert(id.to_string(), Vec::new());
        }
        let Some(Value::Array(tool_calls)) = m.get("toolCalls") else { return Ok(()) };
        for tc in tool_calls {
            let Some(call_id) = tc.get("id").and_then(Value::as_str) else { continue };
            let name = tc.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
            let at = tc.get("timestamp").and_then(Value::as_str).or(time);
            let args = tc.get("args").cloned().unwrap_or(Value::Null);
            w.call(&self.session, call_id, name, &args, at)?;
            let ids = self.calls.entry(id.to_string()).or_default();
            if !ids.iter().any(|c| c == call_id) {
                ids.push(call_id.to_string());
            }
            let flag = match tc.get("status").and_then(Value::as_str) {
                Some("success") => false,
                Some("error" | "cancelled") => true,
                _ => continue,
            };
            let text = result_text(tc);
            w.result_latest(&ResultRow {
                session: &self.session,
                call_id,
                text: &text,
                flag: Some(flag),
                exit_code: None,
                time: at,
            })?;
        }
        // The message's `tokens` (a later copy of it says more): every call
        // of the message gets them.
        if let Some(mut u) = m.get("tokens").and_then(Value::as_object).and_then(super::usage::gemini) {
            u.response = id.to_string();
            u.model = m.get("model").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
            let u = std::sync::Arc::new(u);
            for call_id in self.calls.get(id).into_iter().flatten() {
                w.call_usage(&self.session, call_id, &u)?;
            }
        }
        Ok(())
    }
}

/// The kind of a headless run's `stream-json` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Init,
    ToolUse,
    ToolResult,
    /// `message`, `error`, `result`: nothing of a call.
    Other,
}

/// Is `v` an event of Gemini CLI's `stream-json` output, and which? Each
/// has its own fields beside `type` (a chat message has an `id` instead):
/// `init` a `session_id` and a `model`, `tool_use` a `tool_name` and a
/// `tool_id`, `tool_result` a `tool_id` and a `status`, `message` a `role`
/// and a string `content` (an API message's content is a list of parts),
/// `error` a `severity`, `result` a `status`.
fn stream_event(v: &Value) -> Option<Stream> {
    let o = v.as_object()?;
    if o.contains_key("id") || o.contains_key("uuid") {
        return None;
    }
    let has_str = |k: &str| o.get(k).is_some_and(Value::is_string);
    match o.get("type")?.as_str()? {
        "init" if has_str("session_id") && o.contains_key("model") => Some(Stream::Init),
        "tool_use" if has_str("tool_name") && has_str("tool_id") => Some(Stream::ToolUse),
        "tool_result" if has_str("tool_id") && has_str("status") => Some(Stream::ToolResult),
        "message" if has_str("role") && has_str("content") && !o.contains_key("message") => Some(Stream::Other),
        "error" if has_str("severity") && has_str("message") => Some(Stream::Other),
        "result" if has_str("status") && !o.contains_key("subtype") => Some(Stream::Other),
        _ => None,
    }
}

/// The exit status a headless shell result shows when the command printed
/// nothing and exited non-zero: the whole display is `Command exited with
/// code: N` (tools/shell.ts).
fn stream_exit_code(text: &str) -> Option<i64> {
    text.trim().strip_prefix("Command exited with code: ")?.parse().ok()
}

/// A `/chat save` checkpoint: an array of `{role, parts}` contents.
pub(crate) fn is_checkpoint(v: &Value) -> bool {
    v.as_array().and_then(|a| a.first()).is_some_and(|c| c.get("role").is_some() && c.get("parts").is_some())
}

/// Import a checkpoint's calls and results (see the module doc).
fn checkpoint(path: &Path, doc: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    checkpoint_of(AGENT, path, doc, w)
}

/// Import a checkpoint's calls and results as `agent`'s (Qwen Code, a fork
/// of Gemini CLI, saves the same ones).
pub(crate) fn checkpoint_of(agent: &'static str, path: &Path, doc: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let folder = path.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned());
    let session = match folder {
        Some(f) => format!("{f}/{stem}"),
        None => stem.clone(),
    };
    let source = path.display().to_string();
    w.session(&SessionRow { id: &session, parent: None, agent, source: &source, started: None })?;
    let parts = doc.as_array().into_iter().flatten().filter_map(|c| c.get("parts")?.as_array()).flatten();
    // Calls not answered yet: (name, id if the call carried one, arguments).
    let mut waiting: Vec<(String, Option<String>, Value)> = Vec::new();
    let mut n = 0usize;
    let write_call = |w: &mut Writer<'_>, id: &str, name: &str, args: &Value| w.call(&session, id, name, args, None);
    for part in parts {
        if let Some(fc) = part.get("functionCall") {
            let name = fc.get("name").and_then(Value::as_str).unwrap_or("(unnamed)").to_string();
            let id = fc.get("id").and_then(Value::as_str).map(str::to_string);
            waiting.push((name, id, fc.get("args").cloned().unwrap_or(Value::Null)));
        } else if let Some(fr) = part.get("functionResponse") {
            let name = fr.get("name").and_then(Value::as_str).unwrap_or("(unnamed)");
            let Some(at) = waiting.iter().position(|(n, _, _)| n == name) else { continue };
            let (name, call_id, args) = waiting.remove(at);
            let id = fr.get("id").and_then(Value::as_str).map(str::to_string).or(call_id).unwrap_or_else(|| {
                n += 1;
                format!("{stem}-{n}")
            });
            write_call(w, &id, &name, &args)?;
            let response = fr.get("response").unwrap_or(&Value::Null);
            let error = response.get("error").filter(|e| !e.is_null());
            let text = match response.get("output").or(error) {
                Some(Value::String(s)) => trusted(s),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            w.result(&ResultRow {
                session: &session,
                call_id: &id,
                text: &text,
                flag: Some(error.is_some()),
                exit_code: None,
                time: None,
            })?;
        }
    }
    for (name, id, args) in waiting {
        let id = id.unwrap_or_else(|| {
            n += 1;
            format!("{stem}-{n}")
        });
        write_call(w, &id, &name, &args)?;
    }
    Ok(())
}

/// A tool's output without the `<untrusted_context>` tags Gemini CLI (0.6x)
/// wraps around what a shell, a web fetch or an MCP server returned before
/// the model sees it (core's `wrapUntrusted`, which escapes a closing tag
/// inside): the tags are the CLI's framing, not the tool's words.
fn trusted(s: &str) -> String {
    const OPEN: &str = "<untrusted_context>\n";
    const CLOSE: &str = "\n</untrusted_context>";
    match s.strip_prefix(OPEN).and_then(|rest| rest.strip_suffix(CLOSE)) {
        // Each text part is wrapped alone, the parts joined by a newline.
        Some(inner) => inner
            .replace("\n</untrusted_context>\n<untrusted_context>\n", "\n")
            .replace("&lt;/untrusted_context&gt;", "</untrusted_context>"),
        None => s.to_string(),
    }
}

/// The text of a call's `result` parts (`functionResponse.response.output`
/// or `.error`, or text parts), else its `resultDisplay` when that is text.
fn result_text(tc: &Value) -> String {
    let mut out: Vec<String> = Vec::new();
    if let Some(Value::Array(parts)) = tc.get("result") {
        for p in parts {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                out.push(t.to_string());
            } else if let Some(r) = p.get("functionResponse").and_then(|f| f.get("response")) {
                match r.get("output").or_else(|| r.get("error")) {
                    Some(Value::String(s)) => out.push(trusted(s)),
                    Some(other) => out.push(other.to_string()),
                    None if r.as_object().is_some_and(|o| !o.is_empty()) => out.push(r.to_string()),
                    None => {}
                }
            }
        }
    }
    if out.is_empty()
        && let Some(Value::String(s)) = tc.get("resultDisplay")
    {
        out.push(s.clone());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_cli_s_untrusted_context_tags_are_framing() {
        let wrapped = "<untrusted_context>\nOutput: (empty)\nExit Code: 1\n</untrusted_context>";
        assert_eq!(trusted(wrapped), "Output: (empty)\nExit Code: 1");
        let escaped = "<untrusted_context>\nsee &lt;/untrusted_context&gt; here\n</untrusted_context>";
        assert_eq!(trusted(escaped), "see </untrusted_context> here");
        assert_eq!(trusted("<untrusted_context> inline"), "<untrusted_context> inline");
        let parts = "<untrusted_context>\nA\n</untrusted_context>\n<untrusted_context>\nB\n</untrusted_context>";
        assert_eq!(trusted(parts), "A\nB");
        let tc = json!({"result": [{"functionResponse": {"response": {"output": wrapped}}}]});
        assert_eq!(result_text(&tc), "Output: (empty)\nExit Code: 1");
    }

    #[test]
    fn result_texts() {
        let tc = json!({"result": [{"functionResponse": {"id": "a", "name": "x", "response": {"error": "boom"}}}]});
        assert_eq!(result_text(&tc), "boom");
        let tc = json!({"result": [{"functionResponse": {"response": {"output": "ok"}}}, {"text": "more"}]});
        assert_eq!(result_text(&tc), "ok\nmore");
        assert_eq!(result_text(&json!({"result": [], "resultDisplay": "shown"})), "shown");
    }

    #[test]
    fn recognised_records() {
        let looks_like = |v: Value| Gemini.recognise(&v);
        assert!(looks_like(json!({"sessionId": "s", "projectHash": "h"})));
        assert!(looks_like(json!({"$rewindTo": "m1"})));
        assert!(looks_like(json!({"id": "m1", "type": "gemini", "content": ""})));
        assert!(!looks_like(json!({"uuid": "u", "type": "user", "sessionId": "s"})), "Claude Code");
        assert!(!looks_like(json!({"timestamp": "t", "type": "response_item", "payload": {}})), "Codex");
    }
}
