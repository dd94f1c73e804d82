//! Classification rules, in registry order after the message rules: what a
//! service's structured error or a client's refusal of a request names
//! (Elasticsearch's exception types, an HTTP client's bad URL, a scraped
//! page that is a block or error page).

use super::ClassRule;
use crate::rules::category::Category as C;

pub(super) const RULES: &[ClassRule] = &[
    // The envelope walker's message for a scraped page that is one
    // (`envelope::ERROR_PAGE`): a block page is the site refusing the
    // scraper (a server's error page is `http-5xx`'s, a missing page
    // `not-found`'s).
    ClassRule {
        id: "scraped-block-page",
        pattern: r"^(?:JSON envelope error: )?error page instead of the page asked for: (?i:[^\n]*(?:access denied|cloudflare|just a moment|blocked|not acceptable|forbidden|robot|human|interruption|ddos|request rejected))",
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
    // `fetch` ("Failed to parse URL from …") and `new URL` (ERR_INVALID_URL).
    ClassRule {
        id: "url-rejected",
        pattern: r"(?i:\binvalid url\b|no scheme supplied|no connection adapters were found|is missing an 'http://' or 'https://' protocol|unknown url type: |failed to parse url from |\bERR_INVALID_URL\b)",
        tools: &[],
        dialects: &[],
        category: C::InvalidParamValue,
        label: "the URL was not valid",
        fires_on: &[
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
];
