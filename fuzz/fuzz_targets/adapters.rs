//! The message parsers of the other SQLite formats (Crush parts, opencode
//! parts, Goose content, llm payloads): never a panic, whatever the text.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use tracelint::source::{crush, goose, llm, opencode};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    let _ = crush::parse_parts(&text, None, 1, &mut out);
    let _ = opencode::parse_part(&text, None, 2, &mut out);
    let _ = goose::parse_content(&text, None, 3, &mut HashSet::new(), &mut out);
    for kind in ["tool_call", "tool_result", "text"] {
        let _ = llm::parse_payload(kind, Some("t".into()), &text, 4);
    }
});
