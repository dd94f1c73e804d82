//! A baseline file: malformed ones are errors, never panics.
//! The body is `falseok_fuzz::baseline` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::baseline(data));
