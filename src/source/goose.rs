//! Goose's `sessions.db` (`~/.local/share/goose/sessions/sessions.db` on
//! Linux and macOS; older releases kept one `*.jsonl` per session and
//! import them into it on first run).
//!
//! `messages.content_json` is a JSON array of content items. Calls are
//! `toolRequest` (or `frontendToolRequest`) items of assistant rows; results
//! are `toolResponse` items of *user* rows, linked by `id`. Two error
//! channels: `toolResult.status = "error"` (with an `error` string) and an
//! MCP tool error `toolResult.value.isError = true`. Legacy results are a
//! bare array of content. A request Goose could not parse
//! (`toolCall.status = "error"`) is a failed call even before any response.
//! Timestamps are Unix seconds.
//!
//! Rows are read in (session, created_timestamp, id) order by the shared
//! session loop (`rows::stream_by_session`).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, emit, epoch_time, id_of, opt_int, parse_column, pick_query, stream_by_session,
};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, ToolResult};

/// The tool name of a request Goose could not parse.
pub(crate) const UNPARSED: &str = "(unparsed request)";

pub(crate) struct Goose;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::GOOSE,
    agent: "Goose (Block)",
    product: "Goose",
    signature: "table `schema_version` and `messages` with `content_json` and `created_timestamp`",
    flag: "`toolResult.status = \"error\"` or MCP `isError = true` of the toolResponse; an unparsed toolRequest is a failed call",
    locations: &[Location::XdgData("goose/sessions/sessions.db")],
    sample: "goose.db",
};

/// Sessions, with their parent and start where this schema version records them.
const SESSIONS: &[(&[&str], &str)] = &[
    (&["parent_session_id", "created_at"], "SELECT id, parent_session_id, created_at FROM sessions"),
    (&["parent_session_id"], "SELECT id, parent_session_id, NULL FROM sessions"),
    (&["created_at"], "SELECT id, NULL, created_at FROM sessions"),
    (&[], "SELECT id, NULL, NULL FROM sessions"),
];

const ROWS: &str = "SELECT session_id, id, content_json, created_timestamp FROM messages \
                    ORDER BY session_id, created_timestamp, id";

impl Adapter for Goose {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("schema_version", &["version"])?
            && s.has("messages", &["id", "session_id", "content_json", "created_timestamp"])?)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let index = match pick_query(conn, "sessions", SESSIONS)? {
            Some(sql) => SessionIndex::load(conn, sql)?,
            None => SessionIndex::default(),
        };
        // Unparsed requests of the current session, whose results are failures.
        let mut unparsed: HashSet<String> = HashSet::new();
        let mut current = String::new();
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: ROWS };
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                if session.id != current {
                    unparsed.clear();
                    current.clone_from(&session.id);
                }
                let rowid = opt_int(r.get_ref(1)?).unwrap_or(0);
                let time = opt_int(r.get_ref(3)?).and_then(epoch_time);
                parse_column(r.get_ref(2)?, "content_json", rowid, session, |text, out| {
                    parse_content(text, time, rowid, &mut unparsed, out)
                });
                Ok(())
            },
            emit,
        )?;
        Ok(())
    }
}

/// The calls and results in one message's `content_json`, appended to `out`.
/// `unparsed` holds the ids of this session's requests Goose could not parse.
pub fn parse_content(
    content: &str,
    time: Option<DateTime<Utc>>,
    row: i64,
    unparsed: &mut HashSet<String>,
    out: &mut Vec<Event>,
) -> Result<(), String> {
    let value: Value = serde_json::from_str(content).map_err(|e| format!("content_json is invalid JSON: {e}"))?;
    let Value::Array(items) = value else { return Err("content_json is not a JSON array".into()) };
    for item in items {
        let Value::Object(mut item) = item else { continue };
        let id = id_of(item.get("id"));
        match item.get("type").and_then(Value::as_str) {
            Some("toolRequest" | "frontendToolRequest") => {
                let Some(Value::Object(mut call)) = item.remove("toolCall") else { continue };
                if call.get("status").and_then(Value::as_str) == Some("error") {
                    // The model's request could not be parsed: a failed call.
                    let text = call.get("error").and_then(Value::as_str).unwrap_or("").to_string();
                    out.push(Event::Call(Call {
                        id: id.clone(),
                        tool: UNPARSED.into(),
                        input: Value::Null.into(),
                        time,
                        row,
                        usage: None,
                    }));
                    out.push(Event::Result(ToolResult {
                        truncated: false,
                        call_id: id.clone(),
                        text,
                        flag: Some(true),
                        exit_code: None,
                        time,
                        row,
                    }));
                    unparsed.insert(id);
                    continue;
                }
                let mut value = match call.remove("value") {
                    Some(Value::Object(v)) => v,
                    _ => Default::default(),
                };
                let tool = value.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                let tool = tool.to_string();
                let input = value.remove("arguments").unwrap_or(Value::Null);
                out.push(Event::Call(Call { id, tool, input: input.into(), time, row, usage: None }));
            }
            Some("toolResponse") => {
                let result = item.get("toolResult").cloned().unwrap_or(Value::Null);
                let (text, flag) = response(&result);
                if unparsed.remove(&id) {
                    // Its failure is already recorded; keep the response's words.
                    let earlier = out.iter_mut().rev().find_map(|e| match e {
                        Event::Result(r) if r.call_id == id => Some(r),
                        _ => None,
                    });
                    if let Some(r) = earlier {
                        if !text.is_empty() {
                            r.text = text;
                        }
                        continue;
                    }
                }
                out.push(Event::Result(ToolResult {
                    truncated: false,
                    call_id: id,
                    text,
                    flag: Some(flag),
                    exit_code: None,
                    time,
                    row,
                }));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The text and flag of a `toolResult`, in all three shapes.
fn response(result: &Value) -> (String, bool) {
    match result.get("status").and_then(Value::as_str) {
        Some("error") => (result.get("error").and_then(Value::as_str).unwrap_or("").to_string(), true),
        _ => match result.get("value") {
            // Legacy: a bare array of content.
            Some(items @ Value::Array(_)) => (texts(items), false),
            Some(v) => {
                let flag = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
                (texts(v.get("content").unwrap_or(&Value::Null)), flag)
            }
            None => (String::new(), false),
        },
    }
}

/// The text items of MCP content, one per line.
fn texts(items: &Value) -> String {
    let Value::Array(items) = items else { return String::new() };
    let parts: Vec<&str> = items
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(items: &[&str]) -> Vec<Event> {
        let mut out = vec![];
        let mut unparsed = HashSet::new();
        for c in items {
            parse_content(c, None, 1, &mut unparsed, &mut out).unwrap();
        }
        out
    }

    fn results(ev: &[Event]) -> Vec<(String, String, Option<bool>)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some((r.call_id.clone(), r.text.clone(), r.flag)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn both_error_channels_and_the_legacy_shape() {
        let ev = parse(&[
            r#"[{"type":"toolRequest","id":"a","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]"#,
            r#"[{"type":"toolResponse","id":"a","toolResult":{"status":"error","error":"-32602: The path '/nope' does not exist"}},
                {"type":"toolResponse","id":"b","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"x"},{"type":"image","data":""},{"type":"text","text":"y"}],"isError":true}}},
                {"type":"toolResponse","id":"c","toolResult":{"status":"success","value":[{"type":"text","text":"legacy"}]}},
                {"type":"toolResponse","id":"d","toolResult":{"status":"success","value":{"content":[]}}}]"#,
        ]);
        assert!(matches!(&ev[0], Event::Call(c) if c.tool == "developer__shell" && c.input["command"] == "ls"));
        assert_eq!(
            results(&ev),
            vec![
                ("a".into(), "-32602: The path '/nope' does not exist".into(), Some(true)),
                ("b".into(), "x\ny".into(), Some(true)),
                ("c".into(), "legacy".into(), Some(false)),
                ("d".into(), String::new(), Some(false)),
            ]
        );
    }

    #[test]
    fn an_unparsed_request_is_a_failure_answered_once() {
        let ev = parse(&[
            r#"[{"type":"toolRequest","id":"m","toolCall":{"status":"error","error":"-32602: bad JSON"}}]"#,
            r#"[{"type":"toolResponse","id":"m","toolResult":{"status":"error","error":"-32602: could not parse the call"}}]"#,
        ]);
        assert_eq!(ev.len(), 2, "one call, one result");
        assert_eq!(results(&ev), vec![("m".into(), "-32602: could not parse the call".into(), Some(true))]);
        let ev = parse(&[r#"[{"type":"toolRequest","id":"n","toolCall":{"status":"error","error":"bad"}}]"#]);
        assert_eq!(results(&ev), vec![("n".into(), "bad".into(), Some(true))], "failed without a response too");
    }
}
