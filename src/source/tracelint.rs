//! tracelint's own trace schema (`sql/schema.sql`), written by `tracelint
//! import` or directly by any agent framework.
//!
//! `results.is_error` is the agent's own flag, NULL when it records none.
//! `sessions.agent` names who wrote a session; when it names a dialect
//! (`claude-code`, `codex`, `gemini`, or a format such as `crush`), that
//! dialect's scoped rules apply to it.
//!
//! Calls are read in (session, seq) order with their results joined, then
//! results that answer no call, by the shared session loop
//! (`rows::stream_by_session`).

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row};
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, decode_arguments, emit, iso_time, opt_int, opt_text, stream_by_session, text_of,
};
use super::{Adapter, FormatInfo, ReadContext, ReadError, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Session, ToolResult};

/// The schema version this reader understands.
pub(crate) const SCHEMA_VERSION: &str = "1";

/// The schema, as `tracelint import` creates it.
pub(crate) const SCHEMA_SQL: &str = include_str!("../../sql/schema.sql");
/// The views for the sqlite3 shell.
pub(crate) const VIEWS_SQL: &str = include_str!("../../sql/views.sql");

pub(crate) struct Tracelint;

pub(crate) static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::TRACELINT,
    agent: "tracelint's own schema (sql/schema.sql): `tracelint import`, or any framework",
    product: "tracelint",
    signature: "table `tracelint_meta` and tables `sessions`, `calls`, `results` as in sql/schema.sql",
    flag: "`results.is_error` (1 flagged, 0 not flagged, NULL the agent records no flag)",
    locations: &[],
    sample: "tracelint.db",
};

/// The fourth column names the session's dialect (its agent), the fifth the
/// file it was imported from.
const SESSIONS: &str = "SELECT id, parent_id, started_at, agent, source FROM sessions";

const ROWS: &str = "\
SELECT c.session_id, 0, c.seq, c.rowid, c.id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL, r.text, r.is_error, r.exit_code, r.returned_at
  FROM calls c LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
UNION ALL
SELECT r.session_id, 1, 0, r.rowid, r.call_id, NULL, NULL, NULL, 1, r.text, r.is_error, r.exit_code, r.returned_at
  FROM results r
 WHERE NOT EXISTS (SELECT 1 FROM calls c WHERE c.session_id = r.session_id AND c.id = r.call_id)
ORDER BY 1, 2, 3, 4";

impl Adapter for Tracelint {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("tracelint_meta", &["key", "value"])?
            && s.has("calls", &["session_id", "id", "seq", "tool", "input"])?
            && s.has("results", &["session_id", "call_id", "text", "is_error"])?)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let version = schema_version(conn)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(ReadError::Unsupported(format!(
                "tracelint schema version {} is not supported (this tracelint reads version {SCHEMA_VERSION})",
                version.as_deref().map_or("(none)".into(), crate::sanitize::one_line)
            )));
        }
        let index = SessionIndex::load(conn, SESSIONS)?;
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: ROWS };
        stream_by_session(conn, cx, stream, read_row, emit)?;
        Ok(())
    }
}

/// The `schema_version` the database records, if any.
pub(crate) fn schema_version(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM tracelint_meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .optional()
        .map(Option::flatten)
}

/// A call with its result, or an orphan result.
fn read_row(r: &Row<'_>, session: &mut Session) -> rusqlite::Result<()> {
    let orphan: i64 = r.get(1)?;
    let row: i64 = r.get(3)?;
    let call_id = text_of(r.get_ref(4)?);
    if orphan == 0 {
        let tool = opt_text(r.get_ref(5)?).unwrap_or_else(|| "(unnamed)".into());
        let input = match opt_text(r.get_ref(6)?) {
            Some(s) => decode_arguments(Value::String(s)),
            None => Value::Null,
        };
        let time = opt_text(r.get_ref(7)?).and_then(|t| iso_time(&t));
        session.events.push(Event::Call(Call { id: call_id.clone(), tool, input, time, row }));
    }
    let has_result: i64 = r.get(8)?;
    if has_result == 1 {
        let text = text_of(r.get_ref(9)?);
        let flag = match r.get_ref(10)? {
            ValueRef::Null => None,
            v => opt_int(v).map(|n| n != 0),
        };
        let exit_code = opt_int(r.get_ref(11)?);
        let time = opt_text(r.get_ref(12)?).and_then(|t| iso_time(&t));
        session.events.push(Event::Result(ToolResult { truncated: false, call_id, text, flag, exit_code, time, row }));
    }
    Ok(())
}
