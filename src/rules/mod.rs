//! The rule registry: content rules (is this text a failure?), classification
//! rules (which category?) and tool roles (which tools read or modify files).
//! All of it is data; this module only compiles and applies it.

pub mod category;
pub mod classify;
pub mod content;
pub mod tools;

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

pub use category::Category;
pub use classify::{CLASS_RULES, ClassRule};
pub use content::{CONTENT_RULES, ContentRule};

/// How sure a content rule is that a match means failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// An error string a specific agent is known to emit.
    High,
    /// A generic shape (`Error: …`) that nearly always means failure.
    Medium,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::High => "high",
            Precision::Medium => "medium",
        }
    }
}

/// Only the head of a result is examined: error messages are short, and a
/// 50 MB tool output must not cost a 50 MB regex scan.
pub const EXAMINED_PREFIX_BYTES: usize = 4096;

struct Compiled {
    content: RegexSet,
    classify: RegexSet,
    wrapper: Regex,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    content: RegexSet::new(CONTENT_RULES.iter().map(|r| r.pattern)).expect("content rules compile"),
    classify: RegexSet::new(CLASS_RULES.iter().map(|r| r.pattern)).expect("class rules compile"),
    wrapper: Regex::new(content::PERI_WRAPPER).expect("wrapper compiles"),
});

fn in_scope(scope: &[&str], tool: &str) -> bool {
    scope.is_empty() || scope.contains(&tool)
}

/// The head of `text` that rules look at: leading whitespace trimmed, cut at
/// a character boundary.
pub fn examined(text: &str) -> &str {
    let t = text.trim_start();
    if t.len() <= EXAMINED_PREFIX_BYTES {
        return t;
    }
    let mut end = EXAMINED_PREFIX_BYTES;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    &t[..end]
}

/// The first content rule (in registry order) that says `text`, returned by
/// `tool`, is a failure.
pub fn detect(tool: &str, text: &str) -> Option<&'static ContentRule> {
    let head = examined(text);
    let matches = COMPILED.content.matches(head);
    matches.iter().map(|i| &CONTENT_RULES[i]).find(|r| in_scope(r.tools, tool))
}

/// `text` without Peri's `Tool execution failed: <Tool> - ` wrapper.
pub fn unwrap_text(text: &str) -> &str {
    let head = text.trim_start();
    match COMPILED.wrapper.find(head) {
        Some(m) => &head[m.end()..],
        None => head,
    }
}

/// The first classification rule for the (unwrapped) text of a failed call.
/// `None` means no rule knows it: the category is `other`.
pub fn classify(tool: &str, text: &str) -> Option<&'static ClassRule> {
    let head = examined(unwrap_text(text));
    let matches = COMPILED.classify.matches(head);
    matches.iter().map(|i| &CLASS_RULES[i]).find(|r| in_scope(r.tools, tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_tool(scope: &[&'static str]) -> &'static str {
        scope.first().copied().unwrap_or("SomeTool")
    }

    #[test]
    fn every_content_rule_has_examples_that_behave() {
        for rule in CONTENT_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let re = Regex::new(rule.pattern).unwrap();
            for text in rule.fires_on {
                assert!(re.is_match(examined(text)), "{} must fire on {text:?}", rule.id);
                assert!(detect(tool, text).is_some(), "{text:?} must be detected");
            }
            for text in rule.ignores {
                assert!(!re.is_match(examined(text)), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn content_rule_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in CONTENT_RULES {
            assert!(seen.insert(r.id), "duplicate content rule {}", r.id);
        }
        for r in CLASS_RULES {
            assert!(seen.insert(r.id), "rule id {} used twice", r.id);
        }
    }

    #[test]
    fn every_class_rule_is_first_on_its_examples() {
        for rule in CLASS_RULES {
            assert!(!rule.fires_on.is_empty(), "{} has no positive example", rule.id);
            assert!(!rule.ignores.is_empty(), "{} has no negative example", rule.id);
            let tool = sample_tool(rule.tools);
            let re = Regex::new(rule.pattern).unwrap();
            for text in rule.fires_on {
                let got = classify(tool, text).map(|r| r.id);
                assert_eq!(got, Some(rule.id), "{text:?} should be classified by {}", rule.id);
            }
            for text in rule.ignores {
                assert!(!re.is_match(text), "{} must ignore {text:?}", rule.id);
            }
        }
    }

    #[test]
    fn tool_scope_limits_rules() {
        // The cross mark is only an error marker for folder_operations.
        assert!(detect("folder_operations", "✗ Folder not found: /x").is_some());
        assert!(detect("Bash", "✗ 2 tests failed").is_none());
        // subagent_type rules only classify the Agent tool.
        let text = "Error: please provide subagent_type parameter";
        assert_eq!(classify("Agent", text).unwrap().id, "agent-missing-subagent-type");
        assert_ne!(classify("Other", text).map(|r| r.id), Some("agent-missing-subagent-type"));
    }

    #[test]
    fn wrapper_is_stripped_before_classifying() {
        let pre = "Error: old_string not found in /a.rs";
        let post = "Tool execution failed: Edit - Error: old_string not found in /a.rs\nPlease Read this file";
        assert_eq!(classify("Edit", pre).unwrap().id, classify("Edit", post).unwrap().id);
        assert_eq!(unwrap_text(post).lines().next(), Some(pre));
        assert_eq!(unwrap_text("plain"), "plain");
    }

    #[test]
    fn benign_texts_are_not_errors() {
        let benign = [
            ("Grep", "src/edit.rs:42:        return Ok(format!(\"Error: old_string not found\"));"),
            ("Read", "     1\tError: connection refused\n     2\tERROR: disk full"),
            ("Bash", "building...\n[Exit code: 1]"),
            ("Bash", "[Command completed with exit code 1]"),
            ("Grep", "No matches found."),
            ("Glob", "No files found."),
            ("ExecuteExtraTool", "No completed background agent results available yet."),
        ];
        for (tool, text) in benign {
            assert!(detect(tool, text).is_none(), "{tool}: {text:?} is not an error");
        }
    }

    #[test]
    fn unclassified_error_is_other() {
        assert!(classify("Edit", "Error: unexpected state while applying the edit to /a.rs").is_none());
    }

    #[test]
    fn huge_text_is_cut_at_a_char_boundary() {
        let text = format!("Error: {}", "é".repeat(EXAMINED_PREFIX_BYTES));
        let head = examined(&text);
        assert!(head.len() <= EXAMINED_PREFIX_BYTES);
        assert!(detect("Read", &text).is_some());
    }
}
