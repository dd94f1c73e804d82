//! A baseline file: malformed ones are errors, never panics.
//! The body is `tracelint_fuzz::baseline` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracelint_fuzz::baseline(data));
