//! opencode ≥ 1.2 (`opencode.db`): v1.2.0 (2026-02-14) moved opencode from
//! per-file JSON storage to this one database under `$XDG_DATA_HOME/opencode`.
//!
//! One `part` row of type `tool` holds a call *and* its result: `state`
//! says where the call is (`pending`, `running`, `completed`, `error`).
//! `error` is the flag; a completed bash call keeps its exit status in
//! `state.metadata.exit`, which the exit-code rule reads. Pending and
//! running parts never got a result: they are unpaired calls. Times are
//! epoch milliseconds; sub-agent sessions name their parent in
//! `session.parent_id`.
//!
//! Parts are read in (session, message, part) id order (ids are
//! time-ascending) by the shared session loop (`rows::stream_by_session`).
//!
//! A family: its forks (`kilo`) keep opencode's schema and are read by its
//! reader (`read_as`), judged as their own dialect. A fork's databases have
//! opencode's tables too, so opencode claims a database only when none of
//! its forks (`FORKS`) does: the one place the family is told apart.
//! Adding a fork is a file here, a row in `FORKS` and one in `ADAPTERS`.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, emit, epoch_time, id_of, opt_count, opt_dollars, opt_int, opt_text, parse_column,
    stream_by_session,
};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, ToolResult, Usage};

pub(crate) mod kilo;

pub(crate) struct Opencode;

/// opencode's forks: each matches opencode's tables and a mark of its own
/// (Kilo: the file's name), and its databases are its own, not opencode's.
static FORKS: &[&dyn Adapter] = &[&kilo::Kilo];

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::OPENCODE,
    agent: "opencode 1.2 or later",
    product: "opencode",
    signature: "tables `session(id, parent_id)`, `message(id, session_id, data)` and `part(id, message_id, session_id, time_created, data)`",
    flag: "`state.status = \"error\"` of the tool part; a completed bash call keeps its exit status in `state.metadata.exit`",
    locations: &[Location::XdgData("opencode/opencode.db")],
    sample: "opencode.db",
};

const SESSIONS: &str = "SELECT id, parent_id, time_created FROM session";
/// Only parts that can be tool parts; the JSON is checked in Rust, so a
/// malformed row cannot abort the query.
const ROWS: &str = "SELECT p.session_id, p.rowid, p.time_created, p.data, p.message_id, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.modelID') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.tokens.input') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.tokens.output') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.tokens.reasoning') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.tokens.cache.read') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.tokens.cache.write') END, \
                    CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.cost') END \
                    FROM part p LEFT JOIN message m ON m.id = p.message_id \
                    WHERE instr(p.data, '\"tool\"') > 0 ORDER BY p.session_id, p.message_id, p.id";

impl Adapter for Opencode {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// opencode's tables, in a database none of its forks claims.
    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        if !has_tables(s)? {
            return Ok(false);
        }
        for fork in FORKS {
            if fork.matches(s)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn forced(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        has_tables(s)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        read_as(INFO.dialect, conn, cx)
    }
}

/// Does the database have opencode's tables (which Kilo's has too)?
pub(crate) fn has_tables(s: &Schema<'_>) -> rusqlite::Result<bool> {
    Ok(s.has("session", &["id", "parent_id"])?
        && s.has("message", &["id", "session_id", "data"])?
        && s.has("part", &["id", "message_id", "session_id", "time_created", "data"])?)
}

/// Read an opencode-schema database, its sessions judged as `dialect`'s.
pub(crate) fn read_as(dialect: Dialect, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    let index = SessionIndex::load(conn, SESSIONS)?;
    let stream = Stream { dialect, index: &index, sql: ROWS };
    stream_by_session(
        conn,
        cx,
        stream,
        |r, session| {
            let rowid: i64 = r.get(1)?;
            let created = opt_int(r.get_ref(2)?).and_then(epoch_time);
            let before = session.events.len();
            parse_column(r.get_ref(3)?, "data", rowid, session, |text, out| parse_part(text, created, rowid, out));
            if let Some(u) = message_usage(r)? {
                let u = std::sync::Arc::new(u);
                for e in &mut session.events[before..] {
                    if let Event::Call(c) = e {
                        c.usage = Some(u.clone());
                    }
                }
            }
            Ok(())
        },
        emit,
    )?;
    Ok(())
}

/// The usage opencode records on the assistant message of a part (columns
/// 4 to 11 of `ROWS`): `tokens` (`input` without the cache, `output`
/// without `reasoning`, billed as output) and `cost` in dollars, the
/// message's id its response's.
fn message_usage(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<Usage>> {
    let count = |i: usize| r.get_ref(i).map(opt_count);
    let [input, output, reasoning, read, write] = [count(6)?, count(7)?, count(8)?, count(9)?, count(10)?];
    let cost = opt_dollars(r.get_ref(11)?);
    if input.is_none() && output.is_none() && cost.is_none() {
        return Ok(None);
    }
    let reasoning = reasoning.unwrap_or(0);
    Ok(Some(Usage {
        response: opt_text(r.get_ref(4)?).unwrap_or_default(),
        model: opt_text(r.get_ref(5)?).filter(|m| !m.is_empty()),
        input: input.unwrap_or(0),
        output: output.unwrap_or(0).saturating_add(reasoning),
        cache_read: read.unwrap_or(0),
        cache_write: write.unwrap_or(0),
        reasoning,
        cost,
    }))
}

/// The call (and result, once the call has finished) of one part's `data`.
pub fn parse_part(data: &str, created: Option<DateTime<Utc>>, row: i64, out: &mut Vec<Event>) -> Result<(), String> {
    let value: Value = serde_json::from_str(data).map_err(|e| format!("data is invalid JSON: {e}"))?;
    let Value::Object(mut part) = value else { return Err("data is not a JSON object".into()) };
    if part.get("type").and_then(Value::as_str) != Some("tool") {
        return Ok(());
    }
    let id = id_of(part.get("callID"));
    let tool = part.get("tool").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)").to_string();
    let Some(Value::Object(mut state)) = part.remove("state") else {
        return Err("tool part without a state object".into());
    };
    let ms = |v: Option<&Value>| v.and_then(Value::as_i64).and_then(epoch_time);
    let start = ms(state.get("time").and_then(|t| t.get("start"))).or(created);
    let end = ms(state.get("time").and_then(|t| t.get("end"))).or(start);
    let input = state.remove("input").unwrap_or(Value::Null);
    out.push(Event::Call(Call { id: id.clone(), tool, input: input.into(), time: start, row, usage: None }));
    let text = |k: &str| state.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let result = match state.get("status").and_then(Value::as_str) {
        Some("completed") => {
            let exit_code = state.get("metadata").and_then(|m| m.get("exit")).and_then(Value::as_i64);
            ToolResult {
                truncated: false,
                call_id: id,
                text: text("output"),
                flag: Some(false),
                exit_code,
                time: end,
                row,
            }
        }
        Some("error") => ToolResult {
            truncated: false,
            call_id: id,
            text: text("error"),
            flag: Some(true),
            exit_code: None,
            time: end,
            row,
        },
        // pending, running: the call never finished.
        Some(_) => return Ok(()),
        None => return Err("tool state without a status".into()),
    };
    out.push(Event::Result(result));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(data: &str) -> Vec<Event> {
        let mut ev = vec![];
        parse_part(data, None, 1, &mut ev).unwrap();
        ev
    }

    #[test]
    fn states() {
        let done = parse(
            r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"completed","input":{"command":"make"},
               "output":"boom","title":"make","metadata":{"exit":2},"time":{"start":1771000000000,"end":1771000001000}}}"#,
        );
        match &done[..] {
            [Event::Call(c), Event::Result(r)] => {
                assert_eq!(c.time.unwrap().timestamp(), 1_771_000_000);
                assert_eq!((r.flag, r.exit_code, r.text.as_str()), (Some(false), Some(2), "boom"));
            }
            other => panic!("{other:?}"),
        }
        let err = parse(
            r#"{"type":"tool","callID":"c2","tool":"read","state":{"status":"error","input":{},"error":"nope"}}"#,
        );
        assert!(matches!(&err[1], Event::Result(r) if r.flag == Some(true) && r.text == "nope"));
        let running = parse(r#"{"type":"tool","callID":"c3","tool":"bash","state":{"status":"running","input":{}}}"#);
        assert_eq!(running.len(), 1, "a running call has no result");
        assert!(parse(r#"{"type":"text","text":"\"tool\""}"#).is_empty());
    }

    /// A database of the family's schema is a fork's when the fork's mark
    /// is on it (Kilo: its name), else opencode's: the parent steps aside
    /// for each of its `FORKS`, so no database is claimed by two.
    #[test]
    fn the_parent_steps_aside_for_its_forks() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE session (id, parent_id); CREATE TABLE message (id, session_id, data);
             CREATE TABLE part (id, message_id, session_id, time_created, data);",
        )
        .unwrap();
        for (name, want) in
            [("opencode.db", "opencode"), ("copy.db", "opencode"), ("kilo.db", "kilo"), ("kilo-dev.db", "kilo")]
        {
            let path = std::path::Path::new("/nowhere").join(name);
            let schema = Schema::at(&conn, &path);
            let claims: Vec<&str> = std::iter::once(&Opencode as &dyn Adapter)
                .chain(FORKS.iter().copied())
                .filter(|a| a.matches(&schema).unwrap())
                .map(|a| a.info().name())
                .collect();
            assert_eq!(claims, [want], "{name}");
            assert_eq!(crate::source::detect(&path, &conn).unwrap().as_str(), want, "{name}");
        }
    }

    #[test]
    fn malformed() {
        let mut ev = vec![];
        assert!(parse_part("{", None, 1, &mut ev).is_err());
        assert!(parse_part(r#"{"type":"tool","callID":"x"}"#, None, 1, &mut ev).is_err());
    }
}
