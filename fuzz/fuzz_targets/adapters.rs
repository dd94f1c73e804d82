//! The message parsers of the other SQLite formats: never a panic, whatever the text.
//! The body is `falseok_fuzz::adapters` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::adapters(data));
