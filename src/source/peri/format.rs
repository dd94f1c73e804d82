//! Peri's adapter: how detection recognises the format (its registry
//! entry, `INFO`, is in `peri/mod.rs`), and the questions the index asks of
//! a grown database.

use rusqlite::{Connection, OptionalExtension};

use super::INFO;
use super::reader::{read, thread_index};
use crate::source::{Adapter, FormatInfo, ReadContext, ReadResult, Schema};

pub(crate) struct Peri;

impl Adapter for Peri {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("threads", &["id"])? && s.has("messages", &["message_id", "thread_id", "role", "content"])?)
    }

    fn unsupported(&self, s: &Schema<'_>) -> rusqlite::Result<Option<&'static str>> {
        let external =
            s.has("threads", &["id"])? && s.has("messages", &["message_id", "thread_id", "role", "content_ref"])?;
        Ok(external.then_some("Peri database with external payloads (messages.content_ref) is not supported yet"))
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        read(conn, cx)
    }

    /// Rows after `row` only started threads of their own when no thread
    /// of theirs has a row at or before it: two seeks a thread on the
    /// index of `thread_id` (without one, the question is not asked).
    /// The rows up to `row`, counted on the thread index (its entries are
    /// small: a tenth of a second for 2 million), and the last one's id.
    fn rows_signature(&self, conn: &Connection, row: i64) -> rusqlite::Result<Option<String>> {
        if !thread_index(conn)? {
            return Ok(None);
        }
        // `+rowid`: not the table's rowid range (every row's bytes) but a
        // scan of the smallest covering index.
        let count: i64 = conn.query_row("SELECT count(*) FROM messages WHERE +rowid <= ?1", [row], |r| r.get(0))?;
        signature(conn, count, row).map(Some)
    }

    fn rows_signature_after(
        &self,
        conn: &Connection,
        then: i64,
        signature_then: &str,
        row: i64,
    ) -> rusqlite::Result<Option<String>> {
        // The count of a million rows is a scan of the thread index; the
        // rows after `then` are a range of rowids.
        let Some(before) =
            signature_then.split_once(' ').and_then(|(n, _)| n.parse::<i64>().ok()).filter(|_| row >= then)
        else {
            return self.rows_signature(conn, row);
        };
        let between: i64 =
            conn.query_row("SELECT count(*) FROM messages WHERE rowid > ?1 AND rowid <= ?2", [then, row], |r| {
                r.get(0)
            })?;
        signature(conn, before + between, row).map(Some)
    }

    fn appended_after(&self, conn: &Connection, row: i64) -> rusqlite::Result<Option<bool>> {
        if !thread_index(conn)? {
            return Ok(None);
        }
        let mut threads = conn.prepare(NEW_THREADS)?;
        let mut older = conn.prepare("SELECT EXISTS (SELECT 1 FROM messages WHERE thread_id = ?1 AND rowid <= ?2)")?;
        let mut rows = threads.query([row])?;
        while let Some(r) = rows.next()? {
            let id: rusqlite::types::Value = r.get(0)?;
            if matches!(id, rusqlite::types::Value::Null)
                || older.query_row(rusqlite::params![id, row], |r| r.get(0))?
            {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }
}

/// A Peri signature: how many rows there are up to `row`, and the id of `row`.
fn signature(conn: &Connection, count: i64, row: i64) -> rusqlite::Result<String> {
    let last: Option<String> = conn
        .query_row("SELECT CAST(message_id AS TEXT) FROM messages WHERE rowid = ?1", [row], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(format!("{count} {}", last.unwrap_or_default()))
}

/// The threads of the rows after a row. `+thread_id`: those rows found by
/// their rowid range, not by a scan of the whole thread index, which
/// `DISTINCT` on the indexed column makes the planner choose (a tenth of
/// a second on a million rows, three times a run through the index).
pub(super) const NEW_THREADS: &str = "SELECT DISTINCT +thread_id FROM messages WHERE rowid > ?1";
