//! One hook payload as each agent sends it (docs/guard.md, and the
//! contracts in ../shared/research/hooks-4.md): which agent sent it, which
//! event it is, the call, and for an event after the call the result's
//! text and flag read as that agent's importer reads its transcripts, so
//! that the verdict is the one a later `scan` gives. Also each agent's
//! answer: context added after a result, and the denial of a call.

use serde_json::{Map, Value, json};

use crate::cli::GuardAgent;
use crate::model::Dialect;

/// When the hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Before the call runs (`PreToolUse`, `BeforeTool`, `preToolUse`).
    Before,
    /// After it ran, with its result (`PostToolUse`, `AfterTool`, `postToolUse`).
    After,
    /// After it failed (`PostToolUseFailure`, `postToolUseFailure`).
    AfterFailure,
}

/// The result of a call as the judge reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub text: String,
    pub flag: Option<bool>,
    pub exit_code: Option<i64>,
}

/// One hook event about one call.
#[derive(Debug, Clone)]
pub(crate) struct Hook {
    pub agent: GuardAgent,
    pub moment: Moment,
    pub session: String,
    pub tool: String,
    pub input: Value,
    pub call_id: String,
    /// The result, for the events after a call.
    pub result: Option<Outcome>,
}

/// The agent's name as the guard's log and messages give it.
pub(crate) fn agent_name(agent: GuardAgent) -> &'static str {
    dialect(agent).as_str()
}

/// The dialect of the agent's transcripts: its rules and tool schemas.
pub(crate) fn dialect(agent: GuardAgent) -> Dialect {
    match agent {
        GuardAgent::ClaudeCode => Dialect::CLAUDE_CODE,
        GuardAgent::Codex => Dialect::CODEX,
        GuardAgent::Gemini => Dialect::GEMINI,
        GuardAgent::Copilot => Dialect::COPILOT,
        GuardAgent::Qwen => Dialect::QWEN,
    }
}

/// Read one payload. `Ok(None)`: an event the guard has nothing to do
/// with (a session start, a prompt). `Err`: one line saying what is wrong.
pub(crate) fn parse(bytes: &[u8], agent: Option<GuardAgent>) -> Result<Option<Hook>, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("the hook payload is not JSON ({e})"))?;
    let Value::Object(o) = v else { return Err("the hook payload is not a JSON object".into()) };
    let camel = o.contains_key("toolName") || o.contains_key("toolArgs") || o.contains_key("sessionId");
    let agent = match agent.or_else(|| detect(&o, camel)) {
        Some(a) => a,
        None => return Err("the hook payload names no hook event: pass --agent".into()),
    };
    let str_of = |keys: &[&str]| keys.iter().find_map(|k| o.get(*k).and_then(Value::as_str)).map(str::to_string);
    let event = str_of(&["hook_event_name", "hookEventName"]);
    let has = |k: &str| o.get(k).is_some_and(|v| !v.is_null());
    let moment = match event.as_deref() {
        Some("PreToolUse" | "BeforeTool" | "preToolUse") => Moment::Before,
        Some("PostToolUse" | "AfterTool" | "postToolUse") => Moment::After,
        Some("PostToolUseFailure" | "postToolUseFailure") => Moment::AfterFailure,
        Some(_) => return Ok(None),
        // Copilot CLI's camelCase payloads carry no event name: their fields tell it.
        None if has("toolResult") || has("tool_result") || has("tool_response") => Moment::After,
        None if has("error") => Moment::AfterFailure,
        None if has("toolName") || has("tool_name") => Moment::Before,
        None => return Ok(None),
    };
    let session = str_of(&["session_id", "sessionId"]).filter(|s| !s.is_empty());
    let Some(mut session) = session else { return Err("the hook payload has no session id".into()) };
    // A sub-agent's calls are its own session, as `scan` reads its transcript.
    if let Some(agent_id) = str_of(&["agent_id", "agentId"]).filter(|a| !a.is_empty()) {
        session = format!("{session}/agent-{agent_id}");
    }
    let tool = str_of(&["tool_name", "toolName"]).filter(|s| !s.is_empty());
    let Some(tool) = tool else { return Err("the hook payload has no tool name".into()) };
    let input = o.get("tool_input").or_else(|| o.get("toolArgs")).cloned().unwrap_or(Value::Null);
    let input = crate::source::rows::decode_arguments(input);
    let call_id = str_of(&["tool_use_id", "tool_call_id", "toolCallId"]).unwrap_or_default();
    let result = match moment {
        Moment::Before => None,
        Moment::AfterFailure => Some(failure(o.get("error").unwrap_or(&Value::Null))),
        Moment::After => Some(after(agent, &o)),
    };
    Ok(Some(Hook { agent, moment, session, tool, input, call_id, result }))
}

/// The agent, from the payload's fields (hooks-4.md): Gemini CLI names its
/// events `BeforeTool`/`AfterTool`; Copilot CLI writes camelCase fields or
/// a `tool_result`; Codex sends `turn_id`; Qwen Code `tool_call_id` and a
/// `timestamp`; Claude Code none of these.
fn detect(o: &Map<String, Value>, camel: bool) -> Option<GuardAgent> {
    let event = o.get("hook_event_name").and_then(Value::as_str);
    if camel || o.contains_key("tool_result") {
        return Some(GuardAgent::Copilot);
    }
    match event? {
        "BeforeTool" | "AfterTool" => Some(GuardAgent::Gemini),
        _ if o.contains_key("turn_id") => Some(GuardAgent::Codex),
        _ if o.contains_key("tool_call_id") || o.contains_key("timestamp") => Some(GuardAgent::Qwen),
        _ => Some(GuardAgent::ClaudeCode),
    }
}

/// A failure event's `error`: flagged, its text a string or `message`.
fn failure(error: &Value) -> Outcome {
    let text = match error {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        e => e.get("message").and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_string),
    };
    Outcome { text, flag: Some(true), exit_code: None }
}

/// The result of an event after the call, read as the agent's importer
/// reads the same result in its transcript.
fn after(agent: GuardAgent, o: &Map<String, Value>) -> Outcome {
    let null = Value::Null;
    let response = o.get("tool_response").unwrap_or(&null);
    match agent {
        GuardAgent::ClaudeCode => Outcome { text: response_text(response), flag: Some(false), exit_code: None },
        GuardAgent::Codex => {
            // As import::codex: no flag unless the output writes `success`;
            // the exit code from the output's text.
            let (text, flag) = match response {
                Value::String(s) => (s.clone(), None),
                Value::Array(_) => (response_text(response), None),
                // An MCP tool's `CallToolResult` (`isError`), or the
                // transcript's `{content, success}`.
                Value::Object(r) if r.contains_key("content") => {
                    let flag = r.get("isError").and_then(Value::as_bool);
                    (
                        response_text(&r["content"]),
                        flag.or_else(|| r.get("success").and_then(Value::as_bool).map(|ok| !ok)),
                    )
                }
                Value::Null => (String::new(), None),
                other => (other.to_string(), None),
            };
            let (text, exit_code) = crate::import::codex::exit_status(text);
            Outcome { text, flag, exit_code }
        }
        GuardAgent::Gemini => {
            // The `error` key is the flag, as a recording's `status: error`.
            match response.get("error").filter(|e| !e.is_null()) {
                Some(e) => failure(e),
                None => Outcome {
                    text: gemini_text(response.get("llmContent").unwrap_or(response)),
                    flag: Some(false),
                    exit_code: None,
                },
            }
        }
        GuardAgent::Copilot => {
            let r = o.get("toolResult").or_else(|| o.get("tool_result")).unwrap_or(&null);
            let kind = r.get("resultType").or_else(|| r.get("result_type")).and_then(Value::as_str);
            let text = r
                .get("textResultForLlm")
                .or_else(|| r.get("text_result_for_llm"))
                .map_or_else(|| response_text(r), response_text);
            let exit_code = crate::import::copilot::shell_exit(&text);
            Outcome { text, flag: Some(kind.is_some_and(|k| k != "success")), exit_code }
        }
        GuardAgent::Qwen => {
            let text = match response.get("llmContent") {
                Some(c) => gemini_text(c),
                None => response_text(response),
            };
            let exit_code = crate::import::gemini::qwen::exit_code(&text);
            Outcome { text, flag: Some(false), exit_code }
        }
    }
}

/// Gemini CLI's `llmContent`: a string, a part, or parts (`text`, or a
/// `functionResponse` whose `output` or `error` is the text).
fn gemini_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(gemini_text).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n"),
        Value::Object(p) => {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                return t.to_string();
            }
            match p.get("functionResponse").and_then(|f| f.get("response")) {
                Some(r) => match r.get("output").or_else(|| r.get("error")) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => r.to_string(),
                },
                None => v.to_string(),
            }
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The text of a tool's response as its transcript keeps it: a string; the
/// text of content blocks (MCP, Anthropic), one per line; a shell's stdout
/// then stderr; a file read with its lines numbered as Claude Code shows
/// them; a file written or edited as its confirmation; else the JSON.
pub(crate) fn response_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => {
            let texts: Vec<String> = items
                .iter()
                .filter_map(|i| match i {
                    Value::String(s) => Some(s.clone()),
                    i => i.get("text").and_then(Value::as_str).map(str::to_string),
                })
                .collect();
            if texts.is_empty() && !items.is_empty() { v.to_string() } else { texts.join("\n") }
        }
        Value::Object(o) => {
            if let Some(c @ (Value::Array(_) | Value::String(_))) = o.get("content")
                && !o.contains_key("filePath")
            {
                return response_text(c);
            }
            if o.contains_key("stdout") || o.contains_key("stderr") {
                let part = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").trim_end_matches('\n');
                let (out, err) = (part("stdout"), part("stderr"));
                return match (out.is_empty(), err.is_empty()) {
                    (_, true) => out.to_string(),
                    (true, false) => err.to_string(),
                    (false, false) => format!("{out}\n{err}"),
                };
            }
            if let Some(file) = o.get("file").filter(|f| f.get("content").is_some()) {
                let content = file.get("content").and_then(Value::as_str).unwrap_or("");
                let start = file.get("startLine").and_then(Value::as_u64).unwrap_or(1);
                return content
                    .lines()
                    .zip(start..)
                    .map(|(line, n)| format!("{n:>6}\t{line}"))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            if let Some(path) = o.get("filePath").and_then(Value::as_str) {
                return format!("The file {path} has been updated successfully.");
            }
            v.to_string()
        }
        other => other.to_string(),
    }
}

/// The agent's answer that adds `text` to what the model reads after a
/// result (Copilot CLI reads a top-level `additionalContext` from its
/// `postToolUse` hooks since 1.0.49).
pub(crate) fn context_after(hook: &Hook, text: &str) -> Option<Value> {
    let event = match (hook.agent, hook.moment) {
        (GuardAgent::Copilot, _) => return Some(json!({"additionalContext": text})),
        (GuardAgent::Gemini, _) => "AfterTool",
        (_, Moment::AfterFailure) => "PostToolUseFailure",
        _ => "PostToolUse",
    };
    Some(json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}))
}

/// The agent's answer that lets a call run with `text` added before it;
/// `None` where the agent's pre-call hook has no such field (Gemini CLI's
/// `BeforeTool`). Copilot CLI reads a top-level `additionalContext` from
/// `preToolUse` since 1.0.24.
pub(crate) fn context_before(hook: &Hook, text: &str) -> Option<Value> {
    match hook.agent {
        GuardAgent::Gemini => None,
        GuardAgent::Copilot => Some(json!({"additionalContext": text})),
        _ => Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}})),
    }
}

/// The agent's answer that stops a call before it runs, `reason` going to
/// the model as the tool's error.
pub(crate) fn deny(hook: &Hook, reason: &str) -> Value {
    match hook.agent {
        GuardAgent::Gemini => json!({"decision": "deny", "reason": reason}),
        // Top-level keys, whichever spelling the payload used: the form
        // Copilot CLI's SDK types (`PreToolUseHookOutput`).
        GuardAgent::Copilot => json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
        _ => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
    }
}

/// `denial` that also ends the agent's turn (`continue: false`), the
/// reason shown to the user; `None` where a pre-call hook cannot: Copilot
/// CLI, and Codex, which refuses a `PreToolUse` answer holding `continue`
/// or `stopReason` as invalid and then runs the call (codex-rs
/// `output_parser.rs`), so the denial alone is given.
pub(crate) fn stop(hook: &Hook, denial: Value, said: &str) -> Option<Value> {
    if matches!(hook.agent, GuardAgent::Copilot | GuardAgent::Codex) {
        return None;
    }
    let mut v = denial;
    v["continue"] = Value::Bool(false);
    v["stopReason"] = Value::String(format!("{said} The turn was ended."));
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(v: Value) -> Hook {
        parse(v.to_string().as_bytes(), None).unwrap().unwrap()
    }

    #[test]
    fn each_agent_is_told_from_its_fields() {
        let claude = json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {}, "tool_response": {"stdout": "a", "stderr": ""}, "tool_use_id": "t"});
        assert_eq!(hook(claude).agent, GuardAgent::ClaudeCode);
        let codex = json!({"session_id": "s", "hook_event_name": "PostToolUse", "turn_id": "1",
            "tool_name": "shell", "tool_input": {}, "tool_response": "Exit code: 2\nboom"});
        let codex = hook(codex);
        assert_eq!(codex.agent, GuardAgent::Codex);
        assert_eq!(codex.result.unwrap().exit_code, Some(2));
        let gemini = json!({"session_id": "s", "hook_event_name": "BeforeTool", "tool_name": "read_file",
            "tool_input": {}, "timestamp": "t"});
        assert_eq!(hook(gemini).moment, Moment::Before);
        let copilot = json!({"sessionId": "s", "toolName": "bash", "toolArgs": "{\"command\":\"ls\"}",
            "toolResult": {"resultType": "success", "textResultForLlm": "x"}});
        let copilot = hook(copilot);
        assert_eq!((copilot.agent, copilot.moment), (GuardAgent::Copilot, Moment::After));
        assert_eq!(copilot.input, json!({"command": "ls"}), "toolArgs is a JSON string");
        let qwen = json!({"session_id": "s", "hook_event_name": "PostToolUseFailure", "tool_name": "x",
            "tool_input": {}, "tool_call_id": "c", "error": "boom", "timestamp": "t"});
        let qwen = hook(qwen);
        assert_eq!((qwen.agent, qwen.moment), (GuardAgent::Qwen, Moment::AfterFailure));
        assert_eq!(qwen.result.unwrap(), Outcome { text: "boom".into(), flag: Some(true), exit_code: None });
    }

    #[test]
    fn a_sub_agent_is_its_own_session() {
        let sub = json!({"session_id": "s", "agent_id": "a1", "agent_type": "Explore", "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {}});
        assert_eq!(hook(sub).session, "s/agent-a1");
    }

    #[test]
    fn other_events_are_ignored_and_broken_payloads_refused() {
        let start = json!({"session_id": "s", "hook_event_name": "SessionStart"});
        assert!(parse(start.to_string().as_bytes(), None).unwrap().is_none());
        assert!(parse(b"{not json", None).is_err());
        assert!(parse(b"[1]", None).is_err());
        let nameless = json!({"session_id": "s", "hook_event_name": "PreToolUse"});
        assert_eq!(parse(nameless.to_string().as_bytes(), None).unwrap_err(), "the hook payload has no tool name");
    }

    #[test]
    fn a_codex_mcp_result_is_flagged_by_its_is_error() {
        let payload = |response: Value| {
            let v = json!({"session_id": "s", "turn_id": "t", "hook_event_name": "PostToolUse",
                "tool_name": "mcp__db__query", "tool_input": {}, "tool_response": response});
            after(GuardAgent::Codex, v.as_object().unwrap())
        };
        let failed =
            payload(json!({"content": [{"type": "text", "text": "relation \"x\" does not exist"}], "isError": true}));
        assert_eq!((failed.text.as_str(), failed.flag), ("relation \"x\" does not exist", Some(true)));
        assert_eq!(
            payload(json!({"content": [{"type": "text", "text": "3 rows"}], "isError": false})).flag,
            Some(false)
        );
        assert_eq!(payload(json!({"content": "ok", "success": false})).flag, Some(true), "the transcript's form");
    }

    #[test]
    fn response_texts() {
        assert_eq!(response_text(&json!({"stdout": "out\n", "stderr": "err"})), "out\nerr");
        assert_eq!(
            response_text(&json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})),
            "a\nb"
        );
        assert_eq!(
            response_text(&json!({"type": "text", "file": {"filePath": "/a", "content": "x\ny", "startLine": 3}})),
            "     3\tx\n     4\ty"
        );
        assert_eq!(
            response_text(&json!({"filePath": "/a", "oldString": "x"})),
            "The file /a has been updated successfully."
        );
        assert_eq!(response_text(&json!({"result": "Error: x"})), r#"{"result":"Error: x"}"#);
    }
}
