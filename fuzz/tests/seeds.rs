//! Every fuzz target's body over every seed of `seeds/<target>/`, on stable
//! Rust: the targets compile, and none panics on the inputs they start from.

use std::path::Path;

#[test]
fn every_target_runs_on_each_of_its_seeds() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets");
    for entry in std::fs::read_dir(&targets).unwrap() {
        let name = entry.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        assert!(falseok_fuzz::TARGETS.iter().any(|(t, _)| *t == name), "fuzz_targets/{name}.rs is not in TARGETS");
    }
    for (name, body) in falseok_fuzz::TARGETS {
        let dir = seeds.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name} has no seeds");
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let ran = std::panic::catch_unwind(|| body(&data));
            assert!(ran.is_ok(), "{name} panicked on {}", file.display());
        }
        // And on what the seeds are not: nothing, and random bytes.
        body(b"");
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        body(&noise);
    }
}
