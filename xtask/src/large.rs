//! A large Peri-format database for benchmarks: a configurable number of
//! tool calls, a realistic mix of tools and errors, sub-agent threads, and
//! sessions that run concurrently so their messages interleave in storage
//! order, as in real stores. Deterministic from a seed.
//!
//! Two profiles ([`Profile`]):
//! * `large` (the default): four sessions at a time, results with a median
//!   near 1 KB and a 0.5% tail of 100–400 KB, every Agent call runs a sub-agent.
//! * `small`: the shape of a busy real store with small messages: about
//!   2 million messages averaging about 650 bytes, 2,500 sessions (2,250 root
//!   sessions written 8 at a time, about 250 sub-agents).
//!
//! It streams: one prepared INSERT, one transaction, and only the state of
//! the sessions currently running is kept in memory.

use std::path::Path;

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::rng::Rng;

/// What `generate_large` wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LargeStats {
    pub threads: u64,
    pub subagent_threads: u64,
    pub messages: u64,
    pub calls: u64,
    pub content_bytes: u64,
}

/// The distribution of a tool result's text length: log-normal around
/// `median` bytes (spread `sigma`, clamped to 20..=`max`), plus a share `tail`
/// of big outputs of `tail_min`..`tail_min + tail_span` bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResultBytes {
    pub median: f64,
    pub sigma: f64,
    pub max: f64,
    pub tail: f64,
    pub tail_min: u64,
    pub tail_span: u64,
}

impl ResultBytes {
    /// Median near 1 KB, up to 60 KB, and a 0.5% tail of 100–400 KB outputs.
    pub const LARGE: ResultBytes =
        ResultBytes { median: 1000.0, sigma: 0.9, max: 60_000.0, tail: 0.005, tail_min: 100_000, tail_span: 300_000 };
    /// Median near 330 bytes (so a message averages about 650 bytes), up to
    /// 20 KB, and a 0.05% tail of 10–50 KB outputs.
    pub const SMALL: ResultBytes =
        ResultBytes { median: 330.0, sigma: 0.9, max: 20_000.0, tail: 0.0005, tail_min: 10_000, tail_span: 40_000 };

    /// `large`, `small`, or a median in bytes (log-normal, no tail).
    pub fn parse(s: &str) -> Option<ResultBytes> {
        match s {
            "large" => Some(Self::LARGE),
            "small" => Some(Self::SMALL),
            _ => {
                let median: u32 = s.parse().ok().filter(|&m| m >= 20)?;
                Some(ResultBytes { median: f64::from(median), tail: 0.0, ..Self::LARGE })
            }
        }
    }

    fn draw(&self, rng: &mut Rng) -> usize {
        if self.tail > 0.0 && rng.chance(self.tail) {
            return (self.tail_min + rng.modulo(self.tail_span)) as usize;
        }
        // Box-Muller: a standard normal from two uniforms.
        let (u1, u2) = (rng.unit().max(1e-12), rng.unit());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        (self.median * (self.sigma * z).exp()).clamp(20.0, self.max) as usize
    }
}

/// A preset shape of database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Large,
    Small,
}

impl Profile {
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "large" => Some(Profile::Large),
            "small" => Some(Profile::Small),
            _ => None,
        }
    }

    /// The profile's shape, for `seed`.
    pub fn shape(self, seed: u64) -> Shape {
        match self {
            Profile::Large => Shape {
                calls: 1_000_000,
                seed,
                concurrent: 4,
                sessions: None,
                spawn: 1.0,
                result_bytes: ResultBytes::LARGE,
            },
            // About 1.5 messages per call (results, and one assistant message
            // per 1-3 calls): 1,325,000 calls make about 2 million messages.
            Profile::Small => Shape {
                calls: 1_325_000,
                seed,
                concurrent: 8,
                sessions: Some(2_250),
                spawn: 0.02,
                result_bytes: ResultBytes::SMALL,
            },
        }
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Tool calls in all (the last step may add up to two more).
    pub calls: u64,
    pub seed: u64,
    /// Root sessions written at a time; their rows interleave in storage order.
    pub concurrent: usize,
    /// Root sessions in all, each with a share of the calls drawn around
    /// `calls / sessions`; `None`: each makes 20–419 calls, as many as the
    /// calls need.
    pub sessions: Option<u64>,
    /// The chance that an Agent call runs a sub-agent thread; the others are
    /// answered at once.
    pub spawn: f64,
    pub result_bytes: ResultBytes,
}

fn uuid7(ms: u64, rng: &mut Rng) -> String {
    let r = rng.next_u64();
    let r2 = rng.next_u64();
    format!(
        "{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}",
        ms >> 16,
        ms & 0xffff,
        r & 0xfff,
        0x8000 | ((r >> 12) & 0x3fff),
        r2 & 0xffff_ffff_ffff
    )
}

/// Tools and their weights in the mix.
const MIX: &[(&str, u32)] = &[
    ("Read", 30),
    ("Bash", 20),
    ("Edit", 18),
    ("Grep", 13),
    ("Glob", 4),
    ("Write", 4),
    ("TodoWrite", 4),
    ("Agent", 1),
    ("WebFetch", 2),
    ("WebSearch", 2),
    ("AskUserQuestion", 1),
    ("ExecuteExtraTool", 1),
];

/// Failure texts per tool: (text, stored flag). Hidden ones say `Error:` with
/// the flag false, as in the founding postmortem.
fn failure(tool: &str, path: &str, rng: &mut Rng) -> (String, bool) {
    let hidden = rng.chance(0.6);
    let text = match tool {
        "Edit" if rng.chance(0.7) => format!("Error: old_string not found in {path}"),
        "Edit" => format!(
            "Error: old_string is not unique in {path} (found 2 occurrences). Please provide more context or set replace_all to true."
        ),
        "Agent" => {
            "Error: please provide subagent_type parameter to specify the agent type, or use fork: true for fork mode"
                .to_string()
        }
        "Read" => format!("Error: File not found at {path}"),
        "Bash" => "Error: Command timed out after 120 seconds.".to_string(),
        "Grep" => "Error: Search timed out after 15 seconds. Please use a more specific pattern.".to_string(),
        "WebFetch" => "Extract API returned HTTP 502: Bad Gateway".to_string(),
        _ => format!("Error: {tool} failed: invalid input"),
    };
    if hidden { (text, false) } else { (format!("Tool execution failed: {tool} - {text}"), true) }
}

#[derive(Serialize)]
struct ToolUse<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    name: &'a str,
    input: &'a serde_json::Value,
}

#[derive(Serialize)]
struct Mirror<'a> {
    id: &'a str,
    name: &'a str,
    arguments: &'a serde_json::Value,
}

#[derive(Serialize)]
struct Assistant<'a> {
    role: &'static str,
    id: &'a str,
    content: Vec<ToolUse<'a>>,
    tool_calls: Vec<Mirror<'a>>,
}

#[derive(Serialize)]
struct ToolRow<'a> {
    role: &'static str,
    id: &'a str,
    tool_call_id: &'a str,
    content: &'a str,
    is_error: bool,
}

struct Session {
    id: String,
    /// Calls still to make.
    left: u64,
    /// A sub-agent's parent session, and the parent's pending Agent call.
    parent: Option<(usize, String)>,
    /// Waiting for a sub-agent to finish.
    waiting: bool,
    /// Parent's deferred Agent result row, written when the child ends.
    files: Vec<String>,
}

/// Write a new Peri database at `path` in the given shape.
pub fn generate_large(path: &Path, shape: &Shape) -> rusqlite::Result<LargeStats> {
    let (calls, seed) = (shape.calls, shape.seed);
    let mut conn = Connection::open(path)?;
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;
         CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, cwd TEXT NOT NULL DEFAULT '',
           created_at TEXT NOT NULL, updated_at TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
           parent_thread_id TEXT, snapshot_at_message_id TEXT, hidden BOOLEAN NOT NULL DEFAULT 0,
           cancel_policy TEXT NOT NULL DEFAULT 'cascade', config TEXT, cached_context TEXT,
           agent_status TEXT NOT NULL DEFAULT 'active');
         CREATE TABLE messages (message_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
           role TEXT NOT NULL, content TEXT NOT NULL);
         CREATE INDEX idx_messages_thread_id ON messages (thread_id ASC);",
    )?;
    let mut rng = Rng::new(seed ^ 0x7472_6163_656c_696e);
    // A pool of text that results are cut from (cheap to slice, realistic to escape).
    let line = "    let value = compute(&input, config.threshold)?; // \"quoted\" and a tab\there\n";
    let pool: String = line.repeat(420_000 / line.len() + 1);
    let mut stats = LargeStats::default();
    let mut ms: u64 = 1_780_000_000_000; // 2026-05-28
    let tx = conn.transaction()?;
    {
        let mut insert_msg =
            tx.prepare("INSERT INTO messages (message_id, thread_id, role, content) VALUES (?1, ?2, ?3, ?4)")?;
        let mut insert_thread = tx.prepare(
            "INSERT INTO threads (id, title, created_at, updated_at, message_count, parent_thread_id, hidden)
             VALUES (?1, ?2, ?3, ?3, 0, ?4, ?5)",
        )?;
        let mut sessions: Vec<Session> = Vec::new();
        let mut made: u64 = 0;
        let stamp = |ms: u64| chrono::DateTime::from_timestamp_millis(ms as i64).unwrap_or_default().to_rfc3339();
        let concurrency = shape.concurrent.max(1);
        // Root sessions still to start, when their number is fixed.
        let mut roots_left = shape.sessions;
        while made < calls || !sessions.is_empty() {
            // Keep `concurrency` root sessions running while calls remain.
            let roots = sessions.iter().filter(|s| s.parent.is_none()).count();
            if made < calls && roots < concurrency && roots_left != Some(0) {
                let id = uuid7(ms, &mut rng);
                insert_thread.execute(params![id, "bench session", stamp(ms), Option::<String>::None, 0])?;
                stats.threads += 1;
                let user =
                    format!(r#"{{"role":"user","id":"{}","content":"please fix the build"}}"#, uuid7(ms, &mut rng));
                insert_msg.execute(params![uuid7(ms, &mut rng), id, "user", user])?;
                stats.messages += 1;
                let left = match &mut roots_left {
                    None => 20 + rng.modulo(400),
                    Some(n) => {
                        *n -= 1;
                        if *n == 0 {
                            u64::MAX // the last root session takes whatever is left
                        } else {
                            // Draw around an equal share of the calls nobody has yet.
                            let promised: u64 = sessions.iter().map(|s| s.left).sum();
                            let share = calls.saturating_sub(made + promised) / (*n + 1);
                            1 + rng.modulo(2 * share)
                        }
                    }
                };
                sessions.push(Session { id, left, parent: None, waiting: false, files: Vec::new() });
                continue;
            }
            // Pick a running session that is not waiting for a sub-agent.
            let ready: Vec<usize> = (0..sessions.len()).filter(|&i| !sessions[i].waiting).collect();
            let Some(&si) = ready.get(rng.modulo(ready.len() as u64) as usize) else { break };
            ms += 1 + rng.modulo(900);
            if sessions[si].left == 0 || made >= calls {
                // The session ends; a sub-agent hands its result to the parent.
                let s = sessions.remove(si);
                if let Some((parent_idx, call_id)) = s.parent {
                    let pi = if parent_idx > si { parent_idx - 1 } else { parent_idx };
                    let text =
                        format!("[Sub-agent executed {} tool calls]\n\nDone: the build is fixed.", s.files.len());
                    let row = ToolRow {
                        role: "tool",
                        id: &uuid7(ms, &mut rng),
                        tool_call_id: &call_id,
                        content: &text,
                        is_error: false,
                    };
                    let json = serde_json::to_string(&row)
                        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
                    stats.content_bytes += json.len() as u64;
                    insert_msg.execute(params![row.id, sessions[pi].id, "tool", json])?;
                    stats.messages += 1;
                    sessions[pi].waiting = false;
                    // Indexes above the removed one shifted; fix the children's links.
                }
                for s2 in sessions.iter_mut() {
                    if let Some((p, _)) = &mut s2.parent
                        && *p > si
                    {
                        *p -= 1;
                    }
                }
                continue;
            }
            // One assistant step with 1-3 parallel calls, then their results.
            let n = 1 + rng.modulo(3).min(sessions[si].left.saturating_sub(1));
            let mut uses: Vec<(String, &'static str, serde_json::Value)> = Vec::new();
            let mut spawn: Option<String> = None;
            for _ in 0..n {
                let mut pick = rng.modulo(MIX.iter().map(|m| u64::from(m.1)).sum());
                let mut tool = MIX[0].0;
                for (t, w) in MIX {
                    if pick < u64::from(*w) {
                        tool = t;
                        break;
                    }
                    pick -= u64::from(*w);
                }
                if tool == "Agent" && (sessions[si].parent.is_some() || spawn.is_some()) {
                    tool = "Read"; // sub-agents do not spawn; one spawn per step
                }
                let file = format!("/work/project/src/module_{}/file_{}.rs", rng.modulo(40), rng.modulo(200));
                let input = match tool {
                    "Read" => serde_json::json!({"file_path": file}),
                    "Edit" => {
                        serde_json::json!({"file_path": file, "old_string": "compute(&input)", "new_string": "compute(&input, cfg)"})
                    }
                    "Write" => serde_json::json!({"file_path": file, "content": "fn main() {}\n"}),
                    "Bash" => serde_json::json!({"command": "cargo test --workspace", "description": "run tests"}),
                    "Grep" => serde_json::json!({"pattern": "compute\\(", "path": "src"}),
                    "Glob" => serde_json::json!({"pattern": "**/*.rs"}),
                    "Agent" => serde_json::json!({"prompt": "find the failing test", "subagent_type": "explore"}),
                    "ExecuteExtraTool" => {
                        serde_json::json!({"tool_name": "AgentResult", "params": {"task_id": "bg-1"}})
                    }
                    "TodoWrite" => serde_json::json!({"todos": [
                        {"content": "reproduce the failure", "status": "completed"},
                        {"content": "fix the parser", "status": "in_progress"}
                    ]}),
                    "WebFetch" => {
                        serde_json::json!({"url": "https://docs.rs/rusqlite", "prompt": "how to open read-only"})
                    }
                    "AskUserQuestion" => serde_json::json!({"questions": [{
                        "question": "Which branch?", "header": "Branch",
                        "options": [{"label": "main"}, {"label": "dev"}]
                    }]}),
                    _ => serde_json::json!({"query": "hidden tool errors"}),
                };
                sessions[si].files.push(file);
                let id = format!("call_{:016x}", rng.next_u64());
                if tool == "Agent" && (shape.spawn >= 1.0 || rng.chance(shape.spawn)) {
                    spawn = Some(id.clone());
                }
                uses.push((id, tool, input));
            }
            let msg_id = uuid7(ms, &mut rng);
            let msg = Assistant {
                role: "assistant",
                id: &msg_id,
                content: uses.iter().map(|(id, name, input)| ToolUse { kind: "tool_use", id, name, input }).collect(),
                tool_calls: uses.iter().map(|(id, name, input)| Mirror { id, name, arguments: input }).collect(),
            };
            let json = serde_json::to_string(&msg).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            stats.content_bytes += json.len() as u64;
            insert_msg.execute(params![msg_id, sessions[si].id, "assistant", json])?;
            stats.messages += 1;
            stats.calls += uses.len() as u64;
            made += uses.len() as u64;
            sessions[si].left = sessions[si].left.saturating_sub(uses.len() as u64);
            for (id, tool, input) in &uses {
                if spawn.as_deref() == Some(id.as_str()) {
                    continue; // answered when the sub-agent ends
                }
                let path = input.get("file_path").and_then(|v| v.as_str()).unwrap_or("/work/project");
                let (text, flag) = if rng.chance(0.03) {
                    failure(tool, path, &mut rng)
                } else {
                    let size = shape.result_bytes.draw(&mut rng);
                    let start = rng.modulo(400) as usize * line.len() % (pool.len() - size.min(pool.len() - 1));
                    (pool[start..start + size.min(pool.len() - start)].to_string(), false)
                };
                ms += rng.modulo(50);
                let row_id = uuid7(ms, &mut rng);
                let row = ToolRow { role: "tool", id: &row_id, tool_call_id: id, content: &text, is_error: flag };
                let json =
                    serde_json::to_string(&row).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
                stats.content_bytes += json.len() as u64;
                insert_msg.execute(params![row_id, sessions[si].id, "tool", json])?;
                stats.messages += 1;
            }
            if let Some(call_id) = spawn {
                let child = uuid7(ms, &mut rng);
                insert_thread.execute(params![child, "explore", stamp(ms), Some(sessions[si].id.clone()), 1])?;
                stats.threads += 1;
                stats.subagent_threads += 1;
                sessions[si].waiting = true;
                let left = (5 + rng.modulo(40)).min(calls.saturating_sub(made).max(1));
                sessions.push(Session {
                    id: child,
                    left,
                    parent: Some((si, call_id)),
                    waiting: false,
                    files: Vec::new(),
                });
            }
        }
        tx.execute_batch(
            "UPDATE threads SET message_count = (SELECT count(*) FROM messages WHERE thread_id = threads.id);",
        )?;
    }
    tx.commit()?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_valid_for_the_peri_schemas() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        generate_large(&db, &Shape { calls: 2000, ..Profile::Large.shape(3) }).unwrap();
        let set = falseok::SchemaSet::build(Some(falseok::model::Dialect::PERI), &[], &falseok::FileSchemas::default())
            .unwrap();
        let conn = Connection::open(&db).unwrap();
        let mut st = conn
            .prepare(
                "SELECT b.value ->> '$.name', b.value -> '$.input' FROM messages m, json_each(m.content, '$.content') b
                 WHERE m.role = 'assistant'",
            )
            .unwrap();
        let rows: Vec<(String, String)> =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
        assert!(rows.len() >= 2000);
        for (tool, input) in rows {
            let input: serde_json::Value = serde_json::from_str(&input).unwrap();
            let (tool, input) = if tool == "ExecuteExtraTool" {
                ("AgentResult".to_string(), input["params"].clone())
            } else {
                (tool, input)
            };
            if let Some(ts) = set.get(&tool) {
                assert!(falseok::validate(ts, &input).is_empty(), "{tool}: {input}");
            }
        }
    }

    #[test]
    fn small_database_is_deterministic_and_interleaved() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
        let shape = Shape { calls: 3000, ..Profile::Large.shape(1) };
        let sa = generate_large(&a, &shape).unwrap();
        let sb = generate_large(&b, &shape).unwrap();
        assert_eq!(sa, sb);
        assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(), "same seed, same bytes");
        assert!((3000..3003).contains(&sa.calls), "{sa:?}");
        assert!(sa.subagent_threads > 0);
        let conn = Connection::open(&a).unwrap();
        // Interleaving: consecutive rows often belong to different threads.
        let switches: i64 = conn
            .query_row(
                "SELECT count(*) FROM messages m JOIN messages n ON n.rowid = m.rowid + 1 WHERE n.thread_id <> m.thread_id",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(switches > sa.messages as i64 / 10, "{switches} switches");
        // Every call has exactly one result.
        let ids = |sql: &str| -> Vec<String> {
            let mut st = conn.prepare(sql).unwrap();
            let mut v: Vec<String> = st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
            v.sort();
            v
        };
        let calls = ids(
            "SELECT b.value ->> '$.id' FROM messages m, json_each(m.content, '$.content') b WHERE m.role = 'assistant'",
        );
        let results = ids("SELECT content ->> '$.tool_call_id' FROM messages WHERE role = 'tool'");
        assert_eq!(calls.len() as u64, sa.calls);
        assert_eq!(calls, results);
        let median: i64 = conn
            .query_row(
                "SELECT length(content) FROM messages WHERE role = 'tool' ORDER BY length(content)
                 LIMIT 1 OFFSET (SELECT count(*) / 2 FROM messages WHERE role = 'tool')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!((600..1800).contains(&median), "median result {median} bytes");
    }

    #[test]
    fn small_profile_has_small_messages_and_the_sessions_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("small.db");
        let shape = Shape { calls: 15_000, sessions: Some(30), ..Profile::Small.shape(1) };
        let stats = generate_large(&db, &shape).unwrap();
        assert!((15_000..15_003).contains(&stats.calls), "{stats:?}");
        let conn = Connection::open(&db).unwrap();
        let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(one("SELECT count(*) FROM threads WHERE parent_thread_id IS NULL"), 30);
        assert_eq!(stats.threads - stats.subagent_threads, 30);
        let mean = one("SELECT CAST(avg(length(content)) AS INTEGER) FROM messages");
        assert!((550..750).contains(&mean), "messages average {mean} bytes");
        // Eight sessions at a time: a step (an assistant message and its results)
        // is written in one go, then usually another session's step follows.
        let switches = one(
            "SELECT count(*) FROM messages m JOIN messages n ON n.rowid = m.rowid + 1 WHERE n.thread_id <> m.thread_id",
        );
        assert!(switches > stats.messages as i64 / 4, "{switches} switches of {}", stats.messages);
        let window = one("SELECT count(DISTINCT thread_id) FROM messages WHERE rowid BETWEEN 10000 AND 10100");
        assert!(window >= 8, "{window} threads in 100 rows");
        // Every call has exactly one result, spawned sub-agent or not.
        let unanswered = one("SELECT count(*) FROM (
               SELECT b.value ->> '$.id' FROM messages m, json_each(m.content, '$.content') b WHERE m.role = 'assistant'
               EXCEPT SELECT content ->> '$.tool_call_id' FROM messages WHERE role = 'tool')");
        assert_eq!(unanswered, 0);
        assert_eq!(one("SELECT count(*) FROM messages WHERE role = 'tool'") as u64, stats.calls);
    }
}
