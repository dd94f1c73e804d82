//! The spine's direction, kept by a test: a module may import only the
//! modules listed for it (CONTRIBUTING.md, "Layout"). Also: every test file is a
//! module of this binary, so none is silently left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{root, rust_files};

/// Who may import whom (`crate::X`). Leaves import only leaves.
const ALLOWED: &[(&str, &[&str])] = &[
    // The root re-exports the types its functions take and lists the
    // format registry, both halves of it (`formats()`).
    (
        "lib",
        &[
            "aggregate",
            "error",
            "import",
            "index",
            "input",
            "judge",
            "model",
            "report",
            "schema",
            "source",
            "sanitize",
            "spine",
        ],
    ),
    (
        "app",
        &[
            "aggregate",
            "cli",
            "config",
            "error",
            "export",
            "gate",
            "import",
            "index",
            "input",
            "judge",
            "lib",
            "model",
            // `main` draws the progress it keeps, through `app::progress`.
            "progress",
            "redact",
            "render",
            "report",
            "rules",
            "sanitize",
            "schema",
            "scratch",
            "source",
            "spine",
            "timespec",
        ],
    ),
    // The output registry is `--format`'s values: a new output edits no cli.rs.
    ("cli", &["render"]),
    // The fuzz crate's door to the parsers; nothing in the crate uses it.
    ("fuzzing", &["error", "import", "redact", "sanitize", "source"]),
    ("input", &["error", "import", "model", "progress", "sanitize", "scratch", "source"]),
    // The index keeps what the spine judged, as the aggregator counts it
    // (each session alone, with its source's schemas); its walk (index/walk.rs)
    // reads and judges through the spine's shared step, never through lib.
    (
        "index",
        &[
            "aggregate",
            "config",
            "error",
            "import",
            "input",
            "judge",
            "model",
            "report",
            "sanitize",
            "schema",
            "scratch",
            "spine",
        ],
    ),
    // The spine's types and the step both walks take for a source: open
    // sources go in, judged sessions come out to a visitor.
    ("spine", &["aggregate", "error", "input", "judge", "model", "sanitize", "schema", "source"]),
    ("import", &["error", "model", "sanitize", "source"]),
    ("source", &["error", "model", "sanitize"]),
    ("judge", &["config", "model", "pair", "redact", "rules", "sanitize", "schema"]),
    ("aggregate", &["judge", "redact", "report", "rules", "schema"]),
    ("export", &["judge", "model", "redact"]),
    ("config", &["error", "rules", "sanitize"]),
    ("report", &["rules"]),
    ("gate", &["error", "report", "rules"]),
    ("render", &["error", "gate", "report", "rules", "sanitize"]),
    ("pair", &["model"]),
    ("rules", &["model"]),
    ("schema", &["error", "model", "rules"]),
    ("model", &[]),
    ("sanitize", &[]),
    ("redact", &[]),
    ("scratch", &[]),
    ("timespec", &[]),
    // The progress line names the file being read, redacted (redact is a leaf).
    ("progress", &["redact", "sanitize"]),
    ("error", &["sanitize"]),
];

/// The top-level module a source file belongs to.
fn module_of(rel: &Path) -> String {
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The `crate::X` names a file uses outside its `#[cfg(test)]` part.
fn imports(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `falseok::crate::`-like or an identifier ending in crate
        }
        // A root item (`crate::ScanOptions`) counts too: it belongs to `lib`.
        let name: String = code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    // `use crate::{a, b}` groups.
    for (i, _) in code.match_indices("use crate::{") {
        let group = &code[i + 12..];
        let group = &group[..group.find('}').unwrap_or(group.len())];
        for part in group.split(',') {
            let name: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != "self" {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn modules_import_only_along_the_spine() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    let mut wrong = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = module_of(rel);
        if module == "main" {
            continue; // the binary uses `falseok::`, not `crate::`
        }
        let Some(ok) = allowed.get(module.as_str()) else {
            wrong.push(format!("{}: module `{module}` is not in the layering table", rel.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for used in imports(&text) {
            // An item of the crate root (`crate::walk`) belongs to `lib`.
            let used = if modules.contains(&used) { used } else { "lib".to_string() };
            if used != module && !ok.contains(&used.as_str()) {
                wrong.push(format!("{}: `{module}` imports `crate::{used}`", rel.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the spine's direction:\n{}", wrong.join("\n"));
}

#[test]
fn the_layering_check_sees_imports() {
    let text = "use crate::report::Report;\nuse crate::{gate, render::plural, Visitor};\nfn f(o: &crate::ScanOptions) { crate::sanitize::one_line(x) }\n#[cfg(test)]\nuse crate::app;";
    let got: Vec<String> = imports(text).into_iter().collect();
    assert_eq!(got, vec!["ScanOptions", "Visitor", "gate", "render", "report", "sanitize"]);
}

#[test]
fn every_test_file_is_a_module_of_the_test_binary() {
    let dir = root().join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(m) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(main.contains(&format!("mod {m};")), "tests/cli/{name} is not listed in tests/cli/main.rs");
        }
    }
    let stray: Vec<String> = std::fs::read_dir(root().join("tests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs"))
        .collect();
    assert!(stray.is_empty(), "test files outside tests/cli never run (autotests = false): {stray:?}");
}

/// The `pub mod` declarations of a crate root, hidden ones included: every
/// module outside users can name (`pub(crate) mod` and `mod` are not).
fn public_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect()
}

/// Issue 25: the library is narrow. At most 10 public modules; the rest is
/// `pub(crate)`, so the compiler can report what nothing uses.
#[test]
fn the_library_exposes_at_most_ten_public_modules() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let public = public_modules(&lib);
    assert!(!public.is_empty(), "src/lib.rs declares no public module: the check reads the wrong file");
    assert!(public.len() <= 10, "src/lib.rs declares {} public modules, at most 10: {public:?}", public.len());
}

#[test]
fn the_module_count_sees_public_modules() {
    let text = "pub mod a;\n#[doc(hidden)]\npub mod b;\npub(crate) mod c;\nmod d;\npub mod e {\n}\n";
    assert_eq!(public_modules(text), vec!["a", "b", "e"]);
}
