//! Transcripts are normalised into a keyed session store that spills to
//! SQLite.
//!
//! A transcript session is not whole until other files are read (sub-agent
//! files, results written in a later file, replayed lines, branches), so
//! every importer writes through one `Writer` into a store keyed by
//! (session, call id): rows in memory while they fit (`memory.rs`), then
//! spilled into the scratch database, long texts kept in a file beside it.
//! `owners.rs` holds which sessions hold each call id, and `record.rs` what
//! each file gave, so a folder can be imported again in part.

pub(in crate::import) mod memory;
mod owners;
pub(crate) mod record;
mod writer;

pub(crate) use memory::{Kept, read_kept};
pub(crate) use writer::*;
