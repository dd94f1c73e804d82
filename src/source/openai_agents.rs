//! The OpenAI Agents SDK's session stores (`SQLiteSession`,
//! `AsyncSQLiteSession`, `SQLAlchemySession`, `AdvancedSQLiteSession`),
//! which exist as files only when the application passes a path (the
//! default is `:memory:`); sessions arrived in SDK v0.2.0 (2025-07-15).
//!
//! One Responses-API input item per row, as JSON text in `message_data` of
//! `agent_messages` (the table names are constructor arguments: any table
//! with `session_id` and `message_data` is read when the default one is
//! absent). Calls are `function_call` items (arguments a JSON string),
//! results `function_call_output` items linked by `call_id`; shell,
//! apply-patch, computer and custom tools pair the same way, hosted tools
//! (`mcp_call`, `web_search_call`, …) are call and result in one item.
//!
//! Function tools have **no error flag**: a failing tool becomes a normal
//! output string (`An error occurred while running the tool. …`), so the
//! content rules alone decide. The flags that exist are kept: `mcp_call.error`,
//! `apply_patch_call_output.status = "failed"`, a hosted call's
//! `status = "failed"`, and a shell command's exit code. `EncryptedSession`
//! items cannot be read without the key: each is a counted malformed row.

use rusqlite::Connection;
use serde_json::Value;

use super::rows::{
    SessionIndex, Stream, decode_arguments, emit, id_of, opt_int, parse_column, stream_by_session, time_of,
};
use super::{Adapter, FormatInfo, ReadContext, ReadError, ReadResult, Schema, columns};
use crate::model::{Call, Dialect, Event, ToolResult, text_ends};

pub(crate) struct OpenAiAgents;

static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::OPENAI_AGENTS,
    agent: "OpenAI Agents SDK sessions (SQLiteSession, SQLAlchemySession, AdvancedSQLiteSession)",
    product: "OpenAI Agents SDK",
    signature: "`agent_messages` with `session_id` and `message_data` (or, with custom table names, any table with those columns); \
                no default file: sessions are in memory unless the application names one",
    flag: "none for function tools (failures are text: `An error occurred while running the tool`); `mcp_call.error`, \
           `apply_patch_call_output.status = \"failed\"`, a hosted call's `status = \"failed\"`, shell exit codes",
    // In memory unless the application names a file (the docs use `conversations.db`).
    locations: &[],
    sample: "openai-agents.db",
};

/// The default table of items.
const DEFAULT_TABLE: &str = "agent_messages";

/// The table of items: the default one, else the first (by name) with the
/// columns a session store has.
fn items_table(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let has = |t: &str| -> rusqlite::Result<bool> {
        let cols = columns(conn, t)?;
        Ok(["session_id", "message_data"].iter().all(|w| cols.iter().any(|c| c == w)))
    };
    if has(DEFAULT_TABLE)? {
        return Ok(Some(DEFAULT_TABLE.to_string()));
    }
    let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    for name in names {
        if has(&name)? {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

const SESSIONS: &str = "SELECT session_id, NULL, min(created_at) FROM agent_messages GROUP BY session_id";
const ROWS: &str = "SELECT session_id, id, message_data, created_at FROM agent_messages ORDER BY session_id, id";

/// The statements for a store whose application renamed the items table.
/// The one place a name goes into SQL: it is a table name this database
/// lists in `sqlite_master`, of letters, digits and underscores only (the
/// SDK's names are Python identifiers), and it is quoted; anything else is
/// refused. No text from the command line or from rows is ever used.
fn custom_statements(conn: &Connection, table: &str) -> ReadResult<(String, String)> {
    let plain = !table.is_empty()
        && table.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !table.as_bytes()[0].is_ascii_digit();
    if !plain {
        return Err(ReadError::Unsupported(format!(
            "OpenAI Agents SDK items table {:?} has a name falseok does not read",
            crate::sanitize::one_line(table)
        )));
    }
    let cols = columns(conn, table)?;
    let has = |c: &str| cols.iter().any(|h| h == c);
    let order = if has("id") { "id" } else { "rowid" };
    let created = if has("created_at") { "created_at" } else { "NULL" };
    let sessions = SESSIONS_OF.replace("$created", created).replace("$table", table);
    let rows = ROWS_OF.replace("$order", order).replace("$created", created).replace("$table", table);
    Ok((sessions, rows))
}

const SESSIONS_OF: &str = "SELECT session_id, NULL, min($created) FROM \"$table\" GROUP BY session_id";
const ROWS_OF: &str = "SELECT session_id, $order, message_data, $created FROM \"$table\" ORDER BY session_id, $order";

impl Adapter for OpenAiAgents {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    fn matches(&self, s: &Schema<'_>) -> rusqlite::Result<bool> {
        Ok(items_table(s.conn)?.is_some())
    }

    fn read(&self, conn: &Connection, cx: &mut ReadContext<'_>) -> ReadResult<()> {
        let Some(table) = items_table(conn)? else { return Ok(()) };
        let cols = columns(conn, &table)?;
        let standard = ["id", "created_at"].iter().all(|w| cols.iter().any(|c| c == w));
        let (sessions, rows) = if table == DEFAULT_TABLE && standard {
            (SESSIONS.to_string(), ROWS.to_string())
        } else {
            custom_statements(conn, &table)?
        };
        let index = SessionIndex::load(conn, &sessions)?;
        let stream = Stream { dialect: INFO.dialect, index: &index, sql: &rows };
        stream_by_session(
            conn,
            cx,
            stream,
            |r, session| {
                let row = opt_int(r.get_ref(1)?).unwrap_or(0);
                let time = time_of(r.get_ref(3)?);
                parse_column(r.get_ref(2)?, "message_data", row, session, |text, out| {
                    let item: Value =
                        serde_json::from_str(text).map_err(|e| format!("message_data is invalid JSON: {e}"))?;
                    parse_item(item, time, row, out)?;
                    accepted_handoff_first(out);
                    Ok(())
                });
                Ok(())
            },
            emit,
        )?;
        Ok(())
    }
}

/// What the SDK answers each handoff of a turn but the first, when the
/// model asked for several (`run_internal/turn_resolution.py`).
const IGNORED_HANDOFF: &str = "Multiple handoffs detected, ignoring this one.";

/// The SDK stores the ignored handoffs' outputs first, then the accepted
/// one's (the first call's: `Handoff.get_transfer_message`,
/// `{"assistant": "<agent name>"}`). With call ids they pair by id; a
/// provider that gives none (some LiteLLM models) leaves them to pair in
/// order, which would give the first call the first refusal. So an
/// accepted handoff's output without an id, just stored after such
/// refusals without ids, is moved before them.
fn accepted_handoff_first(out: &mut [Event]) {
    let no_id =
        |e: &Event, text: &dyn Fn(&str) -> bool| matches!(e, Event::Result(r) if r.call_id.is_empty() && text(&r.text));
    let transfer = |t: &str| {
        serde_json::from_str::<serde_json::Map<String, Value>>(t)
            .is_ok_and(|o| o.len() == 1 && o.get("assistant").is_some_and(Value::is_string))
    };
    let Some(last) = out.len().checked_sub(1) else { return };
    if !no_id(&out[last], &transfer) {
        return;
    }
    let mut first = last;
    while first > 0 && no_id(&out[first - 1], &|t| t == IGNORED_HANDOFF) {
        first -= 1;
    }
    out[first..].rotate_right(1);
}

/// The call or result (or both) in one stored item, appended to `out`.
pub(crate) fn parse_item(
    item: Value,
    time: Option<chrono::DateTime<chrono::Utc>>,
    row: i64,
    out: &mut Vec<Event>,
) -> Result<(), String> {
    let Value::Object(mut item) = item else { return Err("message_data is not a JSON object".into()) };
    if item.contains_key("__enc__") {
        return Err("encrypted item (EncryptedSession): unreadable without its key".into());
    }
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    let call_id = id_of(item.get("call_id").or_else(|| item.get("id")));
    let result = |call_id: String, full: String, flag: Option<bool>, exit_code: Option<i64>| {
        let truncated = full.len() > 2 * crate::model::TEXT_CAP;
        let text = text_ends(&full).into_owned();
        Event::Result(ToolResult { call_id, text, truncated, flag, exit_code, time, row })
    };
    let name = |item: &serde_json::Map<String, Value>| {
        item.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("(unnamed)").to_string()
    };
    match kind.as_str() {
        "function_call" => {
            let input = decode_arguments(item.remove("arguments").unwrap_or(Value::Null)).into();
            out.push(Event::Call(Call { id: call_id.clone(), tool: name(&item), input, time, row, usage: None }));
        }
        "custom_tool_call" => {
            let input = item.remove("input").unwrap_or(Value::Null).into();
            out.push(Event::Call(Call { id: call_id.clone(), tool: name(&item), input, time, row, usage: None }));
        }
        "shell_call" | "local_shell_call" => {
            // The command line, where the benign-exit rules look for it.
            let action = item.get("action").cloned().unwrap_or(Value::Null);
            let commands = action.get("commands").or_else(|| action.get("command")).cloned();
            let command = match commands {
                Some(Value::Array(parts)) => {
                    let lines: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                    Value::String(lines.join(if kind == "shell_call" { " && " } else { " " }))
                }
                Some(v) => v,
                None => Value::Null,
            };
            let input = serde_json::json!({ "command": command });
            let tool = if kind == "shell_call" { "shell" } else { "local_shell" };
            out.push(Event::Call(Call {
                id: call_id.clone(),
                tool: tool.into(),
                input: input.into(),
                time,
                row,
                usage: None,
            }));
        }
        "apply_patch_call" => {
            let input = item.remove("operation").unwrap_or(Value::Null);
            out.push(Event::Call(Call {
                id: call_id.clone(),
                tool: "apply_patch".into(),
                input: input.into(),
                time,
                row,
                usage: None,
            }));
        }
        "computer_call" => {
            let input = item.remove("action").unwrap_or(Value::Null);
            out.push(Event::Call(Call {
                id: call_id.clone(),
                tool: "computer".into(),
                input: input.into(),
                time,
                row,
                usage: None,
            }));
        }
        "function_call_output" | "custom_tool_call_output" | "computer_call_output" | "local_shell_call_output" => {
            let text = output_text(item.get("output").unwrap_or(&Value::Null));
            out.push(result(call_id.clone(), text, None, None));
        }
        "apply_patch_call_output" => {
            let text = output_text(item.get("output").unwrap_or(&Value::Null));
            let flag = match item.get("status").and_then(Value::as_str) {
                Some("failed") => Some(true),
                Some("completed") => Some(false),
                _ => None,
            };
            out.push(result(call_id.clone(), text, flag, None));
        }
        "shell_call_output" => {
            let (text, exit_code) = shell_output(item.get("output").unwrap_or(&Value::Null));
            out.push(result(call_id.clone(), text, None, exit_code));
        }
        "mcp_call" => {
            let id = id_of(item.get("id"));
            let server = item.get("server_label").and_then(Value::as_str).unwrap_or("");
            let tool = if server.is_empty() { name(&item) } else { format!("{server}.{}", name(&item)) };
            let input = decode_arguments(item.remove("arguments").unwrap_or(Value::Null));
            out.push(Event::Call(Call { id: id.clone(), tool, input: input.into(), time, row, usage: None }));
            let (text, flag) = match item.get("error") {
                Some(Value::Null) | None => (output_text(item.get("output").unwrap_or(&Value::Null)), false),
                Some(e) => (output_text(e), true),
            };
            out.push(result(id, text, Some(flag), None));
        }
        k if k.ends_with("_call") && !k.is_empty() => {
            // Hosted tools (web_search_call, file_search_call, code_interpreter_call,
            // image_generation_call): call and outcome in one item.
            let id = id_of(item.get("id"));
            let tool = k.trim_end_matches("_call").to_string();
            let input = item.get("action").or_else(|| item.get("queries")).cloned().unwrap_or(Value::Null);
            out.push(Event::Call(Call { id: id.clone(), tool, input: input.into(), time, row, usage: None }));
            let status = item.get("status").and_then(Value::as_str).unwrap_or("");
            let flag = match status {
                "failed" => Some(true),
                "completed" => Some(false),
                _ => None,
            };
            out.push(result(id, status.to_string(), flag, None));
        }
        _ => {}
    }
    Ok(())
}

/// An output: a string, or the text of its `input_text` (or `output_text`) parts.
fn output_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            texts.join("\n")
        }
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// A shell call's outputs: stdout and stderr of every command, and the
/// first non-zero exit code (else 0 when one was recorded).
fn shell_output(v: &Value) -> (String, Option<i64>) {
    let Value::Array(outputs) = v else { return (output_text(v), None) };
    let mut text = Vec::new();
    let mut code: Option<i64> = None;
    for o in outputs {
        for k in ["stdout", "stderr"] {
            if let Some(s) = o.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()) {
                text.push(s.trim_end().to_string());
            }
        }
        let outcome = o.get("outcome");
        if let Some(c) = outcome.and_then(|o| o.get("exit_code")).and_then(Value::as_i64)
            && code.is_none_or(|have| have == 0)
        {
            code = Some(c);
        }
        if outcome.and_then(|o| o.get("type")).and_then(Value::as_str) == Some("timeout") {
            text.push("Command timed out.".into());
        }
    }
    (text.join("\n"), code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(items: &[&str]) -> (Vec<Event>, Vec<String>) {
        let mut out = vec![];
        let mut errs = vec![];
        for (i, t) in items.iter().enumerate() {
            if let Err(e) = parse_item(serde_json::from_str(t).unwrap(), None, i as i64, &mut out) {
                errs.push(e);
            }
        }
        (out, errs)
    }

    #[test]
    fn several_handoffs_without_ids_pair_as_the_sdk_answered_them() {
        // Three handoffs of one turn, no call ids: the SDK stores the two
        // refusals, then the accepted (first) one's transfer message.
        let call =
            |name: &str| format!(r#"{{"type":"function_call","call_id":"","name":"{name}","arguments":"{{}}"}}"#);
        let output =
            |text: &str| serde_json::json!({"type": "function_call_output", "call_id": "", "output": text}).to_string();
        let items = [
            call("transfer_to_billing"),
            call("transfer_to_refunds"),
            call("transfer_to_faq"),
            output(IGNORED_HANDOFF),
            output(IGNORED_HANDOFF),
            output(r#"{"assistant": "Billing"}"#),
        ];
        let mut out = vec![];
        for (i, t) in items.iter().enumerate() {
            parse_item(serde_json::from_str(t).unwrap(), None, i as i64, &mut out).unwrap();
            accepted_handoff_first(&mut out);
        }
        let session = crate::model::Session { id: "s".into(), events: out, ..Default::default() };
        let judged = crate::judge::judge(session);
        let verdicts: Vec<(&str, bool)> = judged
            .calls
            .iter()
            .map(|c| (c.tool.as_str(), c.result.as_ref().is_some_and(|r| r.text == IGNORED_HANDOFF)))
            .collect();
        assert_eq!(
            verdicts,
            [("transfer_to_billing", false), ("transfer_to_refunds", true), ("transfer_to_faq", true)]
        );
        // With ids, or a transfer message alone, nothing moves.
        let mut alone = vec![];
        parse_item(serde_json::from_str(&output(r#"{"assistant": "B"}"#)).unwrap(), None, 0, &mut alone).unwrap();
        accepted_handoff_first(&mut alone);
        assert_eq!(alone.len(), 1);
    }

    #[test]
    fn function_calls_pair_by_call_id_without_a_flag() {
        let (ev, errs) = parse(&[
            r#"{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}"#,
            r#"{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"An error occurred while running the tool. Please try again. Error: boom"}]}"#,
        ]);
        assert!(errs.is_empty());
        match (&ev[0], &ev[1]) {
            (Event::Call(c), Event::Result(r)) => {
                assert_eq!(
                    (c.id.as_str(), c.tool.as_str(), &c.input["city"]),
                    ("call_1", "get_weather", &Value::from("Oslo"))
                );
                assert_eq!((r.call_id.as_str(), r.flag), ("call_1", None));
                assert!(r.text.starts_with("An error occurred"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn encrypted_items_are_not_guessed() {
        let (ev, errs) = parse(&[r#"{"__enc__":1,"v":1,"kid":"hkdf-v1","payload":"gAAAAB..."}"#]);
        assert!(ev.is_empty());
        assert!(errs[0].contains("encrypted"), "{errs:?}");
    }

    #[test]
    fn shell_exit_codes_and_hosted_flags() {
        let (ev, _) = parse(&[
            r#"{"type":"shell_call","call_id":"s1","action":{"commands":["cargo test"]},"status":"completed"}"#,
            r#"{"type":"shell_call_output","call_id":"s1","output":[{"stdout":"","stderr":"error[E0425]","outcome":{"type":"exit","exit_code":101}}]}"#,
            r#"{"type":"mcp_call","id":"mcp_1","server_label":"gh","name":"get_issue","arguments":"{}","output":null,"error":"404"}"#,
            r#"{"type":"web_search_call","id":"ws_1","status":"failed","action":{"query":"x"}}"#,
        ]);
        let results: Vec<(String, Option<bool>, Option<i64>)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some((r.call_id.clone(), r.flag, r.exit_code)),
                _ => None,
            })
            .collect();
        assert_eq!(
            results,
            vec![("s1".into(), None, Some(101)), ("mcp_1".into(), Some(true), None), ("ws_1".into(), Some(true), None)]
        );
        assert!(matches!(&ev[0], Event::Call(c) if c.input["command"] == "cargo test"));
    }
}
