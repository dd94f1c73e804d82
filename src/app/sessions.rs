//! `falseok sessions`: every session judged, worst first.

use std::io::Write;

use super::{Terminal, settings};
use crate::aggregate::{Filters, sessions};
use crate::cli::{SessionsArgs, SessionsFormat};
use crate::error::Result;
use crate::judge::JudgedSession;
use crate::render;
use crate::report::{SESSIONS_VERSION, SessionRow, SessionsReport};
use crate::spine::{SourceStart, Visitor};

/// Rows listed in a table when `--limit` is not given.
const TABLE_ROWS: usize = 20;

/// Collects one row per session, with the PATH it came from.
struct Rows {
    filters: Filters,
    threshold: usize,
    source: String,
    rows: Vec<SessionRow>,
    /// The walk's notes and the sources' warnings, said on stderr.
    told: super::Told,
    redaction: crate::redact::Redaction,
}

impl Visitor for Rows {
    fn source(&mut self, start: SourceStart<'_>) {
        self.told.source(&start, self.redaction);
        self.source = start.path.to_string();
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        if let Some(row) = sessions::row(&s, &self.source, &self.filters, self.threshold) {
            self.rows.push(row);
        }
        true
    }

    fn note(&mut self, note: String) {
        self.told.notes.push(note);
    }
}

impl crate::index::Taker for Rows {
    fn take(&mut self, entry: &crate::index::Entry) -> Result<()> {
        self.rows.extend(entry.rows.iter().cloned());
        // Kept redacted, as the aggregator keeps them.
        self.told.warnings.extend(entry.partial.warnings.iter().cloned());
        Ok(())
    }
}

pub(crate) fn run_sessions(
    args: &SessionsArgs,
    term: &Terminal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let paths = crate::input::resolve(&args.select.paths)?;
    let opts = settings::scan(&args.select)?;
    let mut rows = Rows {
        filters: opts.aggregate.filters.clone(),
        threshold: opts.judge.streak_threshold.max(2),
        source: String::new(),
        rows: Vec::new(),
        told: super::Told::default(),
        redaction: opts.judge.redaction,
    };
    crate::walk_maybe_indexed(&paths, &opts, &mut rows)?;
    rows.told.say(err)?;
    let mut all = rows.rows;
    sessions::sort(&mut all);
    let total = all.len() as u64;
    let limit = match (args.limit, args.format) {
        (Some(0), _) => usize::MAX,
        (Some(n), _) => n,
        (None, SessionsFormat::Table) => TABLE_ROWS,
        (None, _) => usize::MAX,
    };
    all.truncate(limit);
    let report = SessionsReport { sessions_version: SESSIONS_VERSION, total, shown: all.len() as u64, sessions: all };
    match args.format {
        SessionsFormat::Table => {
            let style = render::table::Style { color: term.color(args.color), width: term.width };
            render::sessions::table(&report, &style, out)?;
        }
        SessionsFormat::Json => render::sessions::json(&report, out)?,
        SessionsFormat::Csv => render::sessions::csv(&report, out)?,
    }
    out.flush()?;
    Ok(())
}
