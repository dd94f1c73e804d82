//! Classification rules: why did a failed call fail?
//!
//! An ordered list; the first rule whose pattern matches (and whose tool
//! scope includes the call's tool) gives the category. The order follows
//! DESIGN.md: structured codes, then specific message rules (edit, argument,
//! unknown tool, user), then environment classes, then not-found and
//! permission, then non-zero exits. A text no rule matches is `other`.
//! Patterns are searched anywhere in the text after Peri's
//! `Tool execution failed: <Tool> - ` wrapper has been stripped.

use serde::Serialize;

mod codes;
mod environment;
mod messages;
mod services;

use super::category::Category;
use crate::model::Dialect;

/// One classification rule: a pattern on a failure's text that names its category.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ClassRule {
    /// The rule's stable id (the `reason` of the failures it classifies).
    pub id: &'static str,
    /// The regular expression matched against the error text.
    pub pattern: &'static str,
    /// Tools the rule applies to; empty means every tool.
    pub tools: &'static [&'static str],
    /// Dialects the rule applies to; empty means every dialect. Serialized
    /// as `formats`: the key of `falseok rules --format json` is a versioned
    /// contract (`tests/golden/rules.json`), kept when the field was renamed.
    #[serde(rename = "formats")]
    pub dialects: &'static [Dialect],
    /// The category of the failures the rule matches.
    pub category: Category,
    /// A short human label shown next to the category (the "reason").
    pub label: &'static str,
    /// Texts this rule must classify (it must be the first rule to match).
    pub fires_on: &'static [&'static str],
    /// Texts this rule must not match.
    pub ignores: &'static [&'static str],
}

use Category as C;

/// Classification of a result that reports a non-zero process exit (a
/// shell command, a background job): the program failed, and words in its
/// output describe the program, not the tool call, so the category is
/// `nonzero-exit` unless one of these anchored signals says otherwise.
/// Tried in order before `nonzero-exit` (issue 12, shape 9).
pub static EXIT_CLASS_RULES: &[ClassRule] = &[
    ClassRule {
        id: "command-not-found",
        pattern: r"(?m)(?:^|: )(?:command not found|not found)\s*$|^[^\n:]{1,200}: No module named [\w.]+\s*$|^(?:bash|sh|zsh): .{1,80}: command not found|executable file not found in \$PATH|is not recognized as an internal or external command|is not recognized as (?:the|a) name of a cmdlet|no se reconoce como nombre de un cmdlet|^Exit code:? 127\s*$|^Exit Code: 127\s*$|^\[\d+\][+-]?\s+Exit 127\s",
        tools: &[],
        dialects: &[],
        category: C::NotFound,
        label: "command not found",
        fires_on: &[
            "Exit code 127\n/usr/bin/bash: line 30: gh: command not found",
            "\n\"grep\": executable file not found in $PATH\n\nExit code 127\n\n<cwd>/p</cwd>",
            "Command failed with exit code 255.\nOutput:\n'head' is not recognized as an internal or external command,",
        ],
        ignores: &["Exit code 1\nerror: pathspec 'x' did not match any file(s) known to git"],
    },
    ClassRule {
        id: "stopped-at-prompt",
        pattern: super::table::UNANSWERED_PROMPT,
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "stopped at a prompt (run it non-interactively: --yes)",
        fires_on: &["Vercel CLI 48.1.7\n? You are deploying your home directory. Do you want to continue? (y/N)\n"],
        ignores: &["Exit code 1\nerror: pathspec 'x' did not match any file(s) known to git"],
    },
    ClassRule {
        id: "usage-shown",
        pattern: r"(?m)^Usage:\n(?:  [^\n]*\n)*?  [^\n]+ \[command\]\n(?s:.*?)^Available Commands:",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "printed its usage: no such subcommand",
        fires_on: &[
            "Usage:\n  bd mol [command]\n\nAliases:\n  mol, protomolecule\n\nAvailable Commands:\n  bond        Bond two protos\n",
        ],
        ignores: &["Usage: prog [options]\n\nCommands:\n  build"],
    },
    ClassRule {
        id: "shell-parse-error",
        pattern: super::table::SHELL_PARSE_ERROR,
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "shell could not parse the command",
        fires_on: &[
            "bash: syntax error near unexpected token `('\ndone",
            "Exit code 2\nbash: line 3: syntax error: unexpected end of file",
        ],
        ignores: &["Exit code 1\nerror: pathspec 'x' did not match any file(s) known to git"],
    },
    ClassRule {
        id: "killed-by-time-limit",
        pattern: r"(?m)^(?:command timed out after \d+ milliseconds|Command was automatically cancelled because it exceeded the timeout|shell tool terminated command after exceeding timeout|Command timed out after \d|<command with (?:sessionId|shellId): \S+ is still running after \d+ seconds)|\(Command timed out after \d+ ?ms\)",
        tools: &[],
        dialects: &[],
        category: C::Timeout,
        label: "killed by the tool's time limit",
        fires_on: &[
            "Exit code: 124\nWall time: 10 seconds\nOutput:\ncommand timed out after 10033 milliseconds",
            "(no output)\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 120000 ms.\n</shell_metadata>\n\nExit code 143",
        ],
        ignores: &["Exit code 1\n  page.spec.ts: Timeout 5000ms exceeded waiting for locator"],
    },
    ClassRule {
        id: "crush-killed-by-time-limit",
        pattern: r"(?m)^Command was aborted before completion",
        tools: &[],
        dialects: &[Dialect::CRUSH],
        category: C::Timeout,
        label: "aborted by the tool's time limit",
        fires_on: &["Running `target/debug/server`\n\nCommand was aborted before completion\n\nExit code 1"],
        ignores: &["Exit code 1\nthe build was aborted: 3 errors"],
    },
    ClassRule {
        id: "command-interrupted",
        pattern: r"(?m)^Command was aborted before completion|^aborted by user|\(Command was aborted\)",
        tools: &[],
        dialects: &[],
        category: C::UserRejected,
        label: "command interrupted",
        fires_on: &["Wall time: 3.1 seconds\naborted by user\nExit code 130", "(Command was aborted)\nExit code 130"],
        ignores: &["Exit code 1\nthe build was aborted: 3 errors"],
    },
    ClassRule {
        id: "build-failed",
        pattern: r"(?m)error\[E\d{4}\]|\berror TS\d{4,5}:|^\s*(?:File \S+, line \d+\n(?:.*\n){0,3})?(?:SyntaxError|IndentationError|TabError): |^error: could not compile|\bCompilation failed\b|^BUILD FAILED\b|\bBuild failed\b|\berror CS\d{4}:|^\S+\.(?:go|c|cc|cpp|h|hpp|java|kt|swift|rs|ts|tsx|js|jsx|py)[:(]\d+(?:[:,]\d+)?\)?:? error:|\bFailed to compile\b|^Failed to type check\.|^Type error: |\bcompilation terminated\b|\bFAIL\s+\S+ \[build failed\]",
        tools: &[],
        dialects: &[],
        category: C::BuildFailed,
        label: "build or type check failed",
        fires_on: &[
            "Exit code 101\n   Compiling x v0.1.0\nerror[E0425]: cannot find value `y` in this scope",
            "Exit code 1\nsrc/a.ts(3,7): error TS2304: Cannot find name 'x'.",
            "Exit code 1\n  File \"a.py\", line 3\n    def f(:\n          ^\nSyntaxError: invalid syntax",
            "Exit code 2\n./main.go:16:2: undefined: x\nmain.go:9:1: error: expected declaration",
            "Exit Code: 1\nStdout: FAIL\tportfolio [build failed]\nFAIL",
        ],
        ignores: &[
            "Exit code 1\nFAILED tests/test_a.py::test_x - assert 1 == 2",
            "Exit code 1\nerror: pathspec 'x' did not match",
        ],
    },
    ClassRule {
        id: "tests-failed",
        pattern: r"(?m)^test result: FAILED|^FAILED [\w./-]+(?:::|\.py)|^=+ (?:.*\b)?\d+ failed\b|^Tests?: +\d+ failed|^\s*(?:Test Files|Tests)  +\d+ failed \||^--- FAIL: |^FAIL\s+\S|^\s*\d+ (?:failing|failed)\b|^Ran \d+ tests? in [\d.]+s\s*\n+FAILED \(|^Tests run: \d+, Failures: [1-9]|\b\d+ examples?, [1-9]\d* failures?\b",
        tools: &[],
        dialects: &[],
        category: C::TestsFailed,
        label: "tests failed",
        fires_on: &[
            "Exit code 101\nrunning 3 tests\ntest a ... FAILED\n\ntest result: FAILED. 2 passed; 1 failed",
            "Exit code 1\nFAILED tests/test_a.py::test_x - assert 1 == 2\n==== 1 failed, 4 passed in 0.3s ====",
            "Exit code 1\nTests:       2 failed, 10 passed, 12 total",
            "Exit code 1\n--- FAIL: TestParse (0.00s)\nFAIL",
            "Exit code 1\n  3 passing (20ms)\n  1 failing",
            "Exit code 1\n Test Files  1 failed | 11 passed (12)\n      Tests  1 failed | 87 passed (88)",
        ],
        ignores: &["Exit code 1\nerror: pathspec 'x' did not match any file(s) known to git"],
    },
];

/// The parts of the table, in registry order (first match wins).
const PARTS: &[&[ClassRule]] = &[codes::RULES, messages::RULES, services::RULES, environment::RULES];
/// How many classification rules there are.
pub(super) const CLASS_RULE_COUNT: usize = super::table::total(PARTS);

static ALL: [ClassRule; CLASS_RULE_COUNT] = super::table::concat(PARTS);

/// Every classification rule, in registry order (see the module header).
pub static CLASS_RULES: &[ClassRule] = &ALL;

/// Classification rules about a tool's own code, left out of the plan of a
/// tool that runs the agent's program (a shell, a Python runner): there a
/// `NameError` is the agent's code failing, judged as a program's exit.
pub const NOT_FOR_PROGRAMS: &[&str] = &["tool-code-raised"];
