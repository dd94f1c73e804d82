//! The postmortem a team reads: the cause in one sentence per tool, the cost
//! of failures (hand-computed), and `sessions`, worst first, with grades.

use crate::util::*;
use serde_json::Value;

const PERI: &str = "sample-traces/peri-postmortem.db";

#[test]
fn the_sample_reads_like_the_founding_postmortem() {
    let out = stdout(&run_in(root(), &["scan", PERI]));
    // The founding postmortem's sentence, with the classes falseok names:
    // the one call without `prompt` is a missing argument too (the
    // postmortem counted it a system fault), so 42 rather than 41.
    assert!(
        out.contains("→ Agent: 42 of 45 errors (93%) are argument problems; `subagent_type` missing in 36; first fix: make the parameter required in the tool schema, or describe exactly when it is needed."),
        "{out}"
    );
    assert!(out.contains("causes: arguments 42 (93%), environment 3 (7%)"), "{out}");
    assert!(out.contains("causes: arguments 151 (53%), stale-state 132 (46%), unknown 1 (0%)"), "{out}");
    let v = json(&run_in(root(), &["scan", PERI, "--format", "json"]));
    let agent = v["headlines"].as_array().unwrap().iter().find(|h| h["tool"] == "Agent").unwrap();
    assert_eq!(agent["class"], "arguments");
    assert_eq!((agent["errors"].as_u64(), agent["of"].as_u64()), (Some(42), Some(45)));
    assert_eq!((agent["param"].as_str(), agent["param_errors"].as_u64()), (Some("subagent_type"), Some(36)));
    assert_eq!(tool(&v, "Agent")["classes"], serde_json::json!({"arguments": 42, "environment": 3}));
    // Markdown carries it too.
    let md = stdout(&run_in(root(), &["scan", PERI, "--format", "markdown"]));
    assert!(md.contains("**Agent: 42 of 45 errors (93%) are argument problems;"), "{md}");
}

/// Every tool's classes add up to its errors, on every sample.
#[test]
fn classes_add_up_to_errors() {
    for sample in [PERI, "sample-traces/crush.db", "sample-traces/opencode.db", "sample-traces/codex"] {
        let v = json(&run_in(root(), &["scan", sample, "--format", "json"]));
        for t in v["tools"].as_array().unwrap() {
            let sum: u64 = t["classes"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
            assert_eq!(sum, t["errors"].as_u64().unwrap(), "{sample}: {}", t["tool"]);
        }
        let with_errors = v["tools"].as_array().unwrap().iter().filter(|t| t["errors"].as_u64() > Some(0)).count();
        assert_eq!(v["headlines"].as_array().unwrap().len(), with_errors, "{sample}");
    }
}

/// A falseok database whose times are chosen so the cost can be worked
/// out by hand (seconds after 10:00:00).
const TIMED: &str = "
INSERT INTO sessions (id, agent, started_at) VALUES ('s1', 'falseok', '2026-06-01T10:00:00Z');
INSERT INTO calls (session_id, id, seq, tool, input, called_at) VALUES
  ('s1', 'a', 1, 'Bash', '{\"command\":\"cargoo build\"}', '2026-06-01T10:00:00Z'),
  ('s1', 'b', 2, 'Read', '{\"file_path\":\"/x\"}',        '2026-06-01T10:00:04Z'),
  ('s1', 'c', 3, 'Bash', '{\"command\":\"carg build\"}',  '2026-06-01T10:00:10Z'),
  ('s1', 'd', 4, 'Bash', '{\"command\":\"cargo build\"}', '2026-06-01T10:00:25Z'),
  ('s1', 'e', 5, 'Edit', '{\"file_path\":\"/x\"}',        '2026-06-01T10:01:00Z'),
  ('s1', 'f', 6, 'Read', '{\"file_path\":\"/x\"}',        '2026-06-01T10:01:30Z');
INSERT INTO results (session_id, call_id, text, is_error, returned_at) VALUES
  ('s1', 'a', 'bash: cargoo: command not found', 1, '2026-06-01T10:00:02Z'),
  ('s1', 'b', 'fn main() {}', 0, '2026-06-01T10:00:05Z'),
  ('s1', 'c', 'bash: carg: command not found', 1, '2026-06-01T10:00:11Z'),
  ('s1', 'd', 'Finished release', 0, '2026-06-01T10:00:40Z'),
  ('s1', 'e', 'Error: old_string not found in /x', 0, '2026-06-01T10:01:01Z'),
  ('s1', 'f', 'fn main() {}', 0, '2026-06-01T10:01:40Z');
";

fn timed_db(dir: &std::path::Path) -> std::path::PathBuf {
    let schema = std::fs::read_to_string(root().join("sql/schema.sql")).unwrap();
    db_from_sql(dir, "timed.db", &format!("{schema}\n{TIMED}"))
}

#[test]
fn the_cost_of_failures_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    timed_db(dir.path());
    let v = json(&run_in(dir.path(), &["scan", "timed.db", "--format", "json"]));
    let cost: Vec<(&str, &str, u64, u64, u64, u64)> = v["cost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            let t = |k: &str| r[k].as_str().unwrap();
            (t("tool"), t("category"), n("failures"), n("retries"), n("timed"), n("lost_ms"))
        })
        .collect();
    // Bash failed at 0 s and 10 s and succeeded at 25 s: 2 + 1 retries,
    // 25 + 15 s. Edit failed at 60 s and never again: 0 retries, and the
    // time runs to the next successful call of any tool (Read at 90 s), not
    // to the session's last time (100 s): 30 s.
    assert_eq!(cost, vec![("Bash", "not-found", 2, 3, 2, 40_000), ("Edit", "edit-match-not-found", 1, 0, 1, 30_000)]);
    // The session: overlaps counted once (0-25 s and 10-25 s, then 60-90 s).
    let s = json(&run_in(dir.path(), &["sessions", "timed.db", "--format", "json"]));
    let row = &s["sessions"][0];
    assert_eq!(row["lost_ms"], 55_000);
    assert_eq!(row["retries"], 3);
    assert_eq!(row["duration_ms"], 100_000);
    assert_eq!(row["abandoned"], 1);
    let table = stdout(&run_in(dir.path(), &["scan", "timed.db"]));
    assert!(
        table.contains("Cost: calls and time from each failure to the tool's next success; when none came, to the next success of any tool, or the session's end"),
        "{table}"
    );
    assert!(table.contains("40.0 s"), "{table}");
}

fn sessions_schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("schema/sessions-v2.schema.json")).unwrap()).unwrap()
}

#[test]
fn sessions_grade_the_sample_worst_first() {
    let v = json(&run_in(root(), &["sessions", PERI, "--format", "json"]));
    let validator = jsonschema::validator_for(&sessions_schema()).unwrap();
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(v["total"], 260);
    assert_eq!(rows.len(), 260, "JSON lists every session without --limit");
    // The session with the guard-blind streak grades D or worse, and is first.
    let blind: Vec<&Value> = rows.iter().filter(|r| r["guard_blind_streaks"].as_u64() > Some(0)).collect();
    assert_eq!(blind.len(), 1);
    assert!(matches!(blind[0]["grade"].as_str(), Some("D" | "F")), "{}", blind[0]);
    assert_eq!(rows[0]["session"], blind[0]["session"]);
    // Never A or B with 5 or more hidden errors.
    for r in rows {
        if r["hidden_errors"].as_u64() >= Some(5) {
            assert!(!matches!(r["grade"].as_str(), Some("A" | "B")), "{r}");
        }
    }
    // The counts agree with scan.
    let scan = json(&run_in(root(), &["scan", PERI, "--format", "json"]));
    let sum = |k: &str| rows.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("calls"), scan["totals"]["calls"].as_u64().unwrap());
    assert_eq!(sum("errors"), scan["totals"]["errors"].as_u64().unwrap());
    assert_eq!(sum("hidden_errors"), scan["totals"]["hidden_errors"].as_u64().unwrap());
    let retries: u64 = scan["cost"].as_array().unwrap().iter().map(|r| r["retries"].as_u64().unwrap()).sum();
    assert_eq!(sum("retries"), retries);
    // `show` is the next step from a row: the table names it, and it runs.
    let table = stdout(&run_in(root(), &["sessions", PERI, "--limit", "3"]));
    assert!(table.contains("3 of 260 sessions shown, worst first"), "{table}");
    let next = table.lines().find_map(|l| l.strip_prefix("Next: falseok ")).expect("a next step").to_string();
    let args: Vec<&str> = next.split(' ').collect();
    let shown = run_in(root(), &args);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert!(stdout(&shown).contains("HIDDEN ERROR"), "{}", stdout(&shown));
}

#[test]
fn sessions_csv_and_limit() {
    let o = run_in(root(), &["sessions", PERI, "--format", "csv", "--limit", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(r.headers().unwrap().get(0), Some("grade"));
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(&rows[0][0], "F");
    // --limit 0 lists every session in a table too.
    let all = stdout(&run_in(root(), &["sessions", PERI, "--limit", "0"]));
    assert!(all.contains("260 of 260 sessions shown"), "{all}");
    // Filters apply as in scan: a window with nothing in it lists nothing.
    let none = run_in(root(), &["sessions", PERI, "--since", "2030-01-01", "--format", "json"]);
    assert_eq!(json(&none)["total"], 0);
}

/// docs/rules.md's class table lists every category under the class the code gives it.
#[test]
fn the_documented_classes_are_the_code() {
    let doc = std::fs::read_to_string(root().join("docs/rules.md")).unwrap();
    let start = doc.find("| class | what it means | categories |").expect("the class table");
    let mut documented = std::collections::BTreeMap::new();
    for line in doc[start..].lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let class = cells[1].trim_matches('`');
        for cat in cells[3].split(',').map(|c| c.trim().trim_matches('`')) {
            documented.insert(cat.to_string(), class.to_string());
        }
    }
    let code: std::collections::BTreeMap<String, String> =
        falseok::rules::Category::all().map(|c| (c.as_str().to_string(), c.class().as_str().to_string())).collect();
    assert_eq!(documented, code);
}

/// At 80 columns the sessions table and its reasons fit, no id cut.
#[test]
fn sessions_fit_an_80_column_terminal() {
    let out = std::process::Command::new(BIN)
        .args(["sessions", PERI, "--limit", "5"])
        .current_dir(root())
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let text = stdout(&out);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line}");
    }
    assert!(text.contains("019e4524-bf08-76b1-a48d-14cf36eda930"), "the worst session's whole id:\n{text}");
    assert!(text.contains("left out at 80 columns"), "{text}");
    assert!(text.contains("guard-blind streak"), "the reasons are there:\n{text}");
}

/// Issue 50 (item 8): over every small sample, `sessions` ranks by what the
/// tool is about: guard-blind streaks, then hidden errors, before any score,
/// so a one-call sub-agent whose call failed does not top the list.
#[test]
fn sessions_rank_hidden_errors_before_scores() {
    let mut args = vec!["sessions"];
    args.extend(SAMPLES.iter().filter(|s| !s.contains("peri-post")));
    args.extend(["--format", "json"]);
    let v = json(&run_in(root(), &args));
    let rows = v["sessions"].as_array().unwrap();
    let key = |r: &Value| (r["guard_blind_streaks"].as_u64().unwrap(), r["hidden_errors"].as_u64().unwrap());
    for pair in rows.windows(2) {
        assert!(key(&pair[0]) >= key(&pair[1]), "{} before {}", pair[0], pair[1]);
    }
    let low = rows.iter().map(|r| r["score"].as_i64().unwrap()).min().unwrap();
    assert!(rows[0]["score"].as_i64().unwrap() > low, "the lowest score is not what ranks first");
    assert_eq!(rows[0]["hidden_errors"], 6, "{}", rows[0]);
}
