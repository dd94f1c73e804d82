//! The exporter: a visitor that writes each judged call as a row, to
//! stdout, one file or a folder of day partitions, each file put in place
//! only once whole. `export` opens one (`open`); `--incremental` names its
//! files and takes them back unplaced (`finish_parts`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::aggregate::Filters;
use crate::app::output::{self, Pending, Written};
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::{Error, Result};
use crate::export::{self, CallRow, Origin, RowWriter};
use crate::judge::JudgedSession;
use crate::redact::Redaction;
use crate::spine::{ScanOptions, SourceStart, Visitor};

/// Where rows go: stdout, one file, or one file per day partition. Files
/// are written under a private name and renamed into place at the end
/// (`output::Pending`), so an export that fails or is cut leaves no
/// partial file and replaces nothing.
enum Sink<'a> {
    Stream(Box<dyn RowWriter + 'a>),
    File(Part),
    Partitioned {
        dir: PathBuf,
        shown: PathBuf,
        format: ExportFormat,
        guard: PartGuard<'a>,
        open: BTreeMap<String, Part>,
    },
}

/// What a partition file is checked against before it is written, and
/// again before it is put in place.
struct PartGuard<'a> {
    inputs: &'a output::Inputs,
    force: bool,
}

/// One file being written: its rows, and where it goes once whole.
struct Part {
    writer: Box<dyn RowWriter>,
    pending: Pending,
    /// The path named in messages.
    shown: PathBuf,
}

impl Part {
    fn new(pending: Pending, file: File, format: ExportFormat, shown: PathBuf) -> Result<Part> {
        let writer = match format {
            ExportFormat::Ndjson => Box::new(export::ndjson::Writer(BufWriter::new(file))),
            ExportFormat::Parquet => parquet_writer(file, &shown)?,
        };
        Ok(Part { writer, pending, shown })
    }

    fn write(&mut self, row: &CallRow) -> Result<()> {
        self.writer.write(row).map_err(|e| cannot_write(&self.shown, &e))
    }

    fn finish(self) -> Result<Pending> {
        self.writer.finish().map_err(|e| cannot_write(&self.shown, &e))?;
        Ok(self.pending)
    }
}

/// `e`, naming `shown` (the path as the user would write it) instead of
/// the path it was found at.
fn with_path(e: Error, shown: &Path) -> Error {
    match e {
        Error::Input { problem, .. } => Error::input(shown, problem),
        e => e,
    }
}

fn cannot_write(path: &Path, e: &std::io::Error) -> Error {
    Error::input(path, format!("cannot write the export: {}", output::write_problem(e)))
}

#[cfg(feature = "parquet")]
fn parquet_writer(file: File, path: &Path) -> Result<Box<dyn RowWriter>> {
    let writer = export::parquet::Writer::new(file).map_err(|e| cannot_write(path, &e))?;
    Ok(Box::new(writer))
}

#[cfg(not(feature = "parquet"))]
fn parquet_writer(_file: File, _path: &Path) -> Result<Box<dyn RowWriter>> {
    Err(no_parquet())
}

pub(super) fn no_parquet() -> Error {
    Error::Usage(
        "--format parquet needs falseok built with Parquet support: cargo install --locked --path . --features parquet"
            .into(),
    )
}

pub(super) struct Exporter<'a> {
    sink: Sink<'a>,
    /// The name of a partition's file, without its extension: `part-00000`,
    /// or per source and run for `--incremental` (`incremental`).
    pub(super) prefix: String,
    source: String,
    format: String,
    redaction: Redaction,
    filters: Filters,
    rows: u64,
    failed: Option<Error>,
    /// The walk's notes and the sources' warnings, said on stderr
    /// (`--incremental` keeps its own notes).
    pub(super) told: crate::app::Told,
}

impl Exporter<'_> {
    fn write(&mut self, row: &CallRow) -> Result<()> {
        match &mut self.sink {
            Sink::Stream(w) => w.write(row)?,
            Sink::File(part) => part.write(row)?,
            Sink::Partitioned { dir, shown, format, guard, open } => {
                let name = export::partition(row);
                let ext = match format {
                    ExportFormat::Ndjson => "ndjson",
                    ExportFormat::Parquet => "parquet",
                };
                let file = format!("{}.{ext}", self.prefix);
                let key = format!("{name}/{file}");
                if !open.contains_key(&key) {
                    let at = dir.join(&name).join(&file);
                    let shown_at = shown.join(&name).join(&file);
                    // The partition's own path: a file of its name that
                    // falseok did not write, a link into an input folder.
                    output::guard(&at, guard.inputs, Written::Export, guard.force)
                        .map_err(|e| with_path(e, &shown_at))?;
                    // Written in the export's folder, moved into its
                    // partition's at the end.
                    let (pending, f) = Pending::new(dir, &at, &shown_at)?;
                    let part = Part::new(pending, f, *format, shown.join(&name).join(&file))?;
                    open.insert(key.clone(), part);
                }
                if let Some(part) = open.get_mut(&key) {
                    part.write(row)?;
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Finish every file, then put them all in place (partitions checked
    /// once more by the guard, in case a folder appeared meanwhile).
    pub(super) fn finish(self) -> Result<u64> {
        let (rows, whole) = self.finish_parts()?;
        for (_, pending) in whole {
            pending.commit()?;
        }
        Ok(rows)
    }

    /// Finish every file, and hand back each partition file written (its
    /// path in the export's folder, and the file to put in place).
    pub(super) fn finish_parts(self) -> Result<(u64, Vec<(String, Pending)>)> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut whole = Vec::new();
        match self.sink {
            Sink::Stream(w) => w.finish()?,
            Sink::File(part) => part.finish()?.commit()?,
            Sink::Partitioned { dir, guard, open, .. } => {
                for (key, part) in open {
                    let at = dir.join(&key);
                    output::guard(&at, guard.inputs, Written::Export, guard.force)
                        .map_err(|e| with_path(e, &part.shown))?;
                    whole.push((key, part.finish()?));
                }
            }
        }
        Ok((self.rows, whole))
    }
}

impl Visitor for Exporter<'_> {
    fn source(&mut self, start: SourceStart<'_>) {
        self.told.source(&start, self.redaction);
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

    fn note(&mut self, note: String) {
        self.told.notes.push(note);
    }
}

/// The exporter `args` ask for, writing to `out` or under `--out`; with
/// the folder it made (for the caller to remove if the export fails while
/// it is still empty) and, for `--incremental`, the partition folder it
/// adds to.
pub(super) fn open<'a>(
    args: &ExportArgs,
    out: &'a mut (dyn Write + Send),
    inputs: &'a output::Inputs,
    opts: &ScanOptions,
) -> Result<(Exporter<'a>, Option<PathBuf>, Option<PathBuf>)> {
    let mut made_dir = None;
    let sink = match &args.out {
        None => {
            if args.format == ExportFormat::Parquet {
                return Err(Error::Usage("--format parquet writes a file or a folder: give --out".into()));
            }
            Sink::Stream(Box::new(export::ndjson::Writer(out)))
        }
        Some(path) if args.partition => {
            let dir = output::guard(path, inputs, Written::ExportDir, args.force)?;
            if !dir.exists() {
                std::fs::create_dir_all(&dir).map_err(|e| {
                    Error::input(path, format!("cannot create the folder: {}", output::write_problem(&e)))
                })?;
                made_dir = Some(dir.clone());
            }
            let guard = PartGuard { inputs, force: args.force };
            Sink::Partitioned { dir, shown: path.clone(), format: args.format, guard, open: BTreeMap::new() }
        }
        Some(path) => {
            let at = output::guard(path, inputs, Written::Export, args.force)?;
            let (pending, file) = Pending::beside(&at, path)?;
            Sink::File(Part::new(pending, file, args.format, path.clone())?)
        }
    };
    // `--incremental` writes into a partition folder (clap asks for
    // --partition, which a stream or one file is not).
    let incremental = match (&sink, args.incremental) {
        (Sink::Partitioned { dir, .. }, true) => Some(dir.clone()),
        (_, true) => {
            return Err(Error::Usage(
                "--incremental appends to a --partition folder: give --out DIR --partition".into(),
            ));
        }
        _ => None,
    };
    let exporter = Exporter {
        sink,
        prefix: "part-00000".to_string(),
        source: String::new(),
        format: String::new(),
        redaction: opts.judge.redaction,
        filters: opts.aggregate.filters.clone(),
        rows: 0,
        failed: None,
        told: crate::app::Told::default(),
    };
    Ok((exporter, made_dir, incremental))
}
