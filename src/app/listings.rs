//! `rules`, `formats` and `schemas`: the registries and the tool schemas in
//! effect, as tables or JSON.

use std::io::Write;

use serde_json::json;

use crate::cli::{RulesArgs, RulesFormat, SchemasArgs};
use crate::error::{Error, Result};
use crate::model::Dialect;
use crate::redact::Redaction;
use crate::rules::REGISTRY;
use crate::rules::tools::FileEffect;
use crate::sanitize::{one_line, truncate};
use crate::schema::{self, SchemaSet};
use crate::{import, input, source};

/// The whole rule registry as one JSON document (`falseok rules --format
/// json`): `rules::REGISTRY` serialized as it is, keys sorted.
pub(crate) fn rules_json() -> serde_json::Value {
    let mut v = serde_json::to_value(&REGISTRY).expect("the registry is plain data");
    let config = crate::config::active();
    if let Some(o) = v.as_object_mut().filter(|_| config.path.is_some()) {
        let rules: Vec<_> = config
            .rules
            .iter()
            .map(|r| {
                json!({"id": r.id, "tool": r.tool_pattern, "category": r.category.as_str(), "label": r.label,
                       "fix": r.fix, "origin": r.origin})
            })
            .collect();
        let benign: Vec<_> = config
            .benign
            .iter()
            .map(|b| json!({"id": b.id, "tool": b.tool_pattern, "reason": b.reason, "origin": b.origin}))
            .collect();
        let today = crate::config::today();
        let suppress: Vec<_> = config
            .suppress
            .iter()
            .map(|s| {
                json!({"rule": s.rule, "tool": s.tool_pattern, "session": s.session, "call": s.call,
                       "reason": s.reason, "expires": s.expires.map(|d| d.to_string()),
                       "expired": s.expired(today), "origin": s.origin})
            })
            .collect();
        let per_path: serde_json::Map<String, serde_json::Value> =
            config.per_path.iter().map(|p| (p.pattern.clone(), json!(p.dropped()))).collect();
        let per_tool: serde_json::Map<String, serde_json::Value> =
            config.per_tool.iter().map(|t| (t.pattern.clone(), json!(t.dropped()))).collect();
        let path = config.path.as_ref().map(|p| p.display().to_string());
        o.insert(
            "configuration".into(),
            json!({"file": path, "custom_rules": rules, "benign_shapes": benign,
                   "ignore": config.ignored(), "select": config.selected(), "per_path_ignores": per_path,
                   "per_tool_ignores": per_tool, "suppress": suppress}),
        );
    }
    v
}

/// `falseok rules test`: the examples of the configuration file's rules
/// and benign shapes, each judged by the file's rules and shapes; exit 1
/// (with a line per example that does not behave) when one does not.
pub(crate) fn run_rules_test(out: &mut dyn Write) -> Result<super::ExitStatus> {
    let config = crate::config::active();
    let Some(path) = &config.path else {
        return Err(Error::Usage("falseok rules test: no configuration file (docs/config.md) is in effect".into()));
    };
    let (n, wrong) = config.test_examples();
    for w in &wrong {
        writeln!(out, "{}", one_line(w))?;
    }
    let file = one_line(&path.display().to_string());
    let of = format!("{} rules and {} benign shapes of {file}", config.rules.len(), config.benign.len());
    if wrong.is_empty() {
        writeln!(out, "{n} examples of {of} behave")?;
        Ok(super::ExitStatus::Clean)
    } else {
        writeln!(out, "{} of {n} examples of {of} do not behave", wrong.len())?;
        Ok(super::ExitStatus::Findings)
    }
}

/// The configuration file's rules, benign shapes and ignores (`falseok rules`).
fn write_config(out: &mut dyn Write) -> Result<()> {
    let config = crate::config::active();
    if config.path.is_none() {
        return Ok(());
    }
    let file = config.path.as_ref().map_or(String::new(), |p| one_line(&p.display().to_string()));
    writeln!(out)?;
    writeln!(out, "Custom rules (the configuration file {file}), tried before the built-in rules, first match wins:")?;
    for r in &config.rules {
        writeln!(out, "  {:<30} → {:<24} {} [tools: {}]", r.id, r.category.as_str(), r.label, r.tool_pattern)?;
        writeln!(out, "  {:<30}   fix: {}", "", r.fix)?;
        writeln!(out, "  {:<30}   at {}", "", one_line(&r.origin))?;
    }
    writeln!(out)?;
    writeln!(out, "Custom benign shapes (not failures, whatever the rules or the flag say):")?;
    for b in &config.benign {
        writeln!(out, "  {:<30} {} [tools: {}]", b.id, b.reason, b.tool_pattern)?;
        writeln!(out, "  {:<30} at {}", "", one_line(&b.origin))?;
    }
    writeln!(out)?;
    writeln!(out, "Ignored (their verdicts are dropped): {}", config.ignored().join(", "))?;
    for p in &config.per_path {
        writeln!(out, "Ignored under {}: {}", one_line(&p.pattern), p.dropped().join(", "))?;
    }
    for t in &config.per_tool {
        writeln!(out, "Ignored for the tools {}: {}", one_line(&t.pattern), t.dropped().join(", "))?;
    }
    let selected = config.selected();
    if !selected.is_empty() {
        writeln!(out, "Selected (select and extend-select: only these verdicts are kept): {}", selected.join(", "))?;
    }
    writeln!(out)?;
    writeln!(out, "Suppressions (findings `check` does not count, with their reasons):")?;
    let today = crate::config::today();
    for s in &config.suppress {
        let until = match s.expires {
            Some(d) if s.expired(today) => format!("expired {d}"),
            Some(d) => format!("until {d}"),
            None => "no end".to_string(),
        };
        writeln!(out, "  {:<30} {} [tools: {}] ({until})", s.rule, one_line(&s.reason), s.tool_pattern)?;
        writeln!(out, "  {:<30} at {}", "", one_line(&s.origin))?;
    }
    Ok(())
}

/// `falseok rules`: every table of the registry (`rules::REGISTRY`).
pub(crate) fn run_rules(args: &RulesArgs, out: &mut dyn Write) -> Result<()> {
    if args.format == RulesFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &rules_json()).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    let r = &REGISTRY;
    let scope =
        |tools: &[&str]| if tools.is_empty() { String::new() } else { format!(" [tools: {}]", tools.join(", ")) };
    writeln!(
        out,
        "Content rules (is the result a failure?), matched at the start of the result text, a (?m) rule at any line of its first and last 4 KiB:"
    )?;
    for c in r.content_rules {
        writeln!(out, "  {:<30} {} precision{}", c.id, c.precision.as_str(), scope(c.tools))?;
        writeln!(out, "  {:<30} {}", "", c.doc)?;
        writeln!(out, "  {:<30} e.g. {}", "", truncate(&one_line(c.fires_on[0]), 90))?;
    }
    writeln!(out)?;
    writeln!(out, "Classification rules (why did it fail?), first match wins, in this order:")?;
    for c in r.classification_rules {
        writeln!(out, "  {:<40} → {:<24} {}{}", c.id, c.category.as_str(), c.label, scope(c.tools))?;
    }
    writeln!(out)?;
    writeln!(out, "Exit classification rules (a program exited non-zero), tried in this order, else nonzero-exit:")?;
    for c in r.exit_classification_rules {
        writeln!(out, "  {:<40} → {:<24} {}{}", c.id, c.category.as_str(), c.label, scope(c.tools))?;
    }
    writeln!(out)?;
    writeln!(out, "Reasons the judge gives when no rule decided:")?;
    for j in r.judge_reasons {
        let category = j.category.map_or("(varies)", |c| c.as_str());
        writeln!(out, "  {:<40} → {:<24} {}", j.id, category, j.label)?;
        writeln!(out, "  {:<40}   {}", "", j.doc)?;
    }
    writeln!(out)?;
    writeln!(out, "Benign exits (a non-zero exit that is an answer, not a failure):")?;
    for b in r.benign_exits {
        let codes: Vec<String> = b.codes.iter().map(i64::to_string).collect();
        let codes = if codes.is_empty() { "any".to_string() } else { codes.join(", ") };
        writeln!(out, "  {:<26} exit {codes}: {}", b.id, b.doc)?;
    }
    writeln!(out)?;
    writeln!(out, "Categories:")?;
    for c in r.categories {
        writeln!(out, "  {:<24} {} (retry: {}; cause: {})", c.slug, c.meaning, c.retry, c.class.as_str())?;
        writeln!(out, "  {:<24} fix: {}", "", c.fix)?;
    }
    writeln!(out)?;
    writeln!(out, "Cause classes:")?;
    for c in r.cause_classes {
        writeln!(out, "  {:<24} {}", c.slug, c.meaning)?;
    }
    writeln!(out)?;
    writeln!(out, "Finding rules (scope: one session, or schema drift over all sessions):")?;
    for f in r.finding_rules {
        writeln!(out, "  {:<26} {:<8} {:<8} {}", f.id, f.severity.as_str(), f.scope.as_str(), f.meaning)?;
        writeln!(out, "  {:<26} {:<8} {:<8} e.g. {}", "", "", "", f.example)?;
    }
    writeln!(out)?;
    writeln!(out, "Tools that read or modify files (for stale edits):")?;
    for t in r.tool_roles {
        let effect = if t.effect == FileEffect::Reads { "reads" } else { "modifies" };
        writeln!(out, "  {:<26} {effect:<8} path: {}", t.tool, t.path_keys.join(", "))?;
    }
    writeln!(out)?;
    writeln!(out, "Shell tools (their output is a program's): {}", r.shell_tools.join(", "))?;
    write_config(out)
}

/// `falseok formats`: every supported format, its detection signature,
/// its flag and its default locations (marked when present).
pub(crate) fn run_formats(out: &mut dyn Write) -> Result<()> {
    for (i, f) in source::formats().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{} ({})", f.name(), f.agent)?;
        for old in f.dialect.aliases() {
            writeln!(out, "  also named:  {old} (the project's name until falseok)")?;
        }
        writeln!(out, "  detected by: {}", f.signature)?;
        writeln!(out, "  error flag:  {}", f.flag)?;
        for loc in f.locations {
            let here = loc.resolve().is_some_and(|p| p.is_file());
            writeln!(out, "  default:     {}{}", loc.display(), if here { "  [found]" } else { "" })?;
        }
    }
    for t in import::infos() {
        writeln!(out)?;
        writeln!(out, "{} ({})", t.name(), t.agent)?;
        writeln!(out, "  recognised:  {}", t.signature)?;
        writeln!(out, "  error flag:  {}", t.flag)?;
        for loc in t.locations {
            let here = loc.resolve().is_some_and(|p| p.is_dir() || p.is_file());
            writeln!(out, "  default:     {}{}", loc.display(), if here { "  [found]" } else { "" })?;
        }
    }
    Ok(())
}

/// `falseok schemas`: the tool schemas in effect for each source (or
/// every built-in set), with where each came from. What opening a source
/// notes (a file skipped, how a database had to be opened) is said on
/// stderr as `scan` says it.
pub(crate) fn run_schemas(args: &SchemasArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    let file = args.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default();
    let mut sets: Vec<(String, SchemaSet)> = Vec::new();
    let build = |dialect: Option<Dialect>, trace: &[(String, serde_json::Value)]| {
        SchemaSet::build(dialect, trace, &file).map_err(|e| Error::input(&file.origin, e))
    };
    if args.paths.is_empty() {
        for d in [Dialect::PERI, Dialect::CLAUDE_CODE] {
            sets.push((format!("built-in set for {d}"), build(Some(d), &[])?));
        }
        if !file.tools.is_empty() {
            sets.push(("other formats".to_string(), build(None, &[])?));
        }
    } else {
        let (mut notes, mut warnings) = (Vec::new(), Vec::new());
        for path in &args.paths {
            let src = input::open(path, &Default::default(), &mut notes)?;
            warnings.extend(src.warnings.iter().map(|w| Redaction::On.apply(w).into_owned()));
            // One set per dialect whose sessions the source holds.
            for &d in &src.dialects {
                let label = format!("{} ({d})", one_line(&src.label));
                sets.push((label, build(Some(d), &src.tool_schemas()?)?));
            }
        }
        for note in notes.iter().chain(&warnings) {
            writeln!(err, "falseok: warning: {note}")?;
        }
    }
    if args.format == RulesFormat::Json {
        let v: Vec<serde_json::Value> = sets
            .iter()
            .map(|(label, set)| {
                json!({
                    "source": label,
                    "tools": set.all().iter().map(|t| json!({
                        "tool": t.tool, "origin": t.origin, "required": t.required(), "schema": t.schema,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &v).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    for (i, (label, set)) in sets.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{label}: {} tool schemas", set.all().len())?;
        for t in set.all() {
            // Parameter names come from the trace or a file: sanitized.
            let names = |ps: &mut dyn Iterator<Item = &String>| {
                let v: Vec<String> = ps.map(|p| one_line(p)).collect();
                if v.is_empty() { "-".to_string() } else { v.join(", ") }
            };
            let required = names(&mut t.required().iter());
            let optional = names(&mut t.properties().iter().filter(|p| !t.required().iter().any(|r| r == *p)));
            writeln!(
                out,
                "  {:<20} {:<22} required: {}; optional: {}",
                truncate(&one_line(&t.tool), 20),
                truncate(&one_line(&t.origin), 22),
                required,
                optional
            )?;
        }
    }
    Ok(())
}
