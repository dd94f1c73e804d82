//! tracelint: find the tool-call failures AI agents hide from themselves.
//!
//! The pipeline, one direction:
//! `source` opens a trace database read-only, recognises its format and
//! streams sessions of calls and results (`model`); `pair` links every call
//! to its result by id; `analysis` judges each pair by the source's flag and
//! by the content `rules`, classifies every failure and decides stale edits
//! from session order; `report` aggregates judged sessions into the one
//! `Report` that the renderers (`report::table`, `report::json`) print.
//! `sanitize` is the only way untrusted trace text reaches any output.

pub mod analysis;
pub mod cli;
pub mod error;
pub mod generate;
pub mod model;
pub mod pair;
pub mod report;
pub mod rules;
pub mod sanitize;
pub mod source;
pub mod timespec;

use std::io::Write;
use std::path::{Path, PathBuf};

use error::{Error, Result};
use report::{Aggregator, AnalysisOptions, Filters, Report};
use source::SourceOptions;

/// Scan `paths` and build the report. Sources are read one after another;
/// each session is judged and counted as soon as it has been read.
pub fn scan(paths: &[PathBuf], opts: &SourceOptions, filters: Filters, options: AnalysisOptions) -> Result<Report> {
    let mut agg = Aggregator::new(filters, options);
    for path in paths {
        let (conn, format) = source::open(path)?;
        agg.begin_source(&path.display().to_string(), format.as_str());
        source::read(path, &conn, format, opts, &mut |s| agg.add(&analysis::judge(s)))?;
    }
    Ok(agg.finish())
}

/// The default Peri trace database of the current user.
pub fn default_peri_path() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".peri/threads/threads.db"))
}

/// Run `tracelint scan` with parsed arguments, writing the report to `out`.
/// Warnings (malformed rows) go to `err`.
pub fn run_scan(args: &cli::ScanArgs, color: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let now = chrono::Utc::now();
    let time = |v: &Option<String>, flag: &str| -> Result<_> {
        v.as_deref().map(|s| timespec::parse(s, now).map_err(|e| Error::Usage(format!("{flag}: {e}")))).transpose()
    };
    let filters = Filters {
        since: time(&args.since, "--since")?,
        until: time(&args.until, "--until")?,
        tools: args.tools.clone(),
    };
    let paths = if args.paths.is_empty() {
        match default_peri_path() {
            Some(p) if p.exists() => vec![p],
            Some(p) => {
                return Err(Error::Usage(format!(
                    "no trace database given, and there is none at the default Peri location {}; pass a PATH",
                    p.display()
                )));
            }
            None => return Err(Error::Usage("no trace database given and HOME is not set; pass a PATH".into())),
        }
    } else {
        args.paths.clone()
    };
    let opts = SourceOptions { no_subagents: args.no_subagents, session: args.session.clone() };
    let options = AnalysisOptions { streak_threshold: args.streak_threshold };
    let report = scan(&paths, &opts, filters, options)?;
    for src in &report.sources {
        let n = report.findings.iter().filter(|f| f.rule == "malformed-row" && f.source == src.path).count();
        if n > 0 {
            let path = sanitize::one_line(&src.path);
            writeln!(err, "tracelint: warning: {path}: {n} unreadable rows skipped (malformed-row findings)")?;
        }
    }
    match args.format {
        cli::OutputFormat::Table => report::table::render(&report, &report::table::Style { color }, out)?,
        cli::OutputFormat::Json => report::json::render(&report, out)?,
    }
    out.flush()?;
    Ok(())
}

/// Run `tracelint generate`: write a synthetic database to a new file.
pub fn run_generate(args: &cli::GenerateArgs, out: &mut dyn Write) -> Result<()> {
    use generate::peri::{PeriScenario, generate_peri};
    if args.out.exists() {
        return Err(Error::input(&args.out, "already exists; generate writes a new file only"));
    }
    let scenario = match args.kind {
        cli::SampleKind::PeriPostmortem => PeriScenario::Postmortem,
        cli::SampleKind::PeriPostfix => PeriScenario::PostFix,
    };
    let stats = generate_peri(&args.out, scenario, args.seed).map_err(|e| {
        let _ = std::fs::remove_file(&args.out);
        Error::input(&args.out, format!("cannot write: {e}"))
    })?;
    let calls: usize = stats.calls_by_tool.values().sum();
    writeln!(
        out,
        "wrote {}: {} sessions ({} sub-agent), {} messages, {} calls",
        args.out.display(),
        stats.threads,
        stats.subagent_threads,
        stats.messages,
        calls
    )?;
    Ok(())
}
