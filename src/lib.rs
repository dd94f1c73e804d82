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
pub mod drill;
pub mod error;
pub mod gate;
pub mod import;
pub mod model;
pub mod pair;
pub mod progress;
pub mod redact;
pub mod report;
pub mod rules;
pub mod sanitize;
pub mod schema;
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
    scan_sources(paths, opts, filters, options, &mut Vec::new())
}

/// `scan`, with the warnings of transcripts imported on the way (invalid
/// lines, repaired surrogates, unrecognised files) appended to `notes`.
pub fn scan_sources(
    paths: &[PathBuf],
    opts: &SourceOptions,
    filters: Filters,
    options: AnalysisOptions,
    notes: &mut Vec<String>,
) -> Result<Report> {
    let mut agg = Aggregator::new(filters, options);
    for path in paths {
        if import::is_transcript_source(path) {
            scan_transcripts(path, opts, &mut agg, notes)?;
            continue;
        }
        let (conn, format, warnings) = source::open_as(path, opts.format)?;
        agg.begin_source(&path.display().to_string(), format.as_str(), &schema::from_trace(&conn, format.as_str()))?;
        agg.warn(warnings);
        agg = read_judging_aside(path, &conn, format, opts, agg)?;
    }
    Ok(agg.finish())
}

/// Read a source on this thread while another judges and counts the
/// sessions, in the order they are read, so the report is the same as if
/// one thread did both.
fn read_judging_aside(
    path: &Path,
    conn: &rusqlite::Connection,
    format: source::Format,
    opts: &SourceOptions,
    agg: Aggregator,
) -> Result<Aggregator> {
    std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<model::Session>(8);
        let judge = scope.spawn(move || {
            let mut agg = agg;
            for s in rx {
                agg.add(analysis::judge(s));
            }
            agg
        });
        let read = source::read(path, conn, format, opts, &mut |s| {
            let _ = tx.send(s);
        });
        drop(tx);
        let agg = judge.join().map_err(|_| Error::input(path, "internal error: the judging thread stopped"))?;
        read.map(|_| agg)
    })
}

/// The default Peri trace database of the current user.
pub fn default_peri_path() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".peri/threads/threads.db"))
}

/// Scan what `args` names and build the report; warnings go to `err`.
fn build_report(args: &cli::ScanArgs, err: &mut dyn Write) -> Result<Report> {
    if args.no_redact {
        redact::disable();
    }
    let now = chrono::Utc::now();
    let time = |v: &Option<String>, flag: &str| -> Result<_> {
        v.as_deref().map(|s| timespec::parse(s, now).map_err(|e| Error::Usage(format!("{flag}: {e}")))).transpose()
    };
    let filters = Filters {
        since: time(&args.since, "--since")?,
        until: time(&args.until, "--until")?,
        tools: args.tools.clone(),
    };
    let paths = scan_paths(&args.paths)?;
    let format = source_format(args.source_format.as_deref())?;
    let opts = SourceOptions { no_subagents: args.no_subagents, session: args.session.clone(), format };
    let tool_schemas = args.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default();
    let options = AnalysisOptions { streak_threshold: args.streak_threshold, drift_min: args.drift_min, tool_schemas };
    let mut notes = Vec::new();
    let report = scan_sources(&paths, &opts, filters, options, &mut notes)?;
    for note in notes.iter().chain(&report.warnings) {
        writeln!(err, "tracelint: warning: {note}")?;
    }
    for src in &report.sources {
        let n = report.findings.iter().filter(|f| f.rule == "malformed-row" && f.source == src.path).count();
        if n > 0 {
            let path = sanitize::one_line(&src.path);
            writeln!(err, "tracelint: warning: {path}: {n} rows skipped or repaired (see the malformed-row findings)")?;
        }
    }
    Ok(report)
}

/// Print `report` in `args.format`, and append the Markdown summary if asked.
fn render(
    args: &cli::ScanArgs,
    report: &Report,
    color: bool,
    verdict: (&gate::Outcome, &gate::Gate),
    out: &mut dyn Write,
) -> Result<()> {
    use cli::OutputFormat as F;
    match args.format {
        F::Table => report::table::render(report, &report::table::Style { color }, out)?,
        F::Json => report::json::render(report, out)?,
        F::Markdown => report::markdown::render(report, Some(verdict), out)?,
        F::Csv => report::csv::render(report, out)?,
        F::Github => report::github::render(report, verdict.0, verdict.1, out)?,
        F::Junit => report::junit::render(report, verdict.0, out)?,
    }
    if let Some(path) = &args.summary {
        let mut md = Vec::new();
        report::markdown::render(report, Some(verdict), &mut md)?;
        const LIMIT: usize = 512 * 1024; // GitHub accepts 1 MiB per step
        if md.len() > LIMIT {
            md.truncate(LIMIT);
            md.extend_from_slice(b"\n\n_Summary truncated at 512 KiB; see --format json._\n");
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::input(path, format!("cannot append the summary: {e}")))?;
        f.write_all(&md).map_err(|e| Error::input(path, format!("cannot append the summary: {e}")))?;
    }
    out.flush()?;
    Ok(())
}

/// Run `tracelint scan` with parsed arguments, writing the report to `out`
/// and warnings (malformed rows) to `err`. GitHub and JUnit output use the
/// default gate: any hidden error fails.
pub fn run_scan(args: &cli::ScanArgs, color: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let report = build_report(args, err)?;
    let g = gate::Gate::default();
    let outcome = gate::evaluate(&report, &g, None);
    render(args, &report, color, (&outcome, &g), out)
}

/// Run `tracelint check`: `Ok(true)` when the gate passed (or a baseline
/// was written), `Ok(false)` when it failed.
pub fn run_check(args: &cli::CheckArgs, color: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<bool> {
    let inputs = scan_paths(&args.scan.paths)?;
    for file in [&args.baseline, &args.write_baseline].into_iter().flatten() {
        let same =
            |p: &PathBuf| std::fs::canonicalize(p).ok().is_some_and(|c| std::fs::canonicalize(file).ok() == Some(c));
        if inputs.iter().any(same) {
            return Err(Error::Usage(format!("{} is a trace database given as input, not a baseline", file.display())));
        }
    }
    let report = build_report(&args.scan, err)?;
    if let Some(path) = &args.write_baseline {
        let old = if path.exists() { Some(gate::read_baseline(path)?) } else { None };
        let new = gate::baseline_of(&report);
        let (added, removed) = old.as_ref().map_or((report.findings.len() as u64, 0), |o| gate::baseline_diff(o, &new));
        gate::write_baseline(path, &new)?;
        writeln!(
            out,
            "tracelint: baseline {} written: +{added} / -{removed} findings ({} entries, {} findings).",
            sanitize::one_line(&path.display().to_string()),
            new.entries.len(),
            report.findings.len()
        )?;
        return Ok(true);
    }
    let baseline = args.baseline.as_deref().map(gate::read_baseline).transpose()?;
    let g = gate::Gate {
        max_hidden: args.max_hidden,
        max_error_rate: args.max_error_rate.clone(),
        fail_on: args.fail_on.iter().flatten().cloned().collect(),
    };
    let outcome = gate::evaluate(&report, &g, baseline.as_ref());
    render(&args.scan, &report, color, (&outcome, &g), out)?;
    if !outcome.stale.is_empty() {
        let n: u64 = outcome.stale.iter().map(|e| e.count).sum();
        writeln!(
            err,
            "tracelint: note: {n} baseline findings ({} entries) no longer occur; old sessions may have rotated out (refresh with --write-baseline)",
            outcome.stale.len()
        )?;
    }
    let sentence = outcome.sentence(&report, &g);
    if args.scan.format == cli::OutputFormat::Table {
        writeln!(out)?;
        writeln!(out, "{sentence}")?;
    } else {
        writeln!(err, "{sentence}")?;
    }
    out.flush()?;
    Ok(outcome.passed())
}

/// Run `tracelint rules`: every content rule, classification rule and
/// category, from the registry.
pub fn run_rules(args: &cli::RulesArgs, out: &mut dyn Write) -> Result<()> {
    use rules::{CLASS_RULES, CONTENT_RULES, Category};
    if args.format == cli::RulesFormat::Json {
        let v = serde_json::json!({
            "content_rules": CONTENT_RULES.iter().map(|r| serde_json::json!({
                "id": r.id, "pattern": r.pattern, "tools": r.tools, "formats": r.formats, "precision": r.precision.as_str(),
                "doc": r.doc, "fires_on": r.fires_on, "ignores": r.ignores,
            })).collect::<Vec<_>>(),
            "classification_rules": CLASS_RULES.iter().map(|r| serde_json::json!({
                "id": r.id, "pattern": r.pattern, "tools": r.tools, "formats": r.formats, "category": r.category.as_str(),
                "label": r.label, "fires_on": r.fires_on, "ignores": r.ignores,
            })).collect::<Vec<_>>(),
            "categories": Category::ALL.iter().map(|c| serde_json::json!({
                "slug": c.as_str(), "meaning": c.meaning(), "retry": c.retry(), "fix": c.fix(),
            })).collect::<Vec<_>>(),
            "finding_rules": gate::FINDING_RULES,
        });
        serde_json::to_writer_pretty(&mut *out, &v).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "Content rules (is the result a failure?), matched at the start of the result text:")?;
    for r in CONTENT_RULES {
        let scope = if r.tools.is_empty() { String::new() } else { format!(" [tools: {}]", r.tools.join(", ")) };
        writeln!(out, "  {:<30} {} precision{scope}", r.id, r.precision.as_str())?;
        writeln!(out, "  {:<30} {}", "", r.doc)?;
        writeln!(out, "  {:<30} e.g. {}", "", sanitize::truncate(&sanitize::one_line(r.fires_on[0]), 90))?;
    }
    writeln!(out)?;
    writeln!(out, "Classification rules (why did it fail?), first match wins, in this order:")?;
    for r in CLASS_RULES {
        let scope = if r.tools.is_empty() { String::new() } else { format!(" [tools: {}]", r.tools.join(", ")) };
        writeln!(out, "  {:<40} → {:<24} {}{scope}", r.id, r.category.as_str(), r.label)?;
    }
    writeln!(out)?;
    writeln!(out, "Categories:")?;
    for c in Category::ALL {
        writeln!(out, "  {:<24} {} (retry: {})", c.as_str(), c.meaning(), c.retry())?;
        writeln!(out, "  {:<24} fix: {}", "", c.fix())?;
    }
    writeln!(out)?;
    writeln!(out, "Finding rules: {}", gate::FINDING_RULES.join(", "))?;
    Ok(())
}

/// The sources `scan` reads: the PATHs given, or every default location of
/// every supported format that exists on this machine.
pub fn scan_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
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
    let (conn, _, _) = source::open_as(&db, Some(format))?;
    agg.begin_source(&path.display().to_string(), stats.label(), &[])?;
    source::read(&db, &conn, format, opts, &mut |s| agg.add(analysis::judge(s)))?;
    Ok(())
}

/// Run `tracelint schemas`: the tool schemas in effect for each source (or
/// every built-in set), with where each came from.
pub fn run_schemas(args: &cli::SchemasArgs, out: &mut dyn Write) -> Result<()> {
    let file = args.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default();
    let mut sets: Vec<(String, schema::SchemaSet)> = Vec::new();
    let build = |format: &str, trace: &[(String, serde_json::Value)]| {
        schema::SchemaSet::build(format, trace, &file).map_err(|e| Error::input(&file.origin, e))
    };
    if args.paths.is_empty() {
        for format in ["peri", "claude-code"] {
            sets.push((format!("built-in set for {format}"), build(format, &[])?));
        }
        if !file.tools.is_empty() {
            sets.push(("other formats".to_string(), build("", &[])?));
        }
    } else {
        for path in &args.paths {
            let (conn, format, _) = source::open(path)?;
            let label = format!("{} ({})", sanitize::one_line(&path.display().to_string()), format.as_str());
            sets.push((label, build(format.as_str(), &schema::from_trace(&conn, format.as_str()))?));
        }
    }
    if args.format == cli::RulesFormat::Json {
        let v: Vec<serde_json::Value> = sets
            .iter()
            .map(|(label, set)| {
                serde_json::json!({
                    "source": label,
                    "tools": set.all().iter().map(|t| serde_json::json!({
                        "tool": t.tool, "origin": t.origin, "required": t.required(), "schema": t.schema,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &v).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    for (i, (label, set)) in sets.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{label}: {} tool schemas", set.all().len())?;
        for t in set.all() {
            let optional: Vec<&str> =
                t.properties().iter().map(String::as_str).filter(|p| !t.required().iter().any(|r| r == p)).collect();
            writeln!(
                out,
                "  {:<20} {:<22} required: {}; optional: {}",
                sanitize::truncate(&sanitize::one_line(&t.tool), 20),
                sanitize::truncate(&sanitize::one_line(&t.origin), 22),
                if t.required().is_empty() { "-".to_string() } else { t.required().join(", ") },
                if optional.is_empty() { "-".to_string() } else { optional.join(", ") }
            )?;
        }
    }
    Ok(())
}
