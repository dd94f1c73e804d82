//! The plan: exact call budgets per scenario, which the builder spends.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tool {
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
    pub(super) fn call_name(self) -> &'static str {
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
    pub(super) fn stat_name(self) -> &'static str {
        match self {
            Tool::AgentResult => "AgentResult",
            Tool::CronList => "cron_list",
            t => t.call_name(),
        }
    }
    pub(super) fn read_only(self) -> bool {
        matches!(self, Tool::Read | Tool::Grep | Tool::Glob)
    }
}

/// A scripted sequence of calls with a known outcome. Units are realised contiguously.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
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
    pub(super) fn composition(self) -> Vec<(Tool, usize)> {
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
pub(super) enum SubKind {
    Fg,
    Bg,
    Fork,
    BgFork,
}

pub(super) struct Plan {
    pub(super) post: bool,
    pub(super) sessions: usize,
    pub(super) start_us: i64,
    pub(super) end_us: i64,
    pub(super) totals: Vec<(Tool, usize)>,
    pub(super) units: Vec<Unit>,
    pub(super) unpaired: bool,
    /// Sub-agent threads; every one is spawned by an ordinary successful Agent call.
    pub(super) sub_threads: usize,
    pub(super) sub_calls: Vec<(Tool, usize)>,
    /// Kinds of ordinary successful Agent calls other than foreground.
    pub(super) agent_kinds: Vec<(SubKind, usize)>,
    pub(super) log_reads: usize,
    pub(super) bash_exit1: usize,
    pub(super) bash_done1: usize,
    pub(super) grep_errlike: usize,
    pub(super) grep_nomatch: usize,
    pub(super) glob_none: usize,
    pub(super) system_first: usize,
    pub(super) system_later: usize,
    pub(super) reminders: usize,
    pub(super) turn_len: (i64, i64),
}

pub(super) fn ymd_us(y: i32, m: u32, d: u32) -> i64 {
    chrono::NaiveDate::from_ymd_opt(y, m, d)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_micros())
        .unwrap_or_default()
}

impl Plan {
    pub(super) fn postmortem() -> Plan {
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

    pub(super) fn post_fix() -> Plan {
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
    pub(super) fn bag(&self) -> BTreeMap<Tool, usize> {
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
