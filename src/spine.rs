//! The spine's shared parts: the options every command judges with
//! (`ScanOptions`), what a walk hands on to its visitor (`SourceStart`,
//! `Visitor`), and the one step every walk takes for a source: build its
//! judge (`judge_for`) and judge its sessions as they are read
//! (`read_judging_aside`, `walk_source`). The plain walk (`walk`, in
//! lib.rs) and the indexed one (index/walk.rs) both stand on them, so
//! neither calls the other; lib.rs re-exports the public ones, so
//! `falseok::ScanOptions` is where it was.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::aggregate::{AggregateOptions, Aggregator};
use crate::error::{Error, Result};
use crate::judge::{Judge, JudgeOptions, JudgedSession};
use crate::model::{self, Dialect};
use crate::schema::{FileSchemas, SchemaSet};
use crate::source::{self, SourceOptions};
use crate::{input, sanitize};

/// Everything that changes what a scan reads, judges and counts. Every
/// command that judges takes the same options, so a call gets the same
/// verdict whichever command asks.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Which sessions to read, and the format to force.
    pub source: SourceOptions,
    /// Tool schemas from `--tool-schemas`, over the built-in ones.
    pub tool_schemas: FileSchemas,
    /// Filters and drift threshold: what the report counts.
    pub aggregate: AggregateOptions,
    /// Streak threshold and redaction: how sessions are judged and shown.
    pub judge: JudgeOptions,
    /// The index folder (`--index`, else the user's cache); `None` reads
    /// everything (`--no-index`). Commands that show calls (`examples`,
    /// `show`, the HTML page, `export`) always read.
    pub index: Option<PathBuf>,
    /// Why the index is not used though it was not turned off (no cache
    /// folder, or the output guard refused its folder): said once, as a
    /// warning, by the run (`walk_maybe_indexed`).
    pub index_note: Option<String>,
}

/// What the spine tells a visitor about each source before its sessions.
pub struct SourceStart<'a> {
    /// The PATH as given (shown in reports).
    pub path: &'a str,
    /// The format label shown in reports: the SQLite format or transcript
    /// agent it was read as, or `jsonl` for several agents' transcripts
    /// (`input::Source::label_format`). A label, not the sessions' dialect.
    pub format: &'a str,
    /// The tool schemas its judge validates against.
    pub schemas: Arc<SchemaSet>,
    /// How it had to be opened (shown on stderr).
    pub warnings: Vec<String>,
}

/// Receives the judged sessions of every source, in reading order, and
/// the walk's notes.
pub trait Visitor: Send {
    /// A source begins: its sessions follow, until the next `source`.
    fn source(&mut self, start: SourceStart<'_>);
    /// Return false to stop: later sessions are read but not judged.
    fn session(&mut self, session: JudgedSession) -> bool;
    /// A note about what the walk read, for the user (lines of a
    /// transcript skipped, files not read, a PATH given twice, why the
    /// index was not used): `walk` hands them over once it is done, in the
    /// order they arose, even when it stops on an error. There is no
    /// default, so a command cannot walk without deciding where they go;
    /// every command says them on stderr as `scan` does.
    fn note(&mut self, note: String);
}

/// Begin counting `start`'s source in `agg`: its path, format and schemas,
/// and how it had to be opened (`Report::warnings`).
pub(crate) fn begin_source(agg: &mut Aggregator, start: SourceStart<'_>) {
    agg.begin_source(start.path, start.format, start.schemas);
    agg.warn(start.warnings);
}

/// Judge the sessions of an opened source (only its rows after
/// `after_row`, when given: see `appended_since`) and hand them to
/// `visitor`, after its `SourceStart` under `label`.
pub(crate) fn walk_source(
    src: &input::Source,
    label: &str,
    opts: &ScanOptions,
    after_row: Option<i64>,
    visitor: &mut dyn Visitor,
) -> Result<source::SourceStats> {
    let judge = judge_for(&src.dialects, &src.tool_schemas()?, opts)?;
    visitor.source(SourceStart {
        path: label,
        format: src.label_format,
        schemas: judge.schemas().clone(),
        warnings: src.warnings.clone(),
    });
    let mut from = opts.source.clone();
    from.after_row = after_row;
    read_judging_aside(&src.path, &judge, visitor, |sink| src.read(&from, sink))
}

/// The judge of one source: for each dialect whose sessions it holds, that
/// dialect's built-in schemas, the schemas the source stores itself, then
/// `--tool-schemas` (a folder of Claude Code and Codex transcripts judges
/// each session with its own agent's schemas). The first dialect's set is
/// also the source's (`Judge::schemas`, reported with it). `watch` judges
/// with it too.
pub fn judge_for(
    dialects: &[Dialect],
    trace_schemas: &[(String, serde_json::Value)],
    opts: &ScanOptions,
) -> Result<Judge> {
    let build = |dialect: Option<Dialect>| {
        SchemaSet::build(dialect, trace_schemas, &opts.tool_schemas)
            .map(Arc::new)
            .map_err(|e| Error::input(&opts.tool_schemas.origin, e))
    };
    let first = build(dialects.first().copied())?;
    let mut judge = Judge::new(first.clone(), opts.judge.streak_threshold);
    for (i, &d) in dialects.iter().enumerate() {
        judge.add_dialect(d, if i == 0 { first.clone() } else { build(Some(d))? });
    }
    Ok(judge.redacting(opts.judge.redaction))
}

/// Read a source on this thread while another judges the sessions and
/// hands them to `visitor`, in the order they are read, so the result is
/// the same as if one thread did both.
pub(crate) fn read_judging_aside(
    path: &Path,
    judge: &Judge,
    visitor: &mut dyn Visitor,
    read: impl FnOnce(&mut dyn FnMut(model::Session)) -> Result<source::SourceStats>,
) -> Result<source::SourceStats> {
    std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<model::Session>(8);
        let worker = scope.spawn(move || {
            let mut going = true;
            for s in rx {
                if going {
                    going = visitor.session(judge.judge_in(s, Some(path)));
                }
            }
        });
        let read = read(&mut |s| {
            let _ = tx.send(s);
        });
        drop(tx);
        worker.join().map_err(|_| {
            Error::Internal(format!(
                "the judging thread stopped while reading {}",
                sanitize::one_line(&path.display().to_string())
            ))
        })?;
        read
    })
}
