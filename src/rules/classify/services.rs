//! Classification rules, in registry order after the message rules: what a
//! service's structured error or a client's refusal of a request names
//! (Elasticsearch's exception types, an HTTP client's bad URL, a scraped
//! page that is a block or error page).

use super::ClassRule;
use crate::model::Dialect;
use crate::rules::category::Category as C;

pub(super) const RULES: &[ClassRule] = &[
    // Interruptions and refusals of single agents (moved from messages.rs,
    // in registry order).
    ClassRule {
        id: "command-aborted",
        pattern: r"(?m)^Command was aborted before completion|\(Command was aborted\)",
        tools: &[],
        dialects: &[Dialect::OPENCODE, Dialect::KILO],
        category: C::UserRejected,
        label: "command aborted (interrupted)",
        fires_on: &["(Command was aborted)"],
        ignores: &["Command was not aborted"],
    },
    ClassRule {
        id: "codex-policy-rejected",
        pattern: r"^exec command rejected: |you cannot ask for escalated permissions",
        tools: &[],
        dialects: &[Dialect::CODEX],
        category: C::PermissionDenied,
        label: "rejected by the approval policy",
        fires_on: &["exec command rejected: dangerous command"],
        ignores: &["exec command rejected by user"],
    },
    ClassRule {
        id: "llm-hook-cancelled",
        pattern: r"^Cancelled: ",
        tools: &[],
        dialects: &[Dialect::LLM],
        category: C::PermissionDenied,
        label: "cancelled by a before_call hook",
        fires_on: &["Cancelled: writes are not allowed"],
        ignores: &["cancelled: 0 jobs"],
    },
    // The envelope walker's message for a scraped page that is one
    // (`envelope::ERROR_PAGE`): a block page is the site refusing the
    // scraper (a server's error page is `http-5xx`'s, a missing page
    // `not-found`'s).
    ClassRule {
        id: "scraped-block-page",
        pattern: r"^error page instead of the page asked for: (?i:[^\n]*(?:access denied|cloudflare|just a moment|blocked|not acceptable|forbidden|robot|human|interruption|ddos|request rejected))",
        tools: &[],
        dialects: &[],
        category: C::PermissionDenied,
        label: "the site's bot protection answered",
        fires_on: &[
            "error page instead of the page asked for: Just a moment...",
            "error page instead of the page asked for: GoDaddy Security - Access Denied",
            "error page instead of the page asked for: Not Acceptable!",
        ],
        ignores: &["error page instead of the page asked for: 404 Not Found"],
    },
    // requests (`MissingSchema`: "Invalid URL '…': No scheme supplied.",
    // `InvalidSchema`: "No connection adapters were found for …"), httpx
    // (`UnsupportedProtocol`), urllib ("unknown url type: …"), Node's
    // `fetch` ("Failed to parse URL from …") and `new URL` (ERR_INVALID_URL);
    // tools that say what shape they need (Crush's fetch: "URL must start
    // with http:// or https://", the AWS documentation server's "URL must
    // end with .html").
    ClassRule {
        id: "url-rejected",
        pattern: r"(?i:\binvalid url\b|no scheme supplied|no connection adapters were found|is missing an 'http://' or 'https://' protocol|unknown url type: |failed to parse url from |\bERR_INVALID_URL\b|\bURL must (?:end|start) with\b)",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the URL was not valid",
        fires_on: &[
            "URL must end with .html",
            "Invalid URL 'www.example.com': No scheme supplied. Perhaps you meant https://www.example.com?",
            "Request URL is missing an 'http://' or 'https://' protocol.",
            "TypeError: Failed to parse URL from /api/items",
        ],
        ignores: &["URL checked: valid"],
    },
    // A file where a directory was asked (POSIX ENOTDIR, as Node, Go and
    // Python word it; Pi's `ls` `Not a directory: <path>`); the reverse,
    // EISDIR, is `invalid-parameter-value`'s.
    ClassRule {
        id: "wrong-kind-of-path",
        pattern: r"(?i:\bnot a directory\b|\bENOTDIR\b)",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "a file where a directory was asked, or the reverse",
        fires_on: &["Not a directory: /p/a.txt", "[Errno 20] Not a directory: '/p/a.txt/x'"],
        ignores: &["No such file or directory"],
    },
    // Pi's find and grep tools when their binary is missing and its
    // download failed (pi-coding-agent dist/core/tools/find.js, grep.js).
    ClassRule {
        id: "tool-binary-missing",
        pattern: r"\bis not available and could not be downloaded\b",
        tools: &[],
        dialects: &[],
        category: C::NotFound,
        label: "the program the tool needs is missing",
        fires_on: &["ripgrep (rg) is not available and could not be downloaded"],
        ignores: &["the download is available"],
    },
    // Pi's edit tool (`Edit tool input is invalid. edits must contain at
    // least one replacement.`, dist/core/tools/edit.js).
    ClassRule {
        id: "tool-input-invalid",
        pattern: r"(?i:\btool input is invalid\b)",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the tool's input was not valid",
        fires_on: &["Edit tool input is invalid. edits must contain at least one replacement."],
        ignores: &["input is valid"],
    },
    // Elasticsearch's error `type`s (server/src/main/java/org/elasticsearch/
    // ElasticsearchException.java and the REST layer's names), as the walker
    // reports them (`shard failure: illegal_argument_exception: …`) or a
    // client prints them.
    ClassRule {
        id: "es-bad-request",
        pattern: r"\b(?:illegal_argument_exception|parsing_exception|x_content_parse_exception|query_shard_exception|mapper_parsing_exception|action_request_validation_exception|script_exception|search_phase_execution_exception)\b",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the search service rejected the request",
        fires_on: &[
            "shard failure: illegal_argument_exception: Fielddata is disabled on [alert.signature]",
            "BadRequestError(400, 'parsing_exception', 'unknown query [matchx]')",
        ],
        ignores: &["illegal argument handling is documented"],
    },
    ClassRule {
        id: "es-security",
        pattern: r"\bsecurity_exception\b",
        tools: &[],
        dialects: &[],
        category: C::PermissionDenied,
        label: "the search service refused the credentials",
        fires_on: &["AuthenticationException(401, 'security_exception', 'missing authentication credentials')"],
        ignores: &["security exceptions: none"],
    },
    ClassRule {
        id: "es-overloaded",
        pattern: r"\b(?:circuit_breaking_exception|es_rejected_execution_exception)\b",
        tools: &[],
        dialects: &[],
        category: C::ResourceExhausted,
        label: "the search service is out of capacity",
        fires_on: &["ApiError(429, 'circuit_breaking_exception', '[parent] Data too large')"],
        ignores: &["circuit breaking is configured"],
    },
    // A tool library's guard against a path or URL outside what it may
    // touch: crewai-tools' safe_path (`must not escape the target
    // directory`, `resolves to private/reserved IP … Access to internal
    // networks is not allowed`); an API's refusal of the caller's key or
    // plan (NewsAPI `apiKeyInvalid`, Finnhub's `You don't have access to
    // this resource.`, HubSpot `INVALID_AUTHENTICATION`, Airtable
    // `INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND`, Firecrawl's hosted parse).
    ClassRule {
        id: "guard-or-key-refused",
        pattern: r"(?i:must not escape the (?:target |working |base |root )?directory|resolves to private/reserved IP|access to internal networks is not allowed|requires an authenticated \w+ session|(?:do not|don't) have access to this resource|\bapi key is (?:invalid|incorrect|expired)\b|\bapiKeyInvalid\b|authentication credentials not found|\bINVALID_AUTHENTICATION\b|\binvalid permissions\b|api key is for demo purposes only|failed to authenticate\b|\bAUTHENTICATION_ERROR\b|insufficient authentication scopes|\binsufficientPermissions\b|\bauthentication is required\b|blocked or private host|must not target a private|^Invalid workdir\. Use a path within the workspace)",
        tools: &[],
        dialects: &[],
        category: C::PermissionDenied,
        label: "refused: outside what the tool may touch, or the key lacks the right",
        fires_on: &[
            "Error: Invalid file path — the filename must not escape the target directory.",
            "Error: URL 'http://169.254.169.254/' resolves to private/reserved IP 169.254.169.254. Access to internal networks is not allowed.",
            "You don't have access to this resource.",
            "apiKeyInvalid Your API key is invalid or incorrect.",
            "Authentication credentials not found. This API supports OAuth 2.0 authentication",
            "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND Invalid permissions, or the requested model was not found.",
        ],
        ignores: &["The key is valid; you have access to this resource."],
    },
    // An argument the tool could not read as what it names: mcp-server-time's
    // `Invalid timezone: …`, `Invalid time: 02:30 does not exist in …`;
    // arithmetic a calculator tool refuses (agno's CalculatorTools).
    ClassRule {
        id: "invalid-named-value",
        pattern: r"^(?:Error executing tool \S+: |Error: )?Invalid (?:time ?zone|time|date|datetime|time format)\b|(?i:\bdivision by zero\b|\bdivide by zero\b|square root of a negative number)",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "an argument's value is not valid",
        fires_on: &[
            "Error executing tool get_current_time: Invalid timezone: 'No time zone found with key America/Boston'",
            "Error executing tool convert_time: Invalid time: 02:30 does not exist in America/New_York on 2027-03-14",
            "Division by zero is undefined",
        ],
        ignores: &["Timezone set to Europe/Oslo"],
    },
    // Desktop Commander's edit_block (dist/tools/edit.js).
    ClassRule {
        id: "edit-anchor-fuzzy",
        pattern: r"^(?:Exact match not found, but found a similar text|Search content not found in )",
        tools: &[],
        dialects: &[],
        category: C::EditMatchNotFound,
        label: "the text to replace is not in the file",
        fires_on: &["Search content not found in /w/a.ts. The closest match was \"x\" with only 58% similarity"],
        ignores: &["Search content updated"],
    },
    ClassRule {
        id: "edit-anchor-empty",
        pattern: r"^Empty search strings are not allowed\.",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the text to replace is empty",
        fires_on: &["Empty search strings are not allowed. Please provide a non-empty string to search for."],
        ignores: &["Empty search results."],
    },
    // A hosted model that is starting (the Hugging Face Inference API's
    // 503 `Model X is currently loading`); a service briefly down is
    // `server-error`'s.
    ClassRule {
        id: "service-starting",
        pattern: r"(?i:\bis currently loading\b)",
        tools: &[],
        dialects: &[],
        category: C::ServerError,
        label: "the service is starting",
        fires_on: &["Model facebook/bart-large-cnn is currently loading"],
        ignores: &["The model loaded in 3 s"],
    },
    // A fetch that got nothing (exa-mcp-server's `web_fetch_exa`: `No
    // content found for the provided URL(s).`).
    ClassRule {
        id: "fetched-nothing",
        pattern: r"^No content found for the provided URL",
        tools: &[],
        dialects: &[],
        category: C::NotFound,
        label: "nothing found at the URL",
        fires_on: &["No content found for the provided URL(s)."],
        ignores: &["No content filter applied"],
    },
    // A file a reader will not return whole (agno's FileTools: `file too
    // long. Use read_file_chunk instead`).
    ClassRule {
        id: "file-too-large",
        pattern: r"(?i:\bfile (?:is )?too long\b)",
        tools: &[],
        dialects: &[],
        category: C::ResourceExhausted,
        label: "the file is too large to read whole",
        fires_on: &["Error reading file: file too long. Use read_file_chunk instead"],
        ignores: &["the file is long"],
    },
    // Alpha Vantage's notices: a call it could not read (`Invalid API
    // call.`), a key over its per-minute limit (`Our standard API call
    // frequency is 5 calls per minute`).
    ClassRule {
        id: "alpha-vantage-notice",
        pattern: r"^Invalid API call\.",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the data API could not read the call",
        fires_on: &[
            "Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_DAILY.",
        ],
        ignores: &["Invalid API calls are logged"],
    },
    ClassRule {
        id: "alpha-vantage-frequency",
        pattern: r"\bOur standard API call frequency is\b",
        tools: &[],
        dialects: &[],
        category: C::RateLimit,
        label: "over the data API's call frequency",
        fires_on: &[
            "Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day.",
        ],
        ignores: &["call frequency: daily"],
    },
    // An argument the tool says it needs: mcp-server-kubernetes's logs of a
    // pod with several containers (`Multi-container pod requires container
    // specification`). A URL of the wrong shape (the AWS documentation
    // server's `URL must end with .html`) is `url-rejected`'s.
    ClassRule {
        id: "argument-needed",
        pattern: r"(?i:requires container specification|container name must be specified)",
        tools: &[],
        dialects: &[],
        category: C::MissingRequiredParam,
        label: "an argument the tool needs",
        fires_on: &["Multi-container pod requires container specification"],
        ignores: &["container specification: nginx"],
    },
    // An edit tool that could not place its anchor (Gemini CLI's `replace`:
    // `Could not find an exact match for 'old_string' in '<file>'`; its
    // older wording `Failed to edit, could not find the string to replace`
    // is a message rule's).
    ClassRule {
        id: "edit-anchor-exact",
        pattern: r"^(?:Error: )?Could not find an exact match for '?old_string'? in ",
        tools: &[],
        dialects: &[],
        category: C::EditMatchNotFound,
        label: "the text to replace is not in the file",
        fires_on: &[
            "Could not find an exact match for 'old_string' in '/w/src/cart.ts'. If previous edits modified the file",
        ],
        ignores: &["Found an exact match for old_string"],
    },
    // A database client whose configured address cannot be used (the
    // MongoDB MCP server's `The configured connection string is not valid`).
    ClassRule {
        id: "connection-string-invalid",
        pattern: r"(?i:\bconnection string is not valid\b|\binvalid connection string\b|could not translate host name)",
        tools: &[],
        dialects: &[],
        category: C::Network,
        label: "the database could not be reached with its connection string",
        fires_on: &["The configured connection string is not valid. Please check the connection string"],
        ignores: &["connection string: set"],
    },
    // The OpenAI Agents SDK's sandbox tools (_input_errors.py).
    ClassRule {
        id: "tool-arguments-invalid",
        pattern: r"^Invalid tool arguments(?: for \S+)?\. Check the tool schema",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the arguments do not fit the tool's schema",
        fires_on: &["Invalid tool arguments for cmd. Check the tool schema and try again."],
        ignores: &["Tool arguments checked"],
    },
];
