//! The indexed walk (docs/index.md): lib.rs's `walk` through the index,
//! for `scan`, `check`, `metrics` and `sessions` when the run has one.
//! Each source is taken from its index entry when it is as it was; else a
//! Peri database only appended to is read from its last row on, a
//! transcript folder some of whose files changed is read again in part
//! (`read_in_part`), and anything else is read whole; what was read is
//! kept for the next run. It judges as the plain walk does, through the
//! spine's shared step (src/spine.rs).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::spine::{ScanOptions, SourceStart, Visitor, judge_for, read_judging_aside};
use crate::{aggregate, index, input, sanitize};

/// `walk` through the index under `root` (index/mod.rs): each source's
/// counts and session rows go to `taker`, from the index when the source
/// is as it was, else read (for an appended Peri database, only its new
/// sessions) and kept for the next run.
pub(crate) fn walk_indexed(
    paths: &[PathBuf],
    opts: &ScanOptions,
    root: &Path,
    notes: &mut Vec<String>,
    taker: &mut dyn index::Taker,
) -> Result<()> {
    let index = index::Index::open(root, opts, notes);
    for path in &input::distinct(&input::expand(paths, &opts.source, notes), notes) {
        let label = opts.judge.redaction.apply(&path.display().to_string()).into_owned();
        let canonical = std::fs::canonicalize(path).map(|p| p.display().to_string());
        let transcripts = opts.source.transcripts.is_some() || input::is_transcripts(path);
        let marks = index::marks(path, transcripts);
        let kept = match (&index, &canonical) {
            (Some(index), Ok(c)) => index.load(c, &label, notes),
            _ => None,
        };
        if let (Some(entry), Some(now)) = (&kept, &marks)
            && entry.unchanged(now)
        {
            index::log(&label, "kept", entry);
            notes.extend(entry.notes.iter().cloned());
            taker.take(entry)?;
            continue;
        }
        let before = notes.len();
        let judged_ns = index::now_ns();
        // A transcript folder some of whose files changed: only they, and
        // the files bound to them, are read again (import/store/record.rs).
        if transcripts
            && let (Some(index), Some(old), Some(now)) = (&index, &kept, &marks)
            && let Some(parts) = index.load_parts(old, notes)
            && let Ok(Some((entry, parts))) = read_in_part(old, parts, now, path, &label, opts)
        {
            notes.extend(entry.notes.iter().cloned());
            index::log(&label, "read in part", &entry);
            let entry = index::Entry { files: now.clone(), judged_ns, ..entry };
            index.store(&entry, Some(&index::Parts { judged_ns, ..parts }));
            taker.take(&entry)?;
            continue;
        }
        let src = input::open_recorded(path, &opts.source, notes)?;
        let appended = kept.and_then(|e| appended(&e, marks.as_deref(), &src).then_some(e));
        let last_row = appended.as_ref().and_then(|e| e.append.as_ref()).map(|a| a.last_row);
        let appended = match appended {
            // Checked again after the read, which is a snapshot of its own:
            // rows of an old session committed between the two are seen.
            Some(old) => Some(read_appended(old, &src, &label, opts, marks.clone().unwrap_or_default())?)
                .filter(|_| last_row.is_some_and(|row| src.appended_after(row) == Some(true))),
            None => None,
        };
        let (entry, sessions) = match appended {
            Some(entry) => {
                index::log(&label, "appended to", &entry);
                (entry, None)
            }
            None => {
                let (entry, parts) = read_entry(&src, &label, canonical.as_deref().unwrap_or(""), opts, before, notes)?;
                index::log(&label, "read", &entry);
                (entry, parts)
            }
        };
        if let (Some(index), Ok(_), Some(now)) = (&index, &canonical, marks) {
            let parts = match (sessions, &src.records) {
                (Some(sessions), Some(files)) => Some(index::Parts { judged_ns, files: files.clone(), sessions }),
                _ => None,
            };
            index.store(&index::Entry { files: now, judged_ns, ..entry.clone() }, parts.as_ref());
        }
        taker.take(&entry)?;
    }
    Ok(())
}

/// Was the database of `old` only appended to since, by rows of new
/// sessions? The same file (device and inode), no smaller, with no more
/// free pages (deleting rows frees pages), and its format says the rows
/// after the last one read belong to new sessions only.
fn appended(old: &index::Entry, now: Option<&[index::FileMark]>, src: &input::Source) -> bool {
    appended_since(&old.files, old.append.as_ref(), now, src)
}

/// Was the database read as `files` (last row and free pages in `append`)
/// only appended to since, by rows of new sessions (see `appended`)?
pub(crate) fn appended_since(
    files: &[index::FileMark],
    append: Option<&index::AppendMark>,
    now: Option<&[index::FileMark]>,
    src: &input::Source,
) -> bool {
    grown_since(files, append, now, src) && append.is_some_and(|m| src.appended_after(m.last_row) == Some(true))
}

/// Did the database read as `files` (last row and free pages in `append`)
/// only grow since: the same file, no smaller, no page freed, the rows up
/// to the last one read as many and the same last one? Its new rows may
/// belong to old sessions (`watch` reads those sessions again, whole).
pub(crate) fn grown_since(
    files: &[index::FileMark],
    append: Option<&index::AppendMark>,
    now: Option<&[index::FileMark]>,
    src: &input::Source,
) -> bool {
    let (Some(mark), Some(now), Some(then)) = (append, now, files.first()) else { return false };
    let Some(file) = now.first() else { return false };
    file.path == then.path
        && (file.dev, file.ino) == (then.dev, then.ino)
        && file.size >= then.size
        && src.freelist().is_some_and(|f| f <= mark.freelist)
        && src.rows_signature(mark.last_row).is_some_and(|s| s == mark.signature)
}

/// What the index keeps to read `src` from `last_row` on next time, if
/// its format can be read so.
pub(crate) fn append_mark(src: &input::Source, last_row: Option<i64>) -> Option<index::AppendMark> {
    append_mark_after(src, last_row, None)
}

/// `append_mark`, after `then`, the mark this run found the database
/// still matched before it read the rows after it (`grown_since`): the
/// rows' signature is worked out from its signature and the rows since.
fn append_mark_after(
    src: &input::Source,
    last_row: Option<i64>,
    then: Option<&index::AppendMark>,
) -> Option<index::AppendMark> {
    let last_row = last_row?;
    let freelist = src.freelist()?;
    let signature = match then {
        Some(then) => src.rows_signature_after(then.last_row, &then.signature, last_row)?,
        None => src.rows_signature(last_row)?,
    };
    src.appended_after(last_row)?;
    Some(index::AppendMark { last_row, freelist, signature })
}

/// Read and judge all of `src` into a new index entry, with each
/// session's part when `src` can be read again in part (its `records`).
fn read_entry(
    src: &input::Source,
    label: &str,
    canonical: &str,
    opts: &ScanOptions,
    notes_before: usize,
    notes: &[String],
) -> Result<(index::Entry, Option<Vec<index::SessionPart>>)> {
    let judge = judge_for(&src.dialects, &src.tool_schemas()?, opts)?;
    let mut build = index::Build::new(opts);
    if src.records.is_some() {
        build = build.with_parts();
    }
    Visitor::source(
        &mut build,
        SourceStart {
            path: label,
            format: src.label_format,
            schemas: judge.schemas().clone(),
            warnings: src.warnings.clone(),
        },
    );
    let stats = read_judging_aside(&src.path, &judge, &mut build, |sink| src.read(&opts.source, sink))?;
    let append = append_mark(src, stats.last_row);
    let parts = build.take_parts(stats.trailing);
    let entry = index::Entry {
        path: canonical.to_string(),
        label: label.to_string(),
        files: Vec::new(),
        judged_ns: 0,
        append,
        notes: notes[notes_before.min(notes.len())..].to_vec(),
        partial: aggregate::Partial::of(build.agg.finish()),
        rows: build.rows,
        parts: false,
    };
    Ok((entry, parts))
}

/// A transcript folder read again in part: the files that changed since
/// `old` (as `parts` kept them) and the files bound to them are imported
/// alone, their sessions judged, and the other sessions' parts taken
/// from the index, all in reading order. `None` when the folder must be
/// read whole: a file of a format that cannot be read alone, a change of
/// agents, a part out of order.
fn read_in_part(
    old: &index::Entry,
    parts: index::Parts,
    now: &[index::FileMark],
    path: &Path,
    label: &str,
    opts: &ScanOptions,
) -> Result<Option<(index::Entry, index::Parts)>> {
    use input::FileRecord;
    use std::collections::{BTreeSet, HashMap};
    let marks: HashMap<&str, &index::FileMark> = old.files.iter().map(|m| (m.path.as_str(), m)).collect();
    let records: HashMap<String, &FileRecord> = parts.files.iter().map(|r| (r.path.display().to_string(), r)).collect();
    if records.len() != old.files.len() {
        return Ok(None);
    }
    let present: BTreeSet<&str> = now.iter().map(|m| m.path.as_str()).collect();
    let same = |m: &index::FileMark| {
        marks
            .get(m.path.as_str())
            .is_some_and(|o| index::unchanged(std::slice::from_ref(o), old.judged_ns, std::slice::from_ref(m)))
    };
    // What the changed and the deleted files held before: bound to them.
    let mut sessions: BTreeSet<String> = BTreeSet::new();
    let mut keys: BTreeSet<u64> = BTreeSet::new();
    let hold = |r: &FileRecord, sessions: &mut BTreeSet<String>, keys: &mut BTreeSet<u64>| {
        sessions.extend(r.sessions.iter().cloned());
        keys.extend(r.keys.iter().copied());
    };
    for r in &parts.files {
        let p = r.path.display().to_string();
        if !present.contains(p.as_str()) || now.iter().any(|m| m.path == p && !same(m)) {
            hold(r, &mut sessions, &mut keys);
        }
    }
    let mut read: BTreeSet<usize> = now.iter().enumerate().filter(|(_, m)| !same(m)).map(|(i, _)| i).collect();
    if read.is_empty() {
        return Ok(None);
    }
    // The files kept, by the sessions and keys they hold.
    let mut by_session: HashMap<&str, Vec<usize>> = HashMap::new();
    let kept_keys = now.iter().filter_map(|m| records.get(&m.path)).map(|r| r.keys.len()).sum();
    let mut by_key = input::KeyFiles::with_capacity(kept_keys);
    for (i, m) in now.iter().enumerate().filter(|(i, _)| !read.contains(i)) {
        let Some(r) = records.get(&m.path) else { return Ok(None) };
        for s in &r.sessions {
            by_session.entry(s.as_str()).or_default().push(i);
        }
        for &k in &r.keys {
            by_key.add(k, i);
        }
    }
    // Import the files to read; files kept that share a session or a key
    // with them join them, until none does.
    let (src, stats) = loop {
        let files: Vec<PathBuf> = read.iter().map(|&i| PathBuf::from(&now[i].path)).collect();
        let (src, stats) = input::open_part(path, &files, &opts.source)?;
        let Some(got) = &stats.records else { return Ok(None) };
        let mut joined = BTreeSet::new();
        for r in got {
            for s in &r.sessions {
                joined.extend(by_session.get(s.as_str()).into_iter().flatten().copied());
            }
            for &k in &r.keys {
                joined.extend(by_key.files(k));
            }
        }
        for s in &sessions {
            joined.extend(by_session.get(s.as_str()).into_iter().flatten().copied());
        }
        for &k in &keys {
            joined.extend(by_key.files(k));
        }
        joined.retain(|i| !read.contains(i));
        if joined.is_empty() {
            break (src, stats);
        }
        for &i in &joined {
            if let Some(r) = records.get(&now[i].path) {
                hold(r, &mut sessions, &mut keys);
            }
        }
        read.extend(joined);
    };
    let Some(got) = stats.records else { return Ok(None) };
    let mut fresh: HashMap<String, FileRecord> = got.into_iter().map(|r| (r.path.display().to_string(), r)).collect();
    for r in fresh.values() {
        sessions.extend(r.sessions.iter().cloned());
    }
    // The folder's files now, in reading order, and what the import of
    // them all would have said.
    let mut files = Vec::with_capacity(now.len());
    for (i, m) in now.iter().enumerate() {
        let r = match read.contains(&i) {
            true => fresh.remove(&m.path),
            false => records.get(&m.path).map(|r| (*r).clone()),
        };
        let Some(r) = r else { return Ok(None) };
        files.push(r);
    }
    let whole = input::stats_of(&files);
    let before = input::stats_of(&parts.files);
    if whole.dialects != before.dialects {
        return Ok(None);
    }
    let mut notes = Vec::new();
    if input::transcript_notes(path, &path.display().to_string(), &whole, &mut notes).is_err() {
        return Ok(None);
    }
    // Judge the sessions of the files read, as the whole folder's source.
    let dialects: Vec<Dialect> = whole.dialects.iter().copied().collect();
    let judge = judge_for(&dialects, &src.tool_schemas()?, opts)?;
    let mut build = index::Build::new(opts).with_parts();
    let start = |schemas| SourceStart { path: label, format: whole.label(), schemas, warnings: Vec::new() };
    Visitor::source(&mut build, start(judge.schemas().clone()));
    let read_stats = read_judging_aside(&src.path, &judge, &mut build, |sink| src.read(&opts.source, sink))?;
    let Some(new) = build.take_parts(read_stats.trailing) else { return Ok(None) };
    let mut all: Vec<index::SessionPart> = parts.sessions.into_iter().filter(|p| !sessions.contains(&p.id)).collect();
    if new.iter().any(|p| !sessions.contains(&p.id)) {
        return Ok(None);
    }
    all.extend(new);
    index::Parts::sort(&mut all);
    if !index::Parts::in_reading_order(&all) {
        return Ok(None);
    }
    let mut agg = aggregate::Aggregator::new(opts.aggregate.clone(), opts.judge);
    agg.begin_source(label, whole.label(), judge.schemas().clone());
    for p in &all {
        agg.absorb_partial(&p.partial, true)
            .map_err(|e| Error::Internal(format!("the index parts of {}: {e}", sanitize::one_line(label))))?;
    }
    let entry = index::Entry {
        path: old.path.clone(),
        label: old.label.clone(),
        files: Vec::new(),
        judged_ns: 0,
        append: None,
        notes,
        partial: aggregate::Partial::of(agg.finish()),
        rows: all.iter().filter_map(|p| p.row.clone()).collect(),
        parts: true,
    };
    Ok(Some((entry, index::Parts { judged_ns: 0, files, sessions: all })))
}

/// `old`'s counts with the sessions of the rows after its last one.
fn read_appended(
    old: index::Entry,
    src: &input::Source,
    label: &str,
    opts: &ScanOptions,
    files: Vec<index::FileMark>,
) -> Result<index::Entry> {
    let Some(mark) = old.append.clone() else { return Err(Error::Internal("no append mark".into())) };
    let judge = judge_for(&src.dialects, &src.tool_schemas()?, opts)?;
    let mut build = index::Build::new(opts);
    build.start_from(&old).map_err(|e| Error::Internal(format!("the index entry of {label}: {e}")))?;
    let mut from = opts.source.clone();
    from.after_row = Some(mark.last_row);
    let stats = read_judging_aside(&src.path, &judge, &mut build, |sink| src.read(&from, sink))?;
    Ok(index::Entry {
        files,
        append: append_mark_after(src, Some(stats.last_row.unwrap_or(mark.last_row).max(mark.last_row)), Some(&mark)),
        partial: aggregate::Partial::of(build.agg.finish()),
        rows: build.rows,
        ..old
    })
}
