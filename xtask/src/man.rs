//! `cargo xtask man [DIR]`: roff man pages made from falseok's own clap
//! definition, one for `falseok` and one per subcommand
//! (`falseok-scan.1`, …), so they cannot drift from `--help`.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

/// Write every page into `dir`; returns the files written.
pub fn write(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let cmd = falseok::cli::Cli::command();
    let mut written = Vec::new();
    let mut page = |cmd: clap::Command, name: String| -> std::io::Result<()> {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd).title(name.to_uppercase()).render(&mut buf)?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, buf)?;
        written.push(path);
        Ok(())
    };
    for sub in cmd.get_subcommands() {
        let name = format!("falseok-{}", sub.get_name());
        page(sub.clone().name(name.clone()), name)?;
    }
    page(cmd, "falseok".into())?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_page_for_falseok_and_each_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        let pages = super::write(dir.path()).unwrap();
        let main = std::fs::read_to_string(dir.path().join("falseok.1")).unwrap();
        assert!(main.starts_with(".ie") || main.contains(".TH FALSEOK 1"), "{main}");
        assert!(main.contains("hidden errors"), "the long description is in the page");
        let check = std::fs::read_to_string(dir.path().join("falseok-check.1")).unwrap();
        assert!(check.contains("allow\\-empty"), "every option is documented: {check}");
        for sub in ["scan", "check", "examples", "show", "rules", "schemas", "formats", "import", "export", "merge"] {
            assert!(pages.iter().any(|p| p.ends_with(format!("falseok-{sub}.1"))), "{sub}");
        }
    }
}
