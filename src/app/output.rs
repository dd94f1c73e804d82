//! The one guard for every file falseok writes (`--summary`,
//! `--write-baseline`, `export --out` and its partitions, `import --into`,
//! `metrics --out`, the index's folder), and the way each is written.
//!
//! The guard decides by file identity (device and inode), not by how a path
//! is spelled, and before anything is created or read. Never written: an
//! input of the run (a PATH, `--tool-schemas`, `--baseline`) or any default
//! trace location on this machine; a file inside a folder of those; a hard
//! or symbolic link to one of them; the `-wal`, `-journal` or `-shm` file of
//! a SQLite database. Not replaced without `--force`: an existing file that
//! falseok did not write (an export, a baseline). A summary is only ever
//! appended to a text file.
//!
//! A file that is replaced is written beside its final name, private
//! (`0600`), and renamed into place once whole (`Pending`): an interrupted
//! or failed run leaves the old file, or none, never half of one.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::sanitize::one_line;
use crate::scratch;

/// What falseok is about to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// Markdown appended to a text file (GitHub's step summary).
    Summary,
    /// A baseline JSON file, replaced.
    Baseline,
    /// An export file, replaced.
    Export,
    /// A folder of export partitions (created, or added to); each partition
    /// file is guarded as an `Export` when it is first written.
    ExportDir,
    /// `import --into`: a falseok database, created or added to.
    Database,
    /// `metrics --out`: Prometheus text, replaced.
    Metrics,
    /// The index's folder (src/index/), created or added to.
    Index,
}

impl Written {
    fn what(self) -> &'static str {
        match self {
            Written::Summary => "summary",
            Written::Baseline => "baseline",
            Written::Export | Written::ExportDir => "export",
            Written::Database => "import",
            Written::Metrics => "metrics",
            Written::Index => "index",
        }
    }
}

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// What a file is, whatever the path that names it: (device, inode).
#[cfg(unix)]
type Id = (u64, u64);
/// Without inodes, the canonical path.
#[cfg(not(unix))]
type Id = PathBuf;

/// The identity of the file `path` names, links followed.
#[cfg(unix)]
fn identity(path: &Path) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<Id> {
    std::fs::canonicalize(path).ok()
}

/// More than one name for the file (hard links).
fn links(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// Something the run reads, or a default trace location.
struct Input {
    path: PathBuf,
    id: Id,
    dir: bool,
    what: &'static str,
}

/// Everything an output must keep away from.
pub(crate) struct Inputs {
    items: Vec<Input>,
}

impl Inputs {
    /// The run's traces and other files it reads (`--tool-schemas`,
    /// `--baseline`, the configuration file), which need not exist, and every default trace
    /// location of every format that exists on this machine, read or not.
    pub(crate) fn new<'a>(traces: &[PathBuf], files: impl IntoIterator<Item = &'a PathBuf>) -> Inputs {
        let mut items = Vec::new();
        let mut add = |path: &Path, what: &'static str| {
            if let Some(id) = identity(path)
                && !items.iter().any(|i: &Input| i.id == id)
            {
                items.push(Input { dir: path.is_dir(), path: path.to_path_buf(), id, what });
            }
        };
        for p in traces {
            add(p, "a trace given as input");
        }
        for p in files {
            add(p, "a file given as input");
        }
        if let Some(p) = &crate::config::active().path {
            add(p, "the configuration file");
        }
        for info in crate::source::formats().chain(crate::import::infos()) {
            for loc in info.locations {
                if let Some(p) = loc.resolve() {
                    add(&p, "a default trace location");
                }
            }
        }
        Inputs { items }
    }

    /// The input `path` is, if any.
    fn find(&self, path: &Path) -> Option<&Input> {
        let id = identity(path)?;
        self.items.iter().find(|i| i.id == id)
    }

    /// The identities of every file under the input folders.
    fn files_in_folders(&self) -> Vec<(Id, PathBuf)> {
        fn walk(dir: &Path, out: &mut Vec<(Id, PathBuf)>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let path = e.path();
                let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
                if meta.is_dir() {
                    walk(&path, out);
                } else if let Some(id) = identity(&path).filter(|_| meta.is_file()) {
                    out.push((id, path));
                }
            }
        }
        let mut out = Vec::new();
        for i in self.items.iter().filter(|i| i.dir) {
            walk(&i.path, &mut out);
        }
        out
    }
}

fn shown(path: &Path) -> String {
    one_line(&path.display().to_string())
}

/// Refuse to write `path` as `kind` when the module's rules forbid it, and
/// say where to write instead of `path`: the file a symbolic link points
/// to. `force` lets an export or a baseline replace a file falseok did
/// not write; nothing lets it write onto or beside an input.
pub(crate) fn guard(path: &Path, inputs: &Inputs, kind: Written, force: bool) -> Result<PathBuf> {
    let what = kind.what();
    let refuse = |why: String| Err(Error::input(path, format!("{why}; falseok will not write its {what} there")));
    let symlink = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = match symlink {
        true => match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => return refuse("is a symbolic link to nothing".into()),
        },
        false => path.to_path_buf(),
    };
    let meta = std::fs::metadata(&target).ok();
    if let Some(meta) = &meta
        && let Some(i) = inputs.find(&target)
    {
        if i.path == path {
            return refuse(format!("is {}", i.what));
        }
        let how = match () {
            _ if symlink => "is a symbolic link to",
            _ if links(meta) > 1 => "is a hard link to",
            _ => "is the same file as",
        };
        return refuse(format!("{how} {}, {}", shown(&i.path), i.what));
    }
    // The folders it would be in, by identity: the nearest that exists, and
    // every folder above it.
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = parent
        .ancestors()
        .find_map(|a| std::fs::canonicalize(if a.as_os_str().is_empty() { Path::new(".") } else { a }).ok());
    for folder in existing.iter().flat_map(|e| e.ancestors()) {
        if let Some(i) = inputs.find(folder).filter(|i| i.dir) {
            return refuse(format!("is inside {}, {}", shown(&i.path), i.what));
        }
    }
    if meta.as_ref().is_some_and(|m| m.is_file() && links(m) > 1)
        && let Some(id) = identity(&target)
        && let Some((_, linked)) = inputs.files_in_folders().into_iter().find(|(i, _)| *i == id)
    {
        return refuse(format!("is a hard link to {}, in a folder falseok reads", shown(&linked)));
    }
    if let Some(name) = target.file_name().and_then(|n| n.to_str()) {
        for suffix in ["-wal", "-journal", "-shm"] {
            if let Some(base) = name.strip_suffix(suffix).filter(|b| !b.is_empty()) {
                let db = parent.join(base);
                let an_input = inputs.find(&db).is_some();
                if an_input || head(&db, 16).is_some_and(|h| h.starts_with(SQLITE_MAGIC)) {
                    return refuse(format!("is the {suffix} file SQLite keeps beside the database {}", shown(&db)));
                }
            }
        }
    }
    let Some(meta) = meta else { return Ok(target) };
    if matches!(kind, Written::ExportDir | Written::Index) {
        if !meta.is_dir() {
            let of = if kind == Written::Index { "the index" } else { "the export's partitions" };
            return Err(Error::input(path, format!("is a file, not a folder for {of}")));
        }
        return Ok(target);
    }
    if meta.is_dir() {
        return Err(Error::input(path, format!("is a directory, not the {what} file to write")));
    }
    if let Some(kind) = crate::source::open::special_kind(&meta) {
        return Err(Error::input(
            path,
            format!("is not a regular file ({kind}); falseok writes its {what} only to one"),
        ));
    }
    let head = head(&target, 64 * 1024).unwrap_or_default();
    let sqlite = head.starts_with(SQLITE_MAGIC);
    let not_ours = |ours: &str| {
        Err(Error::input(
            path,
            format!(
                "exists and is not {ours}; falseok will not replace it (remove it, choose another path, or pass --force)"
            ),
        ))
    };
    match kind {
        Written::Summary if sqlite => {
            Err(Error::input(path, "is a SQLite database; falseok appends its summary only to text"))
        }
        Written::Summary if !is_text(&head) => {
            Err(Error::input(path, "exists and is not a text file; falseok appends its summary only to text"))
        }
        Written::Database if !head.is_empty() && !sqlite => {
            Err(Error::input(path, "exists and is not a falseok database; import writes only into its own schema"))
        }
        Written::Baseline if !force && !head.is_empty() && !is_baseline(&target) => not_ours("a falseok baseline"),
        Written::Export if !force && !head.is_empty() && !is_export(&target, &head) => not_ours("a falseok export"),
        Written::Metrics if !force && !head.is_empty() && !head.starts_with(b"# HELP falseok_") => {
            not_ours("falseok metrics")
        }
        _ => Ok(target),
    }
}

/// The first `n` bytes of `path`, if it is a regular file that can be read.
fn head(path: &Path, n: u64) -> Option<Vec<u8>> {
    let f = crate::source::open::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    f.take(n).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// No NUL, and valid UTF-8 but for a character cut at the end of the read.
fn is_text(head: &[u8]) -> bool {
    !head.contains(&0)
        && match std::str::from_utf8(head) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none() && e.valid_up_to() + 4 > head.len(),
        }
}

/// A JSON object with the `falseok_baseline` key (of any version).
fn is_baseline(path: &Path) -> bool {
    let Some(bytes) = head(path, 256 << 20) else { return false };
    serde_json::from_slice::<serde_json::Value>(&bytes).is_ok_and(|v| v.get("falseok_baseline").is_some())
}

/// An NDJSON export (its first line a row of the export contract) or a
/// Parquet export (falseok's key in the footer's metadata).
fn is_export(path: &Path, head: &[u8]) -> bool {
    if head.starts_with(b"PAR1") {
        let Ok(mut f) = File::open(path) else { return false };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let from = len.saturating_sub(64 * 1024);
        let mut tail = Vec::new();
        use std::io::Seek;
        let read = f.seek(std::io::SeekFrom::Start(from)).and_then(|_| f.read_to_end(&mut tail));
        return read.is_ok()
            && tail.ends_with(b"PAR1")
            && memchr::memmem::find(&tail, b"falseok.export_version").is_some();
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(first).is_ok_and(|row| {
        ["source", "format", "agent", "session", "seq", "tool", "call_id", "paired"]
            .iter()
            .all(|k| row.contains_key(*k))
    })
}

/// An output being written under a private name (`0600`) in the folder of
/// its target, renamed into place by `commit`. Dropped before that, it is
/// removed; a signal removes it too (`scratch`).
pub(crate) struct Pending {
    temp: PathBuf,
    target: PathBuf,
    /// The path the user gave, for messages.
    shown: PathBuf,
    committed: bool,
}

impl Pending {
    /// A private file in `folder` that `commit` renames to `target`.
    pub(crate) fn new(folder: &Path, target: &Path, shown: &Path) -> Result<(Pending, File)> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let temp = folder.join(format!(".{name}.falseok-{}-{n}.tmp", std::process::id()));
        let cannot = |e: std::io::Error| Error::input(shown, format!("cannot write: {}", write_problem(&e)));
        scratch::register(&temp).map_err(cannot)?;
        // SQLite's journal, when the pending file is a database.
        scratch::register(&journal(&temp)).map_err(cannot)?;
        let pending = Pending { temp, target: target.to_path_buf(), shown: shown.to_path_buf(), committed: false };
        let file = scratch::private_file(&pending.temp).map_err(cannot)?;
        Ok((pending, file))
    }

    /// `Pending::new` in the folder of `target`.
    pub(crate) fn beside(target: &Path, shown: &Path) -> Result<(Pending, File)> {
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Pending::new(folder, target, shown)
    }

    /// Where the output is being written.
    pub(crate) fn path(&self) -> &Path {
        &self.temp
    }

    /// Put the whole file in place: the mode of the file it replaces, or
    /// what the umask gives a new file. Its folder is made if needed.
    pub(crate) fn commit(mut self) -> Result<()> {
        let cannot = |e: std::io::Error| Error::input(&self.shown, format!("cannot write: {}", write_problem(&e)));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode =
                std::fs::metadata(&self.target).map_or_else(|_| 0o666 & !umask(), |m| m.permissions().mode() & 0o7777);
            std::fs::set_permissions(&self.temp, std::fs::Permissions::from_mode(mode)).map_err(cannot)?;
        }
        if let Some(folder) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(cannot)?;
        }
        std::fs::rename(&self.temp, &self.target).map_err(cannot)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
        let _ = std::fs::remove_file(journal(&self.temp));
        scratch::forget(&self.temp);
        scratch::forget(&journal(&self.temp));
    }
}

fn journal(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push("-journal");
    s.into()
}

#[cfg(unix)]
/// The process's umask (Linux says it in /proc); 077, the strictest, when
/// it cannot be read.
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("Umask:")).and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        })
        .unwrap_or(0o077)
}

/// What went wrong writing a file, in words: a full disk and `ulimit -f`
/// are named as such.
pub(crate) fn write_problem(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::StorageFull => "no space left on the device".into(),
        std::io::ErrorKind::FileTooLarge => "file too large (over the file size limit, ulimit -f)".into(),
        std::io::ErrorKind::QuotaExceeded => "disk quota exceeded".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_allows_a_character_cut_at_the_end_only() {
        assert!(is_text("plain ✓".as_bytes()));
        assert!(is_text(&"✓".as_bytes()[..2]));
        assert!(!is_text(b"a\0b"));
        assert!(!is_text(b"\xff\xfe text"));
    }

    #[test]
    fn exports_and_baselines_are_recognised_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        let row = r#"{"source":"a.db","format":"crush","agent":"crush","session":"s","parent_session":null,"seq":1,"tool":"bash","call_id":"c","paired":true}"#;
        std::fs::write(&p, format!("{row}\n{row}\n")).unwrap();
        assert!(is_export(&p, &head(&p, 4096).unwrap()));
        std::fs::write(&p, "{\"source\":\"a\"}\n").unwrap();
        assert!(!is_export(&p, &head(&p, 4096).unwrap()));
        std::fs::write(&p, "{\"falseok_baseline\":1,\"entries\":[]}").unwrap();
        assert!(is_baseline(&p));
        std::fs::write(&p, "{\"entries\":[]}").unwrap();
        assert!(!is_baseline(&p));
    }
}
