//! Command-line arguments turned into the library's settings: times
//! parsed, formats and schema files resolved, gate limits validated. Every
//! usage error is found here, before anything is read.

use std::path::PathBuf;

use crate::ScanOptions;
use crate::aggregate::{AggregateOptions, Filters};
use crate::cli::{JudgingArgs, ScanArgs};
use crate::error::{Error, Result};
use crate::gate::{FailOn, Gate, RateLimit};
use crate::redact::Redaction;
use crate::sanitize;
use crate::schema::{self, FileSchemas};
use crate::source::{self, SourceOptions};
use crate::timespec;

/// The redaction `--no-redact` asks for.
pub fn redaction(j: &JudgingArgs) -> Redaction {
    if j.no_redact { Redaction::Off } else { Redaction::On }
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

/// The `--tool-schemas` file, read and checked.
pub fn tool_schemas(j: &JudgingArgs) -> Result<FileSchemas> {
    Ok(j.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default())
}

/// The scan options shared by every judging command: the judging flags, and
/// default filters and thresholds.
pub fn judging(j: &JudgingArgs, no_subagents: bool) -> Result<ScanOptions> {
    Ok(ScanOptions {
        source: SourceOptions { no_subagents, session: None, format: source_format(j.source_format.as_deref())? },
        tool_schemas: tool_schemas(j)?,
        aggregate: AggregateOptions { redaction: redaction(j), ..AggregateOptions::default() },
    })
}

/// Everything `scan` and `check` need besides the gate.
pub fn scan(args: &ScanArgs) -> Result<ScanOptions> {
    let now = chrono::Utc::now();
    let time = |v: &Option<String>, flag: &str| -> Result<_> {
        v.as_deref().map(|s| timespec::parse(s, now).map_err(|e| Error::Usage(format!("{flag}: {e}")))).transpose()
    };
    let filters = Filters {
        since: time(&args.since, "--since")?,
        until: time(&args.until, "--until")?,
        tools: args.tools.clone(),
    };
    let mut opts = judging(&args.judging, args.no_subagents)?;
    opts.source.session = args.session.clone();
    opts.aggregate = AggregateOptions {
        filters,
        streak_threshold: args.streak_threshold,
        drift_min: args.drift_min,
        redaction: redaction(&args.judging),
    };
    Ok(opts)
}

/// The gate `check` applies.
pub fn gate(max_hidden: u64, rates: &[String], fail_on: &[String]) -> Result<Gate> {
    fn usage(flag: &'static str) -> impl Fn(String) -> Error {
        move |e| Error::Usage(format!("{flag}: {e}"))
    }
    let max_error_rate =
        rates.iter().map(|r| RateLimit::parse(r).map_err(usage("--max-error-rate"))).collect::<Result<Vec<_>>>()?;
    let mut lists = Vec::new();
    for f in fail_on {
        lists.extend(FailOn::parse_list(f).map_err(usage("--fail-on"))?);
    }
    Ok(Gate { max_hidden, max_error_rate, fail_on: lists })
}

/// A file tracelint writes must not be one of its inputs.
pub fn not_an_input(file: &PathBuf, inputs: &[PathBuf], what: &str) -> Result<()> {
    let canonical = std::fs::canonicalize(file).ok();
    if canonical.is_some() && inputs.iter().any(|p| std::fs::canonicalize(p).ok() == canonical) {
        return Err(Error::Usage(format!(
            "{} is a trace given as input, not a {what}",
            sanitize::one_line(&file.display().to_string())
        )));
    }
    Ok(())
}
