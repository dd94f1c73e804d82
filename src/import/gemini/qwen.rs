//! Qwen Code chats (`~/.qwen/projects/<cwd>/chats/<session-id>.jsonl`;
//! `QWEN_RUNTIME_DIR` or `QWEN_HOME` move `~/.qwen`), as Qwen Code's
//! `chatRecordingService` writes them from 0.4 on (a fork of Gemini CLI
//! whose records borrow Claude Code's envelope).
//!
//! Every line is one record `{uuid, parentUuid, sessionId, timestamp, type,
//! cwd, version, message}`, appended: `type` is `user`, `assistant`,
//! `tool_result` or `system`, and `message` is Gemini's `{role, parts[]}`
//! (never Claude Code's `content`). A call is a `functionCall` part of an
//! assistant record (`id`, `name`, `args`); its result a `tool_result`
//! record, `toolCallResult.callId` and `functionResponse.response` (`output`,
//! or `error` on failure). The flag is `toolCallResult.status`: `error` and
//! `cancelled` are failures; a user's refusal is `[Operation Cancelled]
//! Reason: User did not allow tool call`. A sub-agent stopped by its turn or
//! time limit answers an empty output under `success`, and only its display
//! (`toolCallResult.resultDisplay`: `status: "failed"`, `terminateReason`)
//! says so: its result reads `Subagent failed: MAX_TURNS` (a hidden error).
//! A shell result is a success whatever its `Exit Code: N` line says.
//!
//! `/rewind` leaves the abandoned turns in the file: the visible
//! conversation is the chain of `parentUuid` from the last record, and the
//! calls of records off it are dropped (when the chain reaches the file's
//! first record; a file that restarted mid-way keeps everything), unless
//! their branch was still written after the visible one began: a second
//! process appending to the same session, whose calls ran. Qwen Code
//! 0.12 to 0.13 may leave a call the user cancelled without a result, only
//! its telemetry (`ui_telemetry` `qwen-code.tool_call`, no call id, status
//! `error`): such a call, matched by name and arguments, is a flagged
//! failure with the telemetry's words. Sub-agents of newer versions write
//! `subagents/<session>/agent-<id>.jsonl` (`isSidechain`, the parent's
//! `sessionId`; results without a status, a failure only as
//! `response.error`): each is the session `<session>/agent-<id>`. Side files
//! (`<id>.runtime.json`, `<id>.ledger.jsonl`, `agent-<id>.meta.json`) are
//! claimed and passed over, and the chats of Qwen Code before 0.4 (one
//! Gemini-shaped JSON document under `~/.qwen/tmp`, which never held tool
//! calls) and its `/chat save` checkpoints (Gemini's, read as Gemini's are)
//! are Qwen Code's, not Gemini's.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::import::branches::Branches;
use crate::import::{ImportRun, Importer, LineReader, ResultRow, SessionRow, Writer};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Qwen;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::QWEN,
    agent: "Qwen Code chats, JSONL, read through import",
    product: "Qwen Code",
    signature: "records with `uuid`/`parentUuid`/`sessionId` whose messages are Gemini `parts` (`functionCall`), results `tool_result` records with `toolCallResult`",
    flag: "`toolCallResult.status` (`error`, `cancelled` = flagged)",
    locations: &[
        Location::EnvDir("QWEN_RUNTIME_DIR", "projects"),
        Location::EnvDir("QWEN_HOME", "projects"),
        Location::Home(".qwen/projects"),
    ],
    sample: "qwen",
};

const AGENT: &str = Dialect::QWEN.as_str();

/// Is `v` a record of Qwen Code's chats (not Claude Code's, which shares
/// its envelope)?
pub(crate) fn is_qwen_record(v: &Value) -> bool {
    v.get("uuid").is_some()
        && v.get("sessionId").is_some()
        && (v.get("message").and_then(|m| m.get("parts")).is_some_and(Value::is_array)
            || v.get("toolCallResult").is_some()
            || v.get("systemPayload").is_some()
            || v.get("type").and_then(Value::as_str) == Some("tool_result"))
}

/// Is the file at `path` under a `.qwen` folder (Qwen Code's home)?
fn under_qwen_home(path: &Path) -> bool {
    path.ancestors().skip(1).any(|a| a.file_name().is_some_and(|n| n == ".qwen"))
}

/// Is the file at `path` one of the side files Qwen Code keeps in its
/// home, or in a project's `chats` or `subagents` folder?
fn is_side_file_here(path: &Path) -> bool {
    let placed = path
        .ancestors()
        .skip(1)
        .any(|a| a.file_name().is_some_and(|n| n == ".qwen" || n == "chats" || n == "subagents"));
    placed && is_side_file(path)
}

/// Is the JSON document `doc` at `path` Qwen Code's: a chat from before
/// 0.4, or a Gemini-shaped `/chat save` checkpoint kept under `.qwen`?
pub(crate) fn is_qwen_document(path: &Path, doc: &Value) -> bool {
    is_legacy_chat(doc) || (under_qwen_home(path) && super::is_checkpoint(doc))
}

/// A chat of Qwen Code before 0.4: Gemini CLI's document, whose model
/// messages are of type `qwen`.
pub(crate) fn is_legacy_chat(doc: &Value) -> bool {
    doc.get("projectHash").is_some()
        && doc
            .get("messages")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|x| x.get("type").and_then(Value::as_str) == Some("qwen")))
}

impl Importer for Qwen {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn recognise(&self, v: &Value) -> bool {
        is_qwen_record(v)
    }

    /// A chat before 0.4, and the side files of a chats or sub-agents
    /// folder (`<id>.runtime.json`, `agent-<id>.meta.json`, …).
    fn recognise_document(&self, path: &Path, doc: &Value) -> bool {
        is_qwen_document(path, doc) || is_side_file_here(path)
    }

    /// Side files, and the JSON documents of `~/.qwen` (chats before 0.4,
    /// Gemini-shaped checkpoints), whatever their first line looks like.
    fn claims_file(&self, path: &Path) -> bool {
        is_side_file_here(path) || (under_qwen_home(path) && crate::import::is_json_document(path))
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Qwen)
    }
}

/// The files Qwen Code keeps beside its chats that are not transcripts.
fn is_side_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    [".runtime.json", ".worktree.json", ".pr.json", ".ledger.jsonl", ".meta.json"].iter().any(|s| name.ends_with(s))
}

impl ImportRun for Qwen {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
        if is_side_file(path) {
            w.stats.skipped += 1;
            return Ok(());
        }
        if crate::import::is_json_document(path) {
            // A checkpoint holds calls; a chat from before 0.4 never did.
            match crate::import::read_document(path, &mut w.stats)? {
                Some(doc) if super::is_checkpoint(&doc) => super::checkpoint_of(AGENT, path, &doc, w).map_err(sql)?,
                _ => w.stats.skipped += 1,
            }
            return Ok(());
        }
        let source = path.display().to_string();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("qwen").to_string();
        let mut f = File { source: &source, stem, ..File::default() };
        let mut lines = LineReader::open(path)?;
        while let Some(v) = lines.next_record(&mut w.stats)? {
            f.record(&v, w).map_err(sql)?;
        }
        f.finish(w).map_err(sql)
    }
}

#[derive(Default)]
struct File<'a> {
    source: &'a str,
    stem: String,
    /// The session of this file, once its first record named it.
    session: Option<String>,
    /// Each record's parent, and the calls each made.
    branches: Branches,
    /// Calls by (tool, arguments), for telemetry-only cancellations.
    by_args: Vec<(String, String, String)>,
    resulted: HashSet<String>,
    /// Failures only the telemetry records: (tool, arguments, words, time).
    told: Vec<(String, String, String, Option<String>)>,
}

impl File<'_> {
    /// The session of the file: a sub-agent's transcript is the session
    /// `<parent>/<file stem>`; a chat is its `sessionId`.
    fn session(&mut self, v: &Value, time: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<String> {
        if let Some(s) = &self.session {
            return Ok(s.clone());
        }
        let id = v.get("sessionId").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or(&self.stem);
        let sidechain = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let (session, parent) =
            if sidechain { (format!("{id}/{}", self.stem), Some(id.to_string())) } else { (id.to_string(), None) };
        if let Some(p) = &parent {
            w.session(&SessionRow { id: p, parent: None, agent: AGENT, source: self.source, started: time })?;
        }
        w.session(&SessionRow {
            id: &session,
            parent: parent.as_deref(),
            agent: AGENT,
            source: self.source,
            started: time,
        })?;
        self.session = Some(session.clone());
        Ok(session)
    }

    fn record(&mut self, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let time = v.get("timestamp").and_then(Value::as_str);
        let uuid = v.get("uuid").and_then(Value::as_str).unwrap_or("").to_string();
        self.branches.entry(&uuid, v.get("parentUuid").and_then(Value::as_str));
        let session = self.session(v, time, w)?;
        let parts = v.get("message").and_then(|m| m.get("parts")).and_then(Value::as_array);
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "assistant" => {
                let usage = v.get("usageMetadata").and_then(Value::as_object).and_then(super::super::usage::qwen).map(
                    |mut u| {
                        u.response =
                            if uuid.is_empty() { format!("{session}#{}", w.stats.calls) } else { uuid.clone() };
                        u.model = v.get("model").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
                        std::sync::Arc::new(u)
                    },
                );
                for call in parts.into_iter().flatten().filter_map(|p| p.get("functionCall")) {
                    let tool =
                        call.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    let input = call.get("args").cloned().unwrap_or(Value::Null);
                    let id = match call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                        Some(id) => {
                            w.call(&session, id, tool, &input, time)?;
                            id.to_string()
                        }
                        None => w.call_without_id(&session, tool, &input, time)?,
                    };
                    if let Some(u) = &usage {
                        w.call_usage(&session, &id, u)?;
                    }
                    self.by_args.push((tool.to_string(), input.to_string(), id.clone()));
                    self.branches.made(&uuid, &id);
                }
            }
            "tool_result" => {
                let result = v.get("toolCallResult");
                let responses = parts.into_iter().flatten().filter_map(|p| p.get("functionResponse"));
                for resp in responses {
                    let id = result
                        .and_then(|r| r.get("callId"))
                        .or_else(|| resp.get("id"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let response = resp.get("response").unwrap_or(&Value::Null);
                    let status = result.and_then(|r| r.get("status")).and_then(Value::as_str);
                    let failed_text = response.get("error").filter(|e| !e.is_null());
                    // A sub-agent stopped by its turn or time limit answers an
                    // empty output under `success`: only its display's
                    // `status: "failed"` (and `terminateReason`) says so. The
                    // status stays the flag (Qwen Code's own telemetry counts
                    // it a success: a hidden error); the display gives the
                    // empty output its words.
                    let display = result.and_then(|r| r.get("resultDisplay")).filter(|d| d.is_object());
                    let display_failed =
                        display.is_some_and(|d| d.get("status").and_then(Value::as_str) == Some("failed"));
                    let (text, flag) = match status {
                        Some("error" | "cancelled") => (text_of(failed_text.or(response.get("output"))), Some(true)),
                        Some(_) if display_failed => {
                            let output = text_of(response.get("output").or(failed_text));
                            let why = display.and_then(|d| d.get("terminateReason")).and_then(Value::as_str);
                            let text = match why {
                                Some(w) if output.trim().is_empty() => format!("Subagent failed: {w}"),
                                _ => output,
                            };
                            (text, Some(false))
                        }
                        Some(_) => (text_of(response.get("output").or(failed_text)), Some(false)),
                        // A sub-agent's result has no status: its `error` key is the flag.
                        None => match failed_text {
                            Some(e) => (text_of(Some(e)), Some(true)),
                            None => (text_of(response.get("output")), None),
                        },
                    };
                    let exit_code = exit_code(&text);
                    self.resulted.insert(id.to_string());
                    w.result(&ResultRow { session: &session, call_id: id, text: &text, flag, exit_code, time })?;
                }
            }
            "system" => {
                let event = v.get("systemPayload").and_then(|p| p.get("uiEvent"));
                if let Some(e) = event
                    && e.get("event.name").and_then(Value::as_str) == Some("qwen-code.tool_call")
                    && matches!(e.get("status").and_then(Value::as_str), Some("error" | "cancelled"))
                {
                    let tool = e.get("function_name").and_then(Value::as_str).unwrap_or("").to_string();
                    let args = e.get("function_args").map(|a| a.to_string()).unwrap_or_default();
                    let words = e.get("error").and_then(Value::as_str).unwrap_or("the tool call failed").to_string();
                    self.told.push((tool, args, words, time.map(str::to_string)));
                }
                w.stats.skipped += 1;
            }
            "user" => {}
            _ => w.stats.skipped += 1,
        }
        Ok(())
    }

    fn finish(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let Some(session) = self.session.clone() else { return Ok(()) };
        // The visible conversation: the chain from the last record.
        let visible = self.branches.visible();
        for call in self.branches.dropped(visible.as_ref()) {
            w.forget_call(&session, call)?;
            self.resulted.insert(call.to_string());
        }
        // Cancellations only the telemetry recorded, matched by tool and arguments.
        for (tool, args, words, time) in std::mem::take(&mut self.told) {
            let same =
                |c: &&(String, String, String)| c.0 == tool && same_args(&c.1, &args) && !self.resulted.contains(&c.2);
            if let Some((_, _, id)) = self.by_args.iter().find(same).cloned() {
                let row = ResultRow {
                    session: &session,
                    call_id: &id,
                    text: &words,
                    flag: Some(true),
                    exit_code: None,
                    time: time.as_deref(),
                };
                w.result(&row)?;
                self.resulted.insert(id);
            }
        }
        Ok(())
    }
}

/// Telemetry keeps the arguments as an object, or as their JSON text.
fn same_args(call: &str, told: &str) -> bool {
    if call == told {
        return true;
    }
    let parse = |s: &str| match serde_json::from_str::<Value>(s) {
        Ok(Value::String(inner)) => serde_json::from_str::<Value>(&inner).ok(),
        other => other.ok(),
    };
    matches!((parse(call), parse(told)), (Some(a), Some(b)) if a == b)
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The exit status of a shell result: its `Exit Code: N` line.
pub(crate) fn exit_code(text: &str) -> Option<i64> {
    text.lines().find_map(|l| l.trim_end().strip_prefix("Exit Code: ").and_then(|n| n.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn qwen_records_are_not_claude_codes() {
        let user = json!({"uuid": "u", "parentUuid": null, "sessionId": "s", "type": "user",
                          "message": {"role": "user", "parts": [{"text": "hi"}]}});
        assert!(is_qwen_record(&user));
        let claude =
            json!({"uuid": "u", "sessionId": "s", "type": "user", "message": {"role": "user", "content": "hi"}});
        assert!(!is_qwen_record(&claude));
        let system = json!({"uuid": "u", "sessionId": "s", "type": "system", "subtype": "slash_command",
                            "systemPayload": {"phase": "invocation"}});
        assert!(is_qwen_record(&system));
    }

    #[test]
    fn telemetry_arguments_match_either_way() {
        assert!(same_args(r#"{"a":1}"#, r#"{"a":1}"#));
        assert!(same_args(r#"{"a":1,"b":2}"#, r#""{\"b\":2,\"a\":1}""#));
        assert!(!same_args(r#"{"a":1}"#, r#"{"a":2}"#));
        assert_eq!(exit_code("Output: x\nExit Code: 1\nSignal: (none)"), Some(1));
        assert_eq!(exit_code("Exit Code: (none)"), None);
    }
}
