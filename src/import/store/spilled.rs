//! The store's spilled backend: the scratch database the in-memory rows
//! are copied into past their budget (`MemStore::copy_into`), and every
//! write after them. Its long texts stay in the text file (texts.rs): the
//! database holds a reference to each, so its pages hold rows, not texts,
//! and it is read by `read_spilled`, never by the falseok adapter (its
//! schema version says so: `SPILLED_SCHEMA`).

use rusqlite::Connection;

use super::texts::TextFile;
use crate::source::falseok::read_rows;
use crate::source::{ReadContext, ReadResult};

/// The schema version a scratch database is given once it holds
/// references to the text file: the falseok adapter refuses to read it,
/// so its references are never taken for texts.
pub(crate) const SPILLED_SCHEMA: &str = "1 (a scan's scratch copy; long texts in a file beside it)";

/// The scratch database's `calls` and `results` made again, empty, with
/// the columns of `sql/schema.sql` but no key, for `copy_into` to append
/// to; `SPILLED_KEYS` indexes them after. `calls_by_id` is made when the
/// writer stops keeping call owners in memory (`Writer::call`), the only
/// time it is asked.
pub(super) const SPILLED_TABLES: &str = "
DROP TABLE calls;
DROP TABLE results;
CREATE TABLE calls (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  id         TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  tool       TEXT NOT NULL,
  input      TEXT,
  called_at  TEXT,
  response_id TEXT,
  model TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cache_read_tokens INTEGER,
  cache_write_tokens INTEGER,
  reasoning_tokens INTEGER,
  cost_usd REAL
);
CREATE TABLE results (
  session_id  TEXT NOT NULL,
  call_id     TEXT NOT NULL,
  text        TEXT NOT NULL DEFAULT '',
  is_error    INTEGER CHECK (is_error IN (0, 1)),
  exit_code   INTEGER,
  returned_at TEXT
);";

/// The keys of `sql/schema.sql`'s `calls` and `results` as unique indexes
/// (the writer's upserts name them as they name the primary keys), and
/// the order calls are read in.
pub(super) const SPILLED_KEYS: &str = "
CREATE UNIQUE INDEX calls_key ON calls (session_id, id);
CREATE UNIQUE INDEX results_key ON results (session_id, call_id);
CREATE INDEX calls_by_seq ON calls (session_id, seq);";

/// The index `session_of_call` asks once call owners are no longer kept
/// in memory.
pub(crate) const SPILLED_CALLS_BY_ID: &str = "CREATE INDEX IF NOT EXISTS calls_by_id ON calls (id)";

/// `source::falseok::ROWS` for the scratch database: the same rows in
/// the same order, without sorting each session's calls. `ROWS` puts a
/// session's calls before its orphan results by a constant column, which
/// SQLite cannot take from an index: it sorted every call of a session
/// (200,000 rows in the bench's one-session case) in a temporary B-tree.
/// Here orphan results sort after calls by their seq, `i64::MAX`, which no
/// call of the scratch database has (the writer numbers them from 1), so
/// calls come in `calls_by_seq` order as they are, then orphans by rowid.
const SPILLED_ROWS: &str = "\
SELECT c.session_id, 0, c.seq, c.rowid, c.id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL, r.text, r.is_error, r.exit_code, r.returned_at,
       c.response_id, c.model, c.input_tokens, c.output_tokens, c.cache_read_tokens, c.cache_write_tokens,
       c.reasoning_tokens, c.cost_usd
  FROM calls c INDEXED BY calls_by_seq
  LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
UNION ALL
SELECT r.session_id, 1, 9223372036854775807, r.rowid, r.call_id, NULL, NULL, NULL, 1, r.text, r.is_error, r.exit_code,
       r.returned_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM results r
 WHERE NOT EXISTS (SELECT 1 FROM calls c WHERE c.session_id = r.session_id AND c.id = r.call_id)
ORDER BY 1, 3, 4";

/// Read the scratch database `conn`, whose long texts are in `texts`, as
/// the falseok adapter (`source/falseok.rs`) reads a database that
/// holds them: its reader (`read_rows`), with `SPILLED_ROWS` and each
/// reference read from the text file.
pub(super) fn read_spilled(conn: &Connection, texts: &TextFile, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    read_rows(conn, cx, SPILLED_ROWS, |v| texts.text_of(v))
}
