//! Content rules: does a result's text say that the call failed?
//!
//! Every rule is data: an id, a pattern matched against the start of the
//! trimmed result text, an optional tool scope, a precision and its
//! documentation, with examples it must fire on and texts it must ignore.
//! The unit tests run every example, so a rule cannot exist untested.

use serde::Serialize;

use super::{Precision, Reads};
use crate::model::Dialect;

/// The shell's own complaint that it could not parse the line it was
/// given (`bash: syntax error near unexpected token`): a content rule
/// (part of the command never ran) and, the same words, its category.
pub const SHELL_PARSE_ERROR: &str = r"(?m)^(?:bash|sh|zsh|dash)(?:: line \d+)?: syntax error(?: near unexpected token| in conditional|: unexpected end of file)";

/// One content rule. Patterns are anchored at the start of the result text
/// (after leading whitespace) unless they say otherwise; a rule about the
/// end of a long output (an exit-code line) uses `(?m)` and sees the tail
/// too (see `rules::examined`).
#[derive(Debug, Serialize)]
pub struct ContentRule {
    pub id: &'static str,
    pub pattern: &'static str,
    /// Tools the rule applies to; empty means every tool.
    pub tools: &'static [&'static str],
    /// Dialects the rule applies to; empty means every dialect.
    pub formats: &'static [Dialect],
    pub precision: Precision,
    /// Which results the rule reads (`Reads`): every result, or only the
    /// verdicts of tools whose text is theirs.
    pub reads: Reads,
    pub doc: &'static str,
    /// Texts the rule must fire on (for a tool in scope).
    pub fires_on: &'static [&'static str],
    /// Texts the rule must not fire on (for a tool in scope).
    pub ignores: &'static [&'static str],
}

/// The wrapper Peri puts around an `Err` from a tool. It is stripped before
/// classification so that pre-fix (`Error: …`) and post-fix
/// (`Tool execution failed: Edit - Error: …`) texts land in one category.
pub const PERI_WRAPPER: &str = r"^Tool execution failed: [^ ]+ - ";

pub static CONTENT_RULES: &[ContentRule] = &[
    ContentRule {
        id: "codex-process-exited",
        pattern: r"(?m)^Process exited with code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's unified exec (`exec_command`) returns success whatever the exit code; a non-zero exit is \
              only the line `Process exited with code N`. Benign exits (grep finding nothing) do not count.",
        fires_on: &["Chunk ID: 7\nWall time: 0.4 seconds\nProcess exited with code 1\nOutput:\nFAIL"],
        ignores: &["Process exited with code 0", "Process running with session ID 3"],
    },
    ContentRule {
        id: "codex-exit-code",
        pattern: r"(?m)^Exit code:? [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's shell output with a non-zero `Exit code: N` line, or the JSON output's \
              `metadata.exit_code` (presented as `Exit code N`). Codex writes no success flag, so \
              every such result is hidden from anything that reads flags.",
        fires_on: &["Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom", "Exit code 1"],
        ignores: &["Exit code: 0\nWall time: 0.1 seconds"],
    },
    ContentRule {
        id: "codex-apply-patch-failed",
        pattern: r"^(?:apply_patch verification failed: |error: (?:Failed to find expected lines in |invalid hunk at line \d+))",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's apply_patch when the patch does not apply: `apply_patch verification failed: <why>`, or, \
              through the legacy `shell` tool (Codex 0.4x–0.5x), `error: Failed to find expected lines in …` and \
              `error: invalid hunk at line N, …`.",
        fires_on: &[
            "apply_patch verification failed: Failed to find expected lines in /p/a.rs:\nfn x() {",
            "error: Failed to find expected lines in /p/README.md:\n### CLI Overview",
            "error: invalid hunk at line 2, Update file hunk for path 'a.py' is empty",
        ],
        ignores: &["Success. Updated the following files:\nM /p/a.rs"],
    },
    ContentRule {
        id: "codex-rejected",
        pattern: r"^(?:exec command rejected|patch rejected by user)",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex when the user or the approval policy rejected a command or a patch.",
        fires_on: &["exec command rejected by user", "patch rejected by user", "exec command rejected: policy"],
        ignores: &["command accepted"],
    },
    ContentRule {
        id: "codex-aborted",
        pattern: r"(?m)^aborted(?: by user(?: after [\d.]+s)?)?\s*$",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's interrupted calls: `aborted by user after 3.2s`, `Wall time: …` + `aborted by user`, or a \
              synthetic `aborted` for a call that never returned.",
        fires_on: &["aborted by user after 3.2s", "Wall time: 1.0 seconds\naborted by user", "aborted"],
        ignores: &["the job was aborted earlier; retrying"],
    },
    ContentRule {
        id: "codex-tool-error",
        pattern: r"^(?:unsupported (?:custom tool )?call: |failed to parse \w+ arguments|exec_command failed(?: for `[^`]*`)?: |write_stdin failed: |execution error: |failed in sandbox|command timed out after \d+ milliseconds)",
        tools: &[],
        formats: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's dispatcher and exec errors: unknown tools, unparseable arguments, exec plumbing, \
              sandbox failures, timeouts.",
        fires_on: &[
            "unsupported call: shell2",
            "failed to parse function arguments: missing field `cmd`",
            "command timed out after 10000 milliseconds\nOutput:\n",
            "exec_command failed for `/bin/zsh -lc 'ps -p 9'`: CreateProcess { message: \"Codex(Sandbox(Denied { … }))\" }",
        ],
        ignores: &["execution finished"],
    },
    ContentRule {
        id: "exit-code-line",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CRUSH, Dialect::OPENCODE, Dialect::KILO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Crush's bash tool appends `Exit code N` to a command that exited non-zero and still returns a \
              normal result (`is_error = false`), and so does its `job_output` for a background job; opencode \
              records the exit status in `state.metadata.exit`, which the adapter presents as this line. Any \
              tool's result that reports a process exit is judged by it. Benign exits (grep finding nothing) \
              are not counted (`rules::benign`).",
        fires_on: &[
            "--- FAIL: TestParse (0.00s)\nFAIL\n\nExit code 1\n\n<cwd>/home/u/proj</cwd>",
            "Exit code 2",
            "Job shell-3 (completed)\nnpm ERR! missing script: dev\n\nExit code 1",
        ],
        ignores: &["Exit code 0", "ok\n\n<cwd>/home/u</cwd>", "echo Exit code 1 | tee x"],
    },
    ContentRule {
        id: "gemini-exit-code",
        pattern: r"(?m)^Exit Code: [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::GEMINI, Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Gemini CLI's run_shell_command returns `status: success` whatever the exit code; its output \
              ends with `Error: (none)`, `Exit Code: N`, `Signal: …` and `Process Group PGID: …` lines. A \
              non-zero `Exit Code` is a hidden failure (benign exits aside).",
        fires_on: &[
            "Command: npm run lint\nDirectory: (root)\nOutput: \n✖ 3 problems\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 16444",
            "Output: fatal: tag 'v1.0.2' already exists\nExit Code: 128\nProcess Group PGID: 12860",
        ],
        ignores: &["Output: ok\nError: (none)\nExit Code: 0\nSignal: (none)", "Exit Code: (none)\nSignal: 15"],
    },
    ContentRule {
        id: "gemini-tool-failure",
        pattern: r"^(?:Command was automatically cancelled because it exceeded the timeout|Error during \w+ search operation: |Error listing directory: |File not found: |Cannot display content of binary file: |Error reading file )",
        tools: &[],
        formats: &[Dialect::GEMINI, Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Gemini CLI results recorded as `success` (or, in a `/chat save` checkpoint, with no status at all) \
              that say the tool failed: a shell command killed by the tool's own inactivity timeout, a grep whose \
              ripgrep process failed, and the readers' own errors (`Error listing directory: ENOENT …`, `File not \
              found: …`, `Cannot display content of binary file: …`).",
        fires_on: &[
            "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. Below is the output before it was cancelled:\n\n> vite preview",
            "Error during grep search operation: Process exited with code 2: regex parse error:",
            "Error listing directory: ENOENT: no such file or directory, stat '/home/u/.config/x/'",
            "Cannot display content of binary file: game/data.bin",
        ],
        ignores: &["Found 3 matches for pattern \"timeout\""],
    },
    ContentRule {
        id: "qwen-tool-failure",
        pattern: r#"^(?:Command timed out after \d+ ?ms before it could complete|Command was cancelled by user before it could (?:complete|start)|Failed to edit, \d+ occurrences? found|Failed to run subagent: |Subagent "[^"]*" not found|Skill "[^"]*" not found|Failed to load skill |Plan execution was not approved|(?:Task|Agent) was cancelled by user|Failed to modify todos|The provided (?:web )?content is empty\b)"#,
        tools: &[],
        formats: &[Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Qwen Code tools that return their failure as ordinary text, so the result is stored with `status: \
              success`: a shell command killed by the tool's time limit or cancelled by the user, an edit that \
              found nothing to replace (0.13), a sub-agent or skill that failed or does not exist, a plan the \
              user did not approve, a todo list that could not be written.",
        fires_on: &[
            "Command timed out after 120000ms before it could complete. Below is the output before it timed out:\nwaiting",
            "Failed to run subagent: Model stream ended with empty response text.",
            "Plan execution was not approved. Remaining in plan mode.",
            "The provided web content is empty. Please supply the actual text from https://example.com so I can summarise it.",
        ],
        ignores: &["Found 2 matches for pattern \"Failed to run subagent\""],
    },
    ContentRule {
        id: "qwen-subagent-no-report",
        pattern: r"\A\s*(?:I'll|I will|Let me|Now let me|Now I'll|First, let me|I'm going to)\b[^\n]{0,240}[.:]\s*\z",
        tools: &["agent", "task"],
        formats: &[Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Qwen Code sub-agent (`agent`, `task`) that ended (`terminateReason: GOAL`, `status: success`) having \
              returned only the sentence announcing what it was about to do (`I'll start by reading the relevant \
              files.`): the delegated work came back with no report.",
        fires_on: &[
            "I'll start by reading all the relevant files to understand the current implementations before applying fixes.",
            "Now let me check the Redis client to understand the available methods:",
        ],
        ignores: &["I'll summarise: the config is in jest.config.ts.\n\nDetails:\n- testMatch covers e2e/"],
    },
    ContentRule {
        id: "background-task-failed",
        pattern: r"(?m)^<status>failed</status>|^<exit_code>[1-9]\d*</exit_code>",
        tools: &[],
        formats: &[Dialect::CLAUDE_CODE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Claude Code's TaskOutput and BashOutput report a background command's end as \
              `<status>failed</status>` and `<exit_code>N</exit_code>` inside a result that is not flagged \
              (`<retrieval_status>success</retrieval_status>`: the retrieval worked, the command did not).",
        fires_on: &[
            "<retrieval_status>success</retrieval_status>\n\n<task_id>b07</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<output>FAIL</output>",
            "<status>completed</status>\n\n<exit_code>2</exit_code>",
        ],
        ignores: &["<status>completed</status>\n\n<exit_code>0</exit_code>", "<status>running</status>"],
    },
    ContentRule {
        id: "claude-api-error",
        pattern: r"^API Error: (?:\d{3}\b|Request timed out|Connection error)",
        tools: &[],
        formats: &[Dialect::CLAUDE_CODE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Claude Code sub-agent (`Task`/`Agent`) whose model request failed returns the API error as its \
              report, unflagged: `API Error: 529 {\"type\":\"error\",…overloaded_error…}`.",
        fires_on: &[
            "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
        ],
        ignores: &["The API Error: 529 handling is described in docs/errors.md"],
    },
    ContentRule {
        id: "crush-command-aborted",
        pattern: r"(?m)^Command was aborted before completion\s*$",
        tools: &["bash"],
        formats: &[Dialect::CRUSH],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Crush's bash tool when the command was interrupted: the exit-code line is replaced by \
              `Command was aborted before completion`, the result is not flagged.",
        fires_on: &["partial output\nCommand was aborted before completion\n\n<cwd>/p</cwd>"],
        ignores: &["The command was not aborted"],
    },
    ContentRule {
        id: "opencode-command-cut",
        pattern: r"(?m)\((?:Command timed out after \d+ ?ms|Command was aborted)\)\s*$|^shell tool terminated command after exceeding timeout \d+",
        tools: &["bash"],
        formats: &[Dialect::OPENCODE, Dialect::KILO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "opencode's bash tool completes (`status = completed`) even when the command timed out or was \
              aborted, and ends the output with `(Command timed out after N ms)` or `(Command was aborted)`; \
              opencode ≥ 1.2 writes `<shell_metadata>` with `shell tool terminated command after exceeding \
              timeout N ms`.",
        fires_on: &[
            "building...\n(Command timed out after 120000 ms)",
            "(Command was aborted)",
            "(no output)\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 120000 ms. If this command is expected to take longer and is not waiting for input, retry with a larger timeout value in milliseconds.\n</shell_metadata>",
        ],
        ignores: &["Command was aborted? no"],
    },
    ContentRule {
        id: "llm-tool-error-output",
        pattern: r"^(?:Error|Cancelled): ",
        tools: &[],
        formats: &[Dialect::LLM],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "llm writes `Error: <exception>` as the output of a tool that raised, and `Cancelled: <reason>` \
              for a call a hook cancelled; the `exception` column (0.27+) is the flag. Without an exception \
              the result is a hidden error.",
        fires_on: &["Error: [Errno 2] No such file or directory: '/datax'", "Cancelled: not allowed"],
        ignores: &["Errors: none", "cancelled 3 jobs"],
    },
    ContentRule {
        id: "peri-tool-execution-failed",
        pattern: PERI_WRAPPER,
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's wrapper for a tool that returned Err: `Tool execution failed: <Tool> - <reason>`.",
        fires_on: &["Tool execution failed: Edit - Error: old_string not found in /a.rs"],
        ignores: &["The tool execution failed earlier, retrying", "Tool execution failed:Edit"],
    },
    ContentRule {
        id: "json-envelope-error",
        pattern: r"^JSON envelope error: ",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A result that is a JSON envelope saying the tool failed: `{\"error\": …}`, `{\"status\": \"error\"}`, \
              `{\"success\": false}`, `{\"isError\": true}` (MCP servers, Roo-style tools). The envelope is \
              presented to the rules as `JSON envelope error: <its message>` (`rules::present`); an envelope \
              `{\"result\": \"…\"}` is judged by its inner text (`{\"result\":\"Error: No active project\"}`). \
              Readers and shells return data, not envelopes.",
        fires_on: &["JSON envelope error: Query failed: Using SOCKS proxy, but the 'socksio' package is not installed"],
        ignores: &["{\"error\": null, \"rows\": []}"],
    },
    ContentRule {
        id: "error-prefix",
        pattern: r"^(?:Error|ERROR):",
        tools: &[],
        formats: &[],
        precision: Precision::Medium,
        reads: Reads::Any,
        doc: "A result that starts with `Error:` or `ERROR:`: the `Ok(\"Error: …\")` shape of the founding postmortem.",
        fires_on: &[
            "Error: please provide subagent_type parameter",
            "ERROR: file not found",
            "  Error: leading whitespace is trimmed",
        ],
        ignores: &[
            "src/lib.rs:12:    return Ok(\"Error: x\")",
            "     1\tError: connection refused",
            "Errors: none",
            "error: lowercase is compiler output, not a tool error",
        ],
    },
    ContentRule {
        id: "tool-use-error",
        pattern: r"^<tool_use_error>",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Claude Code's `<tool_use_error>…</tool_use_error>` envelope.",
        fires_on: &["<tool_use_error>File has not been read yet.</tool_use_error>"],
        ignores: &["see <tool_use_error> in the docs"],
    },
    ContentRule {
        id: "peri-unknown-tool",
        pattern: r"^工具 '[^']+' 不存在",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's dispatcher when the model calls a tool that does not exist: `工具 '<name>' 不存在`.",
        fires_on: &["工具 'Task' 不存在"],
        ignores: &["工具 Task 已完成"],
    },
    ContentRule {
        id: "peri-cross-mark",
        pattern: r"^✗ ",
        tools: &["folder_operations"],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's folder_operations failures before the fix: `✗ Folder not found: …`, `✗ Error: …`.",
        fires_on: &["✗ Folder not found: /tmp/x", "✗ Unknown operation: move"],
        ignores: &["✓ Created folder /tmp/x"],
    },
    ContentRule {
        id: "error-executing-command",
        pattern: r"^Error executing command:",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's Bash spawn failure: `Error executing command: <e>`.",
        fires_on: &["Error executing command: No such file or directory (os error 2)"],
        ignores: &["Executing command: ls"],
    },
    ContentRule {
        id: "peri-missing-parameter",
        pattern: r"^(?:Missing \w+ parameter\b|The '\w+' parameter is required for the \w+ tool|Missing required parameter\b|ExecuteExtraTool: missing required '\w+' parameter)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's missing-argument errors, old and new wording: `Missing file_path parameter`, `The 'file_path' parameter is required for the Read tool.`, `Missing required parameter: query`.",
        fires_on: &[
            "Missing file_path parameter",
            "The 'file_path' parameter is required for the Read tool. Provide the absolute path to the file.",
            "Missing required parameter: query",
            "ExecuteExtraTool: missing required 'params' parameter",
        ],
        ignores: &["Missing files were restored", "The 'file_path' field is optional"],
    },
    ContentRule {
        id: "peri-deferred-tool-not-found",
        pattern: r"^ExecuteExtraTool: tool '[^']*' not found or not registered as a deferred tool",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's ExecuteExtraTool when the named deferred tool does not exist.",
        fires_on: &["ExecuteExtraTool: tool 'cron_lst' not found or not registered as a deferred tool"],
        ignores: &["ExecuteExtraTool: cron_list returned 2 jobs"],
    },
    ContentRule {
        id: "peri-io-error",
        pattern: r"^Error (?:writing file|renaming temp file):",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's Write/Edit I/O failures: `Error writing file: …`, `Error renaming temp file: …`.",
        fires_on: &[
            "Error writing file: Permission denied (os error 13)",
            "Error renaming temp file: Invalid cross-device link",
        ],
        ignores: &["Wrote 12 line(s) src/error.rs"],
    },
    ContentRule {
        id: "peri-path-not-found",
        pattern: r"^(?:Search path does not exist|Folder not found|Path exists but is not a folder|Directory not found): ",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's Grep, Glob and folder_operations path errors.",
        fires_on: &[
            "Search path does not exist: /nope",
            "Folder not found: /tmp/a",
            "Path exists but is not a folder: /etc/hosts",
            "Directory not found: /src2",
        ],
        ignores: &["No files found.", "No matches found."],
    },
    ContentRule {
        id: "peri-unknown-operation",
        pattern: r"^Unknown operation: ",
        tools: &["folder_operations"],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's folder_operations with an operation outside `create`/`list`/`exists`.",
        fires_on: &["Unknown operation: move"],
        ignores: &["Operation create done"],
    },
    ContentRule {
        id: "peri-http-error",
        pattern: r"^(?:(?:Extract|Search) API returned HTTP \d{3}|Extract failed: |Failed to build HTTP client: )",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's WebFetch and WebSearch failures.",
        fires_on: &[
            "Extract API returned HTTP 502: Bad Gateway",
            "Search API returned HTTP 429: slow down",
            "Extract failed: [\"timeout\"]",
            "Failed to build HTTP client: builder error",
        ],
        ignores: &["Search API results: 5 hits"],
    },
    ContentRule {
        id: "peri-invalid-input",
        pattern: r"^(?:TodoWrite: invalid input: |ask_user_question: unexpected response type)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's TodoWrite and AskUserQuestion input errors.",
        fires_on: &["TodoWrite: invalid input: missing field `status`", "ask_user_question: unexpected response type"],
        ignores: &["Todos have been modified successfully."],
    },
    ContentRule {
        id: "peri-agent-infrastructure",
        pattern: r"^(?:Background tasks not available: |Failed to create child thread: )",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's Agent tool when the background registry or the child thread is unavailable.",
        fires_on: &[
            "Background tasks not available: no registry configured",
            "Failed to create child thread: database is locked",
        ],
        ignores: &["[Sub-agent executed 3 tool calls: Read 3 times]"],
    },
    ContentRule {
        id: "peri-lineedit-error",
        pattern: r"^(?:edits 参数解析失败|edits 不能为空|文件不存在: |(?:insert 的 )?start_line 必须 >= 1)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's LineEdit tool (June 2026), whose errors were in Chinese.",
        fires_on: &[
            "edits 参数解析失败: invalid type",
            "edits 不能为空",
            "文件不存在: /a.rs",
            "start_line 必须 >= 1",
            "insert 的 start_line 必须 >= 1",
        ],
        ignores: &["已编辑 3 行"],
    },
    ContentRule {
        id: "peri-rejection",
        pattern: r"^(?:Don't Ask 模式|Auto 模式：)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Peri's built-in permission rejections (`Don't Ask 模式：自动拒绝`, `Auto 模式：分类器拒绝`, …).",
        fires_on: &["Don't Ask 模式：自动拒绝", "Auto 模式：分类器拒绝"],
        ignores: &["Auto mode enabled"],
    },
    ContentRule {
        id: "interrupted-by-user",
        pattern: r"^interrupted by user",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A call cancelled by the user (Ctrl+C).",
        fires_on: &["interrupted by user"],
        ignores: &["the user interrupted by typing"],
    },
    // --- LangGraph (SqliteSaver checkpoints) ----------------------------------
    ContentRule {
        id: "langgraph-toolnode-error",
        pattern: r"(?m)^ ?Please fix your mistakes\.\s*$",
        tools: &[],
        formats: &[Dialect::LANGGRAPH],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "LangGraph's prebuilt ToolNode turns a tool's exception into `Error: <repr(e)>\\n Please fix your \
              mistakes.` with `status = \"error\"`; a custom error handler that keeps the wording but not the \
              status hides it. (`Error: …` from a tool that returns its failure is caught by `error-prefix`.)",
        fires_on: &["Error: ConnectionError('gateway unreachable')\n Please fix your mistakes."],
        ignores: &["Please fix your mistakes in the essay before Friday"],
    },
    // --- OpenAI Agents SDK sessions ------------------------------------------
    ContentRule {
        id: "openai-agents-tool-error",
        pattern: r"^An error occurred while (?:running the tool|parsing tool arguments)\. Please try again",
        tools: &[],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The Agents SDK's default failure function turns a tool's exception (or arguments that did not \
              parse) into an ordinary output: `An error occurred while running the tool. Please try again. \
              Error: …`. Function tools have no error flag, so every such result is hidden.",
        fires_on: &[
            "An error occurred while running the tool. Please try again. Error: HTTPError('502')",
            "An error occurred while parsing tool arguments. Please try again with valid JSON. Error: Expecting ','",
        ],
        ignores: &["An error occurred in the report, see line 3"],
    },
    ContentRule {
        id: "openai-agents-timeout",
        pattern: r"^Tool '[^']+' timed out after [\d.]+ seconds\.",
        tools: &[],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A function tool that exceeded its timeout with the `error_as_result` behaviour: \
              `Tool '<name>' timed out after N seconds.`",
        fires_on: &["Tool 'fetch_page' timed out after 30.0 seconds."],
        ignores: &["Tool 'fetch_page' finished after 3.0 seconds."],
    },
    ContentRule {
        id: "openai-agents-not-approved",
        pattern: r"(?m)^Tool execution was not approved\.",
        tools: &[],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A call a human (or the approval policy) declined: `Tool execution was not approved.` (shell \
              rejections write it to stderr with exit code 1).",
        fires_on: &["Tool execution was not approved."],
        ignores: &["Tool execution was approved."],
    },
    ContentRule {
        id: "openai-agents-error-object",
        pattern: r#"^\{\s*"error"\s*:"#,
        tools: &[],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::Medium,
        reads: Reads::Any,
        doc: "For callers with an output schema the SDK wraps a tool failure as `{\"error\": \"<text>\"}`.",
        fires_on: &[r#"{"error": "An error occurred while running the tool."}"#],
        ignores: &[r#"{"errors": []}"#, r#"{"result": "error"}"#],
    },
    ContentRule {
        id: "openai-agents-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &["shell", "local_shell"],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The shell tool's `outcome.exit_code`, stored apart from the output and presented as this line: \
              a non-zero exit is never flagged. Benign exits (grep finding nothing) are not counted.",
        fires_on: &["Exit code 101"],
        ignores: &["Exit code 0"],
    },
    // --- Zed agent threads ----------------------------------------------------
    ContentRule {
        id: "zed-terminal-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &["terminal"],
        formats: &[Dialect::ZED],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Zed's terminal tool returns success (`is_error = false`) for `Command \"<cmd>\" failed with exit \
              code N.`; the adapter reads N out of that sentence and presents it as this line, so benign exits \
              (grep finding nothing) are not counted.",
        fires_on: &["Exit code 101"],
        ignores: &["Exit code 0"],
    },
    ContentRule {
        id: "zed-terminal-cut",
        pattern: r#"^(?:Command "(?s:.*?)" timed out\.|Command terminated unexpectedly\.|The user stopped this command\.|Command cancelled: user denied )"#,
        tools: &["terminal"],
        formats: &[Dialect::ZED],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Zed's terminal tool also returns success when the command timed out, was killed, was stopped by \
              the user, or when the user refused a sandbox escalation.",
        fires_on: &[
            "Command \"npm run dev\" timed out. Output captured before timeout:\n\n```\nready\n```",
            "Command terminated unexpectedly. Output captured:\n```\n```",
            "The user stopped this command. Output captured before it was stopped:\n```\n```",
            "Command cancelled: user denied permission to run outside the sandbox (network access).",
        ],
        ignores: &["Command executed successfully.", "```\nCommand \"x\" timed out.\n```"],
    },
    // --- Google ADK sessions ---------------------------------------------------
    ContentRule {
        id: "adk-error-response",
        pattern: r#"^\{"error":(?:"|\{)"#,
        tools: &[],
        formats: &[Dialect::ADK],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "ADK answers with an `{\"error\": …}` response (no flag) when a FunctionTool misses mandatory \
              arguments, when an MCP call fails with graceful error handling, and when a confirmation was \
              refused. Responses are shown as compact JSON with sorted keys.",
        fires_on: &[
            r#"{"error":"Invoking `get_weather()` failed as the following mandatory input parameters are not present:\ncity"}"#,
            r#"{"error":"MCP tool execution failed: connection closed"}"#,
        ],
        ignores: &[r#"{"error":null,"result":"ok"}"#, r#"{"result":"error: none"}"#],
    },
    ContentRule {
        id: "adk-status-error",
        pattern: r#"^\{(?:"[^"]*":(?:"(?:[^"\\]|\\.)*"|-?[\d.]+|true|false|null),)*"status":"error""#,
        tools: &[],
        formats: &[Dialect::ADK],
        precision: Precision::Medium,
        reads: Reads::Any,
        doc: "The convention ADK's documentation teaches for tools: return `{\"status\": \"error\", \
              \"error_message\": …}`. ADK stores it as an ordinary response, so every such failure is hidden.",
        fires_on: &[r#"{"error_message":"Weather information for 'Paris' is not available.","status":"error"}"#],
        ignores: &[r#"{"report":"sunny","status":"success"}"#, r#"{"items":[{"status":"error"}],"status":"success"}"#],
    },
    // --- Cursor (experimental) -------------------------------------------------
    ContentRule {
        id: "cursor-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CURSOR],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Cursor's terminal tool records `status: completed` for a command that exited non-zero; the exit \
              status (`exitCodeV2` in the result JSON) is presented as this line. Benign exits (grep finding \
              nothing) are not counted. Experimental: Cursor's storage is reverse-engineered.",
        fires_on: &["Exit code 1"],
        ignores: &["Exit code 0"],
    },
    // --- traces as files: OpenTelemetry, OpenHands, Cline / Roo, Continue ----
    ContentRule {
        id: "openhands-still-running",
        pattern: r"(?m)^\[The command has no new output after \d+ seconds\.",
        tools: &[],
        formats: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "An OpenHands command that printed nothing for the soft wait (exit code -1, still running): \
              `[The command has no new output after 10 seconds. You may wait longer …]`. The call gave the agent \
              nothing; it has to wait, send keys or interrupt.",
        fires_on: &[
            "\n[The command has no new output after 10 seconds. You may wait longer to see additional output by sending empty command '']",
        ],
        ignores: &["[The command completed with exit code 0.]"],
    },
    ContentRule {
        id: "openhands-browser-error",
        pattern: r"(?m)^=+ BEGIN error message =+\s*$|^RootWebArea '[45]\d\d [A-Z][^'\n]*'",
        tools: &[],
        formats: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "OpenHands' browser when the action failed: the page it returns holds a `BEGIN error message` block \
              (`Error: Page.goto: net::ERR_CONNECTION_REFUSED …`), or the page it landed on is a server's error \
              page (`RootWebArea '500 Internal Server Error'`, like `curl` answered 500), and the observation is \
              not flagged.",
        fires_on: &[
            "[Current URL: chrome-error://chromewebdata/]\n\n================ BEGIN error message ===============\nThe following error occurred when executing the last action:\nError: Page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:5000/",
            "[Current URL: http://localhost:8000/api/items]\n\n[Action executed successfully.]\n============== BEGIN accessibility tree ==============\nRootWebArea '502 Bad Gateway', focused, url='http://localhost:8000/api/items'",
        ],
        ignores: &[
            "[Current URL: http://localhost:5000/]\n\n[Action executed successfully.]",
            "RootWebArea 'Top 500 Companies', focused",
        ],
    },
    ContentRule {
        id: "openhands-code-raised",
        pattern: r"(?m)^\w+(?:Error|Exception)\s+Traceback \(most recent call last\)",
        tools: &[],
        formats: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "OpenHands' IPython cell whose code raised: the cell's output is IPython's traceback \
              (`TypeError      Traceback (most recent call last)`), stored as an ordinary observation.",
        fires_on: &[
            "-----\nTypeError                                 Traceback (most recent call last)\nCell In[1], line 9",
        ],
        ignores: &["Out[1]: 42"],
    },
    ContentRule {
        id: "otel-agents-sdk-tool-error",
        pattern: r"^An error occurred while running the tool\. Please try again\. Error: ",
        tools: &[],
        formats: &[Dialect::OTEL],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The OpenAI Agents SDK's default `failure_error_function`: the tool raised, and the model is told so \
              in an ordinary tool output.",
        fires_on: &["An error occurred while running the tool. Please try again. Error: division by zero"],
        ignores: &["An error occurred while running the tool earlier; it works now"],
    },
    ContentRule {
        id: "openhands-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "An OpenHands terminal command that exited non-zero: stored with `is_error: false` and the \
              observation's `exit_code` (shown to the rules as `Exit code N`); its text ends with \
              `[The command completed with exit code N.]`. Exit code -1 (still running or unknown) is not \
              kept, and grep/find/diff exit 1 is benign.",
        fires_on: &["Exit code 101", "Exit code 2"],
        ignores: &["Exit code 0", "Exit code -1", "[The command completed with exit code 1.]"],
    },
    ContentRule {
        id: "cline-tool-failed",
        pattern: r"^(?:The tool execution failed with the following error:|Missing value for required parameter ')",
        tools: &[],
        formats: &[Dialect::CLINE, Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Cline's `toolError` and `missingToolParameterError` texts, which the legacy XML protocol returns \
              with no flag at all.",
        fires_on: &[
            "The tool execution failed with the following error:\n<error>\nENOENT: no such file\n</error>",
            "Missing value for required parameter 'path'. Please retry with complete response.",
        ],
        ignores: &["The tool execution succeeded", "[read_file for 'a'] Result: Missing value"],
    },
    ContentRule {
        id: "cline-command-failed",
        pattern: r"(?m)^Command failed with exit code [1-9]\d*\.?\s*$",
        tools: &[],
        formats: &[Dialect::CLINE, Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Cline's (and Roo Code's) execute_command returns `Command failed with exit code N.` and the \
              output as an ordinary result, with no flag. Searches finding nothing (grep exit 1, no output) \
              are benign.",
        fires_on: &[
            "Command failed with exit code 1.\nOutput:\nThe system cannot find the file specified.",
            "Command failed with exit code 255.\nOutput:\n'head' is not recognized as an internal or external command,",
        ],
        ignores: &["Command executed.\nOutput:\nok", "Command failed with exit code 0."],
    },
    ContentRule {
        id: "cline-subagent-failed",
        pattern: r"(?m)^Subagent results:\s*\n(?:[^\n]*\n){0,4}?Failed: [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CLINE, Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Cline's `use_subagents` reports its sub-agents as one result, `Subagent results:` with `Succeeded: N` \
              and `Failed: N`; one failed sub-agent fails the call, though the result is not flagged.",
        fires_on: &["Subagent results:\nTotal: 5\nSucceeded: 4\nFailed: 1\nTool calls: 99"],
        ignores: &["Subagent results:\nTotal: 2\nSucceeded: 2\nFailed: 0"],
    },
    ContentRule {
        id: "cline-user-denied",
        pattern: r"^The user denied this operation",
        tools: &[],
        formats: &[Dialect::CLINE, Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Cline's `toolDenied` (and `toolDeniedWithFeedback`): the user declined the call.",
        fires_on: &[
            "The user denied this operation.",
            "The user denied this operation and provided the following feedback:\n<feedback>\nno\n</feedback>",
        ],
        ignores: &["The user approved this operation."],
    },
    ContentRule {
        id: "roo-status-error",
        pattern: r#"^\{\s*"status"\s*:\s*"(?:error|denied)""#,
        tools: &[],
        formats: &[Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Roo Code's failure JSON inside an unflagged tool_result: `{\"status\":\"error\",…}` when the tool \
              failed while running, `{\"status\":\"denied\",…}` when the user declined.",
        fires_on: &[
            r#"{"status":"error","message":"The tool execution failed","error":"Error reading file: ENOENT"}"#,
            r#"{"status":"denied","message":"The user denied this operation."}"#,
        ],
        ignores: &[r#"{"status":"ok","content":"x"}"#, r#"{"items":[{"status":"error"}]}"#],
    },
    ContentRule {
        id: "roo-repetition-limit",
        pattern: r"^Tool call repetition limit reached for ",
        tools: &[],
        formats: &[Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Roo Code's guard against a call repeated too often, returned unflagged.",
        fires_on: &["Tool call repetition limit reached for read_file. Please try a different approach."],
        ignores: &["repetition limit not reached"],
    },
    ContentRule {
        id: "copilot-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$|<(?:shellId: \S+ completed|exited|command with (?:shellId|id|sessionId): \S+ exited) with exit code [1-9]\d*>",
        tools: &[],
        formats: &[Dialect::COPILOT],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "GitHub Copilot CLI's shell tools (`bash`, `powershell`, `read_bash`, …) return `success: true` \
              whatever the command's exit status, which is only the text `<shellId: N completed with exit code \
              X>` (1.0.60) or `<exited with exit code X>` (earlier builds). A non-zero status is a hidden \
              failure (grep/find/diff exit 1 and the other benign exits aside).",
        fires_on: &[
            "test result: FAILED. 2 passed; 1 failed\n<shellId: 0 completed with exit code 101>",
            "ls: cannot access 'x': No such file or directory\n<exited with exit code 2>",
            "<command with id: 4 exited with exit code 1>",
        ],
        ignores: &["done\n<shellId: 0 completed with exit code 0>", "<shellId: 2 is still running after 30 seconds>"],
    },
    ContentRule {
        id: "copilot-tool-refused",
        pattern: r"^File too large to read at once \(|(?m)^<error>No more content available\.</error>",
        tools: &[],
        formats: &[Dialect::COPILOT],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Copilot CLI results stored as a success that returned nothing the agent asked for: `view` \
              refusing a file too large to read at once (no content, the agent must retry with `view_range`), \
              and `web_fetch` answering `<error>No more content available.</error>` (an empty body, or a \
              `start_index` past its end).",
        fires_on: &[
            "File too large to read at once (61.2 KB). Consider using the grep tool to search within the file, or view with view_range to read specific sections.",
            "Contents of https://example.com/:\n<error>No more content available.</error>",
        ],
        ignores: &["# Notes\nFile too large to read at once is what the tool says"],
    },
    ContentRule {
        id: "pi-exit-code",
        pattern: r"(?m)^Command exited with code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::PI],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Pi's bash tool ends a command that exited non-zero with `Command exited with code N` (and throws, \
              so pi flags it); grep/find/diff exit 1 and the other benign exits are not failures, though pi \
              flags them.",
        fires_on: &["FAIL test/parse.test.ts\n\nCommand exited with code 1"],
        ignores: &["ok\n\nCommand exited with code 0", "Command timed out after 60 seconds"],
    },
    ContentRule {
        id: "kiro-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::KIRO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Kiro CLI's shell and use_aws tools return `status: success` whatever the command's exit status, \
              kept as `exit_status` beside the output (`exit status: N`; use_aws writes the bare code) and shown \
              to the rules as `Exit code N` (grep/find/diff exit 1 is benign).",
        fires_on: &["Exit code 101", "Exit code 255"],
        ignores: &["Exit code 0", "exit status: 1 is what grep returns"],
    },
    ContentRule {
        id: "kiro-search-error",
        pattern: r#"^\{"error":"#,
        tools: &["glob", "grep"],
        formats: &[Dialect::KIRO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Kiro CLI's glob and grep answer in JSON (`{\"filePaths\": …}`, `{\"numMatches\": …}`); a search \
              that could not run answers `{\"error\": \"Path does not exist: …\"}` or `{\"error\": \"Grep search \
              was cancelled\"}` with `status: success`.",
        fires_on: &[r#"{"error":"Path does not exist: /home/dev/proj/fixtures/2026"}"#],
        ignores: &[
            r#"{"filePaths":[],"totalFiles":0,"truncated":false,"message":"No files found matching pattern: x"}"#,
        ],
    },
    ContentRule {
        id: "aider-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &["shell"],
        formats: &[Dialect::AIDER],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A shell command aider ran that exited non-zero, which aider 0.52 and 0.53 record as `Command 'x' \
              exited with status N` (kept as the exit code and shown to the rules as `Exit code N`; grep exit 1 \
              is benign). Later versions keep no exit status at all.",
        fires_on: &["Exit code 1"],
        ignores: &["Exit code 0", "Ran (aider keeps no command output)"],
    },
    ContentRule {
        id: "aider-shell-error",
        pattern: r"(?m)^(?:Error occurred while running command |Error running command ')",
        tools: &["shell"],
        formats: &[Dialect::AIDER],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A shell command aider agreed to run that could not run: `Error occurred while running command \
              '…': [Errno 2] No such file or directory: …` (0.54 and later), `Error running command '…': …` \
              (0.52 to 0.53).",
        fires_on: &["Error occurred while running command 'make docs': [Errno 2] No such file or directory: 'make'"],
        ignores: &["Ran (aider keeps no command output)"],
    },
    ContentRule {
        id: "continue-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        formats: &[Dialect::CONTINUE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Continue terminal command that resolved `done` with the status `Command failed with exit code N`: \
              the exit code is kept and shown to the rules as `Exit code N` (grep/find/diff exit 1 is benign).",
        fires_on: &["Exit code 1", "Exit code 127"],
        ignores: &["Exit code 0", "Command completed"],
    },
    // --- more agents' own shapes --------------------------------------------
    ContentRule {
        id: "claude-read-past-end",
        pattern: r"^<system-reminder>Warning: the file exists but is shorter than the provided offset",
        tools: &["Read"],
        formats: &[Dialect::CLAUDE_CODE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Claude Code's Read with an `offset` past the end of the file returns no text, only a reminder that \
              the file is shorter, unflagged: nothing was read.",
        fires_on: &[
            "<system-reminder>Warning: the file exists but is shorter than the provided offset (1800). The file has 1524 lines.</system-reminder>",
        ],
        ignores: &[
            "     1\thello\n<system-reminder>Whenever you read a file, consider whether it looks malicious.</system-reminder>",
        ],
    },
    ContentRule {
        id: "openai-agents-handoff-ignored",
        pattern: r"^Multiple handoffs detected, ignoring this one\.",
        tools: &[],
        formats: &[Dialect::OPENAI_AGENTS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The Agents SDK answers every handoff after the first of one turn with `Multiple handoffs detected, \
              ignoring this one.`: the handoff did not happen.",
        fires_on: &["Multiple handoffs detected, ignoring this one."],
        ignores: &["Handoff accepted."],
    },
    ContentRule {
        id: "openhands-command-not-run",
        pattern: r#"(?m)^\[?Your command "(?s:.*?)" is NOT executed\."#,
        tools: &[],
        formats: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "OpenHands refuses a new command while the previous one still runs: `Your command \"…\" is NOT \
              executed. The previous command is still running`, stored as an ordinary observation.",
        fires_on: &[
            "[Your command \"ls\" is NOT executed. The previous command is still running - You CANNOT send new commands until the previous command is completed.]",
        ],
        ignores: &["[The command completed with exit code 0.]"],
    },
    // --- what any tool's own text says (the founding postmortem's case) -----
    ContentRule {
        id: "error-words",
        pattern: r"^(?:Error|ERROR|error)[ \t][^\n:]{1,80}:(?:\s|$)|^(?:[A-Z][A-Za-z]+ ){1,2}[Ee]rror: \S|^(?:Error|ERROR) (?:calling|invoking|executing|running|occurred|in|while|during|when|generating|getting|fetching|creating|processing|reading|writing|loading|sending|connecting|querying|parsing|updating|deleting|listing|saving|retrieving|searching|downloading|uploading)\b",
        tools: &[],
        formats: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that starts with `Error <words>:` or `Error <doing>`: `Error generating image: …`, \
              `Error in send_email: …`, `Error calling tool 'create_pr'`. Not read in a file, a page or a \
              program's output.",
        fires_on: &[
            "Error generating image: quota exceeded",
            "Error in send_email: SMTPServerDisconnected('Connection unexpectedly closed')",
            "Error calling tool 'create_pr'",
            "Error invoking tool 'read_file' with kwargs {} with error:\n path: Field required",
            "Error listing directory: ENOENT: no such file or directory, stat '/p'",
            "Agent error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}",
        ],
        ignores: &["Errors found: none", "Error rate is 0.2% this week", "No error."],
    },
    ContentRule {
        id: "failed-to",
        pattern: r"^(?:Failed to|Unable to|Could not|Couldn't|Cannot|Can't|Can not) \S|^(?:Failed|FAILED|Failure)(?::| with | because | due to )",
        tools: &[],
        formats: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that starts by saying it could not do the thing: `Failed to …`, `Unable to …`, \
              `Could not …`, `Cannot …`, `Failed: …`.",
        fires_on: &[
            "Failed to send email: SMTPServerDisconnected('Connection unexpectedly closed')",
            "Failed to generate synthesis: 404 Not Found",
            "Unable to determine the user's timezone",
            "Could not connect to the database",
            "Cannot find module 'express'",
            "Failed: quota exceeded",
        ],
        ignores: &["Failures: 0", "Could you confirm the date?", "Unable-to-pay accounts: 3"],
    },
    ContentRule {
        id: "failed-with-status",
        pattern: r"^[^\n]{0,120}?\b(?:failed|failure|errored|error)\b[^\n]{0,40}?\b(?:status|status code|code|HTTP)\s*[:=]?\s*[45]\d\d\b",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A first line that says the request failed with an HTTP error status: `Notification trigger failed with \
              status: 429`, `Request failed with status code 404`.",
        fires_on: &["Notification trigger failed with status: 429", "Request failed with status code 404"],
        ignores: &["Notification sent with status: 200", "Checked 429 items; none failed"],
    },
    ContentRule {
        id: "exception-raised",
        pattern: r"^(?:Traceback \(most recent call last\):|(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failure|Fault)(?::\s|\()|[A-Z]\w+Exception\s*$|[A-Z]\w*(?:Disconnected|Timeout|Refused|Denied|Exceeded|Aborted|Interrupted|NotFound|Unavailable)\()",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool's result that is an exception: a traceback, `XxxError: …`, `XxxException(…)`, a repr such as \
              `SMTPServerDisconnected('…')`. The tool raised, and its framework handed the exception to the model \
              as an ordinary result.",
        fires_on: &[
            "Traceback (most recent call last):\n  File \"tool.py\", line 3, in run\nKeyError: 'name'",
            "HTTPError: 503 Server Error: Service Unavailable for url: https://api.example.com",
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443)",
            "SMTPServerDisconnected('Connection unexpectedly closed')",
            "ValueError: invalid literal for int() with base 10: 'x'",
            "TimeoutException",
        ],
        ignores: &["ErrorBoundary component added", "Exception handling is described below", "NoError"],
    },
    ContentRule {
        id: "http-error-status",
        pattern: r"^(?:HTTP/\d(?:\.\d)?\s+)?[45]\d\d\s*(?:[-:]\s*)?(?:Client Error|Server Error|Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Not Acceptable|Request Timeout|Conflict|Gone|Precondition Failed|Payload Too Large|Unsupported Media Type|Unprocessable (?:Entity|Content)|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)\b|^(?:HTTP |HTTP error |Error |ERROR |error )\(?[45]\d\d\b|^(?:Status|HTTP status|Status code):?\s*[45]\d\d\b",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that is an HTTP error status: `404 Client Error: Not Found for url: …`, \
              `HTTP/1.1 503 Service Unavailable`, `Error 429: …`, `Status: 500`.",
        fires_on: &[
            "404 Client Error: Not Found for url: https://api.example.com/v1/x",
            "HTTP/1.1 503 Service Unavailable",
            "Error 429: rate limited",
            "Status: 500",
        ],
        ignores: &["200 OK", "404 pages indexed", "Status: 200"],
    },
    ContentRule {
        id: "error-heading",
        pattern: r"^#{1,6}[ \t]*(?:[^\w\s]{1,3}[ \t]*)?(?:Error|ERROR|Errors|Failed|Failure|FAILED)\b",
        tools: &[],
        formats: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's Markdown verdict whose first heading says it failed: `### Error Querying the database`, \
              `## ❌ Failed to deploy`.",
        fires_on: &["### Error Querying the database\n\nsyntax error at or near \"FROM\"", "## ❌ Failed to deploy"],
        ignores: &["## Results\n\n3 rows", "### Summary"],
    },
    ContentRule {
        id: "error-words-i18n",
        pattern: r"^(?:错误|錯誤|失败|失敗|异常|異常|出错|出錯|エラー|오류|에러|실패|Fehler|FEHLER|Erreur|ERREUR|Échec|Echec|Erro|ERRO|Falha|Fallo|Falló)(?:[:：\s!！]|$)|^[^\n]{0,40}?(?:失败|失敗|出错|出錯|に失敗しました|できませんでした|실패했습니다|할 수 없습니다|fehlgeschlagen|a échoué|ha fallado|falhou)|^(?:Impossible de|Konnte nicht|Kann nicht|No se (?:pudo|puede)|Não foi possível|Não é possível|Error al|Error en) |^[^\n]{0,40}?不存在",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "The same failure wording in the languages agents' users write: Chinese (`错误: …`, `SQL执行失败: …`, \
              `文件 X 不存在`), Japanese (`エラー: …`, `…に失敗しました`), Korean (`오류: …`, `…실패했습니다`), German \
              (`Fehler: …`, `… fehlgeschlagen`), French (`Erreur : …`, `Impossible de …`), Spanish (`Error al …`, \
              `No se pudo …`) and Portuguese (`Erro: …`, `Não foi possível …`).",
        fires_on: &[
            "错误: 文件 a.txt 不存在。",
            "SQL执行失败: syntax error near FROM",
            "查询失败",
            "エラー: ファイルが見つかりません",
            "ファイルの読み込みに失敗しました",
            "오류: 파일을 찾을 수 없습니다",
            "Fehler: Datei nicht gefunden",
            "Erreur : fichier introuvable",
            "Impossible de se connecter au serveur",
            "No se pudo conectar con la base de datos",
            "Não foi possível enviar o e-mail",
        ],
        ignores: &["没有错误，全部完成", "成功: 已写入 3 行", "Fehlerfrei abgeschlossen", "Erreurs corrigées: 2"],
    },
    ContentRule {
        id: "agent-prose-failure",
        pattern: r"^(?:I'm sorry|I am sorry|I apologi[sz]e|Sorry|Unfortunately)\b[^\n]{0,160}?\b(?:error|errors|unable|not able|wasn't able|couldn't|could not|cannot|can't|failed)\b|^(?:It (?:looks|seems) like )?[Tt]here (?:was|has been) an? (?:error|issue|problem)\b|^An? (?:unexpected )?(?:error|issue|problem) (?:occurred|has occurred|was encountered|happened)\b|^I (?:encountered|ran into|hit|got|received) an? (?:error|exception|issue|problem)\b|^I (?:cannot|can't|am unable to|was unable to|wasn't able to|was not able to|couldn't|could not|am not able to) (?:fulfill|complete|retrieve|fetch|access|obtain|provide|perform|process|connect|load|execute|run|proceed)\b",
        tools: &[],
        formats: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A sub-agent used as a tool that reports, in its first sentence, that it failed: `An error occurred \
              while retrieving …`, `I encountered an error …`, `I'm sorry, but I wasn't able to …`, `I cannot \
              fulfill this request …`. Only the opening counts: an answer that mentions a problem later, or says it \
              found no problem (`I couldn't find any issues`), is an answer (docs/rules.md, where the line falls).",
        fires_on: &[
            "An error occurred while retrieving the market data. Please try again later.",
            "I encountered an error while fetching the stock price.",
            "I'm sorry, but I wasn't able to retrieve the current price.",
            "I cannot fulfill this request using the available tools.",
            "It looks like there was an error with the request.",
            "I was not able to retrieve the 52-week range.",
        ],
        ignores: &[
            "I couldn't find any issues in the code; it looks correct.",
            "Sorry for the wait, here are the results.",
            "There was an increase in sales in March.",
            "I need the stock ticker to continue. Could you provide it?",
        ],
    },
    ContentRule {
        id: "unawaited-coroutine",
        pattern: r"^<coroutine object [\w.<>]+ at 0x[0-9a-fA-F]+>\s*$",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A Python tool that returned a coroutine it never awaited (`<coroutine object f at 0x…>`): the tool \
              did nothing and its framework passed the object's repr on as the result.",
        fires_on: &["<coroutine object _resolve_symbol at 0x7f1c2b3d4e50>"],
        ignores: &["<result>AAPL</result>"],
    },
    ContentRule {
        id: "http-error-reply",
        pattern: r"^HTTP error reply: ",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::HttpReplies,
        doc: "`curl` or `wget` exits 0 when the server answered, whatever it answered: a reply that is an error \
              (`{\"error\":\"Unauthorized\"}`, `{\"detail\":\"Not Found\"}`, a `HTTP/1.1 404` status line, an HTML \
              error page) means the request failed (`rules::http`).",
        fires_on: &[
            "{\"error\":\"Unauthorized\"}",
            "{\"detail\":\"Not Found\"}",
            "HTTP/1.1 503 Service Unavailable\nRetry-After: 30",
        ],
        ignores: &["{\"status\":\"ok\"}", "HTTP/1.1 201 Created"],
    },
    // --- shell pipelines whose status is the last command's -----------------
    ContentRule {
        id: "masked-command-error",
        pattern: r"(?m)^(?:[\w./-]+: (?:line \d+: )?)?(?:[^\n:]{1,200}: )?(?:No such file or directory|Permission denied|command not found)\s*$|^(?:zsh|bash|sh|\(eval\):\d+): command not found: \S+\s*$",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A command of a pipeline (`grep KEY .env | head -1`) whose own error reached the output (`grep: .env: \
              No such file or directory`, `zsh: command not found: timeout`) while the pipeline's status, the last \
              command's, says success (`rules::masked`).",
        fires_on: &["grep: .env.local: No such file or directory", "(eval):1: command not found: timeout"],
        ignores: &["src/a.rs:12: // No such file or directory is handled here\nok", "found 3 files"],
    },
    ContentRule {
        id: "shell-syntax-error",
        pattern: SHELL_PARSE_ERROR,
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "The shell could not parse the call's command line (`bash: syntax error near unexpected token \
              `('`): part of what the agent wrote never ran, while the status, that of the last command that \
              did run (`echo done`), says success.",
        fires_on: &[
            "  File \"<string>\", line 7\nSyntaxError: unterminated string literal\nbash: syntax error near unexpected token `('\ndone",
        ],
        ignores: &["src/parse.rs: // reports `syntax error near unexpected token`\nok"],
    },
    ContentRule {
        id: "powershell-error-record",
        pattern: r"(?m)^[A-Za-z][\w-]*: ?\r?\nLine \|\r?\n +\d+ \| ",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::ShellOutput,
        doc: "PowerShell 7's error record (`Get-ChildItem: ` then `Line |`, the failing line and its message): \
              a cmdlet failed. Such errors do not stop the script, so the exit status stays 0 and the tool \
              reports success; only the record in the output says the command did not do what was asked.",
        fires_on: &[
            "Get-ChildItem: \nLine |\n   2 |  $src = Get-ChildItem -Path \"x\"\n     |         ~~~~~~~~~~\n     | Cannot find path 'x' because it does not exist.\n<exited with exit code 0>",
        ],
        ignores: &["Line | 2 is fine\nok", "Get-ChildItem: listing\nLine one"],
    },
    ContentRule {
        id: "shell-job-exited",
        pattern: r"(?m)^\[\d+\][+-]?\s+(?:Exit [1-9]\d*|Killed|Segmentation fault|Aborted)\s",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "bash's job control reporting that a command the call started in the background died \
              (`[7]+ Exit 127 npm run dev > log 2>&1`), while the call itself returned 0: what it started failed.",
        fires_on: &["[7] 9385\n[7]+ Exit 127 cd /w/app && npm run dev > frontend.log 2>&1"],
        ignores: &["[7] 9385\n[7]+ Done npm run build", "[1]+ Running npm run dev &"],
    },
    ContentRule {
        id: "sole-error-output",
        pattern: super::masked::SOLE_ERROR,
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A command whose whole output (one or two lines, the tool's framing aside) is its own error report \
              (`Error: read ECONNRESET`, `fatal: not a git repository`) while its status says success: it caught \
              the failure, printed it and exited 0. A script that printed an error and went on is not judged by \
              it (`rules::masked`).",
        fires_on: &[
            "Command executed successfully (exit code 0).\nOutput:\nError: read ECONNRESET",
            "查询失败",
            "lstat /home/u/.bridgestan/: no such file or directory\n\n<cwd>/home/u</cwd>",
        ],
        ignores: &["Output: ok\nError: (none)\nExit Code: 0"],
    },
    ContentRule {
        id: "masked-program-error",
        pattern: r"(?m)^(?:[\w./@-]+: )?(?:error|Error|ERROR|fatal|Fatal|FATAL)(?:\[[\w-]+\])?:[ \t]*[^(\s]|^FATAL ERROR: |^npm (?:ERR!|error) |^Traceback \(most recent call last\):|^[^\n]*\berror TS\d+: |^error\[E\d{4}\]|^[^\n]*\bSyntaxError: |^(?:FAILED|FAIL) |^test result: FAILED|^Tests?: +\d+ failed|^✖ \d+ problems? \([1-9]\d* errors?,",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A build, install, deploy or test command piped into a filter (`npm run build 2>&1 | tail -50`) whose \
              output shows that it failed (`Error: …`, `error TS2307: …`, `FATAL ERROR: … heap out of memory`, \
              `test result: FAILED`) while the pipeline's status, the filter's, says success. Commands that read \
              data (grep, cat, logs) are not judged by the lines they print (`rules::masked`).",
        fires_on: &[
            "Vercel CLI 48.1.7\nError: You cannot set your Personal Account as the scope.",
            "app/a.tsx(6,30): error TS2307: Cannot find module '@/lib/x'",
            "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory",
            "src/app.ts\n  4:7  error  'x' is assigned a value but never used  no-unused-vars\n✖ 1 problem (1 error, 0 warnings)",
        ],
        ignores: &[
            "warning: unused variable `x`\n    Finished `dev` profile",
            "0 errors, 2 warnings",
            "✖ 2 problems (0 errors, 2 warnings)",
            "Stdout: 2\n\nStderr: (empty)\nError: (none)\nExit Code: 0",
        ],
    },
];
