//! `cargo xtask samples [--check]`: the samples in `sample-traces/` that a
//! generator writes. Without `--check` they are rewritten in place; with it
//! they are written to a temporary folder and compared with the shipped files
//! byte for byte.
//!
//! Two kinds are generated:
//! * the Peri databases, written whole from a fixed seed (`peri/`);
//! * the SQL text of the samples whose rows are binary (LangGraph's msgpack,
//!   Zed's zstd), which holds their blobs as hex literals (`langgraph.rs`,
//!   `zed.rs`). The `.db` beside each is built from it by the `sqlite3` shell.
//!
//! The other samples (`<format>.db` beside a hand-written `<format>.sql`) are
//! built by the `sqlite3` shell from their SQL text; `tests/cli/adapters.rs`
//! checks that each scans the same as its SQL.

use std::path::{Path, PathBuf};

use crate::peri::{PeriScenario, generate_peri};

/// The seed every shipped Peri sample is written with.
pub const SEED: u64 = 2026;

/// How a shipped sample is made.
#[derive(Clone, Copy)]
pub enum Make {
    /// A Peri database from the generator, seed [`SEED`].
    Peri(PeriScenario),
    /// SQL text; the `.db` of the same name is built from it with `sqlite3`.
    Sql(fn() -> String),
}

/// Each shipped generated sample: its file in `sample-traces/` and how it is made.
pub const SAMPLES: &[(&str, Make)] = &[
    ("peri-postmortem.db", Make::Peri(PeriScenario::Postmortem)),
    ("peri-postfix.db", Make::Peri(PeriScenario::PostFix)),
    ("langgraph.sql", Make::Sql(crate::langgraph::langgraph_sql)),
    ("zed.sql", Make::Sql(crate::zed::zed_sql)),
];

/// The repository's `sample-traces/` folder, wherever cargo was run from.
pub fn sample_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ sits in the repository");
    let dir = root.join("sample-traces");
    // Name files as `sample-traces/...` when run from the repository root.
    match std::env::current_dir() {
        Ok(cwd) if cwd == root => PathBuf::from("sample-traces"),
        _ => dir,
    }
}

/// Write the sample `make` describes to `path`, a new file.
fn generate(path: &Path, make: Make) -> Result<(), String> {
    match make {
        Make::Peri(scenario) => generate_peri(path, scenario, SEED).map(|_| ()).map_err(|e| e.to_string()),
        Make::Sql(text) => std::fs::write(path, text()).map_err(|e| e.to_string()),
    }
}

/// Rewrite every shipped sample in place. Each file is written beside its
/// target under a temporary name and renamed over it, so a failure never
/// leaves half a sample.
pub fn write(dir: &Path, samples: &[(&str, Make)], out: &mut dyn std::io::Write) -> Result<(), String> {
    for &(file, make) in samples {
        let target = dir.join(file);
        let tmp = dir.join(format!(".{file}.tmp"));
        let _ = std::fs::remove_file(&tmp);
        let before = std::fs::read(&target).ok();
        if let Err(e) = generate(&tmp, make) {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: cannot write: {e}", target.display()));
        }
        std::fs::rename(&tmp, &target).map_err(|e| format!("{}: cannot replace: {e}", target.display()))?;
        let after = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        let what = if before.as_deref() == Some(&after[..]) {
            "unchanged".to_string()
        } else if let Make::Sql(_) = make {
            let db = target.with_extension("db");
            format!(
                "CHANGED: review it, rebuild {} with `rm -f {0} && sqlite3 {0} < {}` and commit both",
                db.display(),
                target.display()
            )
        } else {
            "CHANGED: review and commit it".to_string()
        };
        writeln!(out, "{}: {what}", target.display()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Regenerate every shipped sample into a temporary folder and compare it with
/// the shipped file. Returns the files that differ, each with a sentence
/// saying how; an empty list means every sample is reproduced byte for byte.
pub fn check(dir: &Path, samples: &[(&str, Make)]) -> Result<Vec<String>, String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let mut bad = Vec::new();
    for &(file, make) in samples {
        let shipped_path = dir.join(file);
        let fresh_path = tmp.path().join(file);
        generate(&fresh_path, make).map_err(|e| format!("{}: cannot write: {e}", fresh_path.display()))?;
        let fresh = std::fs::read(&fresh_path).map_err(|e| format!("{}: {e}", fresh_path.display()))?;
        match std::fs::read(&shipped_path) {
            Err(e) => bad.push(format!("{}: cannot read the shipped sample: {e}", shipped_path.display())),
            Ok(shipped) if shipped != fresh => bad.push(format!(
                "{}: differs from what the generator writes ({} bytes shipped, {} generated, first difference at byte {})",
                shipped_path.display(),
                shipped.len(),
                fresh.len(),
                shipped.iter().zip(&fresh).position(|(a, b)| a != b).unwrap_or(shipped.len().min(fresh.len()))
            )),
            Ok(_) => {}
        }
    }
    Ok(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write`, then `check`: a faithful sample passes, one byte off is named
    /// with its byte, a missing one is named. `sample` is one of [`SAMPLES`].
    fn round_trip(sample: (&str, Make)) {
        let (file, _) = sample;
        let one = &[sample];
        let dir = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        write(dir.path(), one, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains(&format!("{file}: CHANGED")), "{out}");
        assert_eq!(check(dir.path(), one).unwrap(), Vec::<String>::new());
        // Rewriting what is already there changes nothing: the generator is deterministic.
        let mut again = Vec::new();
        write(dir.path(), one, &mut again).unwrap();
        assert!(String::from_utf8(again).unwrap().contains(&format!("{file}: unchanged")));
        // One byte off, and the check names the file and the byte.
        let path = dir.path().join(file);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let bad = check(dir.path(), one).unwrap();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(
            bad[0].contains(&format!("{file}: differs")) && bad[0].contains("first difference at byte 100"),
            "{bad:?}"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(check(dir.path(), one).unwrap()[0].contains(&format!("{file}: cannot read the shipped sample")));
    }

    fn sample(file: &str) -> (&'static str, Make) {
        *SAMPLES.iter().find(|(f, _)| *f == file).unwrap()
    }

    #[test]
    fn check_names_a_database_that_differs_and_passes_a_faithful_one() {
        // The post-fix sample only: it is small, and the code is the same for both.
        round_trip(sample("peri-postfix.db"));
    }

    #[test]
    fn check_names_sql_text_that_differs_and_passes_faithful_text() {
        round_trip(sample("langgraph.sql"));
        round_trip(sample("zed.sql"));
    }

    #[test]
    fn a_changed_sql_sample_says_to_rebuild_its_database() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        write(dir.path(), &[sample("zed.sql")], &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("zed.sql: CHANGED") && out.contains("sqlite3 ") && out.contains("zed.db <"), "{out}");
    }
}
