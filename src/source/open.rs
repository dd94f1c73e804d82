//! Opening a trace database without ever writing to it or beside it.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Open `path` read-only. The file must exist and start with the SQLite
/// header (SQLite itself would treat an empty file as an empty database).
///
/// A WAL database whose `-wal` file is absent has every committed page in
/// the main file; opening it normally would make SQLite create `-wal` and
/// `-shm` files beside it, so it is opened `immutable` instead. With a
/// `-wal` file present (the owner is running, or crashed), it is opened in
/// ordinary read-only mode, which reads the WAL and takes no write lock.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    let meta = std::fs::metadata(path).map_err(|e| Error::input(path, io_problem(&e)))?;
    if meta.is_dir() {
        return Err(Error::input(path, "is a directory, not a trace database"));
    }
    let mut header = [0u8; 100];
    let n = File::open(path)
        .and_then(|mut f| read_up_to(&mut f, &mut header))
        .map_err(|e| Error::input(path, io_problem(&e)))?;
    if n == 0 {
        return Err(Error::input(path, "empty file, not a SQLite database"));
    }
    if n < 100 || &header[..16] != SQLITE_MAGIC {
        return Err(Error::input(path, "not a SQLite database (bad header)"));
    }
    let wal_mode = header[18] == 2 || header[19] == 2;
    let wal_present = sidecar(path, "-wal").exists();
    let immutable = wal_mode && !wal_present;
    let uri = file_uri(path, immutable);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&uri, flags).map_err(|e| Error::input(path, sqlite_problem(&e)))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| Error::input(path, sqlite_problem(&e)))?;
    // Force SQLite to read the schema now, so a damaged file fails here.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
        .map_err(|e| Error::input(path, sqlite_problem(&e)))?;
    Ok(conn)
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

/// A `file:` URI for `path`, with the characters URIs reserve escaped.
fn file_uri(path: &Path, immutable: bool) -> String {
    let raw = path.to_string_lossy();
    let mut uri = String::with_capacity(raw.len() + 32);
    uri.push_str("file:");
    for c in raw.chars() {
        match c {
            '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
            _ => uri.push(c),
        }
    }
    uri.push_str(if immutable { "?mode=ro&immutable=1" } else { "?mode=ro" });
    uri
}

fn io_problem(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => format!("cannot read: {e}"),
    }
}

/// A one-line description of a SQLite error.
pub fn sqlite_problem(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    if let rusqlite::Error::SqliteFailure(f, _) = e {
        match f.code {
            ErrorCode::NotADatabase => return "not a SQLite database (or encrypted)".into(),
            ErrorCode::DatabaseCorrupt => return "database is corrupt (malformed disk image)".into(),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return "database is locked by another process (gave up after 5 s)".into();
            }
            ErrorCode::CannotOpen => return "cannot open the database".into(),
            _ => {}
        }
    }
    crate::sanitize::one_line(&e.to_string())
}
