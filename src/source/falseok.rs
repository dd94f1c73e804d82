//! falseok's own trace schema (`sql/schema.sql`), written by `falseok
//! import` or directly by any agent framework.
//!
//! `results.is_error` is the agent's own flag, NULL when it records none.
//! `sessions.agent` names who wrote a session; when it names a dialect
//! (`claude-code`, `codex`, `gemini`, or a format such as `crush`), that
//! dialect's scoped rules apply to it.
//!
//! Calls are read in (session, seq) order with their results joined, then
//! results that answer no call, by the shared session loop
//! (`rows::stream_by_session`). This is also the one reader of a scan's
//! transcript store (`import/store/`): its spilled scratch database is read
//! by `read_rows` with its own query and its long texts read from their
//! file, and its in-memory rows are handed to `push_row` as the rows of
//! this query would be.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row};
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, emit, iso_time, opt_count, opt_dollars, opt_int, opt_text, stream_by_session, text_of,
};
use super::{Adapter, FormatInfo, ReadContext, ReadError, ReadResult, Schema};
use crate::model::{Args, Call, Dialect, Event, Session, ToolResult, Usage};

/// The schema version this reader understands.
pub(crate) const SCHEMA_VERSION: &str = "1";

/// The schema, as `falseok import` creates it.
pub(crate) const SCHEMA_SQL: &str = include_str!("../../sql/schema.sql");
/// The views for the sqlite3 shell.
pub(crate) const VIEWS_SQL: &str = include_str!("../../sql/views.sql");

pub(crate) struct Falseok;

pub(crate) static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::FALSEOK,
    agent: "falseok's own schema (sql/schema.sql): `falseok import`, or any framework",
    product: "falseok",
    signature: "table `falseok_meta` (or `tracelint_meta`, written before the rename) and tables `sessions`, `calls`, `results` as in sql/schema.sql",
    flag: "`results.is_error` (1 flagged, 0 not flagged, NULL the agent records no flag)",
    locations: &[],
    sample: "falseok.db",
};

/// The fourth column names the session's dialect (its agent), the fifth the
/// file it was imported from.
pub(crate) const SESSIONS: &str = "SELECT id, parent_id, started_at, agent, source FROM sessions";

/// The columns of `calls` that record the usage of the response that
/// emitted the call (added to schema version 1 without a new version: a
/// database written before them has none, and records no usage).
pub(crate) const USAGE_COLUMNS: [&str; 8] = [
    "response_id",
    "model",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cost_usd",
];

/// Calls beside their results by (session, seq, rowid), then results that
/// answer no call; column 0 is the session id, columns 13 to 20 the usage
/// (`USAGE_COLUMNS`, NULL where the database has none).
fn rows_sql(usage: bool) -> String {
    let columns = if usage {
        USAGE_COLUMNS.iter().map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ")
    } else {
        vec!["NULL"; USAGE_COLUMNS.len()].join(", ")
    };
    let nulls = vec!["NULL"; USAGE_COLUMNS.len()].join(", ");
    format!(
        "SELECT c.session_id, 0, c.seq, c.rowid, c.id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL, r.text, r.is_error, r.exit_code, r.returned_at, {columns}
  FROM calls c LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
UNION ALL
SELECT r.session_id, 1, 0, r.rowid, r.call_id, NULL, NULL, NULL, 1, r.text, r.is_error, r.exit_code, r.returned_at, {nulls}
  FROM results r
 WHERE NOT EXISTS (SELECT 1 FROM calls c WHERE c.session_id = r.session_id AND c.id = r.call_id)
ORDER BY 1, 2, 3, 4"
    )
}

impl Adapter for Falseok {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(meta_table(s)?.is_some()
            && s.has("calls", &["session_id", "id", "seq", "tool", "input"])?
            && s.has("results", &["session_id", "call_id", "text", "is_error"])?)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let version = schema_version(conn)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(ReadError::Unsupported(format!(
                "falseok schema version {} is not supported (this falseok reads version {SCHEMA_VERSION})",
                version.as_deref().map_or("(none)".into(), crate::sanitize::one_line)
            )));
        }
        let usage = Schema::new(conn).has("calls", &USAGE_COLUMNS)?;
        read_rows(conn, cx, &rows_sql(usage), |v| Ok(text_of(v)))
    }
}

/// Read the sessions of `conn`, a database of this schema, row by row from
/// `sql` (`ROWS`, or a query giving its columns in its order), each text
/// column (the input, the result's text) read by `text`: `text_of` for a
/// database that holds its texts, the text file's reader for a scan's
/// spilled store.
pub(crate) fn read_rows(
    conn: &Connection,
    cx: &mut ReadContext<'_>,
    sql: &str,
    text: impl Fn(ValueRef<'_>) -> rusqlite::Result<String>,
) -> ReadResult<()> {
    let index = SessionIndex::load(conn, SESSIONS)?;
    let stream = Stream { dialect: INFO.dialect, index: &index, sql };
    stream_by_session(conn, cx, stream, |r, session| read_row(r, session, &text), emit)?;
    Ok(())
}

/// The table that records the schema version, with the query that reads
/// it: `falseok_meta`, or in a database written before the project's
/// rename, `tracelint_meta`. Both hold the same rows.
const META_TABLES: [(&str, &str); 2] = [
    ("falseok_meta", "SELECT value FROM falseok_meta WHERE key = 'schema_version'"),
    ("tracelint_meta", "SELECT value FROM tracelint_meta WHERE key = 'schema_version'"),
];

/// The version query of the first of `META_TABLES` the database has, with
/// its `key` and `value`.
fn meta_table(s: &Schema<'_>) -> rusqlite::Result<Option<&'static str>> {
    for (table, query) in META_TABLES {
        if s.has(table, &["key", "value"])? {
            return Ok(Some(query));
        }
    }
    Ok(None)
}

/// The `schema_version` the database records, if any.
pub(crate) fn schema_version(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let Some(query) = meta_table(&Schema::new(conn))? else { return Ok(None) };
    conn.query_row(query, [], |r| r.get(0)).optional().map(Option::flatten)
}

/// A call with its result, or an orphan result, its text columns read by
/// `text` (the input as `opt_text` reads it: NULL or empty is none).
fn read_row(
    r: &Row<'_>,
    session: &mut Session,
    text: &impl Fn(ValueRef<'_>) -> rusqlite::Result<String>,
) -> rusqlite::Result<()> {
    let input = match r.get_ref(6)? {
        ValueRef::Null => None,
        v => Some(text(v)?).filter(|s| !s.is_empty()),
    };
    let row = RowRef {
        orphan: r.get::<_, i64>(1)? != 0,
        row: r.get(3)?,
        call_id: r.get_ref(4)?,
        tool: r.get_ref(5)?,
        input,
        called_at: r.get_ref(7)?,
        has_result: r.get::<_, i64>(8)? == 1,
        text: text(r.get_ref(9)?)?,
        is_error: r.get_ref(10)?,
        exit_code: r.get_ref(11)?,
        returned_at: r.get_ref(12)?,
        usage: usage_of(r)?.map(std::sync::Arc::new),
    };
    push_row(row, session);
    Ok(())
}

/// One row of `ROWS`: a call with its result if any, or (`orphan`) a
/// result that answers no call.
pub(crate) struct RowRef<'a> {
    pub orphan: bool,
    pub row: i64,
    pub call_id: ValueRef<'a>,
    pub tool: ValueRef<'a>,
    /// The input column as `opt_text` reads it.
    pub input: Option<String>,
    pub called_at: ValueRef<'a>,
    pub has_result: bool,
    /// The text column as `text_of` reads it.
    pub text: String,
    pub is_error: ValueRef<'a>,
    pub exit_code: ValueRef<'a>,
    pub returned_at: ValueRef<'a>,
    /// The usage of the response that emitted the call, if recorded.
    pub usage: Option<std::sync::Arc<Usage>>,
}

/// The usage columns of a row (13 to 20): none when no token count and
/// no cost is recorded; a response without an id is the call's own. A
/// count that is negative or not a number is not a count.
fn usage_of(r: &Row<'_>) -> rusqlite::Result<Option<Usage>> {
    let count = |i: usize| r.get_ref(i).map(opt_count);
    let counts = [count(15)?, count(16)?, count(17)?, count(18)?, count(19)?];
    let cost = opt_dollars(r.get_ref(20)?);
    if counts.iter().all(Option::is_none) && cost.is_none() {
        return Ok(None);
    }
    let [input, output, cache_read, cache_write, reasoning] = counts.map(Option::unwrap_or_default);
    Ok(Some(Usage {
        response: opt_text(r.get_ref(13)?).unwrap_or_default(),
        model: opt_text(r.get_ref(14)?),
        input,
        output,
        cache_read,
        cache_write,
        reasoning,
        cost,
    }))
}

/// The events of one row, pushed onto `session`.
pub(crate) fn push_row(r: RowRef<'_>, session: &mut Session) {
    let call_id = text_of(r.call_id);
    if !r.orphan {
        let tool = opt_text(r.tool).unwrap_or_else(|| "(unnamed)".into());
        // Kept as stored: decoded (as `decode_arguments` does) only if
        // something asks for the value (`Args::stored`).
        let input = match r.input {
            Some(s) => Args::stored(s),
            None => Args::new(Value::Null),
        };
        let time = opt_text(r.called_at).and_then(|t| iso_time(&t));
        let usage = r.usage.map(|mut u| {
            if u.response.is_empty() {
                std::sync::Arc::make_mut(&mut u).response.clone_from(&call_id);
            }
            u
        });
        session.events.push(Event::Call(Call { id: call_id.clone(), tool, input, time, row: r.row, usage }));
    }
    if r.has_result {
        let text = r.text;
        let flag = match r.is_error {
            ValueRef::Null => None,
            v => opt_int(v).map(|n| n != 0),
        };
        let exit_code = opt_int(r.exit_code);
        let time = opt_text(r.returned_at).and_then(|t| iso_time(&t));
        let row = r.row;
        session.events.push(Event::Result(ToolResult { truncated: false, call_id, text, flag, exit_code, time, row }));
    }
}

/// A column's value as SQLite would hand it back.
pub(crate) fn text_ref(s: Option<&str>) -> ValueRef<'_> {
    s.map_or(ValueRef::Null, |s| ValueRef::Text(s.as_bytes()))
}

/// An integer column's value as SQLite would hand it back.
pub(crate) fn int_ref(n: Option<i64>) -> ValueRef<'static> {
    n.map_or(ValueRef::Null, ValueRef::Integer)
}
