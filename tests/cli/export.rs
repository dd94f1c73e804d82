//! `export`: one row per judged call, against its contract, and in
//! agreement with `scan` on every sample.

use crate::util::*;
use serde_json::Value;

fn rows(args: &[&str]) -> Vec<Value> {
    let out = run_in(root(), args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

#[test]
fn rows_follow_the_contract_in_a_fixed_key_order() {
    let text = std::fs::read_to_string(root().join("schema/export-v1.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let order: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for sample in ["sample-traces/peri-postfix.db", "sample-traces/crush.db", "sample-traces/claude-code"] {
        let out = run_in(root(), &["export", sample]);
        for line in stdout(&out).lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{sample}: {errors:?}\n{line}");
            // serde_json's map keeps insertion order only with preserve_order;
            // read the keys off the text instead.
            let mut at = 0;
            for key in &order {
                let found =
                    line[at..].find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{key} out of order in {line}"));
                at += found;
            }
        }
    }
}

#[test]
fn export_counts_equal_scan_totals_on_every_sample() {
    for sample in SAMPLES {
        let report = json(&run_in(root(), &["scan", sample, "--format", "json"]));
        let t = &report["totals"];
        let rows = rows(&["export", sample]);
        let count = |k: &str| rows.iter().filter(|r| r[k] == true).count() as u64;
        assert_eq!(rows.len() as u64, t["calls"].as_u64().unwrap(), "{sample}: calls");
        assert_eq!(count("hidden"), t["hidden_errors"].as_u64().unwrap(), "{sample}: hidden");
        assert_eq!(count("flagged"), t["flagged_errors"].as_u64().unwrap(), "{sample}: flagged");
        assert_eq!(count("error"), t["errors"].as_u64().unwrap(), "{sample}: errors");
        assert_eq!(rows.iter().filter(|r| r["paired"] == false).count() as u64, t["unpaired_calls"].as_u64().unwrap());
    }
}

#[test]
fn filters_apply_and_partitions_are_hive_style_days() {
    let all = rows(&["export", "sample-traces/peri-postmortem.db"]);
    let edit = rows(&["export", "sample-traces/peri-postmortem.db", "--tool", "Edit"]);
    assert!(edit.iter().all(|r| r["tool"] == "Edit"));
    assert_eq!(edit.len(), all.iter().filter(|r| r["tool"] == "Edit").count());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("calls");
    let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", out.to_str().unwrap(), "--partition"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let days = listing(&out);
    assert!(!days.is_empty() && days.iter().all(|d| d.starts_with("date=")), "{days:?}");
    let mut n = 0;
    for d in &days {
        assert_eq!(listing(&out.join(d)), vec!["part-00000.ndjson"]);
        n += std::fs::read_to_string(out.join(d).join("part-00000.ndjson")).unwrap().lines().count();
    }
    assert_eq!(n, rows(&["export", "sample-traces/crush.db"]).len());
    // Never onto an input.
    let input = root().join("sample-traces/crush.db");
    let before = std::fs::read(&input).unwrap();
    let o = run_in(root(), &["export", "sample-traces/crush.db", "--out", "sample-traces/crush.db"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}
