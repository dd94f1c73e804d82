//! `import`: transcripts into tracelint's own schema.

use std::io::Write;

use crate::cli::ImportArgs;
use crate::error::Result;
use crate::import;
use crate::sanitize::one_line;

pub fn run_import(args: &ImportArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let stats = import::import(&args.sources, &args.into)?;
    for note in import::skipped_notes(&stats) {
        writeln!(err, "tracelint: warning: {note}")?;
    }
    writeln!(
        out,
        "imported {} files into {}: {} sessions, {} new calls, {} new results",
        stats.files,
        one_line(&args.into.display().to_string()),
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
