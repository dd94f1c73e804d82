//! Kilo (the Kilo CLI, and Kilo Code 7.2.21 or later, which runs on it):
//! `kilo.db`, a fork of opencode that keeps opencode 1.2's schema table for
//! table (`session`, `message`, `part`), so it is read by opencode's reader
//! (`opencode::read_as`) and judged as Kilo's.
//!
//! Nothing inside the database tells the two apart (the same tables,
//! columns and migrations; `session.version` is Kilo's own, 7.x), so the
//! file's name does: Kilo writes `kilo.db` (a dev-channel build
//! `kilo-<channel>.db`) in `$XDG_DATA_HOME/kilo/`, on Windows too, and
//! `KILO_DB` names another file. A copy renamed to anything else is read as
//! opencode, with the same tools and rules; `--source-format kilo` reads
//! any opencode-schema database as Kilo's.

use rusqlite::Connection;

use crate::model::Dialect;
use crate::source::opencode;
use crate::source::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};

pub(crate) struct Kilo;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::KILO,
    agent: "Kilo CLI and Kilo Code 7.2.21 or later (opencode's schema, in kilo.db)",
    product: "Kilo",
    signature: "opencode 1.2's tables in a database named `kilo.db` (or `kilo-<channel>.db`, or the file `KILO_DB` names)",
    flag: "`state.status = \"error\"` of the tool part, as opencode; `Tool execution aborted` is a user's stop",
    locations: &[Location::EnvPath("KILO_DB"), Location::XdgData("kilo/kilo.db")],
    sample: "kilo.db",
};

/// Is the database Kilo's by its name (or because `KILO_DB` names it)?
pub(crate) fn named_kilo(s: &Schema<'_>) -> bool {
    let by_name = s.file_name().is_some_and(|n| n == "kilo.db" || (n.starts_with("kilo-") && n.ends_with(".db")));
    let by_env = || {
        let (Some(path), Some(env)) = (s.path, std::env::var_os("KILO_DB")) else { return false };
        let env = std::path::PathBuf::from(env);
        std::fs::canonicalize(path).ok().is_some_and(|p| std::fs::canonicalize(&env).ok() == Some(p))
    };
    by_name || by_env()
}

impl Adapter for Kilo {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(named_kilo(s) && opencode::has_tables(s)?)
    }

    fn forced(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        opencode::has_tables(s)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        opencode::read_as(INFO.dialect, conn, cx)
    }
}
