//! The guard's own state, one small JSON file per session in the index
//! folder (`$XDG_CACHE_HOME/falseok/guard`, folders `0700`, files `0600`):
//! the counts, the current run of identical failures of each tool, which
//! files the session modified and has not read since (stale edits); and
//! beside it the verdicts given, one JSON line each, appended. The
//! transcript is never read: agents write it late.
//!
//! Hook processes of one session run at once (parallel tool calls): each
//! takes the session's lock file (`File::try_lock`, waiting at most
//! `LOCK_WAIT`), reads, changes and writes the state aside then renames it.
//! What it keeps is bounded (`MAX_*`), and a session quiet for `QUIET` is
//! deleted when a new session starts.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

/// The version of the state's shape: a change starts a new folder.
const LAYOUT: &str = "guard-v1";
/// How long a hook waits for the session's lock before it gives up (and fails open).
const LOCK_WAIT: Duration = Duration::from_secs(3);
/// A session with no hook event for this long is deleted.
pub(crate) const QUIET: Duration = Duration::from_secs(24 * 3600);
/// The verdicts' file of a session: past this size, the oldest half goes.
const MAX_LOG_BYTES: u64 = 1 << 20;
/// Tools with a current run kept per session.
const MAX_STREAKS: usize = 128;
/// Files remembered per session for stale edits.
const MAX_FILES: usize = 1024;
/// Characters kept of an error message or template.
pub(crate) const MAX_TEXT: usize = 300;

/// The current run of identical failures of one tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Streak {
    pub tool: String,
    /// A hash of the run's full error template (the streak key) ...
    pub template_hash: u64,
    /// ... and its first characters, to show.
    pub template: String,
    pub message: String,
    pub category: String,
    pub len: usize,
    /// A hash of the last failing call's arguments (key order ignored).
    pub input_hash: u64,
    /// The call counter when the run last grew (the oldest run goes first).
    pub at: u64,
}

/// One verdict the guard gave.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Verdict {
    /// When, RFC 3339.
    pub time: String,
    pub session: String,
    pub agent: String,
    /// `after` a result, or `before` a call.
    pub event: String,
    pub tool: String,
    pub call_id: String,
    /// `success`, `hidden` (content error, not flagged), `flagged`, or
    /// before a call `repeat` (identical to a run of failures).
    pub verdict: String,
    pub category: Option<String>,
    pub template: Option<String>,
    /// The run of identical failures the call is in (or repeats).
    pub streak: usize,
    /// `none`, `context` (the agent was told), `deny` (the call was
    /// refused) or `stop` (refused, and the agent's turn ended).
    pub action: String,
}

/// One session's state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct State {
    pub session: String,
    pub agent: String,
    /// Results judged, and of them successes, hidden and flagged errors.
    pub results: u64,
    pub hidden: u64,
    pub flagged: u64,
    /// Calls the guard told the agent about, and calls it denied.
    pub advised: u64,
    pub denied: u64,
    pub streaks: Vec<Streak>,
    /// Files modified by a successful call, and whether not read since.
    pub files: Vec<(String, bool)>,
}

impl State {
    /// The current run of `tool`, if it is failing.
    pub(crate) fn streak(&self, tool: &str) -> Option<&Streak> {
        self.streaks.iter().find(|s| s.tool == tool)
    }

    /// Count a result of `tool`: a success ends its run; a failure extends
    /// the run of the same template or starts one. The run's length.
    pub(crate) fn count(&mut self, tool: &str, failure: Option<(&str, &str, &str)>, input_hash: u64) -> usize {
        self.results += 1;
        let at = self.results;
        let Some((template, message, category)) = failure else {
            self.streaks.retain(|s| s.tool != tool);
            return 0;
        };
        let template_hash = fnv(template.as_bytes());
        let message = crate::sanitize::truncate(message, MAX_TEXT);
        if let Some(s) = self.streaks.iter_mut().find(|s| s.tool == tool) {
            s.len = if s.template_hash == template_hash { s.len + 1 } else { 1 };
            s.template_hash = template_hash;
            s.template = crate::sanitize::truncate(template, MAX_TEXT);
            s.message = message;
            s.category = category.to_string();
            s.input_hash = input_hash;
            s.at = at;
            return s.len;
        }
        if self.streaks.len() >= MAX_STREAKS {
            self.streaks.sort_by_key(|s| std::cmp::Reverse(s.at));
            self.streaks.truncate(MAX_STREAKS - 1);
        }
        self.streaks.push(Streak {
            tool: tool.to_string(),
            template_hash,
            template: crate::sanitize::truncate(template, MAX_TEXT),
            message,
            category: category.to_string(),
            len: 1,
            input_hash,
            at,
        });
        1
    }

    /// A successful call that read (`false`) or modified (`true`) `path`.
    pub(crate) fn file(&mut self, path: &str, modified: bool) {
        self.files.retain(|(p, _)| p != path);
        if self.files.len() >= MAX_FILES {
            self.files.drain(..MAX_FILES / 2);
        }
        self.files.push((path.to_string(), modified));
    }
}

/// FNV-1a, 64 bits: a hash that is the same in every process and release.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A hash of a call's arguments that ignores the order of object keys.
pub(crate) fn input_hash(v: &serde_json::Value) -> u64 {
    fn canonical(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    out.push_str(&serde_json::Value::String(k.clone()).to_string());
                    out.push(':');
                    canonical(&o[k], out);
                    out.push(',');
                }
                out.push('}');
            }
            serde_json::Value::Array(a) => {
                out.push('[');
                for x in a {
                    canonical(x, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut s = String::new();
    canonical(v, &mut s);
    fnv(s.as_bytes())
}

/// The folder of the guard's state: `--state-dir`, else the index folder's `guard`.
pub(crate) fn dir(state_dir: Option<&Path>) -> Result<PathBuf, String> {
    let base = match state_dir {
        Some(d) => d.to_path_buf(),
        None => crate::index::default_dir()?
            .ok_or("no folder for the guard's state: set XDG_CACHE_HOME or HOME, or pass --state-dir")?
            .join("guard"),
    };
    Ok(base.join(LAYOUT))
}

fn session_file(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("session-{:016x}.json", fnv(session.as_bytes())))
}

/// A session's state, locked: read it, change it, `save` it; the lock
/// goes when this is dropped.
pub(crate) struct Locked {
    _lock: File,
    path: PathBuf,
    pub state: State,
    /// The state was new: the session's first event.
    pub fresh: bool,
    /// Verdicts to append to the session's log when saved.
    verdicts: Vec<Verdict>,
}

/// Take `session`'s lock in `dir` and read its state.
pub(crate) fn open(dir: &Path, session: &str) -> Result<Locked, String> {
    private_dirs(dir).map_err(|e| format!("cannot make the guard's state folder {}: {e}", dir.display()))?;
    let path = session_file(dir, session);
    let lock_path = path.with_extension("lock");
    let lock = lock_file(&lock_path).map_err(|e| format!("cannot open the lock {}: {e}", lock_path.display()))?;
    let start = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(format!("the session's state stayed locked for {}s", LOCK_WAIT.as_secs()));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(format!("cannot lock {}: {e}", lock_path.display())),
        }
    }
    let (state, fresh) = match std::fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice::<State>(&bytes) {
            Ok(s) if s.session == session => (s, false),
            // Another session with the same hash, or a damaged file: start again.
            _ => (State::default(), true),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (State::default(), true),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    Ok(Locked { _lock: lock, path, state, fresh, verdicts: Vec::new() })
}

fn log_file(state_file: &Path) -> PathBuf {
    state_file.with_extension("log.jsonl")
}

impl Locked {
    /// Keep `v` in the session's log (written by `save`).
    pub(crate) fn record(&mut self, v: Verdict) {
        self.verdicts.push(v);
    }

    /// Append the verdicts to the log (cut to its newer half past
    /// `MAX_LOG_BYTES`), then write the state aside and rename it into place.
    pub(crate) fn save(&self) -> Result<(), String> {
        if !self.verdicts.is_empty() {
            self.append_verdicts().map_err(|e| format!("cannot write the guard's log: {e}"))?;
        }
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        let written = (|| -> std::io::Result<()> {
            let _ = std::fs::remove_file(&tmp);
            let mut f = std::io::BufWriter::new(crate::scratch::private_file(&tmp)?);
            serde_json::to_writer(&mut f, &self.state)?;
            f.flush()?;
            drop(f);
            std::fs::rename(&tmp, &self.path)
        })();
        written.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write the guard's state {}: {e}", self.path.display())
        })
    }
}

impl Locked {
    fn append_verdicts(&self) -> std::io::Result<()> {
        let path = log_file(&self.path);
        let mut lines = Vec::new();
        for v in &self.verdicts {
            serde_json::to_writer(&mut lines, v)?;
            lines.push(b'\n');
        }
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        if size + lines.len() as u64 > MAX_LOG_BYTES {
            // The newer half of the lines, then these: written aside, renamed.
            let old = std::fs::read(&path).unwrap_or_default();
            let half = old.len() / 2;
            let from = old[half..].iter().position(|&b| b == b'\n').map_or(old.len(), |i| half + i + 1);
            let mut kept = old[from..].to_vec();
            kept.extend_from_slice(&lines);
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            let _ = std::fs::remove_file(&tmp);
            let mut f = crate::scratch::private_file(&tmp)?;
            f.write_all(&kept)?;
            drop(f);
            return std::fs::rename(&tmp, &path);
        }
        let mut options = std::fs::OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options.open(&path)?.write_all(&lines)
    }
}

fn lock_file(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// `dir` and its parents made, `dir` kept `0700`. Its parent is the
/// user's `--state-dir` (or the cache's `falseok/guard`, made `0700` when
/// made): never changed, for `--state-dir /tmp` must not close `/tmp`.
fn private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        b.mode(0o700);
        b.create(dir)?;
        let meta = std::fs::symlink_metadata(dir)?;
        if meta.file_type().is_symlink() || !meta.is_dir() {
            return Err(std::io::Error::other("not a folder"));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    #[cfg(not(unix))]
    b.create(dir)?;
    Ok(())
}

/// Delete the sessions of `dir` with no event for `quiet`: its state, lock,
/// log and any file left aside. A session's age is its state file's (the
/// lock file is never written, so its own time says nothing).
pub(crate) fn sweep(dir: &Path, quiet: Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    let age = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok().and_then(|t| now.duration_since(t).ok());
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let stem = name.strip_prefix("session-")?.get(..16)?.to_string();
            Some((stem, p))
        })
        .collect();
    files.sort();
    let mut i = 0;
    while i < files.len() {
        let stem = files[i].0.clone();
        let group: Vec<&PathBuf> = files[i..].iter().take_while(|(s, _)| *s == stem).map(|(_, p)| p).collect();
        i += group.len();
        let state = dir.join(format!("session-{stem}.json"));
        let youngest = if state.exists() { age(&state) } else { group.iter().filter_map(|p| age(p)).min() };
        if youngest.is_some_and(|a| a > quiet) {
            for p in group {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Every verdict kept in `dir`: each session's, in order, sessions by file
/// name. A line that cannot be read (a log cut by a full disk) is skipped.
pub(crate) fn verdicts(dir: &Path) -> Vec<Verdict> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".log.jsonl")))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        out.extend(text.lines().filter_map(|l| serde_json::from_str::<Verdict>(l).ok()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_are_per_tool_and_template() {
        let mut s = State::default();
        let f = Some(("Error: <path> missing", "Error: /a missing", "not-found"));
        assert_eq!(s.count("Read", f, 1), 1);
        assert_eq!(s.count("Bash", None, 2), 0, "another tool does not break the run");
        assert_eq!(s.count("Read", f, 1), 2);
        assert_eq!(s.count("Read", Some(("other", "other", "other")), 1), 1, "another error starts a new run");
        assert_eq!(s.count("Read", f, 1), 1);
        assert_eq!(s.count("Read", None, 1), 0);
        assert!(s.streak("Read").is_none(), "a success ends the run");
        assert_eq!(s.results, 6);
    }

    #[test]
    fn state_is_bounded() {
        let mut s = State::default();
        for i in 0..(MAX_STREAKS + 10) {
            s.count(&format!("t{i}"), Some(("x", "x", "other")), 0);
        }
        assert!(s.streaks.len() <= MAX_STREAKS);
        assert!(s.streak(&format!("t{}", MAX_STREAKS + 9)).is_some(), "the newest run is kept");
        for i in 0..(MAX_FILES + 10) {
            s.file(&format!("/f{i}"), true);
        }
        assert!(s.files.len() <= MAX_FILES);
    }

    /// A success of tool `t` in `session`, as the log keeps it.
    fn success(session: &str) -> Verdict {
        Verdict {
            time: String::new(),
            session: session.into(),
            agent: String::new(),
            event: "after".into(),
            tool: "t".into(),
            call_id: String::new(),
            verdict: "success".into(),
            category: None,
            template: None,
            streak: 0,
            action: "none".into(),
        }
    }

    #[test]
    fn the_log_is_appended_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let v = success("");
        let line = serde_json::to_vec(&v).unwrap().len() as u64 + 1;
        let n = (MAX_LOG_BYTES / line) as usize + 10;
        for i in 0..n {
            let mut locked = open(dir.path(), "s").unwrap();
            locked.record(Verdict { call_id: i.to_string(), ..v.clone() });
            locked.save().unwrap();
        }
        let size = std::fs::metadata(dir.path().join(format!("session-{:016x}.log.jsonl", fnv(b"s")))).unwrap().len();
        assert!(size <= MAX_LOG_BYTES, "{size}");
        let kept = verdicts(dir.path());
        assert!(kept.len() < n && kept.len() > n / 3, "{} of {n}", kept.len());
        assert_eq!(kept.last().unwrap().call_id, (n - 1).to_string(), "the newest are kept");
        let ids: Vec<usize> = kept.iter().map(|v| v.call_id.parse().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "in order, none lost in between");
    }

    #[test]
    fn argument_order_does_not_change_the_hash() {
        assert_eq!(
            input_hash(&json!({"a": 1, "b": [1, {"c": 2, "d": 3}]})),
            input_hash(&json!({"b": [1, {"d": 3, "c": 2}], "a": 1}))
        );
        assert_ne!(input_hash(&json!({"a": 1})), input_hash(&json!({"a": 2})));
    }

    #[test]
    fn quiet_sessions_are_swept_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        for session in ["s1", "s2"] {
            let mut locked = open(dir.path(), session).unwrap();
            locked.record(success(session));
            locked.save().unwrap();
        }
        std::fs::write(dir.path().join("unrelated.txt"), "x").unwrap();
        sweep(dir.path(), Duration::from_secs(3600));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 7, "nothing quiet yet");
        std::thread::sleep(Duration::from_millis(300));
        // s2 has an event now: its old lock file does not make it quiet.
        open(dir.path(), "s2").unwrap().save().unwrap();
        sweep(dir.path(), Duration::from_millis(200));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let s2 = format!("session-{:016x}", fnv(b"s2"));
        assert_eq!(
            left,
            vec![format!("{s2}.json"), format!("{s2}.lock"), format!("{s2}.log.jsonl"), "unrelated.txt".into()]
        );
        std::thread::sleep(Duration::from_millis(20));
        sweep(dir.path(), Duration::from_millis(1));
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec!["unrelated.txt".to_string()]);
    }
}
