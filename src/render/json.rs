//! `--format json`: the versioned contract, pretty-printed, keys in a fixed
//! order (struct order; category maps sorted).

use std::io::Write;

use crate::error::Result;
use crate::report::Report;

pub fn render(report: &Report, out: &mut dyn Write) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}
