//! Zed's agent threads (`<data dir>/threads/threads.db`),
//! created by Zed's `ThreadsDatabase::new` (`~/.local/share/zed` on Linux;
//! nothing is written with `ZED_STATELESS` set).
//!
//! One row per thread; `data` is the whole thread as JSON, zstd-compressed
//! when `data_type = 'zstd'` (current writers) or plain when `'json'`. The
//! JSON has four generations, told apart by its top-level `version`:
//! absent, `0.1.0` and `0.2.0` (legacy: `tool_uses` and `tool_results`
//! lists on the messages; 0.1.0 puts results on the following user
//! message) and `0.3.0` (serde externally tagged enums: `{"User":…}`,
//! `{"Agent":{"content":[{"ToolUse":…}], "tool_results":{<id>:…}}}`,
//! `"Resume"`). Call and result are linked by the tool-use id; the flag is
//! `is_error`. Zed's `terminal` tool returns success for a command that
//! exited non-zero (`Command "…" failed with exit code N.`): the exit code
//! is read out of that sentence so the benign-exit table applies.
//!
//! Messages carry no time: every call gets the thread's `updated_at`.
//! Sub-agent threads name their parent in `parent_id`. Threads marked
//! `imported` are copies of shared threads and are not read (they would be
//! counted twice). Unknown versions and enum variants are counted malformed
//! rows; a blob that does not decode is a skipped one.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashSet};
use std::io::Read;

use chrono::{DateTime, Utc};
use regex::Regex;
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use super::rows::{SessionIndex, Stream, id_of, opt_int, pick_query, stream_by_session, text_of, time_of};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Malformed, Session, ToolResult, text_ends};

pub(crate) struct Zed;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::ZED,
    agent: "Zed's agent panel threads",
    product: "Zed",
    signature: "`threads` with `data_type` and `data` (one zstd-compressed JSON thread per row)",
    flag: "`is_error` of the tool result; the terminal tool's `Command \"…\" failed with exit code N.`, timeouts and \
           refused sandbox escalations are not flagged",
    locations: &[
        Location::XdgData("zed/threads/threads.db"),
        Location::Home("Library/Application Support/Zed/threads/threads.db"),
        Location::EnvDir("LOCALAPPDATA", "Zed/threads/threads.db"),
    ],
    sample: "zed.db",
};

const SESSIONS: &[(&[&str], &str)] = &[
    (&["parent_id", "created_at"], "SELECT id, parent_id, created_at FROM threads"),
    (&["parent_id"], "SELECT id, parent_id, updated_at FROM threads"),
    (&[], "SELECT id, NULL, updated_at FROM threads"),
];

const ROWS: &str = "SELECT id, rowid, data_type, data, updated_at FROM threads ORDER BY id";

/// A thread larger than this once decompressed is not read (a zstd bomb):
/// 32 times the text of a million-token context.
const MAX_THREAD_BYTES: u64 = 128 << 20;

impl Adapter for Zed {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        s.has("threads", &["id", "data_type", "data", "updated_at"])
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let index = match pick_query(conn, "threads", SESSIONS)? {
            Some(sql) => SessionIndex::load(conn, sql)?,
            None => SessionIndex::default(),
        };
        let imported: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: ROWS };
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                let row = opt_int(r.get_ref(1)?).unwrap_or(0);
                let time = time_of(r.get_ref(4)?);
                let thread = match decode(&text_of(r.get_ref(2)?), r.get_ref(3)?) {
                    Ok(v) => v,
                    Err(problem) => {
                        session.malformed.push(Malformed { row, problem, skipped: true, file: None });
                        return Ok(());
                    }
                };
                if thread.get("imported").and_then(Value::as_bool) == Some(true) {
                    imported.borrow_mut().insert(session.id.clone());
                    return Ok(());
                }
                parse_thread(&thread, time, row, session);
                Ok(())
            },
            |session, cx| {
                if !imported.borrow().contains(&session.id) {
                    cx.emit(session);
                }
                Ok(())
            },
        )?;
        Ok(())
    }
}

/// A thread's `data` as JSON, or why it cannot be read.
pub(crate) fn decode(data_type: &str, v: ValueRef<'_>) -> Result<Value, String> {
    let bytes = match v {
        ValueRef::Blob(b) | ValueRef::Text(b) => b,
        _ => return Err("data is not a blob".into()),
    };
    let json = match data_type {
        "json" => bytes.to_vec(),
        "zstd" => {
            let mut src = bytes;
            let dec = ruzstd::decoding::StreamingDecoder::new(&mut src)
                .map_err(|e| format!("data is not a zstd frame: {e}"))?;
            read_at_most(dec, MAX_THREAD_BYTES)
                .map_err(|e| format!("data does not decompress: {e}"))?
                .ok_or_else(|| format!("data decompresses to more than {} MiB", MAX_THREAD_BYTES >> 20))?
        }
        other => return Err(format!("unknown data_type {:?}", crate::sanitize::one_line(other))),
    };
    super::json::check_size(&json).map_err(|e| format!("thread {e}"))?;
    serde_json::from_slice(&json).map_err(|e| format!("thread is invalid JSON: {e}"))
}

/// All of `r`, or `None` past `max` bytes. The buffer grows by a quarter at
/// a time, not by doubling, so that reading up to the bound never holds
/// twice the bound.
fn read_at_most(mut r: impl Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(Some(out)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if (out.len() + n) as u64 > max {
            return Ok(None);
        }
        if out.len() + n > out.capacity() {
            out.reserve_exact((out.len() / 4).max(1 << 20));
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// The calls and results of one thread, in message order.
pub(crate) fn parse_thread(thread: &Value, time: Option<DateTime<Utc>>, row: i64, session: &mut Session) {
    let version = thread.get("version").and_then(Value::as_str);
    let messages = thread.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let mut unknown = BTreeSet::new();
    match version {
        None | Some("0.1.0" | "0.2.0") => legacy(messages, time, row, &mut session.events),
        Some("0.3.0") => current(messages, time, row, &mut session.events, &mut unknown),
        Some(v) => {
            // A newer writer: read it as the current shape, and say so.
            current(messages, time, row, &mut session.events, &mut unknown);
            let problem =
                format!("thread version {:?} is newer than 0.3.0; read as 0.3.0", crate::sanitize::one_line(v));
            session.malformed.push(Malformed { row, problem, skipped: false, file: None });
        }
    }
    if !unknown.is_empty() {
        let names: Vec<&str> = unknown.iter().map(String::as_str).collect();
        let problem = format!("unknown variants skipped: {}", crate::sanitize::one_line(&names.join(", ")));
        session.malformed.push(Malformed { row, problem, skipped: false, file: None });
    }
}

/// Version 0.3.0: `{"User":…}`, `{"Agent":…}` and `"Resume"` messages.
fn current(
    messages: &[Value],
    time: Option<DateTime<Utc>>,
    row: i64,
    out: &mut Vec<Event>,
    unknown: &mut BTreeSet<String>,
) {
    for m in messages {
        let (variant, body) = match m {
            Value::String(s) => (s.as_str(), &Value::Null),
            Value::Object(o) if o.len() == 1 => {
                let (k, v) = o.iter().next().expect("one key");
                (k.as_str(), v)
            }
            _ => {
                unknown.insert("message of no variant".into());
                continue;
            }
        };
        match variant {
            "User" | "Resume" => {}
            "Agent" => {
                let results = body.get("tool_results").and_then(Value::as_object);
                for item in body.get("content").and_then(Value::as_array).into_iter().flatten() {
                    let (kind, value) = match item {
                        Value::Object(o) if o.len() == 1 => o.iter().next().expect("one key"),
                        _ => {
                            unknown.insert("agent content of no variant".into());
                            continue;
                        }
                    };
                    match kind.as_str() {
                        "Text" | "Thinking" | "RedactedThinking" => {}
                        "ToolUse" => {
                            let id = id_of(value.get("id"));
                            let tool = tool_name(value.get("name"));
                            out.push(Event::Call(Call {
                                id: id.clone(),
                                tool,
                                input: tool_input(value).into(),
                                time,
                                row,
                                usage: None,
                            }));
                            if let Some(r) = results.and_then(|r| r.get(&id)) {
                                out.push(Event::Result(result(&id, r, time, row)));
                            }
                        }
                        other => {
                            unknown.insert(format!("Agent content {other}"));
                        }
                    }
                }
            }
            other => {
                unknown.insert(format!("message {other}"));
            }
        }
    }
}

/// Versions before 0.3.0: `tool_uses` and `tool_results` lists.
fn legacy(messages: &[Value], time: Option<DateTime<Utc>>, row: i64, out: &mut Vec<Event>) {
    for m in messages {
        for u in m.get("tool_uses").and_then(Value::as_array).into_iter().flatten() {
            let id = id_of(u.get("id"));
            let input = u.get("input").cloned().unwrap_or(Value::Null);
            out.push(Event::Call(Call {
                id,
                tool: tool_name(u.get("name")),
                input: input.into(),
                time,
                row,
                usage: None,
            }));
        }
        for r in m.get("tool_results").and_then(Value::as_array).into_iter().flatten() {
            let id = id_of(r.get("tool_use_id"));
            out.push(Event::Result(result(&id, r, time, row)));
        }
    }
}

fn tool_name(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)").to_string()
}

/// A ToolUse's arguments: `input` as `{"type":"json"|"text","value":…}`
/// (exactly those two keys), or the parsed value itself, else `raw_input`.
fn tool_input(tool_use: &Value) -> Value {
    match tool_use.get("input") {
        Some(Value::Object(o))
            if o.len() == 2 && o.get("type").and_then(Value::as_str).is_some_and(|t| t == "json" || t == "text") =>
        {
            o.get("value").cloned().unwrap_or(Value::Null)
        }
        Some(v) if !v.is_null() => v.clone(),
        _ => match tool_use.get("raw_input") {
            Some(Value::String(s)) => super::json::nested(s.clone()),
            _ => Value::Null,
        },
    }
}

/// The result of tool use `id`: its text, its flag and, for the terminal's
/// `failed with exit code N.`, the exit status.
fn result(id: &str, r: &Value, time: Option<DateTime<Utc>>, row: i64) -> ToolResult {
    let full = content_text(r.get("content").unwrap_or(&Value::Null));
    let tool = r.get("tool_name").and_then(Value::as_str).unwrap_or("");
    let exit_code = if tool.is_empty() || tool == "terminal" { exit_code(&full) } else { None };
    let truncated = full.len() > 2 * crate::model::TEXT_CAP;
    ToolResult {
        call_id: id.to_string(),
        text: text_ends(&full).into_owned(),
        truncated,
        flag: r.get("is_error").and_then(Value::as_bool),
        exit_code,
        time,
        row,
    }
}

/// The terminal's `Command "…" failed with exit code N.` at the start of a result.
fn exit_code(text: &str) -> Option<i64> {
    static RE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r#"^Command "(?s:.*?)" failed with exit code (-?\d+)\."#).expect("exit code pattern compiles")
    });
    let head = text_ends(text);
    RE.captures(&head).and_then(|c| c[1].parse().ok())
}

/// A result's content: a string, `{"Text":…}` / `{"type":"text","text":…}`,
/// or a list of those (images are skipped).
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts.iter().map(content_text).filter(|t| !t.is_empty()).collect();
            texts.join("\n")
        }
        Value::Object(o) => text_part(o).unwrap_or_default(),
        _ => String::new(),
    }
}

fn text_part(o: &Map<String, Value>) -> Option<String> {
    for (k, v) in o {
        if k.eq_ignore_ascii_case("text") {
            return v.as_str().map(str::to_string);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(thread: Value) -> Session {
        let mut s = Session::default();
        parse_thread(&thread, None, 7, &mut s);
        s
    }

    fn results(s: &Session) -> Vec<(String, String, Option<bool>, Option<i64>)> {
        s.events
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some((r.call_id.clone(), r.text.clone(), r.flag, r.exit_code)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn current_threads_pair_in_the_agent_message() {
        let s = events(json!({"version":"0.3.0","messages":[
            {"User":{"id":"u1","content":[{"Text":"run"}]}},
            {"Agent":{"content":[{"Text":"ok"},
                {"ToolUse":{"id":"t1","name":"terminal","raw_input":"{}","input":{"type":"json","value":{"command":"cargo test","cd":"p"}},"is_input_complete":true}},
                {"ToolUse":{"id":"t2","name":"read_file","raw_input":"{\"path\":\"a\"}","input":{"path":"a"},"is_input_complete":true}}],
              "tool_results":{
                "t1":{"tool_use_id":"t1","tool_name":"terminal","is_error":false,"content":[{"Text":"Command \"cargo test\" failed with exit code 101.\n\n```\nboom\n```"}],"output":null},
                "t2":{"tool_use_id":"t2","tool_name":"read_file","is_error":true,"content":{"text":"not found"},"output":"not found"}}}},
            "Resume"]}));
        assert!(matches!(&s.events[0], Event::Call(c) if c.input["command"] == "cargo test"));
        assert!(matches!(&s.events[2], Event::Call(c) if c.input["path"] == "a"));
        assert_eq!(
            results(&s),
            vec![
                (
                    "t1".into(),
                    "Command \"cargo test\" failed with exit code 101.\n\n```\nboom\n```".into(),
                    Some(false),
                    Some(101)
                ),
                ("t2".into(), "not found".into(), Some(true), None),
            ]
        );
        assert!(s.malformed.is_empty());
    }

    #[test]
    fn legacy_results_on_the_next_message() {
        let s = events(json!({"version":"0.1.0","messages":[
            {"id":1,"role":"assistant","segments":[{"type":"text","text":"x"}],"tool_uses":[{"id":"a","name":"grep","input":{"regex":"x"}}],"tool_results":[]},
            {"id":2,"role":"user","segments":[],"tool_uses":[],"tool_results":[{"tool_use_id":"a","is_error":false,"content":"No matches found","output":null}]}]}));
        assert_eq!(s.events.len(), 2);
        assert_eq!(results(&s), vec![("a".into(), "No matches found".into(), Some(false), None)]);
    }

    #[test]
    fn unknown_variants_and_versions_are_counted() {
        let s = events(json!({"version":"0.4.0","messages":[
            {"System":{"text":"x"}},
            {"Agent":{"content":[{"Citation":{}},{"ToolUse":{"id":"t","name":"grep","input":{"regex":"a"}}}],"tool_results":{}}}]}));
        assert_eq!(s.events.len(), 1, "the call is still read");
        assert_eq!(s.malformed.len(), 2, "{:?}", s.malformed);
        assert!(s.malformed.iter().all(|m| m.row == 7 && !m.skipped));
    }

    #[test]
    fn blobs_that_do_not_decode() {
        assert!(decode("zstd", ValueRef::Blob(b"not zstd")).unwrap_err().contains("zstd"));
        assert!(decode("brotli", ValueRef::Blob(b"{}")).unwrap_err().contains("unknown data_type"));
        assert!(decode("json", ValueRef::Blob(b"{")).unwrap_err().contains("invalid JSON"));
        let z = ruzstd::encoding::compress_to_vec(
            &b"{\"version\":\"0.3.0\"}"[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        assert_eq!(decode("zstd", ValueRef::Blob(&z)).unwrap()["version"], "0.3.0");
    }

    /// Issue 22, F2 (`repro_zed_bomb.sh`): a small zstd frame of `[0,0,…]`
    /// (a `Value` of gigabytes) and one past the decompressed bound are
    /// refused before they are parsed; the buffer never doubles past it.
    #[test]
    fn zstd_bombs_are_refused() {
        let zstd = |text: &[u8]| ruzstd::encoding::compress_to_vec(text, ruzstd::encoding::CompressionLevel::Fastest);
        let mut array = b"{\"version\":\"0.3.0\",\"x\":[".to_vec();
        array.extend(std::iter::repeat_n(&b"0,"[..], crate::source::json::MAX_JSON_VALUES).flatten());
        array.extend_from_slice(b"0]}");
        let err = decode("zstd", ValueRef::Blob(&zstd(&array))).unwrap_err();
        assert!(err.contains("JSON values"), "{err}");
        let big = zstd(&vec![b' '; MAX_THREAD_BYTES as usize + 1]);
        assert!(decode("zstd", ValueRef::Blob(&big)).unwrap_err().contains("more than 128 MiB"));
        let exact = read_at_most(&vec![7u8; 3 << 20][..], 3 << 20).unwrap().unwrap();
        assert!(exact.len() == 3 << 20 && exact.capacity() < 4 << 20, "{}", exact.capacity());
        assert!(read_at_most(&vec![7u8; 3 << 20][..], (3 << 20) - 1).unwrap().is_none());
    }
}
