//! A large Claude Code transcript (JSONL) for the import benchmark: one
//! session file, or a project folder of several, with a given number of tool
//! calls in all, result sizes with a median near 1 KB and a tail of 100 KB+
//! outputs, some failures, and the repeated `toolUseResult` copy Claude Code
//! writes beside each result.

use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::json;

use crate::rng::Rng;

/// Write the transcript to `path`: one new file, or with `sessions` > 1 a
/// new folder of that many session files (`<session id>.jsonl`) sharing the
/// calls. Returns the bytes written.
pub fn generate_claude_large(path: &Path, calls: u64, seed: u64, sessions: u64) -> std::io::Result<u64> {
    let mut rng = Rng::new(seed ^ 0x636c_6175_6465);
    if sessions <= 1 {
        return write_session(path, 0..calls, "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", &mut rng);
    }
    std::fs::create_dir(path)?;
    let mut written = 0;
    for k in 0..sessions {
        let id = format!("7c1d2e3f-4a5b-4c6d-8e9f-{k:012x}");
        let range = calls * k / sessions..calls * (k + 1) / sessions;
        written += write_session(&path.join(format!("{id}.jsonl")), range, &id, &mut rng)?;
    }
    Ok(written)
}

/// The uuid of line `n` of the kind `scope` (an assistant, user or text
/// line, of one session in the real profile): lowercase 8-4-4-4-12 hex with
/// version 4 and variant bits, as Claude Code writes them, and distinct for
/// distinct (scope, n). The 64 bits of `n` and a 58-bit hash of `scope`.
fn line_uuid(scope: &str, n: u64) -> String {
    let h = scope.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let h = h >> 6;
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        n >> 32,
        (n >> 16) & 0xffff,
        n & 0xfff,
        0x8000 | ((n >> 12) & 0xf) << 10 | (h >> 48) & 0x3ff,
        h & 0xffff_ffff_ffff
    )
}

/// One session file with the calls numbered `calls`.
fn write_session(path: &Path, calls: std::ops::Range<u64>, session: &str, rng: &mut Rng) -> std::io::Result<u64> {
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let line = "    let value = compute(&input, config.threshold)?; // \"quoted\" and a tab\there\n";
    let pool = line.repeat(420_000 / line.len() + 1);
    let mut written = 0u64;
    let mut parent = String::from("null");
    for n in calls {
        let r = rng.next_u64();
        let size = if r.is_multiple_of(200) {
            100_000 + rng.modulo(300_000) as usize
        } else {
            // Roughly log-normal around 1 KB from the sum of three uniforms.
            let u = (rng.modulo(1000) + rng.modulo(1000) + rng.modulo(1000)) as f64 / 3000.0;
            (1000.0 * (3.0 * (u - 0.5)).exp()) as usize
        };
        let start = (rng.modulo(400) as usize) * line.len() % (pool.len() - size);
        let failed = r % 33 == 1;
        let text = if failed {
            "<tool_use_error>String to replace not found in file.\nString: compute(&input)</tool_use_error>".to_string()
        } else {
            pool[start..start + size].to_string()
        };
        let (tool, input) = match r % 5 {
            0 => ("Read", json!({"file_path": format!("/home/u/proj/src/m{}.rs", r % 97)})),
            1 => ("Bash", json!({"command": "cargo test", "description": "run the tests"})),
            2 => (
                "Edit",
                json!({"file_path": "/home/u/proj/src/lib.rs", "old_string": "compute(&input)", "new_string": "compute(&input, cfg)"}),
            ),
            3 => ("Grep", json!({"pattern": "compute\\(", "path": "src"})),
            _ => ("Glob", json!({"pattern": "**/*.rs"})),
        };
        let call_id = format!("toolu_{:020x}", rng.next_u64());
        let (a, u) = (line_uuid("a", n), line_uuid("u", n));
        let ts = format!("2026-04-02T09:{:02}:{:02}.000Z", (n / 60) % 60, n % 60);
        let assistant = json!({
            "parentUuid": if parent == "null" { serde_json::Value::Null } else { parent.clone().into() },
            "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": session,
            "version": "2.1.30", "gitBranch": "main", "uuid": a, "timestamp": ts, "type": "assistant",
            "message": {"model": "claude-sonnet-4-5", "id": format!("msg_{n:08}"), "type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": input}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}},
            "requestId": format!("req_{n:08}"),
        });
        let mut block = json!({"tool_use_id": call_id, "type": "tool_result", "content": text});
        if failed {
            block["is_error"] = true.into();
        }
        let user = json!({
            "parentUuid": a, "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": session,
            "version": "2.1.30", "gitBranch": "main", "uuid": u, "timestamp": ts, "type": "user",
            "message": {"role": "user", "content": [block]},
            "toolUseResult": {"stdout": text, "stderr": "", "interrupted": false, "isImage": false},
        });
        for v in [assistant, user] {
            let s = serde_json::to_string(&v).map_err(std::io::Error::other)?;
            out.write_all(s.as_bytes())?;
            out.write_all(b"\n")?;
            written += s.len() as u64 + 1;
        }
        parent = u;
    }
    out.flush()?;
    Ok(written)
}

/// A Claude Code project folder shaped like real ones (`--profile real`):
/// many short calls (a median result near 200 bytes, a 2% tail of 20–120 KB
/// outputs), text-only assistant lines and prompts between them, the
/// `toolUseResult` copy as an object beside each result, and one session
/// in eight with a sub-agent in `<session>/subagents/agent-<id>.jsonl`
/// (`isSidechain`, `agentId`). About 225 calls per MB.
pub fn generate_claude_real(path: &Path, calls: u64, seed: u64, sessions: u64) -> std::io::Result<u64> {
    let mut rng = Rng::new(seed ^ 0x7265_616c);
    std::fs::create_dir(path)?;
    let sessions = sessions.max(1);
    let mut written = 0;
    for k in 0..sessions {
        let id = format!("5e6f7a8b-9c0d-4e1f-8a2b-{k:012x}");
        let range = calls * k / sessions..calls * (k + 1) / sessions;
        let n = range.end - range.start;
        // One session in eight gives a fifth of its calls to a sub-agent.
        let (own, sub) = if k % 8 == 3 { (n - n / 5, n / 5) } else { (n, 0) };
        let file = path.join(format!("{id}.jsonl"));
        written += write_real(&file, own, &id, None, &mut rng)?;
        if sub > 0 {
            let agent = format!("a{k:07x}");
            let dir = path.join(&id).join("subagents");
            std::fs::create_dir_all(&dir)?;
            written += write_real(&dir.join(format!("agent-{agent}.jsonl")), sub, &id, Some(&agent), &mut rng)?;
        }
    }
    Ok(written)
}

/// One real-shaped transcript of `calls` calls in session `session`, as
/// the sub-agent `agent` when given.
fn write_real(path: &Path, calls: u64, session: &str, agent: Option<&str>, rng: &mut Rng) -> std::io::Result<u64> {
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let line = "src/lib.rs:42:    let value = compute(&input, config.threshold)?; // \"quoted\"\n";
    let pool = line.repeat(130_000 / line.len() + 1);
    let mut written = 0u64;
    let mut parent = serde_json::Value::Null;
    let tag = format!("{}-{}", &session[24..], agent.unwrap_or("main"));
    let base = json!({
        "isSidechain": agent.is_some(), "userType": "external", "cwd": "/home/u/proj", "sessionId": session,
        "version": "2.1.30", "gitBranch": "main",
    });
    let emit = |v: serde_json::Value, out: &mut BufWriter<std::fs::File>| -> std::io::Result<u64> {
        let mut v = v;
        if let (Some(o), Some(b)) = (v.as_object_mut(), base.as_object()) {
            for (k, x) in b {
                o.insert(k.clone(), x.clone());
            }
            if let Some(a) = agent {
                o.insert("agentId".into(), a.into());
            }
        }
        let s = serde_json::to_string(&v).map_err(std::io::Error::other)?;
        out.write_all(s.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(s.len() as u64 + 1)
    };
    for n in 0..calls {
        let r = rng.next_u64();
        let ts = format!("2026-05-0{}T{:02}:{:02}:{:02}.000Z", 1 + n % 9, (n / 3600) % 24, (n / 60) % 60, n % 60);
        // A prompt or a text-only answer now and then.
        if r.is_multiple_of(7) {
            let u = line_uuid(&format!("t-{tag}"), n);
            let text = "Now run the tests again and fix what fails; keep the public API as it is.";
            written += emit(
                json!({"parentUuid": parent, "uuid": u, "timestamp": ts, "type": "user",
                       "message": {"role": "user", "content": text}}),
                &mut out,
            )?;
            parent = u.into();
        }
        let size = if r % 50 == 7 {
            20_000 + rng.modulo(100_000) as usize
        } else {
            let u = (rng.modulo(1000) + rng.modulo(1000) + rng.modulo(1000)) as f64 / 3000.0;
            (200.0 * (4.0 * (u - 0.5)).exp()) as usize
        };
        let start = (rng.modulo(300) as usize) * line.len() % (pool.len() - size);
        let failed = r % 29 == 3;
        let text = if failed {
            "Exit code 1\nerror[E0425]: cannot find value `cfg` in this scope".to_string()
        } else {
            pool[start..start + size].to_string()
        };
        let (tool, input) = match r % 6 {
            0 => ("Read", json!({"file_path": format!("/home/u/proj/src/m{}.rs", r % 97)})),
            1 | 2 => ("Bash", json!({"command": "cargo test -q", "description": "run the tests"})),
            3 => (
                "Edit",
                json!({"file_path": "/home/u/proj/src/lib.rs", "old_string": "compute(&input)", "new_string": "compute(&input, cfg)"}),
            ),
            4 => ("Grep", json!({"pattern": "compute\\(", "path": "src", "output_mode": "content"})),
            _ => ("TodoWrite", json!({"todos": [{"content": "fix the tests", "status": "in_progress"}]})),
        };
        let call_id = format!("toolu_{:020x}", rng.next_u64());
        let (a, u) = (line_uuid(&format!("a-{tag}"), n), line_uuid(&format!("u-{tag}"), n));
        let mut content = vec![json!({"type": "tool_use", "id": call_id, "name": tool, "input": input})];
        if r.is_multiple_of(3) {
            content.insert(0, json!({"type": "text", "text": "Let me look at that."}));
        }
        written += emit(
            json!({"parentUuid": parent, "uuid": a, "timestamp": ts, "type": "assistant", "requestId": format!("req_{tag}_{n:08}"),
                   "message": {"model": "claude-sonnet-4-5", "id": format!("msg_{tag}_{n:08}"), "type": "message", "role": "assistant",
                               "content": content, "stop_reason": "tool_use",
                               "usage": {"input_tokens": 12, "cache_read_input_tokens": 48_000, "output_tokens": 90}}}),
            &mut out,
        )?;
        let mut block = json!({"tool_use_id": call_id, "type": "tool_result", "content": text});
        if failed {
            block["is_error"] = true.into();
        }
        written += emit(
            json!({"parentUuid": a, "uuid": u, "timestamp": ts, "type": "user",
                   "message": {"role": "user", "content": [block]},
                   "toolUseResult": {"stdout": text, "stderr": "", "interrupted": false, "isImage": false}}),
            &mut out,
        )?;
        parent = u.into();
    }
    out.flush()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::line_uuid;

    #[test]
    fn line_uuids_are_canonical_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for scope in ["a", "u", "t-000000000001-main", "a-000000000001-main", "a-000000000001-agent7"] {
            for n in [0, 1, 0xfff, 0x1000, 0xffff, 0x1_0000, u64::from(u32::MAX) + 1, u64::MAX] {
                let id = line_uuid(scope, n);
                let b = id.as_bytes();
                assert_eq!(b.len(), 36, "{id}");
                for (i, c) in b.iter().enumerate() {
                    match i {
                        8 | 13 | 18 | 23 => assert_eq!(*c, b'-', "{id}"),
                        _ => assert!(c.is_ascii_digit() || (b'a'..=b'f').contains(c), "{id}"),
                    }
                }
                assert_eq!(b[14], b'4', "{id}: version 4");
                assert!(matches!(b[19], b'8' | b'9' | b'a' | b'b'), "{id}: variant");
                assert!(seen.insert(id.clone()), "{id} twice");
            }
        }
    }
}
