//! What each failed call cost in tokens and dollars (docs/analyses.md,
//! "Tokens and money"). Every token is counted once:
//!
//! - **own**: the failed call's share of the response that emitted it
//!   (a response's tokens split equally across its calls);
//! - **retry**: when the tool's next call succeeded, that call's share: the
//!   work done again. A failed retry is a failure of its own and counts
//!   there, so a chain F, F, S counts both failures and one success;
//! - **rent** (an estimate): the failed result stays in the context and is
//!   read again by every later response of the session, until a compaction
//!   (a response whose context is under half the one before) or the end.
//!   Its size is estimated at one token per 4 bytes of its text.
//!
//! Dollars are the recorded cost of the responses where the source keeps
//! one, else the price table's (`prices`); the rent is priced at the cache
//! read price of the failed call's model, when the table knows it (else
//! its tokens count and its dollars do not).

use crate::judge::{JudgedCall, JudgedSession, Outcome};
use crate::prices::Prices;

/// Bytes of result text per estimated token.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;

/// The call's share of its response's dollars, in whole millionths, split
/// as tokens are (`JudgedCall::share_of`) so that the shares of a
/// response sum to its recorded or priced cost exactly; `None` when the
/// response can be neither read nor priced.
pub(crate) fn call_micros(c: &JudgedCall, prices: &Prices) -> Option<u64> {
    let u = c.usage.as_deref()?;
    let whole = crate::prices::micros(prices.dollars(u)?);
    c.share_of(|_| whole)
}

/// What one failed call cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct FailureCost {
    pub own: u64,
    pub retry: u64,
    pub rent: u64,
    /// The dollars of the three in whole millionths, when every part could
    /// be priced.
    pub micros: Option<u64>,
}

impl FailureCost {
    /// Every token it cost: own, retry and rent.
    pub(crate) fn tokens(&self) -> u64 {
        self.own.saturating_add(self.retry).saturating_add(self.rent)
    }
}

/// Per call of `s`, what it cost when it failed and its response's usage is
/// recorded; empty when no call of the session records usage.
pub(crate) fn failure_costs(s: &JudgedSession, prices: &Prices) -> Vec<Option<FailureCost>> {
    let calls = &s.calls;
    if calls.iter().all(|c| c.usage.is_none()) {
        return Vec::new();
    }
    // The tool's next call after each call.
    let mut next_same = vec![None; calls.len()];
    let mut last: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    for i in (0..calls.len()).rev() {
        next_same[i] = last.insert(calls[i].tool.as_str(), i);
    }
    // The session's responses in order (calls with usage, by response id),
    // each call's response, and where each response's context ends (the
    // next compaction, or the session's end).
    let mut response_of = vec![usize::MAX; calls.len()];
    let mut contexts: Vec<u64> = Vec::new();
    let mut current: Option<&str> = None;
    for (i, c) in calls.iter().enumerate() {
        let Some(u) = &c.usage else { continue };
        if current != Some(u.response.as_str()) {
            current = Some(u.response.as_str());
            contexts.push(u.context());
        }
        response_of[i] = contexts.len() - 1;
    }
    // Where each response's context ends, and the smallest context of the
    // responses after it until then (a result is never read as more
    // tokens than a later response read in all).
    let n = contexts.len();
    let mut ends = vec![n; n];
    let mut least_after = vec![u64::MAX; n];
    for k in (0..n).rev() {
        let compacted = k + 1 < n && contexts[k + 1] < contexts[k] / 2;
        if compacted || k + 1 == n {
            ends[k] = k + 1;
        } else {
            ends[k] = ends[k + 1];
            least_after[k] = contexts[k + 1].min(least_after[k + 1]);
        }
    }
    let rent_of = |size: u64, k: usize| -> u64 {
        let later = (ends[k] - k - 1) as u64;
        if size <= least_after[k] {
            size.saturating_mul(later)
        } else {
            contexts[k + 1..ends[k]].iter().fold(0u64, |sum, &ctx| sum.saturating_add(size.min(ctx)))
        }
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if !matches!(c.outcome, Outcome::Failed(_)) {
                return None;
            }
            let u = c.usage.as_deref()?;
            let own = c.share_of(crate::judge::Usage::tokens)?;
            let retry_at = next_same[i].filter(|&j| calls[j].outcome == Outcome::Success && calls[j].usage.is_some());
            let retry = retry_at.and_then(|j| calls[j].share_of(crate::judge::Usage::tokens)).unwrap_or(0);
            let size = c.result.as_ref().map_or(0, |r| (r.text.len() as u64).div_ceil(BYTES_PER_TOKEN));
            let rent = rent_of(size, response_of[i]);
            let rent_price = u.model.as_deref().and_then(|m| prices.of(m)).map(|p| p.cache_read.unwrap_or(p.input));
            let micros = (|| {
                let mut d = call_micros(c, prices)?;
                if let Some(j) = retry_at {
                    d = d.saturating_add(call_micros(&calls[j], prices)?);
                }
                // Rent has no recorded cost: it is priced where the table
                // knows the model, and left out of the dollars where not.
                if let (true, Some(price)) = (rent > 0, rent_price) {
                    d = d.saturating_add(crate::prices::micros(rent as f64 * price / 1e6));
                }
                Some(d)
            })();
            Some(FailureCost { own, retry, rent, micros })
        })
        .collect()
}
