//! `scan` and `check`: build the report, apply the gate, render, and write
//! the baseline or the step summary when asked.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{ExitStatus, settings};
use crate::cli::{CheckArgs, OutputFormat, ScanArgs};
use crate::error::{Error, Result};
use crate::gate::{self, Gate, Verdict};
use crate::report::Report;
use crate::rules::FindingRule;
use crate::{render, sanitize};

/// Scan what `args` names and build the report; warnings go to `err`.
fn build_report(args: &ScanArgs, paths: &[PathBuf], err: &mut dyn Write) -> Result<Report> {
    let opts = settings::scan(args)?;
    let mut notes = Vec::new();
    let report = crate::scan(paths, &opts, &mut notes)?;
    for note in notes.iter().chain(&report.warnings) {
        writeln!(err, "tracelint: warning: {note}")?;
    }
    for src in &report.sources {
        let n = report.findings.iter().filter(|f| f.rule == FindingRule::MalformedRow && f.source == src.path).count();
        if n > 0 {
            let path = sanitize::one_line(&src.path);
            writeln!(err, "tracelint: warning: {path}: {n} rows skipped or repaired (see the malformed-row findings)")?;
        }
    }
    Ok(report)
}

/// Print `report` in `args.format`, and append the Markdown summary if asked.
fn render(
    args: &ScanArgs,
    report: &Report,
    color: bool,
    verdict: (&Verdict, &Gate),
    out: &mut dyn Write,
) -> Result<()> {
    use OutputFormat as F;
    match args.format {
        F::Table => render::table::render(report, &render::table::Style { color }, out)?,
        F::Json => render::json::render(report, out)?,
        F::Markdown => render::markdown::render(report, Some(verdict), out)?,
        F::Csv => render::csv::render(report, out)?,
        F::Github => render::github::render(report, verdict.0, verdict.1, out)?,
        F::Junit => render::junit::render(report, verdict.0, out)?,
    }
    if let Some(path) = &args.summary {
        append_summary(path, report, verdict)?;
    }
    out.flush()?;
    Ok(())
}

/// Append the Markdown postmortem to `path` (GitHub's step summary).
fn append_summary(path: &Path, report: &Report, verdict: (&Verdict, &Gate)) -> Result<()> {
    let mut md = Vec::new();
    render::markdown::render(report, Some(verdict), &mut md)?;
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
    f.write_all(&md).map_err(|e| Error::input(path, format!("cannot append the summary: {e}")))
}

/// `tracelint scan`: the report; GitHub and JUnit output use the default
/// gate (any hidden error fails), but a scan never fails.
pub fn run_scan(args: &ScanArgs, color: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus> {
    let paths = crate::input_paths(&args.paths)?;
    let report = build_report(args, &paths, err)?;
    let g = Gate::default();
    let verdict = gate::evaluate(&report, &g, None);
    render(args, &report, color, (&verdict, &g), out)?;
    Ok(ExitStatus::Clean)
}

/// `tracelint check`: the gate. The verdict is decided before anything is
/// written, so a reader that goes away cannot change the exit status.
pub fn run_check(args: &CheckArgs, color: bool, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus> {
    let g = settings::gate(args.max_hidden, &args.max_error_rate, &args.fail_on)?;
    let inputs = crate::input_paths(&args.scan.paths)?;
    for file in [&args.baseline, &args.write_baseline].into_iter().flatten() {
        settings::not_an_input(file, &inputs, "baseline")?;
    }
    let report = build_report(&args.scan, &inputs, err)?;
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
        return Ok(ExitStatus::Clean);
    }
    let baseline = args.baseline.as_deref().map(gate::read_baseline).transpose()?;
    let verdict = gate::evaluate(&report, &g, baseline.as_ref());
    let status = if verdict.passed() { ExitStatus::Clean } else { ExitStatus::Findings };
    let written = write_check(args, &report, color, (&verdict, &g), out, err);
    super::keep_status_on_closed_pipe(status, written)
}

/// The report, the stale-baseline note and the closing sentence of `check`.
fn write_check(
    args: &CheckArgs,
    report: &Report,
    color: bool,
    verdict: (&Verdict, &Gate),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    render(&args.scan, report, color, verdict, out)?;
    let (v, g) = verdict;
    if !v.stale.is_empty() {
        let n: u64 = v.stale.iter().map(|e| e.count).sum();
        writeln!(
            err,
            "tracelint: note: {n} baseline findings ({} entries) no longer occur; old sessions may have rotated out (refresh with --write-baseline)",
            v.stale.len()
        )?;
    }
    let sentence = v.sentence(report, g);
    if args.scan.format == OutputFormat::Table {
        writeln!(out)?;
        writeln!(out, "{sentence}")?;
    } else {
        writeln!(err, "{sentence}")?;
    }
    out.flush()?;
    Ok(())
}
