//! Reading Peri's rows: once, in storage (rowid) order, inside one read
//! transaction, parsed on other threads and put back in order; a session is
//! handed on as soon as its last row is read.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::INFO;
use super::fast::parse_long_result;
use super::message::parse_message;
use crate::model::{Event, Malformed, Session, TEXT_CAP};
use crate::source::rows::{SessionIndex, pick_query, text_of};
use crate::source::{ReadContext, ReadResult};

/// Threads, with their parent and start where this version records them.
const THREADS: &[(&[&str], &str)] = &[
    (&["parent_thread_id", "created_at"], "SELECT id, parent_thread_id, created_at FROM threads"),
    (&["parent_thread_id"], "SELECT id, parent_thread_id, NULL FROM threads"),
    (&["created_at"], "SELECT id, NULL, created_at FROM threads"),
    (&[], "SELECT id, NULL, NULL FROM threads"),
];

/// Rows per batch handed to a parser thread, and bytes that close a batch early.
const BATCH_ROWS: usize = 512;
const BATCH_BYTES: usize = 2 << 20;

/// A row as SQLite returned it, on its way to a parser thread.
struct RawRow {
    rowid: i64,
    thread: usize,
    role: &'static str,
    /// Where its content bytes are in the batch's buffer, or the SQLite
    /// type that is not text.
    content: std::result::Result<std::ops::Range<usize>, &'static str>,
}

/// Rows and their content bytes, one buffer for the whole batch.
#[derive(Default)]
struct Batch {
    rows: Vec<RawRow>,
    bytes: Vec<u8>,
}

/// A row turned into events: `events` of them, in order, in its batch's
/// `Parsed::events` (one buffer a batch, not one allocation a row).
struct ParsedRow {
    rowid: i64,
    thread: usize,
    events: usize,
    malformed: Option<Malformed>,
}

/// A batch turned into events.
struct Parsed {
    rows: Vec<ParsedRow>,
    events: Vec<Event>,
}

fn parse_row(row: &RawRow, buffer: &[u8], events: &mut Vec<Event>) -> ParsedRow {
    let before = events.len();
    let malformed = match &row.content {
        Ok(range) => {
            let bytes = &buffer[range.clone()];
            let fast =
                (bytes.len() > 4 * TEXT_CAP).then(|| parse_long_result(bytes, row.role, row.rowid, events)).flatten();
            let parsed = fast.unwrap_or_else(|| {
                // Valid UTF-8 is the rule; check it fast, repair it only when not.
                let content = match std::str::from_utf8(bytes) {
                    Ok(s) => Cow::Borrowed(s),
                    Err(_) => String::from_utf8_lossy(bytes),
                };
                parse_message(&content, row.role, row.rowid, events)
            });
            match parsed {
                Ok(false) => None,
                Ok(true) => Some(Malformed {
                    row: row.rowid,
                    problem: "lone UTF-16 surrogate escapes replaced by U+FFFD".into(),
                    skipped: false,
                    file: None,
                }),
                Err(problem) => Some(Malformed { row: row.rowid, problem, skipped: true, file: None }),
            }
        }
        Err(kind) => Some(Malformed {
            row: row.rowid,
            problem: format!("content is {kind}, not JSON text"),
            skipped: true,
            file: None,
        }),
    };
    ParsedRow { rowid: row.rowid, thread: row.thread, events: events.len() - before, malformed }
}

/// What is known of a thread (session) while its rows stream by.
struct ThreadState {
    /// The session, empty, as the index opened it; `None` if not wanted.
    empty: Option<Session>,
    /// The rowid of its last message: when it is read, the session is whole.
    last_row: i64,
    open: Option<Session>,
}

/// Puts parsed batches back in storage order and assembles sessions.
struct Assembler<'a, 'c> {
    states: Vec<ThreadState>,
    next: u64,
    pending: BTreeMap<u64, Parsed>,
    cx: &'a mut ReadContext<'c>,
}

impl Assembler<'_, '_> {
    fn accept(&mut self, (seq, parsed): (u64, Parsed)) {
        self.pending.insert(seq, parsed);
        while let Some(Parsed { rows, events }) = self.pending.remove(&self.next) {
            self.next += 1;
            let mut events = events.into_iter();
            for row in rows {
                let t = &mut self.states[row.thread];
                let Some(empty) = &t.empty else {
                    events.by_ref().take(row.events).for_each(drop);
                    continue;
                };
                let session = t.open.get_or_insert_with(|| empty.clone());
                session.events.extend(events.by_ref().take(row.events));
                session.malformed.extend(row.malformed);
                if row.rowid == t.last_row
                    && let Some(done) = t.open.take()
                {
                    self.cx.emit(done);
                }
            }
        }
    }
}

/// The rows are read here, in storage order; parser threads turn them into
/// events; this thread puts them back in order, assembles sessions and
/// hands each on when its last row is in. Only the sessions still open and
/// a few batches in flight are held in memory.
pub(super) fn read(conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    let threads = pick_query(conn, "threads", THREADS)?.unwrap_or(THREADS[3].1);
    let sessions = SessionIndex::load(conn, threads)?;
    // The index reads an appended database from its last row on (src/index/).
    let after = cx.after_row();
    // `watch` reads the sessions a grown database added to, whole.
    let touched = cx.threads_after().filter(|_| after.is_none());
    let last_row = match after.or(touched) {
        Some(row) => last_rows_after(conn, row)?,
        None => last_rows(conn)?,
    };
    let total = last_row.values().copied().max().unwrap_or(0).max(0) as u64;
    cx.progress(0, total);

    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut by_bytes: foldhash::HashMap<Vec<u8>, usize> = foldhash::HashMap::default();
    let mut stmt = match touched {
        Some(_) => conn.prepare(TOUCHED_ROWS)?,
        None => conn.prepare("SELECT rowid, thread_id, role, content FROM messages WHERE rowid > ?1 ORDER BY rowid")?,
    };
    let mut rows = stmt.query([after.or(touched).unwrap_or(i64::MIN)])?;
    // Parsers: one core less than the machine has, for this reading thread
    // and the judging one, which wait on each other more than they run.
    // One parser more oversubscribes: on 2 cores, 2 parsers took 0.85 s
    // where 1 takes 0.60 s (small-message benchmark, scripts/bench.sh).
    // (This thread parsing a batch itself when the parsers are behind was
    // slower still: 0.84 s.)
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1)).clamp(1, 8);
    let (work_tx, work_rx) = crossbeam_channel::bounded::<(u64, Batch)>(2 * workers);
    let (done_tx, done_rx) = crossbeam_channel::bounded::<(u64, Parsed)>(2 * workers);
    // Emptied batches come back for reuse: fresh multi-megabyte buffers
    // would cost a page fault and a zeroed page for every 4 KiB read.
    let (free_tx, free_rx) = crossbeam_channel::bounded::<Batch>(4 * workers);
    std::thread::scope(|scope| -> ReadResult<()> {
        for _ in 0..workers {
            let (work_rx, done_tx, free_tx) = (work_rx.clone(), done_tx.clone(), free_tx.clone());
            scope.spawn(move || parse_batches(work_rx, done_tx, free_tx));
        }
        drop(free_tx);
        drop((work_rx, done_tx));
        let mut assembler = Assembler { states: Vec::new(), next: 0, pending: BTreeMap::new(), cx: &mut *cx };
        let new_batch = || {
            free_rx.try_recv().unwrap_or_else(|_| Batch {
                rows: Vec::with_capacity(BATCH_ROWS),
                bytes: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            })
        };
        let mut batch = new_batch();
        let mut sent: u64 = 0;
        let mut send = |batch: Batch, assembler: &mut Assembler| {
            let mut item = Some((sent, batch));
            sent += 1;
            // Never block on a full work queue while results wait: drain them.
            while let Some(msg) = item.take() {
                crossbeam_channel::select! {
                    send(work_tx, msg) -> r => { let _ = r; }
                    recv(done_rx) -> r => {
                        item = Some(msg);
                        if let Ok(done) = r { assembler.accept(done); }
                    }
                }
            }
        };
        let mut read: u64 = 0;
        let mut greatest = None;
        while let Some(r) = rows.next()? {
            read += 1;
            let rowid: i64 = r.get(0)?;
            greatest = Some(rowid);
            if read.is_multiple_of(1024) {
                assembler.cx.progress(rowid.max(0) as u64, total);
            }
            // A thread id is looked up by its bytes (foldhash, no UTF-8
            // check): the id is the same on every row of a thread. Ids
            // are named as `text_of` spells them, so that two spellings
            // one repair makes equal are one thread, as before.
            let raw = match r.get_ref(1)? {
                ValueRef::Text(t) | ValueRef::Blob(t) => Some(t),
                _ => None,
            };
            let index = match raw.and_then(|t| by_bytes.get(t)) {
                Some(&i) => i,
                None => {
                    let thread = match r.get_ref(1)? {
                        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t),
                        other => Cow::Owned(text_of(other)),
                    };
                    let i = match ids.get(thread.as_ref()) {
                        Some(&i) => i,
                        None => {
                            let states = &mut assembler.states;
                            states.push(ThreadState {
                                empty: sessions.open(&thread, INFO.dialect, assembler.cx),
                                last_row: last_row.get(thread.as_ref()).copied().unwrap_or(i64::MAX),
                                open: None,
                            });
                            ids.insert(thread.to_string(), states.len() - 1);
                            states.len() - 1
                        }
                    };
                    if let Some(t) = raw {
                        by_bytes.insert(t.to_vec(), i);
                    }
                    i
                }
            };
            if assembler.states[index].empty.is_none() {
                continue;
            }
            let role = match r.get_ref(2)? {
                ValueRef::Text(b"tool") => "tool",
                ValueRef::Text(b"assistant") => "assistant",
                ValueRef::Text(b"user") => "user",
                ValueRef::Text(b"system") => "system",
                _ => "",
            };
            let content = match r.get_ref(3)? {
                ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                    let start = batch.bytes.len();
                    batch.bytes.extend_from_slice(bytes);
                    Ok(start..batch.bytes.len())
                }
                other => Err(type_name(other)),
            };
            batch.rows.push(RawRow { rowid, thread: index, role, content });
            if batch.rows.len() >= BATCH_ROWS || batch.bytes.len() >= BATCH_BYTES {
                send(std::mem::replace(&mut batch, new_batch()), &mut assembler);
            }
        }
        if !batch.rows.is_empty() {
            send(batch, &mut assembler);
        }
        drop(work_tx);
        for done in done_rx.iter() {
            assembler.accept(done);
        }
        assembler.cx.rows(read);
        if let Some(row) = greatest.or(after).or(touched) {
            assembler.cx.last_row(row);
        }
        // Only reachable if the grouped query and the scan disagree; hand on
        // what was read rather than lose it, in a stable order.
        let mut rest: Vec<Session> = assembler.states.iter_mut().filter_map(|t| t.open.take()).collect();
        rest.sort_by(|a, b| a.id.cmp(&b.id));
        rest.into_iter().for_each(|s| assembler.cx.emit(s));
        Ok(())
    })
}

/// The rowid of each thread's last message, by thread id (as `text_of`
/// spells it): what `SELECT thread_id, max(rowid) FROM messages GROUP BY
/// thread_id` returns, in its order.
///
/// That query reads the whole thread index: a third of a second on a
/// database of 2 million messages, before any row can be read. With an
/// index on `thread_id`, the same answer is two seeks a thread: the next
/// thread id after the last one, then its greatest rowid. Whether the
/// seeks really use an index is measured, not assumed from the schema
/// (a missing index or another collation would make each of them a scan
/// of the table): a step that scanned the table falls back to the query.
fn last_rows(conn: &Connection) -> rusqlite::Result<HashMap<String, i64>> {
    if thread_index(conn)?
        && let Some(map) = last_rows_by_seeks(conn)?
    {
        return Ok(map);
    }
    last_rows_grouped(conn)
}

/// `messages` has an index, not partial, that starts with `thread_id` in
/// binary order (under another collation, the grouped query's ids may be
/// spelt otherwise than the seeks' ones: 'B' for the group of 'b' and 'B').
pub(super) fn thread_index(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_index_list('messages') l, pragma_index_xinfo(l.name) i
          WHERE l.partial = 0 AND i.seqno = 0 AND i.name = 'thread_id' AND i.coll = 'BINARY')",
        [],
        |r| r.get(0),
    )
}

/// The rows of the threads that have a row after a row. `+thread_id`:
/// see `NEW_THREADS` (format.rs).
const TOUCHED_ROWS: &str = "SELECT rowid, thread_id, role, content FROM messages
  WHERE thread_id IN (SELECT DISTINCT +thread_id FROM messages WHERE rowid > ?1) ORDER BY rowid";

/// Each thread's last row among the rows after a row. `+thread_id`: see
/// `NEW_THREADS` (format.rs).
const LAST_ROWS_AFTER: &str = "SELECT thread_id, max(rowid) FROM messages WHERE rowid > ?1 GROUP BY +thread_id";

/// `last_rows` of the rows after `row` only (a range of rowids).
fn last_rows_after(conn: &Connection, row: i64) -> rusqlite::Result<HashMap<String, i64>> {
    let mut last = HashMap::new();
    let mut stmt = conn.prepare(LAST_ROWS_AFTER)?;
    let mut rows = stmt.query([row])?;
    while let Some(r) = rows.next()? {
        last.insert(text_of(r.get_ref(0)?), r.get(1)?);
    }
    Ok(last)
}

fn last_rows_grouped(conn: &Connection) -> rusqlite::Result<HashMap<String, i64>> {
    let mut last = HashMap::new();
    let mut stmt = conn.prepare("SELECT thread_id, max(rowid) FROM messages GROUP BY thread_id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        last.insert(text_of(r.get_ref(0)?), r.get(1)?);
    }
    Ok(last)
}

/// `None` as soon as a seek scans the table instead of an index, or when
/// threads are too short for the seeks to pay: a thread's two seeks cost
/// what the grouped query spends on 4 to 18 index entries (measured with
/// the sqlite3 shell on 200,000 two-message threads and on the benchmark
/// databases), so past one thread in 32 rows the query is used.
fn last_rows_by_seeks(conn: &Connection) -> rusqlite::Result<Option<HashMap<String, i64>>> {
    use rusqlite::StatementStatus::FullscanStep;
    use rusqlite::types::Value as SqlValue;
    // GROUP BY puts NULL ids in a group of their own, first; min() and `>` skip them.
    let mut null = conn.prepare("SELECT max(rowid) FROM messages WHERE thread_id IS NULL")?;
    let mut next = conn.prepare("SELECT min(thread_id) FROM messages WHERE thread_id > ?1")?;
    let mut first = conn.prepare("SELECT min(thread_id) FROM messages")?;
    let mut last_of = conn.prepare("SELECT max(rowid) FROM messages WHERE thread_id = ?1")?;
    let scanned = |stmts: &[&rusqlite::Statement<'_>]| stmts.iter().any(|s| s.get_status(FullscanStep) > 0);
    let rows: Option<i64> = conn.query_row("SELECT max(rowid) FROM messages", [], |r| r.get(0))?;
    let budget = rows.unwrap_or(0).max(0) / 32 + 64;
    let mut last = HashMap::new();
    if let Some(row) = null.query_row([], |r| r.get::<_, Option<i64>>(0))? {
        last.insert(text_of(ValueRef::Null), row);
    }
    let mut id: SqlValue = first.query_row([], |r| r.get(0))?;
    if scanned(&[&null, &first]) {
        return Ok(None);
    }
    while id != SqlValue::Null {
        let row: Option<i64> = last_of.query_row([&id], |r| r.get(0))?;
        let following: SqlValue = next.query_row([&id], |r| r.get(0))?;
        if scanned(&[&last_of, &next]) {
            return Ok(None);
        }
        if let Some(row) = row {
            last.insert(text_of(ValueRef::from(&id)), row);
        }
        if last.len() as i64 > budget {
            return Ok(None);
        }
        id = following;
    }
    Ok(Some(last))
}

/// A parser thread: batches in, parsed rows out, emptied batches back.
fn parse_batches(
    work: crossbeam_channel::Receiver<(u64, Batch)>,
    done: crossbeam_channel::Sender<(u64, Parsed)>,
    free: crossbeam_channel::Sender<Batch>,
) {
    for (seq, mut batch) in work {
        let mut events = Vec::with_capacity(batch.rows.len() + batch.rows.len() / 2);
        let rows = batch.rows.iter().map(|r| parse_row(r, &batch.bytes, &mut events)).collect();
        let parsed = Parsed { rows, events };
        batch.rows.clear();
        batch.bytes.clear();
        let _ = free.try_send(batch);
        if done.send((seq, parsed)).is_err() {
            break;
        }
    }
}

fn type_name(v: ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "an integer",
        ValueRef::Real(_) => "a real",
        ValueRef::Text(_) => "text",
        ValueRef::Blob(_) => "a blob",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queries of the rows after a row read a range of rowids, never
    /// the whole thread index: a run through the index after one new
    /// session of a million-row database took a scan of it for each.
    #[test]
    fn rows_after_a_row_are_a_range_of_rowids() {
        let conn = thread_table("TEXT", "CREATE INDEX idx_messages_thread_id ON messages (thread_id ASC);");
        for sql in [super::super::format::NEW_THREADS, TOUCHED_ROWS, LAST_ROWS_AFTER] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> =
                stmt.query_map([0], |r| r.get::<_, String>(3)).unwrap().collect::<Result<_, _>>().unwrap();
            assert!(plan.iter().any(|l| l.contains("INTEGER PRIMARY KEY (rowid>?)")), "{sql}: {plan:?}");
            assert!(!plan.iter().any(|l| l.starts_with("SCAN messages")), "{sql}: {plan:?}");
        }
    }

    /// A `messages` table whose thread ids are of every SQLite type, with
    /// ids that collide once spelt as text (1, 1.0 and '1'; 'a' and x'61'),
    /// rows of each thread interleaved, and the index `index` makes.
    fn thread_table(column_type: &str, index: &str) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!(
            "CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id {column_type}, role TEXT, content TEXT);
             {index}"
        ))
        .unwrap();
        let ids = ["'b'", "1", "'a'", "NULL", "x'61'", "'1'", "1.0", "'B'", "'019e-long-id'", "2.5", "-7"];
        for i in 0..60 {
            let id = ids[(i * 7) % ids.len()];
            conn.execute(&format!("INSERT INTO messages VALUES ('m{i}', {id}, 'user', '{{}}')"), []).unwrap();
        }
        conn
    }

    #[test]
    fn last_rows_by_seeks_are_what_the_grouped_query_says() {
        for column_type in ["TEXT", "", "ANY", "BLOB"] {
            let conn = thread_table(column_type, "CREATE INDEX by_thread ON messages (thread_id);");
            assert!(thread_index(&conn).unwrap());
            let grouped = last_rows_grouped(&conn).unwrap();
            assert!(grouped.len() >= 6, "{column_type}: {grouped:?}");
            assert_eq!(last_rows_by_seeks(&conn).unwrap(), Some(grouped), "{column_type}");
        }
    }

    #[test]
    fn last_rows_fall_back_to_the_grouped_query_when_seeks_would_scan() {
        let cases = [
            ("", "no index", ""),
            ("", "partial index", "CREATE INDEX by_thread ON messages (thread_id) WHERE role = 'user';"),
            ("", "index not led by thread_id", "CREATE INDEX by_role ON messages (role, thread_id);"),
            ("TEXT", "index in another order", "CREATE INDEX by_thread ON messages (thread_id COLLATE NOCASE);"),
            ("TEXT COLLATE NOCASE", "column in another order", "CREATE INDEX by_thread ON messages (thread_id);"),
        ];
        for (column_type, what, index) in cases {
            let conn = thread_table(column_type, index);
            assert!(!thread_index(&conn).unwrap(), "{what}");
            assert_eq!(last_rows(&conn).unwrap(), last_rows_grouped(&conn).unwrap(), "{what}");
        }
        // A binary index on a column compared in another order cannot serve
        // the seeks: the first one scans the table, and the query is used.
        let conn =
            thread_table("TEXT COLLATE NOCASE", "CREATE INDEX by_thread ON messages (thread_id COLLATE BINARY);");
        assert!(thread_index(&conn).unwrap());
        assert_eq!(last_rows_by_seeks(&conn).unwrap(), None);
        assert_eq!(last_rows(&conn).unwrap(), last_rows_grouped(&conn).unwrap());
        // Threads of a message or two each: the seeks give up past their budget.
        let conn = thread_table("TEXT", "CREATE INDEX by_thread ON messages (thread_id);");
        conn.execute_batch(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
             INSERT INTO messages SELECT 'x' || i, 't' || (i / 2), 'user', '{}' FROM n;",
        )
        .unwrap();
        assert_eq!(last_rows_by_seeks(&conn).unwrap(), None);
        assert_eq!(last_rows(&conn).unwrap(), last_rows_grouped(&conn).unwrap());
    }
}
