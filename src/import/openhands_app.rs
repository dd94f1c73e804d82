//! OpenHands sessions written by the app before its SDK
//! (`~/.openhands/sessions/<session>/events/<n>.json`, one event per file,
//! `n` its id). Part of the OpenHands importer (`openhands.rs`).
//!
//! An event is an action (`action`: `run`, `read`, `edit`,
//! `browse_interactive`, `call_tool_mcp`, `finish`, …) or an observation
//! (`observation`) whose `cause` is the id of the action it answers. Tool
//! actions carry `tool_call_metadata` (`function_name`, `tool_call_id`);
//! actions without it (messages, state changes, recalls) are not calls.
//!
//! - The flag is an error observation (`observation: "error"`), and for an
//!   MCP tool the protocol's own `isError` in the result it returns (the
//!   JSON of a CallToolResult, whose text parts are the result's text).
//! - A browser observation (`observation: "browse"`) keeps its own flag,
//!   `extras.error: true` (`BrowserOutputObservation.error`, set when the
//!   page or the browser action failed); it is read as the flag.
//! - A command's exit status is `extras.metadata.exit_code` (`-1`: still
//!   running or unknown, not kept); `success: false` only mirrors it.
//! - An error observation with no `cause`, from the agent, is a call the
//!   app refused before it became an action (`Missing required parameters
//!   for function 'execute_bash': …`): a call of that function with no id
//!   (shown as `#<seq>`) and its flagged result.
//! - The model's tool call ids (`toolu_01`, …) start again within a
//!   session; a repeated one is kept as `<id>@<event id>`, so every call
//!   has its own.
//!
//! Files are named by unpadded numbers, so they are not read in order: the
//! events of each session are kept (their text cut to its two ends) and
//! written in id order when every file has been read. `event_cache/` holds
//! the same events again and `metadata.json` the session's settings: both
//! are claimed and skipped.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::Value;

use super::{ResultRow, SessionRow, Writer};
use crate::model::text_ends;

/// Is `path` an event file of the app's sessions (`events/<n>.json`)?
pub(crate) fn is_event_path(path: &Path) -> bool {
    let stem = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    let folder = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str());
    !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()) && folder == Some("events")
}

/// Is `doc` one event of the app (an id, and an action or an observation)?
pub(crate) fn is_event(doc: &Value) -> bool {
    doc.get("id").is_some_and(Value::is_u64)
        && (doc.get("action").is_some_and(Value::is_string) || doc.get("observation").is_some_and(Value::is_string))
}

/// Files the app keeps beside `events/`: `event_cache/<a>-<b>.json` (the
/// events again, in pages) and the session's `metadata.json`.
pub(crate) fn is_companion(path: &Path, doc: &Value) -> bool {
    let folder = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str());
    let in_session = |dir: Option<&Path>| dir.is_some_and(|d| d.join("events").is_dir());
    match folder {
        Some("event_cache") => {
            in_session(path.parent().and_then(Path::parent))
                && doc.as_array().is_some_and(|a| a.first().is_none_or(is_event))
        }
        _ => {
            path.file_name().is_some_and(|n| n == "metadata.json")
                && in_session(path.parent())
                && doc.get("conversation_id").is_some()
        }
    }
}

/// What an event says, kept until the session is written.
enum Kept {
    Call { tool: String, call_id: String, args: Value },
    Result { cause: u64, text: String, flag: bool, exit_code: Option<i64> },
    Refused { tool: String, text: String },
}

struct Event {
    time: Option<String>,
    kept: Kept,
}

/// The events of every session read so far, by session then event id.
#[derive(Default)]
pub(crate) struct Sessions {
    sessions: BTreeMap<String, (String, BTreeMap<u64, Event>)>,
}

impl Sessions {
    /// Keep one event of `session` (read from the folder `source`); `false`
    /// when it is not one falseok reads (a message, a state change).
    pub(crate) fn keep(&mut self, doc: &Value, session: &str, source: &str) -> bool {
        let Some(id) = doc.get("id").and_then(Value::as_u64) else { return false };
        let Some(kept) = kept(doc) else { return false };
        let time = doc.get("timestamp").and_then(Value::as_str).map(str::to_string);
        let entry = self.sessions.entry(session.to_string()).or_insert_with(|| (source.to_string(), BTreeMap::new()));
        entry.1.entry(id).or_insert(Event { time, kept });
        true
    }

    /// Write every session kept, its events in id order.
    pub(crate) fn write(&mut self, w: &mut Writer<'_>, agent: &'static str) -> rusqlite::Result<()> {
        for (session, (source, events)) in std::mem::take(&mut self.sessions) {
            write_session(w, agent, &session, &source, events)?;
        }
        Ok(())
    }
}

fn write_session(
    w: &mut Writer<'_>,
    agent: &'static str,
    session: &str,
    source: &str,
    events: BTreeMap<u64, Event>,
) -> rusqlite::Result<()> {
    let started = events.values().find_map(|e| e.time.clone());
    w.session(&SessionRow { id: session, parent: None, agent, source, started: started.as_deref() })?;
    // The call id each action event was written under, and how often each
    // of the model's ids was seen.
    let mut calls: HashMap<u64, String> = HashMap::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (event_id, e) in events {
        let time = e.time.as_deref();
        match e.kept {
            Kept::Call { tool, call_id, args } => {
                let n = seen.entry(call_id.clone()).or_insert(0);
                *n += 1;
                let id = if *n == 1 && !call_id.is_empty() { call_id } else { format!("{call_id}@{event_id}") };
                w.call(session, &id, &tool, &args, time)?;
                calls.insert(event_id, id);
            }
            Kept::Result { cause, text, flag, exit_code } => {
                if let Some(call_id) = calls.get(&cause) {
                    w.result(&ResultRow { session, call_id, text: &text, flag: Some(flag), exit_code, time })?;
                } else {
                    w.stats.skipped += 1;
                }
            }
            Kept::Refused { tool, text } => {
                let call_id = w.call_without_id(session, &tool, &Value::Null, time)?;
                w.result(&ResultRow {
                    session,
                    call_id: &call_id,
                    text: &text,
                    flag: Some(true),
                    exit_code: None,
                    time,
                })?;
            }
        }
    }
    Ok(())
}

fn kept(doc: &Value) -> Option<Kept> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(|s| text_ends(s).into_owned()).unwrap_or_default();
    let meta = doc.get("tool_call_metadata");
    if doc.get("action").is_some() {
        let meta = meta?;
        let tool = meta.get("function_name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
        let call_id = meta.get("tool_call_id").and_then(Value::as_str).unwrap_or("").to_string();
        let mut args = doc.get("args").cloned().unwrap_or(Value::Null);
        if let Some(o) = args.as_object_mut() {
            // The model's prose, not an argument of the tool.
            o.remove("thought");
        }
        return Some(Kept::Call { tool: tool.to_string(), call_id, args });
    }
    let observation = doc.get("observation").and_then(Value::as_str)?;
    // What the agent was shown: a command's output between the prefix and
    // the suffix the app adds (`[The command completed with exit code 1.]`,
    // `[The command has no new output after 10 seconds. …]`).
    let meta = doc.get("extras").and_then(|x| x.get("metadata"));
    let part = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("");
    let content = match (part("prefix"), part("suffix")) {
        ("", "") => text(doc.get("content")),
        (prefix, suffix) => {
            let whole = format!("{prefix}{}{suffix}", doc.get("content").and_then(Value::as_str).unwrap_or(""));
            text_ends(&whole).into_owned()
        }
    };
    match doc.get("cause").and_then(Value::as_u64) {
        Some(cause) => {
            let exit_code = doc
                .get("extras")
                .and_then(|x| x.get("metadata"))
                .and_then(|m| m.get("exit_code"))
                .and_then(Value::as_i64)
                .filter(|&c| c != -1);
            // The browser's own flag (`BrowserOutputObservation.error`).
            let own = doc.get("extras").and_then(|x| x.get("error")).and_then(Value::as_bool) == Some(true);
            let (text, flag) = match observation {
                "error" => (content, true),
                "mcp" => mcp_result(&content),
                _ => (content, own),
            };
            Some(Kept::Result { cause, text, flag, exit_code })
        }
        None if observation == "error" && doc.get("source").and_then(Value::as_str) == Some("agent") => {
            Some(Kept::Refused { tool: refused_function(&content).unwrap_or("(unnamed)").to_string(), text: content })
        }
        None => None,
    }
}

/// The text and `isError` of an MCP CallToolResult given as JSON text; a
/// text that is not one is kept as it is, unflagged.
fn mcp_result(content: &str) -> (String, bool) {
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(content) else { return (content.to_string(), false) };
    let flag = o.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let parts: Vec<&str> = o
        .get("content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let text = if parts.is_empty() { content.to_string() } else { parts.join("\n") };
    (text, flag)
}

/// The function a refusal names: `… for function 'execute_bash': …`.
fn refused_function(text: &str) -> Option<&str> {
    let rest = &text[text.find("function '")? + "function '".len()..];
    let name = &rest[..rest.find('\'')?];
    (!name.is_empty() && name.len() <= 128).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn event_paths_and_events() {
        assert!(is_event_path(Path::new("s/abc/events/12.json")));
        assert!(!is_event_path(Path::new("s/abc/events/event-00001-x.json")), "the SDK's layout");
        assert!(!is_event_path(Path::new("s/abc/event_cache/0-25.json")));
        assert!(is_event(&json!({"id": 3, "action": "run"})));
        assert!(is_event(&json!({"id": 4, "observation": "run", "cause": 3})));
        assert!(!is_event(&json!({"kind": "ActionEvent", "id": "e1"})), "the SDK's events");
    }

    #[test]
    fn refusals_name_their_function() {
        assert_eq!(
            refused_function("Missing required parameters for function 'execute_bash': {'security_risk'}"),
            Some("execute_bash")
        );
        assert_eq!(
            refused_function("Parameter 'security_risk' is not allowed for function 'create_pr'. Allowed: {}"),
            Some("create_pr")
        );
        assert_eq!(refused_function("Agent got stuck in a loop"), None);
    }

    /// A browser observation's `extras.error` is its flag; an observation
    /// without it, or with it false, is unflagged.
    #[test]
    fn the_browser_s_own_flag_is_read() {
        let browse = |error: Value| {
            json!({"id": 9, "cause": 8, "observation": "browse", "content": "net::ERR_NAME_NOT_RESOLVED",
                   "extras": {"url": "http://nowhere.invalid", "trigger_by_action": "browse", "error": error}})
        };
        let flag = |doc: &Value| match kept(doc) {
            Some(Kept::Result { flag, .. }) => Some(flag),
            _ => None,
        };
        assert_eq!(flag(&browse(json!(true))), Some(true));
        assert_eq!(flag(&browse(json!(false))), Some(false));
        assert_eq!(flag(&browse(json!("yes"))), Some(false), "only a boolean is the flag");
        let run = json!({"id": 5, "cause": 4, "observation": "run", "content": "ok",
                         "extras": {"command": "ls", "metadata": {"exit_code": 0}}});
        assert_eq!(flag(&run), Some(false));
    }

    #[test]
    fn mcp_results_carry_their_flag() {
        let (text, flag) = mcp_result(
            r#"{"meta": null, "content": [{"type": "text", "text": "Error calling tool 'create_pr'"}], "isError": true}"#,
        );
        assert_eq!((text.as_str(), flag), ("Error calling tool 'create_pr'", true));
        assert_eq!(mcp_result("plain"), ("plain".to_string(), false));
    }
}
