//! The CI gate (exit codes, thresholds, baselines) and every output format:
//! golden files on the small fixture, and hostile trace text in each.

use std::path::Path;

use crate::util::*;

fn code(dir: &Path, args: &[&str]) -> i32 {
    run_in(dir, args).status.code().unwrap()
}

#[test]
fn exit_codes() {
    let dir = small();
    let d = dir.path();
    assert_eq!(code(d, &["check", "threads.db"]), 1, "hidden errors fail by default");
    assert_eq!(code(d, &["check", "threads.db", "--exit-zero"]), 0);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "2"]), 0);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "1"]), 1);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--max-error-rate", "50%"]), 0, "46.15% overall");
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--max-error-rate", "0.4"]), 1);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--max-error-rate", "Edit=0.7"]), 0);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--max-error-rate", "Edit=0.6"]), 1);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--fail-on", "unpaired-call"]), 1);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--fail-on", "timeout,guard-blind-streak"]), 0);
    assert_eq!(code(d, &["check", "threads.db", "--max-hidden", "9", "--fail-on", "unknown-tool"]), 1, "a category");
    assert_eq!(code(d, &["check", "threads.db", "--fail-on", "no-such-rule"]), 2, "usage error");
    assert_eq!(code(d, &["check", "threads.db", "--max-error-rate", "2"]), 2, "a rate above 1");
    assert_eq!(code(d, &["check", "threads.db", "missing.db"]), 2, "2 wins over 1");
    assert_eq!(code(d, &["check", "threads.db", "missing.db", "--exit-zero"]), 2, "--exit-zero never hides an error");
    assert_eq!(code(d, &["check", "threads.db", "--tool", "Read"]), 0, "no hidden errors among Read calls");
}

#[test]
fn last_line_says_why() {
    let dir = small();
    let out = run_in(dir.path(), &["check", "threads.db"]);
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert_eq!(last, "falseok check failed: 2 hidden errors (limit 0).");
    let out = run_in(dir.path(), &["check", "threads.db", "--max-hidden", "5", "--max-error-rate", "Bash=10%"]);
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert_eq!(last, "falseok check failed: Bash error rate 50.00% above 10.00%.");
    let out = run_in(dir.path(), &["check", "threads.db", "--max-hidden", "5"]);
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert_eq!(last, "falseok check passed: 2 hidden errors (limit 5), error rate 46.15%.");
    // Machine formats keep stdout clean; the sentence goes to stderr.
    let out = run_in(dir.path(), &["check", "threads.db", "--format", "json"]);
    assert!(serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok());
    assert_eq!(stderr(&out).lines().last().unwrap(), "falseok check failed: 2 hidden errors (limit 0).");
}

#[test]
fn baseline_round_trip() {
    let dir = small();
    let d = dir.path();
    let out = run_in(d, &["check", "threads.db", "--write-baseline", "baseline.json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("+6 / -0 findings (6 entries, 6 findings)"), "{}", stdout(&out));
    let text = std::fs::read_to_string(d.join("baseline.json")).unwrap();
    assert!(!text.contains("threads.db") && !text.contains(&d.display().to_string()), "no paths in fingerprints");
    assert!(!text.contains("\"row"), "no row ids");
    // Re-checking against it passes.
    assert_eq!(code(d, &["check", "threads.db", "--baseline", "baseline.json"]), 0);
    // Rewriting it unchanged reports no change.
    let out = run_in(d, &["check", "threads.db", "--write-baseline", "baseline.json"]);
    assert!(stdout(&out).contains("+0 / -0"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(d.join("baseline.json")).unwrap(), text, "deterministic");
    // A new hidden error fails.
    let conn = rusqlite::Connection::open(d.join("threads.db")).unwrap();
    conn.execute_batch(
        r#"INSERT INTO messages VALUES ('n1', '019e6f00-0000-7000-8000-00000000000c', 'assistant',
             '{"role":"assistant","id":"n1","content":[{"type":"tool_use","id":"new1","name":"Glob","input":{"pattern":"*"}}]}'),
           ('n2', '019e6f00-0000-7000-8000-00000000000c', 'tool',
             '{"role":"tool","id":"n2","tool_call_id":"new1","content":"Error: Directory not found: /nope","is_error":false}');"#,
    )
    .unwrap();
    drop(conn);
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).ends_with("falseok check failed: 1 hidden error not in the baseline (limit 0).\n"),
        "{}",
        stdout(&out)
    );
    // Old sessions rotating out: stale entries are reported, not fatal.
    let conn = rusqlite::Connection::open(d.join("threads.db")).unwrap();
    conn.execute_batch(
        "DELETE FROM messages WHERE thread_id = '019e2a00-0000-7000-8000-00000000000b' OR message_id IN ('n1', 'n2');",
    )
    .unwrap();
    drop(conn);
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("baseline findings (1 entries) no longer occur"), "{}", stderr(&out));
    let out = run_in(d, &["check", "threads.db", "--write-baseline", "baseline.json"]);
    assert!(stdout(&out).contains("+0 / -1"), "{}", stdout(&out));
}

/// Issue 50 (item 3): a gate that passes on its baseline says one thing.
/// In the terminal, the Markdown summary and the HTML page, the hidden
/// errors the baseline holds are stated as known, with no red mark before
/// "check passed"; a new one leads, named by tool. A per-tool limit's pass
/// sentence quotes that tool's rate, not the overall one.
#[test]
fn a_gate_passing_on_its_baseline_says_one_thing() {
    let dir = small();
    let d = dir.path();
    assert!(run_in(d, &["check", "threads.db", "--write-baseline", "baseline.json"]).status.success());
    let known = "✓ 0 new hidden errors: the 2 hidden errors found (Agent 1, Edit 1) are known, all in the baseline.";
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json", "--max-error-rate", "Edit=0.7"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(!text.contains('✗'), "a red mark on a passing gate:\n{text}");
    let tail: Vec<&str> = text.lines().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "falseok check passed: 0 hidden errors not in the baseline (limit 0), Edit error rate 66.67% (limit 70.00%).",
            "",
            known
        ]
    );
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json", "--format", "markdown"]);
    let md = stdout(&out);
    assert!(md.contains(&format!("**{known}**")) && !md.contains('✗'), "{md}");
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json", "--format", "html"]);
    let html = stdout(&out);
    assert!(html.contains(&format!("<p class=\"verdict good\" id=\"verdict\">{known}</p>")), "{html}");
    assert!(!html.contains("class=\"verdict bad\""), "a red verdict on a passing gate");
    // Without a baseline the same hidden errors are the news, in red.
    let out = run_in(d, &["check", "threads.db", "--max-hidden", "5"]);
    assert!(stdout(&out).contains("✗ 2 hidden errors (Agent 1, Edit 1): 2 of 6 errors came back"), "{}", stdout(&out));
    // A new hidden error leads; the known ones follow, as known.
    let conn = rusqlite::Connection::open(d.join("threads.db")).unwrap();
    conn.execute_batch(
        r#"INSERT INTO messages VALUES ('n1', '019e6f00-0000-7000-8000-00000000000c', 'assistant',
             '{"role":"assistant","id":"n1","content":[{"type":"tool_use","id":"new1","name":"Glob","input":{"pattern":"*"}}]}'),
           ('n2', '019e6f00-0000-7000-8000-00000000000c', 'tool',
             '{"role":"tool","id":"n2","tool_call_id":"new1","content":"Error: Directory not found: /nope","is_error":false}');"#,
    )
    .unwrap();
    drop(conn);
    let out = run_in(d, &["check", "threads.db", "--baseline", "baseline.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("✗ 1 new hidden error (Glob 1) not in the baseline; 2 more are known (in the baseline).\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_baselines_exit_2() {
    let dir = small();
    let d = dir.path();
    let out = run_in(d, &["check", "threads.db", "--baseline", "nope.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.json: baseline not found"));
    std::fs::write(d.join("bad.json"), "{\"entries\": 3}").unwrap();
    let out = run_in(d, &["check", "threads.db", "--baseline", "bad.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad.json: not a falseok baseline"), "{}", stderr(&out));
    // Never overwrite a file that is not a baseline, and never the input.
    let out = run_in(d, &["check", "threads.db", "--write-baseline", "bad.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(d.join("bad.json")).unwrap(), "{\"entries\": 3}");
    let before = std::fs::read(d.join("threads.db")).unwrap();
    let out = run_in(d, &["check", "threads.db", "--write-baseline", "threads.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(d.join("threads.db")).unwrap(), before);
}

#[test]
fn golden_outputs_of_every_format() {
    let dir = small();
    for (format, golden) in [
        ("markdown", "peri_small.md"),
        ("csv", "peri_small.csv"),
        ("github", "peri_small.github.txt"),
        ("junit", "peri_small.junit.xml"),
        ("html", "peri_small.html"),
        ("sarif", "peri_small.sarif"),
    ] {
        // The HTML page says when it was made: `SOURCE_DATE_EPOCH` fixes it.
        let out = std::process::Command::new(BIN)
            .args(["scan", "threads.db", "--format", format])
            .current_dir(dir.path())
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .env_remove("NO_COLOR")
            .env_remove("COLUMNS")
            .output()
            .unwrap();
        assert!(out.status.success(), "{format}: {}", stderr(&out));
        assert_golden(golden, &stdout(&out));
    }
}

#[test]
fn summary_is_appended() {
    let dir = small();
    std::fs::write(dir.path().join("summary.md"), "previous step\n").unwrap();
    let out = run_in(dir.path(), &["check", "threads.db", "--format", "github", "--summary", "summary.md"]);
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(text.starts_with("previous step\n# falseok postmortem"), "{text}");
    assert!(text.contains("falseok check failed: 2 hidden errors (limit 0)."));
}

#[test]
fn github_annotations_are_capped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = run_in(root, &["check", "sample-traces/peri-postmortem.db", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let errors = text.lines().filter(|l| l.starts_with("::error ")).count();
    let warnings = text.lines().filter(|l| l.starts_with("::warning ")).count();
    assert_eq!((errors, warnings), (10, 4), "with the optional-but-required drift finding");
    assert!(text.lines().nth(1).unwrap().contains("guard-blind-streak"), "the most severe finding comes first");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("::notice title=falseok::321 more findings were not annotated"), "{last}");
}

#[test]
fn hostile_text_is_neutralized_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    db_from_sql(dir.path(), "hostile.db", &fixture_sql("hostile.sql"));
    for format in ["table", "csv", "json"] {
        let out = run_in(dir.path(), &["sessions", "hostile.db", "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(0), "sessions {format}: {}", stderr(&out));
        let text = stdout(&out);
        for (what, bad) in [("ESC", '\u{1b}'), ("BEL", '\u{7}'), ("NUL", '\0'), ("RLO", '\u{202e}'), ("CSI", '\u{9b}')]
        {
            assert!(!text.contains(bad), "sessions {format}: raw {what}");
        }
        assert!(!text.contains("SECRETSECRET"), "sessions {format}: the secret is redacted");
    }
    for format in ["table", "json", "markdown", "csv", "github", "junit", "html", "sarif"] {
        for cmd in ["scan", "check"] {
            let out = run_in(dir.path(), &[cmd, "hostile.db", "--format", format, "--color", "never"]);
            assert_ne!(out.status.code(), Some(2), "{cmd} {format}: {}", stderr(&out));
            let text = stdout(&out);
            let err = stderr(&out);
            for (what, bad) in
                [("ESC", '\u{1b}'), ("BEL", '\u{7}'), ("NUL", '\0'), ("RLO", '\u{202e}'), ("CSI", '\u{9b}')]
            {
                assert!(!text.contains(bad) && !err.contains(bad), "{cmd} {format}: raw {what}");
            }
            assert!(!text.contains("SECRETSECRET"), "{cmd} {format}: the secret is redacted");
            assert!(!text.contains("evil.example"), "{cmd} {format}: the OSC 8 link target is gone");
            for line in text.lines() {
                let forged = line.starts_with("::")
                    && !line.starts_with("::error title=falseok")
                    && !line.starts_with("::warning title=falseok")
                    && !line.starts_with("::notice title=falseok");
                assert!(!forged, "{cmd} {format}: forged workflow command {line:?}");
            }
            match format {
                "junit" => assert!(!text.contains("<script>"), "{cmd} {format}: raw HTML"),
                "html" => {
                    assert_eq!(text.matches("<script").count(), 1, "{cmd} {format}: only the page's own script");
                    assert!(!text.contains("<img") && !text.contains("<iframe"), "{cmd} {format}: raw HTML");
                }
                "markdown" => {
                    for line in text.lines() {
                        assert!(!outside_code_spans(line).contains("<script>"), "{cmd} {format}: raw HTML in {line:?}");
                    }
                }
                "csv" => assert!(text.contains("\n'=Evil"), "{cmd} {format}: formula neutralized:\n{text}"),
                "github" => assert!(text.contains("100%25"), "{cmd} {format}: % escaped"),
                _ => {}
            }
        }
    }
    // --no-redact shows the secret (and only then).
    let out = run_in(dir.path(), &["examples", "hostile.db", "--category", "other", "--no-redact"]);
    assert!(stdout(&out).contains("SECRETSECRET"));
    let out = run_in(dir.path(), &["examples", "hostile.db", "--category", "other"]);
    assert!(!stdout(&out).contains("SECRETSECRET"));
    assert!(!stdout(&out).contains('\u{1b}'));
}

/// A Markdown line without its code spans (where HTML is shown literally).
fn outside_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let run = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(run);
        let after = &rest[start + run..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + run..],
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn drill_down() {
    let dir = small();
    let out = run_in(dir.path(), &["examples", "threads.db", "--category", "stale-edit-match"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("call 5 (call_e2) · Edit"), "{text}");
    assert!(text.contains("HIDDEN ERROR · stale-edit-match (flag: success; content: error-prefix)"), "{text}");
    assert!(text.contains("\"old_string\":\"Ok(format!(\""), "{text}");
    assert!(text.contains("    Error: old_string not found in /w/src/edit.rs"), "{text}");
    let out = run_in(
        dir.path(),
        &["examples", "threads.db", "--category", "missing-required-param", "--tool", "Agent", "--limit", "1"],
    );
    assert_eq!(stdout(&out).matches("\n[").count() + usize::from(stdout(&out).starts_with('[')), 1);
    let out = run_in(dir.path(), &["examples", "threads.db", "--category", "timeout"]);
    assert_eq!(stdout(&out), "No timeout failures.\n");
    assert_eq!(code(dir.path(), &["examples", "threads.db", "--category", "bogus"]), 2);

    let out = run_in(dir.path(), &["show", "019e2a00-0000-7000-8000-00000000000a", "threads.db"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_golden("peri_small.show.txt", &stdout(&out));
    let out = run_in(dir.path(), &["show", "019e6f", "threads.db", "--call", "toolu_c3"]);
    // A flagged shell result no rule knows is its program's failure (issue 21).
    assert!(
        stdout(&out).contains("flag-only error · nonzero-exit (flag: error; content: no rule)"),
        "{}",
        stdout(&out)
    );
    let out = run_in(dir.path(), &["show", "019e", "threads.db"]);
    assert_eq!(out.status.code(), Some(2), "ambiguous prefix");
    assert!(stderr(&out).contains("sessions start with"), "{}", stderr(&out));
}

#[test]
fn rules_listing() {
    let dir = small();
    let out = run_in(dir.path(), &["rules", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["categories"].as_array().unwrap().len(), 28);
    assert!(v["content_rules"].as_array().unwrap().iter().any(|r| r["id"] == "error-prefix"));
    assert!(v["classification_rules"].as_array().unwrap().iter().all(|r| !r["label"].as_str().unwrap().is_empty()));
    let out = run_in(dir.path(), &["rules"]);
    assert!(stdout(&out).contains("stale-edit-match"));
    assert!(stdout(&out).contains("fix: Re-read the file after editing it"));
}

/// The whole registry is pinned: a rule, category or finding rule that
/// changes, appears or goes shows up in review (bless with UPDATE_GOLDEN=1).
#[test]
fn rule_registry_golden() {
    let out = run_in(root(), &["rules", "--format", "json"]);
    assert!(out.status.success());
    assert_golden("rules.json", &stdout(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v["finding_rules"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, falseok::rules::FindingRule::ids().collect::<Vec<_>>());
}

/// `rules` lists every table of the registry, in JSON and as a table: every
/// rule of every table, every reason id a failure can carry (the
/// classification rules' and the judge's own), read from the code's tables.
#[test]
fn rules_lists_every_table_and_every_reason() {
    use falseok::rules::{self, JudgeReason, REGISTRY};
    let v: serde_json::Value = serde_json::from_slice(&run_in(root(), &["rules", "--format", "json"]).stdout).unwrap();
    let text = stdout(&run_in(root(), &["rules"]));
    let listed = |key: &str, field: &str| -> Vec<String> {
        let rows = v[key].as_array().unwrap_or_else(|| panic!("no table {key} in rules --format json"));
        rows.iter().map(|r| r[field].as_str().unwrap().to_string()).collect()
    };
    let tables: [(&str, &str, Vec<&str>); 8] = [
        ("content_rules", "id", REGISTRY.content_rules.iter().map(|r| r.id).collect()),
        ("classification_rules", "id", REGISTRY.classification_rules.iter().map(|r| r.id).collect()),
        ("exit_classification_rules", "id", rules::EXIT_CLASS_RULES.iter().map(|r| r.id).collect()),
        ("benign_exits", "id", rules::benign::BENIGN_EXITS.iter().map(|b| b.id).collect()),
        ("judge_reasons", "id", JudgeReason::all().map(JudgeReason::id).collect()),
        ("categories", "slug", rules::Category::all().map(rules::Category::as_str).collect()),
        ("cause_classes", "slug", rules::category::CauseClass::all().map(|c| c.as_str()).collect()),
        ("finding_rules", "id", rules::FindingRule::ids().collect()),
    ];
    for (key, field, ids) in &tables {
        assert_eq!(&listed(key, field), ids, "{key}");
        for id in ids {
            assert!(text.contains(&format!("  {id} ")), "`falseok rules` does not list {id} ({key})");
        }
    }
    let tools: Vec<String> = v["tool_roles"].as_array().unwrap().iter().map(|t| t["tool"].to_string()).collect();
    assert_eq!(tools.len(), rules::tools::TOOL_ROLES.len());
    assert_eq!(v["shell_tools"].as_array().unwrap().len(), rules::tools::SHELL_TOOLS.len());
    // Every reason a report can show is listed, as a classification rule or a judge reason.
    let reasons: Vec<String> = ["classification_rules", "exit_classification_rules", "judge_reasons"]
        .iter()
        .flat_map(|key| listed(key, "id"))
        .collect();
    for id in REGISTRY.reason_ids() {
        assert!(reasons.iter().any(|r| r == id), "reason {id} is not listed");
    }
    for id in ["unclassified", "schema-violation", "stale-after-own-edit", "command-not-found", "files-differ"] {
        assert!(text.contains(id), "{id}");
    }
    // docs/rules.md names every table's key and every rule a user meets by
    // its id outside the long rule tables (findings, reasons, exit classes, benign exits).
    let doc = std::fs::read_to_string(root().join("docs/rules.md")).unwrap();
    for key in v.as_object().unwrap().keys() {
        assert!(doc.contains(&format!("`{key}`")), "docs/rules.md does not name the table {key}");
    }
    for (key, _, ids) in tables.iter().filter(|t| !t.0.ends_with("classification_rules") && t.0 != "content_rules") {
        for id in ids {
            assert!(doc.contains(&format!("`{id}`")), "docs/rules.md does not name {id} ({key})");
        }
    }
    for id in &tables[2].2 {
        assert!(doc.contains(&format!("`{id}`")), "docs/rules.md does not name the exit rule {id}");
    }
}

/// Issue 22, F12 (`repro_invisible.py`): bidi, invisible and tag
/// characters in a tool name and an error text reach no human output.
#[test]
fn invisible_characters_reach_no_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let text = "al\u{61c}m tags\u{e0049}\u{e0067}\u{e006e}\u{e006f}\u{e0072}\u{e0065} soft\u{ad}hy cgj\u{34f}x \
                mvs\u{180e}x ann\u{fff9}a\u{fffb}b fill\u{3164}x \u{115f}\u{1160}\u{ffa0} vs \u{fe00}\u{fe01}\u{e0100}";
    let tool = format!("Bash{text}");
    let error = format!("Error: {text}");
    peri_db(dir.path(), "inv.db", &[("s1", vec![(&tool, serde_json::json!({}), &error, false, "c1")])]);
    let invisible = |c: char| {
        matches!(c, '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{180e}' | '\u{3164}' | '\u{ffa0}')
            || matches!(c, '\u{fe00}'..='\u{fe0f}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e01ef}')
    };
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for format in ["table", "markdown", "csv", "junit", "github", "html"] {
        runs.push(vec!["scan", "inv.db", "--format", format, "--color", "never"]);
        runs.push(vec!["check", "inv.db", "--format", format, "--color", "never"]);
    }
    runs.push(vec!["examples", "inv.db", "--category", "other"]);
    runs.push(vec!["show", "s1", "inv.db"]);
    runs.push(vec!["show", "s1", "inv.db", "--call", "1"]);
    runs.push(vec!["scan", "inv.db", "--summary", "summary.md"]);
    for args in &runs {
        let out = run_in(dir.path(), args);
        assert_ne!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let all = format!("{}{}", stdout(&out), stderr(&out));
        let found: Vec<String> = all.chars().filter(|&c| invisible(c)).map(|c| format!("U+{:04X}", c as u32)).collect();
        assert!(found.is_empty(), "{args:?}: {found:?}");
        assert!(all.contains("Bashalm") || all.contains("alm tags"), "{args:?} shows the text:\n{all}");
    }
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(!summary.chars().any(invisible), "{summary}");
}

/// Issue 22, F24: a tool name with a link, bare URLs, an e-mail address,
/// a mention, an issue reference and an emoji is shown as text, in
/// headings and prose alike, never as something GitHub makes live.
#[test]
fn markdown_headings_and_prose_make_nothing_live() {
    let dir = tempfile::tempdir().unwrap();
    let tool = "[click](http://evil.example) http://autolink.example www.evil.example @octocat a@b.io #1 :smile: ~~x~~";
    let calls: Vec<FxCall> =
        ["c1", "c2", "c3"].map(|id| (tool, serde_json::json!({}), "Error: boom", false, id)).into();
    peri_db(dir.path(), "live.db", &[("s1", calls)]);
    for args in [
        vec!["scan", "live.db", "--format", "markdown"],
        vec!["check", "live.db", "--format", "markdown"],
        vec!["scan", "live.db", "--summary", "s.md"],
    ] {
        let out = run_in(dir.path(), &args);
        assert_ne!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let md = if args.contains(&"--summary") {
            std::fs::read_to_string(dir.path().join("s.md")).unwrap()
        } else {
            stdout(&out)
        };
        assert!(md.lines().any(|l| l.starts_with("### ") && l.contains("octocat")), "a heading names the tool:\n{md}");
        for line in md.lines() {
            let live = outside_code_spans(line);
            for bad in ["://", "www.", "@", ":smile:", "~~", "#1", "](http"] {
                assert!(!live.contains(bad), "{args:?}: {bad:?} is live in {line:?}");
            }
        }
    }
}
