//! `merge(scan(a), scan(b)) == scan(a, b)`: reports from many machines add
//! up to the report of one scan of all their sources.

use serde_json::Value;

use crate::util::*;

fn merged(parts: &[Value], dir: &std::path::Path) -> Value {
    let mut args = vec!["merge".to_string()];
    for (i, p) in parts.iter().enumerate() {
        let path = dir.join(format!("part{i}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(p).unwrap()).unwrap();
        args.push(path.display().to_string());
    }
    args.extend(["--format".to_string(), "json".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&run_in(root(), &args))
}

const SECTIONS: &[&str] = &[
    "sources",
    "totals",
    "tools",
    "categories",
    "reasons",
    "findings",
    "recovery",
    "streaks",
    "repairs",
    "feedback",
    "schema",
];

#[test]
fn merging_per_part_reports_equals_one_scan_of_all_parts() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        // The two eras of the founding postmortem: streaks, repairs, drift.
        &["sample-traces/peri-postmortem.db", "sample-traces/peri-postfix.db"],
        // Different formats and agents.
        &["sample-traces/crush.db", "sample-traces/opencode.db", "sample-traces/claude-code", "sample-traces/codex"],
        &["sample-traces/llm.db", "sample-traces/goose.db", "sample-traces/gemini", "sample-traces/falseok.db"],
    ];
    for parts in cases {
        let whole = scan_json(parts, &["--drift-min", "2"]);
        let each: Vec<Value> = parts.iter().map(|p| scan_json(&[p], &["--drift-min", "2"])).collect();
        let merged = merged(&each, dir.path());
        for section in SECTIONS {
            assert_eq!(merged[section], whole[section], "{parts:?}: section {section} differs");
        }
        assert_eq!(merged, whole, "{parts:?}");
        crate::contract::assert_valid(&merged);
    }
}

#[test]
fn drift_below_the_threshold_in_each_part_adds_up_across_parts() {
    // Each part names `subagent_type` fewer times than --drift-min; together
    // they reach it, as one scan would.
    let dir = tempfile::tempdir().unwrap();
    let parts = ["sample-traces/peri-postmortem.db", "sample-traces/peri-postfix.db"];
    let whole = scan_json(&parts, &["--drift-min", "40"]);
    let each: Vec<Value> = parts.iter().map(|p| scan_json(&[p], &["--drift-min", "40"])).collect();
    let drift =
        |v: &Value| v["schema"]["drift"].as_array().unwrap().iter().any(|d| d["rule"] == "optional-but-required");
    assert!(!drift(&each[0]) && !drift(&each[1]) && drift(&whole));
    assert_eq!(merged(&each, dir.path()), whole);
}

#[test]
fn reports_made_with_other_thresholds_or_versions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = scan_json(&["sample-traces/crush.db"], &[]);
    let b = scan_json(&["sample-traces/crush.db"], &["--streak-threshold", "3"]);
    let pa = dir.path().join("a.json");
    let pb = dir.path().join("b.json");
    std::fs::write(&pa, a.to_string()).unwrap();
    std::fs::write(&pb, b.to_string()).unwrap();
    let out = run_in(root(), &["merge", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--streak-threshold"), "{}", stderr(&out));
    let mut old = a.clone();
    old["schema_version"] = 3.into();
    std::fs::write(&pb, old.to_string()).unwrap();
    let out = run_in(root(), &["merge", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("contract v3"), "{}", stderr(&out));
}

/// A v8 report is a v9 report without suppressions: merge reads both, and
/// the merged report is v9. A v7 report is refused.
#[test]
fn merge_reads_v8_and_v9_reports() {
    let dir = tempfile::tempdir().unwrap();
    let a = scan_json(&["sample-traces/crush.db"], &[]);
    let mut old = scan_json(&["sample-traces/goose.db"], &[]);
    old["schema_version"] = 8.into();
    old.as_object_mut().unwrap().remove("suppressions");
    let (pa, pb) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&pa, a.to_string()).unwrap();
    std::fs::write(&pb, old.to_string()).unwrap();
    let out = run_in(root(), &["merge", pa.to_str().unwrap(), pb.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let merged = json(&out);
    assert_eq!(merged["schema_version"], 10);
    assert_eq!(merged["sources"].as_array().unwrap().len(), 2);
    crate::contract::assert_valid(&merged);
    old["schema_version"] = 7.into();
    std::fs::write(&pb, old.to_string()).unwrap();
    let out = run_in(root(), &["merge", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("contract v7; merge reads v8 to v10"), "{}", stderr(&out));
}

/// The same suppression in two reports: its counts add up, and the
/// findings keep their marks.
#[test]
fn merge_adds_up_the_counts_of_the_same_suppression() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("falseok.toml");
    std::fs::write(&config, "[[suppress]]\nrule = \"hidden-error\"\ntool = \"*\"\nreason = \"Known.\"\n").unwrap();
    let c = config.to_str().unwrap();
    let a = scan_json(&["sample-traces/crush.db"], &["--config", c]);
    let b = scan_json(&["sample-traces/goose.db"], &["--config", c]);
    let n = |v: &Value| v["suppressions"]["suppressed"].as_u64().unwrap();
    assert!(n(&a) > 0 && n(&b) > 0, "{}", a["suppressions"]);
    let (pa, pb) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&pa, a.to_string()).unwrap();
    std::fs::write(&pb, b.to_string()).unwrap();
    let merged = json(&run_in(root(), &["merge", pa.to_str().unwrap(), pb.to_str().unwrap(), "--format", "json"]));
    assert_eq!(n(&merged), n(&a) + n(&b));
    assert_eq!(merged["suppressions"]["entries"].as_array().unwrap().len(), 1);
    assert_eq!(merged["suppressions"]["reasons"], 1);
    let marked = merged["findings"].as_array().unwrap().iter().filter(|f| f["suppressed"].is_string()).count();
    assert_eq!(marked as u64, n(&merged));
}

/// Every free-text string of `v` (and the keys of its text-keyed maps)
/// with `evil` in front; the enum fields stay as they are.
fn taint(v: &Value, key: &str, evil: &str) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let k2 = if matches!(key, "histogram" | "categories") { format!("{evil}{k}") } else { k.clone() };
                    (k2, taint(x, k, evil))
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| taint(x, "[]", evil)).collect()),
        Value::String(s) if !matches!(key, "rule" | "severity") => Value::String(format!("{evil}{s}")),
        v => v.clone(),
    }
}

/// Issue 22, F14 (`gen_merge_escape.py`): strings a report file brings
/// (formats, categories, labels, kinds, histogram keys) reach the table,
/// Markdown and CSV of `merge` sanitized.
#[test]
fn merged_report_strings_are_sanitized() {
    let dir = tempfile::tempdir().unwrap();
    let report = scan_json(&["sample-traces/peri-postmortem.db"], &[]);
    let evil = "\u{1b}[31m\u{1b}]8;;http://e.example\u{7}L\u{1b}]8;;\u{7}\u{202e}\u{9b}2J\u{61c}";
    let path = dir.path().join("evil.json");
    std::fs::write(&path, taint(&report, "", evil).to_string()).unwrap();
    for format in ["table", "markdown", "csv", "json"] {
        let out = run_in(root(), &["merge", path.to_str().unwrap(), "--format", format, "--color", "never"]);
        assert!(out.status.success(), "{format}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains('L'), "{format}: the report is there");
        if format != "json" {
            assert!(!text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}', '\u{61c}']), "{format}: {text:?}");
            assert!(!text.contains("e.example"), "{format}: the link target is gone");
        }
    }
}

/// Issue 22, F3 (`repro_merge_panic.sh`): a report whose histograms claim
/// `u64::MAX` or 3e9 entries is refused in one line naming the file (it
/// panicked, or took 23 GB); one whose counts agree is merged from the
/// histograms, never expanded; totals that would wrap are refused.
#[test]
fn absurd_counts_are_refused_and_huge_histograms_never_expanded() {
    let dir = tempfile::tempdir().unwrap();
    let report = scan_json(&["sample-traces/peri-postmortem.db"], &[]);
    assert!(
        !report["recovery"].as_array().unwrap().is_empty()
            && !report["streaks"]["by_tool"].as_array().unwrap().is_empty()
    );
    let write = |name: &str, v: &Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let refused = |path: &str| {
        let out = run_in(root(), &["merge", path]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(path) && !err.contains("panicked"), "{err}");
    };
    for n in [u64::MAX, 3_000_000_000] {
        let mut bad = report.clone();
        bad["recovery"][0]["attempts"] = serde_json::json!({"1": n});
        refused(&write(&format!("attempts-{n}.json"), &bad));
        let mut bad = report.clone();
        bad["streaks"]["by_tool"][0]["lengths"] = serde_json::json!({"2": n});
        refused(&write(&format!("lengths-{n}.json"), &bad));
    }
    let mut wraps = report.clone();
    for key in ["calls", "errors", "hidden_errors", "content_errors", "flagged_errors"] {
        wraps["totals"][key] = (u64::MAX - 1).into();
    }
    let wraps = write("wraps.json", &wraps);
    refused(&wraps);
    // Counts that agree, in the billions: merged in no time and no memory.
    let mut big = report.clone();
    let row = &mut big["recovery"][0];
    row["attempts"] = serde_json::json!({"1": 3_000_000_000u64, "7": 1_000_000_000u64});
    row["recovered"] = 4_000_000_000u64.into();
    row["failures"] = 4_000_000_000u64.into();
    row["recovered_at_1"] = 3_000_000_000u64.into();
    row["recovered_at_2"] = 0.into();
    row["recovered_at_3"] = 0.into();
    row["abandoned"] = 0.into();
    row["identical_retries"] = 0.into();
    row["identical_retry_successes"] = 0.into();
    // Its cost row counts the same failures, as a scan writes it.
    let (tool, category) = (row["tool"].clone(), row["category"].clone());
    for cost in big["cost"].as_array_mut().unwrap() {
        if cost["tool"] == tool && cost["category"] == category {
            cost["failures"] = 4_000_000_000u64.into();
        }
    }
    // Two machines' reports of the same counts (a report given twice is counted once).
    let mut other = big.clone();
    other["sources"][0]["path"] = "elsewhere.db".into();
    let (big, other) = (write("big.json", &big), write("other.json", &other));
    let merged = json(&run_in(root(), &["merge", &big, &other, "--format", "json"]));
    let first = &merged["recovery"].as_array().unwrap().iter().find(|r| r["recovered"] == 8_000_000_000u64).unwrap();
    assert_eq!(first["median_attempts"], 1.0);
    assert_eq!(first["attempts"]["7"], 2_000_000_000u64);
}

/// Issue 24 (new user F11): the same report given twice, under any name or
/// as a copy, is counted once, with one warning line naming it.
#[test]
fn the_same_report_twice_is_counted_once_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = stdout(&run_in(root(), &["scan", "sample-traces/crush.db", "--format", "json"]));
    let b = stdout(&run_in(root(), &["scan", "sample-traces/goose.db", "--format", "json"]));
    std::fs::write(d.join("a.json"), &a).unwrap();
    std::fs::write(d.join("copy.json"), &a).unwrap();
    std::fs::write(d.join("b.json"), &b).unwrap();
    std::fs::hard_link(d.join("a.json"), d.join("hard.json")).unwrap();
    let once = json(&run_in(d, &["merge", "a.json", "b.json", "--format", "json"]));
    for (args, warning) in [
        (&["a.json", "a.json", "b.json"][..], "falseok: warning: a.json: given twice, counted once\n"),
        (&["a.json", "b.json", "./a.json"], "falseok: warning: ./a.json: the same report as a.json, counted once\n"),
        (&["a.json", "b.json", "hard.json"], "falseok: warning: hard.json: the same report as a.json, counted once\n"),
        (&["a.json", "copy.json", "b.json"], "falseok: warning: copy.json: the same report as a.json, counted once\n"),
    ] {
        let mut cmd = vec!["merge"];
        cmd.extend_from_slice(args);
        cmd.extend_from_slice(&["--format", "json"]);
        let out = run_in(d, &cmd);
        assert_eq!(stderr(&out), warning, "{args:?}");
        let v = json(&out);
        assert_eq!(v["totals"], once["totals"], "{args:?}");
        assert_eq!(v["sources"], once["sources"], "{args:?}");
    }
    // Two different reports: no warning.
    assert_eq!(stderr(&run_in(d, &["merge", "a.json", "b.json"])), "");
}
