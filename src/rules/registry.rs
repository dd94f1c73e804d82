//! The whole registry as one value: every table of `rules/`, which
//! `falseok rules --format json` serializes as it is. A table that is
//! not here is not listed; the test below fails when a `pub static` table
//! of `rules/` is missing.

use serde::Serialize;

use super::benign::{BENIGN_EXITS, BenignExit};
use super::category::{CATEGORIES, CAUSE_CLASSES, CategoryInfo, CauseClassInfo};
use super::classify::{CLASS_RULES, ClassRule, EXIT_CLASS_RULES};
use super::content::{CONTENT_RULES, ContentRule};
use super::findings::{FINDING_RULES, FindingInfo};
use super::reasons::{JUDGE_REASONS, JudgeReasonInfo};
use super::tools::{SHELL_TOOLS, TOOL_ROLES, ToolRole};

/// Every rule table, by the name `rules --format json` gives it.
#[derive(Debug, Serialize)]
pub struct Registry {
    /// Is the result a failure? (`content.rs`)
    pub content_rules: &'static [ContentRule],
    /// Why did it fail? First match wins (`classify.rs`).
    pub classification_rules: &'static [ClassRule],
    /// Why did a program that exited non-zero fail? Tried before
    /// `nonzero-exit` (`classify.rs`).
    pub exit_classification_rules: &'static [ClassRule],
    /// The reasons the judge gives when no rule decided (`reasons.rs`).
    pub judge_reasons: &'static [JudgeReasonInfo],
    /// Non-zero exits that are answers, not failures (`benign/exits.rs`).
    pub benign_exits: &'static [BenignExit],
    /// The failure categories (`category.rs`).
    pub categories: &'static [CategoryInfo],
    /// Who has to change for a category's failures to stop (`category.rs`).
    pub cause_classes: &'static [CauseClassInfo],
    /// The defects falseok reports (`findings.rs`).
    pub finding_rules: &'static [FindingInfo],
    /// Which tools read or modify files, for stale edits (`tools.rs`).
    pub tool_roles: &'static [ToolRole],
    /// Tools whose output is a program's (`tools.rs`).
    pub shell_tools: &'static [&'static str],
}

/// The registry.
pub static REGISTRY: Registry = Registry {
    content_rules: CONTENT_RULES,
    classification_rules: CLASS_RULES,
    exit_classification_rules: EXIT_CLASS_RULES,
    judge_reasons: JUDGE_REASONS,
    benign_exits: BENIGN_EXITS,
    categories: CATEGORIES,
    cause_classes: CAUSE_CLASSES,
    finding_rules: FINDING_RULES,
    tool_roles: TOOL_ROLES,
    shell_tools: SHELL_TOOLS,
};

impl Registry {
    /// Every reason id a failure can carry: the classification rules' ids
    /// and the judge's own.
    pub fn reason_ids(&self) -> impl Iterator<Item = &'static str> {
        let (class, exit, judge) = (self.classification_rules, self.exit_classification_rules, self.judge_reasons);
        class.iter().map(|r| r.id).chain(exit.iter().map(|r| r.id)).chain(judge.iter().map(|r| r.id))
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    /// Every `.rs` file under `dir`, recursively.
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The names of the `pub static NAME: &[…]` tables declared in `text`.
    fn tables(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim_start().strip_prefix("pub static ")?.split_once(": &[").map(|(n, _)| n.to_string()))
            .collect()
    }

    #[test]
    fn every_public_table_of_rules_is_in_the_registry() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
        let mut files = Vec::new();
        sources(&dir, &mut files);
        let this = std::fs::read_to_string(dir.join("registry.rs")).unwrap();
        let init = this.split("pub static REGISTRY: Registry = Registry {").nth(1).unwrap().split("};").next().unwrap();
        let mut found = Vec::new();
        for file in files.iter().filter(|f| !f.ends_with("registry.rs")) {
            found.extend(tables(&std::fs::read_to_string(file).unwrap()));
        }
        assert!(found.len() >= 10, "the scan finds the tables: {found:?}");
        for name in &found {
            assert!(init.contains(&format!(": {name},")), "the table {name} is not in rules::REGISTRY");
        }
    }

    #[test]
    fn the_json_holds_every_row_of_every_table() {
        let v = serde_json::to_value(&REGISTRY).unwrap();
        let len = |key: &str| v[key].as_array().map(Vec::len);
        assert_eq!(len("content_rules"), Some(CONTENT_RULES.len()));
        assert_eq!(len("classification_rules"), Some(CLASS_RULES.len()));
        assert_eq!(len("exit_classification_rules"), Some(EXIT_CLASS_RULES.len()));
        assert_eq!(len("judge_reasons"), Some(JUDGE_REASONS.len()));
        assert_eq!(len("benign_exits"), Some(BENIGN_EXITS.len()));
        assert_eq!(len("categories"), Some(CATEGORIES.len()));
        assert_eq!(len("cause_classes"), Some(CAUSE_CLASSES.len()));
        assert_eq!(len("finding_rules"), Some(FINDING_RULES.len()));
        assert_eq!(len("tool_roles"), Some(TOOL_ROLES.len()));
        assert_eq!(len("shell_tools"), Some(SHELL_TOOLS.len()));
        // Rows are named by their id or slug, never by an enum's debug name.
        assert_eq!(v["categories"][0]["slug"], "missing-required-param");
        assert_eq!(v["categories"][0]["class"], "arguments");
        assert!(v["finding_rules"][0].get("rule").is_none());
        let ids: Vec<&str> = REGISTRY.reason_ids().collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "a reason id names one thing");
    }
}
