//! `import`: transcripts into falseok's own schema.

use std::io::Write;

use super::output::{self, Written};
use crate::cli::ImportArgs;
use crate::error::Result;
use crate::import;
use crate::sanitize::one_line;

pub(crate) fn run_import(args: &ImportArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let agent = match crate::input::forced_format(args.source_format.as_deref())? {
        (Some(db), _) => {
            return Err(crate::error::Error::Usage(format!(
                "--source-format {}: import reads transcripts; {} is a database format, read directly by scan",
                db.as_str(),
                db.as_str()
            )));
        }
        (None, agent) => agent,
    };
    let inputs = output::Inputs::new(&args.sources, []);
    let at = output::guard(&args.into, &inputs, Written::Database, false)?;
    let stats = if std::fs::metadata(&at).is_ok_and(|m| m.len() > 0) {
        // An existing database: one transaction, which SQLite rolls back
        // if the import is cut.
        import::import(&args.sources, &import::Target::Into { named: &args.into, at: &at }, agent)?
    } else {
        // A new one is whole or absent: written beside, then renamed.
        let (pending, file) = output::Pending::beside(&at, &args.into)?;
        drop(file);
        let stats =
            import::import(&args.sources, &import::Target::Into { named: &args.into, at: pending.path() }, agent)?;
        pending.commit()?;
        stats
    };
    let products: Vec<&str> = import::infos().map(|i| i.product).collect();
    let known = crate::input::or_list(&products);
    for note in import::unrecognised_notes(&stats.unrecognised, &format!("{known} transcript")) {
        writeln!(err, "falseok: warning: {note}")?;
    }
    for note in import::broken_line_notes(&stats.broken_lines) {
        writeln!(err, "falseok: warning: {note}")?;
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
