//! The shipped samples: every format's sample against its golden, and the
//! founding postmortem's figures and the post-fix era. That the generators
//! rebuild them byte for byte is checked by `cargo xtask samples --check`
//! (in `.ci/run`).

use crate::util::*;
use serde_json::{Value, json};

/// One loop over the registry: each format's sample (`FormatInfo::sample`)
/// is detected as that format and scans to its golden, so a new format needs
/// its sample and its blessed golden (`UPDATE_GOLDEN=1`), no test to edit.
/// Every difference is reported, each with its first differing line.
#[test]
fn every_format_sample_scans_to_its_golden() {
    let scans: Vec<(&Sample, std::process::Output)> = std::thread::scope(|scope| {
        let runs: Vec<_> = REGISTRY
            .iter()
            .map(|s| {
                scope.spawn(move || {
                    let mut args = vec!["scan", s.path];
                    if s.opt_in {
                        args.extend(["--source-format", s.format]);
                    }
                    args.extend(["--format", "json"]);
                    (s, run_in(root(), &args))
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut wrong = Vec::new();
    for (s, out) in &scans {
        let v = json(out);
        let formats: Vec<&Value> = v["sources"].as_array().unwrap().iter().map(|src| &src["format"]).collect();
        if formats.is_empty() || formats.iter().any(|f| *f != s.format) {
            wrong.push(format!("{}: read as {formats:?}, not {}", s.path, s.format));
        }
        if let Some(diff) = golden_mismatch(&s.golden, &stdout(out)) {
            wrong.push(format!("{}: {diff}", s.path));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn postmortem_figures() {
    let v = json(&run_in(root(), &["scan", "sample-traces/peri-postmortem.db", "--format", "json"]));
    let agent = tool(&v, "Agent");
    assert_eq!((agent["calls"].as_u64(), agent["errors"].as_u64()), (Some(1344), Some(45)));
    assert_eq!((agent["hidden_errors"].as_u64(), agent["flagged_errors"].as_u64()), (Some(45), Some(0)));
    assert_eq!(agent["categories"], json!({"missing-required-param": 37, "concurrency-limit": 5, "not-found": 3}));
    let edit = tool(&v, "Edit");
    assert_eq!((edit["calls"].as_u64(), edit["errors"].as_u64()), (Some(6233), Some(284)));
    assert_eq!((edit["hidden_errors"].as_u64(), edit["flagged_errors"].as_u64()), (Some(284), Some(0)));
    assert_eq!(
        edit["categories"],
        json!({"stale-edit-match": 132, "edit-match-not-found": 81, "edit-match-not-unique": 70, "other": 1})
    );
    assert_eq!(v["totals"]["hidden_errors"], 329);
    assert_eq!(v["totals"]["errors"], 329, "the other tools' ordinary traffic has no errors");
    assert_eq!(v["totals"]["unpaired_calls"], 1);
}

#[test]
fn postmortem_table_has_the_postmortem_breakdown() {
    let out = run_in(root(), &["scan", "sample-traces/peri-postmortem.db"]);
    assert!(out.status.success());
    let text = stdout(&out);
    // The five rows of the founding postmortem's table, with their shares.
    for row in [
        "subagent_type missing (foreground) │    21 │ 46.7%",
        "subagent_type missing (background) │    15 │ 33.3%",
        "background concurrency limit       │     5 │ 11.1%",
        "agent definition not found         │     3 │  6.7%",
        "prompt missing                     │     1 │  2.2%",
    ] {
        assert!(text.contains(row), "missing {row:?} in\n{text}");
    }
    assert!(text.contains("✗ 329 hidden errors (Edit 284, Agent 45)"), "{text}");
    assert_golden("peri-postmortem.txt", &text);
}

#[test]
fn postfix_has_nothing_hidden() {
    let v = json(&run_in(root(), &["scan", "sample-traces/peri-postfix.db", "--format", "json"]));
    assert_eq!(v["totals"]["hidden_errors"], 0);
    assert_eq!(v["totals"]["errors"], v["totals"]["flagged_errors"]);
    assert!(v["totals"]["errors"].as_u64().unwrap() > 20);
    let agent = tool(&v, "Agent");
    assert_eq!(agent["categories"]["missing-required-param"], 6, "wrapped texts land in the pre-fix categories");
    let edit = tool(&v, "Edit");
    assert!(edit["categories"]["stale-edit-match"].as_u64().unwrap() > 0);
    assert_golden(
        "peri-postfix.json",
        &stdout(&run_in(root(), &["scan", "sample-traces/peri-postfix.db", "--format", "json"])),
    );
}

#[test]
fn postmortem_sequences() {
    let v = json(&run_in(root(), &["scan", "sample-traces/peri-postmortem.db", "--format", "json"]));
    // The postmortem's run of identical hidden failures: the guard could not fire.
    let agent = v["streaks"]["by_tool"].as_array().unwrap().iter().find(|r| r["tool"] == "Agent").unwrap();
    assert_eq!(agent["hidden_at_or_above_threshold"], 1);
    assert_eq!(agent["longest"], 7, "the run of 6 identical calls plus an adjacent failure with the same message");
    let blind: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "guard-blind-streak").collect();
    assert_eq!(blind.len(), 1);
    assert_eq!(blind[0]["tool"], "Agent");
    // Adding subagent_type is the dominant Agent repair.
    let agent_repairs: Vec<&Value> = v["repairs"].as_array().unwrap().iter().filter(|r| r["tool"] == "Agent").collect();
    let top = agent_repairs.iter().max_by_key(|r| r["count"].as_u64()).unwrap();
    assert_eq!(top["change"], "added `subagent_type`");
    assert_eq!(top["category"], "missing-required-param");
    let added: u64 = agent_repairs
        .iter()
        .filter(|r| r["change"] == "added `subagent_type`")
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert!(added * 10 >= top["of"].as_u64().unwrap() * 9, "subagent_type added in at least 90% of the repairs");
    // Recovery of the missing parameter, measured.
    let rec = v["recovery"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == "Agent" && r["category"] == "missing-required-param")
        .unwrap();
    assert_eq!(rec["failures"], 37);
    assert_eq!(rec["identical_retries"], 5, "the run of 6 identical calls");
    assert_eq!(rec["identical_retry_successes"], 0);
}

#[test]
fn postfix_has_no_guard_blind_streak() {
    let v = json(&run_in(root(), &["scan", "sample-traces/peri-postfix.db", "--format", "json"]));
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["rule"] != "guard-blind-streak"));
    let edit = v["streaks"]["by_tool"].as_array().unwrap().iter().find(|r| r["tool"] == "Edit").unwrap();
    assert!(edit["at_or_above_threshold"].as_u64().unwrap() >= 1, "the flagged run of 5 is still a streak");
    assert_eq!(edit["hidden_at_or_above_threshold"], 0);
}
