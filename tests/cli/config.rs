//! The configuration file (docs/config.md): found from the current folder
//! upwards, named by `--config`, left out by `--isolated`; its custom
//! rules and benign shapes judged by the same judge every command uses;
//! `ignore`; a bad file refused whole.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;

use crate::util::*;

/// A payments tool that answers a declined card with HTTP 200 and
/// `{"status": "declined"}`, a health probe that fails on purpose, and a
/// tool whose error envelope the built-in rules read.
fn project(dir: &Path) -> std::path::PathBuf {
    peri_db(
        dir,
        "threads.db",
        &[(
            "t1",
            vec![
                ("pay_card", json!({"amount": 5}), r#"{"status": "declined"}"#, false, "c1"),
                ("pay_card", json!({"amount": 6}), r#"{"status": "approved"}"#, false, "c2"),
                ("pay_card", json!({"amount": 7}), r#"{"result": {"status": "declined"}}"#, false, "c3"),
                (
                    "health_probe",
                    json!({"url": "/missing"}),
                    r#"{"status": "error", "message": "no such page"}"#,
                    false,
                    "c4",
                ),
                ("lookup", json!({"q": "x"}), r#"{"status": "error", "message": "backend down"}"#, false, "c5"),
            ],
        )],
    )
}

const PYPROJECT: &str = r#"[project]
name = "shop"

[[tool.falseok.rules]]
id = "payment-declined"
tool = "pay_*"
category = "permission-denied"
description = "The card was declined"
fix = "Check the card before paying again."
result = { pointer = "/status", equals = "declined" }
"#;

const BENIGN: &str = r#"
[[tool.falseok.benign]]
id = "deliberate-probe"
tool = "health_probe"
reason = "The probe asks for a missing page on purpose."
result = { pointer = "/status", equals = "error" }
args = { pointer = "/url", equals = "/missing" }
"#;

fn scan_in(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["scan", "threads.db", "--format", "json", "--no-index"];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

fn report(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let out = scan_in(dir, extra);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reason_row<'a>(v: &'a serde_json::Value, reason: &str) -> Option<&'a serde_json::Value> {
    v["reasons"].as_array().unwrap().iter().find(|r| r["reason"] == reason)
}

#[test]
fn a_custom_rule_in_pyproject_counts_declined_answers_as_hidden_errors_in_its_category() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let v = report(dir.path(), &[]);
    // Both declined answers, the bare one and the one wrapped in `result`.
    assert_eq!(counts(&v, "pay_card"), (3, 2, 0, 2));
    let row = reason_row(&v, "payment-declined").expect("the custom rule names its findings");
    assert_eq!((row["tool"].as_str(), row["category"].as_str()), (Some("pay_card"), Some("permission-denied")));
    assert_eq!((row["hidden_errors"].as_u64(), row["label"].as_str()), (Some(2), Some("The card was declined")));
    // Found from a folder below the project too, as ruff finds its own.
    let below = dir.path().join("sessions/today");
    std::fs::create_dir_all(&below).unwrap();
    let out = run_in(&below, &["scan", "../../threads.db", "--format", "json", "--no-index"]);
    assert_eq!(counts(&json_any(&out), "pay_card").3, 2);
    // --isolated: the built-in rules only, which take `declined` for an answer.
    assert_eq!(counts(&report(dir.path(), &["--isolated"]), "pay_card").3, 0);
    // The export and the check judge as scan does.
    let out = run_in(dir.path(), &["export", "threads.db", "--no-index"]);
    let rows: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let declined: Vec<_> = rows.iter().filter(|r| r["tool"] == "pay_card" && r["hidden"] == true).collect();
    assert_eq!(declined.len(), 2, "{}", stdout(&out));
    // The custom rule is both the content rule and the reason: named once.
    assert!(declined.iter().all(|r| r["rules"] == json!(["payment-declined"])), "{declined:?}");
    let out = run_in(dir.path(), &["check", "threads.db", "--no-index", "--fail-on", "permission-denied"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // The tool's headline gives the custom rule's own fix, not its category's.
    let v = report(dir.path(), &[]);
    let h = v["headlines"].as_array().unwrap().iter().find(|h| h["tool"] == "pay_card").unwrap();
    assert!(h["sentence"].as_str().unwrap().ends_with("first fix: check the card before paying again."), "{h}");
    // Every output names the rule: JSON's reason, Markdown's rule column, HTML, SARIF.
    for format in ["json", "markdown", "html", "sarif"] {
        let out = run_in(dir.path(), &["scan", "threads.db", "--format", format, "--no-index"]);
        assert!(stdout(&out).contains("payment-declined"), "{format} does not name the custom rule");
    }
}

/// Output that is JSON whatever the exit status (0 or 1).
fn json_any(out: &Output) -> serde_json::Value {
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn config_names_a_file_anywhere_and_rules_lists_its_rules_with_their_origin() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("team.toml");
    std::fs::write(&file, PYPROJECT.replace("[project]\nname = \"shop\"\n", "").replace("tool.falseok.", "")).unwrap();
    let v = report(dir.path(), &["--config", file.to_str().unwrap()]);
    assert_eq!(counts(&v, "pay_card").3, 2);
    let out = run_in(dir.path(), &["rules", "--config", file.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(text.contains("payment-declined"), "{text}");
    assert!(text.contains(&format!("at {}:2", file.display())), "{text}");
    let out = run_in(dir.path(), &["rules", "--format", "json", "--config", file.to_str().unwrap()]);
    let v = json(&out);
    assert_eq!(v["configuration"]["custom_rules"][0]["origin"], format!("{}:2", file.display()));
    // With no configuration, the listing is the registry alone.
    let v = json(&run_in(dir.path(), &["rules", "--format", "json", "--isolated"]));
    assert!(v.get("configuration").is_none());
}

#[test]
fn a_custom_benign_shape_silences_a_deliberate_probe() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    assert_eq!(counts(&report(dir.path(), &[]), "health_probe").3, 1, "the built-in rules read the probe's error");
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{BENIGN}")).unwrap();
    let v = report(dir.path(), &[]);
    assert_eq!(counts(&v, "health_probe"), (1, 0, 0, 0));
    // Only the probe: the same answer of another tool is still an error.
    assert_eq!(counts(&v, "lookup").3, 1);
}

#[test]
fn ignore_removes_a_built_in_rules_verdicts_by_id_or_by_category() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let v = report(dir.path(), &[]);
    assert_eq!(counts(&v, "lookup").3, 1);
    std::fs::write(dir.path().join("falseok.toml"), "ignore = [\"json-envelope-error\"]\n").unwrap();
    let v = report(dir.path(), &[]);
    assert_eq!((counts(&v, "lookup").3, counts(&v, "health_probe").3), (0, 0));
    // The category the built-in rules give the lookup's failure.
    let isolated = report(dir.path(), &["--isolated"]);
    let row = isolated["reasons"].as_array().unwrap().iter().find(|r| r["tool"] == "lookup").unwrap();
    let category = row["category"].clone();
    std::fs::write(dir.path().join("falseok.toml"), format!("ignore = [{category}]\n")).unwrap();
    assert_eq!(counts(&report(dir.path(), &[]), "lookup").3, 0, "ignoring {category}");
}

/// falseok in `dir` with its index under `cache`, the index's log on.
fn indexed(dir: &Path, cache: &Path) -> Output {
    Command::new(BIN)
        .args(["scan", "threads.db", "--format", "json"])
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .env("FALSEOK_INDEX_LOG", "1")
        .output()
        .unwrap()
}

#[test]
fn a_changed_configuration_never_reads_the_index_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let db = project(dir.path());
    // Dated back, so that an unchanged file is served from the index.
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    std::fs::File::options().append(true).open(&db).unwrap().set_modified(then).unwrap();
    let first = indexed(dir.path(), cache.path());
    assert_eq!(counts(&json_any(&first), "pay_card").3, 0);
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let second = indexed(dir.path(), cache.path());
    assert_eq!(counts(&json_any(&second), "pay_card").3, 2, "{}", stderr(&second));
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT.replace("\"declined\"", "\"approved\"")).unwrap();
    let third = indexed(dir.path(), cache.path());
    assert_eq!(counts(&json_any(&third), "pay_card").3, 1, "{}", stderr(&third));
    // The same configuration again is served from the index.
    let again = indexed(dir.path(), cache.path());
    assert_eq!(counts(&json_any(&again), "pay_card").3, 1);
    assert!(stderr(&again).contains("index: kept"), "{}", stderr(&again));
    assert!(!stderr(&third).contains("index: kept"), "{}", stderr(&third));
}

#[test]
fn a_bad_file_is_refused_with_its_file_line_and_key_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let bad = PYPROJECT.replace("category = \"permission-denied\"", "category = \"declined\"");
    std::fs::write(dir.path().join("pyproject.toml"), format!("{bad}{BENIGN}")).unwrap();
    let out = scan_in(dir.path(), &["--summary", "summary.md"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("pyproject.toml: line 7, key `rules.category`: not a category"), "{err}");
    assert!(out.stdout.is_empty() && !dir.path().join("summary.md").exists());
    let out = run_in(dir.path(), &["export", "threads.db", "--no-index", "--out", "calls.ndjson"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("calls.ndjson").exists());
    // The configuration file is an input: no output replaces it.
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let out = run_in(dir.path(), &["export", "threads.db", "--no-index", "--out", "pyproject.toml", "--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the configuration file"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.path().join("pyproject.toml")).unwrap(), PYPROJECT);
    // An unknown key, named with its line.
    std::fs::write(dir.path().join("falseok.toml"), "ignore = []\nselct = [\"x\"]\n").unwrap();
    let err = stderr(&scan_in(dir.path(), &[]));
    assert!(
        err.starts_with(&format!(
            "falseok: error: {}: line 2, key `selct`: unknown field",
            dir.path().join("falseok.toml").display()
        )),
        "{err}"
    );
    // --isolated reads none of it.
    assert_eq!(scan_in(dir.path(), &["--isolated"]).status.code(), Some(0));
    // --config names a file that must exist.
    let out = scan_in(dir.path(), &["--config", "nope.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.toml: cannot read the configuration"), "{}", stderr(&out));
}

#[test]
fn the_guard_judges_with_the_configuration_and_fails_open_on_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let payload = json!({"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "pay_card",
        "tool_input": {"amount": 5}, "tool_response": {"status": "declined"}, "tool_use_id": "c1"});
    let guard = |extra: &[&str]| {
        use std::io::Write;
        let state = dir.path().join("state");
        let mut args = vec!["guard", "--agent", "claude-code", "--state-dir", state.to_str().unwrap()];
        args.extend_from_slice(extra);
        let mut child = Command::new(BIN)
            .args(&args)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = guard(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("permission-denied"), "{}", stdout(&out));
    let out = guard(&["--isolated"]);
    assert!(!stdout(&out).contains("permission-denied"), "{}", stdout(&out));
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT.replace("pay_*", "re:(")).unwrap();
    let out = guard(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("key `rules.tool`"), "{}", stderr(&out));
}

/// The TOML examples of docs/config.md, each with the name of the file it
/// is written as.
fn doc_examples() -> Vec<(&'static str, String)> {
    let doc = std::fs::read_to_string(root().join("docs/config.md")).unwrap();
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        match (&mut block, line) {
            (None, "```toml") => block = Some(String::new()),
            (Some(b), "```") => {
                let name = if b.contains("[tool.falseok") { "pyproject.toml" } else { "falseok.toml" };
                out.push((name, std::mem::take(b)));
                block = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

/// TOML as the schema reads it: JSON, with a date as its text (YYYY-MM-DD).
fn toml_as_json(v: toml::Value) -> serde_json::Value {
    match v {
        toml::Value::Datetime(d) => d.to_string().into(),
        toml::Value::Array(a) => a.into_iter().map(toml_as_json).collect(),
        toml::Value::Table(t) => t.into_iter().map(|(k, v)| (k, toml_as_json(v))).collect(),
        other => serde_json::to_value(other).unwrap(),
    }
}

#[test]
fn every_example_of_the_docs_loads_and_fits_the_schema_and_every_key_is_documented() {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/config-v1.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let examples = doc_examples();
    assert!(examples.len() >= 5, "{examples:?}");
    for (name, text) in &examples {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let v = json(&run_in(dir.path(), &["rules", "--format", "json"]));
        assert!(v["configuration"].is_object(), "{name}:\n{text}");
        let mut as_json = toml_as_json(toml::from_str(text).unwrap());
        if *name == "pyproject.toml" {
            as_json = as_json["tool"]["falseok"].take();
        }
        let errors: Vec<String> = validator.iter_errors(&as_json).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}\n{text}");
    }
    // Every key of the schema is in the docs, in backquotes.
    let doc = std::fs::read_to_string(root().join("docs/config.md")).unwrap();
    let mut keys: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    for table in ["rules", "benign", "suppress"] {
        keys.extend(schema["properties"][table]["items"]["properties"].as_object().unwrap().keys().map(String::as_str));
    }
    keys.extend(schema["$defs"]["predicate"]["properties"].as_object().unwrap().keys().map(String::as_str));
    for key in keys {
        assert!(doc.contains(&format!("`{key}`")), "docs/config.md does not name `{key}`");
    }
    // The schema's categories are falseok's.
    let rules = json(&run_in(root(), &["rules", "--format", "json", "--isolated"]));
    let slugs: Vec<&serde_json::Value> = rules["categories"].as_array().unwrap().iter().map(|c| &c["slug"]).collect();
    let enumerated: Vec<&serde_json::Value> =
        schema["properties"]["rules"]["items"]["properties"]["category"]["enum"].as_array().unwrap().iter().collect();
    assert_eq!(slugs, enumerated);
}

#[test]
fn the_schema_refuses_what_falseok_refuses() {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/config-v1.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let rule = |result: serde_json::Value| json!({"rules": [{"id": "x", "tool": "t", "category": "other", "fix": "f", "result": result}]});
    assert!(validator.is_valid(&rule(json!({"pointer": "/a", "equals": 1}))));
    assert!(validator.is_valid(&rule(json!({"text": "a"}))));
    for bad in [
        json!({"pointer": "/a", "equals": 1, "exists": true}),
        json!({"pointer": "/a"}),
        json!({"text": "a", "pointer": "/a", "equals": 1}),
        json!({"text": "a", "equals": 1}),
        json!({}),
        json!({"pointer": "a", "equals": 1}),
    ] {
        assert!(!validator.is_valid(&rule(bad.clone())), "{bad}");
    }
    assert!(!validator.is_valid(&json!({"selct": []})));
}

#[test]
fn rules_test_fails_on_an_example_that_does_not_behave_naming_the_rule_and_the_example() {
    let dir = tempfile::tempdir().unwrap();
    let examples = "fails = [{ tool = \"pay_card\", result = '{\"status\": \"declined\"}' }]\n\
                    passes = [{ tool = \"pay_card\", result = '{\"status\": \"approved\"}' }]\n";
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{examples}{BENIGN}")).unwrap();
    let out = run_in(dir.path(), &["rules", "test"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("2 examples of 1 rules and 1 benign shapes of "), "{}", stdout(&out));
    // An example the rule does not behave on.
    let broken = examples.replace("approved", "declined");
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{broken}")).unwrap();
    let out = run_in(dir.path(), &["rules", "test"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(
        first.ends_with("pyproject.toml:12: rule `payment-declined`: passes[0] (pay_card) was judged a failure by the rule `payment-declined`"),
        "{text}"
    );
    assert!(text.contains("1 of 2 examples"), "{text}");
    // A benign shape's example that it does not silence.
    let shape = BENIGN.to_string() + "passes = [{ args = { url = \"/home\" }, result = '{\"status\": \"error\"}' }]\n";
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{shape}")).unwrap();
    let out = run_in(dir.path(), &["rules", "test"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("benign shape `deliberate-probe`: passes[0] (health_probe) was matched by no rule or shape"),
        "{}",
        stdout(&out)
    );
    // An example of a pattern must name its tool; no file, no test.
    let nameless = "fails = ['{\"status\": \"declined\"}']\n";
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{nameless}")).unwrap();
    let out = run_in(dir.path(), &["rules", "test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 11, key `rules.fails`: an example of the pattern `pay_*` names its `tool`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(run_in(dir.path(), &["rules", "test", "--isolated"]).status.code(), Some(2));
}

/// Two suppressions: the declined payments (by category) and the lookup's
/// error (by finding rule), with the last day the second holds.
fn suppressions(expires: &str) -> String {
    format!(
        r#"
[[tool.falseok.suppress]]
rule = "permission-denied"
tool = "pay_*"
reason = "The test cards are declined on purpose."

[[tool.falseok.suppress]]
rule = "hidden-error"
tool = "lookup"
session = "t1"
reason = "The lookup backend is down until the migration ends."
expires = {expires}
"#
    )
}

fn check_in(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["check", "threads.db", "--no-index"];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

#[test]
fn check_with_suppressions_passes_counts_them_and_an_expired_one_fails_naming_itself() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let out = check_in(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "3 hidden errors: {}", stdout(&out));
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{BENIGN}{}", suppressions("2999-12-31")))
        .unwrap();
    let out = check_in(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Suppressions: 3 suppressed, 2 reasons"), "{text}");
    assert!(text.contains("0 hidden errors (limit 0)") && text.contains("; 3 suppressed, 2 reasons"), "{text}");
    // --fail-on a category leaves its suppressed errors out too.
    assert_eq!(check_in(dir.path(), &["--fail-on", "permission-denied"]).status.code(), Some(0));
    // The report still lists and counts every finding: suppressed, not hidden.
    let v = report(dir.path(), &[]);
    assert_eq!(counts(&v, "pay_card").3, 2);
    let s = &v["suppressions"];
    assert_eq!((s["suppressed"].as_u64(), s["reasons"].as_u64()), (Some(3), Some(2)), "{s}");
    assert_eq!(s["entries"][0]["origin"], "pyproject.toml:19");
    assert_eq!(
        (s["entries"][1]["expires"].as_str(), s["entries"][1]["expired"].as_bool()),
        (Some("2999-12-31"), Some(false))
    );
    let marked: Vec<&str> = v["findings"].as_array().unwrap().iter().filter_map(|f| f["suppressed"].as_str()).collect();
    assert_eq!(marked, ["pyproject.toml:19", "pyproject.toml:19", "pyproject.toml:24"]);
    crate::contract::assert_valid(&v);
    // Past its last day (a string date is a date too), the lookup's counts
    // again, and the expired suppression fails the gate on its own line.
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{BENIGN}{}", suppressions("\"2001-01-31\"")))
        .unwrap();
    let out = check_in(dir.path(), &["--max-hidden", "5"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l
            == "falseok: error: pyproject.toml:24: suppression expired on 2001-01-31: The lookup backend is down until the migration ends."),
        "{err}"
    );
    assert!(stdout(&out).contains("1 expired suppression (renew or remove it)"), "{}", stdout(&out));
    let v = report(dir.path(), &[]);
    assert_eq!(v["suppressions"]["suppressed"], 2);
    assert_eq!(v["suppressions"]["entries"][1]["expired"], true);
}

#[test]
fn a_suppression_narrowed_to_a_call_accepts_that_call_only() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let one =
        "\n[[tool.falseok.suppress]]\nrule = \"hidden-error\"\ntool = \"*\"\ncall = \"c3\"\nreason = \"Known.\"\n";
    std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}{one}")).unwrap();
    let v = report(dir.path(), &[]);
    let marked: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["suppressed"].is_string())
        .map(|f| f["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["c3"]);
    let out = check_in(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("3 hidden errors (limit 0)"), "{}", stdout(&out));
    // Another session: nothing.
    std::fs::write(
        dir.path().join("pyproject.toml"),
        format!("{PYPROJECT}{}", one.replace("call = \"c3\"", "session = \"t9\"")),
    )
    .unwrap();
    assert_eq!(report(dir.path(), &[])["suppressions"]["suppressed"], 0);
}

#[test]
fn a_bad_suppression_is_refused_with_its_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let good = "[[suppress]]\nrule = \"hidden-error\"\ntool = \"lookup\"\nreason = \"Known.\"\n";
    for (bad, key) in [
        (
            good.replace("hidden-error", "hiden-error"),
            "line 2, key `suppress.rule`: `hiden-error` is not a finding rule or a category",
        ),
        (good.replace("reason = \"Known.\"\n", ""), "line 1, key `[[suppress]]`: missing field `reason`"),
        (
            good.replace("reason = \"Known.\"", "reason = \" \""),
            "line 4, key `suppress.reason`: must be one line of text",
        ),
        (format!("{good}expires = 2026-02-30\n"), "line 5, key `expires`"),
        (format!("{good}expires = \"31/01/2027\"\n"), "line 5, key `suppress.expires`: not a date written YYYY-MM-DD"),
        (format!("{good}expires = 2027-01-31T10:00:00\n"), "line 5, key `suppress.expires`: not a date"),
        (good.replace("tool = \"lookup\"", "tool = \"re:(\""), "line 3, key `suppress.tool`: not a regex"),
        (format!("{good}until = 2027-01-31\n"), "unknown field `until`"),
    ] {
        std::fs::write(dir.path().join("falseok.toml"), &bad).unwrap();
        let out = check_in(dir.path(), &[]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(key), "{bad}\n{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn select_keeps_only_what_it_names_and_a_selected_rule_wins_over_an_ignored_category() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    std::fs::write(dir.path().join("pyproject.toml"), PYPROJECT).unwrap();
    let all = report(dir.path(), &[]);
    assert_eq!((counts(&all, "pay_card").3, counts(&all, "lookup").3, counts(&all, "health_probe").3), (2, 1, 1));
    let row = all["reasons"].as_array().unwrap().iter().find(|r| r["tool"] == "lookup");
    let category = row.expect("the lookup's reason")["category"].clone();
    // Top-level keys, after the rules' array of tables.
    let with = |extra: &str| {
        std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}\n[tool.falseok]\n{extra}")).unwrap();
        report(dir.path(), &[])
    };
    // Only the lookup's category: the declined payments are dropped.
    let v = with(&format!("select = [{category}]\n"));
    assert_eq!((counts(&v, "pay_card").3, counts(&v, "lookup").3), (0, 1), "{}", v["reasons"]);
    // The finding layer is left whole: the lookup's hidden error is a finding.
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["tool"] == "lookup" && f["rule"] == "hidden-error"));
    // Selecting the custom rule by id keeps it alone (of the verdict layer).
    let v = with("select = [\"payment-declined\"]\n");
    assert_eq!((counts(&v, "pay_card").3, counts(&v, "lookup").3), (2, 0));
    // A finding rule selected: only its findings are reported, the counts stay.
    let v = with("select = [\"oscillation\"]\n");
    assert_eq!(counts(&v, "lookup").3, 1);
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["rule"] == "oscillation"), "{}", v["findings"]);
    // ignore a category, extend-select the rule that found the lookup's error.
    let v = with(&format!("ignore = [{category}]\n"));
    assert_eq!(counts(&v, "lookup").3, 0);
    let v = with(&format!("ignore = [{category}]\nextend-select = [\"json-envelope-error\"]\n"));
    assert_eq!(counts(&v, "lookup").3, 1);
    // An ignore of the id itself still wins.
    let v = with("ignore = [\"json-envelope-error\"]\nextend-select = [\"json-envelope-error\"]\n");
    assert_eq!(counts(&v, "lookup").3, 0);
    // Unknown entries are refused with their key.
    for (key, text) in [("select", "select = [\"nope\"]\n"), ("extend-select", "extend-select = [\"nope\"]\n")] {
        std::fs::write(dir.path().join("pyproject.toml"), format!("{PYPROJECT}\n[tool.falseok]\n{text}")).unwrap();
        let out = scan_in(dir.path(), &[]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains(&format!("key `{key}`: `nope` is not a content rule")), "{}", stderr(&out));
    }
}

#[test]
fn per_tool_ignores_drop_verdicts_in_the_tools_they_name_only() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let isolated = report(dir.path(), &["--isolated"]);
    // Both envelopes are hidden errors by the same built-in rule, alone.
    assert_eq!((counts(&isolated, "health_probe").3, counts(&isolated, "lookup").3), (1, 1));
    let rule =
        isolated["reasons"].as_array().unwrap().iter().find(|r| r["tool"] == "lookup").unwrap()["category"].clone();
    let config = format!(
        "{PYPROJECT}\n[tool.falseok.per-tool-ignores]\n\"health_*\" = [\"json-envelope-error\"]\n\"re:^pay_\" = [\"payment-declined\", {rule}]\n"
    );
    std::fs::write(dir.path().join("pyproject.toml"), config).unwrap();
    let v = report(dir.path(), &[]);
    assert_eq!(counts(&v, "health_probe").3, 0, "the probe's envelope is dropped: {}", v["reasons"]);
    assert_eq!(counts(&v, "lookup").3, 1, "another tool keeps the same rule's verdict");
    assert_eq!(counts(&v, "pay_card").3, 0, "a custom rule's id, through a re: pattern");
    let listed = json(&run_in(dir.path(), &["rules", "--format", "json"]));
    assert_eq!(listed["configuration"]["per_tool_ignores"]["health_*"], serde_json::json!(["json-envelope-error"]));
    // A session finding rule names no tool's verdict; a bad regex is refused too.
    for (entry, problem) in
        [("\"x\" = [\"hidden-error\"]", "a tool's verdicts only"), ("\"re:(\" = [\"not-found\"]", "not a regex")]
    {
        std::fs::write(dir.path().join("falseok.toml"), format!("[per-tool-ignores]\n{entry}\n")).unwrap();
        let out = scan_in(dir.path(), &[]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("line 2, key `per-tool-ignores."), "{}", stderr(&out));
        assert!(stderr(&out).contains(problem), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn per_path_ignores_drop_verdicts_in_the_traces_under_their_glob_only() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["traces/ci", "traces/prod"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        project(&dir.path().join(sub));
    }
    let isolated = json(&run_in(dir.path(), &["scan", "traces/ci/threads.db", "--format", "json", "--isolated"]));
    // The categories the built-in rules give the lookup's and the probe's failures.
    let category = |tool: &str| {
        let row = isolated["reasons"].as_array().unwrap().iter().find(|r| r["tool"] == tool);
        row.unwrap_or_else(|| panic!("the {tool}'s reason"))["category"].clone()
    };
    let (lookup, probe) = (category("lookup"), category("health_probe"));
    let config = format!(
        "{PYPROJECT}\n[tool.falseok.per-path-ignores]\n\"traces/ci/**\" = [\"payment-declined\", {lookup}, {probe}]\n\"**/prod/*.db\" = [\"hidden-error\"]\n"
    );
    std::fs::write(dir.path().join("pyproject.toml"), config).unwrap();
    let scan = |cwd: &Path, path: &str| json_any(&run_in(cwd, &["scan", path, "--format", "json", "--no-index"]));
    let ci = scan(dir.path(), "traces/ci/threads.db");
    assert_eq!(
        (counts(&ci, "pay_card").3, counts(&ci, "lookup").3, counts(&ci, "health_probe").3),
        (0, 0, 0),
        "{}",
        ci["reasons"]
    );
    // The same file named from below: the glob is the configuration's folder's.
    let below = dir.path().join("traces/ci");
    assert_eq!(counts(&scan(&below, "threads.db"), "pay_card").3, 0);
    // Elsewhere, the verdicts stay; the prod glob drops its findings only.
    let prod = scan(dir.path(), "traces/prod/threads.db");
    assert_eq!((counts(&prod, "pay_card").3, counts(&prod, "lookup").3), (2, 1));
    assert!(prod["findings"].as_array().unwrap().iter().all(|f| f["rule"] != "hidden-error"), "{}", prod["findings"]);
    // rules lists them; an unknown entry is refused with its glob.
    let v = json(&run_in(dir.path(), &["rules", "--format", "json"]));
    assert_eq!(v["configuration"]["per_path_ignores"]["**/prod/*.db"], serde_json::json!(["hidden-error"]));
    std::fs::write(dir.path().join("falseok.toml"), "[per-path-ignores]\n\"a/*\" = [\"nope\"]\n").unwrap();
    let out = run_in(dir.path(), &["scan", "traces/ci/threads.db", "--no-index"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 2, key `per-path-ignores.\"a/*\"`: `nope` is not"), "{}", stderr(&out));
}
