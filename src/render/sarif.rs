//! `--format sarif`: the findings as a SARIF 2.1.0 log (OASIS), so that
//! GitHub code scanning and other SARIF readers show them (docs/ci.md,
//! "SARIF"). One run, one result per finding; the rules are the registry's
//! (the finding rule, and for a finding about a failure its category, whose
//! fix is the help text). Each result points at the trace file and the line
//! of the result (transcripts), or at the database with a logical location
//! naming the row. Its `partialFingerprints` hash the store path, the
//! session, the call id and the rule: never the run's time, so two runs of
//! the same traces give the same fingerprints.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Value, json};

use crate::error::Result;
use crate::gate::fnv1a64;
use crate::report::{Finding, Report};
use crate::rules::{Category, Severity};

/// The SARIF version written, and the schema it validates against
/// (`schema/third-party/sarif-schema-2.1.0.json`).
pub const SARIF_VERSION: &str = "2.1.0";
const SARIF_SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of the fingerprint in `partialFingerprints`: its version is the
/// recipe's (a changed recipe is a new key, never new values under the old).
pub const FINGERPRINT_KEY: &str = "falseok/v1";

/// Where a finding points: a file, and the line in it or the database row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Located {
    /// The trace file as given (a transcript inside a folder source: that
    /// transcript), relative to the current folder when under it.
    pub path: String,
    /// The 1-based line of the result in a transcript.
    pub line: Option<u64>,
    /// The database row of the result (else of the call), when no line.
    pub row: Option<i64>,
}

/// Where `f` points, from the report alone: the file the finding's place
/// names (else its source), and the line or row the place holds.
pub fn place_of(f: &Finding) -> Option<Located> {
    let place = f.place.as_ref();
    let path = place.and_then(|p| p.file.clone()).unwrap_or_else(|| f.source.clone());
    if path.is_empty() {
        return None;
    }
    let row = place.map_or(0, |p| p.row);
    let line = place.is_some_and(|p| p.line) && row > 0;
    Some(Located { path, line: line.then(|| u64::try_from(row).unwrap_or(0)), row: (!line && row > 0).then_some(row) })
}

/// The rule a finding is a result of: the finding rule, and after a slash
/// the category of the failure it is about (`hidden-error/stale-edit-match`).
fn rule_id(f: &Finding) -> String {
    match &f.category {
        Some(c) => format!("{}/{c}", f.rule.as_str()),
        None => f.rule.as_str().to_string(),
    }
}

/// The stable fingerprint of a finding: the store path, the session, the
/// call id, the rule (and category); for a finding about no call, its
/// normalized evidence (the baseline key) and message, which name no time.
pub fn fingerprint(f: &Finding) -> String {
    let call = f.call_id.as_deref().unwrap_or("");
    let mut text = format!("{}\0{}\0{call}\0{}", f.source, f.session, rule_id(f));
    if f.call_id.is_none() {
        text.push('\0');
        text.push_str(if f.key.is_empty() { &f.message } else { &f.key });
    }
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// The registry's description of the rule `rule_id` gives `f`.
fn rule_object(f: &Finding) -> Value {
    let info = f.rule.info();
    let category = f.category.as_deref().and_then(Category::from_slug).map(Category::info);
    let short = match category {
        Some(c) => format!("{}: {}", info.id, c.meaning),
        None => info.meaning.to_string(),
    };
    let full = match category {
        Some(c) => format!("{}. Category {}: {}.", capitalized(info.meaning), c.slug, c.meaning),
        None => format!("{}. Example: {}", capitalized(info.meaning), info.example),
    };
    let help = match category {
        Some(c) => c.fix.to_string(),
        None => format!("{}. Example: {}", capitalized(info.meaning), info.example),
    };
    let level = level(f.rule.severity());
    let mut properties = json!({"findingRule": info.id, "scope": info.scope.as_str()});
    if let Some(c) = category {
        properties["category"] = c.slug.into();
        properties["causeClass"] = c.class.as_str().into();
    }
    json!({
        "id": rule_id(f),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help},
        "defaultConfiguration": {"level": level},
        "properties": properties,
    })
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|first| first.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A path as a URI reference: relative paths stay relative (to
/// `%SRCROOT%`, the folder the scan ran in), absolute ones are `file://`
/// URIs; bytes outside the unreserved set are percent-encoded.
fn uri(path: &str) -> (String, bool) {
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    let relative = !path.starts_with('/');
    if relative { (out, true) } else { (format!("file://{out}"), false) }
}

/// A physical location: the file at `path`, and the line when known.
fn physical(path: &str, line: Option<u64>) -> Value {
    let (uri, relative) = uri(path.trim_start_matches("./"));
    let mut artifact = json!({"uri": uri});
    if relative {
        artifact["uriBaseId"] = "%SRCROOT%".into();
    }
    let mut physical = json!({"artifactLocation": artifact});
    if let Some(line) = line.filter(|l| *l > 0) {
        physical["region"] = json!({"startLine": line});
    }
    physical
}

fn location(at: &Located, f: &Finding) -> Value {
    let mut loc = json!({"physicalLocation": physical(&at.path, at.line)});
    if let Some(row) = at.row {
        let name = format!("row {row}");
        let qualified = if f.session.is_empty() { name.clone() } else { format!("session {} / row {row}", f.session) };
        loc["logicalLocations"] = json!([{"name": name, "fullyQualifiedName": qualified, "kind": "object"}]);
    }
    loc
}

/// Writes the report's findings as a SARIF 2.1.0 log.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let log = log(view.report, view.located);
    serde_json::to_writer_pretty(&mut *out, &log).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// The SARIF log of `report`; `located` (in `findings` order) where the
/// command resolved the lines, else what the report alone says.
pub fn log(report: &Report, located: Option<&[Option<Located>]>) -> Value {
    let mut rules: BTreeMap<String, Value> = BTreeMap::new();
    for f in &report.findings {
        rules.entry(rule_id(f)).or_insert_with(|| rule_object(f));
    }
    let index: BTreeMap<&str, usize> = rules.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
    let reasons: BTreeMap<&str, &str> =
        report.suppressions.entries.iter().map(|e| (e.origin.as_str(), e.reason.as_str())).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let id = rule_id(f);
            let mut r = json!({
                "ruleId": id,
                "ruleIndex": index[id.as_str()],
                "level": level(f.severity),
                "message": {"text": f.message},
                "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
            });
            let at = located.and_then(|l| l.get(i).cloned()).unwrap_or_else(|| place_of(f));
            if let Some(at) = at {
                r["locations"] = json!([location(&at, f)]);
            }
            let mut properties = json!({"session": f.session});
            if let Some(c) = &f.call_id {
                properties["callId"] = c.as_str().into();
            }
            if let Some(t) = &f.tool {
                properties["tool"] = t.as_str().into();
            }
            if let Some(reason) = f.place.as_ref().and_then(|p| p.reason.as_deref()) {
                properties["reason"] = reason.into();
            }
            r["properties"] = properties;
            if let Some(origin) = &f.suppressed {
                let reason = reasons.get(origin.as_str()).copied().unwrap_or("");
                r["suppressions"] = json!([{
                    "kind": "external",
                    "status": "accepted",
                    "justification": reason,
                    "location": {"physicalLocation": suppression_location(origin)},
                }]);
            }
            r
        })
        .collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "falseok",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules.into_values().collect::<Vec<_>>(),
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The folder falseok ran in."}}},
            "results": results,
            "columnKind": "unicodeCodePoints",
            "properties": {
                "contractVersion": report.schema_version,
                "suppressed": report.suppressions.suppressed,
                "suppressionReasons": report.suppressions.reasons,
            },
        }],
    })
}

/// `file:line` of a suppression as a SARIF physical location.
fn suppression_location(origin: &str) -> Value {
    match origin.rsplit_once(':') {
        Some((file, line)) if line.parse::<u64>().is_ok() => physical(file, line.parse().ok()),
        _ => physical(origin, None),
    }
}
