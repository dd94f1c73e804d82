//! The configuration file (docs/config.md, schema/config-v1.schema.json):
//! a team's own failure shapes and benign shapes per tool, and the rules
//! or categories it ignores. Found the way ruff finds its own: from the
//! current folder upwards, the first folder holding `.falseok.toml`,
//! `falseok.toml` or a `pyproject.toml` with `[tool.falseok]`; or named by
//! `--config`; none with `--isolated`.
//!
//! A file is read whole and checked whole before any of it is applied:
//! a bad one is refused with one line naming the file, the line and the
//! key, and nothing is judged. The file in effect is installed once per
//! run (`install`), and the judge reads it through `active`, so every
//! command that judges (scan, check, export, watch, guard, ...) applies
//! the same rules.
#![warn(missing_docs)]

mod file;
mod predicate;
mod suppress;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::rules::Category;
pub(crate) use predicate::Predicate;
pub(crate) use suppress::{Named, today};

/// The names a configuration file may have, in the order each folder is searched.
pub(crate) const FILE_NAMES: &[&str] = &[".falseok.toml", "falseok.toml", "pyproject.toml"];

/// A custom failure rule: a result of a matching tool that matches its
/// predicates failed, in its category.
#[derive(Debug)]
pub(crate) struct CustomRule {
    /// The rule's id, as findings, reports and `--fail-on` name it.
    pub(crate) id: &'static str,
    /// The tool-name pattern as written (a glob, or `re:` and a regex).
    pub(crate) tool_pattern: String,
    tool: Regex,
    /// The category it assigns.
    pub(crate) category: Category,
    /// The one line that says what the failure is (the report's label).
    pub(crate) label: &'static str,
    /// What to change so that it stops happening.
    pub(crate) fix: String,
    result: Predicate,
    args: Option<Predicate>,
    /// Examples it must judge a failure (a rule) or must not silence (a shape).
    pub(crate) fails: Vec<Example>,
    /// Examples it must not judge a failure (a rule) or must silence (a shape).
    pub(crate) passes: Vec<Example>,
    /// Where it is written: the file and the line.
    pub(crate) origin: String,
}

/// A custom benign shape: a result of a matching tool that matches its
/// predicates is not a failure, whatever the rules or the flag say.
#[derive(Debug)]
pub(crate) struct BenignShape {
    /// The shape's id.
    pub(crate) id: String,
    /// The tool-name pattern as written.
    pub(crate) tool_pattern: String,
    tool: Regex,
    /// Why it is not a failure.
    pub(crate) reason: String,
    result: Predicate,
    args: Option<Predicate>,
    /// Examples it must judge a failure (a rule) or must not silence (a shape).
    pub(crate) fails: Vec<Example>,
    /// Examples it must not judge a failure (a rule) or must silence (a shape).
    pub(crate) passes: Vec<Example>,
    /// Where it is written: the file and the line.
    pub(crate) origin: String,
}

/// A suppression (`[[suppress]]`): the findings it matches do not count
/// against `check`'s gate until it expires.
#[derive(Debug)]
pub(crate) struct Suppression {
    /// The finding rule id or the category it names.
    pub(crate) rule: String,
    /// The tool-name pattern as written.
    pub(crate) tool_pattern: String,
    tool: Regex,
    /// The one session it is limited to.
    pub(crate) session: Option<String>,
    /// The one call id it is limited to.
    pub(crate) call: Option<String>,
    /// Why the findings are accepted.
    pub(crate) reason: String,
    /// The last day it holds (UTC).
    pub(crate) expires: Option<chrono::NaiveDate>,
    /// Where it is written: the file and the line.
    pub(crate) origin: String,
}

/// A `per-path-ignores` or `per-tool-ignores` entry: what `ignore`
/// would drop, dropped only in the traces (or the tools' results) its
/// pattern matches.
#[derive(Debug)]
pub(crate) struct ScopedIgnore {
    /// The pattern as written: a path glob relative to the configuration
    /// file's folder, or a tool pattern (a glob, or `re:` and a regex).
    pub(crate) pattern: String,
    re: Regex,
    /// Rule ids it drops.
    pub(crate) ids: Vec<String>,
    /// Categories it drops.
    pub(crate) categories: Vec<Category>,
}

impl ScopedIgnore {
    /// What it drops: rule ids, then categories.
    pub(crate) fn dropped(&self) -> Vec<&str> {
        self.ids.iter().map(String::as_str).chain(self.categories.iter().map(|c| c.as_str())).collect()
    }

    /// Does it drop the verdict of the rule `id`, in `category`?
    fn drops(&self, id: &str, category: Category) -> bool {
        self.ids.iter().any(|x| x == id) || self.categories.contains(&category)
    }
}

/// A call and its result, for `falseok rules test`.
#[derive(Debug)]
pub(crate) struct Example {
    /// The tool called.
    pub(crate) tool: String,
    /// The call's arguments (null when the example gives none).
    pub(crate) args: Value,
    /// The result's text, as stored.
    pub(crate) result: String,
    /// Where it is written: the file and the line.
    pub(crate) origin: String,
}

fn is_finding_rule(id: &str) -> bool {
    crate::rules::FINDING_RULES.iter().any(|f| f.id == id)
}

/// The configuration in effect: none (`Config::default()`), or one file's.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The file it was read from.
    pub(crate) path: Option<PathBuf>,
    /// Custom failure rules, first match wins.
    pub(crate) rules: Vec<CustomRule>,
    /// Custom benign shapes, tried before the failure rules.
    pub(crate) benign: Vec<BenignShape>,
    /// Rule ids (content rules, finding rules) whose verdicts are dropped.
    pub(crate) ignore_ids: Vec<String>,
    /// Categories whose content verdicts are dropped.
    pub(crate) ignore_categories: Vec<Category>,
    /// `select` and `extend-select`: the rule ids (content rules, custom
    /// rules, finding rules) whose verdicts alone are kept, and which win
    /// over an `ignore` of their category.
    pub(crate) select_ids: Vec<String>,
    /// `select` and `extend-select`: the categories whose content verdicts
    /// alone are kept.
    pub(crate) select_categories: Vec<Category>,
    /// Findings `check` does not count, with their reasons.
    pub(crate) suppress: Vec<Suppression>,
    /// Ignores that hold for the traces under a path glob.
    pub(crate) per_path: Vec<ScopedIgnore>,
    pub(crate) per_tool: Vec<ScopedIgnore>,
    /// `[prices.<model>]`: prices over the shipped table.
    pub(crate) prices: Vec<ModelPrice>,
    /// A hash of everything above that changes a verdict (the index key).
    pub(crate) fingerprint: u64,
}

/// One model's prices from the configuration, US dollars per million tokens.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelPrice {
    pub(crate) model: String,
    pub(crate) input: f64,
    pub(crate) output: f64,
    pub(crate) cache_read: Option<f64>,
    pub(crate) cache_write: Option<f64>,
}

/// What the configuration says of one result before the built-in rules.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Verdict<'a> {
    /// A benign shape matched: not a failure.
    Benign(&'a BenignShape),
    /// A custom rule matched: a failure of its category.
    Fails(&'a CustomRule),
}

impl Config {
    /// Does the configuration change anything?
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
            && self.benign.is_empty()
            && self.ignore_ids.is_empty()
            && self.ignore_categories.is_empty()
            && self.select_ids.is_empty()
            && self.select_categories.is_empty()
            && self.per_path.is_empty()
            && self.per_tool.is_empty()
    }

    /// The benign shape or custom rule that decides a result of `tool`
    /// called with `input`, whose text is `raw` (as stored, escapes
    /// removed) and `shown` (as the rules see it, envelopes unwrapped).
    pub(crate) fn judge(&self, tool: &str, input: &Value, raw: &str, shown: &str) -> Option<Verdict<'_>> {
        let benign = self.benign.iter().filter(|b| b.tool.is_match(tool));
        let rules = self.rules.iter().filter(|r| r.tool.is_match(tool) && !self.ignores_id(r.id));
        let (mut benign, mut rules) = (benign.peekable(), rules.peekable());
        if benign.peek().is_none() && rules.peek().is_none() {
            return None;
        }
        let result = predicate::Subject::of_result(raw, shown);
        let call = predicate::Subject::of_args(input);
        let holds =
            |p: &Predicate, a: &Option<Predicate>| p.holds(&result) && a.as_ref().is_none_or(|a| a.holds(&call));
        if let Some(b) = benign.find(|b| holds(&b.result, &b.args)) {
            return Some(Verdict::Benign(b));
        }
        rules.find(|r| holds(&r.result, &r.args)).map(Verdict::Fails)
    }

    /// Is the verdict of the rule `id` dropped?
    pub(crate) fn ignores_id(&self, id: &str) -> bool {
        self.ignore_ids.iter().any(|i| i == id)
    }

    /// Every example of the rules and shapes that does not behave, one
    /// line each, and how many examples there are.
    pub(crate) fn test_examples(&self) -> (usize, Vec<String>) {
        let mut wrong = Vec::new();
        let mut n = 0;
        let mut check =
            |kind: &str, id: &str, list: &str, examples: &[Example], want: &dyn Fn(Option<Verdict<'_>>) -> bool| {
                for (i, e) in examples.iter().enumerate() {
                    n += 1;
                    let plain = crate::rules::plain(&e.result);
                    let shown = crate::rules::present(&e.tool, &plain);
                    let verdict = self.judge(&e.tool, &e.args, &plain, &shown);
                    if !want(verdict) {
                        let got = match verdict {
                            Some(Verdict::Benign(b)) => format!("silenced by the benign shape `{}`", b.id),
                            Some(Verdict::Fails(r)) => format!("judged a failure by the rule `{}`", r.id),
                            None => "matched by no rule or shape".to_string(),
                        };
                        wrong.push(format!("{}: {kind} `{id}`: {list}[{i}] ({}) was {got}", e.origin, e.tool));
                    }
                }
            };
        for r in &self.rules {
            let fires = |v: Option<Verdict<'_>>| matches!(v, Some(Verdict::Fails(x)) if x.id == r.id);
            check("rule", r.id, "fails", &r.fails, &fires);
            check("rule", r.id, "passes", &r.passes, &|v| !fires(v));
        }
        for b in &self.benign {
            let silences = |v: Option<Verdict<'_>>| matches!(v, Some(Verdict::Benign(x)) if x.id == b.id);
            check("benign shape", &b.id, "passes", &b.passes, &silences);
            check("benign shape", &b.id, "fails", &b.fails, &|v| !silences(v));
        }
        (n, wrong)
    }

    /// What `ignore` names: rule ids, then categories.
    pub(crate) fn ignored(&self) -> Vec<&str> {
        self.ignore_ids.iter().map(String::as_str).chain(self.ignore_categories.iter().map(|c| c.as_str())).collect()
    }

    /// What `select` and `extend-select` name: rule ids, then categories.
    pub(crate) fn selected(&self) -> Vec<&str> {
        self.select_ids.iter().map(String::as_str).chain(self.select_categories.iter().map(|c| c.as_str())).collect()
    }

    /// Is a content verdict in `category` dropped?
    fn ignores_category(&self, category: Category) -> bool {
        self.ignore_categories.contains(&category)
    }

    /// Does the selection narrow the content verdicts (it names a category,
    /// a content rule or a custom rule)?
    fn selects_verdicts(&self) -> bool {
        !self.select_categories.is_empty() || self.select_ids.iter().any(|i| !is_finding_rule(i))
    }

    /// Is the content verdict of the rule `id` (a content rule or a custom
    /// rule), in `category`, kept? An `ignore` of the id drops it; a
    /// selection of the id keeps it (over an `ignore` of its category); an
    /// `ignore` of its category drops it; and with a selection of verdicts,
    /// only a selected category keeps it.
    pub(crate) fn keeps(&self, id: &str, category: Category) -> bool {
        if self.ignores_id(id) {
            return false;
        }
        if self.select_ids.iter().any(|s| s == id) {
            return true;
        }
        if self.ignores_category(category) {
            return false;
        }
        !self.selects_verdicts() || self.select_categories.contains(&category)
    }

    /// The `per-path-ignores` entries whose glob matches the trace at
    /// `path`, relative to the configuration file's folder (both
    /// canonical, when they exist).
    pub(crate) fn paths_matching(&self, path: Option<&Path>) -> Vec<usize> {
        let (Some(path), Some(file)) = (path, &self.path) else { return Vec::new() };
        if self.per_path.is_empty() {
            return Vec::new();
        }
        let real = |p: &Path| std::fs::canonicalize(p).or_else(|_| std::path::absolute(p)).ok();
        let (Some(path), Some(dir)) = (real(path), file.parent().and_then(real)) else { return Vec::new() };
        let Ok(rel) = path.strip_prefix(&dir) else { return Vec::new() };
        let rel = rel.to_string_lossy();
        (0..self.per_path.len()).filter(|&i| self.per_path[i].re.is_match(&rel)).collect()
    }

    /// `keeps`, and not dropped by the `per-path-ignores` entries `at` nor
    /// by a `per-tool-ignores` entry whose pattern names `tool`.
    pub(crate) fn keeps_at(&self, id: &str, category: Category, at: &[usize], tool: &str) -> bool {
        self.keeps(id, category)
            && !at.iter().any(|&i| self.per_path[i].drops(id, category))
            && !self.per_tool.iter().any(|t| t.re.is_match(tool) && t.drops(id, category))
    }

    /// `keeps_finding`, and not dropped by the `per-path-ignores` entries `at`.
    pub(crate) fn keeps_finding_at(&self, id: &str, at: &[usize]) -> bool {
        self.keeps_finding(id) && at.iter().all(|&i| !self.per_path[i].ids.iter().any(|x| x == id))
    }

    /// Are the findings of the session finding rule `id` reported? Not
    /// when ignored; with a selection that names finding rules, only those.
    pub(crate) fn keeps_finding(&self, id: &str) -> bool {
        let narrowed = self.select_ids.iter().any(|i| is_finding_rule(i));
        !self.ignores_id(id) && (!narrowed || self.select_ids.iter().any(|s| s == id))
    }
}

static ACTIVE: OnceLock<Config> = OnceLock::new();
static NONE: Config = Config {
    path: None,
    rules: Vec::new(),
    benign: Vec::new(),
    ignore_ids: Vec::new(),
    ignore_categories: Vec::new(),
    select_ids: Vec::new(),
    select_categories: Vec::new(),
    suppress: Vec::new(),
    per_path: Vec::new(),
    per_tool: Vec::new(),
    prices: Vec::new(),
    fingerprint: 0,
};

/// The configuration the judge applies: the one `install`ed, else none.
pub(crate) fn active() -> &'static Config {
    ACTIVE.get().unwrap_or(&NONE)
}

/// Make `config` the one the judge applies for the rest of the run. A run
/// installs at most one; a second is refused (an internal error).
pub(crate) fn install(config: Config) -> Result<()> {
    ACTIVE.set(config).map_err(|_| Error::Internal("the configuration was installed twice".into()))
}

/// How the command line chose the configuration.
#[derive(Debug, Clone)]
pub(crate) enum Choice<'a> {
    /// `--isolated`: none.
    Isolated,
    /// `--config FILE`.
    File(&'a Path),
    /// Found from this folder upwards.
    Search(PathBuf),
}

/// The configuration `choice` names, read and checked whole.
pub(crate) fn load(choice: Choice<'_>) -> Result<Config> {
    match choice {
        Choice::Isolated => Ok(Config::default()),
        Choice::File(path) => {
            let text = read(path)?;
            let pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
            file::parse(path, &text, pyproject)?
                .map_or_else(|| Err(Error::input(path, "no [tool.falseok] table: nothing to configure")), Ok)
        }
        Choice::Search(start) => match find(&start)? {
            Some((path, text)) => {
                let pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
                Ok(file::parse(&path, &text, pyproject)?.unwrap_or_default())
            }
            None => Ok(Config::default()),
        },
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::input(path, format!("cannot read the configuration: {e}")))
}

/// The first configuration file from `start` upwards, with its text. A
/// `pyproject.toml` counts only when it holds a `[tool.falseok]` table.
fn find(start: &Path) -> Result<Option<(PathBuf, String)>> {
    for dir in start.ancestors() {
        for name in FILE_NAMES {
            let path = dir.join(name);
            if !path.is_file() {
                continue;
            }
            let text = read(&path)?;
            if *name == "pyproject.toml" && !file::mentions_tool_table(&text) {
                continue;
            }
            return Ok(Some((path, text)));
        }
    }
    Ok(None)
}

/// A tool-name pattern: `re:` and a regex (searched in the name), else a
/// glob over the whole name (`*` any run of characters, `?` one).
pub(super) fn tool_pattern(pattern: &str) -> std::result::Result<Regex, String> {
    if let Some(re) = pattern.strip_prefix("re:") {
        return Regex::new(re).map_err(|e| format!("not a regex: {}", crate::sanitize::one_line(&e.to_string())));
    }
    let mut re = String::from("^");
    for c in pattern.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
