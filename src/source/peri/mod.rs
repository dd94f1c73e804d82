//! Peri Code's `threads.db` (`~/.peri/threads/threads.db`, WAL): one `threads` row per
//! session (sub-agents link to their parent), one `messages` row per message,
//! the whole serialized message as JSON in `messages.content`.
//!
//! Rows are read once, in storage (rowid) order, inside one read
//! transaction. A session is handed on as soon as its last row is read, so
//! memory holds only the sessions that are still open at that point.
//!
//! Split along its seams: the registry entry (`INFO`, here), `format` (how
//! it is recognised: the adapter), `reader` (the SQL and the
//! rows: reading them in order, parsing them on other threads, assembling
//! sessions), `message` (decoding one stored message into calls and
//! results, with serde) and `fast` (the serde-free reading of the usual
//! rows, held to the serde path's answers by its tests).

use crate::model::Dialect;
use crate::source::{FormatInfo, Location};

mod fast;
mod format;
mod message;
mod reader;

pub(crate) use format::Peri;
pub use message::parse_message;

/// The registry entry, here above both `format` (the adapter that hands
/// it out) and `reader` (which judges its sessions in its dialect).
static INFO: FormatInfo = FormatInfo {
    dialect: Dialect::PERI,
    agent: "Peri Code",
    product: "Peri Code",
    signature: "tables `threads(id)` and `messages(message_id, thread_id, role, content)`",
    flag: "`is_error` of the tool message or `tool_result` block (absent = false)",
    locations: &[Location::Home(".peri/threads/threads.db")],
    sample: "peri-postmortem.db",
};
