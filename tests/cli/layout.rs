//! The spine's direction, kept by a test: a module may import only the
//! modules listed for it (CONTRIBUTING.md, "Layout"). Also: every test file is a
//! module of this binary, so none is silently left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::{is_unit_test_file, root, rust_files};

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
            "prices",
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
    ("source", &["error", "json", "model", "sanitize"]),
    ("judge", &["config", "model", "pair", "prices", "redact", "rules", "sanitize", "schema"]),
    ("aggregate", &["judge", "prices", "redact", "report", "rules", "schema"]),
    ("export", &["judge", "model", "prices", "redact"]),
    ("config", &["error", "rules", "sanitize"]),
    ("report", &["rules"]),
    ("gate", &["error", "prices", "report", "rules"]),
    ("render", &["error", "gate", "prices", "report", "rules", "sanitize"]),
    // The price table, and how tokens and dollars are written.
    ("prices", &["error", "model", "sanitize"]),
    ("pair", &["model"]),
    ("rules", &["model"]),
    ("schema", &["error", "json", "model", "rules"]),
    // The JSON scanner is a leaf; the call model keeps arguments as text
    // and reads them with it (issue 53).
    ("json", &[]),
    ("model", &["json"]),
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
        if is_unit_test_file(&file) {
            continue; // test code throughout, as the tail after `#[cfg(test)]` is
        }
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

/// The module path of a source file under a crate's source folder:
/// `rules/classify/messages.rs` is `[rules, classify, messages]`, a
/// `mod.rs` its folder's, `lib.rs` and `main.rs` the root's (`[]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

/// The paths a file's code (outside its `#[cfg(test)]` part) names through
/// `crate::`, `super::` or `self::`, resolved against the file's own module
/// path, one level of `{a, b::c}` groups expanded; and, in the crate root,
/// paths that start with one of `roots` (the root names its modules bare).
fn named_paths(text: &str, at: &[String], roots: &BTreeSet<String>) -> Vec<Vec<String>> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) || (i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let first: String = bytes[start..i].iter().collect();
        let next_is_path = bytes.get(i) == Some(&':') && bytes.get(i + 1) == Some(&':');
        if !next_is_path {
            continue;
        }
        let base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => at.to_vec(),
            name if at.is_empty() && roots.contains(name) => vec![name.to_string()],
            _ => continue,
        };
        let mut base = base;
        if first == "super" {
            base.pop();
        }
        // The rest: `a::b::{c, d::e}` or `super::super::x`.
        let mut rest = String::new();
        let mut depth = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 && !(ident(c) || c == ':') {
                break;
            }
            rest.push(c);
            i += 1;
        }
        let rest = rest.trim_start_matches("::");
        for tail in expand(rest) {
            let mut path = base.clone();
            for seg in tail.split("::").filter(|s| !s.is_empty()) {
                if seg == "super" {
                    path.pop();
                } else if seg != "self" {
                    path.push(seg.to_string());
                }
            }
            out.push(path);
        }
    }
    out
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(path: &str) -> Vec<String> {
    let path: String = path.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = path.find('{') else { return vec![path] };
    let (head, group) = (&path[..open], &path[open + 1..path.rfind('}').unwrap_or(path.len())]);
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (j, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[from..j]);
                from = j + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[from..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(|p| expand(&format!("{head}{p}"))).collect()
}

/// Does this module path name a module of the crate under `src`?
fn is_module(src: &Path, path: &[String]) -> bool {
    let joined: PathBuf = path.iter().collect();
    !path.is_empty() && (src.join(&joined).is_dir() || src.join(joined.with_extension("rs")).is_file())
}

/// Every edge between two modules at `depth` that share a parent, from the
/// files of the crate under `src`: (from, to), each a module path.
fn edges_at(src: &Path, depth: usize) -> BTreeSet<(Vec<String>, Vec<String>)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let roots: BTreeSet<String> = std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    let mut edges = BTreeSet::new();
    let has_lib = src.join("lib.rs").is_file();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        if has_lib && rel == Path::new("main.rs") {
            continue; // the binary: a crate of its own, which names the library as `falseok::`
        }
        if is_unit_test_file(&file) {
            continue;
        }
        let at = module_path(rel);
        // The crate root is a node of its own at the top (`lib`), above nothing.
        let from: Vec<String> =
            if at.is_empty() { vec!["lib".into()] } else { at.iter().take(depth).cloned().collect() };
        if from.len() != depth {
            continue; // a parent's own file: it holds its children, it is not their sibling
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for path in named_paths(&text, &at, &roots) {
            let to: Vec<String> = match (1..=depth).rev().find(|&d| d <= path.len() && is_module(src, &path[..d])) {
                Some(d) if d == depth => path[..depth].to_vec(),
                // An item of the crate root (`crate::walk`) is `lib`'s.
                None if depth == 1 => vec!["lib".into()],
                _ => continue,
            };
            if to != from && to[..depth - 1] == from[..depth - 1] {
                edges.insert((from.clone(), to));
            }
        }
    }
    edges
}

/// The circles of a graph, each as the nodes of one strongly connected
/// component of more than one node.
fn circles(edges: &BTreeSet<(Vec<String>, Vec<String>)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&Vec<String>> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for (a, b) in edges {
                if *a == n && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        let mut component: Vec<String> = nodes
            .iter()
            .filter(|m| reached[n].contains(**m) && reached[**m].contains(*n))
            .map(|m| m.join("::"))
            .collect();
        component.sort();
        if component.len() > 1 && !out.contains(&component) {
            out.push(component);
        }
    }
    out
}

/// Issue 54: no import runs back up the spine (the top-level modules,
/// with the crate root's own items as `lib`, form no circle), and no two
/// folders of one module import each other, in the product and in xtask.
/// Inside one folder (one format's files, one command's) circles may stay.
#[test]
fn no_import_runs_back_up_and_no_two_folders_import_each_other() {
    let mut found = Vec::new();
    for src in [root().join("src"), root().join("xtask/src")] {
        for depth in [1, 2] {
            for circle in circles(&edges_at(&src, depth)) {
                found.push(format!("{}: {}", src.strip_prefix(root()).unwrap().display(), circle.join(" ↔ ")));
            }
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_circle_check_sees_circles_through_every_kind_of_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let put = |rel: &str, text: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    put("lib.rs", "mod a; mod b; mod c;\nuse c::Thing;\n");
    put("a/mod.rs", "mod x; mod y;\n");
    put("a/x.rs", "use super::y::f;\n");
    put("a/y.rs", "use crate::a::{x::{g, h}, Z};\n#[cfg(test)]\nuse crate::b::Q;\n");
    put("b.rs", "fn f() { crate::a::x::g() }\n");
    put("c.rs", "use crate::walk;\n");
    let two = circles(&edges_at(src, 2));
    assert_eq!(two, vec![vec!["a::x".to_string(), "a::y".into()]]);
    let one = circles(&edges_at(src, 1));
    assert_eq!(one, vec![vec!["c".to_string(), "lib".into()]]);
    // Without the arrow back up, nothing: a test-only import is not one.
    put("c.rs", "pub struct Thing;\n");
    put("a/y.rs", "#[cfg(test)]\nuse crate::a::x::g;\n");
    assert!(circles(&edges_at(src, 1)).is_empty() && circles(&edges_at(src, 2)).is_empty());
    assert_eq!(expand("a::{b, c::{d, e}}"), vec!["a::b", "a::c::d", "a::c::e"]);
}

/// Issue 54: no source file of the product, its tests or xtask grows past
/// 1,000 lines; a room that large is split by what it holds (as
/// `import/tests.rs`, `peri/fast.rs` and `guard/` were).
#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for dir in ["src", "tests", "xtask/src", "fuzz"] {
        let mut files = Vec::new();
        rust_files(&root().join(dir), &mut files);
        assert!(!files.is_empty(), "{dir}: no Rust file found");
        for file in files {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > 1000 {
                long.push(format!("{}: {lines} lines", file.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(long.is_empty(), "files over 1,000 lines:\n{}", long.join("\n"));
}
