//! `tracelint import`: agent transcripts (JSONL) into tracelint's own trace
//! schema (`sql/schema.sql`).
//!
//! Files are read line by line (a 500 MB transcript is never held whole);
//! each line is one JSON record. Unknown record types are skipped, lines
//! that are not JSON are counted, and lone UTF-16 surrogate escapes (which
//! JSON parsers reject) are replaced by U+FFFD and counted. Writes are
//! upserts keyed by (session, call id), inside one transaction, so importing
//! the same files twice leaves the database as it was.

pub mod claude;
pub mod cline;
pub mod codex;
pub mod continue_dev;
pub mod gemini;
pub mod openhands;
pub mod otel;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::source::FormatInfo;
use crate::source::tracelint::{SCHEMA_SQL, SCHEMA_VERSION, VIEWS_SQL};

/// One transcript format: what it is, how a file of it is recognised, and
/// an importer for one run. Adding a format is one file implementing this
/// and one line in `IMPORTERS`.
pub trait Importer: Sync {
    /// Its name (the agent written to `sessions.agent`, and the dialect its
    /// sessions are judged in), how it is recognised and where it lives.
    fn info(&self) -> &'static FormatInfo;
    /// Is `record`, the first JSON record of a file, one of this format's?
    /// No two importers claim the same record.
    fn recognise(&self, record: &Value) -> bool;
    /// Is `doc`, the whole JSON document of the `.json` file `path` (one
    /// pretty-printed object or array, not a line per record), one of this
    /// format's? Only asked when no importer claims its first line.
    fn recognise_document(&self, _path: &Path, _doc: &Value) -> bool {
        false
    }
    /// The state of one import run, which may span files (a Claude Code
    /// result can be in a different file than its call).
    fn run(&self) -> Box<dyn ImportRun>;
}

/// One import run of one transcript format.
pub trait ImportRun {
    /// Import one file of the format.
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()>;
    /// Everything is read: write what waited for later files.
    fn finish(&mut self, _w: &mut Writer<'_>) -> rusqlite::Result<()> {
        Ok(())
    }
}

/// Every transcript format, in the order `tracelint formats` lists them.
pub static IMPORTERS: &[&dyn Importer] = &[
    &claude::Claude,
    &codex::Codex,
    &gemini::Gemini,
    &otel::Otel,
    &openhands::OpenHands,
    &cline::Cline,
    &cline::Roo,
    &continue_dev::Continue,
];

/// The descriptions of every transcript format, in registry order.
pub fn infos() -> impl Iterator<Item = &'static FormatInfo> {
    IMPORTERS.iter().map(|i| i.info())
}

/// Every default transcript folder that exists on this machine.
pub fn default_transcript_dirs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for info in infos() {
        for loc in info.locations {
            if let Some(p) = loc.resolve().filter(|p| p.is_dir())
                && !out.contains(&p)
            {
                out.push(p);
            }
        }
    }
    out
}

/// What an import did, per run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    pub files: u64,
    pub lines: u64,
    pub sessions: u64,
    pub calls: u64,
    pub results: u64,
    /// Lines repeated earlier (same uuid) or blocks already seen.
    pub duplicates: u64,
    /// Records of a type the importer does not read.
    pub skipped: u64,
    /// Lines that are not JSON objects.
    pub invalid: u64,
    /// Lone surrogate escapes replaced by U+FFFD.
    pub surrogates: u64,
    /// Files whose agent could not be recognised.
    pub unrecognised: Vec<PathBuf>,
    /// `.json` files that are not a whole JSON document (cut or broken).
    pub broken: Vec<PathBuf>,
    /// The agents of the files imported.
    pub agents: std::collections::BTreeSet<&'static str>,
}

impl ImportStats {
    /// The format label of an imported source: its agent, or `jsonl` when
    /// it mixed several.
    pub fn label(&self) -> &'static str {
        match self.agents.iter().collect::<Vec<_>>().as_slice() {
            [one] => one,
            _ => "jsonl",
        }
    }
}

/// The database side of an import: upserts into the schema's tables.
pub struct Writer<'c> {
    conn: &'c Connection,
    /// Next `seq` per session, continuing after what the database holds.
    next_seq: HashMap<String, i64>,
    /// Sessions written in this run.
    sessions: HashSet<String>,
    /// When the database held no call at the start: the sessions holding
    /// each call id, in the order their rows were inserted, so that
    /// `session_of_call` and the duplicate check need no query. `None`:
    /// the database is asked, as it is once the map holds more than
    /// `owners_cap` ids (about 160 bytes each), so memory stays bounded.
    owners: Option<HashMap<String, Vec<String>>>,
    owners_cap: usize,
    pub stats: ImportStats,
}

/// Call ids whose owners an import keeps in memory (about 32 MB); past it,
/// the database is asked.
const OWNERS_CAP: usize = 200_000;

/// A session as an importer sees it.
pub struct SessionRow<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub agent: &'static str,
    pub source: &'a str,
    pub started: Option<&'a str>,
}

impl<'c> Writer<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        let empty = conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM calls)", [], |r| r.get::<_, bool>(0));
        let owners = empty.unwrap_or(false).then(HashMap::new);
        Writer {
            conn,
            next_seq: HashMap::new(),
            sessions: HashSet::new(),
            owners,
            owners_cap: OWNERS_CAP,
            stats: ImportStats::default(),
        }
    }

    /// Create or update a session. The earliest start time wins; parent,
    /// agent and source are kept once known.
    pub fn session(&mut self, s: &SessionRow<'_>) -> rusqlite::Result<()> {
        if !self.sessions.insert(s.id.to_string()) {
            return Ok(());
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
            .execute(params![s.id, s.parent, s.agent, s.source, s.started])?;
        Ok(())
    }

    /// The session that holds call `id`, if any (tool call ids are unique
    /// across sessions in the agents imported here).
    pub fn session_of_call(&self, id: &str) -> rusqlite::Result<Option<String>> {
        // The query answers with the oldest row holding the id.
        if let Some(owners) = &self.owners {
            return Ok(owners.get(id).and_then(|o| o.first()).cloned());
        }
        self.conn
            .prepare_cached("SELECT session_id FROM calls WHERE id = ?1 LIMIT 1")?
            .query_row(params![id], |r| r.get(0))
            .optional()
    }

    /// Record a call; a call id already in the session keeps its first row.
    pub fn call(
        &mut self,
        session: &str,
        id: &str,
        tool: &str,
        input: &Value,
        time: Option<&str>,
    ) -> rusqlite::Result<()> {
        let exists = match &self.owners {
            Some(owners) => owners.get(id).is_some_and(|o| o.iter().any(|s| s == session)),
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
        self.conn
            .prepare_cached(
                "INSERT INTO calls (session_id, id, seq, tool, input, called_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![session, id, seq, tool, input, time])?;
        if let Some(owners) = &mut self.owners {
            owners.entry(id.to_string()).or_default().push(session.to_string());
            if owners.len() > self.owners_cap {
                self.owners = None;
            }
        }
        self.stats.calls += 1;
        Ok(())
    }

    /// Record a result; a result already recorded for the call is kept.
    pub fn result(&mut self, r: &ResultRow<'_>) -> rusqlite::Result<()> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT INTO results (session_id, call_id, text, is_error, exit_code, returned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(session_id, call_id) DO NOTHING",
            )?
            .execute(params![r.session, r.call_id, r.text, r.flag.map(i64::from), r.exit_code, r.time])?;
        if n == 1 {
            self.stats.results += 1;
        } else {
            self.stats.duplicates += 1;
        }
        Ok(())
    }
}

/// A result row as stored: text, flag, exit code, time.
type StoredResult = (String, Option<i64>, Option<i64>, Option<String>);

impl Writer<'_> {
    /// Record a result, replacing an earlier one for the same call (for
    /// sources that rewrite a record as the call progresses).
    pub fn result_latest(&mut self, r: &ResultRow<'_>) -> rusqlite::Result<()> {
        let old: Option<StoredResult> = self
            .conn
            .prepare_cached(
                "SELECT text, is_error, exit_code, returned_at FROM results WHERE session_id = ?1 AND call_id = ?2",
            )?
            .query_row(params![r.session, r.call_id], |x| Ok((x.get(0)?, x.get(1)?, x.get(2)?, x.get(3)?)))
            .optional()?;
        let new = (r.text.to_string(), r.flag.map(i64::from), r.exit_code, r.time.map(str::to_string));
        match old {
            None => self.result(r),
            Some(o) if o == new => {
                self.stats.duplicates += 1;
                Ok(())
            }
            Some(_) => {
                self.conn
                    .prepare_cached(
                        "UPDATE results SET text = ?3, is_error = ?4, exit_code = ?5, returned_at = ?6
                     WHERE session_id = ?1 AND call_id = ?2",
                    )?
                    .execute(params![r.session, r.call_id, r.text, r.flag.map(i64::from), r.exit_code, r.time])?;
                Ok(())
            }
        }
    }

    /// Move a call and its result to another session (a call belongs to
    /// the session that made it; see the Claude Code importer).
    pub fn move_call(&mut self, from: &str, to: &str, call_id: &str) -> rusqlite::Result<()> {
        let seq = self.take_seq(to)?;
        let moved = self
            .conn
            .prepare_cached("UPDATE calls SET session_id = ?2, seq = ?4 WHERE session_id = ?1 AND id = ?3")?
            .execute(params![from, to, call_id, seq])?;
        if let Some(o) = self.owners.as_mut().and_then(|o| o.get_mut(call_id)).filter(|_| moved > 0)
            && let Some(s) = o.iter_mut().find(|s| *s == from)
        {
            *s = to.to_string();
        }
        self.conn
            .prepare_cached("UPDATE results SET session_id = ?2 WHERE session_id = ?1 AND call_id = ?3")?
            .execute(params![from, to, call_id])?;
        Ok(())
    }

    /// Remove a call and its result (the source took it back).
    pub fn forget_call(&mut self, session: &str, call_id: &str) -> rusqlite::Result<()> {
        let r = self
            .conn
            .prepare_cached("DELETE FROM results WHERE session_id = ?1 AND call_id = ?2")?
            .execute(params![session, call_id])?;
        self.stats.results = self.stats.results.saturating_sub(r as u64);
        let n = self
            .conn
            .prepare_cached("DELETE FROM calls WHERE session_id = ?1 AND id = ?2")?
            .execute(params![session, call_id])?;
        self.stats.calls = self.stats.calls.saturating_sub(n as u64);
        if let Some(o) = self.owners.as_mut().and_then(|o| o.get_mut(call_id)).filter(|_| n > 0) {
            o.retain(|s| s != session);
        }
        Ok(())
    }

    /// The next `seq` of `session`, continuing after what the database holds.
    fn take_seq(&mut self, session: &str) -> rusqlite::Result<i64> {
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

/// A result as an importer sees it.
pub struct ResultRow<'a> {
    pub session: &'a str,
    pub call_id: &'a str,
    pub text: &'a str,
    pub flag: Option<bool>,
    pub exit_code: Option<i64>,
    pub time: Option<&'a str>,
}

/// Open (or create) `into` as a tracelint database, refusing anything else.
pub fn open_target(into: &Path) -> Result<Connection> {
    let sql = |e: rusqlite::Error| Error::input(into, crate::source::open::sqlite_problem(&e));
    let existed = into.exists();
    if existed {
        // Recognise it before writing anything.
        let conn = crate::source::open::open_read_only(into)?.conn;
        let format = crate::source::detect(into, &conn).map_err(|_| {
            Error::input(into, "exists and is not a tracelint database; import writes only into its own schema")
        })?;
        if format != crate::source::Format::TRACELINT {
            return Err(Error::input(
                into,
                format!("is a {} trace database; import writes only into tracelint's own schema", format.as_str()),
            ));
        }
        let version = crate::source::tracelint::schema_version(&conn).map_err(sql)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(Error::input(into, "tracelint schema of another version; import writes version 1 only"));
        }
    }
    let conn = Connection::open(into).map_err(sql)?;
    conn.busy_timeout(crate::source::open::BUSY_TIMEOUT).map_err(sql)?;
    conn.execute_batch(SCHEMA_SQL).map_err(sql)?;
    if !existed {
        conn.execute_batch(VIEWS_SQL).map_err(sql)?;
    }
    Ok(conn)
}

/// Every transcript file under `sources` (files as given, folders walked
/// for `*.jsonl` and `*.json`), sorted and each once.
pub fn transcript_files(sources: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for src in sources {
        let meta = std::fs::metadata(src).map_err(|e| Error::input(src, format!("cannot read: {e}")))?;
        if meta.is_dir() {
            walk(src, &mut out)?;
        } else {
            out.push(src.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::input(dir, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::input(dir, format!("cannot read folder: {e}")))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| Error::input(&path, format!("cannot read: {e}")))?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "jsonl" || e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// One line of a transcript, parsed.
pub enum Line {
    Record(Value),
    Invalid,
}

/// Reads a transcript one line at a time. `open` reads and parses ahead on
/// a helper thread, a block of lines at a time, while the importer writes
/// what came before (the parse is about half of an import); `open_here`
/// reads on the caller's thread, for a look at the first few lines.
pub struct LineReader {
    path: PathBuf,
    lines: Lines,
}

enum Lines {
    Here { reader: BufReader<File>, buf: Vec<u8> },
    Ahead { blocks: crossbeam_channel::Receiver<Ahead>, block: std::vec::IntoIter<Parsed>, done: bool },
}

/// What the helper thread of a `LineReader` sends: lines in file order,
/// then the end of the file or the error that stopped it.
enum Ahead {
    Block(Vec<Parsed>),
    End,
    Failed(std::io::Error),
}

/// A line parsed ahead: `None` for a blank line, and how many lone
/// surrogate escapes were replaced.
struct Parsed {
    line: Option<Line>,
    surrogates: u64,
}

/// Bytes of lines parsed ahead per block; two blocks wait at most.
const AHEAD_BYTES: usize = 1 << 20;

/// The longest line read, in bytes: 32 times the text of a million-token
/// context (a line holds one message). A longer one is read past, never
/// held, and counted as an invalid line.
pub const MAX_LINE_BYTES: usize = 128 << 20;

/// The longest `.json` document read whole, in bytes; a larger one is
/// counted as invalid, never read.
pub const MAX_DOCUMENT_BYTES: u64 = 128 << 20;

/// Read one line into `buf` (its newline included), as `read_until` does,
/// but keep at most `max + 1` bytes of it (`MAX_LINE_BYTES`): the rest of
/// a longer line is read past. The number of bytes read, 0 at the end.
fn read_line_at_most(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let (done, used) = {
            let available = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let (done, used) = match memchr::memchr(b'\n', available) {
                Some(i) => (true, i + 1),
                None => (available.is_empty(), available.len()),
            };
            let room = (max + 1).saturating_sub(buf.len());
            buf.extend_from_slice(&available[..used.min(room)]);
            (done, used)
        };
        reader.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

fn parse_bytes(buf: &[u8]) -> Parsed {
    if buf.len() > MAX_LINE_BYTES {
        return Parsed { line: Some(Line::Invalid), surrogates: 0 };
    }
    // Valid UTF-8 is the rule: check it fast, repair it only when not.
    let text = match std::str::from_utf8(buf) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(buf),
    };
    let text = text.trim();
    if text.is_empty() {
        return Parsed { line: None, surrogates: 0 };
    }
    let (line, surrogates) = parse_line_counted(text);
    Parsed { line: Some(line), surrogates }
}

impl LineReader {
    pub fn open(path: &Path) -> Result<LineReader> {
        let file = File::open(path).map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
        let (tx, blocks) = crossbeam_channel::bounded(2);
        let spawned = std::thread::Builder::new().name("tracelint-lines".into()).spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, file);
            let mut buf = Vec::new();
            loop {
                let (mut block, mut bytes) = (Vec::new(), 0);
                while bytes < AHEAD_BYTES {
                    buf.clear();
                    match read_line_at_most(&mut reader, &mut buf, MAX_LINE_BYTES) {
                        Ok(0) => break,
                        Ok(n) => {
                            bytes += n;
                            block.push(parse_bytes(&buf));
                        }
                        Err(e) => {
                            let _ = tx.send(Ahead::Block(block));
                            let _ = tx.send(Ahead::Failed(e));
                            return;
                        }
                    }
                }
                let end = bytes < AHEAD_BYTES;
                // A closed channel: the importer stopped reading.
                if tx.send(Ahead::Block(block)).is_err() {
                    return;
                }
                if end {
                    let _ = tx.send(Ahead::End);
                    return;
                }
            }
        });
        spawned.map_err(|e| Error::input(path, format!("cannot start a reader thread: {e}")))?;
        let lines = Lines::Ahead { blocks, block: Vec::new().into_iter(), done: false };
        Ok(LineReader { path: path.to_path_buf(), lines })
    }

    /// A reader that reads on this thread, only as far as it is asked.
    pub fn open_here(path: &Path) -> Result<LineReader> {
        let file = File::open(path).map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
        let lines = Lines::Here { reader: BufReader::with_capacity(1 << 16, file), buf: Vec::new() };
        Ok(LineReader { path: path.to_path_buf(), lines })
    }

    /// The next JSON record; lines that are not one are counted and skipped.
    pub fn next_record(&mut self, stats: &mut ImportStats) -> Result<Option<Value>> {
        loop {
            match self.next_line(stats)? {
                None => return Ok(None),
                Some(Some(Line::Record(v))) => return Ok(Some(v)),
                Some(Some(Line::Invalid)) => stats.invalid += 1,
                Some(None) => {}
            }
        }
    }

    /// The next line: `None` at the end, `Some(None)` for a blank line.
    fn next_line(&mut self, stats: &mut ImportStats) -> Result<Option<Option<Line>>> {
        let cannot_read = |path: &Path, e: std::io::Error| Error::input(path, format!("cannot read: {e}"));
        let parsed = match &mut self.lines {
            Lines::Here { reader, buf } => {
                buf.clear();
                if read_line_at_most(reader, buf, MAX_LINE_BYTES).map_err(|e| cannot_read(&self.path, e))? == 0 {
                    return Ok(None);
                }
                parse_bytes(buf)
            }
            Lines::Ahead { blocks, block, done } => loop {
                if let Some(p) = block.next() {
                    break p;
                }
                if *done {
                    return Ok(None);
                }
                match blocks.recv() {
                    Ok(Ahead::Block(b)) => *block = b.into_iter(),
                    Ok(Ahead::End) => *done = true,
                    Ok(Ahead::Failed(e)) => return Err(cannot_read(&self.path, e)),
                    Err(_) => {
                        return Err(Error::Internal(format!(
                            "the reader thread of {} stopped",
                            crate::sanitize::one_line(&self.path.display().to_string())
                        )));
                    }
                }
            },
        };
        stats.lines += 1;
        stats.surrogates += parsed.surrogates;
        Ok(Some(parsed.line))
    }
}

/// Is `path` a `.json` file (which may hold one whole document)?
pub fn is_json_document(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The whole file as one JSON document (object or array), repairing lone
/// surrogate escapes; `None`, counted as invalid, when it is not one.
pub fn read_document(path: &Path, stats: &mut ImportStats) -> Result<Option<Value>> {
    let Some(bytes) = read_document_bytes(path)? else {
        stats.invalid += 1;
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    if crate::source::json::check_size(text.as_bytes()).is_err() {
        stats.invalid += 1;
        return Ok(None);
    }
    let parsed = match serde_json::from_str::<Value>(&text) {
        Ok(v) => Some(v),
        Err(_) => crate::source::json::replace_lone_surrogates(&text)
            .and_then(|(fixed, n)| {
                let v = serde_json::from_str::<Value>(&fixed).ok()?;
                stats.surrogates += n;
                Some(v)
            })
            .or_else(|| concatenated(&text)),
    };
    match parsed {
        Some(v @ (Value::Object(_) | Value::Array(_))) => Ok(Some(v)),
        _ => {
            stats.invalid += 1;
            Ok(None)
        }
    }
}

/// The bytes of a whole document, `None` past `MAX_DOCUMENT_BYTES`.
fn read_document_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let cannot = |e: std::io::Error| Error::input(path, format!("cannot read: {e}"));
    let mut bytes = Vec::new();
    File::open(path).map_err(cannot)?.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    Ok((bytes.len() as u64 <= MAX_DOCUMENT_BYTES).then_some(bytes))
}

/// Several whole JSON objects one after the other (pretty-printed, as an
/// SDK's console exporter writes them), as one array.
fn concatenated(text: &str) -> Option<Value> {
    let items: Vec<Value> =
        serde_json::Deserializer::from_str(text).into_iter::<Value>().collect::<Result<_, _>>().ok()?;
    (items.len() > 1 && items.iter().all(Value::is_object)).then_some(Value::Array(items))
}

/// Parse one line as a JSON object, repairing lone surrogate escapes.
pub fn parse_line(text: &str, stats: &mut ImportStats) -> Line {
    let (line, surrogates) = parse_line_counted(text);
    stats.surrogates += surrogates;
    line
}

/// `parse_line`, with the number of lone surrogate escapes replaced.
fn parse_line_counted(text: &str) -> (Line, u64) {
    if crate::source::json::check_size(text.as_bytes()).is_err() {
        return (Line::Invalid, 0);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => (Line::Record(v), 0),
        Ok(_) => (Line::Invalid, 0),
        Err(_) => {
            let Some((fixed, n)) = crate::source::json::replace_lone_surrogates(text) else {
                return (Line::Invalid, 0);
            };
            match serde_json::from_str::<Value>(&fixed) {
                Ok(v @ Value::Object(_)) => (Line::Record(v), n),
                _ => (Line::Invalid, 0),
            }
        }
    }
}

/// The importer of a transcript, recognised by the first of its first 50
/// lines that is a JSON record some importer claims, or, for a `.json` file
/// no importer claims that way, by its whole document.
pub fn recognise(path: &Path) -> Result<Option<&'static dyn Importer>> {
    Ok(recognise_at(path)?.map(|at| IMPORTERS[at]))
}

/// `recognise`, as the importer's place in `IMPORTERS`.
fn recognise_at(path: &Path) -> Result<Option<usize>> {
    let mut lines = LineReader::open_here(path)?;
    let mut scratch = ImportStats::default();
    for _ in 0..50 {
        match lines.next_line(&mut scratch)? {
            None => break,
            Some(Some(Line::Record(v))) => {
                if let Some(at) = IMPORTERS.iter().position(|i| i.recognise(&v)) {
                    return Ok(Some(at));
                }
            }
            Some(_) => {}
        }
    }
    if !is_json_document(path) {
        return Ok(None);
    }
    let Some(doc) = read_document(path, &mut scratch)? else { return Ok(None) };
    Ok(IMPORTERS.iter().position(|i| i.recognise_document(path, &doc)))
}

/// Import every transcript under `sources` into `into`.
pub fn import(sources: &[PathBuf], into: &Path) -> Result<ImportStats> {
    let files = transcript_files(sources)?;
    let conn = open_target(into)?;
    import_files(&conn, into, &files)
}

/// A throwaway tracelint database at `path` (a new file) for transcripts
/// that are read, not kept: nothing in it is ever synced to disk.
pub fn open_scratch(path: &Path) -> Result<Connection> {
    let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
    let conn = Connection::open(path).map_err(sql)?;
    conn.execute_batch("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;").map_err(sql)?;
    conn.execute_batch(SCHEMA_SQL).map_err(sql)?;
    Ok(conn)
}

/// The one import driver: each file is recognised and handed to its
/// format's run, inside one transaction of `conn` (the database at `into`).
pub fn import_files(conn: &Connection, into: &Path, files: &[PathBuf]) -> Result<ImportStats> {
    import_files_with(conn, into, files, OWNERS_CAP)
}

/// `import_files`, keeping the owners of at most `owners_cap` call ids in memory.
fn import_files_with(conn: &Connection, into: &Path, files: &[PathBuf], owners_cap: usize) -> Result<ImportStats> {
    let sql = |e: rusqlite::Error| Error::input(into, crate::source::open::sqlite_problem(&e));
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
    let mut writer = Writer::new(conn);
    writer.owners_cap = owners_cap;
    // One run per format, started by its first file, in registry order.
    let mut runs: Vec<Option<Box<dyn ImportRun>>> = IMPORTERS.iter().map(|_| None).collect();
    let result = (|| -> Result<()> {
        for file in files {
            let Some(at) = recognise_at(file)? else {
                let broken = is_json_document(file) && read_document(file, &mut ImportStats::default())?.is_none();
                if broken { &mut writer.stats.broken } else { &mut writer.stats.unrecognised }.push(file.clone());
                continue;
            };
            let importer = IMPORTERS[at];
            runs[at].get_or_insert_with(|| importer.run()).file(file, &mut writer)?;
            writer.stats.agents.insert(importer.info().name());
            writer.stats.files += 1;
        }
        for run in runs.iter_mut().flatten() {
            run.finish(&mut writer).map_err(sql)?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => conn.execute_batch("COMMIT").map_err(sql)?,
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(e);
        }
    }
    writer.stats.sessions = writer.sessions.len() as u64;
    Ok(writer.stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dialect;

    /// Issue 22: a line past the bound is read past without being held
    /// (a 1 GB line took 2.6 GB), and the lines after it are read.
    #[test]
    fn lines_past_the_bound_are_read_past() {
        let max = 1000;
        let text = format!("{{\"a\":1}}\n{}\n{{\"b\":2}}\nlast", "x".repeat(5 * max));
        let mut reader = std::io::BufReader::with_capacity(64, text.as_bytes());
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        loop {
            buf.clear();
            let n = read_line_at_most(&mut reader, &mut buf, max).unwrap();
            if n == 0 {
                break;
            }
            assert!(buf.len() <= max + 1, "{}", buf.len());
            lines.push((n, buf.clone()));
        }
        let sizes: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(sizes, vec![8, 5 * max + 1, 8, 4]);
        assert_eq!(lines[2].1, b"{\"b\":2}\n");
        assert_eq!(lines[3].1, b"last");
        // A kept line longer than the bound is invalid, never parsed.
        assert!(matches!(parse_bytes(&vec![b' '; MAX_LINE_BYTES + 1]).line, Some(Line::Invalid)));
        let zeros = format!("{{\"x\":[{}0]}}", "0,".repeat(crate::source::json::MAX_JSON_VALUES));
        assert!(matches!(parse_bytes(zeros.as_bytes()).line, Some(Line::Invalid)));
    }

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        let (s, n) =
            crate::source::json::replace_lone_surrogates(r#"{"a":"x\ud83d\ude00y\ud800z\\ud800\udfff"}"#).unwrap();
        assert_eq!(n, 2);
        assert_eq!(s, r#"{"a":"x\ud83d\ude00y\ufffdz\\ud800\ufffd"}"#);
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["a"], "x😀y\u{FFFD}z\\ud800\u{FFFD}");
        let mut stats = ImportStats::default();
        assert!(matches!(parse_line(r#"{"t":"\udc00"}"#, &mut stats), Line::Record(_)));
        assert_eq!(stats.surrogates, 1);
        assert!(matches!(parse_line("{not json", &mut stats), Line::Invalid));
        assert!(matches!(parse_line("[1]", &mut stats), Line::Invalid));
    }

    /// Every record of the samples is claimed by at most one importer, and
    /// the first record of every sample file by its own.
    #[test]
    fn recognisers_do_not_overlap() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        for (dir, name) in [("claude-code", "claude-code"), ("codex", "codex"), ("gemini", "gemini"), ("otel", "otel")]
        {
            let files = transcript_files(&[root.join(dir)]).unwrap();
            assert!(!files.is_empty());
            for file in files {
                assert_eq!(recognise(&file).unwrap().map(|i| i.info().name()), Some(name), "{}", file.display());
                let mut lines = LineReader::open(&file).unwrap();
                let mut stats = ImportStats::default();
                while let Some(v) = lines.next_record(&mut stats).unwrap() {
                    let claims: Vec<&str> =
                        IMPORTERS.iter().filter(|i| i.recognise(&v)).map(|i| i.info().name()).collect();
                    assert!(claims.len() <= 1, "{v} is claimed by {claims:?}");
                }
            }
        }
    }

    /// Read ahead on a helper thread or here, a file of several blocks
    /// gives the same lines in the same order, and the same counts.
    #[test]
    fn reading_ahead_gives_what_reading_here_gives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut text = String::new();
        let pad = "x".repeat(900);
        for i in 0..7000 {
            match i % 7 {
                0 => text.push('\n'),
                1 => text.push_str("{not json\n"),
                2 => text.push_str(&format!("{{\"n\":{i},\"s\":\"\\ud800\"}}\n")),
                _ => text.push_str(&format!("{{\"n\":{i},\"pad\":\"{pad}\"}}\n")),
            }
        }
        text.push_str("{\"n\":\"last, no newline\"}");
        assert!(text.len() > 3 * AHEAD_BYTES);
        std::fs::write(&path, &text).unwrap();
        let read = |mut r: LineReader| {
            let mut stats = ImportStats::default();
            let mut ns = Vec::new();
            while let Some(v) = r.next_record(&mut stats).unwrap() {
                ns.push(v["n"].clone());
            }
            (ns, stats.lines, stats.invalid, stats.surrogates)
        };
        let ahead = read(LineReader::open(&path).unwrap());
        assert_eq!(ahead, read(LineReader::open_here(&path).unwrap()));
        assert_eq!((ahead.0.len(), ahead.1, ahead.2, ahead.3), (5001, 7001, 1000, 1000));
        assert_eq!(ahead.0.last().unwrap(), "last, no newline");
        // Dropped half-way, the helper thread stops instead of blocking.
        let mut r = LineReader::open(&path).unwrap();
        r.next_record(&mut ImportStats::default()).unwrap();
        drop(r);
    }

    /// Call owners kept in memory, dropped half-way, or never kept (a
    /// database that already holds calls) give the same database.
    #[test]
    fn call_owners_in_memory_or_asked_give_the_same_import() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let files = transcript_files(&[root.join("claude-code"), root.join("codex"), root.join("gemini")]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let dump = |cap: usize, seeded: bool| {
            let db = dir.path().join(format!("{cap}-{seeded}.db"));
            let conn = open_scratch(&db).unwrap();
            if seeded {
                conn.execute_batch(
                    "INSERT INTO sessions (id) VALUES ('zz');
                     INSERT INTO calls (session_id, id, seq, tool) VALUES ('zz', 'unrelated', 1, 'Read');",
                )
                .unwrap();
            }
            let stats = import_files_with(&conn, &db, &files, cap).unwrap();
            let mut stmt = conn
                .prepare(
                    "SELECT c.session_id, c.id, c.seq, c.tool, coalesce(r.text, '-'), coalesce(r.is_error, -1)
                     FROM calls c LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id
                     WHERE c.session_id <> 'zz' ORDER BY 1, 3",
                )
                .unwrap();
            let rows: Vec<String> = stmt
                .query_map([], |r| {
                    Ok(format!(
                        "{}|{}|{}|{}|{}|{}",
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, i64>(5)?
                    ))
                })
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            (rows, stats.calls, stats.results, stats.duplicates)
        };
        let kept = dump(OWNERS_CAP, false);
        assert!(kept.0.len() > 20, "the samples import calls");
        assert_eq!(dump(3, false), kept, "owners dropped after 3 ids");
        assert_eq!(dump(OWNERS_CAP, true), kept, "a database with calls is asked");
    }

    #[test]
    fn every_importer_has_its_own_dialect() {
        for i in IMPORTERS {
            let d = i.info().dialect;
            assert_eq!(Dialect::from_name(d.as_str()), Some(d), "{d} is not a named dialect");
            assert_eq!(infos().filter(|o| o.dialect == d).count(), 1, "{d} twice");
        }
    }
}
