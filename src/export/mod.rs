//! Export: one row per judged call, for engines (DuckDB, ClickHouse, Spark)
//! when one machine is not enough. The row is a versioned contract
//! (`schema/export-v3.schema.json`): fixed key order, booleans as booleans,
//! numbers as numbers, so every engine infers the same schema from every file.

pub(crate) mod ndjson;
#[cfg(feature = "parquet")]
pub(crate) mod parquet;

use serde::Serialize;

use crate::judge::{JudgedCall, JudgedSession, Outcome};
use crate::redact::Redaction;

/// Version of the export row contract.
// Only the Parquet writer (`--features parquet`) stamps it on its files.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) const EXPORT_VERSION: u32 = 3;

/// A sink of rows: one file (or stream) of one export format, written row
/// by row and finished once (`ndjson::Writer`, `parquet::Writer`).
pub(crate) trait RowWriter: Send {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()>;
    /// Flush what is buffered and close the file's format (Parquet's footer).
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

/// One judged call. Field order is the column order.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct CallRow {
    /// The PATH the call was read from, as given.
    pub source: String,
    /// The format the source was read as (`falseok formats`).
    pub format: String,
    /// The agent that wrote the session (a format or a transcript agent).
    pub agent: String,
    pub session: String,
    pub parent_session: Option<String>,
    /// Position of the call in its session, from 1.
    pub seq: u64,
    /// When the call was made (RFC 3339, UTC, milliseconds); the session's
    /// start when the call has no time of its own.
    pub ts: Option<String>,
    pub ts_ms: Option<i64>,
    pub tool: String,
    pub call_id: String,
    /// A result was recorded for the call.
    pub paired: bool,
    /// The source flagged the result as an error.
    pub flagged: bool,
    /// A content rule says the result is a failure.
    pub content_error: bool,
    /// Content error, not flagged: the headline number.
    pub hidden: bool,
    /// Flagged or content error.
    pub error: bool,
    /// The category slug of a failed call.
    pub category: Option<String>,
    /// The ids of the rules that fired: the content rule, then the
    /// classification rule.
    pub rules: Vec<String>,
    /// The normalized first line of the error (numbers, paths, ids replaced).
    pub template: Option<String>,
    /// Bytes of result text read (the two ends of a very long result).
    pub result_bytes: Option<u64>,
    /// For a failed call: calls of the same tool until the next success
    /// (1 = the next call); null when none succeeded or the call did not fail.
    pub recovered_after: Option<u64>,
    /// For a failed call: the next call of the tool had the same arguments.
    pub identical_retry: Option<bool>,
    /// For a failed call: calls of the tool after it up to and including
    /// its next success (every later call when none succeeded).
    pub retries: Option<u64>,
    /// For a failed call: milliseconds to the tool's next success, or to the
    /// session's last recorded time; null without times.
    pub lost_ms: Option<u64>,
    /// The model of the response that emitted the call (v3); null when the
    /// trace records no usage for it.
    pub model: Option<String>,
    /// The call's share of its response's input tokens at the full price
    /// (v3; docs/analyses.md, "Tokens and money"); null without usage.
    pub input_tokens: Option<u64>,
    /// ... of its output tokens, reasoning included.
    pub output_tokens: Option<u64>,
    /// ... of its cache reads.
    pub cache_read_tokens: Option<u64>,
    /// ... of its cache writes.
    pub cache_write_tokens: Option<u64>,
    /// ... of its reasoning tokens.
    pub reasoning_tokens: Option<u64>,
    /// The call's share of its response's dollars, recorded or priced; null
    /// when neither.
    pub cost_usd: Option<f64>,
    /// For a failed call with usage: what it cost in tokens (own, retry and
    /// the estimated rent).
    pub failure_tokens: Option<u64>,
}

/// Where a session's rows come from.
pub(crate) struct Origin<'a> {
    pub source: &'a str,
    pub format: &'a str,
}

/// The rows of one judged session, in call order; trace text (templates)
/// redacted as `redaction` says.
pub(crate) fn rows(origin: &Origin<'_>, s: &JudgedSession, redaction: Redaction) -> Vec<CallRow> {
    let costs = crate::judge::tokens::failure_costs(s, crate::prices::active());
    let mut fates = vec![None; s.calls.len()];
    for f in &s.sequences.fates {
        if let Some(slot) = fates.get_mut(f.call) {
            *slot = Some(f);
        }
    }
    s.calls
        .iter()
        .zip(fates)
        .enumerate()
        .map(|(i, (c, fate))| {
            let mut r = row(origin, s, c, fate);
            if let Some(u) = c.usage.as_deref() {
                r.model = u.model.clone();
                r.input_tokens = c.share_of(|u| u.input);
                r.output_tokens = c.share_of(|u| u.output);
                r.cache_read_tokens = c.share_of(|u| u.cache_read);
                r.cache_write_tokens = c.share_of(|u| u.cache_write);
                r.reasoning_tokens = c.share_of(|u| u.reasoning);
                r.cost_usd = crate::judge::tokens::call_micros(c, crate::prices::active()).map(|m| m as f64 / 1e6);
            }
            r.failure_tokens = costs.get(i).copied().flatten().map(|f| f.tokens());
            r.template = r.template.map(|t| redaction.apply(&t).into_owned());
            r
        })
        .collect()
}

/// The Hive partition of a row: `date=YYYY-MM-DD`, or the Hive default
/// partition for a call without a time.
pub(crate) fn partition(row: &CallRow) -> String {
    match &row.ts {
        Some(ts) if ts.len() >= 10 => format!("date={}", &ts[..10]),
        _ => "date=__HIVE_DEFAULT_PARTITION__".to_string(),
    }
}

fn row(origin: &Origin<'_>, s: &JudgedSession, c: &JudgedCall, fate: Option<&crate::judge::sequence::Fate>) -> CallRow {
    let failure = match &c.outcome {
        Outcome::Failed(f) => Some(f),
        _ => None,
    };
    let mut rules = Vec::new();
    if let Some(f) = failure {
        if let Some(id) = f.content_rule {
            rules.push(id.to_string());
        }
        if f.reason != "unclassified" && f.content_rule != Some(f.reason) {
            rules.push(f.reason.to_string());
        }
    }
    CallRow {
        source: origin.source.to_string(),
        format: origin.format.to_string(),
        agent: s.dialect.to_string(),
        session: s.id.clone(),
        parent_session: s.parent.clone(),
        seq: c.seq as u64,
        ts: c.time.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        ts_ms: c.time.map(|t| t.timestamp_millis()),
        tool: c.tool.clone(),
        call_id: c.call_id.clone(),
        paired: c.outcome != Outcome::Unpaired,
        flagged: failure.is_some_and(|f| f.flagged),
        content_error: failure.is_some_and(|f| f.content_rule.is_some()),
        hidden: failure.is_some_and(|f| f.is_hidden()),
        error: failure.is_some(),
        category: failure.map(|f| f.category.as_str().to_string()),
        rules,
        template: failure.map(|f| f.template.clone()),
        result_bytes: c.result.as_ref().map(|r| r.text.len() as u64),
        recovered_after: fate.and_then(|f| f.attempts).map(|n| n as u64),
        identical_retry: fate.map(|f| f.identical_retry),
        retries: fate.map(|f| f.retries as u64),
        lost_ms: fate.and_then(|f| f.lost_ms),
        model: None,
        input_tokens: None,
        output_tokens: None,
        cache_read_tokens: None,
        cache_write_tokens: None,
        reasoning_tokens: None,
        cost_usd: None,
        failure_tokens: None,
    }
}
