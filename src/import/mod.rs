//! `falseok import`: agent transcripts (JSONL, or whole JSON documents,
//! or Aider's Markdown history) into falseok's own trace schema
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
mod mem;
pub(crate) mod openhands;
pub(crate) mod openhands_app;
pub(crate) mod otel;
mod owners;
pub(crate) mod pi;
pub(crate) mod record;
mod writer;

pub(crate) use files::*;
pub(crate) use mem::{Kept, read_kept};
pub(crate) use writer::*;

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
    /// Then a folder of them can be imported again in part (import/record.rs).
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
    /// what each file gave (import/record.rs).
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

/// Import every transcript under `sources` into the database of `store`.
pub(crate) fn import(sources: &[PathBuf], store: &Store<'_>, agent: Option<Dialect>) -> Result<ImportStats> {
    let files = transcript_files(sources)?;
    let conn = open_target(store)?;
    import_files(&conn, store, &files, agent)
}

/// The one import driver: each file is recognised and handed to its
/// format's run, inside one transaction of `conn` (the database of `store`).
/// With `agent`, every file is read as that agent's, unrecognised or not.
pub(crate) fn import_files(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
) -> Result<ImportStats> {
    import_files_counted(conn, store, files, agent, false, &mut |_, _| {})
}

/// `import_files`, telling `progress` (bytes of the files read so far, bytes
/// of all the files) after each file, and keeping (`record`) what each file
/// gave in `records` when every file is of a separable format
/// (import/record.rs).
pub(crate) fn import_files_counted(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
    record: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ImportStats> {
    let forced = agent.and_then(|d| IMPORTERS.iter().position(|i| i.info().dialect == d));
    Ok(import_files_with(conn, store, files, forced, OWNERS_CAP, record, None, progress)?.0)
}

/// `import_files_counted` into the scratch database `conn` of a scan, the
/// rows kept in memory (long texts in the file `texts`) while they are
/// within the budget (import/mem.rs): then they are returned, and `conn`
/// holds nothing; past it, `conn` holds the rows and the long texts stay
/// in `texts`, returned too. Read either with `read_kept`.
pub(crate) fn import_files_kept(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    agent: Option<Dialect>,
    record: bool,
    texts: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(ImportStats, Option<Kept>)> {
    let forced = agent.and_then(|d| IMPORTERS.iter().position(|i| i.info().dialect == d));
    let keep = Keep { texts, budget: mem::BUDGET, whole_session: true };
    import_files_with(conn, store, files, forced, OWNERS_CAP, record, Some(keep), progress)
}

/// Rows kept in memory while they are within `budget` bytes, long texts in
/// the file `texts` (import/mem.rs); with `whole_session`, the largest
/// session's rows beyond the budget (`Writer::mem_whole_session`).
#[derive(Debug, Clone, Copy)]
struct Keep<'a> {
    texts: &'a Path,
    budget: usize,
    whole_session: bool,
}

/// `import_files`, keeping the owners of at most `owners_cap` call ids in
/// memory, (`record`) what each file gave, and (`keep`) the rows in
/// memory while they fit, or the long texts in their file, returned.
#[allow(clippy::too_many_arguments)]
fn import_files_with(
    conn: &Connection,
    store: &Store<'_>,
    files: &[PathBuf],
    forced: Option<usize>,
    owners_cap: usize,
    record: bool,
    keep: Option<Keep<'_>>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(ImportStats, Option<Kept>)> {
    let size = |f: &Path| std::fs::metadata(f).map_or(0, |m| m.len());
    let total: u64 = files.iter().map(|f| size(f)).sum();
    let mut done = 0;
    progress(0, total);
    let sql = |e: rusqlite::Error| store.failed(&e);
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
    let mut writer = Writer::new(conn);
    writer.owners_cap = owners_cap;
    writer.record = record.then(record::Recorder::default);
    if let Some(keep) = keep {
        writer.in_memory(keep.texts);
        writer.mem_budget = keep.budget;
        writer.mem_whole_session = keep.whole_session;
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
    let mut kept = writer.take_kept();
    let result = result.and_then(|()| match kept.as_mut() {
        Some(k) => k.seal().map_err(|e| {
            writer.seen(&e);
            sql(e)
        }),
        None => Ok(()),
    });
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
    Ok((writer.stats, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dialect;

    /// The importer of a transcript (`recognise_at`).
    fn recognise(path: &Path) -> Result<Option<&'static dyn Importer>> {
        Ok(recognise_at(path)?.map(|at| IMPORTERS[at]))
    }

    /// Parse one line as a JSON object, repairing lone surrogate escapes,
    /// counted in `stats`.
    fn parse_line(text: &str, stats: &mut ImportStats) -> Line {
        let (line, surrogates, _) = parse_line_why(text);
        stats.surrogates += surrogates;
        line
    }

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
            let read = read_line_at_most(&mut reader, &mut buf, max).unwrap();
            if read.bytes == 0 {
                break;
            }
            assert!(buf.len() <= max + 1, "{}", buf.len());
            lines.push((read, buf.clone()));
        }
        let sizes: Vec<(usize, bool, bool)> = lines.iter().map(|(r, _)| (r.bytes, r.ended, r.cut)).collect();
        assert_eq!(sizes, vec![(8, true, false), (5 * max + 1, true, true), (8, true, false), (4, false, false)]);
        assert_eq!(lines[2].1, b"{\"b\":2}\n");
        assert_eq!(lines[3].1, b"last");
        // A line cut at the bound is invalid, never parsed.
        let (cut, whole) = (lines[1].0, lines[0].0);
        assert!(matches!(parse_bytes(&lines[1].1, cut, max).line, Some(Line::Invalid)));
        let zeros = format!("{{\"x\":[{}0]}}", "0,".repeat(crate::source::json::MAX_JSON_VALUES));
        assert!(matches!(parse_bytes(zeros.as_bytes(), whole, max).line, Some(Line::Invalid)));
    }

    /// Issue 55 (D2): a line past the bound, with the rest of the file
    /// already in the read buffer, was taken for the file's unfinished last
    /// line, and every line after it was dropped; the warning said "1 line
    /// skipped". Read ahead and here, the lines after it are read, and the
    /// warning says the long line was not read.
    #[test]
    fn the_lines_after_a_line_past_the_bound_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let max = 4096;
        for (long, tail) in [(max + 1, "\n"), (3 * max, "\n"), (100 * max, "\n"), (3 * max, "")] {
            let text = format!("{{\"a\":1}}\n{}\n{{\"b\":2}}\n\n{{\"c\":3}}{tail}", "y".repeat(long));
            std::fs::write(&path, text).unwrap();
            for ahead in [true, false] {
                let mut reader = files::LineReader::open_bounded(&path, max, ahead).unwrap();
                let mut stats = ImportStats::default();
                let mut records = Vec::new();
                while let Some(v) = reader.next_record(&mut stats).unwrap() {
                    records.push(v);
                }
                let keys: Vec<String> = records.iter().flat_map(|v| v.as_object().unwrap().keys().cloned()).collect();
                assert_eq!(keys, ["a", "b", "c"], "a {long}-byte line, ahead {ahead}");
                assert_eq!((stats.lines, stats.invalid), (5, 1), "a {long}-byte line, ahead {ahead}");
                let notes = broken_line_notes(&stats.broken_lines);
                assert_eq!(notes.len(), 1);
                assert!(notes[0].contains("1 line is over 128 MiB, skipped unread") && notes[0].contains("(line 2;"));
            }
        }
    }

    /// Of many broken lines, those past the bound are counted, beyond the
    /// ones listed too.
    #[test]
    fn the_warning_counts_the_lines_past_the_bound() {
        let line = |line, long, more| BrokenLine {
            file: PathBuf::from("f.jsonl"),
            line,
            problem: "x".into(),
            more,
            long,
            session: None,
        };
        let notes = broken_line_notes(&[line(2, 0, 0), line(4, 1, 7)]);
        assert!(notes[0].starts_with("f.jsonl: 9 lines are not JSON records or are over 128 MiB"), "{}", notes[0]);
        assert!(notes[0].contains("1 of them over 128 MiB"), "{}", notes[0]);
        let notes = broken_line_notes(&[line(2, 0, 0)]);
        assert_eq!(notes[0], "f.jsonl: 1 line is not a JSON record, skipped (line 2; a malformed-row finding)");
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

    /// Files queued on one `ReadAhead` helper are read in order, each to
    /// its end or until its reader is dropped: a reader dropped half-way
    /// (with blocks still waiting) does not stop the files after it, and
    /// each reader gets its own file's lines.
    #[test]
    fn files_queued_on_one_helper_are_read_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let pad = "x".repeat(900);
        let paths: Vec<PathBuf> = (0..6)
            .map(|f| {
                let path = dir.path().join(format!("{f}.jsonl"));
                // Files 1 and 4 span several blocks, the rest one.
                let n = if f % 3 == 1 { 3500 } else { 3 };
                let text: String = (0..n).map(|i| format!("{{\"f\":{f},\"n\":{i},\"pad\":\"{pad}\"}}\n")).collect();
                std::fs::write(&path, text).unwrap();
                path
            })
            .collect();
        let lane = files::ReadAhead::start().unwrap();
        let mut readers: Vec<LineReader> = paths.iter().map(|p| lane.open(p, None).unwrap()).collect();
        assert!(
            lane.open(&dir.path().join("missing.jsonl"), None).is_err(),
            "a file that cannot be opened is said at once"
        );
        let mut stats = ImportStats::default();
        for (f, mut r) in readers.drain(..).enumerate() {
            if f == 1 {
                // Dropped after one line, the helper waiting on its blocks.
                assert!(
                    std::fs::metadata(&paths[1]).unwrap().len() as usize > (files::BLOCKS_IN_FLIGHT + 2) * AHEAD_BYTES
                );
                assert_eq!(r.next_record(&mut stats).unwrap().unwrap()["f"], 1);
                continue;
            }
            let mut n = 0;
            while let Some(v) = r.next_record(&mut stats).unwrap() {
                assert_eq!((v["f"].as_u64(), v["n"].as_u64()), (Some(f as u64), Some(n)));
                n += 1;
            }
            assert_eq!(n, if f % 3 == 1 { 3500 } else { 3 }, "file {f}");
        }
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
            // The helper reads the whole file, its unfinished last line
            // included, before it grows: whether it grew is asked when the
            // line is taken, not when the helper read it.
            std::thread::sleep(std::time::Duration::from_millis(100));
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
            let stats = import_files_with(&conn, &store, &files, None, cap, false, None, &mut |_, _| {}).unwrap().0;
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

    /// The sessions (as `Debug` text), rows read and import counts of
    /// `files` imported as a scan imports them: with the rows kept in
    /// memory within `keep` bytes, or (`None`) straight into the scratch
    /// database; and whether they stayed in memory.
    fn import_and_read(
        dir: &Path,
        tag: &str,
        files: &[PathBuf],
        keep: Option<usize>,
    ) -> (String, u64, ImportStats, bool) {
        import_and_read_owning(dir, tag, files, keep, OWNERS_CAP, &crate::SourceOptions::default())
    }

    /// `import_and_read`, keeping the owners of at most `owners_cap` call
    /// ids in memory (past them, the rows move too), reading the sessions
    /// `opts` wants.
    fn import_and_read_owning(
        dir: &Path,
        tag: &str,
        files: &[PathBuf],
        keep: Option<usize>,
        owners_cap: usize,
        opts: &crate::SourceOptions,
    ) -> (String, u64, ImportStats, bool) {
        import_and_read_keeping(dir, tag, files, keep.map(|b| (b, false)), owners_cap, opts)
    }

    /// `import_and_read_owning`, `keep` being the budget and whether the
    /// largest session is held beyond it.
    fn import_and_read_keeping(
        dir: &Path,
        tag: &str,
        files: &[PathBuf],
        keep: Option<(usize, bool)>,
        owners_cap: usize,
        opts: &crate::SourceOptions,
    ) -> (String, u64, ImportStats, bool) {
        let db = dir.join(format!("{tag}.db"));
        let store = Store::Scratch { input: &db, at: &db };
        let conn = open_scratch(&store).unwrap();
        let texts = dir.join(format!("{tag}.texts"));
        std::fs::write(&texts, "").unwrap();
        let keep = keep.map(|(budget, whole_session)| Keep { texts: &texts, budget, whole_session });
        let (stats, kept) =
            import_files_with(&conn, &store, files, None, owners_cap, false, keep, &mut |_, _| {}).unwrap();
        let mut sessions = Vec::new();
        let read = match &kept {
            Some(k) => read_kept(&db, &conn, k, opts, &mut |_, _| {}, &mut |s| sessions.push(s)),
            None => crate::source::read(&db, &conn, crate::source::Format::FALSEOK, opts, &mut |_, _| {}, &mut |s| {
                sessions.push(s)
            }),
        }
        .unwrap();
        (format!("{sessions:?}"), read.rows, stats, kept.as_ref().is_some_and(|k| k.rows().is_some()))
    }

    /// Issue 26: the rows a scan keeps in memory read back as the scratch
    /// database reads, for every transcript sample, whether they stay in
    /// memory, move to the database at once, or move half-way; and so do
    /// the counts.
    #[test]
    fn rows_kept_in_memory_read_as_the_scratch_database() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let dir = tempfile::tempdir().unwrap();
        let mut samples = 0;
        for info in infos() {
            let sample = root.join(info.sample);
            let files = transcript_files(std::slice::from_ref(&sample)).unwrap();
            let read = |keep: Option<usize>, tag: &str| {
                import_and_read(dir.path(), &format!("{}-{tag}", info.sample), &files, keep)
            };
            let database = read(None, "db");
            let kept = read(Some(mem::BUDGET), "kept");
            assert!(kept.3, "{}: the sample stays in memory", info.sample);
            assert!(database.1 > 0, "{}: the sample has rows", info.sample);
            assert_eq!(kept.0, database.0, "{}: kept in memory", info.sample);
            assert_eq!((kept.1, &kept.2), (database.1, &database.2), "{}: counts", info.sample);
            for budget in [0, 1500] {
                let moved = read(Some(budget), &budget.to_string());
                assert!(!moved.3, "{}: over {budget} bytes the rows move", info.sample);
                assert_eq!(moved.0, database.0, "{}: moved past {budget} bytes", info.sample);
                assert_eq!((moved.1, &moved.2), (database.1, &database.2), "{}: counts", info.sample);
            }
            // Sessions left out (sub-agents, or all but those of a prefix)
            // are read past alike.
            let first = database.0.split("id: \"").nth(1).and_then(|s| s.get(..1)).unwrap_or("x").to_string();
            let filters = [
                crate::SourceOptions { no_subagents: true, ..Default::default() },
                crate::SourceOptions {
                    session: Some(crate::source::SessionFilter::Prefix(first)),
                    ..Default::default()
                },
            ];
            for (n, opts) in filters.iter().enumerate() {
                let read = |keep: Option<usize>, tag: &str| {
                    let tag = format!("{}-filter{n}-{tag}", info.sample);
                    import_and_read_owning(dir.path(), &tag, &files, keep, OWNERS_CAP, opts)
                };
                let database = read(None, "db");
                for budget in [mem::BUDGET, 0, 1500] {
                    let other = read(Some(budget), &budget.to_string());
                    assert_eq!(other.0, database.0, "{}: filter {n}, {budget} bytes", info.sample);
                    assert_eq!(other.1, database.1, "{}: filter {n}, {budget} bytes: rows", info.sample);
                }
            }
            // Past 3 call owners the rows move and the owners are asked
            // of the database.
            for budget in [0, 1500, mem::BUDGET] {
                let tag = format!("{}-owners-{budget}", info.sample);
                let opts = crate::SourceOptions::default();
                let moved = import_and_read_owning(dir.path(), &tag, &files, Some(budget), 3, &opts);
                if database.2.calls > 3 {
                    assert!(!moved.3, "{}: past 3 owners the rows move", info.sample);
                }
                assert_eq!(moved.0, database.0, "{}: past {budget} bytes or 3 owners", info.sample);
                assert_eq!((moved.1, &moved.2), (database.1, &database.2), "{}: counts", info.sample);
            }
            samples += 1;
        }
        assert!(samples >= 10, "every transcript format has a sample");
    }

    /// A Gemini message written again after its call finished brings its
    /// result again: a long text kept in the text file is read back to
    /// compare while texts are still being written (it failed as a disk
    /// I/O error), and a changed one replaces it.
    #[test]
    fn a_result_written_again_is_compared_while_texts_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("3f6c0a1e9b").join("chats");
        std::fs::create_dir_all(&chats).unwrap();
        let head = r#"{"sessionId": "s1", "projectHash": "3f6c0a1e9b", "startTime": "2026-06-01T10:00:00.000Z", "kind": "main"}"#;
        let message = |call: &str, output: &str| {
            let call = serde_json::json!({
                "id": call, "name": "read_file", "args": {"absolute_path": "/p"}, "status": "success",
                "timestamp": "2026-06-01T10:00:02.000Z",
                "result": [{"functionResponse": {"id": call, "name": "read_file", "response": {"output": output}}}]
            });
            let m = serde_json::json!({"id": format!("m-{call}"), "timestamp": "2026-06-01T10:00:02.000Z", "type": "gemini", "content": "", "toolCalls": [call]});
            m.to_string()
        };
        let long = format!("Error: {}", "é".repeat(300));
        let changed = format!("{long} (changed)");
        let lines = [
            head.to_string(),
            message("a", &long),
            message("b", "fine"),
            message("a", &long),
            message("b", &changed),
            message("c", &long),
            message("c", &changed),
            message("c", &changed),
        ];
        std::fs::write(chats.join("session-2026-06-01T10-00-s1.jsonl"), lines.join("\n") + "\n").unwrap();
        let files = transcript_files(&[dir.path().to_path_buf()]).unwrap();
        let database = import_and_read(dir.path(), "db", &files, None);
        assert!(database.0.contains("(changed)"), "{}", database.0);
        for budget in [mem::BUDGET, 0, 500] {
            let kept = import_and_read(dir.path(), &budget.to_string(), &files, Some(budget));
            assert_eq!(kept.3, budget == mem::BUDGET);
            assert_eq!(kept.0, database.0, "within {budget} bytes");
            assert_eq!((kept.1, &kept.2), (database.1, &database.2), "within {budget} bytes: counts");
        }
    }

    /// Claude Code transcripts whose texts and inputs sit on both sides of
    /// `mem::INLINE` (multi-byte characters across it), long ones, empty
    /// ones, a result written twice, results that answer no call, calls
    /// that get none, results before their calls, in two sessions.
    fn texts_around_the_edge(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
        let project = dir.join("-home-u-proj");
        std::fs::create_dir_all(&project).unwrap();
        let edge = mem::INLINE;
        let mut texts: Vec<String> = [0, 1, edge - 1, edge, edge + 1, edge + 2, 4096, 200_000]
            .iter()
            .map(|&n| "Error: no such file ".chars().cycle().take(n).collect())
            .collect();
        texts.push(format!("{}é", "a".repeat(edge - 1))); // é across the edge: 257 bytes
        texts.push(format!("{}é", "a".repeat(edge - 2))); // 256 bytes
        texts.push(format!("{}😀", "a".repeat(edge - 3))); // 4 bytes across the edge: 257 bytes
        texts.push(format!("{}😀", "a".repeat(edge - 4))); // 256 bytes
        texts.push("é".repeat(edge / 2)); // 256 bytes
        texts.push("é".repeat(edge / 2 + 1)); // 258 bytes
        texts.push(format!("Error: {}", "ü😀\u{7f}\t\"\\".repeat(5000)));
        let mut files = Vec::new();
        for (n, session) in
            ["5f0e5c3a-7b2d-4e8f-9a10-2c3d4e5f6a7b", "1f0e5c3a-7b2d-4e8f-9a10-2c3d4e5f6a7b"].iter().enumerate()
        {
            let mut lines = Vec::new();
            let mut uuid = 0;
            let mut line = |kind: &str, content: serde_json::Value| {
                uuid += 1;
                let line = serde_json::json!({
                    "type": kind, "sessionId": session, "uuid": format!("{n}-{uuid}"),
                    "timestamp": format!("2026-04-02T09:{:02}:{:02}.000Z", uuid / 60, uuid % 60),
                    "message": {"role": if kind == "user" { "user" } else { "assistant" }, "content": content}
                });
                lines.push(line.to_string());
            };
            for (i, text) in texts.iter().enumerate() {
                let id = format!("toolu_{n}_{i}");
                // The input is as long as the text, in its own characters.
                let input = serde_json::json!({"command": text.chars().rev().collect::<String>()});
                let call = serde_json::json!([{"type": "tool_use", "id": id, "name": "Bash", "input": input}]);
                let result = serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": text, "is_error": i % 3 == 0});
                match i % 6 {
                    // A result before its call, and a call that gets none.
                    4 => {
                        line("user", serde_json::json!([result]));
                        line("assistant", call);
                    }
                    _ => {
                        line("assistant", call);
                        line("user", serde_json::json!([result]));
                    }
                }
                if i % 6 == 3 {
                    let id = format!("unanswered_{n}_{i}");
                    let call = serde_json::json!([{"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": text}}]);
                    line("assistant", call);
                }
                if i % 4 == 1 {
                    // Written again, otherwise: the first one stays.
                    let again = serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": format!("{text} again")});
                    line("user", serde_json::json!([again]));
                }
                if i % 5 == 2 {
                    let orphan = serde_json::json!({"type": "tool_result", "tool_use_id": format!("gone_{n}_{i}"), "content": text});
                    line("user", serde_json::json!([orphan]));
                }
            }
            let file = project.join(format!("{session}.jsonl"));
            std::fs::write(&file, lines.join("\n") + "\n").unwrap();
            files.push(file);
        }
        (files, texts)
    }

    /// Issue 26: texts kept in the text file, while the rows are in memory
    /// or after they moved to the scratch database at any point, read back
    /// whole and in their place: as a database that holds them reads.
    #[test]
    fn long_texts_read_back_whether_rows_stay_in_memory_or_move() {
        let dir = tempfile::tempdir().unwrap();
        let (files, texts) = texts_around_the_edge(dir.path());
        let database = import_and_read(dir.path(), "db", &files, None);
        for text in &texts {
            assert!(database.0.contains(&format!("{text:?}")), "the text of {} bytes is read", text.len());
        }
        assert!(database.2.duplicates > 0 && database.0.contains("gone_"), "{:?}", database.2);
        let kept = import_and_read(dir.path(), "kept", &files, Some(mem::BUDGET));
        assert!(kept.3, "within the budget the rows stay in memory");
        assert_eq!(kept.0, database.0, "kept in memory");
        assert_eq!((kept.1, &kept.2), (database.1, &database.2), "kept in memory: counts");
        let mut budgets = vec![0, 1, 100];
        budgets.extend((1..=40).map(|k| k * 250));
        for budget in budgets {
            let moved = import_and_read(dir.path(), &budget.to_string(), &files, Some(budget));
            assert!(!moved.3, "past {budget} bytes the rows move");
            assert_eq!(moved.0, database.0, "moved past {budget} bytes");
            assert_eq!((moved.1, &moved.2), (database.1, &database.2), "moved past {budget} bytes: counts");
        }
        for owners in [0, 1, 5, 20] {
            let opts = crate::SourceOptions::default();
            let tag = format!("owners-{owners}");
            let moved = import_and_read_owning(dir.path(), &tag, &files, Some(mem::BUDGET), owners, &opts);
            assert!(!moved.3, "past {owners} call owners the rows move");
            assert_eq!(moved.0, database.0, "moved past {owners} call owners");
            assert_eq!((moved.1, &moved.2), (database.1, &database.2), "moved past {owners} owners: counts");
        }
    }

    /// Issue 26: a session is judged whole, so a scan holds the rows of its
    /// largest session beyond the budget, and that session's call owners
    /// beyond their cap; the other sessions' rows past the budget move
    /// to the scratch database. The same sessions are read either way.
    #[test]
    fn the_largest_session_is_held_beyond_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let (files, _) = texts_around_the_edge(dir.path());
        assert!(files.len() > 1);
        let opts = crate::SourceOptions::default();
        let one = &files[..1];
        let database = import_and_read(dir.path(), "one-db", one, None);
        for budget in [0, 100, 1000] {
            for owners in [0, 3, OWNERS_CAP] {
                let tag = format!("one-{budget}-{owners}");
                let held = import_and_read_keeping(dir.path(), &tag, one, Some((budget, true)), owners, &opts);
                assert!(held.3, "one session stays in memory past {budget} bytes and {owners} owners");
                assert_eq!(held.0, database.0, "one session, {budget} bytes, {owners} owners");
                assert_eq!((held.1, &held.2), (database.1, &database.2), "one session, {budget} bytes: counts");
                let moved =
                    import_and_read_keeping(dir.path(), &format!("{tag}-m"), one, Some((budget, false)), owners, &opts);
                assert!(!moved.3, "without the allowance, past {budget} bytes it moves");
            }
        }
        let database = import_and_read(dir.path(), "all-db", &files, None);
        for budget in [0, 100, 1000] {
            let tag = format!("all-{budget}");
            let moved = import_and_read_keeping(dir.path(), &tag, &files, Some((budget, true)), OWNERS_CAP, &opts);
            assert!(!moved.3, "{} sessions past {budget} bytes beyond the largest move", files.len());
            assert_eq!(moved.0, database.0, "all sessions, {budget} bytes");
            assert_eq!((moved.1, &moved.2), (database.1, &database.2), "all sessions, {budget} bytes: counts");
        }
        let held = import_and_read_keeping(dir.path(), "all-kept", &files, Some((mem::BUDGET, true)), 0, &opts);
        assert!(!held.3, "past the owners of the largest session, the rows move");
    }

    /// A scratch database whose texts are in a file beside it is never
    /// read as a falseok database (its references are not texts), while
    /// `import --into` writes every text into the database.
    #[test]
    fn only_a_scan_keeps_texts_beside_its_database() {
        let dir = tempfile::tempdir().unwrap();
        let (files, texts) = texts_around_the_edge(dir.path());
        let db = dir.path().join("scratch.db");
        let store = Store::Scratch { input: &db, at: &db };
        let conn = open_scratch(&store).unwrap();
        let file = dir.path().join("texts");
        std::fs::write(&file, "").unwrap();
        let keep = Keep { texts: &file, budget: 0, whole_session: false };
        let (_, kept) =
            import_files_with(&conn, &store, &files, None, OWNERS_CAP, false, Some(keep), &mut |_, _| {}).unwrap();
        assert!(matches!(kept, Some(Kept::Texts(_))));
        let filed: i64 =
            conn.query_row("SELECT count(*) FROM results WHERE typeof(text) = 'blob'", [], |r| r.get(0)).unwrap();
        assert!(filed > 0, "long texts are in the file");
        let opts = crate::SourceOptions::default();
        let read = crate::source::read(&db, &conn, crate::source::Format::FALSEOK, &opts, &mut |_, _| {}, &mut |_| {});
        let err = read.unwrap_err().to_string();
        assert!(err.contains("is not supported"), "{err}");

        let into = dir.path().join("into.db");
        let store = Store::Into { named: &into, at: &into };
        let conn = open_target(&store).unwrap();
        import_files(&conn, &store, &files, None).unwrap();
        let kinds: Vec<String> = conn
            .prepare("SELECT DISTINCT typeof(text) FROM results UNION SELECT DISTINCT typeof(input) FROM calls")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(kinds, ["text"]);
        let longest: i64 =
            conn.query_row("SELECT max(length(CAST(text AS BLOB))) FROM results", [], |r| r.get(0)).unwrap();
        assert_eq!(longest as usize, texts.iter().map(String::len).max().unwrap());
    }

    /// The tables a scan's scratch database is made again with before
    /// the rows move (mem::FILED_TABLES) have the columns of
    /// `sql/schema.sql`, and its indexes its keys.
    #[test]
    fn the_scratch_tables_made_again_are_the_schema_s() {
        let dir = tempfile::tempdir().unwrap();
        let (files, _) = texts_around_the_edge(dir.path());
        let shape = |conn: &Connection| -> Vec<String> {
            let mut out = Vec::new();
            for table in ["calls", "results"] {
                let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})")).unwrap();
                let cols = stmt
                    .query_map([], |r| {
                        Ok(format!(
                            "{table}.{}: {} notnull={} default={:?}",
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, Option<String>>(4)?
                        ))
                    })
                    .unwrap()
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .unwrap();
                out.extend(cols);
                let mut stmt = conn.prepare(&format!("PRAGMA index_list({table})")).unwrap();
                let mut keys = stmt
                    .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))
                    .unwrap()
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .unwrap()
                    .into_iter()
                    .map(|(name, unique)| {
                        let mut stmt = conn.prepare(&format!("PRAGMA index_info({name})")).unwrap();
                        let cols: Vec<String> =
                            stmt.query_map([], |r| r.get(2)).unwrap().collect::<rusqlite::Result<_>>().unwrap();
                        format!("{table} index unique={unique} ({})", cols.join(", "))
                    })
                    .collect::<Vec<_>>();
                keys.sort();
                out.extend(keys);
            }
            out
        };
        let db = dir.path().join("schema.db");
        let store = Store::Scratch { input: &db, at: &db };
        let schema = shape(&open_scratch(&store).unwrap());
        let db = dir.path().join("moved.db");
        let store = Store::Scratch { input: &db, at: &db };
        let conn = open_scratch(&store).unwrap();
        let file = dir.path().join("texts");
        std::fs::write(&file, "").unwrap();
        let keep = Keep { texts: &file, budget: 0, whole_session: false };
        import_files_with(&conn, &store, &files, None, 5, false, Some(keep), &mut |_, _| {}).unwrap();
        assert_eq!(shape(&conn), schema);
        assert!(schema.iter().any(|s| s == "calls index unique=1 (session_id, id)"), "{schema:?}");
    }

    #[test]
    fn every_importer_has_its_own_dialect() {
        for i in IMPORTERS {
            let d = i.info().dialect;
            assert_eq!(Dialect::from_name(d.as_str()), Some(d), "{d} is not a named dialect");
            assert_eq!(infos().filter(|o| o.dialect == d).count(), 1, "{d} twice");
        }
    }

    /// Readers opened ahead go to their own files: a folder whose files
    /// alternate between formats read ahead with their own parser (Claude
    /// Code's typed lines, Codex's and Pi's values) and one read at its
    /// turn (Gemini) imports what each format's files import alone.
    #[test]
    fn readers_opened_ahead_go_to_their_own_files() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let of = |dir: &str| transcript_files(&[root.join(dir)]).unwrap();
        let (claude, codex, pi, gemini) = (of("claude-code"), of("codex"), of("pi"), of("gemini"));
        assert!(claude.len() >= 3 && !codex.is_empty() && !pi.is_empty() && !gemini.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let calls = |name: &str, files: &[PathBuf]| -> Vec<(String, String, String)> {
            let db = dir.path().join(format!("{name}.db"));
            let store = Store::Scratch { input: &db, at: &db };
            let conn = open_scratch(&store).unwrap();
            import_files(&conn, &store, files, None).unwrap();
            let mut stmt = conn
                .prepare(
                    "SELECT s.source, c.id, coalesce(r.text, '-') FROM calls c JOIN sessions s ON s.id = c.session_id
                     LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id ORDER BY 1, 2",
                )
                .unwrap();
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(|r| r.unwrap()).collect()
        };
        let mut mixed = vec![claude[0].clone(), codex[0].clone(), claude[1].clone(), gemini[0].clone()];
        mixed.extend([pi[0].clone(), claude[2].clone()]);
        let mut alone = calls("claude", &claude[..3]);
        for (name, files) in [("codex", &codex[..1]), ("gemini", &gemini[..1]), ("pi", &pi[..1])] {
            alone.extend(calls(name, files));
        }
        alone.sort();
        let together = calls("mixed", &mixed);
        assert!(!together.is_empty());
        assert_eq!(together, alone);
    }
}
