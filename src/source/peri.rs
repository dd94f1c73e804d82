//! Peri Code's `threads.db` (research/peri.md §1): one `threads` row per
//! session (sub-agents link to their parent), one `messages` row per message,
//! the whole serialized message as JSON in `messages.content`.
//!
//! Rows are read once, in storage (rowid) order, inside one read
//! transaction. A session is handed on as soon as its last row is read, so
//! memory holds only the sessions that are still open at that point.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use super::open::sqlite_problem;
use super::{SourceOptions, SourceStats, columns};
use crate::error::{Error, Result};
use crate::model::{Call, Event, Malformed, Session, ToolResult};

struct ThreadInfo {
    parent: Option<String>,
    started: Option<DateTime<Utc>>,
}

pub fn read(
    path: &Path,
    conn: &Connection,
    opts: &SourceOptions,
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    let sql = |e: rusqlite::Error| Error::input(path, sqlite_problem(&e));
    // One snapshot for every query below, even if Peri is writing.
    conn.execute_batch("BEGIN").map_err(sql)?;
    let threads = read_threads(conn).map_err(sql)?;

    let mut last_row: HashMap<String, i64> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT thread_id, max(rowid) FROM messages GROUP BY thread_id").map_err(sql)?;
        let mut rows = stmt.query([]).map_err(sql)?;
        while let Some(r) = rows.next().map_err(sql)? {
            last_row.insert(text_of(r.get_ref(0).map_err(sql)?), r.get(1).map_err(sql)?);
        }
    }

    let mut open: HashMap<String, Session> = HashMap::new();
    let mut stats = SourceStats::default();
    let mut stmt = conn.prepare("SELECT rowid, thread_id, role, content FROM messages ORDER BY rowid").map_err(sql)?;
    let mut rows = stmt.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        stats.rows += 1;
        let rowid: i64 = r.get(0).map_err(sql)?;
        let thread = text_of(r.get_ref(1).map_err(sql)?);
        let info = threads.get(&thread);
        let parent = info.and_then(|t| t.parent.clone());
        if !opts.wants(&thread, parent.is_some()) {
            continue;
        }
        let session = open.entry(thread.clone()).or_insert_with(|| Session {
            id: thread.clone(),
            format: "peri",
            parent,
            started: info.and_then(|t| t.started),
            ..Session::default()
        });
        let role = text_of(r.get_ref(2).map_err(sql)?);
        match r.get_ref(3).map_err(sql)? {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                let content = String::from_utf8_lossy(bytes);
                match parse_message(&content, &role, rowid, &mut session.events) {
                    Ok(false) => {}
                    Ok(true) => session.malformed.push(Malformed {
                        row: rowid,
                        problem: "lone UTF-16 surrogate escapes replaced by U+FFFD".into(),
                        skipped: false,
                    }),
                    Err(problem) => session.malformed.push(Malformed { row: rowid, problem, skipped: true }),
                }
            }
            other => session.malformed.push(Malformed {
                row: rowid,
                problem: format!("content is {}, not JSON text", type_name(other)),
                skipped: true,
            }),
        }
        if last_row.get(&thread) == Some(&rowid)
            && let Some(done) = open.remove(&thread)
        {
            sink(done);
        }
    }
    drop(rows);
    drop(stmt);
    // Only reachable if the grouped query and the scan disagree; hand on
    // what was read rather than lose it, in a stable order.
    let mut rest: Vec<Session> = open.into_values().collect();
    rest.sort_by(|a, b| a.id.cmp(&b.id));
    rest.into_iter().for_each(&mut *sink);
    conn.execute_batch("COMMIT").map_err(sql)?;
    Ok(stats)
}

fn read_threads(conn: &Connection) -> rusqlite::Result<HashMap<String, ThreadInfo>> {
    let cols = columns(conn, "threads")?;
    let has = |c: &str| cols.iter().any(|x| x == c);
    let query = match (has("parent_thread_id"), has("created_at")) {
        (true, true) => "SELECT id, parent_thread_id, created_at FROM threads",
        (true, false) => "SELECT id, parent_thread_id, NULL FROM threads",
        (false, true) => "SELECT id, NULL, created_at FROM threads",
        (false, false) => "SELECT id, NULL, NULL FROM threads",
    };
    let mut stmt = conn.prepare(query)?;
    let mut rows = stmt.query([])?;
    let mut out = HashMap::new();
    while let Some(r) = rows.next()? {
        let id = text_of(r.get_ref(0)?);
        let parent = match r.get_ref(1)? {
            ValueRef::Null => None,
            v => Some(text_of(v)).filter(|p| !p.is_empty()),
        };
        let started = match r.get_ref(2)? {
            ValueRef::Text(t) => std::str::from_utf8(t)
                .ok()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                .map(|d| d.with_timezone(&Utc)),
            _ => None,
        };
        out.insert(id, ThreadInfo { parent, started });
    }
    Ok(out)
}

fn text_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

fn type_name(v: ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "an integer",
        ValueRef::Real(_) => "a real",
        ValueRef::Text(_) => "text",
        ValueRef::Blob(_) => "a blob",
    }
}

/// Turn one stored message into calls and results, appended to `out`.
/// `Err` is a one-line description of why the row cannot be read.
/// `Ok(true)` means the row was read after a repair (lone surrogates).
pub fn parse_message(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Result<bool, String> {
    let (value, repaired) = super::json::parse_lossy(content).map_err(|e| format!("invalid JSON: {e}"))?;
    let Some(mut msg) = as_object(value) else {
        return Err("message is not a JSON object".into());
    };
    // The V1 envelope of later Peri versions: {"version":1,"type":"message","message":…}.
    if !msg.contains_key("role") && (msg.contains_key("version") || msg.contains_key("type")) {
        match msg.get("version").and_then(Value::as_i64) {
            Some(1) => {}
            Some(v) => return Err(format!("unsupported envelope version {v}")),
            None => return Err("envelope without a version".into()),
        }
        if msg.get("type").and_then(Value::as_str) != Some("message") {
            return Ok(repaired); // system reminders and other records carry no calls
        }
        match msg.remove("message").and_then(as_object) {
            Some(inner) => msg = inner,
            None => return Err("envelope without a message object".into()),
        }
    }
    let role = msg.get("role").and_then(Value::as_str).unwrap_or(role_column).to_string();
    let time = msg.get("id").and_then(Value::as_str).and_then(uuid_v7_time);

    if role == "tool" {
        let call_id = match msg.get("tool_call_id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err("tool message without tool_call_id".into()),
        };
        let flag = msg.get("is_error").and_then(Value::as_bool).unwrap_or(false);
        let text = content_text(msg.get("content").unwrap_or(&Value::Null));
        out.push(Event::Result(ToolResult { call_id, text, flag: Some(flag), exit_code: None, time, row }));
        return Ok(repaired);
    }

    let mut seen: Vec<String> = Vec::new();
    if let Some(Value::Array(blocks)) = msg.get_mut("content") {
        for block in blocks.iter_mut() {
            let Some(b) = block.as_object_mut() else { continue };
            match b.get("type").and_then(Value::as_str) {
                Some("tool_use") if role == "assistant" => {
                    let id = id_of(b.get("id"));
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                    let input = b.remove("input").unwrap_or(Value::Null);
                    seen.push(id.clone());
                    out.push(Event::Call(make_call(id, name, input, time, row)));
                }
                Some("tool_result") => {
                    let call_id = id_of(b.get("tool_use_id"));
                    let flag = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                    let text = content_text(b.get("content").unwrap_or(&Value::Null));
                    out.push(Event::Result(ToolResult { call_id, text, flag: Some(flag), exit_code: None, time, row }));
                }
                _ => {}
            }
        }
    }
    if role == "assistant"
        && let Some(Value::Array(mirror)) = msg.get_mut("tool_calls")
    {
        for c in mirror.iter_mut() {
            let Some(c) = c.as_object_mut() else { continue };
            let id = id_of(c.get("id"));
            if seen.contains(&id) {
                continue;
            }
            let name = c.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = match c.remove("arguments").unwrap_or(Value::Null) {
                // Some providers keep arguments as a JSON string.
                Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                v => v,
            };
            seen.push(id.clone());
            out.push(Event::Call(make_call(id, name, input, time, row)));
        }
    }
    Ok(repaired)
}

fn as_object(v: Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

fn id_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Peri's `ExecuteExtraTool` runs a deferred tool: count the call under the
/// real tool's name, with the real tool's arguments.
fn make_call(id: String, name: String, input: Value, time: Option<DateTime<Utc>>, row: i64) -> Call {
    if name == "ExecuteExtraTool"
        && let Some(real) = input.get("tool_name").and_then(Value::as_str).filter(|s| !s.is_empty())
    {
        let tool = real.to_string();
        let params = input.get("params").cloned().unwrap_or(Value::Null);
        return Call { id, tool, input: params, time, row };
    }
    let tool = if name.is_empty() { "(unnamed)".to_string() } else { name };
    Call { id, tool, input, time, row }
}

/// The text of a `MessageContent`: a string, or the text of its blocks.
pub fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => {
            let mut out = String::new();
            for item in items {
                let piece = match item {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("text").and_then(Value::as_str),
                    _ => None,
                };
                if let Some(p) = piece {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(p);
                }
            }
            out
        }
        Value::Object(o) => match o.get("text").and_then(Value::as_str) {
            Some(t) => t.to_string(),
            None => v.to_string(),
        },
        other => other.to_string(),
    }
}

/// The time embedded in a UUID v7 (its first 48 bits are Unix milliseconds).
pub fn uuid_v7_time(id: &str) -> Option<DateTime<Utc>> {
    let b = id.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[14] != b'7' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let hex = [&id[0..8], &id[9..13]].concat();
    let ms = i64::from_str_radix(&hex, 16).ok()?;
    DateTime::from_timestamp_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(json: &str) -> Vec<Event> {
        let mut out = vec![];
        parse_message(json, "assistant", 1, &mut out).unwrap();
        out
    }

    fn calls(ev: &[Event]) -> Vec<(&str, &str)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Call(c) => Some((c.id.as_str(), c.tool.as_str())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn blocks_and_mirror_are_deduplicated() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"reasoning","text":"hm"},
            {"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/a"}}],
            "tool_calls":[{"id":"a","name":"Read","arguments":{"file_path":"/a"}},
                          {"id":"b","name":"Bash","arguments":"{\"command\":\"ls\"}"}]}"#,
        );
        assert_eq!(calls(&ev), vec![("a", "Read"), ("b", "Bash")]);
        match &ev[1] {
            Event::Call(c) => assert_eq!(c.input["command"], "ls", "string arguments are decoded"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn mirror_only_with_plain_string_content() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":"thinking","tool_calls":[{"id":"q","name":"Grep","arguments":{"pattern":"x"}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("q", "Grep")]);
    }

    #[test]
    fn tool_rows_and_missing_flag() {
        let ev = events(r#"{"role":"tool","id":"r","tool_call_id":"a","content":"Error: x"}"#);
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!(r.flag, Some(false), "absent is_error means false");
                assert_eq!(r.text, "Error: x");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"tool","id":"r","tool_call_id":"a","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}"#,
        );
        match &ev[0] {
            Event::Result(r) => assert_eq!((r.text.as_str(), r.flag), ("a\nb", Some(true))),
            _ => panic!(),
        }
    }

    #[test]
    fn anthropic_tool_result_blocks() {
        let ev = events(
            r#"{"role":"user","id":"u","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"Error: no"}],"is_error":true}]}"#,
        );
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!((r.call_id.as_str(), r.text.as_str(), r.flag), ("a", "Error: no", Some(true)))
            }
            _ => panic!(),
        }
    }

    #[test]
    fn execute_extra_tool_is_resolved() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{"tool_name":"AgentResult","params":{"task_id":"t1"}}}]}"#,
        );
        match &ev[0] {
            Event::Call(c) => {
                assert_eq!(c.tool, "AgentResult");
                assert_eq!(c.input["task_id"], "t1");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("e", "ExecuteExtraTool")]);
    }

    #[test]
    fn envelope_v1() {
        let ev = events(
            r#"{"version":1,"type":"message","message":{"role":"tool","id":"r","tool_call_id":"a","content":"ok","is_error":false}}"#,
        );
        assert_eq!(ev.len(), 1);
        assert!(events(r#"{"version":1,"type":"system_reminder","id":"x","reminder":{}}"#).is_empty());
        let mut out = vec![];
        let err = parse_message(r#"{"version":2,"type":"message","message":{}}"#, "tool", 1, &mut out).unwrap_err();
        assert!(err.contains("version 2"), "{err}");
    }

    #[test]
    fn malformed_rows_are_described() {
        let mut out = vec![];
        assert!(parse_message("{not json", "tool", 1, &mut out).unwrap_err().starts_with("invalid JSON"));
        assert!(parse_message("[1,2]", "tool", 1, &mut out).is_err());
        assert!(parse_message(r#"{"role":"tool","content":"x"}"#, "tool", 1, &mut out).is_err());
        let deep = "[".repeat(100_000);
        assert!(parse_message(&deep, "tool", 1, &mut out).is_err(), "deep nesting is an error, not a crash");
    }

    #[test]
    fn uuid_v7_times() {
        let t = uuid_v7_time("019e9069-e494-70c6-a6a3-a4506513270e").unwrap();
        assert_eq!(t.timestamp_millis(), 0x019e9069e494);
        assert!(uuid_v7_time("019e9069-e494-40c6-a6a3-a4506513270e").is_none(), "v4 has no time");
        assert!(uuid_v7_time("nonsense").is_none());
    }
}
