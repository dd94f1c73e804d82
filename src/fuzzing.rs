//! The entry points the fuzz targets call (fuzz/src/lib.rs) and nothing
//! else: the readers' parsers, the text functions and the import, whose
//! modules are private to the crate. Not part of the library's API: no
//! version promises it, and nothing in the crate uses it.

/// The parser of Peri's `messages.content` values.
pub mod peri {
    pub use crate::source::peri::parse_message;
}

/// The parser of Crush's `messages.parts` values.
pub mod crush {
    pub use crate::source::crush::parse_parts;
}

/// The parser of opencode's `part.data` values.
pub mod opencode {
    pub use crate::source::opencode::parse_part;
}

/// The parser of Goose's `messages.content_json` values.
pub mod goose {
    pub use crate::source::goose::parse_content;
}

/// The parser of llm's tool-call and tool-result payloads.
pub mod llm {
    pub use crate::source::llm::parse_payload;
}

/// Untrusted text made safe to print.
pub mod sanitize {
    pub use crate::sanitize::{block, one_line, truncate};
}

/// Secret shapes replaced in text.
pub mod redact {
    pub use crate::redact::redact;
}

/// Import the transcript `file` into a new falseok database `db`, as
/// `falseok import --into` does.
pub fn import_into(file: &std::path::Path, db: &std::path::Path) -> crate::error::Result<()> {
    let target = crate::import::Target::Into { named: db, at: db };
    crate::import::import(&[file.to_path_buf()], &target, None).map(|_| ())
}
