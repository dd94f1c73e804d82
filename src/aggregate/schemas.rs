//! Aggregating schema validation: per-tool counts, accepted violations, and
//! the drift between a schema and how the tool behaves.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::judge::{Failure, JudgedCall, Outcome, sequence};
use crate::report::{DriftRow, MissingNamed, SchemaReport, SchemaToolRow};
use crate::rules::{Category, FindingRule};
use crate::schema::{ToolSchema, Violation};

#[derive(Default)]
pub(crate) struct SchemaAgg {
    /// Per tool, per schema origin.
    tools: BTreeMap<String, BTreeMap<String, SchemaToolRow>>,
    missing_named: BTreeMap<(String, String), u64>,
    outside_enum: BTreeMap<(String, String, String), u64>,
    undocumented: BTreeMap<(String, String), u64>,
}

impl SchemaAgg {
    /// Count one (counted) call validated against `ts`.
    pub(crate) fn add(&mut self, ts: &ToolSchema, c: &JudgedCall, violations: &[Violation]) {
        // Looked up by reference, once when the row exists: this runs for
        // every call.
        let row = match self.tools.get_mut(&c.tool).and_then(|m| m.get_mut(&ts.origin)) {
            Some(row) => row,
            None => self.tools.entry(c.tool.clone()).or_default().entry(ts.origin.clone()).or_insert(SchemaToolRow {
                tool: c.tool.clone(),
                origin: ts.origin.clone(),
                validated: 0,
                violations: 0,
                accepted_violations: 0,
                categories: BTreeMap::new(),
            }),
        };
        row.validated += 1;
        if let Some(first) = violations.first() {
            row.violations += 1;
            *row.categories.entry(first.category.as_str().to_string()).or_default() += 1;
        }
        match &c.outcome {
            Outcome::Failed(Failure { category: Category::MissingRequiredParam, message, .. }) => {
                // The optional parameter the message names first, among those the
                // call did not pass ("provide subagent_type …, or use fork: true").
                let named = ts
                    .properties()
                    .iter()
                    .filter(|p| ts.is_optional(p) && !c.input.has(p.as_str()))
                    .filter_map(|p| sequence::position(message, p).map(|at| (at, p)))
                    .min();
                if let Some((_, p)) = named {
                    *self.missing_named.entry((c.tool.clone(), p.clone())).or_default() += 1;
                }
            }
            Outcome::Success => {
                if !violations.is_empty() {
                    row.accepted_violations += 1;
                }
                let documented = !ts.properties().is_empty();
                let mut count = |k: &str, v: &dyn Fn() -> Value| {
                    if documented && !ts.documents(k) {
                        *self.undocumented.entry((c.tool.clone(), k.to_string())).or_default() += 1;
                    }
                    if let Some(allowed) = ts.enum_of(k) {
                        let v = v();
                        if !allowed.contains(&v) {
                            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                            *self.outside_enum.entry((c.tool.clone(), k.to_string(), shown)).or_default() += 1;
                        }
                    }
                };
                // Kept as text, the members are read without decoding;
                // only an enum's value is decoded, on its own.
                if let Some(members) = c.input.members() {
                    for m in members {
                        count(m.key, &|| serde_json::from_str(m.raw).unwrap_or(Value::Null));
                    }
                } else if let Some(input) = c.input.value().as_object() {
                    for (k, v) in input {
                        count(k, &|| v.clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// Take in the schema section of a finished report (for `merge`): its
    /// counts add to these, refused past what a scan can count.
    pub(crate) fn absorb(&mut self, r: &SchemaReport) -> Result<(), String> {
        use super::sequences::add;
        for t in &r.tools {
            let row = self.tools.entry(t.tool.clone()).or_default().entry(t.origin.clone()).or_insert_with(|| {
                SchemaToolRow {
                    tool: t.tool.clone(),
                    origin: t.origin.clone(),
                    validated: 0,
                    violations: 0,
                    accepted_violations: 0,
                    categories: BTreeMap::new(),
                }
            });
            add(&mut row.validated, t.validated)?;
            add(&mut row.violations, t.violations)?;
            add(&mut row.accepted_violations, t.accepted_violations)?;
            for (k, n) in &t.categories {
                add(row.categories.entry(k.clone()).or_default(), *n)?;
            }
        }
        for m in &r.missing_named {
            add(self.missing_named.entry((m.tool.clone(), m.param.clone())).or_default(), m.count)?;
        }
        for d in &r.drift {
            match d.rule {
                FindingRule::EnumTooNarrow => {
                    let key = (d.tool.clone(), d.param.clone(), d.value.clone().unwrap_or_default());
                    add(self.outside_enum.entry(key).or_default(), d.count)?;
                }
                FindingRule::UndocumentedParam => {
                    add(self.undocumented.entry((d.tool.clone(), d.param.clone())).or_default(), d.count)?;
                }
                // Recomputed from `missing_named`.
                _ => {}
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self, drift_min: u64) -> SchemaReport {
        let missing_named = self
            .missing_named
            .iter()
            .map(|((tool, param), &count)| MissingNamed { tool: tool.clone(), param: param.clone(), count })
            .collect();
        let mut drift = Vec::new();
        for ((tool, param), count) in self.missing_named {
            if count >= drift_min {
                drift.push(DriftRow {
                    rule: FindingRule::OptionalButRequired,
                    recommendation: format!(
                        "add `{param}` to `required` in the {tool} schema, or say in its description exactly when it is needed"
                    ),
                    tool,
                    param,
                    value: None,
                    count,
                });
            }
        }
        for ((tool, param, value), count) in self.outside_enum {
            drift.push(DriftRow {
                rule: FindingRule::EnumTooNarrow,
                recommendation: format!("add {value:?} to the enum of `{param}`, or reject it at runtime"),
                tool,
                param,
                value: Some(value),
                count,
            });
        }
        for ((tool, param), count) in self.undocumented {
            drift.push(DriftRow {
                rule: FindingRule::UndocumentedParam,
                recommendation: format!("document `{param}` in the {tool} schema, or stop accepting it"),
                tool,
                param,
                value: None,
                count,
            });
        }
        drift.sort_by(|a, b| {
            b.count.cmp(&a.count).then((&a.rule, &a.tool, &a.param).cmp(&(&b.rule, &b.tool, &b.param)))
        });
        SchemaReport {
            tools: self.tools.into_values().flat_map(BTreeMap::into_values).collect(),
            drift,
            drift_min,
            missing_named,
        }
    }
}
