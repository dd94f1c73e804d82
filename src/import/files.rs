//! The files of an import: which files a folder holds, and reading them
//! (lines bounded in size, read ahead on a helper thread; whole JSON
//! documents within a bound).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{BROKEN_PER_FILE, BrokenLine, IMPORTERS, ImportStats};
use crate::error::{Error, Result};

/// Every transcript file under `sources` (files as given, folders walked
/// for `*.jsonl` and `*.json`), sorted and each once.
pub(crate) fn transcript_files(sources: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for src in sources {
        let meta = std::fs::metadata(src).map_err(|e| Error::input(src, io_problem(&e)))?;
        if let Some(kind) = crate::source::open::special_kind(&meta) {
            return Err(crate::source::open::not_regular(src, kind));
        }
        if meta.is_dir() {
            walk(src, &mut out)?;
        } else {
            out.push(src.clone());
        }
    }
    out.sort();
    out.dedup();
    // Two names of one file (a hard link) are one transcript.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mut seen = std::collections::HashSet::new();
        out.retain(|f| std::fs::metadata(f).map_or(true, |m| seen.insert((m.dev(), m.ino()))));
    }
    Ok(out)
}

pub(super) fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::input(dir, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::input(dir, format!("cannot read folder: {e}")))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| Error::input(&path, format!("cannot read: {e}")))?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file()
            && (path.extension().is_some_and(|e| e == "jsonl" || e == "json") || claimed_name(&path))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Does some importer claim a file of this name as a text transcript?
pub(crate) fn claimed_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    IMPORTERS.iter().any(|i| i.claims_name(name))
}

/// Is the file at `path` a text transcript some importer recognises by its
/// name or first bytes (an Aider history renamed)?
pub(crate) fn is_text_transcript(path: &Path) -> bool {
    claimed_name(path) || head_of(path).is_ok_and(|head| IMPORTERS.iter().any(|i| i.recognise_text(path, &head)))
}

/// The first bytes of a file (at most 512), for recognising text formats.
pub(super) fn head_of(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = crate::source::open::open_regular(path).map_err(|e| Error::input(path, io_problem(&e)))?;
    let mut head = Vec::with_capacity(512);
    file.take(512).read_to_end(&mut head).map_err(|e| Error::input(path, io_problem(&e)))?;
    Ok(head)
}

/// One line of a transcript, parsed.
pub(crate) enum Line {
    Record(Value),
    /// A record parsed by the reader's own parser (`LineReader::open_typed`).
    Typed(Box<dyn std::any::Any + Send>),
    Invalid,
}

/// A parser of a format's records that builds only what its importer reads
/// (`claude_line`): `None` leaves the line to the `Value` parse. It must
/// accept a line only when `Value` would read it as an object.
pub(crate) type TypedParse = fn(&str) -> Option<Box<dyn std::any::Any + Send>>;

/// A record of a transcript: parsed as a `Value`, or by a reader's own parser.
pub(crate) enum Item {
    Record(Value),
    Typed(Box<dyn std::any::Any + Send>),
}

/// Reads a transcript one line at a time. `open` reads and parses ahead on
/// a helper thread, a block of lines at a time, while the importer writes
/// what came before (the parse is about half of an import); `open_here`
/// reads on the caller's thread, for a look at the first few lines.
pub(crate) struct LineReader {
    path: PathBuf,
    lines: Lines,
    /// The number of the line read last, from 1.
    line: u64,
    /// Why the line read last is not a record, when it is not.
    problem: Option<String>,
    /// Broken lines of this file so far.
    broken: u64,
    /// The line read last was longer than the bound, read past unparsed.
    cut: bool,
}

pub(super) enum Lines {
    Here { reader: SizedReader, buf: Vec<u8> },
    Ahead { blocks: crossbeam_channel::Receiver<Ahead>, block: std::vec::IntoIter<Parsed>, done: bool },
}

/// What the helper thread of a `LineReader` sends: lines in file order,
/// then the end of the file or the error that stopped it.
pub(super) enum Ahead {
    Block(Vec<Parsed>),
    /// The last line, without a newline where the file ended when it was
    /// opened: whether the file has grown since (the line is still being
    /// written, and is not read) is asked when the importer takes it, as a
    /// reader on the importer's thread asks, not when the helper, which
    /// may be far ahead, read it.
    Unfinished(Parsed, Growth),
    End,
    Failed(std::io::Error),
}

/// What tells whether a file has grown past the size it was opened at.
pub(super) struct Growth {
    file: File,
    size: u64,
}

impl Growth {
    fn grown(&self) -> bool {
        self.file.metadata().is_ok_and(|m| m.len() > self.size)
    }
}

/// A line parsed ahead: `None` for a blank line, how many lone surrogate
/// escapes were replaced, and why it is not a record when it is not.
pub(super) struct Parsed {
    pub(super) line: Option<Line>,
    pub(super) surrogates: u64,
    pub(super) problem: Option<String>,
    /// Longer than the bound: read past, not parsed.
    pub(super) cut: bool,
}

/// Bytes of lines parsed ahead per block.
pub(super) const AHEAD_BYTES: usize = 1 << 18;

/// Blocks of a file parsed ahead that wait for the importer, at most: 2 MiB
/// of lines, so the helper finishes a typical transcript (under 1 MiB) and
/// goes on to the next while the importer still writes this one. Two
/// blocks made the helper wait on every file; interleaved runs on the
/// real-shaped folder: 0.80-0.84 s against 0.84-0.92 s.
pub(super) const BLOCKS_IN_FLIGHT: usize = 8;

/// The read buffer of a file read ahead, whole.
const AHEAD_BUFFER: usize = 1 << 16;

/// The read buffer of a file read here, mostly only its first lines to
/// recognise its format: a first read of 64 KiB for a first line of a few
/// hundred bytes read a tenth of a folder of small transcripts twice. A
/// longer line is read in more steps, not cut.
const HERE_BUFFER: usize = 1 << 13;

/// The longest line read, in bytes: 32 times the text of a million-token
/// context (a line holds one message). A longer one is read past, never
/// held, and counted as an invalid line.
pub(crate) const MAX_LINE_BYTES: usize = 128 << 20;

/// The longest `.json` document read whole, in bytes; a larger one is
/// counted as invalid, never read.
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 128 << 20;

/// How a line was read by `read_line_at_most`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineRead {
    /// The bytes read, newline included; 0 at the end.
    pub(super) bytes: usize,
    /// Ended by a newline; otherwise the line ran to the end of what could
    /// be read.
    pub(super) ended: bool,
    /// Longer than the bound: `buf` holds only its first `max + 1` bytes.
    pub(super) cut: bool,
}

/// Read one line into `buf` (its newline included), as `read_until` does,
/// but keep at most `max + 1` bytes of it (`MAX_LINE_BYTES`): the rest of
/// a longer line is read past, up to its newline, and never held. Whether
/// the line ended is said here, not guessed from what `buf` holds: a cut
/// line does not end in its newline.
pub(super) fn read_line_at_most(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<LineRead> {
    let mut read = 0;
    loop {
        let (done, ended, used) = {
            let available = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let (done, ended, used) = match memchr::memchr(b'\n', available) {
                Some(i) => (true, true, i + 1),
                None => (available.is_empty(), false, available.len()),
            };
            let room = (max + 1).saturating_sub(buf.len());
            buf.extend_from_slice(&available[..used.min(room)]);
            (done, ended, used)
        };
        reader.consume(used);
        read += used;
        if done {
            return Ok(LineRead { bytes: read, ended, cut: buf.len() > max });
        }
    }
}

/// Why a line longer than the bound `max` is not read.
fn over_the_bound(max: usize) -> String {
    match max >> 20 {
        0 => format!("a line over {max} bytes, not read (any calls in it are not counted)"),
        mib => format!("a line over {mib} MiB, not read (any calls in it are not counted)"),
    }
}

/// `parse_bytes_with`, without a parser of the format's own.
pub(super) fn parse_bytes(buf: &[u8], read: LineRead, max: usize) -> Parsed {
    parse_bytes_with(buf, read, max, None)
}

/// Parse a line as read by `read_line_at_most` with the bound `max`,
/// trying `typed` first on a line that passes the same bounds. A line cut
/// at the bound is invalid, never parsed.
pub(super) fn parse_bytes_with(buf: &[u8], read: LineRead, max: usize, typed: Option<TypedParse>) -> Parsed {
    if read.cut {
        return Parsed { line: Some(Line::Invalid), surrogates: 0, problem: Some(over_the_bound(max)), cut: true };
    }
    // Valid UTF-8 is the rule: check it fast, repair it only when not.
    let text = match std::str::from_utf8(buf) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(buf),
    };
    let text = text.trim();
    if text.is_empty() {
        return Parsed { line: None, surrogates: 0, problem: None, cut: false };
    }
    if let Some(typed) = typed
        && crate::source::json::check_size(text.as_bytes()).is_ok()
        && let Some(record) = typed(text)
    {
        return Parsed { line: Some(Line::Typed(record)), surrogates: 0, problem: None, cut: false };
    }
    let (line, surrogates, problem) = parse_line_why(text);
    Parsed { line: Some(line), surrogates, problem, cut: false }
}

/// A transcript read only up to the size it had when it was opened: a file
/// an agent keeps appending to is read as it was then, not forever. Opened
/// with `open_regular`, so a FIFO never blocks it.
pub(super) struct SizedReader {
    reader: BufReader<std::io::Take<File>>,
    size: u64,
    /// The longest line held (`MAX_LINE_BYTES`; smaller in tests).
    max_line: usize,
}

impl SizedReader {
    /// `path` read through a buffer of `capacity` bytes.
    pub(super) fn open(path: &Path, capacity: usize) -> Result<SizedReader> {
        let cannot = |e: std::io::Error| Error::input(path, io_problem(&e));
        let file = crate::source::open::open_regular(path).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        let reader = BufReader::with_capacity(capacity, file.take(size));
        Ok(SizedReader { reader, size, max_line: MAX_LINE_BYTES })
    }

    /// The next line into `buf`, with its newline (0 bytes at the end). A
    /// last line without a newline where the file ended when it was opened,
    /// in a file that has grown since, is still being written: it is not
    /// read.
    pub(super) fn next_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<LineRead> {
        let (read, unfinished) = self.read_line(buf)?;
        if unfinished.is_some_and(|g| g.grown()) {
            buf.clear();
            return Ok(LineRead { bytes: 0, ended: false, cut: false });
        }
        Ok(read)
    }

    /// The next line into `buf`, with its newline (0 bytes at the end),
    /// and, for a last line without a newline (where the file ended when
    /// it was opened), what tells whether the file has grown since.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<(LineRead, Option<Growth>)> {
        buf.clear();
        let read = read_line_at_most(&mut self.reader, buf, self.max_line)?;
        if read.bytes > 0 && !read.ended {
            let file = self.reader.get_ref().get_ref().try_clone()?;
            return Ok((read, Some(Growth { file, size: self.size })));
        }
        Ok((read, None))
    }
}

/// A one-line description of an error reading a transcript.
pub(super) fn io_problem(e: &std::io::Error) -> String {
    crate::source::open::io_problem(e)
}

/// One file to read and parse ahead: its reader, its parser, and where
/// its blocks go.
struct Job {
    reader: SizedReader,
    typed: Option<TypedParse>,
    tx: crossbeam_channel::Sender<Ahead>,
}

impl Job {
    /// `path` opened here (so an error opening it is said now), and the
    /// lines its reader will receive.
    fn open(path: &Path, typed: Option<TypedParse>) -> Result<(Job, Lines)> {
        Ok(Job::of(SizedReader::open(path, AHEAD_BUFFER)?, typed))
    }

    /// The job that reads `reader`, and the lines it will receive.
    fn of(reader: SizedReader, typed: Option<TypedParse>) -> (Job, Lines) {
        let (tx, blocks) = crossbeam_channel::bounded(BLOCKS_IN_FLIGHT);
        (Job { reader, typed, tx }, Lines::Ahead { blocks, block: Vec::new().into_iter(), done: false })
    }

    /// Read the whole file, a block at a time, until its end, an error, or
    /// its reader being dropped.
    fn read(mut self) {
        let mut buf = Vec::new();
        let max = self.reader.max_line;
        loop {
            let (mut block, mut bytes) = (Vec::new(), 0);
            while bytes < AHEAD_BYTES {
                match self.reader.read_line(&mut buf) {
                    Ok((read, _)) if read.bytes == 0 => break,
                    Ok((read, Some(growth))) => {
                        let last = parse_bytes_with(&buf, read, max, self.typed);
                        if self.tx.send(Ahead::Block(block)).is_ok()
                            && self.tx.send(Ahead::Unfinished(last, growth)).is_ok()
                        {
                            let _ = self.tx.send(Ahead::End);
                        }
                        return;
                    }
                    Ok((read, None)) => {
                        bytes += read.bytes;
                        block.push(parse_bytes_with(&buf, read, max, self.typed));
                    }
                    Err(e) => {
                        let _ = self.tx.send(Ahead::Block(block));
                        let _ = self.tx.send(Ahead::Failed(e));
                        return;
                    }
                }
            }
            let end = bytes < AHEAD_BYTES;
            // A closed channel: the importer stopped reading.
            if self.tx.send(Ahead::Block(block)).is_err() {
                return;
            }
            if end {
                let _ = self.tx.send(Ahead::End);
                return;
            }
        }
    }
}

/// One helper thread that reads and parses files in the order they were
/// opened, each to its end (or until its reader is dropped) before the
/// next. A folder of many small transcripts queues several files ahead of
/// the one being written, and their parse never competes for a core with
/// the parse of the file the importer waits for (a thread per file did).
///
/// The importer must take the readers in the order it opened them, and
/// drop one it will not read to its end before it reads the next: the
/// helper waits on a reader's blocks in flight before it moves on.
pub(crate) struct ReadAhead {
    jobs: crossbeam_channel::Sender<Job>,
}

impl ReadAhead {
    /// The helper thread, started.
    pub(crate) fn start() -> std::io::Result<ReadAhead> {
        let (jobs, queue) = crossbeam_channel::unbounded::<Job>();
        std::thread::Builder::new().name("falseok-lines".into()).spawn(move || {
            for job in queue {
                job.read();
            }
        })?;
        Ok(ReadAhead { jobs })
    }

    /// `LineReader::open_typed`, read by the helper after every file
    /// opened before it.
    pub(crate) fn open(&self, path: &Path, typed: Option<TypedParse>) -> Result<LineReader> {
        let (job, lines) = Job::open(path, typed)?;
        self.jobs.send(job).map_err(|_| Error::input(path, "the reader thread stopped".to_string()))?;
        Ok(LineReader::new(path, lines))
    }
}

impl LineReader {
    pub(crate) fn open(path: &Path) -> Result<LineReader> {
        LineReader::open_typed(path, None)
    }

    /// `open`, the lines parsed by `typed` where it can (`next_item`), on
    /// a helper thread of its own.
    pub(crate) fn open_typed(path: &Path, typed: Option<TypedParse>) -> Result<LineReader> {
        let (job, lines) = Job::open(path, typed)?;
        let spawned = std::thread::Builder::new().name("falseok-lines".into()).spawn(move || job.read());
        spawned.map_err(|e| Error::input(path, format!("cannot start a reader thread: {e}")))?;
        Ok(LineReader::new(path, lines))
    }

    pub(super) fn new(path: &Path, lines: Lines) -> LineReader {
        LineReader { path: path.to_path_buf(), lines, line: 0, problem: None, broken: 0, cut: false }
    }

    /// A reader that reads on this thread, only as far as it is asked.
    pub(crate) fn open_here(path: &Path) -> Result<LineReader> {
        let lines = Lines::Here { reader: SizedReader::open(path, HERE_BUFFER)?, buf: Vec::new() };
        Ok(LineReader::new(path, lines))
    }

    /// `open` (`ahead`) or `open_here`, holding lines of at most `max`
    /// bytes: the bound of `MAX_LINE_BYTES`, tested without writing it.
    #[cfg(test)]
    pub(super) fn open_bounded(path: &Path, max: usize, ahead: bool) -> Result<LineReader> {
        let capacity = if ahead { AHEAD_BUFFER } else { HERE_BUFFER };
        let mut reader = SizedReader::open(path, capacity)?;
        reader.max_line = max;
        if !ahead {
            return Ok(LineReader::new(path, Lines::Here { reader, buf: Vec::new() }));
        }
        let (job, lines) = Job::of(reader, None);
        std::thread::spawn(move || job.read());
        Ok(LineReader::new(path, lines))
    }

    /// The next JSON record; lines that are not one are counted and skipped.
    pub(crate) fn next_record(&mut self, stats: &mut ImportStats) -> Result<Option<Value>> {
        match self.next_item(stats)? {
            None => Ok(None),
            Some(Item::Record(v)) => Ok(Some(v)),
            Some(Item::Typed(_)) => Err(Error::Internal("a typed record from a reader opened without a parser".into())),
        }
    }

    /// The next record, parsed by the reader's parser (`open_typed`) or as
    /// a `Value`; lines that are not one are counted and skipped.
    pub(crate) fn next_item(&mut self, stats: &mut ImportStats) -> Result<Option<Item>> {
        loop {
            match self.next_line(stats)? {
                None => return Ok(None),
                Some(Some(Line::Record(v))) => return Ok(Some(Item::Record(v))),
                Some(Some(Line::Typed(t))) => return Ok(Some(Item::Typed(t))),
                Some(Some(Line::Invalid)) => self.invalid(stats),
                Some(None) => {}
            }
        }
    }

    /// Count the line read last as one that is not a record, and keep its
    /// place for the `malformed-row` finding.
    pub(crate) fn invalid(&mut self, stats: &mut ImportStats) {
        stats.invalid += 1;
        self.broken += 1;
        let long = u64::from(self.cut);
        if self.broken > BROKEN_PER_FILE {
            if let Some(last) = stats.broken_lines.last_mut() {
                last.more += 1;
                last.long += long;
            }
            return;
        }
        let problem = self.problem.take().unwrap_or_else(|| "not a JSON record".into());
        stats.broken_lines.push(BrokenLine {
            file: self.path.clone(),
            line: self.line,
            problem,
            more: 0,
            long,
            session: None,
        });
    }

    /// The next line: `None` at the end, `Some(None)` for a blank line.
    pub(super) fn next_line(&mut self, stats: &mut ImportStats) -> Result<Option<Option<Line>>> {
        let cannot_read = |path: &Path, e: std::io::Error| Error::input(path, io_problem(&e));
        let parsed = match &mut self.lines {
            Lines::Here { reader, buf } => {
                let read = reader.next_line(buf).map_err(|e| cannot_read(&self.path, e))?;
                if read.bytes == 0 {
                    return Ok(None);
                }
                parse_bytes(buf, read, reader.max_line)
            }
            Lines::Ahead { blocks, block, done } => loop {
                if let Some(p) = block.next() {
                    break p;
                }
                if *done {
                    return Ok(None);
                }
                match blocks.recv() {
                    Ok(Ahead::Block(b)) => *block = b.into_iter(),
                    Ok(Ahead::Unfinished(last, growth)) => {
                        if !growth.grown() {
                            *block = vec![last].into_iter();
                        }
                    }
                    Ok(Ahead::End) => *done = true,
                    Ok(Ahead::Failed(e)) => return Err(cannot_read(&self.path, e)),
                    Err(_) => {
                        return Err(Error::Internal(format!(
                            "the reader thread of {} stopped",
                            crate::sanitize::one_line(&self.path.display().to_string())
                        )));
                    }
                }
            },
        };
        stats.lines += 1;
        stats.surrogates += parsed.surrogates;
        self.line += 1;
        self.problem = parsed.problem;
        self.cut = parsed.cut;
        Ok(Some(parsed.line))
    }
}

/// Is `path` a `.json` file (which may hold one whole document)?
pub(crate) fn is_json_document(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The whole file as one JSON document (object or array), repairing lone
/// surrogate escapes; `None`, counted as invalid, when it is not one.
pub(crate) fn read_document(path: &Path, stats: &mut ImportStats) -> Result<Option<Value>> {
    let Some(bytes) = read_document_bytes(path)? else {
        stats.invalid += 1;
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    if crate::source::json::check_size(text.as_bytes()).is_err() {
        stats.invalid += 1;
        return Ok(None);
    }
    let parsed = match serde_json::from_str::<Value>(&text) {
        Ok(v) => Some(v),
        Err(_) => crate::source::json::replace_lone_surrogates(&text)
            .and_then(|(fixed, n)| {
                let v = serde_json::from_str::<Value>(&fixed).ok()?;
                stats.surrogates += n;
                Some(v)
            })
            .or_else(|| concatenated(&text)),
    };
    match parsed {
        Some(v @ (Value::Object(_) | Value::Array(_))) => Ok(Some(v)),
        _ => {
            stats.invalid += 1;
            Ok(None)
        }
    }
}

/// The bytes of a whole document, `None` past `MAX_DOCUMENT_BYTES`.
pub(super) fn read_document_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let cannot = |e: std::io::Error| Error::input(path, io_problem(&e));
    // Up to the size at the open, like lines (`SizedReader`), and no more
    // than the bound.
    let mut bytes = Vec::new();
    let file = crate::source::open::open_regular(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    file.take(size.min(MAX_DOCUMENT_BYTES + 1)).read_to_end(&mut bytes).map_err(cannot)?;
    Ok((bytes.len() as u64 <= MAX_DOCUMENT_BYTES).then_some(bytes))
}

/// Several whole JSON objects one after the other (pretty-printed, as an
/// SDK's console exporter writes them), as one array.
pub(super) fn concatenated(text: &str) -> Option<Value> {
    let items: Vec<Value> =
        serde_json::Deserializer::from_str(text).into_iter::<Value>().collect::<Result<_, _>>().ok()?;
    (items.len() > 1 && items.iter().all(Value::is_object)).then_some(Value::Array(items))
}

/// Parse one line as a JSON object, repairing lone surrogate escapes: the
/// line, the number of escapes replaced, and why the line is not a record
/// when it is not.
pub(super) fn parse_line_why(text: &str) -> (Line, u64, Option<String>) {
    let not_an_object = || Some("a JSON value that is not an object".to_string());
    if crate::source::json::check_size(text.as_bytes()).is_err() {
        return (Line::Invalid, 0, Some("a JSON value too large to read (see docs/security.md)".to_string()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => (Line::Record(v), 0, None),
        Ok(_) => (Line::Invalid, 0, not_an_object()),
        Err(e) => {
            let Some((fixed, n)) = crate::source::json::replace_lone_surrogates(text) else {
                return (Line::Invalid, 0, Some(not_json(&e)));
            };
            match serde_json::from_str::<Value>(&fixed) {
                Ok(v @ Value::Object(_)) => (Line::Record(v), n, None),
                Ok(_) => (Line::Invalid, 0, not_an_object()),
                Err(e) => (Line::Invalid, 0, Some(not_json(&e))),
            }
        }
    }
}

/// Why a line is not JSON, without serde's "at line 1" (a transcript line
/// is one line; its number in the file is said apart).
pub(super) fn not_json(e: &serde_json::Error) -> String {
    if e.classify() == serde_json::error::Category::Eof {
        return "cut short: the line ends inside a JSON value".into();
    }
    let text = e.to_string();
    let what = text.rsplit_once(" at line ").map_or(text.as_str(), |(what, _)| what);
    format!("not JSON: {what} (column {})", e.column())
}
