//! `cargo xtask samples [--check]`: the Peri databases shipped in
//! `sample-traces/` are written by the generator from a fixed seed. Without
//! `--check` they are rewritten in place; with it they are written to a
//! temporary folder and compared with the shipped files byte for byte.
//!
//! The other samples (`<format>.db` beside `<format>.sql`) are built by the
//! `sqlite3` shell from their SQL text (see the README); `tests/cli/adapters.rs`
//! checks that each scans the same as its SQL.

use std::path::{Path, PathBuf};

use crate::peri::{PeriScenario, generate_peri};

/// The seed every shipped sample is written with.
pub const SEED: u64 = 2026;

/// Each shipped generated sample: its file in `sample-traces/` and its scenario.
pub const SAMPLES: &[(&str, PeriScenario)] =
    &[("peri-postmortem.db", PeriScenario::Postmortem), ("peri-postfix.db", PeriScenario::PostFix)];

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

/// Rewrite every shipped sample in place. Each file is written beside its
/// target under a temporary name and renamed over it, so a failure never
/// leaves half a sample.
pub fn write(dir: &Path, samples: &[(&str, PeriScenario)], out: &mut dyn std::io::Write) -> Result<(), String> {
    for &(file, scenario) in samples {
        let target = dir.join(file);
        let tmp = dir.join(format!(".{file}.tmp"));
        let _ = std::fs::remove_file(&tmp);
        let before = std::fs::read(&target).ok();
        if let Err(e) = generate_peri(&tmp, scenario, SEED) {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: cannot write: {e}", target.display()));
        }
        std::fs::rename(&tmp, &target).map_err(|e| format!("{}: cannot replace: {e}", target.display()))?;
        let after = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        let what = if before.as_deref() == Some(&after[..]) { "unchanged" } else { "CHANGED: review and commit it" };
        writeln!(out, "{}: {what}", target.display()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Regenerate every shipped sample into a temporary folder and compare it with
/// the shipped file. Returns the files that differ, each with a sentence
/// saying how; an empty list means every sample is reproduced byte for byte.
pub fn check(dir: &Path, samples: &[(&str, PeriScenario)]) -> Result<Vec<String>, String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let mut bad = Vec::new();
    for &(file, scenario) in samples {
        let shipped_path = dir.join(file);
        let fresh_path = tmp.path().join(file);
        generate_peri(&fresh_path, scenario, SEED)
            .map_err(|e| format!("{}: cannot write: {e}", fresh_path.display()))?;
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

    #[test]
    fn check_names_a_sample_that_differs_and_passes_a_faithful_one() {
        // The post-fix sample only: it is small, and the code is the same for both.
        const PF: &[(&str, PeriScenario)] = &[("peri-postfix.db", PeriScenario::PostFix)];
        let dir = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        write(dir.path(), PF, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("peri-postfix.db: CHANGED"), "{out}");
        assert_eq!(check(dir.path(), PF).unwrap(), Vec::<String>::new());
        // Rewriting what is already there changes nothing.
        let mut again = Vec::new();
        write(dir.path(), PF, &mut again).unwrap();
        assert!(String::from_utf8(again).unwrap().contains("peri-postfix.db: unchanged"));
        // One byte off, and the check names the file and the byte.
        let path = dir.path().join("peri-postfix.db");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let bad = check(dir.path(), PF).unwrap();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(
            bad[0].contains("peri-postfix.db: differs") && bad[0].contains("first difference at byte 100"),
            "{bad:?}"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(check(dir.path(), PF).unwrap()[0].contains("peri-postfix.db: cannot read the shipped sample"));
    }
}
