//! Transcripts are normalised into a keyed session store that spills to
//! SQLite.
//!
//! A transcript session is not whole until other files are read (sub-agent
//! files, results written in a later file, replayed lines, branches), so
//! every importer writes through one `Writer` into a store keyed by
//! (session, call id): rows in memory while they fit (`memory.rs`), then
//! spilled into the scratch database, long texts in a file beside it (`texts.rs`).
//! `owners.rs` holds which sessions hold each call id, and `record.rs` what
//! each file gave, so a folder can be imported again in part.

pub(in crate::import) mod memory;
mod owners;
pub(crate) mod record;
mod spilled;
mod texts;
mod writer;

use std::path::Path;

use rusqlite::Connection;

use crate::error::{Error, Result};
use crate::model::Session;
use crate::source::{ReadContext, ReadError, SourceOptions, SourceStats};
use memory::{MemStore, read_in_memory};
use spilled::read_spilled;
use texts::TextFile;
pub(crate) use writer::*;

/// A scan's store as an import makes it: rows in memory while they are
/// within `budget` bytes, long texts in the file `texts`; with
/// `whole_session`, the largest session's rows beyond the budget
/// (`Writer::mem_whole_session`). Past it, the rows spill into the scratch
/// database.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreOptions<'a> {
    pub texts: &'a Path,
    pub budget: usize,
    pub whole_session: bool,
}

impl StoreOptions<'_> {
    /// A scan's store, its long texts in the file `texts` (which exists, a
    /// private file of the scratch folder).
    pub(crate) fn scan(texts: &Path) -> StoreOptions<'_> {
        StoreOptions { texts, budget: memory::BUDGET, whole_session: true }
    }
}

/// A scan's store once its import is over: every row in memory (it stayed
/// within the budget; the scratch database holds nothing), or spilled into
/// the scratch database, whose long texts are in the text file.
#[derive(Debug)]
pub(crate) enum Store {
    InMemory(Box<MemStore>),
    Spilled(TextFile),
}

impl Store {
    /// Every text written is readable from here on.
    pub(crate) fn seal(&mut self) -> rusqlite::Result<()> {
        match self {
            Store::InMemory(m) => m.seal(),
            Store::Spilled(t) => t.flush(),
        }
    }

    /// The rows, if they are in memory.
    pub(crate) fn in_memory(&self) -> Option<&MemStore> {
        match self {
            Store::InMemory(m) => Some(m),
            Store::Spilled(_) => None,
        }
    }

    /// Read the transcripts of `path` imported by a scan: from the rows in
    /// memory, or from the scratch database `conn` they spilled into and
    /// the text file beside it, as the falseok adapter reads a database
    /// that holds them all.
    pub(crate) fn read(
        &self,
        path: &Path,
        conn: &Connection,
        opts: &SourceOptions,
        progress: &mut dyn FnMut(u64, u64),
        sink: &mut dyn FnMut(Session),
    ) -> Result<SourceStats> {
        let mut cx = ReadContext::new(opts, progress, sink);
        match self {
            Store::InMemory(rows) => read_in_memory(rows, &mut cx),
            Store::Spilled(texts) => read_spilled(conn, texts, &mut cx),
        }
        .map_err(|e| match e {
            ReadError::Sql(e) => Error::input(path, crate::source::open::sqlite_problem(&e)),
            ReadError::Unsupported(problem) => Error::input(path, problem),
        })?;
        Ok(cx.stats())
    }
}
