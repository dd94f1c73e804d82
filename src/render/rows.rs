//! The rows of the sections that the table, the Markdown document and the
//! HTML page all show (recovery, cost, streaks): each row's cells are built
//! here once, as values, and each renderer writes them its own way (a
//! terminal cell, a Markdown cell, an HTML cell with its `data-k` key).
//! Which rows and columns a renderer shows, and their headers, stay its own.

use crate::report::{CostRow, RecoveryRow, StreakRow};
use crate::sanitize::one_line;

/// One cell of a section's row.
pub enum Value<'a> {
    /// The row's tool: a name from the trace, cut and escaped by the
    /// renderer (the row's header in HTML).
    Tool(&'a str),
    /// The row's category (HTML links it to its example calls).
    Category(&'a str),
    /// A count, and its key (HTML's `data-k`, the JSON field's name).
    Count(&'static str, u64),
    /// A count that is bad news when not 0 (red on a colour terminal).
    Alarm(&'static str, u64),
    /// Tries, and how many of them worked: "3 (1 ok)" in a table, two
    /// cells in HTML.
    OfThem {
        /// The tries: the column's key and the count.
        tries: (&'static str, u64),
        /// How many of them worked: the column's key and the count.
        ok: (&'static str, u64),
    },
    /// Text made here (a duration, a median, streak lengths), and the
    /// number HTML sorts it by (`None`: shown as text, not sorted as a number).
    Text {
        /// The column's key.
        key: &'static str,
        /// The text shown.
        text: String,
        /// The number HTML sorts the cell by, if any.
        sort: Option<String>,
    },
}

impl Value<'_> {
    /// The column's key: `tool`, `category`, or the count's or text's own.
    pub fn key(&self) -> &'static str {
        match self {
            Value::Tool(_) => "tool",
            Value::Category(_) => "category",
            Value::Count(k, _) | Value::Alarm(k, _) | Value::Text { key: k, .. } => k,
            Value::OfThem { tries, .. } => tries.0,
        }
    }
}

/// A recovery row: tool, category, failures, recovered, recovered at the
/// 1st, 2nd and 3rd call, the median, identical retries (and those that
/// worked), abandoned.
pub fn recovery(r: &RecoveryRow) -> Vec<Value<'_>> {
    vec![
        Value::Tool(&r.tool),
        Value::Category(&r.category),
        Value::Count("failures", r.failures),
        Value::Count("recovered", r.recovered),
        Value::Count("recovered_at_1", r.recovered_at_1),
        Value::Count("recovered_at_2", r.recovered_at_2),
        Value::Count("recovered_at_3", r.recovered_at_3),
        Value::Text {
            key: "median",
            text: r.median_attempts.map_or("-".to_string(), |m| m.to_string()),
            sort: Some(r.median_attempts.map_or("-1".to_string(), |m| m.to_string())),
        },
        Value::OfThem {
            tries: ("identical_retries", r.identical_retries),
            ok: ("identical_retry_successes", r.identical_retry_successes),
        },
        Value::Count("abandoned", r.abandoned),
    ]
}

/// A cost row (`super::cost_rows` orders them): tool, category, failures,
/// retries, time lost, time lost per timed failure, failures without a time.
pub fn cost(r: &CostRow) -> Vec<Value<'_>> {
    let per = r.lost_ms.checked_div(r.timed);
    vec![
        Value::Tool(&r.tool),
        Value::Category(&r.category),
        Value::Count("failures", r.failures),
        Value::Count("retries", r.retries),
        Value::Text { key: "lost_ms", text: super::duration(r.lost_ms), sort: Some(r.lost_ms.to_string()) },
        Value::Text {
            key: "per_failure_ms",
            text: super::per_failure(r),
            sort: Some(per.map_or(-1i64, |p| i64::try_from(p).unwrap_or(i64::MAX)).to_string()),
        },
        Value::Count("untimed", r.failures - r.timed.min(r.failures)),
    ]
}

/// What the failures of one tool and category cost in tokens and dollars
/// (docs/analyses.md, "Tokens and money"): over the failures with usage.
pub fn tokens(r: &CostRow) -> Vec<Value<'_>> {
    let tokens =
        |key: &'static str, n: u64| Value::Text { key, text: crate::prices::tokens(n), sort: Some(n.to_string()) };
    let priced = r.with_usage - r.unpriced.min(r.with_usage);
    let dollars = match (priced, r.unpriced) {
        (0, _) => "no price".to_string(),
        (_, 0) => crate::prices::dollars(r.dollars),
        (p, _) => format!("{} ({p} priced)", crate::prices::dollars(r.dollars)),
    };
    vec![
        Value::Tool(&r.tool),
        Value::Category(&r.category),
        Value::Count("failures", r.failures),
        Value::Count("with_usage", r.with_usage),
        tokens("own_tokens", r.own_tokens),
        tokens("retry_tokens", r.retry_tokens),
        tokens("rent_tokens", r.rent_tokens),
        tokens("tokens", r.tokens()),
        Value::Text { key: "dollars", text: dollars, sort: Some(format!("{:.6}", r.dollars)) },
    ]
}

/// The columns of `tokens`.
pub const TOKENS_HEADER: [&str; 9] =
    ["tool", "category", "failures", "with usage", "own", "retry", "rent (est.)", "tokens", "dollars"];

/// A tool's streaks: how many, the longest, p50 and p95 of their lengths,
/// the lengths (`length:count`), those at or above the guard threshold, and
/// those of them with hidden errors only.
pub fn streaks(r: &StreakRow) -> Vec<Value<'_>> {
    let lengths: Vec<String> = r.histogram.iter().map(|(k, v)| format!("{}:{v}", one_line(k))).collect();
    vec![
        Value::Tool(&r.tool),
        Value::Count("streaks", r.streaks),
        Value::Count("longest", r.longest),
        Value::Count("p50", r.p50),
        Value::Count("p95", r.p95),
        Value::Text { key: "lengths", text: lengths.join(" "), sort: None },
        Value::Count("at_or_above_threshold", r.at_or_above_threshold),
        Value::Alarm("hidden_at_or_above_threshold", r.hidden_at_or_above_threshold),
    ]
}
