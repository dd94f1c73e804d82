//! The postmortem scenario: its exact figures, and the same seed giving the same bytes.

use super::*;

#[test]
fn postmortem_exact_tool_counts() {
    let db = pm();
    let conn = open(db);
    let want = expect_counts(&[
        ("Agent", 1344),
        ("Edit", 6233),
        ("Read", 3000),
        ("Bash", 2000),
        ("Grep", 1500),
        ("Glob", 300),
        ("Write", 300),
        ("TodoWrite", 400),
        ("WebFetch", 40),
        ("WebSearch", 40),
        ("AskUserQuestion", 30),
        ("folder_operations", 20),
        ("AgentResult", 44),
        ("cron_list", 6),
    ]);
    assert_eq!(sql_counts(&conn), want);
    assert_eq!(db.stats.calls_by_tool, want);
    let ext: i64 = conn
        .query_row(&format!("{NORM}{CALLS} SELECT COUNT(*) FROM calls WHERE name = 'ExecuteExtraTool'"), [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(ext, 50);
}

#[test]
fn postmortem_agent_failures() {
    let db = pm();
    let d = load(&open(db));
    let agents = d.of("Agent");
    assert_eq!(agents.len(), 1344);
    assert!(agents.iter().all(|c| d.threads[&c.thread].parent.is_none()));
    assert!(agents.iter().all(|c| !c.res.as_ref().unwrap().is_error));
    let mut by: BTreeMap<AgentOut, usize> = BTreeMap::new();
    for c in &agents {
        *by.entry(agent_out(c, false)).or_default() += 1;
    }
    let want: BTreeMap<AgentOut, usize> = [
        (AgentOut::Ok, 1299),
        (AgentOut::Fg, 21),
        (AgentOut::Bg, 15),
        (AgentOut::Conc, 5),
        (AgentOut::Def, 3),
        (AgentOut::NoPrompt, 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(by, want);
    // inputs match the failure kind
    let mut def_ids = BTreeSet::new();
    for c in &agents {
        let i = &c.input;
        let has = |k: &str| i.get(k).is_some();
        match agent_out(c, false) {
            AgentOut::Fg => assert!(
                has("prompt")
                    && has("description")
                    && !has("subagent_type")
                    && !has("fork")
                    && !has("run_in_background")
            ),
            AgentOut::Bg => assert!(i["run_in_background"] == json!(true) && !has("subagent_type") && !has("fork")),
            AgentOut::Conc => {
                assert!(i["run_in_background"] == json!(true) && has("subagent_type"))
            }
            AgentOut::Def => {
                def_ids.insert(i["subagent_type"].as_str().unwrap().to_owned());
            }
            AgentOut::NoPrompt => assert!(has("subagent_type") && !has("prompt")),
            AgentOut::Ok => {
                let t = &c.res.as_ref().unwrap().text;
                assert!(t.contains("]\n\n"));
                assert!(has("subagent_type") || i["fork"] == json!(true));
            }
            AgentOut::Other => unreachable!(),
        }
    }
    assert_eq!(def_ids, ["code-reviewr", "docs-writer", "tester"].map(String::from).into_iter().collect());
    // repairs: per session, the next Agent call after a subagent_type failure
    let mut per_thread: BTreeMap<&str, Vec<&Call>> = BTreeMap::new();
    for c in &agents {
        per_thread.entry(&c.thread).or_default().push(c);
    }
    let is_repair = |f: &Call, n: &Call| {
        let mut stripped = n.input.clone();
        let had = stripped.as_object_mut().unwrap().remove("subagent_type").is_some();
        had && stripped == f.input && agent_out(n, false) == AgentOut::Ok
    };
    let (mut immediate, mut eventual, mut runs) = (0, 0, Vec::new());
    let mut other_next_repair = 0;
    for cs in per_thread.values() {
        let mut i = 0;
        while i < cs.len() {
            let k = agent_out(cs[i], false);
            let mut j = i + 1;
            while j < cs.len()
                && cs[j].input == cs[i].input
                && cs[j].res.as_ref().unwrap().text == cs[i].res.as_ref().unwrap().text
            {
                j += 1;
            }
            if matches!(k, AgentOut::Fg | AgentOut::Bg) {
                runs.push(j - i);
                if j < cs.len() && is_repair(cs[i], cs[j]) {
                    eventual += j - i;
                    // only the last failure of a run is directly followed by the repair
                    immediate += 1;
                }
            } else if !matches!(k, AgentOut::Ok) && j < cs.len() {
                let same_prompt = cs[j].input.get("prompt") == cs[i].input.get("prompt");
                if same_prompt {
                    other_next_repair += 1;
                }
            }
            i = j;
        }
    }
    runs.sort_unstable();
    assert_eq!(runs.iter().filter(|&&r| r == 6).count(), 1);
    assert!(runs.iter().all(|&r| r == 1 || r == 6));
    assert_eq!(runs.iter().sum::<usize>(), 36);
    assert_eq!(eventual, 34, "subagent_type failures followed by a repair (run counted as 6)");
    assert_eq!(immediate, 29, "failures whose very next Agent call is the repair");
    assert_eq!(other_next_repair, 0);
    // sub-agents
    let subs = d.threads.values().filter(|t| t.parent.is_some()).count();
    assert_eq!(subs, 150);
    let bg_sub = d.threads.values().filter(|t| t.parent.is_some() && t.cancel_policy == "independent").count();
    assert!(bg_sub > 0);
}

#[test]
fn postmortem_edit_failures() {
    let db = pm();
    let d = load(&open(db));
    let edits = d.of("Edit");
    assert_eq!(edits.len(), 6233);
    assert!(edits.iter().all(|c| !c.res.as_ref().unwrap().is_error));
    let (mut ok, mut nf, mut ux) = (0, 0, 0);
    let mut nu: BTreeMap<u32, usize> = BTreeMap::new();
    for c in &edits {
        match edit_out(&d, c, false) {
            EditOut::Ok => ok += 1,
            EditOut::NotFound => nf += 1,
            EditOut::NotUnique(n) => *nu.entry(n).or_default() += 1,
            EditOut::Unexpected => ux += 1,
            EditOut::Other => panic!("unclassified Edit result {:?}", c.res.as_ref().unwrap().text),
        }
    }
    assert_eq!((ok, nf, ux), (5949, 213, 1));
    assert_eq!(nu.values().sum::<usize>(), 70);
    assert_eq!(nu[&2], 50);
    assert_eq!(nu[&3], 7);
    assert_eq!(nu[&4], 5);
    assert_eq!((6..=9).map(|n| nu.get(&n).copied().unwrap_or(0)).sum::<usize>(), 8);
    assert_eq!(nu.get(&5), None);
    // stale / non-stale re-derived per thread, and identically per root session
    let per_thread = stale_flags(&d, false, false);
    let merged = stale_flags(&d, false, true);
    assert_eq!(per_thread.len(), 213);
    assert_eq!(per_thread.iter().filter(|(_, s)| *s).count(), 132);
    assert_eq!(per_thread.iter().filter(|(_, s)| !*s).count(), 81);
    assert_eq!(per_thread, merged, "classification depends on sub-agent activity");
    // non-stale mix: never modified before vs read after the last modification
    let sub_edits = edits.iter().filter(|c| d.threads[&c.thread].parent.is_some()).count();
    assert_eq!(sub_edits, 30);
}

#[test]
fn postmortem_ordinary_traffic() {
    let db = pm();
    let d = load(&open(db));
    // every unflagged result that looks like an error is one of the 45 + 284 hidden failures
    let mut hidden = 0;
    for c in &d.calls {
        let Some(r) = &c.res else { continue };
        if r.is_error {
            panic!("flagged result in the pre-fix era: {}", r.text);
        }
        if looks_like_error(&r.text) {
            let known = match c.name.as_str() {
                "Agent" => agent_out(c, false) != AgentOut::Ok,
                "Edit" => edit_out(&d, c, false) != EditOut::Ok,
                _ => false,
            };
            assert!(known, "{} result looks like an error: {:?}", c.name, r.text);
            hidden += 1;
        }
    }
    assert_eq!(hidden, 45 + 284);
    let text = |c: &Call| c.res.as_ref().map(|r| r.text.clone()).unwrap_or_default();
    // Read: line-numbered, 30 log reads with error-looking lines
    let mut log_reads = 0;
    for c in d.of("Read") {
        let t = text(c);
        let offset = c.input.get("offset").and_then(Value::as_i64).unwrap_or(1);
        for (i, line) in t.lines().enumerate() {
            let (num, _) = line.split_once('\t').unwrap();
            assert_eq!(num.len(), 6);
            assert_eq!(num.trim_start().parse::<i64>().unwrap(), offset + i as i64);
        }
        if c.input["file_path"].as_str().unwrap().ends_with(".log") {
            assert!(t.contains("Error: connection refused") || t.contains("ERROR: disk full"));
            log_reads += 1;
        }
    }
    assert_eq!(log_reads, 30);
    let bash = d.of("Bash");
    let exit1 = bash.iter().filter(|c| text(c).ends_with("\n[Exit code: 1]")).count();
    let done1 = bash.iter().filter(|c| text(c) == "[Command completed with exit code 1]").count();
    assert_eq!((exit1, done1), (40, 4));
    let grep = d.of("Grep");
    let errlike = grep.iter().filter(|c| text(c).contains("Error:")).count();
    let nomatch = grep.iter().filter(|c| text(c) == "No matches found.").count();
    assert_eq!((errlike, nomatch), (30, 90));
    let none = d.of("Glob").iter().filter(|c| text(c) == "No files found.").count();
    assert_eq!(none, 20);
    for c in d.of("Write") {
        let n = c.input["content"].as_str().unwrap().lines().count();
        assert!(text(c).starts_with(&format!("Wrote {n} line(s) ")));
    }
    for c in d.of("AgentResult") {
        assert_eq!(text(c), "No completed background agent results available yet.");
        assert!(c.input["params"]["task_id"].as_str().unwrap().starts_with("bg-"));
    }
    for c in d.of("cron_list") {
        assert_eq!(c.input["params"], json!({}));
    }
    let runs = identical_runs(&d);
    assert_eq!(runs, vec![("Agent".to_owned(), 6), ("AgentResult".to_owned(), 5)]);
    let sizes: Vec<usize> = d.calls.iter().filter_map(|c| c.res.as_ref()).map(|r| r.text.len()).collect();
    let in_band = sizes.iter().filter(|&&n| (60..=400).contains(&n)).count();
    println!(
        "postmortem result sizes: {} results, {:.1}% within 60..=400 bytes, max {}",
        sizes.len(),
        100.0 * in_band as f64 / sizes.len() as f64,
        sizes.iter().max().unwrap()
    );
}

#[test]
fn postmortem_integrity() {
    let facts = check_integrity(pm(), false, ("2026-05-20T00:00:00+00:00", "2026-06-03T00:00:00+00:00"));
    for f in facts {
        println!("postmortem: {f}");
    }
}

#[test]
fn same_seed_same_bytes() {
    let a = std::fs::read(&pm().path).unwrap();
    let b = make(PeriScenario::Postmortem, seed(), "pm_again.db");
    assert_eq!(a, std::fs::read(&b.path).unwrap(), "same seed, different bytes");
    assert_eq!(pm().stats, b.stats);
    let c = make(PeriScenario::Postmortem, seed().wrapping_add(1), "pm_other.db");
    assert_ne!(a, std::fs::read(&c.path).unwrap());
    assert_eq!(pm().stats.calls_by_tool, c.stats.calls_by_tool);
    let pa = std::fs::read(&pf().path).unwrap();
    let pb = make(PeriScenario::PostFix, seed(), "pf_again.db");
    assert_eq!(pa, std::fs::read(&pb.path).unwrap());
    for p in [&b.path, &c.path, &pb.path] {
        let _ = std::fs::remove_file(p);
    }
}
