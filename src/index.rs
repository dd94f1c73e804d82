//! The index of what was judged (docs/index.md): per source, what it was
//! when it was judged (each file's identity, size and modification time;
//! for a Peri database the last row read) and the mergeable partial report
//! of its sessions, with their `sessions` rows. A re-run takes an unchanged
//! source's partial instead of reading it again, reads only the new
//! sessions of a Peri database that was appended to, and reads everything
//! else again. The report is the one `--no-index` gives, byte for byte:
//! a partial is the aggregator's whole state for those sessions
//! (`aggregate::Partial`), and sources are taken in the order they are read.
//!
//! The index lives in the user's cache (`$XDG_CACHE_HOME/falseok`, else
//! `~/.cache/falseok`, or `--index DIR`), never beside an input, in
//! folders made `0700` and files `0600`. Entries sit under a key made of
//! falseok's version, its build (the executable's size and time, so a
//! rebuilt rule set never trusts an older one) and every option that
//! changes a verdict or a count, so nothing is trusted across them. An
//! entry that cannot be read is rebuilt with one warning. It keeps what
//! the report and `sessions` show, already redacted as they show it.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregator, Filters, Partial};
use crate::report::SessionRow;
use crate::sanitize::one_line;

/// The version of the entries' shape: a change starts a new folder.
const LAYOUT: &str = "index-v1";

/// Where the index is, when it is used: `--index DIR`, else the user's
/// cache; `None` with `--no-index` or when there is no cache folder.
pub(crate) fn default_dir() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| env("HOME").map(|h| h.join(".cache")))
        .map(|c| c.join("falseok"))
}

/// What one file was when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileMark {
    pub path: String,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

impl FileMark {
    fn of(path: &Path) -> Option<FileMark> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| d.as_nanos() as i128);
        Some(FileMark { path: path.display().to_string(), dev, ino, size: m.len(), mtime_ns })
    }
}

/// A Peri database's state when it was read: rows after `last_row` are new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AppendMark {
    /// The greatest rowid of `messages` the read saw.
    pub last_row: i64,
    /// The database file's freelist page count: it grows when rows are
    /// deleted, which an append cannot show.
    pub freelist: i64,
    /// The rows up to `last_row` as the format tells them (Peri: their
    /// count and the last one's id): a row deleted or a rowid reused
    /// changes it.
    pub signature: String,
}

/// One source as the index keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The PATH's canonical form and its label in reports (the file name hashes both).
    pub path: String,
    pub label: String,
    /// Every file the source was read from, as they were.
    pub files: Vec<FileMark>,
    /// When the read began (Unix nanoseconds): a file changed less than
    /// `RACY_NS` before it may have changed again within the same
    /// modification time, so its entry is not trusted (git's racy index).
    #[serde(default)]
    pub judged_ns: i128,
    /// For a database that can be read from a row on (Peri).
    pub append: Option<AppendMark>,
    /// What reading it said on stderr (import notes), said again.
    pub notes: Vec<String>,
    /// The source's counts.
    pub partial: Partial,
    /// Its sessions' rows for `falseok sessions`.
    pub rows: Vec<SessionRow>,
    /// A transcript folder whose files and sessions are kept one by one
    /// beside the entry (`Parts`), so that it can be read again in part.
    #[serde(default)]
    pub parts: bool,
}

/// One session of a transcript folder, as the index keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SessionPart {
    pub id: String,
    /// Read after the others (made only of a file's broken lines).
    pub trailing: bool,
    /// The aggregator's whole state for this session alone.
    pub partial: Partial,
    pub row: Option<SessionRow>,
}

/// A transcript folder file by file and session by session, kept beside
/// its entry: a change to some files reads only them and the files bound
/// to them (import/record.rs), and the other sessions' parts are taken
/// in their reading order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Parts {
    /// The entry's `judged_ns`: parts of another entry are not taken.
    pub judged_ns: i128,
    /// Each file, in reading order.
    pub files: Vec<crate::import::record::FileRecord>,
    /// Each session, in reading order.
    pub sessions: Vec<SessionPart>,
}

impl Parts {
    /// Are the sessions in the order a read gives them: by id (byte
    /// order, as SQLite sorts text), then the trailing ones by id?
    pub(crate) fn in_reading_order(sessions: &[SessionPart]) -> bool {
        let split = sessions.iter().position(|p| p.trailing).unwrap_or(sessions.len());
        let (main, trailing) = sessions.split_at(split);
        let sorted = |ps: &[SessionPart]| ps.windows(2).all(|w| w[0].id < w[1].id);
        sorted(main) && sorted(trailing) && trailing.iter().all(|p| p.trailing)
    }

    /// Sort sessions into reading order (see `in_reading_order`).
    pub(crate) fn sort(sessions: &mut [SessionPart]) {
        sessions.sort_by(|a, b| a.trailing.cmp(&b.trailing).then_with(|| a.id.cmp(&b.id)));
    }
}

/// Entries kept under one key before the least recently written are
/// dropped (each source scanned under another name or in another folder
/// has an entry of its own).
const MAX_ENTRIES: usize = 2000;

/// A key folder not written for this long belongs to another build or
/// other options: it is removed when an index is opened.
const STALE_KEY: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

/// With `FALSEOK_INDEX_LOG` set, what the index did with each source
/// goes to stderr ("kept", "appended to", "read"), for debugging and tests.
pub(crate) fn log(label: &str, what: &str, entry: &Entry) {
    if std::env::var_os("FALSEOK_INDEX_LOG").is_some() {
        // A debugging aid, off by default: straight to stderr, beside the progress bar.
        let _ = writeln!(
            std::io::stderr().lock(),
            "falseok: index: {what} {} ({} sessions)",
            one_line(label),
            entry.rows.len()
        );
    }
}

/// How close to the read a file's modification time makes it suspect:
/// file systems keep times coarser than a nanosecond, and a write in the
/// same tick as the one before leaves the time as it was.
const RACY_NS: i128 = 2_000_000_000;

/// Now, in Unix nanoseconds.
pub(crate) fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

impl Entry {
    /// Were the files `now` exactly as this entry read them, and not
    /// changed so shortly before the read that a later change could hide?
    pub(crate) fn unchanged(&self, now: &[FileMark]) -> bool {
        unchanged(&self.files, self.judged_ns, now)
    }
}

/// What judged data depends on: falseok's version, the options that
/// change a verdict or a count, and (`build`) this very executable, whose
/// rule set a rebuild may change (the executable's size and time).
pub(crate) fn key(opts: &crate::ScanOptions, build: bool) -> u64 {
    let exe = build.then(|| std::env::current_exe().ok().and_then(|p| FileMark::of(&p))).flatten();
    let build = exe.map(|m| format!("{} {}", m.size, m.mtime_ns)).unwrap_or_default();
    // The configuration file's effect (its custom rules, benign shapes and
    // ignores): another configuration never reads this one's verdicts.
    let config = crate::config::active().fingerprint;
    let options = format!("{:?} {:?} {:?} {config}", opts.source, opts.tool_schemas, opts.aggregate);
    crate::sanitize::stable_hash(&[env!("CARGO_PKG_VERSION").as_bytes(), build.as_bytes(), options.as_bytes()])
}

/// The stable name of a source (its canonical path and its label).
pub(crate) fn tag(canonical: &str, label: &str) -> u64 {
    crate::sanitize::stable_hash(&[canonical.as_bytes(), label.as_bytes()])
}

/// Were `now`'s files exactly `files` when read at `judged_ns`, and not
/// changed so shortly before that a later change could hide?
pub(crate) fn unchanged(files: &[FileMark], judged_ns: i128, now: &[FileMark]) -> bool {
    files == now && now.iter().all(|m| m.mtime_ns < judged_ns - RACY_NS)
}

/// An open index: the folder of one key.
pub(crate) struct Index {
    dir: PathBuf,
}

/// What a command does with a source the index gives back.
pub(crate) trait Taker {
    /// The counts and rows of one source, in reading order.
    fn take(&mut self, entry: &Entry) -> crate::error::Result<()>;
}

impl Taker for Aggregator {
    fn take(&mut self, entry: &Entry) -> crate::error::Result<()> {
        self.absorb_partial(&entry.partial, false).map_err(|e| {
            crate::error::Error::Internal(format!("the index entry of {} does not add up: {e}", one_line(&entry.label)))
        })
    }
}

impl Index {
    /// The index under `root` for scans with `opts`; `None` (with a note)
    /// when its folder cannot be made private.
    pub(crate) fn open(root: &Path, opts: &crate::ScanOptions, notes: &mut Vec<String>) -> Option<Index> {
        let dir = root.join(LAYOUT).join(format!("{:016x}", key(opts, true)));
        match private_dirs(root, &dir) {
            Ok(()) => {
                prune(&dir);
                Some(Index { dir })
            }
            Err(e) => {
                notes.push(format!(
                    "the index folder {} cannot be used ({e}); reading without it",
                    one_line(&root.display().to_string())
                ));
                None
            }
        }
    }

    fn file(&self, canonical: &str, label: &str) -> PathBuf {
        self.dir.join(format!("{:016x}.json", tag(canonical, label)))
    }

    fn parts_file(&self, canonical: &str, label: &str) -> PathBuf {
        self.dir.join(format!("{:016x}.parts", tag(canonical, label)))
    }

    /// The parts kept beside `entry`, if they are its own and can be read.
    pub(crate) fn load_parts(&self, entry: &Entry) -> Option<Parts> {
        if !entry.parts {
            return None;
        }
        let bytes = std::fs::read(self.parts_file(&entry.path, &entry.label)).ok()?;
        serde_json::from_slice::<Parts>(&bytes).ok().filter(|p| p.judged_ns == entry.judged_ns)
    }

    /// The entry of a source, if one was kept and can be read; an entry
    /// that cannot be read is said once and dropped.
    pub(crate) fn load(&self, canonical: &str, label: &str, notes: &mut Vec<String>) -> Option<Entry> {
        let file = self.file(canonical, label);
        let bytes = std::fs::read(&file).ok()?;
        match serde_json::from_slice::<Entry>(&bytes) {
            Ok(e) if e.path == canonical && e.label == label => Some(e),
            Ok(_) => None,
            Err(_) => {
                notes.push(format!(
                    "the index entry {} is unreadable; {} is read again and the entry rebuilt",
                    one_line(&file.display().to_string()),
                    one_line(label)
                ));
                let _ = std::fs::remove_file(&file);
                None
            }
        }
    }

    /// Keep `entry`, replacing the one before (written aside, then renamed:
    /// a reader sees the old entry or the new one). Failing to keep it only
    /// costs the next run a read.
    pub(crate) fn store(&self, entry: &Entry, parts: Option<&Parts>) {
        let kept_parts = parts.is_some_and(|p| write_aside(&self.parts_file(&entry.path, &entry.label), p));
        let entry = Entry { parts: kept_parts, ..entry.clone() };
        if !kept_parts {
            let _ = std::fs::remove_file(self.parts_file(&entry.path, &entry.label));
        }
        write_aside(&self.file(&entry.path, &entry.label), &entry);
    }
}

/// Write `value` as JSON to `file`, aside then renamed (a reader sees the
/// old file or the new one); false when it could not be.
fn write_aside(file: &Path, value: &impl Serialize) -> bool {
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::io::BufWriter::new(crate::scratch::private_file(&tmp)?);
        serde_json::to_writer(&mut f, value)?;
        f.flush()?;
        drop(f);
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.is_ok()
}

impl Index {}

/// Keep the index small: other keys' folders left alone for `STALE_KEY`
/// are removed, and past `MAX_ENTRIES` entries the oldest half goes.
fn prune(dir: &Path) {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let now = std::time::SystemTime::now();
    if let Some(Ok(keys)) = dir.parent().map(std::fs::read_dir) {
        for k in keys.flatten().map(|e| e.path()).filter(|p| p != dir && p.is_dir()) {
            if modified(&k).and_then(|t| now.duration_since(t).ok()).is_some_and(|age| age > STALE_KEY) {
                let _ = std::fs::remove_dir_all(&k);
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> =
        entries.flatten().map(|e| e.path()).filter_map(|p| modified(&p).map(|t| (t, p))).collect();
    if files.len() > MAX_ENTRIES {
        files.sort();
        for (_, p) in &files[..files.len() - MAX_ENTRIES / 2] {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// `dir` and every folder from `root` down to it, made and kept `0700`.
fn private_dirs(root: &Path, dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut at = Some(dir);
        while let Some(d) = at {
            let meta = std::fs::symlink_metadata(d)?;
            if meta.file_type().is_symlink() || !meta.is_dir() {
                return Err(std::io::Error::other("not a folder"));
            }
            if meta.permissions().mode() & 0o077 != 0 {
                std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))?;
            }
            if d == root {
                break;
            }
            at = d.parent();
        }
    }
    Ok(())
}

/// Every file `path` is read from, as it is now: a database and its
/// write-ahead log, or every transcript file. `None` when it cannot be
/// told (the read then reports the problem).
pub(crate) fn marks(path: &Path, transcripts: bool) -> Option<Vec<FileMark>> {
    if transcripts {
        let files = crate::import::transcript_files(&[path.to_path_buf()]).ok()?;
        return files.iter().map(|f| FileMark::of(f)).collect();
    }
    let mut out = vec![FileMark::of(path)?];
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    out.extend(FileMark::of(&wal).filter(|m| m.size > 0));
    Some(out)
}

/// The sessions rows and counts of one source, built while it is read.
pub(crate) struct Build {
    pub agg: Aggregator,
    pub rows: Vec<SessionRow>,
    /// Each session's own partial, when kept (`Parts`).
    pub parts: Option<Vec<SessionPart>>,
    filters: Filters,
    threshold: usize,
    source: String,
    format: String,
    schemas: std::sync::Arc<crate::schema::SchemaSet>,
    options: crate::aggregate::AggregateOptions,
}

impl Build {
    pub(crate) fn new(opts: &crate::ScanOptions) -> Build {
        Build {
            agg: Aggregator::new(opts.aggregate.clone()),
            rows: Vec::new(),
            parts: None,
            filters: opts.aggregate.filters.clone(),
            threshold: opts.aggregate.streak_threshold.max(2),
            source: String::new(),
            format: String::new(),
            schemas: std::sync::Arc::default(),
            options: opts.aggregate.clone(),
        }
    }

    /// Keep each session's own partial too.
    pub(crate) fn with_parts(mut self) -> Build {
        self.parts = Some(Vec::new());
        self
    }

    /// The read is over, and its last `trailing` sessions came after the
    /// others: the parts, if they are in reading order.
    pub(crate) fn take_parts(&mut self, trailing: usize) -> Option<Vec<SessionPart>> {
        let mut parts = self.parts.take()?;
        let n = parts.len();
        for p in &mut parts[n.saturating_sub(trailing)..] {
            p.trailing = true;
        }
        Parts::in_reading_order(&parts).then_some(parts)
    }
}

impl Build {
    /// Go on from what `entry` kept of its source: its counts and rows come
    /// first, and the sessions read next add to that source.
    pub(crate) fn start_from(&mut self, entry: &Entry) -> Result<(), String> {
        self.agg.absorb_partial(&entry.partial, false)?;
        self.rows = entry.rows.clone();
        self.source = entry.label.clone();
        Ok(())
    }
}

impl crate::Visitor for Build {
    fn source(&mut self, start: crate::SourceStart<'_>) {
        self.source = start.path.to_string();
        self.format = start.format.to_string();
        self.schemas = start.schemas.clone();
        crate::Visitor::source(&mut self.agg, start);
    }

    fn session(&mut self, s: crate::judge::JudgedSession) -> bool {
        let row = crate::aggregate::sessions::row(&s, &self.source, &self.filters, self.threshold);
        if let Some(parts) = &mut self.parts {
            let mut one = Aggregator::new(self.options.clone());
            one.begin_source(&self.source, &self.format, self.schemas.clone());
            one.add(&s);
            parts.push(SessionPart {
                id: s.id.clone(),
                trailing: false,
                partial: Partial::of(one.finish()),
                row: row.clone(),
            });
        }
        if let Some(row) = row {
            self.rows.push(row);
        }
        self.agg.add(&s);
        true
    }
}
