//! Projects and the text pools the builder draws from.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Rust,
    Ts,
    Md,
}

pub(super) struct Project {
    pub(super) cwd: &'static str,
    pub(super) lang: Lang,
    pub(super) files: &'static [&'static str],
    pub(super) new_files: &'static [&'static str],
    pub(super) log: &'static str,
    pub(super) first_prompts: &'static [&'static str],
    pub(super) agent_tasks: &'static [(&'static str, &'static str)],
}

pub(super) const PROJECTS: &[Project] = &[
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

pub(super) const FOLLOW_UPS: &[&str] = &[
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

pub(super) const AFTER_INTERRUPT: &str = "stop, that takes too long. Run only the edit tests.";

pub(super) const REASONING: &[&str] = &[
    "The error is returned as Ok, so is_error stays false.",
    "I should read the file again before editing.",
    "Need to check which crate owns this code.",
    "Let me verify the tests compile first.",
    "先确认调用点再改。",
    "The match count logic is in the same function.",
    "This needs a test for the not-found branch.",
];

pub(super) const STEP_TEXTS: &[&str] = &[
    "Let me look at the file.",
    "I'll search for the call sites.",
    "Running the tests now.",
    "Now I'll update the error branch.",
    "让我看一下这个文件。",
    "接下来修改测试。",
    "Checking the current state.",
    "Let me check the build.",
];

pub(super) const FINAL_TEXTS: &[&str] = &[
    "Done. The error paths now return Err and the tests pass.",
    "已完成修改，测试全部通过。",
    "I updated the files; cargo check is clean.",
    "The change is in place. Want me to also update the docs?",
    "Summary: the branch now reports failures through the flag, with a test for each case.",
    "完成。主要改动在错误分支和对应测试。",
    "All done. No warnings left.",
];

pub(super) const SYSTEM_FIRST: &[&str] = &[
    "Environment: macOS 15.5, shell zsh, git branch main.",
    "Project instructions loaded from CLAUDE.md.",
    "Skills available: learn-from-history, commit.",
];

pub(super) const SYSTEM_LATER: &[&str] = &[
    "Conversation compacted. Summary: the user is fixing tool error handling; tests were passing before compaction.",
    "Context was summarised to save tokens. Earlier steps edited the error branches and ran the tests.",
];

pub(super) const REMINDERS: &[&str] = &[
    "The working tree has uncommitted changes.",
    "The user opened a file in the editor; re-read it before editing.",
    "Plan mode is off. You may edit files.",
    "A background agent finished; use AgentResult to read its output.",
];

pub(super) const AGENT_TYPES: &[&str] =
    &["explore", "explore", "explore", "general-purpose", "general-purpose", "plan", "verification", "code-reviewer"];

pub(super) const SUMMARIES: &[&str] = &[
    "Found 4 sites that return Ok(\"Error: …\"): define.rs (3) and execute_bg.rs (1).",
    "The result is converted in tool_dispatch.rs; is_error comes from the Result variant.",
    "All tests pass; no warnings.",
    "The store appends messages with INSERT OR IGNORE and recomputes message_count.",
    "No blocking issues. Two suggestions: add a test for replace_all, and trim the hint.",
    "The plan has three steps: change the return type, update the tests, rewrite the description.",
    "共找到 3 处调用，均在 subagent/tool 目录下。",
    "Timeouts are reported as text; non-zero exits append the exit code.",
];

pub(super) const RUST_LINES: &[&str] = &[
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

pub(super) const TS_LINES: &[&str] = &[
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

pub(super) const MD_LINES: &[&str] = &[
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

pub(super) const LOG_ERR: &[&str] = &[
    "Error: connection refused (os error 61)",
    "ERROR: disk full",
    "2026-05-21T03:12:44Z ERROR: disk full while writing metrics/2026-05-21.jsonl",
    "[otel] Error: connection refused while exporting spans to 127.0.0.1:4317",
];

pub(super) const LOG_LINES: &[&str] = &[
    "2026-05-21T03:12:40Z INFO agent run started",
    "2026-05-21T03:12:41Z INFO tool=Read duration_ms=4",
    "2026-05-21T03:12:43Z WARN retrying export (attempt 2)",
    "Error: connection refused (os error 61)",
    "2026-05-21T03:12:45Z INFO tool=Edit duration_ms=11",
    "ERROR: disk full",
];

/// (old_string, new_string) templates; `@` is replaced by an identifier.
pub(super) const RUST_EDITS: &[(&str, &str)] = &[
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

pub(super) const TS_EDITS: &[(&str, &str)] = &[
    ("const isErr = r.is_error;", "const isErr = r.is_error || /^Error:/.test(t);"),
    ("export function @(rows) {", "export function @(rows, opts) {"),
    ("return pairs;", "// drop orphans\nreturn pairs.filter((p) => p.call);"),
    ("import { x } from \"./x\";\nimport path from \"node:path\";", "import { x } from \"./x\";"),
    ("limit: 10,", "limit: 50,"),
];

pub(super) const MD_EDITS: &[(&str, &str)] = &[
    ("## Root cause", "## Root cause\n\nOk(\"Error: …\") hid the failure."),
    ("- [ ] update the description", "- [x] update the description"),
    ("错误率 3.3%", "错误率 3.35%"),
    ("subagent_type is optional.\nEmpty means fork.", "subagent_type is REQUIRED unless fork=true."),
    ("| @ | 0 |", "| @ | 21 |"),
];

pub(super) const IDENTS: &[&str] = &[
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

pub(super) const NOT_UNIQUE_FRAGS: &[(Lang, &str)] = &[
    (Lang::Rust, "Ok(())"),
    (Lang::Rust, "    }\n}"),
    (Lang::Rust, ".unwrap()"),
    (Lang::Rust, "return None;"),
    (Lang::Ts, "return null;"),
    (Lang::Ts, "  });"),
    (Lang::Md, "- [ ] "),
    (Lang::Md, "| --- |"),
];

pub(super) const GREP_PATTERNS: &[&str] = &[
    "is_error",
    "fn invoke",
    "subagent_type",
    "CONSECUTIVE_FAILURE",
    "load_agent_def",
    "message_count",
    "replace_all",
    "tool_call_id",
];

pub(super) const GREP_ERR_PATTERNS: &[&str] =
    &["Error: old_string", "Ok\\(format!\\(\"Error", "\"Error:", "Error: please provide"];

pub(super) const GREP_ERR_LINES: &[&str] = &[
    "        return Ok(format!(\"Error: old_string not found in {}\", path.display()));",
    "        return Ok(format!(\"Error: old_string not found\"));",
    "            return Ok(\"Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode\".into());",
    "    assert!(out.starts_with(\"Error: old_string is not unique\"));",
    "        Err(e) => return Ok(format!(\"Error: {e}\")),",
];

pub(super) const WEB: &[(&str, &str, &str)] = &[
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

pub(super) const TODOS: &[&str] = &[
    "Read the current implementation",
    "Change Ok(\"Error\") returns to Err",
    "Update the unit tests",
    "Run cargo clippy",
    "Update the tool description",
    "Add a regression test",
    "检查调用点",
    "更新文档",
];

pub(super) const QUESTIONS: &[(&str, &str, &str, &str)] = &[
    ("Should not-found errors include a Read hint?", "Hint", "Yes, add the hint", "No, keep it short"),
    ("Which agent type should handle the review?", "Agent", "code-reviewer", "general-purpose"),
    ("要同时修改 Read 工具吗？", "范围", "一起改", "只改 Edit"),
];
