//! tracelint's own trace schema (`sql/schema.sql`), written by `tracelint
//! import` or directly by any agent framework.
//!
//! `results.is_error` is the agent's own flag, NULL when it records none.
//! `sessions.agent` names who wrote a session; when it names a dialect
//! (`claude-code`, `codex`, `gemini`, or a format such as `crush`), that
//! dialect's scoped rules apply to it.
//!
//! Calls are read in (session, seq) order with their results joined, then
//! results that answer no call; each session is handed on when the next
//! one begins.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::Value;

use super::open::sqlite_problem;
use super::rows::{Grouper, decode_arguments, iso_time, opt_int, opt_text, text_of};
use super::{SourceOptions, SourceStats};
use crate::error::{Error, Result};
use crate::model::{Call, Dialect, Event, Session, ToolResult};

/// The schema version this reader understands.
pub const SCHEMA_VERSION: &str = "1";

/// The schema, as `tracelint import` creates it.
pub const SCHEMA_SQL: &str = include_str!("../../sql/schema.sql");
/// The views for the sqlite3 shell.
pub const VIEWS_SQL: &str = include_str!("../../sql/views.sql");

const ROWS: &str = "\
SELECT c.session_id, 0, c.seq, c.rowid, c.id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL, r.text, r.is_error, r.exit_code, r.returned_at
  FROM calls c LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
UNION ALL
SELECT r.session_id, 1, 0, r.rowid, r.call_id, NULL, NULL, NULL, 1, r.text, r.is_error, r.exit_code, r.returned_at
  FROM results r
 WHERE NOT EXISTS (SELECT 1 FROM calls c WHERE c.session_id = r.session_id AND c.id = r.call_id)
ORDER BY 1, 2, 3, 4";

struct SessionInfo {
    parent: Option<String>,
    dialect: Dialect,
    started: Option<DateTime<Utc>>,
}

pub fn read(
    path: &Path,
    conn: &Connection,
    opts: &SourceOptions,
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    let sql = |e: rusqlite::Error| Error::input(path, sqlite_problem(&e));
    conn.execute_batch("BEGIN").map_err(sql)?;
    let version: Option<String> = conn
        .query_row("SELECT value FROM tracelint_meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .or_else(|e| if matches!(e, rusqlite::Error::QueryReturnedNoRows) { Ok(None) } else { Err(e) })
        .map_err(sql)?;
    if version.as_deref() != Some(SCHEMA_VERSION) {
        let _ = conn.execute_batch("COMMIT");
        return Err(Error::input(
            path,
            format!(
                "tracelint schema version {} is not supported (this tracelint reads version {SCHEMA_VERSION})",
                version.as_deref().map_or("(none)".into(), crate::sanitize::one_line)
            ),
        ));
    }
    let sessions = read_sessions(conn).map_err(sql)?;
    let mut stats = SourceStats::default();
    let mut stmt = conn.prepare(ROWS).map_err(sql)?;
    let mut rows = stmt.query([]).map_err(sql)?;
    let mut groups = Grouper::new(sink);
    while let Some(r) = rows.next().map_err(sql)? {
        stats.rows += 1;
        let id = text_of(r.get_ref(0).map_err(sql)?);
        let Some(session) = groups.at(&id, || {
            let info = sessions.get(&id);
            let parent = info.and_then(|i| i.parent.clone());
            opts.wants(&id, parent.is_some()).then(|| Session {
                id: id.clone(),
                dialect: info.map_or(Dialect::TRACELINT, |i| i.dialect),
                parent,
                started: info.and_then(|i| i.started),
                ..Session::default()
            })
        }) else {
            continue;
        };
        let orphan: i64 = r.get(1).map_err(sql)?;
        let row: i64 = r.get(3).map_err(sql)?;
        let call_id = text_of(r.get_ref(4).map_err(sql)?);
        if orphan == 0 {
            let tool = opt_text(r.get_ref(5).map_err(sql)?).unwrap_or_else(|| "(unnamed)".into());
            let input = match opt_text(r.get_ref(6).map_err(sql)?) {
                Some(s) => decode_arguments(Value::String(s)),
                None => Value::Null,
            };
            let time = opt_text(r.get_ref(7).map_err(sql)?).and_then(|t| iso_time(&t));
            session.events.push(Event::Call(Call { id: call_id.clone(), tool, input, time, row }));
        }
        let has_result: i64 = r.get(8).map_err(sql)?;
        if has_result == 1 {
            let text = text_of(r.get_ref(9).map_err(sql)?);
            let flag = match r.get_ref(10).map_err(sql)? {
                ValueRef::Null => None,
                v => opt_int(v).map(|n| n != 0),
            };
            let exit_code = opt_int(r.get_ref(11).map_err(sql)?);
            let time = opt_text(r.get_ref(12).map_err(sql)?).and_then(|t| iso_time(&t));
            session.events.push(Event::Result(ToolResult {
                truncated: false,
                call_id,
                text,
                flag,
                exit_code,
                time,
                row,
            }));
        }
    }
    drop(rows);
    drop(stmt);
    groups.finish();
    conn.execute_batch("COMMIT").map_err(sql)?;
    Ok(stats)
}

fn read_sessions(conn: &Connection) -> rusqlite::Result<HashMap<String, SessionInfo>> {
    let mut stmt = conn.prepare("SELECT id, parent_id, agent, started_at FROM sessions")?;
    let mut rows = stmt.query([])?;
    let mut out = HashMap::new();
    while let Some(r) = rows.next()? {
        let agent = opt_text(r.get_ref(2)?);
        let dialect = agent.as_deref().and_then(Dialect::from_name).unwrap_or(Dialect::TRACELINT);
        let info = SessionInfo {
            parent: opt_text(r.get_ref(1)?),
            dialect,
            started: opt_text(r.get_ref(3)?).and_then(|t| iso_time(&t)),
        };
        out.insert(text_of(r.get_ref(0)?), info);
    }
    Ok(out)
}
