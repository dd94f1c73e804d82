//! Opening a trace database without ever writing to it or beside it.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest string or blob read from a trace database: 32 times the
/// text of a million-token context. SQLite refuses a larger value before
/// it allocates it (sorting a 200 MB row took SQLite over 1 GB).
pub(crate) const MAX_VALUE_BYTES: i32 = 128 << 20;

/// The SQLite work (virtual machine steps) a scan of one database may do:
/// this many, plus `STEPS_PER_BYTE` for each byte of the database and its
/// WAL. Scans need a hundredth to a twentieth of a step per byte (a Peri
/// and a Goose database of 19 and 64 MB); a query that never ends (a
/// cycle a recursive query follows) is stopped after a few seconds,
/// before it fills a disk with temporary files.
pub(crate) const BASE_STEPS: u64 = 50_000_000;
pub(crate) const STEPS_PER_BYTE: u64 = 100;
/// Steps between two looks at the budget: a look costs nothing measurable.
const STEPS_PER_LOOK: i32 = 100_000;

/// How a database is opened. None of them writes anything, anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `mode=ro`: a rollback-journal database.
    ReadOnly,
    /// `mode=ro&readonly_shm=1`: a WAL database with its `-wal` file
    /// present. The WAL is read, but the `-shm` file is opened read-only and
    /// never written (SQLite reads the WAL index into private memory).
    ReadOnlyShm,
    /// `immutable=1`: SQLite assumes nothing else changes the file; it takes
    /// no locks, reads no WAL and creates no files.
    Immutable,
}

/// An open database and what the caller should tell the user about it.
pub(crate) struct Opened {
    pub conn: Connection,
    pub warnings: Vec<String>,
}

/// Open `path` read-only. The file must exist and start with the SQLite
/// header (SQLite itself would treat an empty file as an empty database).
///
/// A WAL database whose `-wal` file is absent has every committed page in
/// the main file; opening it normally would make SQLite create `-wal` and
/// `-shm` files beside it, so it is opened `immutable`. With a `-wal` file
/// present (the owner is running, or crashed) it is read with
/// `readonly_shm`, so even the shared-memory file stays byte-identical.
/// When that is impossible (a read-only directory without a `-shm` file, a
/// hot journal that would need a rollback), the database is opened
/// `immutable` with a warning: changes not yet checkpointed are not seen.
pub(crate) fn open_read_only(path: &Path) -> Result<Opened> {
    let meta = std::fs::metadata(path).map_err(|e| Error::input(path, io_problem(&e)))?;
    if meta.is_dir() {
        return Err(Error::input(path, "is a directory, not a trace database"));
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(not_regular(path, kind));
    }
    let mut header = [0u8; 100];
    let n = open_regular(path)
        .and_then(|mut f| read_up_to(&mut f, &mut header))
        .map_err(|e| Error::input(path, io_problem(&e)))?;
    if n == 0 {
        return Err(Error::input(path, "empty file, not a SQLite database"));
    }
    if n < 100 || &header[..16] != SQLITE_MAGIC {
        return Err(Error::input(path, "not a SQLite database (bad header)"));
    }
    let wal_mode = header[18] == 2 || header[19] == 2;
    let wal = std::fs::metadata(sidecar(path, "-wal")).ok();
    let mode = match (wal_mode, wal.is_some()) {
        (true, false) => Mode::Immutable,
        (true, true) => Mode::ReadOnlyShm,
        (false, _) => Mode::ReadOnly,
    };
    let bytes = meta.len().saturating_add(wal.map_or(0, |w| w.len()));
    let budget = BASE_STEPS.saturating_add(bytes.saturating_mul(STEPS_PER_BYTE));
    match try_open(path, mode, budget) {
        Ok(conn) => Ok(Opened { conn, warnings: Vec::new() }),
        Err(e) if mode != Mode::Immutable && needs_fallback(&e) => {
            let conn = try_open(path, Mode::Immutable, budget).map_err(|e| Error::input(path, sqlite_problem(&e)))?;
            let what = if mode == Mode::ReadOnlyShm { "the -wal file" } else { "a hot journal" };
            Ok(Opened {
                conn,
                warnings: vec![format!(
                    "{}: opened immutable ({}); changes still only in {what} may be missed",
                    crate::sanitize::one_line(&path.display().to_string()),
                    sqlite_problem(&e)
                )],
            })
        }
        Err(e) => Err(Error::input(path, sqlite_problem(&e))),
    }
}

fn try_open(path: &Path, mode: Mode, budget: u64) -> rusqlite::Result<Connection> {
    let params = match mode {
        Mode::ReadOnly => "?mode=ro",
        Mode::ReadOnlyShm => "?mode=ro&readonly_shm=1",
        Mode::Immutable => "?mode=ro&immutable=1",
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(file_uri(path, params), flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
    let mut left = budget;
    let step = STEPS_PER_LOOK as u64;
    // Returning true interrupts the statement (SQLITE_INTERRUPT), for good:
    // the budget is the connection's, over every statement.
    conn.progress_handler(
        STEPS_PER_LOOK,
        Some(move || {
            left = left.saturating_sub(step);
            left == 0
        }),
    )?;
    // Force SQLite to read the schema now, so a damaged or unopenable file fails here.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))?;
    Ok(conn)
}

/// Errors that mean "cannot read this way without writing", not "broken".
fn needs_fallback(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::SystemIoFailure))
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut total = 0;
    while total < buf.len() {
        match f.read(&mut buf[total..])? {
            0 => break,
            n => total += n,
        }
    }
    Ok(total)
}

fn sidecar(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

/// A `file:` URI for `path`: every byte outside plain ASCII, and the
/// characters URIs reserve, percent-escaped, so a path that is not UTF-8
/// reaches SQLite byte for byte.
fn file_uri(path: &Path, params: &str) -> String {
    let raw = path_bytes(path);
    let mut uri = String::with_capacity(raw.len() + 32);
    uri.push_str("file:");
    for &b in raw.iter() {
        match b {
            b'%' | b'?' | b'#' => uri.push_str(&format!("%{b:02X}")),
            0x21..=0x7e => uri.push(char::from(b)),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str(params);
    uri
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

/// A one-line description of an error reading a file.
pub(crate) fn io_problem(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        // `open_regular`'s refusal says what the file is.
        std::io::ErrorKind::InvalidInput => e.to_string(),
        _ => format!("cannot read: {e}"),
    }
}

/// What a path that is neither a regular file nor a folder is (`a FIFO`,
/// `a character device`, …), or `None` for a file or a folder. Such a path
/// is refused before it is opened: a FIFO would block the open, and a
/// device such as `/dev/zero` never ends.
pub(crate) fn special_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("neither a file nor a folder")
}

/// The one-line refusal of a path that is `kind` (see `special_kind`).
pub(crate) fn not_regular(path: &Path, kind: &str) -> Error {
    Error::input(path, format!("not a regular file ({kind})"))
}

/// Open `path` for reading without ever blocking: a FIFO put in its place
/// after it was looked at opens at once (non-blocking) and is refused, as is
/// anything else that is not a regular file. The error of a refusal is
/// `InvalidInput`, its text `not a regular file (a FIFO)`.
pub(crate) fn open_regular(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Reads from a regular file ignore O_NONBLOCK.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory"));
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file ({kind})")));
    }
    Ok(file)
}

/// A one-line description of a SQLite error.
pub(crate) fn sqlite_problem(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    if let rusqlite::Error::SqliteFailure(f, _) = e {
        match f.code {
            ErrorCode::NotADatabase => return "not a SQLite database (or encrypted)".into(),
            ErrorCode::DatabaseCorrupt => return "database is corrupt (malformed disk image)".into(),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return "database is locked by another process (gave up after 5 s)".into();
            }
            ErrorCode::CannotOpen => return "cannot open the database".into(),
            ErrorCode::OperationInterrupted => {
                return format!(
                    "reading it took more than {BASE_STEPS} steps of SQLite work plus {STEPS_PER_BYTE} a byte, \
                     far more than a database of its size needs (a query that never ends?); stopped"
                );
            }
            ErrorCode::TooBig => {
                return format!(
                    "holds a value larger than {} MiB, more than any trace writes; not read",
                    MAX_VALUE_BYTES >> 20
                );
            }
            _ => {}
        }
    }
    crate::sanitize::one_line(&e.to_string())
}
