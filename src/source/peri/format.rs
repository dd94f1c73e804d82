//! Peri's registry entry and adapter: what the format is, how detection
//! recognises it, and the questions the index asks of a grown database.

use rusqlite::{Connection, OptionalExtension};

use super::reader::{read, thread_index};
use crate::model::Dialect;
use crate::source::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};

pub(crate) struct Peri;

pub(super) static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::PERI,
    agent: "Peri Code",
    product: "Peri Code",
    signature: "tables `threads(id)` and `messages(message_id, thread_id, role, content)`",
    flag: "`is_error` of the tool message or `tool_result` block (absent = false)",
    locations: &[Location::Home(".peri/threads/threads.db")],
    sample: "peri-postmortem.db",
};

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
        let last: Option<String> = conn
            .query_row("SELECT CAST(message_id AS TEXT) FROM messages WHERE rowid = ?1", [row], |r| r.get(0))
            .optional()?
            .flatten();
        Ok(Some(format!("{count} {}", last.unwrap_or_default())))
    }

    fn appended_after(&self, conn: &Connection, row: i64) -> rusqlite::Result<Option<bool>> {
        if !thread_index(conn)? {
            return Ok(None);
        }
        let mut threads = conn.prepare("SELECT DISTINCT thread_id FROM messages WHERE rowid > ?1")?;
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
