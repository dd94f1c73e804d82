//! Trace sources: open a file safely, recognise its format, and stream its
//! sessions into the common model.

pub(crate) mod adk;
pub(crate) mod crush;
pub(crate) mod cursor;
pub(crate) mod falseok;
pub(crate) mod goose;
pub(crate) use crate::json;
pub(crate) mod langgraph;
pub(crate) mod llm;
pub(crate) mod open;
pub(crate) mod openai_agents;
pub(crate) mod opencode;
pub(crate) mod peri;
pub(crate) mod rows;
pub(crate) mod zed;

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{Dialect, Session};

/// Which sessions to read.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// Skip sub-agent sessions.
    pub no_subagents: bool,
    /// Only the sessions this selects.
    pub session: Option<SessionFilter>,
    /// Read every database source as this format instead of detecting it.
    pub format: Option<Format>,
    /// Read every transcript source as this agent's instead of recognising
    /// each file (`--source-format claude-code`, …).
    pub transcripts: Option<Dialect>,
    /// Read only the rows after this one (the index's appended database;
    /// only formats whose `appended_after` answers read it).
    pub after_row: Option<i64>,
    /// Read only the sessions that have rows after this one, each whole
    /// (`watch` on a database that grew; only formats whose
    /// `rows_signature` answers read it so, the others read everything).
    pub threads_after: Option<i64>,
}

/// Which session ids are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionFilter {
    /// Ids that start with this (`--session`).
    Prefix(String),
    /// Exactly this id: one id can be the prefix of another, and a reader
    /// that was given the whole id wants that session alone.
    Exact(String),
}

impl SessionFilter {
    pub fn matches(&self, id: &str) -> bool {
        match self {
            SessionFilter::Prefix(p) => id.starts_with(p.as_str()),
            SessionFilter::Exact(e) => id == e,
        }
    }
}

impl SourceOptions {
    /// Is session `id` read (`has_parent`: it is a sub-agent's)?
    pub fn wants(&self, id: &str, has_parent: bool) -> bool {
        if self.no_subagents && has_parent {
            return false;
        }
        self.session.as_ref().is_none_or(|f| f.matches(id))
    }
}

/// One SQLite trace format: how to recognise it and how to read it. The
/// session loop (transaction, grouping, filtering, progress) is shared, in
/// `rows`; an adapter is its SQL and its row parsing.
pub trait Adapter: Sync {
    /// What the format is, how it is recognised and where it lives.
    fn info(&self) -> &'static FormatInfo;
    /// Does the open database have this format's tables and columns?
    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool>;
    /// Can the database be read as this format when `--source-format`
    /// names it? By default when it `matches`; a format told apart from
    /// another only by its file's name reads that one's files too.
    fn forced(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        self.matches(s)
    }
    /// Why a database that does not `match` is still recognisably this
    /// format, in a variant this falseok cannot read.
    fn unsupported(&self, _s: &Schema<'_>) -> rusqlite::Result<Option<&'static str>> {
        Ok(None)
    }
    /// Hand every wanted session to `cx`, inside the read transaction that
    /// `read` opened.
    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()>;
    /// Formats read only when asked for by name (`--source-format`), never
    /// detected nor looked for at their default locations: what a scan of
    /// one must say about it (Cursor: experimental).
    fn opt_in(&self) -> Option<&'static str> {
        None
    }
    /// The tool schemas the trace stores itself, as (tool, JSON Schema).
    fn tool_schemas(&self, _conn: &Connection) -> rusqlite::Result<Vec<(String, Value)>> {
        Ok(Vec::new())
    }
    /// For the index (src/index/): did the rows after row `row` only start
    /// sessions of their own, so that reading them alone (`read` with
    /// `SourceOptions::after_row`) gives the sessions a whole read would
    /// add? `None`: this format cannot be read from a row on.
    fn appended_after(&self, _conn: &Connection, _row: i64) -> rusqlite::Result<Option<bool>> {
        Ok(None)
    }
    /// What the rows up to `row` are, cheaply told (Peri: how many there
    /// are and the id of the last): a later `appended_after` holds only if
    /// it is still the same (no row deleted, no rowid reused).
    fn rows_signature(&self, _conn: &Connection, _row: i64) -> rusqlite::Result<Option<String>> {
        Ok(None)
    }
    /// `rows_signature` at `row`, after `then`, whose signature was
    /// `signature` when this run checked it (Peri: the rows between the
    /// two counted, not all of them). A row at or before `then` changed
    /// since that check makes it differ from what `rows_signature` says,
    /// so the next run's check sees the change.
    fn rows_signature_after(
        &self,
        conn: &Connection,
        _then: i64,
        _signature: &str,
        row: i64,
    ) -> rusqlite::Result<Option<String>> {
        self.rows_signature(conn, row)
    }
}

/// Every SQLite format, in detection order (which is also the order
/// `falseok formats` lists them in; the signatures do not overlap).
pub(crate) static ADAPTERS: &[&dyn Adapter] = &[
    &peri::Peri,
    &crush::Crush,
    &opencode::Opencode,
    &opencode::kilo::Kilo,
    &goose::Goose,
    &llm::Llm,
    &falseok::Falseok,
    &langgraph::LangGraph,
    &openai_agents::OpenAiAgents,
    &zed::Zed,
    &adk::Adk,
    &cursor::Cursor,
];

/// A SQLite format: a handle to its adapter in `ADAPTERS`.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Adapter);

impl Format {
    /// falseok's own schema, which `import` writes.
    pub const FALSEOK: Format = Format(&falseok::Falseok);

    /// Every supported format, in detection order.
    pub fn all() -> impl Iterator<Item = Format> {
        ADAPTERS.iter().map(|&a| Format(a))
    }

    /// The format called `name`, or whose old name it is (`tracelint`).
    pub fn from_name(name: &str) -> Option<Format> {
        let dialect = Dialect::from_name(name)?;
        Format::all().find(|f| f.info().dialect == dialect)
    }

    /// The name used in reports and by `--source-format`.
    pub fn as_str(self) -> &'static str {
        self.info().name()
    }

    /// What the format is, how it is recognised and where it lives.
    pub fn info(self) -> &'static FormatInfo {
        self.0.info()
    }

    pub fn adapter(self) -> &'static dyn Adapter {
        self.0
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        std::ptr::eq(self.info(), other.info())
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.as_str())
    }
}

/// The descriptions of every SQLite format, in registry order.
pub(crate) fn formats() -> impl Iterator<Item = &'static FormatInfo> {
    ADAPTERS.iter().map(|a| a.info())
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
    /// The file or folder an environment variable names.
    EnvPath(&'static str),
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
            Location::EnvPath(var) => format!("${var}"),
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
            Location::EnvPath(var) => env(var),
        }
    }
}

/// A supported format (SQLite or transcript), described for `falseok
/// formats` and the README.
#[derive(Debug)]
pub struct FormatInfo {
    /// The name used in reports and by `--source-format`, and the dialect
    /// its sessions are judged in.
    pub dialect: Dialect,
    /// The agent that writes it, as `falseok formats` describes it.
    pub agent: &'static str,
    /// The agent's own name, for messages ("not a Claude Code, Codex or
    /// Gemini transcript").
    pub product: &'static str,
    /// How detection recognises it (tables and columns, or records).
    pub signature: &'static str,
    /// What the source's own error flag is.
    pub flag: &'static str,
    /// Where it is by default: databases for SQLite formats, folders for
    /// transcripts.
    pub locations: &'static [Location],
    /// Its shipped sample, a file or folder in `sample-traces/`. The
    /// integration tests (`tests/cli/samples.rs`) scan every format's sample
    /// and compare the JSON report with `tests/golden/<sample without its
    /// extension>.json`.
    pub sample: &'static str,
}

impl FormatInfo {
    pub fn name(&self) -> &'static str {
        self.dialect.as_str()
    }
}

/// Every default location of every format that exists on this machine, in
/// format order, each path once.
pub(crate) fn default_sources() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for info in ADAPTERS.iter().filter(|a| a.opt_in().is_none()).map(|a| a.info()) {
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

/// The columns of `table`, or an empty list if it does not exist or is not
/// a table. A view is never read in place of a trace table: a recursive
/// view can return rows without end, and a trace format keeps tables.
pub(crate) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    columns_of(conn, table, false)
}

fn columns_of(conn: &Connection, table: &str, views: bool) -> rusqlite::Result<Vec<String>> {
    let sql = if views {
        "SELECT name FROM pragma_table_info(?1)"
    } else {
        "SELECT name FROM pragma_table_info(?1)
          WHERE EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE)"
    };
    let mut stmt = conn.prepare(sql)?;
    let names = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    names.collect()
}

/// Those of `tables` that are views in `conn` (in the order given).
/// A format whose tables are optional reads a table only if it is one: a
/// view in its place is said, not silently skipped.
pub(crate) fn views_among(conn: &Connection, tables: &[&str]) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1 COLLATE NOCASE")?;
    let mut views = Vec::new();
    for t in tables {
        if stmt.exists([t])? {
            views.push((*t).to_string());
        }
    }
    Ok(views)
}

/// The tables and columns detection looks at.
pub struct Schema<'c> {
    pub conn: &'c Connection,
    /// The database file, when detection knows it: two agents can share a
    /// schema and differ only in the name they give their database (Kilo's
    /// `kilo.db` is opencode's schema).
    pub path: Option<&'c Path>,
    /// Views count as tables: only to say why a database is refused.
    views: bool,
    /// The tables asked about, for that message.
    asked: std::cell::RefCell<Vec<String>>,
}

impl<'c> Schema<'c> {
    /// The tables of `conn` (views are not tables).
    pub fn new(conn: &'c Connection) -> Schema<'c> {
        Schema { conn, path: None, views: false, asked: Default::default() }
    }

    /// The tables of `conn`, the database at `path`.
    pub fn at(conn: &'c Connection, path: &'c Path) -> Schema<'c> {
        Schema { path: Some(path), ..Schema::new(conn) }
    }

    /// The database file's name, if known.
    pub fn file_name(&self) -> Option<&str> {
        self.path.and_then(Path::file_name).and_then(|n| n.to_str())
    }

    /// Does `table` exist with all of `cols`?
    pub fn has(&self, table: &str, cols: &[&str]) -> rusqlite::Result<bool> {
        self.asked.borrow_mut().push(table.to_string());
        let have = columns_of(self.conn, table, self.views)?;
        Ok(!have.is_empty() && cols.iter().all(|w| have.iter().any(|c| c == w)))
    }
}

/// Why a database that `format` (or, with `None`, no format) matches is
/// refused when views are taken for tables: it defines views where the
/// format keeps its tables.
fn views_in_place(path: &Path, conn: &Connection, format: Option<Format>) -> Result<()> {
    let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
    let matches = |f: Format| {
        let with_views = Schema { conn, path: Some(path), views: true, asked: Default::default() };
        let yes = f.adapter().matches(&with_views).map_err(sql)?;
        Ok::<_, Error>(yes.then(|| with_views.asked.take()))
    };
    let mut matched = None;
    for f in format.map_or_else(|| Format::all().collect(), |f| vec![f]) {
        if let Some(asked) = matches(f)? {
            matched = Some((f, asked));
            break;
        }
    }
    let Some((f, asked)) = matched else { return Ok(()) };
    let views: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql)?;
    let in_place = views.iter().filter(|v| asked.iter().any(|t| t.eq_ignore_ascii_case(v)));
    let names: Vec<String> = in_place.take(4).map(|v| format!("`{}`", crate::sanitize::one_line(v))).collect();
    Err(Error::input(
        path,
        format!(
            "the {} trace tables are views here ({}): not read, since a view can run without end \
             (falseok reads tables)",
            f.as_str(),
            names.join(", ")
        ),
    ))
}

/// Recognise the format of an open database by its tables and columns.
pub(crate) fn detect(path: &Path, conn: &Connection) -> Result<Format> {
    let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
    let schema = Schema::at(conn, path);
    for format in Format::all().filter(|f| f.adapter().opt_in().is_none()) {
        if format.adapter().matches(&schema).map_err(sql)? {
            return Ok(format);
        }
    }
    for format in Format::all() {
        if let Some(why) = format.adapter().unsupported(&schema).map_err(sql)? {
            return Err(Error::input(path, why));
        }
    }
    views_in_place(path, conn, None)?;
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql)?;
    tables.truncate(8);
    let list = if tables.is_empty() { "none".to_string() } else { tables.join(", ") };
    let names: Vec<&str> = formats().map(FormatInfo::name).collect();
    Err(Error::input(
        path,
        format!(
            "unknown trace schema (tables: {}); not one of {} (see `falseok formats`, or force one with --source-format)",
            crate::sanitize::one_line(&list),
            names.join(", ")
        ),
    ))
}

/// Counts a source reports about itself, beyond its sessions.
#[derive(Debug, Clone, Default)]
pub(crate) struct SourceStats {
    pub rows: u64,
    /// The greatest row id read (formats that can be read from a row on).
    pub last_row: Option<i64>,
    /// Sessions handed on after the others, out of their order (imported
    /// transcripts: those made only of a file's broken lines).
    pub trailing: usize,
}

/// Why an adapter stopped: SQLite failed, or the data is of a kind this
/// falseok cannot read.
#[derive(Debug)]
pub enum ReadError {
    Sql(rusqlite::Error),
    Unsupported(String),
}

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> Self {
        ReadError::Sql(e)
    }
}

pub(crate) type ReadResult<T> = std::result::Result<T, ReadError>;

/// What an adapter reads into: which sessions are wanted, where finished
/// sessions go, and how far it got.
pub struct ReadContext<'a> {
    opts: &'a SourceOptions,
    sink: &'a mut dyn FnMut(Session),
    progress: &'a mut dyn FnMut(u64, u64),
    stats: SourceStats,
    /// Sessions expected and sessions done, for progress in sessions.
    sessions: (u64, u64),
}

impl<'a> ReadContext<'a> {
    pub fn new(
        opts: &'a SourceOptions,
        progress: &'a mut dyn FnMut(u64, u64),
        sink: &'a mut dyn FnMut(Session),
    ) -> Self {
        ReadContext { opts, sink, progress, stats: SourceStats::default(), sessions: (0, 0) }
    }

    /// What was counted so far (the reader is done).
    pub(crate) fn stats(self) -> SourceStats {
        self.stats
    }

    /// Is session `id` read at all (`--session`, `--no-subagents`)?
    pub fn wants(&self, id: &str, has_parent: bool) -> bool {
        self.opts.wants(id, has_parent)
    }

    /// Hand on a finished session.
    pub fn emit(&mut self, session: Session) {
        (self.sink)(session);
    }

    /// Only the rows after this one are wanted (`SourceOptions::after_row`).
    pub fn after_row(&self) -> Option<i64> {
        self.opts.after_row
    }

    /// Only the sessions with rows after this one are wanted, whole
    /// (`SourceOptions::threads_after`).
    pub fn threads_after(&self) -> Option<i64> {
        self.opts.threads_after
    }

    /// The greatest row id read, for the index.
    pub fn last_row(&mut self, row: i64) {
        self.stats.last_row = Some(row);
    }

    /// One more row read.
    pub fn row(&mut self) {
        self.stats.rows += 1;
    }

    /// `n` more rows read.
    pub fn rows(&mut self, n: u64) {
        self.stats.rows += n;
    }

    /// How far the reader is, in a unit of its own (Peri: rowids).
    pub fn progress(&mut self, done: u64, total: u64) {
        (self.progress)(done, total);
    }

    /// About `total` sessions will be read: progress is counted in sessions.
    pub fn expect_sessions(&mut self, total: u64) {
        self.sessions = (total, 0);
        (self.progress)(0, total);
    }

    /// One more session was read (handed on or skipped).
    pub fn session_done(&mut self) {
        self.sessions.1 += 1;
        let (total, done) = self.sessions;
        (self.progress)(done, total);
    }
}

/// Open `path` read-only, as `format` if given (else detect it).
pub(crate) fn open_as(path: &Path, format: Option<Format>) -> Result<(Connection, Format, Vec<String>)> {
    let opened = open::open_read_only(path)?;
    let conn = opened.conn;
    let mut warnings = opened.warnings;
    let format = match format {
        Some(f) => {
            let sql = |e: rusqlite::Error| Error::input(path, open::sqlite_problem(&e));
            if !f.adapter().forced(&Schema::at(&conn, path)).map_err(sql)? {
                views_in_place(path, &conn, Some(f))?;
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
            if let Some(note) = f.adapter().opt_in() {
                warnings.push(note.to_string());
            }
            f
        }
        None => detect(path, &conn)?,
    };
    Ok((conn, format, warnings))
}

/// Read every wanted session of an opened source inside one read
/// transaction (one snapshot, even while the agent writes), handing each
/// to `sink` as soon as its last row has been read. `progress` hears how
/// far the reader got. Every SQLite error becomes an input error of `path`
/// here.
pub(crate) fn read(
    path: &Path,
    conn: &Connection,
    format: Format,
    opts: &SourceOptions,
    progress: &mut dyn FnMut(u64, u64),
    sink: &mut dyn FnMut(Session),
) -> Result<SourceStats> {
    let fail = |e: ReadError| match e {
        ReadError::Sql(e) => Error::input(path, open::sqlite_problem(&e)),
        ReadError::Unsupported(problem) => Error::input(path, problem),
    };
    conn.execute_batch("BEGIN").map_err(|e| fail(e.into()))?;
    let mut cx = ReadContext::new(opts, progress, sink);
    let read = format.adapter().read(conn, &mut cx);
    let end = conn.execute_batch("COMMIT");
    read.map_err(fail)?;
    end.map_err(|e| fail(e.into()))?;
    Ok(cx.stats)
}

/// The tool schemas `format`'s trace stores itself.
pub(crate) fn tool_schemas(path: &Path, conn: &Connection, format: Format) -> Result<Vec<(String, Value)>> {
    format.adapter().tool_schemas(conn).map_err(|e| Error::input(path, open::sqlite_problem(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_ids_and_prefixes() {
        let opts = |f: SessionFilter| SourceOptions { session: Some(f), ..SourceOptions::default() };
        let prefix = opts(SessionFilter::Prefix("ab".into()));
        assert!(prefix.wants("ab", false) && prefix.wants("abc", true));
        let exact = opts(SessionFilter::Exact("ab".into()));
        assert!(exact.wants("ab", false) && !exact.wants("abc", false));
        let no_sub = SourceOptions { no_subagents: true, ..SourceOptions::default() };
        assert!(no_sub.wants("x", false) && !no_sub.wants("x", true));
    }

    /// Detection takes the first format whose signature matches; no shipped
    /// sample or fixture matches two, so the registry order decides nothing.
    #[test]
    fn signatures_do_not_overlap() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seen = std::collections::BTreeSet::new();
        for dir in ["sample-traces", "tests/fixtures"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let conn = match path.extension().and_then(|e| e.to_str()) {
                    Some("db") => open::open_read_only(&path).unwrap().conn,
                    Some("sql") => {
                        let conn = Connection::open_in_memory().unwrap();
                        if path.ends_with("falseok.sql") {
                            conn.execute_batch(falseok::SCHEMA_SQL).unwrap();
                        }
                        conn.execute_batch(&std::fs::read_to_string(&path).unwrap()).unwrap();
                        conn
                    }
                    _ => continue,
                };
                let schema = Schema::at(&conn, &path);
                let matched: Vec<&str> =
                    Format::all().filter(|f| f.adapter().matches(&schema).unwrap()).map(Format::as_str).collect();
                assert!(matched.len() <= 1, "{} matches {matched:?}", path.display());
                seen.extend(matched);
            }
        }
        assert_eq!(seen.len(), ADAPTERS.len(), "the samples cover every format: {seen:?}");
    }

    /// Every format reports how far it got, and its sessions come whole.
    #[test]
    fn every_format_reports_progress() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let mut formats = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "db") {
                continue;
            }
            let forced = Format::all().find(|f| {
                f.adapter().opt_in().is_some() && path.file_stem().is_some_and(|s| s.to_str() == Some(f.as_str()))
            });
            let (conn, format, _) = open_as(&path, forced).unwrap();
            let mut reports: Vec<(u64, u64)> = Vec::new();
            let mut sessions = 0;
            let opts = SourceOptions::default();
            read(&path, &conn, format, &opts, &mut |done, total| reports.push((done, total)), &mut |_| sessions += 1)
                .unwrap();
            assert!(sessions > 0, "{}", path.display());
            assert!(reports.iter().any(|&(_, total)| total > 0), "{}: no progress", path.display());
            assert!(reports.iter().all(|&(done, total)| done <= total), "{}: {reports:?}", path.display());
            formats.insert(format.as_str());
        }
        assert_eq!(formats.len(), ADAPTERS.len(), "{formats:?}");
    }

    #[test]
    fn every_format_has_one_name() {
        for f in Format::all() {
            assert_eq!(Format::from_name(f.as_str()), Some(f));
            assert_eq!(formats().filter(|i| i.name() == f.as_str()).count(), 1, "{f:?}");
        }
    }
}
