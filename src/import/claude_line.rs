//! One line of a Claude Code transcript, parsed for what the importer reads
//! and nothing else: the parse on the reader thread builds the few fields
//! the importer needs (type, ids, time, `message.content`, a string
//! `toolUseResult`) and steps over the rest, among them the copy of every
//! result Claude Code writes beside it (`toolUseResult` objects), without
//! building them.
//!
//! What is stepped over is still parsed as `serde_json::Value` would parse
//! it (`deserialize_any`, with its depth limit, number ranges and escape
//! checks): a line is a record here exactly when it is a JSON object to
//! `Value`, and a key written twice keeps its last value, as in `Value`. A
//! line with a `\ud…` escape (maybe a lone surrogate, which the line reader
//! repairs) is left to the `Value` path (`LineReader::next_item`).

use std::fmt;

use serde::Deserializer;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The fields of a line the importer reads; each `None` when absent or of
/// another JSON type (as `Value::get(..).and_then(Value::as_str)` reads).
#[derive(Debug, Default, PartialEq)]
pub(super) struct ClaudeLine {
    pub kind: Option<String>,
    pub sidechain: Option<bool>,
    pub uuid: Option<String>,
    pub session: Option<String>,
    /// `session_id`: the headless output's spelling (`claude -p
    /// --output-format stream-json`, the Agent SDK's messages).
    pub stream_session: Option<String>,
    /// `parent_tool_use_id` of the headless output: the `Task`/`Agent` call
    /// a sub-agent's message belongs to (`null` for the main agent's).
    pub parent_call: Option<String>,
    /// The headless output's `init` names `qwen_code_version`: Qwen Code
    /// writes Claude Code's stream-json (packages/cli/src/nonInteractive).
    pub qwen: bool,
    pub agent: Option<String>,
    pub time: Option<String>,
    /// `message.content`, when `message` is an object that has it.
    pub content: Option<Content>,
    /// `toolUseResult`, when it is a string.
    pub tool_use_result: Option<String>,
    /// `message.id`, `message.model` and `message.usage` (an object), when
    /// `message` is an object that has them.
    pub response: Response,
}

/// What a line says of the API response it is part of.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Response {
    pub id: Option<String>,
    pub model: Option<String>,
    /// `message.usage` as `usage::anthropic` reads it.
    pub usage: Option<crate::model::Usage>,
}

impl ClaudeLine {
    /// The same fields, read from a line parsed as a `Value`.
    pub(super) fn of_value(v: Value) -> ClaudeLine {
        let Value::Object(mut o) = v else { return ClaudeLine::default() };
        let mut text = |k: &str| match o.remove(k) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let (kind, uuid, session, agent, time, tool_use_result) =
            (text("type"), text("uuid"), text("sessionId"), text("agentId"), text("timestamp"), text("toolUseResult"));
        let (stream_session, parent_call) = (text("session_id"), text("parent_tool_use_id"));
        let mut line = ClaudeLine {
            kind,
            sidechain: o.get("isSidechain").and_then(Value::as_bool),
            uuid,
            session,
            stream_session,
            parent_call,
            qwen: o.get("qwen_code_version").is_some_and(Value::is_string),
            agent,
            time,
            content: None,
            tool_use_result,
            response: Response::default(),
        };
        if let Some(Value::Object(mut m)) = o.remove("message") {
            line.content = m.remove("content").map(Content::of_value);
            let mut text = |k: &str| match m.remove(k) {
                Some(Value::String(s)) => Some(s),
                _ => None,
            };
            let (id, model) = (text("id"), text("model"));
            let usage = match m.remove("usage") {
                Some(Value::Object(u)) => super::usage::anthropic(&u),
                _ => None,
            };
            line.response = Response { id, model, usage };
        }
        line
    }

    /// Parse `text`, one trimmed line that starts with `{`; `None` when it
    /// is not a JSON object `Value` would read alike (then the line reader
    /// parses it as a `Value`).
    pub(super) fn parse(text: &str) -> Option<ClaudeLine> {
        // Built once: a finder built for every line cost 4% of the parse.
        static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
        let bytes = text.as_bytes();
        if !text.starts_with('{') || ESCAPE.find_iter(bytes).any(|at| matches!(bytes.get(at + 2), Some(b'd' | b'D'))) {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let line = de.deserialize_any(LineVisitor).ok()?;
        de.end().ok()?;
        line
    }
}

/// Any JSON value, parsed as `Value` parses it, and dropped.
struct Skip;

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// A value kept when it is a string (or, `Bool`, a boolean); any other
/// value is parsed and dropped.
enum Leaf {
    Str(String),
    Bool(bool),
    Other,
}

impl<'de> de::Deserialize<'de> for Leaf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Leaf, D::Error> {
        d.deserialize_any(LeafVisitor)
    }
}

struct LeafVisitor;

impl<'de> Visitor<'de> for LeafVisitor {
    type Value = Leaf;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Leaf, E> {
        Ok(Leaf::Bool(b))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Leaf, E> {
        Ok(Leaf::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Leaf, E> {
        Ok(Leaf::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Leaf, E> {
        Ok(Leaf::Other)
    }
    fn visit_str<E>(self, s: &str) -> Result<Leaf, E> {
        Ok(Leaf::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Leaf, E> {
        Ok(Leaf::Str(s))
    }
    fn visit_unit<E>(self) -> Result<Leaf, E> {
        Ok(Leaf::Other)
    }
    fn visit_none<E>(self) -> Result<Leaf, E> {
        Ok(Leaf::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Leaf, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| Leaf::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Leaf, A::Error> {
        SkipVisitor.visit_map(map).map(|_| Leaf::Other)
    }
}

impl Leaf {
    fn text(self) -> Option<String> {
        match self {
            Leaf::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// `message.content` as the importer reads it.
#[derive(Debug, PartialEq)]
pub(super) enum Content {
    /// An array: its items, each as a block.
    Blocks(Vec<Block>),
    /// Anything else (a prompt's string, …): nothing the importer reads.
    Other,
}

/// One item of a content array: what the importer reads of a `tool_use`
/// or a `tool_result` block (each field `None` when absent or of another
/// JSON type); every other item (text, thinking, images …) is `Other`,
/// stepped over without being built.
#[derive(Debug, PartialEq)]
pub(super) enum Block {
    /// `"type": "tool_use"`.
    Call {
        id: Option<String>,
        name: Option<String>,
        input: Option<Value>,
    },
    /// `"type": "tool_result"`.
    Result {
        tool_use_id: Option<String>,
        content: Option<Value>,
        is_error: Option<bool>,
    },
    Other,
}

impl Content {
    /// The same, read from a `Value`.
    fn of_value(v: Value) -> Content {
        match v {
            Value::Array(items) => Content::Blocks(items.into_iter().map(Block::of_value).collect()),
            _ => Content::Other,
        }
    }
}

impl Block {
    /// The same, read from a `Value`.
    fn of_value(v: Value) -> Block {
        let Value::Object(mut o) = v else { return Block::Other };
        let mut text = |k: &str| match o.remove(k) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        match text("type").as_deref() {
            Some("tool_use") => Block::Call { id: text("id"), name: text("name"), input: o.remove("input") },
            Some("tool_result") => Block::Result {
                tool_use_id: text("tool_use_id"),
                is_error: o.get("is_error").and_then(Value::as_bool),
                content: o.remove("content"),
            },
            _ => Block::Other,
        }
    }
}

impl<'de> de::Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Content, D::Error> {
        d.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_unit<E>(self) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_none<E>(self) -> Result<Content, E> {
        Ok(Content::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<Block>()? {
            blocks.push(block);
        }
        Ok(Content::Blocks(blocks))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content, A::Error> {
        SkipVisitor.visit_map(map).map(|_| Content::Other)
    }
}

impl<'de> de::Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Block, D::Error> {
        d.deserialize_any(BlockVisitor)
    }
}

struct BlockVisitor;

/// The keys of a block the importer reads.
const BLOCK_KEYS: &[&str] = &["type", "id", "name", "input", "tool_use_id", "content", "is_error"];

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = Block;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_unit<E>(self) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_none<E>(self) -> Result<Block, E> {
        Ok(Block::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Block, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| Block::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block, A::Error> {
        // A key written twice keeps its last value, as in `Value`; the
        // values are built only once the block's type says they are read.
        let (mut kind, mut id, mut name, mut tool_use_id, mut is_error) = (None, None, None, None, None);
        let (mut input, mut content) = (None, None);
        while let Some(key) = map.next_key::<BlockKey>()? {
            match key.0 {
                Some("input") => input = Some(map.next_value::<Value>()?),
                Some("content") => content = Some(map.next_value::<Value>()?),
                Some(key) => {
                    let leaf = map.next_value::<Leaf>()?;
                    match key {
                        "is_error" => is_error = if let Leaf::Bool(b) = leaf { Some(b) } else { None },
                        "type" => kind = leaf.text(),
                        "id" => id = leaf.text(),
                        "name" => name = leaf.text(),
                        _ => tool_use_id = leaf.text(),
                    }
                }
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(match kind.as_deref() {
            Some("tool_use") => Block::Call { id, name, input },
            Some("tool_result") => Block::Result { tool_use_id, content, is_error },
            _ => Block::Other,
        })
    }
}

/// A key of a block, kept when it is one the importer reads.
struct BlockKey(Option<&'static str>);

impl<'de> de::Deserialize<'de> for BlockKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BlockKey, D::Error> {
        d.deserialize_str(BlockKeyVisitor)
    }
}

struct BlockKeyVisitor;

impl<'de> Visitor<'de> for BlockKeyVisitor {
    type Value = BlockKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<BlockKey, E> {
        Ok(BlockKey(BLOCK_KEYS.iter().find(|k| **k == s).copied()))
    }
}

/// `message`: its `content` and what it says of its response, when it is
/// an object.
struct Message(Option<Content>, Response);

impl<'de> de::Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Message, D::Error> {
        d.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_str<E>(self, _: &str) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_unit<E>(self) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_none<E>(self) -> Result<Message, E> {
        Ok(Message(None, Response::default()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Message, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| Message(None, Response::default()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut content = None;
        let mut response = Response::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key.0 {
                Some("content") => content = Some(map.next_value::<Content>()?),
                Some("id") => response.id = map.next_value::<Leaf>()?.text(),
                Some("model") => response.model = map.next_value::<Leaf>()?.text(),
                Some("usage") => response.usage = map.next_value::<UsageCounts>()?.0,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Message(content, response))
    }
}

/// `message.usage`, its four counts read as `usage::anthropic` reads them
/// from a `Value` (a key written twice keeps its last value; anything but
/// a count is none), everything else parsed and dropped.
struct UsageCounts(Option<crate::model::Usage>);

impl<'de> de::Deserialize<'de> for UsageCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<UsageCounts, D::Error> {
        d.deserialize_any(UsageVisitor)
    }
}

/// A count as `usage::count` reads one.
struct Count(Option<u64>);

impl<'de> de::Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        d.deserialize_any(CountVisitor)
    }
}

struct CountVisitor;

impl<'de> Visitor<'de> for CountVisitor {
    type Value = Count;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Count, E> {
        Ok(Count(None))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Count, E> {
        Ok(Count(u64::try_from(n).ok()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Count, E> {
        Ok(Count(Some(n)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Count, E> {
        Ok(Count((f.is_finite() && f >= 0.0).then_some(f as u64)))
    }
    fn visit_str<E>(self, _: &str) -> Result<Count, E> {
        Ok(Count(None))
    }
    fn visit_unit<E>(self) -> Result<Count, E> {
        Ok(Count(None))
    }
    fn visit_none<E>(self) -> Result<Count, E> {
        Ok(Count(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Count, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| Count(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Count, A::Error> {
        SkipVisitor.visit_map(map).map(|_| Count(None))
    }
}

struct UsageVisitor;

impl<'de> Visitor<'de> for UsageVisitor {
    type Value = UsageCounts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_i64<E>(self, _: i64) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_u64<E>(self, _: u64) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_f64<E>(self, _: f64) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_str<E>(self, _: &str) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_unit<E>(self) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_none<E>(self) -> Result<UsageCounts, E> {
        Ok(UsageCounts(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<UsageCounts, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| UsageCounts(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UsageCounts, A::Error> {
        let mut counts = [None; 4];
        while let Some(key) = map.next_key::<UsageKey>()? {
            match key.0 {
                Some(i) => counts[i] = map.next_value::<Count>()?.0,
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        if counts.iter().all(Option::is_none) {
            return Ok(UsageCounts(None));
        }
        let [input, output, cache_read, cache_write] = counts.map(Option::unwrap_or_default);
        Ok(UsageCounts(Some(crate::model::Usage { input, output, cache_read, cache_write, ..Default::default() })))
    }
}

/// The keys of Anthropic's usage that are read, in `UsageVisitor`'s order.
const USAGE_KEYS: [&str; 4] =
    ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"];

/// A key of `usage`: its place in `USAGE_KEYS`, if read.
struct UsageKey(Option<usize>);

impl<'de> de::Deserialize<'de> for UsageKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<UsageKey, D::Error> {
        d.deserialize_str(UsageKeyVisitor)
    }
}

struct UsageKeyVisitor;

impl<'de> Visitor<'de> for UsageKeyVisitor {
    type Value = UsageKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<UsageKey, E> {
        Ok(UsageKey(USAGE_KEYS.iter().position(|k| *k == s)))
    }
}

/// A key of an object, kept when it is one the importer reads.
struct Key(Option<&'static str>);

const KEYS: &[&str] = &[
    "type",
    "isSidechain",
    "uuid",
    "sessionId",
    "session_id",
    "parent_tool_use_id",
    "qwen_code_version",
    "agentId",
    "timestamp",
    "message",
    "toolUseResult",
    "content",
    "id",
    "model",
    "usage",
];

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(Key(KEYS.iter().find(|k| **k == s).copied()))
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    /// `None`: the value is not an object.
    type Value = Option<ClaudeLine>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<ClaudeLine>, A::Error> {
        let mut line = ClaudeLine::default();
        while let Some(key) = map.next_key::<Key>()? {
            let Some(key) = key.0 else {
                map.next_value::<Skip>()?;
                continue;
            };
            if key == "message" {
                let Message(content, response) = map.next_value::<Message>()?;
                (line.content, line.response) = (content, response);
                continue;
            }
            let leaf = map.next_value::<Leaf>()?;
            match key {
                "isSidechain" => line.sidechain = if let Leaf::Bool(b) = leaf { Some(b) } else { None },
                "type" => line.kind = leaf.text(),
                "uuid" => line.uuid = leaf.text(),
                "sessionId" => line.session = leaf.text(),
                "session_id" => line.stream_session = leaf.text(),
                "parent_tool_use_id" => line.parent_call = leaf.text(),
                "qwen_code_version" => line.qwen = leaf.text().is_some(),
                "agentId" => line.agent = leaf.text(),
                "timestamp" => line.time = leaf.text(),
                "toolUseResult" => line.tool_use_result = leaf.text(),
                _ => {}
            }
        }
        Ok(Some(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line: the typed parse gives what the `Value` path gives, or
    /// leaves the line to it; it never accepts a line `Value` refuses.
    fn same(text: &str) {
        let value = serde_json::from_str::<Value>(text).ok().filter(Value::is_object);
        if let Some(line) = ClaudeLine::parse(text) {
            let v = value.unwrap_or_else(|| panic!("the typed parse accepts what Value refuses: {text}"));
            assert_eq!(line, ClaudeLine::of_value(v), "{text}");
        }
    }

    #[test]
    fn the_typed_parse_reads_what_value_reads() {
        let deep = format!("{{\"x\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        let lines = [
            r#"{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"ok"}]},"toolUseResult":{"stdout":"ok"}}"#,
            r#"{"type":"assistant","isSidechain":true,"agentId":"a1","timestamp":"2026-01-01T00:00:00Z","message":{"content":"text"}}"#,
            r#"{"type":"user","type":"assistant","message":{"content":1,"content":[2]},"toolUseResult":"Error: x"}"#,
            r#"{"type":5,"uuid":null,"isSidechain":"yes","message":"not an object","toolUseResult":["a"]}"#,
            r#"{"message":[1,2],"sessionId":{"a":1}}"#,
            r#"{"x":1e400}"#,
            r#"{"x":"\ud800"}"#,
            r#"{"x":"\uD83D\uDE00","type":"user"}"#,
            r#"{"x":"\u0000\n\t\"","uuid":"a\"b"}"#,
            r#"{"a":1} trailing"#,
            r#"{"a":1"#,
            r#"[{"type":"user"}]"#,
            r#"{"x":"unterminated}"#,
            r#"{"x":01}"#,
            &deep,
            // Content blocks: the fields of a call or a result in any
            // order, written twice, of another type; items that are not
            // blocks; blocks the importer does not read.
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"id":"c1","input":{"a":[1,{"b":null}]},"name":"Bash","type":"tool_use"},{"type":"thinking","thinking":"x","signature":"s"},7,"s",null,[{"type":"tool_use"}]]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"a"},"b",{"x":1}],"is_error":true},{"type":"tool_result","tool_use_id":7,"content":{"text":"t"},"is_error":"yes"},{"content":"late type","type":"tool_result"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","type":"text","id":"c"},{"type":"text","type":"tool_use","id":"c","id":5,"name":"A","name":"B","input":1,"input":{"k":"v"}},{"type":"tool_result","is_error":false,"is_error":1,"content":"a","content":["b"]},{"type":{"no":1},"id":"c"},{}]}}"#,
            r#"{"message":{"content":{"type":"tool_use","id":"c"}}}"#,
            r#"{"message":{"content":"a prompt","role":"user"}}"#,
            r#"{"message":{"content":[{"type":"tool_use","input":{"x":1e400}}]}}"#,
            r#"{"type":"assistant","session_id":"s","parent_tool_use_id":"toolu_1","message":{"content":[]}}"#,
            r#"{"type":"user","session_id":5,"parent_tool_use_id":null,"session_id":"s2","message":{"content":"x"}}"#,
            r#"{"type":"system","subtype":"init","session_id":"s","tools":[],"qwen_code_version":"0.6.0"}"#,
            r#"{"type":"system","subtype":"init","qwen_code_version":"0.6.0","qwen_code_version":1}"#,
        ];
        for line in lines {
            same(line);
        }
        // The response's id, model and usage: counts of every JSON type,
        // written twice, nested objects beside them, usage of another type.
        let usages = [
            r#"{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":4,"cache_creation_input_tokens":12000,"cache_read_input_tokens":0,"output_tokens":85,"cache_creation":{"ephemeral_5m_input_tokens":12000},"server_tool_use":{"web_search_requests":0},"service_tier":"standard"}}}"#,
            r#"{"message":{"usage":{"input_tokens":-3,"output_tokens":2.7,"cache_read_input_tokens":"9","cache_creation_input_tokens":null}}}"#,
            r#"{"message":{"usage":{"input_tokens":1,"input_tokens":true,"output_tokens":1e19,"output_tokens":5}}}"#,
            r#"{"message":{"usage":{"speed":1},"id":7,"model":["x"]}}"#,
            r#"{"message":{"usage":[1,2],"id":"a","id":"b"}}"#,
            r#"{"message":{"usage":{"input_tokens":18446744073709551615,"output_tokens":1e300}}}"#,
            r#"{"message":{"usage":{"input_tokens":1},"usage":"gone"}}"#,
        ];
        for line in usages {
            same(line);
        }
        let first = ClaudeLine::parse(usages[0]).unwrap().response;
        assert_eq!((first.id.as_deref(), first.model.as_deref()), (Some("m1"), Some("claude-sonnet-4-5")));
        let u = first.usage.unwrap();
        assert_eq!((u.input, u.cache_write, u.cache_read, u.output), (4, 12000, 0, 85));
        let odd = ClaudeLine::parse(usages[1]).unwrap().response.usage.unwrap();
        assert_eq!((odd.input, odd.output, odd.cache_read), (0, 2, 0), "a negative count or a string is none");
        assert_eq!(ClaudeLine::parse(usages[2]).unwrap().response.usage.map(|u| (u.input, u.output)), Some((0, 5)));
        assert!(ClaudeLine::parse(usages[3]).unwrap().response.usage.is_none(), "no count: no usage");
        assert!(ClaudeLine::parse(&deep).is_none(), "nesting past Value's limit is refused");
        assert!(ClaudeLine::parse(r#"{"x":1e400}"#).is_none(), "a number Value refuses is refused");
        let line = ClaudeLine::parse(lines[2]).unwrap();
        assert_eq!(line.kind.as_deref(), Some("assistant"), "a key written twice keeps its last value");
        assert_eq!(line.content, Some(Content::Blocks(vec![Block::Other])));
        let line = ClaudeLine::parse(lines[17]).unwrap();
        let Some(Content::Blocks(blocks)) = line.content else { panic!("content blocks") };
        assert_eq!(
            blocks[1],
            Block::Call { id: None, name: Some("B".into()), input: Some(serde_json::json!({"k": "v"})) },
            "the last of a key written twice"
        );
        assert_eq!(
            blocks[2],
            Block::Result { tool_use_id: None, content: Some(serde_json::json!(["b"])), is_error: None }
        );
        assert_eq!(blocks[0], Block::Other);
        assert!(ClaudeLine::parse(lines[20]).is_none(), "a number Value refuses, inside a call's input");
    }
}
