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
    /// Trace databases to scan. Without any, the default Peri location
    /// (~/.peri/threads/threads.db) is scanned if it exists.
    pub paths: Vec<PathBuf>,
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
    /// Report runs of identical failures this long or longer (Peri's guard fires at 5).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub streak_threshold: usize,
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
