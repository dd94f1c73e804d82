//! Drill-down: the calls and results behind a number. `examples` prints the
//! failures of one category; `show` prints one session's calls in order
//! with their verdicts. All trace text is redacted, sanitized and truncated.

use std::io::Write;
use std::path::PathBuf;

use serde_json::Value;

use crate::analysis::{JudgedCall, Outcome, judge};
use crate::cli::{ExamplesArgs, ShowArgs};
use crate::error::{Error, Result};
use crate::input;
use crate::model::{Call, Event, Session, ToolResult};
use crate::pair::pair;
use crate::redact::redact;
use crate::rules::Category;
use crate::sanitize::{block, one_line, truncate};
use crate::source::{SessionFilter, SourceOptions};

/// A judged call with what was sent and what came back.
struct Detail {
    call: JudgedCall,
    result: Option<ToolResult>,
    input: Value,
}

/// Judge a session and keep each call's arguments and result for printing.
fn details(session: Session) -> (String, Vec<Detail>) {
    let mut calls: Vec<Call> = Vec::new();
    let mut results: Vec<ToolResult> = Vec::new();
    for e in &session.events {
        match e {
            Event::Call(c) => calls.push(c.clone()),
            Event::Result(r) => results.push(r.clone()),
        }
    }
    let paired = pair(&calls, &results);
    let judged = judge(session);
    let out = judged
        .calls
        .into_iter()
        .zip(paired.pairs)
        .map(|(call, p)| Detail {
            input: calls[p.call].input.clone(),
            result: p.result.map(|r| results[r].clone()),
            call,
        })
        .collect();
    (judged.id, out)
}

fn verdict(c: &JudgedCall) -> String {
    match &c.outcome {
        Outcome::Success => "ok".into(),
        Outcome::Unpaired => "unpaired (no result)".into(),
        Outcome::Failed(f) if f.is_hidden() => format!("HIDDEN ERROR · {}", f.category),
        Outcome::Failed(f) if f.content_rule.is_none() => format!("flag-only error · {}", f.category),
        Outcome::Failed(f) => format!("flagged error · {}", f.category),
    }
}

fn flag_text(r: Option<&ToolResult>) -> &'static str {
    match r.and_then(|r| r.flag) {
        Some(true) => "flag: error",
        Some(false) => "flag: success",
        None => "flag: none recorded",
    }
}

fn print_detail(source: &str, session: &str, d: &Detail, out: &mut dyn Write) -> Result<()> {
    let c = &d.call;
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
    writeln!(out, "  verdict: {} ({}; {})", verdict(c), flag_text(d.result.as_ref()), content)?;
    if let Outcome::Failed(f) = &c.outcome {
        writeln!(out, "  reason: {} ({})", f.label, f.reason)?;
    }
    let args = serde_json::to_string(&d.input).unwrap_or_default();
    writeln!(out, "  arguments: {}", truncate(&one_line(&redact(&args)), 400))?;
    match &d.result {
        Some(r) => {
            writeln!(out, "  result:")?;
            write!(out, "{}", block(&redact(&r.text), "    ", 12, 1200))?;
        }
        None => writeln!(out, "  result: (none)")?,
    }
    Ok(())
}

/// Visit every session of `paths`; stop early when `visit` returns false.
fn each_session(paths: &[PathBuf], opts: &SourceOptions, visit: &mut dyn FnMut(&str, Session) -> bool) -> Result<()> {
    for path in paths {
        let src = input::open(path, None, &mut Vec::new())?;
        let name = &src.label;
        let mut going = true;
        src.read(opts, &mut |s| {
            if going {
                going = visit(name, s);
            }
        })?;
        if !going {
            break;
        }
    }
    Ok(())
}

pub fn run_examples(args: &ExamplesArgs, out: &mut dyn Write) -> Result<()> {
    if args.no_redact {
        crate::redact::disable();
    }
    let category = Category::from_slug(&args.category)
        .ok_or_else(|| Error::Usage(format!("unknown category {:?}; `tracelint rules` lists them", args.category)))?;
    let paths = input::resolve(&args.paths)?;
    let opts = SourceOptions { no_subagents: args.no_subagents, session: None, format: None };
    let mut picked: Vec<(String, String, Detail)> = Vec::new();
    each_session(&paths, &opts, &mut |source, s| {
        let (id, list) = details(s);
        for d in list {
            let wanted = matches!(&d.call.outcome, Outcome::Failed(f) if f.category == category)
                && args.tool.as_ref().is_none_or(|t| *t == d.call.tool);
            if wanted && picked.len() < args.limit {
                picked.push((source.to_string(), id.clone(), d));
            }
        }
        picked.len() < args.limit
    })?;
    if picked.is_empty() {
        let of = args.tool.as_ref().map_or(String::new(), |t| format!(" of {}", one_line(t)));
        writeln!(out, "No {category} failures{of}.")?;
    }
    for (n, (source, id, d)) in picked.iter().enumerate() {
        writeln!(out, "[{}]", n + 1)?;
        print_detail(source, id, d, out)?;
        writeln!(out)?;
    }
    Ok(())
}

pub fn run_show(args: &ShowArgs, out: &mut dyn Write) -> Result<()> {
    if args.no_redact {
        crate::redact::disable();
    }
    let paths = input::resolve(&args.paths)?;
    let session = Some(SessionFilter::Prefix(args.session.clone()));
    let opts = SourceOptions { no_subagents: false, session, format: None };
    let mut found: Vec<(String, String, Vec<Detail>)> = Vec::new();
    each_session(&paths, &opts, &mut |source, s| {
        let (id, list) = details(s);
        found.push((source.to_string(), id, list));
        true
    })?;
    match found.len() {
        0 => return Err(Error::Usage(format!("no session starts with {:?}", one_line(&args.session)))),
        1 => {}
        n => {
            let ids: Vec<String> = found.iter().take(5).map(|f| one_line(&f.1)).collect();
            return Err(Error::Usage(format!(
                "{n} sessions start with {:?} ({}…); give more of the id",
                one_line(&args.session),
                ids.join(", ")
            )));
        }
    }
    let (source, id, list) = &found[0];
    if let Some(call) = &args.call {
        let d = list
            .iter()
            .find(|d| d.call.call_id == *call)
            .ok_or_else(|| Error::Usage(format!("session {} has no call {:?}", one_line(id), one_line(call))))?;
        return print_detail(source, id, d, out);
    }
    writeln!(out, "{} · session {} · {} calls", one_line(source), one_line(id), list.len())?;
    for d in list {
        let c = &d.call;
        let message = match &c.outcome {
            Outcome::Failed(f) => format!(" · {}", truncate(&redact(&f.message), 100)),
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
