//! Arbitrary bytes after the SQLite header as a trace database: a clean error or a report.
//! The body is `falseok_fuzz::peri_db` (src/lib.rs), which tests/seeds.rs also runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| falseok_fuzz::peri_db(data));
