//! Content rules: does a result's text say that the call failed?
//!
//! Every rule is data: an id, a pattern matched against the head and tail
//! of the trimmed result text (`model::text_ends`; at its start unless the
//! pattern says `(?m)`), an optional tool scope, a precision and its
//! documentation, with examples it must fire on and texts it must ignore.
//! The unit tests run every example, so a rule cannot exist untested.

use serde::Serialize;

mod agents;
mod any_tool;
mod emitters;
mod engines;
mod frameworks;

use super::{Precision, Reads, table};
use crate::model::Dialect;

/// One content rule. Patterns are anchored at the start of the result text
/// (after leading whitespace) unless they say otherwise; a rule about the
/// end of a long output (an exit-code line) uses `(?m)` and sees the tail
/// too (see `rules::examined`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ContentRule {
    /// The rule's stable id.
    pub id: &'static str,
    /// The regular expression that says the result text is a failure.
    pub pattern: &'static str,
    /// Tools the rule applies to; empty means every tool.
    pub tools: &'static [&'static str],
    /// Dialects the rule applies to; empty means every dialect. Serialized
    /// as `formats`: the key of `falseok rules --format json` is a versioned
    /// contract (`tests/golden/rules.json`), kept when the field was renamed.
    #[serde(rename = "formats")]
    pub dialects: &'static [Dialect],
    /// How sure a match is that the call failed.
    pub precision: Precision,
    /// Which results the rule reads (`Reads`): every result, or only the
    /// verdicts of tools whose text is theirs.
    pub reads: Reads,
    /// What the rule detects, and why (for `falseok rules`).
    pub doc: &'static str,
    /// Texts the rule must fire on (for a tool in scope).
    pub fires_on: &'static [&'static str],
    /// Texts the rule must not fire on (for a tool in scope).
    pub ignores: &'static [&'static str],
}

/// The wrapper Peri puts around an `Err` from a tool. It is stripped before
/// classification so that pre-fix (`Error: …`) and post-fix
/// (`Tool execution failed: Edit - Error: …`) texts land in one category.
pub const PERI_WRAPPER: &str = r"^Tool execution failed: [^ ]+ - ";

/// The parts of the table, in registry order (first match wins): one file
/// per family of rules.
const PARTS: &[&[ContentRule]] = &[agents::RULES, frameworks::RULES, emitters::RULES, engines::RULES, any_tool::RULES];
static ALL: [ContentRule; table::total(PARTS)] = table::concat(PARTS);

/// Every content rule, in registry order.
pub static CONTENT_RULES: &[ContentRule] = &ALL;
