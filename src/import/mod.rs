//! `falseok import`: agent transcripts (JSONL, or whole JSON documents,
//! or Aider's Markdown history) into falseok's own trace schema
//! (`sql/schema.sql`).
//!
//! JSONL files are read line by line (a 500 MB transcript is never held
//! whole); each line is one JSON record. A `.json` transcript is one
//! document, read whole within a size bound. Unknown record types are
//! skipped, lines that are not JSON are counted, and lone UTF-16 surrogate
//! escapes (which JSON parsers reject) are replaced by U+FFFD and counted.
//! Every importer writes through the transcript store (`store/`): upserts
//! keyed by (session, call id), inside one transaction, so importing the
//! same files twice leaves the database as it was. When
//! asked, the import keeps what each file gave (`record`), so the index can
//! import a changed folder again in part.

pub(crate) mod aider;
pub(crate) mod branches;
pub(crate) mod claude;
mod claude_line;
pub(crate) mod cline;
pub(crate) mod codex;
pub(crate) mod continue_dev;
pub(crate) mod copilot;
mod files;
pub(crate) mod gemini;
pub(crate) mod kiro;
pub(crate) mod openhands;
pub(crate) mod openhands_app;
pub(crate) mod otel;
pub(crate) mod pi;
mod store;
mod usage;

pub(crate) use files::*;
pub(crate) use store::*;

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::FormatInfo;

/// One transcript format: what it is, how a file of it is recognised, and
/// an importer for one run. Adding a format is one file implementing this
/// and one line in `IMPORTERS`.
pub(crate) trait Importer: Sync {
    /// Its name (the agent written to `sessions.agent`, and the dialect its
    /// sessions are judged in), how it is recognised and where it lives.
    fn info(&self) -> &'static FormatInfo;
    /// How its runs read a file of lines, when each run's `file` opens its
    /// lines with `Writer::lines` first thing: the import then opens the
    /// readers of the next files (`FILES_AHEAD`, read and parsed in order
    /// by one helper thread) while this one is written, so a folder of
    /// small files keeps both cores busy.
    /// `None`: its files are opened when their turn comes.
    fn lines_ahead(&self) -> Option<Option<TypedParse>> {
        None
    }
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
    /// Then a folder of them can be imported again in part (import/store/record.rs).
    /// Not when the run writes at its finish or reads the file's neighbours.
    fn separable(&self) -> bool {
        false
    }
}

/// One import run of one transcript format.
pub(crate) trait ImportRun {
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

/// Every transcript format, in the order `falseok formats` lists them.
pub(crate) static IMPORTERS: &[&dyn Importer] = &[
    &claude::Claude,
    &codex::Codex,
    &gemini::Gemini,
    &otel::Otel,
    &openhands::OpenHands,
    &cline::Cline,
    &cline::Roo,
    &continue_dev::Continue,
    &copilot::Copilot,
    &gemini::qwen::Qwen,
    &pi::Pi,
    &kiro::Kiro,
    &aider::Aider,
];

/// The descriptions of every transcript format, in registry order.
pub(crate) fn infos() -> impl Iterator<Item = &'static FormatInfo> {
    IMPORTERS.iter().map(|i| i.info())
}

/// Every default transcript folder that exists on this machine.
pub(crate) fn default_transcript_dirs() -> Vec<PathBuf> {
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
pub(crate) struct ImportStats {
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
    /// The dialects (agents) of the files imported.
    pub dialects: std::collections::BTreeSet<Dialect>,
    /// When asked for, and every file was read by a separable importer:
    /// what each file gave (import/store/record.rs).
    pub records: Option<Vec<record::FileRecord>>,
    /// Files recognised as an agent's (product name beside each) whose
    /// records were read, not skipped, and yet gave no call and no result:
    /// a transcript of another shape, never reported as a silent 0.
    pub quiet: Vec<(PathBuf, &'static str)>,
}

/// The counters of `ImportStats` a file moves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
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
pub(crate) struct BrokenLine {
    pub file: PathBuf,
    /// From 1; 0 for the whole file.
    pub line: u64,
    /// Why, without the line number (the baseline key is made from it).
    pub problem: String,
    /// Broken lines of the file after this one, not listed one by one.
    pub more: u64,
    /// Of this line and the `more`, those longer than the line bound
    /// (`MAX_LINE_BYTES`), read past unparsed: any calls in them are lost.
    #[serde(default)]
    pub long: u64,
    /// The session the file's records belong to, when the import met one.
    pub session: Option<String>,
}

/// Broken lines listed one by one, per file; the rest are counted on the
/// last one listed.
pub(crate) const BROKEN_PER_FILE: u64 = 100;

/// Files recognised and opened ahead of the one being written, read by one
/// helper in order (`files::ReadAhead`): enough that a run of small
/// transcripts after a large one, or a large one after small ones, keeps
/// the helper parsing while the importer writes.
const FILES_AHEAD: usize = 4;

/// The warnings about files that were skipped as no known transcript:
/// one line for all of them, not one per file (`known` names the formats,
/// "Claude Code, … or Continue transcript"). A Cline or Roo Code UI log
/// (`ui_messages.json`) is named as such: its task folder's
/// `api_conversation_history.json` holds the calls and results, and is
/// read when it is there; a UI log without it is read alone, and named
/// here only when it holds no messages.
pub(crate) fn unrecognised_notes(unrecognised: &[PathBuf], known: &str) -> Vec<String> {
    let shown = |p: &Path| crate::sanitize::one_line(&p.display().to_string());
    let (ui_logs, others): (Vec<&PathBuf>, Vec<&PathBuf>) =
        unrecognised.iter().partition(|p| p.file_name().is_some_and(|n| n == "ui_messages.json"));
    let mut notes = Vec::new();
    let alone: Vec<&PathBuf> = ui_logs.into_iter().filter(|p| is_lone_ui_log(p)).collect();
    match alone.as_slice() {
        [] => {}
        [one] => notes.push(format!(
            "{}: a Cline or Roo Code UI log with no messages to read (and no api_conversation_history.json \
             beside it); skipped",
            shown(one)
        )),
        [first, rest @ ..] => notes.push(format!(
            "{} Cline or Roo Code UI logs (ui_messages.json) with no messages to read (and no \
             api_conversation_history.json beside them); skipped (first: {})",
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
pub(crate) fn is_lone_ui_log(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "ui_messages.json")
        && !path.with_file_name("api_conversation_history.json").is_file()
}

/// The warning about the broken lines of each file, naming them: "F: 1
/// line is not a JSON record, skipped (line 3; …)".
pub(crate) fn broken_line_notes(broken: &[BrokenLine]) -> Vec<String> {
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
        // A line past the bound may have been a record: say it was not read.
        let long = lines.iter().map(|l| l.long).sum::<u64>();
        let mib = files::MAX_LINE_BYTES >> 20;
        notes.push(match (n, long) {
            (1, 0) => format!("{file}: 1 line is not a JSON record, skipped (line {at}; a malformed-row finding)"),
            (1, _) => format!(
                "{file}: 1 line is over {mib} MiB, skipped unread: any calls in it are not counted \
                 (line {at}; a malformed-row finding)"
            ),
            (_, 0) => format!("{file}: {n} lines are not JSON records, skipped (lines {at}; malformed-row findings)"),
            (_, _) => format!(
                "{file}: {n} lines are not JSON records or are over {mib} MiB, skipped (lines {at}; {long} of them \
                 over {mib} MiB, skipped unread: any calls in them are not counted; malformed-row findings)"
            ),
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
    pub(crate) fn label(&self) -> &'static str {
        match self.dialects.iter().collect::<Vec<_>>().as_slice() {
            [one] => one.as_str(),
            _ => "jsonl",
        }
    }
}

/// The place in `IMPORTERS` of a transcript's importer, recognised by the
/// first of its first 50 lines that is a JSON record some importer claims,
/// or, for a `.json` file no importer claims that way, by its whole
/// document.
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

/// Does some importer recognise one of `files`, as an import of them
/// would (stopping at the first)? An import of files none of which is
/// recognised fails: a folder that would is not read as transcripts.
pub(crate) fn any_recognised(files: &[PathBuf]) -> bool {
    files.iter().any(|f| matches!(recognise_at(f), Ok(Some(_))))
}

/// Is `path` worth reading as one whole JSON document? A `.json` file is;
/// so is a file of any other name whose first lines held no JSON record
/// (pretty-printed spans in `traces.jsonl`), but not a file of records no
/// importer claims, which would be read whole for nothing.
fn may_be_document(path: &Path, records_seen: usize) -> bool {
    is_json_document(path) || records_seen == 0
}

/// Import every transcript under `sources` into the database of `target`.
pub(crate) fn import(sources: &[PathBuf], target: &Target<'_>, agent: Option<Dialect>) -> Result<ImportStats> {
    let files = transcript_files(sources)?;
    let conn = open_target(target)?;
    let opts = ImportOptions { agent, ..ImportOptions::default() };
    Ok(import_files(&conn, target, &files, &opts, &mut |_, _| {})?.0)
}

/// How `import_files` imports a set of files.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ImportOptions<'a> {
    /// Read every file as this agent's, recognised or not.
    pub agent: Option<Dialect>,
    /// Keep what each file gave in `ImportStats::records`, when every file
    /// is of a separable format (import/store/record.rs).
    pub record: bool,
    /// A scan's store: the rows in memory while they fit, then spilled into
    /// `conn`, returned as a `Store`. `None`: every row is written to
    /// `conn` (`import --into`).
    pub store: Option<StoreOptions<'a>>,
    /// The call ids whose owners are held in memory before the database is
    /// asked instead (`OWNERS_CAP`; lowered by tests).
    pub owners_cap: usize,
}

impl Default for ImportOptions<'_> {
    fn default() -> Self {
        ImportOptions { agent: None, record: false, store: None, owners_cap: OWNERS_CAP }
    }
}

/// The one import driver: each file is recognised and handed to its
/// format's run, inside one transaction of `conn` (the database of
/// `target`), as `opts` says; `progress` is told (bytes of the files read
/// so far, bytes of all the files) after each file. With `opts.store`, the
/// store is returned too: read it with `Store::read`.
pub(crate) fn import_files(
    conn: &Connection,
    target: &Target<'_>,
    files: &[PathBuf],
    opts: &ImportOptions<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(ImportStats, Option<Store>)> {
    let forced = opts.agent.and_then(|d| IMPORTERS.iter().position(|i| i.info().dialect == d));
    let size = |f: &Path| std::fs::metadata(f).map_or(0, |m| m.len());
    let total: u64 = files.iter().map(|f| size(f)).sum();
    let mut done = 0;
    progress(0, total);
    let sql = |e: rusqlite::Error| target.failed(&e);
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
    let mut writer = Writer::new(conn);
    writer.owners_cap = opts.owners_cap;
    writer.record = opts.record.then(record::Recorder::default);
    if let Some(store) = opts.store {
        writer.in_memory(store.texts);
        writer.mem_budget = store.budget;
        writer.mem_whole_session = store.whole_session;
    }
    // One run per format, started by its first file, in registry order.
    let mut runs: Vec<Option<Box<dyn ImportRun>>> = IMPORTERS.iter().map(|_| None).collect();
    // The files of each run that writes at its finish.
    let mut deferred: Vec<Vec<PathBuf>> = IMPORTERS.iter().map(|_| Vec::new()).collect();
    let mut reading = None;
    // What the files after this one (up to `files[queued]`) were
    // recognised as, found while this one was read, in order.
    let mut next: std::collections::VecDeque<Result<Option<usize>>> = std::collections::VecDeque::new();
    let mut queued = 0;
    // The helper that reads and parses the files opened ahead, started by the first.
    let mut lane: Option<files::ReadAhead> = None;
    let result = (|| -> Result<()> {
        for (i, file) in files.iter().enumerate() {
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
                None if i < queued => next.pop_front().unwrap_or_else(|| recognise_at(file))?,
                None => recognise_at(file)?,
            };
            let Some(at) = recognised else {
                let broken = is_json_document(file) && read_document(file, &mut ImportStats::default())?.is_none();
                // A file of another name that is not JSON at all is a stranger, not a broken document.
                if broken {
                    writer.stats.broken.push(file.clone());
                    let problem = "not a whole JSON document (cut or broken?)".to_string();
                    let line = BrokenLine { file: file.clone(), line: 0, problem, more: 0, long: 0, session: None };
                    writer.stats.broken_lines.push(line);
                } else {
                    writer.stats.unrecognised.push(file.clone());
                }
                continue;
            };
            let importer = IMPORTERS[at];
            let before = writer.stats.clone_counts();
            let run = runs[at].get_or_insert_with(|| importer.run());
            queued = queued.max(i + 1);
            while queued < files.len().min(i + 1 + FILES_AHEAD) {
                let after = &files[queued];
                let known = match forced {
                    Some(at) => Ok(Some(at)),
                    None => recognise_at(after),
                };
                if let Ok(Some(at)) = known
                    && let Some(typed) = IMPORTERS[at].lines_ahead()
                {
                    let reader = match &lane {
                        Some(lane) => lane.open(after, typed),
                        None => match files::ReadAhead::start() {
                            Ok(started) => lane.insert(started).open(after, typed),
                            Err(e) => Err(Error::input(after, format!("cannot start a reader thread: {e}"))),
                        },
                    };
                    writer.ahead.push((after.clone(), reader));
                }
                if forced.is_none() {
                    next.push_back(known);
                }
                queued += 1;
            }
            run.file(file, &mut writer)?;
            // A reader its run did not take stops reading.
            writer.ahead.retain(|(at, _)| at != file);
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
            writer.stats.dialects.insert(importer.info().dialect);
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
    let mut store = writer.take_store();
    let result = result.and_then(|()| match store.as_mut() {
        Some(k) => k.seal().map_err(|e| {
            writer.seen(&e);
            sql(e)
        }),
        None => Ok(()),
    });
    let result = result.map_err(|e| writer.failed.get().and_then(|c| target.storage_failed(c, reading)).unwrap_or(e));
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
    Ok((writer.stats, store))
}

#[cfg(test)]
mod tests;
