//! The one guard for every file tracelint writes (`--summary`,
//! `--write-baseline`, `import --into`, `export --out`): never onto an
//! input, never over a file that is not what tracelint would write there.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What tracelint is about to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Markdown appended to a text file (GitHub's step summary).
    Summary,
    /// A baseline JSON file, replaced.
    Baseline,
    /// An export file, replaced.
    Export,
    /// A folder of export partitions (created, or added to).
    ExportDir,
}

impl Written {
    fn what(self) -> &'static str {
        match self {
            Written::Summary => "summary",
            Written::Baseline => "baseline",
            Written::Export | Written::ExportDir => "export",
        }
    }
}

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// Refuse to write `path` when it is one of `inputs`, or when it exists and
/// is not a file of the kind being written.
pub fn guard(path: &Path, inputs: &[PathBuf], kind: Written) -> Result<()> {
    let canonical = std::fs::canonicalize(path).ok();
    if canonical.is_some() && inputs.iter().any(|p| std::fs::canonicalize(p).ok() == canonical) {
        return Err(Error::input(
            path,
            format!("is a trace given as input; tracelint will not write its {} there", kind.what()),
        ));
    }
    if kind == Written::ExportDir {
        if path.exists() && !path.is_dir() {
            return Err(Error::input(path, "is a file, not a folder for the export's partitions"));
        }
        return Ok(());
    }
    if path.is_dir() {
        return Err(Error::input(path, format!("is a directory, not the {} file to write", kind.what())));
    }
    let Ok(mut f) = std::fs::File::open(path) else { return Ok(()) };
    let mut head = Vec::with_capacity(4096);
    let _ = f.by_ref().take(4096).read_to_end(&mut head);
    if head.starts_with(SQLITE_MAGIC) {
        return Err(Error::input(
            path,
            format!("is a SQLite database; tracelint will not write its {} over it", kind.what()),
        ));
    }
    let text = !head.contains(&0) && std::str::from_utf8(&head).is_ok_or_cut(head.len());
    match kind {
        Written::Summary if !text => {
            Err(Error::input(path, "exists and is not a text file; tracelint appends its summary only to text"))
        }
        Written::Baseline if !head.is_empty() && !head.trim_ascii_start().starts_with(b"{") => {
            Err(Error::input(path, "exists and is not a tracelint baseline; remove it or choose another path"))
        }
        _ => Ok(()),
    }
}

trait Utf8Prefix {
    /// Valid UTF-8, allowing a character cut at the end of a `len`-byte read.
    fn is_ok_or_cut(&self, len: usize) -> bool;
}

impl Utf8Prefix for std::result::Result<&str, std::str::Utf8Error> {
    fn is_ok_or_cut(&self, len: usize) -> bool {
        match self {
            Ok(_) => true,
            Err(e) => e.error_len().is_none() && e.valid_up_to() + 4 > len,
        }
    }
}
