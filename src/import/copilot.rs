//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`,
//! `$COPILOT_HOME` moves `~/.copilot`), as the CLI writes them (read from
//! its bundled code and its shipped `session-events.schema.json`, 1.0.10 to
//! 1.0.60, and checked on genuine committed sessions).
//!
//! Every line is one event `{type, data, id, timestamp, parentId}`, appended
//! and never rewritten (a `/rewind` truncates the file, so what is on disk
//! is the visible branch); the first is `session.start` (`data.sessionId`,
//! `data.producer = "copilot-agent"`). A call is `tool.execution_start`
//! (`toolCallId`, `toolName`, `arguments`), its result the
//! `tool.execution_complete` of the same `toolCallId`: the flag is
//! `data.success`; a success's text is `result.content` (what the model
//! saw), a failure's `error.message` (often the tool's short label, `No
//! match found`, `Path does not exist`). A shell command's exit status is
//! only text: `<shellId: N completed with exit code X>` (1.0.60) or
//! `<exited with exit code X>` (earlier), always stored as a success.
//!
//! A user who denies a call (Esc at the prompt) leaves `permission.completed`
//! with `result.kind = "denied-interactively-by-user"` and the call's
//! `toolCallId`, then `abort`, and never a completion: such a call is a
//! flagged failure with the CLI's own words for the denial, not an unpaired
//! call. Sub-agents (the `task` tool, custom and background agents) write
//! into the parent's file; their events carry `data.parentToolCallId` (and,
//! from about 1.0.60, `agentId`), the id of the `task` call: each becomes
//! the session `<session>/<task call id>`, whose parent is the session.
//!
//! Before the event log (0.0.3xx, to about October 2025), a session was one
//! JSON document, `~/.copilot/history-session-state/session_<id>_<ms>.json`
//! (read from the CLI's own schema, 0.0.340 `index.js`: `sessionId`,
//! `startTime`, `chatMessages`, `timeline`, `selectedModel`).
//! `chatMessages` are OpenAI chat messages: an assistant's `tool_calls`
//! (`function` with its `arguments` as a string, or `custom` with `input`)
//! are the calls, a `tool` message with its `tool_call_id` the result the
//! model saw. The flag is the `timeline`'s `tool_call_completed` entry of
//! the same `callId`: its `result.type` is `success`, `failure`, `rejected`
//! or `denied`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::{ImportRun, Importer, LineReader, ResultRow, SessionRow, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Copilot;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::COPILOT,
    agent: "GitHub Copilot CLI sessions (session-state/<id>/events.jsonl, and the older history-session-state/*.json), read through import",
    product: "GitHub Copilot CLI",
    signature: "events `{type, data, id, timestamp, parentId}` with dotted types (`session.start` by `copilot-agent`, `tool.execution_start` / `tool.execution_complete` by `toolCallId`)",
    flag: "`data.success` of `tool.execution_complete`; a call denied at the permission prompt (no completion) is flagged; in the older documents, the timeline's `tool_call_completed` `result.type`",
    locations: &[
        Location::EnvDir("COPILOT_HOME", "session-state"),
        Location::Home(".copilot/session-state"),
        Location::EnvDir("COPILOT_HOME", "history-session-state"),
        Location::Home(".copilot/history-session-state"),
    ],
    sample: "copilot",
};

const AGENT: &str = Dialect::COPILOT.as_str();

impl Importer for Copilot {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// An event: a dotted `type`, a `data` object, an `id` and a
    /// `parentId` key (null on the first event).
    fn recognise(&self, v: &Value) -> bool {
        v.get("type").and_then(Value::as_str).is_some_and(|t| t.contains('.'))
            && v.get("data").is_some_and(Value::is_object)
            && v.get("id").is_some_and(Value::is_string)
            && v.get("parentId").is_some()
            && v.get("payload").is_none()
    }

    /// The other JSON files of a session folder (`rewind-snapshots/index.json`,
    /// files the session kept): part of a Copilot session, holding no call.
    /// A legacy session document is read (`is_history`).
    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        is_history(doc)
            || path
                .ancestors()
                .skip(1)
                .take(4)
                .any(|d| d.join("workspace.yaml").is_file() && d.join("events.jsonl").is_file())
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Copilot)
    }
}

impl ImportRun for Copilot {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
        if super::is_json_document(path) {
            let Some(doc) = super::read_document(path, &mut w.stats)? else {
                return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
            };
            if is_history(&doc) {
                return history(&doc, &path.display().to_string(), w).map_err(sql);
            }
            // A session folder's side file (see `recognise_document`).
            w.stats.skipped += 1;
            return Ok(());
        }
        let source = path.display().to_string();
        // `session-state/<id>/events.jsonl`, or a legacy flat `<id>.jsonl`.
        let named = match path.file_stem().and_then(|s| s.to_str()) {
            Some("events") => path.parent().and_then(Path::file_name).and_then(|s| s.to_str()),
            other => other,
        };
        let mut f = File {
            session: named.unwrap_or("copilot").to_string(),
            source: &source,
            started: HashSet::new(),
            completed: HashSet::new(),
            denied: Vec::new(),
            calls: HashMap::new(),
        };
        let mut lines = LineReader::open(path)?;
        while let Some(v) = lines.next_record(&mut w.stats)? {
            f.event(&v, w).map_err(sql)?;
        }
        f.finish(w).map_err(sql)
    }
}

struct File<'a> {
    session: String,
    source: &'a str,
    /// Sessions (the file's and its sub-agents') already written.
    started: HashSet<String>,
    /// Calls that got a completion.
    completed: HashSet<String>,
    /// Calls denied at the permission prompt: (call id, the CLI's words, time).
    denied: Vec<(String, String, Option<String>)>,
    /// The session of each call.
    calls: HashMap<String, String>,
}

impl File<'_> {
    /// The session of an event: a sub-agent's (`data.parentToolCallId`, or
    /// the envelope's `agentId`) or the file's.
    fn session_of(&mut self, v: &Value, time: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<String> {
        let parent_call = v["data"]
            .get("parentToolCallId")
            .and_then(Value::as_str)
            .or_else(|| v.get("agentId").and_then(Value::as_str))
            .filter(|s| !s.is_empty());
        let (id, parent) = match parent_call {
            Some(call) => (format!("{}/{call}", self.session), Some(self.session.clone())),
            None => (self.session.clone(), None),
        };
        if let Some(p) = &parent {
            self.start(p.clone(), None, time, w)?;
        }
        self.start(id.clone(), parent.as_deref(), time, w)?;
        Ok(id)
    }

    fn start(
        &mut self,
        id: String,
        parent: Option<&str>,
        time: Option<&str>,
        w: &mut Writer<'_>,
    ) -> rusqlite::Result<()> {
        if self.started.contains(&id) {
            return Ok(());
        }
        w.session(&SessionRow { id: &id, parent, agent: AGENT, source: self.source, started: time })?;
        self.started.insert(id);
        Ok(())
    }

    fn event(&mut self, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let time = v.get("timestamp").and_then(Value::as_str);
        let data = &v["data"];
        let call_id = || data.get("toolCallId").and_then(Value::as_str).unwrap_or("");
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "session.start" => {
                if let Some(id) = data.get("sessionId").and_then(Value::as_str).filter(|s| !s.is_empty())
                    && !self.started.contains(id)
                    && self.calls.is_empty()
                {
                    self.session = id.to_string();
                }
                let started = data.get("startTime").and_then(Value::as_str).or(time);
                let session = self.session.clone();
                self.start(session, None, started, w)
            }
            "tool.execution_start" | "tool.user_requested" => {
                let session = self.session_of(v, time, w)?;
                let tool =
                    data.get("toolName").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                let input = data.get("arguments").cloned().unwrap_or(Value::Null);
                let id = call_id();
                if id.is_empty() {
                    w.call_without_id(&session, tool, &input, time)?;
                    return Ok(());
                }
                self.calls.insert(id.to_string(), session.clone());
                w.call(&session, id, tool, &input, time)
            }
            "tool.execution_complete" => {
                let id = call_id();
                let session = match self.calls.get(id) {
                    Some(s) => s.clone(),
                    None => self.session_of(v, time, w)?,
                };
                let (text, flag) = match data.get("success").and_then(Value::as_bool) {
                    Some(false) => (error_text(&data["error"]), Some(true)),
                    ok => (result_text(&data["result"]), ok.map(|_| false)),
                };
                let exit_code = shell_exit(&text);
                self.completed.insert(id.to_string());
                w.result(&ResultRow { session: &session, call_id: id, text: &text, flag, exit_code, time })
            }
            "permission.completed" => {
                if let Some(words) = denial(&data["result"]) {
                    self.denied.push((call_id().to_string(), words, time.map(str::to_string)));
                }
                w.stats.skipped += 1;
                Ok(())
            }
            "session.resume"
            | "session.shutdown"
            | "session.model_change"
            | "user.message"
            | "assistant.message"
            | "assistant.turn_start"
            | "assistant.turn_end"
            | "permission.requested"
            | "abort"
            | "subagent.started"
            | "subagent.completed"
            | "subagent.failed" => Ok(()),
            _ => {
                w.stats.skipped += 1;
                Ok(())
            }
        }
    }

    /// A call denied at the prompt that never got a completion is a flagged
    /// failure, in the CLI's words for the denial.
    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        for (id, words, time) in std::mem::take(&mut self.denied) {
            if self.completed.contains(&id) {
                continue;
            }
            let Some(session) = self.calls.get(&id) else { continue };
            let row = ResultRow {
                session,
                call_id: &id,
                text: &words,
                flag: Some(true),
                exit_code: None,
                time: time.as_deref(),
            };
            w.result(&row)?;
        }
        Ok(())
    }
}

/// A legacy session document (`history-session-state/session_<id>_<ms>.json`):
/// `sessionId`, `chatMessages` and `timeline`.
fn is_history(doc: &Value) -> bool {
    doc.get("sessionId").is_some_and(Value::is_string)
        && doc.get("chatMessages").is_some_and(Value::is_array)
        && doc.get("timeline").is_some_and(Value::is_array)
}

/// A legacy session document's calls and results (see the module's
/// documentation): the calls in the order of `chatMessages`, each result
/// flagged by the `timeline`'s completion of its call.
fn history(doc: &Value, source: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let id = doc["sessionId"].as_str().unwrap_or("copilot");
    let started = doc.get("startTime").and_then(Value::as_str);
    w.session(&SessionRow { id, parent: None, agent: AGENT, source, started })?;
    // The timeline's entries by kind and call (the first of each).
    let mut timeline: HashMap<(&str, &str), &Value> = HashMap::new();
    for e in doc["timeline"].as_array().into_iter().flatten() {
        if let (Some(kind), Some(call)) =
            (e.get("type").and_then(Value::as_str), e.get("callId").and_then(Value::as_str))
        {
            timeline.entry((kind, call)).or_insert(e);
        }
    }
    let entry = |kind: &'static str, call: &str| timeline.get(&(kind, call)).copied();
    let time = |e: Option<&Value>| e.and_then(|e| e.get("timestamp")).and_then(Value::as_str).map(str::to_string);
    for m in doc["chatMessages"].as_array().into_iter().flatten() {
        match m.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                for tc in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    let call = tc.get("id").and_then(Value::as_str).unwrap_or("");
                    let f = tc.get("function").or_else(|| tc.get("custom")).unwrap_or(&Value::Null);
                    let tool = f.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    let input = f.get("arguments").or_else(|| f.get("input")).unwrap_or(&Value::Null);
                    let at = time(entry("tool_call_requested", call));
                    if call.is_empty() {
                        w.call_without_id(id, tool, input, at.as_deref())?;
                    } else {
                        w.call(id, call, tool, input, at.as_deref())?;
                    }
                }
            }
            Some("tool") => {
                let call = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                let text = match m.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                let done = entry("tool_call_completed", call);
                let kind = done.and_then(|e| e.pointer("/result/type")).and_then(Value::as_str);
                let flag = kind.map(|k| k != "success");
                let exit_code = shell_exit(&text);
                let at = time(done);
                w.result(&ResultRow { session: id, call_id: call, text: &text, flag, exit_code, time: at.as_deref() })?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A success's text: `result.content` (what the model saw), else the
/// detailed text, else the text blocks.
fn result_text(result: &Value) -> String {
    for key in ["content", "detailedContent"] {
        if let Some(s) = result.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
            return s.to_string();
        }
    }
    let blocks = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
    texts.join("\n")
}

/// A failure's text: `error.message` (or a bare string).
fn error_text(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        e => e.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
    }
}

/// The CLI's words for a denied permission (`result.kind`), as its tools
/// say them; `None` when the call was approved.
fn denial(result: &Value) -> Option<String> {
    let kind = result.get("kind").and_then(Value::as_str)?;
    let said = |k: &str| result.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    Some(match kind {
        "denied-interactively-by-user" => match said("feedback") {
            Some(f) => format!("The user rejected this tool call. User feedback: {f}"),
            None => "The user rejected this tool call.".to_string(),
        },
        "denied-by-rules" => {
            let rules: Vec<String> = result
                .get("rules")
                .and_then(Value::as_array)
                .map(|r| r.iter().map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string)).collect())
                .unwrap_or_default();
            format!("Permission to run this tool was denied due to the following rules: {}", rules.join(", "))
        }
        "denied-no-approval-rule-and-could-not-request-from-user" => {
            "Permission denied and could not request permission from user".to_string()
        }
        "denied-by-content-exclusion-policy" => said("message")
            .map_or_else(|| "Access denied: excluded by organization content policy".into(), str::to_string),
        "denied-by-permission-request-hook" => {
            format!(
                "Permission denied by a PermissionRequest hook: {}",
                said("message").unwrap_or("Permission denied by hook.")
            )
        }
        "cancelled" => "The pending permission request was cancelled before the tool could continue.".to_string(),
        k if k.starts_with("denied") => format!("Permission denied ({k})"),
        _ => return None,
    })
}

/// The exit status a shell result reports: `<shellId: N completed with exit
/// code X>`, `<exited with exit code X>`, `<command with id: … exited with
/// exit code X>` (its last such marker).
pub(crate) fn shell_exit(text: &str) -> Option<i64> {
    let at = text.rfind(" with exit code ")?;
    let rest = &text[at + " with exit code ".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    let before = &text[..at];
    let marker = before.rfind('<').map(|i| &before[i..])?;
    (rest[digits.len()..].starts_with('>') && (marker.ends_with("completed") || marker.ends_with("exited")))
        .then(|| digits.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_markers_of_every_version() {
        assert_eq!(shell_exit("ok\n<shellId: 0 completed with exit code 101>"), Some(101));
        assert_eq!(shell_exit("x\n<exited with exit code 2>"), Some(2));
        assert_eq!(shell_exit("<command with id: 3 exited with exit code 0>"), Some(0));
        assert_eq!(shell_exit("the script printed: with exit code 1"), None);
        assert_eq!(shell_exit("<shellId: 1 is still running after 30 seconds>"), None);
    }

    #[test]
    fn legacy_history_documents() {
        let doc = serde_json::json!({
            "sessionId": "s1", "startTime": "2025-10-05T10:00:00.000Z",
            "chatMessages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
                    {"id": "b", "type": "function", "function": {"name": "view", "arguments": "{\"path\":\"/x\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "a", "content": "x\n<exited with exit code 2>"},
                {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "Path does not exist"}]}
            ],
            "timeline": [
                {"id": "t1", "timestamp": "2025-10-05T10:00:01.000Z", "type": "tool_call_requested", "callId": "a", "name": "bash"},
                {"id": "t2", "timestamp": "2025-10-05T10:00:02.000Z", "type": "tool_call_completed", "callId": "a",
                 "name": "bash", "intentionSummary": null, "result": {"type": "success", "log": "x"}},
                {"id": "t3", "timestamp": "2025-10-05T10:00:03.000Z", "type": "tool_call_completed", "callId": "b",
                 "name": "view", "intentionSummary": null, "result": {"type": "failure", "log": "Path does not exist"}}
            ]
        });
        assert!(is_history(&doc));
        assert!(!is_history(&serde_json::json!({"sessionId": "s", "history": []})));
    }

    #[test]
    fn denials_in_the_cli_words() {
        let d = |v: Value| denial(&v);
        assert_eq!(d(serde_json::json!({"kind": "approved"})), None);
        assert_eq!(
            d(serde_json::json!({"kind": "denied-interactively-by-user"})).unwrap(),
            "The user rejected this tool call."
        );
        assert!(
            d(serde_json::json!({"kind": "denied-by-rules", "rules": ["shell(rm)"]})).unwrap().contains("shell(rm)")
        );
    }
}
