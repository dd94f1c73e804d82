//! `rules`, `formats` and `schemas`: the registries and the tool schemas in
//! effect, as tables or JSON.

use std::io::Write;

use serde_json::json;

use crate::cli::{RulesArgs, RulesFormat, SchemasArgs};
use crate::error::{Error, Result};
use crate::rules::{CATEGORIES, CLASS_RULES, CONTENT_RULES, FINDING_RULES};
use crate::sanitize::{one_line, truncate};
use crate::schema::{self, SchemaSet};
use crate::{import, input, source};

/// The whole rule registry as one JSON document (`tracelint rules --format json`).
pub fn rules_json() -> serde_json::Value {
    json!({
        "content_rules": CONTENT_RULES.iter().map(|r| json!({
            "id": r.id, "pattern": r.pattern, "tools": r.tools, "formats": r.formats, "precision": r.precision.as_str(),
            "doc": r.doc, "fires_on": r.fires_on, "ignores": r.ignores,
        })).collect::<Vec<_>>(),
        "classification_rules": CLASS_RULES.iter().map(|r| json!({
            "id": r.id, "pattern": r.pattern, "tools": r.tools, "formats": r.formats, "category": r.category.as_str(),
            "label": r.label, "fires_on": r.fires_on, "ignores": r.ignores,
        })).collect::<Vec<_>>(),
        "categories": CATEGORIES.iter().map(|c| json!({
            "slug": c.slug, "meaning": c.meaning, "retry": c.retry, "fix": c.fix,
        })).collect::<Vec<_>>(),
        "finding_rules": FINDING_RULES.iter().map(|f| json!({
            "id": f.id, "severity": f.severity.as_str(), "meaning": f.meaning, "example": f.example,
        })).collect::<Vec<_>>(),
    })
}

/// `tracelint rules`: every content rule, classification rule, category
/// and finding rule, from the registries.
pub fn run_rules(args: &RulesArgs, out: &mut dyn Write) -> Result<()> {
    if args.format == RulesFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &rules_json()).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "Content rules (is the result a failure?), matched at the start of the result text:")?;
    for r in CONTENT_RULES {
        let scope = if r.tools.is_empty() { String::new() } else { format!(" [tools: {}]", r.tools.join(", ")) };
        writeln!(out, "  {:<30} {} precision{scope}", r.id, r.precision.as_str())?;
        writeln!(out, "  {:<30} {}", "", r.doc)?;
        writeln!(out, "  {:<30} e.g. {}", "", truncate(&one_line(r.fires_on[0]), 90))?;
    }
    writeln!(out)?;
    writeln!(out, "Classification rules (why did it fail?), first match wins, in this order:")?;
    for r in CLASS_RULES {
        let scope = if r.tools.is_empty() { String::new() } else { format!(" [tools: {}]", r.tools.join(", ")) };
        writeln!(out, "  {:<40} → {:<24} {}{scope}", r.id, r.category.as_str(), r.label)?;
    }
    writeln!(out)?;
    writeln!(out, "Categories:")?;
    for c in CATEGORIES {
        writeln!(out, "  {:<24} {} (retry: {})", c.slug, c.meaning, c.retry)?;
        writeln!(out, "  {:<24} fix: {}", "", c.fix)?;
    }
    writeln!(out)?;
    writeln!(out, "Finding rules:")?;
    for f in FINDING_RULES {
        writeln!(out, "  {:<26} {:<8} {}", f.id, f.severity.as_str(), f.meaning)?;
        writeln!(out, "  {:<26} {:<8} e.g. {}", "", "", f.example)?;
    }
    Ok(())
}

/// `tracelint formats`: every supported format, its detection signature,
/// its flag and its default locations (marked when present).
pub fn run_formats(out: &mut dyn Write) -> Result<()> {
    for (i, f) in source::formats().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{} ({})", f.name(), f.agent)?;
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

/// `tracelint schemas`: the tool schemas in effect for each source (or
/// every built-in set), with where each came from.
pub fn run_schemas(args: &SchemasArgs, out: &mut dyn Write) -> Result<()> {
    let file = args.tool_schemas.as_deref().map(schema::load_file).transpose()?.unwrap_or_default();
    let mut sets: Vec<(String, SchemaSet)> = Vec::new();
    let build = |format: &str, trace: &[(String, serde_json::Value)]| {
        SchemaSet::build(format, trace, &file).map_err(|e| Error::input(&file.origin, e))
    };
    if args.paths.is_empty() {
        for format in ["peri", "claude-code"] {
            sets.push((format!("built-in set for {format}"), build(format, &[])?));
        }
        if !file.tools.is_empty() {
            sets.push(("other formats".to_string(), build("", &[])?));
        }
    } else {
        for path in &args.paths {
            let src = input::open(path, &Default::default(), &mut Vec::new())?;
            // One set per agent whose sessions the source holds.
            for agent in &src.agents {
                let label = format!("{} ({agent})", one_line(&src.label));
                sets.push((label, build(agent, &src.tool_schemas()?)?));
            }
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
