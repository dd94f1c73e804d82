//! OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`),
//! under `$CODEX_HOME` (default `~/.codex`), not partitioned by working
//! directory: the cwd is in `session_meta` and `turn_context`.
//!
//! Lines are `{"timestamp", "type", "payload"}`. Calls are `response_item`
//! payloads of type `function_call` (arguments: a JSON string),
//! `custom_tool_call` (raw string input, e.g. `apply_patch`) and
//! `local_shell_call`; results are `function_call_output` /
//! `custom_tool_call_output`, linked by `call_id`. Codex does not write its
//! success flag, so results have none (NULL). The exit code is read from
//! all three output shapes: JSON `{"output", "metadata": {"exit_code"}}`,
//! `Exit code: N`, and unified exec's `Process exited with code N`.
//!
//! `codex exec --json` (CI jobs, scripts) prints thread events instead
//! (codex-rs/exec/src/exec_events.rs): `thread.started` (`thread_id`, the
//! session), `item.started` / `item.completed` with an `item` (`id`,
//! `type`): `command_execution` (`command`, `aggregated_output`,
//! `exit_code`, `status`), `file_change` (`changes`, `status`),
//! `mcp_tool_call` (`server`, `tool`, `arguments`, `result.content`,
//! `error.message`, `status`), `collab_tool_call` and `web_search`; and
//! `turn.completed` with the turn's `usage`. There the flag is written: an
//! item's `status` `failed` (a command that exited non-zero, a patch or an
//! MCP call that failed) or `declined`.

use std::path::Path;

use serde_json::Value;

use super::{ImportRun, Importer, ResultRow, SessionRow, TypedParse, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::rows::decode_arguments;
use crate::source::{FormatInfo, Location};

pub(crate) struct Codex;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CODEX,
    agent: "Codex CLI rollouts, JSONL, read through import",
    product: "Codex",
    signature: "records `{timestamp, type, payload}`; `function_call` / `function_call_output` by `call_id`; or `codex exec --json` events (`thread.started`, `item.completed`)",
    flag: "none is written in rollouts (NULL; exit codes come from the output text); `codex exec --json` items' `status` `failed`/`declined`",
    locations: &[Location::EnvDir("CODEX_HOME", "sessions"), Location::Home(".codex/sessions")],
    sample: "codex",
};

const AGENT: &str = Dialect::CODEX.as_str();

impl Importer for Codex {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// A `{timestamp, type, payload}` record, or the first line of a rollout
    /// written before records had a payload (Codex before about 0.20, summer
    /// 2025): `{id, timestamp, instructions, git}`, then the items themselves.
    fn recognise(&self, record: &Value) -> bool {
        (record.get("payload").is_some() && record.get("type").is_some())
            || is_bare_meta(record)
            || exec_event(record).is_some_and(|kind| kind != "turn.started" && kind != "error")
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Codex)
    }

    fn lines_ahead(&self) -> Option<Option<TypedParse>> {
        Some(None)
    }

    /// Its files bind only through what the writer shares (sessions, call
    /// ids).
    fn separable(&self) -> bool {
        true
    }
}

impl ImportRun for Codex {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        file(path, w)
    }
}

fn file(path: &Path, w: &mut Writer<'_>) -> Result<()> {
    let source = path.display().to_string();
    // rollout-<time>-<uuid>: the session id until session_meta says otherwise.
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut session = stem.strip_prefix("rollout-").map_or(stem.clone(), |s| s.get(20..).unwrap_or(s).to_string());
    let mut started = false;
    let mut turns = Turns::default();
    let mut lines = w.lines(path, None)?;
    while let Some(v) = lines.next_record(&mut w.stats)? {
        if let Some(kind) = exec_event(&v) {
            let mut exec = Exec { session: &mut session, started: &mut started, source: &source, turns: &mut turns };
            exec.event(kind, &v, w).map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))?;
            continue;
        }
        let read = match token_count(&v) {
            Some(info) => turns.counted(info, w),
            None => {
                let at = w.stats.calls;
                let read = line(&v, &mut session, &mut started, &source, w);
                if let Some(id) = (w.stats.calls > at).then(|| called_id(&v)).flatten() {
                    turns.call(&session, id);
                }
                if let Some(model) = turn_model(&v) {
                    turns.model = Some(model.to_string());
                }
                read
            }
        };
        read.map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))?;
    }
    Ok(())
}

/// The model responses of a rollout, for their usage: Codex writes a
/// `token_count` event after each response (`info.last_token_usage`, that
/// response's tokens), so the calls since the one before are its calls.
#[derive(Default)]
struct Turns {
    /// Responses whose usage was read.
    n: u64,
    /// The model the last `turn_context` names.
    model: Option<String>,
    /// A response has calls waiting for its usage.
    open: bool,
    response: super::usage::Response,
}

impl Turns {
    fn call(&mut self, session: &str, id: &str) {
        if !self.open {
            self.open = true;
            self.response.at(session, &format!("{session}#response-{}", self.n + 1));
        }
        self.response.call(id);
    }

    fn counted(&mut self, info: &serde_json::Map<String, Value>, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let last = match info.get("last_token_usage") {
            Some(Value::Object(u)) => super::usage::openai(u),
            _ => None,
        };
        if let (true, Some(u)) = (self.open, last) {
            self.response.used(u, self.model.as_deref(), w)?;
        }
        self.n += 1;
        self.open = false;
        Ok(())
    }
}

/// The `info` of a `token_count` event (`null` before the first response).
fn token_count(v: &Value) -> Option<&serde_json::Map<String, Value>> {
    let p = v.get("payload")?;
    (v.get("type").and_then(Value::as_str) == Some("event_msg")
        && p.get("type").and_then(Value::as_str) == Some("token_count"))
    .then(|| p.get("info").and_then(Value::as_object))
    .flatten()
}

/// The kind of a `codex exec --json` event (see the module doc), by its
/// `type` and the fields that type carries; `None` for any other record.
fn exec_event(v: &Value) -> Option<&str> {
    if v.get("payload").is_some() {
        return None;
    }
    let kind = v.get("type")?.as_str()?;
    let item = || {
        v.get("item")
            .is_some_and(|i| i.get("id").is_some_and(Value::is_string) && i.get("type").is_some_and(Value::is_string))
    };
    let ok = match kind {
        "thread.started" => v.get("thread_id").is_some_and(Value::is_string),
        "item.started" | "item.updated" | "item.completed" => item(),
        "turn.completed" => v.get("usage").is_some_and(Value::is_object),
        "turn.started" => v.as_object().is_some_and(|o| o.len() == 1),
        "turn.failed" => v.get("error").is_some_and(Value::is_object),
        "error" => v.get("message").is_some_and(Value::is_string) && v.as_object().is_some_and(|o| o.len() == 2),
        _ => false,
    };
    ok.then_some(kind)
}

/// A `codex exec --json` file being read.
struct Exec<'a> {
    session: &'a mut String,
    started: &'a mut bool,
    source: &'a str,
    turns: &'a mut Turns,
}

impl Exec<'_> {
    fn event(&mut self, kind: &str, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        match kind {
            "thread.started" => {
                if let Some(id) = v.get("thread_id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                    *self.session = id.to_string();
                }
                self.begin(w)
            }
            "item.started" | "item.completed" => {
                self.item(v.get("item").unwrap_or(&Value::Null), kind == "item.completed", w)
            }
            "turn.completed" => {
                let mut info = serde_json::Map::new();
                info.insert("last_token_usage".into(), v.get("usage").cloned().unwrap_or(Value::Null));
                self.turns.counted(&info, w)
            }
            _ => {
                w.stats.skipped += 1;
                Ok(())
            }
        }
    }

    fn begin(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        *self.started = true;
        w.session(&SessionRow { id: self.session, parent: None, agent: AGENT, source: self.source, started: None })
    }

    /// An item that is a call: written when it starts (a run cut short
    /// keeps it, unanswered), answered when it completes.
    fn item(&mut self, item: &Value, completed: bool, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let id = item.get("id").and_then(Value::as_str).unwrap_or("");
        let text_of = |k: &str| item.get(k).and_then(Value::as_str);
        let (tool, input) = match text_of("type").unwrap_or("") {
            kind @ "command_execution" => (kind.to_string(), serde_json::json!({ "command": item.get("command") })),
            kind @ "file_change" => (kind.to_string(), serde_json::json!({ "changes": item.get("changes") })),
            kind @ "web_search" => (kind.to_string(), serde_json::json!({ "query": item.get("query") })),
            "mcp_tool_call" => (
                format!("mcp__{}__{}", text_of("server").unwrap_or(""), text_of("tool").unwrap_or("")),
                item.get("arguments").cloned().unwrap_or(Value::Null),
            ),
            "collab_tool_call" => (
                text_of("tool").unwrap_or("collab_tool_call").to_string(),
                serde_json::json!({ "prompt": item.get("prompt"), "receiver_thread_ids": item.get("receiver_thread_ids") }),
            ),
            _ => {
                w.stats.skipped += 1;
                return Ok(());
            }
        };
        if id.is_empty() {
            w.stats.skipped += 1;
            return Ok(());
        }
        if !*self.started {
            self.begin(w)?;
        }
        let before = w.stats.calls;
        w.call(self.session, id, &tool, &input, None)?;
        if w.stats.calls > before {
            self.turns.call(self.session, id);
        }
        if !completed {
            return Ok(());
        }
        let flag = match text_of("status") {
            Some("completed") => false,
            Some("failed" | "declined") => true,
            _ => return Ok(()),
        };
        let text = exec_item_text(item);
        let exit_code = item.get("exit_code").and_then(Value::as_i64);
        w.result(&ResultRow {
            session: self.session,
            call_id: id,
            text: &text,
            flag: Some(flag),
            exit_code,
            time: None,
        })
    }
}

/// What a completed item answered: a command's output, an MCP call's error
/// or its content's texts (its structured content when it has no text), a
/// collab call's agents' messages, and nothing for a patch or a search.
fn exec_item_text(item: &Value) -> String {
    if let Some(out) = item.get("aggregated_output").and_then(Value::as_str) {
        return out.to_string();
    }
    if let Some(message) = item.get("error").and_then(|e| e.get("message")).and_then(Value::as_str) {
        return message.to_string();
    }
    if let Some(result) = item.get("result").filter(|r| r.is_object()) {
        let (text, _) = output_text(result.get("content").unwrap_or(&Value::Null));
        if !text.is_empty() {
            return text;
        }
        return match result.get("structured_content") {
            Some(v) if !v.is_null() => v.to_string(),
            _ => String::new(),
        };
    }
    if let Some(Value::Object(states)) = item.get("agents_states") {
        let messages: Vec<&str> = states.values().filter_map(|s| s.get("message").and_then(Value::as_str)).collect();
        return messages.join("\n");
    }
    String::new()
}

/// The model a `turn_context` line names.
fn turn_model(v: &Value) -> Option<&str> {
    (v.get("type").and_then(Value::as_str) == Some("turn_context"))
        .then(|| v.get("payload")?.get("model")?.as_str())
        .flatten()
        .filter(|m| !m.is_empty())
}

/// The call id of a line that recorded a call.
fn called_id(v: &Value) -> Option<&str> {
    let payload = v.get("payload").unwrap_or(v);
    payload.get("call_id").or_else(|| payload.get("id")).and_then(Value::as_str)
}

/// The session line of an early rollout: no `type`, no `payload`.
fn is_bare_meta(v: &Value) -> bool {
    v.get("instructions").is_some() && v.get("id").is_some() && v.get("timestamp").is_some() && v.get("type").is_none()
}

fn line(v: &Value, session: &mut String, started: &mut bool, source: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let time = v.get("timestamp").and_then(Value::as_str);
    // Early rollouts write the session line and the items without a
    // `{type, payload}` envelope, and `{"record_type": "state"}` between them.
    let (kind, payload) = match v.get("payload") {
        Some(p) => (v.get("type").and_then(Value::as_str).unwrap_or(""), p),
        None if is_bare_meta(v) => ("session_meta", v),
        None if v.get("record_type").is_some() => ("state", v),
        None => ("response_item", v),
    };
    if kind == "session_meta" {
        if let Some(id) = payload.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            *session = id.to_string();
        }
        let start = payload.get("timestamp").and_then(Value::as_str).or(time);
        w.session(&SessionRow { id: session, parent: None, agent: AGENT, source, started: start })?;
        *started = true;
        return Ok(());
    }
    if kind != "response_item" {
        w.stats.skipped += 1;
        return Ok(());
    }
    if !*started {
        w.session(&SessionRow { id: session, parent: None, agent: AGENT, source, started: time })?;
        *started = true;
    }
    let call_id = payload.get("call_id").or_else(|| payload.get("id")).and_then(Value::as_str).unwrap_or("");
    let name = || payload.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
    match payload.get("type").and_then(Value::as_str) {
        Some("function_call") => {
            let input = decode_arguments(payload.get("arguments").cloned().unwrap_or(Value::Null));
            w.call(session, call_id, name(), &input, time)?;
        }
        Some("custom_tool_call") => {
            let input = payload.get("input").cloned().unwrap_or(Value::Null);
            w.call(session, call_id, name(), &input, time)?;
        }
        Some("local_shell_call") => {
            let input = local_shell_arguments(payload.get("action"));
            w.call(session, call_id, "local_shell", &input, time)?;
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let (text, flag) = output_text(payload.get("output").unwrap_or(&Value::Null));
            let (text, exit_code) = exit_status(text);
            w.result(&ResultRow { session, call_id, text: &text, flag, exit_code, time })?;
        }
        _ => w.stats.skipped += 1,
    }
    Ok(())
}

/// The arguments of a `local_shell_call`: its action's fields (`command`,
/// `timeout_ms`, `working_directory`, ...) without the action's `type` tag.
/// Codex writes `{"type": "exec", "command": [...], ...}` (codex-rs's
/// `LocalShellAction`); a call without an action has none.
fn local_shell_arguments(action: Option<&Value>) -> Value {
    let Some(Value::Object(action)) = action else { return Value::Null };
    let mut fields = action.clone();
    fields.remove("type");
    Value::Object(fields)
}

/// The text of an output (a string, content items, or an object with
/// `content` and possibly `success`) and the flag, when one is written.
fn output_text(v: &Value) -> (String, Option<bool>) {
    match v {
        Value::String(s) => (s.clone(), None),
        Value::Array(items) => {
            let parts: Vec<&str> = items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect();
            (parts.join("\n"), None)
        }
        Value::Object(o) => {
            let (text, _) = output_text(o.get("content").unwrap_or(&Value::Null));
            (text, o.get("success").and_then(Value::as_bool).map(|ok| !ok))
        }
        _ => (String::new(), None),
    }
}

/// The exit status of an output in any of its three shapes; the JSON shape
/// is unwrapped to its `output` text.
pub(crate) fn exit_status(text: String) -> (String, Option<i64>) {
    if text.trim_start().starts_with('{')
        && let Ok(Value::Object(o)) = crate::source::json::parse_bounded(&text)
        && let Some(Value::String(out)) = o.get("output")
    {
        let code = o.get("metadata").and_then(|m| m.get("exit_code")).and_then(Value::as_i64);
        return (out.clone(), code);
    }
    let code = text.lines().find_map(|l| {
        let l = l.trim_end();
        l.strip_prefix("Exit code: ")
            .or_else(|| l.strip_prefix("Process exited with code "))
            .and_then(|n| n.trim().parse::<i64>().ok())
    });
    (text, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_output_shapes() {
        let (t, c) = exit_status(r#"{"output":"boom\n","metadata":{"exit_code":2,"duration_seconds":0.1}}"#.into());
        assert_eq!((t.as_str(), c), ("boom\n", Some(2)));
        let (_, c) = exit_status("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nFAIL".into());
        assert_eq!(c, Some(1));
        let (_, c) =
            exit_status("Chunk ID: 7\nWall time: 1.0 seconds\nProcess exited with code 127\nOutput:\nx".into());
        assert_eq!(c, Some(127));
        let (_, c) = exit_status("Process running with session ID 3\nOutput:\n".into());
        assert_eq!(c, None);
        assert_eq!(output_text(&serde_json::json!({"content": "x", "success": false})), ("x".into(), Some(true)));
    }

    /// `codex exec --json` events are claimed by their own fields; a bare
    /// `turn.started` or `error` is read but never decides a file's format.
    #[test]
    fn exec_events_by_their_fields() {
        use serde_json::json;
        let item = json!({"type": "item.completed", "item": {"id": "item_1", "type": "command_execution"}});
        for v in
            [json!({"type": "thread.started", "thread_id": "t"}), item, json!({"type": "turn.completed", "usage": {}})]
        {
            assert!(Codex.recognise(&v), "{v}");
        }
        for v in [
            json!({"type": "turn.started"}),
            json!({"type": "error", "message": "x"}),
            json!({"type": "item.completed", "item": {"type": "command_execution"}}),
            json!({"type": "thread.started", "payload": {}, "thread_id": 1}),
            json!({"type": "init", "session_id": "s", "model": "m"}),
        ] {
            assert!(!Codex.recognise(&v) || v.get("payload").is_some(), "{v}");
        }
        assert_eq!(exec_event(&json!({"type": "turn.started"})), Some("turn.started"));
        assert_eq!(exec_event(&json!({"type": "turn.started", "x": 1})), None);
    }
}
