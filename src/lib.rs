//! falseok: find the tool-call failures AI agents hide from themselves.
//!
//! The spine every command walks, in one direction:
//!
//! 1. `input`: PATHs (databases, transcript files or folders, or the default
//!    locations) become sources; the only place that decides how a PATH is read.
//! 2. `source` / `import`: each format's rows become `model::Session`s, each
//!    with its `model::Dialect` (its format's, or its transcript's agent's).
//! 3. `judge`: pair calls and results, apply the flag and content signals,
//!    classify (rules, the tool schemas of the session's dialect, stale
//!    edits), analyse the order, emit findings.
//! 4. `aggregate`: count judged sessions into the one `report::Report`.
//! 5. `gate`: thresholds and baselines over a `Report` give a `Verdict`.
//! 6. `render`: one module per output format prints a `Report` (and `Verdict`).
//!
//! Transcripts (JSONL and JSON files) are normalised into a keyed session
//! store that spills to SQLite (`import/store/`: `import` writes it,
//! `source::falseok`'s reader reads it). `index` keeps each
//! source's partial report, so a re-run reads only what changed.
//!
//! This file is the spine itself: `walk` reads every source and judges
//! its sessions, `scan` counts them, and `walk_maybe_indexed` takes the
//! indexed walk instead when the run has an index; that walk lives with
//! the index, in `index/walk.rs`. The types a walk hands on (`ScanOptions`,
//! `SourceStart`, `Visitor`) and the step both walks take for a source
//! (`judge_for`, judging while reading) are in `spine.rs`, which imports
//! nothing above it; each stage is entered once, and none calls back.
//!
//! `app` holds one handler per command; `main` maps its status to an exit code.
//!
//! The public surface is narrow (tests/cli/layout.rs keeps it to at most
//! 10 public modules); everything else is `pub(crate)`:
//!
//! - at the root, the pipeline: `scan`, `walk`, `judge_for`, `ScanOptions`,
//!   `Visitor` and `SourceStart` (the last four re-exported from
//!   `spine`), the format registry (`formats`,
//!   `database_formats`, `opt_in_formats`), and the types their signatures
//!   name (`Error`, `Result`, `SourceOptions`, `AggregateOptions`,
//!   `JudgeOptions`,
//!   `FormatInfo`, `Location`, `FileSchemas`, `SchemaSet`, `ToolSchema`,
//!   `Violation`, `validate`);
//! - `judge` (the judged types), `model`, `report`, `rules` (the rule
//!   tables), `gate` and `render`;
//! - hidden, for this repository's own crates only: `app` and `cli` (the
//!   binary and xtask) and `fuzzing` (the parsers the fuzz targets call).

pub(crate) mod aggregate;
#[doc(hidden)]
pub mod app;
#[doc(hidden)]
pub mod cli;
pub(crate) mod config;
pub(crate) mod error;
pub(crate) mod export;
#[doc(hidden)]
pub mod fuzzing;
pub mod gate;
pub(crate) mod import;
pub(crate) mod index;
pub(crate) mod input;
pub(crate) mod json;
pub mod judge;
pub mod model;
pub(crate) mod pair;
pub mod prices;
pub(crate) mod progress;
pub(crate) mod redact;
pub mod render;
pub mod report;
pub mod rules;
pub(crate) mod sanitize;
pub(crate) mod schema;
pub(crate) mod scratch;
pub(crate) mod source;
pub(crate) mod spine;
pub(crate) mod timespec;

use std::path::PathBuf;

use aggregate::Aggregator;
use report::Report;
use spine::read_judging_aside;

pub use aggregate::AggregateOptions;
pub use error::{Error, Result};
pub use judge::JudgeOptions;
pub use schema::{FileSchemas, SchemaSet, ToolSchema, Violation, validate};
pub use source::{FormatInfo, Location, SourceOptions};
pub use spine::{ScanOptions, SourceStart, Visitor, judge_for};

/// Every format falseok reads, as `falseok formats` lists them: the
/// SQLite formats (`database_formats`), then the transcript formats, each
/// with its sample.
pub fn formats() -> impl Iterator<Item = &'static FormatInfo> {
    source::formats().chain(import::infos())
}

/// The SQLite formats, in the order detection tries them.
pub fn database_formats() -> impl Iterator<Item = &'static FormatInfo> {
    source::formats()
}

/// The names of the formats read only when `--source-format` names them,
/// never detected nor looked for at their default locations (Cursor).
pub fn opt_in_formats() -> impl Iterator<Item = &'static str> {
    source::ADAPTERS.iter().filter(|a| a.opt_in().is_some()).map(|a| a.info().name())
}

/// Scan `paths` and build the report. Sources are read one after another;
/// each session is judged and counted as soon as it has been read. Notes
/// about transcripts read on the way (invalid lines, unrecognised files)
/// are appended to `notes`.
pub fn scan(paths: &[PathBuf], opts: &ScanOptions, notes: &mut Vec<String>) -> Result<Report> {
    let mut scanning = Scanning { agg: Aggregator::new(opts.aggregate.clone(), opts.judge), notes };
    walk_maybe_indexed(paths, opts, &mut scanning)?;
    Ok(scanning.agg.finish())
}

/// `scan`'s visitor: the aggregator, with the walk's notes kept aside for
/// the caller (they are said, not counted).
struct Scanning<'a> {
    agg: Aggregator,
    notes: &'a mut Vec<String>,
}

impl Visitor for Scanning<'_> {
    fn source(&mut self, start: SourceStart<'_>) {
        spine::begin_source(&mut self.agg, start);
    }

    fn session(&mut self, session: judge::JudgedSession) -> bool {
        self.agg.add(&session);
        true
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }
}

impl index::Taker for Scanning<'_> {
    fn take(&mut self, entry: &index::Entry) -> Result<()> {
        index::Taker::take(&mut self.agg, entry)
    }
}

/// `walk` through the index when the run has one (`index::walk`), else
/// reading everything; why an index was not used (`index_note`) is said
/// first. The notes go to `taker` once the walk is done, as `walk`'s do.
pub(crate) fn walk_maybe_indexed<T: index::Taker + Visitor>(
    paths: &[PathBuf],
    opts: &ScanOptions,
    taker: &mut T,
) -> Result<()> {
    let mut notes: Vec<String> = opts.index_note.iter().cloned().collect();
    let walked = match &opts.index {
        Some(root) => index::walk::walk_indexed(paths, opts, root, &mut notes, taker),
        None => walk_noting(paths, opts, &mut notes, taker),
    };
    notes.into_iter().for_each(|n| taker.note(n));
    walked
}

/// Read, judge and hand every session of `paths` to `visitor`: the one
/// loop behind every command. Its notes go to `visitor.note` once it is
/// done, error or not.
pub fn walk(paths: &[PathBuf], opts: &ScanOptions, visitor: &mut dyn Visitor) -> Result<()> {
    let mut notes = Vec::new();
    let walked = walk_noting(paths, opts, &mut notes, visitor);
    notes.into_iter().for_each(|n| visitor.note(n));
    walked
}

/// `walk`, its notes appended to `notes`.
fn walk_noting(
    paths: &[PathBuf],
    opts: &ScanOptions,
    notes: &mut Vec<String>,
    visitor: &mut dyn Visitor,
) -> Result<()> {
    // Each file once, however often and under whatever names it is given.
    for path in &input::distinct(&input::expand(paths, &opts.source, notes), notes) {
        let src = input::open(path, &opts.source, notes)?;
        let judge = judge_for(&src.dialects, &src.tool_schemas()?, opts)?;
        // A file named after a token is shown redacted, like the trace text.
        let label = opts.judge.redaction.apply(&src.label);
        visitor.source(SourceStart {
            path: &label,
            format: src.label_format,
            schemas: judge.schemas().clone(),
            warnings: src.warnings.clone(),
        });
        read_judging_aside(&src.path, &judge, visitor, |sink| src.read(&opts.source, sink))?;
    }
    Ok(())
}
