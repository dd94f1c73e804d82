//! Content rules, in registry order: the coding agents' own error strings (Codex, Claude Code, Gemini CLI, Peri, …).

use super::{ContentRule, PERI_WRAPPER};
use crate::model::Dialect;
use crate::rules::{Precision, Reads};

pub(super) const RULES: &[ContentRule] = &[
    ContentRule {
        id: "codex-process-exited",
        pattern: r"(?m)^Process exited with code -?[1-9]\d*\s*$",
        tools: &[],
        dialects: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's unified exec (`exec_command`) returns success whatever the exit code; a non-zero exit is \
              only the line `Process exited with code N`. Benign exits (grep finding nothing) do not count.",
        fires_on: &["Chunk ID: 7\nWall time: 0.4 seconds\nProcess exited with code 1\nOutput:\nFAIL"],
        ignores: &["Process exited with code 0", "Process running with session ID 3"],
    },
    ContentRule {
        id: "codex-exit-code",
        pattern: r"(?m)^Exit code:? -?[1-9]\d*\s*$",
        tools: &[],
        dialects: &[Dialect::CODEX],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Codex's shell output with a non-zero `Exit code: N` line, or the JSON output's \
              `metadata.exit_code` (presented as `Exit code N`). Codex writes no success flag, so \
              every such result is hidden from anything that reads flags. A negative code is a Windows \
              process that crashed (an NTSTATUS such as 0xC0000005, access violation, read as a signed \
              32-bit number: -1073741819), and fails as any non-zero one does.",
        fires_on: &[
            "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom",
            "Exit code 1",
            "Exit code: -1073741819\nWall time: 0.4 seconds\nOutput:\nFatal error. Internal CLR error. (0x80131506)",
        ],
        ignores: &["Exit code: 0\nWall time: 0.1 seconds", "Exit code: -0"],
    },
    ContentRule {
        id: "codex-apply-patch-failed",
        pattern: r"^(?:apply_patch verification failed: |error: (?:Failed to find expected lines in |invalid hunk at line \d+))",
        tools: &[],
        dialects: &[Dialect::CODEX],
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
        dialects: &[Dialect::CODEX],
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
        dialects: &[Dialect::CODEX],
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
        dialects: &[Dialect::CODEX],
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
        dialects: &[Dialect::CRUSH, Dialect::OPENCODE, Dialect::KILO],
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
        pattern: r"(?m)^Exit Code: -?[1-9]\d*\s*$|(?m)^Exit Code: \(none\)\nSignal: (?:9|SIGKILL)\s*$|\ACommand exited with code: -?[1-9]\d*\s*\z",
        tools: &[],
        dialects: &[Dialect::GEMINI, Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Gemini CLI's run_shell_command returns `status: success` whatever the exit code; its output \
              ends with `Error: (none)`, `Exit Code: N`, `Signal: …` and `Process Group PGID: …` lines. A \
              non-zero `Exit Code` is a hidden failure (benign exits aside), and so is a command killed by \
              `Signal: 9` (SIGKILL: the kernel's out-of-memory killer or a limit; a SIGTERM may be the \
              agent's own stop of a server, so it stays a success). A headless run's `stream-json` output \
              shows the tool's display text instead, which for a command that printed nothing and failed is \
              `Command exited with code: N` (tools/shell.ts).",
        fires_on: &[
            "Command: npm run lint\nDirectory: (root)\nOutput: \n✖ 3 problems\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 16444",
            "Output: fatal: tag 'v1.0.2' already exists\nExit Code: 128\nProcess Group PGID: 12860",
            "Output: loading\nError: (none)\nExit Code: (none)\nSignal: 9\nProcess Group PGID: 881",
            "Command exited with code: 2",
        ],
        ignores: &[
            "Output: ok\nError: (none)\nExit Code: 0\nSignal: (none)",
            "Exit Code: (none)\nSignal: 15",
            "the log said: Command exited with code: 1",
        ],
    },
    ContentRule {
        id: "gemini-tool-failure",
        pattern: r"^(?:Command was automatically cancelled because it exceeded the timeout|Request failed with status [45]\d\d\nHeaders: |Error during \w+ search operation: |Error listing directory: |File not found: |Cannot display content of binary file: |Error reading file )",
        tools: &[],
        dialects: &[Dialect::GEMINI, Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Gemini CLI results recorded as `success` (or, in a `/chat save` checkpoint, with no status at all) \
              that say the tool failed: a shell command killed by the tool's own inactivity timeout, a grep whose \
              ripgrep process failed, and the readers' own errors (`Error listing directory: ENOENT …`, `File not \
              found: …`, `Cannot display content of binary file: …`), and `web_fetch`'s direct fetch of a page that \
              answered an error status (`Request failed with status 404` with the headers and body; \
              tools/web-fetch.js).",
        fires_on: &[
            "Request failed with status 404\nHeaders: {\n  \"content-type\": \"application/json\"\n}\nResponse: {\"error\":\"not_found\"}",
            "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. Below is the output before it was cancelled:\n\n> vite preview",
            "Error during grep search operation: Process exited with code 2: regex parse error:",
            "Error listing directory: ENOENT: no such file or directory, stat '/home/u/.config/x/'",
            "Cannot display content of binary file: game/data.bin",
        ],
        ignores: &["Found 3 matches for pattern \"timeout\""],
    },
    ContentRule {
        id: "gemini-subagent-stopped",
        pattern: r"^(?:Subagent '[^'\n]{1,100}'|Browser agent) finished\.\nTermination Reason: (?:ERROR|TIMEOUT|MAX_TURNS|ABORTED|ERROR_NO_COMPLETE_TASK_CALL)\b|\A(?:Subagent '[^'\n]{1,100}'|Browser agent) failed\. Error: ",
        tools: &[],
        dialects: &[Dialect::GEMINI],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Gemini CLI sub-agent (`invoke_agent`, `codebase_investigator`, `generalist`, the browser agent) that \
              did not finish its task. The tool answers `Subagent '<name>' finished.` then `Termination Reason: <mode>` \
              (agents/local-invocation.ts), stored as a success whatever the mode: `ERROR`, `TIMEOUT`, `MAX_TURNS`, \
              `ABORTED` or `ERROR_NO_COMPLETE_TASK_CALL` (agents/types.ts `AgentTerminateMode`) mean the task was \
              cut. A run that hit a limit and then answered in the executor's grace turn is reported as `GOAL`; \
              whether it did the task is for its answer to say, so `GOAL` never fires here. A run that threw \
              answers `Subagent '<name>' failed. Error: <message>` (the invocation's `catch`), also a success.",
        fires_on: &[
            "Subagent 'codebase_investigator' finished.\nTermination Reason: MAX_TURNS\nResult:\nAgent reached max turns limit (15).",
            "Subagent 'generalist' finished.\nTermination Reason: TIMEOUT\nResult:\nAgent timed out after 10 minutes.",
            "Browser agent finished.\nTermination Reason: ERROR_NO_COMPLETE_TASK_CALL\nResult:\nAgent stopped calling tools but did not call 'complete_task'.",
            "Subagent 'generalist' failed. Error: Model stream ended unexpectedly",
        ],
        ignores: &[
            "Subagent 'generalist' finished.\nTermination Reason: GOAL\nResult:\n{\n  \"response\": \"Renamed all 14 identifiers and updated the headers.\"\n}",
            "Subagent 'cli_help' finished.\nTermination Reason: GOAL\nResult:\n{\"answer\": \"Use --scope workspace.\\n\\nNote: my investigation was interrupted by the turn limit, but the docs confirm it.\"}",
        ],
    },
    ContentRule {
        id: "qwen-tool-failure",
        pattern: r#"^(?:Command timed out after \d+ ?ms before it could complete|Search did not complete for pattern |Web search is disabled because |Subagent execution failed\.|Please specify where to save this memory|LSP [\w-]+ (?:is unavailable \(|failed: )|[\w.]+ is required for this operation\.\s*\z|Command was cancelled by user before it could (?:complete|start)|Failed to edit, \d+ occurrences? found|Failed to run subagent: |Subagent failed: [A-Z_]+\s*\z|Subagent "[^"]*" not found|Skill "[^"]*" not found|Failed to load skill |Plan execution was not approved|(?:Task|Agent) was cancelled by user|Failed to modify todos|The provided (?:web )?content is empty\b)"#,
        tools: &[],
        dialects: &[Dialect::QWEN],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Qwen Code tools that return their failure as ordinary text, so the result is stored with `status: \
              success`: a shell command killed by the tool's time limit or cancelled by the user, an edit that \
              found nothing to replace (0.13), a sub-agent or skill that failed or does not exist, a plan the \
              user did not approve, a todo list that could not be written; a search whose ripgrep process \
              failed before it finished (`Search did not complete for pattern …`), web search without its key, \
              a sub-agent whose run failed (0.24), a memory that asks where to be saved, and the LSP tool's \
              own failures (QwenLM/qwen-code packages/core/src/tools: ripGrep.ts, web-search, agent, \
              memoryTool.ts, lsp.ts).",
        fires_on: &[
            "Search did not complete for pattern \"x\" in path \"src\". No valid matches were returned; do not treat this as no matches. Error: Command failed: rg",
            "LSP hover is unavailable (LSP disabled or not initialized).",
            "character is required for this operation.",
            "Command timed out after 120000ms before it could complete. Below is the output before it timed out:\nwaiting",
            "Failed to run subagent: Model stream ended with empty response text.",
            "Subagent failed: MAX_TURNS",
            "Plan execution was not approved. Remaining in plan mode.",
            "The provided web content is empty. Please supply the actual text from https://example.com so I can summarise it.",
        ],
        ignores: &[
            "Found 2 matches for pattern \"Failed to run subagent\"",
            "A token is required for this operation.\nHere is how to create one: …",
        ],
    },
    ContentRule {
        id: "qwen-subagent-no-report",
        pattern: crate::rules::table::QWEN_SUBAGENT_NO_REPORT,
        tools: &["agent", "task"],
        dialects: &[Dialect::QWEN],
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
        dialects: &[Dialect::CLAUDE_CODE],
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
        dialects: &[Dialect::CLAUDE_CODE],
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
        id: "claude-plan-limit",
        pattern: r"^(?:You've hit your (?:[A-Za-z-]+ )?limit\b|You're out of extra usage\b|Claude AI usage limit reached\b|Claude usage limit reached\.|API Error: Rate limit reached\b|(?:Spending cap|(?:5-hour|Weekly|Opus weekly|Usage) limit) reached\b|Limit reached –)",
        tools: &["Task", "Agent"],
        dialects: &[Dialect::CLAUDE_CODE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Claude Code sub-agent (`Task`/`Agent`) stopped by the plan's limit reports the CLI's own notice \
              as its whole answer, unflagged: 2.x `You've hit your limit · resets 3pm` (and its `session`, \
              `weekly`, `Opus` variants, `You're out of extra usage`), 1.0's `Claude AI usage limit \
              reached|<reset>` and `5-hour limit reached ∙ resets …`, and `API Error: Rate limit reached` \
              (@anthropic-ai/claude-code cli.js). The delegated task was not done.",
        fires_on: &[
            "You've hit your limit · resets 3pm (Europe/Oslo)",
            "You've hit your weekly limit · resets Dec 9, 5pm",
            "Claude AI usage limit reached|1764950400",
            "5-hour limit reached ∙ resets 11pm",
            "API Error: Rate limit reached",
        ],
        ignores: &["I checked the quota: You've hit your limit only if usage exceeds 80%.", "Limits reached: none"],
    },
    // Crush's multiedit when some of its edits did not apply: the others
    // are written and the result is a success (internal/agent/tools/
    // multiedit.go, `Applied %d of %d edits to file: %s (%d edit(s)
    // failed)`).
    ContentRule {
        id: "crush-multiedit-partly-failed",
        pattern: r"\AApplied \d+ of \d+ edits to file: [^\n]*\(\d+ edit\(s\) failed\)",
        tools: &[],
        dialects: &[Dialect::CRUSH],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Crush's multiedit when some edits did not apply: it writes the others and answers `Applied N of M \
              edits to file: <path> (K edit(s) failed)` unflagged (internal/agent/tools/multiedit.go). The \
              edits asked for were not all made.",
        fires_on: &["Applied 2 of 3 edits to file: /home/u/app/main.go (1 edit(s) failed)"],
        ignores: &["Applied 3 edits to file: /home/u/app/main.go"],
    },
    ContentRule {
        id: "crush-command-aborted",
        pattern: r"(?m)^Command was aborted before completion\s*$",
        tools: &["bash"],
        dialects: &[Dialect::CRUSH],
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
        dialects: &[Dialect::OPENCODE, Dialect::KILO],
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
        dialects: &[Dialect::LLM],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
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
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A call cancelled by the user (Ctrl+C).",
        fires_on: &["interrupted by user"],
        ignores: &["the user interrupted by typing"],
    },
];
