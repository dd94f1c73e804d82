//! `falseok metrics`: scan with `scan`'s options and print the report as
//! Prometheus text (`render::metrics`), or write it whole to `--out` for
//! node_exporter's textfile collector.

use std::io::Write;

use super::output::{self, Pending, Written};
use super::settings;
use crate::cli::MetricsArgs;
use crate::error::{Error, Result};

pub(crate) fn run_metrics(args: &MetricsArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let opts = settings::scan(&args.select)?;
    let paths = crate::input::resolve(&args.select.paths)?;
    // Where --out may go is decided before anything is read.
    let target = match &args.out {
        Some(path) => {
            let inputs = output::Inputs::new(&paths, &args.select.judging.tool_schemas);
            let at = output::guard(path, &inputs, Written::Metrics, args.force)?;
            // The temporary file goes beside it: its folder must exist (the
            // collector's folder always does; a typo should not make one).
            let folder = at.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            if !folder.is_dir() {
                let folder = crate::sanitize::one_line(&folder.display().to_string());
                return Err(Error::input(path, format!("cannot write: the folder {folder} does not exist")));
            }
            Some((at, path))
        }
        None => None,
    };
    let mut notes = Vec::new();
    let report = crate::scan(&paths, &opts, &mut notes)?;
    let scanned_at = chrono::Utc::now();
    for note in notes.iter().chain(&report.warnings) {
        writeln!(err, "falseok: warning: {note}")?;
    }
    let mut text = crate::render::metrics::exposition(&report, scanned_at);
    // The live guard's own counts, when it kept any (docs/guard.md).
    text.push_str(&super::guard::exposition());
    match target {
        None => {
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        Some((at, shown)) => {
            let (pending, mut file) = Pending::beside(&at, shown)?;
            let cannot =
                |e: std::io::Error| Error::input(shown, format!("cannot write: {}", output::write_problem(&e)));
            file.write_all(text.as_bytes()).map_err(cannot)?;
            file.sync_all().map_err(cannot)?;
            drop(file);
            pending.commit()?;
        }
    }
    Ok(())
}
