//! Peri Code's `threads.db` (`~/.peri/threads/threads.db`, WAL): one `threads` row per
//! session (sub-agents link to their parent), one `messages` row per message,
//! the whole serialized message as JSON in `messages.content`.
//!
//! Rows are read once, in storage (rowid) order, inside one read
//! transaction. A session is handed on as soon as its last row is read, so
//! memory holds only the sessions that are still open at that point.
//!
//! Split along its seams: `format` (what the format is and how it is
//! recognised: the registry entry and the adapter), `reader` (the SQL and the
//! rows: reading them in order, parsing them on other threads, assembling
//! sessions), `message` (decoding one stored message into calls and
//! results, with serde) and `fast` (the serde-free reading of the usual
//! rows, held to the serde path's answers by its tests).

mod fast;
mod format;
mod message;
mod reader;

pub(crate) use format::Peri;
pub use message::parse_message;
