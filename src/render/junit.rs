//! `--format junit`: one testsuite per source, one testcase per tool, a
//! failure where the gate fails for that tool. XML-safe text throughout.

use std::io::Write;

use crate::error::Result;
use crate::sanitize::one_line;

/// Text safe in XML 1.0 attributes and content: one line, no characters
/// XML forbids, the five specials escaped.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A testcase fails where the gate failed for its tool; with no gate
/// (`scan`), where the tool has hidden errors.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let (report, verdict) = (view.report, view.verdict.map(|v| v.0));
    let mut suites = Vec::new();
    let (mut total_tests, mut total_failures) = (0usize, 0usize);
    for (si, src) in report.sources.iter().enumerate() {
        let tools = report.source_tools.get(si).map(Vec::as_slice).unwrap_or(&[]);
        let mut cases = String::new();
        let mut failures = 0;
        for t in tools {
            let reasons: Vec<String> = match verdict {
                Some(v) => v
                    .failures
                    .iter()
                    .filter(|f| f.source.as_deref() == Some(&src.path) && f.tool.as_deref() == Some(&t.tool))
                    .map(|f| f.text.clone())
                    .collect(),
                None if t.hidden_errors > 0 => {
                    vec![format!("{} hidden error{}", t.hidden_errors, if t.hidden_errors == 1 { "" } else { "s" })]
                }
                None => Vec::new(),
            };
            cases.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"falseok.{}\">\n",
                xml(&t.tool),
                xml(&src.format)
            ));
            if !reasons.is_empty() {
                failures += 1;
                cases.push_str(&format!(
                    "      <failure message=\"{}\">{} calls, {} errors ({} hidden), error rate {:.4}</failure>\n",
                    xml(&reasons.join("; ")),
                    t.calls,
                    t.errors,
                    t.hidden_errors,
                    t.error_rate
                ));
            }
            cases.push_str(&format!(
                "      <system-out>calls={} errors={} flagged={} hidden={}</system-out>\n    </testcase>\n",
                t.calls, t.errors, t.flagged_errors, t.hidden_errors
            ));
        }
        let mut tests = tools.len();
        if tests == 0 {
            cases.push_str("    <testcase name=\"no tool calls\" classname=\"falseok\"/>\n");
            tests = 1;
        }
        total_tests += tests;
        total_failures += failures;
        suites.push(format!(
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n{cases}  </testsuite>\n",
            xml(&src.path)
        ));
    }
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(out, "<testsuites name=\"falseok\" tests=\"{total_tests}\" failures=\"{total_failures}\" errors=\"0\">")?;
    for s in suites {
        write!(out, "{s}")?;
    }
    writeln!(out, "</testsuites>")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::xml;

    /// Found by the rules_text fuzz target (a wrong assertion in the target,
    /// fixed there): every `&` in the output starts an entity.
    #[test]
    fn apostrophes_become_entities() {
        let x = xml("工具 'Task' 不存在");
        assert_eq!(x, "工具 &apos;Task&apos; 不存在");
        let bare = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().fold(x, |acc, e| acc.replace(e, ""));
        assert!(!bare.contains(['&', '<', '>', '"', '\'']));
    }

    #[test]
    fn xml_safe() {
        assert_eq!(xml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(xml("nul\0bell\u{7}\u{1b}[31m"), "nul bell");
        assert_eq!(xml("\u{FFFF}"), "\u{FFFD}");
    }
}
