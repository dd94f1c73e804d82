//! Drill-down: the calls and results behind a number. `examples` prints the
//! failures of one category; `show` prints one session's calls in order
//! with their verdicts. Both walk the same spine as `scan`, so a call has
//! the same verdict and category here as in the report, and the same
//! warnings on stderr (`Told`). All trace text is redacted, sanitized and
//! truncated.

use std::io::Write;

use super::{Told, settings};
use crate::cli::{ExamplesArgs, ShowArgs};
use crate::error::{Error, Result};
use crate::judge::{JudgedCall, JudgedSession, Outcome};
use crate::model::ToolResult;
use crate::redact::Redaction;
use crate::rules::Category;
use crate::sanitize::{block, one_line, truncate};
use crate::source::SessionFilter;
use crate::spine::{SourceStart, Visitor};

pub(super) fn verdict(c: &JudgedCall) -> String {
    match &c.outcome {
        Outcome::Success => "ok".into(),
        Outcome::Unpaired => "unpaired (no result)".into(),
        Outcome::Failed(f) if f.is_hidden() => format!("HIDDEN ERROR · {}", f.category),
        Outcome::Failed(f) if f.content_rule.is_none() => format!("flag-only error · {}", f.category),
        Outcome::Failed(f) => format!("flagged error · {}", f.category),
    }
}

pub(super) fn flag_text(r: Option<&ToolResult>) -> &'static str {
    match r.and_then(|r| r.flag) {
        Some(true) => "flag: error",
        Some(false) => "flag: success",
        None => "flag: none recorded",
    }
}

fn print_detail(source: &str, session: &str, c: &JudgedCall, redaction: Redaction, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "{} · session {} · call {} ({}) · {}",
        one_line(source),
        one_line(session),
        c.seq,
        truncate(&one_line(&c.call_id), 60),
        truncate(&one_line(&c.tool), 60)
    )?;
    let content = match &c.outcome {
        Outcome::Failed(f) => match f.content_rule {
            Some(rule) => format!("content: {rule}"),
            None => "content: no rule".to_string(),
        },
        _ => "content: no rule".to_string(),
    };
    writeln!(out, "  verdict: {} ({}; {})", verdict(c), flag_text(c.result.as_ref()), content)?;
    if let Outcome::Failed(f) = &c.outcome {
        writeln!(out, "  reason: {} ({})", f.label, f.reason)?;
    }
    if let Some(first) = c.violations.as_ref().and_then(|v| v.first()) {
        writeln!(out, "  schema: {}", one_line(&first.text))?;
    }
    writeln!(out, "  arguments: {}", arguments(c, redaction))?;
    match &c.result {
        Some(r) => {
            writeln!(out, "  result:")?;
            write!(out, "{}", result_text(r, redaction, "    "))?;
        }
        None => writeln!(out, "  result: (none)")?,
    }
    Ok(())
}

/// A call's arguments as `examples` shows them: JSON on one line, redacted, cut.
pub(super) fn arguments(c: &JudgedCall, redaction: Redaction) -> String {
    let args = serde_json::to_string(c.input.value()).unwrap_or_default();
    truncate(&one_line(&redaction.apply(&args)), 400)
}

/// A result's text as `examples` shows it: redacted, sanitized, at most 12
/// lines and 1200 characters, each line after `indent`.
pub(super) fn result_text(r: &ToolResult, redaction: Redaction, indent: &str) -> String {
    block(&redaction.apply(&r.text), indent, 12, 1200)
}

/// Which failures `examples` lists.
#[derive(Clone, Copy)]
enum Wanted {
    /// `--category`: the failures of one category.
    Category(Category),
    /// No `--category`: the hidden errors, or the flagged ones when none is hidden.
    Hidden,
}

/// Collects the first `limit` failures wanted (of one tool, if asked), and
/// counts them all, so the listing can say how many it shows of how many.
struct Examples<'a> {
    args: &'a ExamplesArgs,
    /// Tool names holding a secret are redacted: `--tool` is compared redacted too.
    redaction: Redaction,
    wanted: Wanted,
    source: String,
    /// The failures of the category, or the hidden errors.
    picked: Vec<(String, String, JudgedCall)>,
    total: u64,
    /// Without `--category`: the flagged errors, shown when none is hidden.
    flagged: Vec<(String, String, JudgedCall)>,
    flagged_total: u64,
    told: Told,
}

impl Visitor for Examples<'_> {
    fn source(&mut self, start: SourceStart<'_>) {
        self.told.source(&start, self.redaction);
        self.source = start.path.to_string();
    }

    fn note(&mut self, note: String) {
        self.told.notes.push(note);
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        for c in s.calls {
            let Outcome::Failed(f) = &c.outcome else { continue };
            let tool = self.args.tool.as_ref().is_none_or(|t| *t == c.tool || self.redaction.apply(t) == c.tool);
            if !tool {
                continue;
            }
            let (list, total) = match self.wanted {
                Wanted::Category(category) if f.category == category => (&mut self.picked, &mut self.total),
                Wanted::Category(_) => continue,
                Wanted::Hidden if f.is_hidden() => (&mut self.picked, &mut self.total),
                // Flagged ones are kept only while no hidden error is found.
                Wanted::Hidden if self.total == 0 => (&mut self.flagged, &mut self.flagged_total),
                Wanted::Hidden => continue,
            };
            *total += 1;
            if list.len() < self.args.limit {
                list.push((self.source.clone(), s.id.clone(), c));
            }
        }
        // Every session is judged: the listing says how many there are.
        true
    }
}

pub(crate) fn run_examples(args: &ExamplesArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let wanted = match &args.category {
        None => Wanted::Hidden,
        Some(slug) => Wanted::Category(Category::from_slug(slug).ok_or_else(|| {
            Error::Usage(format!("unknown category {:?}; `falseok rules` lists them", one_line(slug)))
        })?),
    };
    let opts = settings::judging(&args.judging, args.no_subagents)?;
    let paths = crate::input::resolve(&args.paths)?;
    let redaction = opts.judge.redaction;
    let mut visitor = Examples {
        args,
        redaction,
        wanted,
        source: String::new(),
        picked: Vec::new(),
        total: 0,
        flagged: Vec::new(),
        flagged_total: 0,
        told: Told::default(),
    };
    let walked = crate::walk(&paths, &opts, &mut visitor);
    visitor.told.say(err)?;
    walked?;
    let of = args.tool.as_ref().map_or(String::new(), |t| format!(" of {}", one_line(t)));
    let (what, picked, total) = match wanted {
        Wanted::Category(category) => (format!("{category} failures"), visitor.picked, visitor.total),
        Wanted::Hidden if visitor.total > 0 => ("hidden errors".to_string(), visitor.picked, visitor.total),
        Wanted::Hidden if visitor.flagged_total > 0 => {
            writeln!(out, "No hidden errors{of}; the flagged errors instead.")?;
            writeln!(out)?;
            ("flagged errors".to_string(), visitor.flagged, visitor.flagged_total)
        }
        Wanted::Hidden => ("errors".to_string(), Vec::new(), 0),
    };
    if picked.is_empty() {
        writeln!(out, "No {what}{of}.")?;
        return Ok(());
    }
    for (n, (source, id, c)) in picked.iter().enumerate() {
        writeln!(out, "[{}]", n + 1)?;
        print_detail(source, id, c, redaction, out)?;
        writeln!(out)?;
    }
    let more = if (picked.len() as u64) < total { "; --limit N shows more" } else { "" };
    writeln!(out, "{} of {total} {what}{of} shown{more}.", picked.len())?;
    Ok(())
}

/// Collects the sessions whose id starts with the one asked for, as
/// written or as shown (an id holding a secret is shown redacted).
struct Sessions {
    source: String,
    wanted: String,
    redaction: Redaction,
    found: Vec<(String, JudgedSession)>,
    told: Told,
}

impl Visitor for Sessions {
    fn source(&mut self, start: SourceStart<'_>) {
        self.told.source(&start, self.redaction);
        self.source = start.path.to_string();
    }

    fn note(&mut self, note: String) {
        self.told.notes.push(note);
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        if s.id.starts_with(&self.wanted) || s.id.starts_with(&*self.redaction.apply(&self.wanted)) {
            self.found.push((self.source.clone(), s));
        }
        true
    }
}

/// The session `wanted` names: the one with exactly that id, else the only
/// one whose id starts with it. Ids holding a secret are redacted by the
/// judge, so `wanted` is compared redacted too.
fn pick_session(
    wanted: &str,
    redaction: Redaction,
    mut found: Vec<(String, JudgedSession)>,
) -> Result<(String, JudgedSession)> {
    let hidden = redaction.apply(wanted);
    if let Some(i) = found.iter().position(|(_, s)| s.id == wanted || s.id == hidden) {
        return Ok(found.swap_remove(i));
    }
    found.retain(|(_, s)| s.id.starts_with(wanted) || s.id.starts_with(&*hidden));
    match found.len() {
        0 => Err(Error::Usage(format!("no session id starts with {:?}", one_line(wanted)))),
        1 => Ok(found.remove(0)),
        n => {
            let ids: Vec<String> = found.iter().take(5).map(|(_, s)| one_line(&s.id)).collect();
            let more = if n > 5 { ", …" } else { "" };
            Err(Error::Usage(format!(
                "{n} sessions start with {:?} ({}{more}); give more of the id",
                one_line(wanted),
                ids.join(", ")
            )))
        }
    }
}

/// The call `wanted` names in `calls`: its exact id, its sequence number,
/// or the only id that starts with it (a trailing `…`, as `show` prints
/// cut ids, is ignored).
fn pick_call<'a>(session: &str, wanted: &str, redaction: Redaction, calls: &'a [JudgedCall]) -> Result<&'a JudgedCall> {
    let hidden = redaction.apply(wanted);
    if let Some(c) = calls.iter().find(|c| c.call_id == wanted || c.call_id == hidden) {
        return Ok(c);
    }
    if let Ok(seq) = wanted.parse::<usize>()
        && let Some(c) = calls.iter().find(|c| c.seq == seq)
    {
        return Ok(c);
    }
    let prefix = wanted.trim_end_matches('…');
    let hits: Vec<&JudgedCall> =
        if prefix.is_empty() { Vec::new() } else { calls.iter().filter(|c| c.call_id.starts_with(prefix)).collect() };
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::Usage(format!(
            "session {} has no call {:?} (give a call id, a unique prefix of one, or a sequence number)",
            one_line(session),
            one_line(wanted)
        ))),
        many => Err(Error::Usage(format!(
            "{} calls of session {} start with {:?}; give more of the id or the sequence number",
            many.len(),
            one_line(session),
            one_line(prefix)
        ))),
    }
}

pub(crate) fn run_show(args: &ShowArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let mut opts = settings::judging(&args.judging, false)?;
    // Every session that starts with the id: an exact match among them wins.
    opts.source.session = Some(SessionFilter::Prefix(args.session.clone()));
    let paths = crate::input::resolve(&args.paths)?;
    let redaction = opts.judge.redaction;
    let mut visitor = Sessions {
        source: String::new(),
        wanted: args.session.clone(),
        redaction,
        found: Vec::new(),
        told: Told::default(),
    };
    let mut walked = crate::walk(&paths, &opts, &mut visitor);
    if walked.is_ok() && visitor.found.is_empty() && redaction == Redaction::On {
        // Perhaps an id as a report shows it, redacted: the sources know
        // only the ids as written, so every session is judged and compared.
        // The same sources again: what the first walk told is told once.
        opts.source.session = None;
        visitor.told = Told::default();
        walked = crate::walk(&paths, &opts, &mut visitor);
    }
    visitor.told.say(err)?;
    walked?;
    let (source, session) = pick_session(&args.session, redaction, visitor.found)?;
    if let Some(call) = &args.call {
        let c = pick_call(&session.id, call, redaction, &session.calls)?;
        return print_detail(&source, &session.id, c, redaction, out);
    }
    writeln!(out, "{} · session {} · {} calls", one_line(&source), one_line(&session.id), session.calls.len())?;
    for c in &session.calls {
        let message = match &c.outcome {
            Outcome::Failed(f) => format!(" · {}", truncate(&redaction.apply(&f.message), 100)),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:>5}  {:<24} {:<18} {}{}",
            c.seq,
            truncate(&one_line(&c.call_id), 24),
            truncate(&one_line(&c.tool), 18),
            verdict(c),
            message
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::judge;
    use crate::model::{Call, Event, Session};

    fn session(id: &str, call_ids: &[&str]) -> JudgedSession {
        let events = call_ids
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Event::Call(Call {
                    id: c.to_string(),
                    tool: "Read".into(),
                    input: Default::default(),
                    time: None,
                    row: i as i64,
                    usage: None,
                })
            })
            .collect();
        judge(Session { id: id.into(), events, ..Session::default() })
    }

    #[test]
    fn an_exact_session_id_wins_over_longer_ids_that_start_with_it() {
        let found = vec![
            ("a".to_string(), session("s1", &[])),
            ("a".to_string(), session("s1/agent-x", &[])),
            ("a".to_string(), session("s1/agent-y", &[])),
        ];
        let on = Redaction::On;
        assert_eq!(pick_session("s1", on, found.clone()).unwrap().1.id, "s1");
        let err = pick_session("s1/", on, found.clone()).unwrap_err().to_string();
        assert!(err.contains("2 sessions start with"), "{err}");
        assert_eq!(pick_session("s1/agent-y", on, found).unwrap().1.id, "s1/agent-y");
    }

    #[test]
    fn a_call_by_id_prefix_printed_prefix_or_sequence_number() {
        let s = session("s", &["call_00_F9hxAAAA", "call_00_F9hxBBBB", "toolu_1", "toolu_AKIAABCDEFGHIJKLMNOP"]);
        let on = Redaction::On;
        assert_eq!(pick_call("s", "toolu_1", on, &s.calls).unwrap().call_id, "toolu_1");
        assert_eq!(pick_call("s", "call_00_F9hxB…", on, &s.calls).unwrap().call_id, "call_00_F9hxBBBB");
        assert_eq!(pick_call("s", "2", on, &s.calls).unwrap().call_id, "call_00_F9hxBBBB");
        assert!(pick_call("s", "call_00_F9hx", on, &s.calls).unwrap_err().to_string().contains("2 calls"));
        assert!(pick_call("s", "nope", on, &s.calls).is_err());
        assert!(pick_call("s", "…", on, &s.calls).is_err());
        // An id holding a key is stored redacted, and found by the id as written.
        let hidden = pick_call("s", "toolu_AKIAABCDEFGHIJKLMNOP", on, &s.calls).unwrap();
        assert_eq!(hidden.call_id, "toolu_AKIA[REDACTED]");
    }
}
