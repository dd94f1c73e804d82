//! `falseok guard install` and `uninstall`: each agent's settings file
//! written and restored byte for byte.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::*;

/// Each agent's settings file, and one that already has a hook of the
/// user's, written with another indentation and key order than falseok's.
fn settings_of(agent: &str) -> (&'static str, String) {
    let theirs = |event: &str| {
        format!(
            "{{\n    \"theme\": \"dark\",\n    \"hooks\": {{\n        \"{event}\": [ {{ \"matcher\": \"Edit\", \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./fmt.sh\" }} ] }} ]\n    }},\n    \"zz\": {{ \"b\": 1, \"a\": 2 }}\n}}\n"
        )
    };
    match agent {
        "claude-code" => (".claude/settings.json", theirs("PostToolUse")),
        "codex" => (".codex/hooks.json", theirs("PostToolUse")),
        "gemini" => (".gemini/settings.json", theirs("AfterTool")),
        "qwen" => (".qwen/settings.json", theirs("PostToolUse")),
        _ => (
            ".github/hooks/falseok-guard.json",
            "{\"version\": 1, \"hooks\": {\"postToolUse\": [{\"type\": \"command\", \"bash\": \"./log.sh\"}]}}\n"
                .into(),
        ),
    }
}

/// The guard's commands in a settings file, per event.
fn installed(file: &Path) -> Vec<(String, String)> {
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let mut out = Vec::new();
    for (event, list) in v["hooks"].as_object().unwrap() {
        for g in list.as_array().unwrap() {
            let hooks = g["hooks"].as_array().cloned().unwrap_or_else(|| vec![g.clone()]);
            for h in hooks {
                let cmd = h["command"].as_str().or(h["bash"].as_str()).unwrap().to_string();
                out.push((event.clone(), cmd));
            }
        }
    }
    out
}

/// Issue 48: install is idempotent, keeps the user's hooks and a backup;
/// uninstall leaves the file byte for byte as it was, with other hooks or
/// none (a file install made is deleted again).
#[test]
fn install_then_uninstall_leaves_each_settings_file_as_it_was() {
    for agent in ["claude-code", "codex", "gemini", "copilot", "qwen"] {
        let (rel, original) = settings_of(agent);
        for with_others in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let file = d.join(rel);
            if with_others {
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, &original).unwrap();
            }
            let out = settings_cmd(d, &["install", "--agent", agent]);
            assert!(out.status.success(), "{agent}: {}", stderr(&out));
            let after = std::fs::read(&file).unwrap();
            let commands = installed(&file);
            let ours: Vec<&(String, String)> =
                commands.iter().filter(|(_, c)| c.starts_with("falseok guard")).collect();
            let events = if matches!(agent, "codex" | "gemini") { 2 } else { 3 };
            assert_eq!(ours.len(), events, "{agent}: {commands:?}");
            assert!(ours.iter().all(|(_, c)| *c == format!("falseok guard --agent {agent}")), "{agent}: {ours:?}");
            assert_eq!(commands.len() - ours.len(), usize::from(with_others), "{agent}: the user's hook stays");
            let backup = d.join(format!("{rel}.falseok-backup"));
            assert_eq!(backup.exists(), with_others, "{agent}");
            if with_others {
                assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
                let text = String::from_utf8(after.clone()).unwrap();
                // Sorted, "a" would come before "b", and "hooks" before "version".
                let kept = if agent == "copilot" {
                    text.find("version") < text.find("hooks")
                } else {
                    text.find("theme") < text.find("zz") && text.find("\"b\"") < text.find("\"a\"")
                };
                assert!(kept, "{agent}: key order kept:\n{text}");
            }
            let again = settings_cmd(d, &["install", "--agent", agent]);
            assert!(stdout(&again).contains("nothing changed"), "{agent}: {}", stdout(&again));
            assert_eq!(std::fs::read(&file).unwrap(), after, "{agent}: install twice is install once");
            let out = settings_cmd(d, &["uninstall", "--agent", agent]);
            assert!(out.status.success(), "{agent}: {}", stderr(&out));
            if with_others {
                assert_eq!(std::fs::read_to_string(&file).unwrap(), original, "{agent}: byte for byte");
                assert!(!backup.exists(), "{agent}");
            } else {
                assert!(!file.exists(), "{agent}: the file install made is gone");
            }
            let none = settings_cmd(d, &["uninstall", "--agent", agent]);
            assert!(none.status.success() && stdout(&none).contains("nothing"), "{agent}: {}", stdout(&none));
        }
    }
}

/// --user writes under HOME, --settings anywhere; a hook the user edited
/// since install stays edited; a file that is not JSON is refused in one
/// line and left alone; the installed command runs the guard.
#[test]
fn install_targets_and_edits_since() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = settings_cmd(d, &["install", "--agent", "qwen", "--user", "--mode", "enforce"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let user = d.join("home/.qwen/settings.json");
    assert!(installed(&user).iter().all(|(_, c)| c == "falseok guard --agent qwen --mode enforce"));
    // Copilot CLI's user hooks (0.0.422): ~/.copilot/hooks.
    let user_copilot = settings_cmd(d, &["install", "--agent", "copilot", "--user"]);
    assert!(user_copilot.status.success(), "{}", stderr(&user_copilot));
    assert!(!installed(&d.join("home/.copilot/hooks/falseok-guard.json")).is_empty());
    let codex = settings_cmd(d, &["install", "--agent", "codex", "--user"]);
    assert!(stdout(&codex).contains("only once you approve them"), "{}", stdout(&codex));

    let file = d.join("mine.json");
    std::fs::write(&file, "{\"hooks\": {}}").unwrap();
    assert!(settings_cmd(d, &["install", "--agent", "claude-code", "--settings", "mine.json"]).status.success());
    // The user adds a setting after install: uninstall keeps it.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    v["model"] = json!("opus");
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    assert!(settings_cmd(d, &["uninstall", "--agent", "claude-code", "--settings", "mine.json"]).status.success());
    let left: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(left, json!({"model": "opus"}));

    std::fs::write(&file, "{ not json").unwrap();
    let bad = settings_cmd(d, &["install", "--agent", "gemini", "--settings", "mine.json"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).starts_with("falseok: error: mine.json: not JSON") && stderr(&bad).lines().count() == 1,
        "{}",
        stderr(&bad)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ not json");

    // What install wrote runs the guard, falseok found on PATH.
    let project = settings_cmd(d, &["install", "--agent", "claude-code"]);
    assert!(project.status.success());
    let (_, cmd) = installed(&d.join(".claude/settings.json")).into_iter().find(|(e, _)| e == "PostToolUse").unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .current_dir(d)
        .env("PATH", path)
        .env("XDG_CACHE_HOME", d.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(claude().hidden.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(answer(&stdout(&out)), claude().hidden_answer.unwrap());
    assert!(d.join("cache/falseok/guard/guard-v1").is_dir(), "the state is in the index folder");
}

/// --stop-at: a run that long also ends the turn (`continue: false`) on
/// top of the denial; Copilot CLI's pre-call hook cannot, and Codex refuses
/// such an answer as invalid and runs the call: both only deny.
#[test]
fn a_longer_run_ends_the_turn() {
    for a in [claude(), copilot(), codex()] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let args = ["--mode", "enforce", "--stop-at", "6"];
        for _ in 0..5 {
            guard(d, &args, &a.flagged.to_string());
        }
        assert_eq!(answer(&guard(d, &args, &a.again.to_string()).1), a.denial, "{}: five deny", a.name);
        guard(d, &args, &a.flagged.to_string());
        let (code, out, _) = guard(d, &args, &a.again.to_string());
        assert_eq!(code, 0);
        let said = answer(&out);
        if a.name != "claude-code" {
            let sixth: Value = serde_json::from_str(&a.denial.to_string().replace("5 times", "6 times")).unwrap();
            assert_eq!(said, sixth, "{}: the denial alone", a.name);
            assert!(said.get("continue").is_none(), "{said}");
            continue;
        }
        let mut expected = a.denial.clone();
        let reason =
            expected["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().replace("5 times", "6 times");
        expected["hookSpecificOutput"]["permissionDecisionReason"] = json!(reason);
        expected["continue"] = json!(false);
        let first = reason.split(" Refused:").next().unwrap();
        expected["stopReason"] = json!(format!("{first} The turn was ended."));
        assert_eq!(said, expected);
        let actions: Vec<Value> = log(d, "cc-1").iter().map(|v| v["action"].clone()).collect();
        assert_eq!(actions.last(), Some(&json!("stop")));
    }
}

/// The Claude Code plugin (`plugin/claude-code`, listed in the repository's
/// marketplace) installs the same hooks as `guard install`.
#[test]
fn the_claude_code_plugin_has_the_hooks_install_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(settings_cmd(d, &["install", "--agent", "claude-code"]).status.success());
    let installed: Value = serde_json::from_slice(&std::fs::read(d.join(".claude/settings.json")).unwrap()).unwrap();
    let plugin: Value =
        serde_json::from_slice(&std::fs::read(root().join("plugin/claude-code/hooks/hooks.json")).unwrap()).unwrap();
    assert_eq!(plugin["hooks"], installed["hooks"]);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root().join("plugin/claude-code/.claude-plugin/plugin.json")).unwrap())
            .unwrap();
    let market: Value =
        serde_json::from_slice(&std::fs::read(root().join(".claude-plugin/marketplace.json")).unwrap()).unwrap();
    assert_eq!(market["plugins"][0]["name"], manifest["name"]);
    assert_eq!(market["plugins"][0]["source"], "./plugin/claude-code");
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains(&format!("version = {}", manifest["version"])), "the plugin's version is the crate's");
}

/// `falseok metrics` adds the guard's counts from the index folder (the
/// default state, no --state-dir), which promtool accepts; without any,
/// nothing is added.
#[test]
fn metrics_count_the_guards_verdicts_and_interventions() {
    let a = claude();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    let metrics = || {
        let out = Command::new(BIN)
            .args(["metrics", root().join("sample-traces/crush.db").to_str().unwrap(), "--no-index"])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    assert!(!metrics().contains("falseok_guard_verdicts_total"), "no guard state: no series");
    let send = |payload: &Value| {
        let mut child = Command::new(BIN)
            .args(["guard", "--mode", "enforce"])
            .env("XDG_CACHE_HOME", &cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    };
    send(&a.success);
    send(&a.hidden);
    for _ in 0..5 {
        send(&a.flagged);
    }
    send(&a.again);
    let text = metrics();
    let guard_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("falseok_guard_verdicts_total") || l.starts_with("falseok_guard_interventions_total"))
        .collect();
    assert_eq!(
        guard_lines,
        vec![
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"flagged\"} 5",
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"hidden\"} 1",
            "falseok_guard_verdicts_total{agent=\"claude-code\",verdict=\"success\"} 1",
            "falseok_guard_interventions_total{action=\"context\",agent=\"claude-code\"} 2",
            "falseok_guard_interventions_total{action=\"deny\",agent=\"claude-code\"} 1",
        ]
    );
    // A missing promtool fails, as in the metrics tests (unless told to skip).
    if let Some(promtool) = crate::metrics::promtool() {
        let (ok, said) = crate::metrics::check_metrics(&promtool, &text);
        assert!(ok && said.trim().is_empty(), "promtool: {said}");
    }
}

/// `--state-dir` names a folder the user owns, maybe a shared one: the
/// guard makes its own folder inside it private and leaves it as it was
/// (`--state-dir /tmp` must never close `/tmp`).
#[test]
fn a_shared_state_dir_is_left_as_it_was() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let shared = d.path().join("state");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let payload = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a", "stderr": "", "interrupted": false}});
    let (code, _, err) = guard(d.path(), &["--agent", "claude-code"], &payload.to_string());
    assert_eq!(code, 0, "{err}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&shared), 0o1777, "the user's folder is not changed");
    let own: Vec<_> = std::fs::read_dir(&shared).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!own.is_empty() && own.iter().all(|p| mode(p) == 0o700), "{own:?}");
}

/// Issue 55, D13: a session id, tool name and call id holding secrets
/// (and a result quoting one) are kept in the guard's log redacted, as
/// reports show them; `guard log --session` finds the session by its id
/// as written or as shown.
#[test]
fn the_log_keeps_no_secret_of_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cores = ["Rel5GuardSess01", "Rel5GuardTool02", "Rel5GuardCall03", "Rel5GuardMsg04"];
    let session = "cc-PGPASSWORD=Rel5GuardSess01";
    let payload = json!({"session_id": session, "transcript_path": "/home/u/.claude/projects/p/x.jsonl",
        "cwd": "/home/u/p", "hook_event_name": "PostToolUse", "tool_name": "mcp__db.clientSecret=Rel5GuardTool02",
        "tool_input": {"sql": "select 1"}, "tool_use_id": "toolu_Authorization: Token Rel5GuardCall03",
        "tool_response": [{"type": "text", "text": "{\"status\":\"error\",\"message\":\"login refused for sessionToken=Rel5GuardMsg04\"}"}]});
    for _ in 0..2 {
        let (code, _, err) = guard(d, &["--mode", "advise"], &payload.to_string());
        assert_eq!(code, 0, "{err}");
    }
    let state = d.join("state");
    let state = state.to_str().unwrap();
    let text = stdout(&run_in(d, &["guard", "log", "--state-dir", state]));
    let lines = stdout(&run_in(d, &["guard", "log", "--json", "--state-dir", state]));
    for out in [&text, &lines] {
        for core in cores {
            assert!(!out.contains(core), "the log shows {core}:\n{out}");
        }
    }
    let kept: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(kept.len(), 2, "{lines}");
    assert_eq!(kept[0]["verdict"], "hidden", "{lines}");
    assert_eq!(kept[0]["session"], "cc-PGPASSWORD=[REDACTED]");
    assert_eq!(kept[0]["tool"], "mcp__db.clientSecret=[REDACTED]");
    assert_eq!(kept[0]["call_id"], "toolu_Authorization: Token [REDACTED]");
    assert!(text.contains("mcp__db.clientSecret=[REDACTED]"), "{text}");
    for wanted in [session, "cc-PGPASSWORD=[REDACTED]", "cc-PG"] {
        assert_eq!(log(d, wanted).len(), 2, "--session {wanted}");
    }
}
