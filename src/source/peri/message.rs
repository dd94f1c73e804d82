//! Decoding one stored Peri message into calls and results: only what the
//! analysis reads, the rest skipped over in place.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::fast::{block_row, flat_tool_row, parse_long_result};
use crate::model::{Args, Call, Event, TEXT_CAP, ToolResult};
use crate::source::json::{self, Decoded, string_ends};

/// A JSON value kept as its text, as serde_json's `RawValue` gives it
/// (checked, whitespace around it left out): read by serde through
/// `RawValue`, or made by the serde-free readers from a value they checked
/// (`flat_tool_row`, `block_row`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Raw<'a>(pub(super) &'a str);

impl<'a> Raw<'a> {
    pub(super) fn get(self) -> &'a str {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(d).map(|r| Raw(r.get()))
    }
}

/// A stored message, with only what the analysis reads. Its `content` and
/// `tool_calls` are kept raw (`Msg`), or, for a row read in one pass,
/// decoded as what they must then be: the string of a tool row
/// (`PlainMsg`), the blocks and mirrored calls of another (`BlockMsg`).
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a, C: Deserialize<'de>, T: Deserialize<'de>"))]
pub(super) struct Message<'a, C, T = Raw<'a>> {
    #[serde(borrow, default)]
    pub(super) role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) tool_call_id: Option<Raw<'a>>,
    #[serde(default = "none")]
    pub(super) content: Option<C>,
    #[serde(borrow, default)]
    pub(super) is_error: Option<Raw<'a>>,
    #[serde(default = "none")]
    pub(super) tool_calls: Option<T>,
    #[serde(borrow, default)]
    pub(super) version: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "type")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) message: Option<Raw<'a>>,
}

fn none<C>() -> Option<C> {
    None
}

pub(super) type Msg<'a> = Message<'a, Raw<'a>>;
type PlainMsg<'a> = Message<'a, String>;
pub(super) type BlockMsg<'a> = Message<'a, Vec<Block<'a>>, Vec<Mirror<'a>>>;

/// What a one-pass parse decoded already, for `read_msg`.
pub(super) enum Read<'a> {
    /// Nothing: `content` and `tool_calls` are read from the raw message.
    Raw,
    /// The text of a tool result.
    Text(Decoded),
    /// The blocks of `content` and the calls of `tool_calls`, each `None`
    /// when the message has none (or `null`).
    Items(Option<Vec<Block<'a>>>, Option<Vec<Mirror<'a>>>),
}

impl<'a> PlainMsg<'a> {
    /// The message as `read_msg` takes it: its string content as the
    /// decoded text of a tool result (which is all a string content can be).
    fn split(self) -> (Msg<'a>, Read<'a>) {
        let text = self.content.map(|text| Decoded { text, cut: false, repaired: false });
        let Message { role, id, tool_call_id, is_error, tool_calls, version, kind, message, .. } = self;
        let msg = Message { role, id, tool_call_id, content: None, is_error, tool_calls, version, kind, message };
        (msg, text.map_or(Read::Raw, Read::Text))
    }
}

impl<'a> BlockMsg<'a> {
    /// The message as `read_msg` takes it, its blocks and calls decoded.
    fn split(self) -> (Msg<'a>, Read<'a>) {
        let Message { role, id, tool_call_id, content, is_error, tool_calls, version, kind, message } = self;
        let msg = Message { role, id, tool_call_id, content: None, is_error, tool_calls: None, version, kind, message };
        (msg, Read::Items(content, tool_calls))
    }
}

#[derive(Deserialize)]
pub(super) struct Block<'a> {
    #[serde(borrow, default, rename = "type")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) id: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "decoded_args")]
    pub(super) input: Option<Args>,
    #[serde(borrow, default)]
    pub(super) tool_use_id: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(super) content: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(super) is_error: Option<Raw<'a>>,
}

/// A block's `input` read by serde: decoded (the fast path keeps the
/// text instead, `fast::block_row`).
fn decoded_args<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Args>, D::Error> {
    Option::<Value>::deserialize(d).map(|v| v.map(Args::new))
}

#[derive(Deserialize)]
pub(super) struct Mirror<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Cow<'a, str>>,
    /// Parsed only when the call is not a copy of a block already read.
    #[serde(borrow, default)]
    pub(super) arguments: Option<Raw<'a>>,
}

/// The items of a JSON array, each as `T`; an item that is not one is
/// left out. One pass when every item fits, the usual case.
fn items<'a, T: Deserialize<'a>>(raw: Raw<'a>) -> Vec<T> {
    serde_json::from_str::<Vec<T>>(raw.get()).unwrap_or_else(|_| {
        let all: Vec<Raw> = serde_json::from_str(raw.get()).unwrap_or_default();
        all.into_iter().filter_map(|item| serde_json::from_str(item.get()).ok()).collect()
    })
}

#[derive(Deserialize)]
struct TextBlock<'a> {
    #[serde(borrow, default)]
    text: Option<Raw<'a>>,
}

/// Turn one stored message into calls and results, appended to `out`.
/// `Err` is a one-line description of why the row cannot be read.
/// `Ok(true)` means the row was read after a repair (lone surrogates).
///
/// Only what the analysis reads is decoded: ids, names, arguments, flags,
/// and the two ends of a result's text (`TEXT_CAP` bytes each); the rest
/// is skipped over in place, borrowed rather than copied.
pub fn parse_message(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Result<bool, String> {
    parse_message_with(content, role_column, row, out, true)
}

/// `parse_message`, with the serde-free reading of flat tool rows or
/// without it (the tests hold the two to the same answers).
pub(super) fn parse_message_with(
    content: &str,
    role_column: &str,
    row: i64,
    out: &mut Vec<Event>,
    flat: bool,
) -> Result<bool, String> {
    json::check_size(content.as_bytes())?;
    if content.len() > 4 * TEXT_CAP
        && let Some(done) = parse_long_result(content.as_bytes(), role_column, row, out)
    {
        return done;
    }
    // A tool row short enough that `raw_text` would decode its string
    // whole: its members read without serde when they are all scalars
    // (`flat_tool_row`), else decoded by serde in the same pass. Anything
    // else (an array, a lone surrogate, a broken row) takes the general
    // path below.
    if role_column == "tool" && content.len() <= 2 * TEXT_CAP + 2 {
        if flat && let Some(done) = flat_tool_row(content, row, out) {
            return done;
        }
        if let Ok(plain) = serde_json::from_str::<PlainMsg>(content) {
            let (msg, text) = plain.split();
            return read_msg(msg, role_column, row, out, 0, text);
        }
    }
    // Any other row whose blocks and calls all decode (an assistant's, as a
    // rule): decoded in the same pass. The general path reads what this one
    // reads when it succeeds: the same types over the same bytes; a row it
    // cannot read (a string content, an odd block) takes the general path,
    // as does a tool message (its content is a text, not blocks).
    if role_column != "tool"
        && flat
        && let Some(done) = block_row(content, role_column, row, out)
    {
        return done;
    }
    if role_column != "tool"
        && let Ok(whole) = serde_json::from_str::<BlockMsg>(content)
        && whole.role.as_deref() != Some("tool")
    {
        let (msg, items) = whole.split();
        return read_msg(msg, role_column, row, out, 0, items);
    }
    parse_general(content, role_column, row, out)
}

/// `parse_message` for any row: content kept raw, then decoded.
pub(super) fn parse_general(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Result<bool, String> {
    match serde_json::from_str::<Msg>(content) {
        Ok(msg) => read_msg(msg, role_column, row, out, 0, Read::Raw),
        Err(e) => match json::replace_lone_surrogates(content) {
            Some((fixed, _)) => {
                let msg = serde_json::from_str::<Msg>(&fixed).map_err(|_| invalid(&e))?;
                read_msg(msg, role_column, row, out, 0, Read::Raw).map(|_| true)
            }
            None => Err(invalid(&e)),
        },
    }
}

fn invalid(e: &serde_json::Error) -> String {
    if e.is_data() { format!("unexpected message shape: {e}") } else { format!("invalid JSON: {e}") }
}

/// `Ok(true)`: a text needed a repair (lone surrogate escapes). `pre` is
/// what a one-pass parse decoded already.
pub(super) fn read_msg<'a>(
    msg: Msg<'a>,
    role_column: &str,
    row: i64,
    out: &mut Vec<Event>,
    depth: u8,
    pre: Read<'a>,
) -> Result<bool, String> {
    // The V1 envelope of later Peri versions: {"version":1,"type":"message","message":…}.
    if msg.role.is_none() && (msg.version.is_some() || msg.kind.is_some()) {
        match msg.version.map(|v| v.get().trim()) {
            Some("1") => {}
            Some(v) => return Err(format!("unsupported envelope version {}", crate::sanitize::truncate(v, 20))),
            None => return Err("envelope without a version".into()),
        }
        if msg.kind.as_deref() != Some("message") {
            return Ok(false); // system reminders and other records carry no calls
        }
        let inner = msg.message.filter(|_| depth == 0).ok_or("envelope without a message object")?;
        let inner: Msg = serde_json::from_str(inner.get()).map_err(|_| "envelope without a message object")?;
        return read_msg(inner, role_column, row, out, depth + 1, Read::Raw);
    }
    let role: &str = msg.role.as_deref().unwrap_or(role_column);
    let time = msg.id.as_deref().and_then(uuid_v7_time);

    if role == "tool" {
        let call_id = match msg.tool_call_id {
            Some(raw) if !raw.get().starts_with(['{', '[', 'n']) => raw_id(raw),
            _ => return Err("tool message without tool_call_id".into()),
        };
        let d = match pre {
            Read::Text(d) => d,
            _ => msg.content.map(raw_text).unwrap_or_default(),
        };
        let flag = Some(is_true(msg.is_error));
        out.push(Event::Result(ToolResult {
            call_id,
            text: d.text,
            truncated: d.cut,
            flag,
            exit_code: None,
            time,
            row,
        }));
        return Ok(d.repaired);
    }

    let mut repaired = false;
    // The calls read from this message so far are `out[start..]`'s: a
    // mirrored call already read as a block is not counted twice.
    let start = out.len();
    let (blocks, mirrors) = match pre {
        Read::Items(blocks, mirrors) => (blocks, mirrors),
        _ => (
            msg.content.filter(|r| r.get().starts_with('[')).map(items::<Block>),
            msg.tool_calls.filter(|r| role == "assistant" && r.get().starts_with('[')).map(items::<Mirror>),
        ),
    };
    if let Some(blocks) = blocks {
        for b in blocks {
            match b.kind.as_deref() {
                Some("tool_use") if role == "assistant" => {
                    let id = b.id.map(raw_id).unwrap_or_default();
                    let name = b.name.map(Cow::into_owned).unwrap_or_default();
                    out.push(Event::Call(make_call(id, name, b.input.unwrap_or_default(), time, row)));
                }
                Some("tool_result") => {
                    let call_id = b.tool_use_id.map(raw_id).unwrap_or_default();
                    let d = b.content.map(raw_text).unwrap_or_default();
                    repaired |= d.repaired;
                    let flag = Some(is_true(b.is_error));
                    let (text, truncated) = (d.text, d.cut);
                    out.push(Event::Result(ToolResult { call_id, text, truncated, flag, exit_code: None, time, row }));
                }
                _ => {}
            }
        }
    }
    if role == "assistant"
        && let Some(mirrors) = mirrors
    {
        for c in mirrors {
            let id = c.id.map(|raw| raw_id_ref(raw.get())).unwrap_or_default();
            if out[start..].iter().any(|e| matches!(e, Event::Call(c) if *c.id == *id)) {
                continue;
            }
            let id = id.into_owned();
            let name = c.name.map(Cow::into_owned).unwrap_or_default();
            let input = match c.arguments.map(|a| serde_json::from_str(a.get())) {
                None | Some(Err(_)) => Value::Null,
                // Some providers keep arguments as a JSON string.
                Some(Ok(Value::String(s))) => json::nested(s),
                Some(Ok(v)) => v,
            };
            out.push(Event::Call(make_call(id, name, input.into(), time, row)));
        }
    }
    Ok(repaired)
}

fn is_true(raw: Option<Raw<'_>>) -> bool {
    raw.is_some_and(|r| r.get().trim() == "true")
}

/// An id: a string's text, or a number's digits.
fn raw_id(raw: Raw<'_>) -> String {
    raw_id_ref(raw.get()).into_owned()
}

/// `raw_id`, borrowed when the id is a string without escapes (as ids are):
/// its text is then its bytes between the quotes.
pub(super) fn raw_id_ref(raw: &str) -> Cow<'_, str> {
    const CAP: usize = 256;
    let t = raw.trim();
    if !t.starts_with('"') {
        return Cow::Borrowed(t);
    }
    match t.get(1..t.len() - 1) {
        Some(body) if t.len() <= 2 * CAP + 2 && !body.bytes().any(|c| c == b'\\' || c == b'"' || c < 0x20) => {
            Cow::Borrowed(body)
        }
        _ => Cow::Owned(string_ends(t, CAP).text),
    }
}

/// The text of a `MessageContent` (a string, or the text of its blocks),
/// long texts kept only at their ends.
fn raw_text(raw: Raw<'_>) -> Decoded {
    let t = raw.get().trim();
    match t.as_bytes().first() {
        Some(b'"') => string_ends(t, TEXT_CAP),
        Some(b'[') => {
            let items: Vec<Raw> = serde_json::from_str(t).unwrap_or_default();
            let mut all = Decoded::default();
            for item in items {
                let piece = match item.get().trim().as_bytes().first() {
                    Some(b'"') => Some(string_ends(item.get().trim(), TEXT_CAP)),
                    Some(b'{') => serde_json::from_str::<TextBlock>(item.get())
                        .ok()
                        .and_then(|b| b.text)
                        .map(|r| string_ends(r.get().trim(), TEXT_CAP)),
                    _ => None,
                };
                if let Some(p) = piece {
                    if !all.text.is_empty() {
                        all.text.push('\n');
                    }
                    all.text.push_str(&p.text);
                    all.cut |= p.cut;
                    all.repaired |= p.repaired;
                }
            }
            if all.text.len() > 4 * TEXT_CAP {
                all.text = crate::model::text_ends(&all.text).into_owned();
                all.cut = true;
            }
            all
        }
        Some(b'{') => match serde_json::from_str::<TextBlock>(t).ok().and_then(|b| b.text) {
            Some(r) => string_ends(r.get().trim(), TEXT_CAP),
            None => Decoded {
                text: crate::sanitize::truncate(t, 2 * TEXT_CAP),
                cut: t.len() > 2 * TEXT_CAP,
                repaired: false,
            },
        },
        Some(b'n') | None => Decoded::default(),
        Some(_) => Decoded { text: t.to_string(), ..Decoded::default() },
    }
}

/// Peri's `ExecuteExtraTool` runs a deferred tool: count the call under the
/// real tool's name, with the real tool's arguments.
fn make_call(id: String, name: String, input: Args, time: Option<DateTime<Utc>>, row: i64) -> Call {
    if name == "ExecuteExtraTool"
        && let Some(real) = input.value().get("tool_name").and_then(Value::as_str).filter(|s| !s.is_empty())
    {
        let tool = real.to_string();
        let params = input.value().get("params").cloned().unwrap_or(Value::Null);
        return Call { id, tool, input: params.into(), time, row, usage: None };
    }
    let tool = if name.is_empty() { "(unnamed)".to_string() } else { name };
    Call { id, tool, input, time, row, usage: None }
}

/// The time embedded in a UUID v7 (its first 48 bits are Unix milliseconds).
pub(super) fn uuid_v7_time(id: &str) -> Option<DateTime<Utc>> {
    let b = id.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[14] != b'7' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let digits = b[0..8].iter().chain(&b[9..13]);
    let ms = digits.map(|&c| (c as char).to_digit(16)).try_fold(0i64, |ms, d| Some(ms * 16 + i64::from(d?)))?;
    DateTime::from_timestamp_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(json: &str) -> Vec<Event> {
        let mut out = vec![];
        parse_message(json, "assistant", 1, &mut out).unwrap();
        out
    }

    fn calls(ev: &[Event]) -> Vec<(&str, &str)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Call(c) => Some((c.id.as_str(), c.tool.as_str())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn blocks_and_mirror_are_deduplicated() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"reasoning","text":"hm"},
            {"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/a"}}],
            "tool_calls":[{"id":"a","name":"Read","arguments":{"file_path":"/a"}},
                          {"id":"b","name":"Bash","arguments":"{\"command\":\"ls\"}"}]}"#,
        );
        assert_eq!(calls(&ev), vec![("a", "Read"), ("b", "Bash")]);
        match &ev[1] {
            Event::Call(c) => assert_eq!(c.input["command"], "ls", "string arguments are decoded"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_block_without_input_has_null_arguments() {
        for row in [
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"n","name":"Read"}]}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"n","name":"Read","input":null}]}"#,
        ] {
            match &events(row)[0] {
                Event::Call(c) => assert_eq!(c.input.value(), &Value::Null, "{row}"),
                _ => unreachable!(),
            }
        }
    }

    #[test]
    fn mirror_only_with_plain_string_content() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":"thinking","tool_calls":[{"id":"q","name":"Grep","arguments":{"pattern":"x"}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("q", "Grep")]);
    }

    #[test]
    fn tool_rows_and_missing_flag() {
        let ev = events(r#"{"role":"tool","id":"r","tool_call_id":"a","content":"Error: x"}"#);
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!(r.flag, Some(false), "absent is_error means false");
                assert_eq!(r.text, "Error: x");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"tool","id":"r","tool_call_id":"a","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}"#,
        );
        match &ev[0] {
            Event::Result(r) => assert_eq!((r.text.as_str(), r.flag), ("a\nb", Some(true))),
            _ => panic!(),
        }
    }

    #[test]
    fn anthropic_tool_result_blocks() {
        let ev = events(
            r#"{"role":"user","id":"u","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"Error: no"}],"is_error":true}]}"#,
        );
        match &ev[0] {
            Event::Result(r) => {
                assert_eq!((r.call_id.as_str(), r.text.as_str(), r.flag), ("a", "Error: no", Some(true)))
            }
            _ => panic!(),
        }
    }

    #[test]
    fn execute_extra_tool_is_resolved() {
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{"tool_name":"AgentResult","params":{"task_id":"t1"}}}]}"#,
        );
        match &ev[0] {
            Event::Call(c) => {
                assert_eq!(c.tool, "AgentResult");
                assert_eq!(c.input["task_id"], "t1");
            }
            _ => panic!(),
        }
        let ev = events(
            r#"{"role":"assistant","id":"x","content":[{"type":"tool_use","id":"e","name":"ExecuteExtraTool","input":{}}]}"#,
        );
        assert_eq!(calls(&ev), vec![("e", "ExecuteExtraTool")]);
    }

    #[test]
    fn envelope_v1() {
        let ev = events(
            r#"{"version":1,"type":"message","message":{"role":"tool","id":"r","tool_call_id":"a","content":"ok","is_error":false}}"#,
        );
        assert_eq!(ev.len(), 1);
        assert!(events(r#"{"version":1,"type":"system_reminder","id":"x","reminder":{}}"#).is_empty());
        let mut out = vec![];
        let err = parse_message(r#"{"version":2,"type":"message","message":{}}"#, "tool", 1, &mut out).unwrap_err();
        assert!(err.contains("version 2"), "{err}");
    }

    #[test]
    fn malformed_rows_are_described() {
        let mut out = vec![];
        assert!(parse_message("{not json", "tool", 1, &mut out).unwrap_err().starts_with("invalid JSON"));
        assert!(parse_message("[1,2]", "tool", 1, &mut out).is_err());
        assert!(parse_message(r#"{"role":"tool","content":"x"}"#, "tool", 1, &mut out).is_err());
        let deep = "[".repeat(100_000);
        assert!(parse_message(&deep, "tool", 1, &mut out).is_err(), "deep nesting is an error, not a crash");
    }

    #[test]
    fn raw_ids_borrow_only_plain_strings() {
        let id = |json: &str| raw_id_ref(serde_json::from_str::<&RawValue>(json).unwrap().get()).into_owned();
        for (json, want) in
            [(r#""abc""#, "abc"), (r#""a\"b""#, "a\"b"), (r#""x\u0031""#, "x1"), ("42", "42"), (r#""""#, "")]
        {
            assert_eq!(id(json), want, "{json}");
            let raw: &RawValue = serde_json::from_str(json).unwrap();
            assert_eq!(id(json), raw_id(Raw(raw.get())), "{json}");
        }
        let long = format!("\"{}\"", "i".repeat(600));
        assert_eq!(id(&long), string_ends(&long, 256).text, "a long id is cut as before");
        assert!(id(&long).len() < 600);
    }

    #[test]
    fn uuid_v7_times() {
        let t = uuid_v7_time("019e9069-e494-70c6-a6a3-a4506513270e").unwrap();
        assert_eq!(t.timestamp_millis(), 0x019e9069e494);
        assert!(uuid_v7_time("019e9069-e494-40c6-a6a3-a4506513270e").is_none(), "v4 has no time");
        assert!(uuid_v7_time("nonsense").is_none());
    }
}
