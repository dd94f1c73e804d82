//! Kiro CLI sessions (`~/.kiro/sessions/cli/<id>.jsonl` with its `<id>.json`
//! metadata; `KIRO_HOME` moves `~/.kiro`), the journal Kiro CLI 2.x writes
//! (read from its source, `crates/chat-cli-v2`, and live recordings).
//!
//! Every line is `{"version": "v1", "kind", "data"}`. A call is a `toolUse`
//! block (`toolUseId`, `name`, `input`) of an `AssistantMessage`; its result
//! the `toolResult` block of the same `toolUseId` in the next `ToolResults`
//! record: `content[]` (`text`, or `json`) is what the model saw and
//! `status` (`success`, `error`) the flag. `status` says whether the tool
//! ran, not how it went: a shell command is a success whatever its
//! `exit_status` (`"exit status: N"`; `use_aws` writes the bare code), and
//! an MCP result with `"isError": true` or a glob answering `{"error": …}`
//! is stored as a success. A call refused at the permission prompt is an
//! `error` whose text is `Tool use was cancelled by the user`.
//!
//! A `Compaction` record repeats earlier calls in its snapshot: they are not
//! read again. Sub-agents run as sessions of their own, whose `<id>.json`
//! names the `parent_session_id`; `/rewind` forks a new session that copies
//! the kept turns (same `toolUseId`s): a call already read in another
//! session is counted once. A `/chat save` export (`{"format":
//! "kiro-session-export-v1", "metadata", "log_entries"}`) is read as the
//! session it holds.

use std::path::Path;

use serde_json::Value;

use super::{ImportRun, Importer, LineReader, ResultRow, SessionRow, Writer};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

pub(crate) struct Kiro;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::KIRO,
    agent: "Kiro CLI sessions (sessions/cli/<id>.jsonl), read through import",
    product: "Kiro CLI",
    signature: "records `{version: \"v1\", kind, data}` (`AssistantMessage` `toolUse`, `ToolResults` `toolResult` by `toolUseId`)",
    flag: "`status` of the toolResult (`error` = flagged; a shell's `exit_status` is kept apart)",
    locations: &[Location::EnvDir("KIRO_HOME", "sessions/cli"), Location::Home(".kiro/sessions/cli")],
    sample: "kiro",
};

const AGENT: &str = Dialect::KIRO.as_str();

const KINDS: &[&str] =
    &["Prompt", "AssistantMessage", "ToolResults", "Compaction", "ResetTo", "CancelledPrompt", "Clear"];

/// A journal record: `version`, `kind` and (most often) `data`, nothing else.
fn is_record(v: &Value) -> bool {
    let Value::Object(o) = v else { return false };
    o.get("version").is_some_and(Value::is_string)
        && o.get("kind").and_then(Value::as_str).is_some_and(|k| KINDS.contains(&k))
        && o.keys().all(|k| matches!(k.as_str(), "version" | "kind" | "data"))
}

fn is_export(doc: &Value) -> bool {
    doc.get("format").and_then(Value::as_str) == Some("kiro-session-export-v1")
}

/// The `<id>.json` beside a journal: its metadata.
fn is_metadata(doc: &Value) -> bool {
    doc.get("session_id").is_some() && doc.get("session_state").is_some()
}

impl Importer for Kiro {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn recognise(&self, v: &Value) -> bool {
        is_record(v)
    }

    fn recognise_document(&self, _path: &Path, doc: &Value) -> bool {
        is_export(doc) || is_metadata(doc)
    }

    fn run(&self) -> Box<dyn ImportRun> {
        Box::new(Kiro)
    }
}

impl ImportRun for Kiro {
    fn file(&mut self, path: &Path, w: &mut Writer<'_>) -> Result<()> {
        let sql = |e: rusqlite::Error| Error::input(path, crate::source::open::sqlite_problem(&e));
        let source = path.display().to_string();
        if super::is_json_document(path) {
            // The metadata is read with its journal; an export is a session.
            match super::read_document(path, &mut w.stats)? {
                Some(doc) if is_export(&doc) => {
                    let meta = doc.get("metadata").cloned().unwrap_or(Value::Null);
                    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("kiro");
                    let mut f = File::new(&source, stem, &meta, w).map_err(sql)?;
                    for entry in doc.get("log_entries").and_then(Value::as_array).into_iter().flatten() {
                        f.record(entry, w).map_err(sql)?;
                    }
                }
                _ => w.stats.skipped += 1,
            }
            return Ok(());
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("kiro");
        let meta = match path.with_extension("json") {
            p if p.is_file() => super::read_document(&p, &mut super::ImportStats::default())?.unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let mut f = File::new(&source, stem, &meta, w).map_err(sql)?;
        let mut lines = LineReader::open(path)?;
        while let Some(v) = lines.next_record(&mut w.stats)? {
            f.record(&v, w).map_err(sql)?;
        }
        Ok(())
    }
}

struct File {
    session: String,
    /// Calls another session made first (a rewind's copies).
    copied: std::collections::HashSet<String>,
}

impl File {
    fn new(source: &str, stem: &str, meta: &Value, w: &mut Writer<'_>) -> rusqlite::Result<File> {
        let said = |k: &str| meta.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        let session = said("session_id").unwrap_or(stem).to_string();
        // A sub-agent names its parent; a rewind's fork does too, but is no sub-agent.
        let rewind = said("session_created_reason").is_some_and(|r| r.eq_ignore_ascii_case("rewind"));
        let parent = said("parent_session_id").filter(|_| !rewind);
        if let Some(p) = parent {
            w.session(&SessionRow { id: p, parent: None, agent: AGENT, source, started: None })?;
        }
        w.session(&SessionRow { id: &session, parent, agent: AGENT, source, started: said("created_at") })?;
        Ok(File { session, copied: Default::default() })
    }

    fn record(&mut self, v: &Value, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let data = &v["data"];
        let time = data.get("meta").and_then(|m| m.get("timestamp")).and_then(Value::as_i64).and_then(iso_time);
        let time = time.as_deref();
        let blocks = data.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let of_kind =
            |kind: &'static str| blocks.iter().filter(move |b| b.get("kind").and_then(Value::as_str) == Some(kind));
        match v.get("kind").and_then(Value::as_str).unwrap_or("") {
            "AssistantMessage" => {
                for block in of_kind("toolUse") {
                    let call = &block["data"];
                    let tool =
                        call.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)");
                    let input = call.get("input").cloned().unwrap_or(Value::Null);
                    match call.get("toolUseId").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                        Some(id) if w.session_of_call(id)?.is_some_and(|s| s != self.session) => {
                            self.copied.insert(id.to_string());
                            w.stats.duplicates += 1;
                        }
                        Some(id) => w.call(&self.session, id, tool, &input, time)?,
                        None => {
                            w.call_without_id(&self.session, tool, &input, time)?;
                        }
                    }
                }
            }
            "ToolResults" => {
                for block in of_kind("toolResult") {
                    let result = &block["data"];
                    let id = result.get("toolUseId").and_then(Value::as_str).unwrap_or("");
                    if self.copied.contains(id) {
                        w.stats.duplicates += 1;
                        continue;
                    }
                    let (text, exit_code) = result_text(result.get("content"));
                    let flag = match result.get("status").and_then(Value::as_str) {
                        Some("error") => Some(true),
                        Some(_) => Some(false),
                        None => None,
                    };
                    w.result(&ResultRow { session: &self.session, call_id: id, text: &text, flag, exit_code, time })?;
                }
            }
            // A compaction's snapshot repeats calls already read; prompts hold none.
            _ => w.stats.skipped += 1,
        }
        Ok(())
    }
}

fn iso_time(secs: i64) -> Option<String> {
    chrono::DateTime::from_timestamp(secs, 0).map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// A result's text and a shell's exit status: text blocks as they are, a
/// shell's `{exit_status, stdout, stderr}` as its output, any other JSON
/// block as its JSON text.
fn result_text(content: Option<&Value>) -> (String, Option<i64>) {
    let mut parts: Vec<String> = Vec::new();
    let mut exit = None;
    for item in content.and_then(Value::as_array).into_iter().flatten() {
        let data = item.get("data").unwrap_or(&Value::Null);
        match (item.get("kind").and_then(Value::as_str), data) {
            (Some("text"), Value::String(s)) => parts.push(s.clone()),
            (Some("json"), Value::Object(o)) if o.contains_key("exit_status") => {
                exit = o.get("exit_status").and_then(Value::as_str).and_then(exit_code);
                for k in ["stdout", "stderr"] {
                    if let Some(s) = o.get(k).and_then(Value::as_str).filter(|s| !s.trim().is_empty()) {
                        parts.push(s.trim_end().to_string());
                    }
                }
            }
            (Some("json"), v) => parts.push(v.to_string()),
            _ => {}
        }
    }
    (parts.join("\n"), exit)
}

/// `exit status: N` (Unix), `exit code: N` (Windows), or a bare code (`use_aws`).
fn exit_code(status: &str) -> Option<i64> {
    let s = status.trim();
    let n = s.strip_prefix("exit status: ").or_else(|| s.strip_prefix("exit code: ")).unwrap_or(s);
    n.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_and_exit_statuses() {
        assert!(is_record(&json!({"version": "v1", "kind": "Prompt", "data": {}})));
        assert!(is_record(&json!({"version": "v1", "kind": "Clear"})));
        assert!(!is_record(&json!({"version": "v1", "kind": "Prompt", "data": {}, "uuid": "x"})));
        assert_eq!(exit_code("exit status: 101"), Some(101));
        assert_eq!(exit_code("255"), Some(255));
        assert_eq!(exit_code("signal: 9 (SIGKILL)"), None);
        let content = json!([{"kind": "json", "data": {"exit_status": "exit status: 1", "stdout": "", "stderr": "cat: x: No such file or directory\n"}}]);
        assert_eq!(result_text(Some(&content)), ("cat: x: No such file or directory".to_string(), Some(1)));
    }
}
