//! tracelint: find the tool-call failures AI agents hide from themselves.
//!
//! The spine every command walks, in one direction:
//!
//! 1. `input`: PATHs (databases, transcript files or folders, or the default
//!    locations) become sources; the only place that decides how a PATH is read.
//! 2. `source` / `import`: each format's rows become `model::Session`s.
//! 3. `judge`: pair calls and results, apply the flag and content signals,
//!    classify (rules, tool schemas, stale edits), analyse the order, emit findings.
//! 4. `aggregate`: count judged sessions into the one `report::Report`.
//! 5. `gate`: thresholds and baselines over a `Report` give a `Verdict`.
//! 6. `render`: one module per output format prints a `Report` (and `Verdict`).
//!
//! `app` holds one handler per command; `main` maps its status to an exit code.

pub mod aggregate;
pub mod app;
pub mod cli;
pub mod error;
pub mod export;
pub mod gate;
pub mod import;
pub mod input;
pub mod judge;
pub mod model;
pub mod pair;
pub mod progress;
pub mod redact;
pub mod render;
pub mod report;
pub mod rules;
pub mod sanitize;
pub mod schema;
pub mod scratch;
pub mod source;
pub mod timespec;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use aggregate::{AggregateOptions, Aggregator};
use error::{Error, Result};
use judge::{Judge, JudgedSession};
use report::Report;
use schema::{FileSchemas, SchemaSet};
use source::SourceOptions;

/// Everything that changes what a scan reads, judges and counts. Every
/// command that judges takes the same options, so a call gets the same
/// verdict whichever command asks.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Which sessions to read, and the format to force.
    pub source: SourceOptions,
    /// Tool schemas from `--tool-schemas`, over the built-in ones.
    pub tool_schemas: FileSchemas,
    /// Filters, streak threshold, drift threshold and redaction.
    pub aggregate: AggregateOptions,
}

/// What the spine tells a visitor about each source before its sessions.
pub struct SourceStart<'a> {
    /// The PATH as given (shown in reports).
    pub path: &'a str,
    /// The format (or transcript agent) it was read as.
    pub format: &'a str,
    /// The tool schemas its judge validates against.
    pub schemas: Arc<SchemaSet>,
    /// How it had to be opened (shown on stderr).
    pub warnings: Vec<String>,
}

/// Receives the judged sessions of every source, in reading order.
pub trait Visitor: Send {
    fn source(&mut self, start: SourceStart<'_>);
    /// Return false to stop: later sessions are read but not judged.
    fn session(&mut self, session: JudgedSession) -> bool;
}

impl Visitor for Aggregator {
    fn source(&mut self, start: SourceStart<'_>) {
        self.begin_source(start.path, start.format, start.schemas);
        self.warn(start.warnings);
    }

    fn session(&mut self, session: JudgedSession) -> bool {
        self.add(&session);
        true
    }
}

/// Scan `paths` and build the report. Sources are read one after another;
/// each session is judged and counted as soon as it has been read. Notes
/// about transcripts read on the way (invalid lines, unrecognised files)
/// are appended to `notes`.
pub fn scan(paths: &[PathBuf], opts: &ScanOptions, notes: &mut Vec<String>) -> Result<Report> {
    let mut agg = Aggregator::new(opts.aggregate.clone());
    walk(paths, opts, notes, &mut agg)?;
    Ok(agg.finish())
}

/// Read, judge and hand every session of `paths` to `visitor`: the one
/// loop behind every command.
pub fn walk(paths: &[PathBuf], opts: &ScanOptions, notes: &mut Vec<String>, visitor: &mut dyn Visitor) -> Result<()> {
    // Each file once, however often and under whatever names it is given.
    for path in &input::distinct(paths, notes) {
        let src = input::open(path, &opts.source, notes)?;
        let judge = judge_for(&src.agents, &src.tool_schemas()?, opts)?;
        // A file named after a token is shown redacted, like the trace text.
        let label = opts.aggregate.redaction.apply(&src.label);
        visitor.source(SourceStart {
            path: &label,
            format: src.format_name,
            schemas: judge.schemas().clone(),
            warnings: src.warnings.clone(),
        });
        read_judging_aside(&src.path, &judge, visitor, |sink| src.read(&opts.source, sink))?;
    }
    Ok(())
}

/// The judge of one source: for each agent whose sessions it holds, that
/// agent's built-in schemas, the schemas the source stores itself, then
/// `--tool-schemas` (a folder of Claude Code and Codex transcripts judges
/// each session with its own agent's schemas). `watch` judges with it too.
pub fn judge_for(
    agents: &[&'static str],
    trace_schemas: &[(String, serde_json::Value)],
    opts: &ScanOptions,
) -> Result<Judge> {
    let build = |agent: &str| {
        SchemaSet::build(agent, trace_schemas, &opts.tool_schemas)
            .map(Arc::new)
            .map_err(|e| Error::input(&opts.tool_schemas.origin, e))
    };
    let first = build(agents.first().copied().unwrap_or(""))?;
    let mut judge = Judge::new(first, opts.aggregate.streak_threshold);
    for agent in agents.iter().skip(1) {
        judge.add_agent(agent, build(agent)?);
    }
    Ok(judge.redacting(opts.aggregate.redaction))
}

/// Read a source on this thread while another judges the sessions and
/// hands them to `visitor`, in the order they are read, so the result is
/// the same as if one thread did both.
fn read_judging_aside(
    path: &Path,
    judge: &Judge,
    visitor: &mut dyn Visitor,
    read: impl FnOnce(&mut dyn FnMut(model::Session)) -> Result<source::SourceStats>,
) -> Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<model::Session>(8);
        let worker = scope.spawn(move || {
            let mut going = true;
            for s in rx {
                if going {
                    going = visitor.session(judge.judge(s));
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
        read.map(|_| ())
    })
}
