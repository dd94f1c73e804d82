//! The bodies of the fuzz targets, one function each, so that the same code
//! runs under libFuzzer (`fuzz_targets/`, `cargo fuzz run`) and, on stable
//! Rust, over every seed in `seeds/<target>/` (`tests/seeds.rs`, which
//! `.ci/run` runs). Each must never panic, whatever the bytes.

use std::collections::HashSet;

use falseok::fuzzing::peri::parse_message;
use falseok::fuzzing::{crush, goose, llm, opencode, redact, sanitize};
use falseok::judge::{judge, sequence};
use falseok::model::Session;
use falseok::render::{csv, github, junit, markdown};
use falseok::rules;

/// A target's body: it takes any bytes and must not panic.
pub type Body = fn(&[u8]);

/// Every target, by the name of its `fuzz_targets/` file and seed folder.
pub const TARGETS: &[(&str, Body)] = &[
    ("adapters", adapters),
    ("baseline", baseline),
    ("import_jsonl", import_jsonl),
    ("peri_db", peri_db),
    ("peri_message", peri_message),
    ("rules_text", rules_text),
];

/// The message parsers of the other SQLite formats (Crush parts, opencode
/// parts, Goose content, llm payloads).
pub fn adapters(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    let _ = crush::parse_parts(&text, None, 1, &mut out);
    let _ = opencode::parse_part(&text, None, 2, &mut out);
    let _ = goose::parse_content(&text, None, 3, &mut HashSet::new(), &mut out);
    for kind in ["tool_call", "tool_result", "text"] {
        let _ = llm::parse_payload(kind, Some("t".into()), &text, 4);
    }
}

/// A baseline file: malformed ones are errors.
pub fn baseline(data: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("baseline.json");
    std::fs::write(&path, data).expect("write");
    if let Ok(b) = falseok::gate::read_baseline(&path) {
        let _ = falseok::gate::baseline_diff(&b, &b);
    }
}

/// A JSONL transcript (Claude Code, Codex or Gemini shaped, or garbage)
/// imported into a fresh database.
pub fn import_jsonl(data: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, data).expect("write");
    let db = dir.path().join("out.db");
    let _ = falseok::fuzzing::import_into(&file, &db);
}

/// Arbitrary bytes as a trace database file: inputs that start with the
/// SQLite header get past the header check and exercise SQLite and the
/// adapters.
pub fn peri_db(data: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fuzz.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend_from_slice(data);
    std::fs::write(&path, &bytes).expect("write");
    let _ = falseok::scan(&[path], &falseok::ScanOptions::default(), &mut Vec::new());
}

/// A Peri `messages.content` value: parsed, then the session it forms
/// judged and analysed.
pub fn peri_message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // Several rows of one session, split at form feeds.
    let mut events = Vec::new();
    for (row, part) in text.split('\u{c}').enumerate() {
        for role in ["assistant", "tool", "user"] {
            let _ = parse_message(part, role, row as i64, &mut events);
        }
    }
    let judged = judge(Session { id: "fuzz".into(), events, ..Session::default() });
    let _ = sequence::analyze(&judged);
}

/// Any result text through every text function: rules, classification,
/// templates, sanitizing, redaction and the renderers' escapers, with
/// assertions on what they promise.
pub fn rules_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for tool in ["Edit", "Agent", "folder_operations", "Bash"] {
        let _ = rules::detect(tool, &text);
        let _ = rules::classify(tool, &text);
    }
    let t = falseok::judge::normalize::template(&text);
    assert!(!t.contains('\n'));
    let clean = sanitize::one_line(&text);
    assert!(!clean.chars().any(|c| c.is_control()), "one_line leaves no control characters");
    let _ = sanitize::block(&text, "  ", 5, 300);
    let _ = sanitize::truncate(&text, 17);
    let _ = redact::redact(&text);
    let annotation = github::data(&text);
    assert!(!annotation.contains('\n') && !annotation.contains('\r'));
    let x = junit::xml(&text);
    let bare = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().fold(x.clone(), |acc, e| acc.replace(e, ""));
    assert!(!bare.contains(['&', '<', '>', '"', '\'']), "XML text has a raw special: {x:?}");
    let _ = markdown::code(&text);
    let _ = markdown::text(&text);
    let _ = csv::cell(&text);
}
