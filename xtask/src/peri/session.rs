//! The builder: a new one, time and rows, and whole sessions.

use super::text::*;
use super::*;

impl<'p> Builder<'p> {
    pub(super) fn new(plan: &'p Plan, seed: u64) -> Builder<'p> {
        let mut rng = peri_rng(seed);
        let bag = plan.bag();
        let sub: BTreeMap<Tool, usize> = plan.sub_calls.iter().copied().collect();
        let free = |t: Tool| bag.get(&t).copied().unwrap_or(0) + sub.get(&t).copied().unwrap_or(0);
        let deck = |rng: &mut Rng, total: usize, special: &[(u8, usize)]| -> Vec<u8> {
            let mut v = Vec::with_capacity(total);
            for &(code, n) in special {
                v.extend(std::iter::repeat_n(code, n));
            }
            v.resize(total.max(v.len()), 0);
            rng.shuffle(&mut v);
            v
        };
        let deck_read = deck(&mut rng, free(Tool::Read), &[(1, plan.log_reads)]).into_iter().map(|c| c == 1).collect();
        let deck_bash = deck(&mut rng, free(Tool::Bash), &[(1, plan.bash_exit1), (2, plan.bash_done1)]);
        let deck_grep = deck(&mut rng, free(Tool::Grep), &[(1, plan.grep_errlike), (2, plan.grep_nomatch)]);
        let deck_glob = deck(&mut rng, free(Tool::Glob), &[(1, plan.glob_none)]).into_iter().map(|c| c == 1).collect();
        let agents = bag.get(&Tool::Agent).copied().unwrap_or(0);
        let deck_spawn = deck(&mut rng, agents, &[(1, plan.sub_threads)]).into_iter().map(|c| c == 1).collect();
        let kinds: Vec<(u8, usize)> = plan.agent_kinds.iter().map(|&(k, n)| (k as u8 + 1, n)).collect();
        let deck_kind = deck(&mut rng, agents, &kinds)
            .into_iter()
            .map(|c| match c {
                1 => SubKind::Fg,
                2 => SubKind::Bg,
                3 => SubKind::Fork,
                4 => SubKind::BgFork,
                _ => SubKind::Fg,
            })
            .collect();
        // Sub-agent call lists: every thread gets at least two calls.
        let mut pool: Vec<Tool> = Vec::new();
        for &(t, n) in &plan.sub_calls {
            pool.extend(std::iter::repeat_n(t, n));
        }
        rng.shuffle(&mut pool);
        let n = plan.sub_threads.max(1);
        let mut sizes = vec![2usize; n];
        for _ in 0..pool.len().saturating_sub(2 * n) {
            let i = rng.below(n);
            sizes[i] += 1;
        }
        let mut sub_chunks = Vec::with_capacity(n);
        let mut it = pool.into_iter();
        for sz in sizes {
            sub_chunks.push(it.by_ref().take(sz).collect());
        }
        Builder {
            plan,
            rng,
            calls: Vec::new(),
            msgs: Vec::new(),
            threads: Vec::new(),
            call_ids: BTreeSet::new(),
            deck_read,
            deck_bash,
            deck_grep,
            deck_glob,
            deck_spawn,
            deck_kind,
            sub_chunks,
            starts: Vec::new(),
        }
    }

    // ----- time and rows -----

    /// Advance the session clock by `lo..=hi` µs, always into a later millisecond.
    pub(super) fn tick(&mut self, s: &mut Sess, lo: i64, hi: i64) {
        let proposed = s.clock + self.rng.range(lo, hi);
        let floor = (s.clock.div_euclid(MS) + 1) * MS + self.rng.range(0, MS - 1);
        s.clock = proposed.max(floor);
    }

    pub(super) fn push(&mut self, s: &Sess, tc: &mut Tc, body: Body) -> usize {
        self.msgs.push(Msg { session: s.idx, thread: tc.thread, t: s.clock, body });
        let i = self.msgs.len() - 1;
        tc.last_msg = Some(i);
        i
    }

    pub(super) fn call_id(&mut self, deepseek: bool, k: usize) -> String {
        loop {
            let id = if deepseek {
                format!("call_{k:02}_{}", self.rng.alnum(24))
            } else {
                format!("toolu_{}", self.rng.alnum(24))
            };
            if self.call_ids.insert(id.clone()) {
                return id;
            }
        }
    }

    pub(super) fn tool_duration(&mut self, t: Tool) -> (i64, i64) {
        match t {
            Tool::Read | Tool::Edit | Tool::Write | Tool::Glob | Tool::TodoWrite => (3 * MS, 60 * MS),
            Tool::FolderOps | Tool::AgentResult | Tool::CronList | Tool::Task => (2 * MS, 20 * MS),
            Tool::Grep => (20 * MS, 400 * MS),
            Tool::Bash => (200 * MS, 40 * SEC),
            Tool::WebFetch => (SEC, 6 * SEC),
            Tool::WebSearch => (SEC, 4 * SEC),
            Tool::AskUserQuestion => (5 * SEC, 90 * SEC),
            Tool::Agent => (4 * SEC, 90 * SEC),
        }
    }

    /// One assistant message with `specs` as its calls, followed by their results.
    pub(super) fn step(&mut self, s: &mut Sess, tc: &mut Tc, mut specs: Vec<Spec>, text: Option<String>) {
        self.tick(s, 1_500 * MS, 18 * SEC);
        let prev_msg = tc.last_msg;
        let mut idxs = Vec::with_capacity(specs.len());
        for (k, sp) in specs.iter_mut().enumerate() {
            let mut input = render_obj(&sp.input);
            let mut tries = 0;
            while !sp.allow_repeat && tries < 8 && tc.last_call.as_ref() == Some(&(sp.tool, input.clone())) {
                // Avoid an accidental identical repeat of the previous call.
                self.undup(s, sp);
                input = render_obj(&sp.input);
                tries += 1;
            }
            let id = self.call_id(s.deepseek, k);
            tc.last_call = Some((sp.tool, input.clone()));
            self.calls.push(CallRec { id, tool: sp.tool, input, result: None });
            idxs.push(self.calls.len() - 1);
        }
        let reasoning = self.rng.chance(0.12).then(|| self.rng.pick(REASONING).to_string());
        let text = text.or_else(|| self.rng.chance(0.3).then(|| self.rng.pick(STEP_TEXTS).to_string()));
        let plain = self.rng.chance(0.05);
        self.push(s, tc, Body::Assistant { reasoning, text, plain, calls: idxs.clone() });
        for (sp, ci) in specs.into_iter().zip(idxs) {
            let result = match &sp.spawn {
                Some(req) => self.spawn(s, tc.thread, req, prev_msg),
                None => sp.result.clone(),
            };
            if let Some(rem) = &sp.reminder {
                self.tick(s, MS, 5 * MS);
                self.push(s, tc, Body::User(rem.clone()));
            }
            if sp.unpaired {
                continue;
            }
            let (lo, hi) = if sp.spawn.is_some() { (50 * MS, 400 * MS) } else { self.tool_duration(sp.tool) };
            self.tick(s, lo, hi);
            self.calls[ci].result = Some((result, sp.is_error));
            self.push(s, tc, Body::Tool(ci));
            apply(&mut tc.state, &sp.effect);
            apply(&mut s.merged, &sp.effect);
            if let Effect::Read(p) | Effect::Modify(p) = &sp.effect {
                tc.recent.retain(|r| r != p);
                tc.recent.push(p.clone());
                if tc.recent.len() > 10 {
                    tc.recent.remove(0);
                }
            }
        }
    }

    /// Change a call so it differs from the previous one, keeping its outcome.
    pub(super) fn undup(&mut self, s: &Sess, sp: &mut Spec) {
        let set = |sp: &mut Spec, key: &'static str, v: Value| match sp.input.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = v,
            None => sp.input.push((key, v)),
        };
        match sp.tool {
            Tool::Read => {
                let off = self.rng.range(1, 400);
                let lim = self.rng.range(2, 10) * 20;
                set(sp, "offset", json!(off));
                set(sp, "limit", json!(lim));
                let lines: Vec<String> =
                    sp.result.lines().map(|l| l.split_once('\t').map_or(l, |(_, t)| t).to_owned()).collect();
                sp.result = self.numbered(&lines, off);
            }
            Tool::Edit => {
                let (old, new) = self.snippet(s.proj.lang);
                if !sp.is_error && !sp.result.contains("(replaced") && !sp.result.starts_with("Error") {
                    let rel = sp.path().map(|p| self.rel(s, p).to_owned()).unwrap_or_default();
                    sp.result = edit_success_text(&old, &new, &rel);
                }
                set(sp, "old_string", json!(old));
                set(sp, "new_string", json!(new));
            }
            Tool::Agent | Tool::Task => {
                let (d, _) = *self.rng.pick(s.proj.agent_tasks);
                set(sp, "description", json!(format!("{d} (again)")));
            }
            Tool::Bash => {
                let c = sp.input[0].1.as_str().unwrap_or_default().to_owned();
                set(sp, "command", json!(format!("{c} 2>&1")));
            }
            Tool::Grep => set(sp, "-n", json!(true)),
            Tool::Glob => set(sp, "path", json!(s.proj.cwd)),
            Tool::Write => {
                let c = sp.input[1].1.as_str().unwrap_or_default().to_owned();
                set(sp, "content", json!(format!("{c}\n")));
            }
            _ => set(sp, "description", json!("retry")),
        }
    }

    pub(super) fn step1(&mut self, s: &mut Sess, tc: &mut Tc, spec: Spec, text: Option<&str>) {
        self.step(s, tc, vec![spec], text.map(str::to_owned));
    }

    pub(super) fn final_answer(&mut self, s: &mut Sess, tc: &mut Tc, text: String) {
        self.tick(s, 2 * SEC, 20 * SEC);
        let plain = self.rng.chance(0.1);
        self.push(s, tc, Body::Assistant { reasoning: None, text: Some(text), plain, calls: Vec::new() });
    }

    // ----- sessions -----

    pub(super) fn build_all(&mut self) {
        let plan = self.plan;
        let n = plan.sessions;
        let weights: Vec<f64> = (0..n)
            .map(|_| {
                let u = self.rng.unit();
                0.3 + 3.7 * u * u
            })
            .collect();
        let total_w: f64 = weights.iter().sum();
        let mut items: Vec<Vec<Item>> = (0..n).map(|_| Vec::new()).collect();
        let pick_session = |rng: &mut Rng| {
            let mut x = rng.unit() * total_w;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    return i;
                }
                x -= w;
            }
            n - 1
        };
        for u in &plan.units {
            let i = pick_session(&mut self.rng);
            items[i].push(Item::Unit(*u));
        }
        for (t, c) in plan.bag() {
            for _ in 0..c {
                let i = pick_session(&mut self.rng);
                items[i].push(Item::Bag(t));
            }
        }
        let unpaired_session = plan.unpaired.then(|| self.rng.below(n));
        // Sessions that get a system message / reminder.
        let mut order: Vec<usize> = (0..n).collect();
        self.rng.shuffle(&mut order);
        let sys_first: BTreeSet<usize> = order.iter().take(plan.system_first).copied().collect();
        let sys_later: BTreeSet<usize> =
            order.iter().skip(plan.system_first).take(plan.system_later).copied().collect();
        self.rng.shuffle(&mut order);
        let reminders: BTreeSet<usize> = order.iter().take(plan.reminders).copied().collect();
        let mut durations = Vec::with_capacity(n);
        for (i, mut its) in items.into_iter().enumerate() {
            self.rng.shuffle(&mut its);
            let flags = SessFlags {
                unpaired: unpaired_session == Some(i),
                system_first: sys_first.contains(&i),
                system_later: sys_later.contains(&i),
                reminder: reminders.contains(&i),
            };
            durations.push(self.session(i, its, flags));
        }
        self.starts = self.schedule(&durations);
    }

    pub(super) fn session(&mut self, idx: usize, items: Vec<Item>, flags: SessFlags) -> i64 {
        let proj = {
            let x = self.rng.unit();
            if x < 0.65 {
                &PROJECTS[0]
            } else if x < 0.85 {
                &PROJECTS[1]
            } else {
                &PROJECTS[2]
            }
        };
        let deepseek = self.rng.chance(0.7);
        let config = if deepseek {
            r#"{"model":"deepseek-chat","provider":"deepseek"}"#
        } else {
            r#"{"model":"claude-sonnet-4-5","provider":"anthropic"}"#
        };
        let first = self.rng.pick(proj.first_prompts).to_string();
        self.threads.push(ThreadRec {
            session: idx,
            parent: None,
            title: first.chars().take(50).collect(),
            cwd: proj.cwd,
            hidden: false,
            cancel_policy: "cascade",
            snapshot: None,
            status: "active",
            config: Some(config.to_owned()),
            created: 0,
        });
        let mut tc = Tc::new(self.threads.len() - 1);
        let mut s = Sess {
            idx,
            proj,
            deepseek,
            clock: 0,
            merged: BTreeMap::new(),
            bg_tasks: Vec::new(),
            avoid_prompt: None,
            after_interrupt: false,
            new_file_seq: 0,
        };
        let mut queue: VecDeque<Item> = items.into();
        let mut turn = 0usize;
        let (lo, hi) = self.plan.turn_len;
        let turns_hint = (queue.len() as i64 / ((lo + hi) / 2)).max(1) as usize;
        let reminder_turn = self.rng.below(turns_hint);
        let (mut later_done, mut reminder_done) = (false, false);
        loop {
            // ---- user message ----
            if turn == 0 {
                self.tick(&mut s, 2 * MS, 40 * MS);
                self.push(&s, &mut tc, Body::User(first.clone()));
            } else {
                self.tick(&mut s, 20 * SEC, 12 * MIN);
                let text =
                    if s.after_interrupt { AFTER_INTERRUPT.to_owned() } else { self.rng.pick(FOLLOW_UPS).to_string() };
                s.after_interrupt = false;
                self.push(&s, &mut tc, Body::User(text));
            }
            let size = self.rng.range(lo, hi) as usize;
            // Barring an interruption, this is the last turn when it can take every item.
            let last_turn = queue.len() <= size;
            if turn == 0 && flags.system_first {
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(SYSTEM_FIRST).to_string();
                self.push(&s, &mut tc, Body::System(t));
            }
            if flags.system_later && !later_done && (turn >= 1 || last_turn) {
                later_done = true;
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(SYSTEM_LATER).to_string();
                self.push(&s, &mut tc, Body::System(t));
            }
            if flags.reminder && !reminder_done && (turn >= reminder_turn || last_turn) {
                reminder_done = true;
                self.tick(&mut s, MS, 10 * MS);
                let t = self.rng.pick(REMINDERS).to_string();
                self.push(&s, &mut tc, Body::Reminder(t));
            }
            // ---- the turn's items ----
            // TodoWrite / AskUserQuestion tend to come first in a turn.
            let upto = size.min(queue.len());
            for i in 1..upto {
                if matches!(queue[i], Item::Bag(Tool::TodoWrite | Tool::AskUserQuestion))
                    && let Some(it) = queue.remove(i)
                {
                    queue.push_front(it);
                }
            }
            let mut ended = false;
            let mut done = 0;
            while done < size {
                let Some(item) = queue.pop_front() else { break };
                done += 1;
                match item {
                    Item::Unit(u) => {
                        if self.unit(&mut s, &mut tc, u, &mut queue) {
                            ended = true;
                            break;
                        }
                    }
                    Item::Bag(t) => self.bag_step(&mut s, &mut tc, t, &mut queue),
                }
            }
            turn += 1;
            if queue.is_empty() {
                if flags.unpaired {
                    let spec = self.unpaired_spec(&s);
                    self.step1(&mut s, &mut tc, spec, Some("Let me run the full test suite once more."));
                } else if !ended {
                    let t = self.rng.pick(FINAL_TEXTS).to_string();
                    self.final_answer(&mut s, &mut tc, t);
                }
                break;
            }
            if !ended {
                let t = self.rng.pick(FINAL_TEXTS).to_string();
                self.final_answer(&mut s, &mut tc, t);
            }
        }
        s.clock
    }

    /// A bag item, possibly grouped with following read-only bag items into parallel calls.
    pub(super) fn bag_step(&mut self, s: &mut Sess, tc: &mut Tc, t: Tool, queue: &mut VecDeque<Item>) {
        let mut specs = vec![self.bag_spec(s, tc, t, &[])];
        if t.read_only() && self.rng.chance(0.18) {
            let want = self.rng.range(2, 3) as usize;
            while specs.len() < want {
                let Some(Item::Bag(t2)) = queue.front() else {
                    break;
                };
                let t2 = *t2;
                if !t2.read_only() {
                    break;
                }
                queue.pop_front();
                let sp = self.bag_spec(s, tc, t2, &specs);
                specs.push(sp);
            }
        }
        self.step(s, tc, specs, None);
    }

    pub(super) fn unpaired_spec(&mut self, s: &Sess) -> Spec {
        let cmd = match s.proj.lang {
            Lang::Rust => "cargo test --workspace",
            Lang::Ts => "bun test",
            Lang::Md => "npx markdownlint-cli2 \"docs/**/*.md\"",
        };
        let mut sp = Spec::new(
            Tool::Bash,
            vec![("command", json!(cmd)), ("description", json!("Run the full test suite"))],
            String::new(),
        );
        sp.unpaired = true;
        sp
    }
}
