//! Agents whose traces are JSON files in folders: OpenHands (one file per
//! event), Cline / Roo Code (VS Code task folders) and Continue (one
//! session per file), on the shipped samples and a held-out set.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scan(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["scan", path, "--format", "json"];
    args.extend_from_slice(extra);
    let out = run_in(root(), &args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    json(&out)
}

/// (calls, flagged, hidden) of the whole scan.
fn totals(v: &Value) -> (u64, u64, u64) {
    let t = &v["totals"];
    (t["calls"].as_u64().unwrap(), t["flagged_errors"].as_u64().unwrap(), t["hidden_errors"].as_u64().unwrap())
}

fn tool(v: &Value, name: &str) -> Value {
    v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == name).cloned().unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn openhands_conversation_folder() {
    let v = scan("sample-traces/openhands", &[]);
    assert_eq!(v["sources"][0]["format"], "openhands");
    assert_eq!(totals(&v), (7, 3, 1), "exit 101 with is_error false is hidden; grep exit 1 and exit -1 are not errors");
    assert_eq!(tool(&v, "execute_bash")["categories"], json!({"nonzero-exit": 1, "user-rejected": 1}));
    assert_eq!(tool(&v, "str_replace_editor")["categories"], json!({"edit-match-not-found": 1}));
    assert_eq!(tool(&v, "browser")["flagged_errors"], 1, "an AgentErrorEvent is a flagged result");
    assert_golden("openhands.json", &stdout(&run_in(root(), &["scan", "sample-traces/openhands", "--format", "json"])));
}

#[test]
fn openhands_held_out() {
    let out = run_in(root(), &["scan", "tests/fixtures/openhands", "--format", "json"]);
    assert!(
        stderr(&out).contains("event-00007-o4.json: not a whole JSON document (cut or broken?), skipped"),
        "{}",
        stderr(&out)
    );
    let v = json(&out);
    assert_eq!(totals(&v), (4, 1, 1), "pytest exit 1 (metadata.exit_code) is hidden, rg exit 1 is benign");
    assert_eq!(v["totals"]["unpaired_calls"], 1, "the cut observation leaves its call unpaired");
}
