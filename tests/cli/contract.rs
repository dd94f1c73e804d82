//! The JSON output against its published contract, schema/report-v10.schema.json.

use crate::util::*;
use serde_json::Value;

fn schema() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report-v10.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn assert_valid(report: &Value) {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let errors: Vec<String> =
        validator.iter_errors(report).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "report violates the contract:\n{}", errors.join("\n"));
}

#[test]
fn fixture_report_matches_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    let v = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    assert_valid(&v);
}

#[test]
fn the_contract_rejects_what_it_should() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "threads.db", &fixture_sql("peri_small.sql"));
    let mut v = json(&run_in(dir.path(), &["scan", "threads.db", "--format", "json"]));
    v["tools"][0]["categories"]["made-up-category"] = 1.into();
    let validator = jsonschema::validator_for(&schema()).unwrap();
    assert!(!validator.is_valid(&v));
}

#[test]
fn schema_lists_exactly_the_category_slugs() {
    let s = schema();
    let listed: Vec<&str> =
        s["$defs"]["category"]["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let known: Vec<&str> = falseok::rules::Category::all().map(|c| c.as_str()).collect();
    assert_eq!(listed, known);
}

#[test]
fn sample_reports_match_the_contract() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for sample in ["sample-traces/peri-postmortem.db", "sample-traces/peri-postfix.db", "sample-traces/otel"] {
        assert_valid(&json(&run_in(root, &["scan", sample, "--format", "json"])));
    }
}

#[test]
fn schema_lists_exactly_the_finding_rules() {
    let s = schema();
    let v = &s["properties"]["findings"]["items"]["properties"]["rule"]["enum"];
    let listed: Vec<&str> =
        v.as_array().expect("findings.items.properties.rule.enum").iter().map(|v| v.as_str().unwrap()).collect();
    let known: Vec<&str> = falseok::rules::FindingRule::ids().collect();
    assert_eq!(listed, known);
}
