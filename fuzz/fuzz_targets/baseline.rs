//! A baseline file: malformed ones are errors, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("baseline.json");
    std::fs::write(&path, data).expect("write");
    if let Ok(b) = tracelint::gate::read_baseline(&path) {
        let _ = tracelint::gate::baseline_diff(&b, &b);
    }
});
