//! Content rules, in registry order: what any tool's own text says, and shell pipelines whose status is the last command's.

use super::ContentRule;
use crate::rules::table::{ASKS_APPROVAL, ASKS_INPUT, SHELL_PARSE_ERROR, UNANSWERED_PROMPT};
use crate::rules::{Precision, Reads};

/// What may follow a failure stated as a tool's whole answer: a stop, the end, a dash or
/// bracket, or a word that goes on about the failure (`… timed out after 30 s`). Shared by
/// the alternatives of `sole-failure-statement`, so that each says only its own words.
macro_rules! stated_end {
    () => {
        r"(?:[.!:;,(]|\s*\z|\s+[-–—(\[]|\s+(?:to|on|for|while|when|after|at|by|from|with|in|during|because|due|occurred|happened|please|try)\b)"
    };
}

pub(super) const RULES: &[ContentRule] = &[
    // --- what any tool's own text says (the founding postmortem's case) -----
    ContentRule {
        id: "error-words",
        pattern: r"^(?:Error|ERROR|error)[ \t][^\n:]{1,80}:(?:\s|$)|^(?:error|fatal|Fatal|FATAL): \S|^(?:[A-Z][A-Za-z]+ ){1,2}[Ee]rror: \S|^(?:Error|ERROR) (?:calling|invoking|executing|running|occurred|in|while|during|when|generating|getting|fetching|creating|processing|reading|writing|loading|sending|connecting|querying|parsing|updating|deleting|listing|saving|retrieving|searching|downloading|uploading)\b",
        tools: &[],
        dialects: &[],
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
            "fatal: not a git repository (or any of the parent directories): .git",
            "error: pathspec 'src/x.rs' did not match any file(s) known to git",
        ],
        ignores: &["Errors found: none", "Error rate is 0.2% this week", "No error."],
    },
    ContentRule {
        id: "failed-to",
        pattern: r"^(?:Failed to|Unable to|Could not|Couldn't|Cannot|Can't|Can not) \S|^(?:Failed|FAILED|Failure)(?::| with | because | due to )|^(?:failed to|unable to|could not|cannot) [^\n:]+: \S",
        tools: &[],
        dialects: &[],
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
            "failed to get issue: GET https://api.github.com/repos/o/r/issues/9: 404 Not Found []",
        ],
        ignores: &[
            "Failures: 0",
            "Could you confirm the date?",
            "Unable-to-pay accounts: 3",
            "failed to start is a state the job list shows",
        ],
    },
    ContentRule {
        id: "failed-with-status",
        pattern: r"^[^\n]{0,120}?\b(?:failed|failure|errored|error)\b[^\n]{0,40}?\b(?:status|status code|code|HTTP)\s*[:=]?\s*[45]\d\d\b",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A first line that says the request failed with an HTTP error status: `Notification trigger failed with \
              status: 429`, `Request failed with status code 404`.",
        fires_on: &["Notification trigger failed with status: 429", "Request failed with status code 404"],
        ignores: &["Notification sent with status: 200", "Checked 429 items; none failed"],
    },
    ContentRule {
        id: "exception-raised",
        pattern: r#"^(?:Traceback \(most recent call last\):|(?:Exception in thread "[^"\n]*" )?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failure|Fault)(?::\s|\()|(?:[a-z_]\w*\.)+(?:errors|exceptions)\.[A-Z]\w*: |[A-Z]\w+Exception\s*$|[A-Z]\w*(?:Disconnected|Timeout|Refused|Denied|Exceeded|Aborted|Interrupted|NotFound|Unavailable)\(|panic: |thread '[^'\n]+' panicked at |(?:Get|Post|Put|Patch|Delete|Head) "https?://[^"\n]+": )"#,
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool's result that is an exception: a traceback, `XxxError: …`, `XxxException(…)`, a repr such as \
              `SMTPServerDisconnected('…')`, a Go runtime panic (`panic: …`), a Rust thread's (`thread 'main' \
              panicked at …`), Go's `*url.Error` for a request (`Get \"https://…\": dial tcp: …`). The tool \
              raised, and its framework handed the exception to the model as an ordinary result.",
        fires_on: &[
            "Traceback (most recent call last):\n  File \"tool.py\", line 3, in run\nKeyError: 'name'",
            "HTTPError: 503 Server Error: Service Unavailable for url: https://api.example.com",
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443)",
            "Exception in thread \"main\" java.io.FileNotFoundException: data.csv (No such file or directory)",
            "psycopg2.errors.UndefinedTable: relation \"users\" does not exist",
            "SMTPServerDisconnected('Connection unexpectedly closed')",
            "ValueError: invalid literal for int() with base 10: 'x'",
            "TimeoutException",
            "panic: runtime error: invalid memory address or nil pointer dereference\ngoroutine 1 [running]:",
            "thread 'main' panicked at src/main.rs:4:5:\ncalled `Result::unwrap()` on an `Err` value",
            "Get \"https://api.example.com/v1\": dial tcp: lookup api.example.com: no such host",
        ],
        ignores: &["ErrorBoundary component added", "Exception handling is described below", "NoError"],
    },
    ContentRule {
        id: "http-error-status",
        pattern: r"^(?:HTTP/\d(?:\.\d)?\s+)?[45]\d\d\s*(?:[-:]\s*)?(?:Client Error|Server Error|Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Not Acceptable|Request Time-?out|Conflict|Gone|Precondition Failed|Payload Too Large|Unsupported Media Type|Unprocessable (?:Entity|Content)|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service (?:Temporarily )?Unavailable|Gateway Time-?out)\b|^(?:HTTP |HTTP error |Error |ERROR |error )\(?[45]\d\d\b|^(?:Status|HTTP status|Status code):?\s*[45]\d\d\b|^Response status code does not indicate success: [45]\d\d\b",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that is an HTTP error status: `404 Client Error: Not Found for url: …`, \
              `HTTP/1.1 503 Service Unavailable`, `Error 429: …`, `Status: 500`, .NET's `HttpClient` (`Response status code does not indicate \
              success: 404 (Not Found).`), and nginx's own spellings \
              of its error pages' titles (`504 Gateway Time-out`, `503 Service Temporarily Unavailable`).",
        fires_on: &[
            "404 Client Error: Not Found for url: https://api.example.com/v1/x",
            "Response status code does not indicate success: 404 (Not Found).",
            "504 Gateway Time-out",
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
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's Markdown verdict whose first heading says it failed: `### Error Querying the database`, \
              `## ❌ Failed to deploy`.",
        fires_on: &["### Error Querying the database\n\nsyntax error at or near \"FROM\"", "## ❌ Failed to deploy"],
        ignores: &["## Results\n\n3 rows", "### Summary"],
    },
    ContentRule {
        id: "error-prefix-i18n",
        pattern: r"^(?:错误|錯誤|エラー|오류|에러|Fehler|FEHLER|Erreur|ERREUR|Erro|ERRO|Errore|ERRORE|Ошибка|ОШИБКА|Błąd|BŁĄD|Hata|HATA|Lỗi|LỖI|Fout|FOUT)\s?[:：]",
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Any,
        doc: "`error-prefix` in the languages tools are written in: a result that starts with the word for error and \
              a colon (`错误: 文件 a.txt 不存在。`, `エラー：…`, `Fehler: …`, `Erreur : …`, `Ошибка: …`), what a \
              custom tool returns as `Ok(\"错误: …\")`: X-for/Agent-Workflow's LangGraph `read_document` returns \
              `错误: 文件 X 不存在。`, and a LangChain tool raising `ToolException(\"错误：…\")` with \
              `handle_tool_error` (zkyuan/python_study) hands the model the same words. Like `error-prefix` it \
              reads every tool's result, a reader's too: a file does not start with these words and a colon.",
        fires_on: &[
            "错误: 文件 uv_usage.txt 不存在。",
            "錯誤：找不到檔案",
            "エラー：ファイルが見つかりません",
            "Fehler: Datei nicht gefunden",
            "Erreur : fichier introuvable",
            "Ошибка: файл не найден",
            "Errore: file non trovato",
        ],
        ignores: &["错误处理: 已完成", "Fehlerbehandlung: aktiv", "  1\t错误: x", "没有错误: 全部完成"],
    },
    ContentRule {
        id: "fetch-url-http-status",
        pattern: r"(?m)^(?:Notes: |Error: )?Failed to fetch URL \(HTTP [45]\d\d\)",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A URL fetcher's verdict on an error reply, `Failed to fetch URL (HTTP <status>)`: the message many \
              fetch helpers throw or return when the reply is not 2xx (Node `fetch` wrappers that check `res.ok`, \
              httpx's `HTTPStatusError` handlers, PHP cURL clients: ten public files by code search), and the \
              `Method: failed` block of the Pi URL reader in pinion05/agent-complex-task \
              (`Notes: Failed to fetch URL (HTTP 429)`). It reads every tool, readers too: a reader given a URL \
              answers with the fetch's verdict.",
        fires_on: &[
            "Failed to fetch URL (HTTP 404)",
            "URL: https://example.com/a\nContent-Type: text/html\nMethod: failed\nNotes: Failed to fetch URL (HTTP 429)\n\n---\n",
            "Error: Failed to fetch URL (HTTP 503): https://example.com/",
        ],
        ignores: &[
            "throw new Error(`Failed to fetch URL (HTTP ${res.status})`);",
            "  12\t    return `Failed to fetch URL (HTTP ${res.status})`",
            "Failed to fetch URL (HTTP 200)",
        ],
    },
    ContentRule {
        id: "error-words-i18n",
        pattern: r"^(?:错误|錯誤|失败|失敗|异常|異常|出错|出錯|エラー|오류|에러|실패|Fehler|FEHLER|Erreur|ERREUR|Échec|Echec|Erro|ERRO|Falha|Fallo|Falló)(?:[:：\s!！]|$)|^[^\n]{0,40}?(?:失败|失敗|出错|出錯|に失敗しました|できませんでした|실패했습니다|할 수 없습니다|fehlgeschlagen|a échoué|ha fallado|falhou)|^(?:Impossible de|Konnte nicht|Kann nicht|No se (?:pudo|puede)|Não foi possível|Não é possível|Error al|Error en) |^[^\n]{0,40}?不存在",
        tools: &[],
        dialects: &[],
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
        pattern: r"^(?:I['’]m sorry|I am sorry|I apologi[sz]e|Sorry|Unfortunately)\b[^\n]{0,160}?\b(?:error|errors|unable|not able|wasn['’]t able|couldn['’]t|could not|cannot|can['’]t|failed)\b|^(?:It (?:looks|seems|appears)(?: like| that)? )?[Tt]here (?:was|has been|were|have been) (?:an?|some) (?:error|errors|issue|issues|problem|problems)\b|^(?:It (?:looks|seems|appears)(?: like| that)? there (?:is|are)|There (?:seems|appears|seem|appear) to be) (?:an?|some) (?:error|errors|issue|issues|problem|problems) (?:with (?:the|your|my) (?:request|connection|server|service|API|system|tool|access|credentials)\b|(?:with |while |when |in )?(?:retrieving|accessing|fetching|connecting|loading|processing|reaching|getting|sending|creating|running|executing|calling|querying|completing|saving|updating)\b)|^An? (?:unexpected )?(?:error|issue|problem) (?:occurred|has occurred|was encountered|happened)\b|^I (?:encountered|ran into|hit|got|received) an? (?:error|exception|issue|problem)\b|^(?:(?:I['’]m sorry|I am sorry|Sorry|Unfortunately)[,.!]? (?:but )?)?I (?:cannot|can['’]t|can not|am unable to|was unable to|wasn['’]t able to|was not able to|couldn['’]t|could not|am not able to) (?:fulfill|complete|retrieve|fetch|access|obtain|provide|perform|process|connect|load|execute|run|proceed|continue|finish|create|make|do|add|update|modify|edit|change|delete|remove|send|post|publish|submit|book|schedule|reschedule|cancel|set|configure|install|save|store|write|read|open|parse|handle|call|use|invoke|reach|start|launch|stop|build|deploy|compile|generate|produce|convert|translate|analy[sz]e|calculate|compute|extract|download|upload|get|pull|push|commit|merge|move|copy|rename|import|export|query|apply|fix|resolve|implement|log in|sign in|authenticate|help (?:with|you)|assist (?:with|you))\b|^I(?:['’]m| am) (?:currently )?(?:unable|not able) to (?:fulfill|complete|retrieve|fetch|access|obtain|provide|perform|process|connect|load|execute|run|proceed|continue|finish|create|make|do|add|update|modify|edit|change|delete|remove|send|post|publish|submit|book|schedule|reschedule|cancel|set|configure|install|save|store|write|read|open|parse|handle|call|use|invoke|reach|start|launch|stop|build|deploy|compile|generate|produce|convert|translate|analy[sz]e|calculate|compute|extract|download|upload|get|pull|push|commit|merge|move|copy|rename|import|export|query|apply|fix|resolve|implement|log in|sign in|authenticate|help (?:with|you)|assist (?:with|you))\b|^I (?:do not|don['’]t) (?:currently )?have (?:access to|permission to|the (?:ability|permissions?|tools?|capability|access|necessary|required))\b|^I(?:['’]m| am) (?:currently )?(?:having|experiencing) (?:some )?(?:trouble|difficulty|difficulties|issues|problems) (?:accessing|connecting|reaching|retrieving|fetching|loading|processing|completing|getting)\b",
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A sub-agent used as a tool that reports, in its first sentence, that it failed or could not do the \
              task (LABELS.md: a delegation whose reply says it could not be done): `An error occurred while \
              retrieving …`, `I encountered an error …`, `I'm sorry, but I wasn't able to …`, `I can't create \
              this event: …`, `It seems there is an issue connecting to …`, `I don't have access to …`. The verb \
              must be one of doing (create, send, book, update, parse, …), never of finding: `I couldn't find any \
              issues` reports a negative finding, which is an answer. Only the opening counts: an answer that \
              mentions a problem later is an answer (docs/rules.md, where the line falls).",
        fires_on: &[
            "An error occurred while retrieving the market data. Please try again later.",
            "I encountered an error while fetching the stock price.",
            "I'm sorry, but I wasn't able to retrieve the current price.",
            "I cannot fulfill this request using the available tools.",
            "It looks like there was an error with the request.",
            "I was not able to retrieve the 52-week range.",
            "I'm having trouble accessing the knowledge base. Please try again or contact support.",
            "I'm currently unable to access the booking system.",
            "I can't book the room: the booking service rejected the room ID.",
            "I couldn’t update the spreadsheet because the sheet is locked.",
            "I cannot parse an empty message, please send it again.",
            "It seems there is an issue connecting to the mail server. I will report it.",
            "There seems to be a problem with fetching the calendar right now.",
            "I don't have access to the billing API, so the invoice was not sent.",
            "Unfortunately, I could not send the invitation.",
        ],
        ignores: &[
            "I couldn't find any issues in the code; it looks correct.",
            "I could not find any orders placed after March 3.",
            "I cannot confirm the exact date, but the release notes say March 3.",
            "It seems there is an issue in line 12: the loop never ends. Fix: add a break.",
            "I can help with that: here is the booking.",
            "I don't have any further questions; the plan is complete.",
            "Sorry for the wait, here are the results.",
            "There was an increase in sales in March.",
            "I need the stock ticker to continue. Could you provide it?",
            "I'm having a great time helping with the itinerary: here it is.",
        ],
    },
    ContentRule {
        id: "asks-approval-instead",
        pattern: ASKS_APPROVAL,
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A sub-agent or custom tool whose answer opens by asking for approval or confirmation instead of \
              doing what it was asked (LABELS.md: a sub-agent that asked for approval instead of doing it is a \
              failure, and so is an application's reply asking for more input): `Before I proceed, please \
              confirm …`, `I need your approval to …`, `Please confirm the time …`, `Shall I go ahead?`. Only \
              the opening counts: an answer that did the work and asks at its end is an answer.",
        fires_on: &[
            "Before I proceed with the deletion, please confirm that the backup exists.",
            "I need your explicit approval before sending the newsletter to 4,000 subscribers.",
            "Please confirm the new time for the dentist appointment.",
            "Could you confirm which of the two accounts to close?",
            "Shall I go ahead and cancel the subscription?",
        ],
        ignores: &[
            "Done: the newsletter was sent. Please confirm you received the test copy.",
            "Before I answer: the deploy succeeded at 10:02.",
            "I need more time is what the vendor said; the order shipped today.",
            "Confirmed: the meeting is booked for 10:00.",
        ],
    },
    ContentRule {
        id: "delegation-asked-for-input",
        pattern: ASKS_INPUT,
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Delegations,
        doc: "A sub-agent (Claude Code's `Task`, a `task` or `agent` tool, an ADK `AgentTool`, an Agents SDK \
              `as_tool`) whose short reply opens by asking for input instead of doing the task it was handed \
              (LABELS.md: a sub-agent that could not do the task, or asked instead of doing it): `Please upload an \
              image of the item so I can analyse it.`, `Could you provide the ticker?`, `I need more information \
              about …`, `请提供论文主题`. Only the first three sentences of a reply of at most 1,500 characters \
              are read: a sub-agent that did the work and asks at its end has answered.",
        fires_on: &[
            "I can help with that. Please upload an image of the broken item so I can analyze the damage.",
            "Could you provide the ticker symbol you want analysed?",
            "To draft the plan I need more information about the team size and deadline.",
            "您好！为了生成提纲，请提供论文的主题和学科。",
        ],
        ignores: &[
            "The image shows a crushed bag of chips: major damage to the product.",
            "Found 3 flights from Oslo to Rome on 12 May. Which one would you like to book?",
            "Rats are adaptable mammals found in most places humans live. Over 60 species are known.",
        ],
    },
    ContentRule {
        id: "input-missing-refusal",
        pattern: r"\A(?:(?:Error: )?No (?:[A-Za-z0-9_-]+ ){0,2}[A-Za-z0-9_-]+ (?:was |were )?(?:provided|specified|given|supplied)|Please (?:provide|specify|enter|supply) (?:a |an |the |your )?[A-Za-z0-9][^\n]*?)[.!]?\s*\z",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A custom tool that did nothing because an input it needs was missing, and says only that: `No search \
              query provided.`, `No file path specified`, `Please provide a city name.`. The whole answer is the \
              refusal (LABELS.md: an application's own reply asking for more input is a failure); a longer answer \
              that goes on to give results is judged by the rest.",
        fires_on: &["No search query provided.", "No file path was specified", "Please provide a city name."],
        ignores: &[
            "No search query provided, so here are the five most recent orders:\n1. #1042",
            "No issues found.",
            "Please provide feedback on the draft below.\n\nDraft: …",
        ],
    },
    ContentRule {
        id: "unawaited-coroutine",
        pattern: r"^<coroutine object [\w.<>]+ at 0x[0-9a-fA-F]+>\s*$",
        tools: &[],
        dialects: &[],
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
        dialects: &[],
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
        pattern: r"(?m)^(?:[\w./-]+: (?:line \d+: )?)?(?:[^\n:]{1,200}: )?(?:No such file or directory|Permission denied|command not found|No module named [\w.]+)\s*$|^(?:zsh|bash|sh|\(eval\):\d+): command not found: \S+\s*$",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A command of a pipeline (`grep KEY .env | head -1`) whose own error reached the output (`grep: .env: \
              No such file or directory`, `zsh: command not found: timeout`), a Python `-m` whose module is not \
              installed (CPython's runpy: `python: No module named pytest`) while the pipeline's status, the last \
              command's, says success (`rules::masked`).",
        fires_on: &[
            "grep: .env.local: No such file or directory",
            "(eval):1: command not found: timeout",
            "/srv/app/.venv/bin/python: No module named pytest",
        ],
        ignores: &["src/a.rs:12: // No such file or directory is handled here\nok", "found 3 files"],
    },
    ContentRule {
        id: "masked-option-refused",
        pattern: r"(?m)^(?:Output: |Stdout: )?[\w./-]+: (?:(?:illegal|invalid) option -- '?\S'?|unrecognized option '--?[\w=.-]+')\s*$",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A command of a pipeline (`cat -A notes.md | head -20`) that refused an option and did not run, \
              while the pipeline's status, the last command's, says success: getopt's own refusal, glibc's \
              `invalid option -- 'x'` and `unrecognized option '--x'`, BSD's `illegal option -- x`, naming the \
              program. Read only when the named program is an earlier command of the last pipeline, so that a \
              refusal a fallback answered (`ps --ppid 7 || pgrep -P 7 | xargs ps`) is not counted (`rules::masked`).",
        fires_on: &[
            "cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]",
            "ls: unrecognized option '--colour-scale'",
        ],
        ignores: &["see `man ls`: unrecognized option '--x' means a typo\nok"],
    },
    ContentRule {
        id: "masked-git-failure",
        pattern: r"(?m)^fatal: |^error: (?:failed to push some refs|Your local changes to the following files would be overwritten|pathspec '[^'\n]*' did not match|could not apply|cannot (?:pull|rebase|lock ref)|src refspec \S+ does not match any|The following untracked working tree files would be overwritten)|^ ! \[(?:remote )?rejected\] |^CONFLICT \([\w/ -]+\): |^Automatic merge failed",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A git command that does work (`push`, `pull`, `merge`, `rebase`, `checkout`, `commit`) piped into a \
              filter (`git push 2>&1 | grep -v hint`), whose own failure lines reached the output while the \
              pipeline's status, the filter's, says success: `fatal: …`, `error: failed to push some refs`, ` ! \
              [rejected]`, `CONFLICT (content): …`, `Automatic merge failed` (git's builtin/push.c, transport.c, \
              merge-ort.c, builtin/merge.c). Other `error:` lines git prints on the way (`error: non-monotonic \
              index …` about a stray pack file) are not its verdict (`rules::masked`).",
        fires_on: &[
            "To github.com:o/r.git\n ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'github.com:o/r.git'",
            "Auto-merging package.json\nCONFLICT (content): Merge conflict in package.json\nAutomatic merge failed; fix conflicts and then commit the result.",
        ],
        ignores: &[
            "error: non-monotonic index .git/objects/pack/._pack-1.idx\nTo github.com:o/r.git\n   1a2b3c4..5d6e7f8  main -> main",
        ],
    },
    ContentRule {
        id: "shell-syntax-error",
        pattern: SHELL_PARSE_ERROR,
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "The shell could not parse the call's command line (`bash: syntax error near unexpected token \
              `('`): part of what the agent wrote never ran, while the status, that of the last command that \
              did run (`echo done`), says success.",
        fires_on: &[
            "  File \"<string>\", line 7\nSyntaxError: unterminated string literal\nbash: syntax error near unexpected token `('\ndone",
            "build ok\nbash: -c: line 1: unexpected EOF while looking for matching `\"'\n",
            "sh: 1: Syntax error: \"(\" unexpected\ndone",
        ],
        ignores: &[
            "src/parse.rs: // reports `syntax error near unexpected token`\nok",
            "tests/shell.rs:  zsh:1: parse error near `)' is expected here\nok",
        ],
    },
    ContentRule {
        id: "shell-heredoc-failed",
        pattern: r"(?m)^(?:\(eval\)|zsh|bash|sh|/bin/(?:ba|z)?sh)(?::\d+|: line \d+)?: (?:can't|cannot) create temp file for here[ -]document\b",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "The shell could not create the temporary file a here-document needs (zsh's exec.c `can't create temp \
              file for here document: %e`, bash's redir.c `cannot create temp file for here-document: %s`, on a \
              read-only or sandboxed file system): the command it feeds ran with no input (`cat > notes.md << \
              'EOF'` wrote an empty file) while the status says success. The same words from a login shell's \
              startup file (Homebrew's `shellenv.sh: line 18: …`) name that file, not the shell, and are not read.",
        fires_on: &[
            "stty: 'standard input': Inappropriate ioctl for device\n(eval):1: can't create temp file for here document: read-only file system",
            "bash: cannot create temp file for here-document: No space left on device",
        ],
        ignores: &[
            "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: cannot create temp file for here-document: Operation not permitted\nok",
        ],
    },
    ContentRule {
        id: "unanswered-prompt",
        pattern: UNANSWERED_PROMPT,
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::ShellOutput,
        doc: "A command whose output ends at a confirmation prompt (`? You are deploying your home directory. Do \
              you want to continue? (y/N)`, Inquirer.js as the Vercel, Netlify and Supabase CLIs use it; \
              click's `[y/N]:`; apt's `[Y/n]`; npx's `Ok to proceed? (y)`) waited for an answer no one gave: an \
              agent's shell has no terminal, so the program stopped there and did nothing, whatever its exit \
              status or a `| tail` says. A prompt that was answered is followed by what the program did next.",
        fires_on: &[
            "Vercel CLI 48.1.7\n? You are deploying your home directory. Do you want to continue? (y/N)\n",
            "Need to install the following packages:\ncreate-vite@6.5.0\nOk to proceed? (y) ",
            "This will drop 3 tables. Continue? [y/N]: ",
            "Output: ? Link to an existing project? (Y/n)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 4242",
        ],
        ignores: &[
            "? Continue? (Y/n) yes\n✔ Deployed to https://app.example.com",
            "Usage: deploy [--yes]\n  -y, --yes  answer (y/N) prompts with yes\nDone.",
        ],
    },
    ContentRule {
        id: "powershell-error-record-legacy",
        pattern: r"(?m)^[ \t]*\+ CategoryInfo[ \t]*: (?:ParserError|ObjectNotFound|InvalidArgument|InvalidOperation|PermissionDenied|ResourceUnavailable|OperationStopped|OperationTimeout|ReadError|WriteError|SyntaxError|InvalidData|InvalidType|MetadataError|SecurityError|ConnectionError|AuthenticationError|NotInstalled|NotImplemented|NotEnabled|DeviceError|OpenError|CloseError|ResourceExists|ResourceBusy|LimitsExceeded|QuotaExceeded|ProtocolError|InvalidResult|DeadlockDetected): [^\n]*\n(?:[^\n+][^\n]*\n)?(?:[^\n+][^\n]*\n)?[ \t]*\+ FullyQualifiedErrorId[ \t]*: \S",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::ShellOutput,
        doc: "Windows PowerShell 5.1's error record (its NormalView: the message, `At line:1 char:41` or its \
              translation, then `+ CategoryInfo : ParserError: …` and `+ FullyQualifiedErrorId : …`, the first \
              perhaps wrapped at the console's width, the property names English in every locale): a cmdlet \
              or the parser failed. The category is one of PowerShell's `ErrorCategory` values \
              (System.Management.Automation/engine/ErrorPackage.cs); `NotSpecified`, which wraps a native \
              command's stderr (`NativeCommandError` around `git push` progress), is not read (LABELS.md).",
        fires_on: &[
            "At line:1 char:41\n+ cd \"C:\\p\" && npx create-server x\n+                                         ~~\nThe token '&&' is not a valid statement separator in this version.\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n    + FullyQualifiedErrorId : InvalidEndOfLine",
            "строка:1 знак:13\n+ & { $p = Start-Process -FilePath 'ssh' ...\n+ ~~~~~~~~~~~~~~~~\n    + CategoryInfo          : InvalidOperation: (:) [Start-Process], FileNotFo\n   undException\n    + FullyQualifiedErrorId : FileNotFoundException,Microsoft.PowerShell.Commands.StartProcessCommand",
        ],
        ignores: &[
            "git : To github.com:o/r.git\n    + CategoryInfo          : NotSpecified: (To github.com:o/r.git:String) [], RemoteException\n    + FullyQualifiedErrorId : NativeCommandError",
        ],
    },
    ContentRule {
        id: "powershell-error-record",
        pattern: r"(?m)^[A-Za-z][\w-]*: ?\r?\nLine \|\r?\n +\d+ \| ",
        tools: &[],
        dialects: &[],
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
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "bash's job control reporting that a command the call started in the background died \
              (`[7]+ Exit 127 npm run dev > log 2>&1`), while the call itself returned 0: what it started failed.",
        fires_on: &["[7] 9385\n[7]+ Exit 127 cd /w/app && npm run dev > frontend.log 2>&1"],
        ignores: &["[7] 9385\n[7]+ Done npm run build", "[1]+ Running npm run dev &"],
    },
    ContentRule {
        id: "server-listen-failed",
        pattern: r"(?m)\blisten (?:EADDRINUSE|EACCES|EADDRNOTAVAIL)\b|\blisten (?:tcp|udp)[46]? \S+: bind: |\[(?:Errno (?:98|48)|WinError 10048)\] (?:[Aa]ddress already in use|[Oo]nly one usage of each socket address)|\berror while attempting to bind on address\b|\bjava\.net\.BindException: |\bPort \d+ was already in use\b|\bAddress already in use \(os error \d+\)|\bFailed to listen on \S+ \(reason: |\bAddress already in use - bind\(2\)|\bBind for \S+ failed: port is already allocated|^Port \d+ is in use by another program\b|\bbind\(\)?(?:[^\n]*\n){1,12}?\s*(?:PermissionError|OSError): \[(?:Errno|WinError) \d+\]",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A server the call started that could not take its port, while the call returned 0 (started in \
              the background, or still running): Node's `Error: listen EADDRINUSE` / `EACCES` (lib/net.js), \
              Go's `listen tcp …: bind: address already in use` and its Windows wording, Python's \
              `OSError: [Errno 98] Address already in use` or a `PermissionError` raised from `bind()`, \
              uvicorn's `error while attempting to bind on address`, Java's `BindException`, Spring Boot's \
              `Port N was already in use`, Rust's `(os error 98)`, PHP's `Failed to listen on … (reason: …)`, \
              Puma's `bind(2)`, Docker's `port is already allocated`, Werkzeug's `Port N is in use by another \
              program`. Read only when the line runs a program (not when it reads a log or a service's \
              status) and no test run passed: what the program printed about its own start.",
        fires_on: &[
            "⨯ Failed to start server\nError: listen EADDRINUSE: address already in use :::3001\n    at <unknown>\n\nexit: 28",
            "2026/04/28 16:37:32 Error starting proxy: listen tcp 127.0.0.1:5432: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.",
            "Traceback (most recent call last):\n  File \"/usr/lib/python3.12/http/server.py\", line 1308, in server_bind\n    return super().server_bind()\n  File \"/usr/lib/python3.12/socketserver.py\", line 473, in server_bind\n    self.socket.bind(self.server_address)\nPermissionError: [Errno 13] Permission denied",
            "INFO:     Started server process [4242]\nERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
            "OSError: [Errno 48] Address already in use",
            "Address already in use\nPort 5000 is in use by another program. Either identify and stop that program, or start the server with a different port.",
            "Error response from daemon: driver failed programming external connectivity on endpoint db: Bind for 0.0.0.0:5432 failed: port is already allocated",
        ],
        ignores: &[
            "  ➜  Local:   http://localhost:5174/\nPort 5173 is in use, trying another one...",
            " ⚠ Port 3000 is in use, trying 3001 instead.\n ✓ Ready in 1.2s",
            "Listening on http://0.0.0.0:8080",
            "bind(2) man page: EADDRINUSE means the address is in use",
        ],
    },
    ContentRule {
        id: "cobra-unknown-subcommand",
        pattern: r"(?m)^Available Commands:[ \t]*$",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A Cobra command that only groups others, given a subcommand it does not have (`bd mol status`), \
              prints its own help and exits 0: Cobra rejects an unknown subcommand only at the root \
              (spf13/cobra command.go, `legacyArgs`). Read when the help's `Usage:` names the command the line \
              called (`  bd mol [command]`) and the word after it, not an option or `help`, is neither listed \
              under `Available Commands:` nor an alias: nothing the call asked for ran.",
        fires_on: &["Usage:\n  bd mol [command]\n\nAvailable Commands:\n  bond        Bond two protos\n"],
        ignores: &["Available commands: build, test", "Usage:\n  bd mol [command]\n"],
    },
    ContentRule {
        id: "sole-error-output",
        pattern: crate::rules::masked::SOLE_ERROR,
        tools: &[],
        dialects: &[],
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
        id: "own-pkill-killed-shell",
        pattern: r"\A\s*(?:\((?:no output|empty)\)|<no output>|No output\.?)?\s*\z|(?m)^Output: \(empty\)\n(?:Error: \(none\)\n)?Exit Code: \(none\)\nSignal: (?:15|SIGTERM)\b",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A shell call whose own `pkill -f PATTERN` killed the shell running it: `pkill -f` matches the \
              pattern against whole command lines, the agent's `bash -c LINE` holds the pattern, and so the \
              shell gets SIGTERM and nothing after the `pkill` runs. Read only when the pattern matches the \
              line and a later `echo` or `printf` should have printed, and the result is empty (`(no output)`, \
              or Qwen Code's `Signal: 15` with no exit code): the missing output says the call did not run to \
              the end. Emitter: procps `pkill(1)` `-f`, `--full` (`rules::masked`).",
        fires_on: &[
            "(no output)",
            "Output: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15\nProcess Group PGID: (none)",
        ],
        ignores: &["stopped\nstarting server", "Output: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)"],
    },
    ContentRule {
        id: "masked-program-error",
        pattern: r"(?m)^(?:[\w./@-]+: )?(?:error|Error|ERROR|fatal|Fatal|FATAL)(?:\[[\w-]+\])?:[ \t]*[^(\s]|^FATAL ERROR: |^npm (?:ERR!|error) |^Traceback \(most recent call last\):|^[^\n]*\berror TS\d+: |^error\[E\d{4}\]|^[^\n]*\bSyntaxError: |^(?:FAILED|FAIL) |^test result: FAILED|^Tests?: +\d+ failed|^✖ \d+ problems? \([1-9]\d* errors?,|^Failed to (?:compile|type check)\.|^Type error: |^> Build error occurred|^[ \t]*\^+[ \t]*(?:\n[ \t]*)*\n?[A-Z]\w*Error(?: \[\w+\])?: |^Node\.js v\d+\.\d+\.\d+[ \t]*$|^\[(?:[A-Z]\w*)?Error: |^hint: See PEP 668 for the detailed specification\.|^[ \t]*file: '[A-Za-z0-9_.-]+\.c',[ \t]*\n[ \t]*line: '\d+',[ \t]*\n[ \t]*routine: '[A-Za-z0-9_]+'",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::MaskedPipelines,
        doc: "A build, install, deploy or test command piped into a filter (`npm run build 2>&1 | tail -50`) whose \
              output shows that it failed (`Error: …`, `error TS2307: …`, `FATAL ERROR: … heap out of memory`, \
              `test result: FAILED`, Next.js's `Failed to type check.` and `> Build error occurred`, Node's \
              uncaught exception: V8's caret line then `ReferenceError: …`, and the `Node.js v18.16.0` line Node \
              prints after it; an error Node's `util.inspect` prints without a stack, `[Error: …]`; pip's refusal \
              to install into an externally managed Python, whose `hint: See PEP 668 …` outlives a `| tail`; \
              the end of a PostgreSQL error as node-postgres prints it, the server's `file`, `line` and \
              `routine`) while the \
              pipeline's status, the filter's, says success. Commands that read \
              data (grep, cat, logs) are not judged by the lines they print (`rules::masked`).",
        fires_on: &[
            "Vercel CLI 48.1.7\nError: You cannot set your Personal Account as the scope.",
            "app/a.tsx(6,30): error TS2307: Cannot find module '@/lib/x'",
            "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory",
            "src/app.ts\n  4:7  error  'x' is assigned a value but never used  no-unused-vars\n✖ 1 problem (1 error, 0 warnings)",
            "✓ Compiled successfully in 30.7s\nLinting and checking validity of types ...\nFailed to type check.\n\n./app/page.tsx:12:3\nType error: Property 'x' does not exist",
            "file:///srv/app/test.js:2\nconst { exec } = require('child_process');\n^\n\nReferenceError: require is not defined in ES module scope\n    at file:///srv/app/test.js:2:18\n\nNode.js v18.16.0",
            "✓ Ready in 562ms\n[Error: Failed to open database\n\nCaused by:\n    0: Loading persistence directory failed] {\n  code: 'GenericFailure'\n}",
            "note: If you believe this is a mistake, please contact your Python installation or OS distribution provider.\nhint: See PEP 668 for the detailed specification.",
            "  constraint: undefined,\n  file: 'namespace.c',\n  line: '434',\n  routine: 'RangeVarGetRelidExtended'\n}",
        ],
        ignores: &[
            "warning: unused variable `x`\n    Finished `dev` profile",
            "0 errors, 2 warnings",
            "✖ 2 problems (0 errors, 2 warnings)",
            "Stdout: 2\n\nStderr: (empty)\nError: (none)\nExit Code: 0",
        ],
    },
    ContentRule {
        id: "marked-error",
        pattern: r"^(?:❌|⛔|🚫|✖️?|✗|❗)\s*(?:\*\*)?(?:(?:Error|ERROR|Failed|FAILED|Failure|Could not|Couldn't|Cannot|Can't|Unable to|Fehler|Erreur|错误|失败|无法|エラー)\b|(?:[A-Za-z][A-Za-z0-9_.'-]*\s){1,5}(?:failed|FAILED)(?::|\s+(?:with|because|due to)\b|\.?\s*$))",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that opens with a failure mark and the word for it (`❌ Error: 503`, `✗ Failed: \
              …`, `❌ Upload to storage failed: <exception>`): the way many application tools written for chat \
              agents report failure in a success (`return f\"❌ {what} failed: {e}\"`). \
              Drawn from the shapes issue 47's held-out framework corpus reported (`❌ Error: 503`); read \
              after every other rule.",
        fires_on: &[
            "❌ Error: 503 Service Unavailable",
            "✗ Failed to send the invoice",
            "❌ **Error**: no rows",
            "❌ Could not parse \"https://example.org/a\" and no fallback metadata provided.",
            "❌ Warehouse table load failed: ArrowTypeError: Expected bytes, got a 'int' object",
            "⛔ Payment capture failed with status 402",
        ],
        ignores: &[
            "✅ Done: 3 errors fixed",
            "❌ marks the tests that used to fail; all pass now",
            "❌ 2 of 40 checks failed earlier; all pass after the fix",
            "Upload failed: retrying in 5 s\n✅ Upload complete",
        ],
    },
    ContentRule {
        id: "sole-failure-statement",
        pattern: concat!(
            r#"(?i)\A\s*(?:[\p{So}\x{FE0F}\x{200D}]+\s*)?(?:(?:Error|Exception|Failure|Failed|Fail)(?:[!.:]|\s*\z|\s+[-–—]\s| occurred\b)"#,
            r#"|\[(?:ERROR|FAILED|FAILURE|FAIL)\]\s"#,
            r#"|(?:The )?(?:service|server|API|system|backend) is (?:currently |temporarily )?(?:unavailable|down|unreachable|not responding)"#,
            stated_end!(),
            r#"|Unsupported (?:operation|operator|format|file type|method|media type)"#,
            stated_end!(),
            r#"|(?:(?:Sorry|Oops)[!,.]?\s*)*Something went wrong\b"#,
            r#"|Oops\b[^\n]{0,40}\bwent wrong\b"#,
            r#"|An? (?:unknown|unexpected|internal) error"#,
            stated_end!(),
            r#"|(?:Unauthori[sz]ed|Not authori[sz]ed|Forbidden|Bad Request|Internal Server Error|Service (?:temporarily )?unavailable|Bad Gateway|Gateway Time-?out|Too Many Requests|Payment Required)(?:[.!:]|\s*\z|\s+[-–(])"#,
            r#"|(?:Permission denied|Access (?:is )?denied|Access forbidden|Authentication (?:failed|required|error)|Login failed|Invalid (?:API[ _-]?key|token|access token|credentials|username or password|email or password)(?: provided)?|Rate limit(?:ed| exceeded| reached| hit)|Quota exceeded|(?:The |Your )?(?:[\w-]+ )?(?:request|operation|connection|query|call) (?:has )?timed out|Timed out(?: waiting)?|Network error|Connection (?:refused|reset|error|failed|lost|timed out))"#,
            stated_end!(),
            r#"|Time-?out(?:[.!]|\s*\z| while\b| waiting\b| after\b| exceeded\b)"#,
            r#"|(?:The |Your )?(?:[\w-]+ ){0,2}(?:request|operation|query|search|lookup|call|upload|download|login|sign-in|authentication|connection|payment|transaction|update|deletion|creation|submission|conversion|extraction|generation|export|import|sync|processing|execution|installation|deployment|fetch|save|send|delivery|registration|booking|translation|transcription|parsing|rendering|migration|backup|restore) (?:failed|was unsuccessful|could not be completed|did not succeed)[.!]?\s*\z"#,
            r#"|The (?:[\w-]+ ){1,3}(?:is|was|has) (?:invalid|expired|revoked|not valid|been revoked)"#,
            stated_end!(),
            r#"|(?:Server|API|Service|Backend|Remote) (?:returned|responded with|sent) an? (?:error|invalid response|bad response|empty response)"#,
            stated_end!(),
            r#"|(?:API[ _-]?key|Token|Credentials) (?:is |are )?(?:missing|not set|not configured|not provided)"#,
            stated_end!(),
            r#"|Invalid (?:input|request|parameters?|arguments?|date(?: format)?|time format|format|value|JSON|query|URL|id)"#,
            stated_end!(),
            r#"|(?:File|Directory|Folder|Path) (?:not found|does not exist|doesn't exist)"#,
            stated_end!(),
            r#"|The (?:file|directory|folder|path)(?: \S+)? (?:does not|doesn't) exist"#,
            stated_end!(),
            r#"|(?:float |integer )?division (?:or modulo )?by zero"#,
            stated_end!(),
            r#"|(?:list|tuple|string) index out of range"#,
            stated_end!(),
            r#"|'[\w.]+' object (?:has no attribute|is not subscriptable|is not callable|is not iterable|does not support item assignment)\b"#,
            r#"|string indices must be integers\b"#,
            r#"|unsupported operand type\(s\)"#,
            r#"|invalid literal for int\(\) with base \d+"#,
            // Google's OAuth token endpoint (`Token has been expired or revoked.`), Microsoft
            // Graph (`Access token has expired or is not yet valid.`), an expired session.
            r#"|(?:The |Your )?(?:access |auth |authentication |API |refresh |bearer )?(?:token|session|credentials|API key|login) (?:has |have |is |are )?(?:been )?(?:expired|revoked)(?: or (?:revoked|is not yet valid|invalid))?"#,
            stated_end!(),
            r#"|(?:(?:This|The) (?:[\w-]+ ){0,2}(?:is|has) |[\w-]+ (?:is )?)?not (?:yet )?(?:been )?implemented(?: yet)?"#,
            stated_end!(),
            r#"|NotImplementedError\b"#,
            r#"|The requested (?:URL|resource|page|file|document|endpoint)(?: \S+)? (?:was not found|could not be found|is not available|does not exist)(?: on this server)?"#,
            stated_end!(),
            // Apple Foundation's NSURLError descriptions (-1001, -1003, -1004, -1005, -1009, -1200).
            r#"|The network connection was lost|A server with the specified hostname could not be found|The Internet connection appears to be offline|An SSL error has occurred and a secure connection to the server cannot be made"#,
            stated_end!(),
            // libcurl's error texts (`curl_easy_strerror` and its error buffer), as PHP's
            // `curl_error()` and pycurl hand them back.
            r#"|Empty reply from server|Timeout was reached|Couldn't resolve (?:host|proxy) name|SSL certificate problem"#,
            stated_end!(),
            // Node's `socket hang up`, axios's `timeout of 5000ms exceeded`.
            r#"|socket hang up|timeout of \d+ms exceeded"#,
            stated_end!(),
            // jsonwebtoken's (`jwt expired`, `jwt malformed`, `invalid signature`) and PyJWT's
            // (`Signature has expired`) rejections of a token.
            r#"|jwt (?:expired|malformed|must be provided|signature is required)|invalid signature|Signature has expired|Signature verification failed"#,
            stated_end!(),
            r#"|(?:Sorry,? )?(?:The )?(?:[\w'-]+ ){0,3}(?:data|information|info|details|service|API|server)(?: for [^\n]{1,60}?)? (?:is |are )?(?:currently |temporarily )?(?:unavailable|not available)(?:[.!]?\s*\z|[.!:;(]\s|\s+[-–—(]\s|\s+(?:for|because|due|please|try|right now|at (?:the|this) (?:moment|time))\b)"#,
            r#"|(?:Sorry,? )?I (?:don't|do not) have (?:any )?(?:[\w-]+ ){0,2}(?:information|info|data|details) (?:for|about|on)\b"#,
            r#"|\[Errno \d+\] "#,
            // CPython's RecursionError; V8's `JSON.parse` of a page that is not JSON (before and
            // after V8 10.5).
            r#"|maximum recursion depth exceeded\b|Unexpected token \S{1,4} in JSON at position \d+|Unexpected token '[^'\n]{1,4}', "[^\n]{0,40}" is not valid JSON"#,
            // Stripe's API errors as `str(e)` gives them: a missing object (`No such customer:
            // 'cus_…'`, `resource_missing`), a declined card (`card_declined`).
            r#"|(?:Request req_\w+: )?No such [a-z_]+(?: [a-z_]+)?: '[^'\n]+'|Your card (?:was declined|has insufficient funds|has expired|number is incorrect)"#,
            // MongoDB's duplicate key error (server code 11000); gRPC's status as grpc-js words it
            // (`<code> <NAME>: <details>`: Firestore's `7 PERMISSION_DENIED: Missing or insufficient
            // permissions.`), in capitals only.
            r#"|E11000 duplicate key error\b|(?-i:(?:\d{1,2} )?(?:CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED): \S)"#,
            r#"|Cannot (?:read|set) propert(?:y|ies) of (?:undefined|null)\b"#,
            r#"|Unexpected end of JSON input\b)[^\n]{0,200}\z"#,
        ),
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's whole answer is one short line that states a failure and nothing else: the line a \
              tool's `except` or error branch returns in place of its data. The words are the emitters' own, \
              not an application's: HTTP reason phrases (RFC 9110: `Unauthorized`, `Forbidden`, `Bad Request`, \
              `Internal Server Error`, `Service Unavailable`; RFC 6585: `Too Many Requests`), the C library's `strerror` \
              texts (`Permission denied`, `Connection refused`, `[Errno 2] …`), CPython's built-in exception \
              messages (`division by zero`, `list index out of range`, `'NoneType' object has no attribute \
              'get'`, `invalid literal for int() with base 10`), V8's (`Cannot read properties of undefined`, \
              `Unexpected end of JSON input`, `Unexpected token < in JSON at position 0`), CPython's `maximum \
              recursion depth exceeded`, Stripe's `No such customer: 'cus_…'` and `Your card was declined.`, \
              MongoDB's `E11000 duplicate key error …`, gRPC's status as grpc-js words it (`7 \
              PERMISSION_DENIED: …`, capitals only), Node's `socket hang up` and axios's `timeout of 5000ms \
              exceeded`, Apple Foundation's NSURLError descriptions (`The request timed out.`, `The network \
              connection was lost.`), libcurl's error texts as PHP and pycurl return them (`Empty reply from \
              server`, `SSL certificate problem: …`), the token rejections of Google's OAuth endpoint \
              (`Token has been expired or revoked.`), Microsoft Graph, jsonwebtoken (`jwt expired`) and PyJWT \
              (`Signature has expired`), and the generic statements `Error!`, `Failed.`, `Something went \
              wrong`, `Operation failed.`, `Rate limit exceeded`, `Invalid API key`, `Invalid date format.`, `File \
              not found`, `Token has expired`, `Weather data unavailable.`, `I don't have timezone \
              information for Lima.`, a stub's \
              `Not implemented` or `NotImplementedError`, and Apache's `The requested URL /a was not found on \
              this server.`. Only a \
              single line counts, so data that mentions these words, or an answer that goes on after them, is \
              judged by the rest; searches' \"none\" (`No results found.`) is not among them.",
        fires_on: &[
            "Error!",
            "Failed.",
            "Exception: Invalid API key",
            "⚠️ Error - upload rejected",
            "Oops! Something went wrong.",
            "Sorry, something went wrong while processing your request.",
            "Unauthorized",
            "Internal server error",
            "Service unavailable",
            "Bad request: missing field 'name'",
            "Permission denied: /etc/app.conf",
            "Access denied.",
            "Rate limit exceeded. Please try again later.",
            "Request timed out after 30 seconds",
            "Timeout while waiting for the response",
            "Operation failed.",
            "The request could not be completed.",
            "The API key is invalid.",
            "Server returned an error",
            "API key is not configured",
            "Invalid date format. Use YYYY-MM-DD.",
            "File not found",
            "The file does not exist.",
            "division by zero",
            "list index out of range",
            "'NoneType' object has no attribute 'get'",
            "[Errno 111] Connection refused",
            "Cannot read properties of undefined (reading 'map')",
            "maximum recursion depth exceeded while calling a Python object",
            "Unexpected token < in JSON at position 0",
            "No such customer: 'cus_123'",
            "Your card was declined.",
            "E11000 duplicate key error collection: db.users index: email_1 dup key: { email: \"a@b.c\" }",
            "7 PERMISSION_DENIED: Missing or insufficient permissions.",
            "Exception occurred: timeout while reading",
            "[ERROR] upload failed",
            "The service is temporarily unavailable. Please try again later.",
            "Unsupported operation: ^",
            "The request timed out after 30 seconds.",
            "Timed out waiting for response",
            "Token expired",
            "Your session has expired. Please log in again.",
            "Not implemented",
            "This feature is not implemented yet.",
            "NotImplementedError: booking is not available",
            "The requested URL /v1/x was not found on this server.",
            "Token has been expired or revoked.",
            "Access token has expired or is not yet valid.",
            "The network connection was lost.",
            "The Internet connection appears to be offline.",
            "Empty reply from server",
            "SSL certificate problem: unable to get local issuer certificate",
            "socket hang up",
            "timeout of 5000ms exceeded",
            "jwt expired",
            "Signature has expired",
            "Weather data unavailable.",
            "Sorry, weather information for 'Tokyo' is not available.",
            "Sorry, I don't have timezone information for Lima.",
        ],
        ignores: &[
            "No results found.",
            "Error rate: 0.2% over the last hour",
            "Failure modes: none recorded",
            "Rate limit: 100 requests per minute",
            "Timeout: 30s",
            "Unauthorized access attempts: 0",
            "Permission denied\nRetried with sudo: done, 3 files written",
            "The user was unauthorized before; access is granted now.",
            "Invalid entries: 0 of 1,204",
            "Search for \"division by zero\" returned 3 matches",
            "No tests failed.",
            "Validation failed.",
            "Connection error rates dropped to 0.1% after the deploy",
            "File not found errors: 0 this week",
            "Unknown: 3 items, Internal: 2 items",
            "No such thing as a free lunch: 'economics'",
            "The token was invalid before the rotation; it works now.",
            "Tokens expired this week: 4",
            "Dark mode support, not implemented in v1, landed in v2.",
            "Invalid email addresses: 0 of 312",
            "The email could not be sent yesterday, but today's went out at 9:02.",
            "No data available.",
            "Weather data unavailable on 3 of 30 days; the mean is 14.2 C over the 27 others.",
            "Service availability: 99.9%",
        ],
    },
    ContentRule {
        id: "failed-sentence",
        pattern: r"^(?:The )?[A-Z][\w-]*(?: [\w-]+){0,4} (?:failed|was unsuccessful|could not be completed)(?:[.:]\s*(?:Exception|Error|Reason|Details?|Cause)\b|:\s+\S|\s+(?:with (?:status|error|code|exception)|because|due to)\b)",
        tools: &[],
        dialects: &[],
        precision: Precision::Medium,
        reads: Reads::Verdicts,
        doc: "A tool's verdict that says in its first sentence that the work failed: `Database extraction \
              failed. Exception details: …`, `Notification trigger failed with status: 429`, `Upload was \
              unsuccessful: …`. Drawn from the shapes issue 47's held-out framework corpus reported; read \
              after every other rule, so a more telling one (`failed-with-status`) names the failure first.",
        fires_on: &[
            "Database extraction failed. Exception details: OperationalError('disk I/O error')",
            "Notification trigger failed with status: 429",
            "The payment could not be completed: card declined",
        ],
        ignores: &["Nothing failed. All 12 jobs completed.", "No tests failed.", "Retries after failed logins: 0"],
    },
];
