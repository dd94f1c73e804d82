//! Reading a configuration file: the TOML as written (every key known,
//! `deny_unknown_fields`), then each value checked, and only then the
//! compiled `Config`. Every refusal names the file, the line and the key.

use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::predicate::{Predicate, Test};
use super::{BenignShape, Config, CustomRule, Example, Suppression, tool_pattern};
use crate::error::{Error, Result};
use crate::rules::{CONTENT_RULES, Category, FINDING_RULES, REGISTRY, Scope};
use crate::sanitize::one_line;

/// The keys of the file (or of `[tool.falseok]`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    #[serde(default)]
    rules: Vec<Spanned<RawRule>>,
    #[serde(default)]
    benign: Vec<Spanned<RawBenign>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    select: Vec<Spanned<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    extend_select: Vec<Spanned<String>>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    per_path_ignores: std::collections::BTreeMap<String, Vec<Spanned<String>>>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    per_tool_ignores: std::collections::BTreeMap<String, Vec<Spanned<String>>>,
    // Suppressions change no verdict: they are not in the index key.
    #[serde(default, skip_serializing)]
    suppress: Vec<Spanned<RawSuppress>>,
    /// `[prices.<model>]`: prices over the shipped table (docs/analyses.md,
    /// "Tokens and money"). They change the dollars the index keeps: in its key.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    prices: std::collections::BTreeMap<String, Spanned<RawPrice>>,
}

/// A `[prices.<model>]` table: US dollars per million tokens.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPrice {
    input: f64,
    output: f64,
    #[serde(default)]
    cache_read: Option<f64>,
    #[serde(default)]
    cache_write: Option<f64>,
}

/// A `[[suppress]]` table: findings `check` does not count, and why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSuppress {
    rule: Spanned<String>,
    tool: Spanned<String>,
    session: Option<Spanned<String>>,
    call: Option<Spanned<String>>,
    reason: Spanned<String>,
    expires: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRule {
    id: Spanned<String>,
    tool: Spanned<String>,
    category: Spanned<String>,
    fix: Spanned<String>,
    description: Option<Spanned<String>>,
    result: RawPredicate,
    args: Option<RawPredicate>,
    #[serde(default, skip_serializing)]
    fails: Vec<Spanned<RawExample>>,
    #[serde(default, skip_serializing)]
    passes: Vec<Spanned<RawExample>>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBenign {
    id: Spanned<String>,
    tool: Spanned<String>,
    reason: Spanned<String>,
    result: RawPredicate,
    args: Option<RawPredicate>,
    #[serde(default, skip_serializing)]
    fails: Vec<Spanned<RawExample>>,
    #[serde(default, skip_serializing)]
    passes: Vec<Spanned<RawExample>>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPredicate {
    text: Option<Spanned<String>>,
    pointer: Option<Spanned<String>>,
    equals: Option<Spanned<toml::Value>>,
    #[serde(rename = "in")]
    any_of: Option<Spanned<Vec<toml::Value>>>,
    exists: Option<Spanned<bool>>,
    contains: Option<Spanned<toml::Value>>,
    matches: Option<Spanned<String>>,
}

/// An example for `falseok rules test`: a result's text, or a table with
/// the tool called, its arguments and the result's text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawExample {
    Text(String),
    Call(RawCall),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    tool: Option<String>,
    args: Option<toml::Value>,
    result: String,
}

/// `pyproject.toml`: only `[tool.falseok]` is read; other tables are the
/// other tools'.
#[derive(Deserialize)]
struct Pyproject {
    tool: Option<PyTool>,
}

#[derive(Deserialize)]
struct PyTool {
    falseok: Option<Raw>,
}

/// Does a `pyproject.toml`'s text hold a `[tool.falseok]` table?
pub(super) fn mentions_tool_table(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start().trim_start_matches('[').trim_start();
        l.starts_with("tool.falseok")
    })
}

/// The configuration in `text`, read from `path`: `None` for a
/// `pyproject.toml` with no `[tool.falseok]`.
pub(super) fn parse(path: &Path, text: &str, pyproject: bool) -> Result<Option<Config>> {
    let at = Spot { path, text };
    let raw = if pyproject {
        match toml::from_str::<Pyproject>(text) {
            Ok(p) => p.tool.and_then(|t| t.falseok),
            Err(e) => return Err(at.toml_error(&e)),
        }
    } else {
        Some(toml::from_str::<Raw>(text).map_err(|e| at.toml_error(&e))?)
    };
    raw.map(|raw| compile(&at, raw)).transpose()
}

/// Where a problem is: the file and its text.
struct Spot<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Spot<'_> {
    fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }

    /// The refusal of the value at `span`, whose key is `key`.
    fn refuse(&self, span: std::ops::Range<usize>, key: &str, problem: &str) -> Error {
        Error::input(self.path, format!("line {}, key `{key}`: {}", self.line(span.start), one_line(problem)))
    }

    /// A TOML or shape error, with the key written on its line.
    fn toml_error(&self, e: &toml::de::Error) -> Error {
        let start = e.span().map_or(0, |s| s.start);
        let line = self.text[..start.min(self.text.len())].rfind('\n').map_or(0, |i| i + 1);
        let rest = &self.text[line..];
        let this = rest.lines().next().unwrap_or("").trim();
        let key = match this.split_once('=') {
            Some((k, _)) => k.trim(),
            None => this,
        };
        let key = if key.is_empty() { "(file)" } else { key };
        self.refuse(start..start, key, e.message())
    }

    fn origin(&self, offset: usize) -> String {
        format!("{}:{}", self.path.display(), self.line(offset))
    }
}

/// Every id a rule of the registry has: a custom rule may not take one.
fn taken(id: &str) -> bool {
    REGISTRY.reason_ids().any(|r| r == id)
        || CONTENT_RULES.iter().any(|c| c.id == id)
        || FINDING_RULES.iter().any(|f| f.id == id)
        || Category::from_slug(id).is_some()
}

fn leak(s: String) -> &'static str {
    // One configuration per run: its ids live as long as the verdicts that name them.
    Box::leak(s.into_boxed_str())
}

fn compile(at: &Spot<'_>, raw: Raw) -> Result<Config> {
    let fingerprint = {
        let json = serde_json::to_string(&raw).map_err(|e| Error::Internal(e.to_string()))?;
        crate::sanitize::stable_hash(&[b"config-v1", json.as_bytes()])
    };
    let mut ids: Vec<String> = Vec::new();
    let mut claim = |id: &Spanned<String>, key: &str| -> Result<()> {
        let v = id.get_ref();
        let slug = !v.is_empty() && v.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !slug {
            return Err(at.refuse(id.span(), key, "an id is a slug: lowercase letters, digits and -"));
        }
        if taken(v) {
            return Err(at.refuse(id.span(), key, &format!("`{v}` is already a built-in rule or category")));
        }
        if ids.contains(v) {
            return Err(at.refuse(id.span(), key, &format!("`{v}` is used twice")));
        }
        ids.push(v.clone());
        Ok(())
    };
    let mut config = Config { fingerprint, path: Some(at.path.to_path_buf()), ..Config::default() };
    for (model, p) in raw.prices {
        let span = p.span();
        let p = p.into_inner();
        let all = [Some(p.input), Some(p.output), p.cache_read, p.cache_write];
        if model.trim().is_empty() || all.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(at.refuse(
                span,
                &format!("prices.{model}"),
                "a price is a number of dollars per million tokens, zero or more, for a named model",
            ));
        }
        config.prices.push(super::ModelPrice {
            model,
            input: p.input,
            output: p.output,
            cache_read: p.cache_read,
            cache_write: p.cache_write,
        });
    }
    for r in raw.benign {
        let span = r.span();
        let b = r.into_inner();
        claim(&b.id, "benign.id")?;
        config.benign.push(BenignShape {
            id: b.id.get_ref().clone(),
            tool_pattern: b.tool.get_ref().clone(),
            tool: tool_pattern(b.tool.get_ref()).map_err(|e| at.refuse(b.tool.span(), "benign.tool", &e))?,
            reason: one_line_text(at, &b.reason, "benign.reason")?,
            result: predicate(at, b.result, "benign.result", span.clone())?,
            args: b.args.map(|a| predicate(at, a, "benign.args", span.clone())).transpose()?,
            fails: examples(at, b.fails, b.tool.get_ref(), "benign.fails")?,
            passes: examples(at, b.passes, b.tool.get_ref(), "benign.passes")?,
            origin: at.origin(span.start),
        });
    }
    for r in raw.rules {
        let span = r.span();
        let c = r.into_inner();
        claim(&c.id, "rules.id")?;
        let category = Category::from_slug(c.category.get_ref()).ok_or_else(|| {
            at.refuse(c.category.span(), "rules.category", "not a category (`falseok rules` lists them)")
        })?;
        let fix = one_line_text(at, &c.fix, "rules.fix")?;
        let label = match &c.description {
            Some(d) => one_line_text(at, d, "rules.description")?,
            None => c.id.get_ref().clone(),
        };
        config.rules.push(CustomRule {
            id: leak(c.id.get_ref().clone()),
            tool_pattern: c.tool.get_ref().clone(),
            tool: tool_pattern(c.tool.get_ref()).map_err(|e| at.refuse(c.tool.span(), "rules.tool", &e))?,
            category,
            label: leak(label),
            fix,
            result: predicate(at, c.result, "rules.result", span.clone())?,
            args: c.args.map(|a| predicate(at, a, "rules.args", span.clone())).transpose()?,
            fails: examples(at, c.fails, c.tool.get_ref(), "rules.fails")?,
            passes: examples(at, c.passes, c.tool.get_ref(), "rules.passes")?,
            origin: at.origin(span.start),
        });
    }
    let known = |v: &str| -> Option<Option<Category>> {
        if let Some(c) = Category::from_slug(v) {
            return Some(Some(c));
        }
        let id = CONTENT_RULES.iter().any(|c| c.id == v)
            || FINDING_RULES.iter().any(|f| f.id == v && f.scope == Scope::Session)
            || ids.iter().any(|i| i == v);
        id.then_some(None)
    };
    // A tool's results hold no session finding: per-tool lists name verdicts only.
    let scoped = |pattern: String, re: regex::Regex, key: &str, list: Vec<Spanned<String>>, tools: bool| {
        let mut entry = super::ScopedIgnore { pattern, re, ids: Vec::new(), categories: Vec::new() };
        for i in list {
            let v = i.get_ref();
            let session_finding = FINDING_RULES.iter().any(|f| f.id == v && f.scope == Scope::Session);
            match known(v) {
                Some(Some(c)) => entry.categories.push(c),
                Some(None) if !(tools && session_finding) => entry.ids.push(v.clone()),
                _ => {
                    let expected = if tools {
                        "a content rule, a custom rule or a category (a tool's verdicts only)"
                    } else {
                        "a content rule, a session finding rule, a custom rule or a category"
                    };
                    return Err(at.refuse(i.span(), key, &format!("`{v}` is not {expected}")));
                }
            }
        }
        Ok(entry)
    };
    for (glob, list) in raw.per_path_ignores {
        let key = format!("per-path-ignores.\"{glob}\"");
        let re = path_glob(&glob);
        config.per_path.push(scoped(glob, re, &key, list, false)?);
    }
    for (pattern, list) in raw.per_tool_ignores {
        let key = format!("per-tool-ignores.\"{pattern}\"");
        // The pattern is a table key, which keeps no place: its list's does.
        let span = list.first().map_or(0..0, |i| i.span());
        let re = super::tool_pattern(&pattern).map_err(|e| at.refuse(span, &key, &e))?;
        config.per_tool.push(scoped(pattern, re, &key, list, true)?);
    }
    let lists = [("ignore", raw.ignore), ("select", raw.select), ("extend-select", raw.extend_select)];
    for (key, list) in lists {
        for i in list {
            let v = i.get_ref();
            let Some(category) = known(v) else {
                return Err(at.refuse(
                    i.span(),
                    key,
                    &format!("`{v}` is not a content rule, a session finding rule, a custom rule or a category"),
                ));
            };
            let (ids, categories) = if key == "ignore" {
                (&mut config.ignore_ids, &mut config.ignore_categories)
            } else {
                (&mut config.select_ids, &mut config.select_categories)
            };
            match category {
                Some(c) => categories.push(c),
                None => ids.push(v.clone()),
            }
        }
    }
    for s in raw.suppress {
        config.suppress.push(suppression(at, s)?);
    }
    Ok(config)
}

/// A path glob: `**/` any run of folders (none too), `*` any run of
/// characters but `/`, `?` one character but `/`; over the whole path.
fn path_glob(glob: &str) -> regex::Regex {
    let mut re = String::from("^");
    let mut rest = glob.trim_start_matches("./");
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("**/") {
            re.push_str("(?:.*/)?");
            rest = after;
            continue;
        }
        if let Some(after) = rest.strip_prefix("**") {
            re.push_str(".*");
            rest = after;
            continue;
        }
        match c {
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        rest = &rest[c.len_utf8()..];
    }
    re.push('$');
    // Every piece is escaped or a fixed class: it always compiles.
    regex::Regex::new(&re).unwrap_or_else(|_| regex::Regex::new("^$").expect("an empty pattern compiles"))
}

/// A suppression checked whole: a rule it can name, a tool pattern, a
/// reason of one line and a date that exists.
fn suppression(at: &Spot<'_>, raw: Spanned<RawSuppress>) -> Result<Suppression> {
    let span = raw.span();
    let s = raw.into_inner();
    let rule = s.rule.get_ref();
    let known = Category::from_slug(rule).is_some() || FINDING_RULES.iter().any(|f| f.id == rule);
    if !known {
        return Err(at.refuse(
            s.rule.span(),
            "suppress.rule",
            &format!("`{rule}` is not a finding rule or a category"),
        ));
    }
    let expires = match &s.expires {
        None => None,
        Some(v) => Some(date(v.get_ref()).ok_or_else(|| {
            at.refuse(v.span(), "suppress.expires", "not a date written YYYY-MM-DD (a TOML date or a string)")
        })?),
    };
    let id = |v: &Option<Spanned<String>>, key: &str| -> Result<Option<String>> {
        v.as_ref().map(|v| one_line_text(at, v, key)).transpose()
    };
    Ok(Suppression {
        rule: rule.clone(),
        tool_pattern: s.tool.get_ref().clone(),
        tool: tool_pattern(s.tool.get_ref()).map_err(|e| at.refuse(s.tool.span(), "suppress.tool", &e))?,
        session: id(&s.session, "suppress.session")?,
        call: id(&s.call, "suppress.call")?,
        reason: one_line_text(at, &s.reason, "suppress.reason")?,
        expires,
        origin: at.origin(span.start),
    })
}

/// A TOML local date (`2027-01-31`), or a string that spells one.
fn date(v: &toml::Value) -> Option<chrono::NaiveDate> {
    let text = match v {
        toml::Value::Datetime(d) if d.time.is_none() && d.offset.is_none() => d.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return None,
    };
    let well_formed = text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
    well_formed.then(|| chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d").ok()).flatten()
}

/// The examples of a rule or shape: each names its tool, or takes the
/// pattern when the pattern is one tool's name.
fn examples(at: &Spot<'_>, raw: Vec<Spanned<RawExample>>, pattern: &str, key: &str) -> Result<Vec<Example>> {
    let literal = !pattern.starts_with("re:") && !pattern.contains(['*', '?']);
    raw.into_iter()
        .map(|e| {
            let span = e.span();
            let (tool, args, result) = match e.into_inner() {
                RawExample::Text(result) => (None, None, result),
                RawExample::Call(c) => (c.tool, c.args, c.result),
            };
            let tool = match tool {
                Some(t) => t,
                None if literal => pattern.to_string(),
                None => {
                    return Err(at.refuse(
                        span,
                        key,
                        &format!("an example of the pattern `{pattern}` names its `tool`"),
                    ));
                }
            };
            Ok(Example {
                tool,
                args: args.as_ref().map_or(serde_json::Value::Null, json),
                result,
                origin: at.origin(span.start),
            })
        })
        .collect()
}

fn one_line_text(at: &Spot<'_>, s: &Spanned<String>, key: &str) -> Result<String> {
    let v = s.get_ref().trim();
    if v.is_empty() || v.contains('\n') {
        return Err(at.refuse(s.span(), key, "must be one line of text"));
    }
    Ok(v.to_string())
}

fn regex(at: &Spot<'_>, s: &Spanned<String>, key: &str) -> Result<regex::Regex> {
    regex::Regex::new(s.get_ref())
        .map_err(|e| at.refuse(s.span(), key, &format!("not a regex: {}", one_line(&e.to_string()))))
}

fn json(v: &toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// A predicate checked whole: a `text` regex, or a `pointer` and exactly
/// one test.
fn predicate(at: &Spot<'_>, p: RawPredicate, key: &str, table: std::ops::Range<usize>) -> Result<Predicate> {
    let mut tests: Vec<(std::ops::Range<usize>, &str, Test)> = Vec::new();
    if let Some(v) = &p.equals {
        tests.push((v.span(), "equals", Test::Equals(json(v.get_ref()))));
    }
    if let Some(v) = &p.any_of {
        tests.push((v.span(), "in", Test::In(v.get_ref().iter().map(json).collect())));
    }
    if let Some(v) = &p.exists {
        tests.push((v.span(), "exists", Test::Exists(*v.get_ref())));
    }
    if let Some(v) = &p.contains {
        tests.push((v.span(), "contains", Test::Contains(json(v.get_ref()))));
    }
    if let Some(v) = &p.matches {
        tests.push((v.span(), "matches", Test::Matches(regex(at, v, &format!("{key}.matches"))?)));
    }
    match (&p.text, &p.pointer) {
        (Some(t), None) => match tests.first() {
            Some((span, name, _)) => {
                Err(at.refuse(span.clone(), &format!("{key}.{name}"), "goes with `pointer`, not with `text`"))
            }
            None => Ok(Predicate::Text(regex(at, t, &format!("{key}.text"))?)),
        },
        (None, Some(ptr)) => {
            let pointer = ptr.get_ref();
            if !pointer.is_empty() && !pointer.starts_with('/') {
                return Err(at.refuse(
                    ptr.span(),
                    &format!("{key}.pointer"),
                    "a JSON pointer is empty or starts with /",
                ));
            }
            if tests.len() != 1 {
                let span = tests.get(1).map_or(ptr.span(), |t| t.0.clone());
                return Err(at.refuse(
                    span,
                    &format!("{key}.pointer"),
                    "takes exactly one of equals, in, exists, contains, matches",
                ));
            }
            let (_, _, test) = tests.remove(0);
            Ok(Predicate::Pointer { pointer: pointer.clone(), test })
        }
        (Some(_), Some(ptr)) => {
            Err(at.refuse(ptr.span(), &format!("{key}.pointer"), "a predicate is `text` or `pointer`, not both"))
        }
        (None, None) => Err(at.refuse(table, key, "needs `text` or `pointer`")),
    }
}
