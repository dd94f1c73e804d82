//! Cline and Roo Code task folders, in the VS Code extension's global
//! storage (`saoudrizwan.claude-dev`, `rooveterinaryinc.roo-cline`).
//!
//! A task is a folder `<globalStorage>/<extension>/tasks/<taskId>/` with
//! `api_conversation_history.json`: an array of Anthropic messages
//! (`{role, content, ts?}`). Two generations share that file:
//!
//! - native tool use: `tool_use {id, name, input}` blocks of assistant
//!   messages, `tool_result {tool_use_id, content, is_error?}` blocks of
//!   user messages (absent `is_error` = not flagged);
//! - the legacy XML protocol (most existing Cline history): the call is XML
//!   in the assistant's text (`<read_file><path>…</path></read_file>`), its
//!   result the next user message's text after a `[read_file for '…']
//!   Result:` header. There are no ids (the pair is by order, one tool per
//!   message) and no flag at all: only the text says it failed.
//!
//! Cline's SDK sessions (`~/.cline/data/sessions/<id>/<id>.messages.json`,
//! `{version, sessionId, messages: [{id, role, content}]}`) use the native
//! blocks; other `*.messages.json` in the folder are sub-agent
//! ("teammate") transcripts of that session.
//!
//! Roo Code writes the same native blocks, but a tool that fails while
//! running comes back unflagged with `{"status":"error", …}` JSON as its
//! text (a hidden error by construction), a denial as
//! `{"status":"denied", …}`; `is_error` is set only when the tool never
//! ran. A Roo task is recognised by its `history_item.json`, whose
//! `parentTaskId` makes it a sub-task of another. The other files of a
//! task folder (`ui_messages.json`, `task_metadata.json`, …) are claimed
//! and skipped.

use std::path::Path;

use serde_json::{Map, Value};

use super::{ImportRun, Importer, ResultRow, SessionRow, Writer, read_document};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Cline;
pub(crate) struct Roo;

static CLINE_INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CLINE,
    agent: "Cline task folders (api_conversation_history.json) and SDK sessions (*.messages.json), read through import",
    product: "Cline",
    signature: "a task folder's `api_conversation_history.json` (Anthropic messages); `*.messages.json` with `sessionId` and `messages`",
    flag: "`is_error` of the tool_result block (absent = false); legacy XML tool calls have no flag",
    locations: &[
        Location::XdgConfig("Code/User/globalStorage/saoudrizwan.claude-dev/tasks"),
        Location::Home("Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"),
        Location::EnvDir("APPDATA", "Code/User/globalStorage/saoudrizwan.claude-dev/tasks"),
        Location::Home(".cline/data/sessions"),
    ],
    sample: "cline",
};

static ROO_INFO: FormatInfo = FormatInfo {
    dialect: Dialect::ROO,
    agent: "Roo Code task folders (api_conversation_history.json + history_item.json), read through import",
    product: "Roo Code",
    signature: "a task folder with `api_conversation_history.json` and `history_item.json`",
    flag: "`is_error` of the tool_result block, set only when the tool never ran (failures while running are `{\"status\":\"error\"}` text)",
    locations: &[
        Location::XdgConfig("Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"),
        Location::Home("Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"),
        Location::EnvDir("APPDATA", "Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"),
    ],
    sample: "roo-code",
};

const HISTORY: &str = "api_conversation_history.json";

/// The UI log of a task folder: what the extension showed, message by
/// message. Read on its own when the folder's conversation is missing.
const UI_LOG: &str = "ui_messages.json";

/// The other files of a task folder, claimed so that they are not named
/// as strange files.
const COMPANIONS: &[&str] =
    &["ui_messages.json", "task_metadata.json", "context_history.json", "settings.json", "history_item.json"];

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Is `path` a file of a task folder (the history, or a companion beside
/// one), and is that folder Roo's?
fn task_file(path: &Path) -> Option<bool> {
    let name = name_of(path);
    let dir = path.parent()?;
    let is_task = name == HISTORY || (COMPANIONS.contains(&name) && dir.join(HISTORY).is_file());
    is_task.then(|| dir.join("history_item.json").is_file())
}

/// A Cline SDK session file.
fn is_sdk_session(path: &Path, doc: &Value) -> bool {
    name_of(path).ends_with(".messages.json")
        && doc.get("messages").is_some_and(Value::is_array)
        && (doc.get("sessionId").is_some() || doc.get("version").is_some())
}

/// An SDK session's manifest, `<id>/<id>.json` beside `<id>.messages.json`.
fn is_sdk_manifest(path: &Path) -> bool {
    let (Some(stem), Some(dir)) = (path.file_stem().and_then(|s| s.to_str()), path.parent()) else { return false };
    name_of(dir) == stem && !stem.ends_with(".messages") && dir.join(format!("{stem}.messages.json")).is_file()
}

impl Importer for Cline {
    fn info(&self) -> &'static FormatInfo {
        &CLINE_INFO
    }

    fn recognise(&self, _v: &Value) -> bool {
        false
    }

    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        task_file(path) == Some(false) || is_sdk_session(path, doc) || is_sdk_manifest(path) || is_ui_log(path, doc)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Run { dialect: Dialect::CLINE })
    }
}

impl Importer for Roo {
    fn info(&self) -> &'static FormatInfo {
        &ROO_INFO
    }

    fn recognise(&self, _v: &Value) -> bool {
        false
    }

    fn recognise_document(&self, path: &Path, _doc: &Value) -> bool {
        task_file(path) == Some(true)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Run { dialect: Dialect::ROO })
    }
}

struct Run {
    dialect: Dialect,
}

impl ImportRun for Run {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let name = name_of(path);
        if name == UI_LOG && super::is_lone_ui_log(path) {
            let Some(doc) = read_document(path, &mut w.stats)? else {
                return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
            };
            return ui_log(path, &doc, self.dialect, w)
                .map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)));
        }
        if COMPANIONS.contains(&name) || is_sdk_manifest(path) {
            w.stats.skipped += 1;
            return Ok(());
        }
        let Some(doc) = read_document(path, &mut w.stats)? else {
            return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
        };
        let dir = path.parent().unwrap_or(Path::new(""));
        let folder = name_of(dir).to_string();
        let (session, parent, messages) = if name == HISTORY {
            let parent = read_document(&dir.join("history_item.json"), &mut Default::default())
                .ok()
                .flatten()
                .and_then(|h| h.get("parentTaskId").and_then(Value::as_str).map(str::to_string))
                .filter(|p| !p.is_empty());
            (folder, parent, &doc)
        } else {
            // SDK session: `<id>.messages.json` in the folder `<id>` is the
            // session; any other is a teammate of it.
            let stem = name.trim_end_matches(".messages.json").to_string();
            let id = doc.get("sessionId").and_then(Value::as_str).unwrap_or(&stem).to_string();
            if stem == folder || folder.is_empty() {
                (id, None, doc.get("messages").unwrap_or(&Value::Null))
            } else {
                (format!("{folder}/{stem}"), Some(folder), doc.get("messages").unwrap_or(&Value::Null))
            }
        };
        let Some(messages) = messages.as_array() else {
            w.stats.skipped += 1;
            return Ok(());
        };
        let source = dir.display().to_string();
        let mut task = Task { session: &session, pending_xml: None, pending_native: Vec::new(), seq: 0 };
        w.session(&SessionRow {
            id: &session,
            parent: parent.as_deref(),
            agent: self.dialect.as_str(),
            source: &source,
            started: None,
        })
        .and_then(|()| messages.iter().try_for_each(|m| task.message(m, w)))
        .map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))
    }
}

struct Task<'a> {
    session: &'a str,
    /// A legacy XML call waiting for the next user message.
    pending_xml: Option<(String, String)>,
    /// Native calls (id, tool) of the last assistant message, for the
    /// generation that answers them with `[tool …] Result:` text blocks
    /// instead of `tool_result` blocks.
    pending_native: Vec<(String, String)>,
    /// Messages seen, for the ids of legacy calls.
    seq: usize,
}

impl Task<'_> {
    fn message(&mut self, m: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.seq += 1;
        let time = m.get("ts").and_then(Value::as_i64).and_then(ms_time);
        let time = time.as_deref();
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let blocks: Vec<Value> = match m.get("content") {
            Some(Value::Array(b)) => b.clone(),
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => return Ok(()),
        };
        let session = self.session;
        match role {
            "assistant" => {
                let mut native = false;
                for b in &blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                        native = true;
                        let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                        let name =
                            b.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                        w.call(session, id, name, b.get("input").unwrap_or(&Value::Null), time)?;
                        self.pending_native.push((id.to_string(), name.to_string()));
                    }
                }
                if !native {
                    let text = texts(&blocks).join("\n");
                    if let Some((tool, input)) = xml_call(&text) {
                        let id = format!("xml-{}", self.seq);
                        w.call(session, &id, &tool, &input, time)?;
                        self.pending_xml = Some((id, tool));
                    }
                }
            }
            "user" => {
                let native = std::mem::take(&mut self.pending_native);
                let has_results = blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
                if !has_results && !native.is_empty() {
                    // Native calls answered in text: `[tool for '…'] Result:` blocks, in call order.
                    for (id, text) in text_results(&texts(&blocks), &native) {
                        w.result(&ResultRow { session, call_id: &id, text: &text, flag: None, exit_code: None, time })?;
                    }
                }
                for b in &blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        let text = content_text(b.get("content").unwrap_or(&Value::Null));
                        let flag = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                        w.result(&ResultRow {
                            session,
                            call_id: id,
                            text: &text,
                            flag: Some(flag),
                            exit_code: None,
                            time,
                        })?;
                    }
                }
                if let Some((id, tool)) = self.pending_xml.take() {
                    let text = xml_result(&texts(&blocks), &tool);
                    // The legacy protocol records no flag.
                    w.result(&ResultRow { session, call_id: &id, text: &text, flag: None, exit_code: None, time })?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The results of native calls that a user message gives as text blocks
/// (`[execute_command for 'ls'] Result:\n…`), paired with the calls in
/// order: a block whose header names the call's tool first, else the next
/// result block. Calls with no block stay unpaired.
fn text_results(texts: &[&str], calls: &[(String, String)]) -> Vec<(String, String)> {
    let blocks: Vec<(usize, &str, &str)> = texts
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let t = t.trim_start();
            let end = t.find("] Result:").filter(|_| t.starts_with('['))?;
            Some((i, &t[1..end], t[end + "] Result:".len()..].trim_start()))
        })
        .collect();
    let names: Vec<&str> = blocks.iter().map(|b| header_tool(b.1)).collect();
    let tools: Vec<&str> = calls.iter().map(|(_, t)| t.as_str()).collect();
    calls
        .iter()
        .zip(pair_blocks(&names, &tools))
        .filter_map(|((id, _), k)| Some((id.clone(), blocks[k?].2.to_string())))
        .collect()
}

/// The tool a `[<tool> for '…']` header names.
fn header_tool(header: &str) -> &str {
    header.split([' ', ']']).next().unwrap_or(header)
}

/// For each of `tools`, in call order, the index of its result among blocks
/// naming `names`: the first unused block that names the call's tool, else
/// the next unused block; none once every block is used.
fn pair_blocks(names: &[&str], tools: &[&str]) -> Vec<Option<usize>> {
    let mut used = vec![false; names.len()];
    tools
        .iter()
        .map(|tool| {
            let named = (0..names.len()).find(|&k| !used[k] && names[k] == *tool);
            let k = named.or_else(|| (0..names.len()).find(|&k| !used[k]))?;
            used[k] = true;
            Some(k)
        })
        .collect()
}

fn texts(blocks: &[Value]) -> Vec<&str> {
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

/// The tools of the legacy XML protocol.
const XML_TOOLS: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "new_task",
    "plan_mode_respond",
    "web_fetch",
    "switch_mode",
    "codebase_search",
    "fetch_instructions",
];

/// The first XML tool call in an assistant's text: its tool and its
/// parameters (`<param>value</param>` children).
fn xml_call(text: &str) -> Option<(String, Value)> {
    let (at, tool) =
        XML_TOOLS.iter().filter_map(|t| text.find(&format!("<{t}>")).map(|i| (i, *t))).min_by_key(|(i, _)| *i)?;
    let body_start = at + tool.len() + 2;
    let end = text[body_start..].find(&format!("</{tool}>")).map_or(text.len(), |e| body_start + e);
    let body = &text[body_start..end];
    let mut params = Map::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        let name = &after[..close];
        if name.is_empty() || name.starts_with('/') || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            rest = &after[close + 1..];
            continue;
        }
        let value_start = &after[close + 1..];
        let Some(vend) = value_start.find(&format!("</{name}>")) else { break };
        params.insert(name.to_string(), Value::String(value_start[..vend].trim_matches('\n').to_string()));
        rest = &value_start[vend + name.len() + 3..];
    }
    Some((tool.to_string(), Value::Object(params)))
}

/// The result of a legacy call in the next user message: the text after
/// its `[<tool> …] Result:` header, up to the environment details (or the
/// whole text of the message when no header names it).
fn xml_result(texts: &[&str], tool: &str) -> String {
    let header = format!("[{tool}");
    let mut out: Vec<&str> = Vec::new();
    let mut inside = false;
    for t in texts {
        let trimmed = t.trim_start();
        if trimmed.starts_with("<environment_details>") {
            break;
        }
        if !inside && trimmed.starts_with(&header) {
            inside = true;
            if let Some(i) = trimmed.find("] Result:") {
                let rest = trimmed[i + "] Result:".len()..].trim_start();
                if !rest.is_empty() {
                    out.push(rest);
                }
                continue;
            }
        }
        if inside {
            out.push(t);
        }
    }
    if !inside {
        return texts
            .iter()
            .take_while(|t| !t.trim_start().starts_with("<environment_details>"))
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
    }
    out.join("\n")
}

/// A tool_result's content: a string, or the text of its blocks; other
/// blocks (Cline SDK `{query, result}` items) as JSON.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => match o.get("text").and_then(Value::as_str) {
                    Some(t) => Some(t.to_string()),
                    None if o.get("type").and_then(Value::as_str) == Some("image") => None,
                    None => Some(i.to_string()),
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// A UI log alone (a repository that committed `ui_messages.json` but not
/// the conversation): an array of `ClineMessage`s (`{ts, type: "ask" |
/// "say", ask | say, text}`).
fn is_ui_log(path: &Path, doc: &Value) -> bool {
    name_of(path) == UI_LOG
        && super::is_lone_ui_log(path)
        && doc.as_array().is_some_and(|m| {
            m.first().is_some_and(|f| f.get("ts").is_some() && f.get("type").and_then(Value::as_str).is_some())
        })
}

/// The API name of a tool as the UI log names it (`readFile` is the
/// `read_file` call); the result's header, when there is one, has the last
/// word (`editedExistingFile` is `write_to_file` or `replace_in_file`).
fn api_name(ui: &str) -> &str {
    match ui {
        "readFile" => "read_file",
        "listFilesTopLevel" | "listFilesRecursive" => "list_files",
        "listCodeDefinitionNames" => "list_code_definition_names",
        "searchFiles" => "search_files",
        "newFileCreated" => "write_to_file",
        "editedExistingFile" => "replace_in_file",
        "fileDeleted" => "delete_file",
        "webFetch" => "web_fetch",
        "summarizeTask" => "summarize_task",
        "newTask" => "new_task",
        other => other,
    }
}

/// One call of a UI log waiting for the API request that carries its result.
struct UiCall {
    id: String,
    tool: String,
    input: Value,
    time: Option<String>,
    /// The usage of the API request whose reply asked for it.
    usage: Option<std::sync::Arc<crate::model::Usage>>,
}

/// Read a UI log alone. A call is a message that asks to use a tool or
/// reports one used: `tool` (its JSON names the tool), `command`,
/// `use_mcp_server`, and `completion_result` (`attempt_completion`; the
/// `ask` that follows it is the same call). Its result is the block headed
/// `[<tool> for '…'] Result:` of the next `api_req_started` message's
/// request, the text the extension sent the model; a call the task ended
/// before has none. The log keeps no flag: only the text says a call failed.
fn ui_log(path: &Path, doc: &Value, dialect: Dialect, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let Some(messages) = doc.as_array() else { return Ok(()) };
    let first = messages.first().and_then(|m| m.get("ts")).and_then(Value::as_i64).unwrap_or(0);
    let session = first.to_string();
    let source = path.parent().unwrap_or(Path::new("")).display().to_string();
    let started = ms_time(first);
    w.session(&SessionRow {
        id: &session,
        parent: None,
        agent: dialect.as_str(),
        source: &source,
        started: started.as_deref(),
    })?;
    let mut pending: Vec<UiCall> = Vec::new();
    // A `say completion_result` not yet followed by another call or request:
    // the `ask completion_result` after it is the same call.
    let mut completion_shown = false;
    // The usage of the last `api_req_started`: its reply's calls follow it.
    let mut usage: Option<std::sync::Arc<crate::model::Usage>> = None;
    for (i, m) in messages.iter().enumerate() {
        let kind = m.get("ask").or_else(|| m.get("say")).and_then(Value::as_str).unwrap_or("");
        let text = m.get("text").and_then(Value::as_str).unwrap_or("");
        let time = m.get("ts").and_then(Value::as_i64).and_then(ms_time);
        if m.get("partial").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if kind == "api_req_started" {
            usage = serde_json::from_str::<Value>(text).ok().and_then(|v| super::usage::cline(v.as_object()?)).map(
                |mut u| {
                    u.response = format!("{session}#api-{i}");
                    std::sync::Arc::new(u)
                },
            );
        }
        let call = |tool: &str, input: Value| UiCall {
            id: format!("ui-{i}"),
            tool: tool.to_string(),
            input,
            time: time.clone(),
            usage: usage.clone(),
        };
        let new = match kind {
            "tool" => {
                let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                let ui = v.get("tool").and_then(Value::as_str).unwrap_or("(unnamed)").to_string();
                let mut input = v.as_object().cloned().unwrap_or_default();
                input.remove("tool");
                Some(call(api_name(&ui), Value::Object(input)))
            }
            "command" => Some(call("execute_command", serde_json::json!({ "command": text }))),
            "use_mcp_server" => {
                let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                let arguments = v
                    .get("arguments")
                    .and_then(Value::as_str)
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .unwrap_or(Value::Null);
                Some(call(
                    "use_mcp_tool",
                    serde_json::json!({
                        "server_name": v.get("serverName").cloned().unwrap_or(Value::Null),
                        "tool_name": v.get("toolName").cloned().unwrap_or(Value::Null),
                        "arguments": arguments,
                    }),
                ))
            }
            // The `say` shows the result text; the `ask` after it waits for
            // the user: one call.
            "completion_result" if !(completion_shown && m.get("type").and_then(Value::as_str) == Some("ask")) => {
                Some(call("attempt_completion", serde_json::json!({ "result": text })))
            }
            _ => None,
        };
        if new.is_some() || kind == "api_req_started" {
            completion_shown = kind == "completion_result";
        }
        if let Some(c) = new {
            pending.push(c);
            continue;
        }
        if kind == "api_req_started" && !pending.is_empty() {
            let request = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.get("request").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default();
            answer(&session, std::mem::take(&mut pending), &request, w)?;
        }
    }
    answer(&session, pending, "", w)
}

/// Record `calls` with their results in `request` (see `ui_log`), each
/// named by its result's header when it has one.
fn answer(session: &str, calls: Vec<UiCall>, request: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let blocks = result_blocks(request);
    let names: Vec<&str> = blocks.iter().map(|b| b.0).collect();
    let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
    let picks = pair_blocks(&names, &tools);
    for (c, pick) in calls.iter().zip(picks) {
        let tool = pick.map_or(c.tool.as_str(), |k| blocks[k].0);
        w.call(session, &c.id, tool, &c.input, c.time.as_deref())?;
        if let Some(u) = &c.usage {
            w.call_usage(session, &c.id, u)?;
        }
        if let Some(k) = pick {
            let time = c.time.as_deref();
            w.result(&ResultRow { session, call_id: &c.id, text: blocks[k].1, flag: None, exit_code: None, time })?;
        }
    }
    Ok(())
}

/// The `[<tool> for '…'] Result:` blocks of an API request's text, as the
/// tool's name and the text after the header, up to the next block or the
/// environment details.
fn result_blocks(request: &str) -> Vec<(&str, &str)> {
    let request = request.split("\n<environment_details>").next().unwrap_or("");
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    for line in request.split_inclusive('\n') {
        if line.starts_with('[') && line.contains("] Result:") {
            starts.push(at);
        }
        at += line.len();
    }
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let end = starts.get(n + 1).copied().unwrap_or(request.len());
            let block = &request[start..end];
            let close = block.find("] Result:").unwrap_or(0);
            (header_tool(&block[1..close]), block[close + "] Result:".len()..].trim())
        })
        .collect()
}

fn ms_time(ms: i64) -> Option<String> {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn legacy_xml_calls_and_results() {
        let text = "I'll read it.\n<read_file>\n<path>src/a.ts</path>\n</read_file>";
        assert_eq!(xml_call(text), Some(("read_file".into(), json!({"path": "src/a.ts"}))));
        assert_eq!(xml_call("no tools here"), None);
        let texts = [
            "[read_file for 'src/a.ts'] Result:",
            "The tool execution failed with the following error:\n<error>\nENOENT\n</error>",
            "<environment_details>\n…\n</environment_details>",
        ];
        assert!(xml_result(&texts, "read_file").starts_with("The tool execution failed"));
        assert_eq!(xml_result(&["[execute_command for 'ls'] Result: a.txt"], "execute_command"), "a.txt");
    }

    #[test]
    fn result_contents() {
        assert_eq!(content_text(&json!([{"type": "text", "text": "a"}, {"type": "image"}])), "a");
        assert_eq!(content_text(&json!([{"query": "q", "result": "r"}])), r#"{"query":"q","result":"r"}"#);
    }
}

#[cfg(test)]
mod text_result_tests {
    use super::text_results;

    #[test]
    fn native_calls_answered_in_text_blocks_pair_in_order_by_tool() {
        let calls = vec![
            ("t1".to_string(), "read_file".to_string()),
            ("t2".to_string(), "execute_command".to_string()),
            ("t3".to_string(), "use_subagents".to_string()),
        ];
        let texts = [
            "[execute_command for 'type x.tfvars'] Result:\nCommand failed with exit code 1.\nOutput:\nThe system cannot find the file specified.",
            "[read_file for 'src/a.ts'] Result:\n1 | import x",
            "[subagents] Result:\nSubagent results:\nTotal: 5",
            "<environment_details>\n# VSCode Visible Files",
        ];
        let got = text_results(&texts, &calls);
        assert_eq!(got[0], ("t1".to_string(), "1 | import x".to_string()));
        assert!(got[1].1.starts_with("Command failed with exit code 1."), "{got:?}");
        assert_eq!(got[2].0, "t3", "a header that does not name the tool takes the next block");
        assert!(text_results(&["no result here"], &calls).is_empty());
    }
}
