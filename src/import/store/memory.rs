//! The scratch store of a scan, in memory: what an import of transcripts
//! would write to the scratch database, kept as rows with the database's
//! own rules (upserts keyed by session and call id, rowids given as SQLite
//! gives them), so a scan reads it back as it would read the database
//! (`source::falseok::read_mem`), without writing or reading a B-tree.
//!
//! Texts and inputs longer than `INLINE` bytes are appended to a file in
//! the scratch folder and read back once, when their session is judged, so
//! memory holds ids, names and short texts only. Past `BUDGET` bytes of
//! those, or past the owners the writer keeps in memory, the writer copies
//! the store into the scratch database (`Writer::check_mem`) and goes on
//! there: memory stays bounded at any size. The long texts stay in the
//! file then: the database holds a reference to each (`filed_ref`, a
//! 12-byte blob where the text would be), so its pages hold rows, not
//! texts, and it is read by `read_filed`, never by the falseok adapter
//! (its schema version says so: `FILED_SCHEMA`).

use foldhash::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Row, ToSql, params};

use crate::error::{Error, Result};
use crate::model::{Dialect, Session};
use crate::source::falseok::{RowRef, SESSIONS, int_ref, push_row, text_ref};
use crate::source::rows::{SessionIndex, Stream, emit, opt_text, stream_by_session, text_of};
use crate::source::{ReadContext, ReadError, ReadResult, SourceOptions, SourceStats};

/// Texts longer than this are kept in the text file, not in memory.
pub(in crate::import) const INLINE: usize = 256;

/// Bytes of rows kept in memory (their strings, and about `ROW_COST` a
/// row) before the store moves to the scratch database.
pub(in crate::import) const BUDGET: usize = 64 << 20;

/// What a row costs in memory beyond its strings (the slot, the two keys of
/// its maps, their hash table entries).
const ROW_COST: usize = 160;

/// The schema version a scratch database is given once it holds
/// references to the text file: the falseok adapter refuses to read it,
/// so its references are never taken for texts.
pub(crate) const FILED_SCHEMA: &str = "1 (a scan's scratch copy; long texts in a file beside it)";

/// A text, held or in the text file.
#[derive(Debug, Clone)]
pub(crate) enum Blob {
    Held(Box<str>),
    /// `len` bytes at `at` of the text file.
    Filed {
        at: u64,
        len: u32,
    },
}

/// The reference to `len` bytes at `at` of the text file, as the scratch
/// database stores it in place of the text: a blob, `at` then `len`, little
/// endian. The writer binds every text as TEXT, so a blob is one of these.
pub(crate) fn filed_ref(at: u64, len: u32) -> [u8; 12] {
    let mut r = [0u8; 12];
    r[..8].copy_from_slice(&at.to_le_bytes());
    r[8..].copy_from_slice(&len.to_le_bytes());
    r
}

impl ToSql for Blob {
    /// A held text as TEXT, a filed one as its reference.
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Blob::Held(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Blob::Filed { at, len } => ToSqlOutput::Owned(rusqlite::types::Value::Blob(filed_ref(*at, *len).to_vec())),
        })
    }
}

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
    pub input: Blob,
    pub time: Option<Box<str>>,
}

/// One row of `results`.
#[derive(Debug)]
pub(crate) struct MemResult {
    pub session: u32,
    pub call_id: Box<str>,
    pub text: Blob,
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

/// The file long texts are appended to.
#[derive(Debug)]
pub(crate) struct TextFile {
    path: PathBuf,
    out: Option<Behind>,
    reader: Option<File>,
    len: u64,
}

/// Bytes of texts gathered before they are handed to the writing thread.
const BEHIND_BLOCK: usize = 1 << 20;

/// A file written on a thread of its own: the importer's thread copies a
/// text into a block and goes on, and the copy into the kernel (a tenth of
/// a transcript scan's time on one thread) is made beside it. At most two
/// blocks wait, so memory stays bounded.
#[derive(Debug)]
struct Behind {
    block: Vec<u8>,
    blocks: Option<crossbeam_channel::Sender<Vec<u8>>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Behind {
    fn new(file: File) -> std::io::Result<Behind> {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(2);
        let thread = std::thread::Builder::new().name("falseok-texts".into()).spawn(move || {
            let mut file = file;
            for block in rx {
                file.write_all(&block)?;
            }
            Ok(())
        })?;
        Ok(Behind { block: Vec::with_capacity(BEHIND_BLOCK), blocks: Some(tx), thread: Some(thread) })
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.block.extend_from_slice(bytes);
        if self.block.len() >= BEHIND_BLOCK {
            let block = std::mem::replace(&mut self.block, Vec::with_capacity(BEHIND_BLOCK));
            let sent = self.blocks.as_ref().is_some_and(|tx| tx.send(block).is_ok());
            if !sent {
                // The thread stopped: its error says why. A text is never
                // dropped without one.
                let stopped = self.finish().err();
                return Err(stopped.unwrap_or_else(|| std::io::Error::other("the thread writing texts stopped")));
            }
        }
        Ok(())
    }

    /// Write what is left and wait for the thread: everything written is
    /// in the file, or the first error that stopped it.
    fn finish(&mut self) -> std::io::Result<()> {
        let block = std::mem::take(&mut self.block);
        if let Some(tx) = self.blocks.take()
            && !block.is_empty()
        {
            let _ = tx.send(block);
        }
        match self.thread.take().map(std::thread::JoinHandle::join) {
            None => Ok(()),
            Some(Ok(done)) => done,
            Some(Err(_)) => Err(std::io::Error::other("the thread writing texts stopped")),
        }
    }
}

impl Drop for Behind {
    /// Nothing is written after the store is gone (and its file removed).
    fn drop(&mut self) {
        self.block.clear();
        let _ = self.finish();
    }
}

/// The failure of the text file as SQLite would report the scratch
/// database's (a full disk, an I/O error), so the import names it alike.
fn io_failure(e: &std::io::Error) -> rusqlite::Error {
    let code = if e.raw_os_error() == Some(28) || e.kind() == std::io::ErrorKind::StorageFull {
        rusqlite::ffi::SQLITE_FULL
    } else {
        rusqlite::ffi::SQLITE_IOERR
    };
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(format!("the scratch text file: {e}")))
}

/// The error SQLite gives for a second row with the same key.
fn key_conflict(table: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY),
        Some(format!("UNIQUE constraint failed: {table}")),
    )
}

impl TextFile {
    /// Where `text` will be if it is the next one `put`.
    pub(crate) fn next(&self, text: &str) -> rusqlite::Result<Blob> {
        let Ok(len) = u32::try_from(text.len()) else {
            return Err(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_TOOBIG), None));
        };
        Ok(Blob::Filed { at: self.len, len })
    }

    /// Append `text`: where it is.
    pub(crate) fn put(&mut self, text: &str) -> rusqlite::Result<Blob> {
        let Blob::Filed { len, .. } = self.next(text)? else { unreachable!("`next` files") };
        if self.out.is_none() {
            // Made private beforehand by the caller (`MemStore::new`); the
            // texts of an earlier `flush` are kept.
            let fresh = self.len == 0;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(fresh)
                .append(!fresh)
                .open(&self.path)
                .map_err(|e| io_failure(&e))?;
            self.out = Some(Behind::new(file).map_err(|e| io_failure(&e))?);
        }
        let Some(out) = self.out.as_mut() else { unreachable!("opened above") };
        out.write(text.as_bytes()).map_err(|e| io_failure(&e))?;
        let at = self.len;
        self.len += u64::from(len);
        self.reader = None;
        Ok(Blob::Filed { at, len })
    }

    /// Everything written is readable from here on.
    pub(crate) fn flush(&mut self) -> rusqlite::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.finish().map_err(|e| io_failure(&e))?;
        }
        if self.reader.is_none() && self.len > 0 {
            self.reader = Some(File::open(&self.path).map_err(|e| io_failure(&e))?);
        }
        Ok(())
    }

    fn get(&self, at: u64, len: u32) -> rusqlite::Result<String> {
        let Some(file) = &self.reader else {
            return Err(io_failure(&std::io::Error::other("read before it was written")));
        };
        let mut buf = vec![0u8; len as usize];
        read_exact_at(file, &mut buf, at).map_err(|e| io_failure(&e))?;
        // Written from a `str`, read back whole: valid UTF-8 unless the
        // file changed under us, which the lossy read shows.
        Ok(match String::from_utf8(buf) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// A text column of the scratch database as `text_of` reads it, its
    /// reference to this file read from the file (after `flush`).
    pub(crate) fn text_of(&self, v: ValueRef<'_>) -> rusqlite::Result<String> {
        match v {
            ValueRef::Blob(r) if r.len() == 12 => {
                let (at, len) = r.split_at(8);
                let at = u64::from_le_bytes(at.try_into().unwrap_or_default());
                self.get(at, u32::from_le_bytes(len.try_into().unwrap_or_default()))
            }
            v => Ok(text_of(v)),
        }
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
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
            texts: TextFile { path: texts.to_path_buf(), out: None, reader: None, len: 0 },
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

    fn blob(&mut self, text: &str) -> rusqlite::Result<Blob> {
        if text.len() <= INLINE {
            self.bytes += text.len();
            return Ok(Blob::Held(text.into()));
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
        let input = self.blob(input)?;
        self.bytes += 2 * id.len() + tool.len() + time.map_or(0, str::len) + ROW_COST;
        self.charge(s, before, 1);
        let call = MemCall { session: s, id: id.into(), seq, tool: tool.into(), input, time: time.map(Into::into) };
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
        let text = self.blob(text)?;
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
        let (blob, is_error, exit_code, time) = (r.text.clone(), r.is_error, r.exit_code, r.time.clone());
        if matches!(blob, Blob::Filed { .. }) {
            // The text may still be on its way to the file: it is read
            // back only once everything written is there.
            self.texts.flush()?;
        }
        Ok(Some((self.text(&blob)?, is_error, exit_code, time.map(String::from))))
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
        let text = self.blob(text)?;
        self.charge(s, before, 0);
        if let Some(r) = self.results[at as usize].as_mut() {
            // Its key, (session, call id), stays.
            (r.text, r.is_error, r.exit_code, r.time) = (text, is_error, exit_code, time.map(Into::into));
        }
        Ok(())
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

    /// The text of `blob` (after `seal`).
    pub(crate) fn text(&self, blob: &Blob) -> rusqlite::Result<String> {
        match blob {
            Blob::Held(s) => Ok(s.to_string()),
            Blob::Filed { at, len } => self.texts.get(*at, *len),
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
    /// in rowid order; the keys are indexed after (`FILED_KEYS`): an index
    /// built from sorted keys at once, not one random insert a row (the
    /// copy of 110,000 calls took 1.4 s, most of it SQLite page I/O).
    pub(crate) fn copy_into(self, conn: &Connection) -> rusqlite::Result<TextFile> {
        // Memory is given back as the rows go: the maps at once, each row
        // once written.
        let MemStore { sessions, session_at, calls, call_at, results, result_at, texts, .. } = self;
        drop((session_at, call_at, result_at));
        conn.execute("UPDATE falseok_meta SET value = ?1 WHERE key = 'schema_version'", [FILED_SCHEMA])?;
        let empty: bool = conn.query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM calls) AND NOT EXISTS (SELECT 1 FROM results)",
            [],
            |r| r.get(0),
        )?;
        if empty {
            conn.execute_batch(FILED_TABLES)?;
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
        for (at, c) in calls.into_iter().enumerate() {
            let Some(c) = c else { continue };
            let session = &sessions[c.session as usize].id;
            insert.execute(params![at as i64 + 1, session, &*c.id, c.seq, &*c.tool, c.input, c.time.as_deref()])?;
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
            conn.execute_batch(FILED_KEYS)?;
        }
        Ok(texts)
    }
}

/// The scratch database's `calls` and `results` made again, empty, with
/// the columns of `sql/schema.sql` but no key, for `copy_into` to append
/// to; `FILED_KEYS` indexes them after. `calls_by_id` is made when the
/// writer stops keeping call owners in memory (`Writer::call`), the only
/// time it is asked.
const FILED_TABLES: &str = "
DROP TABLE calls;
DROP TABLE results;
CREATE TABLE calls (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  id         TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  tool       TEXT NOT NULL,
  input      TEXT,
  called_at  TEXT
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
const FILED_KEYS: &str = "
CREATE UNIQUE INDEX calls_key ON calls (session_id, id);
CREATE UNIQUE INDEX results_key ON results (session_id, call_id);
CREATE INDEX calls_by_seq ON calls (session_id, seq);";

/// The index `session_of_call` asks once call owners are no longer kept
/// in memory.
pub(crate) const FILED_CALLS_BY_ID: &str = "CREATE INDEX IF NOT EXISTS calls_by_id ON calls (id)";

/// What a scan's import kept outside the scratch database: every row
/// (it stayed within the budget), or the long texts the rows in the
/// database refer to.
#[derive(Debug)]
pub(crate) enum Kept {
    Rows(Box<MemStore>),
    Texts(TextFile),
}

impl Kept {
    /// Every text written is readable from here on.
    pub(crate) fn seal(&mut self) -> rusqlite::Result<()> {
        match self {
            Kept::Rows(m) => m.seal(),
            Kept::Texts(t) => t.flush(),
        }
    }

    /// The rows, if they are in memory.
    pub(crate) fn rows(&self) -> Option<&MemStore> {
        match self {
            Kept::Rows(m) => Some(m),
            Kept::Texts(_) => None,
        }
    }
}

/// Read the transcripts of `path` imported by a scan: from the rows kept in
/// memory, or from the scratch database `conn` and the texts kept beside
/// it, as the falseok adapter reads a database that holds them all.
pub(crate) fn read_kept(
    path: &Path,
    conn: &Connection,
    kept: &Kept,
    opts: &SourceOptions,
    progress: &mut dyn FnMut(u64, u64),
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    let mut cx = ReadContext::new(opts, progress, sink);
    match kept {
        Kept::Rows(store) => read_mem(store, &mut cx),
        Kept::Texts(texts) => read_filed(conn, texts, &mut cx),
    }
    .map_err(|e| match e {
        ReadError::Sql(e) => Error::input(path, crate::source::open::sqlite_problem(&e)),
        ReadError::Unsupported(problem) => Error::input(path, problem),
    })?;
    Ok(cx.stats())
}

/// `source::falseok::ROWS` for the scratch database: the same rows in
/// the same order, without sorting each session's calls. `ROWS` puts a
/// session's calls before its orphan results by a constant column, which
/// SQLite cannot take from an index: it sorted every call of a session
/// (200,000 rows in the bench's one-session case) in a temporary B-tree.
/// Here orphan results sort after calls by their seq, `i64::MAX`, which no
/// call of the scratch database has (the writer numbers them from 1), so
/// calls come in `calls_by_seq` order as they are, then orphans by rowid.
const FILED_ROWS: &str = "\
SELECT c.session_id, 0, c.seq, c.rowid, c.id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL, r.text, r.is_error, r.exit_code, r.returned_at
  FROM calls c INDEXED BY calls_by_seq
  LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
UNION ALL
SELECT r.session_id, 1, 9223372036854775807, r.rowid, r.call_id, NULL, NULL, NULL, 1, r.text, r.is_error, r.exit_code,
       r.returned_at
  FROM results r
 WHERE NOT EXISTS (SELECT 1 FROM calls c WHERE c.session_id = r.session_id AND c.id = r.call_id)
ORDER BY 1, 3, 4";

/// Read the scratch database `conn`, whose long texts are in `texts`, as
/// the falseok adapter (`source/falseok.rs`) reads a database that
/// holds them: the same rows (`FILED_ROWS`) and events.
fn read_filed(conn: &Connection, texts: &TextFile, cx: &mut ReadContext<'_>) -> ReadResult<()> {
    let index = SessionIndex::load(conn, SESSIONS)?;
    let stream = Stream { dialect: Dialect::FALSEOK, index: &index, sql: FILED_ROWS };
    let read_row = |r: &Row<'_>, session: &mut Session| {
        // As `opt_text` reads the input: a reference is to a long text.
        let input = match r.get_ref(6)? {
            v @ ValueRef::Blob(_) => Some(texts.text_of(v)?).filter(|s| !s.is_empty()),
            v => opt_text(v),
        };
        let row = RowRef {
            orphan: r.get::<_, i64>(1)? != 0,
            row: r.get(3)?,
            call_id: r.get_ref(4)?,
            tool: r.get_ref(5)?,
            input,
            called_at: r.get_ref(7)?,
            has_result: r.get::<_, i64>(8)? == 1,
            text: texts.text_of(r.get_ref(9)?)?,
            is_error: r.get_ref(10)?,
            exit_code: r.get_ref(11)?,
            returned_at: r.get_ref(12)?,
        };
        push_row(row, session);
        Ok(())
    };
    stream_by_session(conn, cx, stream, read_row, emit)?;
    Ok(())
}

/// Read the rows an import kept in memory (import/store/memory.rs) as `read` reads
/// them from the database: sessions in the order of their ids, each with
/// its calls by (seq, rowid) beside their results, then the results that
/// answer no call, by rowid; the same events, counts and progress.
fn read_mem(store: &MemStore, cx: &mut ReadContext<'_>) -> ReadResult<()> {
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
