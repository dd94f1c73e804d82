//! `scan` and `check`: build the report, apply the gate, render, and write
//! the baseline or the step summary when asked.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::output::{self, Written};
use super::{ExitStatus, Terminal, settings, suggest};
use crate::cli::{CheckArgs, ScanArgs};
use crate::error::{Error, Result};
use crate::gate::{self, Gate, Verdict};
use crate::render::html::{Page, Scope};
use crate::render::{Output, View, plural};
use crate::report::Report;
use crate::rules::FindingRule;
use crate::{render, sanitize};

/// Scan what `args` names and build the report, and for `--format html`
/// what the page shows beyond it; warnings go to `err`.
fn build_report(args: &ScanArgs, paths: &[PathBuf], err: &mut dyn Write) -> Result<(Report, Option<Page>)> {
    let opts = settings::scan(&args.select)?;
    let mut notes = Vec::new();
    let (mut report, page) = if args.format.needs_page() {
        super::page::scan(paths, &opts, scope(args, paths, opts.judge.redaction), &mut notes)
            .map(|(r, p)| (r, Some(p)))?
    } else {
        (crate::scan(paths, &opts, &mut notes)?, None)
    };
    let agg = &opts.aggregate;
    report.guard = super::guard::record::for_sessions(
        args.guard_state.as_deref(),
        &report.seen.session_ids,
        &agg.filters,
        opts.judge.redaction,
    );
    // Suppressions mark findings; they change no count (docs/config.md).
    super::suppressions::apply(crate::config::active(), &mut report, crate::config::today());
    for note in notes.iter().chain(&report.warnings) {
        writeln!(err, "falseok: warning: {note}")?;
    }
    // Databases here; transcripts' broken lines were named, file by file, in the notes.
    for src in report.sources.iter().filter(|s| crate::source::Format::from_name(&s.format).is_some()) {
        let n = report.findings.iter().filter(|f| f.rule == FindingRule::MalformedRow && f.source == src.path).count();
        if n > 0 {
            let path = sanitize::one_line(&src.path);
            let rows = plural(n as u64, "row");
            writeln!(err, "falseok: warning: {path}: {rows} skipped or repaired (see the malformed-row findings)")?;
        }
    }
    Ok((report, page))
}

/// What the page's commands (`examples`, `show`) must name to read what
/// this scan read: its PATHs (resolved) and the options they share. A
/// path named after a secret is redacted, as everywhere else.
fn scope(args: &ScanArgs, paths: &[PathBuf], redaction: crate::redact::Redaction) -> Scope {
    let s = &args.select;
    let text = |p: &Path| redaction.apply(&p.to_string_lossy()).into_owned();
    let mut options = Vec::new();
    if let Some(f) = &s.judging.source_format {
        options.extend(["--source-format".to_string(), f.clone()]);
    }
    if let Some(f) = &s.judging.tool_schemas {
        options.extend(["--tool-schemas".to_string(), text(f)]);
    }
    if s.judging.no_redact {
        options.push("--no-redact".into());
    }
    if s.no_subagents {
        options.push("--no-subagents".into());
    }
    let mut window = Vec::new();
    for (flag, v) in [("--since", &s.since), ("--until", &s.until), ("--session", &s.session)] {
        if let Some(v) = v {
            window.extend([flag.to_string(), v.clone()]);
        }
    }
    Scope { paths: paths.iter().map(|p| text(p)).collect(), options, window }
}

/// Why nothing was judged, when nothing was: which filter matched nothing
/// and what exists instead. `None` when calls were counted.
pub(crate) fn empty_window(report: &Report, args: &ScanArgs) -> Option<String> {
    if let Some(problem) = unknown_tools(report, &args.select.tools) {
        return Some(problem);
    }
    if report.totals.calls > 0 {
        return None;
    }
    let seen = &report.seen;
    if report.sources.is_empty() {
        return Some("no source was read".into());
    }
    if seen.sessions == 0 {
        return Some(match &args.select.session {
            Some(id) => format!("--session {} matches no session in the sources", sanitize::one_line(id)),
            None => "the sources hold no sessions".into(),
        });
    }
    if seen.calls == 0 {
        return Some(format!("the {} read hold no tool calls", plural(seen.sessions, "session")));
    }
    let day = |t: Option<chrono::DateTime<chrono::Utc>>| t.map_or("?".to_string(), |t| t.to_rfc3339());
    let window: Vec<String> = [("--since", &args.select.since), ("--until", &args.select.until)]
        .into_iter()
        .filter_map(|(flag, v)| v.as_ref().map(|v| format!("{flag} {}", sanitize::one_line(v))))
        .collect();
    if !window.is_empty() {
        return Some(format!(
            "{} matches no call; the {} read run from {} to {}",
            window.join(" "),
            plural(seen.calls, "call"),
            day(seen.first),
            day(seen.last)
        ));
    }
    Some("no call matched the filters".into())
}

/// A `--tool` that names no tool of the sources, with the tools seen.
fn unknown_tools(report: &Report, tools: &[String]) -> Option<String> {
    let seen = &report.seen.tools;
    let missing: Vec<&String> = tools.iter().filter(|t| !seen.contains_key(*t)).collect();
    let first = missing.first()?;
    Some(format!("--tool {}", unknown_tool_text(first, seen.keys().map(String::as_str))))
}

/// "X matches no tool; tools seen: …; did you mean Y?"
fn unknown_tool_text<'a>(name: &str, seen: impl Iterator<Item = &'a str> + Clone) -> String {
    let mut list: Vec<&str> = seen.clone().take(12).collect();
    if seen.clone().count() > 12 {
        list.push("…");
    }
    let list = if list.is_empty() { "none".to_string() } else { list.join(", ") };
    format!(
        "{} matches no tool; tools seen: {}{}",
        sanitize::one_line(name),
        sanitize::one_line(&list),
        suggest::hint(name, seen)
    )
}

/// A `--max-error-rate TOOL=R` naming a tool the sources do not have.
fn check_gate_tools(report: &Report, g: &Gate) -> Result<()> {
    for limit in &g.max_error_rate {
        if let Some(tool) = &limit.tool
            && !report.seen.tools.contains_key(tool)
        {
            let text = unknown_tool_text(tool, report.seen.tools.keys().map(String::as_str));
            return Err(Error::Usage(format!("--max-error-rate {text}")));
        }
    }
    Ok(())
}

/// Print `report` in `args.format`, and append the Markdown summary to
/// `summary` (the file `--summary` names, links resolved) if asked. The
/// summary does not depend on stdout: it is written even when the reader
/// went away (`| head`), whose broken pipe is returned afterwards.
fn render(
    args: &ScanArgs,
    report: &Report,
    page: Option<&Page>,
    term: &Terminal,
    verdict: Option<(&Verdict, &Gate)>,
    summary: Option<&Path>,
    out: &mut dyn Write,
) -> Result<()> {
    let style = render::table::Style { color: term.color(args.color), width: term.width };
    let located = (args.format == Output::Sarif).then(|| super::located::resolve(report));
    let view = View { report, verdict, style, page, located: located.as_deref() };
    let mut shown = || -> Result<()> {
        render::render(args.format, &view, out)?;
        out.flush()?;
        Ok(())
    };
    let shown = shown();
    if let (Some(at), Some(path)) = (summary, &args.summary) {
        append_summary(at, path, report, verdict)?;
    }
    shown
}

/// The most a summary holds: GitHub accepts 1 MiB per step.
const SUMMARY_LIMIT: usize = 512 * 1024;

/// Append the Markdown postmortem to `at`, the file `path` names (GitHub's
/// step summary), in one write; a write that fails is taken back.
fn append_summary(at: &Path, path: &Path, report: &Report, verdict: Option<(&Verdict, &Gate)>) -> Result<()> {
    let mut md = summary_markdown(report, verdict)?;
    cut_summary(&mut md, SUMMARY_LIMIT);
    let cannot =
        |e: std::io::Error| Error::input(path, format!("cannot append the summary: {}", output::write_problem(&e)));
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(at).map_err(cannot)?;
    let before = f.metadata().map_err(cannot)?.len();
    f.write_all(&md).map_err(|e| {
        let _ = f.set_len(before);
        cannot(e)
    })
}

/// The Markdown postmortem, uncut, as far as the summary keeps it: past
/// `SUMMARY_LIMIT` the render is stopped, not finished and thrown away
/// (3,000 tools of 5,000-character names made 15 MB of Markdown to keep
/// 512 KiB of it).
fn summary_markdown(report: &Report, verdict: Option<(&Verdict, &Gate)>) -> Result<Vec<u8>> {
    let mut md = Capped { bytes: Vec::new(), limit: SUMMARY_LIMIT };
    match render::render(Output::Markdown, &View { verdict, ..View::of(report) }, &mut md) {
        Err(_) if md.full() => {}
        rendered => rendered?,
    }
    Ok(md.bytes)
}

/// A buffer that keeps what is written to it until it holds more than
/// `limit` bytes, then refuses every write: a render into it stops there.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl Capped {
    /// Past the limit: the render was stopped.
    fn full(&self) -> bool {
        self.bytes.len() > self.limit
    }
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.full() {
            return Err(std::io::Error::other("the summary is full"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Cut `md` to at most `limit` bytes at the end of a line (or of a
/// character, when one line is longer), close a code fence the cut left
/// open, and say that it was cut.
fn cut_summary(md: &mut Vec<u8>, limit: usize) {
    if md.len() <= limit {
        return;
    }
    let mut cut = md[..limit].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if cut == 0 {
        cut = limit;
        // Back to the first byte of a character (not a continuation byte).
        while cut > 0 && md[cut] & 0xC0 == 0x80 {
            cut -= 1;
        }
    }
    md.truncate(cut);
    if !md.ends_with(b"\n") {
        md.push(b'\n');
    }
    if md.split(|&b| b == b'\n').filter(|line| line.starts_with(b"```")).count() % 2 == 1 {
        md.extend_from_slice(b"```\n");
    }
    md.extend_from_slice(b"\n_Summary truncated at 512 KiB; see --format json._\n");
}

/// `falseok scan`: the report; GitHub and JUnit output use the default
/// gate (any hidden error fails), but a scan never fails.
pub(crate) fn run_scan(
    args: &ScanArgs,
    term: &Terminal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let paths = crate::input::resolve(&args.select.paths)?;
    let inputs = output::Inputs::new(&paths, &args.select.judging.tool_schemas);
    let summary = args.summary.as_deref().map(|s| output::guard(s, &inputs, Written::Summary, false)).transpose()?;
    let (report, page) = build_report(args, &paths, err)?;
    if let Some(why) = empty_window(&report, args) {
        writeln!(err, "falseok: warning: nothing to report: {why}")?;
    }
    render(args, &report, page.as_ref(), term, None, summary.as_deref(), out)?;
    if term.hints && args.format == Output::Table {
        let source_format = args.select.judging.source_format.as_deref();
        super::hint::write(&super::hint::after_scan(&report, &args.select.paths, source_format), err)?;
    }
    Ok(ExitStatus::Clean)
}

/// `falseok check`: the gate. The verdict is decided before anything is
/// written, so a reader that goes away cannot change the exit status.
pub(crate) fn run_check(
    args: &CheckArgs,
    term: &Terminal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let limits = (args.max_failure_cost.as_deref(), args.max_session_failure_cost.as_deref());
    let g = settings::gate(args.max_hidden, &args.max_error_rate, &args.fail_on, limits)?;
    let paths = crate::input::resolve(&args.scan.select.paths)?;
    let inputs = output::Inputs::new(&paths, args.scan.select.judging.tool_schemas.iter().chain(&args.baseline));
    let write_baseline =
        args.write_baseline.as_deref().map(|b| output::guard(b, &inputs, Written::Baseline, args.force)).transpose()?;
    let summary =
        args.scan.summary.as_deref().map(|s| output::guard(s, &inputs, Written::Summary, false)).transpose()?;
    let (report, page) = build_report(&args.scan, &paths, err)?;
    check_gate_tools(&report, &g)?;
    if (g.max_failure_cost.is_some() || g.max_session_failure_cost.is_some()) && report.usage.calls == 0 {
        let flag = if g.max_failure_cost.is_some() { "--max-failure-cost" } else { "--max-session-failure-cost" };
        return Err(Error::Usage(format!(
            "{flag}: these traces record no token usage, so what the failures cost is unknown (docs/analyses.md, \"Tokens and money\")"
        )));
    }
    if let Some(why) = empty_window(&report, &args.scan) {
        if !args.allow_empty {
            return Err(Error::Usage(format!(
                "nothing to judge: {why} (pass --allow-empty if an empty window is fine)"
            )));
        }
        writeln!(err, "falseok: warning: nothing to judge: {why} (--allow-empty)")?;
    }
    if let (Some(path), Some(at)) = (&args.write_baseline, write_baseline) {
        // An empty file, or (--force) one that is not a baseline, has none.
        let old = match std::fs::metadata(&at) {
            Ok(m) if m.len() > 0 && args.force => gate::read_baseline(path).ok(),
            Ok(m) if m.len() > 0 => Some(gate::read_baseline(path)?),
            _ => None,
        };
        let new = gate::baseline_of(&report);
        let (added, removed) = old.as_ref().map_or((report.findings.len() as u64, 0), |o| gate::baseline_diff(o, &new));
        let (pending, mut file) = output::Pending::beside(&at, path)?;
        file.write_all(gate::baseline_text(&new)?.as_bytes())
            .map_err(|e| Error::input(path, format!("cannot write the baseline: {}", output::write_problem(&e))))?;
        drop(file);
        pending.commit()?;
        writeln!(
            out,
            "falseok: baseline {} written: +{added} / -{removed} findings ({} entries, {} findings).",
            sanitize::one_line(&path.display().to_string()),
            new.entries.len(),
            report.findings.len()
        )?;
        return Ok(ExitStatus::Clean);
    }
    let baseline = args.baseline.as_deref().map(gate::read_baseline).transpose()?;
    let verdict = gate::evaluate(&report, &g, baseline.as_ref());
    let status = if verdict.passed() { ExitStatus::Clean } else { ExitStatus::Findings };
    let written = write_check(args, (&report, page.as_ref()), term, (&verdict, &g), summary.as_deref(), out, err);
    super::keep_status_on_closed_pipe(status, written)
}

/// The report, the stale-baseline note and the closing sentence of `check`.
fn write_check(
    args: &CheckArgs,
    (report, page): (&Report, Option<&Page>),
    term: &Terminal,
    verdict: (&Verdict, &Gate),
    summary: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    // The note and the sentence do not depend on stdout either.
    let rendered = render(&args.scan, report, page, term, Some(verdict), summary, out);
    if let Err(e) = &rendered
        && !e.is_broken_pipe()
    {
        return rendered;
    }
    let (v, g) = verdict;
    for line in &v.expired {
        writeln!(err, "falseok: error: {}", sanitize::one_line(line))?;
    }
    if !v.stale.is_empty() {
        let n: u64 = v.stale.iter().map(|e| e.count).sum();
        writeln!(
            err,
            "falseok: note: {n} baseline findings ({} entries) no longer occur; old sessions may have rotated out (refresh with --write-baseline)",
            v.stale.len()
        )?;
    }
    let sentence = v.sentence(report, g);
    // After a table it goes to stdout, unless the reader went away.
    let mut said = false;
    if args.scan.format == Output::Table && rendered.is_ok() {
        match writeln!(out).and_then(|()| writeln!(out, "{sentence}")).and_then(|()| out.flush()) {
            Ok(()) => said = true,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => return Err(e.into()),
        }
    }
    if !said {
        writeln!(err, "{sentence}")?;
    }
    rendered
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cut at a line end, or at a character boundary inside a longer line;
    /// an open fence closed; what fits is not cut.
    #[test]
    fn summaries_are_cut_at_a_line_or_character_boundary() {
        let cut = |text: &str, limit: usize| {
            let mut md = text.as_bytes().to_vec();
            cut_summary(&mut md, limit);
            String::from_utf8(md).expect("valid UTF-8")
        };
        let note = "\n_Summary truncated at 512 KiB; see --format json._\n";
        assert_eq!(cut("short\n", 100), "short\n");
        assert_eq!(cut("one\ntwo ツール\nthree\n", 12), format!("one\n{note}"));
        assert_eq!(cut("ツールツール", 7), format!("ツー\n{note}"));
        assert_eq!(cut("ツ", 2), format!("\n{note}"));
        assert_eq!(cut("a\n```mermaid\nflow\nmore\n```\n", 20), format!("a\n```mermaid\nflow\n```\n{note}"));
    }

    /// Issue 55: a summary of 3,000 tools with 5,000-character names is
    /// rendered only as far as it is kept (the whole Markdown is 15 MB),
    /// and what is kept is the start of the whole, cut as ever.
    #[test]
    fn a_summary_is_rendered_only_as_far_as_it_is_kept() {
        let mut report = crate::aggregate::Aggregator::new(Default::default(), Default::default()).finish();
        for i in 0..3000 {
            report.tools.push(crate::report::ToolReport {
                tool: format!("mcp__s{i:04}__{}", "long_tool_name_".repeat(333)),
                calls: 1,
                errors: 1,
                content_errors: 1,
                hidden_errors: 1,
                ..Default::default()
            });
        }
        report.totals.calls = 3000;
        report.totals.errors = 3000;
        let mut whole = Vec::new();
        render::render(Output::Markdown, &View::of(&report), &mut whole).unwrap();
        assert!(whole.len() > 10 << 20, "{}", whole.len());
        let kept = summary_markdown(&report, None).unwrap();
        assert!(kept.len() < SUMMARY_LIMIT + (64 << 10), "rendered {} bytes", kept.len());
        assert!(whole.starts_with(&kept));
        let (mut kept, mut all) = (kept, whole);
        cut_summary(&mut kept, SUMMARY_LIMIT);
        cut_summary(&mut all, SUMMARY_LIMIT);
        assert_eq!(kept, all);
    }
}
