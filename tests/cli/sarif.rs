//! `--format sarif` (docs/ci.md, "SARIF"): every log validates against the
//! official SARIF 2.1.0 JSON Schema (OASIS, schema/third-party/), its
//! results point at the trace file and the line or row of the result, its
//! rules come from the registry, and its fingerprints are stable.

use std::path::Path;

use serde_json::Value;

use crate::util::*;

fn official() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schema/third-party/sarif-schema-2.1.0.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["id"],
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    );
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn assert_sarif(log: &Value) {
    let errors: Vec<String> = official().iter_errors(log).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0:\n{}", errors.join("\n"));
}

fn sarif_in(dir: &Path, args: &[&str]) -> (Value, std::process::Output) {
    let out = run_in(dir, args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    (serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out))), out)
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

#[test]
fn every_sample_s_log_validates_against_the_official_schema_and_hidden_errors_are_results_with_a_level() {
    for sample in [
        "sample-traces/peri-postmortem.db",
        "sample-traces/crush.db",
        "sample-traces/claude-code",
        "sample-traces/codex",
        "sample-traces/otel",
    ] {
        let (log, _) = sarif_in(root(), &["scan", sample, "--format", "sarif", "--no-index"]);
        assert_sarif(&log);
        assert_eq!(log["version"], "2.1.0");
        let report = scan_json(&[sample], &["--no-index"]);
        let hidden: Vec<&Value> =
            results(&log).iter().filter(|r| r["ruleId"].as_str().unwrap().starts_with("hidden-error/")).collect();
        assert_eq!(hidden.len() as u64, report["totals"]["hidden_errors"].as_u64().unwrap(), "{sample}");
        assert!(hidden.iter().all(|r| r["level"] == "error"), "{sample}");
        assert_eq!(results(&log).len(), report["findings"].as_array().unwrap().len(), "{sample}");
        // Every result's rule is described, with the fix as its help.
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        for r in results(&log) {
            let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], r["ruleId"]);
            assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
        }
    }
}

#[test]
fn a_transcript_s_result_points_at_its_line_and_a_database_s_at_its_row() {
    let (log, _) = sarif_in(root(), &["scan", "sample-traces/claude-code", "--format", "sarif", "--no-index"]);
    let r = results(&log).iter().find(|r| r["properties"]["callId"] == "toolu_09").expect("the 404 of the sample");
    let at = &r["locations"][0]["physicalLocation"];
    let uri = at["artifactLocation"]["uri"].as_str().unwrap();
    assert_eq!(at["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert!(uri.starts_with("sample-traces/claude-code/") && uri.ends_with(".jsonl"), "{uri}");
    let line = at["region"]["startLine"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(root().join(uri)).unwrap();
    let held = text.lines().nth(line - 1).unwrap();
    assert!(held.contains("toolu_09") && held.contains("tool_result"), "line {line}: {held}");
    let (log, _) = sarif_in(root(), &["scan", "sample-traces/crush.db", "--format", "sarif", "--no-index"]);
    let first = &results(&log)[0]["locations"][0];
    assert_eq!(first["physicalLocation"]["artifactLocation"]["uri"], "sample-traces/crush.db");
    assert!(first["physicalLocation"].get("region").is_none());
    assert!(first["logicalLocations"][0]["name"].as_str().unwrap().starts_with("row "), "{first}");
}

#[test]
fn fingerprints_are_equal_across_runs_and_through_the_index() {
    let cache = tempfile::tempdir().unwrap();
    let run = || {
        let out = std::process::Command::new(BIN)
            .args(["scan", "sample-traces/claude-code", "sample-traces/peri-postmortem.db", "--format", "sarif"])
            .current_dir(root())
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out.stdout
    };
    let (first, second) = (run(), run());
    // The second run reads the index: the same bytes, locations included.
    assert_eq!(String::from_utf8_lossy(&first), String::from_utf8_lossy(&second));
    let log: Value = serde_json::from_slice(&first).unwrap();
    let prints: Vec<&str> =
        results(&log).iter().map(|r| r["partialFingerprints"]["falseok/v1"].as_str().unwrap()).collect();
    assert!(prints.len() > 10);
    let mut unique = prints.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), prints.len(), "two results share a fingerprint");
    // The fingerprint does not depend on the other sources of the run.
    let (alone, _) = sarif_in(root(), &["scan", "sample-traces/peri-postmortem.db", "--format", "sarif", "--no-index"]);
    for r in results(&alone) {
        assert!(prints.contains(&r["partialFingerprints"]["falseok/v1"].as_str().unwrap()), "{r}");
    }
}

#[test]
fn check_writes_sarif_with_its_verdict_and_suppressed_results_carry_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("sample-traces/crush.db"), dir.path().join("crush.db")).unwrap();
    let (log, out) = sarif_in(dir.path(), &["check", "crush.db", "--format", "sarif", "--no-index"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("falseok check failed"), "{}", stderr(&out));
    assert_sarif(&log);
    assert!(results(&log).iter().all(|r| r.get("suppressions").is_none()));
    std::fs::write(
        dir.path().join("falseok.toml"),
        "[[suppress]]\nrule = \"hidden-error\"\ntool = \"*\"\nreason = \"Known since the postmortem.\"\n",
    )
    .unwrap();
    let (log, out) = sarif_in(dir.path(), &["check", "crush.db", "--format", "sarif", "--no-index"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_sarif(&log);
    let suppressed: Vec<&Value> = results(&log).iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert!(!suppressed.is_empty());
    for r in suppressed {
        let s = &r["suppressions"][0];
        assert_eq!(
            (s["kind"].as_str(), s["justification"].as_str()),
            (Some("external"), Some("Known since the postmortem."))
        );
        assert_eq!(s["location"]["physicalLocation"]["artifactLocation"]["uri"], "falseok.toml");
        assert_eq!(s["location"]["physicalLocation"]["region"]["startLine"], 1);
    }
}

#[test]
fn the_official_schema_refuses_what_is_not_sarif() {
    let (log, _) = sarif_in(root(), &["scan", "sample-traces/crush.db", "--format", "sarif", "--no-index"]);
    let validator = official();
    assert!(validator.is_valid(&log));
    for broken in [
        {
            let mut l = log.clone();
            l["version"] = "2.0.0".into();
            l
        },
        {
            let mut l = log.clone();
            l["runs"][0]["results"][0]["level"] = "fatal".into();
            l
        },
        {
            let mut l = log.clone();
            l["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] =
                serde_json::json!({"startLine": 0});
            l
        },
    ] {
        assert!(!validator.is_valid(&broken), "{broken}");
    }
}
