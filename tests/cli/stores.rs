//! Stores read right (issue 47): a folder's SQLite stores found by their
//! content, default locations that hold nothing passed over, and the
//! shapes of single stores that were read wrong.

use crate::util::*;
use std::path::Path;

fn sample_sql(name: &str) -> String {
    std::fs::read_to_string(root().join("sample-traces").join(name)).unwrap()
}

fn formats(v: &serde_json::Value) -> Vec<(String, String)> {
    let dir = |p: &str| p.rsplit_once("proj").map_or(p.to_string(), |(_, rest)| rest.to_string());
    v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (dir(s["path"].as_str().unwrap()), s["format"].as_str().unwrap().to_string()))
        .collect()
}

/// A project folder: a LangGraph store under a name of its own, an ADK
/// store in `.adk`, a SQLite file of the app that is no trace store,
/// foreign JSON, and a store deeper than the search goes.
fn project(dir: &Path) -> std::path::PathBuf {
    let proj = dir.join("proj");
    std::fs::create_dir_all(proj.join(".adk")).unwrap();
    db_from_sql(&proj, "graph-state.bin", &sample_sql("langgraph.sql"));
    db_from_sql(&proj.join(".adk"), "session.db", &sample_sql("adk.sql"));
    db_from_sql(&proj, "app.db", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);");
    std::fs::write(proj.join("package.json"), r#"{"name": "demo", "version": "1.0.0"}"#).unwrap();
    std::fs::write(proj.join("notes.db"), "not a database at all\n".repeat(40)).unwrap();
    let deep = proj.join("a/b/c/d/e/f/g");
    std::fs::create_dir_all(&deep).unwrap();
    db_from_sql(&deep, "checkpoints.db", &sample_sql("langgraph.sql"));
    proj
}

#[test]
fn a_folder_scan_finds_its_sqlite_stores_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let proj = project(dir.path());
    let out = run_in(dir.path(), &["scan", "proj", "--format", "json"]);
    let err = stderr(&out);
    let v = json(&out);
    assert_eq!(
        formats(&v),
        [("/graph-state.bin".to_string(), "langgraph".to_string()), ("/.adk/session.db".into(), "adk".into())],
        "{err}"
    );
    assert!(
        err.contains("proj: 2 SQLite trace stores found inside: graph-state.bin (langgraph), .adk/session.db (adk)"),
        "{err}"
    );
    assert!(err.contains("app.db: unknown trace schema (tables: users)"), "the app's own database is named: {err}");
    assert!(err.contains("more than 6 deep are not searched"), "the bound is said: {err}");
    // The same counts as the two stores named.
    let named = json(&run_in(&proj, &["scan", "graph-state.bin", ".adk/session.db", "--format", "json"]));
    assert_eq!(totals(&v), totals(&named));
    assert!(totals(&v).0 > 0);
}

#[test]
fn a_folder_of_transcripts_and_a_store_reads_both() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    copy_tree(&root().join("sample-traces/claude-code"), &proj.join("transcripts"));
    db_from_sql(&proj, "checkpoints.sqlite", &sample_sql("langgraph.sql"));
    let out = run_in(dir.path(), &["scan", "proj", "--format", "json"]);
    let v = json(&out);
    assert_eq!(
        formats(&v),
        [("".to_string(), "claude-code".to_string()), ("/checkpoints.sqlite".into(), "langgraph".into())],
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("found inside, read beside its transcripts: checkpoints.sqlite (langgraph)"));
    // Named again beside the folder, the store is read once.
    let again = run_in(dir.path(), &["scan", "proj", "proj/checkpoints.sqlite", "--format", "json"]);
    assert_eq!(totals(&json(&again)), totals(&v));
    // A folder whose one store is named beside it is read there alone.
    std::fs::remove_dir_all(proj.join("transcripts")).unwrap();
    let alone = json(&run_in(dir.path(), &["scan", "proj", "proj/checkpoints.sqlite", "--format", "json"]));
    assert_eq!(formats(&alone), [("/checkpoints.sqlite".to_string(), "langgraph".to_string())]);
}

#[test]
fn a_folder_whose_only_sqlite_file_is_no_store_names_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("proj")).unwrap();
    db_from_sql(&dir.path().join("proj"), "app.db", "CREATE TABLE users (id INTEGER PRIMARY KEY);");
    let out = run_in(dir.path(), &["scan", "proj"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("app.db: unknown trace schema (tables: users)"), "{err}");
    // An empty folder says what it lacks.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = run_in(dir.path(), &["scan", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("and no SQLite trace store"), "{}", stderr(&out));
}

#[test]
fn an_empty_default_folder_does_not_stop_the_scan() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".claude/projects")).unwrap();
    std::fs::create_dir_all(h.join(".codex/sessions/2026")).unwrap();
    std::fs::create_dir_all(h.join(".adk")).unwrap();
    db_from_sql(&h.join(".adk"), "session.db", &sample_sql("adk.sql"));
    let out = std::process::Command::new(BIN)
        .args(["scan", "--format", "json"])
        .current_dir(h)
        .env("HOME", h)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("LLM_USER_PATH")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    let v = json(&out);
    let formats: Vec<&str> = v["sources"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["adk"], "{}", stderr(&out));
}

/// Write `lines` (JSON values) as one JSONL file at `dir/name`.
fn jsonl(dir: &Path, name: &str, lines: &[serde_json::Value]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
}

/// Pi: the calls of an assistant message that failed (or was aborted)
/// before they ran have no result: unpaired, never flagged.
#[test]
fn pi_calls_of_a_failed_message_have_no_result() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("--w-demo--");
    let msg = |id: &str, parent: &str, m: serde_json::Value| json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-05T10:00:00.000Z", "message": m});
    let call =
        |id: &str, cmd: &str| json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": cmd}});
    jsonl(
        &s,
        "2026-01-05T10-00-00-000Z_0000aaaa-1111-4222-8333-444455556666.jsonl",
        &[
            json!({"type": "session", "version": 3, "id": "0000aaaa-1111-4222-8333-444455556666", "timestamp": "2026-01-05T10:00:00.000Z", "cwd": "/w/demo"}),
            msg("m1", "", json!({"role": "user", "content": [{"type": "text", "text": "build it"}]})),
            msg("m2", "m1", json!({"role": "assistant", "content": [call("c1", "make")], "stopReason": "toolUse"})),
            msg(
                "m3",
                "m2",
                json!({"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "ok"}], "isError": false}),
            ),
            msg(
                "m4",
                "m3",
                json!({"role": "assistant", "content": [call("c2", "make test"), call("c3", "make lint")], "stopReason": "error", "errorMessage": "overloaded"}),
            ),
            msg(
                "m5",
                "m4",
                json!({"role": "assistant", "content": [call("c4", "ls")], "stopReason": "aborted", "errorMessage": "Request was aborted."}),
            ),
        ],
    );
    let v = scan_json(&[dir.path().to_str().unwrap()], &[]);
    assert_eq!(totals(&v), (4, 0, 0), "no call of a stopped message is a flagged failure");
    assert_eq!(v["totals"]["unpaired_calls"], 3);
}

/// A LangChain message as LangGraph 0.1's JSON serializer stored it: a
/// constructor envelope around the message's fields.
fn lc_message(class: &str, kwargs: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", class], "kwargs": kwargs})
}

/// SQL text for `value` as a JSON blob.
fn blob(value: &serde_json::Value) -> String {
    format!("CAST('{}' AS BLOB)", value.to_string().replace('\'', "''"))
}

/// LangGraph 0.1 (`checkpoints` keyed by `thread_ts`, JSON values, no
/// `checkpoint_ns`): read, not "unknown trace schema". One database from
/// before `writes` (ISO `thread_ts`), one with them (UUID v6 `thread_ts`)
/// holding a pickled value, which is a malformed row, not the end of the scan.
#[test]
fn langgraph_0_1_databases_are_read() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let ai =
        |calls: serde_json::Value| lc_message("AIMessage", json!({"content": "", "type": "ai", "tool_calls": calls}));
    let tool = |id: &str, text: &str, status: Option<&str>| {
        let mut k = json!({"content": text, "type": "tool", "tool_call_id": id});
        if let Some(s) = status {
            k["status"] = json!(s);
        }
        lc_message("ToolMessage", k)
    };
    let human = lc_message("HumanMessage", json!({"content": "tidy the notes", "type": "human"}));
    let read = ai(json!([{"name": "read_file", "args": {"path": "notes.md"}, "id": "call_r1"}]));
    let read_result = tool("call_r1", "Error: FileNotFoundError('notes.md')", Some("error"));
    let list = ai(json!([{"name": "list_dir", "args": {"path": "."}, "id": "call_l1"}]));
    let list_result = tool("call_l1", "todo.md\nREADME.md", None);
    let state = |msgs: serde_json::Value| json!({"v": 1, "ts": "2024-06-20T10:00:03+00:00", "channel_values": {"messages": msgs}});
    let early = format!(
        "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, parent_ts TEXT, checkpoint BLOB, \
           metadata BLOB, PRIMARY KEY (thread_id, thread_ts));
         INSERT INTO checkpoints VALUES ('t1', '2024-06-20T10:00:01.000000+00:00', NULL, {}, NULL);
         INSERT INTO checkpoints VALUES ('t1', '2024-06-20T10:00:03.000000+00:00', '2024-06-20T10:00:01.000000+00:00', {}, NULL);",
        blob(&state(json!([human, read]))),
        blob(&state(json!([human, read, read_result, list, list_result]))),
    );
    db_from_sql(dir.path(), "early.sqlite", &early);
    let v = json(&run_in(dir.path(), &["scan", "early.sqlite", "--format", "json"]));
    assert_eq!(v["sources"][0]["format"], "langgraph");
    assert_eq!(totals(&v), (2, 1, 0), "two calls of the latest checkpoint, once each; status error is the flag");
    assert_eq!(v["totals"]["unpaired_calls"], 0);

    let late = format!(
        "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, parent_ts TEXT, checkpoint BLOB, \
           metadata BLOB, PRIMARY KEY (thread_id, thread_ts));
         CREATE TABLE writes (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, \
           channel TEXT NOT NULL, value BLOB, PRIMARY KEY (thread_id, thread_ts, task_id, idx));
         INSERT INTO checkpoints VALUES ('t2', '1ef2ef8a-1c2b-6d3e-8001-0123456789ab', NULL, {}, NULL);
         INSERT INTO writes VALUES ('t2', '1ef2ef8a-1c2b-6d3e-8000-0123456789ab', 'task-a', 0, 'messages', {});
         INSERT INTO writes VALUES ('t2', '1ef2ef8a-1c2b-6d3e-8000-0123456789ab', 'task-b', 0, 'messages', {});
         INSERT INTO writes VALUES ('t2', '1ef2ef8a-1c2b-6d3e-8001-0123456789ab', 'task-c', 0, 'messages', X'80049505000000');
         INSERT INTO writes VALUES ('t2', '1ef2ef8a-1c2b-6d3e-8001-0123456789ab', 'task-c', 1, '__start__', {});",
        blob(&state(json!([human, list, list_result]))),
        blob(&json!([list])),
        blob(&json!([list_result])),
        blob(&json!({"x": 1})),
    );
    db_from_sql(dir.path(), "late.sqlite", &late);
    let out = run_in(dir.path(), &["scan", "late.sqlite", "--format", "json"]);
    let v = json(&out);
    assert_eq!(totals(&v), (1, 0, 0), "the call in the writes and in the checkpoint counts once");
    assert_eq!(v["totals"]["unpaired_calls"], 0);
    let malformed = finding_messages(&v, "malformed-row");
    assert!(malformed.iter().any(|m| m.contains("pickled value")), "{malformed:?}");
}

/// Aider 0.50: an empty quoted line between the edit-errors link and the
/// `# 1 SEARCH/REPLACE block failed to match!` header, and the repeated
/// block's `>>>>>>> REPLACE` written by aider's Markdown quoting as
/// `> > > > > > > REPLACE`. Before, the failure was not read, its block
/// stayed unpaired, and the retry after it (and every later call of the
/// session) was lost.
#[test]
fn aider_0_50_quoted_failure_and_its_retry() {
    let history = r#"
# aider chat started at 2024-08-20 14:08:19

> /usr/bin/aider --model sonnet  
> Aider v0.50.1  
> Main model: claude-3-5-sonnet with diff edit format  

#### make the accent purple  

Here is the change.

app/styles/app.css

```css
<<<<<<< SEARCH
:root {
  --accent: #e22120;
}
=======
:root {
  --accent: #8A2BE2;
}
>>>>>>> REPLACE
```

> Tokens: 10,332 sent, 439 received. Cost: $0.04 message, $0.04 session.  
> Allow edits to app/styles/app.css which was not previously added to chat? y  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
>  
> # 1 SEARCH/REPLACE block failed to match!  
>  
> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in app/styles/app.css  
>  
> <<<<<<< SEARCH  
> :root {  
>  --accent: #e22120;  
> }  
> =======  
> :root {  
>  --accent: #8A2BE2;  
> }  
> > > > > > > > REPLACE  
>  
> The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  

Sorry, the file differs. Here is a block that matches.

app/styles/app.css

```css
<<<<<<< SEARCH
:root {
  --aside-width: 400px;
}
=======
:root {
  --aside-width: 400px;
  --accent: #8A2BE2;
}
>>>>>>> REPLACE
```

> Tokens: 11,002 sent, 200 received. Cost: $0.04 message, $0.08 session.  
> Applied edit to app/styles/app.css  

#### thanks  
"#;
    assert_aider_failure_then_retry(history);
    // As aider 0.50.1 also writes it: the header and the empty quoted lines
    // left open (no closing two spaces), the message quoted all the same.
    // Before, the message ended at its first quoted line and no block got
    // a verdict.
    let open = history
        .replace("failed to match!  \n", "failed to match!\n")
        .replace(">  \n", ">\n")
        .replace("in app/styles/app.css  \n", "in app/styles/app.css\n");
    assert_ne!(open, history);
    assert_aider_failure_then_retry(&open);
}

fn assert_aider_failure_then_retry(history: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".aider.chat.history.md"), history).unwrap();
    let out = run_in(dir.path(), &["export", ".aider.chat.history.md", "--no-index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(&str, bool, bool)> = rows
        .iter()
        .map(|r| (r["call_id"].as_str().unwrap(), r["paired"].as_bool().unwrap(), r["error"].as_bool().unwrap()))
        .collect();
    assert_eq!(got, vec![("L15", true, true), ("L52", true, false)], "the failed block, then its retry");
    assert_eq!(rows[0]["category"], "edit-match-not-found");
}

/// Aider 0.52 (from `aider/io.py` and `coders/base_coder.py` of v0.52.0):
/// a usage report whose `Cost:` is a line of its own after the quoted
/// `> Tokens:` line, a block that failed to match and its retry, a
/// `[Y/n]` shell prompt, and the next run of the same file.
#[test]
fn aider_0_52_failed_block_retry_cost_line_and_shell_prompt() {
    let history = "# aider chat started at 2024-08-26 09:00:00

> Aider v0.52.1  
> Main model: claude-3-5-sonnet-20240620 with diff edit format, prompt cache, infinite output  

#### make the counter start at one  

counter.py
```python
<<<<<<< SEARCH
start = 0
=======
start = 1
>>>>>>> REPLACE
```

> Tokens: 2.4k sent, 1.1k cache write, 1.2k cache hit, 48 received.
Cost: $0.01 message, $0.01 session.  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
> # 1 SEARCH/REPLACE block failed to match!  
>   
> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in counter.py  
> <<<<<<< SEARCH  
> start = 0  
> =======  
> start = 1  
> >>>>>>> REPLACE  
>   
> The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  

counter.py
```python
<<<<<<< SEARCH
START = 0
=======
START = 1
>>>>>>> REPLACE
```

> Tokens: 2.6k sent, 1.1k cache write, 1.4k cache hit, 50 received.
Cost: $0.01 message, $0.02 session. Use --no-stream for accurate caching costs.  
> Applied edit to counter.py  
> Commit 1a2b3c4 start the counter at one  

#### check it  

```bash
python -m pytest -q
```

> Tokens: 2.7k sent, 20 received. Cost: $0.01 message, $0.03 session.  
> python -m pytest -q  
> Run shell command? [Y/n] y  
> Running python -m pytest -q  
> Command 'python -m pytest -q' exited with status 1  
> To retry and share output with the LLM: /run python -m pytest -q  
> You can find this command in your input history with up-arrow.  

# aider chat started at 2024-08-26 10:00:00

> Aider v0.52.1  

#### and the reset  

counter.py
```python
<<<<<<< SEARCH
def reset():
=======
def reset(to=1):
>>>>>>> REPLACE
```

> Tokens: 2.7k sent, 20 received. Cost: $0.01 message, $0.04 session.  
> Applied edit to counter.py  
";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".aider.chat.history.md"), history).unwrap();
    let v = json(&run_in(dir.path(), &["scan", ".aider.chat.history.md", "--format", "json"]));
    assert_eq!(v["totals"]["sessions"], 2);
    assert_eq!(v["totals"]["unpaired_calls"], 0, "every edit keeps its verdict");
    assert_eq!(
        totals(&v),
        (4, 1, 1),
        "the failed block (flagged), its retry and the next run's edit (applied), the shell call (exit 1)"
    );
    assert_eq!(counts(&v, "edit"), (3, 1, 1, 0), "calls, errors, flagged, hidden of edit");
    assert_eq!(tool(&v, "shell")["calls"], 1, "`Run shell command? [Y/n] y` is a shell call");
    assert_eq!(tool(&v, "shell")["categories"], serde_json::json!({"nonzero-exit": 1}));
}

/// The calls of an Aider history, as `export` writes them: (session,
/// call id, tool, paired, flagged).
fn aider_calls(history: &str) -> Vec<(String, String, String, bool, bool)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".aider.chat.history.md"), history).unwrap();
    let out = run_in(dir.path(), &["export", ".aider.chat.history.md", "--no-index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut rows: Vec<(String, String, String, bool, bool)> = stdout(&out)
        .lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            (s("session"), s("call_id"), s("tool"), r["paired"].as_bool().unwrap(), r["flagged"].as_bool().unwrap())
        })
        .collect();
    rows.sort_by_key(|r| r.1[1..].split('+').next().unwrap().parse::<usize>().unwrap());
    rows
}

fn ids(rows: &[(String, String, String, bool, bool)]) -> Vec<(&str, &str, bool)> {
    rows.iter().map(|r| (r.1.as_str(), r.2.as_str(), r.4)).collect()
}

/// Aider gathers the shell blocks of a message's reply and of the retries
/// after it, and asks once about each command at the end (`run_one`,
/// `run_shell_commands` in `coders/base_coder.py`): a block repeated by the
/// retry is the first block's call, and the blocks of a message cut off by
/// `^C` are never asked. The prompt's subject is the block stripped, only
/// its first line quoted, a comment included. A ```` ```csharp ```` fence
/// opens a shell block too (aider tests the fence's start, and `csh`
/// starts it). Before, the prompt took the oldest block of the session with
/// the same first command, or none, and the next message's call was lost.
#[test]
fn aider_shell_prompts_pair_with_the_blocks_of_their_own_message() {
    let history = "# aider chat started at 2024-09-27 23:57:28

> Aider v0.57.1  
> Model: qwen with diff edit format  

#### add spacing  

client/src/App.css
```css
<<<<<<< SEARCH
.a {}
=======
.a { margin: 1px; }
>>>>>>> REPLACE
```

```bash
cd client
npm start
```

>  
> ^C again to exit  
> Tokens: 5.4k sent, 0 received.  

#### keep the aspect ratio  

client/src/App.css
```css
<<<<<<< SEARCH
.img {}
=======
.img { object-fit: contain; }
>>>>>>> REPLACE
```

```bash
cd client
npm start
```

> Tokens: 5.9k sent, 1.3k received.  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in client/src/App.css
<<<<<<< SEARCH
.img {}
=======
.img { object-fit: contain; }
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  

client/src/App.css
```css
<<<<<<< SEARCH
.img { }
=======
.img { object-fit: contain; }
>>>>>>> REPLACE
```

```bash
cd client
npm start
```

> Tokens: 5.6k sent, 486 received.  
> Applied edit to client/src/App.css  
> cd client
npm start  
> Run shell commands? (Y)es/(N)o [Yes]: n  

#### start both servers  

```bash
# the backend
cd server
npm start
```

```csharp
var port = 4000;
```

> Tokens: 5.0k sent, 574 received.  
> # the backend
cd server    
npm start  
> Run shell commands? (Y)es/(N)o/(S)kip all [Yes]: s  

> var port = 4000;  

#### Run shell command? (Y)es/(N)o/(S)kip all [Yes]: skip  
> Run shell command? (Y)es/(N)o/(S)kip all [Yes]: s  
";
    let rows = aider_calls(history);
    assert_eq!(
        ids(&rows),
        vec![
            ("L10", "edit", true),
            ("L30", "edit", true),
            ("L37", "shell", true),
            ("L58", "edit", false),
            ("L78", "shell", true),
            ("L84", "shell", true),
        ],
        "the block of the message cut off at its prompt; the failed block and its retry; one \
         prompt for the repeated block, naming the first; the next message's two blocks, the \
         second asked after aider's logged `skip`: {rows:?}"
    );
    assert!(rows.iter().all(|r| r.3), "every call has its result: {rows:?}");
}

/// More of aider's own sequences, each from its source:
/// - 0.57 asks again about a command after a retry that passed through
///   `run_shell_commands` (a file mention added to the chat): a call of its
///   own, named by its block and the prompt's line;
/// - from 0.64 a file mention added to the chat sends the request again
///   before the reply is parsed: that reply's blocks are never asked;
/// - `^C` after a retry's failure, then the retry written: it was cut off;
/// - `strip_filename` undoes Markdown's `\_`, so `Skipping edits to a_b.tsx`
///   names the block written under `a\_b.tsx`;
/// - `Main model: M with ask edit format, infinite output` (0.86): an ask
///   reply's blocks are not calls;
/// - a second aider process appending to the same file between a block and
///   its prompt: the call stays in the session that wrote the block.
#[test]
fn aider_retries_reasks_mentions_escapes_and_interleaved_runs() {
    let history = "# aider chat started at 2024-11-07 20:32:20

> Aider v0.57.1  
> Model: claude with diff edit format  

#### ignore the env file  

```bash
echo .env >> .gitignore
```

> Tokens: 6.5k sent, 203 received.  
> echo .env >> .gitignore  
> Run shell command? (Y)es/(N)o [Yes]: y  
> Running echo .env >> .gitignore  
> Add .gitignore to the chat? (Y)es/(N)o [Yes]: y  

It is already ignored.

> Tokens: 6.8k sent, 178 received.  
> echo .env >> .gitignore  
> Run shell command? (Y)es/(N)o [Yes]: n  

#### rename it  

app/routes/a\\_b.tsx
```tsx
<<<<<<< SEARCH
x
=======
y
>>>>>>> REPLACE
```

> Tokens: 1k sent, 10 received.  
> Allow edits to app/routes/a\\_b.tsx which was not previously added to chat? n  
> Skipping edits to app/routes/a_b.tsx  

#### fix the header  

src/h.js
```js
<<<<<<< SEARCH
a
=======
b
>>>>>>> REPLACE
```

> Tokens: 1k sent, 10 received.  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/h.js
<<<<<<< SEARCH
a
=======
b
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  
> Retrying in 0.2 seconds...  
>  
> ^C again to exit  

src/h.js
```js
<<<<<<< SEARCH
a 
=======
b

> Tokens: 2k sent, 20 received.  

# aider chat started at 2025-11-03 16:23:31

> Aider v0.86.1  
> Main model: claude-sonnet-4 with diff edit format, infinite output  

#### restore the packages  

appsettings.json
```json
<<<<<<< SEARCH
{}
=======
{\"a\": 1}
>>>>>>> REPLACE
```

```cmd
dotnet restore
```

> Tokens: 8.0k sent, 2.5k received.  
> appsettings.Development.json  
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  

appsettings.Development.json
```json
<<<<<<< SEARCH
{}
=======
{\"a\": 1}
>>>>>>> REPLACE
```

```cmd
dotnet restore
```

> Tokens: 11k sent, 177 received.  
> Applied edit to appsettings.Development.json  
> dotnet restore  
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n  

#### /ask is it right?  

#### is it right?  

Program.cs
```csharp
<<<<<<< SEARCH
a
=======
b
>>>>>>> REPLACE
```

> Tokens: 13k sent, 326 received.  

#### /chat-mode ask  
> Aider v0.86.1  
> Main model: claude-sonnet-4 with ask edit format, infinite output  

#### and this?  

Program.cs
```csharp
<<<<<<< SEARCH
c
=======
d
>>>>>>> REPLACE
```

> Tokens: 13k sent, 326 received.  

#### /code  
> Main model: claude-sonnet-4 with diff edit format, infinite output  

#### the script  

```bash
./check.sh
```

> Tokens: 7.9k sent, 3.3k received.  
> ./check.sh  

# aider chat started at 2025-11-03 18:00:00

> Aider v0.86.1  
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n  
";
    let rows = aider_calls(history);
    let first = "2024-11-07 20:32:20";
    let second = "2025-11-03 16:23:31";
    let got: Vec<(&str, &str, &str, bool, bool)> =
        rows.iter().map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str(), r.3, r.4)).collect();
    assert_eq!(
        got,
        vec![
            (first, "L8", "shell", true, false),
            (first, "L8+P22", "shell", true, true),
            (first, "L28", "edit", true, true),
            (first, "L43", "edit", true, true),
            (first, "L69", "edit", true, true),
            (second, "L85", "edit", false, false),
            (second, "L102", "edit", true, false),
            (second, "L109", "shell", true, true),
            (second, "L155", "shell", true, true),
        ],
        "ran, then asked again and declined; skipped under its escaped name; failed, then its retry \
         cut off; the reply sent again (unpaired) and its retry's blocks; the ask replies' blocks \
         are not calls; the prompt after another run's header stays in its session"
    );
}

/// Architect mode: the editor's reply applies its blocks when the editor
/// writes diffs (`Editor model: M with editor-diff edit format`). A reply
/// of the editor that aider discarded (a file mention answered `y`, the
/// request sent again) holds calls that got no result, as in diff mode;
/// with an editor that writes whole files, its blocks are not calls.
#[test]
fn aider_architect_editor_reply_discarded_by_a_file_mention() {
    let block = |path: &str| {
        format!("{path}\n```astro\n<<<<<<< SEARCH\n<section>\n=======\n<section id=\"d\">\n>>>>>>> REPLACE\n```\n")
    };
    let history = |editor: &str| {
        format!(
            "
# aider chat started at 2026-04-06 11:48:22

> Aider v0.86.2  
> Model: m with architect edit format  
> Editor model: m with {editor} edit format  

#### add the anchor  

Give the section of chartres.astro an id.

> Tokens: 1k sent, 10 received.  

#### Give the section of chartres.astro an id.  

{}
> Tokens: 2k sent, 20 received.  
> src\\pages\\chartres.astro  
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  

{}
> Tokens: 3k sent, 20 received.  
> Applied edit to src\\pages\\chartres.astro  
",
            block("src/pages/chartres.astro"),
            block("src\\pages\\chartres.astro")
        )
    };
    let diff = aider_calls(&history("editor-diff"));
    let got: Vec<(&str, bool)> = diff.iter().map(|r| (r.2.as_str(), r.3)).collect();
    assert_eq!(got, vec![("edit", false), ("edit", true)], "the discarded reply's block, then its resend's");
    let whole = aider_calls(&history("editor-whole"));
    let got: Vec<(&str, bool)> = whole.iter().map(|r| (r.2.as_str(), r.3)).collect();
    assert_eq!(got, vec![("edit", true)], "only the block aider applied");
}
