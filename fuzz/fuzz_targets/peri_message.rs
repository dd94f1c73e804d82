//! A Peri messages.content value parsed, judged and analysed: never a panic.
//! The body is `falseok_fuzz::peri_message` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::peri_message(data));
