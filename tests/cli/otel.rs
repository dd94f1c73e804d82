//! OpenTelemetry traces as files: OTLP/JSON lines (GenAI vocabulary),
//! Phoenix spans and Langfuse observations on the shipped samples, and a
//! held-out set (OpenInference over OTLP without captured content, a
//! Langfuse API response, an export with a cut line, a repeated span, a
//! parent cycle and a missing parent).

use crate::util::*;
use serde_json::{Value, json};

fn coverage(v: &Value) -> (u64, f64) {
    let s = &v["sources"][0];
    (s["results_with_text"].as_u64().unwrap(), s["content_coverage"].as_f64().unwrap())
}

#[test]
fn collector_file_export_genai() {
    let v = scan_json(&["sample-traces/otel/collector-genai.jsonl"], &[]);
    assert_eq!(v["sources"][0]["format"], "otel");
    assert_eq!(totals(&v), (7, 2, 2), "status 2 + error.type, and an exception event, are flagged");
    assert_eq!(tool(&v, "run_shell")["hidden_errors"], 1, "status unset, result `Error: …`");
    assert_eq!(tool(&v, "web_search")["categories"], json!({"rate-limit": 1}), "the sub-agent's hidden error");
    assert_eq!(tool(&v, "fetch_url")["categories"], json!({"timeout": 1}), "the status message is the text");
    assert_eq!(tool(&v, "delegate")["errors"], 0, "a structured result is judged as JSON text");
    assert_eq!(coverage(&v), (6, 0.857143), "search_code's result was not captured");
    assert_eq!(v["totals"]["sessions"], 2, "the nested invoke_agent is a sub-agent session");
    let top = scan_json(&["sample-traces/otel/collector-genai.jsonl"], &["--no-subagents"]);
    assert_eq!(totals(&top), (5, 1, 1));
    assert_golden(
        "otel-collector-genai.json",
        &stdout(&run_in(root(), &["scan", "sample-traces/otel/collector-genai.jsonl", "--format", "json"])),
    );
}

#[test]
fn phoenix_spans_openinference() {
    let v = scan_json(&["sample-traces/otel/phoenix-spans.json"], &[]);
    assert_eq!(totals(&v), (3, 1, 1));
    assert_eq!(tool(&v, "get_weather")["calls"], 2, "flat and nested attribute keys both read");
    assert_eq!(tool(&v, "get_weather")["categories"], json!({"not-found": 1}));
    assert_eq!(tool(&v, "sql_query")["flagged_errors"], 1, "status_code ERROR");
    assert_eq!(coverage(&v), (3, 1.0));
    assert_golden(
        "otel-phoenix.json",
        &stdout(&run_in(root(), &["scan", "sample-traces/otel/phoenix-spans.json", "--format", "json"])),
    );
}

#[test]
fn langfuse_observations() {
    let v = scan_json(&["sample-traces/otel/langfuse-observations.jsonl"], &[]);
    assert_eq!(totals(&v), (4, 1, 1), "level ERROR is the flag; `Error: …` at level DEFAULT is hidden");
    assert_eq!(tool(&v, "deploy")["categories"], json!({"permission-denied": 1}));
    assert_eq!(v["totals"]["sessions"], 2, "an AGENT inside an AGENT is a sub-agent");
    let top = scan_json(&["sample-traces/otel/langfuse-observations.jsonl"], &["--no-subagents"]);
    assert_eq!(totals(&top), (3, 1, 1));
    assert_golden(
        "otel-langfuse.json",
        &stdout(&run_in(root(), &["scan", "sample-traces/otel/langfuse-observations.jsonl", "--format", "json"])),
    );
}

#[test]
fn a_folder_of_all_three() {
    let v = scan_json(&["sample-traces/otel"], &[]);
    assert_eq!(totals(&v), (14, 4, 4));
    let out = run_in(root(), &["scan", "sample-traces/otel"]);
    assert!(
        stdout(&out).contains("otel trace, 5 sessions, 14 calls, text in 13 of 14 results (93%)"),
        "{}",
        stdout(&out)
    );
}

// Held out: written apart from the reader, checked by counts only.

#[test]
fn openinference_over_otlp_without_content() {
    let v = scan_json(&["tests/fixtures/otel/openinference-no-content.json"], &[]);
    assert_eq!(totals(&v), (4, 1, 0), "STATUS_CODE_ERROR as a string is flagged");
    assert_eq!(coverage(&v), (1, 0.25), "only the error's status message is text: 0 hidden says little");
    assert_eq!(v["totals"]["sessions"], 2, "session.id from the resource; the inner AGENT is a sub-agent");
    let out = run_in(root(), &["scan", "tests/fixtures/otel/openinference-no-content.json", "--format", "markdown"]);
    assert!(stdout(&out).contains("text in 1 of 4 results (25%)"), "{}", stdout(&out));
}

#[test]
fn langfuse_api_response() {
    let v = scan_json(&["tests/fixtures/otel/langfuse-api.json"], &[]);
    // Issue 21: `{"body": "Service Unavailable", "status": 503}` is an HTTP error envelope.
    assert_eq!(totals(&v), (3, 1, 2), "level WARNING is not a flag; the GENERATION is no call");
    assert_eq!(coverage(&v), (3, 1.0));
}

#[test]
fn export_traps() {
    let out = run_in(root(), &["scan", "tests/fixtures/otel/traps.jsonl", "--format", "json"]);
    assert!(stderr(&out).contains("traps.jsonl: 1 line is not a JSON record, skipped (line "), "{}", stderr(&out));
    let v = json(&out);
    // Issue 21: kubectl's `Error from server (NotFound): …` is its verdict.
    assert_eq!(totals(&v), (5, 1, 2), "the repeated span counts once; a cycle and a lost parent end the walk");
    assert_eq!(tool(&v, "kubectl")["flagged_errors"], 1, "error.type alone is the flag");
    assert_eq!(v["totals"]["sessions"], 2, "no conversation id: one session per trace");
    assert_eq!(coverage(&v), (4, 0.8));
}

#[test]
fn python_sdk_console_exporter_output() {
    let v = scan_json(&["tests/fixtures/otel/python-console.json"], &[]);
    assert_eq!(totals(&v), (3, 1, 1), "concatenated pretty-printed spans; the Agents SDK's error text is hidden");
    assert_eq!(v["totals"]["sessions"], 1, "session.id from the resource");
    assert_eq!(tool(&v, "get_forecast")["categories"], json!({"network": 1, "server-error": 1}));
}
