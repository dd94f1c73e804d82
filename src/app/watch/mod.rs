//! `falseok watch`: follow trace stores as agents write them and print
//! each new event once (docs/watch.md).
//!
//! A PATH is a *target*; what is re-read when it changes is a *unit*: each
//! transcript file of a folder, a single transcript, or a database (with
//! its `-wal`). A unit is re-read whole when its signature (inode, size,
//! modification time, and its `-wal`'s) changes; of its sessions, only
//! those whose calls and results changed are judged again, with the judge
//! every other command uses (`spine::judge_for`), so a call gets the verdict
//! `scan` gives it. Events are keyed by source, session, call id and kind,
//! and each key is reported once, whatever is re-read.

mod event;
mod exec;
mod serve;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;

use crate::aggregate::Aggregator;
use crate::cli::{WatchArgs, WatchFormat};
use crate::error::{Error, Result};
use crate::model::{Event as Row, Session};
use crate::report::{Report, SourceReport, ToolReport, rate};
use crate::sanitize::one_line;
use crate::spine::ScanOptions;
use event::{Found, Key};

/// How often the loop wakes to check idle sessions, missing PATHs and signals.
const TICK: Duration = Duration::from_millis(100);
/// With notifications, every PATH is also looked at this often, in case a
/// notification was lost (a folder replaced, a full inotify queue).
const SAFETY_POLL: Duration = Duration::from_secs(2);
/// The polling interval when notifications are unavailable and `--poll` was not given.
const FALLBACK_POLL: Duration = Duration::from_millis(250);

pub(crate) fn run_watch(
    args: &WatchArgs,
    width: Option<u16>,
    out: &mut (dyn Write + Send),
    err: &mut dyn Write,
) -> Result<()> {
    let opts = settings_of(args)?;
    let listen = args.listen.as_deref().map(|l| serve::address(l, args.listen_any)).transpose()?;
    let timeout = match args.timeout {
        None => None,
        Some(t) if (0.0..1e9).contains(&t) => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(Error::Usage(format!("--timeout {t}: not a number of seconds"))),
    };
    let paths = crate::input::resolve(&args.select.paths)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())
            .map_err(|e| Error::Internal(format!("cannot catch signal {signal}: {e}")))?;
    }
    let started = Instant::now();
    let _watchdog = Watchdog::start(stop.clone());
    let mut w = Watch {
        starting: true,
        idle: Duration::from_secs(args.idle),
        format: args.format,
        width: width.map(usize::from),
        targets: paths.iter().map(|p| Target::new(p)).collect(),
        seen: HashSet::new(),
        printed: 0,
        exec: args
            .exec
            .clone()
            .map(|cmd| exec::Exec::start(cmd, Duration::from_secs(args.exec_timeout.max(1)), stop.clone())),
        // Partial reports are kept only for --listen.
        metrics: listen.map(|_| Arc::new(Mutex::new(Metrics::default()))),
        opts,
    };
    if let (Some(addr), Some(metrics)) = (listen, w.metrics.clone()) {
        let (aggregate, judge) = (w.opts.aggregate.clone(), w.opts.judge);
        let bound = serve::start(
            addr,
            serve::LIMITS,
            Arc::new(move || {
                let report = metrics
                    .lock()
                    .map(|m| m.report(&aggregate, judge))
                    .unwrap_or_else(|p| p.into_inner().report(&aggregate, judge));
                crate::render::metrics::exposition(&report, Utc::now())
            }),
        )?;
        writeln!(err, "falseok: serving metrics at http://{bound}/metrics")?;
    }
    // Notifications, or polling when they cannot be had.
    let (tx, rx) = crossbeam_channel::unbounded::<PathBuf>();
    let mut notifier = match args.poll {
        Some(_) => None,
        None => match notifier(tx) {
            Ok(n) => Some(n),
            Err(e) => {
                writeln!(
                    err,
                    "falseok: warning: file-system notifications unavailable ({e}); polling every {} ms",
                    FALLBACK_POLL.as_millis()
                )?;
                None
            }
        },
    };
    let poll = match (&notifier, args.poll) {
        (_, Some(ms)) => Duration::from_millis(ms),
        (Some(_), None) => SAFETY_POLL,
        (None, None) => FALLBACK_POLL,
    };
    // What exists now is judged silently (printed with --from-start).
    for i in 0..w.targets.len() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        w.refresh(i, args.from_start, notifier.as_mut(), out, err)?;
    }
    w.starting = false;
    let (units, sessions) = w.size();
    writeln!(
        err,
        "falseok: watching {} ({units} {}, {sessions} {}); new events follow{}",
        plural(w.targets.len(), "PATH", "PATHs"),
        if units == 1 { "file" } else { "files" },
        if sessions == 1 { "session" } else { "sessions" },
        if timeout.is_some() { "" } else { " (Ctrl-C to stop)" },
    )?;
    let mut last_poll = Instant::now();
    let result = loop {
        if stop.load(Ordering::Relaxed) || timeout.is_some_and(|t| started.elapsed() >= t) {
            break Ok(());
        }
        let wait = timeout.map_or(TICK, |t| t.saturating_sub(started.elapsed()).min(TICK));
        let mut dirty: HashSet<usize> = HashSet::new();
        match rx.recv_timeout(wait) {
            Ok(path) => {
                w.mark(&path, &mut dirty);
                // Everything that arrived meanwhile, in one pass.
                while let Ok(path) = rx.try_recv() {
                    w.mark(&path, &mut dirty);
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                if notifier.take().is_some() {
                    writeln!(
                        err,
                        "falseok: warning: file-system notifications stopped; polling every {} ms",
                        poll.as_millis()
                    )?;
                }
            }
        }
        let polling = last_poll.elapsed() >= if notifier.is_some() { SAFETY_POLL } else { poll };
        if polling {
            last_poll = Instant::now();
        }
        // A PATH that is not there is looked for on every tick.
        let due: Vec<usize> = (0..w.targets.len())
            .filter(|&i| polling || dirty.contains(&i) || w.targets[i].present != Some(true))
            .collect();
        let step = due.into_iter().try_for_each(|i| w.refresh(i, true, notifier.as_mut(), out, err));
        if let Err(e) = step.and_then(|()| w.idle_sessions(out)) {
            break Err(e);
        }
        if let Some(exec) = &w.exec {
            for problem in exec.problems() {
                writeln!(err, "falseok: warning: {problem}")?;
            }
        }
    };
    // What a `--from-start` run started now would call abandoned is
    // reported before the end, so the two agree (docs/watch.md).
    let result = result.and_then(|()| w.ended_by_their_time(out));
    out.flush()?;
    if let Some(exec) = &mut w.exec {
        exec.finish();
        for problem in exec.problems() {
            writeln!(err, "falseok: warning: {problem}")?;
        }
    }
    result
}

/// How long watch may take to end once SIGINT or SIGTERM came: a reader
/// of its output that does not read (a full pipe blocks the write of an
/// event), or a long read of a large store, must not keep it running.
/// `--exec`'s running command is cut before (`exec::GRACE`).
const STOP_DEADLINE: Duration = Duration::from_secs(5);

/// Ends the process `STOP_DEADLINE` after a stop was asked for, if watch
/// has not ended by then; dropped when watch ends.
struct Watchdog {
    done: Arc<AtomicBool>,
}

impl Watchdog {
    fn start(stop: Arc<AtomicBool>) -> Watchdog {
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let _ = std::thread::Builder::new().name("falseok-watch-stop".into()).spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if finished.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(TICK);
            }
            let asked = Instant::now();
            while asked.elapsed() < STOP_DEADLINE {
                if finished.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(TICK);
            }
            let _ = writeln!(
                std::io::stderr(),
                "falseok: stopped {} s after the signal, before watch could end by itself (its output was not \
                 being read, or a read of the stores was still going on); events not yet written are not reported",
                STOP_DEADLINE.as_secs()
            );
            crate::scratch::remove_all();
            std::process::exit(0);
        });
        Watchdog { done }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// The options of `scan`: every verdict is the one scan gives.
fn settings_of(args: &WatchArgs) -> Result<ScanOptions> {
    super::settings::scan(&args.select)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// File-system notifications: every changed path is sent on `tx`.
fn notifier(tx: crossbeam_channel::Sender<PathBuf>) -> notify::Result<notify::RecommendedWatcher> {
    notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(ev) = ev {
            for p in ev.paths {
                let _ = tx.send(p);
            }
        }
    })
}

/// What identifies a file's content for re-reading: inode, size and
/// modification time (nanoseconds), of the file and of its `-wal`, and the
/// header of the WAL index (`-shm`), which a writer updates when it commits
/// (after writing the frames: the `-wal` alone can change before the commit
/// is visible). Readers never write that header, so this one reading the
/// store does not wake itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sig {
    file: Option<(u64, u64, i128)>,
    wal: Option<(u64, u64, i128)>,
    shm: Option<[u8; 48]>,
}

fn stat(path: &Path) -> Option<(u64, u64, i128)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    m.is_file().then(|| (m.ino(), m.len(), i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec())))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn signature(path: &Path) -> Sig {
    Sig { file: stat(path), wal: stat(&with_suffix(path, "-wal")), shm: wal_index_header(path) }
}

/// The first 48 bytes of the `-shm` beside `path` (the WAL-index header:
/// change counter, last committed frame, checksums), read without a lock.
fn wal_index_header(path: &Path) -> Option<[u8; 48]> {
    use std::io::Read;
    let shm = with_suffix(path, "-shm");
    if !std::fs::metadata(&shm).ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 48];
    crate::source::open::open_regular(&shm).ok()?.read_exact(&mut head).ok()?;
    Some(head)
}

/// A session as read, summed up cheaply: when it is unchanged, it is not
/// judged again.
fn fingerprint(s: &Session) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (s.parent.as_deref(), s.started, s.events.len(), s.malformed.len()).hash(&mut h);
    for e in &s.events {
        match e {
            Row::Call(c) => (0u8, &c.id, &c.tool, c.row, c.time).hash(&mut h),
            Row::Result(r) => (1u8, &r.call_id, r.row, r.text.len(), r.flag, r.truncated, r.exit_code).hash(&mut h),
        }
    }
    h.finish()
}

/// One PATH as given.
struct Target {
    path: PathBuf,
    /// Is it there? `None` before the first look.
    present: Option<bool>,
    /// Notifications cover it.
    watched: bool,
    units: BTreeMap<PathBuf, Unit>,
}

impl Target {
    fn new(path: &Path) -> Target {
        Target { path: path.to_path_buf(), present: None, watched: false, units: BTreeMap::new() }
    }

    fn shown(&self) -> String {
        one_line(&self.path.display().to_string())
    }
}

#[derive(Default)]
struct Unit {
    sig: Option<Sig>,
    /// The file went away (said once); its events stay seen.
    gone: bool,
    /// The last problem reading it, said once until it changes.
    problem: Option<String>,
    sessions: HashMap<String, SessionState>,
    /// A database that can tell what grew (Peri): its files and last row
    /// when last read, so that the next read takes only the sessions with
    /// newer rows (`SourceOptions::threads_after`).
    grown: Option<(Vec<crate::index::FileMark>, crate::index::AppendMark)>,
}

struct SessionState {
    fingerprint: u64,
    /// From when the session counts as idle (its last write).
    idle_from: Instant,
    /// Its last recorded time, if the trace records one.
    last: Option<chrono::DateTime<Utc>>,
    ended: bool,
    /// Its failures with no later call of their tool: events when it ends.
    abandoned: Vec<Found>,
}

/// Everything judged so far, one partial report per session, for `/metrics`.
#[derive(Default)]
struct Metrics {
    sessions: BTreeMap<(String, String), Report>,
}

impl Metrics {
    /// The report of every session judged so far: the partial reports
    /// added up as `merge` adds reports, with one source (and its tool
    /// rows, which name each tool's agent) per file read.
    fn report(&self, options: &crate::aggregate::AggregateOptions, judge: crate::judge::JudgeOptions) -> Report {
        let mut agg = Aggregator::new(options.clone(), judge);
        let mut sources: BTreeMap<(String, String), (SourceReport, BTreeMap<String, ToolReport>)> = BTreeMap::new();
        for r in self.sessions.values() {
            // A partial report of this run's own making always adds up.
            let _ = agg.absorb(r);
            for (i, s) in r.sources.iter().enumerate() {
                let (e, tools) = sources
                    .entry((s.path.clone(), s.format.clone()))
                    .or_insert_with(|| (SourceReport::new(&s.path, &s.format), BTreeMap::new()));
                e.sessions += s.sessions;
                e.calls += s.calls;
                e.results += s.results;
                e.results_with_text += s.results_with_text;
                e.content_coverage = rate(e.results_with_text, e.results);
                for t in r.source_tools.get(i).into_iter().flatten() {
                    let mine = tools
                        .entry(t.tool.clone())
                        .or_insert_with(|| ToolReport { tool: t.tool.clone(), ..ToolReport::default() });
                    mine.calls += t.calls;
                    mine.errors += t.errors;
                    mine.flagged_errors += t.flagged_errors;
                    mine.content_errors += t.content_errors;
                    mine.hidden_errors += t.hidden_errors;
                    mine.error_rate = rate(mine.errors, mine.calls);
                    for (k, n) in &t.categories {
                        *mine.categories.entry(k.clone()).or_default() += n;
                    }
                    for (k, n) in &t.classes {
                        *mine.classes.entry(k.clone()).or_default() += n;
                    }
                }
            }
        }
        let mut report = agg.finish();
        let (sources, tools): (Vec<_>, Vec<_>) = sources.into_values().unzip();
        report.sources = sources;
        report.source_tools = tools.into_iter().map(|t| t.into_values().collect()).collect();
        report
    }
}

struct Watch {
    /// The first reading of what exists, before the loop.
    starting: bool,
    opts: ScanOptions,
    idle: Duration,
    format: WatchFormat,
    /// The width text lines are fitted to (the terminal's, or `COLUMNS`).
    width: Option<usize>,
    targets: Vec<Target>,
    seen: HashSet<Key>,
    printed: u64,
    exec: Option<exec::Exec>,
    metrics: Option<Arc<Mutex<Metrics>>>,
}

/// What reading a unit gave, per changed session.
struct Judged {
    /// The session id as read (before redaction): the key of its state.
    id: String,
    fingerprint: u64,
    last: Option<chrono::DateTime<Utc>>,
    events: Vec<Found>,
    abandoned: Vec<Found>,
    /// Its partial report, for --listen.
    report: Option<Report>,
}

impl Watch {
    fn size(&self) -> (usize, usize) {
        let units = self.targets.iter().map(|t| t.units.len()).sum();
        let sessions = self.targets.iter().flat_map(|t| t.units.values()).map(|u| u.sessions.len()).sum();
        (units, sessions)
    }

    /// Which target a changed path belongs to.
    fn mark(&self, path: &Path, dirty: &mut HashSet<usize>) {
        for (i, t) in self.targets.iter().enumerate() {
            let hit = if t.path.is_dir() || t.units.len() > 1 {
                path.starts_with(&t.path)
            } else {
                // A file: itself, or its -wal, -shm or -journal beside it
                // (the signature tells a commit from a reader's marks).
                let name = t.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let other = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                path.parent() == t.path.parent() && other.starts_with(&name)
                    || path == t.path
                    || t.path.starts_with(path)
            };
            if hit {
                dirty.insert(i);
            }
        }
    }

    /// Look at target `i`: say when it appears or goes away, find its
    /// units, and re-read those that changed. `print`: the events found are
    /// new (false at start without --from-start).
    fn refresh(
        &mut self,
        i: usize,
        print: bool,
        notifier: Option<&mut notify::RecommendedWatcher>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<()> {
        let exists = std::fs::metadata(&self.targets[i].path).is_ok();
        let t = &mut self.targets[i];
        match (t.present, exists) {
            (None, false) => writeln!(err, "falseok: {}: does not exist yet; waiting for it", t.shown())?,
            (Some(true), false) => writeln!(err, "falseok: {}: disappeared; waiting for it to come back", t.shown())?,
            (Some(false), true) => writeln!(err, "falseok: {}: appeared; reading it", t.shown())?,
            _ => {}
        }
        if t.present == Some(true) && !exists {
            t.watched = false;
            for u in t.units.values_mut() {
                u.gone = true;
                u.sig = None;
            }
        }
        t.present = Some(exists);
        if !exists {
            return Ok(());
        }
        if !t.watched
            && let Some(n) = notifier
        {
            use notify::Watcher;
            let (at, mode) = if t.path.is_dir() {
                (t.path.clone(), notify::RecursiveMode::Recursive)
            } else {
                let parent = t.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                (parent.to_path_buf(), notify::RecursiveMode::NonRecursive)
            };
            match n.watch(&at, mode) {
                Ok(()) => t.watched = true,
                Err(e) => writeln!(
                    err,
                    "falseok: warning: {}: no notifications ({e}); looked at every {} s",
                    t.shown(),
                    SAFETY_POLL.as_secs()
                )?,
            }
            // Tried once per appearance; the safety poll covers the rest.
            t.watched = true;
        }
        let files = if t.path.is_dir() {
            match crate::import::transcript_files(std::slice::from_ref(&t.path)) {
                Ok(files) => files,
                Err(e) => {
                    writeln!(err, "falseok: warning: {e}")?;
                    return Ok(());
                }
            }
        } else {
            vec![t.path.clone()]
        };
        let listed: HashSet<&PathBuf> = files.iter().collect();
        for (path, u) in t.units.iter_mut() {
            if !u.gone && !listed.contains(path) {
                u.gone = true;
                u.sig = None;
                if t.path.is_dir() {
                    writeln!(err, "falseok: {}: disappeared", one_line(&path.display().to_string()))?;
                }
            }
        }
        for file in files {
            let sig = signature(&file);
            let unit = self.targets[i].units.entry(file.clone()).or_default();
            if unit.sig == Some(sig) {
                continue;
            }
            if unit.gone {
                unit.gone = false;
            }
            unit.sig = Some(sig);
            self.read_unit(i, &file, print, out, err)?;
        }
        Ok(())
    }

    /// Re-read one unit; judge its changed sessions; report their new events.
    fn read_unit(
        &mut self,
        i: usize,
        file: &Path,
        print: bool,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<()> {
        let mut notes = Vec::new();
        let judged = {
            let t = &self.targets[i];
            let Some(unit) = t.units.get(file) else { return Ok(()) };
            read(&t.path, file, &self.opts, (unit, self.metrics.is_some()), &mut notes)
        };
        let single = !self.targets[i].path.is_dir();
        let Some(unit) = self.targets[i].units.get_mut(file) else { return Ok(()) };
        let judged = match judged {
            Ok((j, grown)) => {
                unit.problem = None;
                unit.grown = grown;
                j
            }
            // A PATH that is no trace at all is an error at start, as for scan.
            Err(e @ Error::Input { .. }) if self.starting && single => return Err(e),
            Err(e) => {
                // Said once; a store being written may be briefly unreadable.
                let problem = e.to_string();
                if unit.problem.as_ref() != Some(&problem) {
                    writeln!(err, "falseok: warning: {problem}")?;
                    unit.problem = Some(problem);
                }
                // Read again at its next change.
                unit.sig = None;
                return Ok(());
            }
        };
        // What the reading noted (broken lines, repairs) is said at start;
        // later, a line half-written when it was read would be noise.
        if self.starting {
            for note in &notes {
                writeln!(err, "falseok: warning: {note}")?;
            }
        }
        let now = Instant::now();
        let wall = Utc::now();
        let mut fresh = Vec::new();
        for j in judged {
            let idle_from = match j.last {
                // What the stores hold when watch starts: a session's idle
                // clock runs from its last recorded time. Later, a write is
                // what the clock runs from, whatever time the trace records:
                // a session being written may go on (docs/watch.md).
                Some(t) if self.starting && !unit.sessions.contains_key(&j.id) => {
                    let ago = (wall - t).to_std().unwrap_or_default();
                    now.checked_sub(ago).unwrap_or(now)
                }
                _ => now,
            };
            unit.sessions.insert(
                j.id.clone(),
                SessionState {
                    fingerprint: j.fingerprint,
                    idle_from,
                    last: j.last,
                    ended: false,
                    abandoned: j.abandoned,
                },
            );
            if let (Some(metrics), Some(report)) = (&self.metrics, j.report)
                && let Ok(mut m) = metrics.lock()
            {
                m.sessions.insert((file.display().to_string(), j.id.clone()), report);
            }
            fresh.extend(j.events);
        }
        fresh.sort_by(|a, b| {
            (&a.event.session, a.event.seq, a.event.kind).cmp(&(&b.event.session, b.event.seq, b.event.kind))
        });
        for f in fresh {
            self.emit(f, print, out)?;
        }
        // Sessions already idle (an old store) end now.
        self.idle_sessions_printing(print, out)
    }

    fn idle_sessions(&mut self, out: &mut dyn Write) -> Result<()> {
        self.idle_sessions_printing(true, out)
    }

    /// Sessions idle for `--idle`: their abandoned failures are events.
    fn idle_sessions_printing(&mut self, print: bool, out: &mut dyn Write) -> Result<()> {
        let idle = self.idle;
        self.end_sessions(|s| s.idle_from.elapsed() >= idle, print, out)
    }

    /// When watch ends: the sessions not ended yet whose last recorded time
    /// is older than `--idle` end now, as a `--from-start` run would find
    /// them, and their abandoned failures are events.
    fn ended_by_their_time(&mut self, out: &mut dyn Write) -> Result<()> {
        let (idle, wall) = (self.idle, Utc::now());
        self.end_sessions(|s| s.last.is_some_and(|t| (wall - t).to_std().is_ok_and(|ago| ago >= idle)), true, out)
    }

    /// End the sessions not ended yet that `due` picks: their abandoned
    /// failures are events, in session and call order.
    fn end_sessions(&mut self, due: impl Fn(&SessionState) -> bool, print: bool, out: &mut dyn Write) -> Result<()> {
        let mut ending = Vec::new();
        for t in &mut self.targets {
            for u in t.units.values_mut() {
                for s in u.sessions.values_mut() {
                    if !s.ended && due(s) {
                        s.ended = true;
                        ending.append(&mut s.abandoned);
                    }
                }
            }
        }
        ending.sort_by(|a, b| (&a.event.session, a.event.seq).cmp(&(&b.event.session, b.event.seq)));
        for f in ending {
            self.emit(f, print, out)?;
        }
        Ok(())
    }

    /// Report `f` unless its key was reported before.
    fn emit(&mut self, mut f: Found, print: bool, out: &mut dyn Write) -> Result<()> {
        if !self.seen.insert(f.event.key(f.occurrence)) || !print {
            return Ok(());
        }
        f.event.seen_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        self.printed += 1;
        let json = serde_json::to_string(&f.event).map_err(|e| Error::Internal(format!("an event as JSON: {e}")))?;
        match self.format {
            WatchFormat::Text => writeln!(out, "{}", f.event.line(self.width))?,
            WatchFormat::Ndjson => writeln!(out, "{json}")?,
        }
        out.flush()?;
        if let Some(exec) = &self.exec {
            exec.send(self.printed, json);
        }
        Ok(())
    }
}

/// What a database was when read, for the next read to take only what grew.
type Grown = Option<(Vec<crate::index::FileMark>, crate::index::AppendMark)>;

/// Read `file` and judge the sessions that changed since `unit` was read:
/// of a database that only grew since (Peri), only the sessions with new
/// rows are read (`index::walk::grown_since`).
fn read(
    target: &Path,
    file: &Path,
    opts: &ScanOptions,
    (unit, reports): (&Unit, bool),
    notes: &mut Vec<String>,
) -> Result<(Vec<Judged>, Grown)> {
    let marks = crate::index::marks(file, false);
    let src = crate::input::open(file, &opts.source, notes)?;
    let mut from = opts.source.clone();
    if let Some((files, mark)) = &unit.grown
        && crate::index::walk::grown_since(files, Some(mark), marks.as_deref(), &src)
    {
        from.threads_after = Some(mark.last_row);
    }
    let judge = crate::spine::judge_for(&src.dialects, &src.tool_schemas()?, opts)?;
    let redaction = opts.judge.redaction;
    let label = redaction.apply(&src.label).into_owned();
    let source = redaction.apply(&target.display().to_string()).into_owned();
    let filters = &opts.aggregate.filters;
    let now = Utc::now();
    let mut out = Vec::new();
    let stats = src.read(&from, &mut |s: Session| {
        let fp = fingerprint(&s);
        if unit.sessions.get(&s.id).is_some_and(|st| st.fingerprint == fp) {
            return;
        }
        let id = s.id.clone();
        let judged = judge.judge_in(s, Some(target));
        let (events, abandoned) = event::of_session(&judged, (&source, &label), filters, redaction, now);
        let report = reports.then(|| {
            let mut agg = Aggregator::new(opts.aggregate.clone(), opts.judge);
            agg.begin_source(&label, src.label_format, judged.schemas.clone());
            agg.add(&judged);
            agg.finish()
        });
        out.push(Judged { id, fingerprint: fp, last: event::last_time(&judged), events, abandoned, report });
    })?;
    Ok((out, marks.zip(crate::index::walk::append_mark(&src, stats.last_row))))
}
