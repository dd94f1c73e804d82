//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`),
//! the project folder being the absolute cwd with `/` replaced by `-`.
//!
//! Calls are `tool_use` blocks of assistant lines; results are `tool_result`
//! blocks of user lines, linked by `tool_use_id`. `is_error` is optional and
//! absent on success. Sub-agents (both layouts: `agent-<id>.jsonl` beside the
//! session, or `<session>/subagents/agent-<id>.jsonl`) have `isSidechain`
//! and `agentId` on every line; each becomes its own session
//! `<session>/agent-<id>` whose parent is the session.
//!
//! A side-question sub-agent (`subagents/agent-aside_question-*.jsonl`)
//! replays its parent's lines as its own: a call belongs to the session
//! that made it first (deduplicated by `tool_use` id across files, the
//! parent wins whatever the order the files are read in).
//!
//! Traps handled: resumed sessions repeat earlier lines (deduplicated by
//! `uuid`, and by `tool_use` id when the copy got a new uuid); one API response is written as one line per content block
//! (calls are deduplicated by id within the session); a result can be in a
//! different file than its call (it joins its call's session, also across
//! runs); `toolUseResult` stands in when the block has no text. `progress`
//! lines that embed sub-agent messages are skipped, so nothing is counted
//! twice.
//!
//! The headless output (`claude -p --output-format stream-json`, and the
//! Agent SDK's messages) is the same messages with `session_id` instead of
//! `sessionId`, no `uuid` before 2.x, and a sub-agent's messages marked by
//! the `parent_tool_use_id` of the call that started it. Qwen Code writes
//! the same output (packages/cli/src/nonInteractive/types.ts), its `init`
//! naming `qwen_code_version`: those sessions are Qwen Code's, judged in
//! its dialect.

use foldhash::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::claude_line::{Block, ClaudeLine, Content};
use super::{ImportRun, Importer, Item, ResultRow, SessionRow, TypedParse, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Claude;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::CLAUDE_CODE,
    agent: "Claude Code transcripts, JSONL, read through import",
    product: "Claude Code",
    signature: "records with `uuid`/`sessionId` (or the headless stream-json's `session_id`); calls are `tool_use` blocks, results `tool_result` blocks",
    flag: "`is_error` of the tool_result block (optional: absent = false)",
    locations: &[Location::Home(".claude/projects")],
    sample: "claude-code",
};

const AGENT: &str = Dialect::CLAUDE_CODE.as_str();

/// Record types Claude Code writes without `uuid` or `sessionId`.
const METADATA_RECORDS: &[&str] = &[
    "file-history-snapshot",
    "teleported-from",
    "last-prompt",
    "queue-operation",
    "custom-title",
    "agent-name",
    "ai-title",
    "pr-link",
    "permission-mode",
];

impl Importer for Claude {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    /// A line with a `uuid` (messages) or `leafUuid` (summaries), a typed
    /// record of a session (Gemini's metadata record has a `sessionId` but
    /// no `type`; a Langfuse observation may carry a `sessionId` and a
    /// `type`, but also its `traceId`), or one of Claude Code's metadata
    /// records that carry neither (`file-history-snapshot`,
    /// `teleported-from`, …): a file of only those is a Claude Code file with
    /// no calls, not a stranger.
    fn recognise(&self, v: &Value) -> bool {
        // Qwen Code writes `uuid`/`sessionId` records too, but its messages
        // are Gemini-shaped (`message.parts`) and its results
        // `toolCallResult`: not Claude Code's, whatever else they share.
        !super::gemini::qwen::is_qwen_record(v) && Self::claims(v)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Run::default())
    }

    fn lines_ahead(&self) -> Option<Option<TypedParse>> {
        Some(LINES)
    }

    /// Its files bind only through what the writer shares (sessions, call
    /// ids, line uuids).
    fn separable(&self) -> bool {
        true
    }
}

impl Claude {
    fn claims(v: &Value) -> bool {
        v.get("uuid").is_some()
            || v.get("leafUuid").is_some()
            || (v.get("sessionId").is_some()
                && v.get("type").is_some_and(Value::is_string)
                && v.get("traceId").is_none())
            || v.get("type").and_then(Value::as_str).is_some_and(|t| METADATA_RECORDS.contains(&t))
            || is_stream_message(v)
    }
}

/// A message of the headless output (`claude -p --output-format
/// stream-json`, and the Agent SDK's messages, which are the same): a
/// `session_id` (snake case) on `system` (with its `subtype` and, for
/// `init`, its `tools`), `assistant` and `user` messages (with their
/// `message`) and the `result`. Before 2.x they carry no `uuid`.
fn is_stream_message(v: &Value) -> bool {
    v.get("session_id").is_some_and(Value::is_string)
        && match v.get("type").and_then(Value::as_str) {
            Some("assistant" | "user") => v.get("message").is_some_and(Value::is_object),
            // Claude Code's `init` lists its tools; Cursor's CLI writes a
            // look-alike `init` without them, and its calls as `tool_call`
            // events this importer does not read.
            Some("system") => {
                v.get("subtype").is_some_and(Value::is_string) && v.get("tools").is_some_and(Value::is_array)
            }
            Some("result") => v.get("subtype").is_some_and(Value::is_string),
            _ => false,
        }
}

/// How a run reads its lines, ahead or at their turn: one parse for both.
const LINES: Option<TypedParse> = Some(typed);

/// The reader thread's parse of a line (`claude_line`).
fn typed(text: &str) -> Option<Box<dyn std::any::Any + Send>> {
    ClaudeLine::parse(text).map(|l| Box::new(l) as Box<dyn std::any::Any + Send>)
}

/// A result whose call has not been seen yet.
struct Pending {
    /// The file it was read from (the records bind it to the call's).
    file: Option<std::path::PathBuf>,
    session: String,
    call_id: String,
    text: String,
    flag: bool,
    time: Option<String>,
}

/// State across all files of one import run.
#[derive(Default)]
struct Run {
    /// Every line uuid seen, and whether it was first seen on a sub-agent's
    /// line (a side question replays its parent's lines under their uuids).
    uuids: Uuids,
    pending: Vec<Pending>,
    /// The API response being read (`message.id`), for its usage.
    response: super::usage::Response,
    /// The agent of the file being read: Claude Code, or Qwen Code when its
    /// headless output's `init` says so (the sessions are judged in it).
    agent: Option<Dialect>,
}

/// Line uuids seen, each with whether it was first seen on a sub-agent's
/// line. A run meets two for every call, so a canonical uuid (lowercase hex
/// in 8-4-4-4-12 groups, what Claude Code writes) is kept as its 128 bits:
/// 16 bytes an entry where a `String` key took about 100, which is most of
/// a 6 GB folder's peak memory. Any other spelling is kept as it is, so two
/// spellings never meet.
#[derive(Default)]
struct Uuids {
    seen: HashSet<u128>,
    /// The canonical ones whose flag is set.
    side: HashSet<u128>,
    other: HashMap<String, bool>,
}

impl Uuids {
    fn get(&self, uuid: &str) -> Option<bool> {
        match canonical_uuid(uuid) {
            Some(n) => self.seen.contains(&n).then(|| self.side.contains(&n)),
            None => self.other.get(uuid).copied(),
        }
    }

    fn insert(&mut self, uuid: &str, sidechain: bool) {
        match canonical_uuid(uuid) {
            Some(n) => {
                self.seen.insert(n);
                if sidechain {
                    self.side.insert(n);
                } else {
                    self.side.remove(&n);
                }
            }
            None => {
                self.other.insert(uuid.to_string(), sidechain);
            }
        }
    }
}

/// `uuid` as a number when it is spelled canonically: 36 bytes, dashes at
/// 8, 13, 18 and 23, lowercase hex digits elsewhere. One number has one
/// such spelling, so the map keyed by it is exact.
fn canonical_uuid(uuid: &str) -> Option<u128> {
    let b = uuid.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut n: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        let digit = match c {
            b'-' if matches!(i, 8 | 13 | 18 | 23) => continue,
            b'0'..=b'9' if !matches!(i, 8 | 13 | 18 | 23) => c - b'0',
            b'a'..=b'f' if !matches!(i, 8 | 13 | 18 | 23) => c - b'a' + 10,
            _ => return None,
        };
        n = (n << 4) | u128::from(digit);
    }
    Some(n)
}

impl ImportRun for Run {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let source = path.display().to_string();
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        self.agent = None;
        let mut lines = w.lines(path, LINES)?;
        while let Some(item) = lines.next_item(&mut w.stats)? {
            let line = match item {
                Item::Typed(t) => match t.downcast::<ClaudeLine>() {
                    Ok(line) => *line,
                    Err(_) => return Err(Error::Internal("a Claude Code line of another type".into())),
                },
                Item::Record(v) => ClaudeLine::of_value(v),
            };
            self.line(line, &stem, &source, w)
                .map_err(|e| Error::input(path, crate::source::open::sqlite_problem(&e)))?;
        }
        Ok(())
    }

    /// Results whose call came later (another file) join its session; the
    /// rest stay in their own session as orphans.
    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let last = w.reading.take();
        for p in std::mem::take(&mut self.pending) {
            w.reading = p.file;
            let session = w.session_of_call(&p.call_id)?.unwrap_or(p.session);
            w.result(&ResultRow {
                session: &session,
                call_id: &p.call_id,
                text: &p.text,
                flag: Some(p.flag),
                exit_code: None,
                time: p.time.as_deref(),
            })?;
        }
        w.reading = last;
        Ok(())
    }
}

impl Run {
    fn line(&mut self, v: ClaudeLine, stem: &str, source: &str, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let kind = v.kind.as_deref().unwrap_or("");
        // The file's format stays Claude Code's (the header a warm scan
        // rebuilds from the index says the same); its sessions are Qwen's.
        if kind == "system" && v.qwen {
            self.agent = Some(Dialect::QWEN);
        }
        if kind != "user" && kind != "assistant" {
            w.stats.skipped += 1;
            return Ok(());
        }
        // A sub-agent's message in the headless output names the call that
        // started it: its session is `<session>/agent-<call id>`.
        let sidechain = v.sidechain.unwrap_or(false) || v.parent_call.is_some();
        if let Some(uuid) = v.uuid.as_deref() {
            w.shared_key(super::record::Key::Line, uuid);
            match self.uuids.get(uuid) {
                None => {
                    self.uuids.insert(uuid, sidechain);
                }
                // The parent's own copy of a line a side question replayed
                // (and was read first): read it, so that its calls move to
                // the parent that made them.
                Some(true) if !sidechain => {
                    self.uuids.insert(uuid, false);
                }
                Some(_) => {
                    w.stats.duplicates += 1;
                    return Ok(());
                }
            }
        }
        let main = v.session.or(v.stream_session).unwrap_or_else(|| stem.to_string());
        let (session, parent) = if sidechain {
            let agent = match v.agent.as_deref().or(v.parent_call.as_deref()) {
                Some(a) => format!("agent-{a}"),
                None => stem.to_string(),
            };
            (format!("{main}/{agent}"), Some(main))
        } else {
            (main, None)
        };
        let time = v.time.as_deref();
        let Some(Content::Blocks(blocks)) = v.content else {
            return Ok(());
        };
        let mut wrote_session = false;
        let agent = self.agent.map_or(AGENT, Dialect::as_str);
        let mut ensure_session = |w: &mut Writer<'_>| -> rusqlite::Result<()> {
            if !wrote_session {
                wrote_session = true;
                w.session(&SessionRow { id: &session, parent: parent.as_deref(), agent, source, started: time })?;
            }
            Ok(())
        };
        let response = v.response;
        let answered = kind == "assistant" && response.id.is_some();
        if let (true, Some(id)) = (answered, response.id.as_deref()) {
            self.response.at(&session, id);
        }
        for block in blocks {
            match (kind, block) {
                ("assistant", Block::Call { id, name, input }) => {
                    ensure_session(w)?;
                    let input = input.unwrap_or(Value::Null);
                    let id = id.as_deref().unwrap_or("");
                    let name = name.as_deref().filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    // A resumed session can repeat a call under a new line uuid
                    // and session id: tool_use ids are global, keep the first.
                    // A side-question sub-agent (`agent-aside_question-*`)
                    // replays its parent's calls: the parent made them, so
                    // the parent wins whichever file was read first.
                    if let Some(owner) = w.session_of_call(id)?.filter(|owner| *owner != session) {
                        if parent.is_none() && owner.starts_with(&format!("{session}/")) {
                            ensure_session(w)?;
                            w.move_call(&owner, &session, id)?;
                        }
                        w.stats.duplicates += 1;
                        continue;
                    }
                    w.call(&session, id, name, &input, time)?;
                    if answered {
                        self.response.call(id);
                    }
                }
                ("user", Block::Result { tool_use_id, content, is_error }) => {
                    let call_id = tool_use_id.unwrap_or_default();
                    let mut text = content_text(content.unwrap_or(Value::Null));
                    if text.is_empty()
                        && let Some(s) = &v.tool_use_result
                    {
                        text = s.clone();
                    }
                    let flag = is_error.unwrap_or(false);
                    match w.session_of_call(&call_id)? {
                        Some(owner) => w.result(&ResultRow {
                            session: &owner,
                            call_id: &call_id,
                            text: &text,
                            flag: Some(flag),
                            exit_code: None,
                            time,
                        })?,
                        None => {
                            ensure_session(w)?;
                            self.pending.push(Pending {
                                file: w.reading.clone(),
                                session: session.clone(),
                                call_id,
                                text,
                                flag,
                                time: time.map(str::to_string),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        if answered && let Some(u) = response.usage {
            self.response.used(u, response.model.as_deref().filter(|m| *m != "<synthetic>"), w)?;
        }
        Ok(())
    }
}

/// The text of a message content value: a string (moved, not copied: a
/// result's text was a tenth of the importer's thread as a copy), or the
/// text of its blocks, one per line.
fn content_text(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Null => String::new(),
        Value::Array(items) => {
            let mut out = String::new();
            for item in items {
                let piece = match item {
                    Value::String(s) => Some(s),
                    Value::Object(mut o) => match o.remove("text") {
                        Some(Value::String(t)) => Some(t),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(p) = piece {
                    if out.is_empty() {
                        out = p;
                    } else {
                        out.push('\n');
                        out.push_str(&p);
                    }
                }
            }
            out
        }
        Value::Object(o) => match o.get("text").and_then(Value::as_str) {
            Some(t) => t.to_string(),
            None => Value::Object(o).to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{Claude, Uuids, canonical_uuid};
    use serde_json::json;

    /// The headless output's messages are claimed; a Gemini headless event
    /// (its `init` has a `session_id` too) and an OpenAI-style message are not.
    #[test]
    fn headless_messages_are_claude_code_s() {
        let sid = "s-1";
        for v in [
            json!({"type": "system", "subtype": "init", "session_id": sid, "tools": []}),
            json!({"type": "assistant", "message": {"content": []}, "parent_tool_use_id": null, "session_id": sid}),
            json!({"type": "user", "message": {"content": []}, "parent_tool_use_id": "toolu_1", "session_id": sid}),
            json!({"type": "result", "subtype": "success", "session_id": sid}),
        ] {
            assert!(Claude::claims(&v), "{v}");
        }
        for v in [
            json!({"type": "init", "session_id": sid, "model": "gemini-2.5-pro"}),
            json!({"type": "result", "status": "success", "stats": {}}),
            json!({"type": "message", "role": "user", "content": "hi"}),
            json!({"type": "assistant", "session_id": sid, "content": "no message object"}),
            json!({"type": "system", "subtype": "init", "session_id": sid, "model": "gpt-5", "permissionMode": "default"}),
        ] {
            assert!(!Claude::claims(&v), "{v}");
        }
    }

    #[test]
    fn only_a_canonical_spelling_is_kept_as_a_number() {
        let id = "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2b";
        assert_eq!(canonical_uuid(id), Some(0x0f8e2c1a_3b4d_4e5f_9a6b_7c8d9e0f1a2b));
        for other in [
            "0F8E2C1A-3B4D-4E5F-9A6B-7C8D9E0F1A2B",
            "0f8e2c1a3b4d4e5f9a6b7c8d9e0f1a2b",
            "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2",
            "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2bc",
            "0f8e2c1a-3b4d-4e5f-9a6b+7c8d9e0f1a2b",
            "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2g",
            "0f8e2c1a--b4d-4e5f-9a6b-7c8d9e0f1a2b",
            "msg_01",
            "",
        ] {
            assert_eq!(canonical_uuid(other), None, "{other}");
        }
    }

    /// The compact set answers as a map keyed by the string would, whatever
    /// the spellings: a mixed-case copy of a uuid is another line.
    #[test]
    fn the_set_answers_as_a_string_map() {
        let ids = [
            "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2b",
            "0F8E2C1A-3B4D-4E5F-9A6B-7C8D9E0F1A2B",
            "00000000-0000-0000-0000-000000000000",
            "line-7",
            "0f8e2c1a-3b4d-4e5f-9a6b-7c8d9e0f1a2c",
        ];
        let mut set = Uuids::default();
        let mut model: HashMap<String, bool> = HashMap::default();
        // Every sequence of three steps (id, sidechain flag) over the ids.
        for step in 0..(ids.len() * 2).pow(3) {
            let mut k = step;
            for _ in 0..3 {
                let (id, side) = (ids[k % ids.len()], (k / ids.len()) % 2 == 1);
                k /= ids.len() * 2;
                assert_eq!(set.get(id), model.get(id).copied(), "{id}");
                set.insert(id, side);
                model.insert(id.to_string(), side);
            }
            for id in ids {
                assert_eq!(set.get(id), model.get(id).copied(), "{id} after step {step}");
            }
        }
    }
}
