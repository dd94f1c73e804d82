//! `merge`: JSON reports from many machines combined into the report one
//! scan of all their sources would give (totals, tools, categories,
//! reasons, findings, recovery, streaks, repairs, feedback, schema), and
//! the guard's interventions of every report's sessions.

use std::io::Write;

use super::Terminal;
use crate::aggregate::{AggregateOptions, Aggregator};
use crate::cli::MergeArgs;
use crate::error::{Error, Result};
use crate::judge::JudgeOptions;
use crate::redact::Redaction;
use crate::render;
use crate::report::{CONTRACT_VERSION, OLDEST_MERGED, Report};
use crate::sanitize::one_line;

/// Every string of a report file, map keys included, redacted: a report
/// made with `scan --no-redact`, or by anything else, is redacted like a
/// trace (`merge --no-redact` keeps them).
fn redact_strings(v: &mut serde_json::Value, redaction: Redaction) {
    use serde_json::Value;
    let hide = |t: &str| match redaction.apply(t) {
        std::borrow::Cow::Owned(o) => Some(o),
        std::borrow::Cow::Borrowed(_) => None,
    };
    match v {
        Value::String(s) => {
            if let Some(o) = hide(s) {
                *s = o;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact_strings(x, redaction)),
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().filter(|k| hide(k).is_some()).cloned().collect();
            for k in keys {
                if let Some(x) = o.remove(&k) {
                    o.insert(hide(&k).unwrap_or(k), x);
                }
            }
            o.values_mut().for_each(|x| redact_strings(x, redaction));
        }
        _ => {}
    }
}

/// Read one report, checking its contract version; its text redacted as
/// `redaction` says.
fn read(path: &std::path::Path, text: &str, redaction: Redaction) -> Result<Report> {
    let mut v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Error::input(path, format!("not a JSON report: {e}")))?;
    if redaction == Redaction::On {
        redact_strings(&mut v, redaction);
    }
    match v.get("schema_version").and_then(serde_json::Value::as_u64) {
        Some(n) if (u64::from(OLDEST_MERGED)..=u64::from(CONTRACT_VERSION)).contains(&n) => {}
        Some(n) => {
            return Err(Error::input(
                path,
                format!(
                    "a report of contract v{n}; merge reads v{OLDEST_MERGED} to v{CONTRACT_VERSION} (scan again with this falseok)"
                ),
            ));
        }
        None => return Err(Error::input(path, "not a falseok JSON report (no schema_version)")),
    }
    serde_json::from_value(v).map_err(|e| Error::input(path, format!("not a falseok v{CONTRACT_VERSION} report: {e}")))
}

/// The merged report of `reports`. Their streak thresholds and drift
/// thresholds must agree: counts under different thresholds do not add.
pub(crate) fn merge(reports: &[(String, Report)], redaction: Redaction) -> Result<Report> {
    let Some((_, first)) = reports.first() else { return Err(Error::Usage("no report to merge".into())) };
    let options = AggregateOptions { drift_min: first.schema.drift_min, ..AggregateOptions::default() };
    let judge = JudgeOptions { streak_threshold: first.streaks.threshold as usize, redaction };
    let mut agg = Aggregator::new(options, judge);
    for (name, r) in reports {
        if r.streaks.threshold != first.streaks.threshold || r.schema.drift_min != first.schema.drift_min {
            return Err(Error::input(
                name,
                format!(
                    "made with --streak-threshold {} and --drift-min {}, the first report with {} and {}: scan again with the same settings",
                    r.streaks.threshold, r.schema.drift_min, first.streaks.threshold, first.schema.drift_min
                ),
            ));
        }
        agg.absorb(r).map_err(|e| Error::input(name, format!("not a report a scan writes: {}", one_line(&e))))?;
    }
    let mut merged = agg.finish();
    // The guard's record of a session is one record, whichever reports
    // carried it: the first one counts.
    let mut guard = std::collections::BTreeMap::new();
    for g in reports.iter().flat_map(|(_, r)| &r.guard) {
        guard.entry(g.session.clone()).or_insert_with(|| g.clone());
    }
    merged.guard = guard.into_values().collect();
    merged.suppressions = merge_suppressions(reports);
    Ok(merged)
}

/// The suppressions of every report: one row per suppression (the same
/// file, line, names, reason and date), its findings added up; expired
/// when it was in any report.
fn merge_suppressions(reports: &[(String, Report)]) -> crate::report::Suppressions {
    let mut rows: Vec<crate::report::SuppressionRow> = Vec::new();
    for r in reports.iter().flat_map(|(_, r)| &r.suppressions.entries) {
        let same = |x: &&mut crate::report::SuppressionRow| {
            (&x.origin, &x.rule, &x.tool, &x.session, &x.call, &x.reason, &x.expires)
                == (&r.origin, &r.rule, &r.tool, &r.session, &r.call, &r.reason, &r.expires)
        };
        match rows.iter_mut().find(same) {
            Some(x) => {
                x.suppressed = x.suppressed.saturating_add(r.suppressed);
                x.expired |= r.expired;
            }
            None => rows.push(r.clone()),
        }
    }
    super::suppressions::summarize(rows)
}

/// What a report file is, whatever the path that names it: (device, inode).
#[cfg(unix)]
fn identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &std::path::Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(path).ok()
}

pub(crate) fn run_merge(args: &MergeArgs, term: &Terminal, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let mut reports = Vec::new();
    let redaction = if args.no_redact { Redaction::Off } else { Redaction::On };
    // The same report given twice (the same file under any name, or a copy
    // with the same bytes) would count its sources twice: it is counted once,
    // with a warning naming it.
    let mut seen: Vec<(&std::path::Path, _, String)> = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path).map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
        let id = identity(path);
        let shown = |p: &std::path::Path| one_line(&p.display().to_string());
        if let Some((first, _, _)) = seen.iter().find(|(_, i, t)| (id.is_some() && *i == id) || *t == text) {
            let how = if *first == path.as_path() {
                "given twice".to_string()
            } else {
                format!("the same report as {}", shown(first))
            };
            writeln!(err, "falseok: warning: {}: {how}, counted once", shown(path))?;
            continue;
        }
        reports.push((path.display().to_string(), read(path, &text, redaction)?));
        seen.push((path, id, text));
    }
    let report = merge(&reports, redaction)?;
    // Only the outputs `Output::merges` names reach here (clap refuses the
    // others): no verdict, no page.
    let style = render::table::Style { color: term.color(args.color), width: term.width };
    render::render(args.format, &render::View { style, ..render::View::of(&report) }, out)
}

#[cfg(test)]
mod tests {
    use clap::{Parser, ValueEnum};

    use crate::cli::{Cli, Command};
    use crate::render::Output;

    /// `merge --format` takes exactly the outputs `Output::merges` names,
    /// and refuses the others as clap refuses a value, naming the ones it takes.
    #[test]
    fn merge_takes_the_outputs_that_merge() {
        let parse = |format: &str| Cli::try_parse_from(["falseok", "merge", "a.json", "--format", format]);
        for o in Output::value_variants() {
            let name = o.to_possible_value().expect("named").get_name().to_string();
            match parse(&name) {
                Ok(Cli { command: Command::Merge(args), .. }) => {
                    assert!(o.merges(), "{name}");
                    assert_eq!(args.format, *o);
                }
                Ok(_) => panic!("{name}: not merge"),
                Err(e) => {
                    assert!(!o.merges(), "{name}: {e}");
                    assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
                    assert!(e.to_string().contains("[possible values: table, json, markdown, csv]"), "{e}");
                }
            }
        }
        let Ok(Cli { command: Command::Merge(args), .. }) = Cli::try_parse_from(["falseok", "merge", "a.json"]) else {
            panic!("merge without --format")
        };
        assert_eq!(args.format, Output::Table);
    }
}
