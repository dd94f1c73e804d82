//! What model tokens cost: the price table shipped as data
//! (`src/prices.json`, dated, each row with its source), overridable by
//! the configuration file or `--prices FILE`, and the dollars of a
//! response's tokens. A model the table does not know is counted in
//! tokens only, and listed (docs/analyses.md, "Tokens and money").

use std::path::Path;
use std::sync::{LazyLock, OnceLock};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::Usage;

/// One model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// The start of the model names it prices.
    pub model: String,
    /// Input at the full price.
    pub input: f64,
    /// Output, reasoning included.
    pub output: f64,
    /// Input read from the prompt cache (the input price when absent).
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Input written to the prompt cache (the input price when absent).
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Where the prices were read.
    #[serde(default)]
    pub source: Option<String>,
}

/// A price table: its date and its rows.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// What the table is (free text).
    #[serde(default)]
    pub about: Option<String>,
    /// The day its prices were read.
    #[serde(default)]
    pub date: Option<String>,
    /// Its rows.
    pub models: Vec<Price>,
}

static BUILTIN: LazyLock<Prices> =
    LazyLock::new(|| serde_json::from_str(include_str!("prices.json")).expect("the shipped price table parses"));

static ACTIVE: OnceLock<Prices> = OnceLock::new();

/// The table in effect: the one installed, else the shipped one.
pub fn active() -> &'static Prices {
    ACTIVE.get().unwrap_or(&BUILTIN)
}

/// The shipped table.
pub fn builtin() -> &'static Prices {
    &BUILTIN
}

/// Make `prices` the table of the rest of the run (a second is ignored).
pub(crate) fn install(prices: Prices) {
    let _ = ACTIVE.set(prices);
}

impl Prices {
    /// The shipped table with the rows of the JSON file `path` over it (a
    /// row for a model the table has replaces it). Its shape is the shipped
    /// table's; a price must be a finite number, zero or more.
    pub fn with_file(path: &Path) -> Result<Prices> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
        let theirs: Prices = serde_json::from_str(&text).map_err(|e| {
            Error::input(path, format!("is not a price table ({})", crate::sanitize::one_line(&e.to_string())))
        })?;
        Prices::over_builtin(theirs).map_err(|problem| Error::input(path, problem))
    }

    /// `theirs` over the shipped table, each price checked.
    pub fn over_builtin(theirs: Prices) -> std::result::Result<Prices, String> {
        for p in &theirs.models {
            let all = [Some(p.input), Some(p.output), p.cache_read, p.cache_write];
            if p.model.trim().is_empty() {
                return Err("has a price row without a model".into());
            }
            if all.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(format!("prices `{}` at a negative or non-finite amount", p.model));
            }
        }
        let mut models = theirs.models;
        for p in &BUILTIN.models {
            if !models.iter().any(|m| m.model == p.model) {
                models.push(p.clone());
            }
        }
        Ok(Prices {
            about: theirs.about.or_else(|| BUILTIN.about.clone()),
            date: theirs.date.or_else(|| BUILTIN.date.clone()),
            models,
        })
    }

    /// The row pricing `model`: the longest row name that starts it, once
    /// a provider prefix is cut (`anthropic/claude-…`, `models/gemini-…`).
    pub fn of(&self, model: &str) -> Option<&Price> {
        // Asked for every call with usage, and a session names one model or
        // two: the last answer is kept per thread, for the tables that live
        // as long as the program (the shipped one, the one installed).
        let lasting = std::ptr::eq(self, &*BUILTIN) || ACTIVE.get().is_some_and(|a| std::ptr::eq(self, a));
        if !lasting {
            return self.find(model).map(|i| &self.models[i]);
        }
        thread_local! {
            static LAST: std::cell::RefCell<(usize, String, Option<usize>)> =
                const { std::cell::RefCell::new((0, String::new(), None)) };
        }
        let me = self as *const Prices as usize;
        let hit = LAST.with_borrow(|(table, name, at)| (*table == me && name == model).then_some(*at));
        let at = hit.unwrap_or_else(|| {
            let at = self.find(model);
            LAST.with_borrow_mut(|last| {
                last.0 = me;
                last.1.clear();
                last.1.push_str(model);
                last.2 = at;
            });
            at
        });
        at.map(|i| &self.models[i])
    }

    /// The index of the row pricing `model` (see `of`): the longest, the
    /// first of equals.
    fn find(&self, model: &str) -> Option<usize> {
        let name = model.trim().rsplit('/').next().unwrap_or("").as_bytes();
        let starts = |row: &str| name.len() >= row.len() && name[..row.len()].eq_ignore_ascii_case(row.as_bytes());
        (0..self.models.len())
            .filter(|&i| !self.models[i].model.is_empty() && starts(&self.models[i].model))
            .max_by_key(|&i| (self.models[i].model.len(), std::cmp::Reverse(i)))
    }

    /// The dollars of `u`'s tokens, as recorded when the source records
    /// them, else at the table's prices; `None` when neither.
    pub fn dollars(&self, u: &Usage) -> Option<f64> {
        if let Some(c) = u.cost {
            return Some(c);
        }
        let p = self.of(u.model.as_deref()?)?;
        Some(p.of_tokens(u.input, u.output, u.cache_read, u.cache_write))
    }
}

impl Price {
    /// The dollars of so many tokens of each kind.
    pub fn of_tokens(&self, input: u64, output: u64, cache_read: u64, cache_write: u64) -> f64 {
        let per = |n: u64, price: f64| n as f64 * price / 1e6;
        per(input, self.input)
            + per(output, self.output)
            + per(cache_read, self.cache_read.unwrap_or(self.input))
            + per(cache_write, self.cache_write.unwrap_or(self.input))
    }
}

/// A token count as people say it: `950`, `12.4 k`, `1.9 M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1} k", n as f64 / 1e3),
        _ => format!("{:.1} M", n as f64 / 1e6),
    }
}

/// US dollars: cents from a dollar up, else four decimals.
pub fn dollars(d: f64) -> String {
    if d >= 1.0 { format!("${d:.2}") } else { format!("${d:.4}") }
}

/// Dollars as whole millionths, the unit they are summed in, so that any
/// order of sessions and merges gives the same figure.
pub fn micros(dollars: f64) -> u64 {
    if dollars.is_finite() && dollars > 0.0 { (dollars * 1e6).round().min(u64::MAX as f64) as u64 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_name_that_starts_the_model_prices_it() {
        let p = builtin();
        assert_eq!(p.of("claude-opus-4-5-20251101").map(|r| r.input), Some(5.0));
        assert_eq!(p.of("claude-opus-4-1-20250805").map(|r| r.input), Some(15.0));
        assert_eq!(p.of("claude-opus-4-8").map(|r| r.input), Some(5.0));
        assert_eq!(p.of("anthropic/claude-sonnet-4-5").map(|r| r.output), Some(15.0));
        assert_eq!(p.of("models/gemini-2.5-flash-lite").map(|r| r.input), Some(0.1));
        assert_eq!(p.of("gpt-5-codex").map(|r| r.input), Some(1.25));
        assert_eq!(p.of("gpt-5-mini-2025-08-07").map(|r| r.input), Some(0.25));
        assert!(p.of("qwen3-coder-plus").is_none() && p.of("").is_none());
        for row in &p.models {
            assert!(row.source.as_deref().is_some_and(|s| s.starts_with("https://")), "{} names its source", row.model);
        }
        assert!(p.date.is_some());
    }

    /// The table against costs an agent recorded: Pi writes each message's
    /// tokens and its cost (`usage.cost.total`). The tuples are from public
    /// Pi sessions of the corpus (badlogic/pi-mono, mode89/welpy,
    /// selimbucher/civ6.ch; corpus/sources.tsv); over all 1,834 priced
    /// messages of those models there, the table gives the recorded total
    /// to the cent.
    #[test]
    fn the_table_prices_what_pi_recorded() {
        let recorded = [
            ("claude-opus-4-5", [1, 110, 4248, 206], 0.0061665),
            ("claude-sonnet-4-5", [7, 231, 1684, 9518], 0.0396837),
            ("claude-opus-4-8", [2, 231, 3421, 4707], 0.03691425),
            ("claude-sonnet-4-6", [3, 135, 1668, 344], 0.0038244),
        ];
        for (model, [input, output, read, write], cost) in recorded {
            let row = builtin().of(model).unwrap_or_else(|| panic!("{model} is priced"));
            let d = row.of_tokens(input, output, read, write);
            assert!((d - cost).abs() < 1e-9, "{model}: the table says {d}, Pi recorded {cost}");
        }
        assert_eq!(builtin().of("claude-opus-4-1-20250805").map(|r| r.input), Some(15.0));
        assert_eq!(builtin().of("claude-opus-4-20250514").map(|r| r.input), Some(15.0));
    }

    #[test]
    fn recorded_cost_wins_and_unknown_models_have_no_dollars() {
        let p = builtin();
        let u = |model: &str, cost| Usage {
            model: Some(model.into()),
            input: 1_000_000,
            output: 100_000,
            cache_read: 2_000_000,
            cache_write: 0,
            cost,
            ..Usage::default()
        };
        // 1 M input at $3, 0.1 M output at $15, 2 M cache reads at $0.30.
        let d = p.dollars(&u("claude-sonnet-4-5", None)).unwrap();
        assert!((d - (3.0 + 1.5 + 0.6)).abs() < 1e-9, "{d}");
        assert_eq!(p.dollars(&u("claude-sonnet-4-5", Some(0.25))), Some(0.25));
        assert_eq!(p.dollars(&u("mystery-1", None)), None);
        assert_eq!(p.dollars(&u("mystery-1", Some(1.5))), Some(1.5));
    }

    #[test]
    fn a_file_overrides_rows_and_refuses_bad_prices() {
        let theirs = Prices {
            about: None,
            date: Some("2027-01-01".into()),
            models: vec![Price {
                model: "claude-sonnet-4".into(),
                input: 1.0,
                output: 2.0,
                cache_read: None,
                cache_write: None,
                source: None,
            }],
        };
        let p = Prices::over_builtin(theirs.clone()).unwrap();
        assert_eq!(p.of("claude-sonnet-4-5").map(|r| r.input), Some(1.0));
        assert_eq!(p.of("gpt-5").map(|r| r.input), Some(1.25), "other rows stay");
        let mut bad = theirs;
        bad.models[0].output = f64::NAN;
        assert!(Prices::over_builtin(bad).is_err());
    }
}
