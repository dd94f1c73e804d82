//! What the SQLite adapters share: the session loop (`stream_by_session`)
//! with its session index, and readers of loosely typed columns, epoch
//! times in seconds or milliseconds, and JSON columns that may be malformed.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};
use serde_json::Value;

use super::{ReadContext, ReadError, ReadResult, columns};
use crate::model::{Dialect, Malformed, Session};

/// What a format's session table says about one session.
#[derive(Debug, Clone, Default)]
struct SessionInfo {
    parent: Option<String>,
    started: Option<DateTime<Utc>>,
    /// The dialect the table names for it (falseok's `sessions.agent`).
    dialect: Option<Dialect>,
    /// The file it was read from (falseok's `sessions.source`).
    origin: Option<String>,
}

/// A source's sessions by id, loaded once before its rows are streamed.
#[derive(Debug, Default)]
pub(crate) struct SessionIndex {
    sessions: HashMap<String, SessionInfo>,
    skip: Option<fn(&str) -> bool>,
}

impl SessionIndex {
    /// Load the sessions `sql` returns as `id, parent, started[, agent[,
    /// origin]]`: `started` in epoch seconds or milliseconds or ISO text,
    /// `agent` a dialect name, `origin` the file the session came from.
    pub(crate) fn load(conn: &Connection, sql: &str) -> rusqlite::Result<SessionIndex> {
        let mut stmt = conn.prepare(sql)?;
        let with_agent = stmt.column_count() > 3;
        let with_origin = stmt.column_count() > 4;
        let mut rows = stmt.query([])?;
        let mut index = SessionIndex::default();
        while let Some(r) = rows.next()? {
            let agent = if with_agent { r.get_ref(3)? } else { ValueRef::Null };
            let origin = if with_origin { r.get_ref(4)? } else { ValueRef::Null };
            index.insert(r.get_ref(0)?, r.get_ref(1)?, r.get_ref(2)?, agent, origin);
        }
        Ok(index)
    }

    /// Add the session `id` (a row of the query `load` reads, its missing
    /// columns NULL).
    pub(crate) fn insert(
        &mut self,
        id: ValueRef<'_>,
        parent: ValueRef<'_>,
        started: ValueRef<'_>,
        agent: ValueRef<'_>,
        origin: ValueRef<'_>,
    ) {
        let info = SessionInfo {
            parent: opt_text(parent),
            started: time_of(started),
            dialect: opt_text(agent).and_then(|a| Dialect::from_name(&a)),
            origin: opt_text(origin),
        };
        self.sessions.insert(text_of(id), info);
    }

    /// Sessions whose id `skip` accepts are never read (nor their rows).
    pub(crate) fn skipping(mut self, skip: fn(&str) -> bool) -> SessionIndex {
        self.skip = Some(skip);
        self
    }

    pub(crate) fn len(&self) -> usize {
        self.sessions.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Session `id`, empty, in `dialect` unless the index names another;
    /// `None` when it is not read (skipped, or not wanted by `cx`).
    pub(crate) fn open(&self, id: &str, dialect: Dialect, cx: &ReadContext<'_>) -> Option<Session> {
        if self.skip.is_some_and(|skip| skip(id)) {
            return None;
        }
        let info = self.sessions.get(id);
        let parent = info.and_then(|i| i.parent.clone());
        cx.wants(id, parent.is_some()).then(|| Session {
            id: id.to_string(),
            dialect: info.and_then(|i| i.dialect).unwrap_or(dialect),
            parent,
            started: info.and_then(|i| i.started),
            origin: info.and_then(|i| i.origin.clone()),
            ..Session::default()
        })
    }
}

/// The first of `queries` whose columns all exist in `table` (formats that
/// added columns over their versions); `None` when `table` does not exist.
/// A view in its place is refused, never read and never silently passed
/// over (a recursive view can run without end): Goose's `sessions` as a
/// view was read as if absent, its sessions' parents and starts lost.
pub(crate) fn pick_query(
    conn: &Connection,
    table: &str,
    queries: &[(&[&str], &'static str)],
) -> ReadResult<Option<&'static str>> {
    if !super::views_among(conn, &[table])?.is_empty() {
        return Err(ReadError::Unsupported(format!(
            "`{}` is a view here, where the format keeps a table: not read, since a view can run without end \
             (falseok reads tables)",
            crate::sanitize::one_line(table)
        )));
    }
    let have = columns(conn, table)?;
    if have.is_empty() {
        return Ok(None);
    }
    Ok(queries.iter().find(|(cols, _)| cols.iter().all(|c| have.iter().any(|h| h == c))).map(|(_, q)| *q))
}

/// The rows of a format that stores one event (or one message) per row.
pub(crate) struct Stream<'a> {
    /// The dialect of its sessions, unless the index names another.
    pub dialect: Dialect,
    pub index: &'a SessionIndex,
    /// The rows, ordered by session; column 0 is the session id.
    pub sql: &'a str,
}

/// The session loop, written once: the rows of `stream` are read in order;
/// each session is opened from the index at its first row (or skipped with
/// its rows), filled by `parse` row by row, and handed to `done` when the
/// next session begins, so only one session is in memory. Progress is
/// counted in sessions when the index knows how many there are.
pub(crate) fn stream_by_session<'a>(
    conn: &Connection,
    cx: &mut ReadContext<'a>,
    stream: Stream<'_>,
    mut parse: impl FnMut(&Row<'_>, &mut Session) -> rusqlite::Result<()>,
    mut done: impl FnMut(Session, &mut ReadContext<'a>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    if !stream.index.is_empty() {
        cx.expect_sessions(stream.index.len() as u64);
    }
    let mut stmt = conn.prepare(stream.sql)?;
    let mut rows = stmt.query([])?;
    let mut id: Option<String> = None;
    let mut current: Option<Session> = None;
    while let Some(r) = rows.next()? {
        cx.row();
        let this = r.get_ref(0)?;
        if !id.as_deref().is_some_and(|id| same_text(this, id)) {
            if let Some(s) = current.take() {
                done(s, cx)?;
            }
            if id.is_some() {
                cx.session_done();
            }
            let new = text_of(this);
            current = stream.index.open(&new, stream.dialect, cx);
            id = Some(new);
        }
        if let Some(session) = current.as_mut() {
            parse(r, session)?;
        }
    }
    if let Some(s) = current.take() {
        done(s, cx)?;
    }
    if id.is_some() {
        cx.session_done();
    }
    Ok(())
}

/// The `done` of sources whose sessions are finished when their rows are.
pub(crate) fn emit(session: Session, cx: &mut ReadContext<'_>) -> rusqlite::Result<()> {
    cx.emit(session);
    Ok(())
}

/// Is the column `v` the text `id` (as `text_of` would read it)?
fn same_text(v: ValueRef<'_>, id: &str) -> bool {
    match v {
        ValueRef::Text(t) => t == id.as_bytes(),
        v => text_of(v) == id,
    }
}

/// A column as text, whatever SQLite type it has (NULL is empty).
pub(crate) fn text_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// Parse a JSON text column of one row into `session`'s events with
/// `parse`; a parse error, a document past `json::MAX_JSON_VALUES`, or a
/// column that is not text, becomes a skipped `Malformed` row (`column`
/// names it in the problem).
pub(crate) fn parse_column(
    v: ValueRef<'_>,
    column: &str,
    row: i64,
    session: &mut Session,
    parse: impl FnOnce(&str, &mut Vec<crate::model::Event>) -> Result<(), String>,
) {
    let problem = match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            match super::json::check_size(b).and_then(|()| parse(&String::from_utf8_lossy(b), &mut session.events)) {
                Ok(()) => return,
                Err(problem) => problem,
            }
        }
        _ => format!("{column} is not JSON text"),
    };
    session.malformed.push(Malformed { row, problem, skipped: true, file: None });
}

/// A column as text, `None` for NULL or empty.
pub(crate) fn opt_text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        v => Some(text_of(v)).filter(|s| !s.is_empty()),
    }
}

/// A column as an integer, if it is one (or numeric text).
/// A token count as a column holds it: an integer or a float, zero or more
/// (a float is cut); anything else is none.
pub(crate) fn opt_count(v: ValueRef<'_>) -> Option<u64> {
    match v {
        ValueRef::Integer(n) => u64::try_from(n).ok(),
        ValueRef::Real(f) if f.is_finite() && f >= 0.0 => Some(f as u64),
        _ => None,
    }
}

/// An amount of dollars as a column holds it: a number, zero or more.
pub(crate) fn opt_dollars(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Real(f) if f.is_finite() && f >= 0.0 => Some(f),
        ValueRef::Integer(n) if n >= 0 => Some(n as f64),
        _ => None,
    }
}

pub(crate) fn opt_int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) => Some(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A time column: epoch seconds or milliseconds (a number, or digits as
/// text), or ISO-8601 text.
pub(crate) fn time_of(v: ValueRef<'_>) -> Option<DateTime<Utc>> {
    match v {
        ValueRef::Integer(_) | ValueRef::Real(_) => opt_int(v).and_then(epoch_time),
        ValueRef::Text(_) => opt_int(v).map_or_else(|| opt_text(v).and_then(|t| iso_time(&t)), epoch_time),
        _ => None,
    }
}

/// Unix epoch seconds or milliseconds (Crush documents milliseconds and
/// stores seconds): values beyond the year 5000 in seconds are milliseconds.
pub(crate) fn epoch_time(n: i64) -> Option<DateTime<Utc>> {
    if n <= 0 {
        return None;
    }
    if n >= 100_000_000_000 { DateTime::from_timestamp_millis(n) } else { DateTime::from_timestamp(n, 0) }
}

/// An ISO-8601 / RFC 3339 time, with or without an offset (then UTC).
pub(crate) fn iso_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(s, f).ok())
        .map(|n| n.and_utc())
}

/// A JSON id as a string (ids are strings, sometimes numbers).
pub(crate) fn id_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Arguments stored as a JSON document inside a JSON string are decoded a
/// second time; text that is not JSON stays a string (malformed arguments).
pub(crate) fn decode_arguments(v: Value) -> Value {
    match v {
        Value::String(s) => super::json::arguments(s),
        v => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_milliseconds() {
        let s = epoch_time(1_756_720_801).unwrap();
        let ms = epoch_time(1_756_720_801_000).unwrap();
        assert_eq!(s, ms);
        assert_eq!(s.to_rfc3339(), "2025-09-01T10:00:01+00:00");
        assert!(epoch_time(0).is_none());
    }

    #[test]
    fn iso_times() {
        let t = iso_time("2025-09-01T10:00:00.123456+00:00").unwrap();
        assert_eq!(t.timestamp_millis(), 1_756_720_800_123);
        assert_eq!(iso_time("2025-09-01 10:00:00").unwrap().timestamp(), 1_756_720_800);
        assert!(iso_time("yesterday").is_none());
        let text = |t: &str| time_of(ValueRef::Text(t.as_bytes())).map(|t| t.timestamp());
        assert_eq!(text("1756720800"), Some(1_756_720_800));
        assert_eq!(text("2025-09-01T10:00:00Z"), Some(1_756_720_800));
        assert_eq!(time_of(ValueRef::Integer(1_756_720_800_000)).map(|t| t.timestamp()), Some(1_756_720_800));
        assert_eq!(time_of(ValueRef::Null), None);
    }

    #[test]
    fn double_encoded_arguments() {
        assert_eq!(decode_arguments(Value::String("{\"a\":1}".into()))["a"], 1);
        assert_eq!(decode_arguments(Value::String("{bad".into())), Value::String("{bad".into()));
        assert_eq!(decode_arguments(serde_json::json!({"a": 2}))["a"], 2);
    }
}
