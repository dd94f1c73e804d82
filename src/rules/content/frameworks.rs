//! Content rules, in registry order: agent frameworks and traces as files (LangGraph, OpenAI Agents SDK, Zed, ADK, Cursor, OTel, OpenHands, Cline / Roo, Continue) and more agents' own shapes.

use super::ContentRule;
use crate::model::Dialect;
use crate::rules::{Precision, Reads};

pub(super) const RULES: &[ContentRule] = &[
    // --- LangGraph (SqliteSaver checkpoints) ----------------------------------
    ContentRule {
        id: "langgraph-toolnode-error",
        pattern: r"(?m)^ ?Please fix your mistakes\.\s*$",
        tools: &[],
        dialects: &[Dialect::LANGGRAPH],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "LangGraph's prebuilt ToolNode turns a tool's exception into `Error: <repr(e)>\\n Please fix your \
              mistakes.` with `status = \"error\"`; a custom error handler that keeps the wording but not the \
              status hides it. (`Error: …` from a tool that returns its failure is caught by `error-prefix`.)",
        fires_on: &["Error: ConnectionError('gateway unreachable')\n Please fix your mistakes."],
        ignores: &["Please fix your mistakes in the essay before Friday"],
    },
    ContentRule {
        id: "langchain-invalid-tool",
        pattern: r"\A(?:Error: )?[\w.:-]+ is not a valid tool, try one of \[[^\n]*\]\.?\s*\z",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "LangChain's `InvalidTool` (langchain `agents/tools.py`, the AgentExecutor's answer to a tool name \
              it does not have) and LangGraph's ToolNode (`INVALID_TOOL_NAME_ERROR_TEMPLATE`) answer `<name> is \
              not a valid tool, try one of [a, b].` as an ordinary tool result, in whichever store keeps the \
              run: the call named a tool that does not exist.",
        fires_on: &[
            "reserve_table is not a valid tool, try one of [search_flights, book_flight].",
            "Error: get_wether is not a valid tool, try one of [get_weather].",
        ],
        ignores: &["`get_weather` is not a valid tool name in v1; try one of [get_weather_v2] after upgrading.\nDone."],
    },
    ContentRule {
        id: "agent-run-stopped",
        pattern: r"\A\s*(?:Agent stopped due to (?:iteration limit or time limit|max iterations)|(?:agents\.exceptions\.)?(?:MaxTurnsExceeded: )?Max turns \(\d+\) exceeded)\.?\s*\z",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "An agent run as a tool that stopped at its limit before it answered: LangChain's AgentExecutor \
              (and CrewAI, whose agents run in it) returns `Agent stopped due to iteration limit or time \
              limit.` as the agent's output when `max_iterations` or `max_execution_time` ends the loop \
              (`agents/agent.py`, `return_stopped_response`; `Agent stopped due to max iterations.` in older \
              releases); the OpenAI Agents SDK raises `MaxTurnsExceeded(\"Max turns (10) exceeded\")` \
              (`run.py`), whose text a caller that catches it hands back. Either is the whole answer of the \
              delegating call, stored as a success: the delegated task was not done.",
        fires_on: &[
            "Agent stopped due to iteration limit or time limit.",
            "Agent stopped due to max iterations.",
            "Max turns (10) exceeded",
            "agents.exceptions.MaxTurnsExceeded: Max turns (25) exceeded",
        ],
        ignores: &[
            "The report says: Agent stopped due to iteration limit or time limit. We raised max_iterations to 30 and it finished.",
            "Max turns (10) exceeded on the first try; the retry with 20 turns returned 4 results.",
        ],
    },
    // --- OpenAI Agents SDK sessions ------------------------------------------
    ContentRule {
        id: "openai-agents-tool-error",
        pattern: r"^An error occurred while (?:running the tool|parsing tool arguments)\. Please try again",
        tools: &[],
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::ZED],
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
        dialects: &[Dialect::ZED],
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
        id: "adk-status-error",
        pattern: r#"^\{(?:"[^"]*":(?:"(?:[^"\\]|\\.)*"|-?[\d.]+|true|false|null),)*"status":"error""#,
        tools: &[],
        dialects: &[Dialect::ADK],
        precision: Precision::Medium,
        reads: Reads::Any,
        doc: "The convention ADK's documentation teaches for tools: return `{\"status\": \"error\", \
              \"error_message\": …}`. ADK stores it as an ordinary response, so every such failure is hidden.",
        fires_on: &[r#"{"error_message":"Weather information for 'Paris' is not available.","status":"error"}"#],
        ignores: &[r#"{"report":"sunny","status":"success"}"#, r#"{"items":[{"status":"error"}],"status":"success"}"#],
    },
    ContentRule {
        id: "adk-handoff-failed",
        pattern: r"\A[^{\s]",
        tools: &["transfer_to_agent"],
        dialects: &[Dialect::ADK],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "ADK's `transfer_to_agent` returns nothing (`{\"result\": null}`); the agent it names runs next in \
              the same invocation. When that agent's first event holds only an `error_message` (a \
              `RemoteA2aAgent` that could not reach its server: `A2A request failed: HTTP Error 503 …`, \
              `Failed to initialize remote A2A agent …`, google/adk-python agents/remote_a2a_agent.py; a model \
              error), or carries the A2A task it got back ended `failed` or `rejected` (`a2a:response` in its \
              `custom_metadata`; the A2A specification's `TaskState`), the ADK reader gives the transfer that \
              message as its result: the delegated task was not done (LABELS.md). So does a transfer of \
              several answered in one event that ADK did not carry out (its merged `actions` name another \
              agent; flows/llm_flows/functions.py). Any other text of a transfer is such a message.",
        fires_on: &[
            "A2A request failed: HTTP Error 503: Network communication error: All connection attempts failed",
            "Failed to initialize remote A2A agent billing: Failed to resolve AgentCard from URL http://10.0.0.5:5000/.well-known/agent-card.json: HTTP Error 503",
        ],
        ignores: &["{\"result\": null}", "{}"],
    },
    // --- Cursor (experimental) -------------------------------------------------
    ContentRule {
        id: "cursor-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$",
        tools: &[],
        dialects: &[Dialect::CURSOR],
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
        dialects: &[Dialect::OPENHANDS],
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
        dialects: &[Dialect::OPENHANDS],
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
        dialects: &[Dialect::OPENHANDS],
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
        dialects: &[Dialect::OTEL],
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
        dialects: &[Dialect::OPENHANDS],
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
        dialects: &[Dialect::CLINE, Dialect::ROO],
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
        dialects: &[Dialect::CLINE, Dialect::ROO],
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
        dialects: &[Dialect::CLINE, Dialect::ROO],
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
        dialects: &[Dialect::CLINE, Dialect::ROO],
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
        dialects: &[Dialect::ROO],
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
        dialects: &[Dialect::ROO],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Roo Code's guard against a call repeated too often, returned unflagged.",
        fires_on: &["Tool call repetition limit reached for read_file. Please try a different approach."],
        ignores: &["repetition limit not reached"],
    },
    ContentRule {
        id: "copilot-harness-wait",
        pattern: r"(?m)^<waiting for command with (?:sessionId|shellId): \S+ to exit timed out after \d+ seconds",
        tools: &["bash", "powershell"],
        dialects: &[Dialect::COPILOT],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "GitHub Copilot CLI's shell tools give up on a command at their time limit and answer `<waiting \
              for command with sessionId: S to exit timed out after N seconds. …>` after what it printed, \
              unflagged: the call did not complete (a limit the harness imposed, LABELS.md). Emitter: the shell \
              tool's time-out branch of the @github/copilot npm package (`e.message?.includes(\"timed out\")`); \
              the wording is that of Copilot CLI 1.0 (corpus: Tokisaki7-Dev/HAWZX-AI). `<command with shellId: N \
              is still running after N seconds>` is not counted: the command goes on and the agent reads it later. A \
              `sleep` that waited is not counted (`waited-as-asked`), nor are the `read_*` tools.",
        fires_on: &[
            "<waiting for command with sessionId: main to exit timed out after 30 seconds. try again with read_powershell or abort it with stop_powershell tool>",
            "warning: could not open directory 'x/': Permission denied\n<waiting for command with sessionId: commit to exit timed out after 30 seconds. try again with read_powershell>",
        ],
        ignores: &[
            "<shellId: 0 completed with exit code 0>",
            "waiting for command output",
            "<command with shellId: 12 is still running after 30 seconds. The command is still running but hasn't produced output yet.>",
        ],
    },
    ContentRule {
        id: "copilot-exit-code",
        pattern: r"(?m)^Exit code [1-9]\d*\s*$|<(?:shellId: \S+ completed|exited|command with (?:shellId|id|sessionId): \S+ exited) with exit code [1-9]\d*>",
        tools: &[],
        dialects: &[Dialect::COPILOT],
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
        pattern: r"^File too large to read at once \(|^No changes made: old_str and new_str are the same\b|(?m)^<error>No more content available\.</error>",
        tools: &[],
        dialects: &[Dialect::COPILOT],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "Copilot CLI results stored as a success that returned nothing the agent asked for: `view` \
              refusing a file too large to read at once (no content, the agent must retry with `view_range`), \
              and `web_fetch` answering `<error>No more content available.</error>` (an empty body, or a \
              `start_index` past its end), and `edit` declining an edit whose old and new text are the same \
              (`No changes made: old_str and new_str are the same`).",
        fires_on: &[
            "No changes made: old_str and new_str are the same",
            "File too large to read at once (61.2 KB). Consider using the grep tool to search within the file, or view with view_range to read specific sections.",
            "Contents of https://example.com/:\n<error>No more content available.</error>",
        ],
        ignores: &["# Notes\nFile too large to read at once is what the tool says"],
    },
    ContentRule {
        id: "pi-exit-code",
        pattern: r"(?m)^Command exited with code [1-9]\d*\s*$",
        tools: &[],
        dialects: &[Dialect::PI],
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
        dialects: &[Dialect::KIRO],
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
        dialects: &[Dialect::KIRO],
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
        dialects: &[Dialect::AIDER],
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
        dialects: &[Dialect::AIDER],
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
        dialects: &[Dialect::CONTINUE],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A Continue terminal command that resolved `done` with the status `Command failed with exit code N`: \
              the exit code is kept and shown to the rules as `Exit code N` (grep/find/diff exit 1 is benign).",
        fires_on: &["Exit code 1", "Exit code 127"],
        ignores: &["Exit code 0", "Command completed"],
    },
    // --- more agents' own shapes --------------------------------------------
    ContentRule {
        id: "openai-agents-handoff-ignored",
        pattern: r"^Multiple handoffs detected, ignoring this one\.",
        tools: &[],
        dialects: &[Dialect::OPENAI_AGENTS],
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
        dialects: &[Dialect::OPENHANDS],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "OpenHands refuses a new command while the previous one still runs: `Your command \"…\" is NOT \
              executed. The previous command is still running`, stored as an ordinary observation.",
        fires_on: &[
            "[Your command \"ls\" is NOT executed. The previous command is still running - You CANNOT send new commands until the previous command is completed.]",
        ],
        ignores: &["[The command completed with exit code 0.]"],
    },
];
