//! `--format markdown`: the postmortem document, GitHub-flavoured. Untrusted
//! text appears only inside code spans (fenced longer than any backtick run
//! in it) or escaped table cells, always sanitized to one line first.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::LazyLock;

use regex::Regex;

use super::rows::{self, Value};
use super::{percent, plural};
use crate::error::Result;
use crate::report::{Report, rate};
use crate::rules::Category;
use crate::sanitize::{one_line, truncate};

/// An inline code span holding `text` safely, however many backticks it has.
pub fn code(text: &str) -> String {
    let t = one_line(text);
    if t.is_empty() {
        return "` `".to_string();
    }
    let longest = t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if t.starts_with('`') || t.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{t}{pad}{fence}")
}

/// Plain text for a table cell or prose: one line, Markdown and HTML
/// specials escaped. A word GitHub would make live, however escaped (a
/// URL, `www.`, an e-mail address or `@mention`, an issue reference, an
/// `:emoji:`), goes into a code span: GitHub links, mentions and
/// replaces nothing inside code.
pub fn text(s: &str) -> String {
    let clean = one_line(s);
    let mut out = String::with_capacity(clean.len());
    for (i, word) in clean.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if is_live(word) {
            out.push_str(&code(word).replace('|', "\\|"));
            continue;
        }
        for c in word.chars() {
            match c {
                '|' => out.push_str("\\|"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '*' | '_' | '[' | ']' | '`' | '\\' | '#' | '!' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
    out
}

/// Would GitHub turn `word` into a link, a mention or an emoji? Its
/// autolinks and mentions work on the rendered text, after escapes.
fn is_live(word: &str) -> bool {
    static LIVE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)://|www\.|@|#\d|\bgh-\d|:[a-z0-9_+-]+:").expect("live-word pattern"));
    LIVE.is_match(word)
}

/// A label of a Mermaid pie chart: one line, no quote to end it early.
fn mermaid_label(s: &str) -> String {
    one_line(s).replace('"', "#quot;")
}

/// A code span in a table cell: pipes must be escaped even inside code.
fn cell_code(s: &str) -> String {
    code(s).replace('|', "\\|")
}

/// A table's header line and its alignment line: the first `left` columns
/// aligned left, the others (numbers) right.
fn table_head(out: &mut dyn Write, columns: &[&str], left: usize) -> Result<()> {
    let align: Vec<&str> = (0..columns.len()).map(|i| if i < left { "---" } else { "---:" }).collect();
    writeln!(out, "| {} |", columns.join(" | "))?;
    writeln!(out, "|{}|", align.join("|"))?;
    Ok(())
}

/// A section's row (`super::rows`) as a table row, without the columns
/// `skip` names.
fn row_line(out: &mut dyn Write, row: &[Value<'_>], skip: &[&str]) -> Result<()> {
    let cells: Vec<String> = row
        .iter()
        .filter(|v| !skip.contains(&v.key()))
        .map(|v| match v {
            Value::Tool(s) | Value::Category(s) => cell_code(s),
            Value::Count(_, n) | Value::Alarm(_, n) => n.to_string(),
            Value::OfThem { tries, ok } => format!("{} ({})", tries.1, ok.1),
            Value::Text { text: t, .. } => text(t),
        })
        .collect();
    writeln!(out, "| {} |", cells.join(" | "))?;
    Ok(())
}

/// Cost rows shown; JSON has them all.
const COST_ROWS: usize = 12;
const TOP_MESSAGES: usize = 15;

/// Writes the report as Markdown (for a pull request or a job summary).
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let (report, outcome) = (view.report, view.verdict);
    let t = &report.totals;
    let sources: Vec<String> = report
        .sources
        .iter()
        .map(|s| match s.coverage_note() {
            Some(n) => format!("{} ({}; {n})", code(&s.path), text(&s.format)),
            None => format!("{} ({})", code(&s.path), text(&s.format)),
        })
        .collect();
    writeln!(out, "# falseok postmortem")?;
    writeln!(out)?;
    writeln!(out, "Sources: {}.", if sources.is_empty() { "none".to_string() } else { sources.join(", ") })?;
    writeln!(out)?;
    writeln!(out, "| calls | errors | error rate | flagged | hidden | hidden share | sessions |")?;
    writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|")?;
    writeln!(
        out,
        "| {} | {} | {} | {} | **{}** | {} | {} |",
        t.calls,
        t.errors,
        percent(rate(t.errors, t.calls), 2),
        t.flagged_errors,
        t.hidden_errors,
        percent(rate(t.hidden_errors, t.errors), 1),
        t.sessions
    )?;
    writeln!(out)?;
    writeln!(out, "**{}**", text(&super::verdict_line(report, outcome.map(|(v, _)| v)).0))?;
    if let Some((o, g)) = outcome {
        writeln!(out)?;
        writeln!(out, "{}", text(&o.sentence(report, g)))?;
    }

    // Per tool.
    let mut tools: Vec<_> = report.tools.iter().collect();
    tools.sort_by(|a, b| b.errors.cmp(&a.errors).then(b.calls.cmp(&a.calls)).then(a.tool.cmp(&b.tool)));
    writeln!(out)?;
    writeln!(out, "## Per tool")?;
    writeln!(out)?;
    writeln!(out, "| tool | calls | errors | flagged | content | hidden | error rate |")?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|")?;
    for tr in &tools {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell_code(&tr.tool),
            tr.calls,
            tr.errors,
            tr.flagged_errors,
            tr.content_errors,
            tr.hidden_errors,
            percent(tr.error_rate, 2)
        )?;
    }

    why_failed(report, &tools, out)?;
    after_failure(report, out)?;
    schema_section(report, out)?;
    Ok(())
}

/// Categories and reasons per tool, like the founding postmortem's table,
/// and the most frequent messages.
fn why_failed(report: &Report, tools: &[&crate::report::ToolReport], out: &mut dyn Write) -> Result<()> {
    let t = &report.totals;
    if t.errors > 0 {
        writeln!(out)?;
        writeln!(out, "## Why calls failed")?;
        for tr in tools.iter().filter(|t| t.errors > 0) {
            writeln!(out)?;
            writeln!(
                out,
                "### {}: {} in {} ({})",
                text(&tr.tool),
                plural(tr.errors, "error"),
                plural(tr.calls, "call"),
                percent(tr.error_rate, 2)
            )?;
            writeln!(out)?;
            writeln!(out, "| category | rule | reason | count | share | hidden |")?;
            writeln!(out, "|---|---|---|---:|---:|---:|")?;
            for r in report.reasons.iter().filter(|r| r.tool == tr.tool) {
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    cell_code(&r.category),
                    cell_code(&r.reason),
                    text(&r.label),
                    r.errors,
                    percent(r.errors as f64 / tr.errors as f64, 1),
                    r.hidden_errors
                )?;
            }
            writeln!(out)?;
            writeln!(out, "{}", text(&super::classes_line(tr)))?;
            if let Some(h) = report.headlines.iter().find(|h| h.tool == tr.tool) {
                writeln!(out)?;
                writeln!(out, "**{}**", text(&h.sentence))?;
            }
        }
        let mut by_cat: BTreeMap<&str, u64> = BTreeMap::new();
        for c in &report.categories {
            *by_cat.entry(c.category.as_str()).or_default() += c.errors;
        }
        let mut cats: Vec<(&str, u64)> = by_cat.into_iter().collect();
        cats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        writeln!(out)?;
        writeln!(out, "### All tools")?;
        writeln!(out)?;
        writeln!(out, "```mermaid")?;
        writeln!(out, "pie title Errors by category")?;
        for (c, n) in &cats {
            writeln!(out, "    \"{}\" : {n}", mermaid_label(c))?;
        }
        writeln!(out, "```")?;
        writeln!(out)?;
        writeln!(out, "| category | errors | share |")?;
        writeln!(out, "|---|---:|---:|")?;
        for (c, n) in &cats {
            writeln!(out, "| {} | {n} | {} |", cell_code(c), percent(*n as f64 / t.errors as f64, 1))?;
        }

        // Hidden errors.
        writeln!(out)?;
        writeln!(out, "## Hidden errors")?;
        writeln!(out)?;
        if t.hidden_errors == 0 {
            writeln!(out, "None: every error was flagged by the source.")?;
        } else {
            writeln!(
                out,
                "{} of {} errors came back as successes: the text says the call failed, the stored flag says it worked. Error metrics, retry logic and consecutive-failure guards that read the flag saw none of them.",
                t.hidden_errors, t.errors
            )?;
            writeln!(out)?;
            writeln!(
                out,
                "**Fix:** return an error result with the error flag set (`Err(…)`, `is_error: true`), not a success string that starts with `Error:`."
            )?;
            writeln!(out)?;
            writeln!(out, "| tool | hidden | of errors |")?;
            writeln!(out, "|---|---:|---:|")?;
            for tr in tools.iter().filter(|t| t.hidden_errors > 0) {
                writeln!(out, "| {} | {} | {} |", cell_code(&tr.tool), tr.hidden_errors, tr.errors)?;
            }
        }

        // Recommended fixes.
        writeln!(out)?;
        writeln!(out, "## Recommended fixes")?;
        writeln!(out)?;
        for (c, n) in &cats {
            if let Some(cat) = Category::from_slug(c) {
                writeln!(out, "- **`{c}`** ({n}): {}", text(cat.fix()))?;
            }
        }

        // Top messages.
        writeln!(out)?;
        writeln!(out, "## Top messages")?;
        writeln!(out)?;
        writeln!(out, "| count | tool | message | example |")?;
        writeln!(out, "|---:|---|---|---|")?;
        let mut msgs: Vec<_> = report.feedback.iter().collect();
        msgs.sort_by(|a, b| b.count.cmp(&a.count).then(a.tool.cmp(&b.tool)).then(a.template.cmp(&b.template)));
        for m in msgs.iter().take(TOP_MESSAGES) {
            let example = report.examples.get(&(m.tool.clone(), m.template.clone())).map_or("", String::as_str);
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                m.count,
                cell_code(&m.tool),
                cell_code(&truncate(&m.template, 120)),
                cell_code(&truncate(example, 120))
            )?;
        }
        if msgs.len() > TOP_MESSAGES {
            writeln!(out)?;
            writeln!(out, "{} more messages in `--format json` (`feedback`).", msgs.len() - TOP_MESSAGES)?;
        }
    }

    Ok(())
}

/// Recovery, streaks and repairs: what the agent did after each failure.
fn after_failure(report: &Report, out: &mut dyn Write) -> Result<()> {
    if !report.recovery.is_empty() {
        writeln!(out)?;
        writeln!(out, "## Recovery")?;
        writeln!(out)?;
        let columns = [
            "tool",
            "category",
            "failures",
            "recovered",
            "at 1",
            "at 2",
            "at 3",
            "median",
            "identical retries (ok)",
            "abandoned",
        ];
        table_head(out, &columns, 2)?;
        for r in &report.recovery {
            row_line(out, &rows::recovery(r), &[])?;
        }
    }
    let cost = super::cost_rows(report);
    if !cost.is_empty() {
        writeln!(out)?;
        writeln!(out, "## Cost of failures")?;
        writeln!(out)?;
        writeln!(
            out,
            "Estimates: retries count the calls of the tool after a failure up to its next success (every later call when none came); time runs from the failed call to that success; when the tool never succeeded again, to the next successful call of any tool, or to the session's last recorded time when no call succeeded after it."
        )?;
        writeln!(out)?;
        table_head(out, &["tool", "category", "failures", "retries", "time lost", "per failure", "untimed"], 2)?;
        for r in cost.iter().take(COST_ROWS) {
            row_line(out, &rows::cost(r), &[])?;
        }
        if cost.len() > COST_ROWS {
            writeln!(out)?;
            writeln!(out, "{} more rows in `--format json` (`cost`).", cost.len() - COST_ROWS)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "## Tokens")?;
    writeln!(out)?;
    writeln!(out, "{}.", super::usage_line(report))?;
    let tokens = super::token_rows(report);
    if !tokens.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", super::TOKENS_ABOUT)?;
        writeln!(out)?;
        table_head(out, &rows::TOKENS_HEADER, 2)?;
        for r in tokens.iter().take(COST_ROWS) {
            row_line(out, &rows::tokens(r), &[])?;
        }
        if tokens.len() > COST_ROWS {
            writeln!(out)?;
            writeln!(out, "{} more rows in `--format json` (`cost`).", tokens.len() - COST_ROWS)?;
        }
    }
    let blind: u64 = report.streaks.by_tool.iter().map(|s| s.hidden_at_or_above_threshold).sum();
    if !report.streaks.by_tool.is_empty() {
        writeln!(out)?;
        writeln!(out, "## Streaks")?;
        writeln!(out)?;
        writeln!(
            out,
            "Runs of the same failure in a row; {} reached the guard threshold of {} with hidden errors only, so a guard reading the flag never fired.",
            blind, report.streaks.threshold
        )?;
        writeln!(out)?;
        let at = format!("at or above {}", report.streaks.threshold);
        table_head(out, &["tool", "streaks", "longest", "p50", "p95", &at, "hidden at or above"], 1)?;
        for s in &report.streaks.by_tool {
            // The lengths are in --format json.
            row_line(out, &rows::streaks(s), &["lengths"])?;
        }
    }
    if !report.repairs.is_empty() {
        let mut rows: Vec<_> = report.repairs.iter().collect();
        rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.tool.cmp(&b.tool)).then(a.change.cmp(&b.change)));
        writeln!(out)?;
        writeln!(out, "## Observed repairs")?;
        writeln!(out)?;
        writeln!(out, "| tool | category | change | kind | count |")?;
        writeln!(out, "|---|---|---|---|---:|")?;
        for r in rows.iter().take(TOP_MESSAGES) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} of {} |",
                cell_code(&r.tool),
                cell_code(&r.category),
                cell_code(&r.change),
                text(&r.kind),
                r.count,
                r.of
            )?;
        }
    }
    Ok(())
}

/// Tool schemas, their violations and drift, and the findings.
fn schema_section(report: &Report, out: &mut dyn Write) -> Result<()> {
    let sc = &report.schema;
    if !sc.tools.is_empty() {
        writeln!(out)?;
        writeln!(out, "## Schema")?;
        writeln!(out)?;
        writeln!(out, "| tool | schema | validated | violations | accepted anyway |")?;
        writeln!(out, "|---|---|---:|---:|---:|")?;
        for t in &sc.tools {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell_code(&t.tool),
                text(&t.origin),
                t.validated,
                t.violations,
                t.accepted_violations
            )?;
        }
        if !sc.drift.is_empty() {
            writeln!(out)?;
            writeln!(out, "| drift | tool | parameter | count | recommendation |")?;
            writeln!(out, "|---|---|---|---:|---|")?;
            for d in &sc.drift {
                let param = match &d.value {
                    Some(v) => format!("{} = {}", d.param, v),
                    None => d.param.clone(),
                };
                writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} |",
                    d.rule,
                    cell_code(&d.tool),
                    cell_code(&truncate(&param, 80)),
                    d.count,
                    text(&d.recommendation)
                )?;
            }
        }
    }
    writeln!(out)?;
    writeln!(out, "_Generated by falseok {}._", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("line\nbreak\u{1b}[2J"), "`line break`");
        assert_eq!(cell_code("a|b"), "`a\\|b`");
        assert_eq!(code(""), "` `");
    }

    #[test]
    fn text_escapes() {
        assert_eq!(text("<script>|*x*"), "&lt;script&gt;\\|\\*x\\*");
        assert_eq!(text("~~gone~~"), "\\~\\~gone\\~\\~");
    }

    /// Issue 22, F24: nothing in a heading or prose becomes a link, a
    /// mention, an issue reference or an emoji on GitHub.
    #[test]
    fn text_is_never_live_on_github() {
        let got = text(
            "[click](http://evil.example) x http://autolink.example @octocat www.evil.example a@b.io :smile: #12 ok|x",
        );
        assert_eq!(
            got,
            "`[click](http://evil.example)` x `http://autolink.example` `@octocat` `www.evil.example` `a@b.io` `:smile:` `#12` ok\\|x"
        );
        assert_eq!(text("ftp://h/a|b"), "`ftp://h/a\\|b`", "pipes stay escaped in a table");
        assert_eq!(text("Error: exit 1 at 12:30"), "Error: exit 1 at 12:30");
    }

    /// Issue 22, F14: strings a merged report brings (categories, kinds,
    /// formats) are sanitized like any trace text.
    #[test]
    fn report_strings_are_sanitized() {
        let mut r = crate::aggregate::Aggregator::new(Default::default(), Default::default()).finish();
        let evil = "\u{1b}[31m\u{1b}]8;;http://e.example\u{7}L\u{1b}]8;;\u{7}\u{202e}`x|\"";
        r.sources.push(crate::report::SourceReport::new("p", evil));
        r.totals.calls = 1;
        r.totals.errors = 1;
        r.tools.push(crate::report::ToolReport { tool: "t".into(), calls: 1, errors: 1, ..Default::default() });
        r.categories.push(crate::report::CategoryRow {
            category: evil.into(),
            tool: "t".into(),
            errors: 1,
            hidden_errors: 0,
        });
        r.reasons.push(crate::report::ReasonRow {
            tool: "t".into(),
            category: evil.into(),
            reason: evil.into(),
            label: evil.into(),
            errors: 1,
            hidden_errors: 0,
        });
        let mut out = Vec::new();
        render(&crate::render::View::of(&r), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{out}");
        for label in out.lines().filter(|l| l.starts_with("    \"")) {
            assert_eq!(label.matches('"').count(), 2, "no quote ends a Mermaid label early: {label}");
        }
        for line in out.lines().filter(|l| l.starts_with('|')) {
            let cells = line.replace("\\|", "").matches('|').count();
            assert!(cells >= 4, "{line}");
        }
    }
}
