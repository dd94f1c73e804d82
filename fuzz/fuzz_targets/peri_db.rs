//! Arbitrary bytes as a trace database file: a clean error or a report,
//! never a panic. Inputs that start with the SQLite header get past the
//! header check and exercise SQLite and the adapter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::report::{AnalysisOptions, Filters};
use tracelint::source::SourceOptions;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fuzz.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend_from_slice(data);
    std::fs::write(&path, &bytes).expect("write");
    let _ = tracelint::scan(&[path], &SourceOptions::default(), Filters::default(), AnalysisOptions::default());
});
