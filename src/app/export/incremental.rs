//! `export --out DIR --partition --incremental`: an hourly job adds only
//! what is new to a Hive-partitioned dataset. The folder's manifest
//! (`_falseok_export.json`, which engines skip: its name starts with
//! `_`) records, per source, what it was when exported (the index's file
//! marks, and a Peri database's last row) and the partition files that
//! hold its rows. A run then, per source:
//!
//! - unchanged: writes nothing;
//! - a Peri database grown by new sessions only: writes their rows, in new
//!   files of the source's own;
//! - changed otherwise (or new): writes all its rows in new files, then
//!   removes the files of its earlier export.
//!
//! No row is lost or doubled across runs, even when a run is cut: the
//! manifest names the files a run is about to put in place before it puts
//! them there, and the next run removes such files of a run that did not
//! finish, and exports again every source whose files are not all there.
//!
//! The manifest is the one file that says what to remove, and anyone who
//! can write it could name any file: a run removes only names falseok gives
//! its partition files (`date=…/part-<tag>-<n>.<ext>`, a source's own tag),
//! in a partition folder of the dataset that is no link, each a regular
//! file that the output guard lets an export replace (no input, nothing in
//! an input folder, a falseok export). A manifest that names anything else
//! is refused before anything is removed (`part_to_remove`).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::exporter::Exporter;
use crate::app::output::{self, Inputs, Pending, Written};
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::{Error, Result};
use crate::index::{self, AppendMark, FileMark};
use crate::sanitize::one_line;

/// The manifest's file name in the dataset folder.
pub(crate) const MANIFEST: &str = "_falseok_export.json";

/// The manifest's shape.
const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    /// `ndjson` or `parquet`: a dataset holds one.
    format: String,
    /// The options the rows were judged with (`index::key`, without the
    /// build: a new falseok appends to an older export).
    options: String,
    sources: Vec<SourceState>,
    /// Files a run was putting in place when it stopped, if it did not finish.
    #[serde(default)]
    pending: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SourceState {
    path: String,
    label: String,
    files: Vec<FileMark>,
    judged_ns: i128,
    append: Option<AppendMark>,
    /// Its partition files, relative to the dataset folder.
    parts: Vec<String>,
    /// The number the next file name of the source takes.
    next: u64,
}

fn format_name(f: ExportFormat) -> &'static str {
    match f {
        ExportFormat::Ndjson => "ndjson",
        ExportFormat::Parquet => "parquet",
    }
}

fn read_manifest(path: &Path, shown: &Path) -> Result<Option<Manifest>> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::input(shown, format!("cannot read {MANIFEST}: {e}"))),
    };
    let m: Manifest = serde_json::from_slice(&text).map_err(|e| {
        Error::input(shown, format!("{MANIFEST} is not a manifest falseok wrote ({e}); export to a new folder"))
    })?;
    if m.version != VERSION {
        return Err(Error::input(
            shown,
            format!("{MANIFEST} is of version {}; this falseok writes {VERSION}", m.version),
        ));
    }
    Ok(Some(m))
}

/// Write the manifest whole, aside then renamed.
fn write_manifest(dir: &Path, shown: &Path, m: &Manifest) -> Result<()> {
    let at = dir.join(MANIFEST);
    let (pending, mut file) = Pending::new(dir, &at, &shown.join(MANIFEST))?;
    let cannot = |e: std::io::Error| Error::input(shown.join(MANIFEST), format!("cannot write: {e}"));
    serde_json::to_writer_pretty(&mut file, m).map_err(|e| cannot(e.into()))?;
    file.write_all(b"\n").and_then(|()| file.sync_all()).map_err(cannot)?;
    drop(file);
    pending.commit()
}

/// Is `rel` a name this export gives a partition file of `format`:
/// `date=<day>/part-<16 hex digits>-<digits>.<format>`, with the tag `tag`
/// when one is given? Nothing else: no `..`, no other folder, no absolute
/// path.
fn is_part_name(rel: &str, format: &str, tag: Option<&str>) -> bool {
    let Some((folder, file)) = rel.split_once('/') else { return false };
    let day = folder.strip_prefix("date=").unwrap_or_default();
    let day_ok = !day.is_empty() && day.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_+".contains(&b));
    let name = file.strip_prefix("part-").and_then(|f| f.strip_suffix(format)?.strip_suffix('.'));
    let file_ok = name.and_then(|n| n.split_once('-')).is_some_and(|(t, n)| {
        t.len() == 16
            && t.bytes().all(|b| b.is_ascii_hexdigit())
            && tag.is_none_or(|tag| tag == t)
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
    });
    day_ok && file_ok
}

/// The file the manifest names `rel`, when a run may remove it: `None`
/// when there is none. A name `is_part_name` does not accept, a partition
/// folder that is a link or not a folder, or a file that is a link, not a
/// regular file, or one the output guard would not let an export replace
/// (an input, a file in an input folder, a file that is not a falseok
/// export): the manifest is refused, and the run removes nothing.
fn part_to_remove(dir: &Path, shown: &Path, rel: &str, inputs: &Inputs, ok: bool) -> Result<Option<PathBuf>> {
    let refuse = |why: &str| {
        Err(Error::input(
            shown.join(MANIFEST),
            format!(
                "names {} among its files, {why}; falseok removes only the partition files it wrote there, \
                 and removed nothing (export to a new folder)",
                one_line(&format!("{rel:?}"))
            ),
        ))
    };
    if !ok {
        return refuse("which is not the name of one of its partition files");
    }
    let Some((folder, _)) = rel.split_once('/') else { return refuse("which is not in a partition folder") };
    match std::fs::symlink_metadata(dir.join(folder)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::input(shown.join(folder), format!("cannot read: {e}"))),
        Ok(m) if !m.is_dir() => return refuse("whose partition folder is a link or not a folder"),
        Ok(_) => {}
    }
    let path = dir.join(rel);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::input(shown.join(rel), format!("cannot read: {e}"))),
        Ok(m) if !m.is_file() => refuse("which is a link or not a regular file"),
        Ok(_) => match output::guard(&path, inputs, Written::Export, false) {
            Ok(_) => Ok(Some(path)),
            Err(Error::Input { problem, .. }) => {
                refuse(&format!("which {}", problem.split(';').next().unwrap_or_default()))
            }
            Err(e) => Err(e),
        },
    }
}

/// Check every file the manifest names (each source's `parts`, the
/// `pending` of a run cut short) before any is removed.
fn check_names(m: &Manifest, dir: &Path, shown: &Path, inputs: &Inputs) -> Result<()> {
    for s in &m.sources {
        let tag = format!("{:016x}", index::tag(&s.path, &s.label));
        for p in &s.parts {
            part_to_remove(dir, shown, p, inputs, is_part_name(p, &m.format, Some(&tag)))?;
        }
    }
    for p in &m.pending {
        part_to_remove(dir, shown, p, inputs, is_part_name(p, &m.format, None))?;
    }
    Ok(())
}

/// Remove the files named `rels`, all checked again first (a file may have
/// been swapped since the start of the run).
fn remove_parts(rels: &[String], format: &str, dir: &Path, shown: &Path, inputs: &Inputs) -> Result<()> {
    let mut doomed = Vec::new();
    for rel in rels {
        doomed.extend(part_to_remove(dir, shown, rel, inputs, is_part_name(rel, format, None))?);
    }
    for path in doomed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

pub(super) fn run(
    args: &ExportArgs,
    opts: &crate::spine::ScanOptions,
    paths: &[PathBuf],
    (dir, inputs): (&Path, &Inputs),
    mut exporter: Exporter<'_>,
    err: &mut dyn Write,
) -> Result<()> {
    let shown = args.out.clone().unwrap_or_else(|| dir.to_path_buf());
    let format = format_name(args.format);
    let options = format!("{:016x}", index::key(opts, false));
    let mut manifest = match read_manifest(&dir.join(MANIFEST), &shown)? {
        Some(m) => {
            if m.format != format {
                return Err(Error::input(
                    &shown,
                    format!("holds a {} export; --format {format} would mix two in one dataset", m.format),
                ));
            }
            if m.options != options {
                return Err(Error::input(
                    &shown,
                    "was exported with other options (filters, thresholds, redaction, formats or schemas); \
                     export to a new folder, or give the same options",
                ));
            }
            m
        }
        None => {
            let empty = std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none());
            if !empty && !args.force {
                return Err(Error::input(
                    &shown,
                    format!(
                        "is not empty and has no {MANIFEST}: an --incremental export starts in a new folder (or pass --force)"
                    ),
                ));
            }
            Manifest { version: VERSION, format: format.into(), options, ..Manifest::default() }
        }
    };
    check_names(&manifest, dir, &shown, inputs)?;
    // A run that stopped before it finished: its files go, and a source
    // whose files are not all there is exported again.
    remove_parts(&std::mem::take(&mut manifest.pending), format, dir, &shown, inputs)?;
    for s in &mut manifest.sources {
        if s.parts.iter().any(|p| !dir.join(p).exists()) {
            s.files.clear();
        }
    }
    let mut notes = Vec::new();
    let mut retired: Vec<String> = Vec::new();
    let mut touched = 0usize;
    for path in &crate::input::distinct(&crate::input::expand(paths, &opts.source, &mut notes), &mut notes) {
        let label = opts.judge.redaction.apply(&path.display().to_string()).into_owned();
        let canonical =
            std::fs::canonicalize(path).map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
        let transcripts = opts.source.transcripts.is_some() || crate::input::is_transcripts(path);
        let marks = index::marks(path, transcripts);
        let at = manifest.sources.iter().position(|s| s.path == canonical && s.label == label);
        if let (Some(i), Some(now)) = (at, &marks)
            && index::unchanged(&manifest.sources[i].files, manifest.sources[i].judged_ns, now)
        {
            continue;
        }
        let judged_ns = index::now_ns();
        let src = crate::input::open(path, &opts.source, &mut notes)?;
        let old = at.map(|i| manifest.sources[i].clone());
        let after = old.as_ref().and_then(|o| {
            crate::index::walk::appended_since(&o.files, o.append.as_ref(), marks.as_deref(), &src)
                .then(|| o.append.as_ref().map(|a| a.last_row))
                .flatten()
        });
        let next = old.as_ref().map_or(0, |o| o.next);
        exporter.prefix = format!("part-{:016x}-{next:05}", index::tag(&canonical, &label));
        let stats = crate::spine::walk_source(&src, &label, opts, after, &mut exporter)?;
        // The read is a snapshot of its own: rows of an old session
        // committed since the check would be exported without the rest.
        if let Some(row) = after
            && src.appended_after(row) != Some(true)
        {
            return Err(Error::input(
                path,
                "changed while it was exported (a session went on): nothing was written; run again",
            ));
        }
        touched += 1;
        let append = crate::index::walk::append_mark(&src, stats.last_row.or(after));
        // Appended: the earlier files stay; otherwise they go once the new ones are in place.
        let kept = match (&old, after) {
            (Some(o), Some(_)) => o.parts.clone(),
            (Some(o), None) => {
                retired.extend(o.parts.iter().cloned());
                Vec::new()
            }
            (None, _) => Vec::new(),
        };
        let state = SourceState {
            path: canonical.clone(),
            label: label.clone(),
            files: marks.unwrap_or_default(),
            judged_ns,
            append,
            parts: kept,
            next: next + 1,
        };
        match at {
            Some(i) => manifest.sources[i] = state,
            None => manifest.sources.push(state),
        }
    }
    let (rows, whole) = exporter.finish_parts()?;
    // The files this run writes, by source (their name carries its tag).
    let mut written: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (rel, _) in &whole {
        let file = rel.rsplit('/').next().unwrap_or_default();
        let tag = file.strip_prefix("part-").and_then(|f| f.split('-').next()).unwrap_or_default();
        written.entry(tag.to_string()).or_default().push(rel.clone());
    }
    for s in &mut manifest.sources {
        if let Some(new) = written.get(&format!("{:016x}", index::tag(&s.path, &s.label))) {
            s.parts.extend(new.iter().cloned());
        }
    }
    if touched > 0 {
        // Say first which files are about to appear, then put them in place.
        let mut intent = manifest.clone();
        intent.pending = whole.iter().map(|(rel, _)| rel.clone()).collect();
        intent.sources = read_manifest(&dir.join(MANIFEST), &shown)?.map(|m| m.sources).unwrap_or_default();
        write_manifest(dir, &shown, &intent)?;
        for (_, pending) in whole {
            pending.commit()?;
        }
        remove_parts(&retired, format, dir, &shown, inputs)?;
        write_manifest(dir, &shown, &manifest)?;
    }
    for note in &notes {
        writeln!(err, "falseok: warning: {note}")?;
    }
    writeln!(
        err,
        "falseok: exported {rows} new calls to {} ({touched} of {} sources read; {MANIFEST} records the rest)",
        one_line(&shown.display().to_string()),
        manifest.sources.len()
    )?;
    Ok(())
}
