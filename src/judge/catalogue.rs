//! The catalogue of failure shapes (`src/rules/catalogue.json`): what the
//! most used emitters (MCP servers and SDKs, agent frameworks, HTTP APIs,
//! SQL engines, shells) return when a call failed under a success flag, and
//! the benign look-alikes that must not count, each with the source it was
//! drawn from. Every entry is judged here as one call of one session, by the
//! same judge `scan` uses, and must get its verdict (and category).

use serde::Deserialize;
use serde_json::Value;

use super::{Outcome, judge};
use crate::model::{Call, Dialect, Event, Session, ToolResult};

/// One shape of the catalogue.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    emitter: String,
    source: String,
    agent: String,
    tool: String,
    input: Value,
    text: String,
    flagged: bool,
    exit_code: Option<i64>,
    verdict: String,
    category: Option<String>,
    note: String,
}

const CATALOGUE: &str = include_str!("../rules/catalogue.json");

fn entries() -> Vec<Entry> {
    serde_json::from_str(CATALOGUE).expect("src/rules/catalogue.json parses")
}

/// What the judge says of one entry: `None` for a success, else the
/// failure's category and whether it is hidden.
fn judged(e: &Entry) -> Option<(String, bool, &'static str)> {
    let dialect = Dialect::from_name(&e.agent).unwrap_or_else(|| panic!("{}: unknown agent {}", e.id, e.agent));
    let session = Session {
        id: "s".into(),
        dialect,
        parent: None,
        started: None,
        origin: None,
        events: vec![
            Event::Call(Call {
                id: "c1".into(),
                tool: e.tool.clone(),
                input: e.input.clone().into(),
                time: None,
                row: 1,
                usage: None,
            }),
            Event::Result(ToolResult {
                truncated: false,
                call_id: "c1".into(),
                text: e.text.clone(),
                flag: Some(e.flagged),
                exit_code: e.exit_code,
                time: None,
                row: 2,
            }),
        ],
        malformed: Vec::new(),
    };
    match &judge(session).calls[0].outcome {
        Outcome::Failed(f) => Some((f.category.as_str().to_string(), f.is_hidden(), f.content_rule.unwrap_or("flag"))),
        Outcome::Success => None,
        Outcome::Unpaired => unreachable!("the call has its result"),
    }
}

#[test]
fn the_catalogue_is_well_formed() {
    let entries = entries();
    assert!(entries.len() >= 40, "{} entries", entries.len());
    let mut ids = std::collections::HashSet::new();
    for e in &entries {
        assert!(ids.insert(e.id.as_str()), "{} is listed twice", e.id);
        assert!(
            !e.emitter.is_empty() && !e.source.is_empty() && !e.note.is_empty(),
            "{}: name its emitter and source",
            e.id
        );
        assert!(matches!(e.verdict.as_str(), "fail" | "ok"), "{}: verdict {}", e.id, e.verdict);
        if let Some(c) = &e.category {
            assert_eq!(e.verdict, "fail", "{}: only a failure has a category", e.id);
            assert!(crate::rules::CATEGORIES.iter().any(|k| k.slug == c), "{}: unknown category {c}", e.id);
        }
        assert!(e.verdict == "fail" || !e.flagged, "{}: a flagged success is not a catalogued shape", e.id);
    }
    for verdict in ["fail", "ok"] {
        assert!(entries.iter().filter(|e| e.verdict == verdict).count() >= 15, "too few {verdict} shapes");
    }
}

/// Every failure is caught (hidden when unflagged), in its category and
/// never `other` unless the entry says no category fits; every benign shape
/// is a success.
#[test]
fn every_catalogued_shape_is_judged_as_catalogued() {
    let mut wrong = Vec::new();
    for e in entries() {
        let got = judged(&e);
        let said = match (&got, e.verdict.as_str()) {
            (None, "ok") => None,
            (None, _) => Some("missed".to_string()),
            (Some((c, _, rule)), "ok") => Some(format!("false alarm ({c}, by {rule})")),
            (Some((c, hidden, _)), _) => {
                if *hidden == e.flagged {
                    Some(format!("hidden = {hidden} under flag {}", e.flagged))
                } else if e.category.as_deref().is_some_and(|want| want != c) {
                    Some(format!("category {c}, catalogued {}", e.category.as_deref().unwrap_or("")))
                } else if c == "other" && e.category.as_deref() != Some("other") {
                    Some("category other (say `\"category\": \"other\"` where no category fits)".to_string())
                } else {
                    None
                }
            }
        };
        if let Some(s) = said {
            wrong.push(format!("{} ({}): {s}", e.id, e.emitter));
        }
    }
    assert!(wrong.is_empty(), "{} of the catalogue judged otherwise:\n{}", wrong.len(), wrong.join("\n"));
}
