//! The LangGraph sample (`sample-traces/langgraph.sql`): a `SqliteSaver` database
//! whose checkpoints and writes are msgpack with LangChain extension types, held
//! in the SQL text as hex literals. `cargo xtask samples` writes the SQL; the `.db`
//! is built from it with `sqlite3 sample-traces/langgraph.db < sample-traces/langgraph.sql`.

use std::fmt::Write as _;

use rmpv::Value as M;

use crate::util::hex;

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
         -- Generated by xtask/src/langgraph.rs (cargo xtask samples); the blobs are msgpack\n\
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
