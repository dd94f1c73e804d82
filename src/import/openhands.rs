//! OpenHands conversations (software-agent-sdk and CLI,
//! `~/.openhands/conversations/<conversation>/events/event-<idx>-<id>.json`),
//! the CLI's default folder; an event's index is zero-padded to at
//! least 5 digits.
//!
//! One JSON file per event, typed by `kind`; the conversation is the folder
//! above `events/`, the order is the zero-padded index in the file name
//! (files are read sorted). `ActionEvent` is a call (`tool_call_id`,
//! `tool_name`, `tool_call.arguments`); `ObservationEvent` its result
//! (`observation.content` text parts, `observation.is_error`, and for
//! terminal commands `exit_code`); `UserRejectObservation` and
//! `AgentErrorEvent` are flagged results. The hidden error: a command that
//! exits non-zero is stored with `is_error: false`; its `exit_code` is kept
//! (`-1` means "still running or unknown", not a failure). `base_state.json`
//! beside `events/` is claimed and skipped.
//!
//! The app's sessions before the SDK (`~/.openhands/sessions/<id>/events/<n>.json`)
//! are read by `openhands_app`.

use std::path::Path;

use serde_json::Value;

use super::openhands_app as app;
use super::{ImportRun, Importer, ResultRow, SessionRow, Writer, read_document};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct OpenHands;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::OPENHANDS,
    agent: "OpenHands conversation folders, one JSON file per event, read through import",
    product: "OpenHands",
    signature: "`events/event-<idx>-<id>.json` files with `kind` (`ActionEvent`, `ObservationEvent`, …) beside `base_state.json`; the app's older `sessions/<id>/events/<n>.json` with `action`/`observation` and `cause`",
    flag: "`observation.is_error`; `UserRejectObservation` and `AgentErrorEvent`; before the SDK, an error observation, an MCP result's `isError` and a browser observation's `extras.error` (a non-zero `exit_code` is not flagged)",
    locations: &[Location::Home(".openhands/conversations"), Location::Home(".openhands/sessions")],
    sample: "openhands",
};

const AGENT: &str = Dialect::OPENHANDS.as_str();

/// Is `path` an event file of a conversation's `events/` folder?
fn is_event_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let folder = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str());
    name.starts_with("event-") && folder == Some("events")
}

impl Importer for OpenHands {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// An event on one line (never seen on disk, but cheap to accept).
    fn recognise(&self, v: &Value) -> bool {
        matches!(
            v.get("kind").and_then(Value::as_str),
            Some("ActionEvent" | "ObservationEvent" | "UserRejectObservation" | "AgentErrorEvent")
        ) && v.get("id").is_some()
            && v.get("source").is_some()
    }

    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        if is_event_path(path) {
            return doc.get("kind").is_some_and(Value::is_string);
        }
        if app::is_event_path(path) {
            return app::is_event(doc);
        }
        app::is_companion(path, doc)
            || (path.file_name().is_some_and(|n| n == "base_state.json")
                && path.parent().is_some_and(|p| p.join("events").is_dir())
                && doc.is_object())
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Run::default())
    }
}

/// One import of OpenHands folders: SDK events are written as they are
/// read; the app's older sessions are kept until the end (`openhands_app`).
#[derive(Default)]
struct Run {
    app: app::Sessions,
    kept_app_events: bool,
}

impl ImportRun for Run {
    fn writes_at_finish(&self) -> bool {
        self.kept_app_events
    }

    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        self.app.write(w, AGENT)
    }

    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        self.kept_app_events = false;
        if app::is_event_path(path) {
            let Some(event) = read_document(path, &mut w.stats)? else {
                return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
            };
            let folder = path.parent().and_then(Path::parent).unwrap_or(path);
            let session = folder.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if self.app.keep(&event, &session, &folder.display().to_string()) {
                self.kept_app_events = true;
            } else {
                w.stats.skipped += 1;
            }
            return Ok(());
        }
        if !is_event_path(path) {
            // base_state.json, metadata.json, event_cache/: settings and copies, no calls.
            w.stats.skipped += 1;
            return Ok(());
        }
        let Some(event) = read_document(path, &mut w.stats)? else {
            return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
        };
        let conversation = path
            .parent()
            .and_then(Path::parent)
            .and_then(|p| p.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = path.parent().and_then(Path::parent).unwrap_or(path).display().to_string();
        event_record(&event, &conversation, &source, w)
            .map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))
    }
}

fn event_record(v: &Value, session: &str, source: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let time = v.get("timestamp").and_then(Value::as_str);
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let call_id = v.get("tool_call_id").and_then(Value::as_str).filter(|s| !s.is_empty());
    let row = |text: &str, flag: bool, exit_code: Option<i64>, call_id: &str, w: &mut Writer<'_>| {
        w.result(&ResultRow { session, call_id, text, flag: Some(flag), exit_code, time })
    };
    match (kind, call_id) {
        ("ActionEvent", Some(id)) => {
            w.session(&SessionRow { id: session, parent: None, agent: AGENT, source, started: time })?;
            let tool = v
                .get("tool_name")
                .and_then(Value::as_str)
                .or_else(|| v.get("tool_call").and_then(|t| t.get("name")).and_then(Value::as_str))
                .filter(|s| !s.is_empty())
                .unwrap_or("(unnamed)");
            let args = v
                .get("tool_call")
                .and_then(|t| t.get("arguments"))
                .or_else(|| v.get("action"))
                .cloned()
                .unwrap_or(Value::Null);
            w.call(session, id, tool, &args, time)
        }
        ("ObservationEvent", Some(id)) => {
            let obs = v.get("observation").unwrap_or(&Value::Null);
            let flag = obs.get("is_error").and_then(Value::as_bool).unwrap_or(false);
            let exit_code = obs
                .get("exit_code")
                .or_else(|| obs.get("metadata").and_then(|m| m.get("exit_code")))
                .and_then(Value::as_i64)
                .filter(|&c| c != -1);
            row(&content_text(obs.get("content").unwrap_or(&Value::Null)), flag, exit_code, id, w)
        }
        ("UserRejectObservation", Some(id)) => {
            let reason = v.get("rejection_reason").and_then(Value::as_str).unwrap_or("");
            let by = v.get("rejection_source").and_then(Value::as_str).unwrap_or("user");
            let text = if by == "hook" {
                format!("Action rejected by a hook: {reason}")
            } else {
                format!("Action rejected by user: {reason}")
            };
            row(text.trim_end_matches([':', ' ']), true, None, id, w)
        }
        ("AgentErrorEvent", Some(id)) => {
            let text = v.get("error").map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_string));
            row(&text.unwrap_or_default(), true, None, id, w)
        }
        _ => {
            w.stats.skipped += 1;
            Ok(())
        }
    }
}

/// The text parts of an observation's `content` (a string, or a list of
/// `{type: "text", text}` parts; images are left out).
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognised_by_folder_and_kind() {
        let event = json!({"kind": "ActionEvent", "id": "e1", "source": "agent"});
        assert!(OpenHands.recognise_document(Path::new("c/events/event-00001-e1.json"), &event));
        assert!(!OpenHands.recognise_document(Path::new("c/event-00001-e1.json"), &event), "not in events/");
        assert!(!OpenHands.recognise_document(Path::new("c/events/event-00001.json"), &json!([1])));
        assert!(OpenHands.recognise(&event));
        assert!(!OpenHands.recognise(&json!({"kind": "x", "id": "m1", "type": "gemini"})));
    }

    #[test]
    fn content_parts() {
        let c =
            json!([{"type": "text", "text": "a"}, {"type": "image", "image_urls": []}, {"type": "text", "text": "b"}]);
        assert_eq!(content_text(&c), "a\nb");
        assert_eq!(content_text(&json!("plain")), "plain");
    }
}
