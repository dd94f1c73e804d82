//! Cursor's `state.vscdb` (experimental), in the VS Code-style user
//! directory (`~/.config/Cursor/User` on Linux).
//!
//! Cursor is closed source and its storage is known only from third-party
//! reverse engineering, so this reader is **experimental** and read only
//! when asked for by name (`--source-format cursor`): it is never detected
//! and its default locations are never scanned unasked.
//!
//! Only `cursorDiskKV` is read, and only its `bubbleId:` and
//! `composerData:` keys, each fetched by key range or by exact key (the
//! table's unique key index), so a file of several GB is streamed, never
//! loaded. `ItemTable` is never read: it holds authentication tokens.
//! Nothing but tool names, arguments and results is taken from a bubble.
//!
//! Agent-era bubbles (`bubbleId:<composer>:<bubble>`) carry at most one tool
//! call in `toolFormerData`: `name`, `toolCallId`, `rawArgs` (a JSON
//! string), `result` (a JSON string) and `status` (`completed`/`success`,
//! `error`, `cancelled`, `loading`); `userDecision = "rejected"` is a user's
//! refusal. A session is a composer; its bubbles are put in conversation
//! order (`composerData.fullConversationHeadersOnly`) when it is finished.
//! The terminal tool's `exitCodeV2` under `completed` is a hidden error,
//! read as the exit status.

use std::cell::RefCell;
use std::collections::HashMap;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::Value;

use super::rows::{SessionIndex, Stream, decode_arguments, iso_time, stream_by_session, text_of};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Malformed, Session, ToolResult, text_ends};

pub(crate) struct Cursor;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CURSOR,
    agent: "Cursor, experimental: reverse-engineered, read only with --source-format cursor",
    product: "Cursor",
    signature: "`cursorDiskKV` and `ItemTable` (a `state.vscdb` of the agent era); never detected: experimental, only with --source-format cursor",
    flag: "`toolFormerData.status = \"error\"` or `\"cancelled\"`, `userDecision = \"rejected\"`; a terminal command's \
           non-zero `exitCodeV2` under `completed` is not flagged",
    locations: &[
        Location::XdgConfig("Cursor/User/globalStorage/state.vscdb"),
        Location::Home("Library/Application Support/Cursor/User/globalStorage/state.vscdb"),
        Location::EnvDir("APPDATA", "Cursor/User/globalStorage/state.vscdb"),
    ],
    sample: "cursor.db",
};

/// The composers, by key only (the key index covers it: no value is read).
const SESSIONS: &str = "SELECT substr(key, 14), NULL, NULL FROM cursorDiskKV \
                        WHERE key >= 'composerData:' AND key < 'composerData;'";

/// The bubbles by key range, grouped by composer (`bubbleId:<composer>:<bubble>`).
const ROWS: &str = "SELECT substr(key, 10, instr(substr(key, 10), ':') - 1) AS composer, key, value, rowid \
                    FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;' ORDER BY key";

/// One composer's header list, for the order of its bubbles.
const COMPOSER: &str = "SELECT value FROM cursorDiskKV WHERE key = 'composerData:' || ?1";

impl Adapter for Cursor {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        // Column names only: ItemTable's rows are never read.
        Ok(s.has("cursorDiskKV", &["key", "value"])? && s.has("ItemTable", &["key", "value"])?)
    }

    fn unsupported(&self, s: &Schema<'_>) -> rusqlite::Result<Option<&'static str>> {
        Ok(self.matches(s)?.then_some(
            "looks like a Cursor state.vscdb; Cursor is read only when asked for: --source-format cursor (experimental)",
        ))
    }

    fn opt_in(&self) -> Option<&'static str> {
        Some("Cursor support is experimental: its storage is reverse-engineered and may have changed")
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let index = SessionIndex::load(conn, SESSIONS)?;
        // Each bubble's id and the position of its first event, for ordering.
        let bubbles: RefCell<Vec<(String, usize)>> = RefCell::new(Vec::new());
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: ROWS };
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                let key = text_of(r.get_ref(1)?);
                let row: i64 = r.get(3)?;
                let bubble = key.rsplit(':').next().unwrap_or("").to_string();
                bubbles.borrow_mut().push((bubble, session.events.len()));
                parse_bubble(r.get_ref(2)?, row, session);
                Ok(())
            },
            |mut session, cx| {
                let mut b = bubbles.borrow_mut();
                order(conn, &mut session, &b)?;
                b.clear();
                cx.emit(session);
                Ok(())
            },
        )?;
        Ok(())
    }
}

/// Put a composer's events in conversation order, where its header list
/// says it (bubbles it does not list keep their key order, at the end).
fn order(conn: &Connection, session: &mut Session, bubbles: &[(String, usize)]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(COMPOSER)?;
    let mut rows = stmt.query([&session.id])?;
    let Some(r) = rows.next()? else { return Ok(()) };
    let headers: Option<Value> = match r.get_ref(0)? {
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            super::json::check_size(b).ok().and_then(|()| serde_json::from_slice(b).ok())
        }
        _ => None,
    };
    let Some(list) = headers.as_ref().and_then(|h| h.get("fullConversationHeadersOnly")).and_then(Value::as_array)
    else {
        return Ok(());
    };
    let position: HashMap<&str, usize> = list
        .iter()
        .enumerate()
        .filter_map(|(i, h)| h.get("bubbleId").and_then(Value::as_str).map(|b| (b, i)))
        .collect();
    // Events grouped by bubble, the groups sorted by header position.
    let mut groups: Vec<(usize, usize, Vec<Event>)> = Vec::new();
    let mut events = std::mem::take(&mut session.events).into_iter();
    let mut taken = 0;
    for (i, (bubble, start)) in bubbles.iter().enumerate() {
        let end = bubbles.get(i + 1).map_or(usize::MAX, |b| b.1);
        debug_assert!(*start == taken);
        let group: Vec<Event> = events.by_ref().take(end.saturating_sub(*start)).collect();
        taken += group.len();
        groups.push((position.get(bubble.as_str()).copied().unwrap_or(usize::MAX), i, group));
    }
    groups.sort_by_key(|g| (g.0, g.1));
    session.events = groups.into_iter().flat_map(|g| g.2).collect();
    Ok(())
}

/// The fields of a bubble the reader uses.
#[derive(serde::Deserialize)]
struct Bubble {
    #[serde(rename = "toolFormerData", default)]
    tool_former_data: Option<Value>,
    #[serde(rename = "createdAt", default)]
    created_at: Option<Value>,
    #[serde(rename = "bubbleId", default)]
    bubble_id: Option<Value>,
}

/// The call and result of one bubble, if it carries a tool call.
fn parse_bubble(v: ValueRef<'_>, row: i64, session: &mut Session) {
    let bytes = match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => b,
        _ => return,
    };
    // Only the fields read are built: the rest of a bubble (its text, code
    // blocks, context; often megabytes) is parsed past, never kept.
    let parsed = super::json::check_size(bytes).map_err(|e| format!("bubble {e}")).and_then(|()| {
        serde_json::from_slice::<Option<Bubble>>(bytes).map_err(|e| format!("bubble is invalid JSON: {e}"))
    });
    let bubble: Bubble = match parsed {
        Ok(Some(b)) => b,
        Ok(None) => return,
        Err(problem) => {
            session.malformed.push(Malformed { row, problem, skipped: true, file: None });
            return;
        }
    };
    // Some values are JSON null; most bubbles have no tool call.
    let Some(tf) = bubble.tool_former_data.as_ref().filter(|t| t.is_object()) else { return };
    let time = bubble.created_at.as_ref().and_then(|t| match t {
        Value::String(s) => iso_time(s),
        Value::Number(n) => n.as_i64().and_then(super::rows::epoch_time),
        _ => None,
    });
    if time.is_some() && session.started.is_none() {
        session.started = time;
    }
    let id = tf
        .get("toolCallId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .or_else(|| bubble.bubble_id.as_ref().and_then(Value::as_str))
        .unwrap_or("")
        .to_string();
    // A bubble is a call only when it names a tool (by name, or by the
    // number of a built-in one): an ordinary text bubble can carry a
    // `toolFormerData` with only `additionalData` in it.
    let tool = match tf.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        Some(n) => n.to_string(),
        None => match tf.get("tool").and_then(Value::as_i64).filter(|&n| n > 0) {
            Some(n) => format!("tool-{n}"),
            None => return,
        },
    };
    let args = tf.get("rawArgs").filter(|a| !a.is_null()).or_else(|| tf.get("params")).cloned();
    let input = decode_arguments(args.unwrap_or(Value::Null));
    session.events.push(Event::Call(Call { id: id.clone(), tool, input: input.into(), time, row, usage: None }));

    let status = tf.get("status").and_then(Value::as_str).unwrap_or("");
    let rejected = tf.get("userDecision").and_then(Value::as_str) == Some("rejected");
    let flag = match status {
        // Still running when the state was saved: no result.
        "loading" if !rejected => return,
        "completed" | "success" => Some(rejected),
        "error" | "cancelled" => Some(true),
        "" => rejected.then_some(true),
        other => {
            let problem = format!("tool status {:?} unknown; read without a flag", crate::sanitize::one_line(other));
            session.malformed.push(Malformed { row, problem, skipped: false, file: None });
            rejected.then_some(true)
        }
    };
    let raw = match tf.get("result") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    };
    let parsed: Option<Value> = super::json::parse_bounded(&raw).ok();
    let exit_code =
        parsed.as_ref().and_then(|p| p.get("exitCodeV2").or_else(|| p.get("exitCode"))).and_then(Value::as_i64);
    let mut full = match parsed.as_ref().and_then(result_text) {
        Some(t) => t,
        None => raw,
    };
    if rejected {
        full = format!("rejected by user\n{full}");
    } else if status == "cancelled" {
        // The user stopped the run while the call was pending or running:
        // said in the words the classification reads (`user-rejected`).
        full = format!("cancelled by the user\n{full}");
    }
    let truncated = full.len() > 2 * crate::model::TEXT_CAP;
    let text = text_ends(&full).into_owned();
    session.events.push(Event::Result(ToolResult { call_id: id, text, truncated, flag, exit_code, time, row }));
}

/// The readable text of a tool's result JSON: its output or error, where
/// one of the usual fields holds it.
fn result_text(v: &Value) -> Option<String> {
    for k in ["error", "output", "contents", "content", "message"] {
        if let Some(Value::String(s)) = v.get(k) {
            return Some(s.clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bubble(v: &str) -> Session {
        let mut s = Session::default();
        parse_bubble(ValueRef::Text(v.as_bytes()), 3, &mut s);
        s
    }

    #[test]
    fn a_terminal_exit_code_under_completed() {
        let s = bubble(
            r#"{"_v":3,"type":2,"bubbleId":"b1","createdAt":"2026-04-06T10:00:00.000Z","toolFormerData":{"tool":15,"toolCallId":"toolu_1","name":"run_terminal_cmd","status":"completed","rawArgs":"{\"command\":\"npm test\"}","result":"{\"output\":\"1 failing\",\"exitCodeV2\":1,\"rejected\":false}"}}"#,
        );
        match (&s.events[0], &s.events[1]) {
            (Event::Call(c), Event::Result(r)) => {
                assert_eq!((c.tool.as_str(), &c.input["command"]), ("run_terminal_cmd", &Value::from("npm test")));
                assert_eq!((r.flag, r.exit_code, r.text.as_str()), (Some(false), Some(1), "1 failing"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn statuses_rejections_and_unknowns() {
        let flag = |status: &str, decision: &str| {
            let s = bubble(&format!(
                r#"{{"toolFormerData":{{"toolCallId":"t","name":"edit_file","status":"{status}","userDecision":"{decision}","result":"{{}}"}}}}"#
            ));
            let flag = s.events.iter().find_map(|e| match e {
                Event::Result(r) => Some(r.flag),
                _ => None,
            });
            (flag, s.malformed.len())
        };
        assert_eq!(flag("error", ""), (Some(Some(true)), 0));
        assert_eq!(flag("cancelled", ""), (Some(Some(true)), 0));
        assert_eq!(flag("success", ""), (Some(Some(false)), 0));
        assert_eq!(flag("completed", "rejected"), (Some(Some(true)), 0));
        assert_eq!(flag("loading", ""), (None, 0), "still running: no result");
        assert_eq!(flag("exploded", ""), (Some(None), 1));
        // A cancelled call reads as the user's stop, so it is classified so.
        let s = bubble(r#"{"toolFormerData":{"toolCallId":"t","name":"run_terminal_cmd","status":"cancelled"}}"#);
        let text = s.events.iter().find_map(|e| match e {
            Event::Result(r) => Some(r.text.clone()),
            _ => None,
        });
        let text = text.expect("a result");
        let reading = crate::rules::Reading::of(crate::model::Dialect::CURSOR, "run_terminal_cmd", &text);
        let rule = crate::rules::classify_result(&reading, None).map(|r| r.category.as_str());
        assert_eq!(rule, Some("user-rejected"), "{text:?}");
        assert!(bubble("null").events.is_empty());
        assert!(bubble(r#"{"type":1,"text":"hi"}"#).events.is_empty());
        assert_eq!(bubble("{oops").malformed.len(), 1);
    }

    /// Issue 21: an ordinary text bubble with a `toolFormerData` that names
    /// no tool (only `additionalData`) is not a call.
    #[test]
    fn bubbles_that_name_no_tool_are_not_calls() {
        let text = r#"{"type":2,"text":"Done.","toolFormerData":{"additionalData":{"status":"error"}}}"#;
        assert!(bubble(text).events.is_empty());
        assert!(bubble(r#"{"toolFormerData":{"tool":0,"status":"error"}}"#).events.is_empty());
        let numbered = bubble(r#"{"toolFormerData":{"tool":5,"toolCallId":"t1","status":"completed","result":"{}"}}"#);
        assert!(matches!(&numbered.events[0], Event::Call(c) if c.tool == "tool-5"));
    }

    /// Bubbles come in conversation order (the composer's header list),
    /// not in key order; bubbles no header lists come last.
    #[test]
    fn bubbles_follow_the_conversation() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            r#"CREATE TABLE cursorDiskKV (key TEXT UNIQUE, value BLOB);
               INSERT INTO cursorDiskKV VALUES ('composerData:c', '{"fullConversationHeadersOnly":[{"bubbleId":"b"},{"bubbleId":"a"}]}');"#,
        )
        .unwrap();
        let mut s = Session { id: "c".into(), ..Session::default() };
        let mut bubbles = Vec::new();
        for id in ["a", "b", "z"] {
            bubbles.push((id.to_string(), s.events.len()));
            let v =
                format!(r#"{{"toolFormerData":{{"toolCallId":"{id}","name":"t","status":"success","result":"ok"}}}}"#);
            parse_bubble(ValueRef::Text(v.as_bytes()), 1, &mut s);
        }
        order(&conn, &mut s, &bubbles).unwrap();
        let ids: Vec<&str> = s
            .events
            .iter()
            .map(|e| match e {
                Event::Call(c) => c.id.as_str(),
                Event::Result(r) => r.call_id.as_str(),
            })
            .collect();
        assert_eq!(ids, ["b", "b", "a", "a", "z", "z"]);
    }
}
