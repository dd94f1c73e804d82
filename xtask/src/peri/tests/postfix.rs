//! The post-fix scenario: its exact figures.

use super::*;

#[test]
fn postfix_exact_tool_counts() {
    let db = pf();
    let want = expect_counts(&[
        ("Agent", 40),
        ("Edit", 140),
        ("Read", 160),
        ("Bash", 100),
        ("Grep", 70),
        ("Glob", 20),
        ("Write", 20),
        ("TodoWrite", 20),
        ("WebFetch", 5),
        ("WebSearch", 5),
        ("AskUserQuestion", 4),
        ("folder_operations", 3),
        ("AgentResult", 5),
        ("cron_list", 1),
        ("Task", 1),
    ]);
    assert_eq!(sql_counts(&open(db)), want);
    assert_eq!(db.stats.calls_by_tool, want);
}

#[test]
fn postfix_flagged_failures() {
    let db = pf();
    let d = load(&open(db));
    // Agent
    let mut by: BTreeMap<AgentOut, usize> = BTreeMap::new();
    for c in d.of("Agent") {
        let k = agent_out(c, true);
        assert_eq!(c.res.as_ref().unwrap().is_error, k != AgentOut::Ok);
        *by.entry(k).or_default() += 1;
    }
    let want: BTreeMap<AgentOut, usize> =
        [(AgentOut::Ok, 32), (AgentOut::Fg, 4), (AgentOut::Bg, 2), (AgentOut::Conc, 1), (AgentOut::Def, 1)]
            .into_iter()
            .collect();
    assert_eq!(by, want);
    // Edit
    let (mut ok, mut nf, mut nu) = (0, 0, 0);
    for c in d.of("Edit") {
        match edit_out(&d, c, true) {
            EditOut::Ok => ok += 1,
            EditOut::NotFound => nf += 1,
            EditOut::NotUnique(2) => nu += 1,
            o => panic!("unexpected Edit outcome {o:?}: {:?}", c.res.as_ref().unwrap().text),
        }
    }
    assert_eq!((ok, nf, nu), (127, 11, 2));
    let st = stale_flags(&d, true, false);
    assert_eq!(st.iter().filter(|(_, s)| *s).count(), 4);
    assert_eq!(st.iter().filter(|(_, s)| !*s).count(), 7);
    assert_eq!(st, stale_flags(&d, true, true));
    // unwrapped flagged results
    let flagged: Vec<(&str, &str)> = d
        .calls
        .iter()
        .filter_map(|c| c.res.as_ref().filter(|r| r.is_error).map(|r| (c.name.as_str(), r.text.as_str())))
        .filter(|(_, t)| {
            !t.starts_with("Tool execution failed: Agent - ") && !t.starts_with("Tool execution failed: Edit - ")
        })
        .collect();
    let mut kinds: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for f in &flagged {
        *kinds.entry(*f).or_default() += 1;
    }
    let want: BTreeMap<(&str, &str), usize> = [
        (
            ("Read", "The 'file_path' parameter is required for the Read tool. Provide the absolute path to the file."),
            2,
        ),
        (("Task", "工具 'Task' 不存在"), 1),
        (("Bash", "Tool execution failed: Bash - interrupted by user"), 2),
        (("Bash", "Don't Ask 模式：自动拒绝"), 1),
        (("Write", "not now, I'm changing that file myself"), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(kinds, want);
    let total_flagged = d.calls.iter().filter(|c| c.res.as_ref().is_some_and(|r| r.is_error)).count();
    assert_eq!(total_flagged, 8 + 13 + 7);
    // no hidden errors at all
    for c in &d.calls {
        let r = c.res.as_ref().unwrap();
        assert!(r.is_error || !looks_like_error(&r.text), "hidden error {:?}", r.text);
    }
    // benign look-alikes, exact by construction
    let text = |c: &Call| c.res.as_ref().map(|r| r.text.clone()).unwrap_or_default();
    let logs = d
        .of("Read")
        .iter()
        .filter(|c| c.input.get("file_path").and_then(Value::as_str).is_some_and(|p| p.ends_with(".log")))
        .count();
    let bash = d.of("Bash");
    let exit1 = bash.iter().filter(|c| text(c).ends_with("\n[Exit code: 1]")).count();
    let done1 = bash.iter().filter(|c| text(c) == "[Command completed with exit code 1]").count();
    let grep = d.of("Grep");
    let errlike = grep.iter().filter(|c| text(c).contains("Error:")).count();
    let nomatch = grep.iter().filter(|c| text(c) == "No matches found.").count();
    let none = d.of("Glob").iter().filter(|c| text(c) == "No files found.").count();
    assert_eq!((logs, exit1, done1, errlike, nomatch, none), (3, 4, 1, 3, 6, 2));
    // Read without file_path really lacks it
    for c in d.of("Read") {
        if c.res.as_ref().unwrap().is_error {
            assert!(c.input.get("file_path").is_none());
        }
    }
}

#[test]
fn postfix_consecutive_failure_reminder() {
    let db = pf();
    let conn = open(db);
    let d = load(&conn);
    let runs = identical_runs(&d);
    assert_eq!(runs, vec![("Edit".to_owned(), 5)]);
    let sql = format!(
        "{NORM} SELECT rid, thread_id, j ->> '$.content' FROM m WHERE role = 'user' \
         AND j ->> '$.content' LIKE '<system-reminder>%'"
    );
    let (rid, thread, text): (i64, String, String) =
        conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
    assert_eq!(
        text,
        "<system-reminder>\nWarning: Tool 'Edit' has failed 5 consecutive times with the same error. Stop retrying and analyze the root cause. Consider using a different approach or asking the user for guidance.\n</system-reminder>"
    );
    let edits: Vec<&Call> = d.calls.iter().filter(|c| c.thread == thread && c.name == "Edit").collect();
    let pos = edits
        .windows(5)
        .position(|w| {
            w.iter().all(|c| {
                c.input == w[0].input
                    && c.res.as_ref().unwrap().text == w[0].res.as_ref().unwrap().text
                    && c.res.as_ref().unwrap().is_error
            })
        })
        .expect("5 identical flagged Edits");
    let fifth = edits[pos + 4];
    assert!(fifth.rid < rid && rid < fifth.res.as_ref().unwrap().rid);
    let reminders: i64 = conn
        .query_row("SELECT COUNT(*) FROM messages WHERE content ->> '$.type' = 'system_reminder'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(reminders, 5);
}

#[test]
fn postfix_integrity() {
    let db = pf();
    let facts = check_integrity(db, true, ("2026-06-16T00:00:00+00:00", "2026-06-21T00:00:00+00:00"));
    for f in facts {
        println!("postfix: {f}");
    }
    // about 30% of the ordinary successes of the other tools run inside sub-agents
    let d = load(&open(db));
    let ordinary: Vec<&Call> = d
        .calls
        .iter()
        .filter(|c| !matches!(c.name.as_str(), "Agent" | "Task" | "ExecuteExtraTool"))
        .filter(|c| c.res.as_ref().is_some_and(|r| !r.is_error))
        .collect();
    let in_sub = ordinary.iter().filter(|c| d.threads[&c.thread].parent.is_some()).count();
    let share = in_sub as f64 / ordinary.len() as f64;
    println!("postfix: ordinary successes in sub-agents: {in_sub}/{} ({:.1}%)", ordinary.len(), 100.0 * share);
    assert!((0.2..0.4).contains(&share));
}
