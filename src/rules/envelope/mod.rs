//! One JSON envelope walker for every store: does a tool's JSON reply say
//! that the call failed, and where is the message that says why?
//!
//! The failure fields are those of `LABELS.md`: `success` or `ok` false,
//! `status` of `error`/`failed`/`failure`/`unauthorized`/`forbidden`/
//! `denied` (or an HTTP error status, or a Google Maps failure such as
//! `REQUEST_DENIED`), a non-empty `error`, `errors` or
//! `exception`, `isError` true, an error code, a non-zero exit status,
//! `_shards.failed` above 0 with no hits (Elasticsearch), and a batch whose
//! every item failed. The same is read in the error bodies of the common
//! web frameworks and APIs: a reply that is nothing but a `detail` saying
//! an HTTP error (FastAPI, Django REST framework), Jira's `errorMessages`,
//! PostgREST's `code`/`details`/`hint`/`message`, AWS Lambda's
//! `errorType`/`errorMessage`, OpenWeatherMap's `cod`/`message`. The guards are the same fields saying
//! success: `error: null`, `errors: []`, `failed: 0`.
//!
//! Replies are often nested: an MCP server's `CallToolResult`
//! (`{"content": [{"type": "text", "text": "…"}], "isError": false}`) whose
//! text is itself JSON, inside an ADK `response` (`{"result": {…}}`). The
//! walker follows the keys that wrap a reply (`result`, `response`,
//! `output`, `structuredContent`, `body`, MCP `content[].text`), parsing a
//! string that holds a JSON object, a few levels deep; other keys are the
//! reply's data and are never judged (a list of jobs whose `status` is
//! `failed` is an answer, not a failure).

use std::borrow::Cow;

use serde_json::{Map, Value};

/// How deep the walker follows wrapped replies.
const MAX_DEPTH: usize = 4;
/// The longest string parsed as a nested reply.
const MAX_NESTED: usize = 1 << 18;

/// Keys whose value is the reply the envelope wraps.
const WRAPPERS: &[&str] = &["result", "response", "output", "structuredContent", "body"];

/// Keys of a batch's items.
const BATCHES: &[&str] = &["results", "items", "responses", "operations", "records", "outcomes", "search_results"];

/// Values of `status` (case aside) that say the call failed.
const FAILED_STATUS: &[&str] = &[
    "error",
    "errored",
    "failed",
    "failure",
    "fail",
    "unauthorized",
    "unauthenticated",
    "forbidden",
    "denied",
    "access_denied",
    "permission_denied",
    // The Google Maps Platform web services' `status` of a request that
    // failed (Geocoding, Places, Directions: "Status codes"); their
    // `ZERO_RESULTS` is a search that found nothing, an answer.
    "request_denied",
    "over_query_limit",
    "over_daily_limit",
    "invalid_request",
    "unknown_error",
];

/// Keys of the message that says why, most telling first.
const MESSAGE_KEYS: &[&str] = &[
    "error",
    "Error",
    "Error Message",
    "error_message",
    "errorMessage",
    "error_details",
    "errorDetails",
    "errors",
    "errorMessages",
    "exception",
    "message",
    "Message",
    "msg",
    "detail",
    "stderr",
    "stdout",
    "result",
    "output",
    "details",
    "error_code",
    "errorCode",
    // Alpha Vantage's notices (`data_api_refusal`).
    "Information",
    "Note",
];

/// A failing envelope: the message it gives, and the exit status it reports.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeFailure {
    /// What the envelope says failed (its message, or the object itself).
    pub message: String,
    /// A non-zero exit status the envelope reports around a process.
    pub exit: Option<i64>,
}

/// Does `v` say anything (not null, false, 0, empty, or a tool's
/// placeholder for an empty stream such as ADK's `<no stderr captured>`)?
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.trim().is_empty() && !is_placeholder(s),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::Bool(true) => true,
    }
}

/// A stream's placeholder for nothing captured (`<no stdout captured>`,
/// google/adk-python's bash tool).
fn is_placeholder(s: &str) -> bool {
    let t = s.trim();
    t.starts_with("<no ") && t.ends_with(" captured>") && t.len() < 40
}

/// A process envelope's streams, stdout then stderr, placeholders aside.
fn process_streams(o: &Map<String, Value>) -> String {
    let streams: Vec<&str> = ["stdout", "stderr", "output"]
        .iter()
        .filter_map(|k| o.get(*k).and_then(Value::as_str))
        .map(str::trim_end)
        .filter(|s| !s.is_empty() && !is_placeholder(s))
        .collect();
    streams.join("\n")
}

/// An HTTP error status, as a number or a numeric string.
fn http_error(v: Option<&Value>) -> bool {
    let n = match v {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    n.is_some_and(|n| (400..600).contains(&n))
}

/// A string holding a JSON object, parsed; also inside the boundary the
/// Supabase MCP server puts around data it returns (`Below is the result of
/// the SQL query. … <untrusted-data-UUID>\n{…}\n</untrusted-data-UUID>`;
/// @supabase/mcp-server-supabase's wrapWithUntrustedDataBoundary), where a
/// log query's `{"error": …}` is the reply.
fn nested_object(s: &str) -> Option<Map<String, Value>> {
    let t = untrusted_data(s).unwrap_or(s).trim();
    if !t.starts_with('{') || t.len() > MAX_NESTED {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

/// The non-zero exit status of an envelope around a process.
fn exit_of(o: &Map<String, Value>) -> Option<i64> {
    ["exit_code", "exitCode", "returncode", "return_code"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_i64))
        .filter(|&c| c != 0)
}

/// The data inside a Supabase untrusted-data boundary, when `s` is one.
fn untrusted_data(s: &str) -> Option<&str> {
    if !s.starts_with("Below is the result of ") {
        return None;
    }
    // The tag opens a line; the preamble names it in a sentence first.
    let open = s.find("\n<untrusted-data-")? + 1;
    let body = &s[open..];
    let start = body.find('>')? + 1;
    let end = body.find("</untrusted-data-")?;
    (start <= end).then(|| &body[start..end])
}

/// Does `o` itself (not what it wraps) say that the call failed?
fn says_failed(o: &Map<String, Value>) -> bool {
    let status = o.get("status").and_then(Value::as_str).map(|s| s.trim().to_ascii_lowercase());
    let partial = answered_in_part(o);
    (o.get("error").is_some_and(truthy) && !empty_search_error(o) && !partial)
        || (o.get("errors").is_some_and(truthy) && !partial)
        || o.get("exception").is_some_and(truthy)
        || status.as_deref().is_some_and(|s| FAILED_STATUS.contains(&s))
        || http_error(o.get("status"))
        || http_error(o.get("status_code").or_else(|| o.get("statusCode")))
        || owm_error(o)
        || error_page_title(o).is_some()
        || page_status(o).is_some()
        || error_titled_result(o)
        || data_api_refusal(o)
        || status_object_error(o)
        || o.get("success") == Some(&Value::Bool(false))
        || o.get("ok") == Some(&Value::Bool(false))
        || ["success", "ok"].iter().any(|k| o.get(*k).and_then(Value::as_str).is_some_and(|s| s.trim() == "false"))
        // `{"Error": "Invalid symbol"}`; a count keyed `Error` (log levels) is data.
        || o.get("Error").and_then(Value::as_str).is_some_and(|s| truthy(&Value::String(s.to_string())))
        || coded_error(o)
        || github_error(o)
        || api_fault(o)
        || aws_error(o)
        || gateway_message(o)
        || partial_unavailable(o)
        // Composio's tool result: `{"data": …, "error": …, "successful": false}`.
        || o.get("successful") == Some(&Value::Bool(false))
        || o.get("isError") == Some(&Value::Bool(true))
        || o.get("error_code").or_else(|| o.get("errorCode")).is_some_and(truthy)
        || error_typed(o)
        || o.get("errorMessages").is_some_and(truthy)
        || detail_only_failed(o)
        || postgrest_error(o)
        || auth_pending(o)
        || exit_of(o).is_some()
        || shards_failed(o)
        || batch_failed(o)
}

/// A reply whose own verdict is success (`success`, `ok` or `successful`
/// true) and that carries its answer (a non-empty `data`, `result` or
/// `results`) beside an `error` or `errors` naming the parts that failed:
/// the call did what it asked, only extras failed (LABELS.md). A batch
/// whose every item failed is still `batch_failed`.
fn answered_in_part(o: &Map<String, Value>) -> bool {
    let says_success = ["success", "ok", "successful"].iter().any(|k| o.get(*k) == Some(&Value::Bool(true)));
    says_success && ["data", "result", "results"].iter().any(|k| o.get(*k).is_some_and(truthy))
}

/// An exception handed back as data: `error_type` with its
/// `error_details` (google/adk-python's ReflectAndRetryToolPlugin answers
/// a tool that raised with `{"response_type":
/// "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN", "error_type", "error_details"}`,
/// and no `error` or `status`).
/// AWS Lambda's answer for a function that raised, `{"errorMessage": …,
/// "errorType": …, "stackTrace": […]}`, is the same pair by other names.
fn error_typed(o: &Map<String, Value>) -> bool {
    let typed = o.get("error_type").or_else(|| o.get("errorType")).is_some_and(truthy);
    let said = ["error_details", "errorDetails", "error_message", "errorMessage"];
    typed && said.iter().any(|k| o.get(*k).is_some_and(truthy))
}

/// A bare error body: an HTTP error status as `code` beside its `message`
/// and nothing but an error body's other fields (`{"code": 404, "message":
/// "Not Found"}`, the body many gateways and APIs answer an error with).
/// An object with other fields is data that has a code.
fn coded_error(o: &Map<String, Value>) -> bool {
    const ERROR_BODY: &[&str] = &[
        "code",
        "message",
        "msg",
        "details",
        "detail",
        "status",
        "error",
        "data",
        "request_id",
        "requestId",
        "timestamp",
        "path",
        "success",
        "type",
        "reason",
    ];
    http_error(o.get("code"))
        && ["message", "msg"].iter().any(|k| o.get(*k).is_some_and(truthy))
        && o.keys().all(|k| ERROR_BODY.contains(&k.as_str()))
        && !o.get("data").is_some_and(truthy)
}

/// GitHub's REST error body: `{"message": "Not Found", "documentation_url":
/// "https://docs.github.com/rest/…", "status": "404"}` (docs.github.com,
/// "Troubleshooting the REST API": client errors), which `gh api`, an HTTP
/// tool or an application hands back as the answer.
fn github_error(o: &Map<String, Value>) -> bool {
    o.get("message").is_some_and(truthy)
        && o.get("documentation_url")
            .and_then(Value::as_str)
            .is_some_and(|u| u.contains("docs.github.com") || u.contains("developer.github.com"))
        && o.keys().all(|k| ["message", "documentation_url", "status", "errors"].contains(&k.as_str()))
}

/// An API gateway's fault: `{"fault": {"faultstring": "Invalid ApiKey",
/// "detail": {"errorcode": "oauth.v2.InvalidApiKey"}}}` (Apigee's error
/// response, after SOAP's `faultstring`).
fn api_fault(o: &Map<String, Value>) -> bool {
    o.get("fault").and_then(Value::as_object).is_some_and(|f| f.get("faultstring").is_some_and(truthy))
}

/// `status: "partial"` whose own words say the part is missing: a
/// `message`, `error`, `warning` or `detail` saying it is unavailable,
/// failed or could not be had (LABELS.md: `status: partial` where the part
/// asked for is unavailable). A partial answer that only counts what it
/// got (`"3 of 5 sources loaded"`) is an answer.
fn partial_unavailable(o: &Map<String, Value>) -> bool {
    const SAYS: &[&str] =
        &["unavailable", "not available", "failed", "error", "missing", "could not", "couldn't", "unable"];
    o.get("status").and_then(Value::as_str).is_some_and(|s| s.trim().eq_ignore_ascii_case("partial"))
        && ["message", "error", "warning", "detail", "note"]
            .iter()
            .filter_map(|k| o.get(*k))
            .filter_map(Value::as_str)
            .any(|m| {
                let m = m.to_ascii_lowercase();
                SAYS.iter().any(|w| m.contains(w))
            })
}

/// The AWS JSON protocols' error body: the error's shape name as `__type`
/// (`"com.amazon.coral.service#UnrecognizedClientException"`,
/// `"ResourceNotFoundException"`) beside its `message` (AWS Smithy,
/// "awsJson1_0 protocol": operation error serialization), and nothing else.
fn aws_error(o: &Map<String, Value>) -> bool {
    o.get("__type").and_then(Value::as_str).is_some_and(|t| {
        let name = t.rsplit('#').next().unwrap_or(t);
        ["Exception", "Error", "Fault"].iter().any(|e| name.ends_with(e))
    }) && o.keys().all(|k| ["__type", "message", "Message", "code", "Code"].contains(&k.as_str()))
}

/// The default error bodies of API gateways and web frameworks: one
/// `message` and nothing else, saying one of the gateway's own verdicts.
/// Amazon API Gateway's default gateway responses (`{"message": "Missing
/// Authentication Token"}`, `"Forbidden"`, `"Unauthorized"`, `"Internal
/// server error"`, `"Endpoint request timed out"`, `"Too Many Requests"`,
/// `"Limit Exceeded"`: "Gateway response types"), Kong's (`"No API key
/// found in request"`, `"Invalid authentication credentials"`, `"API rate
/// limit exceeded"`, `"no Route matched with those values"`) and ASP.NET
/// Web API's (`{"Message": "An error has occurred."}`, `"Authorization has
/// been denied for this request."`). A lone `message` saying anything else
/// is data.
fn gateway_message(o: &Map<String, Value>) -> bool {
    const VERDICTS: &[&str] = &[
        "missing authentication token",
        "forbidden",
        "unauthorized",
        "internal server error",
        "endpoint request timed out",
        "too many requests",
        "limit exceeded",
        "service unavailable",
        "bad gateway",
        "gateway timeout",
        "not found",
        "no api key found in request",
        "invalid authentication credentials",
        "invalid api key",
        "api rate limit exceeded",
        "no route matched with those values",
        "an error has occurred",
        "authorization has been denied for this request",
        "user is not authorized to access this resource",
    ];
    o.len() == 1
        && ["message", "Message"].iter().filter_map(|k| o.get(*k)).filter_map(Value::as_str).any(|m| {
            let m = m.trim().trim_end_matches(['.', '!']).to_ascii_lowercase();
            VERDICTS.contains(&m.as_str())
        })
}

/// OpenWeatherMap's error body: its HTTP status as `cod` (a number, or a
/// numeric string) beside a `message` (`{"cod": "404", "message": "city not
/// found"}`); a forecast's `cod` is `"200"`.
fn owm_error(o: &Map<String, Value>) -> bool {
    http_error(o.get("cod")) && o.get("message").is_some_and(truthy)
}

/// A search that found nothing, said in an `error` field: SerpApi's
/// `"error": "Google hasn't returned any results for this query."` beside
/// its `search_metadata` saying `Success`, and an application's search
/// tool answering `{"error": "No matching listings found."}` or `"No
/// results found for …"`, the words a search's empty answer is printed in
/// elsewhere. A search's "none" is an answer (LABELS.md); a keyed lookup's
/// `"No user found with id 42"` names no search and stays a failure.
fn empty_search_error(o: &Map<String, Value>) -> bool {
    o.get("error").and_then(Value::as_str).is_some_and(|e| {
        let e = e.to_ascii_lowercase();
        ["hasn't returned any results", "has not returned any results", "no results", "no matching ", "no matches"]
            .iter()
            .any(|w| e.contains(w))
    })
}

/// Alpha Vantage answers with HTTP 200 and a body that is only its notice:
/// `{"Error Message": "Invalid API call. …"}`, and, for a key over its
/// limit, the demo key or a premium endpoint, `{"Information": "Thank you
/// for using Alpha Vantage! …"}` or the older `{"Note": …}` in place of the
/// data (a `Note` of another tool is its own). GitHub's REST API answers
/// an error status with `{"message": …, "documentation_url":
/// "https://docs.github.com/…"}` (with `status` and a 422's `errors` beside
/// it; docs.github.com, "Client errors"): a reader of the web that fetched
/// `api.github.com` got that notice, not the data.
fn data_api_refusal(o: &Map<String, Value>) -> bool {
    if o.get("Error Message").is_some_and(truthy) {
        return true;
    }
    if github_error(o) {
        return true;
    }
    let mut it = o.iter();
    match (it.next(), it.next()) {
        (Some((k, Value::String(v))), None) if k == "Information" || k == "Note" => {
            let v = v.to_ascii_lowercase();
            v.contains("alpha vantage") || v.contains("alphavantage")
        }
        _ => false,
    }
}

/// A search result the AWS documentation MCP server makes of a failed
/// search: no URL, and a title that is the error (`Error searching AWS
/// docs - status code 503`, `Error getting recommendations: ReadTimeout`;
/// awslabs aws-documentation-mcp-server, server_aws.py).
fn error_titled_result(o: &Map<String, Value>) -> bool {
    o.get("url").and_then(Value::as_str).is_some_and(str::is_empty)
        && o.get("title").and_then(Value::as_str).is_some_and(|t| {
            t.strip_prefix("Error ").is_some_and(|rest| {
                let verb = rest.split_whitespace().next().unwrap_or_default();
                verb.len() > 3 && verb.ends_with("ing") && verb.bytes().all(|b| b.is_ascii_lowercase())
            }) && (t.contains(": ") || t.contains(" - status code "))
        })
}

/// CoinGecko's error body: `{"status": {"error_code": 429,
/// "error_message": "You've exceeded the Rate Limit…"}}`.
fn status_object_error(o: &Map<String, Value>) -> bool {
    o.get("status")
        .and_then(Value::as_object)
        .is_some_and(|st| http_error(st.get("error_code")) && st.get("error_message").is_some_and(truthy))
}

/// A scraped document whose `metadata` gives the page's HTTP error status
/// beside its source URL (Firecrawl's scrape: `{"markdown": …,
/// "metadata": {"title": …, "sourceURL": …, "statusCode": 404}}`, which
/// firecrawl-mcp returns as it is): the status and the page's title.
fn page_status(o: &Map<String, Value>) -> Option<String> {
    let meta = o.get("metadata")?.as_object()?;
    let code = meta.get("statusCode").or_else(|| meta.get("status_code"));
    let sourced = meta.contains_key("sourceURL") || meta.contains_key("url") || meta.contains_key("source_url");
    if !http_error(code) || !sourced || !PAGE_KEYS.iter().any(|k| o.contains_key(*k)) {
        return None;
    }
    let code = code.map(|v| v.as_str().map_or_else(|| v.to_string(), |s| s.trim().to_string()))?;
    let title = meta.get("title").and_then(Value::as_str).map(str::trim).unwrap_or_default();
    Some(if title.is_empty() { code } else { format!("{code} {title}") })
}

/// How the message of a scraped error page starts (`classify` reads it).
pub const ERROR_PAGE: &str = "error page instead of the page asked for:";

/// Keys of a scraped page's data, one of which stands beside its `title`.
const PAGE_KEYS: &[&str] = &[
    "url",
    "headings",
    "h1",
    "h1_tags",
    "h2_tags",
    "description",
    "meta_description",
    "links",
    "images",
    "content",
    "text",
    "markdown",
    "html",
];

/// Titles of the pages a site's bot protection or firewall serves instead
/// of the page (Cloudflare's challenge `Just a moment...` and block
/// `Attention Required! | Cloudflare`, `Access denied | … used Cloudflare
/// to restrict access`, Akamai's `Access Denied`, Sucuri's and GoDaddy's
/// `… - Access Denied`, ModSecurity's 406 `Not Acceptable!`, PerimeterX's
/// `Access to this page has been denied`, Imperva's `Pardon Our
/// Interruption`), whole or followed by a separator.
const BLOCK_TITLES: &[&str] = &[
    "just a moment...",
    "attention required! | cloudflare",
    "access denied",
    "not acceptable!",
    "forbidden",
    "request rejected",
    "access to this page has been denied",
    "pardon our interruption",
    "robot or human?",
    "are you a robot?",
    "verifying you are human",
    "sorry, you have been blocked",
    "you have been blocked",
    "ddos-guard",
    "please wait... | cloudflare",
    "page not found",
];

/// Reason phrases of a web server's error page titled by its status (`404
/// Not Found`, `509 Bandwidth Limit Exceeded`, IIS's `500 - Internal server
/// error.`, Google's `Error 404 (Not Found)!!1`).
const ERROR_REASONS: &[&str] = &[
    "not found",
    "forbidden",
    "bad request",
    "unauthorized",
    "internal server error",
    "bad gateway",
    "service unavailable",
    "service temporarily unavailable",
    "gateway time-out",
    "gateway timeout",
    "not acceptable",
    "too many requests",
    "bandwidth limit exceeded",
    "method not allowed",
    "gone",
    "request timeout",
    "request time-out",
    "page not found",
    "file or directory not found",
    "access denied",
];

/// A scraper's or fetch tool's reply whose page is an error or block page:
/// its `title` (beside the page's other data) is one, so the page asked for
/// was not returned (LABELS.md). The title, when it is.
fn error_page_title(o: &Map<String, Value>) -> Option<&str> {
    let title = o.get("title").and_then(Value::as_str)?.trim();
    if title.len() > 120 || !PAGE_KEYS.iter().any(|k| o.contains_key(*k)) {
        return None;
    }
    let t = title.to_ascii_lowercase();
    let whole_or_cut = |rest: &str| rest.trim_start().chars().next().is_none_or(|c| !c.is_alphanumeric());
    let blocked = BLOCK_TITLES.iter().any(|b| t.strip_prefix(b).is_some_and(whole_or_cut))
        || t.ends_with(" - access denied")
        || t.ends_with(" | access denied");
    let rest = t.strip_prefix("error ").unwrap_or(&t);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let status = digits == 3 && matches!(rest.as_bytes()[0], b'4' | b'5') && {
        let reason = rest[3..].trim_start_matches([' ', '-', ':', '|', '(']);
        ERROR_REASONS.iter().any(|r| reason.strip_prefix(r).is_some_and(whole_or_cut))
    };
    (blocked || status).then_some(title)
}

/// The failure of a reader's or scraper's page data whose page is a block
/// or error page (`error_page_title`), as the walker words it.
pub fn error_page(o: &Map<String, Value>) -> Option<String> {
    error_page_title(o).map(|title| format!("{ERROR_PAGE} {title}"))
}

/// A scraped page that is not the page asked for, as the walker words it:
/// a block or error page by its title (`error_page`), or by the HTTP status
/// its metadata gives (`page_status`).
fn page_failure(o: &Map<String, Value>) -> Option<String> {
    error_page(o).or_else(|| page_status(o).map(|page| format!("{ERROR_PAGE} {page}")))
}

/// What a reader's or scraper's data says failed, when it is not the data
/// asked for: a block or error page (`error_page`), and for a
/// reader of the web (`web`), a scraped document whose metadata gives an
/// HTTP error status (`page_status`) or a data API's notice in place of the
/// data (`data_api_refusal`).
pub fn data_failure(o: &Map<String, Value>, web: bool) -> Option<String> {
    // A file reader's JSON is the file's: a saved reply is data.
    if !web {
        return error_page(o);
    }
    page_failure(o).or_else(|| data_api_refusal(o).then(|| message_of(o)))
}

/// Words of an HTTP error reply's `detail`: the reason phrases Starlette
/// gives an `HTTPException` by default (`http.HTTPStatus(code).phrase`),
/// FastAPI's security classes (`Not authenticated`), Django REST
/// framework's `default_detail`s (`Not found.`, `Authentication
/// credentials were not provided.`, `Request was throttled.`), and the
/// words an application's own `HTTPException(detail=…)` uses for one.
const DETAIL_FAILURE_WORDS: &[&str] = &[
    "not found",
    "not authenticated",
    "unauthorized",
    "unauthorised",
    "forbidden",
    "bad request",
    "method not allowed",
    "not allowed",
    "not acceptable",
    "unsupported media type",
    "unprocessable",
    "too many requests",
    "throttled",
    "internal server error",
    "server error occurred",
    "service unavailable",
    "bad gateway",
    "gateway timeout",
    "request timeout",
    "conflict",
    "authentication credentials",
    "credentials were not provided",
    "invalid token",
    "token is invalid",
    "token has expired",
    "do not have permission",
    "permission denied",
    "access denied",
    "does not exist",
    "already exists",
    "invalid",
    "malformed",
    "required",
    "failed",
    "error",
];

/// A reply that is nothing but `detail`, FastAPI's and Django REST
/// framework's shape of an error (`{"detail": exc.detail}`), when it says
/// one: FastAPI's request validation errors (`[{"type": "missing", "loc":
/// […], "msg": "Field required"}]`), or a message in the words of an HTTP
/// error. A `detail` that reports something done is the reply's data.
fn detail_only_failed(o: &Map<String, Value>) -> bool {
    if o.len() != 1 {
        return false;
    }
    match o.get("detail") {
        Some(Value::Array(items)) => {
            !items.is_empty()
                && items.iter().all(|i| i.get("msg").is_some_and(Value::is_string) && i.get("loc").is_some())
        }
        Some(Value::String(s)) => {
            let s = s.to_ascii_lowercase();
            s.len() <= 300 && DETAIL_FAILURE_WORDS.iter().any(|w| s.contains(w))
        }
        // An application's `HTTPException(detail={"error": …})` (Tavily's
        // `{"detail": {"error": "Unauthorized: missing or invalid API key."}}`).
        Some(Value::Object(d)) => d.get("error").is_some_and(truthy),
        _ => false,
    }
}

/// PostgREST's (Supabase's) error body: exactly `code`, `details`, `hint`
/// and `message`, the `code` a Postgres SQLSTATE (`42P01`) or its own
/// `PGRST…` (PostgREST docs, "Errors").
fn postgrest_error(o: &Map<String, Value>) -> bool {
    const KEYS: [&str; 4] = ["code", "details", "hint", "message"];
    o.len() == KEYS.len()
        && KEYS.iter().all(|k| o.contains_key(*k))
        && o.get("code").and_then(Value::as_str).is_some_and(|c| !c.is_empty())
        && o.get("message").and_then(Value::as_str).is_some_and(|m| !m.is_empty())
}

/// A request that is waiting for the user to authorise it, so did not run:
/// google/adk-python's RestApiTool and Google API tools answer `{"pending":
/// true, "message": "Needs your authorization to access your data."}`.
fn auth_pending(o: &Map<String, Value>) -> bool {
    let said = o.get("message").and_then(Value::as_str).unwrap_or("").to_ascii_lowercase();
    o.get("pending") == Some(&Value::Bool(true)) && said.contains("authori")
}

/// Elasticsearch: a search some of whose shards failed and that found nothing.
fn shards_failed(o: &Map<String, Value>) -> bool {
    let failed = o.get("_shards").and_then(|s| s.get("failed")).and_then(Value::as_u64).unwrap_or(0);
    let hits = o.get("hits").and_then(|h| h.get("hits")).and_then(Value::as_array).map_or(0, Vec::len);
    failed > 0 && hits == 0
}

/// A batch (`results`, `items`, …) of at least one item, every item of
/// which says it failed. A page titled like an error page is a search's
/// hit (a result about Cloudflare's `Just a moment...`), not an item that
/// failed: only a scraper's own page data is read by its title.
fn batch_failed(o: &Map<String, Value>) -> bool {
    BATCHES.iter().filter_map(|k| o.get(*k).and_then(Value::as_array)).any(|items| {
        !items.is_empty()
            && items.iter().all(|i| {
                i.as_object().is_some_and(|m| says_failed(m) && !batch_failed(m) && error_page_title(m).is_none())
            })
    })
}

/// A status of `o` that tells more than "failed": an HTTP error status, or
/// a word such as `unauthorized`.
fn telling_status(o: &Map<String, Value>) -> Option<String> {
    // Google's and others' `{"error": {"code": 403, "status": "PERMISSION_DENIED"}}`.
    if let Some(Value::Object(e)) = o.get("error") {
        let code = http_error(e.get("code")).then(|| e.get("code").map(Value::to_string)).flatten();
        // gRPC-style `status` (Google), or the error's `type` (Anthropic's
        // `overloaded_error`, OpenAI's `invalid_request_error`) and `code`
        // (`invalid_api_key`).
        let status = e
            .get("status")
            .and_then(Value::as_str)
            .or_else(|| e.get("code").and_then(Value::as_str))
            .or_else(|| e.get("type").and_then(Value::as_str))
            .filter(|s| !s.is_empty());
        match (code, status) {
            (Some(c), Some(s)) => return Some(format!("{} {s}", c.trim_matches('"'))),
            (Some(c), None) => return Some(c.trim_matches('"').to_string()),
            (None, Some(s)) => return Some(s.to_string()),
            (None, None) => {}
        }
    }
    for k in ["status", "status_code", "statusCode", "cod"] {
        if http_error(o.get(k)) {
            return o.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), |s| s.trim().to_string()));
        }
    }
    let status = o.get("status").and_then(Value::as_str)?.trim().to_ascii_lowercase();
    (FAILED_STATUS.contains(&status.as_str()) && !GENERIC_STATUS.contains(&status.as_str())).then_some(status)
}

/// Failed statuses that say nothing more than "failed".
const GENERIC_STATUS: &[&str] = &["error", "errored", "failed", "failure", "fail"];

/// What an Elasticsearch search's first shard failure says.
fn shard_failure(o: &Map<String, Value>) -> String {
    let reason = o.get("_shards").and_then(|s| s.get("failures")).and_then(|f| f.get(0)).and_then(|f| f.get("reason"));
    let kind = reason.and_then(|r| r.get("type")).and_then(Value::as_str);
    let why = reason.and_then(|r| r.get("reason")).and_then(Value::as_str);
    match (kind, why) {
        (Some(k), Some(w)) => format!("shard failure: {k}: {w}"),
        (None, Some(w)) => format!("shard failure: {w}"),
        _ => "shard failure: the search failed on some shards and found nothing".to_string(),
    }
}

/// The message of a failing envelope `o`.
fn message_of(o: &Map<String, Value>) -> String {
    if error_titled_result(o)
        && let Some(title) = o.get("title").and_then(Value::as_str)
    {
        return title.to_string();
    }
    // Apigee's is its fault's `faultstring`.
    if let Some(said) = o.get("fault").and_then(|f| f.get("faultstring")).and_then(Value::as_str)
        && api_fault(o)
    {
        return said.to_string();
    }
    // CoinGecko's message is inside its `status` object.
    if status_object_error(o)
        && let Some(said) = o.get("status").and_then(|st| st.get("error_message"))
    {
        return said.as_str().map_or_else(|| said.to_string(), str::to_string);
    }
    let said = MESSAGE_KEYS.iter().filter_map(|k| o.get(*k).filter(|v| truthy(v))).find_map(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => Some(match m.get("message").and_then(Value::as_str) {
            Some(s) => s.to_string(),
            None => v.to_string(),
        }),
        Value::Array(items) => items.iter().find_map(|i| match i {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => {
                m.get("message").and_then(Value::as_str).map(str::to_string).or_else(|| validation_item(m))
            }
            _ => None,
        }),
        Value::Bool(_) => None,
        other => Some(other.to_string()),
    });
    if let Some(s) = said {
        return s;
    }
    // A batch: the first item's message.
    if let Some(m) = BATCHES
        .iter()
        .filter_map(|k| o.get(*k).and_then(Value::as_array))
        .find_map(|items| items.first().and_then(Value::as_object))
    {
        return message_of(m);
    }
    Value::Object(o.clone()).to_string()
}

/// A request validation error of FastAPI (pydantic's `errors()`): `{"loc":
/// ["body", "name"], "msg": "Field required", "type": "missing"}`, shown as
/// pydantic prints it (`body.name: Field required [type=missing]`).
fn validation_item(m: &Map<String, Value>) -> Option<String> {
    let msg = m.get("msg").and_then(Value::as_str)?;
    let loc: Vec<String> = m
        .get("loc")
        .and_then(Value::as_array)
        .map(|l| l.iter().map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_string)).collect())
        .unwrap_or_default();
    let kind = m.get("type").and_then(Value::as_str).map(|t| format!(" [type={t}]")).unwrap_or_default();
    Some(if loc.is_empty() { format!("{msg}{kind}") } else { format!("{}: {msg}{kind}", loc.join(".")) })
}

/// The replies `o` wraps, each as an object: a wrapper key's object
/// (borrowed), or a string holding one, and an MCP result's text contents
/// holding JSON (parsed).
fn wrapped(o: &Map<String, Value>) -> Vec<Cow<'_, Map<String, Value>>> {
    let mut out = Vec::new();
    for k in WRAPPERS {
        match o.get(*k) {
            Some(Value::Object(m)) => out.push(Cow::Borrowed(m)),
            Some(Value::String(s)) => out.extend(nested_object(s).map(Cow::Owned)),
            _ => {}
        }
    }
    if let Some(t) = content_item_text(o) {
        out.extend(nested_object(t).map(Cow::Owned));
    }
    if let Some(Value::Array(parts)) = o.get("content") {
        for p in parts {
            if p.get("type").and_then(Value::as_str) == Some("text")
                && let Some(t) = p.get("text").and_then(Value::as_str)
            {
                out.extend(nested_object(t).map(Cow::Owned));
            }
        }
    }
    out
}

/// `o` and every reply it wraps, as the walker follows them (wrapper
/// keys, MCP text contents, strings holding JSON), at most `MAX_DEPTH`
/// levels down: what a custom rule's JSON pointer is tried on
/// (`config`).
pub fn layers(o: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let mut out = vec![o.clone()];
    let mut start = 0;
    for _ in 0..MAX_DEPTH {
        let end = out.len();
        for i in start..end {
            let inner: Vec<Map<String, Value>> = wrapped(&out[i]).into_iter().map(Cow::into_owned).collect();
            out.extend(inner);
        }
        if out.len() == end {
            break;
        }
        start = end;
    }
    out
}

/// Does the envelope `o`, or a reply it wraps, say the call failed?
pub fn failure(o: &Map<String, Value>) -> Option<EnvelopeFailure> {
    walk(o, 0)
}

fn walk(o: &Map<String, Value>, depth: usize) -> Option<EnvelopeFailure> {
    if says_failed(o) {
        // A failing MCP result's words are in its text contents.
        let has_message = MESSAGE_KEYS.iter().any(|k| o.get(*k).is_some_and(truthy));
        let exit = exit_of(o);
        let mut message = match mcp_text(o) {
            Some(t) if !has_message => t,
            _ if shards_failed(o) => shard_failure(o),
            _ if let Some(page) = page_failure(o) => page,
            // A process that exited non-zero: what it printed, which may be
            // nothing (a search that found nothing is judged by its command).
            _ if exit.is_some() && !o.get("error").is_some_and(truthy) => process_streams(o),
            _ => message_of(o),
        };
        // An exception's type says what kind (`KeyError: 'A-991'`).
        if let Some(kind) = o.get("error_type").or_else(|| o.get("errorType")).and_then(Value::as_str)
            && error_typed(o)
            && !message.contains(kind)
        {
            message = format!("{kind}: {message}");
        }
        // The status says what kind of failure (401, `unauthorized`) where
        // the message may not: it goes first, for the category.
        if let Some(status) = telling_status(o)
            && !message.contains(&status)
        {
            message = format!("{status} {message}");
        }
        return Some(EnvelopeFailure { message, exit });
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    wrapped(o).iter().find_map(|inner| walk(inner, depth + 1))
}

/// The keys an MCP content item may have (`TextContent`, `ImageContent`,
/// `EmbeddedResource`, `ResourceLink` of the MCP schema).
const ITEM_KEYS: &[&str] = &["type", "text", "annotations", "_meta", "meta", "data", "mimeType", "resource"];

/// Is `o` an MCP content item and nothing else: a string `type` with at
/// most the keys of the schema's content types beside it?
fn is_content_item(o: &Map<String, Value>) -> bool {
    o.get("type").is_some_and(Value::is_string) && o.keys().all(|k| ITEM_KEYS.contains(&k.as_str()))
}

/// The text of one MCP content item stored alone (`{"type": "text",
/// "text": "…"}`, as the Agents SDK keeps an MCP tool's output).
fn content_item_text(o: &Map<String, Value>) -> Option<&str> {
    (is_content_item(o) && o.get("type").and_then(Value::as_str) == Some("text"))
        .then(|| o.get("text").and_then(Value::as_str))
        .flatten()
}

/// Is `items` a JSON array of MCP content items and nothing else
/// (`[{"type": "text", "text": "…"}, …]`)? How the OpenAI Agents SDK stores
/// an MCP tool's output of more than one item (`mcp/util.py`, `json.dumps`
/// of each item's `model_dump`), and how LangChain's MCP adapters hand a
/// result's content back: it is then judged as the `CallToolResult` it came
/// from (`{"content": items}`).
pub fn are_content_items(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(|i| i.as_object().is_some_and(is_content_item))
}

/// The keys of an MCP `CallToolResult`.
const MCP_KEYS: &[&str] = &["content", "isError", "structuredContent", "_meta"];

/// Is `o` an MCP `CallToolResult` and nothing else: a `content` array of
/// typed items (`{"type": "text", …}`), with at most `isError`,
/// `structuredContent` and `_meta` beside it? A file or a program rarely
/// holds exactly this object; an MCP client stores it as the server sent it.
pub fn is_call_tool_result(o: &Map<String, Value>) -> bool {
    let Some(Value::Array(parts)) = o.get("content") else { return false };
    !parts.is_empty()
        && o.keys().all(|k| MCP_KEYS.contains(&k.as_str()))
        && parts.iter().all(|p| p.get("type").is_some_and(Value::is_string))
}

/// The text contents of an MCP `CallToolResult`, joined by newlines.
fn mcp_text(o: &Map<String, Value>) -> Option<String> {
    let parts = o.get("content")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The reply text of an envelope that does not fail: the string of
/// `{"result": "…"}` or `{"output": "…"}` (at most 3 keys), or the text
/// contents of an MCP result (`content`, `isError`, `structuredContent`,
/// `_meta`), followed through the wrappers; `None` when the envelope is
/// data of its own.
pub fn reply_text(o: &Map<String, Value>) -> Option<String> {
    inner_text(o, 0)
}

fn inner_text(o: &Map<String, Value>, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(text) = content_item_text(o) {
        return match nested_object(text) {
            Some(inner) => inner_text(&inner, depth + 1).or_else(|| Some(text.to_string())),
            None => Some(text.to_string()),
        };
    }
    if o.contains_key("content") && o.keys().all(|k| MCP_KEYS.contains(&k.as_str())) {
        let text = mcp_text(o)?;
        return match nested_object(&text) {
            Some(inner) => inner_text(&inner, depth + 1).or(Some(text)),
            None => Some(text),
        };
    }
    if o.len() > 3 {
        return None;
    }
    match o.get("result").or_else(|| o.get("output")) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(m)) => inner_text(m, depth + 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
