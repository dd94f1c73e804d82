//! `examples`, `show` and `schemas` read every sample as `scan` does and
//! give every call the same category, also under `--tool-schemas`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::util::*;

/// Failures per (tool, category) that `examples` lists.
fn examples_counts(sample: &str, category: &str, extra: &[&str]) -> BTreeMap<String, u64> {
    let mut args = vec!["examples", sample, "--category", category, "--limit", "100000"];
    args.extend_from_slice(extra);
    let out = run_in(root(), &args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let mut counts = BTreeMap::new();
    for line in stdout(&out).lines().filter(|l| l.contains(" · call ")) {
        let tool = line.rsplit(" · ").next().unwrap().to_string();
        *counts.entry(tool).or_default() += 1;
    }
    counts
}

fn check_agreement(sample: &str, extra: &[&str]) {
    let mut args = vec!["scan", sample, "--format", "json"];
    args.extend_from_slice(extra);
    let report = json(&run_in(root(), &args));
    let mut by_category: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for row in report["categories"].as_array().unwrap() {
        let cat = row["category"].as_str().unwrap().to_string();
        by_category
            .entry(cat)
            .or_default()
            .insert(row["tool"].as_str().unwrap().to_string(), row["errors"].as_u64().unwrap());
    }
    assert!(!by_category.is_empty(), "{sample}: no failures to compare");
    for (category, tools) in by_category {
        assert_eq!(
            examples_counts(sample, &category, extra),
            tools,
            "{sample} {extra:?}: examples --category {category}"
        );
    }
}

#[test]
fn examples_agree_with_scan_on_every_sample() {
    for sample in SAMPLES.iter().filter(|s| !s.contains("postmortem")) {
        check_agreement(sample, &[]);
    }
}

#[test]
fn examples_agree_with_scan_under_tool_schemas() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "schema.db", &fixture_sql("peri_schema.sql"));
    let db = dir.path().join("schema.db").display().to_string();
    let schemas = root().join("tests/fixtures/schema_tools.json").display().to_string();
    check_agreement(&db, &["--tool-schemas", &schemas]);
    // The case the spine fixed: a call the schema step classifies.
    let counts = examples_counts(&db, "missing-required-param", &["--tool-schemas", &schemas]);
    assert_eq!(counts.get("Lookup"), Some(&1), "{counts:?}");
}

#[test]
fn show_and_schemas_read_every_sample() {
    for &sample in LOOP_SAMPLES.iter() {
        let rows = stdout(&run_in(root(), &["export", sample]));
        let first: Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
        let session = first["session"].as_str().unwrap();
        let out = run_in(root(), &["show", session, sample]);
        assert!(out.status.success(), "show {session} {sample}: {}", stderr(&out));
        assert!(stdout(&out).contains(&format!("session {session} · ")), "{}", stdout(&out));
        let out = run_in(root(), &["show", session, sample, "--call", "1"]);
        assert!(out.status.success(), "show --call 1 {sample}: {}", stderr(&out));
        let out = run_in(root(), &["schemas", sample]);
        assert!(out.status.success(), "schemas {sample}: {}", stderr(&out));
    }
}

/// The closing line of an `examples` listing: (shown, of, what).
fn shown_line(text: &str) -> (u64, u64, String) {
    let last = text.lines().last().unwrap_or_default();
    let re = regex::Regex::new(r"^(\d+) of (\d+) (.+?) shown(; --limit N shows more)?\.$").unwrap();
    let c = re.captures(last).unwrap_or_else(|| panic!("no \"N of M shown\" line at the end:\n{text}"));
    (c[1].parse().unwrap(), c[2].parse().unwrap(), c[3].to_string())
}

/// Issue 24 (new user F12, F13): `examples` without `--category` lists the
/// hidden errors (the flagged ones when none is hidden), and every listing
/// ends with "N of M shown", M being what `scan` counts.
#[test]
fn examples_without_a_category_lists_the_hidden_errors_and_says_how_many_it_shows() {
    let sample = "sample-traces/peri-postmortem.db";
    let report = json(&run_in(root(), &["scan", sample, "--format", "json"]));
    let out = run_in(root(), &["examples", sample]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let verdicts: Vec<&str> = text.lines().filter(|l| l.starts_with("  verdict: ")).collect();
    assert_eq!(verdicts.len(), 10, "the default --limit");
    assert!(verdicts.iter().all(|v| v.starts_with("  verdict: HIDDEN ERROR")), "{verdicts:?}");
    assert_eq!(shown_line(&text), (10, report["totals"]["hidden_errors"].as_u64().unwrap(), "hidden errors".into()));
    assert!(text.ends_with("; --limit N shows more.\n"));
    // With --tool, the tool's own count.
    let out = run_in(root(), &["examples", sample, "--tool", "Agent", "--limit", "100"]);
    let agent = tool(&report, "Agent")["hidden_errors"].as_u64().unwrap();
    assert_eq!(shown_line(&stdout(&out)), (agent, agent, "hidden errors of Agent".into()));

    // Nothing hidden after the fix: the flagged errors, said so first.
    let postfix = "sample-traces/peri-postfix.db";
    let report = json(&run_in(root(), &["scan", postfix, "--format", "json"]));
    assert_eq!(report["totals"]["hidden_errors"], 0);
    let text = stdout(&run_in(root(), &["examples", postfix, "--limit", "3"]));
    assert!(text.starts_with("No hidden errors; the flagged errors instead.\n"), "{text}");
    let flagged = report["totals"]["flagged_errors"].as_u64().unwrap();
    assert_eq!(shown_line(&text), (3, flagged, "flagged errors".into()));
    assert!(text.lines().filter(|l| l.starts_with("  verdict: ")).all(|l| l.contains("flag: error")), "{text}");

    // A category's listing says it too, and agrees with scan's count.
    for row in report["categories"].as_array().unwrap().iter().take(3) {
        let (cat, name) = (row["category"].as_str().unwrap(), row["tool"].as_str().unwrap());
        let text = stdout(&run_in(root(), &["examples", postfix, "--category", cat, "--tool", name, "--limit", "1"]));
        let n = row["errors"].as_u64().unwrap();
        assert_eq!(shown_line(&text), (1, n, format!("{cat} failures of {name}")), "{text}");
    }
}

/// Issue 50 (item 4): `show --call` prints every call's arguments as the
/// store holds them: never a null where the store has a value. Codex's
/// `local_shell_call` keeps its command at `action.command`; the only null
/// allowed is a request the agent itself could not parse (Goose's
/// "(unparsed request)": its store holds no arguments).
#[test]
fn show_prints_every_calls_real_arguments_on_every_sample() {
    let null = regex::Regex::new(r"(^|[:\[,])\s*null\s*([,}\]]|$)").unwrap();
    let mut checked = 0;
    for &sample in SAMPLES.iter().filter(|s| !s.contains("peri-post")) {
        let rows = stdout(&run_in(root(), &["export", sample, "--no-index"]));
        let sessions: std::collections::BTreeSet<String> = rows
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["session"].as_str().unwrap().to_string())
            .collect();
        for session in sessions {
            let listing = stdout(&run_in(root(), &["show", &session, sample]));
            let seqs: Vec<&str> = listing.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
            assert!(!seqs.is_empty(), "{sample} {session}: no calls shown:\n{listing}");
            for seq in seqs {
                let out = run_in(root(), &["show", &session, sample, "--call", seq]);
                assert!(out.status.success(), "{sample} {session} --call {seq}: {}", stderr(&out));
                let text = stdout(&out);
                let header = text.lines().next().unwrap_or_default();
                let args = text
                    .lines()
                    .find_map(|l| l.strip_prefix("  arguments: "))
                    .unwrap_or_else(|| panic!("{sample} {session} call {seq}: no arguments line:\n{text}"));
                checked += 1;
                if header.ends_with("· (unparsed request)") {
                    continue;
                }
                assert!(!null.is_match(args), "{sample} {session} call {seq} prints a null argument:\n{text}");
            }
        }
    }
    assert!(checked >= 200, "only {checked} calls checked");
    let codex = stdout(&run_in(root(), &["show", "0196b1e2", "sample-traces/codex", "--call", "call_04"]));
    assert!(codex.contains(r#"arguments: {"command":["ls","fixtures"]"#), "{codex}");
}

/// Issue 54: every command that reads a trace says on stderr what `scan`
/// says about it. A transcript with a line cut in half: `scan` notes the
/// skipped line, and `show`, `examples`, `schemas`, `sessions` and `export`
/// say the same line, once (`show` may read the sources twice).
#[test]
fn every_command_says_the_notes_scan_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = transcript_with_a_cut_line();
    std::fs::write(d.join("s-1.jsonl"), text).unwrap();
    let note = "falseok: warning: s-1.jsonl: 1 line is not a JSON record, skipped (line 2; a malformed-row finding)\n";
    let scan = run_in(d, &["scan", "s-1.jsonl", "--no-index"]);
    assert!(scan.status.success(), "{}", stderr(&scan));
    assert_eq!(stderr(&scan), note, "scan");
    let commands: [&[&str]; 5] = [
        &["show", "s-1", "s-1.jsonl"],
        &["examples", "s-1.jsonl"],
        &["schemas", "s-1.jsonl"],
        &["sessions", "s-1.jsonl", "--no-index"],
        &["export", "s-1.jsonl"],
    ];
    for args in commands {
        let out = run_in(d, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), note, "{args:?}");
    }
    // An id no session has: `show` reads the sources a second time (for
    // an id as a report shows it, redacted), and still says the note once,
    // before its error.
    let out = run_in(d, &["show", "nothing-like-it", "s-1.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with(note) && err.matches("not a JSON record").count() == 1, "{err}");
}
