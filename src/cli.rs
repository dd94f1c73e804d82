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
    /// The CI gate: scan, then exit 1 if hidden errors (or other limits) are found.
    Check(CheckArgs),
    /// Print the calls and results behind a number: the failures of one category.
    Examples(ExamplesArgs),
    /// Print one session's calls in order with their verdicts.
    Show(ShowArgs),
    /// List every content rule, classification rule and category with its documentation.
    Rules(RulesArgs),
    /// List the tool schemas in effect (built in, from the trace, from --tool-schemas) and where each came from.
    Schemas(SchemasArgs),
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
    /// Tables for a terminal or a ticket.
    Table,
    /// The versioned JSON contract.
    Json,
    /// The postmortem document (GitHub-flavoured Markdown).
    Markdown,
    /// One row per tool × category.
    Csv,
    /// GitHub Actions annotations.
    Github,
    /// JUnit XML: a testsuite per source, a testcase per tool.
    Junit,
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
    /// Report runs of identical failures this long or longer (Peri's guard fires at 5).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub streak_threshold: usize,
    /// Tool schemas (Anthropic, OpenAI or MCP tool list, JSON) over the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub tool_schemas: Option<PathBuf>,
    /// Report an optional parameter as optional-but-required after this many missing-parameter errors name it.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub drift_min: u64,
    /// Colour in the table output: auto colours only a terminal, and NO_COLOR turns it off.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Also append a Markdown summary to this file (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "PATH")]
    pub summary: Option<PathBuf>,
    /// Show secrets (API keys, tokens, passwords) in messages instead of redacting them.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Fail when more hidden errors than this are found (default 0: any hidden error fails).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_hidden: u64,
    /// Fail when the error rate is above R, overall (R) or for one tool (TOOL=R); R like 0.05 or 5%. Repeatable.
    #[arg(long, value_name = "R|TOOL=R", value_parser = crate::gate::RateLimit::parse)]
    pub max_error_rate: Vec<crate::gate::RateLimit>,
    /// Fail on any finding of these rules or any error of these categories (comma-separated, repeatable).
    #[arg(long, value_name = "RULE[,RULE...]", value_parser = crate::gate::FailOn::parse_list)]
    pub fail_on: Vec<Vec<crate::gate::FailOn>>,
    /// Report, but exit 0 even when the gate fails (2 still means an error).
    #[arg(long)]
    pub exit_zero: bool,
    /// Fail only on findings that are not in this baseline file.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings as the baseline in FILE, print +N / -M, and exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ExamplesArgs {
    /// Trace databases (default: the Peri location).
    pub paths: Vec<PathBuf>,
    /// The category whose failures to show (see `tracelint rules`).
    #[arg(long, value_name = "SLUG")]
    pub category: String,
    /// Only failures of this tool.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Show at most N examples.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Leave out sub-agent sessions.
    #[arg(long)]
    pub no_subagents: bool,
    /// Show secrets instead of redacting them.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The session id (a prefix is enough if it is unique).
    pub session: String,
    /// Trace databases (default: the Peri location).
    pub paths: Vec<PathBuf>,
    /// Show this call in full.
    #[arg(long, value_name = "ID")]
    pub call: Option<String>,
    /// Show secrets instead of redacting them.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

#[derive(Debug, clap::Args)]
pub struct SchemasArgs {
    /// Trace databases whose formats (and stored schemas) decide the built-ins; none: every built-in set.
    pub paths: Vec<PathBuf>,
    /// Tool schemas (Anthropic, OpenAI or MCP tool list, JSON) over the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub tool_schemas: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}
