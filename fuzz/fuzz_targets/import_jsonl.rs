//! A JSONL transcript (Claude Code, Codex or Gemini shaped, or garbage)
//! imported into a fresh database: errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, data).expect("write");
    let _ = tracelint::import::import(&[file], &dir.path().join("out.db"));
});
