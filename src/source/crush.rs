//! Crush's `crush.db` (and the archived Go opencode's `opencode.db`, the
//! same shape), by default `./.crush/crush.db` in each project, migrated by
//! pressly/goose (hence its `goose_db_version` table).
//!
//! `messages.parts` is a JSON array of `{"type": …, "data": {…}}`. Calls are
//! `tool_call` parts of assistant messages, with their input a JSON document
//! *encoded as a string*; each result is a `tool_result` part of its own
//! `role = 'tool'` message, linked by `tool_call_id`, flagged by `is_error`.
//! Timestamps are Unix seconds. Sub-agent sessions name their parent in
//! `sessions.parent_session_id`; title-generation sessions (`title-…`) hold
//! no agent work and are skipped.
//!
//! Rows are read in (session, created_at, rowid) order by the shared
//! session loop (`rows::stream_by_session`).

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, decode_arguments, emit, epoch_time, id_of, opt_int, parse_column, stream_by_session,
};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, ToolResult};

pub(crate) struct Crush;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CRUSH,
    agent: "Crush, and the archived Go opencode",
    product: "Crush",
    signature: "`messages` with a `parts` column and `sessions` with `parent_session_id`",
    flag: "`is_error` of the `tool_result` part; bash exiting non-zero is not flagged (`Exit code N` in the text)",
    locations: &[Location::Cwd(".crush/crush.db"), Location::Cwd(".opencode/opencode.db")],
    sample: "crush.db",
};

const SESSIONS: &str = "SELECT id, parent_session_id, created_at FROM sessions";
const ROWS: &str = "SELECT session_id, rowid, parts, created_at FROM messages ORDER BY session_id, created_at, rowid";

impl Adapter for Crush {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("messages", &["session_id", "parts", "created_at"])?
            && s.has("sessions", &["id", "parent_session_id"])?)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        // Title-generation sessions hold no agent work.
        let index = SessionIndex::load(conn, SESSIONS)?.skipping(|id| id.starts_with("title-"));
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: ROWS };
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                let rowid: i64 = r.get(1)?;
                let time = opt_int(r.get_ref(3)?).and_then(epoch_time);
                parse_column(r.get_ref(2)?, "parts", rowid, session, |text, out| parse_parts(text, time, rowid, out));
                Ok(())
            },
            emit,
        )?;
        Ok(())
    }
}

/// The calls and results in one message's `parts`, appended to `out`.
pub fn parse_parts(parts: &str, time: Option<DateTime<Utc>>, row: i64, out: &mut Vec<Event>) -> Result<(), String> {
    let value: Value = serde_json::from_str(parts).map_err(|e| format!("parts is invalid JSON: {e}"))?;
    let Value::Array(parts) = value else { return Err("parts is not a JSON array".into()) };
    for part in parts {
        let Value::Object(mut part) = part else { continue };
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("").to_string();
        let Some(Value::Object(mut data)) = part.remove("data") else { continue };
        match kind.as_str() {
            "tool_call" => {
                let id = id_of(data.get("id"));
                let tool = data.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                let tool = tool.to_string();
                let input = decode_arguments(data.remove("input").unwrap_or(Value::Null));
                out.push(Event::Call(Call { id, tool, input: input.into(), time, row, usage: None }));
            }
            "tool_result" => {
                let call_id = id_of(data.get("tool_call_id"));
                let text = data.get("content").and_then(Value::as_str).unwrap_or("").to_string();
                let flag = data.get("is_error").and_then(Value::as_bool);
                out.push(Event::Result(ToolResult {
                    truncated: false,
                    call_id,
                    text,
                    flag,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_input_is_decoded_twice_and_results_keep_their_flag() {
        let mut ev = vec![];
        parse_parts(
            r#"[{"type":"text","data":{"text":"hi"}},
                {"type":"tool_call","data":{"id":"t1","name":"bash","input":"{\"command\":\"ls\"}","finished":true}},
                {"type":"tool_result","data":{"tool_call_id":"t1","name":"bash","content":"x\n\nExit code 1","is_error":false}},
                {"type":"finish","data":{"reason":"stop","time":0}}]"#,
            None,
            1,
            &mut ev,
        )
        .unwrap();
        assert_eq!(ev.len(), 2);
        match (&ev[0], &ev[1]) {
            (Event::Call(c), Event::Result(r)) => {
                assert_eq!(c.input["command"], "ls");
                assert_eq!((r.call_id.as_str(), r.flag), ("t1", Some(false)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_parts() {
        let mut ev = vec![];
        assert!(parse_parts("{", None, 1, &mut ev).is_err());
        assert!(parse_parts("{}", None, 1, &mut ev).is_err());
        parse_parts(
            r#"[1, {"type":"tool_call"}, {"type":"tool_call","data":{"id":"a","input":"{oops"}}]"#,
            None,
            1,
            &mut ev,
        )
        .unwrap();
        match &ev[0] {
            Event::Call(c) => assert_eq!((c.tool.as_str(), c.input.value().as_str()), ("(unnamed)", Some("{oops"))),
            other => panic!("{other:?}"),
        }
    }
}
