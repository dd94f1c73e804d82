//! The builder: scripted units (the planned failures and their recoveries) and sub-agents.

use super::text::*;
use super::*;

impl Builder<'_> {
    // ----- scripted units -----

    /// Realise one unit. Returns true when the unit ends the user turn.
    pub(super) fn unit(&mut self, s: &mut Sess, tc: &mut Tc, u: Unit, queue: &mut VecDeque<Item>) -> bool {
        match u {
            Unit::AgentRepair { bg } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
                if bg {
                    input.push(("run_in_background", json!(true)));
                }
                let (text, flag) = self.failure(Tool::Agent, if bg { AGENT_BG } else { AGENT_FG });
                let sp = Spec::new(Tool::Agent, input.clone(), text).flagged(flag);
                self.step1(s, tc, sp, Some("Delegating this to a sub-agent."));
                let agent = *self.rng.pick(AGENT_TYPES);
                input.push(("subagent_type", json!(agent)));
                if bg {
                    self.bg_task_id(s);
                }
                let res = self.fake_agent_result();
                let sp = Spec::new(Tool::Agent, input, res);
                let note = format!("I forgot subagent_type; retrying with {agent}.");
                self.step1(s, tc, sp, Some(&note));
            }
            Unit::AgentRun { n } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
                let (text, flag) = self.failure(Tool::Agent, AGENT_FG);
                for i in 0..n {
                    let mut sp = Spec::new(Tool::Agent, input.clone(), text.clone()).flagged(flag);
                    sp.allow_repeat = true;
                    let note =
                        if i == 0 { "Delegating the search to a sub-agent." } else { "Retrying the sub-agent call." };
                    self.step1(s, tc, sp, Some(note));
                }
                input.push(("subagent_type", json!("explore")));
                let res = self.fake_agent_result();
                self.step1(
                    s,
                    tc,
                    Spec::new(Tool::Agent, input, res),
                    Some("The error asks for subagent_type; using explore."),
                );
            }
            Unit::AgentUnrepaired { bg } => {
                let (desc, prompt) = self.agent_task(s);
                let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt.clone()))];
                if bg {
                    input.push(("run_in_background", json!(true)));
                }
                let (text, flag) = self.failure(Tool::Agent, if bg { AGENT_BG } else { AGENT_FG });
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
            }
            Unit::AgentBurst => {
                for _ in 0..3 {
                    let (desc, prompt) = self.agent_task(s);
                    let agent = *self.rng.pick(AGENT_TYPES);
                    let input = vec![
                        ("description", json!(desc)),
                        ("prompt", json!(prompt)),
                        ("subagent_type", json!(agent)),
                        ("run_in_background", json!(true)),
                    ];
                    self.bg_task_id(s);
                    let res = self.fake_agent_result();
                    self.step1(s, tc, Spec::new(Tool::Agent, input, res), None);
                }
                let (desc, prompt) = self.agent_task(s);
                let input = vec![
                    ("description", json!(desc)),
                    ("prompt", json!(prompt.clone())),
                    ("subagent_type", json!("explore")),
                    ("run_in_background", json!(true)),
                ];
                let msg = if self.plan.post { AGENT_CONC_POST } else { AGENT_CONC_PRE };
                let (text, flag) = self.failure(Tool::Agent, msg);
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
                let id = s.bg_tasks.last().cloned().unwrap_or_default();
                let sp = Spec::new(
                    Tool::AgentResult,
                    vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                    AGENT_RESULT_EMPTY.to_owned(),
                );
                self.step1(s, tc, sp, Some("Waiting for a background agent to finish."));
            }
            Unit::AgentDefNotFound(id) => {
                let (desc, prompt) = self.agent_task(s);
                let input =
                    vec![("description", json!(desc)), ("prompt", json!(prompt.clone())), ("subagent_type", json!(id))];
                let (text, flag) = self.failure(Tool::Agent, &agent_def_missing(id));
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
                s.avoid_prompt = Some(prompt);
            }
            Unit::AgentNoPrompt => {
                let (desc, _) = self.agent_task(s);
                let input = vec![("description", json!(desc)), ("subagent_type", json!("explore"))];
                let (text, flag) = self.failure(Tool::Agent, AGENT_NO_PROMPT);
                self.step1(s, tc, Spec::new(Tool::Agent, input, text).flagged(flag), None);
            }
            Unit::StaleEdit => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                let fill = self.rng.below(3);
                for _ in 0..fill {
                    let pos = queue
                        .iter()
                        .take(16)
                        .position(|it| matches!(it, Item::Bag(Tool::Read | Tool::Grep | Tool::Glob | Tool::Bash)));
                    let Some(pos) = pos else { break };
                    if let Some(Item::Bag(t)) = queue.remove(pos) {
                        let sp = self.bag_spec_excl(s, tc, t, &[], std::slice::from_ref(&f));
                        self.step1(s, tc, sp, None);
                    }
                }
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::StaleWrite => {
                let f = if self.rng.chance(0.7) { self.new_file(s) } else { self.choose_file(s, tc, &[], 0.3) };
                let sp = self.write_spec(s, &f);
                self.step1(s, tc, sp, None);
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::StaleDouble => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                self.stale_fail(s, tc, &f);
                self.stale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleRead => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleNever => {
                let f = self.never_modified_file(s, tc);
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NonStaleAfterRead => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let sp = self.edit_ok_spec(s, &f);
                self.step1(s, tc, sp, None);
                let sp = self.read_spec(s, &f, true, false);
                self.step1(s, tc, sp, Some("Re-reading to check the result."));
                self.nonstale_fail(s, tc, &f);
                self.recover(s, tc, &f);
            }
            Unit::NotUnique(n) => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let lang = s.proj.lang;
                let frags: Vec<&str> = NOT_UNIQUE_FRAGS.iter().filter(|(l, _)| *l == lang).map(|(_, f)| *f).collect();
                let frag = *self.rng.pick(&frags);
                let msg = if self.plan.post {
                    format!(
                        "Error: old_string is not unique in {f} (found {n} occurrences).\nMatch locations: line 2, line 7.\nPlease provide more context to make old_string unique, or set replace_all=true."
                    )
                } else {
                    format!(
                        "Error: old_string is not unique in {f} (found {n} occurrences). Please provide more context or set replace_all to true."
                    )
                };
                let (text, flag) = self.failure(Tool::Edit, &msg);
                let new_frag = format!("{frag} // {}", self.rng.pick(IDENTS));
                let input = vec![("file_path", json!(f)), ("old_string", json!(frag)), ("new_string", json!(new_frag))];
                self.step1(s, tc, Spec::new(Tool::Edit, input, text).flagged(flag), None);
                let rel = self.rel(s, &f).to_owned();
                let sp = if n >= 6 {
                    let input = vec![
                        ("file_path", json!(f)),
                        ("old_string", json!(frag)),
                        ("new_string", json!(new_frag)),
                        ("replace_all", json!(true)),
                    ];
                    let text = format!("{} (replaced {n} occurrence(s))", edit_success_text(frag, &new_frag, &rel));
                    Spec::new(Tool::Edit, input, text).effect(Effect::Modify(f.clone()))
                } else {
                    self.edit_ok_spec(s, &f)
                };
                self.step1(s, tc, sp, Some("Adding more context to make the match unique."));
            }
            Unit::Unexpected => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                let (old, new) = self.snippet(s.proj.lang);
                let (text, flag) =
                    self.failure(Tool::Edit, &format!("Error: unexpected state while applying the edit to {f}"));
                let input = vec![("file_path", json!(f)), ("old_string", json!(old)), ("new_string", json!(new))];
                self.step1(s, tc, Spec::new(Tool::Edit, input, text).flagged(flag), None);
                self.recover(s, tc, &f);
            }
            Unit::EditRun5 => {
                let f = self.choose_file(s, tc, &[], 0.4);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, None);
                debug_assert!(self.nonstale_ok(s, tc, &f));
                let base = self.edit_nf_spec(s, &f);
                for i in 0..5 {
                    let mut sp = Spec::new(Tool::Edit, base.input.clone(), base.result.clone()).flagged(base.is_error);
                    sp.allow_repeat = true;
                    if i == 4 {
                        sp.reminder = Some(EDIT_WARNING.to_owned());
                    }
                    self.step1(s, tc, sp, Some("Trying the edit again."));
                }
                self.recover(s, tc, &f);
            }
            Unit::ReadMissingPath => {
                let f = self.choose_file(s, tc, &[], 0.3);
                let input = if self.rng.chance(0.5) {
                    vec![("file", json!(f))]
                } else {
                    vec![("offset", json!(1)), ("limit", json!(80))]
                };
                let sp = Spec::new(Tool::Read, input, READ_MISSING.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                let sp = self.read_spec(s, &f, false, false);
                self.step1(s, tc, sp, Some("Passing file_path this time."));
            }
            Unit::TaskUnknown => {
                let (desc, prompt) = self.agent_task(s);
                let input =
                    vec![("description", json!(desc)), ("prompt", json!(prompt)), ("subagent_type", json!("explore"))];
                let sp = Spec::new(Tool::Task, input.clone(), TASK_UNKNOWN.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                let res = self.fake_agent_result();
                self.step1(s, tc, Spec::new(Tool::Agent, input, res), Some("The tool is called Agent here."));
            }
            Unit::BashInterrupted => {
                let cmd = match s.proj.lang {
                    Lang::Rust => "cargo test --workspace",
                    Lang::Ts => "bun test --watch",
                    Lang::Md => "npx markdownlint-cli2 \"**/*.md\"",
                };
                let input = vec![("command", json!(cmd)), ("description", json!("Run all tests"))];
                let sp = Spec::new(Tool::Bash, input, BASH_INTERRUPTED.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
                s.after_interrupt = true;
                return true;
            }
            Unit::BashDontAsk => {
                let input = vec![
                    ("command", json!("rm -rf target/debug/incremental")),
                    ("description", json!("Clear incremental build cache")),
                ];
                let sp = Spec::new(Tool::Bash, input, DONT_ASK.to_owned()).flagged(true);
                self.step1(s, tc, sp, None);
            }
            Unit::WriteRejected => {
                let f = self.choose_file(s, tc, &[], 0.5);
                let mut sp = self.write_spec(s, &f);
                sp.result = USER_REJECT.to_owned();
                sp.is_error = true;
                sp.effect = Effect::None;
                self.step1(s, tc, sp, None);
            }
            Unit::AgentResultLoop(n) => {
                // A fresh task id, so the loop cannot merge with an earlier identical poll.
                let id = self.bg_task_id(s);
                for _ in 0..n {
                    let mut sp = Spec::new(
                        Tool::AgentResult,
                        vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                        AGENT_RESULT_EMPTY.to_owned(),
                    );
                    sp.allow_repeat = true;
                    self.step1(s, tc, sp, Some("Checking the background agent."));
                }
            }
        }
        false
    }

    pub(super) fn stale_ok(&self, s: &Sess, tc: &Tc, f: &str) -> bool {
        tc.state.get(f) == Some(&FState::Modified) && s.merged.get(f) == Some(&FState::Modified)
    }

    pub(super) fn nonstale_ok(&self, s: &Sess, tc: &Tc, f: &str) -> bool {
        tc.state.get(f) != Some(&FState::Modified) && s.merged.get(f) != Some(&FState::Modified)
    }

    pub(super) fn stale_fail(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        debug_assert!(self.stale_ok(s, tc, f), "stale precondition for {f}");
        let sp = self.edit_nf_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    pub(super) fn nonstale_fail(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        debug_assert!(self.nonstale_ok(s, tc, f), "non-stale precondition for {f}");
        let sp = self.edit_nf_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    /// Read F, then a successful Edit of F.
    pub(super) fn recover(&mut self, s: &mut Sess, tc: &mut Tc, f: &str) {
        let sp = self.read_spec(s, f, true, false);
        self.step1(s, tc, sp, Some("Reading the file again to get the current content."));
        let sp = self.edit_ok_spec(s, f);
        self.step1(s, tc, sp, None);
    }

    // ----- sub-agents -----

    pub(super) fn spawn(&mut self, s: &mut Sess, parent: usize, req: &SpawnReq, snapshot: Option<usize>) -> String {
        let chunk = self.sub_chunks.pop().unwrap_or_default();
        self.tick(s, 2 * MS, 40 * MS);
        let (title, policy, snap) = match req.kind {
            SubKind::Fg => (req.agent.clone(), "cascade", None),
            SubKind::Bg => (req.agent.clone(), "independent", None),
            SubKind::Fork => ("fork".to_owned(), "cascade", snapshot),
            SubKind::BgFork => (
                format!(
                    "bg-fork-bg-{}-{}-4{}-a{}-{}",
                    self.rng.hex(8),
                    self.rng.hex(4),
                    self.rng.hex(3),
                    self.rng.hex(3),
                    self.rng.hex(12)
                ),
                "independent",
                snapshot,
            ),
        };
        self.threads.push(ThreadRec {
            session: s.idx,
            parent: Some(parent),
            title,
            cwd: s.proj.cwd,
            hidden: true,
            cancel_policy: policy,
            snapshot: snap,
            status: "done",
            config: None,
            created: s.clock,
        });
        let mut tc = Tc::new(self.threads.len() - 1);
        self.tick(s, 2 * MS, 30 * MS);
        self.push(s, &mut tc, Body::User(req.prompt.clone()));
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        let mut q: VecDeque<Tool> = chunk.into();
        let total = q.len();
        while let Some(t) = q.pop_front() {
            let mut specs = vec![self.bag_spec(s, &tc, t, &[])];
            if t.read_only() && self.rng.chance(0.25) {
                while specs.len() < 3 && q.front().is_some_and(|t2| t2.read_only()) {
                    let t2 = q.pop_front().unwrap_or(Tool::Read);
                    let sp = self.bag_spec(s, &tc, t2, &specs);
                    specs.push(sp);
                }
            }
            for sp in &specs {
                let name = sp.tool.stat_name();
                match counts.iter_mut().find(|(n, _)| *n == name) {
                    Some(c) => c.1 += 1,
                    None => counts.push((name, 1)),
                }
            }
            self.step(s, &mut tc, specs, None);
        }
        let summary = self.rng.pick(SUMMARIES).to_string();
        self.final_answer(s, &mut tc, summary.clone());
        let list: Vec<String> = counts.iter().map(|(n, c)| format!("{n} {c} times")).collect();
        format!("[Sub-agent executed {total} tool calls: {}]\n\n{summary}", list.join(", "))
    }
}
