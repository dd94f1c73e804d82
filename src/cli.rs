//! Command-line types only (clap derive). The one crate import is the
//! output registry (`render::Output`), whose variants are `--format`'s
//! values. `app::settings` turns the rest into the library's settings;
//! `app` does the work.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::render::Output;

#[derive(Debug, Parser)]
#[command(
    name = "falseok",
    version,
    about = "Find the tool-call failures AI agents hide from themselves.",
    long_about = "Find the tool-call failures AI agents hide from themselves.\n\n\
        falseok reads the traces agents keep (SQLite databases, JSONL and JSON transcripts), pairs every \
        tool call with its result, and counts the hidden errors: results whose content says the call failed \
        while the stored flag says success.",
    after_help = "Examples:\n  \
        falseok scan                                  every default location found on this machine\n  \
        falseok scan ~/.claude/projects               a folder of transcripts\n  \
        falseok check threads.db --max-hidden 0       the CI gate: exit 1 on any hidden error\n  \
        falseok examples --category stale-edit-match  the calls behind a number\n\n\
        Exit codes: 0 clean, 1 the gate found defects, 2 usage, input or internal error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The configuration file to use (falseok.toml, .falseok.toml or a pyproject.toml with
    /// [tool.falseok]) instead of the one found from the current folder upwards (docs/config.md).
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Use no configuration file: the built-in rules only.
    #[arg(long, global = true)]
    pub isolated: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan trace databases and report errors, hidden errors and categories per tool.
    #[command(after_help = "Examples:\n  \
        falseok scan sample-traces/peri-postmortem.db\n  \
        falseok scan ~/.codex/sessions --since 7d --tool shell\n  \
        falseok scan threads.db --format json > report.json\n  \
        falseok scan threads.db --format markdown --summary \"$GITHUB_STEP_SUMMARY\"\n\n\
        On a terminal, the table ends with the next commands: `falseok examples`\n\
        for the hidden errors, `falseok show` for the session with the most of them.")]
    Scan(ScanArgs),
    /// The CI gate: scan, then exit 1 if hidden errors (or other limits) are found.
    #[command(after_help = "Examples:\n  \
        falseok check threads.db                                  any hidden error fails\n  \
        falseok check threads.db --max-error-rate Edit=5%         a per-tool limit\n  \
        falseok check threads.db --fail-on guard-blind-streak      a rule or category\n  \
        falseok check threads.db --write-baseline falseok-baseline.json\n  \
        falseok check threads.db --baseline falseok-baseline.json --format github\n\n\
        Exit codes: 0 passed, 1 the gate failed, 2 usage, input or internal error (also when the \
        filters leave nothing to judge, unless --allow-empty).")]
    Check(CheckArgs),
    /// The sessions, worst first: calls, errors, hidden errors, guard-blind streaks, time lost and a grade A-F.
    #[command(after_help = "Examples:\n  \
        falseok sessions sample-traces/peri-postmortem.db            the 20 worst sessions\n  \
        falseok sessions ~/.claude/projects --since 7d --limit 5\n  \
        falseok sessions threads.db --format csv --limit 0 > sessions.csv   every session\n\n\
        The grade: 100 points, minus the error rate in points, 3 per hidden error (at most 45), 20 per \
        guard-blind streak and 5 per abandoned failure (at most 25); A from 90, B 80, C 70, D 60, else F; \
        a hidden error caps it at B, five at C, a guard-blind streak at D (docs/analyses.md). \
        Next step from a row: falseok show SESSION PATH.")]
    Sessions(SessionsArgs),
    /// Prometheus metrics (text format): calls, flagged and hidden errors, guard-blind streaks per agent and tool.
    #[command(after_help = "Examples:\n  \
        falseok metrics sample-traces/peri-postmortem.db\n  \
        falseok metrics ~/.claude/projects --out /var/lib/node_exporter/textfile_collector/falseok.prom\n  \
        falseok metrics sample-traces/crush.db | promtool check metrics\n\n\
        Counters are totals of what the sources hold now (a full scan each time); the sum of \
        falseok_tool_errors_total{signal=\"hidden\"} is scan's hidden errors. Series, the textfile-collector \
        recipe, a Grafana dashboard and alert rules: docs/metrics.md.")]
    Metrics(MetricsArgs),
    /// Print the calls and results behind a number: the hidden errors, or the failures of one category.
    #[command(after_help = "Examples:\n  \
        falseok examples sample-traces/peri-postmortem.db                           the hidden errors\n  \
        falseok examples --category stale-edit-match sample-traces/peri-postmortem.db\n  \
        falseok examples --category nonzero-exit --tool Bash --limit 3 ~/.claude/projects")]
    Examples(ExamplesArgs),
    /// Print one session's calls in order with their verdicts.
    #[command(after_help = "Examples:\n  \
        falseok show 019e2a00 threads.db             a unique prefix of the session id\n  \
        falseok show 019e2a00 threads.db --call 5    one call in full, by sequence number or id")]
    Show(ShowArgs),
    /// List the whole rule registry (rules, reasons, benign exits, categories, findings) with its documentation.
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:\n  falseok rules\n  falseok rules --format json\n  falseok rules test            \
        the examples of the configuration file's rules (docs/config.md)"
    )]
    Rules(RulesArgs),
    /// List the tool schemas in effect (built in, from the trace, from --tool-schemas) and where each came from.
    #[command(
        after_help = "Examples:\n  falseok schemas\n  falseok schemas sample-traces/llm.db --tool-schemas tools.json"
    )]
    Schemas(SchemasArgs),
    /// List the supported trace formats, how each is detected and where it lives by default.
    #[command(after_help = "Examples:\n  falseok formats")]
    Formats,
    /// Import agents' transcripts (every transcript format `falseok formats` lists) into a falseok database (sql/schema.sql).
    #[command(after_help = "Examples:\n  falseok import ~/.claude/projects ~/.codex/sessions --into traces.db")]
    Import(ImportArgs),
    /// Write one row per judged call (NDJSON or Parquet) for DuckDB, ClickHouse or Spark.
    #[command(after_help = "Examples:\n  \
        falseok export sample-traces/crush.db > calls.ndjson\n  \
        falseok export ~/.claude/projects --out calls --partition\n  \
        falseok export threads.db --format parquet --out calls.parquet   (built with --features parquet)")]
    Export(ExportArgs),
    /// Follow trace stores as agents write them and print each new hidden error, flagged error, guard-blind
    /// streak and abandoned failure as it happens (docs/watch.md).
    #[command(after_help = "Examples:\n  \
        falseok watch ~/.claude/projects                      one line per new event\n  \
        falseok watch threads.db --format ndjson              one JSON object per event (schema/events-v1)\n  \
        falseok watch --exec ./notify.sh                       run a command per event, the event on stdin\n  \
        falseok watch --listen 127.0.0.1:9464                 Prometheus text at /metrics\n\n\
        Stops with status 0 on Ctrl-C, SIGTERM or after --timeout.")]
    Watch(WatchArgs),
    /// Combine JSON reports (scan --format json) from many machines into the report one scan of all their sources gives.
    #[command(after_help = "Examples:\n  \
        falseok scan a.db --format json > a.json; falseok scan b.db --format json > b.json\n  \
        falseok merge a.json b.json\n  \
        falseok merge reports/*.json --format json > fleet.json")]
    Merge(MergeArgs),
    /// The live guard: judge one tool call from an agent's hook (stdin), answer in the agent's dialect, and
    /// stop the call that repeats a failure (docs/guard.md).
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:\n  \
        falseok guard --agent claude-code < payload.json        one hook event, as the agent runs it\n  \
        falseok guard --mode enforce                            deny the call that repeats a streak of failures\n  \
        falseok guard install --agent codex --project            add the hook to the agent's settings\n  \
        falseok guard log                                        the verdicts the guard gave\n\n\
        Exit codes: 0 answered (the verdict is on stdout, as the agent reads it); 1 the guard could not judge \
        (a malformed payload, unwritable state): said on stderr, and every agent goes on as if there were no hook."
    )]
    Guard(GuardArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(after_help = "Examples:\n  \
        falseok completions bash > ~/.local/share/bash-completion/completions/falseok\n  \
        falseok completions zsh > \"${fpath[1]}/_falseok\"\n  \
        falseok completions fish > ~/.config/fish/completions/falseok.fish")]
    Completions(CompletionsArgs),
}

/// The names `falseok formats` prints, in its order: the database formats,
/// then the transcript agents. `--source-format` offers them to the shell
/// completions; a unit test of `input` keeps the list equal to the
/// registries (this file imports nothing from the crate).
pub const FORMAT_NAMES: &[&str] = &[
    "peri",
    "crush",
    "opencode",
    "kilo",
    "goose",
    "llm",
    "falseok",
    "langgraph",
    "openai-agents",
    "zed",
    "adk",
    "cursor",
    "claude-code",
    "codex",
    "gemini",
    "otel",
    "openhands",
    "cline",
    "roo-code",
    "continue",
    "copilot",
    "qwen",
    "pi",
    "kiro",
    "aider",
];

/// `--source-format`: any text is taken (the input stage refuses an unknown
/// name with the list of known ones, in one line), and the known names are
/// the possible values completions offer.
#[derive(Debug, Clone, Copy)]
pub struct FormatName;

impl clap::builder::TypedValueParser for FormatName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(FORMAT_NAMES.iter().map(clap::builder::PossibleValue::new)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsFormat {
    /// A table, worst first (terminal).
    Table,
    /// `schema/sessions-v2.schema.json`.
    Json,
    Csv,
}

#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// table, json or csv.
    #[arg(long, value_enum, default_value_t = SessionsFormat::Table)]
    pub format: SessionsFormat,
    /// List at most N sessions, worst first (0: all). Default: 20 in a table, all in JSON and CSV.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Colour in the table output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, clap::Args)]
pub struct MetricsArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Write the text to this file instead of stdout, whole or not at all (a temporary file in its folder,
    /// renamed into place): for node_exporter's textfile collector, which reads `*.prom`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Let --out replace a file that is not falseok's metrics. Never an input or a file in an input folder.
    #[arg(long, requires = "out")]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WatchFormat {
    /// One line per event (terminal).
    Text,
    /// One JSON object per line (schema/events-v1.schema.json).
    Ndjson,
}

#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// text (one line per event) or ndjson (one JSON object per line).
    #[arg(long, value_enum, default_value_t = WatchFormat::Text)]
    pub format: WatchFormat,
    /// Also print the events already in the stores when watch starts (by default they are judged silently).
    #[arg(long)]
    pub from_start: bool,
    /// Poll the stores every MS milliseconds instead of waiting for file-system notifications.
    #[arg(long, value_name = "MS", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(10..))]
    pub poll: Option<u64>,
    /// A session with no new call or result for this long has ended: its failures not retried are abandoned.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub idle: u64,
    /// For each event, run CMD through `sh -c` with the event's JSON on standard input, one at a time, in order.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Stop a --exec command that runs longer than this (it is killed and reported).
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub exec_timeout: u64,
    /// Serve Prometheus text at http://ADDR/metrics (loopback only, unless --listen-any).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Let --listen take an address that is not loopback (the metrics name your tools and error counts).
    #[arg(long, requires = "listen")]
    pub listen_any: bool,
    /// Stop after SECONDS (status 0), e.g. for a job that watches for a while; fractions allowed.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// JSON reports of `falseok scan --format json` (contract v8), from any machines.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// How to write the merged report; json is the same contract as a scan's.
    #[arg(long, value_parser = merge_output(), default_value = "table")]
    pub format: Output,
    /// Colour in the table output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Show secrets in the reports' text (reports made with `scan --no-redact`) instead of redacting them.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Transcript files, or folders to search for transcripts: `*.jsonl` lines and `*.json` documents (e.g. ~/.claude/projects, ~/.codex/sessions).
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// The falseok database to write; created if missing, and it must not be another agent's database.
    #[arg(long, value_name = "DB")]
    pub into: PathBuf,
    /// Read every file as this agent's transcripts instead of recognising it (names: `falseok formats`)
    #[arg(long, value_name = "NAME", value_parser = FormatName, hide_possible_values = true)]
    pub source_format: Option<String>,
}

/// `merge --format`: the outputs of the registry that `Output::merges`
/// says merge writes, by their names (listed inline, as before the
/// registry); any other is refused as clap refuses a value, naming these.
fn merge_output() -> impl clap::builder::TypedValueParser<Value = Output> {
    use clap::builder::{Resettable, TypedValueParser};
    let merged = Output::value_variants()
        .iter()
        .filter(|o| o.merges())
        .filter_map(ValueEnum::to_possible_value)
        .map(|v| v.help(Resettable::Reset));
    clap::builder::PossibleValuesParser::new(merged).try_map(|name| Output::from_str(&name, false))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Output::Table)]
    pub format: Output,
    /// Colour in the table output: auto colours only a terminal, and NO_COLOR turns it off.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Also append a Markdown summary to this file (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "PATH")]
    pub summary: Option<PathBuf>,
    /// The guard's state folder to read its interventions from, as given to
    /// `guard --state-dir` (default: the guard's own, under the cache).
    #[arg(long, value_name = "DIR")]
    pub guard_state: Option<PathBuf>,
}

/// What to read and which calls count: shared by `scan`, `check` and `export`.
#[derive(Debug, clap::Args)]
pub struct SelectArgs {
    /// Trace databases, or transcripts (files or folders), to read. Without
    /// any, every default location of every supported format that exists is
    /// read (see `falseok formats`).
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub judging: JudgingArgs,
    /// Count only calls made at or after this time: a date, an RFC 3339 time, or a span back from now (7d, 12h).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Count only calls made before this time (same forms as --since).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Count only calls of this tool (repeatable).
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Read only the session with this id (a prefix is enough).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Leave out sub-agent sessions (they are included by default).
    #[arg(long)]
    pub no_subagents: bool,
    /// Report runs of identical failures this long or longer (Peri's guard fires at 5).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub streak_threshold: usize,
    /// Report an optional parameter as optional-but-required after this many missing-parameter errors name it.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub drift_min: u64,
    /// Keep what was judged in this folder instead of the user's cache
    /// ($XDG_CACHE_HOME/falseok): a re-run reads only what changed (docs/index.md).
    #[arg(long, value_name = "DIR", conflicts_with = "no_index")]
    pub index: Option<PathBuf>,
    /// Read and judge everything again, and keep nothing in the index.
    #[arg(long)]
    pub no_index: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One JSON object per line (schema/export-v3.schema.json).
    Ndjson,
    /// Apache Parquet, the same columns (needs the `parquet` feature).
    Parquet,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// ndjson (one JSON object per line) or parquet.
    #[arg(long, value_enum, default_value_t = ExportFormat::Ndjson)]
    pub format: ExportFormat,
    /// The file to write (a folder with --partition); NDJSON goes to stdout without it.
    #[arg(long, value_name = "FILE|DIR")]
    pub out: Option<PathBuf>,
    /// Write Hive-style day partitions under --out: date=YYYY-MM-DD/part-00000.<ext>.
    #[arg(long, requires = "out")]
    pub partition: bool,
    /// Let --out replace a file that is not a falseok export. Never an input, a file in an input folder,
    /// a link to one, or a SQLite -wal, -journal or -shm file.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// With --out DIR --partition: add only what is new since the last
    /// --incremental export into DIR (new sessions of an appended Peri
    /// database; a source that changed otherwise is exported again in place),
    /// as the folder's _falseok_export.json records (docs/export.md).
    #[arg(long, requires = "partition")]
    pub incremental: bool,
}

/// The options that change a verdict or what is shown of the trace: every
/// command that judges takes them, so all agree on every call.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgingArgs {
    /// Read every PATH as this format instead of detecting it (names: `falseok formats`).
    #[arg(long, value_name = "NAME", value_parser = FormatName, hide_possible_values = true)]
    pub source_format: Option<String>,
    /// Tool schemas (Anthropic, OpenAI or MCP tool list, JSON) over the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub tool_schemas: Option<PathBuf>,
    /// Model prices (JSON, the shape of the shipped table) over the shipped ones (docs/analyses.md, "Tokens and money").
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
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
    #[arg(long, value_name = "R|TOOL=R")]
    pub max_error_rate: Vec<String>,
    /// Fail on any finding of these rules or any error of these categories (comma-separated, repeatable).
    #[arg(long, value_name = "RULE[,RULE...]")]
    pub fail_on: Vec<String>,
    /// Fail when the failures cost more than this over the run: tokens (250000, 250k, 1.5M) or dollars ($2.50).
    #[arg(long, value_name = "AMOUNT")]
    pub max_failure_cost: Option<String>,
    /// Fail when the failures of any one session cost more than this: tokens (50k) or dollars ($0.50).
    #[arg(long, value_name = "AMOUNT")]
    pub max_session_failure_cost: Option<String>,
    /// Pass when the filters leave no call to judge (by default that is an error, exit 2).
    #[arg(long)]
    pub allow_empty: bool,
    /// Report, but exit 0 even when the gate fails (2 still means an error).
    #[arg(long)]
    pub exit_zero: bool,
    /// Fail only on findings that are not in this baseline file.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings as the baseline in FILE, print +N / -M, and exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Let --write-baseline replace a file that is not a falseok baseline. Never an input, a file in an
    /// input folder, a link to one, or a SQLite -wal, -journal or -shm file.
    #[arg(long, requires = "write_baseline")]
    pub force: bool,
}

#[derive(Debug, clap::Args)]
pub struct ExamplesArgs {
    /// Trace databases or transcripts, as for `scan` (default: every default location found).
    pub paths: Vec<PathBuf>,
    /// The category whose failures to show (see `falseok rules`). Without it: the hidden errors, or, when
    /// there is none, the flagged errors.
    #[arg(long, value_name = "SLUG")]
    pub category: Option<String>,
    /// Only failures of this tool.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Show at most N examples.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Leave out sub-agent sessions.
    #[arg(long)]
    pub no_subagents: bool,
    #[command(flatten)]
    pub judging: JudgingArgs,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The session id: an exact id, or a prefix that only one session has.
    pub session: String,
    /// Trace databases or transcripts, as for `scan` (default: every default location found).
    pub paths: Vec<PathBuf>,
    /// Show this call in full: its id, a unique prefix of it, or its sequence number.
    #[arg(long, value_name = "ID|SEQ")]
    pub call: Option<String>,
    #[command(flatten)]
    pub judging: JudgingArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub command: Option<RulesCommand>,
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Check the `fails` and `passes` examples of the configuration file's rules and benign shapes:
    /// exit 1 naming each example that does not behave.
    #[command(after_help = "Examples:\n  falseok rules test\n  falseok rules test --config team.toml")]
    Test,
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

/// The agents whose hooks `guard` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GuardAgent {
    #[value(name = "claude-code")]
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
    Qwen,
}

/// What the guard does besides counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GuardMode {
    /// Count and record only; say nothing to the agent.
    Observe,
    /// Tell the agent about hidden errors and repeated failures, never deny.
    Advise,
    /// As advise, and deny a call identical to one that failed --streak-threshold times in a row.
    Enforce,
}

#[derive(Debug, clap::Args)]
pub struct GuardArgs {
    #[command(subcommand)]
    pub command: Option<GuardCommand>,
    #[command(flatten)]
    pub run: GuardRunArgs,
}

#[derive(Debug, Clone, clap::Args)]
pub struct GuardRunArgs {
    /// The agent whose hook runs the guard; without it, told from the payload's fields.
    #[arg(long, value_enum)]
    pub agent: Option<GuardAgent>,
    /// observe (count only), advise (tell the agent) or enforce (also deny repeats).
    #[arg(long, value_enum, default_value_t = GuardMode::Advise)]
    pub mode: GuardMode,
    /// The run of identical failures (same tool, same error) after which a repeat is stopped.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub streak_threshold: usize,
    /// With --mode enforce: when the run is this long, also end the agent's turn (Copilot CLI: deny only).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub stop_at: Option<usize>,
    /// Keep the guard's state in this folder instead of the index folder ($XDG_CACHE_HOME/falseok/guard).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum GuardCommand {
    /// Add the guard's hooks to the agent's settings file (a backup is kept; other hooks stay).
    #[command(after_help = "Examples:\n  \
        falseok guard install --agent claude-code              .claude/settings.json of this project\n  \
        falseok guard install --agent codex --user --mode enforce   ~/.codex/hooks.json, denying repeats\n  \
        falseok guard install --agent gemini --settings my.json     any settings file")]
    Install(GuardInstallArgs),
    /// Take the guard's hooks out of the agent's settings file again, and nothing else.
    #[command(after_help = "Examples:\n  \
        falseok guard uninstall --agent claude-code\n  \
        falseok guard uninstall --agent qwen --user")]
    Uninstall(GuardInstallArgs),
    /// List the verdicts the guard gave, oldest first.
    #[command(after_help = "Examples:\n  \
        falseok guard log                          every session's verdicts\n  \
        falseok guard log --session 1f0e5c3a --json  one session, one JSON object per line")]
    Log(GuardLogArgs),
}

#[derive(Debug, clap::Args)]
pub struct GuardLogArgs {
    /// Only this session (an exact id or a prefix).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
    /// The guard's state folder, as given to `guard --state-dir`.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct GuardInstallArgs {
    /// The agent whose settings to change.
    #[arg(long, value_enum)]
    pub agent: GuardAgent,
    /// The project's settings, under the current folder (the default).
    #[arg(long, conflicts_with_all = ["user", "settings"])]
    pub project: bool,
    /// The user's settings, under $HOME (Codex: $CODEX_HOME when set).
    #[arg(long, conflicts_with = "settings")]
    pub user: bool,
    /// This settings file instead.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// The mode the installed hooks run the guard in (install only).
    #[arg(long, value_enum, default_value_t = GuardMode::Advise)]
    pub mode: GuardMode,
}
