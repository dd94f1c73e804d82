//! Command-line types only (clap derive); `lib.rs` does the work.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(name = "tracelint", version, about = "Find the tool-call failures AI agents hide from themselves.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan trace databases and report errors, hidden errors and categories per tool.
    Scan(ScanArgs),
    /// Write a synthetic Peri trace database (the shipped samples are made with it).
    Generate(GenerateArgs),
    /// List the supported trace formats, how each is detected and where it lives by default.
    Formats,
    /// Import Claude Code, Codex and Gemini CLI transcripts (JSONL) into a tracelint database (sql/schema.sql).
    Import(ImportArgs),
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Transcript files, or folders to search for `*.jsonl` (e.g. ~/.claude/projects, ~/.codex/sessions).
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// The tracelint database to write; created if missing, and it must not be another agent's database.
    #[arg(long, value_name = "DB")]
    pub into: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    /// Trace databases, or JSONL transcripts (files or folders), to scan. Without
    /// any, every default location of every supported format that exists is
    /// scanned (see `tracelint formats`).
    pub paths: Vec<PathBuf>,
    /// Read every PATH as this format instead of detecting it (names: `tracelint formats`).
    #[arg(long, value_name = "NAME")]
    pub source_format: Option<String>,
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Count only calls made at or after this time: a date, an RFC 3339 time, or a span back from now (7d, 12h).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Count only calls made before this time (same forms as --since).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Count only calls of this tool (repeatable).
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Scan only the session with this id (a prefix is enough).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Leave out sub-agent sessions (they are included by default).
    #[arg(long)]
    pub no_subagents: bool,
    /// Colour in the table output: auto colours only a terminal, and NO_COLOR turns it off.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SampleKind {
    /// The founding postmortem: Agent 45/1344 and Edit 284/6233 failures, all hidden.
    PeriPostmortem,
    /// The same kinds of failure after the fix: flagged, wrapped, nothing hidden.
    PeriPostfix,
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    #[arg(value_enum)]
    pub kind: SampleKind,
    /// Where to write the database; it must not exist yet.
    pub out: PathBuf,
    /// Seed of the generator; the same seed gives the same database.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
}
