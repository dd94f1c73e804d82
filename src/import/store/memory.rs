//! The store's in-memory backend: what an import of transcripts would
//! write to the scratch database, held as rows with the database's own
//! rules (upserts keyed by session and call id, rowids given as SQLite
//! gives them), so a scan reads it back as it would read the database
//! (`read_in_memory`), without writing or reading a B-tree.
//!
//! Texts and inputs longer than `INLINE` bytes are appended to the text
//! file (texts.rs) and read back once, when their session is judged, so
//! memory holds ids, names and short texts only. Past `BUDGET` bytes of
//! those, or past the owners the writer holds in memory, the writer copies
//! the store into the scratch database (`Writer::check_mem`, `copy_into`)
//! and goes on there, spilled (spilled.rs): memory stays bounded at any
//! size.

use foldhash::HashMap;
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};

use super::spilled::{SPILLED_KEYS, SPILLED_SCHEMA, SPILLED_TABLES};
use super::texts::{StoredText, TextFile};
use crate::model::{Dialect, Usage};
use crate::source::falseok::{RowRef, int_ref, push_row, text_ref};
use crate::source::rows::{SessionIndex, emit};
use crate::source::{ReadContext, ReadResult};
use std::sync::Arc;

/// Texts longer than this go to the text file, not into memory.
pub(in crate::import) const INLINE: usize = 256;

/// Bytes of rows held in memory (their strings, and about `ROW_COST` a
/// row) before the store moves to the scratch database.
pub(in crate::import) const BUDGET: usize = 64 << 20;

/// What a row costs in memory beyond its strings (the slot, the two keys of
/// its maps, their hash table entries).
const ROW_COST: usize = 160;

/// One row of `sessions`.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionInfo {
    pub parent: Option<String>,
    pub agent: Option<String>,
    pub source: Option<String>,
    pub started: Option<String>,
}

/// A session id, and its `sessions` row once written.
#[derive(Debug)]
pub(crate) struct MemSession {
    pub id: String,
    pub info: Option<SessionInfo>,
    /// The bytes and the calls written to it, about (rows moved away or
    /// forgotten stay counted where they were written).
    bytes: usize,
    calls: usize,
}

/// One row of `calls`.
#[derive(Debug)]
pub(crate) struct MemCall {
    pub session: u32,
    pub id: Box<str>,
    pub seq: i64,
    pub tool: Box<str>,
    pub input: StoredText,
    pub time: Option<Box<str>>,
    /// The usage columns (`source::falseok::USAGE_COLUMNS`), if recorded.
    pub usage: Option<Arc<Usage>>,
}

/// One row of `results`.
#[derive(Debug)]
pub(crate) struct MemResult {
    pub session: u32,
    pub call_id: Box<str>,
    pub text: StoredText,
    pub is_error: Option<i64>,
    pub exit_code: Option<i64>,
    pub time: Option<Box<str>>,
}

/// A row keyed by its session and call id.
trait Keyed {
    fn key(&self) -> (u32, &str);
}

impl Keyed for MemCall {
    fn key(&self) -> (u32, &str) {
        (self.session, &self.id)
    }
}

impl Keyed for MemResult {
    fn key(&self) -> (u32, &str) {
        (self.session, &self.call_id)
    }
}

/// The live rows of a table by (session, call id), each key read from its
/// row, so an id is kept once, in its row, and a lookup allocates nothing
/// (maps keyed by a copy of each id, built again for every lookup, put the
/// 6 GB bench folder's peak RSS at 172–177 MB; this, 167 MB). Every entry
/// names a live row: a row leaves the index before it is deleted.
#[derive(Debug, Default)]
struct RowIndex {
    table: hashbrown::HashTable<u32>,
    state: foldhash::fast::RandomState,
}

impl RowIndex {
    fn hash(state: &foldhash::fast::RandomState, s: u32, id: &str) -> u64 {
        std::hash::BuildHasher::hash_one(state, (s, id))
    }

    fn is<T: Keyed>(rows: &[Option<T>], at: u32, s: u32, id: &str) -> bool {
        rows.get(at as usize).and_then(Option::as_ref).is_some_and(|r| r.key() == (s, id))
    }

    /// The row of `(s, id)`.
    fn find<T: Keyed>(&self, rows: &[Option<T>], s: u32, id: &str) -> Option<u32> {
        self.table.find(Self::hash(&self.state, s, id), |&at| Self::is(rows, at, s, id)).copied()
    }

    /// Row `at` of `rows`, live, is keyed `(s, id)`, which no other row is.
    fn insert<T: Keyed>(&mut self, rows: &[Option<T>], s: u32, id: &str, at: u32) {
        let state = &self.state;
        let rehash = |&i: &u32| {
            let (s, id) = rows.get(i as usize).and_then(Option::as_ref).map_or((u32::MAX, ""), Keyed::key);
            Self::hash(state, s, id)
        };
        self.table.insert_unique(Self::hash(state, s, id), at, rehash);
    }

    /// Take `(s, id)` out, while its row is still keyed so: its row.
    fn remove<T: Keyed>(&mut self, rows: &[Option<T>], s: u32, id: &str) -> Option<u32> {
        let entry = self.table.find_entry(Self::hash(&self.state, s, id), |&at| Self::is(rows, at, s, id));
        entry.ok().map(|e| e.remove().0)
    }
}

/// The store. Row `i` of `calls` and `results` has rowid `i + 1`; a deleted
/// row is `None`, and trailing deleted rows are dropped, so the next rowid
/// is one more than the greatest live one, as SQLite gives it.
#[derive(Debug)]
pub(crate) struct MemStore {
    pub sessions: Vec<MemSession>,
    session_at: HashMap<String, u32>,
    pub calls: Vec<Option<MemCall>>,
    call_at: RowIndex,
    pub results: Vec<Option<MemResult>>,
    result_at: RowIndex,
    /// Sessions with a `sessions` row.
    pub rows_of_sessions: usize,
    texts: TextFile,
    /// What the rows hold in memory, about.
    pub bytes: usize,
    /// The most `MemSession::bytes` and `calls` of any session.
    pub largest: Largest,
}

/// The most bytes and calls written to one session of a store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Largest {
    pub bytes: usize,
    pub calls: usize,
}

/// The error SQLite gives for a second row with the same key.
fn key_conflict(table: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY),
        Some(format!("UNIQUE constraint failed: {table}")),
    )
}

impl MemStore {
    /// An empty store whose long texts go to the file `texts`, which
    /// exists (a private file of the scratch folder) and is written when the
    /// first one comes.
    pub(crate) fn new(texts: &Path) -> MemStore {
        MemStore {
            sessions: Vec::new(),
            session_at: HashMap::default(),
            calls: Vec::new(),
            call_at: RowIndex::default(),
            results: Vec::new(),
            result_at: RowIndex::default(),
            rows_of_sessions: 0,
            texts: TextFile::new(texts),
            bytes: 0,
            largest: Largest::default(),
        }
    }

    /// Session `at` was given the bytes the store grew by since `before`,
    /// and `calls` calls.
    fn charge(&mut self, at: u32, before: usize, calls: usize) {
        let grown = self.bytes - before;
        let s = &mut self.sessions[at as usize];
        s.bytes += grown;
        s.calls += calls;
        self.largest.bytes = self.largest.bytes.max(s.bytes);
        self.largest.calls = self.largest.calls.max(s.calls);
    }

    fn intern(&mut self, id: &str) -> u32 {
        if let Some(&at) = self.session_at.get(id) {
            return at;
        }
        let at = u32::try_from(self.sessions.len()).unwrap_or(u32::MAX);
        self.sessions.push(MemSession { id: id.to_string(), info: None, bytes: 0, calls: 0 });
        self.session_at.insert(id.to_string(), at);
        let before = self.bytes;
        self.bytes += 2 * id.len() + ROW_COST;
        self.charge(at, before, 0);
        at
    }

    fn stored(&mut self, text: &str) -> rusqlite::Result<StoredText> {
        if text.len() <= INLINE {
            self.bytes += text.len();
            return Ok(StoredText::Held(text.into()));
        }
        self.texts.put(text)
    }

    /// The number of `session`, if it has rows.
    fn number(&self, session: &str) -> Option<u32> {
        self.session_at.get(session).copied()
    }

    /// `INSERT INTO sessions`: the first row of a session is kept (the
    /// writer writes each session once a run).
    pub(crate) fn session(&mut self, id: &str, info: SessionInfo) {
        let at = self.intern(id) as usize;
        if self.sessions[at].info.is_none() {
            let before = self.bytes;
            self.bytes += [&info.parent, &info.agent, &info.source, &info.started]
                .iter()
                .map(|s| s.as_ref().map_or(0, String::len))
                .sum::<usize>();
            self.charge(at as u32, before, 0);
            self.sessions[at].info = Some(info);
            self.rows_of_sessions += 1;
        }
    }

    /// The `sessions` row of `id`.
    pub(crate) fn session_info(&self, id: &str) -> Option<&SessionInfo> {
        self.session_at.get(id).and_then(|&at| self.sessions[at as usize].info.as_ref())
    }

    /// `INSERT INTO calls` (the writer checked the key is new).
    pub(crate) fn call(
        &mut self,
        session: &str,
        id: &str,
        seq: i64,
        tool: &str,
        input: &str,
        time: Option<&str>,
    ) -> rusqlite::Result<()> {
        let s = self.intern(session);
        if self.call_at.find(&self.calls, s, id).is_some() {
            return Err(key_conflict("calls.session_id, calls.id"));
        }
        let before = self.bytes;
        let input = self.stored(input)?;
        self.bytes += 2 * id.len() + tool.len() + time.map_or(0, str::len) + ROW_COST;
        self.charge(s, before, 1);
        let call = MemCall {
            session: s,
            id: id.into(),
            seq,
            tool: tool.into(),
            input,
            time: time.map(Into::into),
            usage: None,
        };
        self.calls.push(Some(call));
        self.call_at.insert(&self.calls, s, id, self.calls.len() as u32 - 1);
        Ok(())
    }

    /// `INSERT … ON CONFLICT DO NOTHING` into `results`: was it new?
    pub(crate) fn result(
        &mut self,
        session: &str,
        call_id: &str,
        text: &str,
        is_error: Option<i64>,
        exit_code: Option<i64>,
        time: Option<&str>,
    ) -> rusqlite::Result<bool> {
        let s = self.intern(session);
        if self.result_at.find(&self.results, s, call_id).is_some() {
            return Ok(false);
        }
        let before = self.bytes;
        let text = self.stored(text)?;
        self.bytes += 2 * call_id.len() + time.map_or(0, str::len) + ROW_COST;
        self.charge(s, before, 0);
        let row =
            MemResult { session: s, call_id: call_id.into(), text, is_error, exit_code, time: time.map(Into::into) };
        self.results.push(Some(row));
        self.result_at.insert(&self.results, s, call_id, self.results.len() as u32 - 1);
        Ok(true)
    }

    /// The stored result of a call: text, flag, exit code, time.
    pub(crate) fn stored_result(
        &mut self,
        session: &str,
        call_id: &str,
    ) -> rusqlite::Result<Option<super::StoredResult>> {
        let Some(s) = self.number(session) else { return Ok(None) };
        let Some(at) = self.result_at.find(&self.results, s, call_id) else { return Ok(None) };
        let Some(r) = &self.results[at as usize] else { return Ok(None) };
        let (stored, is_error, exit_code, time) = (r.text.clone(), r.is_error, r.exit_code, r.time.clone());
        if matches!(stored, StoredText::InFile { .. }) {
            // The text may still be on its way to the file: it is read
            // back only once everything written is there.
            self.texts.flush()?;
        }
        Ok(Some((self.text(&stored)?, is_error, exit_code, time.map(String::from))))
    }

    /// `UPDATE results SET …` of an existing result.
    pub(crate) fn replace_result(
        &mut self,
        session: &str,
        call_id: &str,
        text: &str,
        is_error: Option<i64>,
        exit_code: Option<i64>,
        time: Option<&str>,
    ) -> rusqlite::Result<()> {
        let Some(s) = self.number(session) else { return Ok(()) };
        let Some(at) = self.result_at.find(&self.results, s, call_id) else { return Ok(()) };
        let before = self.bytes;
        let text = self.stored(text)?;
        self.charge(s, before, 0);
        if let Some(r) = self.results[at as usize].as_mut() {
            // Its key, (session, call id), stays.
            (r.text, r.is_error, r.exit_code, r.time) = (text, is_error, exit_code, time.map(Into::into));
        }
        Ok(())
    }

    /// `UPDATE calls SET` the usage columns of one call: was it there?
    pub(crate) fn call_usage(&mut self, session: &str, call_id: &str, usage: &Arc<Usage>) -> bool {
        let Some(s) = self.number(session) else { return false };
        let Some(at) = self.call_at.find(&self.calls, s, call_id) else { return false };
        let Some(c) = self.calls[at as usize].as_mut() else { return false };
        if c.usage.is_none() {
            self.bytes += std::mem::size_of::<Usage>() + usage.response.len();
        }
        c.usage = Some(usage.clone());
        true
    }

    /// `UPDATE calls SET session_id, seq` and `UPDATE results SET
    /// session_id` of one call: did a call move?
    pub(crate) fn move_call(&mut self, from: &str, to: &str, call_id: &str, seq: i64) -> rusqlite::Result<bool> {
        let Some(f) = self.number(from) else { return Ok(false) };
        let t = self.intern(to);
        let moved = match self.call_at.find(&self.calls, f, call_id) {
            Some(at) => {
                if self.call_at.find(&self.calls, t, call_id).is_some() {
                    return Err(key_conflict("calls.session_id, calls.id"));
                }
                self.call_at.remove(&self.calls, f, call_id);
                if let Some(c) = self.calls[at as usize].as_mut() {
                    c.session = t;
                    c.seq = seq;
                }
                self.call_at.insert(&self.calls, t, call_id, at);
                true
            }
            None => false,
        };
        if let Some(at) = self.result_at.find(&self.results, f, call_id) {
            if self.result_at.find(&self.results, t, call_id).is_some() {
                return Err(key_conflict("results.session_id, results.call_id"));
            }
            self.result_at.remove(&self.results, f, call_id);
            if let Some(r) = self.results[at as usize].as_mut() {
                r.session = t;
            }
            self.result_at.insert(&self.results, t, call_id, at);
        }
        Ok(moved)
    }

    /// `DELETE` the call and the result of `call_id` in `session`: how
    /// many results and calls went.
    pub(crate) fn forget_call(&mut self, session: &str, call_id: &str) -> (usize, usize) {
        let Some(s) = self.number(session) else { return (0, 0) };
        let results = match self.result_at.remove(&self.results, s, call_id) {
            Some(at) => {
                self.results[at as usize] = None;
                while self.results.last().is_some_and(Option::is_none) {
                    self.results.pop();
                }
                1
            }
            None => 0,
        };
        let calls = match self.call_at.remove(&self.calls, s, call_id) {
            Some(at) => {
                self.calls[at as usize] = None;
                while self.calls.last().is_some_and(Option::is_none) {
                    self.calls.pop();
                }
                1
            }
            None => 0,
        };
        (results, calls)
    }

    /// Every text written is readable by `text` from here on.
    pub(crate) fn seal(&mut self) -> rusqlite::Result<()> {
        self.texts.flush()
    }

    /// The text of `stored` (after `seal`).
    pub(crate) fn text(&self, stored: &StoredText) -> rusqlite::Result<String> {
        match stored {
            StoredText::Held(s) => Ok(s.to_string()),
            StoredText::InFile { at, len } => self.texts.get(*at, *len),
        }
    }

    /// The result of call `id` in session `session`.
    pub(crate) fn result_of(&self, session: u32, id: &str) -> Option<&MemResult> {
        let at = self.result_at.find(&self.results, session, id)?;
        self.results[at as usize].as_ref()
    }

    /// Is there a call `call_id` in session `session`?
    pub(crate) fn has_call(&self, session: u32, call_id: &str) -> bool {
        self.call_at.find(&self.calls, session, call_id).is_some()
    }

    /// Copy every row into the empty scratch database `conn`, under the
    /// same rowids, long texts as references to the text file, which is
    /// handed back for the writes that follow.
    ///
    /// The tables are made again without their keys and the rows appended
    /// in rowid order; the keys are indexed after (`SPILLED_KEYS`): an index
    /// built from sorted keys at once, not one random insert a row (the
    /// copy of 110,000 calls took 1.4 s, most of it SQLite page I/O).
    pub(crate) fn copy_into(self, conn: &Connection) -> rusqlite::Result<TextFile> {
        // Memory is given back as the rows go: the maps at once, each row
        // once written.
        let MemStore { sessions, session_at, calls, call_at, results, result_at, texts, .. } = self;
        drop((session_at, call_at, result_at));
        conn.execute("UPDATE falseok_meta SET value = ?1 WHERE key = 'schema_version'", [SPILLED_SCHEMA])?;
        let empty: bool = conn.query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM calls) AND NOT EXISTS (SELECT 1 FROM results)",
            [],
            |r| r.get(0),
        )?;
        if empty {
            conn.execute_batch(SPILLED_TABLES)?;
        }
        let mut insert = conn.prepare_cached(
            "INSERT INTO sessions (id, parent_id, agent, source, started_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for s in &sessions {
            if let Some(i) = &s.info {
                insert.execute(params![s.id, i.parent, i.agent, i.source, i.started])?;
            }
        }
        let mut insert = conn.prepare_cached(
            "INSERT INTO calls (rowid, session_id, id, seq, tool, input, called_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut with_usage = Vec::new();
        for (at, c) in calls.into_iter().enumerate() {
            let Some(c) = c else { continue };
            let session = &sessions[c.session as usize].id;
            insert.execute(params![at as i64 + 1, session, &*c.id, c.seq, &*c.tool, c.input, c.time.as_deref()])?;
            if let Some(u) = c.usage {
                with_usage.push((at as i64 + 1, u));
            }
        }
        for (rowid, u) in with_usage {
            super::writer::set_usage(conn, super::writer::UsageOf::Row(rowid), &u)?;
        }
        let mut insert = conn.prepare_cached(
            "INSERT INTO results (rowid, session_id, call_id, text, is_error, exit_code, returned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (at, r) in results.into_iter().enumerate() {
            let Some(r) = r else { continue };
            let session = &sessions[r.session as usize].id;
            insert.execute(params![
                at as i64 + 1,
                session,
                &*r.call_id,
                r.text,
                r.is_error,
                r.exit_code,
                r.time.as_deref()
            ])?;
        }
        if empty {
            // A duplicate key here is the store's bug, and fails the copy
            // as the keyed insert would have.
            conn.execute_batch(SPILLED_KEYS)?;
        }
        Ok(texts)
    }
}

/// Read the rows an import held in memory as `source::falseok`'s `read` reads
/// them from the database: sessions in the order of their ids, each with
/// its calls by (seq, rowid) beside their results, then the results that
/// answer no call, by rowid; the same events, counts and progress.
pub(super) fn read_in_memory(store: &MemStore, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    let mut index = SessionIndex::default();
    for s in store.sessions.iter() {
        if let Some(i) = &s.info {
            let id = ValueRef::Text(s.id.as_bytes());
            let (parent, started) = (text_ref(i.parent.as_deref()), text_ref(i.started.as_deref()));
            index.insert(id, parent, started, text_ref(i.agent.as_deref()), text_ref(i.source.as_deref()));
        }
    }
    if !index.is_empty() {
        cx.expect_sessions(index.len() as u64);
    }
    // The rows of each session, by rowid.
    let mut calls: Vec<Vec<usize>> = vec![Vec::new(); store.sessions.len()];
    for (at, c) in store.calls.iter().enumerate() {
        if let Some(c) = c {
            calls[c.session as usize].push(at);
        }
    }
    let mut orphans: Vec<Vec<usize>> = vec![Vec::new(); store.sessions.len()];
    for (at, r) in store.results.iter().enumerate() {
        if let Some(r) = r
            && !store.has_call(r.session, &r.call_id)
        {
            orphans[r.session as usize].push(at);
        }
    }
    let mut order: Vec<usize> =
        (0..store.sessions.len()).filter(|&s| !calls[s].is_empty() || !orphans[s].is_empty()).collect();
    order.sort_unstable_by(|&a, &b| store.sessions[a].id.as_bytes().cmp(store.sessions[b].id.as_bytes()));
    for s in order {
        let id = &store.sessions[s].id;
        let mut session = index.open(id, Dialect::FALSEOK, cx);
        let mut rows = std::mem::take(&mut calls[s]);
        rows.sort_by_key(|&at| store.calls[at].as_ref().map(|c| c.seq));
        for at in rows {
            cx.row();
            let (Some(c), Some(session)) = (&store.calls[at], session.as_mut()) else { continue };
            // As `opt_text` and `text_of` read the columns: no NULL here.
            let input = Some(store.text(&c.input)?).filter(|s| !s.is_empty());
            let result = store.result_of(c.session, &c.id);
            let text = match result {
                Some(r) => store.text(&r.text)?,
                None => String::new(),
            };
            let row = RowRef {
                orphan: false,
                row: at as i64 + 1,
                call_id: ValueRef::Text(c.id.as_bytes()),
                tool: ValueRef::Text(c.tool.as_bytes()),
                input,
                called_at: text_ref(c.time.as_deref()),
                has_result: result.is_some(),
                text,
                is_error: int_ref(result.and_then(|r| r.is_error)),
                exit_code: int_ref(result.and_then(|r| r.exit_code)),
                returned_at: text_ref(result.and_then(|r| r.time.as_deref())),
                usage: c.usage.clone(),
            };
            push_row(row, session);
        }
        for at in std::mem::take(&mut orphans[s]) {
            cx.row();
            let (Some(r), Some(session)) = (&store.results[at], session.as_mut()) else { continue };
            let text = store.text(&r.text)?;
            let row = RowRef {
                orphan: true,
                row: at as i64 + 1,
                call_id: ValueRef::Text(r.call_id.as_bytes()),
                tool: ValueRef::Null,
                input: None,
                called_at: ValueRef::Null,
                has_result: true,
                text,
                is_error: int_ref(r.is_error),
                exit_code: int_ref(r.exit_code),
                returned_at: text_ref(r.time.as_deref()),
                usage: None,
            };
            push_row(row, session);
        }
        if let Some(session) = session {
            emit(session, cx)?;
        }
        cx.session_done();
    }
    Ok(())
}
