//! Deterministic generator of synthetic **Peri Code** trace databases (SQLite).
//!
//! [`generate_peri`] writes a new database in the shape of Peri's `SqliteThreadStore`
//! (legacy `threads`/`messages` tables plus the ALTER columns, `PRAGMA user_version` 0),
//! filled with root sessions, sub-agent threads, tool calls and tool results.
//!
//! * [`PeriScenario::Postmortem`] reproduces the pre-fix era (2026-05-20 .. 2026-06-02):
//!   bare message JSON, 1344 Agent calls with 45 hidden failures and 6233 Edit calls with
//!   284 hidden failures, all stored with `"is_error":false`.
//! * [`PeriScenario::PostFix`] is a small post-fix era database (2026-06-16 .. 2026-06-20):
//!   extra columns, every row in the V1 envelope, every failure flagged.
//!
//! Every tool-call count is exact and independent of the seed; the seed only changes
//! which session gets what, the texts, the timing and the ids. The same seed gives a
//! byte-identical file: there is no wall-clock time and no hash-order iteration.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use chrono::{DateTime, SecondsFormat};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::rng::Rng;

/// Which era of Peri's trace store to imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeriScenario {
    /// Pre-fix era: hidden errors (`Ok("Error: …")`, `is_error:false`), legacy rows.
    Postmortem,
    /// Post-fix era: V1 envelope, extra columns, every failure flagged.
    PostFix,
}

/// What [`generate_peri`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenStats {
    /// Rows in `threads` (root sessions and sub-agent threads).
    pub threads: usize,
    /// Threads with a `parent_thread_id`.
    pub subagent_threads: usize,
    /// Rows in `messages`.
    pub messages: usize,
    /// Tool calls per tool; `ExecuteExtraTool` calls are counted under `input.tool_name`.
    pub calls_by_tool: BTreeMap<String, usize>,
}

/// Create a new Peri trace database at `path` (which must not exist yet).
///
/// Everything is written in one transaction with `journal_mode=DELETE`, then the file
/// is vacuumed. The same `seed` always produces the same bytes.
pub fn generate_peri(path: &Path, scenario: PeriScenario, seed: u64) -> rusqlite::Result<GenStats> {
    let plan = match scenario {
        PeriScenario::Postmortem => Plan::postmortem(),
        PeriScenario::PostFix => Plan::post_fix(),
    };
    let mut b = Builder::new(&plan, seed);
    b.build_all();
    b.write(path, seed)
}

// ---------------------------------------------------------------------------------------
// Error texts (quoted from Peri, see research/peri.md §3)
// ---------------------------------------------------------------------------------------

const AGENT_FG: &str =
    "Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode";
const AGENT_BG: &str = "Error: background mode requires subagent_type parameter (or use fork: true)";
const AGENT_CONC_PRE: &str = "Error: maximum 3 concurrent background tasks reached. Wait for a running task to complete before starting a new one.";
const AGENT_CONC_POST: &str = "Error: Maximum 3 concurrent background tasks reached";
const AGENT_NO_PROMPT: &str = "Error: missing required parameter prompt";
const EDIT_HINT: &str = "old_string's first 3 lines matched lines 120-122, but the full string did not match. The file may have been modified. Please Read this file to get the latest content before retrying.";
const READ_MISSING: &str =
    "The 'file_path' parameter is required for the Read tool. Provide the absolute path to the file.";
const TASK_UNKNOWN: &str = "工具 'Task' 不存在";
const BASH_INTERRUPTED: &str = "Tool execution failed: Bash - interrupted by user";
const DONT_ASK: &str = "Don't Ask 模式：自动拒绝";
const USER_REJECT: &str = "not now, I'm changing that file myself";
const EDIT_WARNING: &str = "<system-reminder>\nWarning: Tool 'Edit' has failed 5 consecutive times with the same error. Stop retrying and analyze the root cause. Consider using a different approach or asking the user for guidance.\n</system-reminder>";
const AGENT_RESULT_EMPTY: &str = "No completed background agent results available yet.";

fn agent_def_missing(id: &str) -> String {
    format!(
        "Error: cannot find agent definition '{id}'. Check .claude/agents/ directory or use a built-in agent (explore, plan, general-purpose, verification)"
    )
}

// ---------------------------------------------------------------------------------------
// PRNG: the shared splitmix64, salted for this generator
// ---------------------------------------------------------------------------------------

fn peri_rng(seed: u64) -> Rng {
    Rng::new(seed ^ 0x5EED_0F9E_41C0_DE00)
}

/// A UUID v7 string: 48-bit Unix milliseconds, version 7, variant `10`.
fn uuid7(ms: i64, rng: &mut Rng) -> String {
    let ms = (ms as u64) & 0xFFFF_FFFF_FFFF;
    let hi = (ms << 16) | 0x7000 | (rng.next_u64() & 0x0FFF);
    let lo = 0x8000_0000_0000_0000 | (rng.next_u64() & 0x3FFF_FFFF_FFFF_FFFF);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}

fn rfc3339(us: i64) -> String {
    DateTime::from_timestamp_micros(us).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Micros, false)
}

/// A JSON string literal.
fn js(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// Render an object keeping the given key order (serde_json's `Map` would sort keys).
fn render_obj(fields: &[(&str, Value)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("{}:{}", js(k), v)).collect();
    format!("{{{}}}", body.join(","))
}

const MIN: i64 = 60_000_000;
const SEC: i64 = 1_000_000;
const MS: i64 = 1_000;

// ---------------------------------------------------------------------------------------
// Plan: exact budgets per scenario
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tool {
    Agent,
    Edit,
    Read,
    Bash,
    Grep,
    Glob,
    Write,
    TodoWrite,
    WebFetch,
    WebSearch,
    AskUserQuestion,
    FolderOps,
    AgentResult,
    CronList,
    Task,
}

impl Tool {
    /// The name in the `tool_use` block.
    fn call_name(self) -> &'static str {
        match self {
            Tool::Agent => "Agent",
            Tool::Edit => "Edit",
            Tool::Read => "Read",
            Tool::Bash => "Bash",
            Tool::Grep => "Grep",
            Tool::Glob => "Glob",
            Tool::Write => "Write",
            Tool::TodoWrite => "TodoWrite",
            Tool::WebFetch => "WebFetch",
            Tool::WebSearch => "WebSearch",
            Tool::AskUserQuestion => "AskUserQuestion",
            Tool::FolderOps => "folder_operations",
            Tool::AgentResult | Tool::CronList => "ExecuteExtraTool",
            Tool::Task => "Task",
        }
    }
    /// The name statistics use (`ExecuteExtraTool` unwrapped to `input.tool_name`).
    fn stat_name(self) -> &'static str {
        match self {
            Tool::AgentResult => "AgentResult",
            Tool::CronList => "cron_list",
            t => t.call_name(),
        }
    }
    fn read_only(self) -> bool {
        matches!(self, Tool::Read | Tool::Grep | Tool::Glob)
    }
}

/// A scripted sequence of calls with a known outcome. Units are realised contiguously.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// Agent call missing `subagent_type`, then the same input plus `subagent_type` succeeds.
    AgentRepair {
        bg: bool,
    },
    /// `n` identical foreground calls missing `subagent_type`, then the repair.
    AgentRun {
        n: usize,
    },
    /// A `subagent_type` failure that is not repaired.
    AgentUnrepaired {
        bg: bool,
    },
    /// Three background launches, a concurrency-limit failure, an `AgentResult` poll.
    AgentBurst,
    AgentDefNotFound(&'static str),
    AgentNoPrompt,
    /// Read F, Edit F ok, (filler), Edit F not found [stale], Read F, Edit F ok.
    StaleEdit,
    /// Write F, Edit F not found [stale], Read F, Edit F ok.
    StaleWrite,
    /// Read F, Edit F ok, 2 × Edit F not found [stale], Read F, Edit F ok.
    StaleDouble,
    /// Read F, Edit F not found [non-stale], Read F, Edit F ok.
    NonStaleRead,
    /// Edit F not found with F never modified [non-stale], Read F, Edit F ok.
    NonStaleNever,
    /// Read F, Edit F ok, Read F, Edit F not found [non-stale], Read F, Edit F ok.
    NonStaleAfterRead,
    /// Read F, Edit F not unique (n occurrences), Edit F ok.
    NotUnique(usize),
    /// Read F, Edit F unexpected state, Read F, Edit F ok.
    Unexpected,
    /// Read F, 5 identical flagged not-found Edits (warning before the 5th result), Read F, Edit ok.
    EditRun5,
    /// Read without `file_path` (flagged), then a proper Read.
    ReadMissingPath,
    /// Unknown tool `Task` (flagged), then the same input through `Agent`.
    TaskUnknown,
    /// Bash interrupted by the user; the turn ends there.
    BashInterrupted,
    /// Bash refused by Don't-Ask mode.
    BashDontAsk,
    /// Write refused by the user with free text.
    WriteRejected,
    /// `n` identical `ExecuteExtraTool` → `AgentResult` polls in a row.
    AgentResultLoop(usize),
}

impl Unit {
    fn composition(self) -> Vec<(Tool, usize)> {
        use Tool::*;
        match self {
            Unit::AgentRepair { .. } => vec![(Agent, 2)],
            Unit::AgentRun { n } => vec![(Agent, n + 1)],
            Unit::AgentUnrepaired { .. } | Unit::AgentDefNotFound(_) | Unit::AgentNoPrompt => {
                vec![(Agent, 1)]
            }
            Unit::AgentBurst => vec![(Agent, 4), (AgentResult, 1)],
            Unit::StaleEdit => vec![(Read, 2), (Edit, 3)],
            Unit::StaleWrite => vec![(Write, 1), (Read, 1), (Edit, 2)],
            Unit::StaleDouble => vec![(Read, 2), (Edit, 4)],
            Unit::NonStaleRead => vec![(Read, 2), (Edit, 2)],
            Unit::NonStaleNever => vec![(Read, 1), (Edit, 2)],
            Unit::NonStaleAfterRead => vec![(Read, 3), (Edit, 3)],
            Unit::NotUnique(_) => vec![(Read, 1), (Edit, 2)],
            Unit::Unexpected => vec![(Read, 2), (Edit, 2)],
            Unit::EditRun5 => vec![(Read, 2), (Edit, 6)],
            Unit::ReadMissingPath => vec![(Read, 2)],
            Unit::TaskUnknown => vec![(Task, 1), (Agent, 1)],
            Unit::BashInterrupted | Unit::BashDontAsk => vec![(Bash, 1)],
            Unit::WriteRejected => vec![(Write, 1)],
            Unit::AgentResultLoop(n) => vec![(AgentResult, n)],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubKind {
    Fg,
    Bg,
    Fork,
    BgFork,
}

struct Plan {
    post: bool,
    sessions: usize,
    start_us: i64,
    end_us: i64,
    totals: Vec<(Tool, usize)>,
    units: Vec<Unit>,
    unpaired: bool,
    /// Sub-agent threads; every one is spawned by an ordinary successful Agent call.
    sub_threads: usize,
    sub_calls: Vec<(Tool, usize)>,
    /// Kinds of ordinary successful Agent calls other than foreground.
    agent_kinds: Vec<(SubKind, usize)>,
    log_reads: usize,
    bash_exit1: usize,
    bash_done1: usize,
    grep_errlike: usize,
    grep_nomatch: usize,
    glob_none: usize,
    system_first: usize,
    system_later: usize,
    reminders: usize,
    turn_len: (i64, i64),
}

fn ymd_us(y: i32, m: u32, d: u32) -> i64 {
    chrono::NaiveDate::from_ymd_opt(y, m, d)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_micros())
        .unwrap_or_default()
}

impl Plan {
    fn postmortem() -> Plan {
        let mut units = Vec::new();
        let mut add = |u: Unit, n: usize| units.extend(std::iter::repeat_n(u, n));
        // Agent: 21 fg + 15 bg + 5 + 3 + 1 = 45 failures.
        add(Unit::AgentRepair { bg: false }, 14);
        add(Unit::AgentRepair { bg: true }, 14);
        add(Unit::AgentRun { n: 6 }, 1);
        add(Unit::AgentUnrepaired { bg: false }, 1);
        add(Unit::AgentUnrepaired { bg: true }, 1);
        add(Unit::AgentBurst, 5);
        add(Unit::AgentDefNotFound("code-reviewr"), 1);
        add(Unit::AgentDefNotFound("docs-writer"), 1);
        add(Unit::AgentDefNotFound("tester"), 1);
        add(Unit::AgentNoPrompt, 1);
        // Edit: 132 stale + 81 non-stale not-found, 70 not-unique, 1 unexpected.
        add(Unit::StaleEdit, 90);
        add(Unit::StaleWrite, 18);
        add(Unit::StaleDouble, 12);
        add(Unit::NonStaleRead, 45);
        add(Unit::NonStaleNever, 30);
        add(Unit::NonStaleAfterRead, 6);
        add(Unit::NotUnique(2), 50);
        add(Unit::NotUnique(3), 7);
        add(Unit::NotUnique(4), 5);
        for n in [6, 7, 8, 9, 6, 7, 8, 9] {
            add(Unit::NotUnique(n), 1);
        }
        add(Unit::Unexpected, 1);
        add(Unit::AgentResultLoop(5), 1);
        use Tool::*;
        Plan {
            post: false,
            sessions: 110,
            start_us: ymd_us(2026, 5, 20),
            end_us: ymd_us(2026, 6, 3),
            totals: vec![
                (Agent, 1344),
                (Edit, 6233),
                (Read, 3000),
                (Bash, 2000),
                (Grep, 1500),
                (Glob, 300),
                (Write, 300),
                (TodoWrite, 400),
                (WebFetch, 40),
                (WebSearch, 40),
                (AskUserQuestion, 30),
                (FolderOps, 20),
                (AgentResult, 44),
                (CronList, 6),
            ],
            units,
            unpaired: true,
            sub_threads: 150,
            sub_calls: vec![(Read, 420), (Grep, 240), (Glob, 90), (Bash, 90), (Edit, 30)],
            agent_kinds: vec![(SubKind::Bg, 150), (SubKind::Fork, 10), (SubKind::BgFork, 2)],
            log_reads: 30,
            bash_exit1: 40,
            bash_done1: 4,
            grep_errlike: 30,
            grep_nomatch: 90,
            glob_none: 20,
            system_first: 14,
            system_later: 6,
            reminders: 0,
            turn_len: (4, 22),
        }
    }

    fn post_fix() -> Plan {
        let mut units = Vec::new();
        let mut add = |u: Unit, n: usize| units.extend(std::iter::repeat_n(u, n));
        add(Unit::AgentRepair { bg: false }, 4);
        add(Unit::AgentRepair { bg: true }, 2);
        add(Unit::AgentBurst, 1);
        add(Unit::AgentDefNotFound("code-reviewr"), 1);
        add(Unit::StaleEdit, 3);
        add(Unit::StaleWrite, 1);
        add(Unit::NonStaleRead, 1);
        add(Unit::NonStaleNever, 1);
        add(Unit::EditRun5, 1);
        add(Unit::NotUnique(2), 2);
        add(Unit::ReadMissingPath, 2);
        add(Unit::TaskUnknown, 1);
        add(Unit::BashInterrupted, 2);
        add(Unit::BashDontAsk, 1);
        add(Unit::WriteRejected, 1);
        use Tool::*;
        Plan {
            post: true,
            sessions: 25,
            start_us: ymd_us(2026, 6, 16),
            end_us: ymd_us(2026, 6, 21),
            totals: vec![
                (Agent, 40),
                (Edit, 140),
                (Read, 160),
                (Bash, 100),
                (Grep, 70),
                (Glob, 20),
                (Write, 20),
                (TodoWrite, 20),
                (WebFetch, 5),
                (WebSearch, 5),
                (AskUserQuestion, 4),
                (FolderOps, 3),
                (AgentResult, 5),
                (CronList, 1),
                (Task, 1),
            ],
            units,
            unpaired: false,
            sub_threads: 14,
            sub_calls: vec![(Read, 65), (Grep, 32), (Glob, 8), (Bash, 28), (Edit, 12)],
            agent_kinds: vec![(SubKind::Bg, 3), (SubKind::Fork, 1), (SubKind::BgFork, 1)],
            log_reads: 3,
            bash_exit1: 4,
            bash_done1: 1,
            grep_errlike: 3,
            grep_nomatch: 6,
            glob_none: 2,
            system_first: 3,
            system_later: 0,
            reminders: 5,
            turn_len: (3, 10),
        }
    }

    /// Calls left for ordinary traffic in root threads, per tool.
    fn bag(&self) -> BTreeMap<Tool, usize> {
        let mut left: BTreeMap<Tool, i64> = self.totals.iter().map(|&(t, n)| (t, n as i64)).collect();
        let mut take = |t: Tool, n: usize| *left.entry(t).or_insert(0) -= n as i64;
        for u in &self.units {
            for (t, n) in u.composition() {
                take(t, n);
            }
        }
        if self.unpaired {
            take(Tool::Bash, 1);
        }
        for &(t, n) in &self.sub_calls {
            take(t, n);
        }
        left.into_iter()
            .map(|(t, n)| {
                debug_assert!(n >= 0, "plan over budget for {t:?}");
                (t, n.max(0) as usize)
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// Projects and text pools
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Ts,
    Md,
}

struct Project {
    cwd: &'static str,
    lang: Lang,
    files: &'static [&'static str],
    new_files: &'static [&'static str],
    log: &'static str,
    first_prompts: &'static [&'static str],
    agent_tasks: &'static [(&'static str, &'static str)],
}

const PROJECTS: &[Project] = &[
    Project {
        cwd: "/Users/dev/code/peri",
        lang: Lang::Rust,
        files: &[
            "peri-agent/src/agent/executor/tool_dispatch.rs",
            "peri-agent/src/agent/executor/mod.rs",
            "peri-agent/src/agent/executor/react.rs",
            "peri-agent/src/agent/state.rs",
            "peri-agent/src/agent/error.rs",
            "peri-agent/src/thread/sqlite_store.rs",
            "peri-agent/src/thread/mod.rs",
            "peri-agent/src/thread/filesystem_store.rs",
            "peri-agent/src/metrics.rs",
            "peri-agent/src/lib.rs",
            "peri-middlewares/src/tools/filesystem/edit.rs",
            "peri-middlewares/src/tools/filesystem/read.rs",
            "peri-middlewares/src/tools/filesystem/write.rs",
            "peri-middlewares/src/tools/filesystem/glob.rs",
            "peri-middlewares/src/tools/filesystem/grep.rs",
            "peri-middlewares/src/tools/filesystem/folder.rs",
            "peri-middlewares/src/tools/filesystem/mod.rs",
            "peri-middlewares/src/tools/web/fetch.rs",
            "peri-middlewares/src/tools/web/search.rs",
            "peri-middlewares/src/tools/todo.rs",
            "peri-middlewares/src/tools/ask_user.rs",
            "peri-middlewares/src/tools/extra.rs",
            "peri-middlewares/src/middleware/terminal.rs",
            "peri-middlewares/src/middleware/hooks.rs",
            "peri-middlewares/src/middleware/permissions.rs",
            "peri-middlewares/src/subagent/tool/define.rs",
            "peri-middlewares/src/subagent/tool/execute_bg.rs",
            "peri-middlewares/src/subagent/tool/execute_fork.rs",
            "peri-middlewares/src/subagent/registry.rs",
            "peri-middlewares/src/subagent/mod.rs",
            "peri-middlewares/src/lib.rs",
            "peri-middlewares/tests/edit_tool.rs",
            "peri-middlewares/tests/agent_tool.rs",
            "peri-tui/src/app/history.rs",
            "peri-tui/src/app/render.rs",
            "peri-tui/src/main.rs",
            "peri-acp-types/src/store.rs",
            "peri-acp-types/src/message.rs",
            "peri-resources/src/sessions/sqlite_store.rs",
            "peri-resources/src/sessions/schema.rs",
        ],
        new_files: &[
            "peri-middlewares/tests/edit_regressions.rs",
            "peri-middlewares/tests/agent_params.rs",
            "peri-middlewares/tests/grep_modes.rs",
            "peri-middlewares/src/tools/filesystem/hints.rs",
            "peri-agent/src/agent/executor/failure_guard.rs",
            "peri-agent/tests/consecutive_failures.rs",
        ],
        log: "logs/peri-agent.log",
        first_prompts: &[
            "修复 Edit 工具错误处理：把 Ok(\"Error: …\") 改为 Err",
            "Agent 工具调用为什么经常缺 subagent_type？看一下 define.rs",
            "Add a tool.error metric in tool_dispatch.rs for every flagged result",
            "Recompute message_count in the sqlite thread store on every append",
            "The TUI history list shows hidden sub-agent threads, please fix",
            "给 Read 工具加 offset 越界检查，并补测试",
            "Implement the consecutive-failure warning with threshold 5",
            "Background agents never report results. Investigate execute_bg.rs",
            "Clean up the clippy warnings in peri-middlewares",
            "Write tests for the Grep tool output modes",
            "把 Edit 的 not found 提示改成带匹配行号的版本",
            "Bash should show non-zero exit codes in the output but not fail",
            "Why do some tool results have no matching tool_use? Check the store",
            "重构 terminal.rs 的超时处理",
        ],
        agent_tasks: &[
            (
                "Explore tool dispatch",
                "Find where tool results become tool messages and how is_error is set. Report paths and line numbers.",
            ),
            (
                "Find Ok(Error) sites",
                "List every place in peri-middlewares that returns Ok(format!(\"Error...\")) instead of Err.",
            ),
            ("Review edit change", "Review the current diff of the Edit tool for correctness and missing tests."),
            ("Plan Agent fix", "Plan the change that makes the Agent tool return Err for parameter errors."),
            ("Verify middleware tests", "Run the peri-middlewares tests and report any failure with its output."),
            ("Survey sub-agent threads", "Count sub-agent threads per parent in the threads database and summarise."),
            ("Map thread store", "Explain how SqliteThreadStore appends messages and updates updated_at."),
            ("Check Bash exit codes", "Check how terminal.rs reports non-zero exit codes and timeouts."),
            ("查找调用点", "找出所有调用 load_agent_def 的地方，并说明错误如何返回。"),
        ],
    },
    Project {
        cwd: "/Users/dev/code/peri/side-projects/agent-defect-analyzer",
        lang: Lang::Ts,
        files: &[
            "src/index.ts",
            "src/db.ts",
            "src/pair.ts",
            "src/analyzers/agent_errors.ts",
            "src/analyzers/edit_errors.ts",
            "src/analyzers/missing-params.ts",
            "src/analyzers/loops.ts",
            "src/analyzers/consecutive.ts",
            "src/report/markdown.ts",
            "src/report/table.ts",
            "src/types.ts",
            "test/edit_errors.test.ts",
            "test/pair.test.ts",
            "package.json",
            "README.md",
        ],
        new_files: &["src/analyzers/stale_edits.ts", "src/analyzers/hidden_errors.ts", "test/hidden_errors.test.ts"],
        log: "logs/analyzer-run.log",
        first_prompts: &[
            "Run the agent-defect-analyzer on last week's data and summarise",
            "analyzer 的 Agent 错误率为什么是 0？",
            "Add an edit_errors analyzer that separates not-found from not-unique",
            "Report stale edits: not-found after an earlier successful Edit",
            "Export the per-tool table as markdown",
            "把错误识别从 is_error 改成按内容前缀匹配",
        ],
        agent_tasks: &[
            ("Explore pairing", "Check how the analyzer pairs tool_use blocks with tool results in SQLite."),
            ("Find LIKE filters", "Find every SQL query that filters on is_error and list them."),
            ("Review report", "Review the markdown report renderer for wrong percentages."),
        ],
    },
    Project {
        cwd: "/Users/dev/code/peri-docs",
        lang: Lang::Md,
        files: &[
            "docs/blogs/tool-error-rate/tool-error-rate.md",
            "docs/blogs/tool-error-rate/figures.md",
            "spec/issues/edit-tool-errors-invisible.md",
            "spec/issues/agent-tool-error-rate.md",
            "docs/superpowers/plans/agent-tool-error-fix.md",
            "docs/guide/tools.md",
            "docs/guide/subagents.md",
            "docs/guide/troubleshooting.md",
            "README.md",
            "CHANGELOG.md",
        ],
        new_files: &["docs/notes/edit-hints.md", "docs/notes/metrics.md"],
        log: "logs/build.log",
        first_prompts: &[
            "写一篇工具错误率复盘的博客草稿",
            "Update the Agent issue doc with the fix record",
            "Draft the plan doc for the Agent tool error fix",
            "Proofread the tool error-rate blog post",
            "把 subagents 指南里 subagent_type 的说明改清楚",
        ],
        agent_tasks: &[
            ("Collect numbers", "Collect the Agent and Edit error counts from the analyzer report for the blog."),
            ("Check links", "Check every relative link in docs/guide and list broken ones."),
        ],
    },
];

const FOLLOW_UPS: &[&str] = &[
    "继续",
    "Looks good. Now run the tests.",
    "也改一下 execute_bg.rs",
    "Please also update the docs.",
    "commit this",
    "What about background mode?",
    "ok, next file",
    "跑一下 clippy",
    "Can you double check the edge cases?",
    "好的，继续下一个",
    "That test still fails, have a look",
    "Use the same approach for the Read tool",
    "可以，顺便整理一下 imports",
];

const AFTER_INTERRUPT: &str = "stop, that takes too long. Run only the edit tests.";

const REASONING: &[&str] = &[
    "The error is returned as Ok, so is_error stays false.",
    "I should read the file again before editing.",
    "Need to check which crate owns this code.",
    "Let me verify the tests compile first.",
    "先确认调用点再改。",
    "The match count logic is in the same function.",
    "This needs a test for the not-found branch.",
];

const STEP_TEXTS: &[&str] = &[
    "Let me look at the file.",
    "I'll search for the call sites.",
    "Running the tests now.",
    "Now I'll update the error branch.",
    "让我看一下这个文件。",
    "接下来修改测试。",
    "Checking the current state.",
    "Let me check the build.",
];

const FINAL_TEXTS: &[&str] = &[
    "Done. The error paths now return Err and the tests pass.",
    "已完成修改，测试全部通过。",
    "I updated the files; cargo check is clean.",
    "The change is in place. Want me to also update the docs?",
    "Summary: the branch now reports failures through the flag, with a test for each case.",
    "完成。主要改动在错误分支和对应测试。",
    "All done. No warnings left.",
];

const SYSTEM_FIRST: &[&str] = &[
    "Environment: macOS 15.5, shell zsh, git branch main.",
    "Project instructions loaded from CLAUDE.md.",
    "Skills available: learn-from-history, commit.",
];

const SYSTEM_LATER: &[&str] = &[
    "Conversation compacted. Summary: the user is fixing tool error handling; tests were passing before compaction.",
    "Context was summarised to save tokens. Earlier steps edited the error branches and ran the tests.",
];

const REMINDERS: &[&str] = &[
    "The working tree has uncommitted changes.",
    "The user opened a file in the editor; re-read it before editing.",
    "Plan mode is off. You may edit files.",
    "A background agent finished; use AgentResult to read its output.",
];

const AGENT_TYPES: &[&str] =
    &["explore", "explore", "explore", "general-purpose", "general-purpose", "plan", "verification", "code-reviewer"];

const SUMMARIES: &[&str] = &[
    "Found 4 sites that return Ok(\"Error: …\"): define.rs (3) and execute_bg.rs (1).",
    "The result is converted in tool_dispatch.rs; is_error comes from the Result variant.",
    "All tests pass; no warnings.",
    "The store appends messages with INSERT OR IGNORE and recomputes message_count.",
    "No blocking issues. Two suggestions: add a test for replace_all, and trim the hint.",
    "The plan has three steps: change the return type, update the tests, rewrite the description.",
    "共找到 3 处调用，均在 subagent/tool 目录下。",
    "Timeouts are reported as text; non-zero exits append the exit code.",
];

const RUST_LINES: &[&str] = &[
    "use anyhow::{Context, Result};",
    "pub async fn invoke(&self, input: Value) -> Result<String> {",
    "    let path = resolve_path(&self.cwd, raw);",
    "    let hits = content.matches(old).count();",
    "    if hits == 0 {",
    "        return Ok(format!(\"Error: old_string not found in {}\", p));",
    "    }",
    "    let is_error = out.is_err();",
    "    msgs.push(BaseMessage::tool(id, out, is_error));",
    "#[tokio::test]",
    "async fn edit_not_found_returns_err() {",
    "impl SqliteThreadStore {",
    "    let kind = input.get(\"subagent_type\");",
    "const CONSECUTIVE_FAILURE_THRESHOLD: usize = 5;",
    "        Err(e) => return Ok(e),",
    "    Ok(out)",
    "}",
    "",
];

const TS_LINES: &[&str] = &[
    "import { Database } from \"bun:sqlite\";",
    "export function pairCalls(rows: Row[]): Pair[] {",
    "  const db = new Database(path, { readonly: true });",
    "  const isErr = /^Error:/.test(text.trim());",
    "  for (const row of rows) {",
    "    if (block.type === \"tool_use\") calls.set(block.id, block);",
    "  return pairs.filter((p) => p.result !== undefined);",
    "}",
    "export interface Pair { call: ToolUse; result?: ToolResult }",
    "",
];

const MD_LINES: &[&str] = &[
    "# Tool error-rate postmortem",
    "## Root cause",
    "The tool returned Ok(\"Error: ...\") instead of Err, so is_error stayed false.",
    "| error kind | count | share |",
    "|---|---|---|",
    "- subagent_type missing (foreground): 21",
    "- [ ] update the tool description",
    "",
    "See the plan in docs/superpowers/plans.",
];

const LOG_ERR: &[&str] = &[
    "Error: connection refused (os error 61)",
    "ERROR: disk full",
    "2026-05-21T03:12:44Z ERROR: disk full while writing metrics/2026-05-21.jsonl",
    "[otel] Error: connection refused while exporting spans to 127.0.0.1:4317",
];

const LOG_LINES: &[&str] = &[
    "2026-05-21T03:12:40Z INFO agent run started",
    "2026-05-21T03:12:41Z INFO tool=Read duration_ms=4",
    "2026-05-21T03:12:43Z WARN retrying export (attempt 2)",
    "Error: connection refused (os error 61)",
    "2026-05-21T03:12:45Z INFO tool=Edit duration_ms=11",
    "ERROR: disk full",
];

/// (old_string, new_string) templates; `@` is replaced by an identifier.
const RUST_EDITS: &[(&str, &str)] = &[
    ("return Ok(msg);", "return Err(anyhow!(msg));"),
    ("let n = 1;", "let n = if all { hits } else { 1 };"),
    ("Ok(out)", "Ok(out.trim_end().into())"),
    ("use std::path::PathBuf;", "use std::path::{Path, PathBuf};"),
    ("fn @(&self) -> String {", "fn @(&self) -> Result<String> {"),
    ("Err(e) => return Ok(e),", "Err(e) => return Err(e.into()),"),
    ("let is_error = false;", "let is_error = out.is_err();"),
    ("const THRESHOLD: usize = 3;", "const THRESHOLD: usize = 5;"),
    ("    todo!()\n}", "    assert!(@().is_err());\n}"),
    ("if hits == 0 {", "if hits == 0 {\n    debug!(\"@\");"),
    ("// TODO(@)\nlet n = 1;", "let n = hits;"),
    ("t.unwrap_or(120_000)", "t.unwrap_or(120_000).min(600_000)"),
];

const TS_EDITS: &[(&str, &str)] = &[
    ("const isErr = r.is_error;", "const isErr = r.is_error || /^Error:/.test(t);"),
    ("export function @(rows) {", "export function @(rows, opts) {"),
    ("return pairs;", "// drop orphans\nreturn pairs.filter((p) => p.call);"),
    ("import { x } from \"./x\";\nimport path from \"node:path\";", "import { x } from \"./x\";"),
    ("limit: 10,", "limit: 50,"),
];

const MD_EDITS: &[(&str, &str)] = &[
    ("## Root cause", "## Root cause\n\nOk(\"Error: …\") hid the failure."),
    ("- [ ] update the description", "- [x] update the description"),
    ("错误率 3.3%", "错误率 3.35%"),
    ("subagent_type is optional.\nEmpty means fork.", "subagent_type is REQUIRED unless fork=true."),
    ("| @ | 0 |", "| @ | 21 |"),
];

const IDENTS: &[&str] = &[
    "render_hint",
    "collect_results",
    "load_agent_def",
    "spawn_background",
    "count_matches",
    "resolve_path",
    "append_messages",
    "format_locations",
    "build_prompt",
    "dispatch_tools",
    "edit_not_found",
    "grep_count_mode",
];

const NOT_UNIQUE_FRAGS: &[(Lang, &str)] = &[
    (Lang::Rust, "Ok(())"),
    (Lang::Rust, "    }\n}"),
    (Lang::Rust, ".unwrap()"),
    (Lang::Rust, "return None;"),
    (Lang::Ts, "return null;"),
    (Lang::Ts, "  });"),
    (Lang::Md, "- [ ] "),
    (Lang::Md, "| --- |"),
];

const GREP_PATTERNS: &[&str] = &[
    "is_error",
    "fn invoke",
    "subagent_type",
    "CONSECUTIVE_FAILURE",
    "load_agent_def",
    "message_count",
    "replace_all",
    "tool_call_id",
];

const GREP_ERR_PATTERNS: &[&str] =
    &["Error: old_string", "Ok\\(format!\\(\"Error", "\"Error:", "Error: please provide"];

const GREP_ERR_LINES: &[&str] = &[
    "        return Ok(format!(\"Error: old_string not found in {}\", path.display()));",
    "        return Ok(format!(\"Error: old_string not found\"));",
    "            return Ok(\"Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode\".into());",
    "    assert!(out.starts_with(\"Error: old_string is not unique\"));",
    "        Err(e) => return Ok(format!(\"Error: {e}\")),",
];

const WEB: &[(&str, &str, &str)] = &[
    (
        "rust anyhow error vs Result Ok string",
        "https://docs.rs/anyhow/latest/anyhow/",
        "anyhow::Error is a wrapper around a dynamic error type; use ? to propagate.",
    ),
    (
        "sqlite json_each example",
        "https://sqlite.org/json1.html",
        "json_each() walks the elements of a JSON array or object and returns one row per element.",
    ),
    (
        "uuid v7 timestamp layout",
        "https://www.rfc-editor.org/rfc/rfc9562",
        "UUIDv7 features a time-ordered value field derived from the Unix Epoch timestamp in milliseconds.",
    ),
    (
        "anthropic tool_result is_error",
        "https://docs.anthropic.com/en/docs/build-with-claude/tool-use",
        "Set is_error to true when the tool execution failed; the model will see the error content.",
    ),
    (
        "bun sqlite readonly",
        "https://bun.sh/docs/api/sqlite",
        "new Database(path, { readonly: true }) opens the file without write access.",
    ),
];

const TODOS: &[&str] = &[
    "Read the current implementation",
    "Change Ok(\"Error\") returns to Err",
    "Update the unit tests",
    "Run cargo clippy",
    "Update the tool description",
    "Add a regression test",
    "检查调用点",
    "更新文档",
];

const QUESTIONS: &[(&str, &str, &str, &str)] = &[
    ("Should not-found errors include a Read hint?", "Hint", "Yes, add the hint", "No, keep it short"),
    ("Which agent type should handle the review?", "Agent", "code-reviewer", "general-purpose"),
    ("要同时修改 Read 工具吗？", "范围", "一起改", "只改 Edit"),
];

// ---------------------------------------------------------------------------------------
// Generated data model
// ---------------------------------------------------------------------------------------

struct CallRec {
    id: String,
    tool: Tool,
    input: String,
    result: Option<(String, bool)>,
}

enum Body {
    User(String),
    System(String),
    /// PostFix `{"version":1,"type":"system_reminder",…}` row (role `system`).
    Reminder(String),
    Assistant {
        reasoning: Option<String>,
        text: Option<String>,
        plain: bool,
        calls: Vec<usize>,
    },
    Tool(usize),
}

struct Msg {
    session: usize,
    thread: usize,
    t: i64,
    body: Body,
}

struct ThreadRec {
    session: usize,
    parent: Option<usize>,
    title: String,
    cwd: &'static str,
    hidden: bool,
    cancel_policy: &'static str,
    snapshot: Option<usize>,
    status: &'static str,
    config: Option<String>,
    created: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FState {
    /// Modified by a successful Edit/Write and not read since.
    Modified,
    /// Modified, then successfully read.
    ReadAfter,
}

enum Effect {
    None,
    Read(String),
    Modify(String),
}

struct SpawnReq {
    kind: SubKind,
    agent: String,
    prompt: String,
}

struct Spec {
    tool: Tool,
    input: Vec<(&'static str, Value)>,
    result: String,
    is_error: bool,
    effect: Effect,
    spawn: Option<SpawnReq>,
    unpaired: bool,
    reminder: Option<String>,
    allow_repeat: bool,
}

impl Spec {
    fn new(tool: Tool, input: Vec<(&'static str, Value)>, result: String) -> Spec {
        Spec {
            tool,
            input,
            result,
            is_error: false,
            effect: Effect::None,
            spawn: None,
            unpaired: false,
            reminder: None,
            allow_repeat: false,
        }
    }
    fn effect(mut self, e: Effect) -> Spec {
        self.effect = e;
        self
    }
    fn flagged(mut self, f: bool) -> Spec {
        self.is_error = f;
        self
    }
    fn path(&self) -> Option<&str> {
        self.input.iter().find(|(k, _)| *k == "file_path").and_then(|(_, v)| v.as_str())
    }
}

enum Item {
    Unit(Unit),
    Bag(Tool),
}

/// Per-thread state while generating.
struct Tc {
    thread: usize,
    state: BTreeMap<String, FState>,
    recent: Vec<String>,
    last_call: Option<(Tool, String)>,
    last_msg: Option<usize>,
}

impl Tc {
    fn new(thread: usize) -> Tc {
        Tc { thread, state: BTreeMap::new(), recent: Vec::new(), last_call: None, last_msg: None }
    }
}

/// Per-root-session state while generating.
struct Sess {
    idx: usize,
    proj: &'static Project,
    deepseek: bool,
    clock: i64,
    /// File state over the root thread and all its sub-agent threads together.
    merged: BTreeMap<String, FState>,
    bg_tasks: Vec<String>,
    avoid_prompt: Option<String>,
    after_interrupt: bool,
    new_file_seq: usize,
}

fn apply(map: &mut BTreeMap<String, FState>, e: &Effect) {
    match e {
        Effect::Read(p) => {
            if let Some(st) = map.get_mut(p) {
                *st = FState::ReadAfter;
            }
        }
        Effect::Modify(p) => {
            map.insert(p.clone(), FState::Modified);
        }
        Effect::None => {}
    }
}

fn line_diff(old: &str, new: &str) -> i64 {
    new.lines().count().max(1) as i64 - old.lines().count().max(1) as i64
}

fn edit_success_text(old: &str, new: &str, rel: &str) -> String {
    match line_diff(old, new) {
        0 => format!("Replaced text (same line count) to {rel}"),
        d if d > 0 => format!("Added {d} line(s) to {rel}"),
        d => format!("Removed {} line(s) to {rel}", -d),
    }
}

// ---------------------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------------------

struct Builder<'p> {
    plan: &'p Plan,
    rng: Rng,
    calls: Vec<CallRec>,
    msgs: Vec<Msg>,
    threads: Vec<ThreadRec>,
    call_ids: BTreeSet<String>,
    deck_read: Vec<bool>,
    deck_bash: Vec<u8>,
    deck_grep: Vec<u8>,
    deck_glob: Vec<bool>,
    deck_spawn: Vec<bool>,
    deck_kind: Vec<SubKind>,
    sub_chunks: Vec<Vec<Tool>>,
    starts: Vec<i64>,
}

impl<'p> Builder<'p> {
    fn new(plan: &'p Plan, seed: u64) -> Builder<'p> {
        let mut rng = peri_rng(seed);
        let bag = plan.bag();
        let sub: BTreeMap<Tool, usize> = plan.sub_calls.iter().copied().collect();
        let free = |t: Tool| bag.get(&t).copied().unwrap_or(0) + sub.get(&t).copied().unwrap_or(0);
        let deck = |rng: &mut Rng, total: usize, special: &[(u8, usize)]| -> Vec<u8> {
            let mut v = Vec::with_capacity(total);
            for &(code, n) in special {
                v.extend(std::iter::repeat_n(code, n));
            }
            v.resize(total.max(v.len()), 0);
            rng.shuffle(&mut v);
            v
        };
        let deck_read = deck(&mut rng, free(Tool::Read), &[(1, plan.log_reads)]).into_iter().map(|c| c == 1).collect();
        let deck_bash = deck(&mut rng, free(Tool::Bash), &[(1, plan.bash_exit1), (2, plan.bash_done1)]);
        let deck_grep = deck(&mut rng, free(Tool::Grep), &[(1, plan.grep_errlike), (2, plan.grep_nomatch)]);
        let deck_glob = deck(&mut rng, free(Tool::Glob), &[(1, plan.glob_none)]).into_iter().map(|c| c == 1).collect();
        let agents = bag.get(&Tool::Agent).copied().unwrap_or(0);
        let deck_spawn = deck(&mut rng, agents, &[(1, plan.sub_threads)]).into_iter().map(|c| c == 1).collect();
        let kinds: Vec<(u8, usize)> = plan.agent_kinds.iter().map(|&(k, n)| (k as u8 + 1, n)).collect();
        let deck_kind = deck(&mut rng, agents, &kinds)
            .into_iter()
            .map(|c| match c {
                1 => SubKind::Fg,
                2 => SubKind::Bg,
                3 => SubKind::Fork,
                4 => SubKind::BgFork,
                _ => SubKind::Fg,
            })
            .collect();
        // Sub-agent call lists: every thread gets at least two calls.
        let mut pool: Vec<Tool> = Vec::new();
        for &(t, n) in &plan.sub_calls {
            pool.extend(std::iter::repeat_n(t, n));
        }
        rng.shuffle(&mut pool);
        let n = plan.sub_threads.max(1);
        let mut sizes = vec![2usize; n];
        for _ in 0..pool.len().saturating_sub(2 * n) {
            let i = rng.below(n);
            sizes[i] += 1;
        }
        let mut sub_chunks = Vec::with_capacity(n);
        let mut it = pool.into_iter();
        for sz in sizes {
            sub_chunks.push(it.by_ref().take(sz).collect());
        }
        Builder {
            plan,
            rng,
            calls: Vec::new(),
            msgs: Vec::new(),
            threads: Vec::new(),
            call_ids: BTreeSet::new(),
            deck_read,
            deck_bash,
            deck_grep,
            deck_glob,
            deck_spawn,
            deck_kind,
            sub_chunks,
            starts: Vec::new(),
        }
    }

    // ----- time and rows -----

    /// Advance the session clock by `lo..=hi` µs, always into a later millisecond.
    fn tick(&mut self, s: &mut Sess, lo: i64, hi: i64) {
        let proposed = s.clock + self.rng.range(lo, hi);
        let floor = (s.clock.div_euclid(MS) + 1) * MS + self.rng.range(0, MS - 1);
        s.clock = proposed.max(floor);
    }

    fn push(&mut self, s: &Sess, tc: &mut Tc, body: Body) -> usize {
        self.msgs.push(Msg { session: s.idx, thread: tc.thread, t: s.clock, body });
        let i = self.msgs.len() - 1;
        tc.last_msg = Some(i);
        i
    }

    fn call_id(&mut self, deepseek: bool, k: usize) -> String {
        loop {
            let id = if deepseek {
                format!("call_{k:02}_{}", self.rng.alnum(24))
            } else {
                format!("toolu_{}", self.rng.alnum(24))
            };
            if self.call_ids.insert(id.clone()) {
                return id;
            }
        }
    }

    fn tool_duration(&mut self, t: Tool) -> (i64, i64) {
        match t {
            Tool::Read | Tool::Edit | Tool::Write | Tool::Glob | Tool::TodoWrite => (3 * MS, 60 * MS),
            Tool::FolderOps | Tool::AgentResult | Tool::CronList | Tool::Task => (2 * MS, 20 * MS),
            Tool::Grep => (20 * MS, 400 * MS),
            Tool::Bash => (200 * MS, 40 * SEC),
            Tool::WebFetch => (SEC, 6 * SEC),
            Tool::WebSearch => (SEC, 4 * SEC),
            Tool::AskUserQuestion => (5 * SEC, 90 * SEC),
            Tool::Agent => (4 * SEC, 90 * SEC),
        }
    }

    /// One assistant message with `specs` as its calls, followed by their results.
    fn step(&mut self, s: &mut Sess, tc: &mut Tc, mut specs: Vec<Spec>, text: Option<String>) {
        self.tick(s, 1_500 * MS, 18 * SEC);
        let prev_msg = tc.last_msg;
        let mut idxs = Vec::with_capacity(specs.len());
        for (k, sp) in specs.iter_mut().enumerate() {
            let mut input = render_obj(&sp.input);
            let mut tries = 0;
            while !sp.allow_repeat && tries < 8 && tc.last_call.as_ref() == Some(&(sp.tool, input.clone())) {
                // Avoid an accidental identical repeat of the previous call.
                self.undup(s, sp);
                input = render_obj(&sp.input);
                tries += 1;
            }
            let id = self.call_id(s.deepseek, k);
            tc.last_call = Some((sp.tool, input.clone()));
            self.calls.push(CallRec { id, tool: sp.tool, input, result: None });
            idxs.push(self.calls.len() - 1);
        }
        let reasoning = self.rng.chance(0.12).then(|| self.rng.pick(REASONING).to_string());
        let text = text.or_else(|| self.rng.chance(0.3).then(|| self.rng.pick(STEP_TEXTS).to_string()));
        let plain = self.rng.chance(0.05);
        self.push(s, tc, Body::Assistant { reasoning, text, plain, calls: idxs.clone() });
        for (sp, ci) in specs.into_iter().zip(idxs) {
            let result = match &sp.spawn {
                Some(req) => self.spawn(s, tc.thread, req, prev_msg),
                None => sp.result.clone(),
            };
            if let Some(rem) = &sp.reminder {
                self.tick(s, MS, 5 * MS);
                self.push(s, tc, Body::User(rem.clone()));
            }
            if sp.unpaired {
                continue;
            }
            let (lo, hi) = if sp.spawn.is_some() { (50 * MS, 400 * MS) } else { self.tool_duration(sp.tool) };
            self.tick(s, lo, hi);
            self.calls[ci].result = Some((result, sp.is_error));
            self.push(s, tc, Body::Tool(ci));
            apply(&mut tc.state, &sp.effect);
            apply(&mut s.merged, &sp.effect);
            if let Effect::Read(p) | Effect::Modify(p) = &sp.effect {
                tc.recent.retain(|r| r != p);
                tc.recent.push(p.clone());
                if tc.recent.len() > 10 {
                    tc.recent.remove(0);
                }
            }
        }
    }

    /// Change a call so it differs from the previous one, keeping its outcome.
    fn undup(&mut self, s: &Sess, sp: &mut Spec) {
        let set = |sp: &mut Spec, key: &'static str, v: Value| match sp.input.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = v,
            None => sp.input.push((key, v)),
        };
        match sp.tool {
            Tool::Read => {
                let off = self.rng.range(1, 400);
                let lim = self.rng.range(2, 10) * 20;
                set(sp, "offset", json!(off));
                set(sp, "limit", json!(lim));
                let lines: Vec<String> =
                    sp.result.lines().map(|l| l.split_once('\t').map_or(l, |(_, t)| t).to_owned()).collect();
                sp.result = self.numbered(&lines, off);
            }
            Tool::Edit => {
                let (old, new) = self.snippet(s.proj.lang);
                if !sp.is_error && !sp.result.contains("(replaced") && !sp.result.starts_with("Error") {
                    let rel = sp.path().map(|p| self.rel(s, p).to_owned()).unwrap_or_default();
                    sp.result = edit_success_text(&old, &new, &rel);
                }
                set(sp, "old_string", json!(old));
                set(sp, "new_string", json!(new));
            }
            Tool::Agent | Tool::Task => {
                let (d, _) = *self.rng.pick(s.proj.agent_tasks);
                set(sp, "description", json!(format!("{d} (again)")));
            }
            Tool::Bash => {
                let c = sp.input[0].1.as_str().unwrap_or_default().to_owned();
                set(sp, "command", json!(format!("{c} 2>&1")));
            }
            Tool::Grep => set(sp, "-n", json!(true)),
            Tool::Glob => set(sp, "path", json!(s.proj.cwd)),
            Tool::Write => {
                let c = sp.input[1].1.as_str().unwrap_or_default().to_owned();
                set(sp, "content", json!(format!("{c}\n")));
            }
            _ => set(sp, "description", json!("retry")),
        }
    }

    fn step1(&mut self, s: &mut Sess, tc: &mut Tc, spec: Spec, text: Option<&str>) {
        self.step(s, tc, vec![spec], text.map(str::to_owned));
    }

    fn final_answer(&mut self, s: &mut Sess, tc: &mut Tc, text: String) {
        self.tick(s, 2 * SEC, 20 * SEC);
        let plain = self.rng.chance(0.1);
        self.push(s, tc, Body::Assistant { reasoning: None, text: Some(text), plain, calls: Vec::new() });
    }

    // ----- sessions -----

    fn build_all(&mut self) {
        let plan = self.plan;
        let n = plan.sessions;
        let weights: Vec<f64> = (0..n)
            .map(|_| {
                let u = self.rng.unit();
                0.3 + 3.7 * u * u
            })
            .collect();
        let total_w: f64 = weights.iter().sum();
        let mut items: Vec<Vec<Item>> = (0..n).map(|_| Vec::new()).collect();
        let pick_session = |rng: &mut Rng| {
            let mut x = rng.unit() * total_w;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    return i;
                }
                x -= w;
            }
            n - 1
        };
        for u in &plan.units {
            let i = pick_session(&mut self.rng);
            items[i].push(Item::Unit(*u));
        }
        for (t, c) in plan.bag() {
            for _ in 0..c {
                let i = pick_session(&mut self.rng);
                items[i].push(Item::Bag(t));
            }
        }
        let unpaired_session = plan.unpaired.then(|| self.rng.below(n));
        // Sessions that get a system message / reminder.
        let mut order: Vec<usize> = (0..n).collect();
        self.rng.shuffle(&mut order);
        let sys_first: BTreeSet<usize> = order.iter().take(plan.system_first).copied().collect();
        let sys_later: BTreeSet<usize> =
            order.iter().skip(plan.system_first).take(plan.system_later).copied().collect();
        self.rng.shuffle(&mut order);
        let reminders: BTreeSet<usize> = order.iter().take(plan.reminders).copied().collect();
        let mut durations = Vec::with_capacity(n);
        for (i, mut its) in items.into_iter().enumerate() {
            self.rng.shuffle(&mut its);
            let flags = SessFlags {
                unpaired: unpaired_session == Some(i),
                system_first: sys_first.contains(&i),
                system_later: sys_later.contains(&i),
                reminder: reminders.contains(&i),
            };
            durations.push(self.session(i, its, flags));
        }
        self.starts = self.schedule(&durations);
    }

    fn session(&mut self, idx: usize, items: Vec<Item>, flags: SessFlags) -> i64 {
        let proj = {
            let x = self.rng.unit();
            if x < 0.65 {
                &PROJECTS[0]
            } else if x < 0.85 {
                &PROJECTS[1]
            } else {
                &PROJECTS[2]
            }
        };
        let deepseek = self.rng.chance(0.7);
        let config = if deepseek {
            r#"{"model":"deepseek-chat","provider":"deepseek"}"#
        } else {
            r#"{"model":"claude-sonnet-4-5","provider":"anthropic"}"#
        };
        let first = self.rng.pick(proj.first_prompts).to_string();
        self.threads.push(ThreadRec {
            session: idx,
            parent: None,
            title: first.chars().take(50).collect(),
            cwd: proj.cwd,
            hidden: false,
            cancel_policy: "cascade",
            snapshot: None,
            status: "active",
            config: Some(config.to_owned()),
            created: 0,
        });
        let mut tc = Tc::new(self.threads.len() - 1);
        let mut s = Sess {
            idx,
            proj,
            deepseek,
            clock: 0,
            merged: BTreeMap::new(),
            bg_tasks: Vec::new(),
            avoid_prompt: None,
            after_interrupt: false,
            new_file_seq: 0,
        };
        let mut queue: VecDeque<Item> = items.into();
        let mut turn = 0usize;
        let (lo, hi) = self.plan.turn_len;
        let turns_hint = (queue.len() as i64 / ((lo + hi) / 2)).max(1) as usize;
        let reminder_turn = self.rng.below(turns_hint);
        let (mut later_done, mut reminder_done) = (false, false);
        loop {
            // ---- user message ----
            if turn == 0 {
                self.tick(&mut s, 2 * MS, 40 * MS);
                self.push(&s, &mut tc, Body::User(first.clone()));
            } else {
                self.tick(&mut s, 20 * SEC, 12 * MIN);
                let text =
                    if s.after_interrupt { AFTER_INTERRUPT.to_owned() } else { self.rng.pick(FOLLOW_UPS).to_string() };
                s.after_interrupt = false;
                self.push(&s, &mut tc, Body::User(text));
            }
            let size = self.rng.range(lo, hi) as usize;
            // Barring an interruption, this is the last turn when it can take every item.
            let last_turn = queue.len() <= size;
            if turn == 0 && flags.system_first {
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(SYSTEM_FIRST).to_string();
                self.push(&s, &mut tc, Body::System(t));
            }
            if flags.system_later && !later_done && (turn >= 1 || last_turn) {
                later_done = true;
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(SYSTEM_LATER).to_string();
                self.push(&s, &mut tc, Body::System(t));
            }
            if flags.reminder && !reminder_done && (turn >= reminder_turn || last_turn) {
                reminder_done = true;
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(REMINDERS).to_string();
                self.push(&s, &mut tc, Body::Reminder(t));
            }
            // ---- the turn's items ----
            // TodoWrite / AskUserQuestion tend to come first in a turn.
            let upto = size.min(queue.len());
            for i in 1..upto {
                if matches!(queue[i], Item::Bag(Tool::TodoWrite | Tool::AskUserQuestion))
                    && let Some(it) = queue.remove(i)
                {
                    queue.push_front(it);
                }
            }
            let mut ended = false;
            let mut done = 0;
            while done < size {
                let Some(item) = queue.pop_front() else { break };
                done += 1;
                match item {
                    Item::Unit(u) => {
                        if self.unit(&mut s, &mut tc, u, &mut queue) {
                            ended = true;
                            break;
                        }
                    }
                    Item::Bag(t) => self.bag_step(&mut s, &mut tc, t, &mut queue),
                }
            }
            turn += 1;
            if queue.is_empty() {
                if flags.unpaired {
                    let spec = self.unpaired_spec(&s);
                    self.step1(&mut s, &mut tc, spec, Some("Let me run the full test suite once more."));
                } else if !ended {
                    let t = self.rng.pick(FINAL_TEXTS).to_string();
                    self.final_answer(&mut s, &mut tc, t);
                }
                break;
            }
            if !ended {
                let t = self.rng.pick(FINAL_TEXTS).to_string();
                self.final_answer(&mut s, &mut tc, t);
            }
        }
        s.clock
    }

    /// A bag item, possibly grouped with following read-only bag items into parallel calls.
    fn bag_step(&mut self, s: &mut Sess, tc: &mut Tc, t: Tool, queue: &mut VecDeque<Item>) {
        let mut specs = vec![self.bag_spec(s, tc, t, &[])];
        if t.read_only() && self.rng.chance(0.18) {
            let want = self.rng.range(2, 3) as usize;
            while specs.len() < want {
                let Some(Item::Bag(t2)) = queue.front() else {
                    break;
                };
                let t2 = *t2;
                if !t2.read_only() {
                    break;
                }
                queue.pop_front();
                let sp = self.bag_spec(s, tc, t2, &specs);
                specs.push(sp);
            }
        }
        self.step(s, tc, specs, None);
    }

    fn unpaired_spec(&mut self, s: &Sess) -> Spec {
        let cmd = match s.proj.lang {
            Lang::Rust => "cargo test --workspace",
            Lang::Ts => "bun test",
            Lang::Md => "npx markdownlint-cli2 \"docs/**/*.md\"",
        };
        let mut sp = Spec::new(
            Tool::Bash,
            vec![("command", json!(cmd)), ("description", json!("Run the full test suite"))],
            String::new(),
        );
        sp.unpaired = true;
        sp
    }

    // ----- file choice -----

    fn full(&self, s: &Sess, rel: &str) -> String {
        format!("{}/{}", s.proj.cwd, rel)
    }

    fn rel<'a>(&self, s: &Sess, full: &'a str) -> &'a str {
        full.strip_prefix(s.proj.cwd).and_then(|r| r.strip_prefix('/')).unwrap_or(full)
    }

    fn choose_file(&mut self, s: &Sess, tc: &Tc, exclude: &[String], recent_p: f64) -> String {
        for _ in 0..12 {
            let cand = if !tc.recent.is_empty() && self.rng.chance(recent_p) {
                self.rng.pick(&tc.recent).clone()
            } else {
                let rel = *self.rng.pick(s.proj.files);
                self.full(s, rel)
            };
            if !exclude.contains(&cand) && !cand.ends_with(".log") {
                return cand;
            }
        }
        let mut i = self.rng.below(s.proj.files.len());
        loop {
            let cand = self.full(s, s.proj.files[i]);
            if !exclude.contains(&cand) {
                return cand;
            }
            i = (i + 1) % s.proj.files.len();
        }
    }

    /// A file never modified in this session (root and sub-agents together).
    fn never_modified_file(&mut self, s: &mut Sess, tc: &Tc) -> String {
        let mut cands: Vec<String> = s
            .proj
            .files
            .iter()
            .map(|r| self.full(s, r))
            .filter(|f| !s.merged.contains_key(f) && !tc.state.contains_key(f))
            .collect();
        if cands.is_empty() {
            s.new_file_seq += 1;
            let ext = match s.proj.lang {
                Lang::Rust => "rs",
                Lang::Ts => "ts",
                Lang::Md => "md",
            };
            cands.push(self.full(s, &format!("scratch/untouched_{}.{ext}", s.new_file_seq)));
        }
        self.rng.pick(&cands).clone()
    }

    fn new_file(&mut self, s: &Sess) -> String {
        let rel = *self.rng.pick(s.proj.new_files);
        self.full(s, rel)
    }

    // ----- text helpers -----

    fn lang_lines(lang: Lang) -> &'static [&'static str] {
        match lang {
            Lang::Rust => RUST_LINES,
            Lang::Ts => TS_LINES,
            Lang::Md => MD_LINES,
        }
    }

    fn numbered(&mut self, lines: &[String], offset: i64) -> String {
        lines.iter().enumerate().map(|(i, l)| format!("{:>6}\t{l}", offset + i as i64)).collect::<Vec<_>>().join("\n")
    }

    fn snippet(&mut self, lang: Lang) -> (String, String) {
        let pool = match lang {
            Lang::Rust => RUST_EDITS,
            Lang::Ts => TS_EDITS,
            Lang::Md => MD_EDITS,
        };
        let (o, n) = *self.rng.pick(pool);
        let id = *self.rng.pick(IDENTS);
        (o.replace('@', id), n.replace('@', id))
    }

    // ----- specs for individual calls -----

    fn read_spec(&mut self, s: &Sess, path: &str, window: bool, log: bool) -> Spec {
        let mut input = vec![("file_path", json!(path))];
        let mut offset = 1;
        if window || (log && self.rng.chance(0.6)) {
            offset = self.rng.range(1, 400);
            input.push(("offset", json!(offset)));
            input.push(("limit", json!(self.rng.range(2, 10) * 20)));
        }
        let n = self.rng.range(2, 5) as usize;
        let lines: Vec<String> = (0..n)
            .map(|i| {
                if log {
                    if i == 0 { self.rng.pick(LOG_ERR).to_string() } else { self.rng.pick(LOG_LINES).to_string() }
                } else {
                    self.rng.pick(Self::lang_lines(s.proj.lang)).to_string()
                }
            })
            .collect();
        let text = self.numbered(&lines, offset);
        Spec::new(Tool::Read, input, text).effect(Effect::Read(path.to_owned()))
    }

    fn edit_ok_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let (old, new) = self.snippet(s.proj.lang);
        let rel = self.rel(s, path).to_owned();
        let text = edit_success_text(&old, &new, &rel);
        let mut input = vec![("file_path", json!(path)), ("old_string", json!(old)), ("new_string", json!(new))];
        if self.rng.chance(0.08) {
            input.push(("replace_all", json!(false)));
        }
        Spec::new(Tool::Edit, input, text).effect(Effect::Modify(path.to_owned()))
    }

    /// A failure text in the scenario's era: hidden (`Ok`) before the fix, wrapped after.
    fn failure(&self, tool: Tool, msg: &str) -> (String, bool) {
        if self.plan.post {
            (format!("Tool execution failed: {} - {msg}", tool.call_name()), true)
        } else {
            (msg.to_owned(), false)
        }
    }

    fn edit_nf_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let (old, new) = self.snippet(s.proj.lang);
        let mut msg = format!("Error: old_string not found in {path}");
        if self.plan.post {
            msg.push('\n');
            msg.push_str(EDIT_HINT);
        }
        let (text, flag) = self.failure(Tool::Edit, &msg);
        let input = vec![("file_path", json!(path)), ("old_string", json!(old)), ("new_string", json!(new))];
        Spec::new(Tool::Edit, input, text).flagged(flag)
    }

    fn write_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let n = self.rng.range(2, 6) as usize;
        let lines: Vec<&str> = (0..n).map(|_| *self.rng.pick(Self::lang_lines(s.proj.lang))).collect();
        let content = lines.join("\n");
        let n = content.lines().count();
        let rel = self.rel(s, path).to_owned();
        Spec::new(
            Tool::Write,
            vec![("file_path", json!(path)), ("content", json!(content))],
            format!("Wrote {n} line(s) {rel}"),
        )
        .effect(Effect::Modify(path.to_owned()))
    }

    fn agent_task(&mut self, s: &mut Sess) -> (String, String) {
        loop {
            let (d, p) = *self.rng.pick(s.proj.agent_tasks);
            let focus = *self.rng.pick(s.proj.files);
            let prompt = format!("{p} Focus on {focus}.");
            if s.avoid_prompt.as_deref() != Some(prompt.as_str()) {
                s.avoid_prompt = None;
                return (d.to_owned(), prompt);
            }
        }
    }

    fn fake_agent_result(&mut self) -> String {
        let tools = ["Read", "Grep", "Glob", "Bash"];
        let k = self.rng.range(1, 3) as usize;
        let mut parts = Vec::new();
        let mut total = 0;
        for t in tools.iter().take(k) {
            let c = self.rng.range(1, 5);
            total += c;
            parts.push(format!("{t} {c} times"));
        }
        format!("[Sub-agent executed {total} tool calls: {}]\n\n{}", parts.join(", "), self.rng.pick(SUMMARIES))
    }

    fn bg_task_id(&mut self, s: &mut Sess) -> String {
        let id = format!("bg-{}", self.rng.hex(8));
        s.bg_tasks.push(id.clone());
        id
    }

    /// An ordinary, successful call of `tool` (variants drawn from the exact decks).
    fn bag_spec(&mut self, s: &mut Sess, tc: &Tc, tool: Tool, group: &[Spec]) -> Spec {
        self.bag_spec_excl(s, tc, tool, group, &[])
    }

    fn bag_spec_excl(&mut self, s: &mut Sess, tc: &Tc, tool: Tool, group: &[Spec], exclude: &[String]) -> Spec {
        let variant: u8 = match tool {
            Tool::Read => u8::from(self.deck_read.pop().unwrap_or(false)),
            Tool::Bash => self.deck_bash.pop().unwrap_or(0),
            Tool::Grep => self.deck_grep.pop().unwrap_or(0),
            Tool::Glob => u8::from(self.deck_glob.pop().unwrap_or(false)),
            _ => 0,
        };
        // Draw the Agent decks once: a regenerated duplicate must not consume them again.
        let agent = (tool == Tool::Agent)
            .then(|| (self.deck_kind.pop().unwrap_or(SubKind::Fg), self.deck_spawn.pop().unwrap_or(false)));
        let mut excl: Vec<String> = exclude.to_vec();
        excl.extend(group.iter().filter_map(|g| g.path().map(str::to_owned)));
        let mut spec = self.bag_spec_once(s, tc, tool, variant, agent, &excl);
        for _ in 0..8 {
            let rendered = render_obj(&spec.input);
            let dup_last = tc.last_call.as_ref() == Some(&(tool, rendered.clone()));
            let dup_group = group.iter().any(|g| g.tool == tool && render_obj(&g.input) == rendered);
            if !dup_last && !dup_group {
                break;
            }
            spec = self.bag_spec_once(s, tc, tool, variant, agent, &excl);
        }
        spec
    }

    fn bag_spec_once(
        &mut self,
        s: &mut Sess,
        tc: &Tc,
        tool: Tool,
        variant: u8,
        agent: Option<(SubKind, bool)>,
        excl: &[String],
    ) -> Spec {
        let lang = s.proj.lang;
        match tool {
            Tool::Read => {
                if variant == 1 {
                    let p = self.full(s, s.proj.log);
                    self.read_spec(s, &p, false, true)
                } else {
                    let p = self.choose_file(s, tc, excl, 0.5);
                    let window = self.rng.chance(0.3);
                    self.read_spec(s, &p, window, false)
                }
            }
            Tool::Edit => {
                let p = self.choose_file(s, tc, excl, 0.75);
                self.edit_ok_spec(s, &p)
            }
            Tool::Write => {
                let p = if self.rng.chance(0.5) { self.new_file(s) } else { self.choose_file(s, tc, excl, 0.5) };
                self.write_spec(s, &p)
            }
            Tool::Bash => self.bash_spec(s, variant),
            Tool::Grep => self.grep_spec(s, variant),
            Tool::Glob => {
                let (pat, path) = match lang {
                    Lang::Rust => (
                        *self.rng.pick(&["**/*.rs", "**/tests/*.rs", "**/Cargo.toml", "**/*_bg.rs"]),
                        "peri-middlewares/src",
                    ),
                    Lang::Ts => (*self.rng.pick(&["src/**/*.ts", "test/*.test.ts"]), "src"),
                    Lang::Md => (*self.rng.pick(&["docs/**/*.md", "spec/**/*.md"]), "docs"),
                };
                let mut input = vec![("pattern", json!(pat))];
                if self.rng.chance(0.4) {
                    input.push(("path", json!(self.full(s, path))));
                }
                let text = if variant == 1 {
                    "No files found.".to_owned()
                } else {
                    let k = self.rng.range(2, 6) as usize;
                    let mut files: Vec<&str> = (0..k).map(|_| *self.rng.pick(s.proj.files)).collect();
                    files.sort_unstable();
                    files.dedup();
                    files.iter().map(|f| self.full(s, f)).collect::<Vec<_>>().join("\n")
                };
                Spec::new(Tool::Glob, input, text)
            }
            Tool::TodoWrite => {
                let k = self.rng.range(2, 5) as usize;
                let done = self.rng.below(k);
                let mut todos = Vec::new();
                let (mut c, mut p, mut ip) = (0, 0, 0);
                for i in 0..k {
                    let content = *self.rng.pick(TODOS);
                    let status = if i < done {
                        c += 1;
                        "completed"
                    } else if i == done {
                        ip += 1;
                        "in_progress"
                    } else {
                        p += 1;
                        "pending"
                    };
                    todos.push(json!({"content": content, "status": status}));
                }
                Spec::new(
                    Tool::TodoWrite,
                    vec![("todos", Value::Array(todos))],
                    format!("Todo list updated: {c} completed, {ip} in progress, {p} pending."),
                )
            }
            Tool::WebFetch => {
                let (_, url, summary) = *self.rng.pick(WEB);
                Spec::new(
                    Tool::WebFetch,
                    vec![("url", json!(url)), ("prompt", json!("Summarise the relevant part."))],
                    format!("# {url}\n\n{summary}"),
                )
            }
            Tool::WebSearch => {
                let (q, url, summary) = *self.rng.pick(WEB);
                Spec::new(
                    Tool::WebSearch,
                    vec![("query", json!(q)), ("num_results", json!(5))],
                    format!(
                        "1. {url}\n   {summary}\n2. https://stackoverflow.com/questions/{}\n   Related discussion.",
                        self.rng.range(10_000_000, 79_999_999)
                    ),
                )
            }
            Tool::AskUserQuestion => {
                let (q, h, a, b) = *self.rng.pick(QUESTIONS);
                let ans = if self.rng.chance(0.7) { a } else { b };
                Spec::new(
                    Tool::AskUserQuestion,
                    vec![(
                        "questions",
                        json!([{"question": q, "header": h, "multiSelect": false,
                            "options": [{"label": a, "description": "Recommended"}, {"label": b}]}]),
                    )],
                    format!("User answered: \"{q}\" = \"{ans}\""),
                )
            }
            Tool::FolderOps => {
                let op = *self.rng.pick(&["create", "list", "exists"]);
                let dir = match lang {
                    Lang::Rust => "peri-middlewares/tests/fixtures",
                    Lang::Ts => "test/fixtures",
                    Lang::Md => "docs/notes",
                };
                let full = self.full(s, dir);
                let mut input = vec![("operation", json!(op)), ("folder_path", json!(full))];
                let text = match op {
                    "create" => {
                        input.push(("recursive", json!(true)));
                        format!("✓ Created folder: {full}")
                    }
                    "list" => format!("{dir}/\n  a.json\n  b.json"),
                    _ => format!("✓ Folder exists: {full}"),
                };
                Spec::new(Tool::FolderOps, input, text)
            }
            Tool::AgentResult => {
                let id = if s.bg_tasks.is_empty() || self.rng.chance(0.2) {
                    self.bg_task_id(s)
                } else {
                    self.rng.pick(&s.bg_tasks).clone()
                };
                Spec::new(
                    Tool::AgentResult,
                    vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                    AGENT_RESULT_EMPTY.to_owned(),
                )
            }
            Tool::CronList => Spec::new(
                Tool::CronList,
                vec![("tool_name", json!("cron_list")), ("params", json!({}))],
                if self.rng.chance(0.5) {
                    "No cron jobs registered.".to_owned()
                } else {
                    "1 cron job:\n- cron-1 `0 9 * * *` daily analyzer summary".to_owned()
                },
            ),
            Tool::Agent => {
                let (kind, spawn) = agent.unwrap_or((SubKind::Fg, false));
                self.agent_bag_spec(s, kind, spawn)
            }
            Tool::Task => Spec::new(Tool::Task, vec![], String::new()),
        }
    }

    fn agent_bag_spec(&mut self, s: &mut Sess, kind: SubKind, spawn: bool) -> Spec {
        let (desc, prompt) = self.agent_task(s);
        let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
        let agent = match kind {
            SubKind::Fg | SubKind::Bg => self.rng.pick(AGENT_TYPES).to_string(),
            SubKind::Fork | SubKind::BgFork => "fork".to_owned(),
        };
        match kind {
            SubKind::Fg => input.push(("subagent_type", json!(agent))),
            SubKind::Bg => {
                input.push(("subagent_type", json!(agent)));
                input.push(("run_in_background", json!(true)));
                self.bg_task_id(s);
            }
            SubKind::Fork => input.push(("fork", json!(true))),
            SubKind::BgFork => {
                input.push(("fork", json!(true)));
                input.push(("run_in_background", json!(true)));
                self.bg_task_id(s);
            }
        }
        let result = if spawn { String::new() } else { self.fake_agent_result() };
        let mut sp = Spec::new(Tool::Agent, input, result);
        if spawn {
            sp.spawn = Some(SpawnReq { kind, agent, prompt });
        }
        sp
    }

    fn bash_spec(&mut self, s: &Sess, variant: u8) -> Spec {
        let lang = s.proj.lang;
        let rel = *self.rng.pick(s.proj.files);
        let (cmd, desc, out): (String, &str, String) = match variant {
            1 => match self.rng.below(3) {
                0 => (
                    format!("git diff --exit-code {rel}"),
                    "Check for unstaged changes",
                    format!(
                        "diff --git a/{rel} b/{rel}\n@@ -40,3 +40,3 @@\n-        return Ok(format!(\n+        return Err(anyhow!(\n[Exit code: 1]"
                    ),
                ),
                1 => (
                    format!("grep -c \"is_error\\\":true\" {rel}"),
                    "Count flagged results",
                    "0\n[Exit code: 1]".to_owned(),
                ),
                _ => (
                    "diff expected.txt actual.txt".to_owned(),
                    "Compare outputs",
                    "3c3\n< Edit 284\n---\n> Edit 283\n[Exit code: 1]".to_owned(),
                ),
            },
            2 => (
                format!("grep -rn \"TODO(hidden)\" {}", rel.rsplit_once('/').map_or(".", |(d, _)| d)),
                "Look for leftover markers",
                "[Command completed with exit code 1]".to_owned(),
            ),
            _ => match lang {
                Lang::Rust => {
                    let krate = rel.split('/').next().unwrap_or("peri-agent");
                    match self.rng.below(7) {
                        0 => (
                            format!("cargo check -p {krate}"),
                            "Type-check the crate",
                            format!(
                                "    Checking {krate} v0.4.2 (/Users/dev/code/peri/{krate})\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in {}.{:02}s",
                                self.rng.range(1, 40),
                                self.rng.range(0, 99)
                            ),
                        ),
                        1 => {
                            let n = self.rng.range(3, 40);
                            let id = *self.rng.pick(IDENTS);
                            (
                                format!("cargo test -p {krate} {id}"),
                                "Run the tests",
                                format!(
                                    "running {n} tests\ntest tests::{id} ... ok\n\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s",
                                    self.rng.range(1, 99)
                                ),
                            )
                        }
                        2 => (
                            "git status --short".to_owned(),
                            "Show working tree status",
                            format!(" M {rel}\n M {}", self.rng.pick(s.proj.files)),
                        ),
                        3 => (
                            "git diff --stat".to_owned(),
                            "Summarise changes",
                            format!(
                                " {rel} | {} ++++--\n 1 file changed, 4 insertions(+), 2 deletions(-)",
                                self.rng.range(2, 30)
                            ),
                        ),
                        4 => (
                            "git log --oneline -3".to_owned(),
                            "Recent commits",
                            "7b076c1e feat(tools): path alias for file_path\n4d21801e feat(tools): tool name aliases\nd28affe2 feat(agent): consecutive failure detection".to_owned(),
                        ),
                        5 => (
                            format!("wc -l {rel}"),
                            "Count lines",
                            format!("     {} {rel}", self.rng.range(40, 900)),
                        ),
                        _ => (
                            format!("cargo clippy -p {krate} -- -D warnings"),
                            "Lint",
                            format!(
                                "    Checking {krate} v0.4.2 (/Users/dev/code/peri/{krate})\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in {}.{:02}s",
                                self.rng.range(2, 50),
                                self.rng.range(0, 99)
                            ),
                        ),
                    }
                }
                Lang::Ts => match self.rng.below(4) {
                    0 => {
                        let n = self.rng.range(4, 30);
                        (
                            "bun test".to_owned(),
                            "Run the tests",
                            format!(
                                "bun test v1.1.8\n\n {n} pass\n 0 fail\n Ran {n} tests across 2 files. [{}ms]",
                                self.rng.range(40, 900)
                            ),
                        )
                    }
                    1 => (
                        "bun run src/index.ts --days 7".to_owned(),
                        "Run the analyzer",
                        format!(
                            "Scanned {} sessions, {} messages\nAgent: 1344 calls\nEdit: 6233 calls",
                            self.rng.range(400, 600),
                            self.rng.range(60_000, 80_000)
                        ),
                    ),
                    2 => ("git status --short".to_owned(), "Show working tree status", format!(" M {rel}")),
                    _ => (
                        "ls src/analyzers".to_owned(),
                        "List analyzers",
                        "agent_errors.ts\nconsecutive.ts\nedit_errors.ts\nloops.ts\nmissing-params.ts".to_owned(),
                    ),
                },
                Lang::Md => match self.rng.below(3) {
                    0 => (format!("wc -w {rel}"), "Count words", format!("    {} {rel}", self.rng.range(200, 4000))),
                    1 => ("git status --short".to_owned(), "Show working tree status", format!(" M {rel}")),
                    _ => (
                        "ls docs/blogs/tool-error-rate".to_owned(),
                        "List the post folder",
                        "figures.md\ntool-error-rate.md".to_owned(),
                    ),
                },
            },
        };
        let mut input = vec![("command", json!(cmd))];
        if self.rng.chance(0.7) {
            input.push(("description", json!(desc)));
        }
        Spec::new(Tool::Bash, input, out)
    }

    fn grep_spec(&mut self, s: &Sess, variant: u8) -> Spec {
        let files = s.proj.files;
        let mut input;
        let text = match variant {
            1 => {
                input = vec![
                    ("pattern", json!(self.rng.pick(GREP_ERR_PATTERNS))),
                    ("output_mode", json!("content")),
                    ("-n", json!(true)),
                ];
                let k = self.rng.range(1, 3) as usize;
                (0..k)
                    .map(|_| {
                        format!(
                            "{}:{}:{}",
                            self.rng.pick(files),
                            self.rng.range(10, 400),
                            self.rng.pick(GREP_ERR_LINES)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            2 => {
                input = vec![("pattern", json!(format!("{}_v2", self.rng.pick(GREP_PATTERNS))))];
                "No matches found.".to_owned()
            }
            _ => {
                let pat = *self.rng.pick(GREP_PATTERNS);
                input = vec![("pattern", json!(pat))];
                match self.rng.below(3) {
                    0 => {
                        input.push(("output_mode", json!("content")));
                        let k = self.rng.range(1, 4) as usize;
                        (0..k)
                            .map(|_| {
                                format!(
                                    "{}:{}:    let {pat} = {};",
                                    self.rng.pick(files),
                                    self.rng.range(5, 500),
                                    self.rng.pick(IDENTS)
                                )
                            })
                            .collect::<Vec<_>>()
                            .join("\n")
                    }
                    1 => {
                        input.push(("output_mode", json!("files_with_matches")));
                        let k = self.rng.range(1, 5) as usize;
                        let mut v: Vec<&str> = (0..k).map(|_| *self.rng.pick(files)).collect();
                        v.sort_unstable();
                        v.dedup();
                        v.join("\n")
                    }
                    _ => {
                        input.push(("output_mode", json!("count")));
                        format!("{}:{}", self.rng.pick(files), self.rng.range(1, 12))
                    }
                }
            }
        };
        if self.rng.chance(0.35) {
            let dir = match s.proj.lang {
                Lang::Rust => *self.rng.pick(&["peri-middlewares/src", "peri-agent/src", "."]),
                Lang::Ts => "src",
                Lang::Md => "docs",
            };
            input.insert(1, ("path", json!(dir)));
        }
        Spec::new(Tool::Grep, input, text)
    }

    // ----- scripted units -----

    /// Realise one unit. Returns true when the unit ends the user turn.
    fn unit(&mut self, s: &mut Sess, tc: &mut Tc, u: Unit, queue: &mut VecDeque<Item>) -> bool {
        match u {
            Unit::AgentRepair { bg } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
                if bg {
                    input.push(("run_in_background", json!(true)));
                }
                let (text, flag) = self.failure(Tool::Agent, if bg { AGENT_BG } else { AGENT_FG });
                let sp = Spec::new(Tool::Agent, input.clone(), text).flagged(flag);
                self.step1(s, tc, sp, Some("Delegating this to a sub-agent."));
                let agent = *self.rng.pick(AGENT_TYPES);
                input.push(("subagent_type", json!(agent)));
                if bg {
                    self.bg_task_id(s);
                }
                let res = self.fake_agent_result();
                let sp = Spec::new(Tool::Agent, input, res);
                let note = format!("I forgot subagent_type; retrying with {agent}.");
                self.step1(s, tc, sp, Some(&note));
            }
            Unit::AgentRun { n } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
                let (text, flag) = self.failure(Tool::Agent, AGENT_FG);
                for i in 0..n {
                    let mut sp = Spec::new(Tool::Agent, input.clone(), text.clone()).flagged(flag);
                    sp.allow_repeat = true;
                    let note =
                        if i == 0 { "Delegating the search to a sub-agent." } else { "Retrying the sub-agent call." };
                    self.step1(s, tc, sp, Some(note));
                }
                input.push(("subagent_type", json!("explore")));
                let res = self.fake_agent_result();
                self.step1(
                    s,
                    tc,
                    Spec::new(Tool::Agent, input, res),
                    Some("The error asks for subagent_type; using explore."),
                );
            }
            Unit::AgentUnrepaired { bg } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt.clone()))];
                if bg {
                    input.push(("run_in_background", json!(true)));
                }
                let (text, flag) = self.failure(Tool::Agent, if bg { AGENT_BG } else { AGENT_FG });
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
            }
            Unit::AgentBurst => {
                for _ in 0..3 {
                    let (desc, prompt) = self.agent_task(s);
                    let agent = *self.rng.pick(AGENT_TYPES);
                    let input = vec![
                        ("description", json!(desc)),
                        ("prompt", json!(prompt)),
                        ("subagent_type", json!(agent)),
                        ("run_in_background", json!(true)),
                    ];
                    self.bg_task_id(s);
                    let res = self.fake_agent_result();
                    self.step1(s, tc, Spec::new(Tool::Agent, input, res), None);
                }
                let (desc, prompt) = self.agent_task(s);
                let input = vec![
                    ("description", json!(desc)),
                    ("prompt", json!(prompt.clone())),
                    ("subagent_type", json!("explore")),
                    ("run_in_background", json!(true)),
                ];
                let msg = if self.plan.post { AGENT_CONC_POST } else { AGENT_CONC_PRE };
                let (text, flag) = self.failure(Tool::Agent, msg);
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
                let id = s.bg_tasks.last().cloned().unwrap_or_default();
                let sp = Spec::new(
                    Tool::AgentResult,
                    vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                    AGENT_RESULT_EMPTY.to_owned(),
                );
                self.step1(s, tc, sp, Some("Waiting for a background agent to finish."));
            }
            Unit::AgentDefNotFound(id) => {
                let (desc, prompt) = self.agent_task(s);
                let input =
                    vec![("description", json!(desc)), ("prompt", json!(prompt.clone())), ("subagent_type", json!(id))];
                let (text, flag) = self.failure(Tool::Agent, &agent_def_missing(id));
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
            }
            Unit::AgentNoPrompt => {
                let (desc, _) = self.agent_task(s);
                let input = vec![("description", json!(desc)), ("subagent_type", json!("explore"))];
                let (text, flag) = self.failure(Tool::Agent, AGENT_NO_PROMPT);
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
            }
            Unit::StaleEdit => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                let fill = self.rng.below(3);
                for _ in 0..fill {
                    let pos = queue
                        .iter()
                        .take(16)
                        .position(|it| matches!(it, Item::Bag(Tool::Read | Tool::Grep | Tool::Glob | Tool::Bash)));
                    let Some(pos) = pos else { break };
                    if let Some(Item::Bag(t)) = queue.remove(pos) {
                        let sp = self.bag_spec_excl(s, tc, t, &[], std::slice::from_ref(&f));
                        self.step1(s, tc, sp, None);
                    }
                }
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::StaleWrite => {
                let f = if self.rng.chance(0.7) { self.new_file(s) } else { self.choose_file(s, tc, &[], 0.3) };
                let sp = self.write_spec(s, &f);
                self.step1(s, tc, sp, None);
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::StaleDouble => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                self.stale_fail(s, tc, &f);
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleRead => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleNever => {
                let f = self.never_modified_file(s, tc);
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleAfterRead => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                let sp = self.read_spec(s, &f, true, false);
                self.step1(s, tc, sp, Some("Re-reading to check the result."));
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NotUnique(n) => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let lang = s.proj.lang;
                let frags: Vec<&str> = NOT_UNIQUE_FRAGS.iter().filter(|(l, _)| *l == lang).map(|(_, f)| *f).collect();
                let frag = *self.rng.pick(&frags);
                let msg = if self.plan.post {
                    format!(
                        "Error: old_string is not unique in {f} (found {n} occurrences).\nMatch locations: line 2, line 7.\nPlease provide more context to make old_string unique, or set replace_all=true."
                    )
                } else {
                    format!(
                        "Error: old_string is not unique in {f} (found {n} occurrences). Please provide more context or set replace_all to true."
                    )
                };
                let (text, flag) = self.failure(Tool::Edit, &msg);
                let new_frag = format!("{frag} // {}", self.rng.pick(IDENTS));
                let input = vec![("file_path", json!(f)), ("old_string", json!(frag)), ("new_string", json!(new_frag))];
                self.step1(s, tc, Spec::new(Tool::Edit, input, text).flagged(flag), None);
                let rel = self.rel(s, &f).to_owned();
                let sp = if n >= 6 {
                    let input = vec![
                        ("file_path", json!(f)),
                        ("old_string", json!(frag)),
                        ("new_string", json!(new_frag)),
                        ("replace_all", json!(true)),
                    ];
                    let text = format!("{} (replaced {n} occurrence(s))", edit_success_text(frag, &new_frag, &rel));
                    Spec::new(Tool::Edit, input, text).effect(Effect::Modify(f.clone()))
                } else {
                    self.edit_ok_spec(s, &f)
                };
                self.step1(s, tc, sp, Some("Adding more context to make the match unique."));
            }
            Unit::Unexpected => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let (old, new) = self.snippet(s.proj.lang);
                let (text, flag) =
                    self.failure(Tool::Edit, &format!("Error: unexpected state while applying the edit to {f}"));
                let input = vec![("file_path", json!(f)), ("old_string", json!(old)), ("new_string", json!(new))];
                self.step1(s, tc, Spec::new(Tool::Edit, input, text).flagged(flag), None);
                self.recover(s, tc, &f);
            }
            Unit::EditRun5 => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                debug_assert!(self.nonstale_ok(s, tc, &f));
                let base = self.edit_nf_spec(s, &f);
                for i in 0..5 {
                    let mut sp = Spec::new(Tool::Edit, base.input.clone(), base.result.clone()).flagged(base.is_error);
                    sp.allow_repeat = true;
                    if i == 4 {
                        sp.reminder = Some(EDIT_WARNING.to_owned());
                    }
                    self.step1(s, tc, sp, Some("Trying the edit again."));
                }
                self.recover(s, tc, &f);
            }
            Unit::ReadMissingPath => {
                let f = self.choose_file(s, tc, &[], 0.3);
                let input = if self.rng.chance(0.5) {
                    vec![("file", json!(f))]
                } else {
                    vec![("offset", json!(1)), ("limit", json!(80))]
                };
                let sp = Spec::new(Tool::Read, input, READ_MISSING.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, Some("Passing file_path this time."));
            }
            Unit::TaskUnknown => {
                let (desc, prompt) = self.agent_task(s);
                let input =
                    vec![("description", json!(desc)), ("prompt", json!(prompt)), ("subagent_type", json!("explore"))];
                let sp = Spec::new(Tool::Task, input.clone(), TASK_UNKNOWN.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                let res = self.fake_agent_result();
                self.step1(s, tc, Spec::new(Tool::Agent, input, res), Some("The tool is called Agent here."));
            }
            Unit::BashInterrupted => {
                let cmd = match s.proj.lang {
                    Lang::Rust => "cargo test --workspace",
                    Lang::Ts => "bun test --watch",
                    Lang::Md => "npx markdownlint-cli2 \"**/*.md\"",
                };
                let input = vec![("command", json!(cmd)), ("description", json!("Run all tests"))];
                let sp = Spec::new(Tool::Bash, input, BASH_INTERRUPTED.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                s.after_interrupt = true;
                return true;
            }
            Unit::BashDontAsk => {
                let input = vec![
                    ("command", json!("rm -rf target/debug/incremental")),
                    ("description", json!("Clear incremental build cache")),
                ];
                let sp = Spec::new(Tool::Bash, input, DONT_ASK.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
            }
            Unit::WriteRejected => {
                let f = self.choose_file(s, tc, &[], 0.5);
                let mut sp = self.write_spec(s, &f);
                sp.result = USER_REJECT.to_owned();
                sp.is_error = true;
                sp.effect = Effect::None;
                self.step1(s, tc, sp, None);
            }
            Unit::AgentResultLoop(n) => {
                // A fresh task id, so the loop cannot merge with an earlier identical poll.
                let id = self.bg_task_id(s);
                for _ in 0..n {
                    let mut sp = Spec::new(
                        Tool::AgentResult,
                        vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                        AGENT_RESULT_EMPTY.to_owned(),
                    );
                    sp.allow_repeat = true;
                    self.step1(s, tc, sp, Some("Checking the background agent."));
                }
            }
        }
        false
    }

    fn stale_ok(&self, s: &Sess, tc: &Tc, f: &str) -> bool {
        tc.state.get(f) == Some(&FState::Modified) && s.merged.get(f) == Some(&FState::Modified)
    }

    fn nonstale_ok(&self, s: &Sess, tc: &Tc, f: &str) -> bool {
        tc.state.get(f) != Some(&FState::Modified) && s.merged.get(f) != Some(&FState::Modified)
    }

    fn stale_fail(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        debug_assert!(self.stale_ok(s, tc, f), "stale precondition for {f}");
        let sp = self.edit_nf_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    fn nonstale_fail(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        debug_assert!(self.nonstale_ok(s, tc, f), "non-stale precondition for {f}");
        let sp = self.edit_nf_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    /// Read F, then a successful Edit of F.
    fn recover(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        let sp = self.read_spec(s, f, true, false);
        self.step1(s, tc, sp, Some("Reading the file again to get the current content."));
        let sp = self.edit_ok_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    // ----- sub-agents -----

    fn spawn(&mut self, s: &mut Sess, parent: usize, req: &SpawnReq, snapshot: Option<usize>) -> String {
        let chunk = self.sub_chunks.pop().unwrap_or_default();
        self.tick(s, 2 * MS, 40 * MS);
        let (title, policy, snap) = match req.kind {
            SubKind::Fg => (req.agent.clone(), "cascade", None),
            SubKind::Bg => (req.agent.clone(), "independent", None),
            SubKind::Fork => ("fork".to_owned(), "cascade", snapshot),
            SubKind::BgFork => (
                format!(
                    "bg-fork-bg-{}-{}-4{}-a{}-{}",
                    self.rng.hex(8),
                    self.rng.hex(4),
                    self.rng.hex(3),
                    self.rng.hex(3),
                    self.rng.hex(12)
                ),
                "independent",
                snapshot,
            ),
        };
        self.threads.push(ThreadRec {
            session: s.idx,
            parent: Some(parent),
            title,
            cwd: s.proj.cwd,
            hidden: true,
            cancel_policy: policy,
            snapshot: snap,
            status: "done",
            config: None,
            created: s.clock,
        });
        let mut tc = Tc::new(self.threads.len() - 1);
        self.tick(s, 2 * MS, 30 * MS);
        self.push(s, &mut tc, Body::User(req.prompt.clone()));
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        let mut q: VecDeque<Tool> = chunk.into();
        let total = q.len();
        while let Some(t) = q.pop_front() {
            let mut specs = vec![self.bag_spec(s, &tc, t, &[])];
            if t.read_only() && self.rng.chance(0.25) {
                while specs.len() < 3 && q.front().is_some_and(|t2| t2.read_only()) {
                    let t2 = q.pop_front().unwrap_or(Tool::Read);
                    let sp = self.bag_spec(s, &tc, t2, &specs);
                    specs.push(sp);
                }
            }
            for sp in &specs {
                let name = sp.tool.stat_name();
                match counts.iter_mut().find(|(n, _)| *n == name) {
                    Some(c) => c.1 += 1,
                    None => counts.push((name, 1)),
                }
            }
            self.step(s, &mut tc, specs, None);
        }
        let summary = self.rng.pick(SUMMARIES).to_string();
        self.final_answer(s, &mut tc, summary.clone());
        let list: Vec<String> = counts.iter().map(|(n, c)| format!("{n} {c} times")).collect();
        format!("[Sub-agent executed {total} tool calls: {}]\n\n{summary}", list.join(", "))
    }

    // ----- schedule and output -----

    /// Session start times: batches of 3 or 4 sessions spread over the date range. All
    /// sessions of a batch start before any of them ends, so they truly run concurrently;
    /// a batch starts only after the previous batch has finished.
    fn schedule(&mut self, durations: &[i64]) -> Vec<i64> {
        let n = durations.len();
        let mut batches = Vec::new();
        let mut i = 0;
        while i < n {
            let left = n - i;
            let mut k = if left <= 4 {
                left
            } else if self.rng.chance(0.5) {
                3
            } else {
                4
            };
            // Never leave a remainder that cannot be split into 3s and 4s.
            if matches!(left.saturating_sub(k), 1 | 2 | 5) {
                k = 7 - k;
            }
            batches.push(i..i + k);
            i += k;
        }
        let span = self.plan.end_us - self.plan.start_us;
        let slot = span / batches.len().max(1) as i64;
        let mut starts = vec![0; n];
        let mut prev_end = self.plan.start_us;
        for (b, r) in batches.into_iter().enumerate() {
            let nominal = self.plan.start_us + b as i64 * slot + self.rng.range(20 * MIN, 90 * MIN);
            let bs = nominal.max(prev_end + self.rng.range(5 * MIN, 40 * MIN));
            let shortest = r.clone().map(|si| durations[si]).min().unwrap_or(MIN);
            let max_gap = (shortest / (r.len() as i64 + 1)).clamp(SEC, 12 * MIN);
            let mut off = 0;
            for si in r {
                let st = (bs + off) / MS * MS;
                starts[si] = st;
                prev_end = prev_end.max(st + durations[si]);
                off += self.rng.range(max_gap / 4, max_gap);
            }
        }
        debug_assert!(prev_end < self.plan.end_us, "sessions overflow the date range");
        starts
    }

    fn render(&self, m: &Msg, id: &str) -> (&'static str, String) {
        let (role, inner) = match &m.body {
            Body::User(t) => ("user", format!(r#"{{"role":"user","id":{},"content":{}}}"#, js(id), js(t))),
            Body::System(t) => ("system", format!(r#"{{"role":"system","id":{},"content":{}}}"#, js(id), js(t))),
            Body::Reminder(t) => {
                return (
                    "system",
                    format!(
                        r#"{{"version":1,"type":"system_reminder","id":{},"reminder":{{"text":{}}}}}"#,
                        js(id),
                        js(t)
                    ),
                );
            }
            Body::Assistant { reasoning, text, plain, calls } => {
                let content = if *plain {
                    js(text.as_deref().or(reasoning.as_deref()).unwrap_or("Let me continue."))
                } else {
                    let mut parts = Vec::new();
                    if let Some(r) = reasoning {
                        parts.push(format!(r#"{{"type":"reasoning","text":{}}}"#, js(r)));
                    }
                    if let Some(t) = text {
                        parts.push(format!(r#"{{"type":"text","text":{}}}"#, js(t)));
                    }
                    for &c in calls {
                        let c = &self.calls[c];
                        parts.push(format!(
                            r#"{{"type":"tool_use","id":{},"name":{},"input":{}}}"#,
                            js(&c.id),
                            js(c.tool.call_name()),
                            c.input
                        ));
                    }
                    format!("[{}]", parts.join(","))
                };
                let tool_calls = if calls.is_empty() {
                    String::new()
                } else {
                    let tc: Vec<String> = calls
                        .iter()
                        .map(|&c| {
                            let c = &self.calls[c];
                            format!(
                                r#"{{"id":{},"name":{},"arguments":{}}}"#,
                                js(&c.id),
                                js(c.tool.call_name()),
                                c.input
                            )
                        })
                        .collect();
                    format!(r#","tool_calls":[{}]"#, tc.join(","))
                };
                ("assistant", format!(r#"{{"role":"assistant","id":{},"content":{content}{tool_calls}}}"#, js(id)))
            }
            Body::Tool(c) => {
                let c = &self.calls[*c];
                let (text, err) = c.result.clone().unwrap_or_default();
                (
                    "tool",
                    format!(
                        r#"{{"role":"tool","id":{},"tool_call_id":{},"content":{},"is_error":{err}}}"#,
                        js(id),
                        js(&c.id),
                        js(&text)
                    ),
                )
            }
        };
        if self.plan.post {
            (role, format!(r#"{{"version":1,"type":"message","message":{inner}}}"#))
        } else {
            (role, inner)
        }
    }

    fn write(&self, path: &Path, seed: u64) -> rusqlite::Result<GenStats> {
        debug_assert_eq!(self.realized_totals(), self.plan.totals.iter().copied().collect());
        let abs = |m: &Msg| self.starts[m.session] + m.t;
        let mut order: Vec<usize> = (0..self.msgs.len()).collect();
        order.sort_by_key(|&i| (abs(&self.msgs[i]), self.msgs[i].session, i));
        let mut idrng = peri_rng(seed.rotate_left(17) ^ 0x1D5_u64);
        let mut used = BTreeSet::new();
        let mut fresh = |ms: i64, rng: &mut Rng| loop {
            let id = uuid7(ms, rng);
            if used.insert(id.clone()) {
                return id;
            }
        };
        let mut msg_ids = vec![String::new(); self.msgs.len()];
        for &i in &order {
            msg_ids[i] = fresh(abs(&self.msgs[i]).div_euclid(MS), &mut idrng);
        }
        let created = |t: &ThreadRec| self.starts[t.session] + t.created;
        let mut torder: Vec<usize> = (0..self.threads.len()).collect();
        torder.sort_by_key(|&i| (created(&self.threads[i]), i));
        let mut thread_ids = vec![String::new(); self.threads.len()];
        for &i in &torder {
            thread_ids[i] = fresh(created(&self.threads[i]).div_euclid(MS), &mut idrng);
        }
        let mut count = vec![0usize; self.threads.len()];
        let mut last = vec![0i64; self.threads.len()];
        for m in &self.msgs {
            count[m.thread] += 1;
            last[m.thread] = last[m.thread].max(abs(m));
        }

        let mut conn = Connection::open(path)?;
        conn.query_row("PRAGMA journal_mode=DELETE", [], |_| Ok(()))?;
        let tx = conn.transaction()?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS threads (
                id TEXT PRIMARY KEY,
                title TEXT,
                cwd TEXT NOT NULL DEFAULT '',
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                message_count INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE IF NOT EXISTS messages (
                message_id TEXT PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                role TEXT NOT NULL,
                content TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS idx_messages_thread_id ON messages (thread_id ASC);
            ALTER TABLE threads ADD COLUMN parent_thread_id TEXT;
            ALTER TABLE threads ADD COLUMN snapshot_at_message_id TEXT;
            ALTER TABLE threads ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0;
            ALTER TABLE threads ADD COLUMN cancel_policy TEXT NOT NULL DEFAULT 'cascade';
            ALTER TABLE threads ADD COLUMN config TEXT;
            ALTER TABLE threads ADD COLUMN cached_context TEXT;
            ALTER TABLE threads ADD COLUMN agent_status TEXT NOT NULL DEFAULT 'active';",
        )?;
        if self.plan.post {
            tx.execute_batch(
                "ALTER TABLE threads ADD COLUMN frozen_context TEXT;
                ALTER TABLE threads ADD COLUMN inherited_context TEXT;
                ALTER TABLE threads ADD COLUMN context_cache_epoch INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN truncated BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN excluded BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN projection TEXT;",
            )?;
        }
        {
            let mut st = tx.prepare(
                "INSERT INTO threads (id, title, cwd, created_at, updated_at, message_count,
                    parent_thread_id, snapshot_at_message_id, hidden, cancel_policy, config,
                    cached_context, agent_status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, ?12)",
            )?;
            for &i in &torder {
                let t = &self.threads[i];
                st.execute(params![
                    thread_ids[i],
                    t.title,
                    t.cwd,
                    rfc3339(created(t)),
                    rfc3339(last[i].max(created(t))),
                    count[i] as i64,
                    t.parent.map(|p| thread_ids[p].clone()),
                    t.snapshot.map(|m| msg_ids[m].clone()),
                    t.hidden,
                    t.cancel_policy,
                    t.config,
                    t.status,
                ])?;
            }
            let mut st =
                tx.prepare("INSERT INTO messages (message_id, thread_id, role, content) VALUES (?1, ?2, ?3, ?4)")?;
            for &i in &order {
                let m = &self.msgs[i];
                let (role, content) = self.render(m, &msg_ids[i]);
                st.execute(params![msg_ids[i], thread_ids[m.thread], role, content])?;
            }
        }
        tx.commit()?;
        conn.execute_batch("VACUUM")?;
        drop(conn);

        let mut calls_by_tool = BTreeMap::new();
        for c in &self.calls {
            *calls_by_tool.entry(c.tool.stat_name().to_owned()).or_insert(0) += 1;
        }
        Ok(GenStats {
            threads: self.threads.len(),
            subagent_threads: self.threads.iter().filter(|t| t.parent.is_some()).count(),
            messages: self.msgs.len(),
            calls_by_tool,
        })
    }

    fn realized_totals(&self) -> BTreeMap<Tool, usize> {
        let mut m = BTreeMap::new();
        for c in &self.calls {
            *m.entry(c.tool).or_insert(0) += 1;
        }
        m
    }
}

struct SessFlags {
    unpaired: bool,
    system_first: bool,
    system_later: bool,
    reminder: bool,
}

#[cfg(test)]
mod tests {
    //! Proof of the generator's figures: every number is re-derived from the database
    //! with SQL (`json_each`, `->`, `->>`) and plain Rust, never from generator internals.
    use super::*;
    use rusqlite::OpenFlags;
    use std::path::PathBuf;
    use std::sync::OnceLock;
    use std::time::Instant;

    /// The seed under test; `PERI_GEN_SEED=n cargo test` checks another one.
    fn seed() -> u64 {
        std::env::var("PERI_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7)
    }

    struct Db {
        path: PathBuf,
        stats: GenStats,
        secs: f64,
    }

    fn tmp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("peri_gen_{}_{name}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    fn make(sc: PeriScenario, seed: u64, name: &str) -> Db {
        let path = tmp(name);
        let t = Instant::now();
        let stats = generate_peri(&path, sc, seed).expect("generate");
        Db { path, stats, secs: t.elapsed().as_secs_f64() }
    }

    /// The shared database of a scenario: one file per (scenario, seed) in the temp dir,
    /// written under a private name and renamed into place, so parallel test processes
    /// never see a half-written file and repeated runs do not pile up files.
    fn shared(sc: PeriScenario, tag: &str) -> Db {
        let db = make(sc, seed(), &format!("{tag}.tmp"));
        let path = std::env::temp_dir().join(format!("peri_gen_{tag}_{}.db", seed()));
        std::fs::rename(&db.path, &path).unwrap();
        Db { path, ..db }
    }

    fn pm() -> &'static Db {
        static D: OnceLock<Db> = OnceLock::new();
        D.get_or_init(|| shared(PeriScenario::Postmortem, "pm"))
    }

    fn pf() -> &'static Db {
        static D: OnceLock<Db> = OnceLock::new();
        D.get_or_init(|| shared(PeriScenario::PostFix, "pf"))
    }

    fn open(db: &Db) -> Connection {
        Connection::open_with_flags(&db.path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open")
    }

    /// Messages with the V1 envelope unwrapped (`j` is NULL for system_reminder rows).
    const NORM: &str = "WITH m AS (SELECT rowid AS rid, message_id, thread_id, role, content, \
        CASE WHEN json_type(content, '$.version') IS NOT NULL THEN content -> '$.message' \
        ELSE content END AS j FROM messages)";

    /// Calls: the union of tool_use blocks and tool_calls, deduplicated by id.
    const CALLS: &str = ", c AS ( \
        SELECT m.rid, m.thread_id, b.value ->> '$.id' AS id, b.value ->> '$.name' AS name, \
               b.value -> '$.input' AS input \
        FROM m, json_each(m.j, '$.content') b \
        WHERE m.role = 'assistant' AND json_type(m.j, '$.content') = 'array' \
          AND b.value ->> '$.type' = 'tool_use' \
        UNION \
        SELECT m.rid, m.thread_id, t.value ->> '$.id', t.value ->> '$.name', t.value -> '$.arguments' \
        FROM m, json_each(m.j, '$.tool_calls') t WHERE m.role = 'assistant'), \
        calls AS (SELECT id, min(rid) AS rid, thread_id, name, input, \
          CASE WHEN name = 'ExecuteExtraTool' THEN input ->> '$.tool_name' ELSE name END AS tool \
          FROM c GROUP BY id)";

    #[derive(Clone)]
    struct Res {
        rid: i64,
        thread: String,
        call_id: String,
        text: String,
        is_error: bool,
    }

    struct Call {
        rid: i64,
        thread: String,
        id: String,
        name: String,
        tool: String,
        input: Value,
        res: Option<Res>,
    }

    struct Th {
        parent: Option<String>,
        title: Option<String>,
        cwd: String,
        created_at: String,
        updated_at: String,
        message_count: i64,
        hidden: bool,
        cancel_policy: String,
        snapshot: Option<String>,
    }

    struct Data {
        calls: Vec<Call>,
        orphans: Vec<Res>,
        threads: BTreeMap<String, Th>,
    }

    impl Data {
        fn root<'a>(&'a self, thread: &'a str) -> &'a str {
            self.threads[thread].parent.as_deref().unwrap_or(thread)
        }
        fn of(&self, tool: &str) -> Vec<&Call> {
            self.calls.iter().filter(|c| c.tool == tool).collect()
        }
    }

    fn load(conn: &Connection) -> Data {
        let sql = format!(
            "{NORM} SELECT m.rid, m.thread_id, t.value ->> '$.id', t.value ->> '$.name', \
             t.value -> '$.arguments' FROM m, json_each(m.j, '$.tool_calls') t \
             WHERE m.role = 'assistant' ORDER BY m.rid, t.key"
        );
        let mut st = conn.prepare(&sql).unwrap();
        let mut calls: Vec<Call> = st
            .query_map([], |r| {
                let name: String = r.get(3)?;
                let input: Value = serde_json::from_str(&r.get::<_, String>(4)?).unwrap();
                let tool = if name == "ExecuteExtraTool" {
                    input["tool_name"].as_str().unwrap_or("?").to_owned()
                } else {
                    name.clone()
                };
                Ok(Call { rid: r.get(0)?, thread: r.get(1)?, id: r.get(2)?, name, tool, input, res: None })
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let sql = format!(
            "{NORM} SELECT rid, thread_id, j ->> '$.tool_call_id', j ->> '$.content', \
             j ->> '$.is_error' FROM m WHERE role = 'tool' ORDER BY rid"
        );
        let mut st = conn.prepare(&sql).unwrap();
        let results: Vec<Res> = st
            .query_map([], |r| {
                Ok(Res {
                    rid: r.get(0)?,
                    thread: r.get(1)?,
                    call_id: r.get(2)?,
                    text: r.get(3)?,
                    is_error: r.get::<_, i64>(4)? != 0,
                })
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let idx: BTreeMap<String, usize> = calls.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        let mut orphans = Vec::new();
        for r in results {
            match idx.get(&r.call_id) {
                Some(&i) if calls[i].thread == r.thread && calls[i].res.is_none() && calls[i].rid < r.rid => {
                    calls[i].res = Some(r)
                }
                _ => orphans.push(r),
            }
        }
        let mut st = conn
            .prepare(
                "SELECT id, parent_thread_id, title, cwd, created_at, updated_at, message_count, \
                 hidden, cancel_policy, snapshot_at_message_id FROM threads",
            )
            .unwrap();
        let threads = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    Th {
                        parent: r.get(1)?,
                        title: r.get(2)?,
                        cwd: r.get(3)?,
                        created_at: r.get(4)?,
                        updated_at: r.get(5)?,
                        message_count: r.get(6)?,
                        hidden: r.get(7)?,
                        cancel_policy: r.get(8)?,
                        snapshot: r.get(9)?,
                    },
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        Data { calls, orphans, threads }
    }

    fn sql_counts(conn: &Connection) -> BTreeMap<String, usize> {
        let sql = format!("{NORM}{CALLS} SELECT tool, COUNT(*) FROM calls GROUP BY tool");
        let mut st = conn.prepare(&sql).unwrap();
        st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn expect_counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
        pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
    }

    fn uuid_ms(id: &str) -> i64 {
        i64::from_str_radix(&format!("{}{}", &id[0..8], &id[9..13]), 16).unwrap()
    }

    fn is_uuid7(id: &str) -> bool {
        let b = id.as_bytes();
        id.len() == 36
            && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
            && id.chars().enumerate().all(|(i, ch)| [8, 13, 18, 23].contains(&i) || matches!(ch, '0'..='9' | 'a'..='f'))
            && b[14] == b'7'
            && matches!(b[19], b'8' | b'9' | b'a' | b'b')
    }

    fn rfc_us(s: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_micros()
    }

    fn is_call_id(id: &str) -> bool {
        let alnum = |s: &str| s.len() == 24 && s.chars().all(|c| c.is_ascii_alphanumeric());
        if let Some(rest) = id.strip_prefix("toolu_") {
            return alnum(rest);
        }
        id.len() == 32
            && id.starts_with("call_")
            && id[5..7].chars().all(|c| c.is_ascii_digit())
            && &id[7..8] == "_"
            && alnum(&id[8..])
    }

    // ----- classification (literal strings from the brief / peri.md) -----

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum AgentOut {
        Ok,
        Fg,
        Bg,
        Conc,
        Def,
        NoPrompt,
        Other,
    }

    fn agent_out(c: &Call, post: bool) -> AgentOut {
        let Some(r) = &c.res else {
            return AgentOut::Other;
        };
        let t = if post {
            match r.text.strip_prefix("Tool execution failed: Agent - ") {
                Some(t) => t,
                None => {
                    return if r.text.starts_with("[Sub-agent executed ") { AgentOut::Ok } else { AgentOut::Other };
                }
            }
        } else {
            r.text.as_str()
        };
        if t.starts_with("[Sub-agent executed ") && !post {
            AgentOut::Ok
        } else if t == "Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode" {
            AgentOut::Fg
        } else if t == "Error: background mode requires subagent_type parameter (or use fork: true)" {
            AgentOut::Bg
        } else if (!post && t == "Error: maximum 3 concurrent background tasks reached. Wait for a running task to complete before starting a new one.")
            || (post && t == "Error: Maximum 3 concurrent background tasks reached")
        {
            AgentOut::Conc
        } else if c.input["subagent_type"].as_str().is_some_and(|id| {
            t == format!("Error: cannot find agent definition '{id}'. Check .claude/agents/ directory or use a built-in agent (explore, plan, general-purpose, verification)")
        }) {
            AgentOut::Def
        } else if t == "Error: missing required parameter prompt" {
            AgentOut::NoPrompt
        } else {
            AgentOut::Other
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum EditOut {
        Ok,
        NotFound,
        NotUnique(u32),
        Unexpected,
        Other,
    }

    fn edit_out(d: &Data, c: &Call, post: bool) -> EditOut {
        let Some(r) = &c.res else {
            return EditOut::Other;
        };
        let path = c.input["file_path"].as_str().unwrap();
        let cwd = &d.threads[&c.thread].cwd;
        let rel = path.strip_prefix(&format!("{cwd}/")).unwrap();
        let ok = [format!("Replaced text (same line count) to {rel}"), String::new()];
        let t = r.text.as_str();
        if !r.is_error
            && (t.starts_with(&ok[0])
                || (t.starts_with("Added ") || t.starts_with("Removed ")) && t.contains(&format!(" line(s) to {rel}")))
        {
            return EditOut::Ok;
        }
        let t = if post {
            match t.strip_prefix("Tool execution failed: Edit - ") {
                Some(t) if r.is_error => t,
                _ => return EditOut::Other,
            }
        } else {
            t
        };
        let nf = if post {
            format!(
                "Error: old_string not found in {path}\nold_string's first 3 lines matched lines 120-122, but the full string did not match. The file may have been modified. Please Read this file to get the latest content before retrying."
            )
        } else {
            format!("Error: old_string not found in {path}")
        };
        if t == nf {
            return EditOut::NotFound;
        }
        if t == format!("Error: unexpected state while applying the edit to {path}") {
            return EditOut::Unexpected;
        }
        let head = format!("Error: old_string is not unique in {path} (found ");
        if let Some(rest) = t.strip_prefix(&head) {
            let (n, tail) = rest.split_once(' ').unwrap();
            let tail_ok = if post {
                tail == "occurrences).\nMatch locations: line 2, line 7.\nPlease provide more context to make old_string unique, or set replace_all=true."
            } else {
                tail == "occurrences). Please provide more context or set replace_all to true."
            };
            if tail_ok {
                return EditOut::NotUnique(n.parse().unwrap());
            }
        }
        EditOut::Other
    }

    /// Re-derive stale / non-stale for every not-found Edit, walking results in rowid order.
    /// `merged` keys the state by root session (root thread + its sub-agents) instead of thread.
    fn stale_flags(d: &Data, post: bool, merged: bool) -> Vec<(String, bool)> {
        let mut ev: Vec<&Call> = d.calls.iter().filter(|c| c.res.is_some()).collect();
        ev.sort_by_key(|c| c.res.as_ref().unwrap().rid);
        // (scope, path) -> read since last modification?
        let mut st: BTreeMap<(String, String), bool> = BTreeMap::new();
        let mut out = Vec::new();
        for c in ev {
            let r = c.res.as_ref().unwrap();
            let scope = if merged { d.root(&c.thread) } else { c.thread.as_str() }.to_owned();
            let Some(path) = c.input.get("file_path").and_then(Value::as_str) else {
                continue;
            };
            let key = (scope, path.to_owned());
            match c.name.as_str() {
                "Read" if !r.is_error && !r.text.starts_with("Error") => {
                    if let Some(v) = st.get_mut(&key) {
                        *v = true;
                    }
                }
                "Write" if !r.is_error && r.text.starts_with("Wrote ") => {
                    st.insert(key, false);
                }
                "Edit" => match edit_out(d, c, post) {
                    EditOut::Ok => {
                        st.insert(key, false);
                    }
                    EditOut::NotFound => {
                        let stale = st.get(&key) == Some(&false);
                        out.push((c.id.clone(), stale));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        out
    }

    const FORBIDDEN: &[&str] =
        &["Error", "ERROR", "Tool execution failed", "✗", "<tool_use_error>", "Missing ", "The '", "工具 "];

    fn looks_like_error(text: &str) -> bool {
        let t = text.trim_start();
        FORBIDDEN.iter().any(|p| t.starts_with(p) || text.starts_with(p))
            || t.to_lowercase().starts_with("error")
            || t.starts_with("Error executing command:")
    }

    /// Maximal runs (len >= 2) of consecutive identical calls (same name and input) per thread.
    fn identical_runs(d: &Data) -> Vec<(String, usize)> {
        let mut by_thread: BTreeMap<&str, Vec<&Call>> = BTreeMap::new();
        for c in &d.calls {
            by_thread.entry(&c.thread).or_default().push(c);
        }
        let mut runs = Vec::new();
        for cs in by_thread.values() {
            let mut i = 0;
            while i < cs.len() {
                let mut j = i + 1;
                while j < cs.len() && cs[j].name == cs[i].name && cs[j].input == cs[i].input {
                    j += 1;
                }
                if j - i >= 2 {
                    runs.push((cs[i].tool.clone(), j - i));
                }
                i = j;
            }
        }
        runs.sort();
        runs
    }

    /// Structural checks shared by both scenarios. Returns printable facts.
    fn check_integrity(db: &Db, post: bool, range: (&str, &str)) -> Vec<String> {
        let conn = open(db);
        let d = load(&conn);
        let mut facts = Vec::new();
        let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        // pragmas, files
        assert_eq!(q("PRAGMA user_version"), 0);
        let jm: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(jm, "delete");
        for suffix in ["-wal", "-journal", "-shm"] {
            let mut p = db.path.clone().into_os_string();
            p.push(suffix);
            assert!(!PathBuf::from(p).exists(), "{suffix} left behind");
        }
        // schema
        let cols = |t: &str| -> Vec<String> {
            let mut st = conn.prepare(&format!("PRAGMA table_info({t})")).unwrap();
            st.query_map([], |r| r.get::<_, String>(1)).unwrap().map(Result::unwrap).collect()
        };
        let mut tcols = vec![
            "id",
            "title",
            "cwd",
            "created_at",
            "updated_at",
            "message_count",
            "parent_thread_id",
            "snapshot_at_message_id",
            "hidden",
            "cancel_policy",
            "config",
            "cached_context",
            "agent_status",
        ];
        let mut mcols = vec!["message_id", "thread_id", "role", "content"];
        if post {
            tcols.extend(["frozen_context", "inherited_context", "context_cache_epoch"]);
            mcols.extend(["truncated", "excluded", "projection"]);
        }
        assert_eq!(cols("threads"), tcols);
        assert_eq!(cols("messages"), mcols);
        assert_eq!(q("SELECT COUNT(*) FROM sqlite_master WHERE type='index' AND name='idx_messages_thread_id'"), 1);
        assert_eq!(q("SELECT COUNT(*) FROM sqlite_master WHERE type='table'"), 2);
        // every row is valid JSON, ids and roles agree
        assert_eq!(q("SELECT COUNT(*) FROM messages WHERE NOT json_valid(content)"), 0);
        let bad_id =
            format!("{NORM} SELECT COUNT(*) FROM m WHERE message_id IS NOT coalesce(j ->> '$.id', content ->> '$.id')");
        assert_eq!(q(&bad_id), 0);
        let bad_role = format!("{NORM} SELECT COUNT(*) FROM m WHERE j IS NOT NULL AND role IS NOT j ->> '$.role'");
        assert_eq!(q(&bad_role), 0);
        assert_eq!(q("SELECT COUNT(*) FROM messages WHERE role NOT IN ('user','assistant','system','tool')"), 0);
        if post {
            assert_eq!(
                q("SELECT COUNT(*) FROM messages WHERE content ->> '$.version' IS NOT 1 \
                   OR content ->> '$.type' NOT IN ('message','system_reminder')"),
                0
            );
            assert_eq!(
                q("SELECT COUNT(*) FROM messages WHERE content ->> '$.type' = 'system_reminder' \
                   AND (role != 'system' OR length(content ->> '$.reminder.text') = 0)"),
                0
            );
        } else {
            assert_eq!(
                q("SELECT COUNT(*) FROM messages WHERE json_type(content,'$.version') IS NOT NULL \
                   OR json_type(content,'$.type') IS NOT NULL"),
                0
            );
        }
        // call ids: unique, well-formed, both styles; mirror between blocks and tool_calls
        let n_tc = q(&format!("{NORM} SELECT COUNT(*) FROM m, json_each(m.j, '$.tool_calls') WHERE role='assistant'"));
        assert_eq!(n_tc as usize, d.calls.len());
        let ids: BTreeSet<&str> = d.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), d.calls.len(), "duplicate call ids");
        assert!(d.calls.iter().all(|c| is_call_id(&c.id)));
        let deepseek = d.calls.iter().filter(|c| c.id.starts_with("call_")).count();
        assert!(deepseek > 0 && deepseek < d.calls.len());
        let mirror_bad = format!(
            "{NORM}, b AS (SELECT m.rid, group_concat((x.value ->> '$.id') || (x.value ->> '$.input'), '|') AS k \
               FROM m, json_each(m.j, '$.content') x WHERE role='assistant' AND json_type(m.j,'$.content')='array' \
               AND x.value ->> '$.type' = 'tool_use' GROUP BY m.rid), \
             t AS (SELECT m.rid, group_concat((x.value ->> '$.id') || (x.value ->> '$.arguments'), '|') AS k \
               FROM m, json_each(m.j, '$.tool_calls') x WHERE role='assistant' GROUP BY m.rid) \
             SELECT COUNT(*) FROM t LEFT JOIN b USING (rid) WHERE b.k IS NOT t.k AND b.rid IS NOT NULL"
        );
        assert_eq!(q(&mirror_bad), 0, "tool_use blocks and tool_calls disagree");
        let plain = q(&format!(
            "{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_type(j,'$.content')='text' \
             AND json_array_length(j,'$.tool_calls') > 0"
        ));
        let with_calls = q(&format!(
            "{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_array_length(j,'$.tool_calls') > 0"
        ));
        let blocks_no_calls = q(&format!(
            "{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_type(j,'$.content')='array' \
             AND json_array_length(j,'$.tool_calls') > 0 AND NOT EXISTS (SELECT 1 FROM json_each(j,'$.content') x \
             WHERE x.value ->> '$.type'='tool_use')"
        ));
        assert_eq!(blocks_no_calls, 0);
        let ratio = plain as f64 / with_calls as f64;
        assert!((0.025..0.08).contains(&ratio), "plain-string share {ratio}");
        facts.push(format!(
            "assistant messages with calls: {with_calls}, of which plain-string content: {plain} ({:.1}%)",
            100.0 * ratio
        ));
        let par: Vec<(i64, i64)> = {
            let sql = format!(
                "{NORM} SELECT coalesce(json_array_length(j,'$.tool_calls'), 0) n, COUNT(*) FROM m \
                 WHERE role='assistant' GROUP BY n ORDER BY n"
            );
            let mut st = conn.prepare(&sql).unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
        };
        assert!(par.iter().all(|&(n, _)| n <= 3));
        assert!(par.iter().any(|&(n, c)| n >= 2 && c > 0));
        facts.push(format!("assistant messages by number of calls (n, count): {par:?}"));
        // pairing: no orphans, results in call order, exactly the expected unpaired calls
        assert!(d.orphans.is_empty(), "orphan results: {}", d.orphans.len());
        let mut by_msg: BTreeMap<i64, Vec<&Call>> = BTreeMap::new();
        for c in &d.calls {
            by_msg.entry(c.rid).or_default().push(c);
        }
        for cs in by_msg.values() {
            let rids: Vec<i64> = cs.iter().filter_map(|c| c.res.as_ref().map(|r| r.rid)).collect();
            assert!(rids.windows(2).all(|w| w[0] < w[1]), "results out of call order");
        }
        let unpaired: Vec<&Call> = d.calls.iter().filter(|c| c.res.is_none()).collect();
        if post {
            assert!(unpaired.is_empty());
        } else {
            assert_eq!(unpaired.len(), 1);
            let u = unpaired[0];
            assert_eq!(u.name, "Bash");
            assert!(d.threads[&u.thread].parent.is_none());
            let last: i64 = conn
                .query_row("SELECT max(rowid) FROM messages WHERE thread_id = ?1", [&u.thread], |r| r.get(0))
                .unwrap();
            assert_eq!(u.rid, last, "unpaired Bash is not the session's final message");
        }
        // threads: counts, times, ids, titles, sub-agent attributes
        let mut st =
            conn.prepare("SELECT rowid, message_id, thread_id, role, content FROM messages ORDER BY rowid").unwrap();
        let rows: Vec<(i64, String, String, String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let (lo, hi) = (rfc_us(range.0) / 1000, rfc_us(range.1) / 1000);
        let mut prev_ms = 0;
        let mut per_thread: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
        for (rid, mid, tid, _, _) in &rows {
            assert!(is_uuid7(mid), "bad uuid {mid}");
            let ms = uuid_ms(mid);
            assert!(ms >= prev_ms, "rowid order is not time order");
            assert!(ms >= lo && ms < hi, "message outside the date range");
            prev_ms = ms;
            per_thread.entry(tid).or_default().push((*rid, ms));
        }
        for (tid, th) in &d.threads {
            assert!(is_uuid7(tid));
            let ms = &per_thread[tid.as_str()];
            assert_eq!(ms.len() as i64, th.message_count);
            assert!(ms.windows(2).all(|w| w[0].1 < w[1].1), "thread time not strictly increasing");
            let created = rfc_us(&th.created_at);
            let updated = rfc_us(&th.updated_at);
            assert!(th.created_at.ends_with("+00:00") && th.created_at.len() == 32);
            assert!(th.updated_at.ends_with("+00:00") && th.updated_at.len() == 32);
            assert_eq!(updated / 1000, ms.last().unwrap().1, "updated_at != last message");
            assert!(created / 1000 <= ms[0].1);
            assert_eq!(uuid_ms(tid), created / 1000);
            match &th.parent {
                None => {
                    assert!(!th.hidden);
                    assert_eq!(th.cancel_policy, "cascade");
                    let first = rows.iter().find(|r| r.0 == ms[0].0).unwrap();
                    assert_eq!(first.3, "user", "root session does not start with a user message");
                    let v: Value = serde_json::from_str(&first.4).unwrap();
                    let v = if post { v["message"].clone() } else { v };
                    let title: String = v["content"].as_str().unwrap().chars().take(50).collect();
                    assert_eq!(th.title.as_deref(), Some(title.as_str()));
                }
                Some(p) => {
                    assert!(th.hidden);
                    assert!(d.threads[p].parent.is_none(), "nested sub-agent");
                    let title = th.title.as_deref().unwrap();
                    match title {
                        "fork" => assert!(th.snapshot.is_some() && th.cancel_policy == "cascade"),
                        t if t.starts_with("bg-fork-bg-") => {
                            assert!(th.snapshot.is_some() && th.cancel_policy == "independent")
                        }
                        t => {
                            assert!(th.snapshot.is_none());
                            assert!(
                                ["explore", "plan", "general-purpose", "verification", "code-reviewer"].contains(&t)
                            );
                        }
                    }
                    if let Some(snap) = &th.snapshot {
                        let (_, _, stid, _, _) = rows.iter().find(|r| &r.1 == snap).expect("snapshot message exists");
                        assert_eq!(stid, p);
                    }
                }
            }
        }
        // sub-agent rows sit between the parent's Agent tool_use row and its tool row,
        // and the Agent result reports the sub-agent's real call counts
        let mut spawned = 0;
        for (tid, th) in &d.threads {
            let Some(p) = &th.parent else { continue };
            let span = &per_thread[tid.as_str()];
            let (a, b) = (span[0].0, span.last().unwrap().0);
            let enclosing: Vec<&Call> = d
                .calls
                .iter()
                .filter(|c| {
                    &c.thread == p && c.name == "Agent" && c.rid < a && c.res.as_ref().is_some_and(|r| r.rid > b)
                })
                .collect();
            assert_eq!(enclosing.len(), 1, "sub-agent not nested in exactly one Agent call");
            let sub_calls: Vec<&Call> = d.calls.iter().filter(|c| &c.thread == tid).collect();
            let text = &enclosing[0].res.as_ref().unwrap().text;
            assert!(text.starts_with(&format!("[Sub-agent executed {} tool calls: ", sub_calls.len())), "{text}");
            for tool in ["Read", "Grep", "Glob", "Bash", "Edit"] {
                let k = sub_calls.iter().filter(|c| c.tool == tool).count();
                if k > 0 {
                    assert!(text.contains(&format!("{tool} {k} times")));
                }
            }
            spawned += 1;
        }
        facts.push(format!("sub-agent threads nested in their Agent call: {spawned}"));
        // interleaving and concurrency of root sessions
        let mut spans: BTreeMap<&str, (i64, i64, i64, i64)> = BTreeMap::new();
        for (rid, mid, tid, _, _) in &rows {
            let root = d.root(tid);
            let e = spans.entry(root).or_insert((i64::MAX, 0, i64::MAX, 0));
            e.0 = e.0.min(*rid);
            e.1 = e.1.max(*rid);
            e.2 = e.2.min(uuid_ms(mid));
            e.3 = e.3.max(uuid_ms(mid));
        }
        let mut interleaved = 0;
        for (root, &(a, b, _, _)) in &spans {
            if rows.iter().any(|r| r.0 > a && r.0 < b && d.root(&r.2) != *root) {
                interleaved += 1;
            }
        }
        let mut evs: Vec<(i64, i32)> = spans.values().flat_map(|s| [(s.2, 1), (s.3 + 1, -1)]).collect();
        evs.sort();
        let (mut cur, mut max_conc) = (0, 0);
        for (_, d) in evs {
            cur += d;
            max_conc = max_conc.max(cur);
        }
        assert!((3..=4).contains(&max_conc), "max concurrency {max_conc}");
        assert!(interleaved * 2 > spans.len(), "too little interleaving");
        facts.push(format!(
            "root sessions: {}, interleaved with another session: {interleaved}, max concurrent: {max_conc}",
            spans.len()
        ));
        // messages per role
        let mut st = conn.prepare("SELECT role, COUNT(*) FROM messages GROUP BY role ORDER BY role").unwrap();
        let roles: Vec<(String, i64)> =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
        facts.push(format!("messages by role: {roles:?}"));
        let sys_roots = q(&format!(
            "{NORM} SELECT COUNT(*) FROM m JOIN threads t ON t.id = m.thread_id \
             WHERE m.role = 'system' AND t.parent_thread_id IS NULL"
        ));
        let sys_all = q("SELECT COUNT(*) FROM messages WHERE role = 'system'");
        assert_eq!(sys_roots, sys_all, "system rows belong to root sessions");
        // Postmortem: 14 sessions open with one, 6 others get a compaction note later.
        // PostFix: 3 system messages plus 5 system_reminder envelope rows.
        assert_eq!(sys_all, if post { 3 + 5 } else { 14 + 6 });
        facts.push(format!("system-role rows: {sys_all}"));
        facts.push(format!(
            "threads: {} ({} sub-agent), messages: {}, calls: {}, file size: {} bytes, generation: {:.2}s (debug build)",
            d.threads.len(),
            d.threads.values().filter(|t| t.parent.is_some()).count(),
            rows.len(),
            d.calls.len(),
            std::fs::metadata(&db.path).unwrap().len(),
            db.secs
        ));
        assert_eq!(db.stats.threads, d.threads.len());
        assert_eq!(db.stats.subagent_threads, d.threads.values().filter(|t| t.parent.is_some()).count());
        assert_eq!(db.stats.messages, rows.len());
        facts
    }

    // ===================================================================================
    // Postmortem
    // ===================================================================================

    #[test]
    fn postmortem_exact_tool_counts() {
        let db = pm();
        let conn = open(db);
        let want = expect_counts(&[
            ("Agent", 1344),
            ("Edit", 6233),
            ("Read", 3000),
            ("Bash", 2000),
            ("Grep", 1500),
            ("Glob", 300),
            ("Write", 300),
            ("TodoWrite", 400),
            ("WebFetch", 40),
            ("WebSearch", 40),
            ("AskUserQuestion", 30),
            ("folder_operations", 20),
            ("AgentResult", 44),
            ("cron_list", 6),
        ]);
        assert_eq!(sql_counts(&conn), want);
        assert_eq!(db.stats.calls_by_tool, want);
        let ext: i64 = conn
            .query_row(&format!("{NORM}{CALLS} SELECT COUNT(*) FROM calls WHERE name = 'ExecuteExtraTool'"), [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(ext, 50);
    }

    #[test]
    fn postmortem_agent_failures() {
        let db = pm();
        let d = load(&open(db));
        let agents = d.of("Agent");
        assert_eq!(agents.len(), 1344);
        assert!(agents.iter().all(|c| d.threads[&c.thread].parent.is_none()));
        assert!(agents.iter().all(|c| !c.res.as_ref().unwrap().is_error));
        let mut by: BTreeMap<AgentOut, usize> = BTreeMap::new();
        for c in &agents {
            *by.entry(agent_out(c, false)).or_default() += 1;
        }
        let want: BTreeMap<AgentOut, usize> = [
            (AgentOut::Ok, 1299),
            (AgentOut::Fg, 21),
            (AgentOut::Bg, 15),
            (AgentOut::Conc, 5),
            (AgentOut::Def, 3),
            (AgentOut::NoPrompt, 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(by, want);
        // inputs match the failure kind
        let mut def_ids = BTreeSet::new();
        for c in &agents {
            let i = &c.input;
            let has = |k: &str| i.get(k).is_some();
            match agent_out(c, false) {
                AgentOut::Fg => assert!(
                    has("prompt")
                        && has("description")
                        && !has("subagent_type")
                        && !has("fork")
                        && !has("run_in_background")
                ),
                AgentOut::Bg => assert!(i["run_in_background"] == json!(true) && !has("subagent_type") && !has("fork")),
                AgentOut::Conc => {
                    assert!(i["run_in_background"] == json!(true) && has("subagent_type"))
                }
                AgentOut::Def => {
                    def_ids.insert(i["subagent_type"].as_str().unwrap().to_owned());
                }
                AgentOut::NoPrompt => assert!(has("subagent_type") && !has("prompt")),
                AgentOut::Ok => {
                    let t = &c.res.as_ref().unwrap().text;
                    assert!(t.contains("]\n\n"));
                    assert!(has("subagent_type") || i["fork"] == json!(true));
                }
                AgentOut::Other => unreachable!(),
            }
        }
        assert_eq!(def_ids, ["code-reviewr", "docs-writer", "tester"].map(String::from).into_iter().collect());
        // repairs: per session, the next Agent call after a subagent_type failure
        let mut per_thread: BTreeMap<&str, Vec<&Call>> = BTreeMap::new();
        for c in &agents {
            per_thread.entry(&c.thread).or_default().push(c);
        }
        let is_repair = |f: &Call, n: &Call| {
            let mut stripped = n.input.clone();
            let had = stripped.as_object_mut().unwrap().remove("subagent_type").is_some();
            had && stripped == f.input && agent_out(n, false) == AgentOut::Ok
        };
        let (mut immediate, mut eventual, mut runs) = (0, 0, Vec::new());
        let mut other_next_repair = 0;
        for cs in per_thread.values() {
            let mut i = 0;
            while i < cs.len() {
                let k = agent_out(cs[i], false);
                let mut j = i + 1;
                while j < cs.len()
                    && cs[j].input == cs[i].input
                    && cs[j].res.as_ref().unwrap().text == cs[i].res.as_ref().unwrap().text
                {
                    j += 1;
                }
                if matches!(k, AgentOut::Fg | AgentOut::Bg) {
                    runs.push(j - i);
                    if j < cs.len() && is_repair(cs[i], cs[j]) {
                        eventual += j - i;
                        // only the last failure of a run is directly followed by the repair
                        immediate += 1;
                    }
                } else if !matches!(k, AgentOut::Ok) && j < cs.len() {
                    let same_prompt = cs[j].input.get("prompt") == cs[i].input.get("prompt");
                    if same_prompt {
                        other_next_repair += 1;
                    }
                }
                i = j;
            }
        }
        runs.sort_unstable();
        assert_eq!(runs.iter().filter(|&&r| r == 6).count(), 1);
        assert!(runs.iter().all(|&r| r == 1 || r == 6));
        assert_eq!(runs.iter().sum::<usize>(), 36);
        assert_eq!(eventual, 34, "subagent_type failures followed by a repair (run counted as 6)");
        assert_eq!(immediate, 29, "failures whose very next Agent call is the repair");
        assert_eq!(other_next_repair, 0);
        // sub-agents
        let subs = d.threads.values().filter(|t| t.parent.is_some()).count();
        assert_eq!(subs, 150);
        let bg_sub = d.threads.values().filter(|t| t.parent.is_some() && t.cancel_policy == "independent").count();
        assert!(bg_sub > 0);
    }

    #[test]
    fn postmortem_edit_failures() {
        let db = pm();
        let d = load(&open(db));
        let edits = d.of("Edit");
        assert_eq!(edits.len(), 6233);
        assert!(edits.iter().all(|c| !c.res.as_ref().unwrap().is_error));
        let (mut ok, mut nf, mut ux) = (0, 0, 0);
        let mut nu: BTreeMap<u32, usize> = BTreeMap::new();
        for c in &edits {
            match edit_out(&d, c, false) {
                EditOut::Ok => ok += 1,
                EditOut::NotFound => nf += 1,
                EditOut::NotUnique(n) => *nu.entry(n).or_default() += 1,
                EditOut::Unexpected => ux += 1,
                EditOut::Other => panic!("unclassified Edit result {:?}", c.res.as_ref().unwrap().text),
            }
        }
        assert_eq!((ok, nf, ux), (5949, 213, 1));
        assert_eq!(nu.values().sum::<usize>(), 70);
        assert_eq!(nu[&2], 50);
        assert_eq!(nu[&3], 7);
        assert_eq!(nu[&4], 5);
        assert_eq!((6..=9).map(|n| nu.get(&n).copied().unwrap_or(0)).sum::<usize>(), 8);
        assert_eq!(nu.get(&5), None);
        // stale / non-stale re-derived per thread, and identically per root session
        let per_thread = stale_flags(&d, false, false);
        let merged = stale_flags(&d, false, true);
        assert_eq!(per_thread.len(), 213);
        assert_eq!(per_thread.iter().filter(|(_, s)| *s).count(), 132);
        assert_eq!(per_thread.iter().filter(|(_, s)| !*s).count(), 81);
        assert_eq!(per_thread, merged, "classification depends on sub-agent activity");
        // non-stale mix: never modified before vs read after the last modification
        let sub_edits = edits.iter().filter(|c| d.threads[&c.thread].parent.is_some()).count();
        assert_eq!(sub_edits, 30);
    }

    #[test]
    fn postmortem_ordinary_traffic() {
        let db = pm();
        let d = load(&open(db));
        // every unflagged result that looks like an error is one of the 45 + 284 hidden failures
        let mut hidden = 0;
        for c in &d.calls {
            let Some(r) = &c.res else { continue };
            if r.is_error {
                panic!("flagged result in the pre-fix era: {}", r.text);
            }
            if looks_like_error(&r.text) {
                let known = match c.name.as_str() {
                    "Agent" => agent_out(c, false) != AgentOut::Ok,
                    "Edit" => edit_out(&d, c, false) != EditOut::Ok,
                    _ => false,
                };
                assert!(known, "{} result looks like an error: {:?}", c.name, r.text);
                hidden += 1;
            }
        }
        assert_eq!(hidden, 45 + 284);
        let text = |c: &Call| c.res.as_ref().map(|r| r.text.clone()).unwrap_or_default();
        // Read: line-numbered, 30 log reads with error-looking lines
        let mut log_reads = 0;
        for c in d.of("Read") {
            let t = text(c);
            let offset = c.input.get("offset").and_then(Value::as_i64).unwrap_or(1);
            for (i, line) in t.lines().enumerate() {
                let (num, _) = line.split_once('\t').unwrap();
                assert_eq!(num.len(), 6);
                assert_eq!(num.trim_start().parse::<i64>().unwrap(), offset + i as i64);
            }
            if c.input["file_path"].as_str().unwrap().ends_with(".log") {
                assert!(t.contains("Error: connection refused") || t.contains("ERROR: disk full"));
                log_reads += 1;
            }
        }
        assert_eq!(log_reads, 30);
        let bash = d.of("Bash");
        let exit1 = bash.iter().filter(|c| text(c).ends_with("\n[Exit code: 1]")).count();
        let done1 = bash.iter().filter(|c| text(c) == "[Command completed with exit code 1]").count();
        assert_eq!((exit1, done1), (40, 4));
        let grep = d.of("Grep");
        let errlike = grep.iter().filter(|c| text(c).contains("Error:")).count();
        let nomatch = grep.iter().filter(|c| text(c) == "No matches found.").count();
        assert_eq!((errlike, nomatch), (30, 90));
        let none = d.of("Glob").iter().filter(|c| text(c) == "No files found.").count();
        assert_eq!(none, 20);
        for c in d.of("Write") {
            let n = c.input["content"].as_str().unwrap().lines().count();
            assert!(text(c).starts_with(&format!("Wrote {n} line(s) ")));
        }
        for c in d.of("AgentResult") {
            assert_eq!(text(c), "No completed background agent results available yet.");
            assert!(c.input["params"]["task_id"].as_str().unwrap().starts_with("bg-"));
        }
        for c in d.of("cron_list") {
            assert_eq!(c.input["params"], json!({}));
        }
        let runs = identical_runs(&d);
        assert_eq!(runs, vec![("Agent".to_owned(), 6), ("AgentResult".to_owned(), 5)]);
        let sizes: Vec<usize> = d.calls.iter().filter_map(|c| c.res.as_ref()).map(|r| r.text.len()).collect();
        let in_band = sizes.iter().filter(|&&n| (60..=400).contains(&n)).count();
        println!(
            "postmortem result sizes: {} results, {:.1}% within 60..=400 bytes, max {}",
            sizes.len(),
            100.0 * in_band as f64 / sizes.len() as f64,
            sizes.iter().max().unwrap()
        );
    }

    #[test]
    fn postmortem_integrity() {
        let facts = check_integrity(pm(), false, ("2026-05-20T00:00:00+00:00", "2026-06-03T00:00:00+00:00"));
        for f in facts {
            println!("postmortem: {f}");
        }
    }

    #[test]
    fn same_seed_same_bytes() {
        let a = std::fs::read(&pm().path).unwrap();
        let b = make(PeriScenario::Postmortem, seed(), "pm_again.db");
        assert_eq!(a, std::fs::read(&b.path).unwrap(), "same seed, different bytes");
        assert_eq!(pm().stats, b.stats);
        let c = make(PeriScenario::Postmortem, seed().wrapping_add(1), "pm_other.db");
        assert_ne!(a, std::fs::read(&c.path).unwrap());
        assert_eq!(pm().stats.calls_by_tool, c.stats.calls_by_tool);
        let pa = std::fs::read(&pf().path).unwrap();
        let pb = make(PeriScenario::PostFix, seed(), "pf_again.db");
        assert_eq!(pa, std::fs::read(&pb.path).unwrap());
        for p in [&b.path, &c.path, &pb.path] {
            let _ = std::fs::remove_file(p);
        }
    }

    // ===================================================================================
    // PostFix
    // ===================================================================================

    #[test]
    fn postfix_exact_tool_counts() {
        let db = pf();
        let want = expect_counts(&[
            ("Agent", 40),
            ("Edit", 140),
            ("Read", 160),
            ("Bash", 100),
            ("Grep", 70),
            ("Glob", 20),
            ("Write", 20),
            ("TodoWrite", 20),
            ("WebFetch", 5),
            ("WebSearch", 5),
            ("AskUserQuestion", 4),
            ("folder_operations", 3),
            ("AgentResult", 5),
            ("cron_list", 1),
            ("Task", 1),
        ]);
        assert_eq!(sql_counts(&open(db)), want);
        assert_eq!(db.stats.calls_by_tool, want);
    }

    #[test]
    fn postfix_flagged_failures() {
        let db = pf();
        let d = load(&open(db));
        // Agent
        let mut by: BTreeMap<AgentOut, usize> = BTreeMap::new();
        for c in d.of("Agent") {
            let k = agent_out(c, true);
            assert_eq!(c.res.as_ref().unwrap().is_error, k != AgentOut::Ok);
            *by.entry(k).or_default() += 1;
        }
        let want: BTreeMap<AgentOut, usize> =
            [(AgentOut::Ok, 32), (AgentOut::Fg, 4), (AgentOut::Bg, 2), (AgentOut::Conc, 1), (AgentOut::Def, 1)]
                .into_iter()
                .collect();
        assert_eq!(by, want);
        // Edit
        let (mut ok, mut nf, mut nu) = (0, 0, 0);
        for c in d.of("Edit") {
            match edit_out(&d, c, true) {
                EditOut::Ok => ok += 1,
                EditOut::NotFound => nf += 1,
                EditOut::NotUnique(2) => nu += 1,
                o => panic!("unexpected Edit outcome {o:?}: {:?}", c.res.as_ref().unwrap().text),
            }
        }
        assert_eq!((ok, nf, nu), (127, 11, 2));
        let st = stale_flags(&d, true, false);
        assert_eq!(st.iter().filter(|(_, s)| *s).count(), 4);
        assert_eq!(st.iter().filter(|(_, s)| !*s).count(), 7);
        assert_eq!(st, stale_flags(&d, true, true));
        // unwrapped flagged results
        let flagged: Vec<(&str, &str)> = d
            .calls
            .iter()
            .filter_map(|c| c.res.as_ref().filter(|r| r.is_error).map(|r| (c.name.as_str(), r.text.as_str())))
            .filter(|(_, t)| {
                !t.starts_with("Tool execution failed: Agent - ") && !t.starts_with("Tool execution failed: Edit - ")
            })
            .collect();
        let mut kinds: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for f in &flagged {
            *kinds.entry(*f).or_default() += 1;
        }
        let want: BTreeMap<(&str, &str), usize> = [
            (
                (
                    "Read",
                    "The 'file_path' parameter is required for the Read tool. Provide the absolute path to the file.",
                ),
                2,
            ),
            (("Task", "工具 'Task' 不存在"), 1),
            (("Bash", "Tool execution failed: Bash - interrupted by user"), 2),
            (("Bash", "Don't Ask 模式：自动拒绝"), 1),
            (("Write", "not now, I'm changing that file myself"), 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(kinds, want);
        let total_flagged = d.calls.iter().filter(|c| c.res.as_ref().is_some_and(|r| r.is_error)).count();
        assert_eq!(total_flagged, 8 + 13 + 7);
        // no hidden errors at all
        for c in &d.calls {
            let r = c.res.as_ref().unwrap();
            assert!(r.is_error || !looks_like_error(&r.text), "hidden error {:?}", r.text);
        }
        // benign look-alikes, exact by construction
        let text = |c: &Call| c.res.as_ref().map(|r| r.text.clone()).unwrap_or_default();
        let logs = d
            .of("Read")
            .iter()
            .filter(|c| c.input.get("file_path").and_then(Value::as_str).is_some_and(|p| p.ends_with(".log")))
            .count();
        let bash = d.of("Bash");
        let exit1 = bash.iter().filter(|c| text(c).ends_with("\n[Exit code: 1]")).count();
        let done1 = bash.iter().filter(|c| text(c) == "[Command completed with exit code 1]").count();
        let grep = d.of("Grep");
        let errlike = grep.iter().filter(|c| text(c).contains("Error:")).count();
        let nomatch = grep.iter().filter(|c| text(c) == "No matches found.").count();
        let none = d.of("Glob").iter().filter(|c| text(c) == "No files found.").count();
        assert_eq!((logs, exit1, done1, errlike, nomatch, none), (3, 4, 1, 3, 6, 2));
        // Read without file_path really lacks it
        for c in d.of("Read") {
            if c.res.as_ref().unwrap().is_error {
                assert!(c.input.get("file_path").is_none());
            }
        }
    }

    #[test]
    fn postfix_consecutive_failure_reminder() {
        let db = pf();
        let conn = open(db);
        let d = load(&conn);
        let runs = identical_runs(&d);
        assert_eq!(runs, vec![("Edit".to_owned(), 5)]);
        let sql = format!(
            "{NORM} SELECT rid, thread_id, j ->> '$.content' FROM m WHERE role = 'user' \
             AND j ->> '$.content' LIKE '<system-reminder>%'"
        );
        let (rid, thread, text): (i64, String, String) =
            conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
        assert_eq!(
            text,
            "<system-reminder>\nWarning: Tool 'Edit' has failed 5 consecutive times with the same error. Stop retrying and analyze the root cause. Consider using a different approach or asking the user for guidance.\n</system-reminder>"
        );
        let edits: Vec<&Call> = d.calls.iter().filter(|c| c.thread == thread && c.name == "Edit").collect();
        let pos = edits
            .windows(5)
            .position(|w| {
                w.iter().all(|c| {
                    c.input == w[0].input
                        && c.res.as_ref().unwrap().text == w[0].res.as_ref().unwrap().text
                        && c.res.as_ref().unwrap().is_error
                })
            })
            .expect("5 identical flagged Edits");
        let fifth = edits[pos + 4];
        assert!(fifth.rid < rid && rid < fifth.res.as_ref().unwrap().rid);
        let reminders: i64 = conn
            .query_row("SELECT COUNT(*) FROM messages WHERE content ->> '$.type' = 'system_reminder'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(reminders, 5);
    }

    #[test]
    fn postfix_integrity() {
        let db = pf();
        let facts = check_integrity(db, true, ("2026-06-16T00:00:00+00:00", "2026-06-21T00:00:00+00:00"));
        for f in facts {
            println!("postfix: {f}");
        }
        // about 30% of the ordinary successes of the other tools run inside sub-agents
        let d = load(&open(db));
        let ordinary: Vec<&Call> = d
            .calls
            .iter()
            .filter(|c| !matches!(c.name.as_str(), "Agent" | "Task" | "ExecuteExtraTool"))
            .filter(|c| c.res.as_ref().is_some_and(|r| !r.is_error))
            .collect();
        let in_sub = ordinary.iter().filter(|c| d.threads[&c.thread].parent.is_some()).count();
        let share = in_sub as f64 / ordinary.len() as f64;
        println!("postfix: ordinary successes in sub-agents: {in_sub}/{} ({:.1}%)", ordinary.len(), 100.0 * share);
        assert!((0.2..0.4).contains(&share));
    }
}
