//! A folder of Qwen Code chats whose call ids start again in every
//! session (`call_1`, `call_2`, …), as a model behind an OpenAI-compatible
//! server numbers them, for the benchmark's repeated-ids case: an import
//! that looked up an id's sessions in a list grew with the square of the
//! sessions sharing it.

use std::io::Write;
use std::path::Path;

use serde_json::json;

/// Write `sessions` chats of `calls` calls each (a `run_shell_command` and
/// its result, every fifth an `Error:` output stored as a success) under
/// `root/projects/-home-dev-app/chats/`: the bytes written.
pub fn generate_repeated_ids(root: &Path, sessions: u64, calls: u64) -> std::io::Result<u64> {
    let chats = root.join("projects").join("-home-dev-app").join("chats");
    std::fs::create_dir_all(&chats)?;
    let mut bytes = 0;
    for s in 0..sessions {
        let session = format!("00000000-0000-4000-8000-{:012x}", s + 1);
        let mut out = std::io::BufWriter::new(std::fs::File::create(chats.join(format!("{session}.jsonl")))?);
        let mut parent: Option<String> = None;
        let mut n = 0u64;
        let mut record = |kind: &str, message: serde_json::Value, extra: Option<serde_json::Value>| {
            n += 1;
            let uuid = format!("{:08x}-0000-4000-8000-{:012x}", s + 1, n);
            let mut r = json!({
                "uuid": uuid, "parentUuid": parent, "sessionId": session,
                "timestamp": format!("2026-05-10T09:{:02}:{:02}.000Z", (n / 60) % 60, n % 60),
                "type": kind, "cwd": "/home/dev/app", "version": "0.19.0", "message": message
            });
            if let (Some(extra), Some(r)) = (extra, r.as_object_mut()) {
                r.insert("toolCallResult".into(), extra);
            }
            parent = Some(uuid);
            r.to_string()
        };
        let mut lines = vec![record("user", json!({"role": "user", "parts": [{"text": "Run the tests."}]}), None)];
        for c in 1..=calls {
            let id = format!("call_{c}");
            let call = json!({"functionCall": {"id": id, "name": "run_shell_command", "args": {"command": format!("npm test -- {c}")}}});
            lines.push(record("assistant", json!({"role": "model", "parts": [call]}), None));
            let output = if c % 5 == 0 { format!("Error: test {c} failed") } else { format!("ok {c}") };
            let response =
                json!({"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": output}}});
            let result = json!({"callId": id, "status": "success"});
            lines.push(record("tool_result", json!({"role": "user", "parts": [response]}), Some(result)));
        }
        for line in lines {
            bytes += line.len() as u64 + 1;
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_session_numbers_its_calls_from_one() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = generate_repeated_ids(dir.path(), 3, 4).unwrap();
        let chats = dir.path().join("projects/-home-dev-app/chats");
        let files: Vec<_> = std::fs::read_dir(&chats).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 3);
        let mut total = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            total += text.len() as u64;
            let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            assert_eq!(lines.len(), 1 + 2 * 4);
            let ids: Vec<&str> =
                lines.iter().filter_map(|l| l.pointer("/message/parts/0/functionCall/id")?.as_str()).collect();
            assert_eq!(ids, ["call_1", "call_2", "call_3", "call_4"]);
        }
        assert_eq!(total, bytes);
    }
}
