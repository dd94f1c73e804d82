//! Simon Willison's `llm` (`logs.db` in its user directory, which
//! `LLM_USER_PATH` overrides and `llm logs path` prints).
//!
//! One file can hold two generations:
//! - the legacy tables (0.26–0.31): `tool_calls` and `tool_results` hang off
//!   different `responses` of one conversation and are linked by
//!   `tool_call_id` (NULL when the plugin gave none: then the n-th call of a
//!   tool pairs with the n-th result of that tool). The flag is the
//!   `exception` column, which only exists from 0.27 on; before that the
//!   source records no flag (`None`).
//! - the 0.32 message store: a thread points at its tip message and the
//!   conversation is the chain of `parent_hash` links back to the root.
//!   `tool_call` / `tool_result` parts carry JSON payloads; the flag is the
//!   payload's `exception` key. A forked thread only counts the messages
//!   its parent thread does not already have.
//!
//! A conversation present in both generations is one session: calls the
//! store has are taken from the store, the rest from the legacy tables, so
//! nothing is counted twice. Rows are streamed in conversation order; one
//! conversation's events are in memory at a time.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, decode_arguments, id_of, iso_time, opt_text, pick_query, stream_by_session, text_of,
};
use super::{Adapter, FormatInfo, Location, ReadContext, ReadError, ReadResult, Schema};
use crate::model::{Call, Dialect, Event, Malformed, Session, ToolResult};

pub(crate) struct Llm;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::LLM,
    agent: "llm (Simon Willison's CLI)",
    product: "llm",
    signature: "table `_llm_migrations`; legacy `tool_calls`/`tool_results` and/or the 0.32 store `threads`/`messages(hash)`/`parts(payload)`",
    flag: "`tool_results.exception` (0.27+; absent before, so no flag) or the `exception` key of a tool_result payload",
    locations: &[
        Location::EnvDir("LLM_USER_PATH", "logs.db"),
        Location::XdgConfig("io.datasette.llm/logs.db"),
        Location::Home("Library/Application Support/io.datasette.llm/logs.db"),
    ],
    sample: "llm.db",
};

/// The legacy rows, by the columns `tool_results` has: before 0.27 it has
/// no `exception` column, so there is no flag at all.
const LEGACY: &[(&[&str], &str)] = &[(&["exception"], LEGACY_WITH_EXCEPTION), (&[], LEGACY_WITHOUT_EXCEPTION)];

/// The threads of the 0.32 store, with their time where it is recorded.
const THREADS: &[(&[&str], &str)] =
    &[(&["datetime_utc"], "SELECT id, datetime_utc FROM threads"), (&[], "SELECT id, NULL FROM threads")];

/// The chain of a thread, with or without forks.
const CHAINS: &[(&[&str], &str)] = &[(&["forked_from"], CHAIN_WITH_FORKS), (&[], CHAIN)];

const LEGACY_WITH_EXCEPTION: &str = "\
SELECT coalesce(nullif(r.conversation_id, ''), '(no conversation)'), r.datetime_utc, 0, tc.id, tc.name, tc.tool_call_id, tc.arguments, NULL, 1
  FROM tool_calls tc JOIN responses r ON r.id = tc.response_id
UNION ALL
SELECT coalesce(nullif(r.conversation_id, ''), '(no conversation)'), r.datetime_utc, 1, tr.id, tr.name, tr.tool_call_id, tr.output, tr.exception, 1
  FROM tool_results tr JOIN responses r ON r.id = tr.response_id
ORDER BY 1, 2, 3, 4";

/// Before 0.27 `tool_results` has no `exception` column: no flag at all.
const LEGACY_WITHOUT_EXCEPTION: &str = "\
SELECT coalesce(nullif(r.conversation_id, ''), '(no conversation)'), r.datetime_utc, 0, tc.id, tc.name, tc.tool_call_id, tc.arguments, NULL, 0
  FROM tool_calls tc JOIN responses r ON r.id = tc.response_id
UNION ALL
SELECT coalesce(nullif(r.conversation_id, ''), '(no conversation)'), r.datetime_utc, 1, tr.id, tr.name, tr.tool_call_id, tr.output, NULL, 0
  FROM tool_results tr JOIN responses r ON r.id = tr.response_id
ORDER BY 1, 2, 3, 4";

/// The tool parts of one thread's chain, root first; for a fork, without
/// the messages of the thread it was forked from. Depth is capped so that a
/// damaged (cyclic) chain ends.
const CHAIN_WITH_FORKS: &str = "\
WITH RECURSIVE
  chain(hash, parent_hash, depth) AS (
    SELECT m.hash, m.parent_hash, 0 FROM threads t JOIN messages m ON m.hash = t.tip_message_hash WHERE t.id = ?1
    UNION ALL
    SELECT m.hash, m.parent_hash, c.depth + 1 FROM chain c JOIN messages m ON m.hash = c.parent_hash
     WHERE c.depth < 1000000),
  base(hash, parent_hash) AS (
    SELECT m.hash, m.parent_hash FROM threads t JOIN messages m ON m.hash = t.tip_message_hash
     WHERE t.id = (SELECT forked_from FROM threads WHERE id = ?1)
    UNION
    SELECT m.hash, m.parent_hash FROM base b JOIN messages m ON m.hash = b.parent_hash)
SELECT p.id, p.type, p.tool_name, p.payload FROM chain c JOIN parts p ON p.message_hash = c.hash
 WHERE p.type IN ('tool_call', 'tool_result') AND c.hash NOT IN (SELECT hash FROM base)
 ORDER BY c.depth DESC, p.position";

const CHAIN: &str = "\
WITH RECURSIVE
  chain(hash, parent_hash, depth) AS (
    SELECT m.hash, m.parent_hash, 0 FROM threads t JOIN messages m ON m.hash = t.tip_message_hash WHERE t.id = ?1
    UNION ALL
    SELECT m.hash, m.parent_hash, c.depth + 1 FROM chain c JOIN messages m ON m.hash = c.parent_hash
     WHERE c.depth < 1000000)
SELECT p.id, p.type, p.tool_name, p.payload FROM chain c JOIN parts p ON p.message_hash = c.hash
 WHERE p.type IN ('tool_call', 'tool_result')
 ORDER BY c.depth DESC, p.position";

struct Store {
    chain_sql: &'static str,
    /// Thread id → its `datetime_utc`.
    threads: BTreeMap<String, Option<String>>,
}

impl Adapter for Llm {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        s.has("_llm_migrations", &["name"])
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let views =
            super::views_among(conn, &["threads", "messages", "parts", "responses", "tool_calls", "tool_results"])?;
        if !views.is_empty() {
            let names: Vec<String> = views.iter().map(|v| format!("`{v}`")).collect();
            return Err(ReadError::Unsupported(format!(
                "the llm trace tables are views here ({}): not read, since a view can run without end \
                 (falseok reads tables)",
                names.join(", ")
            )));
        }
        let schema = Schema::new(conn);
        let store = if schema.has("threads", &["id", "tip_message_hash"])?
            && schema.has("messages", &["hash", "parent_hash"])?
            && schema.has("parts", &["id", "message_hash", "position", "type", "tool_name", "payload"])?
        {
            Some(Store {
                chain_sql: pick_query(conn, "threads", CHAINS)?.unwrap_or(CHAIN),
                threads: read_threads(conn)?,
            })
        } else {
            None
        };
        let legacy = schema.has("responses", &["id", "conversation_id", "datetime_utc"])?
            && schema.has("tool_calls", &["id", "response_id", "name", "tool_call_id", "arguments"])?
            && schema.has("tool_results", &["id", "response_id", "name", "tool_call_id", "output"])?;
        // Conversations of the legacy tables already read with their thread.
        let mut done: HashSet<String> = HashSet::new();
        if legacy {
            let sql = pick_query(conn, "tool_results", LEGACY)?.unwrap_or(LEGACY_WITHOUT_EXCEPTION);
            let conversations: i64 =
                conn.query_row("SELECT count(DISTINCT conversation_id) FROM responses", [], |r| r.get(0))?;
            cx.expect_sessions(conversations.max(0) as u64 + store.as_ref().map_or(0, |s| s.threads.len() as u64));
            let index = SessionIndex::default();
            // Per (kind, tool): how many id-less rows so far in this conversation.
            let mut unnamed: HashMap<(i64, String), usize> = HashMap::new();
            let mut current = String::new();
            stream_by_session(
                conn,
                cx,
                Stream { dialect: INFO.dialect, index: &index, sql },
                |r, session| {
                    if session.id != current {
                        unnamed.clear();
                        current.clone_from(&session.id);
                    }
                    legacy_row(r, session, &mut unnamed)
                },
                |session, cx| merge(conn, store.as_ref(), session, &mut done, cx),
            )?;
        } else if let Some(store) = &store {
            cx.expect_sessions(store.threads.len() as u64);
        }
        if let Some(store) = &store {
            for (id, time) in store.threads.iter().filter(|(id, _)| !done.contains(*id)) {
                if cx.wants(id, false) {
                    let started = time.as_deref().and_then(iso_time);
                    let mut session = Session { id: id.clone(), dialect: INFO.dialect, started, ..Session::default() };
                    let rows = read_chain(conn, store.chain_sql, id, &mut session)?;
                    cx.rows(rows);
                    cx.emit(session);
                }
                cx.session_done();
            }
        }
        Ok(())
    }

    /// llm stores the tools it offered, with their JSON Schemas.
    fn tool_schemas(&self, conn: &Connection) -> rusqlite::Result<Vec<(String, Value)>> {
        let cols = super::columns(conn, "tools")?;
        if !["name", "input_schema"].iter().all(|c| cols.iter().any(|x| x == c)) {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare("SELECT name, input_schema FROM tools WHERE name IS NOT NULL ORDER BY id")?;
        let mut rows = stmt.query([])?;
        let mut out: BTreeMap<String, Value> = BTreeMap::new();
        while let Some(r) = rows.next()? {
            let schema = opt_text(r.get_ref(1)?).and_then(|s| super::json::parse_bounded(&s).ok());
            if let Some(v) = schema.filter(Value::is_object) {
                out.insert(text_of(r.get_ref(0)?), v);
            }
        }
        Ok(out.into_iter().collect())
    }
}

/// One row of the legacy tables: a call or a result of the conversation.
fn legacy_row(r: &Row<'_>, session: &mut Session, unnamed: &mut HashMap<(i64, String), usize>) -> rusqlite::Result<()> {
    let time = opt_text(r.get_ref(1)?).and_then(|t| iso_time(&t));
    if session.events.is_empty() {
        session.started = time;
    }
    let kind: i64 = r.get(2)?;
    let row: i64 = r.get(3)?;
    let name = opt_text(r.get_ref(4)?).unwrap_or_else(|| "(unnamed)".into());
    let id = match opt_text(r.get_ref(5)?) {
        Some(id) => id,
        None => {
            let n = unnamed.entry((kind, name.clone())).or_default();
            *n += 1;
            format!("#{name}#{n}")
        }
    };
    let body = text_of(r.get_ref(6)?);
    if kind == 0 {
        let input = decode_arguments(Value::String(body));
        session.events.push(Event::Call(Call { id, tool: name, input: input.into(), time, row, usage: None }));
    } else {
        let flag_known: i64 = r.get(8)?;
        let exception = !matches!(r.get_ref(7)?, ValueRef::Null);
        let flag = (flag_known == 1).then_some(exception);
        session.events.push(Event::Result(ToolResult {
            truncated: false,
            call_id: id,
            text: body,
            flag,
            exit_code: None,
            time,
            row,
        }));
    }
    Ok(())
}

fn read_threads(conn: &Connection) -> ReadResult<BTreeMap<String, Option<String>>> {
    let sql = pick_query(conn, "threads", THREADS)?.unwrap_or("SELECT id, NULL FROM threads");
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    let mut out = BTreeMap::new();
    while let Some(r) = rows.next()? {
        out.insert(text_of(r.get_ref(0)?), opt_text(r.get_ref(1)?));
    }
    Ok(out)
}

/// Hand on a legacy conversation, merged with the store's thread of the
/// same id (whose calls win over the legacy copies of the same call ids).
fn merge(
    conn: &Connection,
    store: Option<&Store>,
    mut session: Session,
    done: &mut HashSet<String>,
    cx: &mut ReadContext<'_>,
) -> rusqlite::Result<()> {
    if let Some(store) = store.filter(|s| s.threads.contains_key(&session.id)) {
        let mut newer = Session::default();
        cx.rows(read_chain(conn, store.chain_sql, &session.id, &mut newer)?);
        let ids: HashSet<String> = newer
            .events
            .iter()
            .map(|e| match e {
                Event::Call(c) => c.id.clone(),
                Event::Result(r) => r.call_id.clone(),
            })
            .collect();
        session.events.retain(|e| match e {
            Event::Call(c) => !ids.contains(&c.id),
            Event::Result(r) => !ids.contains(&r.call_id),
        });
        session.events.append(&mut newer.events);
        session.malformed.append(&mut newer.malformed);
        done.insert(session.id.clone());
    }
    if !session.events.is_empty() || !session.malformed.is_empty() {
        cx.emit(session);
    }
    Ok(())
}

/// Append the tool parts of thread `id`'s chain to `session`; returns the
/// number of parts read.
fn read_chain(conn: &Connection, query: &str, id: &str, session: &mut Session) -> rusqlite::Result<u64> {
    let mut stmt = conn.prepare(query)?;
    let mut rows = stmt.query([id])?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        n += 1;
        let row: i64 = r.get(0)?;
        let kind = text_of(r.get_ref(1)?);
        let tool = opt_text(r.get_ref(2)?);
        match parse_payload(&kind, tool, &text_of(r.get_ref(3)?), row) {
            Ok(ev) => session.events.push(ev),
            Err(problem) => session.malformed.push(Malformed { row, problem, skipped: true, file: None }),
        }
    }
    Ok(n)
}

/// One `tool_call` or `tool_result` part of the message store.
pub fn parse_payload(kind: &str, tool: Option<String>, payload: &str, row: i64) -> Result<Event, String> {
    super::json::check_size(payload.as_bytes()).map_err(|e| format!("payload {e}"))?;
    let value: Value = serde_json::from_str(payload).map_err(|e| format!("payload is invalid JSON: {e}"))?;
    let Value::Object(mut p) = value else { return Err("payload is not a JSON object".into()) };
    let id = id_of(p.get("tool_call_id"));
    let name = tool.or_else(|| p.get("name").and_then(Value::as_str).map(str::to_string));
    if kind == "tool_call" {
        let input = decode_arguments(p.remove("arguments").unwrap_or(Value::Null));
        let tool = name.unwrap_or_else(|| "(unnamed)".into());
        Ok(Event::Call(Call { id, tool, input: input.into(), time: None, row, usage: None }))
    } else {
        let text = match p.get("output") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let flag = Some(p.get("exception").is_some_and(|e| !e.is_null()));
        Ok(Event::Result(ToolResult { truncated: false, call_id: id, text, flag, exit_code: None, time: None, row }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads() {
        let call = parse_payload(
            "tool_call",
            Some("list_dir".into()),
            r#"{"name": "list_dir", "arguments": {"path": "/datax"}, "tool_call_id": "call_1"}"#,
            1,
        )
        .unwrap();
        assert!(matches!(call, Event::Call(c) if c.id == "call_1" && c.input["path"] == "/datax"));
        let err = parse_payload(
            "tool_result",
            None,
            r#"{"name": "list_dir", "output": "Error: nope", "tool_call_id": "call_1", "exception": "FileNotFoundError: nope"}"#,
            2,
        )
        .unwrap();
        assert!(matches!(err, Event::Result(r) if r.flag == Some(true) && r.text == "Error: nope"));
        let ok = parse_payload("tool_result", None, r#"{"output": "ok", "tool_call_id": "c"}"#, 3).unwrap();
        assert!(matches!(ok, Event::Result(r) if r.flag == Some(false)));
        assert!(parse_payload("tool_result", None, "nope", 4).is_err());
    }
}
