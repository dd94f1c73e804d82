//! `--format json`: the versioned contract, pretty-printed, keys in a fixed
//! order (struct order; category maps sorted).

use std::io::Write;

use crate::error::Result;

/// Writes the report as the versioned JSON contract.
pub fn render(view: &super::View<'_>, out: &mut dyn Write) -> Result<()> {
    let report = view.report;
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}
