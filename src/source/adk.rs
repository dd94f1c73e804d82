//! Google ADK's session databases (`<agent>/.adk/session.db`),
//! which `adk web` and `adk run` create per agent unless given a
//! `--session_service_uri`, in all three layouts: the native
//! `SqliteSessionService` (`events.event_data` JSON, `timestamp` REAL) and
//! `DatabaseSessionService` schema v1 (`adk_internal_metadata`,
//! `events.event_data`) and v0 (one column per event field: `content` JSON,
//! `actions` pickled, never read).
//!
//! Calls are `function_call` parts of an event's `content.parts`; results are
//! `function_response` parts of a later event, linked by `id` within the
//! session (`app_name/user_id/session_id`). Keys are snake_case as ADK
//! stores them; camelCase aliases are accepted too.
//!
//! ADK has no error flag of its own: an MCP tool's `isError` is the only
//! flag (else none), and failures are conventions in the response dict
//! (`{"error": …}` from ADK itself, `{"status": "error", …}` from tools
//! written after ADK's docs), which the content rules read. A response is
//! presented as compact JSON with sorted keys; `{"result": "<text>"}` (a
//! tool that returned a non-dict) as its text, an MCP result as its text
//! parts. Times: the event's own `timestamp` (epoch seconds) where the JSON
//! has it; v0 rows only have the column, a naive local time read as UTC.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use super::rows::{
    SessionIndex, Stream, emit, epoch_time, id_of, opt_int, parse_column, pick_query, stream_by_session, time_of,
};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, ToolResult, Usage, text_ends};

pub(crate) struct Adk;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::ADK,
    agent: "Google ADK session databases (adk web / adk run, DatabaseSessionService)",
    product: "Google ADK",
    signature: "`events` with `app_name`, `user_id`, `session_id`, `invocation_id` and either `event_data` or `content` + `actions`",
    flag: "none of its own: an MCP tool's `isError`; `{\"error\": …}` and `{\"status\": \"error\"}` responses are content",
    locations: &[Location::Cwd(".adk/session.db")],
    sample: "adk.db",
};

const SESSIONS: &[(&[&str], &str)] = &[
    (
        &["app_name", "user_id", "id", "create_time"],
        "SELECT app_name || '/' || user_id || '/' || id, NULL, create_time FROM sessions",
    ),
    (&["app_name", "user_id", "id"], "SELECT app_name || '/' || user_id || '/' || id, NULL, NULL FROM sessions"),
];

/// Native and v1: the event as JSON.
const ROWS_JSON: &str = "SELECT app_name || '/' || user_id || '/' || session_id AS sid, rowid, event_data, timestamp \
                         FROM events ORDER BY sid, timestamp, rowid";
/// v0: the content column (the event's `content` only).
const ROWS_V0: &str = "SELECT app_name || '/' || user_id || '/' || session_id AS sid, rowid, content, timestamp \
                       FROM events ORDER BY sid, timestamp, rowid";

const KEYS: &[&str] = &["app_name", "user_id", "session_id", "invocation_id"];

impl Adapter for Adk {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("events", KEYS)?
            && (s.has("events", &["event_data"])? || s.has("events", &["content", "actions", "error_code"])?))
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let index = match pick_query(conn, "sessions", SESSIONS)? {
            Some(sql) => SessionIndex::load(conn, sql)?,
            None => SessionIndex::default(),
        };
        let v1 = Schema::new(conn).has("events", &["event_data"])?;
        let (sql, column) = if v1 { (ROWS_JSON, "event_data") } else { (ROWS_V0, "content") };
        let stream = Stream { dialect: INFO.dialect, index: &index, sql };
        // The transfer just answered, until its agent writes; shared with the
        // end of each session, which forgets it.
        let handoff: std::cell::RefCell<Option<Handoff>> = std::cell::RefCell::new(None);
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                let row = opt_int(r.get_ref(1)?).unwrap_or(0);
                let stored = time_of(r.get_ref(3)?);
                if !v1 && r.get_ref(2)? == ValueRef::Null {
                    // A v0 event without content (a state change, a model error).
                    return Ok(());
                }
                parse_column(r.get_ref(2)?, column, row, session, |text, out| {
                    let v: Value = serde_json::from_str(text).map_err(|e| format!("{column} is invalid JSON: {e}"))?;
                    let (content, time, usage) = if v1 {
                        let time = v.get("timestamp").and_then(Value::as_f64).and_then(float_time).or(stored);
                        (v.get("content").unwrap_or(&Value::Null), time, event_usage(&v))
                    } else {
                        (&v, stored, None)
                    };
                    let before = out.len();
                    if v1 {
                        handoff_failed(&v, &mut handoff.borrow_mut(), out);
                    }
                    parse_content(content, time, row, out)?;
                    if v1 {
                        ignored_transfers(&v, out, before);
                    }
                    if v1 && let Some(h) = Handoff::of(&v, out, before) {
                        *handoff.borrow_mut() = Some(h);
                    }
                    let usage = usage.map(|mut u| {
                        if u.response.is_empty() {
                            u.response = format!("row-{row}");
                        }
                        std::sync::Arc::new(u)
                    });
                    if let Some(u) = usage {
                        for e in &mut out[before..] {
                            if let Event::Call(c) = e {
                                c.usage = Some(u.clone());
                            }
                        }
                    }
                    Ok(())
                });
                Ok(())
            },
            |mut session, cx| {
                *handoff.borrow_mut() = None;
                drop_answered_placeholders(&mut session.events);
                emit(session, cx)
            },
        )?;
        Ok(())
    }
}

/// A `transfer_to_agent` just answered: ADK's function returns nothing
/// (`{"result": null}`) and the agent it named runs next, in the same
/// invocation.
#[derive(Debug, Clone, PartialEq)]
struct Handoff {
    invocation: String,
    target: String,
    /// The result's place in the session's events.
    at: usize,
}

impl Handoff {
    /// The handoff `event` made, if it answered a transfer (its `actions`
    /// name the agent, and what it added to `events`, from `from` on, holds
    /// the result).
    fn of(event: &Value, events: &[Event], from: usize) -> Option<Handoff> {
        let actions = event.get("actions")?;
        let target = actions.get("transfer_to_agent").or_else(|| actions.get("transferToAgent"))?.as_str()?;
        let at = from + events.get(from..)?.iter().rposition(|e| matches!(e, Event::Result(_)))?;
        Some(Handoff {
            invocation: event_text(event, "invocation_id", "invocationId")?.to_string(),
            target: target.to_string(),
            at,
        })
    }
}

fn event_text<'a>(event: &'a Value, snake: &str, camel: &str) -> Option<&'a str> {
    event.get(snake).or_else(|| event.get(camel)).and_then(Value::as_str)
}

/// The agent a transfer handed to failed at once: its first event of the
/// invocation holds only an `error_message` (a `RemoteA2aAgent` that could
/// not reach its server writes `A2A request failed: …` or `Failed to
/// initialize remote A2A agent …` so, google/adk-python
/// `agents/remote_a2a_agent.py`; a model that refused the agent's first
/// request, its error). The transfer did not get its task done (LABELS.md:
/// a delegation whose agent could not do it), so the error becomes the
/// transfer's result, read by `adk-handoff-failed`. Any other first event
/// of the agent ends the watch.
fn handoff_failed(event: &Value, handoff: &mut Option<Handoff>, events: &mut [Event]) {
    let Some(h) = handoff.as_ref() else { return };
    if event_text(event, "invocation_id", "invocationId") != Some(h.invocation.as_str()) {
        // The invocation the transfer belonged to has ended.
        *handoff = None;
        return;
    }
    if event_text(event, "author", "author") != Some(h.target.as_str()) {
        return;
    }
    let h = handoff.take().expect("checked above");
    let message = event_text(event, "error_message", "errorMessage").map(str::trim).filter(|m| !m.is_empty());
    let has_parts =
        event.get("content").and_then(|c| c.get("parts")).and_then(Value::as_array).is_some_and(|p| !p.is_empty());
    let failed = match (message, has_parts) {
        (Some(message), false) => Some(message.to_string()),
        _ => a2a_task_failed(event),
    };
    if let Some(message) = failed
        && let Some(Event::Result(r)) = events.get_mut(h.at)
        && r.text.trim_start().starts_with('{')
    {
        r.text = text_ends(&message).into_owned();
    }
}

/// What a transfer of several in one event gets when ADK took up another.
const IGNORED_TRANSFER: &str = "Transfer ignored: ADK handed the turn to ";

/// Several transfers answered in one event: ADK merges the actions of a
/// model turn's parallel function responses into that event, a later
/// `transfer_to_agent` overwriting an earlier one, and hands the turn to
/// the one agent its actions name (google/adk-python
/// `flows/llm_flows/functions.py`, `merge_parallel_function_response_events`).
/// Every other transfer answered there was never carried out (LABELS.md: a
/// handoff the framework ignored), and is given a text that says so, read
/// by `adk-handoff-failed`.
fn ignored_transfers(event: &Value, events: &mut [Event], from: usize) {
    let Some(actions) = event.get("actions") else { return };
    let Some(target) =
        actions.get("transfer_to_agent").or_else(|| actions.get("transferToAgent")).and_then(Value::as_str)
    else {
        return;
    };
    let Some(answered) = events.get(from..) else { return };
    let ids: Vec<String> = answered
        .iter()
        .filter_map(|e| match e {
            Event::Result(r) if r.text.trim_start().starts_with('{') => Some(r.call_id.clone()),
            _ => None,
        })
        .collect();
    // The agent each answered transfer named, from its call.
    let named = |id: &str| {
        events[..from].iter().rev().find_map(|e| match e {
            Event::Call(c) if c.id == id && c.tool == "transfer_to_agent" => {
                Some(c.input.get_str("agent_name").map(|a| a.into_owned()))
            }
            _ => None,
        })
    };
    let transfers: Vec<(String, Option<String>)> =
        ids.into_iter().filter_map(|id| named(&id).map(|agent| (id, agent))).collect();
    if transfers.len() < 2 {
        return;
    }
    for (id, agent) in transfers {
        if agent.as_deref() == Some(target) {
            continue;
        }
        for e in &mut events[from..] {
            if let Event::Result(r) = e
                && r.call_id == id
            {
                r.text = format!("{IGNORED_TRANSFER}{target}, another transfer of the same turn");
            }
        }
    }
}

/// The A2A task states that end a task undone (the A2A specification's
/// `TaskState`: `failed`, `rejected`; `TASK_STATE_FAILED`,
/// `TASK_STATE_REJECTED` in its protobuf form).
const A2A_UNDONE: [&str; 4] = ["failed", "rejected", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"];

/// A remote agent's event that ends its task undone: a `RemoteA2aAgent`
/// keeps the A2A task it got back in the event's `custom_metadata`
/// (`a2a:response`, google/adk-python `agents/remote_a2a_agent.py`; adk-js
/// keeps it as JSON text), and
/// the task's `status.state` says it failed or was rejected, whatever the
/// event's text. The message of that status (or the event's text) is what
/// the transfer got.
fn a2a_task_failed(event: &Value) -> Option<String> {
    let kept = field(event, "custom_metadata", "customMetadata")?.get("a2a:response")?;
    // adk-js keeps the response as JSON text (`JSON.stringify`).
    let parsed;
    let response = match kept {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    // The task itself, or a JSON-RPC response whose `result` is the task
    // (the response's `root` as older adk-python versions dump it).
    let status = response.get("status").or_else(|| response.get("result")?.get("status"))?;
    let state = status.get("state")?.as_str()?;
    if !A2A_UNDONE.contains(&state) {
        return None;
    }
    let texts = |parts: Option<&Value>| -> String {
        let parts = parts.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let texts: Vec<&str> =
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).map(str::trim).collect();
        texts.join("\n").trim().to_string()
    };
    let mut message = texts(status.get("message").and_then(|m| m.get("parts")));
    if message.is_empty() {
        message = texts(event.get("content").and_then(|c| c.get("parts")));
    }
    // The transfer's rule reads any text but an object (`{"result": null}`).
    Some(if message.is_empty() || message.starts_with('{') {
        format!("A2A task {state}: {message}").trim_end().trim_end_matches(':').to_string()
    } else {
        message
    })
}

/// What ADK answers first, under the call's own id, for a tool that needs
/// the user's confirmation (`FunctionTool.run_async`, the MCP and bash
/// tools: `{"error": "This tool call requires confirmation, please approve
/// or reject."}`); the tool's real result follows under the same id once
/// the user answers.
const CONFIRMATION_PLACEHOLDER: &str = "This tool call requires confirmation";

/// Is `text` (a response as `response_text` gives it) ADK's confirmation
/// placeholder?
fn is_confirmation_placeholder(text: &str) -> bool {
    if !text.starts_with('{') || !text.contains(CONFIRMATION_PLACEHOLDER) {
        return false;
    }
    serde_json::from_str::<Value>(text)
        .is_ok_and(|v| v.get("error").and_then(Value::as_str).is_some_and(|e| e.starts_with(CONFIRMATION_PLACEHOLDER)))
}

/// Drop each confirmation placeholder that a later result of the same call
/// answers: the last answer is the call's result, and is neither judged as
/// a second result nor left an orphan. A placeholder never answered (the
/// user did not reply) stays the call's result.
fn drop_answered_placeholders(events: &mut Vec<Event>) {
    let mut answered: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut drop = vec![false; events.len()];
    for (i, e) in events.iter().enumerate().rev() {
        if let Event::Result(r) = e {
            if answered.contains(r.call_id.as_str()) && is_confirmation_placeholder(&r.text) {
                drop[i] = true;
            }
            if !r.call_id.is_empty() {
                answered.insert(r.call_id.as_str());
            }
        }
    }
    if drop.iter().any(|d| *d) {
        let mut i = 0;
        events.retain(|_| {
            i += 1;
            !drop[i - 1]
        });
    }
}

/// The `usage_metadata` of a model event (Gemini's `GenerateContentResponse`
/// usage): `prompt_token_count` includes `cached_content_token_count`, and
/// `thoughts_token_count` is billed as output beside
/// `candidates_token_count` (their `total_token_count` sums the three). The
/// model is the event's `model_version`, the response its `id`.
fn event_usage(v: &Value) -> Option<Usage> {
    let u = field(v, "usage_metadata", "usageMetadata")?;
    let count = |k: &str, camel: &str| u.get(k).or_else(|| u.get(camel)).and_then(Usage::count);
    let (prompt, candidates) =
        (count("prompt_token_count", "promptTokenCount"), count("candidates_token_count", "candidatesTokenCount"));
    if prompt.is_none() && candidates.is_none() {
        return None;
    }
    let prompt = prompt.unwrap_or(0);
    let cached = count("cached_content_token_count", "cachedContentTokenCount").unwrap_or(0).min(prompt);
    let thoughts = count("thoughts_token_count", "thoughtsTokenCount").unwrap_or(0);
    let text =
        |k: &str, camel: &str| v.get(k).or_else(|| v.get(camel)).and_then(Value::as_str).filter(|s| !s.is_empty());
    Some(Usage {
        response: text("id", "id").unwrap_or_default().to_string(),
        model: text("model_version", "modelVersion").map(str::to_string),
        input: prompt - cached,
        output: candidates.unwrap_or(0).saturating_add(thoughts),
        cache_read: cached,
        cache_write: 0,
        reasoning: thoughts,
        cost: None,
    })
}

/// Epoch seconds with a fraction.
fn float_time(t: f64) -> Option<DateTime<Utc>> {
    if !t.is_finite() || t <= 0.0 {
        return None;
    }
    let ms = (t * 1000.0).round() as i64;
    DateTime::from_timestamp_millis(ms).or_else(|| epoch_time(t as i64))
}

/// The calls and results in one event's `content`.
pub(crate) fn parse_content(
    content: &Value,
    time: Option<DateTime<Utc>>,
    row: i64,
    out: &mut Vec<Event>,
) -> Result<(), String> {
    let parts = match content {
        Value::Null => return Ok(()),
        Value::Object(c) => match c.get("parts") {
            Some(Value::Array(p)) => p,
            None | Some(Value::Null) => return Ok(()),
            Some(_) => return Err("content.parts is not a list".into()),
        },
        _ => return Err("content is not a JSON object".into()),
    };
    for part in parts {
        if let Some(call) = field(part, "function_call", "functionCall") {
            let id = id_of(call.get("id"));
            let tool = call.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
            let input = call.get("args").cloned().unwrap_or(Value::Null);
            out.push(Event::Call(Call { id, tool: tool.to_string(), input: input.into(), time, row, usage: None }));
        } else if let Some(resp) = field(part, "function_response", "functionResponse") {
            let call_id = id_of(resp.get("id"));
            let (full, flag) = response_text(resp.get("response").unwrap_or(&Value::Null));
            let truncated = full.len() > 2 * crate::model::TEXT_CAP;
            let text = text_ends(&full).into_owned();
            out.push(Event::Result(ToolResult { call_id, text, truncated, flag, exit_code: None, time, row }));
        }
    }
    Ok(())
}

fn field<'a>(part: &'a Value, snake: &str, camel: &str) -> Option<&'a Map<String, Value>> {
    part.get(snake).or_else(|| part.get(camel)).and_then(Value::as_object)
}

/// A response as text, and the MCP `isError` flag when it is an MCP result.
fn response_text(resp: &Value) -> (String, Option<bool>) {
    let Value::Object(m) = resp else {
        return (
            match resp {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                v => v.to_string(),
            },
            None,
        );
    };
    // An MCP CallToolResult dumped with its own field names.
    if let (Some(Value::Array(content)), Some(flag)) =
        (m.get("content"), m.get("isError").or_else(|| m.get("is_error")).and_then(Value::as_bool))
    {
        let texts: Vec<&str> = content.iter().filter_map(|c| c.get("text").and_then(Value::as_str)).collect();
        return (texts.join("\n"), Some(flag));
    }
    if m.len() == 1
        && let Some(Value::String(s)) = m.get("result")
    {
        return (s.clone(), None);
    }
    (resp.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Gemini's usage: the cache inside the prompt count, thoughts beside
    /// the candidates (their total is the sum of the three).
    #[test]
    fn a_model_events_usage() {
        let v = json!({"id": "e1", "model_version": "gemini-2.5-flash",
            "usage_metadata": {"prompt_token_count": 281, "candidates_token_count": 23, "thoughts_token_count": 102,
                "cached_content_token_count": 200, "total_token_count": 406}});
        let u = event_usage(&v).unwrap();
        assert_eq!((u.input, u.cache_read, u.output, u.reasoning), (81, 200, 125, 102));
        assert_eq!((u.response.as_str(), u.model.as_deref()), ("e1", Some("gemini-2.5-flash")));
        let camel = json!({"usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1}});
        assert_eq!(event_usage(&camel).map(|u| (u.input, u.output)), Some((5, 1)));
        assert!(event_usage(&json!({"usage_metadata": {}})).is_none());
    }

    fn parse(v: Value) -> Vec<Event> {
        let mut out = vec![];
        parse_content(&v, None, 1, &mut out).unwrap();
        out
    }

    #[test]
    fn calls_responses_and_the_mcp_flag() {
        let ev = parse(json!({"role":"user","parts":[
            {"function_response":{"id":"adk-1","name":"get_weather","response":{"status":"error","error_message":"no data"}}},
            {"functionResponse":{"id":"adk-2","name":"gh","response":{"content":[{"type":"text","text":"404"}],"isError":true}}},
            {"function_response":{"id":"adk-3","name":"echo","response":{"result":"hello"}}}]}));
        let got: Vec<(String, String, Option<bool>)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some((r.call_id.clone(), r.text.clone(), r.flag)),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("adk-1".into(), r#"{"error_message":"no data","status":"error"}"#.into(), None),
                ("adk-2".into(), "404".into(), Some(true)),
                ("adk-3".into(), "hello".into(), None),
            ]
        );
        let ev = parse(
            json!({"role":"model","parts":[{"text":"x"},{"function_call":{"id":"adk-1","name":"get_weather","args":{"city":"Oslo"}}}]}),
        );
        assert!(matches!(&ev[0], Event::Call(c) if c.input["city"] == "Oslo"));
    }

    /// A tool that needs confirmation answers twice under one id: the
    /// placeholder goes, the real answer stays the call's result.
    #[test]
    fn a_confirmation_placeholder_gives_way_to_the_answer() {
        let mut events = parse(json!({"role":"model","parts":[
            {"function_call":{"id":"adk-7","name":"delete_rows","args":{"table":"t"}}}]}));
        let placeholder = json!({"role":"user","parts":[{"function_response":{"id":"adk-7","name":"delete_rows",
            "response":{"error":"This tool call requires confirmation, please approve or reject."}}}]});
        events.extend(parse(placeholder.clone()));
        // ADK's own request for the user's answer, and the answer.
        events.extend(parse(json!({"role":"model","parts":[{"function_call":{"id":"adk-8",
            "name":"adk_request_confirmation","args":{"originalFunctionCall":{"id":"adk-7"}}}}]})));
        events.extend(parse(json!({"role":"user","parts":[{"function_response":{"id":"adk-8",
            "name":"adk_request_confirmation","response":{"confirmed":true}}}]})));
        events.extend(parse(json!({"role":"user","parts":[{"function_response":{"id":"adk-7","name":"delete_rows",
            "response":{"deleted":3}}}]})));
        // A call never answered keeps its placeholder.
        events.extend(parse(
            json!({"role":"model","parts":[{"function_call":{"id":"adk-9","name":"delete_rows","args":{}}}]}),
        ));
        let mut waiting = placeholder;
        waiting["parts"][0]["function_response"]["id"] = json!("adk-9");
        events.extend(parse(waiting));
        drop_answered_placeholders(&mut events);
        let results: Vec<(&str, &str)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some((r.call_id.as_str(), r.text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            results,
            [
                ("adk-8", r#"{"confirmed":true}"#),
                ("adk-7", r#"{"deleted":3}"#),
                ("adk-9", r#"{"error":"This tool call requires confirmation, please approve or reject."}"#),
            ]
        );
        assert!(!is_confirmation_placeholder(r#"{"result":"This tool call requires confirmation"}"#));
    }

    /// The events of one session as the reader walks them (v1 rows).
    fn walk(rows: &[Value]) -> Vec<Event> {
        let mut out = vec![];
        let mut handoff = None;
        for v in rows {
            let before = out.len();
            handoff_failed(v, &mut handoff, &mut out);
            parse_content(v.get("content").unwrap_or(&Value::Null), None, 1, &mut out).unwrap();
            ignored_transfers(v, &mut out, before);
            if let Some(h) = Handoff::of(v, &out, before) {
                handoff = Some(h);
            }
        }
        out
    }

    fn texts(events: &[Event]) -> Vec<&str> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some(r.text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The root agent's `transfer_to_agent` call to `target`, in invocation `inv`.
    fn transfer_call(id: &str, inv: &str, target: &str) -> Value {
        json!({"invocation_id": inv, "author": "root", "content": {"role": "model", "parts": [
            {"function_call": {"id": id, "name": "transfer_to_agent", "args": {"agent_name": target}}}]}})
    }

    /// ADK's answer to that call: `{"result": null}`, the handoff in its actions.
    fn transfer_answer(id: &str, inv: &str, target: &str) -> Value {
        json!({"invocation_id": inv, "author": "root", "actions": {"transfer_to_agent": target},
            "content": {"role": "user", "parts": [{"function_response": {"id": id, "name": "transfer_to_agent",
                "response": {"result": null}}}]}})
    }

    /// A transfer to an agent whose first event is only an error (a remote
    /// A2A agent that could not be reached) gets that error as its result;
    /// a transfer the agent took up keeps ADK's `{"result": null}`.
    #[test]
    fn a_transfer_to_an_agent_that_failed_at_once() {
        let call = |id: &str, inv: &str| transfer_call(id, inv, "billing");
        let answer = |id: &str, inv: &str| transfer_answer(id, inv, "billing");
        let failed = json!({"invocation_id": "e-1", "author": "billing",
            "error_message": "A2A request failed: HTTP Error 503: All connection attempts failed"});
        let replied = json!({"invocation_id": "e-2", "author": "billing",
            "content": {"role": "model", "parts": [{"text": "Your invoice is attached."}]}});
        let late = json!({"invocation_id": "e-4", "author": "billing", "error_message": "429 RESOURCE_EXHAUSTED"});
        let events = walk(&[
            call("fc-1", "e-1"),
            answer("fc-1", "e-1"),
            failed,
            call("fc-2", "e-2"),
            answer("fc-2", "e-2"),
            replied,
            call("fc-3", "e-3"),
            answer("fc-3", "e-3"),
            late,
        ]);
        assert_eq!(
            texts(&events),
            [
                "A2A request failed: HTTP Error 503: All connection attempts failed",
                r#"{"result":null}"#,
                r#"{"result":null}"#,
            ],
            "the second agent answered; the third's error came in another invocation"
        );
    }

    /// A remote A2A agent whose task ended `failed` or `rejected` (either
    /// spelling of the state) gives the transfer its status message, or
    /// its event's text; a task `completed`, or one asking for input,
    /// leaves the transfer's `{"result": null}`.
    #[test]
    fn a_transfer_to_a_remote_agent_whose_task_failed() {
        let call = |id: &str, inv: &str| transfer_call(id, inv, "quotes");
        let answer = |id: &str, inv: &str| transfer_answer(id, inv, "quotes");
        let remote = |inv: &str, state: &str, message: Value, text: &str| {
            json!({"invocation_id": inv, "author": "quotes",
                "content": {"role": "model", "parts": [{"text": text}]},
                "custom_metadata": {"a2a:task_id": "t-1",
                    "a2a:response": {"id": "t-1", "status": {"state": state, "message": message}}}})
        };
        let said = |text: &str| json!({"role": "agent", "parts": [{"kind": "text", "text": text}]});
        let mut rows = vec![];
        for (n, (state, message, text)) in [
            ("TASK_STATE_FAILED", said("Missing credentials for the rates service."), "Missing credentials"),
            ("failed", Value::Null, "The model quota is spent for today."),
            ("rejected", said(""), ""),
            ("completed", said("3 quotes found."), "3 quotes found."),
            ("input-required", said("Which port?"), "Which port?"),
        ]
        .into_iter()
        .enumerate()
        {
            let (id, inv) = (format!("fc-{n}"), format!("e-{n}"));
            rows.extend([call(&id, &inv), answer(&id, &inv), remote(&inv, state, message, text)]);
        }
        // adk-js keeps the response as JSON text; older adk-python dumps the
        // JSON-RPC response around the task.
        let mut as_text = remote("e-5", "failed", said("The rates service timed out."), "");
        let kept = as_text["custom_metadata"]["a2a:response"].to_string();
        as_text["custom_metadata"]["a2a:response"] = json!(kept);
        let mut enveloped = remote("e-6", "failed", said("No carrier serves that port."), "");
        let task = enveloped["custom_metadata"]["a2a:response"].take();
        enveloped["custom_metadata"]["a2a:response"] = json!({"jsonrpc": "2.0", "id": 1, "result": task});
        rows.extend([call("fc-5", "e-5"), answer("fc-5", "e-5"), as_text]);
        rows.extend([call("fc-6", "e-6"), answer("fc-6", "e-6"), enveloped]);
        assert_eq!(
            texts(&walk(&rows)),
            [
                "Missing credentials for the rates service.",
                "The model quota is spent for today.",
                "A2A task rejected",
                r#"{"result":null}"#,
                r#"{"result":null}"#,
                "The rates service timed out.",
                "No carrier serves that port.",
            ]
        );
        // The rule that reads a transfer fires on the first three.
        for text in &texts(&walk(&rows))[..3] {
            assert!(crate::rules::detect_in(crate::model::Dialect::ADK, "transfer_to_agent", text).is_some(), "{text}");
        }
    }

    /// Of several transfers answered in one event, only the one its
    /// actions name was carried out; a lone transfer, or one of several
    /// that all name that agent, is left as it was.
    #[test]
    fn parallel_transfers_that_adk_ignored() {
        let calls = |inv: &str, ids: &[(&str, &str)]| {
            let parts: Vec<Value> = ids
                .iter()
                .map(|(id, agent)| {
                    json!({"function_call": {"id": id, "name": "transfer_to_agent",
                    "args": {"agent_name": agent}}})
                })
                .collect();
            json!({"invocation_id": inv, "author": "root", "content": {"role": "model", "parts": parts}})
        };
        let answers = |inv: &str, ids: &[&str], target: &str| {
            let parts: Vec<Value> = ids
                .iter()
                .map(|id| {
                    json!({"function_response": {"id": id, "name": "transfer_to_agent",
                    "response": {"result": null}}})
                })
                .collect();
            json!({"invocation_id": inv, "author": "root", "actions": {"transfer_to_agent": target},
                "content": {"role": "user", "parts": parts}})
        };
        let events = walk(&[
            calls("e-1", &[("a", "news"), ("b", "geo"), ("c", "backtest")]),
            answers("e-1", &["a", "b", "c"], "backtest"),
            transfer_call("d", "e-2", "news"),
            transfer_answer("d", "e-2", "news"),
            calls("e-3", &[("e", "news"), ("f", "news")]),
            answers("e-3", &["e", "f"], "news"),
        ]);
        let ignored = format!("{IGNORED_TRANSFER}backtest, another transfer of the same turn");
        let null = r#"{"result":null}"#;
        assert_eq!(texts(&events), [ignored.as_str(), ignored.as_str(), null, null, null, null]);
        let class = crate::rules::classify_in(crate::model::Dialect::ADK, "transfer_to_agent", &ignored);
        assert_eq!(class.map(|c| c.id), Some("handoff-ignored"));
        assert!(crate::rules::detect_in(crate::model::Dialect::ADK, "transfer_to_agent", &ignored).is_some());
    }

    #[test]
    fn malformed_content() {
        let mut out = vec![];
        assert!(parse_content(&json!([1]), None, 1, &mut out).is_err());
        assert!(parse_content(&json!({"parts": 3}), None, 1, &mut out).is_err());
        assert!(parse_content(&Value::Null, None, 1, &mut out).is_ok());
        assert_eq!(float_time(1_775_210_400.25).unwrap().timestamp_millis(), 1_775_210_400_250);
    }
}
