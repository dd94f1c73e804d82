//! The text file of a scan's store: texts and inputs longer than
//! `memory::INLINE` bytes, appended on a thread of their own and read back
//! once, when their session is judged. Both backends refer to them: the
//! in-memory rows by `StoredText::InFile`, the spilled database by a
//! 12-byte reference where the text would be (`file_ref`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::ToSql;
use rusqlite::types::{ToSqlOutput, ValueRef};

use crate::source::rows::text_of;

/// A text, held or in the text file.
#[derive(Debug, Clone)]
pub(crate) enum StoredText {
    Held(Box<str>),
    /// `len` bytes at `at` of the text file.
    InFile {
        at: u64,
        len: u32,
    },
}

/// The reference to `len` bytes at `at` of the text file, as the scratch
/// database stores it in place of the text: a blob, `at` then `len`, little
/// endian. The writer binds every text as TEXT, so a blob is one of these.
pub(crate) fn file_ref(at: u64, len: u32) -> [u8; 12] {
    let mut r = [0u8; 12];
    r[..8].copy_from_slice(&at.to_le_bytes());
    r[8..].copy_from_slice(&len.to_le_bytes());
    r
}

impl ToSql for StoredText {
    /// A held text as TEXT, one in the text file as its reference.
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            StoredText::Held(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            StoredText::InFile { at, len } => {
                ToSqlOutput::Owned(rusqlite::types::Value::Blob(file_ref(*at, *len).to_vec()))
            }
        })
    }
}

/// The file long texts are appended to.
#[derive(Debug)]
pub(crate) struct TextFile {
    path: PathBuf,
    out: Option<Behind>,
    reader: Option<File>,
    len: u64,
}

/// Bytes of texts gathered before they are handed to the writing thread.
const BEHIND_BLOCK: usize = 1 << 20;

/// A file written on a thread of its own: the importer's thread copies a
/// text into a block and goes on, and the copy into the kernel (a tenth of
/// a transcript scan's time on one thread) is made beside it. At most two
/// blocks wait, so memory stays bounded.
#[derive(Debug)]
struct Behind {
    block: Vec<u8>,
    blocks: Option<crossbeam_channel::Sender<Vec<u8>>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Behind {
    fn new(file: File) -> std::io::Result<Behind> {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(2);
        let thread = std::thread::Builder::new().name("falseok-texts".into()).spawn(move || {
            let mut file = file;
            for block in rx {
                file.write_all(&block)?;
            }
            Ok(())
        })?;
        Ok(Behind { block: Vec::with_capacity(BEHIND_BLOCK), blocks: Some(tx), thread: Some(thread) })
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.block.extend_from_slice(bytes);
        if self.block.len() >= BEHIND_BLOCK {
            let block = std::mem::replace(&mut self.block, Vec::with_capacity(BEHIND_BLOCK));
            let sent = self.blocks.as_ref().is_some_and(|tx| tx.send(block).is_ok());
            if !sent {
                // The thread stopped: its error says why. A text is never
                // dropped without one.
                let stopped = self.finish().err();
                return Err(stopped.unwrap_or_else(|| std::io::Error::other("the thread writing texts stopped")));
            }
        }
        Ok(())
    }

    /// Write what is left and wait for the thread: everything written is
    /// in the file, or the first error that stopped it.
    fn finish(&mut self) -> std::io::Result<()> {
        let block = std::mem::take(&mut self.block);
        if let Some(tx) = self.blocks.take()
            && !block.is_empty()
        {
            let _ = tx.send(block);
        }
        match self.thread.take().map(std::thread::JoinHandle::join) {
            None => Ok(()),
            Some(Ok(done)) => done,
            Some(Err(_)) => Err(std::io::Error::other("the thread writing texts stopped")),
        }
    }
}

impl Drop for Behind {
    /// Nothing is written after the store is gone (and its file removed).
    fn drop(&mut self) {
        self.block.clear();
        let _ = self.finish();
    }
}

/// The failure of the text file as SQLite would report the scratch
/// database's (a full disk, an I/O error), so the import names it alike.
fn io_failure(e: &std::io::Error) -> rusqlite::Error {
    let code = if e.raw_os_error() == Some(28) || e.kind() == std::io::ErrorKind::StorageFull {
        rusqlite::ffi::SQLITE_FULL
    } else {
        rusqlite::ffi::SQLITE_IOERR
    };
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(format!("the scratch text file: {e}")))
}

impl TextFile {
    /// The text file at `path`, which exists (a private file of the
    /// scratch folder) and is written when the first text comes.
    pub(super) fn new(path: &Path) -> TextFile {
        TextFile { path: path.to_path_buf(), out: None, reader: None, len: 0 }
    }

    /// Where `text` will be if it is the next one `put`.
    pub(crate) fn next(&self, text: &str) -> rusqlite::Result<StoredText> {
        let Ok(len) = u32::try_from(text.len()) else {
            return Err(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_TOOBIG), None));
        };
        Ok(StoredText::InFile { at: self.len, len })
    }

    /// Append `text`: where it is.
    pub(crate) fn put(&mut self, text: &str) -> rusqlite::Result<StoredText> {
        let StoredText::InFile { len, .. } = self.next(text)? else { unreachable!("`next` files") };
        if self.out.is_none() {
            // Made private beforehand by the caller (`MemStore::new`); the
            // texts of an earlier `flush` are kept.
            let fresh = self.len == 0;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(fresh)
                .append(!fresh)
                .open(&self.path)
                .map_err(|e| io_failure(&e))?;
            self.out = Some(Behind::new(file).map_err(|e| io_failure(&e))?);
        }
        let Some(out) = self.out.as_mut() else { unreachable!("opened above") };
        out.write(text.as_bytes()).map_err(|e| io_failure(&e))?;
        let at = self.len;
        self.len += u64::from(len);
        self.reader = None;
        Ok(StoredText::InFile { at, len })
    }

    /// Everything written is readable from here on.
    pub(crate) fn flush(&mut self) -> rusqlite::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.finish().map_err(|e| io_failure(&e))?;
        }
        if self.reader.is_none() && self.len > 0 {
            self.reader = Some(File::open(&self.path).map_err(|e| io_failure(&e))?);
        }
        Ok(())
    }

    pub(super) fn get(&self, at: u64, len: u32) -> rusqlite::Result<String> {
        let Some(file) = &self.reader else {
            return Err(io_failure(&std::io::Error::other("read before it was written")));
        };
        let mut buf = vec![0u8; len as usize];
        read_exact_at(file, &mut buf, at).map_err(|e| io_failure(&e))?;
        // Written from a `str`, read back whole: valid UTF-8 unless the
        // file changed under us, which the lossy read shows.
        Ok(match String::from_utf8(buf) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// A text column of the scratch database as `text_of` reads it, its
    /// reference to this file read from the file (after `flush`).
    pub(crate) fn text_of(&self, v: ValueRef<'_>) -> rusqlite::Result<String> {
        match v {
            ValueRef::Blob(r) if r.len() == 12 => {
                let (at, len) = r.split_at(8);
                let at = u64::from_le_bytes(at.try_into().unwrap_or_default());
                self.get(at, u32::from_le_bytes(len.try_into().unwrap_or_default()))
            }
            v => Ok(text_of(v)),
        }
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}
