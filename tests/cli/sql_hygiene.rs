//! Nothing from the command line or from trace content is ever concatenated
//! into SQL: every statement outside test code is a fixed string, with
//! values bound as parameters. This test reads the sources to keep it so.

use std::path::Path;

use crate::util::{is_unit_test_file, rust_files};

fn sql_built_from_strings() -> regex::Regex {
    regex::Regex::new(
        r#"(?:prepare|prepare_cached|execute|execute_batch|query_row|query_map|query)\(\s*&?\s*format!|format!\(\s*"\s*(?i:SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|WITH|ATTACH)\b"#,
    )
    .unwrap()
}

#[test]
fn no_sql_is_built_with_format() {
    let built = sql_built_from_strings();
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 10);
    let mut offenders = Vec::new();
    for f in files {
        // Unit tests sit at the end of each file, after `#[cfg(test)]`, or
        // in a `tests.rs` of their own (`#[cfg(test)] mod tests;`).
        if is_unit_test_file(&f) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            if built.is_match(line) {
                offenders.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "SQL built from strings:\n{}", offenders.join("\n"));
}

#[test]
fn the_check_itself_catches_a_built_statement() {
    let built = sql_built_from_strings();
    assert!(built.is_match(r#"let q = format!("SELECT * FROM {table}");"#));
    assert!(built.is_match(r#"conn.execute_batch(&format!("ATTACH '{path}' AS x"))"#));
    assert!(!built.is_match(r#"conn.prepare("SELECT name FROM pragma_table_info(?1)")"#));
}
