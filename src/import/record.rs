//! What each file gave an import, kept so that a transcript folder can be
//! read again in part (the index, src/index.rs): when some of its files
//! change, only they and the files they are bound to are imported again.
//!
//! Files of one import are bound to each other only through what the
//! writer shares between them: a session several files write to (its
//! start time, its parent, the order of its calls, a result already kept
//! for a call), and a key one file defines and another looks up (a call
//! id whose session a result joins, a line uuid read twice). So each file's
//! record holds the sessions it wrote to and a stable hash of every key it
//! defined or looked up. A set of files that shares none of them with the
//! other files imports the same rows alone as with them: a hash collision
//! can only bind more files, never fewer.
//!
//! It also holds what the notes of a scan say of the file (not
//! recognised, read but quiet, broken lines, surrogates), so the notes of
//! the whole folder are made again from the records of its files.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{BrokenLine, ImportStats};
use crate::model::Dialect;

/// The kinds of keys files share.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Key {
    /// A tool call id.
    Call = 1,
    /// The id of a transcript line (Claude Code's `uuid`).
    Line = 2,
}

/// One file of an import, as the index keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    pub path: PathBuf,
    /// The importer that read it (its format name), if one did.
    pub format: Option<String>,
    /// Sessions it wrote to, and the sessions its broken lines are reported in.
    pub sessions: BTreeSet<String>,
    /// Hashes of the keys it defined or looked up, sorted, each once.
    pub keys: Vec<u64>,
    /// No importer recognised it.
    pub unrecognised: bool,
    /// A `.json` file that is not a whole document.
    pub broken_document: bool,
    /// Read as its format's, and yet it gave no call and no result.
    pub quiet: bool,
    /// Its lines that are not JSON records.
    pub broken_lines: Vec<BrokenLine>,
    /// Lone surrogate escapes replaced in it.
    pub surrogates: u64,
}

/// The records an import is building, by file.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    files: HashMap<PathBuf, FileRecord>,
    /// Files in reading order.
    order: Vec<PathBuf>,
    /// Some file was read by an importer whose files are not read alone.
    pub bound: bool,
}

impl Recorder {
    fn at(&mut self, file: &Path) -> &mut FileRecord {
        if !self.files.contains_key(file) {
            self.order.push(file.to_path_buf());
            self.files.insert(file.to_path_buf(), FileRecord { path: file.to_path_buf(), ..FileRecord::default() });
        }
        self.files.get_mut(file).expect("inserted above")
    }

    /// `file` wrote to `session`.
    pub(crate) fn session(&mut self, file: &Path, session: &str) {
        let rec = self.at(file);
        if !rec.sessions.contains(session) {
            rec.sessions.insert(session.to_string());
        }
    }

    /// `file` defined or looked up `key`.
    pub(crate) fn key(&mut self, file: &Path, kind: Key, key: &str) {
        let h = crate::sanitize::stable_hash(&[&[kind as u8], key.as_bytes()]);
        self.at(file).keys.push(h);
    }

    /// Make sure `file` has a record (a file that wrote nothing has one too).
    pub(crate) fn file(&mut self, file: &Path) -> &mut FileRecord {
        self.at(file)
    }

    /// The records, in reading order, with the notes' share of `stats`
    /// (what the import said of each file) and each file's keys sorted.
    pub(crate) fn finish(mut self, stats: &ImportStats) -> Option<Vec<FileRecord>> {
        if self.bound {
            return None;
        }
        for b in &stats.broken_lines {
            let rec = self.at(&b.file);
            rec.broken_lines.push(b.clone());
            rec.sessions.insert(b.session.clone().unwrap_or_else(|| stem_session(&b.file)));
        }
        for f in &stats.broken {
            self.at(f).broken_document = true;
        }
        for f in &stats.unrecognised {
            self.at(f).unrecognised = true;
        }
        for (f, _) in &stats.quiet {
            self.at(f).quiet = true;
        }
        let mut out = Vec::with_capacity(self.order.len());
        for path in self.order {
            let Some(mut rec) = self.files.remove(&path) else { continue };
            rec.keys.sort_unstable();
            rec.keys.dedup();
            out.push(rec);
        }
        Some(out)
    }
}

/// The session a broken line of a file with no session of its own is
/// reported in: the file's name without its extension.
pub(crate) fn stem_session(file: &Path) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The notes' share of an import made again from its files' records, in
/// the order given (the order the files were read in), as one import of
/// them all would have counted it. `product` gives the dialect and product
/// of each format's name.
pub(crate) fn stats_of(
    records: &[FileRecord],
    product: &dyn Fn(&str) -> Option<(Dialect, &'static str)>,
) -> ImportStats {
    let mut stats = ImportStats::default();
    for rec in records {
        stats.surrogates += rec.surrogates;
        stats.broken_lines.extend(rec.broken_lines.iter().cloned());
        if rec.broken_document {
            stats.broken.push(rec.path.clone());
        }
        if rec.unrecognised {
            stats.unrecognised.push(rec.path.clone());
        }
        if let Some((dialect, prod)) = rec.format.as_deref().and_then(product) {
            stats.dialects.insert(dialect);
            stats.files += 1;
            if rec.quiet {
                stats.quiet.push((rec.path.clone(), prod));
            }
        }
    }
    stats
}
