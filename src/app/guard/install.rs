//! `falseok guard install` / `uninstall`: the guard's hook entries merged
//! into the agent's settings file, and taken out again.
//!
//! The file is read with its keys in their order and written back in it
//! (two-space indentation). Install is idempotent (entries already there
//! are left as they are) and keeps the file as it was in `FILE.falseok-backup`
//! (once, before the first change). Uninstall removes only the guard's
//! entries, those whose command runs `falseok guard --agent`; when what is
//! left is what the backup holds, the backup's bytes are put back, so
//! install then uninstall leaves the file byte for byte as it was. A file
//! install created is deleted again. Other hooks are never touched.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::cli::{GuardAgent, GuardInstallArgs, GuardMode};
use crate::error::{Error, Result};

/// A JSON value whose objects keep their keys' order.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    Leaf(Value),
}

impl Node {
    fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Object(o) => o.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self, key: &str) -> Option<&str> {
        match self {
            Node::Object(o) => o.iter().find(|(k, _)| k == key).and_then(|(_, v)| match v {
                Node::Leaf(Value::String(s)) => Some(s.as_str()),
                _ => None,
            }),
            _ => None,
        }
    }

    /// The object's `key`, made an empty object or array (`array`) when absent.
    fn entry(&mut self, key: &str, array: bool) -> Result<&mut Node> {
        let Node::Object(o) = self else { return Err(Error::Usage(format!("`{key}` is not in a JSON object"))) };
        let i = match o.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                o.push((key.to_string(), if array { Node::Array(Vec::new()) } else { Node::Object(Vec::new()) }));
                o.len() - 1
            }
        };
        Ok(&mut o[i].1)
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Node::Object(o) => {
                let mut m = s.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            Node::Array(a) => {
                let mut q = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    q.serialize_element(v)?;
                }
                q.end()
            }
            Node::Leaf(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Node, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Node, A::Error> {
                let mut o = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Node>()? {
                    // A repeated key: the last wins, as serde_json reads it.
                    o.retain(|(old, _): &(String, Node)| *old != k);
                    o.push((k, v));
                }
                Ok(Node::Object(o))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Node, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element::<Node>()? {
                    v.push(x);
                }
                Ok(Node::Array(v))
            }
            fn visit_bool<E>(self, b: bool) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::from(n)))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::String(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::String(s)))
            }
            fn visit_unit<E>(self) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::Null))
            }
            fn visit_none<E>(self) -> std::result::Result<Node, E> {
                Ok(Node::Leaf(Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where each agent reads hooks, and in which shape.
struct Layout {
    /// The settings file under the project, and under the home folder
    /// (`None`: the agent reads none there).
    project: &'static str,
    user: Option<&'static str>,
    /// The events the guard listens to.
    events: &'static [&'static str],
}

fn layout(agent: GuardAgent) -> Layout {
    match agent {
        GuardAgent::ClaudeCode => Layout {
            project: ".claude/settings.json",
            user: Some(".claude/settings.json"),
            events: &["PreToolUse", "PostToolUse", "PostToolUseFailure"],
        },
        GuardAgent::Codex => Layout {
            project: ".codex/hooks.json",
            user: Some(".codex/hooks.json"),
            events: &["PreToolUse", "PostToolUse"],
        },
        GuardAgent::Gemini => Layout {
            project: ".gemini/settings.json",
            user: Some(".gemini/settings.json"),
            events: &["BeforeTool", "AfterTool"],
        },
        GuardAgent::Copilot => Layout {
            project: ".github/hooks/falseok-guard.json",
            // User hooks since Copilot CLI 0.0.422.
            user: Some(".copilot/hooks/falseok-guard.json"),
            events: &["preToolUse", "postToolUse", "postToolUseFailure"],
        },
        GuardAgent::Qwen => Layout {
            project: ".qwen/settings.json",
            user: Some(".qwen/settings.json"),
            events: &["PreToolUse", "PostToolUse", "PostToolUseFailure"],
        },
    }
}

/// The command a hook runs.
fn command(agent: GuardAgent, mode: GuardMode) -> String {
    let mut c = format!("falseok guard --agent {}", super::payload::agent_name(agent));
    if mode != GuardMode::Advise {
        c.push_str(if mode == GuardMode::Enforce { " --mode enforce" } else { " --mode observe" });
    }
    c
}

/// One event's entry for `agent`: a matcher group (Copilot CLI: a hook),
/// its keys in the order the agents' documentation writes them.
fn entry(agent: GuardAgent, cmd: &str) -> Node {
    let cmd = Value::String(cmd.to_string());
    let text = match agent {
        GuardAgent::ClaudeCode => {
            format!(r#"{{"matcher":"*","hooks":[{{"type":"command","command":{cmd},"timeout":10}}]}}"#)
        }
        GuardAgent::Codex => format!(r#"{{"hooks":[{{"type":"command","command":{cmd},"timeout":10}}]}}"#),
        GuardAgent::Gemini => format!(
            r#"{{"matcher":".*","hooks":[{{"type":"command","command":{cmd},"name":"falseok-guard","timeout":10000}}]}}"#
        ),
        GuardAgent::Copilot => format!(r#"{{"type":"command","bash":{cmd},"timeoutSec":10}}"#),
        GuardAgent::Qwen => format!(r#"{{"matcher":".*","hooks":[{{"type":"command","command":{cmd}}}]}}"#),
    };
    serde_json::from_str(&text).unwrap_or(Node::Leaf(Value::Null))
}

/// A hook (one command) of the guard's: it runs `falseok guard --agent`.
fn is_ours(hook: &Node) -> bool {
    let cmd = hook.str("command").or_else(|| hook.str("bash")).unwrap_or("");
    cmd.contains("falseok") && cmd.contains("guard --agent")
}

/// The settings file `args` names.
fn settings_file(args: &GuardInstallArgs) -> Result<PathBuf> {
    if let Some(f) = &args.settings {
        return Ok(f.clone());
    }
    let l = layout(args.agent);
    if args.user {
        let Some(rel) = l.user else {
            return Err(Error::Usage(format!(
                "{} reads hooks only from the repository ({}): use --project",
                super::payload::agent_name(args.agent),
                l.project
            )));
        };
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        let home = home.ok_or_else(|| Error::Usage("HOME is not set: pass --settings FILE".into()))?;
        // Codex's home is $CODEX_HOME when set.
        if args.agent == GuardAgent::Codex
            && let Some(c) = std::env::var_os("CODEX_HOME").filter(|c| !c.is_empty())
        {
            return Ok(PathBuf::from(c).join("hooks.json"));
        }
        return Ok(PathBuf::from(home).join(rel));
    }
    Ok(PathBuf::from(l.project))
}

fn backup_of(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".falseok-backup");
    file.with_file_name(name)
}

fn read(file: &Path) -> Result<Option<(Vec<u8>, Node)>> {
    match std::fs::read(file) {
        Ok(bytes) => {
            let node = if bytes.iter().all(u8::is_ascii_whitespace) {
                Node::Object(Vec::new())
            } else {
                serde_json::from_slice::<Node>(&bytes).map_err(|e| {
                    Error::input(
                        file,
                        format!("not JSON the guard can merge into ({e}); add the hooks by hand (docs/guard.md)"),
                    )
                })?
            };
            if !matches!(node, Node::Object(_)) {
                return Err(Error::input(file, "not a JSON object; add the hooks by hand (docs/guard.md)"));
            }
            Ok(Some((bytes, node)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::input(file, format!("cannot read it: {e}"))),
    }
}

fn write(file: &Path, node: &Node) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(node).map_err(|e| Error::Internal(e.to_string()))?;
    text.push(b'\n');
    write_bytes(file, &text)
}

fn write_bytes(file: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::input(dir, format!("cannot make the folder: {e}")))?;
    }
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    let tmp = file.with_file_name(name);
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, file));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::input(file, format!("cannot write it: {e}"))
    })
}

/// `guard install`.
pub(super) fn install(args: &GuardInstallArgs, out: &mut dyn Write) -> Result<()> {
    let file = settings_file(args)?;
    let existing = read(&file)?;
    let mut root = existing.as_ref().map_or_else(|| Node::Object(Vec::new()), |(_, n)| n.clone());
    let cmd = command(args.agent, args.mode);
    let mut added = 0;
    // Copilot CLI's hook files say their version first.
    if let (GuardAgent::Copilot, Node::Object(o)) = (args.agent, &mut root)
        && !o.iter().any(|(k, _)| k == "version")
    {
        o.insert(0, ("version".to_string(), Node::Leaf(Value::from(1))));
    }
    let hooks = root.entry("hooks", false)?;
    for event in layout(args.agent).events {
        let list = hooks.entry(event, true)?;
        let Node::Array(items) = list else {
            return Err(Error::input(
                &file,
                format!("hooks.{event} is not a list; add the hooks by hand (docs/guard.md)"),
            ));
        };
        let present = items.iter().any(|g| match g {
            Node::Object(_) if is_ours(g) => true,
            Node::Object(o) => {
                o.iter().any(|(k, v)| k == "hooks" && matches!(v, Node::Array(h) if h.iter().any(is_ours)))
            }
            _ => false,
        });
        if !present {
            items.push(entry(args.agent, &cmd));
            added += 1;
        }
    }
    let name = super::payload::agent_name(args.agent);
    if added == 0 {
        writeln!(out, "The guard is already in {} for {name}: nothing changed.", file.display())?;
        return Ok(());
    }
    if let Some((bytes, _)) = &existing {
        let backup = backup_of(&file);
        if !backup.exists() {
            write_bytes(&backup, bytes)?;
        }
    }
    write(&file, &root)?;
    let kept = if existing.is_some() { format!(" (as it was: {})", backup_of(&file).display()) } else { String::new() };
    writeln!(out, "Added the guard to {} for {name}: {added} hook events, `{cmd}`{kept}.", file.display())?;
    if args.agent == GuardAgent::Codex {
        // codex-rs runs a hook only once its hash is trusted (0.129).
        writeln!(
            out,
            "Codex runs new hooks only once you approve them: review them in Codex's hook prompt at its next start."
        )?;
    }
    Ok(())
}

/// `guard uninstall`.
pub(super) fn uninstall(args: &GuardInstallArgs, out: &mut dyn Write) -> Result<()> {
    let file = settings_file(args)?;
    let Some((_, mut root)) = read(&file)? else {
        writeln!(out, "No {}: nothing to remove.", file.display())?;
        return Ok(());
    };
    let mut removed = 0;
    if let Some(Node::Object(events)) = root.get_mut("hooks") {
        for (_, list) in events.iter_mut() {
            let Node::Array(items) = list else { continue };
            let before = items.len();
            items.retain(|g| !is_ours(g));
            removed += before - items.len();
            for g in items.iter_mut() {
                if let Some(Node::Array(hooks)) = g.get_mut("hooks") {
                    let n = hooks.len();
                    hooks.retain(|h| !is_ours(h));
                    if hooks.len() < n {
                        removed += n - hooks.len();
                    }
                }
            }
            // A group left with no hook was the guard's.
            items.retain(|g| !matches!(g, Node::Object(o) if o.iter().any(|(k, v)| k == "hooks" && *v == Node::Array(Vec::new()))));
        }
        events.retain(|(_, list)| *list != Node::Array(Vec::new()));
    }
    if removed == 0 {
        writeln!(out, "The guard is not in {}: nothing changed.", file.display())?;
        return Ok(());
    }
    if let Node::Object(o) = &mut root {
        o.retain(|(k, v)| !(k == "hooks" && *v == Node::Object(Vec::new())));
    }
    let backup = backup_of(&file);
    let original = read(&backup).ok().flatten();
    let copilot_own = args.agent == GuardAgent::Copilot && root.get_mut("hooks").is_none();
    match original {
        Some((bytes, node)) if strip_version(&node, args.agent) == strip_version(&root, args.agent) => {
            write_bytes(&file, &bytes)?;
            let _ = std::fs::remove_file(&backup);
            writeln!(out, "Removed the guard from {}: the file is as it was before install.", file.display())?;
        }
        None if root == Node::Object(Vec::new()) || copilot_own => {
            std::fs::remove_file(&file).map_err(|e| Error::input(&file, format!("cannot remove it: {e}")))?;
            writeln!(out, "Removed {}, which install had made.", file.display())?;
        }
        _ => {
            write(&file, &root)?;
            writeln!(out, "Removed the guard's {removed} hooks from {}; the rest is as you left it.", file.display())?;
        }
    }
    Ok(())
}

/// Copilot CLI's `version` key is install's when the file was its own.
fn strip_version(n: &Node, agent: GuardAgent) -> Node {
    match (n, agent) {
        (Node::Object(o), GuardAgent::Copilot) => {
            Node::Object(o.iter().filter(|(k, _)| k != "version").cloned().collect())
        }
        _ => n.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_survives_a_round_trip() {
        let text = r#"{"z":1,"a":{"y":[1,2.5,"x",null,true],"b":{}}}"#;
        let n: Node = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&n).unwrap(), text);
    }

    #[test]
    fn every_agents_entry_is_well_formed() {
        for agent in
            [GuardAgent::ClaudeCode, GuardAgent::Codex, GuardAgent::Gemini, GuardAgent::Copilot, GuardAgent::Qwen]
        {
            let e = entry(agent, &command(agent, GuardMode::Enforce));
            let Node::Object(o) = &e else { panic!("{agent:?}: {e:?}") };
            let hook = if agent == GuardAgent::Copilot {
                &e
            } else {
                match &o.iter().find(|(k, _)| k == "hooks").unwrap().1 {
                    Node::Array(h) => &h[0],
                    other => panic!("{other:?}"),
                }
            };
            assert!(is_ours(hook), "{agent:?}");
        }
    }

    #[test]
    fn only_the_guards_commands_are_its_own() {
        let ours: Node =
            serde_json::from_str(r#"{"type": "command", "command": "falseok guard --agent codex"}"#).unwrap();
        let theirs: Node = serde_json::from_str(r#"{"type": "command", "command": "./guard.sh"}"#).unwrap();
        assert!(is_ours(&ours) && !is_ours(&theirs));
    }
}
