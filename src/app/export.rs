//! `export`: one row per judged call, to a file, a folder of Hive-style
//! day partitions, or stdout.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::output::{self, Written};
use super::settings;
use crate::aggregate::Filters;
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::{Error, Result};
use crate::export::{self, CallRow, Origin};
use crate::judge::JudgedSession;
use crate::redact::Redaction;
use crate::{SourceStart, Visitor};

/// Where rows go: one stream, or one file per day partition.
enum Sink<'a> {
    Stream(Box<dyn RowWriter + 'a>),
    Partitioned { dir: PathBuf, format: ExportFormat, open: BTreeMap<String, Box<dyn RowWriter + 'a>> },
}

/// Writes rows of one file.
pub trait RowWriter: Send {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()>;
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

struct Ndjson<W: Write + Send>(W);

impl<W: Write + Send> RowWriter for Ndjson<W> {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()> {
        export::ndjson::write_row(row, &mut self.0)
    }
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn file_writer(path: &Path, format: ExportFormat) -> Result<Box<dyn RowWriter>> {
    let file = File::create(path).map_err(|e| Error::input(path, format!("cannot write the export: {e}")))?;
    match format {
        ExportFormat::Ndjson => Ok(Box::new(Ndjson(BufWriter::new(file)))),
        ExportFormat::Parquet => parquet_writer(file, path),
    }
}

#[cfg(feature = "parquet")]
impl RowWriter for export::parquet::Writer<File> {
    fn write(&mut self, row: &CallRow) -> std::io::Result<()> {
        export::parquet::Writer::write(self, row)
    }
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        export::parquet::Writer::finish(*self)
    }
}

#[cfg(feature = "parquet")]
fn parquet_writer(file: File, path: &Path) -> Result<Box<dyn RowWriter>> {
    let writer =
        export::parquet::Writer::new(file).map_err(|e| Error::input(path, format!("cannot write the export: {e}")))?;
    Ok(Box::new(writer))
}

#[cfg(not(feature = "parquet"))]
fn parquet_writer(_file: File, path: &Path) -> Result<Box<dyn RowWriter>> {
    let _ = std::fs::remove_file(path);
    Err(Error::Usage(
        "--format parquet needs tracelint built with Parquet support: cargo install --locked --path . --features parquet"
            .into(),
    ))
}

struct Exporter<'a> {
    sink: Sink<'a>,
    source: String,
    format: String,
    redaction: Redaction,
    filters: Filters,
    rows: u64,
    failed: Option<Error>,
}

impl Exporter<'_> {
    fn write(&mut self, row: &CallRow) -> Result<()> {
        match &mut self.sink {
            Sink::Stream(w) => w.write(row)?,
            Sink::Partitioned { dir, format, open } => {
                let part = export::partition(row);
                if !open.contains_key(&part) {
                    let folder = dir.join(&part);
                    std::fs::create_dir_all(&folder)
                        .map_err(|e| Error::input(&folder, format!("cannot create the partition: {e}")))?;
                    let ext = match format {
                        ExportFormat::Ndjson => "ndjson",
                        ExportFormat::Parquet => "parquet",
                    };
                    let path = folder.join(format!("part-00000.{ext}"));
                    open.insert(part.clone(), file_writer(&path, *format)?);
                }
                if let Some(w) = open.get_mut(&part) {
                    w.write(row)?;
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    fn finish(self) -> Result<u64> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        match self.sink {
            Sink::Stream(w) => w.finish()?,
            Sink::Partitioned { open, .. } => {
                for w in open.into_values() {
                    w.finish()?;
                }
            }
        }
        Ok(self.rows)
    }
}

impl Visitor for Exporter<'_> {
    fn source(&mut self, start: SourceStart<'_>) {
        self.source = start.path.to_string();
        self.format = start.format.to_string();
    }

    fn session(&mut self, s: JudgedSession) -> bool {
        let origin = Origin { source: &self.source, format: &self.format };
        let counted: Vec<bool> = s.calls.iter().map(|c| self.filters.call_ok(c)).collect();
        for (row, _) in export::rows(&origin, &s, self.redaction).into_iter().zip(counted).filter(|(_, ok)| *ok) {
            if let Err(e) = self.write(&row) {
                self.failed = Some(e);
                return false;
            }
        }
        true
    }
}

pub fn run_export(args: &ExportArgs, out: &mut (dyn Write + Send), err: &mut dyn Write) -> Result<()> {
    let opts = settings::scan(&args.select)?;
    let paths = crate::input::resolve(&args.select.paths)?;
    let sink = match &args.out {
        None => {
            if args.format == ExportFormat::Parquet {
                return Err(Error::Usage("--format parquet writes a file or a folder: give --out".into()));
            }
            Sink::Stream(Box::new(Ndjson(out)))
        }
        Some(path) if args.partition => {
            output::guard(path, &paths, Written::ExportDir)?;
            Sink::Partitioned { dir: path.clone(), format: args.format, open: BTreeMap::new() }
        }
        Some(path) => {
            output::guard(path, &paths, Written::Export)?;
            Sink::Stream(file_writer(path, args.format)?)
        }
    };
    let mut exporter = Exporter {
        sink,
        source: String::new(),
        format: String::new(),
        redaction: opts.aggregate.redaction,
        filters: opts.aggregate.filters.clone(),
        rows: 0,
        failed: None,
    };
    let mut notes = Vec::new();
    crate::walk(&paths, &opts, &mut notes, &mut exporter)?;
    for note in &notes {
        writeln!(err, "tracelint: warning: {note}")?;
    }
    let rows = exporter.finish()?;
    if let Some(path) = &args.out {
        writeln!(
            err,
            "tracelint: exported {rows} calls to {}",
            crate::sanitize::one_line(&path.display().to_string())
        )?;
    }
    Ok(())
}
