//! Trace sources: open a file safely, recognise its format, and stream its
//! sessions into the common model.

pub mod crush;
pub mod goose;
pub mod json;
pub mod llm;
pub mod open;
pub mod opencode;
pub mod peri;
pub mod rows;
pub mod tracelint;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result};
use crate::model::Session;

/// Which sessions to read.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// Skip sub-agent sessions.
    pub no_subagents: bool,
    /// Only the session with this id (or id prefix).
    pub session: Option<String>,
    /// Read every source as this format instead of detecting it.
    pub format: Option<Format>,
}

impl SourceOptions {
    pub fn wants(&self, id: &str, has_parent: bool) -> bool {
        if self.no_subagents && has_parent {
            return false;
        }
        match &self.session {
            Some(s) => id.starts_with(s.as_str()),
            None => true,
        }
    }
}

/// What a source turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    Peri,
    Crush,
    Opencode,
    Goose,
    Llm,
    Tracelint,
}

impl Format {
    /// Every supported format, in detection order.
    pub const ALL: &'static [Format] =
        &[Format::Tracelint, Format::Llm, Format::Peri, Format::Crush, Format::Opencode, Format::Goose];

    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.as_str() == name)
    }

    /// What the format is, how it is recognised and where it lives.
    pub fn info(self) -> &'static FormatInfo {
        FORMATS.iter().find(|i| i.format == self).expect("every format is described")
    }
}

/// Where a format's databases are by default.
#[derive(Debug, Clone, Copy)]
pub enum Location {
    /// Relative to the home directory.
    Home(&'static str),
    /// Relative to `$XDG_DATA_HOME` (default `~/.local/share`).
    XdgData(&'static str),
    /// Relative to `$XDG_CONFIG_HOME` (default `~/.config`).
    XdgConfig(&'static str),
    /// Relative to the current directory (per-project databases).
    Cwd(&'static str),
    /// Inside the directory an environment variable names.
    EnvDir(&'static str, &'static str),
}

impl Location {
    /// How the location is shown to a user.
    pub fn display(&self) -> String {
        match self {
            Location::Home(p) => format!("~/{p}"),
            Location::XdgData(p) => format!("$XDG_DATA_HOME/{p} (~/.local/share/{p})"),
            Location::XdgConfig(p) => format!("$XDG_CONFIG_HOME/{p} (~/.config/{p})"),
            Location::Cwd(p) => format!("./{p}"),
            Location::EnvDir(var, p) => format!("${var}/{p}"),
        }
    }

    /// The path on this machine, if the environment defines it.
    pub fn resolve(&self) -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = || env("HOME");
        match self {
            Location::Home(p) => home().map(|h| h.join(p)),
            Location::XdgData(p) => {
                env("XDG_DATA_HOME").or_else(|| home().map(|h| h.join(".local/share"))).map(|d| d.join(p))
            }
            Location::XdgConfig(p) => {
                env("XDG_CONFIG_HOME").or_else(|| home().map(|h| h.join(".config"))).map(|d| d.join(p))
            }
            Location::Cwd(p) => Some(PathBuf::from(p)),
            Location::EnvDir(var, p) => env(var).map(|d| d.join(p)),
        }
    }
}

/// One supported format, described for `tracelint formats` and the README.
#[derive(Debug)]
pub struct FormatInfo {
    pub format: Format,
    /// The name used in reports and by `--source-format`.
    pub name: &'static str,
    /// The agent that writes it.
    pub agent: &'static str,
    /// How detection recognises it (tables and columns).
    pub signature: &'static str,
    /// What the source's own error flag is.
    pub flag: &'static str,
    pub locations: &'static [Location],
}

pub static FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::Peri,
        name: "peri",
        agent: "Peri Code",
        signature: "tables `threads(id)` and `messages(message_id, thread_id, role, content)`",
        flag: "`is_error` of the tool message or `tool_result` block (absent = false)",
        locations: &[Location::Home(".peri/threads/threads.db")],
    },
    FormatInfo {
        format: Format::Crush,
        name: "crush",
        agent: "Crush, and the archived Go opencode",
        signature: "`messages` with a `parts` column and `sessions` with `parent_session_id`",
        flag: "`is_error` of the `tool_result` part; bash exiting non-zero is not flagged (`Exit code N` in the text)",
        locations: &[Location::Cwd(".crush/crush.db"), Location::Cwd(".opencode/opencode.db")],
    },
    FormatInfo {
        format: Format::Opencode,
        name: "opencode",
        agent: "opencode 1.2 or later",
        signature: "tables `session(id, parent_id)`, `message(id, session_id, data)` and `part(id, message_id, session_id, time_created, data)`",
        flag: "`state.status = \"error\"` of the tool part; a completed bash call keeps its exit status in `state.metadata.exit`",
        locations: &[Location::XdgData("opencode/opencode.db")],
    },
    FormatInfo {
        format: Format::Goose,
        name: "goose",
        agent: "Goose (Block)",
        signature: "table `schema_version` and `messages` with `content_json` and `created_timestamp`",
        flag: "`toolResult.status = \"error\"` or MCP `isError = true` of the toolResponse; an unparsed toolRequest is a failed call",
        locations: &[Location::XdgData("goose/sessions/sessions.db")],
    },
    FormatInfo {
        format: Format::Llm,
        name: "llm",
        agent: "llm (Simon Willison's CLI)",
        signature: "table `_llm_migrations`; legacy `tool_calls`/`tool_results` and/or the 0.32 store `threads`/`messages(hash)`/`parts(payload)`",
        flag: "`tool_results.exception` (0.27+; absent before, so no flag) or the `exception` key of a tool_result payload",
        locations: &[
            Location::EnvDir("LLM_USER_PATH", "logs.db"),
            Location::XdgConfig("io.datasette.llm/logs.db"),
            Location::Home("Library/Application Support/io.datasette.llm/logs.db"),
        ],
    },
    FormatInfo {
        format: Format::Tracelint,
        name: "tracelint",
        agent: "tracelint's own schema (sql/schema.sql): `tracelint import`, or any framework",
        signature: "table `tracelint_meta` and tables `sessions`, `calls`, `results` as in sql/schema.sql",
        flag: "`results.is_error` (1 flagged, 0 not flagged, NULL the agent records no flag)",
        locations: &[],
    },
];

/// Every default location of every format that exists on this machine, in
/// format order, each path once.
pub fn default_sources() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for info in FORMATS {
        for loc in info.locations {
            if let Some(p) = loc.resolve().filter(|p| p.is_file())
                && !out.contains(&p)
            {
                out.push(p);
            }
        }
    }
    out
}

/// The columns of `table`, or an empty list if it does not exist.
pub fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    names.collect()
}

/// The tables and columns detection looks at.
pub struct Schema<'c> {
    pub conn: &'c Connection,
}

impl Schema<'_> {
    /// Does `table` exist with all of `cols`?
    pub fn has(&self, table: &str, cols: &[&str]) -> rusqlite::Result<bool> {
        let have = columns(self.conn, table)?;
        Ok(!have.is_empty() && cols.iter().all(|w| have.iter().any(|c| c == w)))
    }
}

/// Recognise the format of an open database by its tables and columns.
pub fn detect(path: &Path, conn: &Connection) -> Result<Format> {
    let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
    let schema = Schema { conn };
    for &format in Format::ALL {
        if matches_signature(format, &schema).map_err(sql)? {
            return Ok(format);
        }
    }
    if schema.has("threads", &["id"]).map_err(sql)?
        && schema.has("messages", &["message_id", "thread_id", "role", "content_ref"]).map_err(sql)?
    {
        return Err(Error::input(
            path,
            "Peri database with external payloads (messages.content_ref) is not supported yet",
        ));
    }
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql)?;
    tables.truncate(8);
    let list = if tables.is_empty() { "none".to_string() } else { tables.join(", ") };
    let names: Vec<&str> = FORMATS.iter().map(|f| f.name).collect();
    Err(Error::input(
        path,
        format!(
            "unknown trace schema (tables: {}); not one of {} (see `tracelint formats`, or force one with --source-format)",
            crate::sanitize::one_line(&list),
            names.join(", ")
        ),
    ))
}

/// Does the open database have `format`'s tables and columns?
fn matches_signature(format: Format, s: &Schema<'_>) -> rusqlite::Result<bool> {
    Ok(match format {
        Format::Peri => {
            s.has("threads", &["id"])? && s.has("messages", &["message_id", "thread_id", "role", "content"])?
        }
        Format::Crush => {
            s.has("messages", &["session_id", "parts", "created_at"])?
                && s.has("sessions", &["id", "parent_session_id"])?
        }
        Format::Opencode => {
            s.has("session", &["id", "parent_id"])?
                && s.has("message", &["id", "session_id", "data"])?
                && s.has("part", &["id", "message_id", "session_id", "time_created", "data"])?
        }
        Format::Goose => {
            s.has("schema_version", &["version"])?
                && s.has("messages", &["id", "session_id", "content_json", "created_timestamp"])?
        }
        Format::Llm => s.has("_llm_migrations", &["name"])?,
        Format::Tracelint => {
            s.has("tracelint_meta", &["key", "value"])?
                && s.has("calls", &["session_id", "id", "seq", "tool", "input"])?
                && s.has("results", &["session_id", "call_id", "text", "is_error"])?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_described_once_under_its_name() {
        for &f in Format::ALL {
            assert_eq!(FORMATS.iter().filter(|i| i.format == f).count(), 1, "{f:?}");
            assert_eq!(Format::from_name(f.as_str()), Some(f));
        }
        assert_eq!(FORMATS.len(), Format::ALL.len());
    }
}

/// Counts a source reports about itself, beyond its sessions.
#[derive(Debug, Clone, Default)]
pub struct SourceStats {
    pub rows: u64,
}

/// Open `path` read-only and recognise its format; also returns warnings
/// about how it had to be opened.
pub fn open(path: &Path) -> Result<(Connection, Format, Vec<String>)> {
    open_as(path, None)
}

/// Open `path` read-only, as `format` if given (else detect it).
pub fn open_as(path: &Path, format: Option<Format>) -> Result<(Connection, Format, Vec<String>)> {
    let opened = open::open_read_only(path)?;
    let conn = opened.conn;
    let format = match format {
        Some(f) => {
            let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
            if !matches_signature(f, &Schema { conn: &conn }).map_err(sql)? {
                return Err(Error::input(
                    path,
                    format!(
                        "is not a {} database (--source-format {}: expected {})",
                        f.as_str(),
                        f.as_str(),
                        f.info().signature
                    ),
                ));
            }
            f
        }
        None => detect(path, &conn)?,
    };
    Ok((conn, format, opened.warnings))
}

/// Read every wanted session of an opened source, handing each to `sink`
/// as soon as its last row has been read.
pub fn read(
    path: &Path,
    conn: &Connection,
    format: Format,
    opts: &SourceOptions,
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    match format {
        Format::Peri => peri::read(path, conn, opts, sink),
        Format::Crush => crush::read(path, conn, opts, sink),
        Format::Opencode => opencode::read(path, conn, opts, sink),
        Format::Goose => goose::read(path, conn, opts, sink),
        Format::Llm => llm::read(path, conn, opts, sink),
        Format::Tracelint => tracelint::read(path, conn, opts, sink),
    }
}
