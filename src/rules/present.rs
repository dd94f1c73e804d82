//! A result as the rules read it (`present_with_exit`): a JSON envelope
//! judged inside it, a batch of envelopes, MCP content items, and Claude
//! Code's saved-to-file notice.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{ToolClass, envelope, pyliteral, tool_class, tools};
use crate::model::Dialect;

/// How a failing JSON envelope is presented to the rules (see `present`).
pub const ENVELOPE_PREFIX: &str = "JSON envelope error: ";

/// The text of a result as the rules see it, and the exit status a JSON
/// envelope reports (see `present_with_exit`).
pub fn present<'a>(tool: &str, text: &'a str) -> Cow<'a, str> {
    present_with_exit(None, tool, text).0
}

/// Claude Code's notice for an MCP result too large for the context, when
/// it saved the result to a file (its `outcome: "persisted"` path):
/// `Error: result (N characters[ across K lines]) exceeds maximum allowed
/// tokens. Output has been saved to <path>.` followed by how to read it. The
/// call returned its data; the harness moved it to a file the agent reads
/// (LABELS.md: ok). The rules see the notice from "Output has been saved";
/// its other path, `… Failed to save output to file: …`, stays an error.
fn persisted_output(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Error: result (")?;
    let (size, after) = rest.split_once(") exceeds maximum allowed tokens. ")?;
    let counted =
        size.split(' ').next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b','));
    (counted && size.contains(" characters") && after.starts_with("Output has been saved to ")).then_some(after)
}

/// Keys a tool's own JSON envelope carries around its verdict. An object
/// with only these is the tool speaking, even from a reader of files.
const ENVELOPE_KEYS: &[&str] = &[
    "error",
    "errors",
    "message",
    "msg",
    "detail",
    "details",
    "status",
    "status_code",
    "statusCode",
    "code",
    "error_code",
    "errorCode",
    "error_message",
    "errorMessage",
    // Jira's error body, and AWS Lambda's answer for a function that raised.
    "errorMessages",
    "stackTrace",
    "success",
    "ok",
    "isError",
    "is_error",
    "result",
    "output",
    "stdout",
    "stderr",
    "exit_code",
    "exitCode",
    "returncode",
    "return_code",
    "reason",
    "type",
    "title",
    "hint",
    "suggestion",
    "meta",
    "content",
    "data",
    "timestamp",
    "path",
    "request_id",
    "requestId",
    // Elasticsearch's search envelope: its shards' outcome around the hits.
    "took",
    "timed_out",
    "_shards",
    "hits",
    // An MCP content item stored alone (`{"type": "text", "text": …}`).
    "text",
    // An exception handed back as data (google/adk-python's
    // ReflectAndRetryToolPlugin), and a request waiting for authorisation.
    "response_type",
    "error_type",
    "errorType",
    "error_details",
    "errorDetails",
    "retry_count",
    "reflection_guidance",
    "pending",
];

/// Keys of an envelope around a process that a tool ran.
const PROCESS_KEYS: &[&str] = &["exit_code", "exitCode", "returncode", "return_code", "stderr"];

/// The text of a result as the rules see it. A result that is one JSON
/// object of a tool's envelope is judged inside it, whatever the store:
///
/// - a failing envelope becomes `JSON envelope error: <its message>`:
///   `error` (not null, false or empty), `status` of `error`/`failed`/
///   `failure`/`fail` or an HTTP error status (`"status": 401`, `"404"`),
///   `success` or `ok` false, `isError` true, a non-empty `error_code`, or
///   a non-zero `exit_code`/`returncode` (whose status is also returned,
///   so that the exit is judged as a process exit: benign exits stay
///   benign);
/// - `{"result": "…"}` / `{"output": "…"}` (at most 3 keys) is its inner text.
///
/// A reader's or a shell's output is data: its JSON is judged only when
/// the object is nothing but an envelope, and, for a reader, only in the
/// stores of agent frameworks whose tools are their users' code
/// (`tools::CUSTOM_TOOL_DIALECTS`: `{"error": "File not found"}` from a
/// custom `read_file`): never a JSON document a coding agent's reader read
/// or a program printed. Anything that is not one JSON object stays as it is.
pub fn present_with_exit<'a>(dialect: Option<Dialect>, tool: &str, text: &'a str) -> (Cow<'a, str>, Option<i64>) {
    if let Some(saved) = persisted_output(text) {
        return (Cow::Borrowed(saved), None);
    }
    let head = text.trim_start();
    // Only an array of objects can be a batch of envelopes: a list of
    // strings or numbers is not parsed.
    if head.starts_with('[') && head[1..].trim_start().starts_with('{') && head.len() <= 1 << 18 {
        // Parsed once, and only when it can say something: a verdict tool's
        // batch of envelopes, or content items (which name their `type`).
        let items_like = memchr::memmem::find(head.as_bytes(), b"\"type\"").is_some();
        if !batch_reader(tool) && !items_like {
            return (Cow::Borrowed(text), None);
        }
        let Ok(Value::Array(items)) = serde_json::from_str::<Value>(head) else {
            return (Cow::Borrowed(text), None);
        };
        return present_items(dialect, tool, items, text);
    }
    if !head.starts_with('{') || head.len() > 1 << 18 {
        return (Cow::Borrowed(text), None);
    }
    // A Python framework's `str(result)` of a returned dict (`{'error': …}`,
    // pyliteral.rs) is read as the JSON it stands for.
    let parsed = match serde_json::from_str::<Value>(head) {
        Ok(v) => Some(v),
        Err(_) if head.starts_with("{'") => pyliteral::parse(head),
        Err(_) => None,
    };
    let Some(Value::Object(mut o)) = parsed else { return (Cow::Borrowed(text), None) };
    // google/adk-python stores a tool's return that is not a dict as
    // `{"result": value}` (`flows/llm_flows/functions.py`): a list returned
    // so is judged as the list the tool returned.
    if o.len() == 1
        && matches!(o.get("result"), Some(Value::Array(_)))
        && let Some(Value::Array(items)) = o.remove("result")
    {
        return present_items(dialect, tool, items, text);
    }
    present_object(dialect, tool, o, text)
}

/// `present_with_exit` of a result that is a JSON array of objects: a
/// verdict tool's batch of envelopes that all failed, or MCP content items
/// (judged as the `CallToolResult` they came from: their text is the
/// server's answer, a nested envelope too). Anything else is data.
fn present_items<'a>(
    dialect: Option<Dialect>,
    tool: &str,
    items: Vec<Value>,
    text: &'a str,
) -> (Cow<'a, str>, Option<i64>) {
    if let Some(shown) = batch_reader(tool).then(|| failed_batch(&items)).flatten() {
        return (Cow::Owned(shown), None);
    }
    if !envelope::are_content_items(&items) {
        return (Cow::Borrowed(text), None);
    }
    let mut result = Map::new();
    result.insert("content".to_string(), Value::Array(items));
    present_object(dialect, tool, result, text)
}

/// `present_with_exit` of a result that is one JSON object `o` (parsed
/// from `text`, or the `CallToolResult` a list of content items came from).
fn present_object<'a>(
    dialect: Option<Dialect>,
    tool: &str,
    o: Map<String, Value>,
    text: &'a str,
) -> (Cow<'a, str>, Option<i64>) {
    // A reader's or a shell's JSON is data unless the object is nothing but
    // an envelope, and for a shell an envelope around a process (its
    // streams or its exit status): a program may print `{"status": "error"}`.
    // An MCP server's answer is its envelope, whatever its tool reads: a
    // tool named as Claude Code names them, or a reply that is an MCP
    // `CallToolResult` and nothing else (Codex and the frameworks keep the
    // server's own tool name, `list_directory`).
    let class = if tool.starts_with("mcp__") || envelope::is_call_tool_result(&o) {
        ToolClass::Verdict
    } else {
        tool_class(tool)
    };
    if class != ToolClass::Verdict {
        let only_envelope = o.keys().all(|k| ENVELOPE_KEYS.contains(&k.as_str()));
        let speaks = match class {
            // A framework's own shell tool answers a call it could not run
            // with an envelope too (google/adk-python's bash tool:
            // `{"error": "Command is required."}`).
            ToolClass::Shell => {
                PROCESS_KEYS.iter().any(|k| o.contains_key(*k))
                    || dialect.is_some_and(|d| tools::CUSTOM_TOOL_DIALECTS.contains(&d))
            }
            _ => dialect.is_some_and(|d| tools::CUSTOM_TOOL_DIALECTS.contains(&d)),
        };
        if !only_envelope || !speaks {
            // A page a reader or scraper got is its data, unless the page is
            // the site's block or error page, or a data API's notice stands
            // in its place: then nothing asked for was read (LABELS.md), as
            // the `block-page` content rule says of text.
            if class == ToolClass::Data
                && let Some(message) = envelope::data_failure(&o, tools::reads_the_web(tool))
            {
                return (Cow::Owned(format!("{ENVELOPE_PREFIX}{message}")), None);
            }
            return (Cow::Borrowed(text), None);
        }
    }
    match envelope::failure(&o) {
        Some(f) => {
            let shown = match f.exit {
                Some(code) => format!("{ENVELOPE_PREFIX}{}\nExit code {code}", f.message),
                None => format!("{ENVELOPE_PREFIX}{}", f.message),
            };
            (Cow::Owned(shown), f.exit)
        }
        None => match envelope::reply_text(&o) {
            Some(inner) => (Cow::Owned(inner), None),
            None => (Cow::Borrowed(text), None),
        },
    }
}

/// Is `tool` one whose JSON array may be a batch of its own envelopes (a
/// verdict tool: an MCP server's, or one that is not a reader or a shell)?
fn batch_reader(tool: &str) -> bool {
    tool.starts_with("mcp__") || tool_class(tool) == ToolClass::Verdict
}

/// A verdict tool's answer that is a JSON array of its own envelopes, every
/// one of them failing: a batch of actions where nothing was done
/// (Webflow's MCP tools answer `[{"status": "error", "message": "Component
/// or element not found", "data": null}]`; LABELS.md: every item of a
/// batch failed is a failure). Only a verdict tool's (an MCP server's, or a
/// tool that is not a reader or a shell): a reader's or a program's array
/// is data, a list of failed CI runs among them. Every item must be an
/// envelope (only `ENVELOPE_KEYS`) that fails; one success, or one item
/// with keys of its own, and the array is data.
fn failed_batch(items: &[Value]) -> Option<String> {
    let mut first = None;
    for item in items {
        let Value::Object(o) = item else { return None };
        if !o.keys().all(|k| ENVELOPE_KEYS.contains(&k.as_str())) {
            return None;
        }
        let f = envelope::failure(o)?;
        first.get_or_insert(f.message);
    }
    let message = first?;
    Some(match items.len() {
        1 => format!("{ENVELOPE_PREFIX}{message}"),
        n => format!("{ENVELOPE_PREFIX}{message} (each of {n} items failed)"),
    })
}
