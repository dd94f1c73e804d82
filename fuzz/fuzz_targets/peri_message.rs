//! A Peri `messages.content` value: parsing it, then judging and analysing
//! the session it forms, must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::analysis::{judge, sequence};
use tracelint::model::Session;
use tracelint::source::peri::parse_message;

fuzz_target!(|data: &[u8]| {
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
});
