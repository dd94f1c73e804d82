//! LangGraph's `SqliteSaver` checkpoints (`checkpoints` + `writes`),
//! in any file the application names (commonly `checkpoints.sqlite`), WAL
//! enabled at setup.
//!
//! Values are typed blobs (`type`, bytes) from LangGraph's serializer:
//! `msgpack` (current), `json` (old LangChain constructor envelopes),
//! `null`. msgpack objects are extension values whose payload is msgpack
//! again: code 5 (Pydantic v2, every current LangChain message) and 4
//! (Pydantic v1) are `[module, class, dict, …]`; 0–3 are constructors and
//! class methods (datetimes, UUIDs, sets) whose argument is kept. Pickle,
//! encrypted (`…+aes`) and unknown types are never decoded: they are counted
//! malformed rows.
//!
//! Every checkpoint snapshots the *whole* state, so a message is stored once
//! per checkpoint after it was made. The reader takes the `writes` stream
//! (each row is what one task produced, once), then the latest checkpoint of
//! each thread for what the writes lack (a thread without writes, or a
//! message `update_state` put there); calls and results count once per id.
//!
//! Calls are `AIMessage.tool_calls` (`invalid_tool_calls`, whose arguments
//! did not parse, are failed calls by themselves); results are
//! `ToolMessage`s linked by `tool_call_id`, flagged by `status = "error"`.
//! A session is a thread, or a subgraph's namespace of a thread (its parent
//! is the thread). Times come from the checkpoint ids (UUID v6).
//!
//! LangGraph 0.1 (`langgraph/checkpoint/sqlite.py` of its 0.1.x tags) kept
//! `checkpoints (thread_id, thread_ts, parent_ts, checkpoint, metadata)`
//! and, from 0.1.5, `writes (thread_id, thread_ts, task_id, idx, channel,
//! value)`: no namespace and no `type` column. Values are JSON
//! (`JsonPlusSerializer`: LangChain constructor envelopes), or pickle when
//! they begin with byte 0x80 (`JsonPlusSerializerCompat`, never unpickled).
//! `thread_ts` is an ISO time (before 0.1.10) or a UUID v6. Such a database
//! is read the same way: a thread is a session.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use super::rows::{SessionIndex, Stream, decode_arguments, emit, id_of, opt_int, stream_by_session, text_of};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Malformed, Session, ToolResult, Usage, text_ends};

pub(crate) struct LangGraph;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::LANGGRAPH,
    agent: "LangGraph SqliteSaver checkpoints",
    product: "LangGraph",
    signature: "`checkpoints` with `checkpoint_ns`, `checkpoint_id`, `type`, `checkpoint` and `writes` with `task_id`, `channel`, `value`; or (LangGraph 0.1) `checkpoints` with `thread_id`, `thread_ts`, `checkpoint`",
    flag: "`ToolMessage.status = \"error\"` (ToolNode's caught exceptions); a tool returning `Error: …` stays `success`",
    locations: &[Location::Cwd("checkpoints.sqlite"), Location::Cwd("checkpoints.db")],
    sample: "langgraph.db",
};

/// Sessions: a thread, or a thread and a subgraph's namespace (whose parent
/// is the thread).
const SESSIONS: &str = "SELECT DISTINCT \
      CASE WHEN checkpoint_ns = '' THEN thread_id ELSE thread_id || '|' || checkpoint_ns END, \
      CASE WHEN checkpoint_ns = '' THEN NULL ELSE thread_id END, NULL FROM checkpoints";

/// Message writes first (kind 0), then the latest checkpoint of each
/// (thread, namespace) (kind 1), which is read only when its session had
/// no message writes. Ordered by thread, then namespace (the root's, empty,
/// first), so that a thread's subgraph namespaces follow it at once: by
/// the session id alone, thread `10` sorts between `1` and `1|agent:…`,
/// and the copies a subgraph holds of its thread's calls were counted again.
const ROWS: &str = "SELECT CASE WHEN checkpoint_ns = '' THEN thread_id ELSE thread_id || '|' || checkpoint_ns END AS sid, \
      0 AS kind, checkpoint_id, task_id, idx, type, value, rowid, thread_id AS th, checkpoint_ns AS ns FROM writes \
      WHERE substr(channel, 1, 2) <> '__' \
    UNION ALL \
    SELECT CASE WHEN checkpoint_ns = '' THEN thread_id ELSE thread_id || '|' || checkpoint_ns END, \
      1, checkpoint_id, '', 0, type, checkpoint, rowid, thread_id, checkpoint_ns FROM checkpoints c \
      WHERE checkpoint_id = (SELECT max(checkpoint_id) FROM checkpoints m \
                             WHERE m.thread_id = c.thread_id AND m.checkpoint_ns = c.checkpoint_ns) \
    ORDER BY th, ns, kind, checkpoint_id, task_id, idx";

/// LangGraph 0.1: a session per thread.
const SESSIONS_V01: &str = "SELECT DISTINCT thread_id, NULL, NULL FROM checkpoints";

/// LangGraph 0.1's writes (kind 0), then the latest checkpoint of each
/// thread (kind 1), as `ROWS`; the serializer type told by the value's
/// first byte (0x80: pickle).
const ROWS_V01: &str = "SELECT thread_id AS sid, 0 AS kind, thread_ts, task_id, idx, \
      CASE WHEN substr(value, 1, 1) = x'80' THEN 'pickle' ELSE 'json' END, value, rowid FROM writes \
      WHERE substr(channel, 1, 2) <> '__' \
    UNION ALL \
    SELECT thread_id, 1, thread_ts, '', 0, \
      CASE WHEN substr(checkpoint, 1, 1) = x'80' THEN 'pickle' ELSE 'json' END, checkpoint, rowid \
      FROM checkpoints c WHERE thread_ts = (SELECT max(thread_ts) FROM checkpoints m WHERE m.thread_id = c.thread_id) \
    ORDER BY sid, kind, thread_ts, task_id, idx";

/// `ROWS_V01` of a database without `writes` (before LangGraph 0.1.5).
const ROWS_V01_NO_WRITES: &str = "SELECT thread_id AS sid, 1 AS kind, thread_ts, '' AS task_id, 0 AS idx, \
      CASE WHEN substr(checkpoint, 1, 1) = x'80' THEN 'pickle' ELSE 'json' END, checkpoint, rowid \
      FROM checkpoints c WHERE thread_ts = (SELECT max(thread_ts) FROM checkpoints m WHERE m.thread_id = c.thread_id) \
    ORDER BY sid, kind, thread_ts, task_id, idx";

/// Is this LangGraph 0.1's schema (no `checkpoint_ns`)?
fn is_v01(s: &Schema<'_>) -> rusqlite::Result<bool> {
    Ok(s.has("checkpoints", &["thread_id", "thread_ts", "checkpoint"])?
        && !s.has("checkpoints", &["checkpoint_ns"])?
        && (!s.has("writes", &[])?
            || s.has("writes", &["thread_id", "thread_ts", "task_id", "idx", "channel", "value"])?))
}

impl Adapter for LangGraph {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(s.has("checkpoints", &["thread_id", "checkpoint_ns", "checkpoint_id", "type", "checkpoint"])?
            && s.has("writes", &["thread_id", "checkpoint_id", "task_id", "idx", "channel", "type", "value"])?
            || is_v01(s)?)
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let schema = Schema::new(conn);
        let v01 = is_v01(&schema)?;
        let (sessions, sql) = match (v01, v01 && schema.has("writes", &[])?) {
            (true, true) => (SESSIONS_V01, ROWS_V01),
            (true, false) => (SESSIONS_V01, ROWS_V01_NO_WRITES),
            _ => (SESSIONS, ROWS),
        };
        let index = SessionIndex::load(conn, sessions)?;
        let stream = Stream { dialect: INFO.dialect, index: &index, sql };
        let mut state = Dedup::default();
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                if session.id != state.session {
                    // A subgraph's namespace (a child session, its thread the
                    // parent) holds copies of messages its thread already
                    // counted (langgraph-supervisor passes the state in): a
                    // call or result counts once per thread, where it was
                    // first read (the root namespace sorts first).
                    let thread = session.parent.clone().unwrap_or_else(|| session.id.clone());
                    state = if thread == state.thread {
                        Dedup { session: session.id.clone(), from_writes: false, ..std::mem::take(&mut state) }
                    } else {
                        Dedup { session: session.id.clone(), thread, ..Dedup::default() }
                    };
                }
                let kind = opt_int(r.get_ref(1)?).unwrap_or(0);
                let checkpoint = text_of(r.get_ref(2)?);
                let row = opt_int(r.get_ref(7)?).unwrap_or(0);
                let time = uuid6_time(&checkpoint).or_else(|| iso_time(&checkpoint));
                if session.started.is_none() {
                    session.started = time;
                }
                let table = if kind == 0 { "writes" } else { "checkpoints" };
                let value = match decode_typed(&text_of(r.get_ref(5)?), r.get_ref(6)?) {
                    Ok(v) => v,
                    Err(problem) => {
                        let problem = format!("{table} row {row}: {problem}");
                        session.malformed.push(Malformed { row, problem, skipped: true, file: None });
                        return Ok(());
                    }
                };
                let value = if kind == 1 {
                    // A checkpoint: its channel values hold the whole state.
                    value.get("channel_values").cloned().unwrap_or(Value::Null)
                } else {
                    value
                };
                let mut messages = Vec::new();
                collect_messages(value, 0, &mut messages);
                if kind == 0 && !messages.is_empty() {
                    state.from_writes = true;
                }
                // After the writes, the latest checkpoint only adds what they
                // lack (messages put there by `update_state`, which writes
                // no `writes` row); a message without an id cannot be told
                // apart, so it is taken from the writes alone.
                let fill_only = kind == 1 && state.from_writes;
                for m in messages {
                    state.message(m, time, row, fill_only, session);
                }
                Ok(())
            },
            emit,
        )?;
        Ok(())
    }
}

/// The `usage_metadata` of a LangChain `AIMessage` (langchain_core's
/// `UsageMetadata`): `input_tokens` sums every input kind, the cache's
/// included (`input_token_details.cache_read`, `.cache_creation`);
/// `output_tokens` every output kind (`output_token_details.reasoning`
/// included). The model from `response_metadata` (`model_name`, or
/// Anthropic's `model`), the response's id the message's.
fn message_usage(m: &Map<String, Value>, row: i64) -> Option<Usage> {
    let u = m.get("usage_metadata")?.as_object()?;
    let count = Usage::count_at;
    let (input, output) = Usage::input_output(u, "input_tokens", "output_tokens")?;
    let details = |k: &str| u.get(k).and_then(Value::as_object);
    let read = details("input_token_details").and_then(|d| count(d, "cache_read")).unwrap_or(0);
    let write = details("input_token_details").and_then(|d| count(d, "cache_creation")).unwrap_or(0);
    let reasoning = details("output_token_details").and_then(|d| count(d, "reasoning")).unwrap_or(0);
    let meta = m.get("response_metadata").and_then(Value::as_object);
    let model = meta
        .and_then(|r| r.get("model_name").or_else(|| r.get("model")))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let response = match m.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        Some(id) => id.to_string(),
        None => format!("row-{row}"),
    };
    Some(Usage {
        response,
        model,
        input: input.saturating_sub(read).saturating_sub(write),
        output,
        cache_read: read,
        cache_write: write,
        reasoning,
        cost: None,
    })
}

/// What one session has counted already, so that a message stored twice
/// (a write and a checkpoint, or a resumed task) counts once.
#[derive(Default)]
struct Dedup {
    session: String,
    /// The thread of the session: its own id, or its parent's for a
    /// subgraph's namespace.
    thread: String,
    /// The session had message writes: its latest checkpoint only fills gaps.
    from_writes: bool,
    calls: HashSet<String>,
    results: HashSet<String>,
}

impl Dedup {
    /// The calls or result of one LangChain message (a model_dump dict).
    fn message(
        &mut self,
        m: Map<String, Value>,
        time: Option<DateTime<Utc>>,
        row: i64,
        fill_only: bool,
        session: &mut Session,
    ) {
        match kind_of(&m) {
            "ai" => {
                let usage = message_usage(&m, row).map(std::sync::Arc::new);
                for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    let id = id_of(c.get("id"));
                    if (id.is_empty() && fill_only) || (!id.is_empty() && !self.calls.insert(id.clone())) {
                        continue;
                    }
                    // LangChain's `{name, args}`, or OpenAI's `{function: {name,
                    // arguments}}` in a state that keeps plain message dicts.
                    let function = c.get("function");
                    let tool = c
                        .get("name")
                        .or_else(|| function.and_then(|f| f.get("name")))
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .unwrap_or("(unnamed)");
                    let input = match (c.get("args"), function.and_then(|f| f.get("arguments"))) {
                        (Some(args), _) => args.clone(),
                        (None, Some(arguments)) => decode_arguments(arguments.clone()),
                        (None, None) => Value::Null,
                    };
                    session.events.push(Event::Call(Call {
                        id,
                        tool: tool.to_string(),
                        input: input.into(),
                        time,
                        row,
                        usage: usage.clone(),
                    }));
                }
                for c in m.get("invalid_tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    // Arguments that did not parse: a failed call, answered or not.
                    let id = id_of(c.get("id"));
                    if (id.is_empty() && fill_only) || (!id.is_empty() && !self.calls.insert(id.clone())) {
                        continue;
                    }
                    let tool = c.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    let input = decode_arguments(c.get("args").cloned().unwrap_or(Value::Null));
                    let why = c.get("error").and_then(Value::as_str).unwrap_or("");
                    let text = format!("Error: Failed to parse tool call arguments for '{tool}'. {why}");
                    session.events.push(Event::Call(Call {
                        id: id.clone(),
                        tool: tool.to_string(),
                        input: input.into(),
                        time,
                        row,
                        usage: usage.clone(),
                    }));
                    if !id.is_empty() {
                        self.results.insert(id.clone());
                    }
                    let result = ToolResult {
                        call_id: id,
                        text: text.trim_end().to_string(),
                        truncated: false,
                        flag: Some(true),
                        exit_code: None,
                        time,
                        row,
                    };
                    session.events.push(Event::Result(result));
                }
            }
            "tool" => {
                let call_id = id_of(m.get("tool_call_id"));
                if (call_id.is_empty() && fill_only) || (!call_id.is_empty() && !self.results.insert(call_id.clone())) {
                    return;
                }
                let flag = match m.get("status") {
                    Some(Value::String(s)) if s == "error" => Some(true),
                    Some(Value::String(s)) if s == "success" => Some(false),
                    None | Some(Value::Null) => None,
                    Some(other) => {
                        let problem = format!("ToolMessage {call_id}: unknown status {other}; read without a flag");
                        session.malformed.push(Malformed { row, problem, skipped: false, file: None });
                        None
                    }
                };
                let full = content_text(m.get("content").unwrap_or(&Value::Null));
                let truncated = full.len() > 2 * crate::model::TEXT_CAP;
                let text = text_ends(&full).into_owned();
                session.events.push(Event::Result(ToolResult {
                    call_id,
                    text,
                    truncated,
                    flag,
                    exit_code: None,
                    time,
                    row,
                }));
            }
            _ => {}
        }
    }
}

/// `ai`, `tool`, … of a message dict: its `type`, else its class.
fn kind_of(m: &Map<String, Value>) -> &str {
    if let Some(t) = m.get("type").and_then(Value::as_str) {
        return match t {
            "AIMessageChunk" => "ai",
            "ToolMessageChunk" => "tool",
            t => t,
        };
    }
    match m.get(CLASS).and_then(Value::as_str) {
        Some("AIMessage" | "AIMessageChunk") => "ai",
        Some("ToolMessage" | "ToolMessageChunk") => "tool",
        // A plain dict of a state whose reducer keeps messages as given
        // (`{"role": "assistant", "tool_calls": […]}`, `{"role": "tool",
        // "tool_call_id": …}`): the roles LangChain's `convert_to_messages`
        // accepts.
        _ => match m.get("role").and_then(Value::as_str) {
            Some("ai" | "assistant") => "ai",
            Some("tool") => "tool",
            _ => "",
        },
    }
}

/// The text of a message's content: a string, or the text of its blocks.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.clone()),
                    p => p.get("text").and_then(Value::as_str).map(str::to_string),
                })
                .collect();
            texts.join("\n")
        }
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// The LangChain messages in a decoded value: a message itself, or the
/// messages of a list or of a map's values (a state with a `messages`
/// channel, or a channel of another name).
fn collect_messages(v: Value, depth: usize, out: &mut Vec<Map<String, Value>>) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Object(m) if is_message(&m) => out.push(m),
        Value::Object(m) => m.into_iter().for_each(|(_, v)| collect_messages(v, depth + 1, out)),
        Value::Array(a) => a.into_iter().for_each(|v| collect_messages(v, depth + 1, out)),
        _ => {}
    }
}

fn is_message(m: &Map<String, Value>) -> bool {
    m.contains_key("content")
        && (m.contains_key(CLASS)
            || matches!(m.get("type").and_then(Value::as_str), Some("ai" | "tool" | "human" | "system"))
            || matches!(
                m.get("role").and_then(Value::as_str),
                Some("ai" | "assistant" | "tool" | "human" | "user" | "system")
            ))
}

/// The key that keeps the class of a decoded Pydantic object.
pub(crate) const CLASS: &str = "__lc_class__";

/// Nesting deeper than this is not decoded (hostile files).
const MAX_DEPTH: usize = 64;

/// A typed blob as JSON, or why it cannot be read.
pub(crate) fn decode_typed(kind: &str, v: ValueRef<'_>) -> Result<Value, String> {
    let bytes = match v {
        ValueRef::Blob(b) | ValueRef::Text(b) => b,
        ValueRef::Null => return Ok(Value::Null),
        _ => return Err("value is not a blob".into()),
    };
    match kind {
        "msgpack" => {
            msgpack_values(bytes)?;
            let mut rd = bytes;
            let value = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
                .map_err(|e| format!("undecodable msgpack: {e}"))?;
            if !rd.is_empty() {
                return Err(format!("undecodable msgpack: {} bytes after the value", rd.len()));
            }
            from_msgpack(value, 0)
        }
        "json" => {
            super::json::check_size(bytes)?;
            let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
            Ok(unwrap_lc(v, 0))
        }
        "null" => Ok(Value::Null),
        "pickle" => Err("pickled value (never unpickled)".into()),
        k if k.ends_with("+aes") => Err(format!("encrypted value ({k})")),
        k => Err(format!("unknown serializer type {:?}", crate::sanitize::one_line(k))),
    }
}

/// Why a msgpack blob is not decoded: it holds more than
/// `json::MAX_JSON_VALUES` values, its extensions' payloads included, or
/// claims more items than it has bytes. Counted without building
/// anything (a blob of nils is a value a byte, 32 bytes each decoded), and
/// only for blobs over 1 MiB.
fn msgpack_values(bytes: &[u8]) -> Result<(), String> {
    const MAX: u64 = super::json::MAX_JSON_VALUES as u64;
    if bytes.len() <= 1 << 20 {
        return Ok(());
    }
    let too_many = || format!("msgpack holds more than {MAX} values; not decoded");
    let cut = || "undecodable msgpack: cut short".to_string();
    let mut values: u64 = 0;
    // Payloads of extensions are msgpack too (LangGraph's types): counted
    // from a list, not by recursion, however deep they nest.
    let mut blobs: Vec<&[u8]> = vec![bytes];
    while let Some(blob) = blobs.pop() {
        let mut at = 0usize;
        let mut pending: u64 = 1;
        let uint = |at: usize, n: usize| -> Option<u64> {
            blob.get(at..at + n).map(|b| b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)))
        };
        while pending > 0 && at < blob.len() {
            pending -= 1;
            values += 1;
            if values > MAX {
                return Err(too_many());
            }
            let m = blob[at];
            at += 1;
            // (items to read, bytes to skip, an extension payload)
            let (items, skip, ext): (u64, u64, bool) = match m {
                0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, 0, false),
                0x80..=0x8f => (2 * u64::from(m & 0x0f), 0, false),
                0x90..=0x9f => (u64::from(m & 0x0f), 0, false),
                0xa0..=0xbf => (0, u64::from(m & 0x1f), false),
                0xc4 | 0xd9 => (0, 1 + uint(at, 1).ok_or_else(cut)?, false),
                0xc5 | 0xda => (0, 2 + uint(at, 2).ok_or_else(cut)?, false),
                0xc6 | 0xdb => (0, 4 + uint(at, 4).ok_or_else(cut)?, false),
                0xc7 => (0, 2 + uint(at, 1).ok_or_else(cut)?, true),
                0xc8 => (0, 3 + uint(at, 2).ok_or_else(cut)?, true),
                0xc9 => (0, 5 + uint(at, 4).ok_or_else(cut)?, true),
                0xca | 0xce | 0xd2 => (0, 4, false),
                0xcb | 0xcf | 0xd3 => (0, 8, false),
                0xcc | 0xd0 => (0, 1, false),
                0xcd | 0xd1 => (0, 2, false),
                0xd4 => (0, 2, true),
                0xd5 => (0, 3, true),
                0xd6 => (0, 5, true),
                0xd7 => (0, 9, true),
                0xd8 => (0, 17, true),
                0xdc => (uint(at, 2).ok_or_else(cut)?, 2, false),
                0xdd => (uint(at, 4).ok_or_else(cut)?, 4, false),
                0xde => (2 * uint(at, 2).ok_or_else(cut)?, 2, false),
                0xdf => (2 * uint(at, 4).ok_or_else(cut)?, 4, false),
                0xc1 => return Err("undecodable msgpack: reserved marker 0xc1".into()),
            };
            let end = usize::try_from(skip).ok().and_then(|s| at.checked_add(s)).filter(|&e| e <= blob.len());
            let Some(end) = end else { return Err(cut()) };
            if ext {
                // Length and type bytes, then the payload.
                let header = match m {
                    0xc7 => 2,
                    0xc8 => 3,
                    0xc9 => 5,
                    _ => 1,
                };
                blobs.push(&blob[at + header..end]);
            }
            at = end;
            pending = pending.checked_add(items).ok_or_else(too_many)?;
            // Every item takes a byte at least.
            if pending > (blob.len() - at) as u64 {
                return Err(format!("undecodable msgpack: claims {pending} items in {} bytes", blob.len() - at));
            }
        }
    }
    Ok(())
}

/// msgpack as JSON, with LangGraph's extension types resolved.
fn from_msgpack(v: rmpv::Value, depth: usize) -> Result<Value, String> {
    use rmpv::Value as M;
    if depth > MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    Ok(match v {
        M::Nil => Value::Null,
        M::Boolean(b) => Value::Bool(b),
        M::Integer(i) => i.as_i64().map(Value::from).or_else(|| i.as_u64().map(Value::from)).unwrap_or(Value::Null),
        M::F32(f) => serde_json::Number::from_f64(f64::from(f)).map_or(Value::Null, Value::Number),
        M::F64(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        M::String(s) => Value::String(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        M::Binary(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
        M::Array(a) => Value::Array(a.into_iter().map(|v| from_msgpack(v, depth + 1)).collect::<Result<_, _>>()?),
        M::Map(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let key = match k {
                    M::String(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
                    k => k.to_string(),
                };
                out.insert(key, from_msgpack(v, depth + 1)?);
            }
            Value::Object(out)
        }
        M::Ext(code, payload) => ext(code, &payload, depth)?,
    })
}

/// One of LangGraph's msgpack extension values.
fn ext(code: i8, payload: &[u8], depth: usize) -> Result<Value, String> {
    let mut rd = payload;
    let inner = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
        .map_err(|e| format!("undecodable extension {code}: {e}"))?;
    if !rd.is_empty() {
        return Err(format!("undecodable extension {code}: {} bytes after the value", rd.len()));
    }
    let inner = from_msgpack(inner, depth + 1)?;
    let Value::Array(mut parts) = inner else {
        return Ok(Value::Null);
    };
    Ok(match code {
        // Pydantic v2 / v1: [module, class, dict, …]: the dict, tagged with its class.
        4 | 5 if parts.len() >= 3 => {
            let class = parts[1].as_str().unwrap_or("").to_string();
            match parts.swap_remove(2) {
                Value::Object(mut m) => {
                    m.insert(CLASS.into(), Value::String(class));
                    Value::Object(m)
                }
                v => v,
            }
        }
        // Constructors and class methods: [module, name, argument(s), method?].
        0..=3 if parts.len() >= 3 => parts.swap_remove(2),
        _ => Value::Null,
    })
}

/// An old LangChain constructor envelope (`{"lc":1,"type":"constructor",
/// "id":[…, class],"kwargs":{…}}`) as its kwargs tagged with the class.
fn unwrap_lc(v: Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match v {
        Value::Object(mut m)
            if m.get("lc").is_some() && m.get("type").and_then(Value::as_str) == Some("constructor") =>
        {
            let class = m.get("id").and_then(Value::as_array).and_then(|a| a.last()).cloned();
            match m.remove("kwargs") {
                Some(Value::Object(k)) => {
                    let mut k: Map<String, Value> = k.into_iter().map(|(k, v)| (k, unwrap_lc(v, depth + 1))).collect();
                    if let Some(c) = class {
                        k.insert(CLASS.into(), c);
                    }
                    Value::Object(k)
                }
                _ => Value::Null,
            }
        }
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, unwrap_lc(v, depth + 1))).collect()),
        Value::Array(a) => Value::Array(a.into_iter().map(|v| unwrap_lc(v, depth + 1)).collect()),
        v => v,
    }
}

/// An ISO time (LangGraph 0.1's first `thread_ts`), if it is one.
fn iso_time(ts: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(ts).ok().map(|t| t.with_timezone(&Utc))
}

/// The time in a version-6 UUID (LangGraph's checkpoint ids), if it is one.
pub(crate) fn uuid6_time(id: &str) -> Option<DateTime<Utc>> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || hex.as_bytes()[12] != b'6' {
        return None;
    }
    let n = u128::from_str_radix(&hex, 16).ok()?;
    let high = (n >> 96) as u64 & 0xffff_ffff;
    let mid = (n >> 80) as u64 & 0xffff;
    let low = (n >> 64) as u64 & 0x0fff;
    let ticks = (high << 28) | (mid << 12) | low;
    // 100 ns ticks since 1582-10-15.
    let unix_100ns = ticks.checked_sub(0x01b2_1dd2_1381_4000)?;
    DateTime::from_timestamp((unix_100ns / 10_000_000) as i64, ((unix_100ns % 10_000_000) * 100) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LangChain's `UsageMetadata`: the cache's reads and writes are inside
    /// `input_tokens`, reasoning inside `output_tokens`.
    #[test]
    fn an_ai_messages_usage() {
        let m = serde_json::json!({
            "type": "ai", "id": "run-1",
            "response_metadata": {"model_name": "gpt-4o-2024-08-06"},
            "usage_metadata": {"input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500,
                "input_token_details": {"cache_read": 1000, "cache_creation": 50},
                "output_token_details": {"reasoning": 120}}
        });
        let u = message_usage(m.as_object().unwrap(), 7).unwrap();
        assert_eq!((u.input, u.cache_read, u.cache_write, u.output, u.reasoning), (150, 1000, 50, 300, 120));
        assert_eq!((u.response.as_str(), u.model.as_deref()), ("run-1", Some("gpt-4o-2024-08-06")));
        let anthropic = serde_json::json!({"response_metadata": {"model": "claude-sonnet-4-5"},
            "usage_metadata": {"input_tokens": 10, "output_tokens": 2}});
        let u = message_usage(anthropic.as_object().unwrap(), 7).unwrap();
        assert_eq!(
            (u.input, u.output, u.response.as_str(), u.model.as_deref()),
            (10, 2, "row-7", Some("claude-sonnet-4-5"))
        );
        let none = serde_json::json!({"usage_metadata": {"total_tokens": 5}, "id": "x"});
        assert!(message_usage(none.as_object().unwrap(), 1).is_none(), "no input or output count: no usage");
    }

    /// A state whose reducer keeps plain message dicts: LangChain's roles
    /// and call shape, or OpenAI's, are read as the messages they stand for.
    #[test]
    fn plain_message_dicts_are_messages() {
        let state = serde_json::json!({"messages": [
            {"role": "human", "content": "hello"},
            {"role": "ai", "content": "", "tool_calls": [{"id": "c1", "name": "web_search", "args": {"q": "x"}, "type": "tool_call"}]},
            {"role": "tool", "tool_call_id": "c1", "name": "web_search", "content": "Error: quota exceeded"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c2", "content": "12 C"}
        ], "tool_results": [{"tool_call_id": "c1", "content": "Error: quota exceeded", "status": "rejected"}]});
        let mut found = Vec::new();
        collect_messages(state, 0, &mut found);
        assert_eq!(found.len(), 5, "the channel of results is not a message");
        let mut dedup = Dedup::default();
        let mut session = Session::default();
        for m in found {
            dedup.message(m, None, 1, false, &mut session);
        }
        let calls: Vec<(String, String)> = session
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Call(c) => Some((c.tool.clone(), c.input.value().to_string())),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("web_search".to_string(), r#"{"q":"x"}"#.to_string()),
                ("get_weather".to_string(), r#"{"city":"Oslo"}"#.to_string())
            ]
        );
        let results = session.events.iter().filter(|e| matches!(e, Event::Result(r) if r.flag.is_none())).count();
        assert_eq!(results, 2, "no status kept: no flag");
    }

    #[test]
    fn uuid6_times() {
        // A checkpoint id LangGraph wrote (uuid6), and a UUID v4 that has no time.
        let t = uuid6_time("1f0a6b7e-3c2d-6e4f-8000-0123456789ab").unwrap();
        assert!(t.timestamp() > 1_700_000_000, "{t}");
        assert!(uuid6_time("9b2f6d4e-1c3a-4e5f-8a7b-0123456789ab").is_none());
        assert!(uuid6_time("nope").is_none());
    }

    fn ext5(class: &str, dict: rmpv::Value) -> rmpv::Value {
        let mut payload = Vec::new();
        let arr = rmpv::Value::Array(vec![
            "langchain_core.messages".into(),
            class.into(),
            dict,
            "model_validate_json".into(),
        ]);
        rmpv::encode::write_value(&mut payload, &arr).unwrap();
        rmpv::Value::Ext(5, payload)
    }

    fn pack(v: &rmpv::Value) -> Vec<u8> {
        let mut b = Vec::new();
        rmpv::encode::write_value(&mut b, v).unwrap();
        b
    }

    #[test]
    fn extension_types_become_tagged_dicts() {
        let msg = ext5(
            "ToolMessage",
            rmpv::Value::Map(vec![
                ("content".into(), "Error: boom".into()),
                ("type".into(), "tool".into()),
                ("tool_call_id".into(), "c1".into()),
                ("status".into(), "success".into()),
            ]),
        );
        let v = decode_typed("msgpack", ValueRef::Blob(&pack(&rmpv::Value::Array(vec![msg])))).unwrap();
        assert_eq!(v[0][CLASS], "ToolMessage");
        assert_eq!(v[0]["tool_call_id"], "c1");
        let mut out = vec![];
        collect_messages(v, 0, &mut out);
        assert_eq!(out.len(), 1);
    }

    /// Issue 22, F2 (`gen_bombs.py`): 50 MB of nils in one array (3.6 GB
    /// decoded) and blobs claiming billions of items are refused by
    /// counting, before anything is decoded; a large ordinary blob is not.
    #[test]
    fn msgpack_bombs_are_counted_not_decoded() {
        let mut nils = vec![0xdd];
        nils.extend_from_slice(&(50u32 << 20).to_be_bytes());
        nils.resize(5 + (50 << 20), 0xc0);
        let err = decode_typed("msgpack", ValueRef::Blob(&nils)).unwrap_err();
        assert!(err.contains("more than 4000000 values"), "{err}");
        let mut claims = vec![0xdd, 0xff, 0xff, 0xff, 0xff];
        claims.resize(2 << 20, 0xc0);
        assert!(decode_typed("msgpack", ValueRef::Blob(&claims)).unwrap_err().contains("claims"));
        // Nested in extensions: counted too.
        let inner = pack(&rmpv::Value::Array(vec![rmpv::Value::Nil; 3_000_000]));
        let outer = pack(&rmpv::Value::Array(vec![rmpv::Value::Ext(5, inner.clone()), rmpv::Value::Ext(5, inner)]));
        assert!(decode_typed("msgpack", ValueRef::Blob(&outer)).unwrap_err().contains("more than"));
        let text = pack(&rmpv::Value::Array(vec![rmpv::Value::String("x".repeat(3 << 20).into()); 2]));
        assert!(decode_typed("msgpack", ValueRef::Blob(&text)).is_ok());
    }

    #[test]
    fn unreadable_blobs_say_why() {
        assert!(decode_typed("pickle", ValueRef::Blob(b"x")).unwrap_err().contains("never unpickled"));
        assert!(decode_typed("msgpack+aes", ValueRef::Blob(b"x")).unwrap_err().contains("encrypted"));
        assert!(decode_typed("msgpack", ValueRef::Blob(&[0x92, 0xa5])).unwrap_err().contains("undecodable"));
        assert!(decode_typed("msgpack", ValueRef::Blob(&[0xc1, 0xc1])).unwrap_err().contains("undecodable"));
        assert!(decode_typed("cbor", ValueRef::Blob(b"x")).unwrap_err().contains("unknown serializer"));
        // An extension whose payload is not msgpack.
        let bad = pack(&rmpv::Value::Ext(5, vec![0x92, 0xa5]));
        assert!(decode_typed("msgpack", ValueRef::Blob(&bad)).is_err());
    }

    #[test]
    fn old_json_constructor_envelopes() {
        let v = decode_typed(
            "json",
            ValueRef::Text(
                br#"{"messages":[{"lc":1,"type":"constructor","id":["langchain","schema","messages","ToolMessage"],"kwargs":{"content":"ok","tool_call_id":"x"}}]}"#,
            ),
        )
        .unwrap();
        assert_eq!(v["messages"][0][CLASS], "ToolMessage");
        let mut out = vec![];
        collect_messages(v, 0, &mut out);
        assert_eq!(kind_of(&out[0]), "tool");
    }
}
