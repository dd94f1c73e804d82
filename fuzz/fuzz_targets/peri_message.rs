//! A Peri messages.content value parsed, judged and analysed: never a panic.
//! The body is `tracelint_fuzz::peri_message` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracelint_fuzz::peri_message(data));
