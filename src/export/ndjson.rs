//! NDJSON: one `CallRow` per line, keys in column order.

use std::io::Write;

use super::CallRow;

/// Write `row` as one line of JSON.
pub(crate) fn write_row(row: &CallRow, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, row).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}
