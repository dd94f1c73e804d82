//! Issue 51: what failures cost in tokens and dollars (docs/analyses.md,
//! "Tokens and money"), checked against a hand computation.

use crate::util::*;

/// A Claude Code transcript of three responses. The first is written on
/// three lines (a text block, then one call per line, each line with the
/// usage so far: output 10, 40, 90) and emits two calls; its Bash call
/// fails, the next Bash call (second response) succeeds, a third response
/// follows.
fn transcript(dir: &std::path::Path) -> std::path::PathBuf {
    let line = |uuid: &str, kind: &str, message: serde_json::Value| {
        serde_json::json!({"type": kind, "uuid": uuid, "sessionId": "s1", "timestamp": "2026-04-02T09:00:00.000Z", "message": message})
            .to_string()
    };
    let usage = |input: u64, read: u64, write: u64, output: u64| serde_json::json!({"input_tokens": input, "cache_read_input_tokens": read, "cache_creation_input_tokens": write, "output_tokens": output});
    let assistant = |id: &str, block: serde_json::Value, u: serde_json::Value| serde_json::json!({"id": id, "model": "claude-sonnet-4-5", "role": "assistant", "content": [block], "usage": u});
    let call = |id: &str, tool: &str, input: serde_json::Value| serde_json::json!({"type": "tool_use", "id": id, "name": tool, "input": input});
    let result = |id: &str, text: &str, error: bool| serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": error}]});
    let lines = [
        line(
            "a1",
            "assistant",
            assistant("msg_A", serde_json::json!({"type": "text", "text": "Let me look."}), usage(100, 1000, 200, 10)),
        ),
        line(
            "a2",
            "assistant",
            assistant("msg_A", call("c1", "Bash", serde_json::json!({"command": "make"})), usage(100, 1000, 200, 40)),
        ),
        line(
            "a3",
            "assistant",
            assistant("msg_A", call("c2", "Read", serde_json::json!({"file_path": "/p/a"})), usage(100, 1000, 200, 90)),
        ),
        line("u1", "user", result("c1", "Exit code 1\nboom", true)),
        line("u2", "user", result("c2", "fine", false)),
        line(
            "a4",
            "assistant",
            assistant("msg_B", call("c3", "Bash", serde_json::json!({"command": "make all"})), usage(10, 1500, 0, 30)),
        ),
        line("u3", "user", result("c3", "built", false)),
        line(
            "a5",
            "assistant",
            assistant("msg_C", call("c4", "Read", serde_json::json!({"file_path": "/p/b"})), usage(10, 1600, 0, 20)),
        ),
        line("u4", "user", result("c4", "fine", false)),
    ];
    let path = dir.join("s1.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn failure_tokens_and_dollars_equal_a_hand_computation() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let v = scan_json(&[path.to_str().unwrap()], &["--source-format", "claude-code"]);
    // Response A: 100 input + 90 output (its last line's) + 1000 cache reads
    // + 200 cache writes = 1,390 tokens, split across c1 and c2: 695 each.
    // c1 failed; Bash's next call c3 succeeded: its response (10 + 30 +
    // 1,500 = 1,540) is the retry. c1's result is 16 bytes, 4 tokens, read
    // again by the two later responses (no compaction): rent 8.
    let row = v["cost"].as_array().unwrap().iter().find(|r| r["tool"] == "Bash").unwrap();
    assert_eq!(row["with_usage"], 1);
    assert_eq!(
        (row["own_tokens"].as_u64(), row["retry_tokens"].as_u64(), row["rent_tokens"].as_u64()),
        (Some(695), Some(1540), Some(8))
    );
    // Dollars at claude-sonnet-4-5's $3 / $15 / $0.30 / $3.75 per million:
    // A = 300 + 1,350 + 300 + 750 = 2,700 millionths, c1's half 1,350;
    // B = 30 + 450 + 450 = 930; rent 8 × 0.30 = 2.4, rounded 2.
    assert_eq!(row["dollars"].as_f64(), Some(0.002282));
    // The usage section: every response once, C = 30 + 300 + 480 = 810.
    let u = &v["usage"];
    assert_eq!(u["calls"], 4);
    assert_eq!((u["input_tokens"].as_u64(), u["output_tokens"].as_u64()), (Some(120), Some(140)));
    assert_eq!((u["cache_read_tokens"].as_u64(), u["cache_write_tokens"].as_u64()), (Some(4100), Some(200)));
    assert_eq!(u["dollars"].as_f64(), Some(0.00444));
    crate::contract::assert_valid(&v);
}

#[test]
fn the_gate_limits_tokens_and_dollars_and_refuses_traces_without_usage() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let p = path.to_str().unwrap();
    let check = |limit: &str| {
        run_in(root(), &["check", p, "--source-format", "claude-code", "--no-index", "--max-failure-cost", limit])
            .status
            .code()
    };
    // 695 + 1,540 + 8 = 2,243 tokens, $0.002282.
    assert_eq!(check("2000"), Some(1));
    assert_eq!(check("2.3k"), Some(0));
    assert_eq!(check("$0.002"), Some(1));
    assert_eq!(check("$0.01"), Some(0));
    assert_eq!(check("much"), Some(2));
    let none = run_in(
        root(),
        &["check", "sample-traces/crush.db", "--no-index", "--max-hidden", "99", "--max-failure-cost", "1M"],
    );
    assert_eq!(none.status.code(), Some(2), "{}", stderr(&none));
    assert!(stderr(&none).contains("record no token usage"), "{}", stderr(&none));
}

#[test]
fn recorded_costs_are_used_as_recorded_and_no_usage_is_never_zero() {
    // opencode's two priced messages record $0.0213 and $0.0187; the third
    // names a model the table does not know and records no cost.
    let v = scan_json(&["sample-traces/opencode.db"], &[]);
    assert_eq!(v["usage"]["dollars"].as_f64(), Some(0.04));
    assert_eq!(v["usage"]["unpriced_models"], serde_json::json!(["qwen3-coder-plus"]));
    // Pi records each message's cost too: the sum of its messages' `cost.total`.
    let pi = scan_json(&["sample-traces/pi"], &[]);
    assert!(pi["usage"]["calls"].as_u64().unwrap() > 0);
    let table = stdout(&run_in(root(), &["scan", "sample-traces/crush.db", "--no-index"]));
    assert!(table.contains("Tokens: no usage recorded"), "{table}");
    let metrics = stdout(&run_in(root(), &["metrics", "sample-traces/claude-code", "--no-index"]));
    assert!(metrics.contains("falseok_failure_tokens_total{") && metrics.contains("kind=\"rent\""), "{metrics}");
    let none = stdout(&run_in(root(), &["metrics", "sample-traces/crush.db", "--no-index"]));
    assert!(!none.contains("falseok_failure_tokens_total{"), "no usage, no series");
}

#[test]
fn a_price_file_reprices_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"models": [{"model": "claude-sonnet-4-5", "input": 0, "output": 0, "cache_read": 0, "cache_write": 0}]}"#,
    )
    .unwrap();
    let v =
        scan_json(&[path.to_str().unwrap()], &["--source-format", "claude-code", "--prices", prices.to_str().unwrap()]);
    assert_eq!(v["usage"]["dollars"].as_f64(), Some(0.0));
    std::fs::write(&prices, r#"{"models": [{"model": "x", "input": -1, "output": 0}]}"#).unwrap();
    let out = run_in(root(), &["scan", path.to_str().unwrap(), "--prices", prices.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("prices.json"), "{}", stderr(&out));
}

#[test]
fn sessions_export_headlines_and_pages_carry_the_cost() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let p = path.to_str().unwrap();
    let fmt = ["--source-format", "claude-code", "--no-index"];
    // The session: 4 calls of 1,390 + 1,540 + 1,630 = 4,560 tokens; its one
    // failure cost 2,243 of them, 49%: -10 points, said among the reasons.
    let mut args = vec!["sessions", p, "--format", "json"];
    args.extend(fmt);
    let s = json(&run_in(root(), &args));
    assert_eq!(s["sessions_version"], 2);
    let row = &s["sessions"][0];
    assert_eq!((row["tokens"].as_u64(), row["failure_tokens"].as_u64()), (Some(4560), Some(2243)));
    assert_eq!(row["failure_dollars"].as_f64(), Some(0.002282));
    let reasons = row["reasons"].to_string();
    assert!(reasons.contains("failures cost 2.2 k tokens, $0.0023, 49% of the session's (-10)"), "{reasons}");
    let none = json(&run_in(root(), &["sessions", "sample-traces/crush.db", "--format", "json", "--no-index"]));
    assert!(
        none["sessions"].as_array().unwrap().iter().all(|r| r["failure_tokens"].is_null() && r["tokens"].is_null())
    );
    // Export: each call's share of its response; the failure's cost.
    let mut args = vec!["export", p, "--format", "ndjson"];
    args.extend(fmt);
    let rows: Vec<serde_json::Value> =
        stdout(&run_in(root(), &args)).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let c1 = rows.iter().find(|r| r["call_id"] == "c1").unwrap();
    assert_eq!((c1["input_tokens"].as_u64(), c1["output_tokens"].as_u64()), (Some(50), Some(45)));
    assert_eq!((c1["cache_read_tokens"].as_u64(), c1["cache_write_tokens"].as_u64()), (Some(500), Some(100)));
    assert_eq!((c1["cost_usd"].as_f64(), c1["failure_tokens"].as_u64()), (Some(0.00135), Some(2243)));
    assert_eq!(c1["model"], "claude-sonnet-4-5");
    let c2 = rows.iter().find(|r| r["call_id"] == "c2").unwrap();
    assert!(c2["failure_tokens"].is_null() && c2["input_tokens"] == 50);
    // The headline says what the tool's failures cost; so do the pages.
    let v = scan_json(&[p], &["--source-format", "claude-code"]);
    let bash = v["headlines"].as_array().unwrap().iter().find(|h| h["tool"] == "Bash").unwrap();
    assert!(
        bash["sentence"]
            .as_str()
            .unwrap()
            .ends_with("Its failures cost 2.2 k tokens ($0.0023), 100% of it in nonzero-exit."),
        "{bash}"
    );
    let mut args = vec!["scan", p, "--format", "markdown"];
    args.extend(fmt);
    assert!(stdout(&run_in(root(), &args)).contains("## Tokens"));
    let mut args = vec!["scan", p, "--format", "html"];
    args.extend(fmt);
    let html = stdout(&run_in(root(), &args));
    assert!(html.contains("id=\"chart-tokens\"") && html.contains("id=\"tokens\""), "the chart and its table");
}

#[test]
fn the_session_gate_names_the_costliest_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let p = path.to_str().unwrap();
    let out = run_in(
        root(),
        &["check", p, "--source-format", "claude-code", "--no-index", "--max-session-failure-cost", "2k"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("the failures of session s1 cost 2.2 k tokens (limit 2.0 k tokens per session)"),
        "{}",
        stdout(&out)
    );
    let out = run_in(
        root(),
        &["check", p, "--source-format", "claude-code", "--no-index", "--max-session-failure-cost", "$0.01"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v = scan_json(&[p], &["--source-format", "claude-code"]);
    assert_eq!(v["usage"]["costliest_session_tokens"]["failure_tokens"], 2243);
}

#[test]
fn the_configuration_prices_models_and_the_flag_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path());
    let p = path.to_str().unwrap();
    let config = dir.path().join("falseok.toml");
    std::fs::write(&config, "[prices.claude-sonnet-4-5]\ninput = 0\noutput = 0\ncache-read = 0\ncache-write = 0\n")
        .unwrap();
    let c = config.to_str().unwrap();
    let v = scan_json(&[p], &["--source-format", "claude-code", "--config", c]);
    assert_eq!(v["usage"]["dollars"].as_f64(), Some(0.0));
    let prices = dir.path().join("p.json");
    std::fs::write(
        &prices,
        r#"{"models": [{"model": "claude-sonnet-4-5", "input": 1000000, "output": 0, "cache_read": 0, "cache_write": 0}]}"#,
    )
    .unwrap();
    let v = scan_json(&[p], &["--source-format", "claude-code", "--config", c, "--prices", prices.to_str().unwrap()]);
    // 120 input tokens at $1 each: the flag's table, not the file's.
    assert_eq!(v["usage"]["dollars"].as_f64(), Some(120.0));
    std::fs::write(&config, "[prices.claude-sonnet-4-5]\ninput = -3\noutput = 1\n").unwrap();
    let out = run_in(root(), &["scan", p, "--config", c]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("prices.claude-sonnet-4-5"), "{}", stderr(&out));
}

/// Cline's UI log: each `api_req_started` records its request's tokens and
/// cost, and the calls its reply asked for follow it. Dollars are the
/// recorded ones: 0.0123 + 0.0045.
#[test]
fn clines_recorded_request_costs_are_used_as_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("task1");
    std::fs::create_dir(&task).unwrap();
    let req = |v: serde_json::Value| v.to_string();
    let msgs = serde_json::json!([
        {"ts": 1764500000000_i64, "type": "say", "say": "task", "text": "list the files"},
        {"ts": 1764500001000_i64, "type": "say", "say": "api_req_started", "text": req(serde_json::json!(
            {"request": "<task>\nlist the files\n</task>", "tokensIn": 10, "tokensOut": 20, "cacheWrites": 50, "cacheReads": 100, "cost": 0.0123}))},
        {"ts": 1764500002000_i64, "type": "ask", "ask": "command", "text": "ls"},
        {"ts": 1764500003000_i64, "type": "say", "say": "api_req_started", "text": req(serde_json::json!(
            {"request": "[execute_command for 'ls'] Result:\n\nCommand executed.\nOutput:\nfile.txt", "tokensIn": 5, "tokensOut": 7, "cacheWrites": 0, "cacheReads": 200, "cost": 0.0045}))},
        {"ts": 1764500004000_i64, "type": "say", "say": "completion_result", "text": "There is one file."}
    ]);
    std::fs::write(task.join("ui_messages.json"), msgs.to_string()).unwrap();
    let v = scan_json(&[task.to_str().unwrap()], &["--no-index"]);
    let u = &v["usage"];
    assert_eq!(u["calls"], 2);
    assert_eq!(u["dollars"].as_f64(), Some(0.0168));
    assert_eq!((u["input_tokens"].as_u64(), u["output_tokens"].as_u64()), (Some(15), Some(27)));
    assert_eq!((u["cache_read_tokens"].as_u64(), u["cache_write_tokens"].as_u64()), (Some(300), Some(50)));
}

/// The shipped Claude Code sample, by hand. Its response `msg_01B` is
/// written on three lines; the third replays the first (same line uuid)
/// and is read once, so the response's two calls (`Edit` toolu_02, `Bash`
/// toolu_03) split 6 input + 40 output (the larger of its lines' 12 and
/// 40) + 12,000 cache reads + 1,500 cache writes = 13,546 tokens: 6,773
/// each. Its dollars at $3 / $15 / $0.30 / $3.75 per million: 18 + 600 +
/// 3,600 + 5,625 = 9,843 millionths; the first call takes the odd one.
#[test]
fn the_shipped_claude_sample_by_hand() {
    let v = scan_json(&["sample-traces/claude-code"], &["--no-index"]);
    let row = |tool: &str, category: &str| {
        v["cost"].as_array().unwrap().iter().find(|r| r["tool"] == tool && r["category"] == category).unwrap().clone()
    };
    assert_eq!(row("Edit", "edit-match-not-found")["own_tokens"], 6773);
    assert_eq!(row("Bash", "collateral-cancel")["own_tokens"], 6773);
    // Input: 6 (msg_01B) + 4 × 9 other responses of the main session, and
    // 10 × 4 responses of the sub-agents.
    assert_eq!(v["usage"]["input_tokens"], 82);
    let out = run_in(root(), &["export", "sample-traces/claude-code", "--format", "ndjson", "--no-index"]);
    let rows: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let cost = |id: &str| rows.iter().find(|r| r["call_id"] == id).unwrap()["cost_usd"].as_f64();
    assert_eq!((cost("toolu_02"), cost("toolu_03")), (Some(0.004922), Some(0.004921)));
}
