//! Generators of the samples whose rows are binary (msgpack, zstd): the SQL
//! text in `sample-traces/` holds their blobs as hex literals. The test
//! checks that the committed SQL is what the generator makes; rebuild with
//!
//!   UPDATE_SAMPLES=1 cargo test --test cli gen_samples
//!   sqlite3 sample-traces/langgraph.db < sample-traces/langgraph.sql   (after removing the old .db)

use std::fmt::Write as _;

use rmpv::Value as M;

use crate::util::root;

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + 3);
    s.push_str("X'");
    for b in bytes {
        write!(s, "{b:02x}").unwrap();
    }
    s.push('\'');
    s
}

fn pack(v: &M) -> Vec<u8> {
    let mut b = Vec::new();
    rmpv::encode::write_value(&mut b, v).unwrap();
    b
}

fn map(pairs: Vec<(&str, M)>) -> M {
    M::Map(pairs.into_iter().map(|(k, v)| (M::from(k), v)).collect())
}

/// A LangChain message as LangGraph's serializer stores it: extension 5
/// (Pydantic v2) or 4 (v1), `[module, class, model_dump, method]`.
fn lc(code: i8, class: &str, dict: M) -> M {
    let module = if class.starts_with("AI") { "langchain_core.messages.ai" } else { "langchain_core.messages.tool" };
    let mut parts = vec![M::from(module), M::from(class), dict];
    if code == 5 {
        parts.push("model_validate_json".into());
    }
    M::Ext(code, pack(&M::Array(parts)))
}

fn human(text: &str) -> M {
    let dict = map(vec![("content", text.into()), ("type", "human".into()), ("id", M::Nil)]);
    let mut parts = vec![M::from("langchain_core.messages.human"), "HumanMessage".into(), dict];
    parts.push("model_validate_json".into());
    M::Ext(5, pack(&M::Array(parts)))
}

/// An AIMessage with tool calls `(id, name, args)` and invalid ones `(id, name, args, error)`.
fn ai(id: &str, calls: &[(&str, &str, M)], invalid: &[(&str, &str, &str, &str)]) -> M {
    let calls = calls
        .iter()
        .map(|(id, name, args)| {
            map(vec![
                ("name", (*name).into()),
                ("args", args.clone()),
                ("id", (*id).into()),
                ("type", "tool_call".into()),
            ])
        })
        .collect();
    let invalid = invalid
        .iter()
        .map(|(id, name, args, error)| {
            map(vec![
                ("name", (*name).into()),
                ("args", (*args).into()),
                ("id", (*id).into()),
                ("error", (*error).into()),
                ("type", "invalid_tool_call".into()),
            ])
        })
        .collect();
    lc(
        5,
        "AIMessage",
        map(vec![
            ("content", "".into()),
            ("additional_kwargs", map(vec![])),
            ("response_metadata", map(vec![("finish_reason", "tool_calls".into())])),
            ("type", "ai".into()),
            ("name", M::Nil),
            ("id", id.into()),
            ("tool_calls", M::Array(calls)),
            ("invalid_tool_calls", M::Array(invalid)),
        ]),
    )
}

fn tool_msg(code: i8, call: &str, name: &str, content: M, status: Option<&str>) -> M {
    let mut dict = vec![
        ("content", content),
        ("type", M::from("tool")),
        ("name", name.into()),
        ("id", format!("msg-{call}").into()),
        ("tool_call_id", call.into()),
        ("artifact", M::Nil),
    ];
    if let Some(s) = status {
        dict.push(("status", s.into()));
    }
    lc(code, "ToolMessage", map(dict))
}

/// A version-6 UUID for `unix` seconds (LangGraph's checkpoint ids).
fn uuid6(unix: u64, seq: u16) -> String {
    let ticks = unix * 10_000_000 + 0x01b2_1dd2_1381_4000;
    let high = ticks >> 28;
    let mid = (ticks >> 12) & 0xffff;
    let low = ticks & 0xfff;
    format!("{high:08x}-{mid:04x}-6{low:03x}-{:04x}-{:012x}", 0x8000 | seq, 0x00c0_ffee_0000_u64 + u64::from(seq))
}

fn checkpoint(id: &str, messages: &[M]) -> Vec<u8> {
    pack(&map(vec![
        ("v", 4.into()),
        ("ts", "2026-04-02T09:00:00+00:00".into()),
        ("id", id.into()),
        ("channel_values", map(vec![("messages", M::Array(messages.to_vec()))])),
        ("channel_versions", map(vec![("messages", "1".into())])),
        ("versions_seen", map(vec![])),
    ]))
}

struct Thread<'a> {
    thread: &'a str,
    ns: &'a str,
    start: u64,
    /// What each step's task wrote to `messages`; a checkpoint follows each step.
    steps: Vec<Vec<M>>,
    /// Write the steps to `writes` too (else only the checkpoints hold them).
    writes: bool,
    /// Steps whose messages only the checkpoints hold (`update_state`).
    unwritten: &'a [usize],
}

fn thread_sql(t: &Thread<'_>, out: &mut String) {
    let mut state: Vec<M> = Vec::new();
    let mut prev: Option<String> = None;
    for (i, step) in t.steps.iter().enumerate() {
        let ran_from = prev.clone().unwrap_or_else(|| uuid6(t.start - 1, 0));
        if i == 0 {
            // The input checkpoint the first task ran from.
            writeln!(
                out,
                "INSERT INTO checkpoints VALUES ('{}', '{}', '{ran_from}', NULL, 'msgpack', {}, '{{\"source\":\"input\",\"step\":-1}}');",
                t.thread,
                t.ns,
                hex(&checkpoint(&ran_from, &[]))
            )
            .unwrap();
        }
        if t.writes && !t.unwritten.contains(&i) {
            writeln!(
                out,
                "INSERT INTO writes VALUES ('{}', '{}', '{ran_from}', 'task-{i}', 0, 'messages', 'msgpack', {});",
                t.thread,
                t.ns,
                hex(&pack(&M::Array(step.clone())))
            )
            .unwrap();
        }
        state.extend(step.iter().cloned());
        let id = uuid6(t.start + i as u64, i as u16 + 1);
        writeln!(
            out,
            "INSERT INTO checkpoints VALUES ('{}', '{}', '{id}', '{ran_from}', 'msgpack', {}, '{{\"source\":\"loop\",\"step\":{i}}}');",
            t.thread,
            t.ns,
            hex(&checkpoint(&id, &state))
        )
        .unwrap();
        prev = Some(id);
    }
}

pub fn langgraph_sql() -> String {
    let mut s = String::new();
    s.push_str(
        "-- A LangGraph SqliteSaver database (checkpoints.sqlite) in the shape research/formats-2.md §5 documents.\n\
         -- Generated by tests/cli/gen_samples.rs (UPDATE_SAMPLES=1 cargo test --test cli gen_samples); the blobs are msgpack\n\
         -- with LangChain extension types (5: Pydantic v2, 4: Pydantic v1). Build the .db with:\n\
         --   sqlite3 sample-traces/langgraph.db < sample-traces/langgraph.sql\n\
         -- Traps: every checkpoint snapshots the whole state (thread booking-1 is saved at 10 checkpoints, and its\n\
         -- calls count once); legacy-2 has no writes (its latest checkpoint is read); broken-3 holds rows that\n\
         -- cannot be decoded (pickle, encrypted, bad msgpack) and a status no version writes; hitl-5's answer is in\n\
         -- its checkpoints only (update_state writes no `writes` row).\n\
         CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,\n\
           parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB,\n\
           PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));\n\
         CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,\n\
           task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB,\n\
           PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));\n",
    );
    let args = |pairs: Vec<(&str, &str)>| map(pairs.into_iter().map(|(k, v)| (k, M::from(v))).collect());
    // 2026-04-02 09:00:00 UTC
    let t0 = 1_775_120_400;
    let booking = Thread {
        thread: "booking-1",
        ns: "",
        start: t0,
        writes: true,
        unwritten: &[],
        steps: vec![
            vec![human("Book a flight to Oslo and a hotel")],
            vec![ai("run-1", &[("call_1", "search_flights", args(vec![("to", "OSL")]))], &[])],
            vec![tool_msg(5, "call_1", "search_flights", "[{\"flight\":\"SK123\"}]".into(), Some("success"))],
            vec![ai(
                "run-2",
                &[
                    ("call_2", "book_flight", args(vec![("flight", "SK123")])),
                    ("call_3", "get_weather", args(vec![("city", "Oslo")])),
                ],
                &[],
            )],
            // 1. ToolNode caught an exception: flagged.
            // 2. The tool returned an error string: status success, hidden.
            vec![
                tool_msg(
                    5,
                    "call_2",
                    "book_flight",
                    "Error: ConnectionError('payment gateway unreachable')\n Please fix your mistakes.".into(),
                    Some("error"),
                ),
                tool_msg(5, "call_3", "get_weather", "Error: weather API key is not set".into(), Some("success")),
            ],
            // 3. Arguments that did not parse: a failed call with no ToolMessage.
            vec![ai(
                "run-3",
                &[("call_4", "search_hotels", args(vec![("city", "Oslo")]))],
                &[("call_5", "book_hotel", "{\"hotel\": ", "Expecting value: line 1 column 11 (char 10)")],
            )],
            vec![tool_msg(5, "call_4", "search_hotels", "No hotels found for these dates.".into(), Some("success"))],
            // 4. An unknown tool: ToolNode answers with status error.
            vec![ai("run-4", &[("call_6", "reserve_table", args(vec![("at", "19:00")]))], &[])],
            vec![tool_msg(
                5,
                "call_6",
                "reserve_table",
                "Error: reserve_table is not a valid tool, try one of [search_flights, book_flight, get_weather, search_hotels].".into(),
                Some("error"),
            )],
            vec![ai("run-5", &[], &[])],
        ],
    };
    let sub = Thread {
        thread: "booking-1",
        ns: "researcher:7c1d",
        start: t0 + 30,
        writes: true,
        unwritten: &[],
        steps: vec![
            vec![ai("run-s1", &[("call_s1", "web_search", args(vec![("q", "Oslo events")]))], &[])],
            // 5. Content as a list of blocks, an error string: hidden.
            vec![tool_msg(
                5,
                "call_s1",
                "web_search",
                M::Array(vec![map(vec![("type", "text".into()), ("text", "Error: 429 Too Many Requests".into())])]),
                Some("success"),
            )],
        ],
    };
    let legacy = Thread {
        thread: "legacy-2",
        ns: "",
        start: t0 + 3600,
        writes: false,
        unwritten: &[],
        steps: vec![
            vec![ai("run-l1", &[("call_l1", "read_file", args(vec![("path", "notes.txt")]))], &[])],
            // Pydantic v1 messages without a status (langchain-core < 0.2): no flag.
            vec![tool_msg(
                4,
                "call_l1",
                "read_file",
                "Error: [Errno 2] No such file or directory: 'notes.txt'".into(),
                None,
            )],
            vec![ai("run-l2", &[("call_l2", "list_dir", args(vec![("path", ".")]))], &[])],
            vec![tool_msg(4, "call_l2", "list_dir", "notes.md\nplan.md".into(), None)],
        ],
    };
    // hitl-5: a human answered a call through `update_state`, which leaves no `writes` row.
    let hitl = Thread {
        thread: "hitl-5",
        ns: "",
        start: t0 + 5400,
        writes: true,
        unwritten: &[1],
        steps: vec![
            vec![ai("run-h1", &[("call_h1", "approve_refund", args(vec![("amount", "500")]))], &[])],
            vec![tool_msg(
                5,
                "call_h1",
                "approve_refund",
                "Error: refund denied by the reviewer".into(),
                Some("error"),
            )],
        ],
    };
    for t in [&booking, &sub, &legacy, &hitl] {
        writeln!(s, "-- thread {} namespace '{}'", t.thread, t.ns).unwrap();
        thread_sql(t, &mut s);
    }
    // broken-3: rows that cannot be read, and one status no version writes.
    let ck = uuid6(t0 + 7200, 1);
    s.push_str("-- thread broken-3: undecodable rows are counted, never fatal\n");
    writeln!(
        s,
        "INSERT INTO checkpoints VALUES ('broken-3', '', '{ck}', NULL, 'msgpack', {}, '{{}}');",
        hex(&checkpoint(&ck, &[]))
    )
    .unwrap();
    let w = |task: &str, idx: i64, channel: &str, kind: &str, value: &str| {
        format!(
            "INSERT INTO writes VALUES ('broken-3', '', '{ck}', '{task}', {idx}, '{channel}', '{kind}', {value});\n"
        )
    };
    let calls = pack(&M::Array(vec![ai(
        "run-b1",
        &[
            ("call_b1", "run_query", args(vec![("sql", "select 1")])),
            ("call_b2", "run_query", args(vec![("sql", "x")])),
        ],
        &[],
    )]));
    let cancelled = pack(&M::Array(vec![tool_msg(5, "call_b1", "run_query", "stopped".into(), Some("cancelled"))]));
    s.push_str(&w("task-a", 0, "messages", "msgpack", &hex(&calls)));
    s.push_str(&w("task-b", 0, "messages", "msgpack", &hex(&cancelled)));
    s.push_str(&w("task-c", 0, "messages", "pickle", "X'80049500'"));
    s.push_str(&w("task-d", 0, "messages", "msgpack+aes", "X'00112233'"));
    s.push_str(&w("task-e", 0, "messages", "msgpack", "X'c1c1'"));
    s.push_str(&w("task-f", -1, "__error__", "msgpack", &hex(&pack(&M::from("ValueError('db is down')")))));
    s
}

fn check(name: &str, text: &str) {
    let path = root().join("sample-traces").join(name);
    if std::env::var_os("UPDATE_SAMPLES").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == text, "{} is not what tests/gen_samples.rs makes; run with UPDATE_SAMPLES=1", path.display());
}

#[test]
fn langgraph_sample_is_generated() {
    check("langgraph.sql", &langgraph_sql());
}

/// A thread compressed by the zstd CLI (level 3, as Zed writes), not by
/// ruzstd: made with
///   printf '%s' "$ZED_CLI_JSON" | zstd -q -3 -c | xxd -p | tr -d '\\n'   (zstd 1.5.4)
const ZED_CLI_JSON: &str = r#"{"title":"Lint","version":"0.3.0","updated_at":"2026-04-05T12:00:00Z","messages":[{"User":{"id":"u1","content":[{"Text":"lint it"}]}},{"Agent":{"content":[{"ToolUse":{"id":"toolu_cli_1","name":"terminal","raw_input":"{\"command\":\"cargo clippy\",\"cd\":\"app\"}","input":{"type":"json","value":{"command":"cargo clippy","cd":"app"}},"is_input_complete":true}}],"tool_results":{"toolu_cli_1":{"tool_use_id":"toolu_cli_1","tool_name":"terminal","is_error":false,"content":[{"Text":"Command \"cargo clippy\" failed with exit code 1.\n\n```\nerror: unused variable\n```"}],"output":null}},"reasoning_details":null}}]}"#;
const ZED_CLI_ZSTD: &str = "28b52ffd6466014d0b00c6964322406daa033eb951496844e024f94cdab26479c72a23fffd94223e11d29b7318867b033a00380038008cfa53987066411dea2321d4e5e80a29a994146381309000041200012331aede8928daa9b878f4a40850a4ab735bf814e2e8cd7b707565bd7d260ae7b2b4e48b898e1789c8777496bccbd35e928fbe4096254864adb5c204d61af32838839aa6d1bcf7342f935084666d6ec9d117f1eaca3e8ac0451446d82c427d086a348dc6d7eadacadcd21204ee51d3dcb9548f2cb9c10737d1678ede7c3997c917fa9a706e5972dae365f2a5be024d03b2cd560579f07283a98fb1c81ddb9531e4be84388ac2c8f1285e0e8783172fc5e2a8d292d32ba1c7a137e228ca361bce3150c8b241fdb5f7022320106620c4071dad7f82d8bc99da6e505bf214de60e8103ab06bbe9aebd7333310071d9b0416762b446360657cd01608807d5b7cb180f341880c04f4906089f6d2dbddc982efc8c29d2c782ca04b8a4359cc316db8a619883a7fb5";

fn zstd(v: &serde_json::Value) -> Vec<u8> {
    let text = serde_json::to_vec(v).unwrap();
    ruzstd::encoding::compress_to_vec(&text[..], ruzstd::encoding::CompressionLevel::Fastest)
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn tool_use(id: &str, name: &str, input: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"ToolUse": {"id": id, "name": name, "raw_input": input.to_string(),
        "input": {"type": "json", "value": input}, "is_input_complete": true}})
}

fn zed_result(id: &str, name: &str, is_error: bool, content: serde_json::Value) -> (String, serde_json::Value) {
    let output = if is_error { content.clone() } else { serde_json::Value::Null };
    let content = match content {
        serde_json::Value::String(s) => serde_json::json!([{"Text": s}]),
        c => c,
    };
    (
        id.to_string(),
        serde_json::json!({"tool_use_id": id, "tool_name": name, "is_error": is_error, "content": content, "output": output}),
    )
}

fn agent(content: Vec<serde_json::Value>, results: Vec<(String, serde_json::Value)>) -> serde_json::Value {
    let results: serde_json::Map<String, serde_json::Value> = results.into_iter().collect();
    serde_json::json!({"Agent": {"content": content, "tool_results": results, "reasoning_details": null}})
}

fn user(text: &str) -> serde_json::Value {
    serde_json::json!({"User": {"id": format!("u-{}", text.len()), "content": [{"Text": text}]}})
}

pub fn zed_sql() -> String {
    use serde_json::json;
    let mut s = String::from(
        "-- A Zed threads.db in the shape research/formats-2.md §1 documents.\n\
         -- Generated by tests/cli/gen_samples.rs (UPDATE_SAMPLES=1 cargo test --test cli gen_samples); `data` holds zstd\n\
         -- frames as hex (made by ruzstd, and one by the zstd CLI). Build the .db with:\n\
         --   sqlite3 sample-traces/zed.db < sample-traces/zed.sql\n\
         -- Traps: the terminal tool's non-zero exits, timeouts and refused escalations are not flagged; grep exit 1\n\
         -- is benign; all four JSON generations; an imported copy (not counted); a newer version and unknown\n\
         -- variants (counted malformed, still read); a blob that is not zstd (counted, skipped).\n\
         CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,\n\
           data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT,\n\
           created_at TEXT);\n",
    );
    let term = |cmd: &str| json!({"command": cmd, "cd": "app"});
    let fence = |out: &str| format!("```\n{out}\n```");
    let main = json!({
        "title": "Fix the build", "version": "0.3.0", "updated_at": "2026-04-05T10:00:00.000Z",
        "model": {"provider": "anthropic", "model": "claude"},
        "messages": [
            user("run the tests and fix them"),
            agent(
                vec![json!({"Text": "Running them."}), tool_use("toolu_01", "terminal", term("cargo test"))],
                vec![zed_result("toolu_01", "terminal", false,
                    format!("Command \"cargo test\" failed with exit code 101.\n\n{}", fence("test parse ... FAILED")).into())],
            ),
            agent(
                vec![tool_use("toolu_02", "terminal", term("grep -rn TODO src")),
                     tool_use("toolu_03", "terminal", term("cargo build"))],
                vec![zed_result("toolu_02", "terminal", false, "Command \"grep -rn TODO src\" failed with exit code 1.\n\n```\n```".into()),
                     zed_result("toolu_03", "terminal", false, fence("Finished `dev` profile").into())],
            ),
            agent(
                vec![tool_use("toolu_04", "terminal", term("npm run dev")),
                     tool_use("toolu_05", "terminal", term("curl https://example.com"))],
                vec![zed_result("toolu_04", "terminal", false,
                        format!("Command \"npm run dev\" timed out. Output captured before timeout:\n\n{}", fence("ready on :3000")).into()),
                     zed_result("toolu_05", "terminal", false,
                        "Command cancelled: user denied permission to run outside the sandbox (network access).".into())],
            ),
            // Flagged failures; content as a bare object and as a plain string (older writers).
            agent(
                vec![tool_use("toolu_06", "read_file", json!({"path": "app/src/parse.rs"})),
                     tool_use("toolu_07", "edit_file", json!({"path": "app/src/lib.rs", "mode": "edit"})),
                     tool_use("toolu_08", "run_tests", json!({}))],
                vec![zed_result("toolu_06", "read_file", true, json!({"Text": "app/src/parse.rs not found"})),
                     zed_result("toolu_07", "edit_file", true, "Some edits were produced but none of them could be applied.".into()),
                     zed_result("toolu_08", "run_tests", true, "No tool named run_tests exists".into())],
            ),
            "Resume",
            // An older writer's input (the value itself), a sub-agent, and a call still streaming.
            agent(
                vec![json!({"ToolUse": {"id": "toolu_09", "name": "grep", "raw_input": "{\"regex\":\"fn parse\"}",
                                        "input": {"regex": "fn parse"}, "is_input_complete": true}}),
                     tool_use("toolu_10", "spawn_agent", json!({"label": "fix parse", "message": "fix it"})),
                     json!({"ToolUse": {"id": "toolu_11", "name": "edit_file", "raw_input": "{\"path\":\"app/sr",
                                        "input": null, "is_input_complete": false}})],
                vec![zed_result("toolu_09", "grep", false, "Found 1 match:\napp/src/parse.rs:3".into()),
                     zed_result("toolu_10", "spawn_agent", false, json!([{"Text": "{\"session_id\":\"thread-child\",\"output\":\"fixed\"}"}]))],
            ),
        ]
    });
    let child = json!({
        "title": "fix parse", "version": "0.3.0", "updated_at": "2026-04-05T10:02:00.000Z",
        "subagent_context": {"parent_thread_id": "thread-main"},
        "messages": [
            user("fix it"),
            agent(
                vec![tool_use("toolu_c1", "terminal", term("make check"))],
                vec![zed_result("toolu_c1", "terminal", false, "Command \"make check\" failed with exit code 2.\n\n```\nmake: *** [check] Error 2\n```".into())],
            ),
        ]
    });
    let legacy1 = json!({
        "summary": "Find configs", "updated_at": "2025-06-01T09:00:00Z", "version": "0.1.0",
        "messages": [
            {"id": 0, "role": "user", "segments": [{"type": "text", "text": "find the configs"}], "tool_uses": [], "tool_results": [], "context": "", "creases": [], "is_hidden": false},
            {"id": 1, "role": "assistant", "segments": [{"type": "thinking", "text": "hmm", "signature": null}],
             "tool_uses": [{"id": "toolu_l1", "name": "find_path", "input": {"glob": "**/*.toml"}},
                           {"id": "toolu_l2", "name": "read_file", "input": {"path": "nope.toml"}}],
             "tool_results": [], "context": "", "creases": [], "is_hidden": false},
            {"id": 2, "role": "user", "segments": [], "tool_uses": [],
             "tool_results": [{"tool_use_id": "toolu_l1", "is_error": false, "content": "Cargo.toml", "output": null},
                              {"tool_use_id": "toolu_l2", "is_error": true, "content": "nope.toml not found", "output": null}],
             "context": "", "creases": [], "is_hidden": false}
        ]
    });
    let legacy0 = json!({
        "summary": "List", "updated_at": "2025-03-01T09:00:00Z",
        "messages": [
            {"id": 0, "role": "assistant", "text": "listing",
             "tool_uses": [{"id": "toolu_z1", "name": "list_directory", "input": {"path": "."}}],
             "tool_results": [{"tool_use_id": "toolu_z1", "is_error": false, "content": "src\nCargo.toml", "output": null}]}
        ],
        "initial_project_snapshot": null
    });
    let imported = json!({
        "title": "🔗 shared", "version": "0.3.0", "updated_at": "2026-04-05T11:00:00Z", "imported": true,
        "messages": [agent(vec![tool_use("toolu_i1", "terminal", term("cargo test"))],
            vec![zed_result("toolu_i1", "terminal", false, "Command \"cargo test\" failed with exit code 101.".into())])]
    });
    let newer = json!({
        "title": "future", "version": "0.4.0", "updated_at": "2026-04-05T13:00:00Z",
        "messages": [
            {"Compaction": {"summary": "…"}},
            agent(vec![json!({"Citation": {"url": "https://example.com"}}), tool_use("toolu_n1", "fetch", json!({"url": "https://example.com"}))],
                vec![zed_result("toolu_n1", "fetch", false, "Example Domain".into())]),
        ]
    });
    let row = |id: &str, summary: &str, updated: &str, kind: &str, data: String, parent: Option<&str>| {
        let parent = parent.map_or("NULL".to_string(), |p| format!("'{p}'"));
        format!(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, folder_paths_order, created_at) \
             VALUES ('{id}', '{summary}', '{updated}', '{kind}', {data}, {parent}, '[\"/home/u/app\"]', '[0]', '{updated}');\n"
        )
    };
    let text = |v: &serde_json::Value| format!("'{}'", v.to_string().replace('\'', "''"));
    s.push_str(&row("thread-main", "Fix the build", "2026-04-05T10:00:00+00:00", "zstd", hex(&zstd(&main)), None));
    s.push_str(&row(
        "thread-child",
        "fix parse",
        "2026-04-05T10:02:00+00:00",
        "zstd",
        hex(&zstd(&child)),
        Some("thread-main"),
    ));
    s.push_str(&row("thread-legacy-1", "Find configs", "2025-06-01T09:00:00+00:00", "json", text(&legacy1), None));
    s.push_str(&row("thread-legacy-0", "List", "2025-03-01T09:00:00+00:00", "json", text(&legacy0), None));
    s.push_str(&row("thread-imported", "shared", "2026-04-05T11:00:00+00:00", "zstd", hex(&zstd(&imported)), None));
    s.push_str(&row("thread-cli", "Lint", "2026-04-05T12:00:00+00:00", "zstd", hex(&unhex(ZED_CLI_ZSTD)), None));
    s.push_str(&row("thread-newer", "future", "2026-04-05T13:00:00+00:00", "zstd", hex(&zstd(&newer)), None));
    s.push_str(&row(
        "thread-broken",
        "broken",
        "2026-04-05T14:00:00+00:00",
        "zstd",
        "X'28b52ffd00deadbeef'".into(),
        None,
    ));
    s
}

#[test]
fn zed_sample_is_generated() {
    check("zed.sql", &zed_sql());
}

#[test]
fn the_zstd_cli_frame_is_the_json_it_claims() {
    use std::io::Read;
    let bytes = unhex(ZED_CLI_ZSTD);
    let mut src = &bytes[..];
    let mut out = String::new();
    ruzstd::decoding::StreamingDecoder::new(&mut src).unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(out, ZED_CLI_JSON);
}
