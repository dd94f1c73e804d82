//! The token usage each agent records, read into the one normalised shape
//! (`model::Usage`: `input` at the full price, cache reads and writes
//! apart, `output` with reasoning included), and handed to the calls of
//! the response that spent it (`Response`). The fields per store are in
//! docs/analyses.md, "Tokens and money".

use serde_json::{Map, Value};

use super::store::Writer;
use crate::model::Usage;

/// A count at `key` of `o`: a non-negative integer (a float is cut).
pub(super) fn count(o: &Map<String, Value>, key: &str) -> Option<u64> {
    Usage::count_at(o, key)
}

/// A dollar amount at `key` of `o`.
pub(super) fn dollars(o: &Map<String, Value>, key: &str) -> Option<f64> {
    o.get(key)?.as_f64().filter(|f| f.is_finite() && *f >= 0.0)
}

/// Anthropic's `usage` (Claude Code's `message.usage`): `input_tokens`
/// excludes the cache (`cache_read_input_tokens`,
/// `cache_creation_input_tokens`). `None` when no count is there.
pub(super) fn anthropic(u: &Map<String, Value>) -> Option<Usage> {
    let (input, output) = (count(u, "input_tokens"), count(u, "output_tokens"));
    let (read, write) = (count(u, "cache_read_input_tokens"), count(u, "cache_creation_input_tokens"));
    if [input, output, read, write].iter().all(Option::is_none) {
        return None;
    }
    Some(Usage {
        input: input.unwrap_or(0),
        output: output.unwrap_or(0),
        cache_read: read.unwrap_or(0),
        cache_write: write.unwrap_or(0),
        ..Usage::default()
    })
}

/// OpenAI's Responses usage as Codex records it (`last_token_usage`):
/// `input_tokens` includes `cached_input_tokens`, `output_tokens` includes
/// `reasoning_output_tokens`.
pub(super) fn openai(u: &Map<String, Value>) -> Option<Usage> {
    let (input, output) = Usage::input_output(u, "input_tokens", "output_tokens")?;
    let cached = count(u, "cached_input_tokens").unwrap_or(0);
    Some(Usage {
        input: input.saturating_sub(cached),
        cache_read: cached.min(input),
        output,
        reasoning: count(u, "reasoning_output_tokens").unwrap_or(0),
        ..Usage::default()
    })
}

/// Gemini CLI's `tokens` of a model message: `input` includes `cached`,
/// `output` excludes `thoughts` (billed as output).
pub(super) fn gemini(t: &Map<String, Value>) -> Option<Usage> {
    let (input, output) = Usage::input_output(t, "input", "output")?;
    let cached = count(t, "cached").unwrap_or(0);
    let thoughts = count(t, "thoughts").unwrap_or(0);
    Some(Usage {
        input: input.saturating_sub(cached),
        cache_read: cached.min(input),
        output: output.saturating_add(thoughts),
        reasoning: thoughts,
        ..Usage::default()
    })
}

/// Qwen Code's `usageMetadata` of an assistant record (Gemini's names over
/// an OpenAI-compatible reply): `promptTokenCount` includes
/// `cachedContentTokenCount`, and `candidatesTokenCount` already includes
/// `thoughtsTokenCount` (`totalTokenCount` is prompt plus candidates in
/// Qwen Code's records).
pub(super) fn qwen(u: &Map<String, Value>) -> Option<Usage> {
    let (prompt, candidates) = (count(u, "promptTokenCount"), count(u, "candidatesTokenCount"));
    if prompt.is_none() && candidates.is_none() {
        return None;
    }
    let prompt = prompt.unwrap_or(0);
    let cached = count(u, "cachedContentTokenCount").unwrap_or(0).min(prompt);
    Some(Usage {
        input: prompt - cached,
        cache_read: cached,
        output: candidates.unwrap_or(0),
        reasoning: count(u, "thoughtsTokenCount").unwrap_or(0),
        ..Usage::default()
    })
}

/// Cline's and Roo Code's `api_req_started` text (JSON): `tokensIn` without
/// the cache (`cacheReads`, `cacheWrites`), `tokensOut`, and the request's
/// `cost` in dollars.
pub(super) fn cline(t: &Map<String, Value>) -> Option<Usage> {
    let (input, output) = Usage::input_output(t, "tokensIn", "tokensOut")?;
    Some(Usage {
        input,
        output,
        cache_read: count(t, "cacheReads").unwrap_or(0),
        cache_write: count(t, "cacheWrites").unwrap_or(0),
        cost: dollars(t, "cost"),
        ..Usage::default()
    })
}

/// Pi's `usage` of an assistant message: `input` excludes `cacheRead` and
/// `cacheWrite`; `cost.total` in dollars.
pub(super) fn pi(u: &Map<String, Value>) -> Option<Usage> {
    let (input, output) = Usage::input_output(u, "input", "output")?;
    Some(Usage {
        input,
        output,
        cache_read: count(u, "cacheRead").unwrap_or(0),
        cache_write: count(u, "cacheWrite").unwrap_or(0),
        cost: match u.get("cost") {
            Some(Value::Object(c)) => dollars(c, "total"),
            _ => None,
        },
        ..Usage::default()
    })
}

/// The response being read, and the calls it emitted so far: each time
/// its usage is known or grows (Claude Code writes one response as several
/// lines, each with the usage so far), every call of it gets it.
#[derive(Debug, Default)]
pub(super) struct Response {
    session: String,
    usage: Option<Usage>,
    /// `usage` as last given to the calls, shared by them, and how many of
    /// `calls` have it.
    given: Option<std::sync::Arc<Usage>>,
    given_to: usize,
    calls: Vec<String>,
}

impl Response {
    /// Reading the response `id` of `session`: a new one unless it is the
    /// one being read.
    pub(super) fn at(&mut self, session: &str, id: &str) {
        if self.session != session || self.usage.as_ref().is_none_or(|u| u.response != id) {
            self.session = session.to_string();
            self.usage = None;
            self.given = None;
            self.given_to = 0;
            self.calls.clear();
        }
        let u = self.usage.get_or_insert_with(Usage::default);
        if u.response.is_empty() {
            u.response = id.to_string();
        }
    }

    /// The response emitted the call `id`.
    pub(super) fn call(&mut self, id: &str) {
        if self.usage.is_some() {
            self.calls.push(id.to_string());
        }
    }

    /// What the response used so far: each count the larger of what was
    /// known and `seen` (a later line of one response never says less), the
    /// model and cost as last said; every call of the response gets it.
    pub(super) fn used(&mut self, seen: Usage, model: Option<&str>, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let Some(u) = self.usage.as_mut() else { return Ok(()) };
        u.input = u.input.max(seen.input);
        u.output = u.output.max(seen.output);
        u.cache_read = u.cache_read.max(seen.cache_read);
        u.cache_write = u.cache_write.max(seen.cache_write);
        u.reasoning = u.reasoning.max(seen.reasoning);
        if seen.cost.is_some() {
            u.cost = seen.cost;
        }
        if let Some(m) = model.filter(|m| !m.is_empty()) {
            u.model = Some(m.to_string());
        }
        self.apply(w)
    }

    /// Give every call of the response its usage (once more when it grew).
    pub(super) fn apply(&mut self, w: &mut Writer<'_>) -> rusqlite::Result<()> {
        let Some(u) = &self.usage else { return Ok(()) };
        if u.tokens() == 0 && u.cost.is_none() {
            return Ok(());
        }
        // Unchanged: only the calls written since get it.
        let from = if self.given.as_deref() == Some(u) { self.given_to } else { 0 };
        let shared = match &self.given {
            Some(g) if **g == *u => g.clone(),
            _ => std::sync::Arc::new(u.clone()),
        };
        for id in &self.calls[from..] {
            w.call_usage(&self.session, id, &shared)?;
        }
        self.given = Some(shared);
        self.given_to = self.calls.len();
        Ok(())
    }
}
