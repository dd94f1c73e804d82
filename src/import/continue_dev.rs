//! Continue sessions (`~/.continue/sessions/<sessionId>.json`, index
//! `sessions.json`; the root moves with `CONTINUE_GLOBAL_DIR`).
//!
//! One JSON document per session: `{sessionId, title, workspaceDirectory,
//! history: [ChatHistoryItem]}`. A call is an entry of an assistant
//! message's `toolCalls` (`{id, function: {name, arguments}}`); its result
//! lives on the same history item, in `toolCallStates[]` (older versions:
//! one `toolCallState`) as `{toolCallId, status, parsedArgs, output:
//! [ContextItem]}`. The flag: `status` `errored` or `canceled`; `done` is
//! not flagged; a call still `generating`, `generated` or `calling` has no
//! result. A `canceled` call (the user rejected it) keeps no output, so its
//! text is written as `The user canceled this tool call`. The hidden
//! error: the terminal tool resolves `done` with a context item whose
//! `status` is `Command failed with exit code N`; that exit code is kept. Without states, `role: "tool"` messages stand in.
//! No message carries a time.

use std::path::Path;

use serde_json::Value;

use super::{ImportRun, Importer, ResultRow, SessionRow, Writer, read_document};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Continue;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CONTINUE,
    agent: "Continue sessions, one JSON document per session, read through import",
    product: "Continue",
    signature: "a JSON document with `sessionId` and `history[]` (`message.toolCalls`, `toolCallStates`)",
    flag: "each tool call state's `status` (`errored`, `canceled` = flagged; `done` = not flagged)",
    locations: &[Location::Home(".continue/sessions")],
    sample: "continue",
};

const AGENT: &str = Dialect::CONTINUE.as_str();

fn is_session(doc: &Value) -> bool {
    doc.get("sessionId").is_some_and(Value::is_string) && doc.get("history").is_some_and(Value::is_array)
}

/// The index `sessions.json`: `[{sessionId, title, dateCreated, …}]`.
fn is_index(path: &Path, doc: &Value) -> bool {
    path.file_name().is_some_and(|n| n == "sessions.json")
        && doc.as_array().is_some_and(|a| a.iter().all(|s| s.get("sessionId").is_some() && s.get("history").is_none()))
}

impl Importer for Continue {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// A session written on one line.
    fn recognise(&self, v: &Value) -> bool {
        is_session(v) && v.get("type").is_none()
    }

    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        is_session(doc) || is_index(path, doc)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Continue)
    }
}

impl ImportRun for Continue {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let Some(doc) = read_document(path, &mut w.stats)? else {
            return Err(Error::input(path, "is not a JSON document (cut or broken?)"));
        };
        if !is_session(&doc) {
            // The index: titles and dates, no calls.
            w.stats.skipped += 1;
            return Ok(());
        }
        session(&doc, &path.display().to_string(), w)
            .map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))
    }
}

fn session(doc: &Value, source: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let id = doc.get("sessionId").and_then(Value::as_str).unwrap_or("");
    w.session(&SessionRow { id, parent: None, agent: AGENT, source, started: None })?;
    for item in doc.get("history").and_then(Value::as_array).into_iter().flatten() {
        let message = item.get("message").unwrap_or(&Value::Null);
        for tc in message.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
            let Some(call_id) = tc.get("id").and_then(Value::as_str) else { continue };
            let f = tc.get("function").unwrap_or(&Value::Null);
            let name = f.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
            w.call(id, call_id, name, f.get("arguments").unwrap_or(&Value::Null), None)?;
        }
        let states: Vec<&Value> = match (item.get("toolCallStates"), item.get("toolCallState")) {
            (Some(Value::Array(s)), _) => s.iter().collect(),
            (_, Some(one @ Value::Object(_))) => vec![one],
            _ => Vec::new(),
        };
        for st in states {
            let Some(call_id) = st.get("toolCallId").and_then(Value::as_str) else { continue };
            // A state without the call on the message (older files keep the
            // call only in the state).
            if let Some(tc) = st.get("toolCall")
                && let Some(name) = tc.get("function").and_then(|f| f.get("name")).and_then(Value::as_str)
            {
                let args = st.get("parsedArgs").or_else(|| tc.get("function").and_then(|f| f.get("arguments")));
                let before = w.stats.duplicates;
                w.call(id, call_id, name, args.unwrap_or(&Value::Null), None)?;
                // Already recorded from the message: not a repeat of the trace.
                if w.stats.duplicates > before {
                    w.stats.duplicates = before;
                }
            }
            let flag = match st.get("status").and_then(Value::as_str) {
                Some("done") => false,
                Some("errored" | "canceled" | "cancelled") => true,
                _ => continue,
            };
            let (mut text, exit_code) = output_text(st.get("output").unwrap_or(&Value::Null));
            if text.is_empty() && flag && st.get("status").and_then(Value::as_str) != Some("errored") {
                // The user rejected the call: Continue keeps no text for it.
                text = "The user canceled this tool call".to_string();
            }
            w.result(&ResultRow { session: id, call_id, text: &text, flag: Some(flag), exit_code, time: None })?;
        }
        // Without states, the tool message the model was sent.
        if message.get("role").and_then(Value::as_str) == Some("tool")
            && let Some(call_id) = message.get("toolCallId").and_then(Value::as_str)
        {
            let text = match message.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => {
                    parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
                }
                _ => String::new(),
            };
            let before = w.stats.duplicates;
            w.result(&ResultRow { session: id, call_id, text: &text, flag: None, exit_code: None, time: None })?;
            w.stats.duplicates = before;
        }
    }
    Ok(())
}

/// The text of a state's output context items (their `content`, and a
/// `status` line such as `Command failed with exit code 2`), and the exit
/// code such a status names.
fn output_text(v: &Value) -> (String, Option<i64>) {
    let mut out: Vec<String> = Vec::new();
    let mut exit = None;
    for item in v.as_array().into_iter().flatten() {
        if let Some(c) = item.get("content").and_then(Value::as_str).filter(|c| !c.is_empty()) {
            out.push(c.to_string());
        }
        if let Some(s) = item.get("status").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            if let Some(n) = s.strip_prefix("Command failed with exit code ") {
                exit = n.trim().trim_end_matches('.').parse::<i64>().ok().or(exit);
            }
            out.push(s.to_string());
        }
    }
    (out.join("\n"), exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs_and_exit_codes() {
        let o = json!([{"name": "Terminal", "content": "FAIL x", "status": "Command failed with exit code 1"}]);
        assert_eq!(output_text(&o), ("FAIL x\nCommand failed with exit code 1".into(), Some(1)));
        assert_eq!(output_text(&json!([{"content": "ok", "status": "Command completed"}])).1, None);
    }

    #[test]
    fn recognised_documents() {
        let p = Path::new("s.json");
        assert!(Continue.recognise_document(p, &json!({"sessionId": "a", "history": []})));
        assert!(!Continue.recognise_document(p, &json!({"sessionId": "a", "messages": []})), "Gemini");
        assert!(Continue.recognise_document(Path::new("sessions.json"), &json!([{"sessionId": "a", "title": "t"}])));
    }
}
