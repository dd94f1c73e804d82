//! Renderers: one file per output format, each a function of the finished
//! `Report` (and, for the gate-aware formats, the gate's `Verdict`). Helpers
//! that several renderers use live here, never in one renderer borrowed by
//! another.

pub mod csv;
pub mod github;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod table;

pub use crate::report::percent;

/// "1 call", "2 calls".
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}
