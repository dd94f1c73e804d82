//! Proof of the generator's figures: every number is re-derived from the database
//! with SQL (`json_each`, `->`, `->>`) and plain Rust, never from generator internals.
use super::*;
use rusqlite::OpenFlags;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

/// The seed under test; `PERI_GEN_SEED=n cargo test` checks another one.
fn seed() -> u64 {
    std::env::var("PERI_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7)
}

struct Db {
    path: PathBuf,
    stats: GenStats,
    secs: f64,
}

fn tmp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("peri_gen_{}_{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn make(sc: PeriScenario, seed: u64, name: &str) -> Db {
    let path = tmp(name);
    let t = Instant::now();
    let stats = generate_peri(&path, sc, seed).expect("generate");
    Db { path, stats, secs: t.elapsed().as_secs_f64() }
}

/// The shared database of a scenario: one file per (scenario, seed) in the temp dir,
/// written under a private name and renamed into place, so parallel test processes
/// never see a half-written file and repeated runs do not pile up files.
fn shared(sc: PeriScenario, tag: &str) -> Db {
    let db = make(sc, seed(), &format!("{tag}.tmp"));
    let path = std::env::temp_dir().join(format!("peri_gen_{tag}_{}.db", seed()));
    std::fs::rename(&db.path, &path).unwrap();
    Db { path, ..db }
}

fn pm() -> &'static Db {
    static D: OnceLock<Db> = OnceLock::new();
    D.get_or_init(|| shared(PeriScenario::Postmortem, "pm"))
}

fn pf() -> &'static Db {
    static D: OnceLock<Db> = OnceLock::new();
    D.get_or_init(|| shared(PeriScenario::PostFix, "pf"))
}

fn open(db: &Db) -> Connection {
    Connection::open_with_flags(&db.path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open")
}

/// Messages with the V1 envelope unwrapped (`j` is NULL for system_reminder rows).
const NORM: &str = "WITH m AS (SELECT rowid AS rid, message_id, thread_id, role, content, \
    CASE WHEN json_type(content, '$.version') IS NOT NULL THEN content -> '$.message' \
    ELSE content END AS j FROM messages)";

/// Calls: the union of tool_use blocks and tool_calls, deduplicated by id.
const CALLS: &str = ", c AS ( \
    SELECT m.rid, m.thread_id, b.value ->> '$.id' AS id, b.value ->> '$.name' AS name, \
           b.value -> '$.input' AS input \
    FROM m, json_each(m.j, '$.content') b \
    WHERE m.role = 'assistant' AND json_type(m.j, '$.content') = 'array' \
      AND b.value ->> '$.type' = 'tool_use' \
    UNION \
    SELECT m.rid, m.thread_id, t.value ->> '$.id', t.value ->> '$.name', t.value -> '$.arguments' \
    FROM m, json_each(m.j, '$.tool_calls') t WHERE m.role = 'assistant'), \
    calls AS (SELECT id, min(rid) AS rid, thread_id, name, input, \
      CASE WHEN name = 'ExecuteExtraTool' THEN input ->> '$.tool_name' ELSE name END AS tool \
      FROM c GROUP BY id)";

#[derive(Clone)]
struct Res {
    rid: i64,
    thread: String,
    call_id: String,
    text: String,
    is_error: bool,
}

struct Call {
    rid: i64,
    thread: String,
    id: String,
    name: String,
    tool: String,
    input: Value,
    res: Option<Res>,
}

struct Th {
    parent: Option<String>,
    title: Option<String>,
    cwd: String,
    created_at: String,
    updated_at: String,
    message_count: i64,
    hidden: bool,
    cancel_policy: String,
    snapshot: Option<String>,
}

struct Data {
    calls: Vec<Call>,
    orphans: Vec<Res>,
    threads: BTreeMap<String, Th>,
}

impl Data {
    fn root<'a>(&'a self, thread: &'a str) -> &'a str {
        self.threads[thread].parent.as_deref().unwrap_or(thread)
    }
    fn of(&self, tool: &str) -> Vec<&Call> {
        self.calls.iter().filter(|c| c.tool == tool).collect()
    }
}

fn load(conn: &Connection) -> Data {
    let sql = format!(
        "{NORM} SELECT m.rid, m.thread_id, t.value ->> '$.id', t.value ->> '$.name', \
         t.value -> '$.arguments' FROM m, json_each(m.j, '$.tool_calls') t \
         WHERE m.role = 'assistant' ORDER BY m.rid, t.key"
    );
    let mut st = conn.prepare(&sql).unwrap();
    let mut calls: Vec<Call> = st
        .query_map([], |r| {
            let name: String = r.get(3)?;
            let input: Value = serde_json::from_str(&r.get::<_, String>(4)?).unwrap();
            let tool = if name == "ExecuteExtraTool" {
                input["tool_name"].as_str().unwrap_or("?").to_owned()
            } else {
                name.clone()
            };
            Ok(Call { rid: r.get(0)?, thread: r.get(1)?, id: r.get(2)?, name, tool, input, res: None })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let sql = format!(
        "{NORM} SELECT rid, thread_id, j ->> '$.tool_call_id', j ->> '$.content', \
         j ->> '$.is_error' FROM m WHERE role = 'tool' ORDER BY rid"
    );
    let mut st = conn.prepare(&sql).unwrap();
    let results: Vec<Res> = st
        .query_map([], |r| {
            Ok(Res {
                rid: r.get(0)?,
                thread: r.get(1)?,
                call_id: r.get(2)?,
                text: r.get(3)?,
                is_error: r.get::<_, i64>(4)? != 0,
            })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let idx: BTreeMap<String, usize> = calls.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
    let mut orphans = Vec::new();
    for r in results {
        match idx.get(&r.call_id) {
            Some(&i) if calls[i].thread == r.thread && calls[i].res.is_none() && calls[i].rid < r.rid => {
                calls[i].res = Some(r)
            }
            _ => orphans.push(r),
        }
    }
    let mut st = conn
        .prepare(
            "SELECT id, parent_thread_id, title, cwd, created_at, updated_at, message_count, \
             hidden, cancel_policy, snapshot_at_message_id FROM threads",
        )
        .unwrap();
    let threads = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Th {
                    parent: r.get(1)?,
                    title: r.get(2)?,
                    cwd: r.get(3)?,
                    created_at: r.get(4)?,
                    updated_at: r.get(5)?,
                    message_count: r.get(6)?,
                    hidden: r.get(7)?,
                    cancel_policy: r.get(8)?,
                    snapshot: r.get(9)?,
                },
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    Data { calls, orphans, threads }
}

fn sql_counts(conn: &Connection) -> BTreeMap<String, usize> {
    let sql = format!("{NORM}{CALLS} SELECT tool, COUNT(*) FROM calls GROUP BY tool");
    let mut st = conn.prepare(&sql).unwrap();
    st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn expect_counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
}

fn uuid_ms(id: &str) -> i64 {
    i64::from_str_radix(&format!("{}{}", &id[0..8], &id[9..13]), 16).unwrap()
}

fn is_uuid7(id: &str) -> bool {
    let b = id.as_bytes();
    id.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && id.chars().enumerate().all(|(i, ch)| [8, 13, 18, 23].contains(&i) || matches!(ch, '0'..='9' | 'a'..='f'))
        && b[14] == b'7'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

fn rfc_us(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_micros()
}

fn is_call_id(id: &str) -> bool {
    let alnum = |s: &str| s.len() == 24 && s.chars().all(|c| c.is_ascii_alphanumeric());
    if let Some(rest) = id.strip_prefix("toolu_") {
        return alnum(rest);
    }
    id.len() == 32
        && id.starts_with("call_")
        && id[5..7].chars().all(|c| c.is_ascii_digit())
        && &id[7..8] == "_"
        && alnum(&id[8..])
}

// ----- classification (literal strings from the brief / peri.md) -----

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum AgentOut {
    Ok,
    Fg,
    Bg,
    Conc,
    Def,
    NoPrompt,
    Other,
}

fn agent_out(c: &Call, post: bool) -> AgentOut {
    let Some(r) = &c.res else {
        return AgentOut::Other;
    };
    let t = if post {
        match r.text.strip_prefix("Tool execution failed: Agent - ") {
            Some(t) => t,
            None => {
                return if r.text.starts_with("[Sub-agent executed ") { AgentOut::Ok } else { AgentOut::Other };
            }
        }
    } else {
        r.text.as_str()
    };
    if t.starts_with("[Sub-agent executed ") && !post {
        AgentOut::Ok
    } else if t == "Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode" {
        AgentOut::Fg
    } else if t == "Error: background mode requires subagent_type parameter (or use fork: true)" {
        AgentOut::Bg
    } else if (!post && t == "Error: maximum 3 concurrent background tasks reached. Wait for a running task to complete before starting a new one.")
        || (post && t == "Error: Maximum 3 concurrent background tasks reached")
    {
        AgentOut::Conc
    } else if c.input["subagent_type"].as_str().is_some_and(|id| {
        t == format!("Error: cannot find agent definition '{id}'. Check .claude/agents/ directory or use a built-in agent (explore, plan, general-purpose, verification)")
    }) {
        AgentOut::Def
    } else if t == "Error: missing required parameter prompt" {
        AgentOut::NoPrompt
    } else {
        AgentOut::Other
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EditOut {
    Ok,
    NotFound,
    NotUnique(u32),
    Unexpected,
    Other,
}

fn edit_out(d: &Data, c: &Call, post: bool) -> EditOut {
    let Some(r) = &c.res else {
        return EditOut::Other;
    };
    let path = c.input["file_path"].as_str().unwrap();
    let cwd = &d.threads[&c.thread].cwd;
    let rel = path.strip_prefix(&format!("{cwd}/")).unwrap();
    let ok = [format!("Replaced text (same line count) to {rel}"), String::new()];
    let t = r.text.as_str();
    if !r.is_error
        && (t.starts_with(&ok[0])
            || (t.starts_with("Added ") || t.starts_with("Removed ")) && t.contains(&format!(" line(s) to {rel}")))
    {
        return EditOut::Ok;
    }
    let t = if post {
        match t.strip_prefix("Tool execution failed: Edit - ") {
            Some(t) if r.is_error => t,
            _ => return EditOut::Other,
        }
    } else {
        t
    };
    let nf = if post {
        format!(
            "Error: old_string not found in {path}\nold_string's first 3 lines matched lines 120-122, but the full string did not match. The file may have been modified. Please Read this file to get the latest content before retrying."
        )
    } else {
        format!("Error: old_string not found in {path}")
    };
    if t == nf {
        return EditOut::NotFound;
    }
    if t == format!("Error: unexpected state while applying the edit to {path}") {
        return EditOut::Unexpected;
    }
    let head = format!("Error: old_string is not unique in {path} (found ");
    if let Some(rest) = t.strip_prefix(&head) {
        let (n, tail) = rest.split_once(' ').unwrap();
        let tail_ok = if post {
            tail == "occurrences).\nMatch locations: line 2, line 7.\nPlease provide more context to make old_string unique, or set replace_all=true."
        } else {
            tail == "occurrences). Please provide more context or set replace_all to true."
        };
        if tail_ok {
            return EditOut::NotUnique(n.parse().unwrap());
        }
    }
    EditOut::Other
}

/// Re-derive stale / non-stale for every not-found Edit, walking results in rowid order.
/// `merged` keys the state by root session (root thread + its sub-agents) instead of thread.
fn stale_flags(d: &Data, post: bool, merged: bool) -> Vec<(String, bool)> {
    let mut ev: Vec<&Call> = d.calls.iter().filter(|c| c.res.is_some()).collect();
    ev.sort_by_key(|c| c.res.as_ref().unwrap().rid);
    // (scope, path) -> read since last modification?
    let mut st: BTreeMap<(String, String), bool> = BTreeMap::new();
    let mut out = Vec::new();
    for c in ev {
        let r = c.res.as_ref().unwrap();
        let scope = if merged { d.root(&c.thread) } else { c.thread.as_str() }.to_owned();
        let Some(path) = c.input.get("file_path").and_then(Value::as_str) else {
            continue;
        };
        let key = (scope, path.to_owned());
        match c.name.as_str() {
            "Read" if !r.is_error && !r.text.starts_with("Error") => {
                if let Some(v) = st.get_mut(&key) {
                    *v = true;
                }
            }
            "Write" if !r.is_error && r.text.starts_with("Wrote ") => {
                st.insert(key, false);
            }
            "Edit" => match edit_out(d, c, post) {
                EditOut::Ok => {
                    st.insert(key, false);
                }
                EditOut::NotFound => {
                    let stale = st.get(&key) == Some(&false);
                    out.push((c.id.clone(), stale));
                }
                _ => {}
            },
            _ => {}
        }
    }
    out
}

const FORBIDDEN: &[&str] =
    &["Error", "ERROR", "Tool execution failed", "✗", "<tool_use_error>", "Missing ", "The '", "工具 "];

fn looks_like_error(text: &str) -> bool {
    let t = text.trim_start();
    FORBIDDEN.iter().any(|p| t.starts_with(p) || text.starts_with(p))
        || t.to_lowercase().starts_with("error")
        || t.starts_with("Error executing command:")
}

/// Maximal runs (len >= 2) of consecutive identical calls (same name and input) per thread.
fn identical_runs(d: &Data) -> Vec<(String, usize)> {
    let mut by_thread: BTreeMap<&str, Vec<&Call>> = BTreeMap::new();
    for c in &d.calls {
        by_thread.entry(&c.thread).or_default().push(c);
    }
    let mut runs = Vec::new();
    for cs in by_thread.values() {
        let mut i = 0;
        while i < cs.len() {
            let mut j = i + 1;
            while j < cs.len() && cs[j].name == cs[i].name && cs[j].input == cs[i].input {
                j += 1;
            }
            if j - i >= 2 {
                runs.push((cs[i].tool.clone(), j - i));
            }
            i = j;
        }
    }
    runs.sort();
    runs
}

/// Structural checks shared by both scenarios. Returns printable facts.
fn check_integrity(db: &Db, post: bool, range: (&str, &str)) -> Vec<String> {
    let conn = open(db);
    let d = load(&conn);
    let mut facts = Vec::new();
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    // pragmas, files
    assert_eq!(q("PRAGMA user_version"), 0);
    let jm: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(jm, "delete");
    for suffix in ["-wal", "-journal", "-shm"] {
        let mut p = db.path.clone().into_os_string();
        p.push(suffix);
        assert!(!PathBuf::from(p).exists(), "{suffix} left behind");
    }
    // schema
    let cols = |t: &str| -> Vec<String> {
        let mut st = conn.prepare(&format!("PRAGMA table_info({t})")).unwrap();
        st.query_map([], |r| r.get::<_, String>(1)).unwrap().map(Result::unwrap).collect()
    };
    let mut tcols = vec![
        "id",
        "title",
        "cwd",
        "created_at",
        "updated_at",
        "message_count",
        "parent_thread_id",
        "snapshot_at_message_id",
        "hidden",
        "cancel_policy",
        "config",
        "cached_context",
        "agent_status",
    ];
    let mut mcols = vec!["message_id", "thread_id", "role", "content"];
    if post {
        tcols.extend(["frozen_context", "inherited_context", "context_cache_epoch"]);
        mcols.extend(["truncated", "excluded", "projection"]);
    }
    assert_eq!(cols("threads"), tcols);
    assert_eq!(cols("messages"), mcols);
    assert_eq!(q("SELECT COUNT(*) FROM sqlite_master WHERE type='index' AND name='idx_messages_thread_id'"), 1);
    assert_eq!(q("SELECT COUNT(*) FROM sqlite_master WHERE type='table'"), 2);
    // every row is valid JSON, ids and roles agree
    assert_eq!(q("SELECT COUNT(*) FROM messages WHERE NOT json_valid(content)"), 0);
    let bad_id =
        format!("{NORM} SELECT COUNT(*) FROM m WHERE message_id IS NOT coalesce(j ->> '$.id', content ->> '$.id')");
    assert_eq!(q(&bad_id), 0);
    let bad_role = format!("{NORM} SELECT COUNT(*) FROM m WHERE j IS NOT NULL AND role IS NOT j ->> '$.role'");
    assert_eq!(q(&bad_role), 0);
    assert_eq!(q("SELECT COUNT(*) FROM messages WHERE role NOT IN ('user','assistant','system','tool')"), 0);
    if post {
        assert_eq!(
            q("SELECT COUNT(*) FROM messages WHERE content ->> '$.version' IS NOT 1 \
               OR content ->> '$.type' NOT IN ('message','system_reminder')"),
            0
        );
        assert_eq!(
            q("SELECT COUNT(*) FROM messages WHERE content ->> '$.type' = 'system_reminder' \
               AND (role != 'system' OR length(content ->> '$.reminder.text') = 0)"),
            0
        );
    } else {
        assert_eq!(
            q("SELECT COUNT(*) FROM messages WHERE json_type(content,'$.version') IS NOT NULL \
               OR json_type(content,'$.type') IS NOT NULL"),
            0
        );
    }
    // call ids: unique, well-formed, both styles; mirror between blocks and tool_calls
    let n_tc = q(&format!("{NORM} SELECT COUNT(*) FROM m, json_each(m.j, '$.tool_calls') WHERE role='assistant'"));
    assert_eq!(n_tc as usize, d.calls.len());
    let ids: BTreeSet<&str> = d.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), d.calls.len(), "duplicate call ids");
    assert!(d.calls.iter().all(|c| is_call_id(&c.id)));
    let deepseek = d.calls.iter().filter(|c| c.id.starts_with("call_")).count();
    assert!(deepseek > 0 && deepseek < d.calls.len());
    let mirror_bad = format!(
        "{NORM}, b AS (SELECT m.rid, group_concat((x.value ->> '$.id') || (x.value ->> '$.input'), '|') AS k \
           FROM m, json_each(m.j, '$.content') x WHERE role='assistant' AND json_type(m.j,'$.content')='array' \
           AND x.value ->> '$.type' = 'tool_use' GROUP BY m.rid), \
         t AS (SELECT m.rid, group_concat((x.value ->> '$.id') || (x.value ->> '$.arguments'), '|') AS k \
           FROM m, json_each(m.j, '$.tool_calls') x WHERE role='assistant' GROUP BY m.rid) \
         SELECT COUNT(*) FROM t LEFT JOIN b USING (rid) WHERE b.k IS NOT t.k AND b.rid IS NOT NULL"
    );
    assert_eq!(q(&mirror_bad), 0, "tool_use blocks and tool_calls disagree");
    let plain = q(&format!(
        "{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_type(j,'$.content')='text' \
         AND json_array_length(j,'$.tool_calls') > 0"
    ));
    let with_calls =
        q(&format!("{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_array_length(j,'$.tool_calls') > 0"));
    let blocks_no_calls = q(&format!(
        "{NORM} SELECT COUNT(*) FROM m WHERE role='assistant' AND json_type(j,'$.content')='array' \
         AND json_array_length(j,'$.tool_calls') > 0 AND NOT EXISTS (SELECT 1 FROM json_each(j,'$.content') x \
         WHERE x.value ->> '$.type'='tool_use')"
    ));
    assert_eq!(blocks_no_calls, 0);
    let ratio = plain as f64 / with_calls as f64;
    assert!((0.025..0.08).contains(&ratio), "plain-string share {ratio}");
    facts.push(format!(
        "assistant messages with calls: {with_calls}, of which plain-string content: {plain} ({:.1}%)",
        100.0 * ratio
    ));
    let par: Vec<(i64, i64)> = {
        let sql = format!(
            "{NORM} SELECT coalesce(json_array_length(j,'$.tool_calls'), 0) n, COUNT(*) FROM m \
             WHERE role='assistant' GROUP BY n ORDER BY n"
        );
        let mut st = conn.prepare(&sql).unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    };
    assert!(par.iter().all(|&(n, _)| n <= 3));
    assert!(par.iter().any(|&(n, c)| n >= 2 && c > 0));
    facts.push(format!("assistant messages by number of calls (n, count): {par:?}"));
    // pairing: no orphans, results in call order, exactly the expected unpaired calls
    assert!(d.orphans.is_empty(), "orphan results: {}", d.orphans.len());
    let mut by_msg: BTreeMap<i64, Vec<&Call>> = BTreeMap::new();
    for c in &d.calls {
        by_msg.entry(c.rid).or_default().push(c);
    }
    for cs in by_msg.values() {
        let rids: Vec<i64> = cs.iter().filter_map(|c| c.res.as_ref().map(|r| r.rid)).collect();
        assert!(rids.windows(2).all(|w| w[0] < w[1]), "results out of call order");
    }
    let unpaired: Vec<&Call> = d.calls.iter().filter(|c| c.res.is_none()).collect();
    if post {
        assert!(unpaired.is_empty());
    } else {
        assert_eq!(unpaired.len(), 1);
        let u = unpaired[0];
        assert_eq!(u.name, "Bash");
        assert!(d.threads[&u.thread].parent.is_none());
        let last: i64 =
            conn.query_row("SELECT max(rowid) FROM messages WHERE thread_id = ?1", [&u.thread], |r| r.get(0)).unwrap();
        assert_eq!(u.rid, last, "unpaired Bash is not the session's final message");
    }
    // threads: counts, times, ids, titles, sub-agent attributes
    let mut st =
        conn.prepare("SELECT rowid, message_id, thread_id, role, content FROM messages ORDER BY rowid").unwrap();
    let rows: Vec<(i64, String, String, String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let (lo, hi) = (rfc_us(range.0) / 1000, rfc_us(range.1) / 1000);
    let mut prev_ms = 0;
    let mut per_thread: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
    for (rid, mid, tid, _, _) in &rows {
        assert!(is_uuid7(mid), "bad uuid {mid}");
        let ms = uuid_ms(mid);
        assert!(ms >= prev_ms, "rowid order is not time order");
        assert!(ms >= lo && ms < hi, "message outside the date range");
        prev_ms = ms;
        per_thread.entry(tid).or_default().push((*rid, ms));
    }
    for (tid, th) in &d.threads {
        assert!(is_uuid7(tid));
        let ms = &per_thread[tid.as_str()];
        assert_eq!(ms.len() as i64, th.message_count);
        assert!(ms.windows(2).all(|w| w[0].1 < w[1].1), "thread time not strictly increasing");
        let created = rfc_us(&th.created_at);
        let updated = rfc_us(&th.updated_at);
        assert!(th.created_at.ends_with("+00:00") && th.created_at.len() == 32);
        assert!(th.updated_at.ends_with("+00:00") && th.updated_at.len() == 32);
        assert_eq!(updated / 1000, ms.last().unwrap().1, "updated_at != last message");
        assert!(created / 1000 <= ms[0].1);
        assert_eq!(uuid_ms(tid), created / 1000);
        match &th.parent {
            None => {
                assert!(!th.hidden);
                assert_eq!(th.cancel_policy, "cascade");
                let first = rows.iter().find(|r| r.0 == ms[0].0).unwrap();
                assert_eq!(first.3, "user", "root session does not start with a user message");
                let v: Value = serde_json::from_str(&first.4).unwrap();
                let v = if post { v["message"].clone() } else { v };
                let title: String = v["content"].as_str().unwrap().chars().take(50).collect();
                assert_eq!(th.title.as_deref(), Some(title.as_str()));
            }
            Some(p) => {
                assert!(th.hidden);
                assert!(d.threads[p].parent.is_none(), "nested sub-agent");
                let title = th.title.as_deref().unwrap();
                match title {
                    "fork" => assert!(th.snapshot.is_some() && th.cancel_policy == "cascade"),
                    t if t.starts_with("bg-fork-bg-") => {
                        assert!(th.snapshot.is_some() && th.cancel_policy == "independent")
                    }
                    t => {
                        assert!(th.snapshot.is_none());
                        assert!(["explore", "plan", "general-purpose", "verification", "code-reviewer"].contains(&t));
                    }
                }
                if let Some(snap) = &th.snapshot {
                    let (_, _, stid, _, _) = rows.iter().find(|r| &r.1 == snap).expect("snapshot message exists");
                    assert_eq!(stid, p);
                }
            }
        }
    }
    // sub-agent rows sit between the parent's Agent tool_use row and its tool row,
    // and the Agent result reports the sub-agent's real call counts
    let mut spawned = 0;
    for (tid, th) in &d.threads {
        let Some(p) = &th.parent else { continue };
        let span = &per_thread[tid.as_str()];
        let (a, b) = (span[0].0, span.last().unwrap().0);
        let enclosing: Vec<&Call> = d
            .calls
            .iter()
            .filter(|c| &c.thread == p && c.name == "Agent" && c.rid < a && c.res.as_ref().is_some_and(|r| r.rid > b))
            .collect();
        assert_eq!(enclosing.len(), 1, "sub-agent not nested in exactly one Agent call");
        let sub_calls: Vec<&Call> = d.calls.iter().filter(|c| &c.thread == tid).collect();
        let text = &enclosing[0].res.as_ref().unwrap().text;
        assert!(text.starts_with(&format!("[Sub-agent executed {} tool calls: ", sub_calls.len())), "{text}");
        for tool in ["Read", "Grep", "Glob", "Bash", "Edit"] {
            let k = sub_calls.iter().filter(|c| c.tool == tool).count();
            if k > 0 {
                assert!(text.contains(&format!("{tool} {k} times")));
            }
        }
        spawned += 1;
    }
    facts.push(format!("sub-agent threads nested in their Agent call: {spawned}"));
    // interleaving and concurrency of root sessions
    let mut spans: BTreeMap<&str, (i64, i64, i64, i64)> = BTreeMap::new();
    for (rid, mid, tid, _, _) in &rows {
        let root = d.root(tid);
        let e = spans.entry(root).or_insert((i64::MAX, 0, i64::MAX, 0));
        e.0 = e.0.min(*rid);
        e.1 = e.1.max(*rid);
        e.2 = e.2.min(uuid_ms(mid));
        e.3 = e.3.max(uuid_ms(mid));
    }
    let mut interleaved = 0;
    for (root, &(a, b, _, _)) in &spans {
        if rows.iter().any(|r| r.0 > a && r.0 < b && d.root(&r.2) != *root) {
            interleaved += 1;
        }
    }
    let mut evs: Vec<(i64, i32)> = spans.values().flat_map(|s| [(s.2, 1), (s.3 + 1, -1)]).collect();
    evs.sort();
    let (mut cur, mut max_conc) = (0, 0);
    for (_, d) in evs {
        cur += d;
        max_conc = max_conc.max(cur);
    }
    assert!((3..=4).contains(&max_conc), "max concurrency {max_conc}");
    assert!(interleaved * 2 > spans.len(), "too little interleaving");
    facts.push(format!(
        "root sessions: {}, interleaved with another session: {interleaved}, max concurrent: {max_conc}",
        spans.len()
    ));
    // messages per role
    let mut st = conn.prepare("SELECT role, COUNT(*) FROM messages GROUP BY role ORDER BY role").unwrap();
    let roles: Vec<(String, i64)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    facts.push(format!("messages by role: {roles:?}"));
    let sys_roots = q(&format!(
        "{NORM} SELECT COUNT(*) FROM m JOIN threads t ON t.id = m.thread_id \
         WHERE m.role = 'system' AND t.parent_thread_id IS NULL"
    ));
    let sys_all = q("SELECT COUNT(*) FROM messages WHERE role = 'system'");
    assert_eq!(sys_roots, sys_all, "system rows belong to root sessions");
    // Postmortem: 14 sessions open with one, 6 others get a compaction note later.
    // PostFix: 3 system messages plus 5 system_reminder envelope rows.
    assert_eq!(sys_all, if post { 3 + 5 } else { 14 + 6 });
    facts.push(format!("system-role rows: {sys_all}"));
    facts.push(format!(
        "threads: {} ({} sub-agent), messages: {}, calls: {}, file size: {} bytes, generation: {:.2}s (debug build)",
        d.threads.len(),
        d.threads.values().filter(|t| t.parent.is_some()).count(),
        rows.len(),
        d.calls.len(),
        std::fs::metadata(&db.path).unwrap().len(),
        db.secs
    ));
    assert_eq!(db.stats.threads, d.threads.len());
    assert_eq!(db.stats.subagent_threads, d.threads.values().filter(|t| t.parent.is_some()).count());
    assert_eq!(db.stats.messages, rows.len());
    facts
}

mod postfix;
mod postmortem;
