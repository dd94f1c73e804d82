//! `tracelint import`: agent transcripts (JSONL, or whole JSON documents,
//! or Aider's Markdown history) into tracelint's own trace schema
//! (`sql/schema.sql`).
//!
//! JSONL files are read line by line (a 500 MB transcript is never held
//! whole); each line is one JSON record. A `.json` transcript is one
//! document, read whole within a size bound. Unknown record types are
//! skipped, lines that are not JSON are counted, and lone UTF-16 surrogate
//! escapes (which JSON parsers reject) are replaced by U+FFFD and counted.
//! Writes are upserts keyed by (session, call id), inside one transaction,
//! so importing the same files twice leaves the database as it was. When
//! asked, the import keeps what each file gave (`record`), so the index can
//! import a changed folder again in part.

pub mod aider;
pub mod branches;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod continue_dev;
pub mod copilot;
pub mod gemini;
pub mod kiro;
pub mod openhands;
pub mod openhands_app;
pub mod otel;
pub mod pi;
pub mod qwen;
pub mod record;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Dialect;
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
    /// Is the file `path`, whose first bytes are `head`, a transcript of
    /// this format that is not JSON (Aider's Markdown history)? Asked
    /// before any line is parsed as JSON.
    fn recognise_text(&self, _path: &Path, _head: &[u8]) -> bool {
        false
    }
    /// Is the file at `path` this format's by its name and place alone,
    /// whatever its records (a side file beside the transcripts, passed
    /// over)? Asked first, without reading the file.
    fn claims_file(&self, _path: &Path) -> bool {
        false
    }
    /// Is a file of this name, found while walking a folder, one of this
    /// format's text transcripts (folders hold only `.jsonl` and `.json`
    /// files otherwise)?
    fn claims_name(&self, _name: &str) -> bool {
        false
    }
    /// The state of one import run, which may span files (a Claude Code
    /// result can be in a different file than its call).
    fn run(&self) -> Box<dyn ImportRun>;
    /// Does a file of this format import the same rows alone as beside
    /// the others, but for what the writer shares between files (sessions,
    /// call ids, and the keys its run declares with `Writer::shared_key`)?
    /// Then a folder of them can be imported again in part (import/record.rs).
    /// Not when the run writes at its finish or reads the file's neighbours.
    fn separable(&self) -> bool {
        false
    }
}

/// One import run of one transcript format.
pub trait ImportRun {
    /// Import one file of the format.
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()>;
    /// Everything is read: write what waited for later files.
    fn finish(&mut self, _w: &mut Writer<'_>) -> rusqlite::Result<()> {
        Ok(())
    }
    /// Does the run write its calls only in `finish` (so that what one
    /// file gave is only known for the whole run)?
    fn writes_at_finish(&self) -> bool {
        false
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
    &copilot::Copilot,
    &qwen::Qwen,
    &pi::Pi,
    &kiro::Kiro,
    &aider::Aider,
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
            // A folder of transcripts, or one (Aider's history in the current folder).
            if let Some(p) = loc.resolve().filter(|p| p.is_dir() || p.is_file())
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
    /// Each line that is not a JSON record (at most `BROKEN_PER_FILE` a
    /// file), and each broken `.json` document, in reading order.
    pub broken_lines: Vec<BrokenLine>,
    /// The agents of the files imported.
    pub agents: std::collections::BTreeSet<&'static str>,
    /// When asked for, and every file was read by a separable importer:
    /// what each file gave (import/record.rs).
    pub records: Option<Vec<record::FileRecord>>,
    /// Files recognised as an agent's (product name beside each) whose
    /// records were read, not skipped, and yet gave no call and no result:
    /// a transcript of another shape, never reported as a silent 0.
    pub quiet: Vec<(PathBuf, &'static str)>,
}

/// The counters of `ImportStats` a file moves.
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    lines: u64,
    calls: u64,
    results: u64,
    duplicates: u64,
    skipped: u64,
    invalid: u64,
}

/// A line of a transcript that could not be read, or (`line` 0) a `.json`
/// file that is not a whole document: a `malformed-row` finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BrokenLine {
    pub file: PathBuf,
    /// From 1; 0 for the whole file.
    pub line: u64,
    /// Why, without the line number (the baseline key is made from it).
    pub problem: String,
    /// Broken lines of the file after this one, not listed one by one.
    pub more: u64,
    /// The session the file's records belong to, when the import met one.
    pub session: Option<String>,
}

/// Broken lines listed one by one, per file; the rest are counted on the
/// last one listed.
pub const BROKEN_PER_FILE: u64 = 100;

/// The warnings about files that were skipped as no known transcript:
/// one line for all of them, not one per file (`known` names the formats,
/// "Claude Code, … or Continue transcript"). A Cline or Roo Code UI log
/// (`ui_messages.json`) is named as such: its task folder's
/// `api_conversation_history.json` holds the calls and results, and is
/// read when it is there; a UI log without it is said to be read alone.
pub fn unrecognised_notes(unrecognised: &[PathBuf], known: &str) -> Vec<String> {
    let shown = |p: &Path| crate::sanitize::one_line(&p.display().to_string());
    let (ui_logs, others): (Vec<&PathBuf>, Vec<&PathBuf>) =
        unrecognised.iter().partition(|p| p.file_name().is_some_and(|n| n == "ui_messages.json"));
    let mut notes = Vec::new();
    let alone: Vec<&PathBuf> = ui_logs.into_iter().filter(|p| is_lone_ui_log(p)).collect();
    match alone.as_slice() {
        [] => {}
        [one] => notes.push(format!(
            "{}: a Cline or Roo Code UI log, without the api_conversation_history.json of its task folder, \
             which holds the calls and results tracelint reads; skipped",
            shown(one)
        )),
        [first, rest @ ..] => notes.push(format!(
            "{} Cline or Roo Code UI logs (ui_messages.json) without the api_conversation_history.json of \
             their task folder, which holds the calls and results tracelint reads; skipped (first: {})",
            rest.len() + 1,
            shown(first)
        )),
    }
    match others.as_slice() {
        [] => {}
        [one] => notes.push(format!("{}: not a {known}, skipped", shown(one))),
        [first, rest @ ..] => notes.push(format!(
            "{} files are empty or not a {known}, skipped (first: {})",
            rest.len() + 1,
            shown(first)
        )),
    }
    notes
}

/// Is `path` a Cline or Roo Code UI log without its task folder's
/// conversation (see `unrecognised_notes`)?
pub fn is_lone_ui_log(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "ui_messages.json")
        && !path.with_file_name("api_conversation_history.json").is_file()
}

/// The warning about the broken lines of each file, naming them: "F: 1
/// line is not a JSON record, skipped (line 3; …)".
pub fn broken_line_notes(broken: &[BrokenLine]) -> Vec<String> {
    let mut notes = Vec::new();
    for lines in broken.chunk_by(|a, b| a.file == b.file) {
        let file = crate::sanitize::one_line(&lines[0].file.display().to_string());
        if lines[0].line == 0 {
            notes
                .push(format!("{file}: not a whole JSON document (cut or broken?), skipped (a malformed-row finding)"));
            continue;
        }
        let n = lines.len() as u64 + lines.iter().map(|l| l.more).sum::<u64>();
        let mut at: Vec<String> = lines.iter().take(5).map(|l| l.line.to_string()).collect();
        if n > 5 {
            at.push(format!("and {} more", n - 5));
        } else if at.len() > 1 {
            let last = at.pop().unwrap_or_default();
            let head = at.join(", ");
            at = vec![format!("{head} and {last}")];
        }
        let at = at.join(", ");
        notes.push(if n == 1 {
            format!("{file}: 1 line is not a JSON record, skipped (line {at}; a malformed-row finding)")
        } else {
            format!("{file}: {n} lines are not JSON records, skipped (lines {at}; malformed-row findings)")
        });
    }
    notes
}

impl ImportStats {
    fn clone_counts(&self) -> Counts {
        Counts {
            lines: self.lines,
            calls: self.calls,
            results: self.results,
            duplicates: self.duplicates,
            skipped: self.skipped,
            invalid: self.invalid,
        }
    }

    /// Did the file read since `before` give no call, result or repeat,
    /// though some of its records were not skipped (or, `forced`, at all)?
    /// A document (no lines counted) is one record.
    fn read_nothing_since(&self, before: &Counts, forced: bool) -> bool {
        let moved =
            (self.calls - before.calls) + (self.results - before.results) + (self.duplicates - before.duplicates);
        let (lines, skipped) = (self.lines - before.lines, self.skipped - before.skipped);
        let used = match lines {
            0 => u64::from(skipped == 0),
            n => n.saturating_sub(skipped + (self.invalid - before.invalid)),
        };
        moved == 0 && (forced || used > 0)
    }

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
    /// The storage failure a write met (a full disk, an I/O error, a value
    /// too big), so the error can name what the user gave, not the file
    /// being read when it happened.
    failed: std::cell::Cell<Option<rusqlite::ErrorCode>>,
    /// The file being imported, and the first session written while each
    /// file was (the session its broken lines are reported in).
    reading: Option<PathBuf>,
    file_sessions: HashMap<PathBuf, String>,
    /// What each file gave, when the import keeps it (import/record.rs).
    record: Option<record::Recorder>,
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
            failed: std::cell::Cell::new(None),
            reading: None,
            file_sessions: HashMap::new(),
            record: None,
            stats: ImportStats::default(),
        }
    }

    /// The file being read wrote to `session` (for the records).
    fn touch(&mut self, session: &str) {
        if let (Some(rec), Some(file)) = (&mut self.record, &self.reading) {
            rec.session(file, session);
        }
    }

    /// The file being read defined or looked up a key other files may
    /// hold too: a run that keeps keys across files (Claude Code's line
    /// uuids) declares each one it meets, so the records bind the files.
    pub fn shared_key(&mut self, kind: record::Key, key: &str) {
        if let (Some(rec), Some(file)) = (&mut self.record, &self.reading) {
            rec.key(file, kind, key);
        }
    }

    /// Create or update a session. The earliest start time wins; parent,
    /// agent and source are kept once known.
    pub fn session(&mut self, s: &SessionRow<'_>) -> rusqlite::Result<()> {
        self.touch(s.id);
        if let Some(file) = &self.reading
            && !self.file_sessions.contains_key(file)
        {
            self.file_sessions.insert(file.clone(), s.id.to_string());
        }
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
            .execute(params![s.id, s.parent, s.agent, s.source, s.started])
            .inspect_err(|e| self.seen(e))?;
        Ok(())
    }

    /// The session that holds call `id`, if any (tool call ids are unique
    /// across sessions in the agents imported here).
    pub fn session_of_call(&mut self, id: &str) -> rusqlite::Result<Option<String>> {
        self.shared_key(record::Key::Call, id);
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
        self.touch(session);
        self.shared_key(record::Key::Call, id);
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
            .execute(params![session, id, seq, tool, input, time])
            .inspect_err(|e| self.seen(e))?;
        if let Some(owners) = &mut self.owners {
            owners.entry(id.to_string()).or_default().push(session.to_string());
            if owners.len() > self.owners_cap {
                self.owners = None;
            }
        }
        self.stats.calls += 1;
        Ok(())
    }

    /// Record a call the source gives no id: it is written under the
    /// synthetic id `#<seq>` (its place in the session), which is returned
    /// for its result and shown as such in reports.
    pub fn call_without_id(
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
    pub fn result(&mut self, r: &ResultRow<'_>) -> rusqlite::Result<()> {
        self.touch(r.session);
        self.shared_key(record::Key::Call, r.call_id);
        let n = self
            .conn
            .prepare_cached(
                "INSERT INTO results (session_id, call_id, text, is_error, exit_code, returned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(session_id, call_id) DO NOTHING",
            )?
            .execute(params![r.session, r.call_id, r.text, r.flag.map(i64::from), r.exit_code, r.time])
            .inspect_err(|e| self.seen(e))?;
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
        self.touch(r.session);
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
                    .execute(params![r.session, r.call_id, r.text, r.flag.map(i64::from), r.exit_code, r.time])
                    .inspect_err(|e| self.seen(e))?;
                Ok(())
            }
        }
    }

    /// Move a call and its result to another session (a call belongs to
    /// the session that made it; see the Claude Code importer).
    pub fn move_call(&mut self, from: &str, to: &str, call_id: &str) -> rusqlite::Result<()> {
        self.touch(from);
        self.touch(to);
        self.shared_key(record::Key::Call, call_id);
        let seq = self.take_seq(to)?;
        let moved = self
            .conn
            .prepare_cached("UPDATE calls SET session_id = ?2, seq = ?4 WHERE session_id = ?1 AND id = ?3")?
            .execute(params![from, to, call_id, seq])
            .inspect_err(|e| self.seen(e))?;
        if let Some(o) = self.owners.as_mut().and_then(|o| o.get_mut(call_id)).filter(|_| moved > 0)
            && let Some(s) = o.iter_mut().find(|s| *s == from)
        {
            *s = to.to_string();
        }
        self.conn
            .prepare_cached("UPDATE results SET session_id = ?2 WHERE session_id = ?1 AND call_id = ?3")?
            .execute(params![from, to, call_id])
            .inspect_err(|e| self.seen(e))?;
        Ok(())
    }

    /// Remove a call and its result (the source took it back).
    pub fn forget_call(&mut self, session: &str, call_id: &str) -> rusqlite::Result<()> {
        self.touch(session);
        self.shared_key(record::Key::Call, call_id);
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
        if let Some(o) = self.owners.as_mut().and_then(|o| o.get_mut(call_id)).filter(|_| n > 0) {
            o.retain(|s| s != session);
        }
        Ok(())
    }

    /// The `seq` the next call of `session` will get.
    fn peek_seq(&mut self, session: &str) -> rusqlite::Result<i64> {
        let seq = self.take_seq(session)?;
        self.next_seq.insert(session.to_string(), seq);
        Ok(seq)
    }

    /// Note a failure of the storage itself (`failed`).
    fn seen(&self, e: &rusqlite::Error) {
        use rusqlite::ErrorCode;
        if let rusqlite::Error::SqliteFailure(f, _) = e
            && matches!(f.code, ErrorCode::DiskFull | ErrorCode::SystemIoFailure | ErrorCode::TooBig)
        {
            self.failed.set(Some(f.code));
        }
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

/// Where an import writes, and whom an error names.
#[derive(Debug, Clone, Copy)]
pub enum Store<'a> {
    /// `import --into`: the database the user `named`, written at `at` (the
    /// file itself, or a new one beside it that is renamed into place).
    Into { named: &'a Path, at: &'a Path },
    /// The scratch database at `at` in `$TMPDIR` that a scan reads the
    /// transcripts of the PATH `input` through.
    Scratch { input: &'a Path, at: &'a Path },
}

impl Store<'_> {
    /// The database file written.
    pub fn at(&self) -> &Path {
        match self {
            Store::Into { at, .. } | Store::Scratch { at, .. } => at,
        }
    }

    /// A failure of the database, named after what the user gave: the
    /// `--into` database, or the transcripts a scratch copy was made of.
    fn failed(&self, e: &rusqlite::Error) -> Error {
        if let rusqlite::Error::SqliteFailure(f, _) = e
            && let Some(storage) = self.storage_failed(f.code, None)
        {
            return storage;
        }
        match self {
            Store::Into { named, .. } => Error::input(named, crate::source::open::sqlite_problem(e)),
            Store::Scratch { input, .. } => Error::input(
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
    fn storage_failed(&self, code: rusqlite::ErrorCode, file: Option<&Path>) -> Option<Error> {
        use rusqlite::ErrorCode;
        let (named, scratch) = match self {
            Store::Into { named, .. } => (*named, false),
            Store::Scratch { input, .. } => (*input, true),
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
fn temp_dir() -> String {
    crate::sanitize::one_line(&std::env::temp_dir().display().to_string())
}

/// Open (or create) the database of `store` as a tracelint database,
/// refusing anything else. An empty file is a new database.
pub fn open_target(store: &Store<'_>) -> Result<Connection> {
    let into = store.at();
    let named = match store {
        Store::Into { named, .. } => *named,
        Store::Scratch { at, .. } => *at,
    };
    let sql = |e: rusqlite::Error| store.failed(&e);
    let existed = std::fs::metadata(into).is_ok_and(|m| m.len() > 0);
    if existed {
        // Recognise it before writing anything.
        let conn = crate::source::open::open_read_only(into)?.conn;
        let format = crate::source::detect(into, &conn).map_err(|_| {
            Error::input(named, "exists and is not a tracelint database; import writes only into its own schema")
        })?;
        if format != crate::source::Format::TRACELINT {
            return Err(Error::input(
                named,
                format!("is a {} trace database; import writes only into tracelint's own schema", format.as_str()),
            ));
        }
        let version = crate::source::tracelint::schema_version(&conn).map_err(sql)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(Error::input(named, "tracelint schema of another version; import writes version 1 only"));
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
        let meta = std::fs::metadata(src).map_err(|e| Error::input(src, io_problem(&e)))?;
        if let Some(kind) = crate::source::open::special_kind(&meta) {
            return Err(crate::source::open::not_regular(src, kind));
        }
        if meta.is_dir() {
            walk(src, &mut out)?;
        } else {
            out.push(src.clone());
        }
    }
    out.sort();
    out.dedup();
    // Two names of one file (a hard link) are one transcript.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mut seen = std::collections::HashSet::new();
        out.retain(|f| std::fs::metadata(f).map_or(true, |m| seen.insert((m.dev(), m.ino()))));
    }
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
        } else if kind.is_file()
            && (path.extension().is_some_and(|e| e == "jsonl" || e == "json") || claimed_name(&path))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Does some importer claim a file of this name as a text transcript?
pub fn claimed_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    IMPORTERS.iter().any(|i| i.claims_name(name))
}

/// Is the file at `path` a text transcript some importer recognises by its
/// name or first bytes (an Aider history renamed)?
pub fn is_text_transcript(path: &Path) -> bool {
    claimed_name(path) || head_of(path).is_ok_and(|head| IMPORTERS.iter().any(|i| i.recognise_text(path, &head)))
}

/// The first bytes of a file (at most 512), for recognising text formats.
fn head_of(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = crate::source::open::open_regular(path).map_err(|e| Error::input(path, io_problem(&e)))?;
    let mut head = Vec::with_capacity(512);
    file.take(512).read_to_end(&mut head).map_err(|e| Error::input(path, io_problem(&e)))?;
    Ok(head)
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
    /// The number of the line read last, from 1.
    line: u64,
    /// Why the line read last is not a record, when it is not.
    problem: Option<String>,
    /// Broken lines of this file so far.
    broken: u64,
}

enum Lines {
    Here { reader: SizedReader, buf: Vec<u8> },
    Ahead { blocks: crossbeam_channel::Receiver<Ahead>, block: std::vec::IntoIter<Parsed>, done: bool },
}

/// What the helper thread of a `LineReader` sends: lines in file order,
/// then the end of the file or the error that stopped it.
enum Ahead {
    Block(Vec<Parsed>),
    End,
    Failed(std::io::Error),
}

/// A line parsed ahead: `None` for a blank line, how many lone surrogate
/// escapes were replaced, and why it is not a record when it is not.
struct Parsed {
    line: Option<Line>,
    surrogates: u64,
    problem: Option<String>,
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
        let problem = Some(format!("a line over {} MiB", MAX_LINE_BYTES >> 20));
        return Parsed { line: Some(Line::Invalid), surrogates: 0, problem };
    }
    // Valid UTF-8 is the rule: check it fast, repair it only when not.
    let text = match std::str::from_utf8(buf) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(buf),
    };
    let text = text.trim();
    if text.is_empty() {
        return Parsed { line: None, surrogates: 0, problem: None };
    }
    let (line, surrogates, problem) = parse_line_why(text);
    Parsed { line: Some(line), surrogates, problem }
}

/// A transcript read only up to the size it had when it was opened: a file
/// an agent keeps appending to is read as it was then, not forever. Opened
/// with `open_regular`, so a FIFO never blocks it.
struct SizedReader {
    reader: BufReader<std::io::Take<File>>,
    size: u64,
}

impl SizedReader {
    fn open(path: &Path) -> Result<SizedReader> {
        let cannot = |e: std::io::Error| Error::input(path, io_problem(&e));
        let file = crate::source::open::open_regular(path).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        Ok(SizedReader { reader: BufReader::with_capacity(1 << 16, file.take(size)), size })
    }

    /// The next line into `buf`, with its newline; 0 at the end. A last
    /// line without a newline where the file ended when it was opened, in a
    /// file that has grown since, is still being written: it is not read.
    fn next_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        buf.clear();
        let n = read_line_at_most(&mut self.reader, buf, MAX_LINE_BYTES)?;
        let take = self.reader.get_ref();
        if n > 0
            && buf.last() != Some(&b'\n')
            && take.limit() == 0
            && take.get_ref().metadata().is_ok_and(|m| m.len() > self.size)
        {
            buf.clear();
            return Ok(0);
        }
        Ok(n)
    }
}

/// A one-line description of an error reading a transcript.
fn io_problem(e: &std::io::Error) -> String {
    crate::source::open::io_problem(e)
}

impl LineReader {
    pub fn open(path: &Path) -> Result<LineReader> {
        let mut reader = SizedReader::open(path)?;
        let (tx, blocks) = crossbeam_channel::bounded(2);
        let spawned = std::thread::Builder::new().name("tracelint-lines".into()).spawn(move || {
            let mut buf = Vec::new();
            loop {
                let (mut block, mut bytes) = (Vec::new(), 0);
                while bytes < AHEAD_BYTES {
                    match reader.next_line(&mut buf) {
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
        Ok(LineReader::new(path, lines))
    }

    fn new(path: &Path, lines: Lines) -> LineReader {
        LineReader { path: path.to_path_buf(), lines, line: 0, problem: None, broken: 0 }
    }

    /// A reader that reads on this thread, only as far as it is asked.
    pub fn open_here(path: &Path) -> Result<LineReader> {
        let lines = Lines::Here { reader: SizedReader::open(path)?, buf: Vec::new() };
        Ok(LineReader::new(path, lines))
    }

    /// The next JSON record; lines that are not one are counted and skipped.
    pub fn next_record(&mut self, stats: &mut ImportStats) -> Result<Option<Value>> {
        loop {
            match self.next_line(stats)? {
                None => return Ok(None),
                Some(Some(Line::Record(v))) => return Ok(Some(v)),
                Some(Some(Line::Invalid)) => self.invalid(stats),
                Some(None) => {}
            }
        }
    }

    /// Count the line read last as one that is not a record, and keep its
    /// place for the `malformed-row` finding.
    pub fn invalid(&mut self, stats: &mut ImportStats) {
        stats.invalid += 1;
        self.broken += 1;
        if self.broken > BROKEN_PER_FILE {
            if let Some(last) = stats.broken_lines.last_mut() {
                last.more += 1;
            }
            return;
        }
        let problem = self.problem.take().unwrap_or_else(|| "not a JSON record".into());
        stats.broken_lines.push(BrokenLine {
            file: self.path.clone(),
            line: self.line,
            problem,
            more: 0,
            session: None,
        });
    }

    /// The next line: `None` at the end, `Some(None)` for a blank line.
    fn next_line(&mut self, stats: &mut ImportStats) -> Result<Option<Option<Line>>> {
        let cannot_read = |path: &Path, e: std::io::Error| Error::input(path, io_problem(&e));
        let parsed = match &mut self.lines {
            Lines::Here { reader, buf } => {
                if reader.next_line(buf).map_err(|e| cannot_read(&self.path, e))? == 0 {
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
        self.line += 1;
        self.problem = parsed.problem;
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
    let cannot = |e: std::io::Error| Error::input(path, io_problem(&e));
    // Up to the size at the open, like lines (`SizedReader`), and no more
    // than the bound.
    let mut bytes = Vec::new();
    let file = crate::source::open::open_regular(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    file.take(size.min(MAX_DOCUMENT_BYTES + 1)).read_to_end(&mut bytes).map_err(cannot)?;
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
    let (line, surrogates, _) = parse_line_why(text);
    stats.surrogates += surrogates;
    line
}

/// `parse_line`, with the number of lone surrogate escapes replaced, and
/// why the line is not a record when it is not.
fn parse_line_why(text: &str) -> (Line, u64, Option<String>) {
    let not_an_object = || Some("a JSON value that is not an object".to_string());
    if crate::source::json::check_size(text.as_bytes()).is_err() {
        return (Line::Invalid, 0, Some("a JSON value too large to read (see docs/security.md)".to_string()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => (Line::Record(v), 0, None),
        Ok(_) => (Line::Invalid, 0, not_an_object()),
        Err(e) => {
            let Some((fixed, n)) = crate::source::json::replace_lone_surrogates(text) else {
                return (Line::Invalid, 0, Some(not_json(&e)));
            };
            match serde_json::from_str::<Value>(&fixed) {
                Ok(v @ Value::Object(_)) => (Line::Record(v), n, None),
                Ok(_) => (Line::Invalid, 0, not_an_object()),
                Err(e) => (Line::Invalid, 0, Some(not_json(&e))),
            }
        }
    }
}

/// Why a line is not JSON, without serde's "at line 1" (a transcript line
/// is one line; its number in the file is said apart).
fn not_json(e: &serde_json::Error) -> String {
    if e.classify() == serde_json::error::Category::Eof {
        return "cut short: the line ends inside a JSON value".into();
    }
    let text = e.to_string();
    let what = text.rsplit_once(" at line ").map_or(text.as_str(), |(what, _)| what);
    format!("not JSON: {what} (column {})", e.column())
}

/// The importer of a transcript, recognised by the first of its first 50
/// lines that is a JSON record some importer claims, or, for a `.json` file
/// no importer claims that way, by its whole document.
pub fn recognise(path: &Path) -> Result<Option<&'static dyn Importer>> {
    Ok(recognise_at(path)?.map(|at| IMPORTERS[at]))
}

/// `recognise`, as the importer's place in `IMPORTERS`.
fn recognise_at(path: &Path) -> Result<Option<usize>> {
    if let Some(at) = IMPORTERS.iter().position(|i| i.claims_file(path)) {
        return Ok(Some(at));
    }
    // Text formats are never named `.jsonl` or `.json`: those files are not opened twice.
    if !path.extension().is_some_and(|e| e == "jsonl" || e == "json") {
        let head = head_of(path)?;
        if let Some(at) = IMPORTERS.iter().position(|i| i.recognise_text(path, &head)) {
            return Ok(Some(at));
        }
    }
    let mut lines = LineReader::open_here(path)?;
    let mut scratch = ImportStats::default();
    let mut records = 0;
    for _ in 0..50 {
        match lines.next_line(&mut scratch)? {
            None => break,
            Some(Some(Line::Record(v))) => {
                records += 1;
                if let Some(at) = IMPORTERS.iter().position(|i| i.recognise(&v)) {
                    return Ok(Some(at));
                }
            }
            Some(_) => {}
        }
    }
    if !may_be_document(path, records) {
        return Ok(None);
    }
    let Some(doc) = read_document(path, &mut scratch)? else { return Ok(None) };
    Ok(IMPORTERS.iter().position(|i| i.recognise_document(path, &doc)))
}

/// Is `path` worth reading as one whole JSON document? A `.json` file is;
/// so is a file of any other name whose first lines held no JSON record
/// (pretty-printed spans in `traces.jsonl`), but not a file of records no
/// importer claims, which would be read whole for nothing.
fn may_be_document(path: &Path, records_seen: usize) -> bool {
    is_json_document(path) || records_seen == 0
}

/// Import every transcript under `sources` into the database of `store`.
pub fn import(sources: &[PathBuf], store: &Store<'_>, agent: Option<Dialect>) -> Result<ImportStats> {
    let files = transcript_files(sources)?;
    let conn = open_target(store)?;
    import_files(&conn, store, &files, agent)
}

/// A throwaway tracelint database (an empty file, or none) for transcripts
/// that are read, not kept: nothing in it is ever synced to disk.
pub fn open_scratch(store: &Store<'_>) -> Result<Connection> {
    let sql = |e: rusqlite::Error| store.failed(&e);
    let conn = Connection::open(store.at()).map_err(sql)?;
    conn.execute_batch("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;").map_err(sql)?;
    conn.execute_batch(SCHEMA_SQL).map_err(sql)?;
    Ok(conn)
}

/// The one import driver: each file is recognised and handed to its
/// format's run, inside one transaction of `conn` (the database of `store`).
/// With `agent`, every file is read as that agent's, unrecognised or not.
pub fn import_files(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
) -> Result<ImportStats> {
    import_files_counted(conn, store, files, agent, &mut |_, _| {})
}

/// `import_files`, telling `progress` (bytes of the files read so far, bytes
/// of all the files) after each file.
pub fn import_files_counted(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ImportStats> {
    let forced = agent.and_then(|d| IMPORTERS.iter().position(|i| i.info().dialect == d));
    import_files_with(conn, store, files, forced, OWNERS_CAP, false, progress)
}

/// `import_files_counted`, keeping what each file gave in `records` when
/// every file is of a separable format (import/record.rs).
pub fn import_files_recorded(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ImportStats> {
    let forced = agent.and_then(|d| IMPORTERS.iter().position(|i| i.info().dialect == d));
    import_files_with(conn, store, files, forced, OWNERS_CAP, true, progress)
}

/// `import_files`, keeping the owners of at most `owners_cap` call ids in
/// memory, and (`record`) what each file gave.
fn import_files_with(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    forced: Option<usize>,
    owners_cap: usize,
    record: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ImportStats> {
    let size = |f: &Path| std::fs::metadata(f).map_or(0, |m| m.len());
    let total: u64 = files.iter().map(|f| size(f)).sum();
    let mut done = 0;
    progress(0, total);
    let sql = |e: rusqlite::Error| store.failed(&e);
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
    let mut writer = Writer::new(conn);
    writer.owners_cap = owners_cap;
    writer.record = record.then(record::Recorder::default);
    // One run per format, started by its first file, in registry order.
    let mut runs: Vec<Option<Box<dyn ImportRun>>> = IMPORTERS.iter().map(|_| None).collect();
    // The files of each run that writes at its finish.
    let mut deferred: Vec<Vec<PathBuf>> = IMPORTERS.iter().map(|_| Vec::new()).collect();
    let mut reading = None;
    let result = (|| -> Result<()> {
        for file in files {
            if let Some(last) = reading {
                done += size(last);
                progress(done.min(total), total);
            }
            reading = Some(file.as_path());
            writer.reading = Some(file.clone());
            let surrogates = writer.stats.surrogates;
            if let Some(rec) = &mut writer.record {
                rec.file(file);
            }
            let recognised = match forced {
                Some(at) => Some(at),
                None => recognise_at(file)?,
            };
            let Some(at) = recognised else {
                let broken = is_json_document(file) && read_document(file, &mut ImportStats::default())?.is_none();
                // A file of another name that is not JSON at all is a stranger, not a broken document.
                if broken {
                    writer.stats.broken.push(file.clone());
                    let problem = "not a whole JSON document (cut or broken?)".to_string();
                    let line = BrokenLine { file: file.clone(), line: 0, problem, more: 0, session: None };
                    writer.stats.broken_lines.push(line);
                } else {
                    writer.stats.unrecognised.push(file.clone());
                }
                continue;
            };
            let importer = IMPORTERS[at];
            let before = writer.stats.clone_counts();
            let run = runs[at].get_or_insert_with(|| importer.run());
            run.file(file, &mut writer)?;
            let read = writer.stats.surrogates - surrogates;
            if let Some(rec) = &mut writer.record {
                rec.bound |= !importer.separable() || run.writes_at_finish();
                let at = rec.file(file);
                at.format = Some(importer.info().name().to_string());
                at.surrogates = read;
            }
            if run.writes_at_finish() {
                deferred[at].push(file.clone());
            } else if writer.stats.read_nothing_since(&before, forced.is_some()) {
                writer.stats.quiet.push((file.clone(), importer.info().product));
            }
            writer.stats.agents.insert(importer.info().name());
            writer.stats.files += 1;
        }
        progress(total, total);
        for (at, run) in runs.iter_mut().enumerate() {
            let Some(run) = run else { continue };
            let before = writer.stats.clone_counts();
            run.finish(&mut writer).map_err(sql)?;
            let files = std::mem::take(&mut deferred[at]);
            if !files.is_empty() && writer.stats.read_nothing_since(&before, true) {
                let product = IMPORTERS[at].info().product;
                writer.stats.quiet.extend(files.into_iter().map(|f| (f, product)));
            }
        }
        Ok(())
    })();
    // A full disk met while a transcript was read is the database's
    // failure, not the transcript's.
    let result = result.map_err(|e| writer.failed.get().and_then(|c| store.storage_failed(c, reading)).unwrap_or(e));
    match result {
        Ok(()) => conn.execute_batch("COMMIT").map_err(sql)?,
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(e);
        }
    }
    writer.stats.sessions = writer.sessions.len() as u64;
    for b in &mut writer.stats.broken_lines {
        b.session = writer.file_sessions.get(&b.file).cloned();
    }
    if let Some(rec) = writer.record.take() {
        writer.stats.records = rec.finish(&writer.stats);
    }
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

    /// A transcript is read up to the size it had when it was opened: what
    /// is appended later is not read, and a last line that was still being
    /// written is neither read nor counted as broken.
    #[test]
    fn a_growing_transcript_is_read_as_it_was_when_opened() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let lines: String = (0..3000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        let read = |r: LineReader| {
            let mut stats = ImportStats::default();
            let mut r = r;
            let mut n = 0;
            while r.next_record(&mut stats).unwrap().is_some() {
                n += 1;
            }
            (n, stats.invalid)
        };
        for ahead in [true, false] {
            std::fs::write(&path, format!("{lines}{{\"n\":\"half")).unwrap();
            let r = if ahead { LineReader::open(&path) } else { LineReader::open_here(&path) }.unwrap();
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
            f.write_all(b" of a line\"}\n").unwrap();
            f.write_all(lines.as_bytes()).unwrap();
            drop(f);
            assert_eq!(read(r), (3000, 0), "ahead: {ahead}");
        }
        // A file that did not grow ends in its last line, newline or not.
        std::fs::write(&path, format!("{lines}{{\"n\":\"last\"}}")).unwrap();
        assert_eq!(read(LineReader::open(&path).unwrap()), (3001, 0));
        std::fs::write(&path, format!("{lines}{{\"n\":\"cut")).unwrap();
        assert_eq!(read(LineReader::open(&path).unwrap()), (3000, 1));
    }

    /// A value too big for SQLite names the transcript that holds it; a
    /// full disk met while a transcript was read names the store: `$TMPDIR`
    /// for a scratch copy, the `--into` database otherwise (F16).
    #[test]
    fn storage_failures_name_what_the_user_gave() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        let call = r#"{"type":"assistant","sessionId":"s","uuid":"a","message":{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"Bash","input":{}}]}}"#;
        let result = format!(
            r#"{{"type":"user","sessionId":"s","uuid":"r","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"c","content":"Error: {}"}}]}}}}"#,
            "x".repeat(5000)
        );
        std::fs::write(&t, format!("{call}\n{result}\n")).unwrap();
        let db = dir.path().join("scratch.db");
        let store = Store::Scratch { input: dir.path(), at: &db };
        let conn = open_scratch(&store).unwrap();
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, 2000).unwrap();
        let err = import_files(&conn, &store, std::slice::from_ref(&t), None).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: holds a call or result too large to store (over SQLite's 1 GB: string or blob too big)",
                t.display()
            )
        );
        let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(13), None);
        let err = store.failed(&full).to_string();
        assert!(err.starts_with(&format!("{}: no space left in $TMPDIR (", dir.path().display())), "{err}");
        let named = dir.path().join("traces.db");
        let err = Store::Into { named: &named, at: &db }.storage_failed(rusqlite::ErrorCode::DiskFull, Some(&t));
        assert!(
            err.unwrap().to_string().starts_with(&format!("{}: cannot write the database: no space", named.display()))
        );
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
            let store = Store::Scratch { input: &db, at: &db };
            let conn = open_scratch(&store).unwrap();
            if seeded {
                conn.execute_batch(
                    "INSERT INTO sessions (id) VALUES ('zz');
                     INSERT INTO calls (session_id, id, seq, tool) VALUES ('zz', 'unrelated', 1, 'Read');",
                )
                .unwrap();
            }
            let stats = import_files_with(&conn, &store, &files, None, cap, false, &mut |_, _| {}).unwrap();
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
