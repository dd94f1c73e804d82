//! Command-line arguments turned into the library's settings: times
//! parsed, formats and schema files resolved, gate limits validated. Every
//! usage error is found here, before anything is read.

use std::path::PathBuf;

use super::output::{self, Written};
use crate::aggregate::{AggregateOptions, Filters};
use crate::cli::{JudgingArgs, SelectArgs};
use crate::error::{Error, Result};
use crate::gate::{FailOn, Gate, RateLimit};
use crate::judge::JudgeOptions;
use crate::redact::Redaction;
use crate::schema::{self, FileSchemas};
use crate::source::{SessionFilter, SourceOptions};
use crate::spine::ScanOptions;
use crate::timespec;

/// The redaction `--no-redact` asks for.
pub(crate) fn redaction(j: &JudgingArgs) -> Redaction {
    if j.no_redact { Redaction::Off } else { Redaction::On }
}

/// The `--tool-schemas` file, read and checked.
pub(crate) fn tool_schemas(j: &JudgingArgs) -> Result<FileSchemas> {
    Ok(j.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default())
}

/// The scan options shared by every judging command: the judging flags, and
/// default filters and thresholds.
pub(crate) fn judging(j: &JudgingArgs, no_subagents: bool) -> Result<ScanOptions> {
    let (format, transcripts) = crate::input::forced_format(j.source_format.as_deref())?;
    // `--prices FILE` over the configuration's `[prices]`, over the shipped table.
    let configured = &crate::config::active().prices;
    if let Some(path) = &j.prices {
        crate::prices::install(crate::prices::Prices::with_file(path)?);
    } else if !configured.is_empty() {
        let rows = configured
            .iter()
            .map(|p| crate::prices::Price {
                model: p.model.clone(),
                input: p.input,
                output: p.output,
                cache_read: p.cache_read,
                cache_write: p.cache_write,
                source: crate::config::active().path.as_ref().map(|f| f.display().to_string()),
            })
            .collect();
        let theirs = crate::prices::Prices { about: None, date: None, models: rows };
        crate::prices::install(crate::prices::Prices::over_builtin(theirs).map_err(crate::error::Error::Usage)?);
    }
    Ok(ScanOptions {
        source: SourceOptions {
            no_subagents,
            session: None,
            format,
            transcripts,
            after_row: None,
            threads_after: None,
        },
        tool_schemas: tool_schemas(j)?,
        aggregate: AggregateOptions::default(),
        judge: JudgeOptions { redaction: redaction(j), ..JudgeOptions::default() },
        index: None,
        index_note: None,
    })
}

/// Everything `scan` and `check` need besides the gate.
pub(crate) fn scan(args: &SelectArgs) -> Result<ScanOptions> {
    let now = chrono::Utc::now();
    let time = |v: &Option<String>, flag: &str| -> Result<_> {
        v.as_deref().map(|s| timespec::parse(s, now).map_err(|e| Error::Usage(format!("{flag}: {e}")))).transpose()
    };
    // Tool names holding a secret are redacted by the judge: so are the filter's.
    let redaction = redaction(&args.judging);
    let filters = Filters {
        since: time(&args.since, "--since")?,
        until: time(&args.until, "--until")?,
        tools: args.tools.iter().map(|t| redaction.apply(t).into_owned()).collect(),
    };
    if let (Some(since), Some(until)) = (filters.since, filters.until)
        && since >= until
    {
        return Err(Error::Usage(format!(
            "--since {} is not before --until {}: the window is empty",
            since.to_rfc3339(),
            until.to_rfc3339()
        )));
    }
    let mut opts = judging(&args.judging, args.no_subagents)?;
    // A window relative to now ("7d") counts other calls on every run: its
    // counts are never the same twice, so they are not kept.
    let relative = |v: &Option<String>| {
        v.as_deref().is_some_and(|s| {
            let then = now - chrono::Duration::days(1);
            timespec::parse(s, now).ok() != timespec::parse(s, then).ok()
        })
    };
    // The index keeps dollars priced by the shipped table: other prices read.
    if !(args.no_index || args.judging.prices.is_some() || relative(&args.since) || relative(&args.until)) {
        (opts.index, opts.index_note) = index_dir(args);
    }
    opts.source.session = args.session.clone().map(SessionFilter::Prefix);
    opts.aggregate = AggregateOptions { filters, drift_min: args.drift_min };
    opts.judge = JudgeOptions { streak_threshold: args.streak_threshold, redaction };
    Ok(opts)
}

/// The index folder of a run that may use one (`--index DIR`, else the
/// user's cache), or why it reads without one: no cache folder, or a
/// folder the output guard refuses, as it refuses `--out` there (an input,
/// a folder inside an input folder or a default trace location): the
/// index never writes into an input, and a later scan of that folder
/// would read its entries as traces.
fn index_dir(args: &SelectArgs) -> (Option<PathBuf>, Option<String>) {
    let root = match &args.index {
        Some(dir) => dir.clone(),
        None => match crate::index::default_dir() {
            Ok(Some(dir)) => dir,
            Ok(None) => return (None, None),
            Err(why) => return (None, Some(why)),
        },
    };
    let inputs = output::Inputs::new(&args.paths, &args.judging.tool_schemas);
    match output::guard(&root, &inputs, Written::Index, false) {
        Ok(_) => (Some(root), None),
        Err(Error::Input { path, problem }) => {
            let shown = crate::sanitize::one_line(&path.display().to_string());
            (None, Some(format!("the index folder {shown} cannot be used: it {problem}; reading without it")))
        }
        Err(e) => (None, Some(e.to_string())),
    }
}

/// The gate `check` applies.
pub(crate) fn gate(
    max_hidden: u64,
    rates: &[String],
    fail_on: &[String],
    (max_cost, max_session_cost): (Option<&str>, Option<&str>),
) -> Result<Gate> {
    fn usage(flag: &'static str) -> impl Fn(String) -> Error {
        move |e| Error::Usage(format!("{flag}: {e}"))
    }
    let max_error_rate =
        rates.iter().map(|r| RateLimit::parse(r).map_err(usage("--max-error-rate"))).collect::<Result<Vec<_>>>()?;
    let mut lists = Vec::new();
    for name in fail_on.iter().flat_map(|f| f.split(',')).map(str::trim).filter(|x| !x.is_empty()) {
        let known = crate::rules::FindingRule::ids().chain(crate::rules::Category::all().map(|c| c.as_str()));
        let hint = super::suggest::hint(name, known);
        lists.extend(FailOn::parse_list(name).map_err(|e| Error::Usage(format!("--fail-on: {e}{hint}")))?);
    }
    let max_failure_cost =
        max_cost.map(|c| crate::gate::CostLimit::parse(c).map_err(usage("--max-failure-cost"))).transpose()?;
    let max_session_failure_cost = max_session_cost
        .map(|c| crate::gate::CostLimit::parse(c).map_err(usage("--max-session-failure-cost")))
        .transpose()?;
    Ok(Gate { max_hidden, max_error_rate, fail_on: lists, max_failure_cost, max_session_failure_cost })
}
