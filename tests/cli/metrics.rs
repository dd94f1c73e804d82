//! `falseok metrics`: the exposition text checked by the real `promtool`
//! on every shipped sample, its counters against `scan --format json`,
//! `--out` written whole or not at all, and the shipped Grafana dashboard
//! and alert rules (docs/grafana, docs/prometheus) naming only metrics the
//! text has, with the alert rules' own unit tests run by `promtool`.
//!
//! `promtool` is Debian's `prometheus` package (`.ci/run` installs it).
//! Without it these tests fail, unless `FALSEOK_SKIP_PROMTOOL=1` says to
//! skip the promtool checks.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::*;

/// `promtool`, or `None` when the tests are told to skip it; a missing
/// promtool is a failure, never a silent pass.
#[allow(clippy::print_stderr)] // the one note a skipped check leaves
pub(crate) fn promtool() -> Option<PathBuf> {
    if std::env::var("FALSEOK_SKIP_PROMTOOL").is_ok_and(|v| v == "1") {
        eprintln!("FALSEOK_SKIP_PROMTOOL=1: the promtool checks of the metrics are skipped");
        return None;
    }
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join("promtool")).find(|p| p.is_file()))
        .unwrap_or_default();
    match found {
        Some(p) => Some(p),
        None => panic!(
            "promtool is not installed: .ci/run installs it (apt-get install -y prometheus); \
             set FALSEOK_SKIP_PROMTOOL=1 to skip the promtool checks"
        ),
    }
}

/// `promtool check metrics` on `text`: (exit success, its output).
pub(crate) fn check_metrics(promtool: &Path, text: &str) -> (bool, String) {
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

fn metrics_text(paths: &[&str]) -> String {
    let mut args = vec!["metrics"];
    args.extend_from_slice(paths);
    let out = run_in(root(), &args);
    assert_eq!(out.status.code(), Some(0), "{paths:?}: {}", stderr(&out));
    stdout(&out)
}

/// The samples of one metric family: labels (as written) -> value.
fn family(text: &str, name: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            let (n, labels) = key.split_once('{').unwrap_or((key, ""));
            (n == name).then(|| (labels.trim_end_matches('}').to_string(), value.parse::<f64>().unwrap()))
        })
        .collect()
}

fn sum(text: &str, name: &str, with: &str) -> u64 {
    family(text, name).iter().filter(|(l, _)| l.contains(with)).map(|(_, v)| *v).sum::<f64>() as u64
}

/// The metric names the text declares (`# TYPE` lines).
fn names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .map(String::from)
        .collect()
}

/// The counters of `metrics` against the JSON report of `scan`: calls,
/// hidden and flagged errors, guard-blind streaks, sessions.
fn assert_adds_up(what: &str, text: &str, report: &serde_json::Value) {
    let (calls, flagged, hidden) = totals(report);
    assert_eq!(sum(text, "falseok_tool_calls_total", ""), calls, "{what}: calls");
    assert_eq!(sum(text, "falseok_tool_errors_total", "signal=\"hidden\""), hidden, "{what}: hidden");
    assert_eq!(sum(text, "falseok_tool_errors_total", "signal=\"flagged\""), flagged, "{what}: flagged");
    assert_eq!(
        sum(text, "falseok_tool_errors_total", ""),
        report["totals"]["errors"].as_u64().unwrap(),
        "{what}: the two signals partition the errors"
    );
    let blind: u64 = report["streaks"]["by_tool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["hidden_at_or_above_threshold"].as_u64().unwrap())
        .sum();
    assert_eq!(sum(text, "falseok_guard_blind_streaks_total", ""), blind, "{what}: guard-blind streaks");
    let findings = report["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "guard-blind-streak").count();
    assert_eq!(blind, findings as u64, "{what}: one guard-blind-streak finding per streak");
    assert_eq!(
        sum(text, "falseok_sessions_total", ""),
        report["totals"]["sessions"].as_u64().unwrap(),
        "{what}: sessions"
    );
}

#[test]
fn every_sample_passes_promtool_and_adds_up_to_scan() {
    let promtool = promtool();
    for sample in LOOP_SAMPLES.iter() {
        let text = metrics_text(&[sample]);
        assert_adds_up(sample, &text, &scan_json(&[sample], &[]));
        if let Some(p) = &promtool {
            let (ok, said) = check_metrics(p, &text);
            assert!(ok && said.trim().is_empty(), "{sample}: promtool check metrics: {said}\n{text}");
        }
    }
    // Every sample at once: agents of every format side by side.
    let all: Vec<&str> = LOOP_SAMPLES.to_vec();
    let text = metrics_text(&all);
    assert_adds_up("all samples", &text, &scan_json(&all, &[]));
    let agents: BTreeSet<String> = family(&text, "falseok_sessions_total").into_keys().collect();
    assert!(agents.len() >= 20, "{agents:?}");
    if let Some(p) = &promtool {
        let (ok, said) = check_metrics(p, &text);
        assert!(ok && said.trim().is_empty(), "all samples: promtool check metrics: {said}");
    }
}

/// promtool must be able to fail: a counter without `_total`, a family
/// without help and an unescaped label value are complaints.
#[test]
fn promtool_complains_about_broken_text() {
    let Some(p) = promtool() else { return };
    let good = metrics_text(&["sample-traces/crush.db"]);
    assert!(check_metrics(&p, &good).0);
    let renamed = good.replace("falseok_tool_calls_total", "falseok_tool_calls");
    let (ok, said) = check_metrics(&p, &renamed);
    assert!(!ok && said.contains("_total"), "{said}");
    let no_help: String =
        good.lines().filter(|l| !l.starts_with("# HELP falseok_sources ")).map(|l| format!("{l}\n")).collect();
    let (ok, said) = check_metrics(&p, &no_help);
    assert!(!ok && said.contains("no help text"), "{said}");
    // A label value left unescaped breaks the text.
    let (ok, _) = check_metrics(&p, &good.replacen("agent=\"crush\"", "agent=\"cr\"ush\"", 1));
    assert!(!ok, "an unescaped quote must fail");
}

#[test]
fn the_peri_sample_in_numbers() {
    let text = metrics_text(&["sample-traces/peri-postmortem.db"]);
    let errors = family(&text, "falseok_tool_errors_total");
    let key = "agent=\"peri\",category=\"stale-edit-match\",signal=\"hidden\",tool=\"Edit\"";
    assert_eq!(errors.get(key), Some(&132.0), "{text}");
    assert_eq!(sum(&text, "falseok_tool_errors_total", "tool=\"Agent\",signal=\"hidden\""), 0);
    assert_eq!(sum(&text, "falseok_tool_errors_total", "signal=\"hidden\",tool=\"Agent\""), 45);
    assert_eq!(family(&text, "falseok_tool_calls_total").get("agent=\"peri\",tool=\"Edit\""), Some(&6233.0));
    // No session or call ids: the labels are agent, category, signal, tool
    // and the build's.
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((_, labels)) = l.split_once('{') else { continue };
        for pair in labels.trim_end_matches(|c| c != '}').trim_end_matches('}').split("\",") {
            let name = pair.split('=').next().unwrap();
            assert!(
                // `action` and `verdict`: the live guard's series, on a machine where it ran.
                ["agent", "category", "signal", "tool", "contract", "rules", "version", "action", "verdict"]
                    .contains(&name),
                "{name} in {l}"
            );
        }
    }
    // The same input, the same text but for the scan's time.
    let again = metrics_text(&["sample-traces/peri-postmortem.db"]);
    let strip = |t: &str| t.lines().filter(|l| !l.starts_with("falseok_last_scan")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&text), strip(&again));
}

#[test]
fn out_writes_the_file_whole_and_a_bad_path_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let crush = root().join("sample-traces/crush.db");
    let crush = crush.to_str().unwrap();
    let out = run_in(dir.path(), &["metrics", crush, "--out", "falseok.prom"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(dir.path().join("falseok.prom")).unwrap();
    assert!(written.starts_with("# HELP falseok_build_info "), "{written}");
    assert!(written.contains("falseok_tool_calls_total{"));
    assert_eq!(listing(dir.path()), vec!["falseok.prom"], "no temporary file left");
    // A bad PATH: one line, exit 2, and the old file stays as it was.
    let out = run_in(dir.path(), &["metrics", "missing.db", "--out", "falseok.prom"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.db"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.path().join("falseok.prom")).unwrap(), written);
    assert_eq!(listing(dir.path()), vec!["falseok.prom"]);
    // A bad PATH without an old file: nothing is created.
    let out = run_in(dir.path(), &["metrics", "missing.db", "--out", "new.prom"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(listing(dir.path()), vec!["falseok.prom"]);
    // A file that is not falseok's is not replaced without --force.
    std::fs::write(dir.path().join("other.prom"), "node_thing 1\n").unwrap();
    let out = run_in(dir.path(), &["metrics", crush, "--out", "other.prom"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.path().join("other.prom")).unwrap(), "node_thing 1\n");
    let out = run_in(dir.path(), &["metrics", crush, "--out", "other.prom", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A folder that does not exist is named, and not made.
    let out = run_in(dir.path(), &["metrics", crush, "--out", "nowhere/falseok.prom"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nowhere"), "{}", stderr(&out));
    assert!(!dir.path().join("nowhere").exists());
    // Never into an input's folder.
    let copy = dir.path().join("traces");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(root().join("sample-traces/crush.db"), copy.join("crush.db")).unwrap();
    let out = run_in(dir.path(), &["metrics", "traces", "--out", "traces/falseok.prom"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(listing(&copy), vec!["crush.db"]);
}

/// The metric names a PromQL expression uses.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"\bfalseok_[a-z_]+").unwrap();
    re.find_iter(expr).map(|m| m.as_str().to_string()).collect()
}

#[test]
fn the_dashboard_and_the_alert_rules_name_only_emitted_metrics() {
    let emitted = names(&metrics_text(&["sample-traces/peri-postmortem.db"]));
    assert!(emitted.len() >= 10, "{emitted:?}");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/grafana/falseok-dashboard.json")).unwrap())
            .unwrap();
    let panels = dashboard["panels"].as_array().unwrap();
    let mut used = BTreeSet::new();
    for panel in panels {
        let targets = panel["targets"].as_array().unwrap_or_else(|| panic!("{} has no targets", panel["title"]));
        assert!(!targets.is_empty(), "{}", panel["title"]);
        for t in targets {
            let expr = t["expr"].as_str().unwrap();
            let names = metric_names(expr);
            assert!(!names.is_empty(), "{}: {expr}", panel["title"]);
            for n in &names {
                assert!(emitted.contains(n), "panel {}: {n} is not a metric falseok emits", panel["title"]);
            }
            used.extend(names);
        }
    }
    // What the brief asks a dashboard to show.
    let exprs: Vec<&str> =
        panels.iter().flat_map(|p| p["targets"].as_array().unwrap()).map(|t| t["expr"].as_str().unwrap()).collect();
    assert!(exprs.iter().any(|e| e.contains("signal=\"hidden\"") && e.contains("falseok_tool_calls_total")));
    assert!(exprs.iter().any(|e| e.contains("by (category")));
    for needed in ["falseok_guard_blind_streaks_total", "falseok_last_scan_timestamp_seconds"] {
        assert!(used.contains(needed), "no panel shows {needed}");
    }
    let rules = std::fs::read_to_string(root().join("docs/prometheus/falseok-alerts.yml")).unwrap();
    let in_rules = metric_names(&rules);
    assert!(in_rules.contains("falseok_guard_blind_streaks_total"), "{in_rules:?}");
    for n in &in_rules {
        // The rules' texts may name the threshold gauge; it is emitted too.
        assert!(emitted.contains(n), "the alert rules name {n}, which falseok does not emit");
    }
}

#[test]
fn promtool_checks_and_tests_the_alert_rules() {
    let Some(p) = promtool() else { return };
    let dir = root().join("docs/prometheus");
    for args in [&["check", "rules", "falseok-alerts.yml"][..], &["test", "rules", "falseok-alerts.test.yml"]] {
        let out = Command::new(&p).args(args).current_dir(&dir).output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "promtool {args:?}: {said}");
        assert!(said.contains("SUCCESS"), "promtool {args:?}: {said}");
    }
}
