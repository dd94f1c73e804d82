//! `export`: one row per judged call, to a file, a folder of Hive-style
//! day partitions, or stdout. The exporter (`exporter`) writes the rows;
//! `--incremental` (`incremental`) adds only what is new to a partitioned
//! dataset, keeping its manifest.

use std::io::Write;

use super::{output, settings};
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::Result;

mod exporter;
mod incremental;

/// `falseok export`: the rows of every judged call, written as `args` say.
pub(crate) fn run_export(args: &ExportArgs, out: &mut (dyn Write + Send), err: &mut dyn Write) -> Result<()> {
    let opts = settings::scan(&args.select)?;
    let paths = crate::input::resolve(&args.select.paths)?;
    if args.format == ExportFormat::Parquet && !cfg!(feature = "parquet") {
        return Err(exporter::no_parquet());
    }
    let inputs = output::Inputs::new(&paths, &args.select.judging.tool_schemas);
    let (mut exporter, made_dir, incremental) = exporter::open(args, out, &inputs, &opts)?;
    if let Some(dir) = incremental {
        return incremental::run(args, &opts, &paths, (&dir, &inputs), exporter, err);
    }
    let walked = crate::walk(&paths, &opts, &mut exporter);
    let mut told = std::mem::take(&mut exporter.told);
    let rows = match walked {
        Ok(()) => exporter.finish(),
        Err(e) => {
            drop(exporter);
            Err(e)
        }
    };
    if rows.is_err()
        && let Some(dir) = made_dir
    {
        // Only if still empty: the folder this export made for nothing.
        let _ = std::fs::remove_dir(dir);
    }
    told.say(err)?;
    let rows = rows?;
    if let Some(path) = &args.out {
        writeln!(err, "falseok: exported {rows} calls to {}", crate::sanitize::one_line(&path.display().to_string()))?;
    }
    Ok(())
}
