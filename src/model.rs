//! The common model every adapter maps onto: sessions of calls and results.

use chrono::{DateTime, Utc};
use serde_json::Value;

/// A tool invocation the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    /// The real tool name (wrappers such as Peri's `ExecuteExtraTool` are
    /// resolved to the tool they run).
    pub tool: String,
    /// The arguments of the real tool.
    pub input: Value,
    pub time: Option<DateTime<Utc>>,
    /// Where the call is stored (a rowid or line number), for evidence.
    pub row: i64,
}

/// What came back for a call, linked by `call_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    /// The text; of a long one only its two ends (see `source::json::string_ends`).
    pub text: String,
    /// `text` lacks the middle of the result.
    pub truncated: bool,
    /// The source's own error marker; `None` when the source records none.
    pub flag: Option<bool>,
    /// The exit status of a command, when the source stores it apart from
    /// the text (opencode's `state.metadata.exit`).
    pub exit_code: Option<i64>,
    pub time: Option<DateTime<Utc>>,
    pub row: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Call(Call),
    Result(ToolResult),
}

/// A row the adapter could not read; counted and reported, never fatal.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    pub row: i64,
    pub problem: String,
    /// The row was skipped (otherwise it was read after a repair).
    pub skipped: bool,
}

/// One session (a Peri thread), its events in storage order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    pub id: String,
    /// The source format (`source::Format::as_str`), which scopes rules.
    pub format: &'static str,
    pub parent: Option<String>,
    /// When the session started, the fallback time for calls without one.
    pub started: Option<DateTime<Utc>>,
    pub events: Vec<Event>,
    pub malformed: Vec<Malformed>,
}
