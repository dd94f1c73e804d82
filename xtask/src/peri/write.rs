//! The builder: the schedule of sessions and the rows written to SQLite.

use super::*;

impl Builder<'_> {
    // ----- schedule and output -----

    /// Session start times: batches of 3 or 4 sessions spread over the date range. All
    /// sessions of a batch start before any of them ends, so they truly run concurrently;
    /// a batch starts only after the previous batch has finished.
    pub(super) fn schedule(&mut self, durations: &[i64]) -> Vec<i64> {
        let n = durations.len();
        let mut batches = Vec::new();
        let mut i = 0;
        while i < n {
            let left = n - i;
            let mut k = if left <= 4 {
                left
            } else if self.rng.chance(0.5) {
                3
            } else {
                4
            };
            // Never leave a remainder that cannot be split into 3s and 4s.
            if matches!(left.saturating_sub(k), 1 | 2 | 5) {
                k = 7 - k;
            }
            batches.push(i..i + k);
            i += k;
        }
        let span = self.plan.end_us - self.plan.start_us;
        let slot = span / batches.len().max(1) as i64;
        let mut starts = vec![0; n];
        let mut prev_end = self.plan.start_us;
        for (b, r) in batches.into_iter().enumerate() {
            let nominal = self.plan.start_us + b as i64 * slot + self.rng.range(20 * MIN, 90 * MIN);
            let bs = nominal.max(prev_end + self.rng.range(5 * MIN, 40 * MIN));
            let shortest = r.clone().map(|si| durations[si]).min().unwrap_or(MIN);
            let max_gap = (shortest / (r.len() as i64 + 1)).clamp(SEC, 12 * MIN);
            let mut off = 0;
            for si in r {
                let st = (bs + off) / MS * MS;
                starts[si] = st;
                prev_end = prev_end.max(st + durations[si]);
                off += self.rng.range(max_gap / 4, max_gap);
            }
        }
        debug_assert!(prev_end < self.plan.end_us, "sessions overflow the date range");
        starts
    }

    pub(super) fn render(&self, m: &Msg, id: &str) -> (&'static str, String) {
        let (role, inner) = match &m.body {
            Body::User(t) => ("user", format!(r#"{{"role":"user","id":{},"content":{}}}"#, js(id), js(t))),
            Body::System(t) => ("system", format!(r#"{{"role":"system","id":{},"content":{}}}"#, js(id), js(t))),
            Body::Reminder(t) => {
                return (
                    "system",
                    format!(
                        r#"{{"version":1,"type":"system_reminder","id":{},"reminder":{{"text":{}}}}}"#,
                        js(id),
                        js(t)
                    ),
                );
            }
            Body::Assistant { reasoning, text, plain, calls } => {
                let content = if *plain {
                    js(text.as_deref().or(reasoning.as_deref()).unwrap_or("Let me continue."))
                } else {
                    let mut parts = Vec::new();
                    if let Some(r) = reasoning {
                        parts.push(format!(r#"{{"type":"reasoning","text":{}}}"#, js(r)));
                    }
                    if let Some(t) = text {
                        parts.push(format!(r#"{{"type":"text","text":{}}}"#, js(t)));
                    }
                    for &c in calls {
                        let c = &self.calls[c];
                        parts.push(format!(
                            r#"{{"type":"tool_use","id":{},"name":{},"input":{}}}"#,
                            js(&c.id),
                            js(c.tool.call_name()),
                            c.input
                        ));
                    }
                    format!("[{}]", parts.join(","))
                };
                let tool_calls = if calls.is_empty() {
                    String::new()
                } else {
                    let tc: Vec<String> = calls
                        .iter()
                        .map(|&c| {
                            let c = &self.calls[c];
                            format!(
                                r#"{{"id":{},"name":{},"arguments":{}}}"#,
                                js(&c.id),
                                js(c.tool.call_name()),
                                c.input
                            )
                        })
                        .collect();
                    format!(r#","tool_calls":[{}]"#, tc.join(","))
                };
                ("assistant", format!(r#"{{"role":"assistant","id":{},"content":{content}{tool_calls}}}"#, js(id)))
            }
            Body::Tool(c) => {
                let c = &self.calls[*c];
                let (text, err) = c.result.clone().unwrap_or_default();
                (
                    "tool",
                    format!(
                        r#"{{"role":"tool","id":{},"tool_call_id":{},"content":{},"is_error":{err}}}"#,
                        js(id),
                        js(&c.id),
                        js(&text)
                    ),
                )
            }
        };
        if self.plan.post {
            (role, format!(r#"{{"version":1,"type":"message","message":{inner}}}"#))
        } else {
            (role, inner)
        }
    }

    pub(super) fn write(&self, path: &Path, seed: u64) -> rusqlite::Result<GenStats> {
        debug_assert_eq!(self.realized_totals(), self.plan.totals.iter().copied().collect());
        let abs = |m: &Msg| self.starts[m.session] + m.t;
        let mut order: Vec<usize> = (0..self.msgs.len()).collect();
        order.sort_by_key(|&i| (abs(&self.msgs[i]), self.msgs[i].session, i));
        let mut idrng = peri_rng(seed.rotate_left(17) ^ 0x1D5_u64);
        let mut used = BTreeSet::new();
        let mut fresh = |ms: i64, rng: &mut Rng| loop {
            let id = uuid7(ms, rng);
            if used.insert(id.clone()) {
                return id;
            }
        };
        let mut msg_ids = vec![String::new(); self.msgs.len()];
        for &i in &order {
            msg_ids[i] = fresh(abs(&self.msgs[i]).div_euclid(MS), &mut idrng);
        }
        let created = |t: &ThreadRec| self.starts[t.session] + t.created;
        let mut torder: Vec<usize> = (0..self.threads.len()).collect();
        torder.sort_by_key(|&i| (created(&self.threads[i]), i));
        let mut thread_ids = vec![String::new(); self.threads.len()];
        for &i in &torder {
            thread_ids[i] = fresh(created(&self.threads[i]).div_euclid(MS), &mut idrng);
        }
        let mut count = vec![0usize; self.threads.len()];
        let mut last = vec![0i64; self.threads.len()];
        for m in &self.msgs {
            count[m.thread] += 1;
            last[m.thread] = last[m.thread].max(abs(m));
        }

        let mut conn = Connection::open(path)?;
        conn.query_row("PRAGMA journal_mode=DELETE", [], |_| Ok(()))?;
        let tx = conn.transaction()?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS threads (
                id TEXT PRIMARY KEY,
                title TEXT,
                cwd TEXT NOT NULL DEFAULT '',
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                message_count INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE IF NOT EXISTS messages (
                message_id TEXT PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                role TEXT NOT NULL,
                content TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS idx_messages_thread_id ON messages (thread_id ASC);
            ALTER TABLE threads ADD COLUMN parent_thread_id TEXT;
            ALTER TABLE threads ADD COLUMN snapshot_at_message_id TEXT;
            ALTER TABLE threads ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0;
            ALTER TABLE threads ADD COLUMN cancel_policy TEXT NOT NULL DEFAULT 'cascade';
            ALTER TABLE threads ADD COLUMN config TEXT;
            ALTER TABLE threads ADD COLUMN cached_context TEXT;
            ALTER TABLE threads ADD COLUMN agent_status TEXT NOT NULL DEFAULT 'active';",
        )?;
        if self.plan.post {
            tx.execute_batch(
                "ALTER TABLE threads ADD COLUMN frozen_context TEXT;
                ALTER TABLE threads ADD COLUMN inherited_context TEXT;
                ALTER TABLE threads ADD COLUMN context_cache_epoch INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN truncated BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN excluded BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN projection TEXT;",
            )?;
        }
        {
            let mut st = tx.prepare(
                "INSERT INTO threads (id, title, cwd, created_at, updated_at, message_count,
                    parent_thread_id, snapshot_at_message_id, hidden, cancel_policy, config,
                    cached_context, agent_status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, ?12)",
            )?;
            for &i in &torder {
                let t = &self.threads[i];
                st.execute(params![
                    thread_ids[i],
                    t.title,
                    t.cwd,
                    rfc3339(created(t)),
                    rfc3339(last[i].max(created(t))),
                    count[i] as i64,
                    t.parent.map(|p| thread_ids[p].clone()),
                    t.snapshot.map(|m| msg_ids[m].clone()),
                    t.hidden,
                    t.cancel_policy,
                    t.config,
                    t.status,
                ])?;
            }
            let mut st =
                tx.prepare("INSERT INTO messages (message_id, thread_id, role, content) VALUES (?1, ?2, ?3, ?4)")?;
            for &i in &order {
                let m = &self.msgs[i];
                let (role, content) = self.render(m, &msg_ids[i]);
                st.execute(params![msg_ids[i], thread_ids[m.thread], role, content])?;
            }
        }
        tx.commit()?;
        conn.execute_batch("VACUUM")?;
        drop(conn);

        let mut calls_by_tool = BTreeMap::new();
        for c in &self.calls {
            *calls_by_tool.entry(c.tool.stat_name().to_owned()).or_insert(0) += 1;
        }
        Ok(GenStats {
            threads: self.threads.len(),
            subagent_threads: self.threads.iter().filter(|t| t.parent.is_some()).count(),
            messages: self.msgs.len(),
            calls_by_tool,
        })
    }

    pub(super) fn realized_totals(&self) -> BTreeMap<Tool, usize> {
        let mut m = BTreeMap::new();
        for c in &self.calls {
            *m.entry(c.tool).or_insert(0) += 1;
        }
        m
    }
}
