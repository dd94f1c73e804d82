//! The example calls: the drill-down embedded in the page.

use std::fmt::Write as _;

use super::{
    Anchors, DRILL_PAIRS, EXAMPLES_SHOWN, Example, LONG_ROWS, Page, TOP_TOOLS, esc, esc_cut, escape, escape_lines,
    section_start, summary,
};
use crate::render::plural;
use crate::report::{Report, ToolReport};
use crate::sanitize::one_line;

/// The example calls: per category (most errors first), per tool, the
/// first `EXAMPLES_SHOWN`, with "N of M shown".
pub(super) fn drill_section(
    report: &Report,
    page: &Page,
    tools: &[&ToolReport],
    categories: &[(String, u64, u64, usize)],
    anchors: &Anchors,
    h: &mut String,
) {
    if report.totals.errors == 0 {
        return;
    }
    section_start(h, "examples-section", "Example calls");
    h.push_str(
        "<p>The first failed calls of each category and tool, as <code>falseok examples</code> shows them: secrets redacted, long text cut.</p>\n",
    );
    // The pairs whose examples are embedded: most errors first.
    let top: std::collections::BTreeSet<&str> = tools.iter().take(TOP_TOOLS).map(|t| t.tool.as_str()).collect();
    let mut pairs: Vec<_> = report.categories.iter().filter(|c| top.contains(c.tool.as_str())).collect();
    pairs.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.tool.cmp(&b.tool)).then(a.category.cmp(&b.category)));
    let embedded: std::collections::BTreeSet<(&str, &str)> =
        pairs.iter().take(DRILL_PAIRS).map(|c| (c.tool.as_str(), c.category.as_str())).collect();
    for (c, n, _, _) in categories.iter().take(LONG_ROWS) {
        let Some(id) = anchors.category(c) else { continue };
        let _ = writeln!(h, "<section class=\"category\" id=\"{id}\">\n<h3>{} ({})</h3>", esc(c), plural(*n, "error"));
        let mut rows: Vec<_> = report.categories.iter().filter(|r| r.category == *c).collect();
        rows.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.tool.cmp(&b.tool)));
        let outside: Vec<_> = rows.iter().filter(|r| !top.contains(r.tool.as_str())).collect();
        for r in rows.iter().filter(|r| top.contains(r.tool.as_str())) {
            let Some(pair) = anchors.pair(&r.tool, c) else { continue };
            let examples = page.examples.get(&(r.tool.clone(), c.clone())).map_or(&[][..], Vec::as_slice);
            let shown =
                if embedded.contains(&(r.tool.as_str(), c.as_str())) { examples.len().min(EXAMPLES_SHOWN) } else { 0 };
            let _ = writeln!(
                h,
                "<div class=\"pair\" id=\"{pair}\" data-tool=\"{}\" data-category=\"{}\">\n<h4>{} · {}: <span data-k=\"shown\">{shown}</span> of <span data-k=\"errors\">{}</span> shown</h4>",
                esc(&r.tool),
                esc(c),
                esc_cut(&r.tool, 64),
                esc(c),
                r.errors
            );
            for (i, e) in examples.iter().take(shown).enumerate() {
                example(h, i + 1, e);
            }
            if shown < r.errors as usize {
                let why = if shown == 0 && !embedded.contains(&(r.tool.as_str(), c.as_str())) {
                    format!("only the {DRILL_PAIRS} largest tool and category pairs are embedded; ")
                } else if examples.is_empty() && !page.examples_complete {
                    "examples were kept for the first tool and category pairs only; ".into()
                } else {
                    String::new()
                };
                let limit = r.errors.to_string();
                let all = summary::command(
                    page,
                    &["examples", "--category", c, "--tool", &r.tool, "--limit", &limit],
                    None,
                    true,
                );
                let _ = writeln!(
                    h,
                    "<p class=\"muted\">{why}all of them: {}{}</p>",
                    summary::command_html(&all),
                    summary::window_note(page)
                );
            }
            h.push_str("</div>\n");
        }
        if !outside.is_empty() {
            let n: u64 = outside.iter().map(|r| r.errors).sum();
            let _ = writeln!(
                h,
                "<p class=\"more\">and {} more tools ({}) outside the {TOP_TOOLS} shown.</p>",
                outside.len(),
                plural(n, "error")
            );
        }
        h.push_str("</section>\n");
    }
    h.push_str("</section>\n");
}

/// A tool name as one shell word (quoted when it needs to be).
pub(super) fn shell_word(s: &str) -> String {
    let s = one_line(s);
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@".contains(c)) {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub(super) fn example(h: &mut String, n: usize, e: &Example) {
    let _ = writeln!(
        h,
        "<article class=\"ex\"><p class=\"where\">[{n}] <code class=\"path\">{}</code> · session <code class=\"id\">{}</code> · call {} (<code class=\"id\">{}</code>) · {}</p>",
        esc_cut(&e.source, 120),
        esc_cut(&e.session, 80),
        e.seq,
        esc_cut(&e.call_id, 60),
        esc_cut(&e.tool, 60)
    );
    let _ = writeln!(h, "<p>verdict: {}</p>\n<p>reason: {}</p>", esc(&e.verdict), esc(&e.reason));
    let _ = writeln!(h, "<p>arguments:</p><pre>{}</pre>", esc(&e.arguments));
    if let Some((old, new)) = &e.edit {
        h.push_str("<p><code>old_string</code> → <code>new_string</code>:</p><pre class=\"diff\">");
        for (mark, line) in diff(old, new) {
            let class = match mark {
                '-' => "del",
                '+' => "ins",
                _ => "same",
            };
            // Block spans, no line breaks between them: each is a line.
            let _ = write!(h, "<span class=\"{class}\">{mark} {}</span>", escape(line));
        }
        h.push_str("</pre>\n");
    }
    match &e.result {
        Some(r) => {
            let _ = writeln!(h, "<p>result:</p><pre>{}</pre>", escape_lines(r.trim_end()));
        }
        None => h.push_str("<p>result: (none)</p>\n"),
    }
    h.push_str("</article>\n");
}

/// The lines of `old` and `new` as a diff: `' '` kept, `'-'` only in
/// `old`, `'+'` only in `new`, in order (a longest common subsequence; the
/// texts are cut to a few dozen lines before they get here).
pub(super) fn diff<'a>(old: &'a str, new: &'a str) -> Vec<(char, &'a str)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // lcs[i][j]: the common lines of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(a.len() + b.len()));
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if j == b.len() || (i < a.len() && lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(('-', a[i]));
            i += 1;
        } else {
            out.push(('+', b[j]));
            j += 1;
        }
    }
    out
}
