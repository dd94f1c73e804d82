//! NDJSON: one `CallRow` per line, keys in column order.

use std::io::Write;

use super::{CallRow, RowWriter};

/// Write `row` as one line of JSON.
pub(crate) fn write_row(row: &CallRow, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, row).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// Rows as NDJSON lines into `W` (a buffered file, or stdout).
pub(crate) struct Writer<W: Write + Send>(pub W);

impl<W: Write + Send> RowWriter for Writer<W> {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()> {
        write_row(row, &mut self.0)
    }
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.0.flush()
    }
}
