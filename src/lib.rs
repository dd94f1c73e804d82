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
pub mod import;
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
use report::{Aggregator, Filters, Report};
use source::SourceOptions;

/// Scan `paths` and build the report. Sources are read one after another;
/// each session is judged and counted as soon as it has been read.
pub fn scan(paths: &[PathBuf], opts: &SourceOptions, filters: Filters) -> Result<Report> {
    scan_sources(paths, opts, filters, &mut Vec::new())
}

/// `scan`, with the warnings of transcripts imported on the way (invalid
/// lines, repaired surrogates, unrecognised files) appended to `notes`.
pub fn scan_sources(
    paths: &[PathBuf],
    opts: &SourceOptions,
    filters: Filters,
    notes: &mut Vec<String>,
) -> Result<Report> {
    let mut agg = Aggregator::new(filters);
    for path in paths {
        if import::is_transcript_source(path) {
            scan_transcripts(path, opts, &mut agg, notes)?;
            continue;
        }
        let (conn, format) = source::open_as(path, opts.format)?;
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
    let paths = scan_paths(args)?;
    let format = source_format(args.source_format.as_deref())?;
    let opts = SourceOptions { no_subagents: args.no_subagents, session: args.session.clone(), format };
    let mut notes = Vec::new();
    let report = scan_sources(&paths, &opts, filters, &mut notes)?;
    for note in &notes {
        writeln!(err, "tracelint: warning: {note}")?;
    }
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

/// The sources `scan` reads: the PATHs given, or every default location of
/// every supported format that exists on this machine.
pub fn scan_paths(args: &cli::ScanArgs) -> Result<Vec<PathBuf>> {
    if !args.paths.is_empty() {
        return Ok(args.paths.clone());
    }
    let mut found = source::default_sources();
    found.extend(import::default_transcript_dirs());
    if found.is_empty() {
        let places: Vec<String> = source::FORMATS
            .iter()
            .flat_map(|f| f.locations)
            .chain(import::TRANSCRIPTS.iter().flat_map(|t| t.locations))
            .map(|l| l.display())
            .collect();
        return Err(Error::Usage(format!(
            "no trace database given, and none at the default locations ({}); pass a PATH",
            places.join(", ")
        )));
    }
    Ok(found)
}

/// The format `--source-format NAME` forces, if given.
pub fn source_format(name: Option<&str>) -> Result<Option<source::Format>> {
    let Some(name) = name else { return Ok(None) };
    match source::Format::from_name(name) {
        Some(f) => Ok(Some(f)),
        None => {
            let names: Vec<&str> = source::FORMATS.iter().map(|f| f.name).collect();
            Err(Error::Usage(format!(
                "--source-format: unknown format {:?}; known: {}",
                sanitize::one_line(name),
                names.join(", ")
            )))
        }
    }
}

/// Run `tracelint formats`: every supported format, its detection
/// signature, its flag and its default locations (marked when present).
pub fn run_formats(out: &mut dyn Write) -> Result<()> {
    for (i, f) in source::FORMATS.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{} ({})", f.name, f.agent)?;
        writeln!(out, "  detected by: {}", f.signature)?;
        writeln!(out, "  error flag:  {}", f.flag)?;
        for loc in f.locations {
            let here = loc.resolve().is_some_and(|p| p.is_file());
            writeln!(out, "  default:     {}{}", loc.display(), if here { "  [found]" } else { "" })?;
        }
    }
    for t in import::TRANSCRIPTS {
        writeln!(out)?;
        writeln!(out, "{} ({})", t.name, t.agent)?;
        writeln!(out, "  recognised:  {}", t.signature)?;
        writeln!(out, "  error flag:  {}", t.flag)?;
        for loc in t.locations {
            let here = loc.resolve().is_some_and(|p| p.is_dir());
            writeln!(out, "  default:     {}{}", loc.display(), if here { "  [found]" } else { "" })?;
        }
    }
    Ok(())
}

/// Run `tracelint import`: transcripts into tracelint's own schema.
pub fn run_import(args: &cli::ImportArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let stats = import::import(&args.sources, &args.into)?;
    for f in &stats.unrecognised {
        writeln!(
            err,
            "tracelint: warning: {}: not a Claude Code, Codex or Gemini transcript, skipped",
            sanitize::one_line(&f.display().to_string())
        )?;
    }
    writeln!(
        out,
        "imported {} files into {}: {} sessions, {} new calls, {} new results",
        stats.files,
        sanitize::one_line(&args.into.display().to_string()),
        stats.sessions,
        stats.calls,
        stats.results
    )?;
    writeln!(
        out,
        "lines: {} read, {} repeated (already imported), {} records of other types skipped, {} invalid, {} lone surrogates replaced",
        stats.lines, stats.duplicates, stats.skipped, stats.invalid, stats.surrogates
    )?;
    Ok(())
}

/// Scan JSONL transcripts (a file or a folder) by importing them into a
/// temporary database first; nothing is written beside them.
fn scan_transcripts(path: &Path, opts: &SourceOptions, agg: &mut Aggregator, notes: &mut Vec<String>) -> Result<()> {
    let tmp =
        tempfile::tempdir().map_err(|e| Error::input(path, format!("cannot create a temporary database: {e}")))?;
    let db = tmp.path().join("transcripts.db");
    let stats = import::import(&[path.to_path_buf()], &db)?;
    let shown = sanitize::one_line(&path.display().to_string());
    for f in &stats.unrecognised {
        notes.push(format!(
            "{}: not a Claude Code, Codex or Gemini transcript, skipped",
            sanitize::one_line(&f.display().to_string())
        ));
    }
    if stats.files == 0 {
        let what = if path.is_dir() {
            "is a directory with no Claude Code, Codex or Gemini transcript (*.jsonl)"
        } else {
            "is not a Claude Code, Codex or Gemini transcript"
        };
        return Err(Error::input(path, what));
    }
    if stats.invalid > 0 {
        notes.push(format!("{shown}: {} lines are not JSON records, skipped", stats.invalid));
    }
    if stats.surrogates > 0 {
        notes.push(format!("{shown}: {} lone surrogate escapes replaced by U+FFFD", stats.surrogates));
    }
    let format = source::Format::Tracelint;
    let (conn, _) = source::open_as(&db, Some(format))?;
    agg.begin_source(&path.display().to_string(), stats.label());
    source::read(&db, &conn, format, opts, &mut |s| agg.add(&analysis::judge(s)))?;
    Ok(())
}
