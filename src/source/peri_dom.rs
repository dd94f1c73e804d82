//! The fast reader of a short Peri message: the row is parsed once into
//! sonic-rs's document (a SIMD parser, about three times faster here than
//! serde's typed pass; docs/performance.md), and calls and results are
//! read from it. It reads exactly what `peri::parse_general` reads, and
//! answers `None` for every shape where that is not certain (an envelope, a
//! duplicate key, a field of an unexpected type, a long id, a row that does
//! not parse), so the caller takes the general path; a test holds the two
//! to the same events on every message of the samples.

use std::borrow::Cow;

use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value as Doc};

use super::json::Decoded;
use super::peri::{make_call, uuid_v7_time};
use crate::model::{Event, TEXT_CAP, ToolResult};

/// The longest decoded id read here: its JSON literal cannot be longer
/// than the 514 bytes `raw_id` keeps whole, even if every character was an
/// escape of 6 bytes.
const ID_CHARS: usize = 85;

/// The events of a message of at most `2 * TEXT_CAP + 2` bytes (so every
/// text in it is kept whole), or `None`: take the general path.
pub fn read(content: &str, role_column: &str, row: i64, out: &mut Vec<Event>) -> Option<Result<bool, String>> {
    if content.len() > 2 * TEXT_CAP + 2 {
        return None;
    }
    let doc: Doc = sonic_rs::from_str(content).ok()?;
    let msg = Fields::of(
        &doc,
        &["role", "id", "tool_call_id", "content", "is_error", "tool_calls", "version", "type", "message"],
    )?;
    let [role, id, tool_call_id, content, is_error, tool_calls, version, kind, _message] = msg.0;
    let (role, id, kind) = (opt_str(role)?, opt_str(id)?, opt_str(kind)?);
    if role.is_none() && (present(version) || kind.is_some()) {
        return None; // an envelope: the general path reads it
    }
    let role = role.unwrap_or(role_column);
    let time = id.and_then(uuid_v7_time);
    let start = out.len();
    if role == "tool" {
        let call_id = match tool_call_id {
            Some(v) if v.is_str() => id_text(v)?,
            Some(v) if v.is_null() || v.is_object() || v.is_array() => {
                return Some(Err("tool message without tool_call_id".into()));
            }
            None => return Some(Err("tool message without tool_call_id".into())),
            Some(_) => return None, // a number: its digits as written
        };
        let d = match content {
            Some(c) => text(c)?,
            None => Decoded::default(),
        };
        let flag = Some(is_true(is_error));
        out.push(Event::Result(ToolResult {
            call_id,
            text: d.text,
            truncated: false,
            flag,
            exit_code: None,
            time,
            row,
        }));
        return Some(Ok(false));
    }
    let mut seen: Vec<String> = Vec::new();
    let undo = |out: &mut Vec<Event>| out.truncate(start);
    if let Some(blocks) = content.and_then(|c| c.as_array()) {
        for b in blocks.iter() {
            let Some(block) = Block::of(b) else { continue };
            let Some(block) = block else {
                undo(out);
                return None;
            };
            match block.kind {
                Some("tool_use") if role == "assistant" => {
                    let Some(id) = block.id.map_or(Some(String::new()), id_text) else {
                        undo(out);
                        return None;
                    };
                    let Some(input) = block.input.map_or(Some(serde_json::Value::Null), to_serde) else {
                        undo(out);
                        return None;
                    };
                    seen.push(id.clone());
                    out.push(Event::Call(make_call(id, block.name.unwrap_or_default().to_string(), input, time, row)));
                }
                Some("tool_result") => {
                    let (Some(call_id), Some(d)) = (
                        block.tool_use_id.map_or(Some(String::new()), id_text),
                        block.content.map_or(Some(Decoded::default()), text),
                    ) else {
                        undo(out);
                        return None;
                    };
                    let flag = Some(is_true(block.is_error));
                    out.push(Event::Result(ToolResult {
                        call_id,
                        text: d.text,
                        truncated: false,
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
    if role == "assistant"
        && let Some(calls) = tool_calls.and_then(|c| c.as_array())
    {
        for c in calls.iter() {
            let Some(fields) = Fields::of(c, &["id", "name", "arguments"]) else {
                if c.is_object() || c.is_array() {
                    undo(out);
                    return None; // a duplicate key, or a struct as an array: the general path decides
                }
                continue;
            };
            let [id, name, arguments] = fields.0;
            let Some(name) = opt_str(name) else { continue };
            let Some(id) = id.map_or(Some(String::new()), id_text) else {
                undo(out);
                return None;
            };
            if seen.contains(&id) {
                continue;
            }
            let input = match arguments {
                None => serde_json::Value::Null,
                Some(a) if a.is_null() => serde_json::Value::Null,
                // Some providers keep arguments as a JSON string.
                Some(a) if a.is_str() => {
                    let s = a.as_str().unwrap_or_default();
                    serde_json::from_str(s).unwrap_or_else(|_| serde_json::Value::String(s.to_string()))
                }
                Some(a) => match to_serde(a) {
                    Some(v) => v,
                    None => {
                        undo(out);
                        return None;
                    }
                },
            };
            seen.push(id.clone());
            out.push(Event::Call(make_call(id, name.unwrap_or_default().to_string(), input, time, row)));
        }
    }
    Some(Ok(false))
}

/// The fields of an object named in `names`, in that order; `None` if the
/// value is not an object or names one of them twice (serde's typed pass
/// refuses a duplicate field).
struct Fields<'a, const N: usize>([Option<&'a Doc>; N]);

impl<'a, const N: usize> Fields<'a, N> {
    fn of(v: &'a Doc, names: &[&str; N]) -> Option<Self> {
        let mut got = [None; N];
        for (k, x) in v.as_object()?.iter() {
            if let Some(i) = names.iter().position(|n| *n == k) {
                if got[i].is_some() {
                    return None;
                }
                got[i] = Some(x);
            }
        }
        Some(Fields(got))
    }
}

/// A content block as serde's `Block` reads it.
struct Block<'a> {
    kind: Option<&'a str>,
    id: Option<&'a Doc>,
    name: Option<&'a str>,
    input: Option<&'a Doc>,
    tool_use_id: Option<&'a Doc>,
    content: Option<&'a Doc>,
    is_error: Option<&'a Doc>,
}

impl<'a> Block<'a> {
    /// `None`: not a block (serde skips the item); `Some(None)`: a shape
    /// only the general path decides (a duplicate key).
    fn of(v: &'a Doc) -> Option<Option<Block<'a>>> {
        if v.is_array() {
            return Some(None); // serde reads a struct from an array too
        }
        v.as_object()?;
        let Some(f) = Fields::of(v, &["type", "id", "name", "input", "tool_use_id", "content", "is_error"]) else {
            return Some(None);
        };
        let [kind, id, name, input, tool_use_id, content, is_error] = f.0;
        let (kind, name) = (opt_str(kind)?, opt_str(name)?);
        let input = input.filter(|i| !i.is_null());
        let null_is_none = |x: Option<&'a Doc>| x.filter(|d| !d.is_null());
        Some(Some(Block {
            kind,
            id: null_is_none(id),
            name,
            input,
            tool_use_id: null_is_none(tool_use_id),
            content: null_is_none(content),
            is_error: null_is_none(is_error),
        }))
    }
}

/// A field serde reads as `Option<Cow<str>>`: absent or null is `None`, a
/// string is its text, anything else fails (`None` outside).
fn opt_str(v: Option<&Doc>) -> Option<Option<&str>> {
    match v {
        None => Some(None),
        Some(d) if d.is_null() => Some(None),
        Some(d) => d.as_str().map(Some),
    }
}

fn present(v: Option<&Doc>) -> bool {
    v.is_some_and(|d| !d.is_null())
}

fn is_true(v: Option<&Doc>) -> bool {
    v.and_then(|d| d.as_bool()) == Some(true)
}

/// An id as `raw_id` reads it: a string's text; anything else (a number's
/// digits as written) and long ids go the general way.
fn id_text(v: &Doc) -> Option<String> {
    let s = v.as_str()?;
    (s.chars().count() <= ID_CHARS).then(|| s.to_string())
}

/// The text of a `MessageContent` as `raw_text` reads it, for a message
/// short enough that no text is cut.
fn text(v: &Doc) -> Option<Decoded> {
    if v.is_null() {
        return Some(Decoded::default());
    }
    if let Some(s) = v.as_str() {
        return Some(Decoded { text: s.to_string(), ..Decoded::default() });
    }
    if let Some(items) = v.as_array() {
        let mut all = String::new();
        for item in items.iter() {
            let piece: Option<Cow<str>> = if let Some(s) = item.as_str() {
                Some(s.into())
            } else if item.is_object() {
                let [t] = Fields::of(item, &["text"])?.0;
                match t {
                    None => None,
                    Some(t) if t.is_null() => None,
                    Some(t) => Some(t.as_str()?.into()),
                }
            } else {
                None
            };
            if let Some(p) = piece {
                if !all.is_empty() {
                    all.push('\n');
                }
                all.push_str(&p);
            }
        }
        return Some(Decoded { text: all, ..Decoded::default() });
    }
    if v.is_object() {
        let [t] = Fields::of(v, &["text"])?.0;
        return Some(Decoded { text: t?.as_str()?.to_string(), ..Decoded::default() });
    }
    None // a number or a boolean: its text as written
}

/// A tool's arguments as serde_json holds them, through their JSON text
/// (exactly serde's own reading of numbers and duplicate keys).
fn to_serde(v: &Doc) -> Option<serde_json::Value> {
    serde_json::from_str(&sonic_rs::to_string(v).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::peri::parse_general;

    /// Where the fast reader answers, it answers what the general path does.
    fn agree(content: &str, role: &str) -> bool {
        let mut fast = Vec::new();
        let Some(a) = read(content, role, 9, &mut fast) else { return false };
        let mut general = Vec::new();
        let b = parse_general(content, role, 9, &mut general);
        assert_eq!((a, fast), (b, general), "{role}: {content}");
        true
    }

    #[test]
    fn every_message_of_the_peri_samples_reads_the_same() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let (mut rows, mut fast) = (0, 0);
        for name in ["peri-postmortem.db", "peri-postfix.db"] {
            let conn = rusqlite::Connection::open(root.join(name)).unwrap();
            let mut stmt = conn.prepare("SELECT role, content FROM messages").unwrap();
            let mut q = stmt.query([]).unwrap();
            while let Some(r) = q.next().unwrap() {
                let (role, content): (String, String) = (r.get(0).unwrap(), r.get(1).unwrap());
                rows += 1;
                fast += usize::from(agree(&content, &role));
            }
        }
        assert!(rows > 20_000 && fast * 2 > rows, "{fast} of {rows} rows read fast");
    }

    #[test]
    fn odd_shapes_read_the_same_or_go_the_general_way() {
        let cases = [
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/a","n":-0.5e1}}],"tool_calls":[{"id":"a","name":"Read","arguments":{}},{"id":"b","name":"Bash","arguments":"{\"command\":\"ls\"}"},{"id":"c","arguments":"not json"},{"id":"d","name":5},{"id":"e","name":null,"arguments":null}]}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","id":7,"name":"Read"}]}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","name":"Read","input":null},{"type":5},"text",3,null]}"#,
            r#"{"role":"assistant","content":[["tool_use","x","Read",{}]]}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","type":"tool_use","id":"x"}]}"#,
            r#"{"role":"assistant","tool_calls":[["x","Read",{}]]}"#,
            r#"{"role":"assistant","content":"prose only","tool_calls":{"id":"x"}}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"one"},"two",{"text":null},{"type":"image"}],"is_error":true}]}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":{"text":"obj"}},{"type":"tool_result","tool_use_id":"b","content":{"no":"text"}},{"type":"tool_result","tool_use_id":"c","content":5}]}"#,
            r#"{"role":"tool","tool_call_id":"t","content":[{"text":1}]}"#,
            r#"{"role":"tool","tool_call_id":true,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":null,"content":"x"}"#,
            r#"{"role":"tool","tool_call_id":{"a":1}}"#,
            r#"{"role":"tool","tool_call_id":"t","is_error":"true"}"#,
            r#"{"role":5}"#,
            r#"{"role":"tool","role":"tool","tool_call_id":"t"}"#,
            r#"{"version":1,"type":"message","message":{"role":"tool","tool_call_id":"t","content":"x"}}"#,
            r#"{"type":null,"version":null,"tool_call_id":"t","content":"x"}"#,
            r#"["tool","t"]"#,
            r#"{"role":"tool","tool_call_id":"t","content":"a\ud800"}"#,
        ];
        let mut fast = 0;
        for c in cases {
            for role in ["tool", "assistant", "user"] {
                fast += usize::from(agree(c, role));
            }
        }
        assert!(fast > 20, "{fast} cases read fast");
        let long_id = format!(r#"{{"role":"tool","tool_call_id":"{}","content":"x"}}"#, "i".repeat(ID_CHARS + 1));
        assert!(read(&long_id, "tool", 1, &mut Vec::new()).is_none(), "long ids go the general way");
    }
}
