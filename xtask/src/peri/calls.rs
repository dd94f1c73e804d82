//! The builder: file choice, text helpers and the spec of each kind of call.

use super::text::*;
use super::*;

impl Builder<'_> {
    // ----- file choice -----

    pub(super) fn full(&self, s: &Sess, rel: &str) -> String {
        format!("{}/{}", s.proj.cwd, rel)
    }

    pub(super) fn rel<'a>(&self, s: &Sess, full: &'a str) -> &'a str {
        full.strip_prefix(s.proj.cwd).and_then(|r| r.strip_prefix('/')).unwrap_or(full)
    }

    pub(super) fn choose_file(&mut self, s: &Sess, tc: &Tc, exclude: &[String], recent_p: f64) -> String {
        for _ in 0..12 {
            let cand = if !tc.recent.is_empty() && self.rng.chance(recent_p) {
                self.rng.pick(&tc.recent).clone()
            } else {
                let rel = *self.rng.pick(s.proj.files);
                self.full(s, rel)
            };
            if !exclude.contains(&cand) && !cand.ends_with(".log") {
                return cand;
            }
        }
        let mut i = self.rng.below(s.proj.files.len());
        loop {
            let cand = self.full(s, s.proj.files[i]);
            if !exclude.contains(&cand) {
                return cand;
            }
            i = (i + 1) % s.proj.files.len();
        }
    }

    /// A file never modified in this session (root and sub-agents together).
    pub(super) fn never_modified_file(&mut self, s: &mut Sess, tc: &Tc) -> String {
        let mut cands: Vec<String> = s
            .proj
            .files
            .iter()
            .map(|r| self.full(s, r))
            .filter(|f| !s.merged.contains_key(f) && !tc.state.contains_key(f))
            .collect();
        if cands.is_empty() {
            s.new_file_seq += 1;
            let ext = match s.proj.lang {
                Lang::Rust => "rs",
                Lang::Ts => "ts",
                Lang::Md => "md",
            };
            cands.push(self.full(s, &format!("scratch/untouched_{}.{ext}", s.new_file_seq)));
        }
        self.rng.pick(&cands).clone()
    }

    pub(super) fn new_file(&mut self, s: &Sess) -> String {
        let rel = *self.rng.pick(s.proj.new_files);
        self.full(s, rel)
    }

    // ----- text helpers -----

    pub(super) fn lang_lines(lang: Lang) -> &'static [&'static str] {
        match lang {
            Lang::Rust => RUST_LINES,
            Lang::Ts => TS_LINES,
            Lang::Md => MD_LINES,
        }
    }

    pub(super) fn numbered(&mut self, lines: &[String], offset: i64) -> String {
        lines.iter().enumerate().map(|(i, l)| format!("{:>6}\t{l}", offset + i as i64)).collect::<Vec<_>>().join("\n")
    }

    pub(super) fn snippet(&mut self, lang: Lang) -> (String, String) {
        let pool = match lang {
            Lang::Rust => RUST_EDITS,
            Lang::Ts => TS_EDITS,
            Lang::Md => MD_EDITS,
        };
        let (o, n) = *self.rng.pick(pool);
        let id = *self.rng.pick(IDENTS);
        (o.replace('@', id), n.replace('@', id))
    }

    // ----- specs for individual calls -----

    pub(super) fn read_spec(&mut self, s: &Sess, path: &str, window: bool, log: bool) -> Spec {
        let mut input = vec![("file_path", json!(path))];
        let mut offset = 1;
        if window || (log && self.rng.chance(0.6)) {
            offset = self.rng.range(1, 400);
            input.push(("offset", json!(offset)));
            input.push(("limit", json!(self.rng.range(2, 10) * 20)));
        }
        let n = self.rng.range(2, 5) as usize;
        let lines: Vec<String> = (0..n)
            .map(|i| {
                if log {
                    if i == 0 { self.rng.pick(LOG_ERR).to_string() } else { self.rng.pick(LOG_LINES).to_string() }
                } else {
                    self.rng.pick(Self::lang_lines(s.proj.lang)).to_string()
                }
            })
            .collect();
        let text = self.numbered(&lines, offset);
        Spec::new(Tool::Read, input, text).effect(Effect::Read(path.to_owned()))
    }

    pub(super) fn edit_ok_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let (old, new) = self.snippet(s.proj.lang);
        let rel = self.rel(s, path).to_owned();
        let text = edit_success_text(&old, &new, &rel);
        let mut input = vec![("file_path", json!(path)), ("old_string", json!(old)), ("new_string", json!(new))];
        if self.rng.chance(0.08) {
            input.push(("replace_all", json!(false)));
        }
        Spec::new(Tool::Edit, input, text).effect(Effect::Modify(path.to_owned()))
    }

    /// A failure text in the scenario's era: hidden (`Ok`) before the fix, wrapped after.
    pub(super) fn failure(&self, tool: Tool, msg: &str) -> (String, bool) {
        if self.plan.post {
            (format!("Tool execution failed: {} - {msg}", tool.call_name()), true)
        } else {
            (msg.to_owned(), false)
        }
    }

    pub(super) fn edit_nf_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let (old, new) = self.snippet(s.proj.lang);
        let mut msg = format!("Error: old_string not found in {path}");
        if self.plan.post {
            msg.push('\n');
            msg.push_str(EDIT_HINT);
        }
        let (text, flag) = self.failure(Tool::Edit, &msg);
        let input = vec![("file_path", json!(path)), ("old_string", json!(old)), ("new_string", json!(new))];
        Spec::new(Tool::Edit, input, text).flagged(flag)
    }

    pub(super) fn write_spec(&mut self, s: &Sess, path: &str) -> Spec {
        let n = self.rng.range(2, 6) as usize;
        let lines: Vec<&str> = (0..n).map(|_| *self.rng.pick(Self::lang_lines(s.proj.lang))).collect();
        let content = lines.join("\n");
        let n = content.lines().count();
        let rel = self.rel(s, path).to_owned();
        Spec::new(
            Tool::Write,
            vec![("file_path", json!(path)), ("content", json!(content))],
            format!("Wrote {n} line(s) {rel}"),
        )
        .effect(Effect::Modify(path.to_owned()))
    }

    pub(super) fn agent_task(&mut self, s: &mut Sess) -> (String, String) {
        loop {
            let (d, p) = *self.rng.pick(s.proj.agent_tasks);
            let focus = *self.rng.pick(s.proj.files);
            let prompt = format!("{p} Focus on {focus}.");
            if s.avoid_prompt.as_deref() != Some(prompt.as_str()) {
                s.avoid_prompt = None;
                return (d.to_owned(), prompt);
            }
        }
    }

    pub(super) fn fake_agent_result(&mut self) -> String {
        let tools = ["Read", "Grep", "Glob", "Bash"];
        let k = self.rng.range(1, 3) as usize;
        let mut parts = Vec::new();
        let mut total = 0;
        for t in tools.iter().take(k) {
            let c = self.rng.range(1, 5);
            total += c;
            parts.push(format!("{t} {c} times"));
        }
        format!("[Sub-agent executed {total} tool calls: {}]\n\n{}", parts.join(", "), self.rng.pick(SUMMARIES))
    }

    pub(super) fn bg_task_id(&mut self, s: &mut Sess) -> String {
        let id = format!("bg-{}", self.rng.hex(8));
        s.bg_tasks.push(id.clone());
        id
    }

    /// An ordinary, successful call of `tool` (variants drawn from the exact decks).
    pub(super) fn bag_spec(&mut self, s: &mut Sess, tc: &Tc, tool: Tool, group: &[Spec]) -> Spec {
        self.bag_spec_excl(s, tc, tool, group, &[])
    }

    pub(super) fn bag_spec_excl(
        &mut self,
        s: &mut Sess,
        tc: &Tc,
        tool: Tool,
        group: &[Spec],
        exclude: &[String],
    ) -> Spec {
        let variant: u8 = match tool {
            Tool::Read => u8::from(self.deck_read.pop().unwrap_or(false)),
            Tool::Bash => self.deck_bash.pop().unwrap_or(0),
            Tool::Grep => self.deck_grep.pop().unwrap_or(0),
            Tool::Glob => u8::from(self.deck_glob.pop().unwrap_or(false)),
            _ => 0,
        };
        // Draw the Agent decks once: a regenerated duplicate must not consume them again.
        let agent = (tool == Tool::Agent)
            .then(|| (self.deck_kind.pop().unwrap_or(SubKind::Fg), self.deck_spawn.pop().unwrap_or(false)));
        let mut excl: Vec<String> = exclude.to_vec();
        excl.extend(group.iter().filter_map(|g| g.path().map(str::to_owned)));
        let mut spec = self.bag_spec_once(s, tc, tool, variant, agent, &excl);
        for _ in 0..8 {
            let rendered = render_obj(&spec.input);
            let dup_last = tc.last_call.as_ref() == Some(&(tool, rendered.clone()));
            let dup_group = group.iter().any(|g| g.tool == tool && render_obj(&g.input) == rendered);
            if !dup_last && !dup_group {
                break;
            }
            spec = self.bag_spec_once(s, tc, tool, variant, agent, &excl);
        }
        spec
    }

    pub(super) fn bag_spec_once(
        &mut self,
        s: &mut Sess,
        tc: &Tc,
        tool: Tool,
        variant: u8,
        agent: Option<(SubKind, bool)>,
        excl: &[String],
    ) -> Spec {
        let lang = s.proj.lang;
        match tool {
            Tool::Read => {
                if variant == 1 {
                    let p = self.full(s, s.proj.log);
                    self.read_spec(s, &p, false, true)
                } else {
                    let p = self.choose_file(s, tc, excl, 0.5);
                    let window = self.rng.chance(0.3);
                    self.read_spec(s, &p, window, false)
                }
            }
            Tool::Edit => {
                let p = self.choose_file(s, tc, excl, 0.75);
                self.edit_ok_spec(s, &p)
            }
            Tool::Write => {
                let p = if self.rng.chance(0.5) { self.new_file(s) } else { self.choose_file(s, tc, excl, 0.5) };
                self.write_spec(s, &p)
            }
            Tool::Bash => self.bash_spec(s, variant),
            Tool::Grep => self.grep_spec(s, variant),
            Tool::Glob => {
                let (pat, path) = match lang {
                    Lang::Rust => (
                        *self.rng.pick(&["**/*.rs", "**/tests/*.rs", "**/Cargo.toml", "**/*_bg.rs"]),
                        "peri-middlewares/src",
                    ),
                    Lang::Ts => (*self.rng.pick(&["src/**/*.ts", "test/*.test.ts"]), "src"),
                    Lang::Md => (*self.rng.pick(&["docs/**/*.md", "spec/**/*.md"]), "docs"),
                };
                let mut input = vec![("pattern", json!(pat))];
                if self.rng.chance(0.4) {
                    input.push(("path", json!(self.full(s, path))));
                }
                let text = if variant == 1 {
                    "No files found.".to_owned()
                } else {
                    let k = self.rng.range(2, 6) as usize;
                    let mut files: Vec<&str> = (0..k).map(|_| *self.rng.pick(s.proj.files)).collect();
                    files.sort_unstable();
                    files.dedup();
                    files.iter().map(|f| self.full(s, f)).collect::<Vec<_>>().join("\n")
                };
                Spec::new(Tool::Glob, input, text)
            }
            Tool::TodoWrite => {
                let k = self.rng.range(2, 5) as usize;
                let done = self.rng.below(k);
                let mut todos = Vec::new();
                let (mut c, mut p, mut ip) = (0, 0, 0);
                for i in 0..k {
                    let content = *self.rng.pick(TODOS);
                    let status = if i < done {
                        c += 1;
                        "completed"
                    } else if i == done {
                        ip += 1;
                        "in_progress"
                    } else {
                        p += 1;
                        "pending"
                    };
                    todos.push(json!({"content": content, "status": status}));
                }
                Spec::new(
                    Tool::TodoWrite,
                    vec![("todos", Value::Array(todos))],
                    format!("Todo list updated: {c} completed, {ip} in progress, {p} pending."),
                )
            }
            Tool::WebFetch => {
                let (_, url, summary) = *self.rng.pick(WEB);
                Spec::new(
                    Tool::WebFetch,
                    vec![("url", json!(url)), ("prompt", json!("Summarise the relevant part."))],
                    format!("# {url}\n\n{summary}"),
                )
            }
            Tool::WebSearch => {
                let (q, url, summary) = *self.rng.pick(WEB);
                Spec::new(
                    Tool::WebSearch,
                    vec![("query", json!(q)), ("num_results", json!(5))],
                    format!(
                        "1. {url}\n   {summary}\n2. https://stackoverflow.com/questions/{}\n   Related discussion.",
                        self.rng.range(10_000_000, 79_999_999)
                    ),
                )
            }
            Tool::AskUserQuestion => {
                let (q, h, a, b) = *self.rng.pick(QUESTIONS);
                let ans = if self.rng.chance(0.7) { a } else { b };
                Spec::new(
                    Tool::AskUserQuestion,
                    vec![(
                        "questions",
                        json!([{"question": q, "header": h, "multiSelect": false,
                            "options": [{"label": a, "description": "Recommended"}, {"label": b}]}]),
                    )],
                    format!("User answered: \"{q}\" = \"{ans}\""),
                )
            }
            Tool::FolderOps => {
                let op = *self.rng.pick(&["create", "list", "exists"]);
                let dir = match lang {
                    Lang::Rust => "peri-middlewares/tests/fixtures",
                    Lang::Ts => "test/fixtures",
                    Lang::Md => "docs/notes",
                };
                let full = self.full(s, dir);
                let mut input = vec![("operation", json!(op)), ("folder_path", json!(full))];
                let text = match op {
                    "create" => {
                        input.push(("recursive", json!(true)));
                        format!("✓ Created folder: {full}")
                    }
                    "list" => format!("{dir}/\n  a.json\n  b.json"),
                    _ => format!("✓ Folder exists: {full}"),
                };
                Spec::new(Tool::FolderOps, input, text)
            }
            Tool::AgentResult => {
                let id = if s.bg_tasks.is_empty() || self.rng.chance(0.2) {
                    self.bg_task_id(s)
                } else {
                    self.rng.pick(&s.bg_tasks).clone()
                };
                Spec::new(
                    Tool::AgentResult,
                    vec![("tool_name", json!("AgentResult")), ("params", json!({"task_id": id}))],
                    AGENT_RESULT_EMPTY.to_owned(),
                )
            }
            Tool::CronList => Spec::new(
                Tool::CronList,
                vec![("tool_name", json!("cron_list")), ("params", json!({}))],
                if self.rng.chance(0.5) {
                    "No cron jobs registered.".to_owned()
                } else {
                    "1 cron job:\n- cron-1 `0 9 * * *` daily analyzer summary".to_owned()
                },
            ),
            Tool::Agent => {
                let (kind, spawn) = agent.unwrap_or((SubKind::Fg, false));
                self.agent_bag_spec(s, kind, spawn)
            }
            Tool::Task => Spec::new(Tool::Task, vec![], String::new()),
        }
    }

    pub(super) fn agent_bag_spec(&mut self, s: &mut Sess, kind: SubKind, spawn: bool) -> Spec {
        let (desc, prompt) = self.agent_task(s);
        let mut input = vec![("description", json!(desc)), ("prompt", json!(prompt))];
        let agent = match kind {
            SubKind::Fg | SubKind::Bg => self.rng.pick(AGENT_TYPES).to_string(),
            SubKind::Fork | SubKind::BgFork => "fork".to_owned(),
        };
        match kind {
            SubKind::Fg => input.push(("subagent_type", json!(agent))),
            SubKind::Bg => {
                input.push(("subagent_type", json!(agent)));
                input.push(("run_in_background", json!(true)));
                self.bg_task_id(s);
            }
            SubKind::Fork => input.push(("fork", json!(true))),
            SubKind::BgFork => {
                input.push(("fork", json!(true)));
                input.push(("run_in_background", json!(true)));
                self.bg_task_id(s);
            }
        }
        let result = if spawn { String::new() } else { self.fake_agent_result() };
        let mut sp = Spec::new(Tool::Agent, input, result);
        if spawn {
            sp.spawn = Some(SpawnReq { kind, agent, prompt });
        }
        sp
    }

    pub(super) fn bash_spec(&mut self, s: &Sess, variant: u8) -> Spec {
        let lang = s.proj.lang;
        let rel = *self.rng.pick(s.proj.files);
        let (cmd, desc, out): (String, &str, String) = match variant {
            1 => match self.rng.below(3) {
                0 => (
                    format!("git diff --exit-code {rel}"),
                    "Check for unstaged changes",
                    format!(
                        "diff --git a/{rel} b/{rel}\n@@ -40,3 +40,3 @@\n-        return Ok(format!(\n+        return Err(anyhow!(\n[Exit code: 1]"
                    ),
                ),
                1 => (
                    format!("grep -c \"is_error\\\":true\" {rel}"),
                    "Count flagged results",
                    "0\n[Exit code: 1]".to_owned(),
                ),
                _ => (
                    "diff expected.txt actual.txt".to_owned(),
                    "Compare outputs",
                    "3c3\n< Edit 284\n---\n> Edit 283\n[Exit code: 1]".to_owned(),
                ),
            },
            2 => (
                format!("grep -rn \"TODO(hidden)\" {}", rel.rsplit_once('/').map_or(".", |(d, _)| d)),
                "Look for leftover markers",
                "[Command completed with exit code 1]".to_owned(),
            ),
            _ => match lang {
                Lang::Rust => {
                    let krate = rel.split('/').next().unwrap_or("peri-agent");
                    match self.rng.below(7) {
                        0 => (
                            format!("cargo check -p {krate}"),
                            "Type-check the crate",
                            format!(
                                "    Checking {krate} v0.4.2 (/Users/dev/code/peri/{krate})\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in {}.{:02}s",
                                self.rng.range(1, 40),
                                self.rng.range(0, 99)
                            ),
                        ),
                        1 => {
                            let n = self.rng.range(3, 40);
                            let id = *self.rng.pick(IDENTS);
                            (
                                format!("cargo test -p {krate} {id}"),
                                "Run the tests",
                                format!(
                                    "running {n} tests\ntest tests::{id} ... ok\n\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s",
                                    self.rng.range(1, 99)
                                ),
                            )
                        }
                        2 => (
                            "git status --short".to_owned(),
                            "Show working tree status",
                            format!(" M {rel}\n M {}", self.rng.pick(s.proj.files)),
                        ),
                        3 => (
                            "git diff --stat".to_owned(),
                            "Summarise changes",
                            format!(
                                " {rel} | {} ++++--\n 1 file changed, 4 insertions(+), 2 deletions(-)",
                                self.rng.range(2, 30)
                            ),
                        ),
                        4 => (
                            "git log --oneline -3".to_owned(),
                            "Recent commits",
                            "7b076c1e feat(tools): path alias for file_path\n4d21801e feat(tools): tool name aliases\nd28affe2 feat(agent): consecutive failure detection".to_owned(),
                        ),
                        5 => (
                            format!("wc -l {rel}"),
                            "Count lines",
                            format!("     {} {rel}", self.rng.range(40, 900)),
                        ),
                        _ => (
                            format!("cargo clippy -p {krate} -- -D warnings"),
                            "Lint",
                            format!(
                                "    Checking {krate} v0.4.2 (/Users/dev/code/peri/{krate})\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in {}.{:02}s",
                                self.rng.range(2, 50),
                                self.rng.range(0, 99)
                            ),
                        ),
                    }
                }
                Lang::Ts => match self.rng.below(4) {
                    0 => {
                        let n = self.rng.range(4, 30);
                        (
                            "bun test".to_owned(),
                            "Run the tests",
                            format!(
                                "bun test v1.1.8\n\n {n} pass\n 0 fail\n Ran {n} tests across 2 files. [{}ms]",
                                self.rng.range(40, 900)
                            ),
                        )
                    }
                    1 => (
                        "bun run src/index.ts --days 7".to_owned(),
                        "Run the analyzer",
                        format!(
                            "Scanned {} sessions, {} messages\nAgent: 1344 calls\nEdit: 6233 calls",
                            self.rng.range(400, 600),
                            self.rng.range(60_000, 80_000)
                        ),
                    ),
                    2 => ("git status --short".to_owned(), "Show working tree status", format!(" M {rel}")),
                    _ => (
                        "ls src/analyzers".to_owned(),
                        "List analyzers",
                        "agent_errors.ts\nconsecutive.ts\nedit_errors.ts\nloops.ts\nmissing-params.ts".to_owned(),
                    ),
                },
                Lang::Md => match self.rng.below(3) {
                    0 => (format!("wc -w {rel}"), "Count words", format!("    {} {rel}", self.rng.range(200, 4000))),
                    1 => ("git status --short".to_owned(), "Show working tree status", format!(" M {rel}")),
                    _ => (
                        "ls docs/blogs/tool-error-rate".to_owned(),
                        "List the post folder",
                        "figures.md\ntool-error-rate.md".to_owned(),
                    ),
                },
            },
        };
        let mut input = vec![("command", json!(cmd))];
        if self.rng.chance(0.7) {
            input.push(("description", json!(desc)));
        }
        Spec::new(Tool::Bash, input, out)
    }

    pub(super) fn grep_spec(&mut self, s: &Sess, variant: u8) -> Spec {
        let files = s.proj.files;
        let mut input;
        let text = match variant {
            1 => {
                input = vec![
                    ("pattern", json!(self.rng.pick(GREP_ERR_PATTERNS))),
                    ("output_mode", json!("content")),
                    ("-n", json!(true)),
                ];
                let k = self.rng.range(1, 3) as usize;
                (0..k)
                    .map(|_| {
                        format!(
                            "{}:{}:{}",
                            self.rng.pick(files),
                            self.rng.range(10, 400),
                            self.rng.pick(GREP_ERR_LINES)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            2 => {
                input = vec![("pattern", json!(format!("{}_v2", self.rng.pick(GREP_PATTERNS))))];
                "No matches found.".to_owned()
            }
            _ => {
                let pat = *self.rng.pick(GREP_PATTERNS);
                input = vec![("pattern", json!(pat))];
                match self.rng.below(3) {
                    0 => {
                        input.push(("output_mode", json!("content")));
                        let k = self.rng.range(1, 4) as usize;
                        (0..k)
                            .map(|_| {
                                format!(
                                    "{}:{}:    let {pat} = {};",
                                    self.rng.pick(files),
                                    self.rng.range(5, 500),
                                    self.rng.pick(IDENTS)
                                )
                            })
                            .collect::<Vec<_>>()
                            .join("\n")
                    }
                    1 => {
                        input.push(("output_mode", json!("files_with_matches")));
                        let k = self.rng.range(1, 5) as usize;
                        let mut v: Vec<&str> = (0..k).map(|_| *self.rng.pick(files)).collect();
                        v.sort_unstable();
                        v.dedup();
                        v.join("\n")
                    }
                    _ => {
                        input.push(("output_mode", json!("count")));
                        format!("{}:{}", self.rng.pick(files), self.rng.range(1, 12))
                    }
                }
            }
        };
        if self.rng.chance(0.35) {
            let dir = match s.proj.lang {
                Lang::Rust => *self.rng.pick(&["peri-middlewares/src", "peri-agent/src", "."]),
                Lang::Ts => "src",
                Lang::Md => "docs",
            };
            input.insert(1, ("path", json!(dir)));
        }
        Spec::new(Tool::Grep, input, text)
    }
}
