//! The first screen: the verdict, one line per tool with errors (its
//! counts and first fix), the worst sessions with their grades, the
//! sources, the time span and when the page was made; then the sessions
//! section the summary links to, the `<title>`, and the commands the page
//! prints (they name the PATHs the report read, so they paste as they are).

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::drill::shell_word;
use super::{
    Page, SESSIONS_SHOWN, SUMMARY_SESSIONS, SUMMARY_TOOLS, esc, esc_cut, num, section_start, sources, table_start,
};
use crate::render::{duration, percent, plural};
use crate::report::{Report, SessionRow, ToolReport, rate};
use crate::sanitize::{one_line, truncate};

/// The command `falseok WORDS… PATHS… OPTIONS…` as shell words, each
/// quoted as a shell needs it: the PATHs of `paths` (the report's when
/// `None`), the options every judging command shares, `--no-subagents`
/// only where `subagents` says the command takes it.
pub(super) fn command(page: &Page, words: &[&str], paths: Option<&[&str]>, subagents: bool) -> Vec<String> {
    let mut line = vec!["falseok".to_string()];
    line.extend(words.iter().map(|w| shell_word(w)));
    match paths {
        Some(p) => line.extend(p.iter().map(|p| shell_word(p))),
        None => line.extend(page.scope.paths.iter().map(|p| shell_word(p))),
    }
    line.extend(page.scope.options.iter().filter(|o| subagents || *o != "--no-subagents").map(|o| shell_word(o)));
    line
}

/// A command as the page prints it: code a reader copies whole, which
/// wraps between its words only (a session id or a slug is never cut at
/// its hyphens; a word wider than the screen scrolls in its own box).
pub(super) fn command_html(words: &[String]) -> String {
    let words: Vec<String> = words.iter().map(|w| format!("<span class=\"w\">{}</span>", esc(w))).collect();
    format!("<code class=\"cmd\">{}</code>", words.join(" "))
}

/// The note under a command when the report had filters the command does
/// not take: it reads every call of the PATHs.
pub(super) fn window_note(page: &Page) -> String {
    if page.scope.window.is_empty() {
        return String::new();
    }
    format!(" (it reads every call; this page counts only {})", esc(&page.scope.window.join(" ")))
}

/// "13 days 16 h" from two days on, else as `duration` says it.
fn span_text(ms: u64) -> String {
    let hours = ms / 3_600_000;
    if hours >= 48 { format!("{} days {} h", hours / 24, hours % 24) } else { duration(ms) }
}

fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

fn minute(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// "peri-postmortem.db · calls 2026-05-20 to 2026-05-29 · made 2026-12-05":
/// two reports open in two tabs are told apart.
pub(super) fn title(report: &Report, page: &Page) -> String {
    let names: Vec<String> = report
        .sources
        .iter()
        .take(3)
        .map(|s| {
            let path = s.path.trim_end_matches('/');
            truncate(&one_line(path.rsplit('/').next().unwrap_or(path)), 48)
        })
        .collect();
    let mut parts = vec![match report.sources.len() {
        0 => "no source".to_string(),
        n if n > 3 => format!("{} and {} more", names.join(", "), n - 3),
        _ => names.join(", "),
    }];
    if let Some((a, b)) = page.span {
        parts.push(if day(a) == day(b) {
            format!("calls of {}", day(a))
        } else {
            format!("calls {} to {}", day(a), day(b))
        });
    }
    if let Some(g) = page.generated {
        parts.push(format!("made {}", day(g)));
    }
    format!("{} · falseok postmortem", parts.join(" · "))
}

/// The first screen. `verdict` is the verdict and gate paragraphs, already written.
pub(super) fn summary(report: &Report, page: &Page, tools: &[&ToolReport], verdict: &str, h: &mut String) {
    h.push_str("<section id=\"summary\" aria-label=\"summary\">\n");
    h.push_str(verdict);
    tools_block(report, tools, h);
    sessions_block(page, h);
    h.push_str("<div id=\"summary-scope\">\n<h2>Sources and time span</h2>\n");
    sources(report, h);
    let mut when = Vec::new();
    if let Some((a, b)) = page.span {
        let lasted = u64::try_from((b - a).num_milliseconds()).unwrap_or(0);
        when.push(format!(
            "Calls from <time datetime=\"{}\">{}</time> to <time datetime=\"{}\">{}</time> ({}).",
            a.to_rfc3339(),
            minute(a),
            b.to_rfc3339(),
            minute(b),
            span_text(lasted)
        ));
    } else if report.totals.calls > 0 {
        when.push("No call carries a time.".into());
    }
    if let Some(g) = page.generated {
        when.push(format!(
            "Page made <time id=\"generated\" datetime=\"{}\">{}</time> by falseok {}.",
            g.to_rfc3339(),
            minute(g),
            env!("CARGO_PKG_VERSION")
        ));
    }
    if !when.is_empty() {
        let _ = writeln!(h, "<p class=\"when\">{}</p>", when.join(" "));
    }
    h.push_str("</div>\n</section>\n");
}

/// One line per tool with errors: counts, hidden share, the first fix; the
/// tools without errors folded into one line.
fn tools_block(report: &Report, tools: &[&ToolReport], h: &mut String) {
    let failing: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors > 0).collect();
    let clean: Vec<&&ToolReport> = tools.iter().filter(|t| t.errors == 0).collect();
    if failing.is_empty() && clean.is_empty() {
        return;
    }
    h.push_str("<div id=\"summary-tools\">\n<h2>Tools with errors</h2>\n<ul class=\"lines\">\n");
    for (i, t) in failing.iter().enumerate().take(SUMMARY_TOOLS) {
        let fix = match report.headlines.iter().find(|l| l.tool == t.tool) {
            Some(l) => format!(
                " First fix (<span class=\"id\">{}</span>, {}): {}.",
                esc(&l.category),
                l.category_errors,
                esc(&l.fix)
            ),
            None => String::new(),
        };
        let _ = writeln!(
            h,
            "<li data-tool=\"{}\"><a href=\"#why-{i}\"><b>{}</b></a>: <span data-k=\"errors\">{}</span> {} in {} ({}), <span data-k=\"hidden_errors\">{}</span> hidden ({}).{fix}</li>",
            esc(&t.tool),
            esc_cut(&t.tool, 64),
            t.errors,
            if t.errors == 1 { "error" } else { "errors" },
            plural(t.calls, "call"),
            percent(t.error_rate, 2),
            t.hidden_errors,
            percent(rate(t.hidden_errors, t.errors), 0),
        );
    }
    if failing.len() > SUMMARY_TOOLS {
        let rest = &failing[SUMMARY_TOOLS..];
        let errors: u64 = rest.iter().map(|t| t.errors).sum();
        let _ = writeln!(
            h,
            "<li class=\"more\">and {} more tools with errors ({}), in <a href=\"#tools-section\">the tools table</a>.</li>",
            rest.len(),
            plural(errors, "error")
        );
    }
    if failing.is_empty() {
        h.push_str("<li>No tool call failed.</li>\n");
    }
    if !clean.is_empty() {
        let calls: u64 = clean.iter().map(|t| t.calls).sum();
        let names: Vec<String> = clean.iter().take(8).map(|t| esc_cut(&t.tool, 32)).collect();
        let more = if clean.len() > 8 { ", …" } else { "." };
        let _ = writeln!(
            h,
            "<li class=\"clean\" id=\"summary-clean\">{} without errors ({}): {}{more}</li>",
            plural(clean.len() as u64, "tool"),
            plural(calls, "call"),
            names.join(", ")
        );
    }
    h.push_str("</ul>\n</div>\n");
}

/// The worst sessions, as `falseok sessions` ranks and grades them, each
/// linked to its row in the sessions section.
fn sessions_block(page: &Page, h: &mut String) {
    if page.sessions.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<div id=\"summary-sessions\">\n<h2>Worst sessions <span class=\"muted\">({} of {} graded, as <code>falseok sessions</code> ranks them)</span></h2>\n<ol class=\"lines\">",
        page.sessions.len().min(SUMMARY_SESSIONS),
        page.sessions_graded
    );
    for (i, s) in page.sessions.iter().enumerate().take(SUMMARY_SESSIONS) {
        let _ = writeln!(
            h,
            "<li data-session=\"{}\"><span class=\"grade g{}\" data-k=\"grade\">{}</span> <a href=\"#session-{i}\"><code class=\"id\">{}</code></a> {}: {}.</li>",
            esc(&s.session),
            esc(&s.grade),
            esc(&s.grade),
            esc_cut(&s.session, 48),
            esc_cut(&s.agent, 32),
            esc(&counts(s)),
        );
    }
    h.push_str("</ol>\n</div>\n");
}

/// "41 calls, 6 hidden errors (-18, at most C)": the calls and the reasons of the grade.
fn counts(s: &SessionRow) -> String {
    format!("{}; {}", plural(s.calls, "call"), one_line(&s.reasons.join(", ")))
}

/// The worst sessions in full: grade, score, counts, why, and the `show`
/// command that prints the session call by call.
pub(super) fn sessions_section(page: &Page, h: &mut String) {
    if page.sessions.is_empty() {
        return;
    }
    section_start(h, "sessions-section", "Worst sessions");
    let _ = writeln!(
        h,
        "<p>The {} worst of {} sessions, ranked and graded as <code>falseok sessions</code> does (docs/analyses.md): guard-blind streaks first, then hidden errors, then the grade.</p>",
        page.sessions.len().min(SESSIONS_SHOWN),
        page.sessions_graded
    );
    table_start(
        h,
        ("sessions", false),
        "Sessions, worst first",
        &["grade", "score", "session", "calls", "errors", "hidden", "guard-blind streaks", "why, and its calls"],
    );
    for (i, s) in page.sessions.iter().enumerate().take(SESSIONS_SHOWN) {
        let show = command(page, &["show", &s.session], Some(&[s.source.as_str()]), false);
        let _ = writeln!(
            h,
            "<tr id=\"session-{i}\" data-session=\"{}\"><td data-k=\"grade\" class=\"grade g{}\">{}</td><td data-k=\"score\">{}</td><td><code class=\"id\" title=\"{}\">{}</code> <span class=\"muted\">{}</span></td>{}{}{}{}<td class=\"prose\">{}.<br>{}{}</td></tr>",
            esc(&s.session),
            esc(&s.grade),
            esc(&s.grade),
            s.score,
            esc(&s.session),
            esc_cut(&s.session, 48),
            esc_cut(&s.agent, 32),
            num("calls", s.calls),
            num("errors", s.errors),
            num("hidden_errors", s.hidden_errors),
            num("guard_blind_streaks", s.guard_blind_streaks),
            esc(&s.reasons.join(", ")),
            command_html(&show),
            window_note(page),
        );
    }
    h.push_str("</tbody></table>\n</section>\n");
}
