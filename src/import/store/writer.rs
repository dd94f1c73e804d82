//! The database side of an import: the writer every importer writes
//! through (upserts keyed by session and call id, the records of what each
//! file gave), and the databases it writes: `--into`'s or a scratch one.

use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, ToSql, params};
use serde_json::Value;

use super::Store;
use super::memory::{self as mem, MemStore, SessionInfo};
use super::owners::Owners;
use super::record;
use super::spilled::SPILLED_CALLS_BY_ID;
use super::texts::{StoredText, TextFile};
use crate::error::{Error, Result};
use crate::import::{ImportStats, LineReader, TypedParse};
use crate::model::Usage;
use crate::source::falseok::{SCHEMA_SQL, SCHEMA_VERSION, VIEWS_SQL};

/// The database side of an import: upserts into the schema's tables.
pub(crate) struct Writer<'c> {
    pub(in crate::import) conn: &'c Connection,
    /// Next `seq` per session, continuing after what the database holds.
    pub(in crate::import) next_seq: HashMap<String, i64>,
    /// Sessions written in this run.
    pub(in crate::import) sessions: HashSet<String>,
    /// When the database held no call at the start: the sessions holding
    /// each call id, in the order their rows were inserted, so that
    /// `session_of_call` and the duplicate check need no query. `None`:
    /// the database is asked, as it is once the map holds more than
    /// `owners_cap` ids, so memory stays bounded.
    pub(in crate::import) owners: Option<Owners>,
    pub(in crate::import) owners_cap: usize,
    /// The storage failure a write met (a full disk, an I/O error, a value
    /// too big), so the error can name what the user gave, not the file
    /// being read when it happened.
    pub(in crate::import) failed: std::cell::Cell<Option<rusqlite::ErrorCode>>,
    /// The file being imported, and the first session written while each
    /// file was (the session its broken lines are reported in).
    pub(in crate::import) reading: Option<PathBuf>,
    pub(in crate::import) file_sessions: HashMap<PathBuf, String>,
    /// What each file gave, when the import keeps it (import/store/record.rs).
    pub(in crate::import) record: Option<record::Recorder>,
    /// The rows, while the store is in memory (a scan's store,
    /// import/store/memory.rs); `None`: they are in `conn`.
    pub(in crate::import) mem: Option<Box<MemStore>>,
    /// The bytes `mem` may hold before it is copied into `conn`.
    pub(in crate::import) mem_budget: usize,
    /// Whether the rows of `mem`'s largest session are held beyond
    /// `mem_budget` (and its calls' owners beyond `owners_cap`): a session
    /// is judged whole, so memory holds it then anyway, and its rows are
    /// read back from memory, not by one B-tree search each.
    pub(in crate::import) mem_whole_session: bool,
    /// Once `mem` spilled into `conn` (a scan's scratch database): the
    /// file its long texts are in, and those written after it; `conn`
    /// holds references to them (`texts::file_ref`). `None`: `conn` holds
    /// its texts (`import --into`, or the rows are still in memory).
    pub(in crate::import) texts: Option<TextFile>,
    /// The readers of this file and the next ones, each opened while a
    /// file before it was written (`Importer::lines_ahead`), or why it could not
    /// be opened: that is said when its turn comes, as if opened then.
    pub(in crate::import) ahead: Vec<(PathBuf, Result<LineReader>)>,
    pub stats: ImportStats,
}

/// Call ids whose owners an import keeps in memory (import/store/owners.rs);
/// past it, the database is asked.
pub(in crate::import) const OWNERS_CAP: usize = 200_000;

/// A session as an importer sees it.
pub(crate) struct SessionRow<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub agent: &'static str,
    pub source: &'a str,
    pub started: Option<&'a str>,
}

impl<'c> Writer<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Self {
        let empty = conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM calls)", [], |r| r.get::<_, bool>(0));
        let owners = empty.unwrap_or(false).then(Owners::default);
        Writer {
            conn,
            next_seq: HashMap::default(),
            sessions: HashSet::default(),
            owners,
            owners_cap: OWNERS_CAP,
            failed: std::cell::Cell::new(None),
            reading: None,
            file_sessions: HashMap::default(),
            record: None,
            mem: None,
            mem_budget: mem::BUDGET,
            mem_whole_session: false,
            texts: None,
            ahead: Vec::new(),
            stats: ImportStats::default(),
        }
    }

    /// InMemory the rows in memory, long texts in the file `texts`, until they
    /// pass the budget (only into a database that holds no call yet).
    pub(in crate::import) fn in_memory(&mut self, texts: &Path) {
        if self.owners.is_some() {
            self.mem = Some(Box::new(MemStore::new(texts)));
        }
    }

    /// The lines of `path`, parsed by `typed` where it can: the reader
    /// opened ahead for it, or one opened now. A run's `typed` is the one
    /// its importer's `lines_ahead` names.
    pub(crate) fn lines(&mut self, path: &Path, typed: Option<TypedParse>) -> Result<LineReader> {
        match self.ahead.iter().position(|(at, _)| at == path) {
            Some(i) => self.ahead.remove(i).1,
            None => LineReader::open_typed(path, typed),
        }
    }

    /// The store, in memory or spilled into `conn`, if the import made
    /// one (a scan's): the import is over.
    pub(in crate::import) fn take_store(&mut self) -> Option<Store> {
        match self.mem.take() {
            Some(mem) => Some(Store::InMemory(mem)),
            None => self.texts.take().map(Store::Spilled),
        }
    }

    /// Past the budget, or past the owners kept in memory: the rows go to
    /// `conn`, and every write after them; long texts stay in their file.
    fn check_mem(&mut self) -> rusqlite::Result<()> {
        let over = self.mem.as_ref().is_some_and(|m| {
            let whole = if self.mem_whole_session { m.largest } else { mem::Largest::default() };
            m.bytes > self.mem_budget + whole.bytes
                || self.owners.as_ref().is_some_and(|o| o.len() > self.owners_cap + whole.calls)
        });
        if over && let Some(mem) = self.mem.take() {
            self.texts = Some(mem.copy_into(self.conn).inspect_err(|e| self.seen(e))?);
            if self.owners.is_none() {
                self.conn.execute_batch(SPILLED_CALLS_BY_ID).inspect_err(|e| self.seen(e))?;
            }
        }
        Ok(())
    }

    /// `text` as `conn` stores it: a long one put in the text file, when
    /// `conn` keeps its long texts there.
    fn stored(&mut self, text: &str) -> rusqlite::Result<Option<StoredText>> {
        match &mut self.texts {
            Some(file) if text.len() > mem::INLINE => file.put(text).inspect_err(|e| note(&self.failed, e)).map(Some),
            _ => Ok(None),
        }
    }

    /// A text column of `conn` as it was written (`stored`).
    fn text_back(&mut self, v: SqlValue) -> rusqlite::Result<String> {
        match (v, &mut self.texts) {
            (SqlValue::Text(s), _) => Ok(s),
            (SqlValue::Blob(r), Some(file)) => {
                // It may still be on its way to the file.
                file.flush().inspect_err(|e| note(&self.failed, e))?;
                file.text_of(rusqlite::types::ValueRef::Blob(&r))
            }
            // What `get::<String>` says of a column that is not text.
            (v, _) => Err(rusqlite::Error::InvalidColumnType(0, "text".into(), v.data_type())),
        }
    }

    /// The file being read wrote to `session` (for the records).
    pub(in crate::import) fn touch(&mut self, session: &str) {
        if let (Some(rec), Some(file)) = (&mut self.record, &self.reading) {
            rec.session(file, session);
        }
    }

    /// The file being read defined or looked up a key other files may
    /// hold too: a run that keeps keys across files (Claude Code's line
    /// uuids) declares each one it meets, so the records bind the files.
    pub(crate) fn shared_key(&mut self, kind: record::Key, key: &str) {
        if let (Some(rec), Some(file)) = (&mut self.record, &self.reading) {
            rec.key(file, kind, key);
        }
    }

    /// Create or update a session. The earliest start time wins; parent,
    /// agent and source are kept once known.
    pub(crate) fn session(&mut self, s: &SessionRow<'_>) -> rusqlite::Result<()> {
        self.touch(s.id);
        if let Some(file) = &self.reading
            && !self.file_sessions.contains_key(file)
        {
            self.file_sessions.insert(file.clone(), s.id.to_string());
        }
        if !self.sessions.insert(s.id.to_string()) {
            return Ok(());
        }
        if let Some(mem) = &mut self.mem {
            let info = SessionInfo {
                parent: s.parent.map(str::to_string),
                agent: Some(s.agent.to_string()),
                source: Some(s.source.to_string()),
                started: s.started.map(str::to_string),
            };
            mem.session(s.id, info);
            return self.check_mem();
        }
        self.conn
            .prepare_cached(
                "INSERT INTO sessions (id, parent_id, agent, source, started_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(id) DO UPDATE SET
               parent_id = coalesce(sessions.parent_id, excluded.parent_id),
               agent = coalesce(sessions.agent, excluded.agent),
               source = coalesce(sessions.source, excluded.source),
               started_at = CASE WHEN sessions.started_at IS NULL OR excluded.started_at < sessions.started_at
                                 THEN excluded.started_at ELSE sessions.started_at END",
            )?
            .execute(params![s.id, s.parent, s.agent, s.source, s.started])
            .inspect_err(|e| self.seen(e))?;
        Ok(())
    }

    /// The session that holds call `id`, if any (tool call ids are unique
    /// across sessions in the agents imported here).
    pub(crate) fn session_of_call(&mut self, id: &str) -> rusqlite::Result<Option<String>> {
        self.shared_key(record::Key::Call, id);
        // The query answers with the oldest row holding the id.
        if let Some(owners) = &self.owners {
            return Ok(owners.first(id).map(str::to_string));
        }
        self.conn
            .prepare_cached("SELECT session_id FROM calls WHERE id = ?1 LIMIT 1")?
            .query_row(params![id], |r| r.get(0))
            .optional()
    }

    /// Record a call; a call id already in the session keeps its first row.
    pub(crate) fn call(
        &mut self,
        session: &str,
        id: &str,
        tool: &str,
        input: &Value,
        time: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.touch(session);
        self.shared_key(record::Key::Call, id);
        let exists = match &self.owners {
            Some(owners) => owners.holds(id, session),
            None => self
                .conn
                .prepare_cached("SELECT 1 FROM calls WHERE session_id = ?1 AND id = ?2")?
                .exists(params![session, id])?,
        };
        if exists {
            self.stats.duplicates += 1;
            return Ok(());
        }
        let seq = self.take_seq(session)?;
        let input = match input {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        match &mut self.mem {
            Some(mem) => mem.call(session, id, seq, tool, &input, time).inspect_err(|e| self.seen(e))?,
            None => {
                let in_file = self.stored(&input)?;
                let input: &dyn ToSql = match &in_file {
                    Some(r) => r,
                    None => &input,
                };
                self.conn
                    .prepare_cached(
                        "INSERT INTO calls (session_id, id, seq, tool, input, called_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    )?
                    .execute(params![session, id, seq, tool, input, time])
                    .inspect_err(|e| self.seen(e))?;
            }
        }
        if let Some(owners) = &mut self.owners {
            owners.push(id, session);
        }
        self.check_mem()?;
        // The owners are dropped only once the rows are in `conn` (which
        // `check_mem` decides, allowing the largest session its own): the
        // queries that stand in for them read `conn`.
        if self.mem.is_none() && self.owners.as_ref().is_some_and(|o| o.len() > self.owners_cap) {
            self.owners = None;
            if self.texts.is_some() {
                // The scratch database's calls were copied without it.
                self.conn.execute_batch(SPILLED_CALLS_BY_ID).inspect_err(|e| self.seen(e))?;
            }
        }
        self.stats.calls += 1;
        Ok(())
    }

    /// Record the usage of the response that emitted the call `id` of
    /// `session` (written before): the tokens of that whole response,
    /// which every call of it repeats (see `sql/schema.sql`).
    pub(crate) fn call_usage(
        &mut self,
        session: &str,
        id: &str,
        usage: &std::sync::Arc<Usage>,
    ) -> rusqlite::Result<()> {
        match &mut self.mem {
            Some(mem) => {
                mem.call_usage(session, id, usage);
                Ok(())
            }
            None => set_usage(self.conn, UsageOf::Call(session, id), usage).map(drop).inspect_err(|e| self.seen(e)),
        }
    }

    /// Record a call the source gives no id: it is written under the
    /// synthetic id `#<seq>` (its place in the session), which is returned
    /// for its result and shown as such in reports.
    pub(crate) fn call_without_id(
        &mut self,
        session: &str,
        tool: &str,
        input: &Value,
        time: Option<&str>,
    ) -> rusqlite::Result<String> {
        let seq = self.peek_seq(session)?;
        let id = crate::model::synthetic_id(seq as usize);
        self.call(session, &id, tool, input, time)?;
        Ok(id)
    }

    /// Record a result; a result already recorded for the call is kept.
    pub(crate) fn result(&mut self, r: &ResultRow<'_>) -> rusqlite::Result<()> {
        self.touch(r.session);
        self.shared_key(record::Key::Call, r.call_id);
        if let Some(mem) = &mut self.mem {
            let new = mem
                .result(r.session, r.call_id, r.text, r.flag.map(i64::from), r.exit_code, r.time)
                .inspect_err(|e| self.seen(e))?;
            if new {
                self.stats.results += 1;
            } else {
                self.stats.duplicates += 1;
            }
            return self.check_mem();
        }
        // A long text goes to the file only if its row is new: where it
        // will be is known before.
        let in_file = match &self.texts {
            Some(file) if r.text.len() > mem::INLINE => Some(file.next(r.text).inspect_err(|e| self.seen(e))?),
            _ => None,
        };
        let text: &dyn ToSql = match &in_file {
            Some(at) => at,
            None => &r.text,
        };
        let n = self
            .conn
            .prepare_cached(
                "INSERT INTO results (session_id, call_id, text, is_error, exit_code, returned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(session_id, call_id) DO NOTHING",
            )?
            .execute(params![r.session, r.call_id, text, r.flag.map(i64::from), r.exit_code, r.time])
            .inspect_err(|e| self.seen(e))?;
        if n == 1
            && let Some(at) = in_file
        {
            let put = self.stored(r.text)?;
            debug_assert!(
                matches!((at, put), (StoredText::InFile { at: a, .. }, Some(StoredText::InFile { at: b, .. })) if a == b)
            );
        }
        if n == 1 {
            self.stats.results += 1;
        } else {
            self.stats.duplicates += 1;
        }
        Ok(())
    }
}

/// A result row as stored: text, flag, exit code, time.
pub(in crate::import) type StoredResult = (String, Option<i64>, Option<i64>, Option<String>);

impl Writer<'_> {
    /// Record a result, replacing an earlier one for the same call (for
    /// sources that rewrite a record as the call progresses).
    pub(crate) fn result_latest(&mut self, r: &ResultRow<'_>) -> rusqlite::Result<()> {
        self.touch(r.session);
        if let Some(mem) = &mut self.mem {
            let old = mem.stored_result(r.session, r.call_id).inspect_err(|e| note(&self.failed, e))?;
            let new = (r.text.to_string(), r.flag.map(i64::from), r.exit_code, r.time.map(str::to_string));
            return match old {
                None => self.result(r),
                Some(o) if o == new => {
                    self.stats.duplicates += 1;
                    Ok(())
                }
                Some(_) => {
                    mem.replace_result(r.session, r.call_id, r.text, new.1, r.exit_code, r.time)
                        .inspect_err(|e| note(&self.failed, e))?;
                    self.check_mem()
                }
            };
        }
        let old = self
            .conn
            .prepare_cached(
                "SELECT text, is_error, exit_code, returned_at FROM results WHERE session_id = ?1 AND call_id = ?2",
            )?
            .query_row(params![r.session, r.call_id], |x| {
                Ok((x.get::<_, SqlValue>(0)?, x.get(1)?, x.get(2)?, x.get(3)?))
            })
            .optional()?;
        let old: Option<StoredResult> = match old {
            Some((text, is_error, exit_code, time)) => Some((self.text_back(text)?, is_error, exit_code, time)),
            None => None,
        };
        let new = (r.text.to_string(), r.flag.map(i64::from), r.exit_code, r.time.map(str::to_string));
        match old {
            None => self.result(r),
            Some(o) if o == new => {
                self.stats.duplicates += 1;
                Ok(())
            }
            Some(_) => {
                let in_file = self.stored(r.text)?;
                let text: &dyn ToSql = match &in_file {
                    Some(at) => at,
                    None => &r.text,
                };
                self.conn
                    .prepare_cached(
                        "UPDATE results SET text = ?3, is_error = ?4, exit_code = ?5, returned_at = ?6
                     WHERE session_id = ?1 AND call_id = ?2",
                    )?
                    .execute(params![r.session, r.call_id, text, r.flag.map(i64::from), r.exit_code, r.time])
                    .inspect_err(|e| self.seen(e))?;
                Ok(())
            }
        }
    }

    /// Move a call and its result to another session (a call belongs to
    /// the session that made it; see the Claude Code importer).
    pub(crate) fn move_call(&mut self, from: &str, to: &str, call_id: &str) -> rusqlite::Result<()> {
        self.touch(from);
        self.touch(to);
        self.shared_key(record::Key::Call, call_id);
        let seq = self.take_seq(to)?;
        if let Some(mem) = &mut self.mem {
            let moved = mem.move_call(from, to, call_id, seq).inspect_err(|e| self.seen(e))?;
            if let Some(o) = self.owners.as_mut().filter(|_| moved) {
                o.moved(call_id, from, to);
            }
            return self.check_mem();
        }
        let moved = self
            .conn
            .prepare_cached("UPDATE calls SET session_id = ?2, seq = ?4 WHERE session_id = ?1 AND id = ?3")?
            .execute(params![from, to, call_id, seq])
            .inspect_err(|e| self.seen(e))?;
        if let Some(o) = self.owners.as_mut().filter(|_| moved > 0) {
            o.moved(call_id, from, to);
        }
        self.conn
            .prepare_cached("UPDATE results SET session_id = ?2 WHERE session_id = ?1 AND call_id = ?3")?
            .execute(params![from, to, call_id])
            .inspect_err(|e| self.seen(e))?;
        Ok(())
    }

    /// Remove a call and its result (the source took it back).
    pub(crate) fn forget_call(&mut self, session: &str, call_id: &str) -> rusqlite::Result<()> {
        self.touch(session);
        self.shared_key(record::Key::Call, call_id);
        if let Some(mem) = &mut self.mem {
            let (r, n) = mem.forget_call(session, call_id);
            self.stats.results = self.stats.results.saturating_sub(r as u64);
            self.stats.calls = self.stats.calls.saturating_sub(n as u64);
            if let Some(o) = self.owners.as_mut().filter(|_| n > 0) {
                o.forgot(call_id, session);
            }
            return Ok(());
        }
        let r = self
            .conn
            .prepare_cached("DELETE FROM results WHERE session_id = ?1 AND call_id = ?2")?
            .execute(params![session, call_id])
            .inspect_err(|e| self.seen(e))?;
        self.stats.results = self.stats.results.saturating_sub(r as u64);
        let n = self
            .conn
            .prepare_cached("DELETE FROM calls WHERE session_id = ?1 AND id = ?2")?
            .execute(params![session, call_id])
            .inspect_err(|e| self.seen(e))?;
        self.stats.calls = self.stats.calls.saturating_sub(n as u64);
        if let Some(o) = self.owners.as_mut().filter(|_| n > 0) {
            o.forgot(call_id, session);
        }
        Ok(())
    }

    /// The `seq` the next call of `session` will get.
    pub(in crate::import) fn peek_seq(&mut self, session: &str) -> rusqlite::Result<i64> {
        let seq = self.take_seq(session)?;
        self.next_seq.insert(session.to_string(), seq);
        Ok(seq)
    }

    /// Note a failure of the storage itself (`failed`).
    pub(in crate::import) fn seen(&self, e: &rusqlite::Error) {
        note(&self.failed, e);
    }

    /// The next `seq` of `session`, continuing after what the database holds.
    pub(in crate::import) fn take_seq(&mut self, session: &str) -> rusqlite::Result<i64> {
        let seq = match self.next_seq.get(session) {
            Some(&n) => n,
            None if self.owners.is_some() => 1,
            None => {
                let max: Option<i64> = self
                    .conn
                    .prepare_cached("SELECT max(seq) FROM calls WHERE session_id = ?1")?
                    .query_row(params![session], |r| r.get(0))?;
                max.unwrap_or(0) + 1
            }
        };
        self.next_seq.insert(session.to_string(), seq + 1);
        Ok(seq)
    }
}

/// Note in `failed` a failure of the storage itself (a full disk, an I/O
/// error, a value too big).
fn note(failed: &std::cell::Cell<Option<rusqlite::ErrorCode>>, e: &rusqlite::Error) {
    use rusqlite::ErrorCode;
    if let rusqlite::Error::SqliteFailure(f, _) = e
        && matches!(f.code, ErrorCode::DiskFull | ErrorCode::SystemIoFailure | ErrorCode::TooBig)
    {
        failed.set(Some(f.code));
    }
}

/// A result as an importer sees it.
pub(crate) struct ResultRow<'a> {
    pub session: &'a str,
    pub call_id: &'a str,
    pub text: &'a str,
    pub flag: Option<bool>,
    pub exit_code: Option<i64>,
    pub time: Option<&'a str>,
}

/// Where an import writes, and whom an error names.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// `import --into`: the database the user `named`, written at `at` (the
    /// file itself, or a new one beside it that is renamed into place).
    Into { named: &'a Path, at: &'a Path },
    /// The scratch database at `at` in `$TMPDIR` that a scan reads the
    /// transcripts of the PATH `input` through.
    Scratch { input: &'a Path, at: &'a Path },
}

impl Target<'_> {
    /// The database file written.
    pub(crate) fn at(&self) -> &Path {
        match self {
            Target::Into { at, .. } | Target::Scratch { at, .. } => at,
        }
    }

    /// A failure of the database, named after what the user gave: the
    /// `--into` database, or the transcripts a scratch copy was made of.
    pub(in crate::import) fn failed(&self, e: &rusqlite::Error) -> Error {
        if let rusqlite::Error::SqliteFailure(f, _) = e
            && let Some(storage) = self.storage_failed(f.code, None)
        {
            return storage;
        }
        match self {
            Target::Into { named, .. } => Error::input(named, crate::source::open::sqlite_problem(e)),
            Target::Scratch { input, .. } => Error::input(
                input,
                format!(
                    "the scratch copy of the transcripts in $TMPDIR ({}): {}",
                    temp_dir(),
                    crate::source::open::sqlite_problem(e)
                ),
            ),
        }
    }

    /// The error of a storage failure (`code`), met while `file` was read:
    /// a full disk or an I/O error names the `--into` database, or
    /// `$TMPDIR` for a scratch copy; a value too big names the transcript.
    pub(in crate::import) fn storage_failed(&self, code: rusqlite::ErrorCode, file: Option<&Path>) -> Option<Error> {
        use rusqlite::ErrorCode;
        let (named, scratch) = match self {
            Target::Into { named, .. } => (*named, false),
            Target::Scratch { input, .. } => (*input, true),
        };
        let problem = match code {
            ErrorCode::TooBig => {
                let what = "holds a call or result too large to store (over SQLite's 1 GB: string or blob too big)";
                return Some(Error::input(file.unwrap_or(named), what));
            }
            ErrorCode::DiskFull if scratch => {
                format!("no space left in $TMPDIR ({}) for the scratch copy of the transcripts", temp_dir())
            }
            ErrorCode::DiskFull => {
                "cannot write the database: no space left on the device (database or disk is full)".into()
            }
            ErrorCode::SystemIoFailure if scratch => format!(
                "cannot write the scratch copy of the transcripts in $TMPDIR ({}): disk I/O error (full, or over a file size limit?)",
                temp_dir()
            ),
            ErrorCode::SystemIoFailure => {
                "cannot write the database: disk I/O error (full, or over a file size limit?)".into()
            }
            _ => return None,
        };
        Some(Error::input(named, problem))
    }
}

/// `$TMPDIR`, as shown in messages.
/// Which call rows `set_usage` updates.
pub(super) enum UsageOf<'a> {
    /// The row of this rowid.
    Row(i64),
    /// The call of this id in this session.
    Call(&'a str, &'a str),
}

/// `UPDATE calls SET` the usage columns to `usage` for the rows `of`: how
/// many rows changed.
pub(super) fn set_usage(conn: &Connection, of: UsageOf<'_>, usage: &Usage) -> rusqlite::Result<usize> {
    const BY_ROW: &str = concat!(
        "UPDATE calls SET response_id = ?1, model = ?2, input_tokens = ?3, output_tokens = ?4, ",
        "cache_read_tokens = ?5, cache_write_tokens = ?6, reasoning_tokens = ?7, cost_usd = ?8 WHERE rowid = ?9"
    );
    const BY_CALL: &str = concat!(
        "UPDATE calls SET response_id = ?1, model = ?2, input_tokens = ?3, output_tokens = ?4, ",
        "cache_read_tokens = ?5, cache_write_tokens = ?6, reasoning_tokens = ?7, cost_usd = ?8 ",
        "WHERE session_id = ?9 AND id = ?10"
    );
    let (rowid, session, id);
    let (sql, keys): (&str, Vec<&dyn ToSql>) = match of {
        UsageOf::Row(r) => {
            rowid = r;
            (BY_ROW, vec![&rowid])
        }
        UsageOf::Call(s, i) => {
            (session, id) = (s, i);
            (BY_CALL, vec![&session, &id])
        }
    };
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut values: Vec<&dyn ToSql> = Vec::with_capacity(8 + keys.len());
    let (input, output, read, write, reasoning) = (
        count(usage.input),
        count(usage.output),
        count(usage.cache_read),
        count(usage.cache_write),
        count(usage.reasoning),
    );
    values.extend([
        &usage.response as &dyn ToSql,
        &usage.model,
        &input,
        &output,
        &read,
        &write,
        &reasoning,
        &usage.cost,
    ]);
    values.extend_from_slice(&keys);
    conn.prepare_cached(sql)?.execute(values.as_slice())
}

/// The usage columns `sql/schema.sql` gained after a database of version
/// 1 was written: added to it, so that import can write them.
fn add_usage_columns(conn: &Connection) -> rusqlite::Result<()> {
    const ADD: [&str; 8] = [
        "ALTER TABLE calls ADD COLUMN response_id TEXT",
        "ALTER TABLE calls ADD COLUMN model TEXT",
        "ALTER TABLE calls ADD COLUMN input_tokens INTEGER",
        "ALTER TABLE calls ADD COLUMN output_tokens INTEGER",
        "ALTER TABLE calls ADD COLUMN cache_read_tokens INTEGER",
        "ALTER TABLE calls ADD COLUMN cache_write_tokens INTEGER",
        "ALTER TABLE calls ADD COLUMN reasoning_tokens INTEGER",
        "ALTER TABLE calls ADD COLUMN cost_usd REAL",
    ];
    for (column, add) in crate::source::falseok::USAGE_COLUMNS.iter().zip(ADD) {
        let has: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM pragma_table_info('calls') WHERE name = ?1)",
            [column],
            |r| r.get(0),
        )?;
        if !has {
            conn.execute_batch(add)?;
        }
    }
    Ok(())
}

pub(in crate::import) fn temp_dir() -> String {
    crate::sanitize::one_line(&std::env::temp_dir().display().to_string())
}

/// Open (or create) the database of `target` as a falseok database,
/// refusing anything else. An empty file is a new database.
pub(crate) fn open_target(target: &Target<'_>) -> Result<Connection> {
    let into = target.at();
    let named = match target {
        Target::Into { named, .. } => *named,
        Target::Scratch { at, .. } => *at,
    };
    let sql = |e: rusqlite::Error| target.failed(&e);
    let existed = std::fs::metadata(into).is_ok_and(|m| m.len() > 0);
    if existed {
        // Recognise it before writing anything.
        let conn = crate::source::open::open_read_only(into)?.conn;
        let format = crate::source::detect(into, &conn).map_err(|_| {
            Error::input(named, "exists and is not a falseok database; import writes only into its own schema")
        })?;
        if format != crate::source::Format::FALSEOK {
            return Err(Error::input(
                named,
                format!("is a {} trace database; import writes only into falseok's own schema", format.as_str()),
            ));
        }
        let version = crate::source::falseok::schema_version(&conn).map_err(sql)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(Error::input(named, "falseok schema of another version; import writes version 1 only"));
        }
    }
    let conn = Connection::open(into).map_err(sql)?;
    conn.busy_timeout(crate::source::open::BUSY_TIMEOUT).map_err(sql)?;
    conn.execute_batch(SCHEMA_SQL).map_err(sql)?;
    if !existed {
        conn.execute_batch(VIEWS_SQL).map_err(sql)?;
    } else {
        add_usage_columns(&conn).map_err(sql)?;
    }
    Ok(conn)
}

/// A throwaway falseok database (an empty file, or none) for transcripts
/// that are read, not kept: nothing in it is ever synced to disk.
pub(crate) fn open_scratch(target: &Target<'_>) -> Result<Connection> {
    let sql = |e: rusqlite::Error| target.failed(&e);
    let conn = Connection::open(target.at()).map_err(sql)?;
    conn.execute_batch("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;").map_err(sql)?;
    conn.execute_batch(SCHEMA_SQL).map_err(sql)?;
    Ok(conn)
}
