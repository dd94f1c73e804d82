//! Any text through rules, templates, the sanitizer, redaction and the escapers.
//! The body is `tracelint_fuzz::rules_text` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracelint_fuzz::rules_text(data));
