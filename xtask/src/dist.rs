//! `cargo xtask dist`: the release artifacts of one target, as the package
//! managers expect them (docs/install.md).
//!
//! * `falseok-<version>-<target>.tar.gz` (`.zip` on Windows), holding
//!   `falseok-<version>-<target>/` with the binary, README.md and LICENSE:
//!   the name cargo-binstall's template in Cargo.toml and the Homebrew formula
//!   download, and the Action too (ci/action-install.sh);
//! * `<archive>.sha256`: `<hex>  <archive>`, as `sha256sum -c` reads it;
//! * `npm/falseok-<platform>/`: the npm package of that platform's binary
//!   (`@falseok/<platform>`), and `npm/falseok/`: the launcher package whose
//!   optional dependencies are every platform's package;
//! * `falseok.rb`: the Homebrew formula, for every archive present in the
//!   folder (a release gathers every runner's archives first).
//!
//! Every target the release builds is in [`TARGETS`]; the release workflow
//! (.github/workflows/release.yml) builds exactly those, a test checks it.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::Digest;

/// One target of the release: its Rust triple and its names in npm and
/// Homebrew.
pub struct Target {
    pub triple: &'static str,
    /// `process.platform`, as npm's `os` field and the launcher name it.
    pub os: &'static str,
    /// `process.arch`, as npm's `cpu` field names it.
    pub cpu: &'static str,
    /// Linux only: the C library, as npm's `libc` field names it.
    pub libc: Option<&'static str>,
    /// The Homebrew formula's blocks that download it: (`on_macos` or
    /// `on_linux`, `on_arm` or `on_intel`); `None` when another target
    /// serves that platform in Homebrew.
    pub brew: Option<(&'static str, &'static str)>,
    /// The GitHub runner the release workflow builds it on (a test holds
    /// .github/workflows/release.yml to it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub runner: &'static str,
}

pub const TARGETS: &[Target] = &[
    Target {
        triple: "x86_64-unknown-linux-gnu",
        os: "linux",
        cpu: "x64",
        libc: Some("glibc"),
        brew: Some(("on_linux", "on_intel")),
        runner: "ubuntu-22.04",
    },
    Target {
        triple: "x86_64-unknown-linux-musl",
        os: "linux",
        cpu: "x64",
        libc: Some("musl"),
        brew: None,
        runner: "ubuntu-22.04",
    },
    Target {
        triple: "aarch64-unknown-linux-gnu",
        os: "linux",
        cpu: "arm64",
        libc: Some("glibc"),
        brew: Some(("on_linux", "on_arm")),
        runner: "ubuntu-22.04-arm",
    },
    Target {
        triple: "aarch64-unknown-linux-musl",
        os: "linux",
        cpu: "arm64",
        libc: Some("musl"),
        brew: None,
        runner: "ubuntu-22.04-arm",
    },
    Target {
        triple: "x86_64-apple-darwin",
        os: "darwin",
        cpu: "x64",
        libc: None,
        brew: Some(("on_macos", "on_intel")),
        runner: "macos-13",
    },
    Target {
        triple: "aarch64-apple-darwin",
        os: "darwin",
        cpu: "arm64",
        libc: None,
        brew: Some(("on_macos", "on_arm")),
        runner: "macos-14",
    },
    Target {
        triple: "x86_64-pc-windows-msvc",
        os: "win32",
        cpu: "x64",
        libc: None,
        brew: None,
        runner: "windows-2022",
    },
];

impl Target {
    pub fn find(triple: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.triple == triple)
    }

    fn windows(&self) -> bool {
        self.os == "win32"
    }

    /// The npm platform: `linux-x64-gnu`, `darwin-arm64`, `win32-x64`.
    pub fn npm_platform(&self) -> String {
        match self.libc {
            Some("glibc") => format!("{}-{}-gnu", self.os, self.cpu),
            Some(libc) => format!("{}-{}-{libc}", self.os, self.cpu),
            None => format!("{}-{}", self.os, self.cpu),
        }
    }

    pub fn exe(&self) -> &'static str {
        if self.windows() { "falseok.exe" } else { "falseok" }
    }
}

/// What Cargo.toml says of the package.
pub struct Package {
    pub name: String,
    pub version: String,
    pub description: String,
    pub license: String,
    pub repository: String,
}

impl Package {
    pub fn read(root: &Path) -> Result<Package, String> {
        let path = root.join("Cargo.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc: toml::Table = text.parse().map_err(|e| format!("{}: {e}", path.display()))?;
        let package = doc.get("package").and_then(toml::Value::as_table).ok_or("Cargo.toml: no [package]")?;
        let field = |k: &str| {
            package
                .get(k)
                .and_then(toml::Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("{}: [package] has no `{k}`", path.display()))
        };
        Ok(Package {
            name: field("name")?,
            version: field("version")?,
            description: field("description")?,
            license: field("license")?,
            repository: field("repository")?.trim_end_matches('/').to_string(),
        })
    }

    /// `falseok-0.1.0-x86_64-unknown-linux-gnu`: the archive's top folder
    /// and, with its extension, its name.
    pub fn stem(&self, target: &Target) -> String {
        format!("{}-{}-{}", self.name, self.version, target.triple)
    }

    pub fn archive_name(&self, target: &Target) -> String {
        format!("{}{}", self.stem(target), if target.windows() { ".zip" } else { ".tar.gz" })
    }

    /// Where the release publishes an archive.
    pub fn archive_url(&self, target: &Target) -> String {
        format!("{}/releases/download/v{}/{}", self.repository, self.version, self.archive_name(target))
    }
}

/// The archive's files: (path inside the top folder, contents, executable).
fn archive_files(bin: &Path, root: &Path, target: &Target) -> Result<Vec<(String, Vec<u8>, bool)>, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    Ok(vec![
        (target.exe().to_string(), read(bin)?, true),
        ("README.md".to_string(), read(&root.join("README.md"))?, false),
        ("LICENSE".to_string(), read(&root.join("LICENSE"))?, false),
    ])
}

/// The same bytes for the same inputs: entries in a fixed order, with fixed
/// times, owners and modes.
fn write_archive(files: &[(String, Vec<u8>, bool)], top: &str, windows: bool) -> Result<Vec<u8>, String> {
    let io = |e: std::io::Error| e.to_string();
    if windows {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data, exe) in files {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .unix_permissions(if *exe { 0o755 } else { 0o644 });
            zip.start_file(format!("{top}/{name}"), options).map_err(|e| e.to_string())?;
            zip.write_all(data).map_err(io)?;
        }
        return Ok(zip.finish().map_err(|e| e.to_string())?.into_inner());
    }
    let gz = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let header = |path: &str, size: usize, mode: u32, kind: tar::EntryType| {
        let mut h = tar::Header::new_ustar();
        h.set_entry_type(kind);
        h.set_size(size as u64);
        h.set_mode(mode);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        h.set_path(path).map(|()| h).map_err(io)
    };
    let mut dir = header(&format!("{top}/"), 0, 0o755, tar::EntryType::Directory)?;
    dir.set_cksum();
    tar.append(&dir, std::io::empty()).map_err(io)?;
    for (name, data, exe) in files {
        let mut h =
            header(&format!("{top}/{name}"), data.len(), if *exe { 0o755 } else { 0o644 }, tar::EntryType::Regular)?;
        h.set_cksum();
        tar.append(&h, data.as_slice()).map_err(io)?;
    }
    tar.into_inner().map_err(io)?.finish().map_err(io)
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Write `path` whole or not at all (a temporary file renamed over it).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    tmp.write_all(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(path).map_err(|e| format!("{}: {e}", path.display()))?;
    set_mode(path, 0o644)
}

/// Published files are readable by all (a temporary file is made 0600).
#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<(), String> {
    Ok(())
}

fn make_executable(path: &Path) -> Result<(), String> {
    set_mode(path, 0o755)
}

/// What `dist` wrote.
pub struct Written {
    pub archive: PathBuf,
    pub sha256: String,
    pub npm: Vec<PathBuf>,
    pub formula: PathBuf,
}

/// The archive and its checksum, the npm packages and the formula for
/// `target`, from the binary `bin`, into `out`.
pub fn dist(root: &Path, bin: &Path, target: &Target, out: &Path) -> Result<Written, String> {
    let pkg = Package::read(root)?;
    let files = archive_files(bin, root, target)?;
    let bytes = write_archive(&files, &pkg.stem(target), target.windows())?;
    let name = pkg.archive_name(target);
    let archive = out.join(&name);
    let sha256 = sha256_hex(&bytes);
    write_file(&archive, &bytes)?;
    write_file(&out.join(format!("{name}.sha256")), format!("{sha256}  {name}\n").as_bytes())?;
    let npm = npm_packages(root, &pkg, target, &files[0].1, &out.join("npm"))?;
    let formula = out.join(format!("{}.rb", pkg.name));
    write_file(&formula, homebrew_formula(&pkg, out)?.as_bytes())?;
    Ok(Written { archive, sha256, npm, formula })
}

/// The npm scope's name of a platform's package.
pub fn npm_package(pkg: &Package, target: &Target) -> String {
    format!("@{}/{}", pkg.name, target.npm_platform())
}

fn npm_packages(
    root: &Path,
    pkg: &Package,
    target: &Target,
    binary: &[u8],
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    let repository = serde_json::json!({"type": "git", "url": format!("git+{}.git", pkg.repository)});
    // The platform's package: the binary, for npm to install only where
    // `os`, `cpu` (and `libc`) match.
    let platform = out.join(format!("{}-{}", pkg.name, target.npm_platform()));
    let mut manifest = serde_json::json!({
        "name": npm_package(pkg, target),
        "version": pkg.version,
        "description": format!("The {} binary of {} (installed by the `{}` package).", target.npm_platform(), pkg.name, pkg.name),
        "license": pkg.license,
        "repository": repository,
        "os": [target.os],
        "cpu": [target.cpu],
        "files": [format!("bin/{}", target.exe())],
        "preferUnplugged": true,
    });
    if let Some(libc) = target.libc {
        manifest["libc"] = serde_json::json!([libc]);
    }
    write_file(&platform.join("package.json"), format!("{:#}\n", manifest).as_bytes())?;
    let exe = platform.join("bin").join(target.exe());
    write_file(&exe, binary)?;
    make_executable(&exe)?;
    // The launcher's package: one optional dependency per platform, at this
    // exact version.
    let main = out.join(&pkg.name);
    let optional: serde_json::Map<String, serde_json::Value> =
        TARGETS.iter().map(|t| (npm_package(pkg, t), serde_json::json!(pkg.version))).collect();
    let manifest = serde_json::json!({
        "name": pkg.name,
        "version": pkg.version,
        "description": pkg.description,
        "license": pkg.license,
        "repository": repository,
        "bin": {"falseok": "bin/falseok.js"},
        "files": ["bin/falseok.js", "README.md"],
        "engines": {"node": ">=16"},
        "optionalDependencies": optional,
    });
    write_file(&main.join("package.json"), format!("{:#}\n", manifest).as_bytes())?;
    let launcher =
        std::fs::read(root.join("packaging/npm/falseok.js")).map_err(|e| format!("packaging/npm/falseok.js: {e}"))?;
    write_file(&main.join("bin/falseok.js"), &launcher)?;
    make_executable(&main.join("bin/falseok.js"))?;
    let readme = std::fs::read(root.join("README.md")).map_err(|e| format!("README.md: {e}"))?;
    write_file(&main.join("README.md"), &readme)?;
    Ok(vec![main, platform])
}

/// The Homebrew formula downloading every archive of this version present
/// in `dir`, each with the checksum written beside it.
pub fn homebrew_formula(pkg: &Package, dir: &Path) -> Result<String, String> {
    let mut blocks: Vec<(&str, &str, String, String)> = Vec::new();
    for t in TARGETS {
        let Some((os, arch)) = t.brew else { continue };
        let sum = dir.join(format!("{}.sha256", pkg.archive_name(t)));
        let Ok(text) = std::fs::read_to_string(&sum) else { continue };
        let hex = text.split_whitespace().next().unwrap_or_default().to_string();
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{}: not a SHA-256 checksum line", sum.display()));
        }
        blocks.push((os, arch, pkg.archive_url(t), hex));
    }
    if blocks.is_empty() {
        return Err(format!("{}: no archive of {} {} that Homebrew installs", dir.display(), pkg.name, pkg.version));
    }
    let class: String = pkg
        .name
        .split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect();
    let mut rb = String::new();
    rb.push_str(&format!("# Written by `cargo xtask dist` for {} {}: do not edit.\n", pkg.name, pkg.version));
    rb.push_str(&format!("class {class} < Formula\n"));
    // `brew audit` wants a short description without a final period: the
    // package's, up to its colon.
    let desc = pkg.description.split(':').next().unwrap_or_default().replace('"', "'");
    rb.push_str(&format!("  desc \"{}\"\n", desc.trim_end_matches('.')));
    rb.push_str(&format!("  homepage \"{}\"\n", pkg.repository));
    rb.push_str(&format!("  version \"{}\"\n", pkg.version));
    rb.push_str(&format!("  license \"{}\"\n", pkg.license));
    for os in ["on_macos", "on_linux"] {
        let mine: Vec<_> = blocks.iter().filter(|b| b.0 == os).collect();
        if mine.is_empty() {
            continue;
        }
        rb.push_str(&format!("\n  {os} do\n"));
        for (_, arch, url, hex) in mine {
            rb.push_str(&format!("    {arch} do\n      url \"{url}\"\n      sha256 \"{hex}\"\n    end\n"));
        }
        rb.push_str("  end\n");
    }
    rb.push_str("\n  def install\n    bin.install \"falseok\"\n  end\n");
    rb.push_str("\n  test do\n    assert_match version.to_s, shell_output(\"#{bin}/falseok --version\")\n  end\nend\n");
    Ok(rb)
}

/// The host's target triple, as `rustc -vV` says it.
pub fn host_triple() -> Result<String, String> {
    let out = std::process::Command::new("rustc").arg("-vV").output().map_err(|e| format!("rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV printed no host".to_string())
}

/// `cargo build --profile dist` for `target`; the binary it wrote.
pub fn build(root: &Path, target: &Target) -> Result<PathBuf, String> {
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args(["build", "--locked", "--profile", "dist", "--bin", "falseok", "--target", target.triple])
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --profile dist --target {} failed", target.triple));
    }
    let dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(dir.join(target.triple).join("dist").join(target.exe()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// cargo-binstall's template in Cargo.toml, filled as binstall fills it.
    fn binstall(field: &str, pkg: &Package, t: &Target) -> String {
        let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        let doc: toml::Table = text.parse().unwrap();
        let meta = &doc["package"]["metadata"]["binstall"];
        let over = meta.get("overrides").and_then(|o| o.get(t.triple)).and_then(|o| o.get(field));
        let template = over.or_else(|| meta.get(field)).and_then(toml::Value::as_str).unwrap();
        template
            .replace("{ repo }", &pkg.repository)
            .replace("{ name }", &pkg.name)
            .replace("{ version }", &pkg.version)
            .replace("{ target }", t.triple)
            .replace("{ bin }", "falseok")
            .replace("{ binary-ext }", if t.windows() { ".exe" } else { "" })
    }

    /// Issue 52: the archive `dist` writes is the one cargo-binstall and the
    /// Homebrew formula download, with the checksum the formula expects, and
    /// holds the binary where binstall looks for it.
    #[test]
    fn archives_are_what_binstall_and_homebrew_expect() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("falseok-bin");
        std::fs::write(&bin, b"#!/bin/sh\necho falseok\n").unwrap();
        let out = dir.path().join("dist");
        let pkg = Package::read(&root()).unwrap();
        for t in TARGETS {
            let w = dist(&root(), &bin, t, &out).unwrap();
            let name = w.archive.file_name().unwrap().to_str().unwrap().to_string();
            let url = binstall("pkg-url", &pkg, t);
            assert_eq!(url, pkg.archive_url(t), "{}", t.triple);
            assert!(url.ends_with(&format!("/v{}/{name}", pkg.version)), "{url}");
            let fmt = binstall("pkg-fmt", &pkg, t);
            assert_eq!(fmt, if t.windows() { "zip" } else { "tgz" }, "{}", t.triple);
            // The checksum file names the archive and its real SHA-256.
            let bytes = std::fs::read(&w.archive).unwrap();
            let line = std::fs::read_to_string(out.join(format!("{name}.sha256"))).unwrap();
            assert_eq!(line, format!("{}  {name}\n", sha256_hex(&bytes)));
            // binstall's bin-dir is a file of the archive, the binary's bytes.
            let bin_dir = binstall("bin-dir", &pkg, t);
            let inside = if t.windows() {
                let mut z = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
                let mut f = z.by_name(&bin_dir).unwrap();
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut f, &mut v).unwrap();
                v
            } else {
                let mut a = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
                let mut found = None;
                for e in a.entries().unwrap() {
                    let mut e = e.unwrap();
                    if e.path().unwrap().to_str() == Some(bin_dir.as_str()) {
                        assert_eq!(e.header().mode().unwrap(), 0o755);
                        let mut v = Vec::new();
                        std::io::Read::read_to_end(&mut e, &mut v).unwrap();
                        found = Some(v);
                    }
                }
                found.unwrap_or_else(|| panic!("{bin_dir} not in {name}"))
            };
            assert_eq!(inside, std::fs::read(&bin).unwrap());
            // Written twice, the same bytes.
            let again = dist(&root(), &bin, t, &out).unwrap();
            assert_eq!(again.sha256, w.sha256, "{} is reproducible", t.triple);
        }
        // The formula downloads each Homebrew platform's archive with its checksum.
        let rb = std::fs::read_to_string(out.join("falseok.rb")).unwrap();
        for t in TARGETS.iter().filter(|t| t.brew.is_some()) {
            let name = pkg.archive_name(t);
            let sum = std::fs::read_to_string(out.join(format!("{name}.sha256"))).unwrap();
            let hex = sum.split_whitespace().next().unwrap();
            let (os, arch) = t.brew.unwrap();
            let block = rb.split(&format!("  {os} do\n")).nth(1).unwrap();
            let block = block.split(&format!("    {arch} do\n")).nth(1).unwrap();
            assert!(
                block.starts_with(&format!("      url \"{}\"\n      sha256 \"{hex}\"\n", pkg.archive_url(t))),
                "{rb}"
            );
        }
        assert!(rb.contains("class Falseok < Formula\n") && rb.contains("bin.install \"falseok\""), "{rb}");
    }

    /// A formula is refused rather than written without a checksum.
    #[test]
    fn the_formula_needs_an_archive_and_a_real_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = Package::read(&root()).unwrap();
        assert!(homebrew_formula(&pkg, dir.path()).unwrap_err().contains("no archive"));
        let t = Target::find("aarch64-apple-darwin").unwrap();
        std::fs::write(dir.path().join(format!("{}.sha256", pkg.archive_name(t))), "oops  x\n").unwrap();
        assert!(homebrew_formula(&pkg, dir.path()).unwrap_err().contains("not a SHA-256"));
    }

    /// The npm launcher's optional dependencies are every target's package,
    /// and each platform package's `os`/`cpu`/`libc` are what the launcher
    /// asks for (`@falseok/${process.platform}-${process.arch}[-gnu|-musl]`).
    #[test]
    fn npm_packages_name_what_the_launcher_resolves() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("falseok-bin");
        std::fs::write(&bin, b"x").unwrap();
        let pkg = Package::read(&root()).unwrap();
        let t = Target::find("x86_64-unknown-linux-gnu").unwrap();
        let w = dist(&root(), &bin, t, dir.path()).unwrap();
        let main: serde_json::Value =
            serde_json::from_slice(&std::fs::read(w.npm[0].join("package.json")).unwrap()).unwrap();
        let optional = main["optionalDependencies"].as_object().unwrap();
        assert_eq!(optional.len(), TARGETS.len());
        for t in TARGETS {
            assert_eq!(optional[&npm_package(&pkg, t)], serde_json::json!(pkg.version));
        }
        let plat: serde_json::Value =
            serde_json::from_slice(&std::fs::read(w.npm[1].join("package.json")).unwrap()).unwrap();
        assert_eq!(plat["name"], "@falseok/linux-x64-gnu");
        assert_eq!(
            (plat["os"][0].as_str(), plat["cpu"][0].as_str(), plat["libc"][0].as_str()),
            (Some("linux"), Some("x64"), Some("glibc"))
        );
        let launcher = std::fs::read_to_string(root().join("packaging/npm/falseok.js")).unwrap();
        assert!(launcher.contains("`@falseok/${process.platform}-${process.arch}`"), "the launcher's package names");
        assert!(launcher.contains(r#"["gnu", "musl"]"#) && launcher.contains(r#"["musl"]"#));
    }

    /// The release workflow builds every target of the table, each on its runner.
    #[test]
    fn the_release_workflow_builds_every_target() {
        let text = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
        for t in TARGETS {
            let line = format!("{{ target: {}, runner: {} }}", t.triple, t.runner);
            assert!(text.contains(&line), "release.yml lacks `{line}`");
        }
        assert_eq!(text.matches("{ target: ").count(), TARGETS.len(), "release.yml builds a target the table lacks");
    }
}
