//! One handler per command. Handlers take parsed arguments, resolve them
//! into settings (`settings`), walk the spine in `lib.rs` and write through
//! the writers `main` hands down. They never print or exit themselves.

pub(crate) mod drill;
pub(crate) mod export;
pub(crate) mod guard;
pub(crate) mod hint;
pub(crate) mod import;
pub(crate) mod listings;
pub(crate) mod located;
pub(crate) mod merge;
pub(crate) mod metrics;
pub(crate) mod output;
pub(crate) mod page;
pub(crate) mod scan;
pub(crate) mod sessions;
pub(crate) mod settings;
pub(crate) mod suggest;
pub(crate) mod suppressions;
pub(crate) mod watch;

use std::io::Write;

use crate::cli::{Cli, Command};
use crate::error::Result;

/// The progress of the scan under way, which `main` draws on stderr.
pub mod progress {
    pub use crate::progress::{finish, is_finished, snapshot};
}

/// The run's scratch files, which `main` removes on a signal or a panic.
pub mod scratch {
    pub use crate::scratch::remove_all;
}

/// How a command ended, before `main` turns it into an exit code. Errors
/// (exit 2) travel as `Err`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0: done, nothing failed.
    Clean,
    /// Exit 1: the gate found defects.
    Findings,
    /// Exit 1: `guard` could not judge and said why on stderr; every
    /// agent's hook runner takes 1 as "ignored", never as a block (2 is).
    FailedOpen,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Findings | ExitStatus::FailedOpen => 1,
        }
    }
}

/// What `main` found out about the terminal stdout goes to.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal {
    /// `--color auto` colours: stdout is a terminal and `NO_COLOR` is unset.
    pub color_by_default: bool,
    /// The width to fit output to: the terminal's, or `COLUMNS`; `None`
    /// when stdout is not a terminal and `COLUMNS` is unset.
    pub width: Option<u16>,
    /// Someone reads the output on a terminal (stdout and stderr are both
    /// terminals): `scan` ends with a hint naming the next commands.
    pub hints: bool,
}

impl Terminal {
    pub fn color(&self, choice: crate::cli::ColorChoice) -> bool {
        match choice {
            crate::cli::ColorChoice::Always => true,
            crate::cli::ColorChoice::Never => false,
            crate::cli::ColorChoice::Auto => self.color_by_default,
        }
    }
}

/// Run the command `cli` names on the terminal `term`. `--exit-zero` is
/// applied here, and only here.
pub fn run(cli: &Cli, term: &Terminal, out: &mut (dyn Write + Send), err: &mut dyn Write) -> Result<ExitStatus> {
    let done = |r: Result<()>| r.map(|()| ExitStatus::Clean);
    if judges(&cli.command) {
        let installed = config_choice(cli).and_then(crate::config::load).and_then(crate::config::install);
        match installed {
            Ok(()) => {}
            // The hook fails open: the call goes on unguarded.
            Err(e) if matches!(&cli.command, Command::Guard(_)) => {
                let _ = writeln!(
                    err,
                    "falseok guard: {}; the call goes on unguarded",
                    crate::sanitize::one_line(&e.to_string())
                );
                return Ok(ExitStatus::FailedOpen);
            }
            Err(e) => return Err(e),
        }
    }
    match &cli.command {
        Command::Scan(args) => scan::run_scan(args, term, out, err),
        Command::Check(args) => {
            let status = scan::run_check(args, term, out, err)?;
            Ok(if args.exit_zero { ExitStatus::Clean } else { status })
        }
        Command::Sessions(args) => done(sessions::run_sessions(args, term, out, err)),
        Command::Examples(args) => done(fitted(term, true, out, |o| drill::run_examples(args, o, err))),
        Command::Show(args) => done(fitted(term, true, out, |o| drill::run_show(args, o, err))),
        Command::Rules(args) if args.command.is_some() => listings::run_rules_test(out),
        Command::Rules(args) => {
            let text = args.format == crate::cli::RulesFormat::Table;
            done(fitted(term, text, out, |o| listings::run_rules(args, o)))
        }
        Command::Schemas(args) => {
            let text = args.format == crate::cli::RulesFormat::Table;
            done(fitted(term, text, out, |o| listings::run_schemas(args, o, err)))
        }
        Command::Formats => done(fitted(term, true, out, listings::run_formats)),
        Command::Import(args) => done(import::run_import(args, out, err)),
        Command::Export(args) => done(export::run_export(args, out, err)),
        Command::Merge(args) => done(merge::run_merge(args, term, out, err)),
        Command::Watch(args) => done(watch::run_watch(args, term.width, out, err)),
        Command::Metrics(args) => done(metrics::run_metrics(args, out, err)),
        Command::Guard(args) => {
            use std::io::IsTerminal;
            let terminal = std::io::stdin().is_terminal();
            guard::run(args, &mut std::io::stdin().lock(), terminal, out, err)
        }
        Command::Completions(args) => {
            // Into memory first: clap_complete panics when its writer fails
            // (a closed pipe), and no input may make falseok panic.
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "falseok", &mut script);
            out.write_all(&script)?;
            Ok(ExitStatus::Clean)
        }
    }
}

/// Does the command judge calls (and so read the configuration file)?
fn judges(command: &Command) -> bool {
    match command {
        Command::Guard(g) => g.command.is_none(),
        Command::Schemas(_) | Command::Formats | Command::Import(_) | Command::Merge(_) | Command::Completions(_) => {
            false
        }
        _ => true,
    }
}

/// `--isolated`, `--config FILE`, else the search from the current folder.
fn config_choice(cli: &Cli) -> Result<crate::config::Choice<'_>> {
    use crate::config::Choice;
    if cli.isolated {
        return Ok(Choice::Isolated);
    }
    if let Some(path) = &cli.config {
        return Ok(Choice::File(path));
    }
    let here = std::env::current_dir()
        .map_err(|e| crate::error::Error::Usage(format!("cannot read the current folder: {e}")))?;
    Ok(Choice::Search(here))
}

/// What a walk told the user, said on stderr as `scan` says it: the walk's
/// notes (`Visitor::note`), then how each source had to be opened,
/// redacted as the report's `warnings` are. Every command that walks
/// without a report keeps one.
#[derive(Default)]
pub(super) struct Told {
    pub(super) notes: Vec<String>,
    pub(super) warnings: Vec<String>,
}

impl Told {
    pub(super) fn source(&mut self, start: &crate::spine::SourceStart<'_>, redaction: crate::redact::Redaction) {
        self.warnings.extend(start.warnings.iter().map(|w| redaction.apply(w).into_owned()));
    }

    /// Say everything told so far, once.
    pub(super) fn say(&mut self, err: &mut dyn Write) -> Result<()> {
        for note in self.notes.drain(..).chain(self.warnings.drain(..)) {
            writeln!(err, "falseok: warning: {note}")?;
        }
        Ok(())
    }
}

/// Run `write` on `out`, its text wrapped to the terminal's width at word
/// boundaries (`render::fit`) when the width is known and `text` says the
/// output is prose, not JSON. What was written before an error is kept.
fn fitted(
    term: &Terminal,
    text: bool,
    out: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let Some(width) = term.width.filter(|_| text) else { return write(out) };
    let mut buf = Vec::new();
    let written = write(&mut buf);
    out.write_all(crate::render::fit(&String::from_utf8_lossy(&buf), usize::from(width)).as_bytes())?;
    written
}

/// Once a verdict is decided, a reader that went away (`| head`) does not
/// change it: a closed pipe keeps `status`; any other write error is an error.
pub fn keep_status_on_closed_pipe(status: ExitStatus, written: Result<()>) -> Result<ExitStatus> {
    match written {
        Ok(()) => Ok(status),
        Err(e) if e.is_broken_pipe() => Ok(status),
        Err(e) => Err(e),
    }
}
