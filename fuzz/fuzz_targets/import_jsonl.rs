//! A JSONL transcript imported into a fresh database: errors are fine, panics are not.
//! The body is `falseok_fuzz::import_jsonl` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::import_jsonl(data));
