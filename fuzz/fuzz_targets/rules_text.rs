//! Any text through rules, templates, the sanitizer, redaction and the escapers.
//! The body is `falseok_fuzz::rules_text` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::rules_text(data));
