//! Tool schemas: each validation kind, each drift finding, where schemas
//! come from, and bad schema files.

use std::path::Path;

use crate::util::*;
use serde_json::{Value, json};

fn scan_fixture(extra: &[&str]) -> (tempfile::TempDir, Value) {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "schema.db", &fixture_sql("peri_schema.sql"));
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema_tools.json");
    let mut args = vec!["scan", "schema.db", "--format", "json", "--tool-schemas", tools.to_str().unwrap()];
    args.extend_from_slice(extra);
    let v = json(&run_in(dir.path(), &args));
    (dir, v)
}

fn tool_row<'a>(v: &'a Value, tool: &str) -> &'a Value {
    v["schema"]["tools"].as_array().unwrap().iter().find(|t| t["tool"] == tool).unwrap()
}

#[test]
fn each_validation_kind() {
    let (_dir, v) = scan_fixture(&[]);
    let lookup = tool_row(&v, "Lookup");
    assert_eq!(lookup["validated"], 6);
    assert_eq!(lookup["violations"], 5);
    assert_eq!(lookup["accepted_violations"], 3);
    assert_eq!(
        lookup["categories"],
        json!({"missing-required-param": 1, "unknown-param": 1, "invalid-param-type": 1, "invalid-param-value": 2})
    );
    assert!(tool_row(&v, "Lookup")["origin"].as_str().unwrap().ends_with("schema_tools.json"));
    // A vague failure classified from its arguments.
    let lookup_tool = v["tools"].as_array().unwrap().iter().find(|t| t["tool"] == "Lookup").unwrap();
    assert_eq!(lookup_tool["categories"]["missing-required-param"], 1, "{lookup_tool}");
    // Accepted violations are findings.
    let accepted: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "schema-violation-accepted").collect();
    let cats: Vec<&str> = accepted.iter().map(|f| f["category"].as_str().unwrap()).collect();
    assert_eq!(cats, ["unknown-param", "invalid-param-type", "invalid-param-value"]);
    assert!(accepted[0]["message"].as_str().unwrap().contains("unknown parameter `verbose`"));
    // The file's Edit schema replaced the built-in one.
    assert_eq!(tool_row(&v, "Edit")["violations"], 0);
}

#[test]
fn each_drift_finding() {
    let (_dir, v) = scan_fixture(&[]);
    let drift = v["schema"]["drift"].as_array().unwrap();
    let find = |rule: &str| drift.iter().find(|d| d["rule"] == rule).unwrap_or_else(|| panic!("no {rule}: {drift:?}"));
    let obr = find("optional-but-required");
    assert_eq!(
        (obr["tool"].as_str(), obr["param"].as_str(), obr["count"].as_u64()),
        (Some("Open"), Some("token"), Some(3))
    );
    assert!(obr["recommendation"].as_str().unwrap().contains("add `token` to `required`"));
    let narrow = find("enum-too-narrow");
    assert_eq!((narrow["param"].as_str(), narrow["value"].as_str()), (Some("mode"), Some("turbo")));
    let undoc: Vec<&str> =
        drift.iter().filter(|d| d["rule"] == "undocumented-param").map(|d| d["param"].as_str().unwrap()).collect();
    assert_eq!(undoc, ["verbose", "follow"], "sorted by count, then rule, tool, parameter");
    // Below the threshold, no optional-but-required.
    let (_dir, v) = scan_fixture(&["--drift-min", "4"]);
    assert!(v["schema"]["drift"].as_array().unwrap().iter().all(|d| d["rule"] != "optional-but-required"));
}

#[test]
fn postmortem_sample_subagent_type_is_optional_but_required() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let v = json(&run_in(root, &["scan", "sample-traces/peri-postmortem.db", "--format", "json"]));
    let drift = v["schema"]["drift"].as_array().unwrap();
    let obr: Vec<&Value> = drift.iter().filter(|d| d["rule"] == "optional-but-required").collect();
    assert_eq!(obr.len(), 1, "{drift:?}");
    assert_eq!((obr[0]["tool"].as_str(), obr[0]["param"].as_str()), (Some("Agent"), Some("subagent_type")));
    assert_eq!(obr[0]["count"], 36, "21 foreground + 15 background");
    assert_eq!(tool_row(&v, "Agent")["origin"], "built-in peri");
    let text = stdout(&run_in(root, &["scan", "sample-traces/peri-postmortem.db"]));
    assert!(text.contains("optional-but-required │ Agent │ subagent_type │    36"), "{text}");
}

#[test]
fn schemas_stored_in_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let mut sql = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/llm.sql")).unwrap();
    sql.push_str(
        r#"UPDATE tools SET input_schema = '{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}' WHERE name = 'list_dir';"#,
    );
    db_from_sql(dir.path(), "logs.db", &sql);
    let out = run_in(dir.path(), &["schemas", "logs.db"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("list_dir             trace"), "{}", stdout(&out));
    let v = json(&run_in(dir.path(), &["scan", "logs.db", "--format", "json"]));
    assert_eq!(tool_row(&v, "list_dir")["origin"], "trace");
}

#[test]
fn schemas_command_lists_origins() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["schemas"]);
    let text = stdout(&out);
    assert!(text.contains("built-in set for peri"));
    assert!(text.contains("Agent                built-in peri          required: prompt; optional:"));
    assert!(text.contains("built-in set for claude-code"));
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema_tools.json");
    let out = run_in(dir.path(), &["schemas", "--tool-schemas", tools.to_str().unwrap(), "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let peri = &v[0]["tools"];
    let edit = peri.as_array().unwrap().iter().find(|t| t["tool"] == "Edit").unwrap();
    assert!(edit["origin"].as_str().unwrap().ends_with("schema_tools.json"));
}

#[test]
fn bad_schema_files_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "schema.db", &fixture_sql("peri_schema.sql"));
    for (file, content, expect) in [
        ("missing.json", None, "no such file"),
        ("text.json", Some("hello"), "not JSON"),
        ("shape.json", Some("{\"x\": 1}"), "expected a JSON array of tools"),
        ("noname.json", Some("[{\"input_schema\": {}}]"), "tool #1 has no name"),
        ("bad.json", Some("[{\"name\": \"t\", \"input_schema\": {\"type\": 12}}]"), "not a valid JSON Schema"),
        (
            "remote.json",
            Some("[{\"name\": \"t\", \"input_schema\": {\"$ref\": \"https://example.com/x.json\"}}]"),
            "not a valid JSON Schema",
        ),
    ] {
        if let Some(c) = content {
            std::fs::write(dir.path().join(file), c).unwrap();
        }
        let out = run_in(dir.path(), &["scan", "schema.db", "--tool-schemas", file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(file) && err.contains(expect), "{file}: {err}");
    }
}

/// Issue 22, F13 (`repro_schemas_escape.sh`): parameter names a trace
/// stores in its tool schemas reach `falseok schemas` sanitized.
#[test]
fn stored_parameter_names_are_sanitized() {
    let dir = tempfile::tempdir().unwrap();
    let mut sql = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/llm.sql")).unwrap();
    sql.push_str(
        r#"UPDATE tools SET input_schema = '{"type":"object","required":["\u001b]8;;http://evil.example\u0007p\u001b]8;;\u0007\u001b[2J\u202epath"],"properties":{"\u001b[31mopt\u061c":{"type":"string"}}}';"#,
    );
    db_from_sql(dir.path(), "logs.db", &sql);
    let out = run_in(dir.path(), &["schemas", "logs.db"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("required: ppath") && text.contains("opt"), "{text}");
    assert!(!text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{61c}']), "{text:?}");
    assert!(!text.contains("evil.example"), "{text}");
}

/// Issue 21: a folder of Claude Code and Codex transcripts judges each
/// session with its own agent's built-in schemas; they were chosen by the
/// folder ("(jsonl): 0 tool schemas") and Claude Code's vanished.
#[test]
fn a_folder_of_several_agents_keeps_each_agents_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = dir.path().join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    for sample in ["claude-code", "codex"] {
        let src = root().join("sample-traces").join(sample);
        let status = std::process::Command::new("cp").arg("-r").arg(&src).arg(mixed.join(sample)).status().unwrap();
        assert!(status.success());
    }
    let out = run_in(dir.path(), &["schemas", "mixed"]);
    let text = stdout(&out);
    assert!(text.contains("mixed (claude-code): "), "{text}");
    assert!(!text.contains("mixed (claude-code): 0 tool schemas"), "{text}");
    assert!(text.contains("mixed (codex): 0 tool schemas"), "{text}");
    // The scan validates Claude Code's calls in the mixed folder as it does alone.
    let alone = json(&run_in(root(), &["scan", "sample-traces/claude-code", "--format", "json"]));
    let both = json(&run_in(dir.path(), &["scan", "mixed", "--format", "json"]));
    let validated = |v: &Value| {
        v["schema"]["tools"].as_array().unwrap().iter().map(|t| t["validated"].as_u64().unwrap()).sum::<u64>()
    };
    assert!(validated(&alone) > 0);
    assert_eq!(validated(&both), validated(&alone));
}
