//! Peri Code's `threads.db` (`~/.peri/threads/threads.db`, WAL): one `threads` row per
//! session (sub-agents link to their parent), one `messages` row per message,
//! the whole serialized message as JSON in `messages.content`.
//!
//! Rows are read once, in storage (rowid) order, inside one read
//! transaction. A session is handed on as soon as its last row is read, so
//! memory holds only the sessions that are still open at that point.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::json::{Decoded, string_ends, string_ends_bytes};
use super::rows::{SessionIndex, pick_query, text_of};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Malformed, Session, TEXT_CAP, ToolResult};

pub(crate) struct Peri;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::PERI,
    agent: "Peri Code",
    product: "Peri Code",
    signature: "tables `threads(id)` and `messages(message_id, thread_id, role, content)`",
    flag: "`is_error` of the tool message or `tool_result` block (absent = false)",
    locations: &[Location::Home(".peri/threads/threads.db")],
    sample: "peri-postmortem.db",
};

/// Threads, with their parent and start where this version records them.
const THREADS: &[(&[&str], &str)] = &[
    (&["parent_thread_id", "created_at"], "SELECT id, parent_thread_id, created_at FROM threads"),
    (&["parent_thread_id"], "SELECT id, parent_thread_id, NULL FROM threads"),
    (&["created_at"], "SELECT id, NULL, created_at FROM threads"),
    (&[], "SELECT id, NULL, NULL FROM threads"),
];

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

/// A row turned into events.
struct ParsedRow {
    rowid: i64,
    thread: usize,
    events: Vec<Event>,
    malformed: Option<Malformed>,
}

fn parse_row(row: &RawRow, buffer: &[u8]) -> ParsedRow {
    let mut events = Vec::new();
    let malformed = match &row.content {
        Ok(range) => {
            let bytes = &buffer[range.clone()];
            let fast = (bytes.len() > 4 * TEXT_CAP)
                .then(|| parse_long_result(bytes, row.role, row.rowid, &mut events))
                .flatten();
            let parsed = fast.unwrap_or_else(|| {
                // Valid UTF-8 is the rule; check it fast, repair it only when not.
                let content = match std::str::from_utf8(bytes) {
                    Ok(s) => Cow::Borrowed(s),
                    Err(_) => String::from_utf8_lossy(bytes),
                };
                parse_message(&content, row.role, row.rowid, &mut events)
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
    ParsedRow { rowid: row.rowid, thread: row.thread, events, malformed }
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
    pending: BTreeMap<u64, Vec<ParsedRow>>,
    cx: &'a mut ReadContext<'c>,
}

impl Assembler<'_, '_> {
    fn accept(&mut self, (seq, rows): (u64, Vec<ParsedRow>)) {
        self.pending.insert(seq, rows);
        while let Some(rows) = self.pending.remove(&self.next) {
            self.next += 1;
            for row in rows {
                let t = &mut self.states[row.thread];
                let Some(empty) = &t.empty else { continue };
                let session = t.open.get_or_insert_with(|| empty.clone());
                session.events.extend(row.events);
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
fn read(conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    let threads = pick_query(conn, "threads", THREADS)?.unwrap_or(THREADS[3].1);
    let sessions = SessionIndex::load(conn, threads)?;
    // The index reads an appended database from its last row on (src/index.rs).
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
    let mut stmt = match touched {
        Some(_) => conn.prepare(
            "SELECT rowid, thread_id, role, content FROM messages
              WHERE thread_id IN (SELECT DISTINCT thread_id FROM messages WHERE rowid > ?1) ORDER BY rowid",
        )?,
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
    let (done_tx, done_rx) = crossbeam_channel::bounded::<(u64, Vec<ParsedRow>)>(2 * workers);
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
            let thread = match r.get_ref(1)? {
                ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t),
                other => Cow::Owned(text_of(other)),
            };
            let index = match ids.get(thread.as_ref()) {
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
fn thread_index(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_index_list('messages') l, pragma_index_xinfo(l.name) i
          WHERE l.partial = 0 AND i.seqno = 0 AND i.name = 'thread_id' AND i.coll = 'BINARY')",
        [],
        |r| r.get(0),
    )
}

/// `last_rows` of the rows after `row` only (a range of rowids).
fn last_rows_after(conn: &Connection, row: i64) -> rusqlite::Result<HashMap<String, i64>> {
    let mut last = HashMap::new();
    let mut stmt = conn.prepare("SELECT thread_id, max(rowid) FROM messages WHERE rowid > ?1 GROUP BY thread_id")?;
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
    done: crossbeam_channel::Sender<(u64, Vec<ParsedRow>)>,
    free: crossbeam_channel::Sender<Batch>,
) {
    for (seq, mut batch) in work {
        let parsed = batch.rows.iter().map(|r| parse_row(r, &batch.bytes)).collect();
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

/// A stored message, with only what the analysis reads. Its `content` is
/// kept raw (`Msg`), or, for a tool row read in one pass, decoded as the
/// string it must then be (`PlainMsg`).
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a, C: Deserialize<'de>"))]
struct Message<'a, C> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_call_id: Option<&'a RawValue>,
    #[serde(default = "none")]
    content: Option<C>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_calls: Option<&'a RawValue>,
    #[serde(borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

fn none<C>() -> Option<C> {
    None
}

type Msg<'a> = Message<'a, &'a RawValue>;
type PlainMsg<'a> = Message<'a, String>;

impl<'a> PlainMsg<'a> {
    /// The message as `read_msg` takes it: its string content as the
    /// decoded text of a tool result (which is all a string content can be).
    fn split(self) -> (Msg<'a>, Option<Decoded>) {
        let text = self.content.map(|text| Decoded { text, cut: false, repaired: false });
        let Message { role, id, tool_call_id, is_error, tool_calls, version, kind, message, .. } = self;
        (Message { role, id, tool_call_id, content: None, is_error, tool_calls, version, kind, message }, text)
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(borrow, default)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Mirror<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// Parsed only when the call is not a copy of a block already read.
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The items of a JSON array, each as `T`; an item that is not one is
/// left out. One pass when every item fits, the usual case.
fn items<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Vec<T> {
    serde_json::from_str::<Vec<T>>(raw.get()).unwrap_or_else(|_| {
        let all: Vec<&RawValue> = serde_json::from_str(raw.get()).unwrap_or_default();
        all.into_iter().filter_map(|item| serde_json::from_str(item.get()).ok()).collect()
    })
}

#[derive(Deserialize)]
struct TextBlock<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// Turn one stored message into calls and results, appended to `out`.
/// `Err` is a one-line description of why the row cannot be read.
/// `Ok(true)` means the row was read after a repair (lone surrogates).
///
/// Only what the analysis reads is decoded: ids, names, arguments, flags,
/// and the two ends of a result's text (`TEXT_CAP` bytes each); the rest
/// is skipped over in place, borrowed rather than copied.
pub fn parse_message(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Result<bool, String> {
    super::json::check_size(content.as_bytes())?;
    if content.len() > 4 * TEXT_CAP
        && let Some(done) = parse_long_result(content.as_bytes(), role_column, row, out)
    {
        return done;
    }
    // A tool row short enough that `raw_text` would decode its string
    // whole: decoded by serde in the same pass. Anything else (an array, a
    // lone surrogate, a broken row) takes the general path below.
    if role_column == "tool"
        && content.len() <= 2 * TEXT_CAP + 2
        && let Ok(plain) = serde_json::from_str::<PlainMsg>(content)
    {
        let (msg, text) = plain.split();
        return read_msg(msg, role_column, row, out, 0, text);
    }
    parse_general(content, role_column, row, out)
}

/// `parse_message` for any row: content kept raw, then decoded.
fn parse_general(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Result<bool, String> {
    match serde_json::from_str::<Msg>(content) {
        Ok(msg) => read_msg(msg, role_column, row, out, 0, None),
        Err(e) => match super::json::replace_lone_surrogates(content) {
            Some((fixed, _)) => {
                let msg = serde_json::from_str::<Msg>(&fixed).map_err(|_| invalid(&e))?;
                read_msg(msg, role_column, row, out, 0, None).map(|_| true)
            }
            None => Err(invalid(&e)),
        },
    }
}

/// The fast path for a tool row whose `content` is one long string (a big
/// command output or file): the string's end is found with a vectorised
/// search for its closing quote, serde parses the row without it, and only
/// the two ends of the string are decoded (and validated). `None` when the
/// row does not have that shape; the caller then parses it whole.
/// It works on bytes: only what is decoded is checked as UTF-8.
fn parse_long_result(b: &[u8], role_column: &str, row: i64, out: &mut Vec<Event>) -> Option<Result<bool, String>> {
    const KEY: &[u8] = b"\"content\":\"";
    let open = memchr::memmem::find(b, KEY)? + KEY.len() - 1;
    let close = string_end(b, open)?;
    if close - open < 2 * TEXT_CAP + 2 {
        return None;
    }
    let (before, after) = (std::str::from_utf8(&b[..open]).ok()?, std::str::from_utf8(&b[close + 1..]).ok()?);
    let mut rest = String::with_capacity(b.len() - (close - open) + 2);
    rest.push_str(before);
    rest.push_str("\"\"");
    rest.push_str(after);
    let msg: Msg = serde_json::from_str(&rest).ok()?;
    // The key found must be the tool message's own `content`, not a nested one.
    let is_tool = msg.role.as_deref().map_or(msg.version.is_none() && role_column == "tool", |r| r == "tool");
    if !is_tool || msg.content.map(RawValue::get) != Some("\"\"") {
        return None;
    }
    let text = string_ends_bytes(&b[open..=close], TEXT_CAP)?;
    Some(read_msg(msg, role_column, row, out, 0, Some(text)))
}

/// The index of the quote that closes the JSON string opened at `open`.
fn string_end(b: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        let q = at + memchr::memchr(b'"', &b[at..])?;
        let backslashes = b[..q].iter().rev().take_while(|&&c| c == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(q);
        }
        at = q + 1;
    }
}

fn invalid(e: &serde_json::Error) -> String {
    if e.is_data() { format!("unexpected message shape: {e}") } else { format!("invalid JSON: {e}") }
}

/// `Ok(true)`: a text needed a repair (lone surrogate escapes). `long` is
/// a tool result's text when the fast path decoded it already.
fn read_msg(
    msg: Msg<'_>,
    role_column: &str,
    row: i64,
    out: &mut Vec<Event>,
    depth: u8,
    long: Option<Decoded>,
) -> Result<bool, String> {
    // The V1 envelope of later Peri versions: {"version":1,"type":"message","message":…}.
    if msg.role.is_none() && (msg.version.is_some() || msg.kind.is_some()) {
        match msg.version.map(|v| v.get().trim()) {
            Some("1") => {}
            Some(v) => return Err(format!("unsupported envelope version {}", crate::sanitize::truncate(v, 20))),
            None => return Err("envelope without a version".into()),
        }
        if msg.kind.as_deref() != Some("message") {
            return Ok(false); // system reminders and other records carry no calls
        }
        let inner = msg.message.filter(|_| depth == 0).ok_or("envelope without a message object")?;
        let inner: Msg = serde_json::from_str(inner.get()).map_err(|_| "envelope without a message object")?;
        return read_msg(inner, role_column, row, out, depth + 1, None);
    }
    let role: &str = msg.role.as_deref().unwrap_or(role_column);
    let time = msg.id.as_deref().and_then(uuid_v7_time);

    if role == "tool" {
        let call_id = match msg.tool_call_id {
            Some(raw) if !raw.get().starts_with(['{', '[', 'n']) => raw_id(raw),
            _ => return Err("tool message without tool_call_id".into()),
        };
        let d = match long {
            Some(d) => d,
            None => msg.content.map(raw_text).unwrap_or_default(),
        };
        let flag = Some(is_true(msg.is_error));
        out.push(Event::Result(ToolResult {
            call_id,
            text: d.text,
            truncated: d.cut,
            flag,
            exit_code: None,
            time,
            row,
        }));
        return Ok(d.repaired);
    }

    let mut repaired = false;
    let mut seen: Vec<String> = Vec::new();
    if let Some(raw) = msg.content.filter(|r| r.get().starts_with('[')) {
        for b in items::<Block>(raw) {
            match b.kind.as_deref() {
                Some("tool_use") if role == "assistant" => {
                    let id = b.id.map(raw_id).unwrap_or_default();
                    let name = b.name.map(Cow::into_owned).unwrap_or_default();
                    seen.push(id.clone());
                    out.push(Event::Call(make_call(id, name, b.input.unwrap_or(Value::Null), time, row)));
                }
                Some("tool_result") => {
                    let call_id = b.tool_use_id.map(raw_id).unwrap_or_default();
                    let d = b.content.map(raw_text).unwrap_or_default();
                    repaired |= d.repaired;
                    let flag = Some(is_true(b.is_error));
                    let (text, truncated) = (d.text, d.cut);
                    out.push(Event::Result(ToolResult { call_id, text, truncated, flag, exit_code: None, time, row }));
                }
                _ => {}
            }
        }
    }
    if role == "assistant"
        && let Some(raw) = msg.tool_calls.filter(|r| r.get().starts_with('['))
    {
        for c in items::<Mirror>(raw) {
            let id = c.id.map(raw_id).unwrap_or_default();
            if seen.contains(&id) {
                continue;
            }
            let name = c.name.map(Cow::into_owned).unwrap_or_default();
            let input = match c.arguments.map(|a| serde_json::from_str(a.get())) {
                None | Some(Err(_)) => Value::Null,
                // Some providers keep arguments as a JSON string.
                Some(Ok(Value::String(s))) => super::json::nested(s),
                Some(Ok(v)) => v,
            };
            seen.push(id.clone());
            out.push(Event::Call(make_call(id, name, input, time, row)));
        }
    }
    Ok(repaired)
}

fn is_true(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().trim() == "true")
}

/// An id: a string's text, or a number's digits.
fn raw_id(raw: &RawValue) -> String {
    let t = raw.get().trim();
    if t.starts_with('"') { string_ends(t, 256).text } else { t.to_string() }
}

/// The text of a `MessageContent` (a string, or the text of its blocks),
/// long texts kept only at their ends.
fn raw_text(raw: &RawValue) -> Decoded {
    let t = raw.get().trim();
    match t.as_bytes().first() {
        Some(b'"') => string_ends(t, TEXT_CAP),
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(t).unwrap_or_default();
            let mut all = Decoded::default();
            for item in items {
                let piece = match item.get().trim().as_bytes().first() {
                    Some(b'"') => Some(string_ends(item.get().trim(), TEXT_CAP)),
                    Some(b'{') => serde_json::from_str::<TextBlock>(item.get())
                        .ok()
                        .and_then(|b| b.text)
                        .map(|r| string_ends(r.get().trim(), TEXT_CAP)),
                    _ => None,
                };
                if let Some(p) = piece {
                    if !all.text.is_empty() {
                        all.text.push('\n');
                    }
                    all.text.push_str(&p.text);
                    all.cut |= p.cut;
                    all.repaired |= p.repaired;
                }
            }
            if all.text.len() > 4 * TEXT_CAP {
                all.text = crate::model::text_ends(&all.text).into_owned();
                all.cut = true;
            }
            all
        }
        Some(b'{') => match serde_json::from_str::<TextBlock>(t).ok().and_then(|b| b.text) {
            Some(r) => string_ends(r.get().trim(), TEXT_CAP),
            None => Decoded {
                text: crate::sanitize::truncate(t, 2 * TEXT_CAP),
                cut: t.len() > 2 * TEXT_CAP,
                repaired: false,
            },
        },
        Some(b'n') | None => Decoded::default(),
        Some(_) => Decoded { text: t.to_string(), ..Decoded::default() },
    }
}

/// Peri's `ExecuteExtraTool` runs a deferred tool: count the call under the
/// real tool's name, with the real tool's arguments.
fn make_call(id: String, name: String, input: Value, time: Option<DateTime<Utc>>, row: i64) -> Call {
    if name == "ExecuteExtraTool"
        && let Some(real) = input.get("tool_name").and_then(Value::as_str).filter(|s| !s.is_empty())
    {
        let tool = real.to_string();
        let params = input.get("params").cloned().unwrap_or(Value::Null);
        return Call { id, tool, input: params, time, row };
    }
    let tool = if name.is_empty() { "(unnamed)".to_string() } else { name };
    Call { id, tool, input, time, row }
}

/// The time embedded in a UUID v7 (its first 48 bits are Unix milliseconds).
pub(crate) fn uuid_v7_time(id: &str) -> Option<DateTime<Utc>> {
    let b = id.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[14] != b'7' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let digits = b[0..8].iter().chain(&b[9..13]);
    let ms = digits.map(|&c| (c as char).to_digit(16)).try_fold(0i64, |ms, d| Some(ms * 16 + i64::from(d?)))?;
    DateTime::from_timestamp_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn events(json: &str) -> Vec<Event> {
        let mut out = vec![];
        parse_message(json, "assistant", 1, &mut out).unwrap();
        out
    }

    fn calls(ev: &[Event]) -> Vec<(&str, &str)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Call(c) => Some((c.id.as_str(), c.tool.as_str())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn blocks_and_mirror_are_deduplicated() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"reasoning","text":"hm"},
            {"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/a"}}],
            "tool_calls":[{"id":"a","name":"Read","arguments":{"file_path":"/a"}},
                          {"id":"b","name":"Bash","arguments":"{\"command\":\"ls\"}"}]}"#,
        );
        assert_eq!(calls(&ev), vec![("a", "Read"), ("b", "Bash")]);
        match &ev[1] {
            Event::Call(c) => assert_eq!(c.input["command"], "ls", "string arguments are decoded"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn mirror_only_with_plain_string_content() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":"thinking","tool_calls":[{"id":"q","name":"Grep","arguments":{"pattern":"x"}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("q", "Grep")]);
    }

    #[test]
    fn tool_rows_and_missing_flag() {
        let ev = events(r#"{"role":"tool","id":"r","tool_call_id":"a","content":"Error: x"}"#);
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!(r.flag, Some(false), "absent is_error means false");
                assert_eq!(r.text, "Error: x");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"tool","id":"r","tool_call_id":"a","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}"#,
        );
        match &ev[0] {
            Event::Result(r) => assert_eq!((r.text.as_str(), r.flag), ("a\nb", Some(true))),
            _ => panic!(),
        }
    }

    #[test]
    fn anthropic_tool_result_blocks() {
        let ev = events(
            r#"{"role":"user","id":"u","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"Error: no"}],"is_error":true}]}"#,
        );
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!((r.call_id.as_str(), r.text.as_str(), r.flag), ("a", "Error: no", Some(true)))
            }
            _ => panic!(),
        }
    }

    #[test]
    fn execute_extra_tool_is_resolved() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{"tool_name":"AgentResult","params":{"task_id":"t1"}}}]}"#,
        );
        match &ev[0] {
            Event::Call(c) => {
                assert_eq!(c.tool, "AgentResult");
                assert_eq!(c.input["task_id"], "t1");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("e", "ExecuteExtraTool")]);
    }

    #[test]
    fn envelope_v1() {
        let ev = events(
            r#"{"version":1,"type":"message","message":{"role":"tool","id":"r","tool_call_id":"a","content":"ok","is_error":false}}"#,
        );
        assert_eq!(ev.len(), 1);
        assert!(events(r#"{"version":1,"type":"system_reminder","id":"x","reminder":{}}"#).is_empty());
        let mut out = vec![];
        let err = parse_message(r#"{"version":2,"type":"message","message":{}}"#, "tool", 1, &mut out).unwrap_err();
        assert!(err.contains("version 2"), "{err}");
    }

    #[test]
    fn malformed_rows_are_described() {
        let mut out = vec![];
        assert!(parse_message("{not json", "tool", 1, &mut out).unwrap_err().starts_with("invalid JSON"));
        assert!(parse_message("[1,2]", "tool", 1, &mut out).is_err());
        assert!(parse_message(r#"{"role":"tool","content":"x"}"#, "tool", 1, &mut out).is_err());
        let deep = "[".repeat(100_000);
        assert!(parse_message(&deep, "tool", 1, &mut out).is_err(), "deep nesting is an error, not a crash");
    }

    /// The fast path for long results must give what the full parse gives.
    #[test]
    fn long_results_take_the_fast_path_faithfully() {
        let body = "line \\\"quoted\\\" \\\\ back\\n".repeat(3000);
        let row = |content: &str, tail: &str| {
            format!(
                r#"{{"role":"tool","id":"019e9069-e8a1-7893-923f-0824128b2f33","tool_call_id":"c1","content":{content}{tail}}}"#
            )
        };
        let full = |text: &str| -> Vec<Event> {
            let mut out = vec![];
            let msg: Msg = serde_json::from_str(text).unwrap();
            read_msg(msg, "tool", 7, &mut out, 0, None).unwrap();
            out
        };
        for (content, tail) in [
            (format!("\"Error: {body}END\""), r#","is_error":false"#),
            (format!("\"{body}\""), r#","is_error":true,"execution":{"status":"failed"}"#),
        ] {
            let text = row(&content, tail);
            assert!(text.len() > 4 * TEXT_CAP);
            let mut fast = vec![];
            assert_eq!(
                parse_long_result(text.as_bytes(), "tool", 7, &mut fast),
                Some(Ok(false)),
                "the fast path is taken"
            );
            assert_eq!(fast, full(&text));
            match &fast[0] {
                Event::Result(r) => assert!(r.truncated && r.text.len() <= 2 * TEXT_CAP + 8),
                _ => panic!(),
            }
        }
        // A nested "content" key first, a short content, an assistant row: not taken.
        let nested = format!(
            r#"{{"role":"tool","meta":{{"content":"{body}"}},"tool_call_id":"c1","content":"x","is_error":false}}"#
        );
        assert_eq!(parse_long_result(nested.as_bytes(), "tool", 7, &mut vec![]), None);
        let mut out = vec![];
        assert_eq!(parse_message(&nested, "tool", 7, &mut out), Ok(false));
        assert!(matches!(&out[0], Event::Result(r) if r.text == "x"));
        let assistant = format!(r#"{{"role":"assistant","content":"{body}"}}"#);
        assert_eq!(parse_long_result(assistant.as_bytes(), "assistant", 7, &mut vec![]), None);
        // An unterminated long string is not taken, and is malformed as a whole.
        let cut = format!(r#"{{"role":"tool","tool_call_id":"c1","content":"{body}"#);
        assert_eq!(parse_long_result(cut.as_bytes(), "tool", 7, &mut vec![]), None);
        assert!(parse_message(&cut, "tool", 7, &mut vec![]).is_err());
    }

    /// The one-pass path for tool rows reads what the general path reads.
    #[test]
    fn plain_tool_rows_read_as_the_general_path_reads_them() {
        let long = "y\\n".repeat(3000);
        let cases = [
            r#"{"role":"tool","id":"019e9069-e494-70c6-a6a3-a4506513270e","tool_call_id":"c1","content":"ok","is_error":false}"#.to_string(),
            r#"{"role":"tool","tool_call_id":"c\u0032","content":"a\n\"b\"\t\u00e9 \ud83d\ude00","is_error":true}"#.into(),
            r#"{"role":"tool","tool_call_id":7,"content":null}"#.into(),
            r#"{"role":"tool","tool_call_id":"c3"}"#.into(),
            r#"{"role":"tool","tool_call_id":"c4","content":[{"type":"text","text":"x"},"y"]}"#.into(),
            r#"{"role":"tool","tool_call_id":"c5","content":"lone \ud800"}"#.into(),
            r#"{"tool_call_id":"c6","content":"no role: the column's"}"#.into(),
            r#"{"version":1,"type":"message","message":{"role":"tool","tool_call_id":"c7","content":"in an envelope"}}"#.into(),
            r#"{"role":"assistant","content":"prose","tool_calls":[{"id":"c8","name":"Read","arguments":"{}"}]}"#.into(),
            r#"{"role":"tool","content":"no id"}"#.into(),
            r#"{"role":"tool","tool_call_id":"c9","content":"dup","content":"licate"}"#.into(),
            format!(r#"{{"role":"tool","tool_call_id":"c10","content":"{long}"}}"#),
        ];
        for json in &cases {
            let (mut fast, mut general) = (vec![], vec![]);
            let a = parse_message(json, "tool", 3, &mut fast);
            let b = parse_general(json, "tool", 3, &mut general);
            assert_eq!((a, fast), (b, general), "{json}");
        }
    }

    #[test]
    fn uuid_v7_times() {
        let t = uuid_v7_time("019e9069-e494-70c6-a6a3-a4506513270e").unwrap();
        assert_eq!(t.timestamp_millis(), 0x019e9069e494);
        assert!(uuid_v7_time("019e9069-e494-40c6-a6a3-a4506513270e").is_none(), "v4 has no time");
        assert!(uuid_v7_time("nonsense").is_none());
    }
}
