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
//! `~/.cache/falseok`, or `--index DIR`), never in an input (the output
//! guard refuses it there: app/settings.rs), in folders made `0700` and
//! files `0600`. Entries sit under a key made of falseok's version, its
//! build (the executable's size and time, so a rebuilt rule set never
//! trusts an older one) and every option that changes a verdict or a
//! count, so nothing is trusted across them. It keeps what the report and
//! `sessions` show, already redacted as they show it.
//!
//! An entry can change what `check` answers, so only what this user wrote
//! is trusted: folders and entries owned by the user and writable by no
//! one else (`trusted_dirs`, `read_bounded`; nothing is ever `chmod`ed),
//! entries read as bounded regular files (no link followed, no FIFO
//! waited on), whose counts add up (`Index::adds_up`), for files whose
//! identity, size, modification and change times are as they were. An
//! entry that fails any of these is rebuilt with one warning.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregator, Filters, Partial};
use crate::report::SessionRow;
use crate::sanitize::one_line;
use crate::spine::{ScanOptions, SourceStart, Visitor};

pub(crate) mod walk;

/// The version of the entries' shape: a change starts a new folder.
const LAYOUT: &str = "index-v1";

/// The index's folder in the user's cache: `$XDG_CACHE_HOME/falseok` (an
/// absolute `XDG_CACHE_HOME` only: the XDG spec says a relative one is
/// ignored), else `$HOME/.cache/falseok`. `Ok(None)` when neither is set.
/// `Err(why)` when `HOME` names a folder that does not exist
/// (`HOME=/nonexistent`, the usual "no home" of system users): nothing is
/// made there, and the run reads without an index.
pub(crate) fn default_dir() -> Result<Option<PathBuf>, String> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(cache) = env("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return Ok(Some(cache.join("falseok")));
    }
    let Some(home) = env("HOME") else { return Ok(None) };
    if !home.is_dir() {
        return Err(format!(
            "HOME ({}) is not a folder, so there is no cache folder for the index; reading without it \
             (set XDG_CACHE_HOME, or pass --index DIR or --no-index)",
            one_line(&home.display().to_string())
        ));
    }
    Ok(Some(home.join(".cache").join("falseok")))
}

/// What one file was when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileMark {
    pub path: String,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    /// The inode's change time: every write and every `utime` sets it to
    /// now, so a rewrite of the same size whose modification time is put
    /// back (`cp -p`, `rsync -t`, `touch -r`) still shows. No user can set
    /// it back. 0 where the system has none.
    #[serde(default)]
    pub ctime_ns: i128,
}

impl FileMark {
    fn of(path: &Path) -> Option<FileMark> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let (dev, ino, ctime_ns) = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino(), i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()))
        };
        #[cfg(not(unix))]
        let (dev, ino, ctime_ns) = (0, 0, 0);
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| d.as_nanos() as i128);
        Some(FileMark { path: path.display().to_string(), dev, ino, size: m.len(), mtime_ns, ctime_ns })
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
/// to them (import/store/record.rs), and the other sessions' parts are taken
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
pub(crate) fn key(opts: &ScanOptions, build: bool) -> u64 {
    let exe = build.then(|| std::env::current_exe().ok().and_then(|p| FileMark::of(&p))).flatten();
    let build = exe.map(|m| format!("{} {}", m.size, m.mtime_ns)).unwrap_or_default();
    // The configuration file's effect (its custom rules, benign shapes and
    // ignores): another configuration never reads this one's verdicts.
    let config = crate::config::active().fingerprint;
    let options = format!("{:?} {:?} {:?} {:?} {config}", opts.source, opts.tool_schemas, opts.aggregate, opts.judge);
    crate::sanitize::stable_hash(&[env!("CARGO_PKG_VERSION").as_bytes(), build.as_bytes(), options.as_bytes()])
}

/// The stable name of a source (its canonical path and its label).
pub(crate) fn tag(canonical: &str, label: &str) -> u64 {
    crate::sanitize::stable_hash(&[canonical.as_bytes(), label.as_bytes()])
}

/// Were `now`'s files exactly `files` when read at `judged_ns` (identity,
/// size, modification and change times), and not modified so shortly
/// before that a later change could hide? The racy window is kept on the
/// modification time only: the change time cannot be set back, so a later
/// change hides from it only within one tick of the kernel's clock, and a
/// window on it would distrust every file whose time was just set.
pub(crate) fn unchanged(files: &[FileMark], judged_ns: i128, now: &[FileMark]) -> bool {
    files == now && now.iter().all(|m| m.mtime_ns < judged_ns - RACY_NS)
}

/// An open index: the folder of one key.
pub(crate) struct Index {
    dir: PathBuf,
    /// The options its entries' partials are checked with (`adds_up`).
    options: crate::aggregate::AggregateOptions,
    judge: crate::judge::JudgeOptions,
}

/// The largest entry (or `.parts` file) read or written: far more than
/// the counts and rows of any real source, which a file past it would not
/// be. A larger one is not kept: the next run reads its source again.
const MAX_ENTRY_BYTES: u64 = 256 << 20;

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
    /// when its folders cannot be made, or cannot be trusted
    /// (`trusted_dirs`): the run then reads without it.
    pub(crate) fn open(root: &Path, opts: &ScanOptions, notes: &mut Vec<String>) -> Option<Index> {
        let dir = root.join(LAYOUT).join(format!("{:016x}", key(opts, true)));
        match trusted_dirs(root, &dir) {
            Ok(()) => {
                prune(&dir);
                Some(Index { dir, options: opts.aggregate.clone(), judge: opts.judge })
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

    /// The parts kept beside `entry`, if they are its own, can be read and
    /// add up; parts that cannot are said once and dropped (the source is
    /// then read whole, and they are written again).
    pub(crate) fn load_parts(&self, entry: &Entry, notes: &mut Vec<String>) -> Option<Parts> {
        if !entry.parts {
            return None;
        }
        let file = self.parts_file(&entry.path, &entry.label);
        let parts = match read_bounded(&file) {
            Ok(Some(bytes)) => serde_json::from_slice::<Parts>(&bytes).map_err(|e| e.to_string()),
            Ok(None) => return None,
            Err(e) => Err(e),
        };
        let parts = parts.and_then(|p| {
            let mut agg = Aggregator::new(self.options.clone(), self.judge);
            agg.begin_source(&entry.label, "", std::sync::Arc::default());
            p.sessions.iter().try_for_each(|s| agg.absorb_partial(&s.partial, true)).map(|()| p)
        });
        match parts {
            Ok(p) => Some(p).filter(|p| p.judged_ns == entry.judged_ns),
            Err(why) => {
                unreadable(&file, &entry.label, &why, notes);
                None
            }
        }
    }

    /// The entry of a source, if one was kept and can be read; an entry
    /// that cannot be read, or whose counts do not add up, is said once
    /// and dropped (the source is read again and the entry rebuilt).
    pub(crate) fn load(&self, canonical: &str, label: &str, notes: &mut Vec<String>) -> Option<Entry> {
        let file = self.file(canonical, label);
        let entry = match read_bounded(&file) {
            Ok(Some(bytes)) => serde_json::from_slice::<Entry>(&bytes).map_err(|e| e.to_string()),
            Ok(None) => return None,
            Err(e) => Err(e),
        };
        match entry.and_then(|e| self.adds_up(&e).map(|()| e)) {
            Ok(e) if e.path == canonical && e.label == label => Some(e),
            Ok(_) => None,
            Err(why) => {
                unreadable(&file, label, &why, notes);
                None
            }
        }
    }

    /// Do the entry's counts add up as a scan counts them? Checked as a
    /// run takes them, into an aggregator of its own, and the totals as
    /// the sums of the tools' rows: an entry a scan could not have written
    /// (a bit flip, a stray edit) is never taken, so it can neither stop a
    /// run nor change its totals.
    fn adds_up(&self, entry: &Entry) -> Result<(), String> {
        let r = &entry.partial.report;
        let sum = |f: fn(&crate::report::ToolReport) -> u64| {
            r.tools.iter().try_fold(0u64, |a, t| a.checked_add(f(t))).unwrap_or(u64::MAX)
        };
        let t = &r.totals;
        let sums = [
            ("calls", t.calls, sum(|t| t.calls)),
            ("errors", t.errors, sum(|t| t.errors)),
            ("flagged errors", t.flagged_errors, sum(|t| t.flagged_errors)),
            ("content errors", t.content_errors, sum(|t| t.content_errors)),
            ("hidden errors", t.hidden_errors, sum(|t| t.hidden_errors)),
        ];
        if let Some((what, total, tools)) = sums.iter().find(|(_, total, tools)| total != tools) {
            return Err(format!("{total} {what} in all, {tools} in its tools' rows"));
        }
        Aggregator::new(self.options.clone(), self.judge).absorb_partial(&entry.partial, false)
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
        if !write_aside(&self.file(&entry.path, &entry.label), &entry) {
            let _ = std::fs::remove_file(self.file(&entry.path, &entry.label));
        }
    }
}

/// Say that the index file `file` of `label` cannot be used (`why`), and
/// remove it: only a regular file; a link or a FIFO in its place is left
/// as it is, and never read.
fn unreadable(file: &Path, label: &str, why: &str, notes: &mut Vec<String>) {
    notes.push(format!(
        "the index entry {} is unreadable ({}); {} is read again and the entry rebuilt",
        one_line(&file.display().to_string()),
        one_line(why),
        one_line(label)
    ));
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(file);
    }
}

/// The bytes of the index file `path`, read as a bounded regular file of
/// this user's: a symbolic link is not followed (`O_NOFOLLOW`), the open
/// never blocks (`O_NONBLOCK`: a FIFO opens at once), and the open file
/// must be a regular file (`fstat`), owned by this user, writable by no
/// one else, of at most `MAX_ENTRY_BYTES`, read no further than that.
/// `Ok(None)` when there is no file; `Err(why)` for anything else.
fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err("a symbolic link".into()),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    trusted_owner(&meta)?;
    let too_large = || format!("larger than {} MiB", MAX_ENTRY_BYTES >> 20);
    if meta.len() > MAX_ENTRY_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_ENTRY_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_ENTRY_BYTES {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

/// Is what `meta` describes this user's, and writable by no one else?
/// (`git`'s `safe.directory` rule: what another user can write, they can
/// forge, and a forged entry would pass a `check` that should fail.)
fn trusted_owner(meta: &std::fs::Metadata) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(format!("owned by another user, uid {}; falseok trusts only its own", meta.uid()));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!("writable by others, mode {:04o}; falseok trusts only its own", meta.mode() & 0o7777));
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    Ok(())
}

/// A writer that fails past `left` bytes (an entry over `MAX_ENTRY_BYTES`).
struct Bounded<W> {
    inner: W,
    left: u64,
}

impl<W: Write> Write for Bounded<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.left = self
            .left
            .checked_sub(buf.len() as u64)
            .ok_or_else(|| std::io::Error::other("an index entry over its bound"))?;
        self.inner.write_all(buf).map(|()| buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Write `value` as JSON to `file`, aside then renamed (a reader sees the
/// old file or the new one); false when it could not be, or when it would
/// be larger than `MAX_ENTRY_BYTES` (no run would read it back).
fn write_aside(file: &Path, value: &impl Serialize) -> bool {
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let _ = std::fs::remove_file(&tmp);
        let out = Bounded { inner: crate::scratch::private_file(&tmp)?, left: MAX_ENTRY_BYTES };
        let mut f = std::io::BufWriter::new(out);
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

/// Make the index folder `dir` under `root` where missing (`0700`, as
/// falseok's own), and check that every folder from `root` down to `dir`
/// can be trusted: a folder (`root` may be a link to one; the folders
/// falseok makes in it may not), owned by this user and writable by no one
/// else (`trusted_owner`). Nothing is ever `chmod`ed: `--index /tmp` must
/// not close `/tmp`, and a folder another user owns stays theirs, and is
/// refused.
fn trusted_dirs(root: &Path, dir: &Path) -> Result<(), String> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(root).map_err(|e| e.to_string())?;
    let meta = std::fs::metadata(root).map_err(|e| e.to_string())?;
    if !meta.is_dir() {
        return Err("not a folder".into());
    }
    trusted_owner(&meta)?;
    let mut at = root.to_path_buf();
    for part in dir.strip_prefix(root).map_err(|_| "not inside the index folder".to_string())?.components() {
        at.push(part);
        match b.recursive(false).create(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("{}: {e}", one_line(&at.display().to_string()))),
        }
        let meta = std::fs::symlink_metadata(&at).map_err(|e| e.to_string())?;
        if !meta.is_dir() {
            return Err(format!("{} is not a folder", one_line(&at.display().to_string())));
        }
        trusted_owner(&meta).map_err(|why| format!("{} is {why}", one_line(&at.display().to_string())))?;
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
    judge: crate::judge::JudgeOptions,
}

impl Build {
    pub(crate) fn new(opts: &ScanOptions) -> Build {
        Build {
            agg: Aggregator::new(opts.aggregate.clone(), opts.judge),
            rows: Vec::new(),
            parts: None,
            filters: opts.aggregate.filters.clone(),
            threshold: opts.judge.streak_threshold.max(2),
            source: String::new(),
            format: String::new(),
            schemas: std::sync::Arc::default(),
            options: opts.aggregate.clone(),
            judge: opts.judge,
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

impl Visitor for Build {
    /// A `Build` sees the sessions of one source only; the index walk
    /// keeps the run's notes itself (`Entry::notes`) and hands them to the
    /// command's visitor, so none ever comes here.
    fn note(&mut self, _note: String) {}

    fn source(&mut self, start: SourceStart<'_>) {
        self.source = start.path.to_string();
        self.format = start.format.to_string();
        self.schemas = start.schemas.clone();
        crate::spine::begin_source(&mut self.agg, start);
    }

    fn session(&mut self, s: crate::judge::JudgedSession) -> bool {
        let row = crate::aggregate::sessions::row(&s, &self.source, &self.filters, self.threshold);
        if let Some(parts) = &mut self.parts {
            let mut one = Aggregator::new(self.options.clone(), self.judge);
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
