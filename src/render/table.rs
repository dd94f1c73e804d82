//! `--format table`: the human report. A per-tool table, a per-tool
//! category breakdown like the founding postmortem's, and a one-line verdict.

use std::io::Write;

use comfy_table::{
    Cell, CellAlignment, Color, ColumnConstraint, ContentArrangement, ContentLineStyle, LineStyle, Table, TableStyle,
    Width,
};

use super::rows::{self, Value};
use super::{percent, plural};
use crate::error::Result;
use crate::report::{ReasonRow, Report};
use crate::sanitize::{one_line, truncate};
use unicode_width::UnicodeWidthStr;

/// How a terminal table is drawn: colour and width.
pub struct Style {
    /// Colour the alarms (a colour terminal).
    pub color: bool,
    /// The terminal's width (or `COLUMNS`): tables and text are fitted to
    /// it. `None` (piped output) never cuts.
    pub width: Option<u16>,
}

impl Style {
    /// A name (tool, path, origin) in a table cell, on one line: at most 48
    /// characters, and on a narrow terminal fewer (a quarter of it, at least
    /// 16), cut in the middle so that both ends stay (`mcp__plu…find_symbol`:
    /// an MCP server's tools differ at the end).
    fn name(&self, s: &str) -> String {
        let cap = self.width.map_or(48, |w| (usize::from(w) / 4).clamp(16, 48));
        let s = one_line(s);
        let n = s.chars().count();
        if n <= cap || self.width.is_none() {
            return truncate(&s, cap);
        }
        let head = (cap - 1) * 2 / 5;
        let tail = cap - 1 - head;
        let start: String = s.chars().take(head).collect();
        let end: String = s.chars().skip(n - tail).collect();
        format!("{start}…{end}")
    }
}

const STYLE: TableStyle = TableStyle::new()
    .top_border(LineStyle::new('╭', '─', '┬', '╮'))
    .header_lines(ContentLineStyle::new('│', '│', '│'))
    .header_separator(LineStyle::new('├', '─', '┼', '┤'))
    .content_lines(ContentLineStyle::new('│', '│', '│'))
    .bottom_border(LineStyle::new('╰', '─', '┴', '╯'));

pub(super) fn new_table(style: &Style, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(STYLE).set_header(header.iter().map(Cell::new));
    match style.width {
        Some(w) => t.set_content_arrangement(ContentArrangement::Dynamic).set_width(w),
        None => t.set_content_arrangement(ContentArrangement::Disabled),
    };
    if !style.color {
        t.force_no_tty();
    } else {
        t.enforce_styling();
    }
    t
}

/// How a table is shown on a terminal of known width.
enum Fitted {
    /// As a table; the line saying which columns were left out, if any.
    Table(Option<String>),
    /// Even its narrowest table is too wide: one block of text per row.
    Stacked,
}

/// Fit `t` to the terminal without splitting a word: each column is at
/// least as wide as its longest word (a slug, a number, a header word), and
/// while that is wider than the terminal, the columns of `drop` are left
/// out, in that order. When even that is too wide, the rows are stacked.
fn fit_columns(t: &mut Table, width: usize, drop: &[usize]) -> Fitted {
    let n = t.column_count();
    let words = |c: &Cell| c.content().split_whitespace().map(UnicodeWidthStr::width).max().unwrap_or(0);
    let least: Vec<usize> =
        (0..n).map(|i| t.column_cells_with_header_iter(i).flatten().map(words).max().unwrap_or(0)).collect();
    // Borders and padding: `│ ` before each column, ` ` after, and the last `│`.
    let needed = |shown: &[bool]| least.iter().zip(shown).filter(|(_, s)| **s).map(|(l, _)| l + 3).sum::<usize>() + 1;
    let mut shown = vec![true; n];
    let mut dropped = Vec::new();
    for &i in drop {
        if needed(&shown) <= width {
            break;
        }
        if i < n {
            shown[i] = false;
            dropped.push(header(t, i));
        }
    }
    if needed(&shown) > width {
        return Fitted::Stacked;
    }
    for (i, show) in shown.iter().enumerate() {
        if let Some(col) = t.column_mut(i) {
            if *show {
                // The width comfy-table fixes counts the padding (one space each side).
                let least = u16::try_from(least[i] + 2).unwrap_or(u16::MAX);
                col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(least)));
            } else {
                col.set_constraint(ColumnConstraint::Hidden);
            }
        }
    }
    Fitted::Table((!dropped.is_empty()).then(|| {
        format!("(left out at {width} columns: {}; a wider terminal or --format json shows them)", dropped.join(", "))
    }))
}

fn header(t: &Table, i: usize) -> String {
    t.header().and_then(|h| h.cell_iter().nth(i)).map(Cell::content).unwrap_or_default()
}

/// Write `t` fitted to the terminal (see `fit_columns`): as a table, with
/// a line below it naming the columns left out, or, on a terminal too
/// narrow for it, one block per row: the first cell, then `header value`
/// pairs (the prose fitting of `render` wraps them at words).
pub(super) fn write_table(out: &mut dyn Write, t: &mut Table, style: &Style, drop: &[usize]) -> Result<()> {
    let Some(width) = style.width.map(usize::from) else {
        writeln!(out, "{t}")?;
        return Ok(());
    };
    match fit_columns(t, width, drop) {
        Fitted::Table(note) => {
            writeln!(out, "{t}")?;
            if let Some(note) = note {
                writeln!(out, "{note}")?;
            }
        }
        Fitted::Stacked => {
            let headers: Vec<String> = (0..t.column_count()).map(|i| header(t, i)).collect();
            for row in t.row_iter() {
                let cells: Vec<String> = row.cell_iter().map(Cell::content).collect();
                let Some((first, rest)) = cells.split_first() else { continue };
                writeln!(out, "• {first}")?;
                let pairs: Vec<String> = rest
                    .iter()
                    .zip(headers.iter().skip(1))
                    .filter(|(v, _)| !v.is_empty())
                    .map(|(v, h)| format!("{h}: {v}"))
                    .collect();
                writeln!(out, "    {}", pairs.join(" · "))?;
            }
        }
    }
    Ok(())
}

pub(super) fn right_align(t: &mut Table, from: usize) {
    let n = t.column_count();
    for i in from..n {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
}

pub(super) fn count_cell(n: u64, alarm: bool) -> Cell {
    let c = Cell::new(n);
    if alarm && n > 0 { c.fg(Color::Red) } else { c }
}

/// A name (tool, path, origin) on one line, at most 48 characters.
fn name(s: &str) -> String {
    truncate(&one_line(s), 48)
}

/// A cell of report text: sanitized (in a merged report every string
/// comes from a file).
fn text_cell(s: &str) -> Cell {
    Cell::new(one_line(s))
}

/// A section's row (`super::rows`) as table cells, the tool's name cut by
/// `tool` (`Style::name`, or at 48 characters whatever the width).
fn cells(style: &Style, row: &[Value<'_>], tool: fn(&Style, &str) -> String) -> Vec<Cell> {
    row.iter()
        .map(|v| match v {
            Value::Tool(t) => Cell::new(tool(style, t)),
            Value::Category(c) => text_cell(c),
            Value::Count(_, n) => Cell::new(n),
            Value::Alarm(_, n) => count_cell(*n, style.color),
            Value::OfThem { tries, ok } => Cell::new(format!("{} ({} ok)", tries.1, ok.1)),
            Value::Text { text, .. } => Cell::new(text),
        })
        .collect()
}

/// Writes the report as terminal tables and text.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let (report, style, gate) = (view.report, &view.style, view.verdict.map(|(v, _)| v));
    match style.width {
        None => render_all(report, gate, style, out),
        Some(w) => {
            let mut text = Vec::new();
            render_all(report, gate, style, &mut text)?;
            let text = String::from_utf8_lossy(&text);
            out.write_all(super::fit(&text, usize::from(w)).as_bytes())?;
            Ok(())
        }
    }
}

fn render_all(report: &Report, gate: Option<&crate::gate::Verdict>, style: &Style, out: &mut dyn Write) -> Result<()> {
    for s in &report.sources {
        let coverage = s.coverage_note().map(|n| format!(", {n}")).unwrap_or_default();
        writeln!(
            out,
            "{}: {} trace, {}, {}{coverage}",
            name(&s.path),
            name(&s.format),
            plural(s.sessions, "session"),
            plural(s.calls, "call")
        )?;
    }
    let tot = &report.totals;
    if tot.calls == 0 {
        writeln!(out)?;
        writeln!(out, "No tool calls found{}.", if report.sources.is_empty() { "" } else { " (check the filters)" })?;
        return Ok(());
    }

    // Per tool, most errors first.
    let mut tools: Vec<_> = report.tools.iter().collect();
    tools.sort_by(|a, b| b.errors.cmp(&a.errors).then(b.calls.cmp(&a.calls)).then(a.tool.cmp(&b.tool)));
    let mut t = new_table(style, &["tool", "calls", "errors", "flagged", "content", "hidden", "error rate"]);
    for tr in &tools {
        t.add_row(vec![
            Cell::new(style.name(&tr.tool)),
            Cell::new(tr.calls),
            Cell::new(tr.errors),
            Cell::new(tr.flagged_errors),
            Cell::new(tr.content_errors),
            count_cell(tr.hidden_errors, style.color),
            Cell::new(percent(tr.error_rate, 2)),
        ]);
    }
    t.add_row(vec![
        Cell::new("total"),
        Cell::new(tot.calls),
        Cell::new(tot.errors),
        Cell::new(tot.flagged_errors),
        Cell::new(tot.content_errors),
        count_cell(tot.hidden_errors, style.color),
        Cell::new(percent(crate::report::rate(tot.errors, tot.calls), 2)),
    ]);
    right_align(&mut t, 1);
    writeln!(out)?;
    write_table(out, &mut t, style, &[4, 3, 6, 2])?;

    // Per tool with errors: category, reason, count, share.
    for tr in tools.iter().filter(|t| t.errors > 0) {
        let rows: Vec<&ReasonRow> = report.reasons.iter().filter(|r| r.tool == tr.tool).collect();
        let mut t = new_table(style, &["category", "reason", "count", "share", "hidden"]);
        for r in rows {
            t.add_row(vec![
                text_cell(&r.category),
                text_cell(&r.label),
                Cell::new(r.errors),
                Cell::new(percent(r.errors as f64 / tr.errors as f64, 1)),
                count_cell(r.hidden_errors, style.color),
            ]);
        }
        right_align(&mut t, 2);
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} in {} ({}), {} hidden",
            name(&tr.tool),
            plural(tr.errors, "error"),
            plural(tr.calls, "call"),
            percent(tr.error_rate, 2),
            tr.hidden_errors
        )?;
        write_table(out, &mut t, style, &[3])?;
        writeln!(out, "{}", super::classes_line(tr))?;
        if let Some(h) = report.headlines.iter().find(|h| h.tool == tr.tool) {
            writeln!(out, "→ {}", one_line(&h.sentence))?;
        }
    }

    sequences(report, style, out)?;
    guard_section(report, style, out)?;
    schema_section(report, style, out)?;

    // Findings by rule.
    let mut by_rule: Vec<(&str, usize)> = Vec::new();
    for f in &report.findings {
        match by_rule.iter_mut().find(|(r, _)| *r == f.rule.as_str()) {
            Some(e) => e.1 += 1,
            None => by_rule.push((f.rule.as_str(), 1)),
        }
    }
    if !by_rule.is_empty() {
        by_rule.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = by_rule.iter().map(|(r, n)| format!("{n} {r}")).collect();
        writeln!(out)?;
        writeln!(out, "Findings: {} (listed by --format json)", list.join(", "))?;
    }
    if let Some(counts) = report.suppressions.summary() {
        let expired = report.suppressions.entries.iter().filter(|e| e.expired).count();
        let expired = if expired > 0 { format!("; {expired} expired") } else { String::new() };
        writeln!(out, "Suppressions: {counts}{expired} (the findings stay listed; check does not count them)")?;
    }
    writeln!(out)?;
    writeln!(out, "{}", verdict(report, gate, style))?;
    Ok(())
}

/// What the live guard did in the scanned sessions: one line of totals,
/// then its interventions, newest sessions' last (JSON has them all).
fn guard_section(report: &Report, style: &Style, out: &mut dyn Write) -> Result<()> {
    let all: Vec<(&crate::report::GuardSession, &crate::report::Intervention)> =
        report.guard.iter().flat_map(|g| g.interventions.iter().map(move |i| (g, i))).collect();
    if all.is_empty() {
        return Ok(());
    }
    let mut t = new_table(style, &["session", "agent", "tool", "action", "category", "run", "recovered"]);
    for (g, i) in all.iter().take(SECTION_ROWS) {
        let session: String = g.session.chars().take(12).collect();
        let recovered = match i.recovered_after {
            Some(n) => format!("after {}", plural(n, "result")),
            None => "not yet".to_string(),
        };
        t.add_row(vec![
            text_cell(&session),
            text_cell(&g.agent),
            Cell::new(style.name(&i.tool)),
            text_cell(&i.action),
            text_cell(i.category.as_deref().unwrap_or("")),
            Cell::new(i.streak),
            text_cell(&recovered),
        ]);
    }
    if let Some(col) = t.column_mut(5) {
        col.set_cell_alignment(CellAlignment::Right);
    }
    let helped = all.iter().filter(|(_, i)| i.recovered_after.is_some()).count() as u64;
    let more =
        if all.len() > SECTION_ROWS { format!(" (first {SECTION_ROWS}; all by --format json)") } else { String::new() };
    writeln!(out)?;
    writeln!(
        out,
        "Guard: {} in {}, {helped} followed by a success of the same tool{more}",
        plural(all.len() as u64, "intervention"),
        plural(report.guard.len() as u64, "session"),
    )?;
    write_table(out, &mut t, style, &[1, 4])?;
    Ok(())
}

/// Rows shown per section; JSON has them all.
const SECTION_ROWS: usize = 12;

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Recovery, Streaks, Repairs and Feedback: what the agent did after failing.
fn sequences(report: &Report, style: &Style, out: &mut dyn Write) -> Result<()> {
    if !report.recovery.is_empty() {
        let mut t = new_table(
            style,
            &[
                "tool",
                "category",
                "failures",
                "recovered",
                "at 1",
                "at 2",
                "at 3",
                "median",
                "identical retries",
                "abandoned",
            ],
        );
        for r in &report.recovery {
            t.add_row(cells(style, &rows::recovery(r), Style::name));
        }
        right_align(&mut t, 2);
        writeln!(out)?;
        writeln!(out, "Recovery: did a later call of the same tool in the session succeed, and after how many calls?")?;
        write_table(out, &mut t, style, &[8, 7, 6, 5, 4, 9])?;
    }
    let cost = super::cost_rows(report);
    if !cost.is_empty() {
        let mut t =
            new_table(style, &["tool", "category", "failures", "retries", "time lost", "per failure", "untimed"]);
        for r in cost.iter().take(SECTION_ROWS) {
            t.add_row(cells(style, &rows::cost(r), |_, tool| name(tool)));
        }
        right_align(&mut t, 2);
        writeln!(out)?;
        let shown =
            if cost.len() > SECTION_ROWS { format!(" (top {SECTION_ROWS} of {})", cost.len()) } else { String::new() };
        writeln!(
            out,
            "Cost: calls and time from each failure to the tool's next success; when none came, to the next success of any tool, or the session's end (estimates){shown}"
        )?;
        write_table(out, &mut t, style, &[6, 5, 3])?;
    }
    tokens_section(report, style, out)?;
    let st = &report.streaks;
    if !st.by_tool.is_empty() {
        let mut t = new_table(
            style,
            &["tool", "streaks", "longest", "p50", "p95", "lengths", &format!("≥ {}", st.threshold), "hidden ≥"],
        );
        for r in &st.by_tool {
            t.add_row(cells(style, &rows::streaks(r), Style::name));
        }
        right_align(&mut t, 1);
        writeln!(out)?;
        writeln!(
            out,
            "Streaks: the same tool failing with the same message in a row (guard threshold {}; hidden ≥ means a guard reading the flag never fired)",
            st.threshold
        )?;
        write_table(out, &mut t, style, &[3, 4, 5, 1, 6])?;
    }
    if !report.repairs.is_empty() {
        let mut rows: Vec<_> = report.repairs.iter().collect();
        rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.tool.cmp(&b.tool)).then(a.change.cmp(&b.change)));
        let mut t = new_table(style, &["tool", "category", "change", "kind", "count"]);
        for r in rows.iter().take(SECTION_ROWS) {
            t.add_row(vec![
                Cell::new(style.name(&r.tool)),
                text_cell(&r.category),
                Cell::new(name(&r.change)),
                text_cell(&r.kind),
                Cell::new(format!("{} of {}", r.count, r.of)),
            ]);
        }
        right_align(&mut t, 4);
        writeln!(out)?;
        let more =
            if rows.len() > SECTION_ROWS { format!(" (top {SECTION_ROWS} of {})", rows.len()) } else { String::new() };
        writeln!(out, "Repairs: argument changes between a failure and the next, successful call of the tool{more}")?;
        write_table(out, &mut t, style, &[3, 1])?;
    }
    if !report.feedback.is_empty() {
        let mut t = new_table(style, &["message", "tool", "count", "locates", "directs", "fixed next call"]);
        for r in report.feedback.iter().take(SECTION_ROWS) {
            t.add_row(vec![
                Cell::new(truncate(&one_line(&r.template), 72)),
                Cell::new(style.name(&r.tool)),
                Cell::new(r.count),
                Cell::new(yes(r.locates)),
                Cell::new(yes(r.directs)),
                Cell::new(percent(r.recovered_at_1 as f64 / r.count.max(1) as f64, 0)),
            ]);
        }
        right_align(&mut t, 2);
        writeln!(out)?;
        let more = if report.feedback.len() > SECTION_ROWS {
            format!(" (top {SECTION_ROWS} of {})", report.feedback.len())
        } else {
            String::new()
        };
        writeln!(out, "Feedback: error messages most worth rewriting first{more}")?;
        write_table(out, &mut t, style, &[3, 4, 2])?;
    }
    Ok(())
}

/// Schema: validation counts per tool, and drift between schema and tool.
/// What the failures cost in tokens and dollars, per tool and category,
/// most tokens first; the usage line always (docs/analyses.md, "Tokens
/// and money").
fn tokens_section(report: &Report, style: &Style, out: &mut dyn Write) -> Result<()> {
    writeln!(out)?;
    writeln!(out, "{}", super::usage_line(report))?;
    let rows = super::token_rows(report);
    if rows.is_empty() {
        return Ok(());
    }
    let mut t = new_table(style, &rows::TOKENS_HEADER);
    for r in rows.iter().take(SECTION_ROWS) {
        t.add_row(cells(style, &rows::tokens(r), |_, tool| name(tool)));
    }
    right_align(&mut t, 2);
    let shown =
        if rows.len() > SECTION_ROWS { format!(" (top {SECTION_ROWS} of {})", rows.len()) } else { String::new() };
    writeln!(
        out,
        "Tokens lost to failures: each failure's share of its response, the successful retry's, and its result read again by later responses (rent, an estimate){shown}"
    )?;
    write_table(out, &mut t, style, &[6, 5, 4])
}

fn schema_section(report: &Report, style: &Style, out: &mut dyn Write) -> Result<()> {
    let sc = &report.schema;
    let violating: Vec<_> = sc.tools.iter().filter(|t| t.violations > 0).collect();
    if sc.tools.is_empty() {
        return Ok(());
    }
    let validated: u64 = sc.tools.iter().map(|t| t.validated).sum();
    writeln!(out)?;
    writeln!(
        out,
        "Schema: {} calls of {} tools checked against their schemas; {} violate them",
        validated,
        sc.tools.len(),
        sc.tools.iter().map(|t| t.violations).sum::<u64>()
    )?;
    if !violating.is_empty() {
        let mut t = new_table(style, &["tool", "schema", "validated", "violations", "accepted anyway", "categories"]);
        for r in &violating {
            let cats: Vec<String> = r.categories.iter().map(|(k, v)| format!("{}:{v}", one_line(k))).collect();
            t.add_row(vec![
                Cell::new(style.name(&r.tool)),
                Cell::new(style.name(&r.origin)),
                Cell::new(r.validated),
                Cell::new(r.violations),
                count_cell(r.accepted_violations, style.color),
                Cell::new(cats.join(" ")),
            ]);
        }
        right_align(&mut t, 2);
        if let Some(c) = t.column_mut(5) {
            c.set_cell_alignment(CellAlignment::Left);
        }
        write_table(out, &mut t, style, &[2, 1, 4])?;
    }
    if !sc.drift.is_empty() {
        let mut t = new_table(style, &["drift", "tool", "parameter", "count", "recommendation"]);
        for d in sc.drift.iter().take(SECTION_ROWS) {
            let param = match &d.value {
                Some(v) => format!("{} = {}", d.param, truncate(&one_line(v), 24)),
                None => d.param.clone(),
            };
            t.add_row(vec![
                Cell::new(d.rule.as_str()),
                Cell::new(style.name(&d.tool)),
                Cell::new(name(&param)),
                Cell::new(d.count),
                Cell::new(truncate(&one_line(&d.recommendation), 110)),
            ]);
        }
        right_align(&mut t, 3);
        if let Some(c) = t.column_mut(4) {
            c.set_cell_alignment(CellAlignment::Left);
        }
        writeln!(out, "Schema drift: where the schema and the tool's behaviour disagree")?;
        write_table(out, &mut t, style, &[3])?;
    }
    Ok(())
}

/// The one-line verdict, coloured red or green on a colour terminal.
pub fn verdict(report: &Report, gate: Option<&crate::gate::Verdict>, style: &Style) -> String {
    let (text, bad) = super::verdict_line(report, gate);
    let color = if bad { "31" } else { "32" };
    if style.color { format!("\u{1b}[1;{color}m{text}\u{1b}[0m") } else { text }
}
