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
//!
//! The parts: this file holds the entry point, Peri's error texts, the id and JSON
//! helpers, the generated data model and the [`Builder`] state; `plan` the exact budgets
//! of each scenario; `text` the projects and text pools; the builder's work is in
//! `session` (sessions, time and rows), `calls` (the spec of each kind of call), `units`
//! (the scripted failures and their recoveries, sub-agents) and `write` (the schedule and
//! the SQLite rows). `tests` re-derives every figure from a generated database.

mod calls;
mod plan;
mod session;
mod text;
mod units;
mod write;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use chrono::{DateTime, SecondsFormat};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::rng::Rng;

use self::plan::{Plan, SubKind, Tool, Unit};
use self::text::Project;

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

struct SessFlags {
    unpaired: bool,
    system_first: bool,
    system_later: bool,
    reminder: bool,
}
