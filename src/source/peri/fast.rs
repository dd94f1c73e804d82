//! The serde-free fast path for Peri's messages: a tool row whose members
//! are all scalars (`flat_tool_row`), any other row read block by block
//! (`block_row`), and a tool row whose text is one long string
//! (`parse_long_result`). Each gives what the serde path in `message`
//! gives, or `None` to hand the row back to it; the tests below hold the
//! two readers to the same answers.

use std::borrow::Cow;

use serde_json::Value;

use super::message::{Block, Message, Mirror, Msg, Raw, Read, raw_id_ref, read_msg, uuid_v7_time};
use crate::model::{Args, Event, TEXT_CAP, ToolResult};
use crate::source::json::{self, string_ends_bytes};

/// A tool row whose members are all scalars, the usual shape
/// (`{"role":"tool","id":…,"tool_call_id":…,"content":"…","is_error":false}`),
/// read without serde (`json::flat_object`) into the result `read_msg`
/// would push for it. `None` when the row is not of that shape or holds
/// anything serde would decide otherwise (a member the envelope or an
/// assistant's row has, a key written twice, an escape in the role or
/// the id, a content that does not decode): it is then parsed with serde.
pub(super) fn flat_tool_row(content: &str, row: i64, out: &mut Vec<Event>) -> Option<Result<bool, String>> {
    #[derive(Default)]
    struct Members<'a> {
        role: Option<Option<&'a str>>,
        id: Option<Option<&'a str>>,
        tool_call_id: Option<&'a str>,
        content: Option<()>,
        is_error: Option<&'a str>,
    }
    // A string without escapes, or null, as the `Cow<str>` members take it.
    fn plain(raw: &str) -> Option<Option<&str>> {
        if raw == "null" {
            return Some(None);
        }
        let body = raw.strip_prefix('"')?.strip_suffix('"')?;
        (!body.contains('\\')).then_some(Some(body))
    }
    fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
        // serde refuses a member written twice.
        slot.is_none().then(|| *slot = Some(value))
    }
    let mut m = Members::default();
    let mut text = String::with_capacity(content.len());
    let repaired = json::flat_object(content, "content", &mut text, |key, raw| match key {
        "role" => once(&mut m.role, plain(raw)?),
        "id" => once(&mut m.id, plain(raw)?),
        "tool_call_id" => once(&mut m.tool_call_id, raw),
        // A string is decoded into `text` as it is read (whole, as
        // `string_ends` decodes one this short), and null is none.
        "content" if raw == "null" || raw.starts_with('"') => once(&mut m.content, ()),
        "content" => None,
        "is_error" => once(&mut m.is_error, raw),
        "tool_calls" | "version" | "type" | "message" => None,
        _ => Some(()),
    })?;
    if m.role.flatten().is_some_and(|r| r != "tool") {
        return None;
    }
    let call_id = match m.tool_call_id {
        Some(raw) if raw != "null" => raw_id_ref(raw).into_owned(),
        _ => return Some(Err("tool message without tool_call_id".into())),
    };
    out.push(Event::Result(ToolResult {
        call_id,
        text,
        truncated: false,
        flag: Some(m.is_error == Some("true")),
        exit_code: None,
        time: m.id.flatten().and_then(uuid_v7_time),
        row,
    }));
    Some(Ok(repaired))
}

/// Any other row (an assistant's, as a rule) read without serde into what
/// the one-pass serde read (`BlockMsg`) gives `read_msg`: its members, its
/// content blocks and its mirrored calls, each read once, every value
/// checked as JSON requires; only a call's `input` is built, by serde from
/// its text. `None` whenever serde might decide otherwise: the row or an
/// item of another shape, a member written twice, a member of the wrong
/// type, an escape in a key or in a text member (`role`, `id`, `type`,
/// `name`), the envelope's members, a `tool` role, nesting past
/// `json::NESTING`; serde then reads the row as before.
pub(super) fn block_row(
    content: &str,
    role_column: &str,
    row: i64,
    out: &mut Vec<Event>,
) -> Option<Result<bool, String>> {
    fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
        // serde refuses a member written twice.
        slot.is_none().then(|| *slot = Some(value))
    }
    // A string without escapes, or null, as a `Cow<str>` member takes it.
    fn plain(raw: &str) -> Option<Option<Cow<'_, str>>> {
        if raw == "null" {
            return Some(None);
        }
        let body = raw.strip_prefix('"')?.strip_suffix('"')?;
        (!body.contains('\\')).then_some(Some(Cow::Borrowed(body)))
    }
    // Any value, or null, as a `RawValue` member takes it.
    fn raw(raw: &str) -> Option<Raw<'_>> {
        (raw != "null").then_some(Raw(raw))
    }
    // Blocks sit in the message's `content` array: two levels deep.
    const ITEM: usize = 2;
    let b = content.as_bytes();
    let value = |at: usize, depth: usize| json::value_end(content, at, depth).map(|end| (&content[at..end], end));
    let mut role = None;
    let mut id = None;
    let mut tool_call_id = None;
    let mut is_error = None;
    let mut blocks: Option<Option<Vec<Block>>> = None;
    let mut mirrors: Option<Option<Vec<Mirror>>> = None;
    // The blocks' inputs as written, for the mirror (see "arguments").
    let mut inputs: Vec<&str> = Vec::new();
    json::whole_object(content, |key, at| match key {
        "role" => value(at, 1).and_then(|(v, end)| once(&mut role, plain(v)?).map(|_| end)),
        "id" => value(at, 1).and_then(|(v, end)| once(&mut id, plain(v)?).map(|_| end)),
        "tool_call_id" => value(at, 1).and_then(|(v, end)| once(&mut tool_call_id, raw(v)).map(|_| end)),
        "is_error" => value(at, 1).and_then(|(v, end)| once(&mut is_error, raw(v)).map(|_| end)),
        "content" if b[at..].starts_with(b"null") => once(&mut blocks, None).map(|_| at + 4),
        "content" => {
            let mut list = Vec::new();
            let end = json::array(content, at, |item| {
                let (mut kind, mut bid, mut name, mut input) = (None, None, None, None);
                let (mut tool_use_id, mut result, mut flag) = (None, None, None);
                let mut walked: Option<Option<Args>> = None;
                let end = json::object(content, item, |key, at| {
                    // An object input is walked once, its members kept.
                    if key == "input" && b.get(at) == Some(&b'{') {
                        let (end, members) = json::object_members(content, at, ITEM + 1)?;
                        let text = &content[at..end];
                        once(&mut input, Some(Raw(text)))?;
                        once(&mut walked, members.map(|m| Args::object(text, m)))?;
                        return Some(end);
                    }
                    let (v, end) = value(at, ITEM + 1)?;
                    match key {
                        "type" => once(&mut kind, plain(v)?),
                        "id" => once(&mut bid, raw(v)),
                        "name" => once(&mut name, plain(v)?),
                        "input" => once(&mut input, raw(v)),
                        "tool_use_id" => once(&mut tool_use_id, raw(v)),
                        "content" => once(&mut result, raw(v)),
                        "is_error" => once(&mut flag, raw(v)),
                        _ => Some(()),
                    }?;
                    Some(end)
                })?;
                // Kept as its text when serde surely decodes it (`Args`),
                // else built by serde from it, as in place: the same value.
                let input = match input.flatten() {
                    Some(v) => {
                        inputs.push(v.get());
                        match walked.flatten().or_else(|| Args::checked_json(v.get())) {
                            Some(args) => Some(args),
                            None => Some(Args::new(serde_json::from_str::<Value>(v.get()).ok()?)),
                        }
                    }
                    None => None,
                };
                list.push(Block {
                    kind: kind.flatten(),
                    id: bid.flatten(),
                    name: name.flatten(),
                    input,
                    tool_use_id: tool_use_id.flatten(),
                    content: result.flatten(),
                    is_error: flag.flatten(),
                });
                Some(end)
            })?;
            once(&mut blocks, Some(list)).map(|_| end)
        }
        "tool_calls" if b[at..].starts_with(b"null") => once(&mut mirrors, None).map(|_| at + 4),
        "tool_calls" => {
            let mut list = Vec::new();
            let end = json::array(content, at, |item| {
                let (mut mid, mut name, mut arguments) = (None, None, None);
                let end = json::object(content, item, |key, at| {
                    // The mirror repeats the blocks' inputs in their order,
                    // byte for byte as a rule: a copy of a value already
                    // checked is valid, and an object, array or string ends
                    // where its copy does. One comparison instead of a
                    // second check (anything else is checked).
                    let copy = inputs.get(list.len()).filter(|r| {
                        key == "arguments"
                            && matches!(r.as_bytes().first(), Some(b'{' | b'[' | b'"'))
                            && b[at..].starts_with(r.as_bytes())
                    });
                    let (v, end) = match copy {
                        Some(r) => (&content[at..at + r.len()], at + r.len()),
                        None => value(at, ITEM + 1)?,
                    };
                    match key {
                        "id" => once(&mut mid, raw(v)),
                        "name" => once(&mut name, plain(v)?),
                        "arguments" => once(&mut arguments, raw(v)),
                        _ => Some(()),
                    }?;
                    Some(end)
                })?;
                list.push(Mirror { id: mid.flatten(), name: name.flatten(), arguments: arguments.flatten() });
                Some(end)
            })?;
            once(&mut mirrors, Some(list)).map(|_| end)
        }
        // The envelope's: serde reads it (see `read_msg`).
        "version" | "type" | "message" => None,
        _ => value(at, 1).map(|(_, end)| end),
    })?;
    let role: Option<Cow<str>> = role.flatten();
    if role.as_deref() == Some("tool") {
        return None;
    }
    let msg = Message {
        role,
        id: id.flatten(),
        tool_call_id: tool_call_id.flatten(),
        content: None,
        is_error: is_error.flatten(),
        tool_calls: None,
        version: None,
        kind: None,
        message: None,
    };
    Some(read_msg(msg, role_column, row, out, 0, Read::Items(blocks.flatten(), mirrors.flatten())))
}

/// The fast path for a tool row whose `content` is one long string (a big
/// command output or file): the string's end is found with a vectorised
/// search for its closing quote, serde parses the row without it, and only
/// the two ends of the string are decoded (and validated). `None` when the
/// row does not have that shape; the caller then parses it whole.
/// It works on bytes: only what is decoded is checked as UTF-8.
pub(super) fn parse_long_result(
    b: &[u8],
    role_column: &str,
    row: i64,
    out: &mut Vec<Event>,
) -> Option<Result<bool, String>> {
    const KEY: &[u8] = b"\"content\":\"";
    let open = memchr::memmem::find(b, KEY)? + KEY.len() - 1;
    let close = string_end(b, open)?;
    if close - open < 2 * TEXT_CAP + 2 {
        return None;
    }
    let (before, after) = (std::str::from_utf8(&b[..open]).ok()?, std::str::from_utf8(&b[close + 1..]).ok()?);
    let mut rest = String::with_capacity(b.len() - (close - open) + 2);
    rest.push_str(before);
    rest.push_str("\"\"");
    rest.push_str(after);
    let msg: Msg = serde_json::from_str(&rest).ok()?;
    // The key found must be the tool message's own `content`, not a nested one.
    let is_tool = msg.role.as_deref().map_or(msg.version.is_none() && role_column == "tool", |r| r == "tool");
    if !is_tool || msg.content.map(Raw::get) != Some("\"\"") {
        return None;
    }
    let text = string_ends_bytes(&b[open..=close], TEXT_CAP)?;
    Some(read_msg(msg, role_column, row, out, 0, Read::Text(text)))
}

/// The index of the quote that closes the JSON string opened at `open`.
fn string_end(b: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        let q = at + memchr::memchr(b'"', &b[at..])?;
        let backslashes = b[..q].iter().rev().take_while(|&&c| c == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(q);
        }
        at = q + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::peri::message::{BlockMsg, parse_general, parse_message, parse_message_with};

    /// The fast path for long results must give what the full parse gives.
    #[test]
    fn long_results_take_the_fast_path_faithfully() {
        let body = "line \\\"quoted\\\" \\\\ back\\n".repeat(3000);
        let row = |content: &str, tail: &str| {
            format!(
                r#"{{"role":"tool","id":"019e9069-e8a1-7893-923f-0824128b2f33","tool_call_id":"c1","content":{content}{tail}}}"#
            )
        };
        let full = |text: &str| -> Vec<Event> {
            let mut out = vec![];
            let msg: Msg = serde_json::from_str(text).unwrap();
            read_msg(msg, "tool", 7, &mut out, 0, Read::Raw).unwrap();
            out
        };
        for (content, tail) in [
            (format!("\"Error: {body}END\""), r#","is_error":false"#),
            (format!("\"{body}\""), r#","is_error":true,"execution":{"status":"failed"}"#),
        ] {
            let text = row(&content, tail);
            assert!(text.len() > 4 * TEXT_CAP);
            let mut fast = vec![];
            assert_eq!(
                parse_long_result(text.as_bytes(), "tool", 7, &mut fast),
                Some(Ok(false)),
                "the fast path is taken"
            );
            assert_eq!(fast, full(&text));
            match &fast[0] {
                Event::Result(r) => assert!(r.truncated && r.text.len() <= 2 * TEXT_CAP + 8),
                _ => panic!(),
            }
        }
        // A nested "content" key first, a short content, an assistant row: not taken.
        let nested = format!(
            r#"{{"role":"tool","meta":{{"content":"{body}"}},"tool_call_id":"c1","content":"x","is_error":false}}"#
        );
        assert_eq!(parse_long_result(nested.as_bytes(), "tool", 7, &mut vec![]), None);
        let mut out = vec![];
        assert_eq!(parse_message(&nested, "tool", 7, &mut out), Ok(false));
        assert!(matches!(&out[0], Event::Result(r) if r.text == "x"));
        let assistant = format!(r#"{{"role":"assistant","content":"{body}"}}"#);
        assert_eq!(parse_long_result(assistant.as_bytes(), "assistant", 7, &mut vec![]), None);
        // An unterminated long string is not taken, and is malformed as a whole.
        let cut = format!(r#"{{"role":"tool","tool_call_id":"c1","content":"{body}"#);
        assert_eq!(parse_long_result(cut.as_bytes(), "tool", 7, &mut vec![]), None);
        assert!(parse_message(&cut, "tool", 7, &mut vec![]).is_err());
    }

    /// The one-pass path for tool rows reads what the general path reads.
    #[test]
    fn plain_tool_rows_read_as_the_general_path_reads_them() {
        let long = "y\\n".repeat(3000);
        let cases = [
            r#"{"role":"tool","id":"019e9069-e494-70c6-a6a3-a4506513270e","tool_call_id":"c1","content":"ok","is_error":false}"#.to_string(),
            r#"{"role":"tool","tool_call_id":"c\u0032","content":"a\n\"b\"\t\u00e9 \ud83d\ude00","is_error":true}"#.into(),
            r#"{"role":"tool","tool_call_id":7,"content":null}"#.into(),
            r#"{"role":"tool","tool_call_id":"c3"}"#.into(),
            r#"{"role":"tool","tool_call_id":"c4","content":[{"type":"text","text":"x"},"y"]}"#.into(),
            r#"{"role":"tool","tool_call_id":"c5","content":"lone \ud800"}"#.into(),
            r#"{"tool_call_id":"c6","content":"no role: the column's"}"#.into(),
            r#"{"version":1,"type":"message","message":{"role":"tool","tool_call_id":"c7","content":"in an envelope"}}"#.into(),
            r#"{"role":"assistant","content":"prose","tool_calls":[{"id":"c8","name":"Read","arguments":"{}"}]}"#.into(),
            r#"{"role":"tool","content":"no id"}"#.into(),
            r#"{"role":"tool","tool_call_id":"c9","content":"dup","content":"licate"}"#.into(),
            format!(r#"{{"role":"tool","tool_call_id":"c10","content":"{long}"}}"#),
        ];
        for json in &cases {
            let (mut fast, mut general) = (vec![], vec![]);
            let a = parse_message(json, "tool", 3, &mut fast);
            let b = parse_general(json, "tool", 3, &mut general);
            assert_eq!((a, fast), (b, general), "{json}");
        }
    }

    /// Tool rows read without serde (`flat_tool_row`) read as serde reads
    /// them: the same events, the same repair flag, the same error.
    fn same_with_and_without_flat(json: &str) {
        for role in ["tool", "assistant", ""] {
            let (mut flat, mut serde) = (vec![], vec![]);
            let a = parse_message_with(json, role, 3, &mut flat, true);
            let b = parse_message_with(json, role, 3, &mut serde, false);
            assert_eq!((a, flat), (b, serde), "{role}: {json:?}");
        }
    }

    #[test]
    fn flat_tool_rows_read_as_serde_reads_them() {
        let cases = [
            r#"{"role":"tool","id":"019e9069-e494-70c6-a6a3-a4506513270e","tool_call_id":"c1","content":"ok","is_error":false}"#,
            r#" { "role" : "tool" , "tool_call_id" : "c1" , "content" : "a\n\"b\"\t\/\b\f\r\\" , "is_error" : true } "#,
            r#"{"role":"tool","tool_call_id":"c\u0032","content":"\u00e9 \ud83d\ude00 \u4E2D","is_error":true}"#,
            r#"{"role":"tool","tool_call_id":"c5","content":"lone \ud800 and \udc00"}"#,
            r#"{"role":"tool","tool_call_id":7,"content":null,"is_error":null}"#,
            r#"{"role":"tool","tool_call_id":-1.5e3,"content":"n"}"#,
            r#"{"role":"tool","tool_call_id":true,"content":"t"}"#,
            r#"{"role":"tool","tool_call_id":null,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c3"}"#,
            r#"{"role":"tool","content":"no id"}"#,
            r#"{"role":null,"tool_call_id":"c6","content":"role null"}"#,
            r#"{"tool_call_id":"c6","content":"no role: the column's"}"#,
            r#"{"role":"to\u006cl","tool_call_id":"c6","content":"escaped role"}"#,
            r#"{"role":"assistant","tool_call_id":"c6","content":"another role"}"#,
            r#"{"role":5,"tool_call_id":"c6","content":"x"}"#,
            r#"{"role":"tool","id":"\u0030","tool_call_id":"c6","content":"escaped id"}"#,
            r#"{"role":"tool","id":42,"tool_call_id":"c6","content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"dup","content":"licate"}"#,
            r#"{"role":"tool","role":"tool","tool_call_id":"c9","content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c9","tool_call_id":"c9","content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"x","is_error":true,"is_error":false}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"x","extra":1,"extra":"again","more":null}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"x","extra":{"nested":1}}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"x","extra":[1]}"#,
            r#"{"role":"tool","tool_call_id":"c9","content":"x","extra":"lone \ud800"}"#,
            r#"{"role":"tool","tool_call_id":"c4","content":[{"type":"text","text":"x"},"y"]}"#,
            r#"{"role":"tool","tool_call_id":"c4","content":12}"#,
            r#"{"role":"tool","tool_call_id":"c4","content":false}"#,
            r#"{"version":1,"type":"message","message":{"role":"tool","tool_call_id":"c7","content":"in an envelope"}}"#,
            r#"{"role":"tool","tool_call_id":"c7","content":"x","version":1}"#,
            r#"{"role":"tool","tool_call_id":"c7","content":"x","type":"message"}"#,
            r#"{"tool_call_id":"c7","content":"x","type":"message"}"#,
            r#"{"tool_call_id":"c7","content":"x","version":2}"#,
            r#"{"type":"reminder","version":1}"#,
            r#"{"role":"tool","tool_call_id":"c7","content":"x","tool_calls":[]}"#,
            r#"{"role":"tool","tool_call_id":"c7","content":"x","message":null}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"bad \x escape"}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"short \u12"}"#,
            "{\"role\":\"tool\",\"tool_call_id\":\"c8\",\"content\":\"raw\ncontrol\"}",
            "{\"role\":\"tool\",\"tool_call_id\":\"c\t8\",\"content\":\"raw tab in an id\"}",
            "{\"ro\u{1}le\":\"tool\",\"tool_call_id\":\"c8\",\"content\":\"control in a key\"}",
            r#"{"rol\u0065":"tool","tool_call_id":"c8","content":"escaped key"}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"x",}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"x"} trailing"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"x"}}"#,
            r#"{"role":"tool","tool_call_id":01,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":1.,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":-,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":1e,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"x","is_error":tru}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"x","is_error":falsey}"#,
            r#"{"role":"tool","tool_call_id":"c8" "content":"x"}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"unclosed}"#,
            r#"{"role":"tool","tool_call_id":"c8","content":"ends in a backslash\"}"#,
            r#"{}"#,
            r#"  {  }  "#,
            r#"[]"#,
            r#""#,
            r#"{"#,
            "{\"role\":\"tool\",\"tool_call_id\":\"c8\",\"content\":\"é 中 😀\"}",
        ];
        for json in cases {
            same_with_and_without_flat(json);
        }
        let long_id = format!(r#"{{"role":"tool","tool_call_id":"{}","content":"x"}}"#, "i".repeat(600));
        same_with_and_without_flat(&long_id);
        // The usual row is read without serde.
        let mut out = vec![];
        assert_eq!(flat_tool_row(cases[0], 3, &mut out), Some(Ok(false)));
    }

    /// Rows of every shape the readers of other rows meet: the usual one,
    /// and each thing serde decides otherwise or refuses.
    const BLOCK_ROWS: &[&str] = &[
        r#"{"role":"assistant","id":"019e9069-e494-70c6-a6a3-a4506513270e","content":[{"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/a"}}],"tool_calls":[{"id":"a","name":"Read","arguments":{"file_path":"/a"}},{"id":"b","name":"Bash","arguments":"{\"command\":\"ls\"}"}]}"#,
        r#" { "role" : "assistant" , "content" : [ { "type" : "text" , "text" : "thinking \"aloud\"" } , { "type" : "tool_use" , "id" : "c" , "name" : "Grep" , "input" : { "pattern" : "a\\(b" , "n" : [ 1 , -2.5e3 , true , null , { } , [ ] ] } } ] , "tool_calls" : [ ] } "#,
        r#"{"role":"assistant","content":"prose","tool_calls":[{"id":"c8","name":"Read","arguments":"{}"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"x\u0031","name":"Grep","input":{}}],"tool_calls":[{"id":"x1","name":"Grep"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":7,"name":"Grep"},{"type":5}],"tool_calls":[{"id":7}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"q","name":"A"}],"tool_calls":{"id":"q"}}"#,
        r#"{"role":"assistant","content":null,"tool_calls":null}"#,
        r#"{"role":"assistant","content":[],"tool_calls":[{"id":"lone \ud800","name":"B","arguments":{}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"s","name":"C","input":{"k":"lone \udc00"}}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"Error: no"}],"is_error":true}],"tool_calls":[{"id":"u"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":9,"content":"plain","is_error":false}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"d"}],"content":[]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"d","id":"e"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"d","input":{},"input":null}]}"#,
        r#"{"role":"assistant","content":[],"tool_calls":[{"id":"m","id":"n"}]}"#,
        r#"{"role":"assistant","role":"assistant","content":[]}"#,
        r#"{"version":1,"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","id":"e","name":"D","input":{}}]}}"#,
        r#"{"role":"assistant","type":"message","content":[{"type":"tool_use","id":"e","name":"D","input":{}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"f","name":"ExecuteExtraTool","input":{"tool_name":"Real","params":{"p":1}}}],"tool_calls":[{"id":"f"},{"id":"g","name":"E","arguments":[1]}]}"#,
        r#"{"role":"assistant","content":[["tool_use","h","ByPosition"]]}"#,
        r#"{"role":"tool","tool_call_id":"t","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"N\u0061me","input":{}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool\u005fuse","id":"i","name":"Name","input":{}}]}"#,
        r#"{"r\u006fle":"assistant","content":[{"type":"tool_use","id":"i","name":"Name","input":{}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"Name","input":{"big":1e400}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"Name","input":{"a":1,"a":2}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"i","name":null,"input":null}],"tool_calls":[{"id":null,"name":null,"arguments":null}]}"#,
        r#"{"role":"assistant","id":null,"tool_call_id":null,"is_error":null,"content":[{"type":"tool_use","id":"j"}]}"#,
        r#"{"role":"assistant","extra":{"deep":[[[{"x":"y\n"}]]]},"content":[{"type":"tool_use","id":"k","name":"K","input":"a string input"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"l","name":"L","input":{}},]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"l","name":"L","input":{}}] x}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"l","name":"L","input":{"a":01}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"l","name":"L","input":{"a":"\x"}}]}"#,
        r#"{"role":"assistant","content":nul}"#,
        r#"{"role":"assistant","content":nullx}"#,
        r#"{"role":"assistant","tool_calls":null,"tool_calls":[]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"o","name":"O","input":{}}],"tool_calls":[{"id":"o","name":"O","arguments":{"unused":"but \"checked\""}},{"id":"p","name":"P","arguments":"not json"}]}"#,
        r#"{not json"#,
        r#"{}"#,
    ];

    /// Other rows read without serde (`block_row`) read as serde reads
    /// them.
    #[test]
    fn block_rows_read_as_serde_reads_them() {
        let cases = BLOCK_ROWS;
        for json in cases {
            same_with_and_without_flat(json);
        }
        let deep = format!(
            r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"z","name":"Z","input":{}{}}}]}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        same_with_and_without_flat(&deep);
        let mut out = vec![];
        assert!(block_row(cases[0], "assistant", 3, &mut out).is_some(), "the usual row is read without serde");
        assert!(block_row(&deep, "assistant", 3, &mut out).is_none(), "past the nesting bound: serde's");
    }

    /// Seeded mutations of rows (bytes JSON gives meaning to, put in, taken
    /// out or swapped), each read with and without the serde-free readers:
    /// the answers must agree, whatever the bytes.
    #[test]
    fn flat_tool_rows_agree_with_serde_on_mutated_rows() {
        let seeds = [
            r#"{"role":"tool","id":"019e9069-e494-70c6-a6a3-a4506513270e","tool_call_id":"call_1","content":"line \"one\"\n\tline two \u00e9","is_error":false}"#,
            r#"{"role":"tool","tool_call_id":12,"content":null,"is_error":true,"x":-0.5E+2}"#,
            r#"{"tool_call_id":"a","content":"\ud83d\ude00 \\ done"}"#,
            r#"{"role":"assistant","id":"019e9069-e494-70c6-a6a3-a4506513270e","content":[{"type":"tool_use","id":"c1","name":"Edit","input":{"file_path":"/a","n":[1,-2.5]}}],"tool_calls":[{"id":"c1","name":"Edit","arguments":{"file_path":"/a"}}]}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"ok"}],"is_error":false}]}"#,
            // The mirror's arguments a copy of the input (read by comparison).
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Edit","input":{"p":"/a","n":[1,-2.5]}},{"type":"tool_use","id":"c2","name":"X","input":12}],"tool_calls":[{"id":"c1","name":"Edit","arguments":{"p":"/a","n":[1,-2.5]}},{"id":"c2","name":"X","arguments":123}]}"#,
        ];
        let alphabet: &[&str] = &[
            "\"", "\\", "{", "}", "[", "]", ":", ",", " ", "\n", "\u{1}", "u", "0", "1", "-", ".", "e", "+", "t", "n",
            "é", "\\u", "d8", "00",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut flat_taken = 0;
        for round in 0..10_000 {
            let mut row = seeds[round % seeds.len()].to_string();
            for _ in 0..1 + next(3) {
                let at = (0..=row.len())
                    .filter(|&i| row.is_char_boundary(i))
                    .nth(next(row.chars().count() + 1))
                    .unwrap_or(0);
                match next(3) {
                    0 => row.insert_str(at, alphabet[next(alphabet.len())]),
                    1 => {
                        if let Some(c) = row[at..].chars().next() {
                            row.replace_range(at..at + c.len_utf8(), "");
                        }
                    }
                    _ => {
                        if let Some(c) = row[at..].chars().next() {
                            row.replace_range(at..at + c.len_utf8(), alphabet[next(alphabet.len())]);
                        }
                    }
                }
            }
            flat_taken += usize::from(
                flat_tool_row(&row, 3, &mut vec![]).is_some() || block_row(&row, "assistant", 3, &mut vec![]).is_some(),
            );
            same_with_and_without_flat(&row);
        }
        assert!(flat_taken > 1000, "the mutated rows reach the serde-free paths ({flat_taken})");
    }

    /// The one-pass path for other rows reads what the general path reads.
    #[test]
    fn block_rows_read_as_the_general_path_reads_them() {
        let cases = BLOCK_ROWS;
        for role in ["assistant", "user", ""] {
            for json in cases {
                let (mut fast, mut general) = (vec![], vec![]);
                let a = parse_message(json, role, 3, &mut fast);
                let b = parse_general(json, role, 3, &mut general);
                assert_eq!((a, fast), (b, general), "{role}: {json}");
            }
        }
        // The one pass is taken where it should be.
        assert!(serde_json::from_str::<BlockMsg>(cases[0]).is_ok());
        let prose = cases.iter().find(|c| c.contains(r#""content":"prose""#)).unwrap();
        assert!(serde_json::from_str::<BlockMsg>(prose).is_err(), "a string content takes the general path");
    }
}
