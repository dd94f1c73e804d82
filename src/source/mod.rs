//! Trace sources: open a file safely, recognise its format, and stream its
//! sessions into the common model.

pub mod json;
pub mod open;
pub mod peri;

use std::path::Path;

use rusqlite::Connection;

use crate::error::{Error, Result};
use crate::model::Session;

/// Which sessions to read.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// Skip sub-agent sessions.
    pub no_subagents: bool,
    /// Only the session with this id (or id prefix).
    pub session: Option<String>,
}

impl SourceOptions {
    pub fn wants(&self, id: &str, has_parent: bool) -> bool {
        if self.no_subagents && has_parent {
            return false;
        }
        match &self.session {
            Some(s) => id.starts_with(s.as_str()),
            None => true,
        }
    }
}

/// What a source turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Peri,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Peri => "peri",
        }
    }
}

/// The columns of `table`, or an empty list if it does not exist.
pub fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    names.collect()
}

/// Recognise the format of an open database by its tables and columns.
pub fn detect(path: &Path, conn: &Connection) -> Result<Format> {
    let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
    let messages = columns(conn, "messages").map_err(sql)?;
    let threads = columns(conn, "threads").map_err(sql)?;
    let has = |cols: &[String], want: &[&str]| want.iter().all(|w| cols.iter().any(|c| c == w));
    if has(&threads, &["id"]) && has(&messages, &["message_id", "thread_id", "role"]) {
        if has(&messages, &["content"]) {
            return Ok(Format::Peri);
        }
        if has(&messages, &["content_ref"]) {
            return Err(Error::input(
                path,
                "Peri database with external payloads (messages.content_ref) is not supported yet",
            ));
        }
    }
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql)?;
    tables.truncate(8);
    let list = if tables.is_empty() { "none".to_string() } else { tables.join(", ") };
    Err(Error::input(
        path,
        format!(
            "unknown trace schema (tables: {}); expected a Peri threads.db with tables `threads` and `messages`",
            crate::sanitize::one_line(&list)
        ),
    ))
}

/// Counts a source reports about itself, beyond its sessions.
#[derive(Debug, Clone, Default)]
pub struct SourceStats {
    pub rows: u64,
}

/// Open `path` read-only and recognise its format; also returns warnings
/// about how it had to be opened.
pub fn open(path: &Path) -> Result<(Connection, Format, Vec<String>)> {
    let opened = open::open_read_only(path)?;
    let format = detect(path, &opened.conn)?;
    Ok((opened.conn, format, opened.warnings))
}

/// Read every wanted session of an opened source, handing each to `sink`
/// as soon as its last row has been read.
pub fn read(
    path: &Path,
    conn: &Connection,
    format: Format,
    opts: &SourceOptions,
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    match format {
        Format::Peri => peri::read(path, conn, opts, sink),
    }
}
