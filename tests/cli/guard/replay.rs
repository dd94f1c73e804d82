//! The guard replays every call of a shipped sample (Claude Code, Codex,
//! Gemini CLI, Copilot CLI, Qwen Code) through its hooks and checks each
//! verdict against `export`'s, and `scan`'s report of the interventions.

use std::path::Path;

use serde_json::{Value, json};

use super::*;

/// A sample's calls by id, as written: (input, the fields of the hook
/// event that carries its result). The tool's name is export's.
type Replayed = std::collections::HashMap<String, (Value, Value)>;

/// Every JSON line of every `.jsonl` file under `dir` (broken lines skipped).
fn lines_of(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for rel in tree(dir).iter().filter(|p| p.ends_with(".jsonl")) {
        let text = std::fs::read_to_string(dir.join(rel)).unwrap();
        out.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()));
    }
    out
}

/// Claude Code: `tool_use` and `tool_result` blocks (the first of each id);
/// a flagged result goes to `PostToolUseFailure` with its text as `error`.
fn claude_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let Some(blocks) = v["message"]["content"].as_array() else { continue };
        for b in blocks {
            match b["type"].as_str() {
                Some("tool_use") => {
                    inputs.entry(b["id"].as_str().unwrap_or("").to_string()).or_insert(b["input"].clone());
                }
                Some("tool_result") => {
                    let content = match &b["content"] {
                        Value::Null => v["toolUseResult"].clone(),
                        c => c.clone(),
                    };
                    let event = if b["is_error"] == true {
                        let text = match &content {
                            Value::String(s) => s.clone(),
                            Value::Array(items) => items
                                .iter()
                                .filter_map(|i| i.as_str().or(i["text"].as_str()))
                                .collect::<Vec<_>>()
                                .join("\n"),
                            other => other.to_string(),
                        };
                        json!({"hook_event_name": "PostToolUseFailure", "error": text, "is_interrupt": false})
                    } else {
                        json!({"hook_event_name": "PostToolUse", "tool_response": content})
                    };
                    results.entry(b["tool_use_id"].as_str().unwrap_or("").to_string()).or_insert(event);
                }
                _ => {}
            }
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Codex: `function_call` (arguments a JSON string), `custom_tool_call`
/// and `local_shell_call`; every output goes to `PostToolUse` as written.
fn codex_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let p = if v["payload"].is_object() { &v["payload"] } else { &v };
        let id = p["call_id"].as_str().unwrap_or("").to_string();
        match p["type"].as_str() {
            Some("function_call") => {
                let args = p["arguments"].as_str().map_or(Value::Null, |a| serde_json::from_str(a).unwrap_or(json!(a)));
                inputs.entry(id).or_insert(args);
            }
            Some("custom_tool_call") => {
                inputs.entry(id).or_insert(p["input"].clone());
            }
            Some("local_shell_call") => {
                inputs.entry(id).or_insert(json!({"command": p["action"]["command"]}));
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                results.insert(id, json!({"hook_event_name": "PostToolUse", "tool_response": p["output"]}));
            }
            _ => {}
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Gemini CLI: a message's `toolCalls` (the last copy of each); a call in
/// `error` or `cancelled` carries its text as `tool_response.error`.
fn gemini_replay(dir: &Path) -> Replayed {
    let mut out = Replayed::new();
    for v in lines_of(dir) {
        for tc in v["toolCalls"].as_array().into_iter().flatten() {
            let id = tc["id"].as_str().unwrap_or("").to_string();
            let parts = tc["result"].as_array().cloned().unwrap_or_default();
            let response = match tc["status"].as_str() {
                Some("success") => json!({"llmContent": parts, "returnDisplay": tc["resultDisplay"]}),
                Some("error" | "cancelled") => {
                    let said = parts
                        .iter()
                        .filter_map(|p| p["functionResponse"]["response"]["error"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n");
                    json!({"llmContent": parts, "returnDisplay": "", "error": {"message": said}})
                }
                _ => continue,
            };
            out.insert(id, (tc["args"].clone(), json!({"hook_event_name": "AfterTool", "tool_response": response})));
        }
    }
    out
}

/// Copilot CLI: `tool.execution_start` and `_complete` (camelCase hooks):
/// a success's `result.content` as `toolResult`, a failure's
/// `error.message` on `postToolUseFailure`; a call denied at the prompt
/// (no completion) as the failure the CLI reports.
fn copilot_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for v in lines_of(dir) {
        let data = &v["data"];
        let id = data["toolCallId"].as_str().unwrap_or("").to_string();
        match v["type"].as_str() {
            Some("tool.execution_start") => {
                inputs.entry(id).or_insert(data["arguments"].clone());
            }
            Some("tool.execution_complete") if data["success"] == true => {
                let text = data["result"]["content"].clone();
                let r = json!({"toolResult": {"resultType": "success", "textResultForLlm": text}});
                results.insert(id, r);
            }
            Some("tool.execution_complete") => {
                results.insert(id, json!({"error": data["error"]["message"]}));
            }
            Some("permission.completed") if data["result"]["kind"] == "denied-interactively-by-user" => {
                results.entry(id).or_insert(json!({"error": "The user rejected this tool call."}));
            }
            _ => {}
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Qwen Code: `functionCall` parts, and `tool_result` records: `error` or
/// `cancelled` on `PostToolUseFailure`, anything else on `PostToolUse`.
fn qwen_replay(dir: &Path) -> Replayed {
    let (mut inputs, mut results) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for v in lines_of(dir) {
        for part in v["message"]["parts"].as_array().into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                inputs.entry(call["id"].as_str().unwrap_or("").to_string()).or_insert(call["args"].clone());
            }
            if let Some(resp) = part.get("functionResponse") {
                let id = v["toolCallResult"]["callId"].as_str().or(resp["id"].as_str()).unwrap_or("").to_string();
                let r = &resp["response"];
                let error = r.get("error").filter(|e| !e.is_null());
                let event = match (v["toolCallResult"]["status"].as_str(), error) {
                    (Some("error" | "cancelled"), e) => json!({"hook_event_name": "PostToolUseFailure",
                        "error": text(e.unwrap_or(&r["output"])), "is_interrupt": false}),
                    (None, Some(e)) => {
                        json!({"hook_event_name": "PostToolUseFailure", "error": text(e), "is_interrupt": false})
                    }
                    _ => json!({"hook_event_name": "PostToolUse", "tool_response": {"llmContent": text(&r["output"])}}),
                };
                results.insert(id, event);
            }
        }
    }
    inputs.into_iter().filter_map(|(id, input)| results.remove(&id).map(|r| (id, (input, r)))).collect()
}

/// Issue 48: every call of a shipped sample, in scan's order, through the
/// guard's hooks (before the call, then its result on the event the agent
/// sends it to): each verdict equals export's (the same judge as scan), and
/// the calls denied are exactly those repeating a run of five identical
/// failures, counted from export's verdicts.
fn replay(sample: &str, agent: &str, replayed: &Replayed, before: &str, common: &Value) {
    let sample = root().join(sample);
    let out = run_in(root(), &["export", sample.to_str().unwrap(), "--no-index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let verdict = |r: &Value| match (r["hidden"].as_bool().unwrap(), r["error"].as_bool().unwrap()) {
        (true, _) => "hidden",
        (false, true) => "flagged",
        (false, false) => "success",
    };
    // Runs per (session, tool), from export: (template, length, input).
    let mut runs: std::collections::HashMap<(String, String), (Value, usize, Value)> = Default::default();
    let (mut expected_denied, mut denied, mut sent) = (Vec::new(), Vec::new(), 0);
    let args = ["--mode", "enforce", "--agent", agent];
    for r in rows.iter().filter(|r| r["paired"] == true) {
        let (session, id, tool) =
            (r["session"].as_str().unwrap(), r["call_id"].as_str().unwrap(), r["tool"].as_str().unwrap());
        let (input, after) = replayed.get(id).unwrap_or_else(|| panic!("{agent}: call {id} not in the sample"));
        let key = (session.to_string(), tool.to_string());
        if runs.get(&key).is_some_and(|(_, len, last)| *len >= 5 && last == input) {
            expected_denied.push(id.to_string());
        }
        // Copilot CLI's camelCase payloads name no event; the others do.
        let (call, before_event) = if agent == "copilot" {
            let call = json!({"sessionId": session, "toolName": tool, "toolArgs": input.to_string()});
            (merge(common, call), json!({}))
        } else {
            let call = json!({"session_id": session, "tool_name": tool, "tool_input": input, "tool_use_id": id});
            (merge(common, call), json!({"hook_event_name": before}))
        };
        let (code, out, err) = guard(d, &args, &merge(&call, before_event).to_string());
        assert_eq!(code, 0, "{agent}: {err}");
        if out.contains("\"deny\"") {
            denied.push(id.to_string());
        }
        let (code, _, err) = guard(d, &args, &merge(&call, after.clone()).to_string());
        assert_eq!(code, 0, "{agent}: {err}");
        sent += 1;
        if verdict(r) == "success" {
            runs.remove(&key);
        } else {
            let run = runs.entry(key).or_insert((Value::Null, 0, Value::Null));
            *run = if run.0 == r["template"] {
                (run.0.clone(), run.1 + 1, input.clone())
            } else {
                (r["template"].clone(), 1, input.clone())
            };
        }
    }
    assert!(sent >= 5, "{agent}: the sample's calls were replayed: {sent}");
    assert_eq!(denied, expected_denied, "{agent}");
    let cut = |t: &Value| t.as_str().map(|t| t.chars().take(250).collect::<String>());
    let sessions: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["session"].as_str().unwrap()).collect();
    let mut judged = 0;
    for session in sessions {
        let kept: Vec<Value> =
            log(d, session).into_iter().filter(|v| v["event"] == "after" && v["session"] == session).collect();
        let exported: Vec<&Value> = rows.iter().filter(|r| r["session"] == session && r["paired"] == true).collect();
        assert_eq!(kept.len(), exported.len(), "{agent}: {session}");
        for (k, e) in kept.iter().zip(exported) {
            let id = e["call_id"].as_str().unwrap();
            // Copilot CLI's camelCase payloads carry no call id: the order pairs them.
            if agent != "copilot" {
                assert_eq!(k["call_id"], e["call_id"]);
            }
            assert_eq!(k["verdict"], verdict(e), "{agent}: {id}");
            assert_eq!(k["category"], e["category"], "{agent}: {id}");
            assert_eq!(cut(&k["template"]), cut(&e["template"]), "{agent}: {id}");
            judged += 1;
        }
    }
    assert_eq!(judged, sent, "{agent}");
    let any_hidden = rows.iter().any(|r| r["paired"] == true && r["hidden"] == true);
    scan_reports_the_interventions(&sample, agent, d, any_hidden);
}

/// `scan` of the replayed sample, reading the guard's state, reports per
/// session the interventions `guard log` lists, with the same recovery; a
/// scan of other sessions, or with the guard's state elsewhere, none.
fn scan_reports_the_interventions(sample: &Path, agent: &str, d: &Path, any_hidden: bool) {
    let state = d.join("state");
    let scan = |state: &Path| serde_json::from_slice::<Value>(&scan_json(sample, state)).unwrap()["guard"].clone();
    let reported = scan(&state);
    let mut expected: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for v in log(d, "") {
        if ["context", "deny", "stop"].contains(&v["action"].as_str().unwrap()) {
            let keep = ["time", "tool", "call_id", "action", "category", "streak", "recovered_after"];
            let i: serde_json::Map<String, Value> =
                keep.iter().map(|k| (k.to_string(), v.get(*k).cloned().unwrap_or(Value::Null))).collect();
            expected.entry(v["session"].as_str().unwrap().to_string()).or_default().push(Value::Object(i));
        }
    }
    // The guard tells the agent of every hidden error.
    assert_eq!(!expected.is_empty(), any_hidden, "{agent}: interventions {expected:?}");
    let expected: Vec<Value> = expected
        .into_iter()
        .map(|(session, interventions)| json!({"session": session, "agent": agent, "interventions": interventions}))
        .collect();
    assert_eq!(reported, Value::Array(expected), "{agent}");
    assert_eq!(scan(&d.join("elsewhere")), json!([]), "{agent}: no state, no interventions");
    let other = root().join("sample-traces/crush.db");
    let other_report = scan_json(&other, &state);
    let other_guard = serde_json::from_slice::<Value>(&other_report).unwrap()["guard"].clone();
    assert_eq!(other_guard, json!([]), "{agent}: another trace's sessions have none");
    // merge keeps each report's sessions' record.
    std::fs::write(d.join("a.json"), scan_json(sample, &state)).unwrap();
    std::fs::write(d.join("b.json"), &other_report).unwrap();
    let merged = json(&run_in(d, &["merge", "a.json", "b.json", "--format", "json"]));
    assert_eq!(merged["guard"], reported, "{agent}: merged");
    // The table's section says how many, and how many recovered.
    let out = run_in(d, &["scan", sample.to_str().unwrap(), "--no-index", "--guard-state", state.to_str().unwrap()]);
    let n: usize = reported.as_array().unwrap().iter().map(|g| g["interventions"].as_array().unwrap().len()).sum();
    if n > 0 {
        let helped = reported
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["interventions"].as_array().unwrap())
            .filter(|i| !i["recovered_after"].is_null())
            .count();
        let line = format!("Guard: {n} intervention{}", if n == 1 { "" } else { "s" });
        let text = stdout(&out);
        assert!(text.contains(&line) && text.contains(&format!("{helped} followed by a success")), "{agent}: {text}");
    }
}

fn scan_json(sample: &Path, state: &Path) -> Vec<u8> {
    let out = run_in(
        state.parent().unwrap(),
        &["scan", sample.to_str().unwrap(), "--no-index", "--format", "json", "--guard-state", state.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    out.stdout
}

#[test]
fn a_replayed_claude_code_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/home/u/proj", "permission_mode": "default", "transcript_path": "/x.jsonl"});
    replay(
        "sample-traces/claude-code",
        "claude-code",
        &claude_replay(&root().join("sample-traces/claude-code")),
        "PreToolUse",
        &common,
    );
}

#[test]
fn a_replayed_codex_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/home/u/web", "permission_mode": "default", "transcript_path": null,
        "model": "gpt-5-codex", "turn_id": "turn-1"});
    replay("sample-traces/codex", "codex", &codex_replay(&root().join("sample-traces/codex")), "PreToolUse", &common);
}

#[test]
fn a_replayed_gemini_sample_gets_exports_verdicts() {
    let common = json!({"cwd": "/p", "transcript_path": "/x.json", "timestamp": "2026-06-01T10:00:00.000Z"});
    replay(
        "sample-traces/gemini",
        "gemini",
        &gemini_replay(&root().join("sample-traces/gemini")),
        "BeforeTool",
        &common,
    );
}

#[test]
fn a_replayed_copilot_sample_gets_exports_verdicts() {
    let sample = "sample-traces/copilot";
    let common = json!({"cwd": "/home/dev/projects/widget", "timestamp": 1_781_000_000_000_u64});
    replay(sample, "copilot", &copilot_replay(&root().join(sample)), "preToolUse", &common);
}

#[test]
fn a_replayed_qwen_code_sample_gets_exports_verdicts() {
    let common =
        json!({"cwd": "/home/dev/shop", "transcript_path": "/x.jsonl", "timestamp": "2026-05-10T09:00:00.000Z"});
    replay("sample-traces/qwen", "qwen", &qwen_replay(&root().join("sample-traces/qwen")), "PreToolUse", &common);
}
