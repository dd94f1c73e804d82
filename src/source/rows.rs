//! Helpers the SQLite adapters share: reading loosely typed columns, epoch
//! times in seconds or milliseconds, and handing sessions on as soon as the
//! rows of one session (read in session order) are done.

use chrono::{DateTime, Utc};
use rusqlite::types::ValueRef;
use serde_json::Value;

use crate::model::Session;

/// A column as text, whatever SQLite type it has (NULL is empty).
pub fn text_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// Parse a JSON text column of one row into `session`'s events with
/// `parse`; a parse error, or a column that is not text, becomes a skipped
/// `Malformed` row (`column` names it in the problem).
pub fn parse_column(
    v: ValueRef<'_>,
    column: &str,
    row: i64,
    session: &mut Session,
    parse: impl FnOnce(&str, &mut Vec<crate::model::Event>) -> Result<(), String>,
) {
    let problem = match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => match parse(&String::from_utf8_lossy(b), &mut session.events) {
            Ok(()) => return,
            Err(problem) => problem,
        },
        _ => format!("{column} is not JSON text"),
    };
    session.malformed.push(crate::model::Malformed { row, problem, skipped: true });
}

/// A column as text, `None` for NULL or empty.
pub fn opt_text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        v => Some(text_of(v)).filter(|s| !s.is_empty()),
    }
}

/// A column as an integer, if it is one (or numeric text).
pub fn opt_int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) => Some(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Unix epoch seconds or milliseconds (Crush documents milliseconds and
/// stores seconds): values beyond the year 5000 in seconds are milliseconds.
pub fn epoch_time(n: i64) -> Option<DateTime<Utc>> {
    if n <= 0 {
        return None;
    }
    if n >= 100_000_000_000 { DateTime::from_timestamp_millis(n) } else { DateTime::from_timestamp(n, 0) }
}

/// An ISO-8601 / RFC 3339 time, with or without an offset (then UTC).
pub fn iso_time(s: &str) -> Option<DateTime<Utc>> {
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
pub fn id_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Arguments stored as a JSON document inside a JSON string are decoded a
/// second time; text that is not JSON stays a string (malformed arguments).
pub fn decode_arguments(v: Value) -> Value {
    match v {
        Value::String(s) if s.trim().is_empty() => Value::Object(Default::default()),
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        v => v,
    }
}

/// Hands each session on when the rows of the next one begin. Rows must
/// come ordered by session id.
pub struct Grouper<'s> {
    id: Option<String>,
    current: Option<Session>,
    sink: &'s mut dyn FnMut(Session),
}

impl<'s> Grouper<'s> {
    pub fn new(sink: &'s mut dyn FnMut(Session)) -> Self {
        Grouper { id: None, current: None, sink }
    }

    /// The session `id`, opened with `open` on its first row; `None` when
    /// `open` declined it (skipped sessions).
    pub fn at(&mut self, id: &str, open: impl FnOnce() -> Option<Session>) -> Option<&mut Session> {
        if self.id.as_deref() != Some(id) {
            if let Some(done) = self.current.take() {
                (self.sink)(done);
            }
            self.id = Some(id.to_string());
            self.current = open();
        }
        self.current.as_mut()
    }

    /// Hand on the last session.
    pub fn finish(mut self) {
        if let Some(done) = self.current.take() {
            (self.sink)(done);
        }
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
    }

    #[test]
    fn double_encoded_arguments() {
        assert_eq!(decode_arguments(Value::String("{\"a\":1}".into()))["a"], 1);
        assert_eq!(decode_arguments(Value::String("{bad".into())), Value::String("{bad".into()));
        assert_eq!(decode_arguments(serde_json::json!({"a": 2}))["a"], 2);
    }
}
