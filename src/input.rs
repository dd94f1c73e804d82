//! The input stage: the only place that decides how a PATH is read. Every
//! command (scan, check, examples, show, schemas) goes through it, so a
//! path means the same thing to all of them.
//!
//! A folder, a `.jsonl` file or a `.json` document holds agent transcripts: they are imported
//! into a throwaway falseok database (in a private scratch folder in
//! `$TMPDIR`, never beside them; see `scratch`) and read back with the
//! falseok adapter. Anything else is
//! a SQLite trace database, opened read-only and recognised by its tables
//! (or read as the format `--source-format` forces).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{Dialect, Malformed, Session};
use crate::sanitize::one_line;
use crate::scratch::{self, ScratchDir};
use crate::source::{self, Format, SourceOptions, SourceStats};
use crate::{import, progress};

/// The PATHs to read: the ones given, or every default location of every
/// format and transcript importer that exists on this machine.
pub(crate) fn resolve(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    let mut found = source::default_sources();
    // A default transcript folder that holds no transcript (an empty
    // `~/.claude/projects`) is passed over: it must not end the scan
    // before the other locations are read. One whose walk fails is kept,
    // so that its error is said.
    found.extend(import::default_transcript_dirs().into_iter().filter(|p| {
        !p.is_dir() || import::transcript_files(std::slice::from_ref(p)).map_or(true, |f| import::any_recognised(&f))
    }));
    if found.is_empty() {
        // A few short lines: where to look, what to name, and a sample
        // that is there in every clone (the places themselves are many;
        // `formats` lists them).
        return Err(Error::Usage(
            "no traces found at the default locations\n  \
             `falseok formats` lists them; or name a database, transcript or folder:\n    \
             falseok scan PATH\n  \
             or try the sample shipped in a clone of falseok:\n    \
             falseok scan sample-traces/peri-postmortem.db"
                .into(),
        ));
    }
    Ok(found)
}

/// How deep below a named folder its SQLite stores are looked for: the
/// folder itself is depth 0 (`checkpoints.db`), `.adk/session.db` is 1.
pub(crate) const STORE_DEPTH: usize = 6;
/// How many files of a folder have their first bytes read, at most, in
/// the search for SQLite stores.
pub(crate) const STORE_LOOKS: usize = 10_000;
/// How many SQLite stores of a folder are opened, at most.
pub(crate) const STORE_COUNT: usize = 64;
/// The largest file of a folder opened as a SQLite store (a larger one is
/// read only when named).
pub(crate) const STORE_MAX_BYTES: u64 = 16 << 30;
/// The smallest SQLite database: one page of 512 bytes.
const STORE_MIN_BYTES: u64 = 512;
/// Folders never searched for stores: a repository's own objects and
/// installed packages, which hold no agent's trace.
const STORE_SKIPPED_FOLDERS: &[&str] = &[".git", "node_modules", "__pycache__", ".venv"];

/// The PATHs to read, each folder's SQLite trace stores beside it. A
/// folder is searched (`find_stores`) for files that begin with the
/// SQLite header, whatever their names, each opened and recognised as a
/// named file is. Each store found is read as a source of its own, after
/// the folder, which is read as transcripts only when it holds one some
/// importer recognises (or when it holds no store: then its error is
/// said). A SQLite file that is no trace store is passed over with a
/// note, unless the folder holds nothing else to read: then its error
/// ends the scan, naming it. What was found is named in a note. With
/// `--source-format` naming a transcript agent, a folder is read as
/// transcripts alone, as before. A store also named among `paths` is read
/// there, not as the folder's.
pub(crate) fn expand(paths: &[PathBuf], opts: &SourceOptions, notes: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::with_capacity(paths.len());
    // A store that is also named is read where it is named.
    let named: Vec<_> = paths.iter().filter(|p| !p.is_dir()).filter_map(|p| identity(p)).collect();
    for path in paths {
        if opts.transcripts.is_some() || !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let shown = one_line(&path.display().to_string());
        let mut found = find_stores(path);
        let all = found.stores.len();
        found.stores.retain(|p| identity(p).is_none_or(|id| !named.contains(&id)));
        let elsewhere = all - found.stores.len();
        for bound in &found.bounded {
            notes.push(format!("{shown}: {bound} (see docs/formats.md); name a database to read it"));
        }
        if found.stores.is_empty() {
            // A folder whose stores are all named is read for its
            // transcripts only if it holds one.
            let transcripts =
                || import::transcript_files(std::slice::from_ref(path)).is_ok_and(|f| import::any_recognised(&f));
            if elsewhere == 0 || transcripts() {
                out.push(path.clone());
            }
            continue;
        }
        let mut read: Vec<(PathBuf, &'static str)> = Vec::new();
        let mut refused: Vec<(PathBuf, Error)> = Vec::new();
        for store in found.stores {
            match source::open_as(&store, opts.format) {
                Ok((_, format, _)) => read.push((store, format.as_str())),
                Err(e) => refused.push((store, e)),
            }
        }
        let transcripts =
            import::transcript_files(std::slice::from_ref(path)).is_ok_and(|f| import::any_recognised(&f));
        if read.is_empty() && !transcripts {
            // Nothing else to read: the first refusal is the error.
            out.extend(refused.into_iter().map(|(p, _)| p));
            continue;
        }
        for (_, e) in &refused {
            notes.push(format!("{e}; passed over (a SQLite file of the folder, not a trace target)"));
        }
        if transcripts {
            out.push(path.clone());
        }
        let inside = |p: &Path| one_line(&p.strip_prefix(path).unwrap_or(p).display().to_string());
        let names: Vec<String> = read.iter().take(8).map(|(p, f)| format!("{} ({f})", inside(p))).collect();
        let more = match read.len().saturating_sub(names.len()) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let stores = match read.len() {
            1 => "1 SQLite trace store".to_string(),
            n => format!("{n} SQLite trace stores"),
        };
        let with = if transcripts { ", read beside its transcripts" } else { "" };
        notes.push(format!("{shown}: {stores} found inside{with}: {}{more}", names.join(", ")));
        out.extend(read.into_iter().map(|(p, _)| p));
    }
    out
}

/// The SQLite files of a folder, and what its bounds left out.
pub(crate) struct FoundStores {
    pub stores: Vec<PathBuf>,
    /// Each bound reached, said once.
    pub bounded: Vec<String>,
}

/// The files under `dir` that begin with the SQLite header, the nearest
/// first, by name within a folder, within the bounds: `STORE_DEPTH`
/// folders deep, `STORE_LOOKS` files looked at, `STORE_COUNT` stores,
/// files of `STORE_MIN_BYTES` to `STORE_MAX_BYTES`. Links are not followed, and only regular files are
/// opened (never a FIFO); `STORE_SKIPPED_FOLDERS` are not entered, and
/// `*.jsonl` and `*.json` files, which the folder's transcript walk takes,
/// are not looked at. A folder that cannot be read is passed over.
pub(crate) fn find_stores(dir: &Path) -> FoundStores {
    let mut found = FoundStores { stores: Vec::new(), bounded: Vec::new() };
    let mut deep = false;
    let mut looks = 0usize;
    let mut queue: std::collections::VecDeque<(PathBuf, usize)> =
        std::collections::VecDeque::from([(dir.to_path_buf(), 0)]);
    // Breadth first: the stores nearest the folder are found first.
    while let Some((at, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&at) else { continue };
        let mut entries: Vec<std::fs::DirEntry> = entries.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            if kind.is_dir() {
                let skipped = entry.file_name().to_str().is_some_and(|n| STORE_SKIPPED_FOLDERS.contains(&n));
                if skipped {
                    continue;
                }
                if depth + 1 > STORE_DEPTH {
                    if !deep {
                        deep = true;
                        found
                            .bounded
                            .push(format!("folders more than {STORE_DEPTH} deep are not searched for SQLite stores"));
                    }
                    continue;
                }
                queue.push_back((path, depth + 1));
                continue;
            }
            // Transcripts are read as such: never opened twice.
            if !kind.is_file() || path.extension().is_some_and(|e| e == "jsonl" || e == "json") {
                continue;
            }
            let Ok(size) = entry.metadata().map(|m| m.len()) else { continue };
            if size < STORE_MIN_BYTES {
                continue;
            }
            if looks == STORE_LOOKS {
                found.bounded.push(format!("the search for SQLite stores stopped after {STORE_LOOKS} files"));
                return found;
            }
            looks += 1;
            if sniff(&path) != Some(false) {
                continue;
            }
            if size > STORE_MAX_BYTES {
                let name = one_line(&path.strip_prefix(dir).unwrap_or(&path).display().to_string());
                found.bounded.push(format!("{name} is over {} GiB, not read as a SQLite store", STORE_MAX_BYTES >> 30));
                continue;
            }
            if found.stores.len() == STORE_COUNT {
                found.bounded.push(format!("the search for SQLite stores stopped at {STORE_COUNT} stores"));
                return found;
            }
            found.stores.push(path);
        }
    }
    found
}

/// What a file or folder is, whatever the path that names it: (device,
/// inode), links followed; without inodes, the canonical path.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64, PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino(), PathBuf::new()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<(u64, u64, PathBuf)> {
    std::fs::canonicalize(path).ok().map(|p| (0, 0, p))
}

/// The PATHs to read with every file read once: a PATH that names the same
/// file or folder as an earlier one (the same path twice, another spelling,
/// a symbolic or hard link), a folder inside a folder that is read, and a
/// transcript that a folder read also holds, are dropped, each with a note
/// naming both. A PATH that cannot be looked at is kept: opening it gives
/// its error.
pub(crate) fn distinct(paths: &[PathBuf], notes: &mut Vec<String>) -> Vec<PathBuf> {
    let canonical: Vec<Option<PathBuf>> = paths.iter().map(|p| std::fs::canonicalize(p).ok()).collect();
    let ids: Vec<_> = paths.iter().map(|p| identity(p)).collect();
    let is_dir: Vec<bool> = paths.iter().map(|p| p.is_dir()).collect();
    // The files a folder read holds, listed once, when a file is named beside it.
    let mut listed: BTreeMap<usize, Vec<(u64, u64, PathBuf)>> = BTreeMap::new();
    let shown = |p: &Path| one_line(&p.display().to_string());
    // Why PATH i is dropped: the PATH that reads it.
    let mut dropped: Vec<Option<(usize, &str)>> = vec![None; paths.len()];
    for i in 0..paths.len() {
        let (Some(id), Some(real)) = (&ids[i], &canonical[i]) else { continue };
        for j in 0..paths.len() {
            if i == j || dropped[j].is_some() {
                continue;
            }
            let (Some(other), Some(other_real)) = (&ids[j], &canonical[j]) else { continue };
            // The same file or folder: the first one named is read.
            if id == other {
                if j < i {
                    let how = if paths[i] == paths[j] {
                        "given twice"
                    } else if is_dir[i] {
                        "the same folder as"
                    } else {
                        "the same file as"
                    };
                    dropped[i] = Some((j, how));
                    break;
                }
                continue;
            }
            if !is_dir[j] || !real.starts_with(other_real) {
                continue;
            }
            // Inside a folder read as transcripts: a folder is read with it; a
            // file only when the folder's walk takes it (a database is not).
            let inside = is_dir[i] || {
                let files = listed.entry(j).or_insert_with(|| {
                    import::transcript_files(std::slice::from_ref(&paths[j]))
                        .map(|fs| fs.iter().filter_map(|f| identity(f)).collect())
                        .unwrap_or_default()
                });
                files.contains(id) && is_transcripts(&paths[i])
            };
            if inside {
                dropped[i] = Some((j, "is inside"));
                break;
            }
        }
    }
    let mut kept = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        match dropped[i] {
            Some((_, "given twice")) => notes.push(format!("{}: given twice, read once", shown(path))),
            Some((j, how)) => notes.push(format!("{}: {how} {}, read once", shown(path), shown(&paths[j]))),
            None => kept.push(path.clone()),
        }
    }
    kept
}

/// The format `--source-format NAME` forces, if given: a database format,
/// or the agent whose transcripts every file is read as. Every name
/// `falseok formats` prints is accepted.
pub(crate) fn forced_format(name: Option<&str>) -> Result<(Option<Format>, Option<Dialect>)> {
    let Some(name) = name else { return Ok((None, None)) };
    if let Some(f) = Format::from_name(name) {
        return Ok((Some(f), None));
    }
    if let Some(i) = import::infos().find(|i| i.name() == name) {
        return Ok((None, Some(i.dialect)));
    }
    let names: Vec<&str> = source::formats().chain(import::infos()).map(|f| f.name()).collect();
    Err(Error::Usage(format!("--source-format: unknown format {:?}; known: {}", one_line(name), names.join(", "))))
}

/// Is `path` read as transcripts? A folder is; a regular file is decided
/// by its first bytes, whatever its name: the SQLite header makes it a
/// database, JSON (`{` or `[` after a byte-order mark and white space) a
/// transcript (`traces.jsonl` holding pretty-printed spans, events named
/// `.log`). A file that is neither is a transcript only when its name says
/// so (`.jsonl`, `.json`), so that an empty or broken one gets the
/// transcript's error, or when a text format claims it (an Aider history,
/// by its name or its first line), and a database otherwise.
pub(crate) fn is_transcripts(path: &Path) -> bool {
    if path.is_dir() {
        return true;
    }
    let named = path.extension().is_some_and(|e| e == "jsonl" || e == "json");
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => sniff(path).unwrap_or_else(|| named || import::is_text_transcript(path)),
        _ => named,
    }
}

/// What a regular file's first bytes say: `Some(false)` for a SQLite
/// database, `Some(true)` for JSON, `None` when they say neither.
fn sniff(path: &Path) -> Option<bool> {
    use std::io::Read;
    let mut head = [0u8; 512];
    // Non-blocking, and only a regular file: a FIFO put in its place never blocks.
    let mut file = source::open::open_regular(path).ok()?;
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let head = &head[..n];
    if head.starts_with(b"SQLite format 3\0") {
        return Some(false);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(head);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{' | b'[') => Some(true),
        _ => None,
    }
}

/// One opened PATH, ready to be read.
pub(crate) struct Source {
    /// The PATH as given.
    pub path: PathBuf,
    /// How the PATH is shown in reports (not yet sanitized).
    pub label: String,
    /// The format label printed in reports (`SourceStart::format`, a
    /// source's `format` in JSON): a SQLite format, the agent of its
    /// transcripts, or `jsonl` for transcripts of several agents. A label
    /// only: what a session is judged by is its dialect (`dialects`).
    pub label_format: &'static str,
    /// The dialects whose sessions it holds (one, but for a folder of
    /// transcripts of several agents): each session is judged with its
    /// dialect's built-in tool schemas.
    pub dialects: Vec<Dialect>,
    /// What the report should say about how it was opened (a database
    /// opened immutable may miss changes).
    pub warnings: Vec<String>,
    // Declared before `_scratch`: the connection closes before the
    // temporary folder of imported transcripts is removed.
    conn: Connection,
    format: Format,
    /// Transcript lines that could not be read, reported as `malformed-row`
    /// findings of their sessions.
    broken: Vec<import::BrokenLine>,
    /// For transcripts opened with `open_recorded`, when every file is of
    /// a separable format: what each file gave (import/store/record.rs).
    pub records: Option<Vec<import::record::FileRecord>>,
    /// The store the transcripts were imported into (import/store/): every
    /// row in memory (then `conn` holds nothing), or spilled into `conn`
    /// with the long texts it refers to in a file. Read with
    /// `import::Store::read`, never by the falseok adapter.
    store: Option<import::Store>,
    _scratch: Option<ScratchDir>,
}

/// Open `path`: a SQLite database, read-only, as `opts.format` if given,
/// or transcripts (as `opts.transcripts`' if given), imported into a
/// throwaway database. What the import skipped or repaired is added to
/// `notes`.
pub(crate) fn open(path: &Path, opts: &SourceOptions, notes: &mut Vec<String>) -> Result<Source> {
    open_with(path, opts, false, notes)
}

/// `open`, keeping for transcripts what each file gave (`Source::records`),
/// so the index can read the folder again in part.
pub(crate) fn open_recorded(path: &Path, opts: &SourceOptions, notes: &mut Vec<String>) -> Result<Source> {
    open_with(path, opts, true, notes)
}

fn open_with(path: &Path, opts: &SourceOptions, record: bool, notes: &mut Vec<String>) -> Result<Source> {
    let label = path.display().to_string();
    if let Some(agent) = opts.transcripts {
        if !is_transcripts(path) {
            return Err(Error::input(
                path,
                format!("is a SQLite database, not {agent} transcripts (--source-format {agent})"),
            ));
        }
        return open_transcripts(path, label, Some(agent), record, notes);
    }
    if is_transcripts(path) {
        return open_transcripts(path, label, None, record, notes);
    }
    let forced = opts.format;
    let (conn, format, warnings) = source::open_as(path, forced)?;
    Ok(Source {
        path: path.to_path_buf(),
        label,
        label_format: format.as_str(),
        dialects: vec![format.info().dialect],
        warnings,
        conn,
        format,
        broken: Vec::new(),
        records: None,
        store: None,
        _scratch: None,
    })
}

fn open_transcripts(
    path: &Path,
    label: String,
    agent: Option<Dialect>,
    record: bool,
    notes: &mut Vec<String>,
) -> Result<Source> {
    let files = import::transcript_files(&[path.to_path_buf()])?;
    let (mut src, stats) = import_transcripts(path, label, &files, agent, record)?;
    transcript_notes(path, &src.label, &stats, notes)?;
    src.records = stats.records;
    Ok(src)
}

/// Some of the transcript files of the folder `path` (as `opts` reads
/// it), imported alone, with what the import said of each
/// (`ImportStats::records`): the index reads a changed folder so. The
/// source's format and agents are the part's, not the folder's.
pub(crate) fn open_part(path: &Path, files: &[PathBuf], opts: &SourceOptions) -> Result<(Source, import::ImportStats)> {
    import_transcripts(path, path.display().to_string(), files, opts.transcripts, true)
}

/// `files` of `path` imported into a throwaway database.
fn import_transcripts(
    path: &Path,
    label: String,
    files: &[PathBuf],
    agent: Option<Dialect>,
    record: bool,
) -> Result<(Source, import::ImportStats)> {
    let in_tmp = || one_line(&std::env::temp_dir().display().to_string());
    let tmp = ScratchDir::new()
        .map_err(|e| Error::input(path, format!("cannot make a scratch folder in $TMPDIR ({}): {e}", in_tmp())))?;
    let db = tmp.path().join("transcripts.db");
    scratch::private_file(&db)
        .map_err(|e| Error::input(path, format!("cannot make a scratch database in $TMPDIR ({}): {e}", in_tmp())))?;
    let target = import::Target::Scratch { input: path, at: &db };
    let conn = import::open_scratch(&target)?;
    // The import is most of a transcript scan: the bar says so, in bytes.
    progress::begin(&format!("importing {label}"));
    let texts = tmp.path().join("texts");
    scratch::private_file(&texts)
        .map_err(|e| Error::input(path, format!("cannot make a scratch file in $TMPDIR ({}): {e}", in_tmp())))?;
    let opts = import::ImportOptions {
        agent,
        record,
        store: Some(import::StoreOptions::scan(&texts)),
        ..import::ImportOptions::default()
    };
    let (stats, store) = import::import_files(&conn, &target, files, &opts, &mut progress::set)?;
    let src = Source {
        path: path.to_path_buf(),
        label,
        label_format: stats.label(),
        dialects: stats.dialects.iter().copied().collect(),
        warnings: Vec::new(),
        conn,
        format: Format::FALSEOK,
        broken: stats.broken_lines.clone(),
        records: None,
        store,
        _scratch: Some(tmp),
    };
    Ok((src, stats))
}

/// What a scan says of the transcripts of `path` that `stats` imported
/// (files passed over, files that held nothing, broken lines, repaired
/// escapes), or why they cannot be scanned (no file was a transcript).
pub(crate) fn transcript_notes(
    path: &Path,
    label: &str,
    stats: &import::ImportStats,
    notes: &mut Vec<String>,
) -> Result<()> {
    let agents: Vec<&str> = import::infos().map(|i| i.product).collect();
    let known = format!("{} transcript", or_list(&agents));
    // Empty or foreign files hold no calls: one line for all of them, not
    // one per file.
    notes.extend(import::unrecognised_notes(&stats.unrecognised, &known));
    match stats.quiet.as_slice() {
        [] => {}
        [(one, agent)] => notes.push(format!(
            "{}: read as a {agent} transcript, but it holds no tool call or result",
            one_line(&one.display().to_string())
        )),
        [(first, agent), rest @ ..] => notes.push(format!(
            "{} files read as transcripts hold no tool call or result (first: {}, read as {agent})",
            rest.len() + 1,
            one_line(&first.display().to_string())
        )),
    }
    // Broken lines and documents, by file and line (malformed-row findings).
    notes.extend(import::broken_line_notes(&stats.broken_lines));
    if stats.files == 0 {
        let what = if !stats.unrecognised.is_empty() && stats.unrecognised.iter().all(|p| import::is_lone_ui_log(p)) {
            "holds only Cline or Roo Code UI logs (ui_messages.json) with no messages to read, and no \
             api_conversation_history.json beside them"
                .to_string()
        } else if path.is_dir() {
            format!("is a directory with no {known} (*.jsonl, *.json) and no SQLite trace store")
        } else {
            format!("is not a {known}")
        };
        return Err(Error::input(path, what));
    }
    let shown = one_line(label);
    match stats.surrogates {
        0 => {}
        1 => notes.push(format!("{shown}: 1 lone surrogate escape replaced by U+FFFD")),
        n => notes.push(format!("{shown}: {n} lone surrogate escapes replaced by U+FFFD")),
    }
    Ok(())
}

pub(crate) use crate::import::record::{FileRecord, KeyFiles};

/// What an import of the files of `records` (in their order) would have
/// said of them, made again from each file's record.
pub(crate) fn stats_of(records: &[FileRecord]) -> import::ImportStats {
    let product = |name: &str| import::infos().find(|i| i.name() == name).map(|i| (i.dialect, i.product));
    import::record::stats_of(records, &product)
}

/// "A, B or C".
pub(crate) fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl Source {
    /// Read every session `opts` wants, handing each to `sink` as soon as
    /// it is whole; the progress bar follows.
    pub(crate) fn read(&self, opts: &SourceOptions, sink: &mut dyn FnMut(Session)) -> Result<SourceStats> {
        progress::begin(&self.label);
        let read = |sink: &mut dyn FnMut(Session)| match &self.store {
            Some(store) => store.read(&self.path, &self.conn, opts, &mut progress::set, sink),
            None => source::read(&self.path, &self.conn, self.format, opts, &mut progress::set, sink),
        };
        if self.broken.is_empty() {
            return read(sink);
        }
        // The broken lines of a file join the session its records went to;
        // a file with none of its own has one named after it.
        let mut broken: BTreeMap<String, Vec<Malformed>> = BTreeMap::new();
        for b in &self.broken {
            let stem = || b.file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let problem = match b.more {
                0 => b.problem.clone(),
                n => format!("{}; and {n} more broken lines of the file after it", b.problem),
            };
            let at = Malformed {
                row: i64::try_from(b.line).unwrap_or(i64::MAX),
                problem,
                skipped: true,
                file: Some(b.file.display().to_string()),
            };
            broken.entry(b.session.clone().unwrap_or_else(stem)).or_default().push(at);
        }
        let mut stats = read(&mut |mut s| {
            if let Some(lines) = broken.remove(&s.id) {
                s.malformed.extend(lines);
            }
            sink(s);
        })?;
        for (id, malformed) in broken {
            let parent: Option<String> = match self.store.as_ref().and_then(import::Store::in_memory) {
                Some(mem) => mem.session_info(&id).and_then(|i| i.parent.clone()),
                None => self
                    .conn
                    .query_row("SELECT parent_id FROM sessions WHERE id = ?1", [&id], |r| r.get(0))
                    .unwrap_or(None),
            };
            if opts.wants(&id, parent.is_some()) {
                sink(Session { id, parent, malformed, ..Session::default() });
                stats.trailing += 1;
            }
        }
        Ok(stats)
    }

    /// For the index: was the database only appended to after row `row`,
    /// by rows of new sessions? `None` when its format cannot tell.
    pub(crate) fn appended_after(&self, row: i64) -> Option<bool> {
        if self._scratch.is_some() {
            return None;
        }
        self.format.adapter().appended_after(&self.conn, row).ok().flatten()
    }

    /// What the rows up to `row` are (see `Adapter::rows_signature`).
    pub(crate) fn rows_signature(&self, row: i64) -> Option<String> {
        if self._scratch.is_some() {
            return None;
        }
        self.format.adapter().rows_signature(&self.conn, row).ok().flatten()
    }

    /// What the rows up to `row` are, told that those up to `then` were
    /// `signature` when this run checked (see `Adapter::rows_signature_after`).
    pub(crate) fn rows_signature_after(&self, then: i64, signature: &str, row: i64) -> Option<String> {
        if self._scratch.is_some() {
            return None;
        }
        self.format.adapter().rows_signature_after(&self.conn, then, signature, row).ok().flatten()
    }

    /// The database's free pages: deleting rows adds to them.
    pub(crate) fn freelist(&self) -> Option<i64> {
        self.conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).ok()
    }

    /// The tool schemas the source stores itself (llm's `tools` table).
    pub(crate) fn tool_schemas(&self) -> Result<Vec<(String, Value)>> {
        source::tool_schemas(&self.path, &self.conn, self.format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dialect;

    /// Every named dialect is what some format or importer reads, so a
    /// rule scoped to it can fire.
    #[test]
    fn every_dialect_is_read_by_a_format_or_an_importer() {
        let read: Vec<Dialect> = source::formats().chain(import::infos()).map(|i| i.dialect).collect();
        for d in Dialect::ALL {
            assert!(read.contains(d), "no format or importer reads {d}");
        }
        for d in &read {
            assert_eq!(read.iter().filter(|x| *x == d).count(), 1, "{d} is read by two");
        }
    }

    /// The names `--source-format` offers the shell completions are the
    /// registries' names, in the order `falseok formats` prints them.
    #[test]
    fn the_completed_format_names_are_the_registries() {
        let names: Vec<&str> = source::formats().chain(import::infos()).map(|f| f.name()).collect();
        assert_eq!(names, crate::cli::FORMAT_NAMES);
    }

    /// The search for stores: by content whatever the name, nearest first,
    /// never a link, a FIFO, a transcript, a file too small to be a
    /// database or a skipped folder, and at most `STORE_COUNT` stores.
    #[test]
    fn stores_are_found_by_content_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut db = b"SQLite format 3\0".to_vec();
        db.resize(1024, 0);
        let put = |rel: &str, bytes: &[u8]| {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        };
        put("a/b/state.bin", &db);
        put("top.data", &db);
        put("log.jsonl", &db);
        put("node_modules/x/cache.db", &db);
        put(".git/index.db", &db);
        put("tiny.db", b"SQLite format 3\0");
        put("notes.db", &[b'x'; 1024]);
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.join("top.data"), d.join("link.db")).unwrap();
        let found = find_stores(d);
        let names: Vec<String> =
            found.stores.iter().map(|p| p.strip_prefix(d).unwrap().display().to_string()).collect();
        assert_eq!(names, ["top.data", "a/b/state.bin"]);
        assert!(found.bounded.is_empty(), "{:?}", found.bounded);
        for i in 0..STORE_COUNT {
            put(&format!("many/{i:03}.db"), &db);
        }
        let found = find_stores(d);
        assert_eq!(found.stores.len(), STORE_COUNT);
        assert_eq!(found.bounded, [format!("the search for SQLite stores stopped at {STORE_COUNT} stores")]);
    }

    #[test]
    fn lists() {
        assert_eq!(or_list(&["Claude", "Codex", "Gemini"]), "Claude, Codex or Gemini");
        assert_eq!(or_list(&["Claude"]), "Claude");
    }
}
