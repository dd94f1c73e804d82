//! Files that must not outlive the run: the scratch folders transcripts are
//! imported into, and outputs being written beside their final name until
//! they are whole. They are private to the user (folders `0700`, files
//! `0600`) and registered here while they exist, so that `main` can remove
//! every one of them when SIGINT, SIGTERM, SIGHUP or a panic ends the run.
//!
//! A run that had no chance to clean up (SIGKILL, an abort) leaves a folder
//! named `falseok-scratch-<pid>-…` whose lock nobody holds any more; the
//! next run that makes a scratch folder removes it.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The start of every scratch folder's name; the pid follows.
pub(crate) const PREFIX: &str = "falseok-scratch-";

/// The file inside a scratch folder its owner holds locked while it lives.
const LOCK: &str = "lock";

struct Live {
    paths: Vec<PathBuf>,
    /// Set once the run is ending: nothing new may appear.
    closing: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live { paths: Vec::new(), closing: false });

fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Remove `path` (a file or a folder) at the end of an interrupted run. Once
/// the run is ending, `path` is removed at once and an error returned.
pub(crate) fn register(path: &Path) -> io::Result<()> {
    let mut live = live();
    if live.closing {
        remove(path);
        return Err(io::Error::new(io::ErrorKind::Interrupted, "falseok is stopping"));
    }
    live.paths.push(path.to_path_buf());
    Ok(())
}

/// `path` is gone or kept: no longer remove it.
pub(crate) fn forget(path: &Path) {
    live().paths.retain(|p| p != path);
}

/// Remove everything registered; anything registered later is removed at
/// once. For `main`, when a signal or a panic ends the run.
pub fn remove_all() {
    let mut live = live();
    live.closing = true;
    for p in std::mem::take(&mut live.paths) {
        remove(&p);
    }
}

fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            // A thread of the run can still write in it while it goes (the
            // import's text file, SQLite's journal), and a file made after
            // the listing leaves the folder behind: removal is tried again
            // until the folder is gone.
            for _ in 0..8 {
                if std::fs::remove_dir_all(path).is_ok() || std::fs::symlink_metadata(path).is_err() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Create `path`, which must not exist, readable and writable by its owner only.
pub(crate) fn private_file(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// A private folder in `$TMPDIR` for one run's scratch data, removed when
/// dropped, or by `remove_all`.
pub(crate) struct ScratchDir {
    dir: tempfile::TempDir,
    // Held locked while the folder lives (see `stale`).
    _lock: File,
}

impl ScratchDir {
    /// Make the folder (first removing the stale ones of runs that died).
    pub(crate) fn new() -> io::Result<ScratchDir> {
        let tmp = std::env::temp_dir();
        let scratch = {
            // Made and registered under the lock, so a signal's clean-up
            // cannot fall between the two.
            let mut live = live();
            if live.closing {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "falseok is stopping"));
            }
            let prefix = format!("{PREFIX}{}-", std::process::id());
            let mut builder = tempfile::Builder::new();
            builder.prefix(&prefix);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o700));
            }
            let dir = builder.tempdir_in(&tmp)?;
            live.paths.push(dir.path().to_path_buf());
            // Locked under another name, then renamed: a folder whose `lock`
            // exists is locked while its owner lives.
            let pending = dir.path().join(".lock");
            let lock = private_file(&pending)?;
            lock.try_lock().map_err(io::Error::other)?;
            std::fs::rename(&pending, dir.path().join(LOCK))?;
            ScratchDir { dir, _lock: lock }
        };
        sweep(&tmp, scratch.path());
        Ok(scratch)
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        forget(self.dir.path());
    }
}

/// Remove the scratch folders in `tmp` that belong to this user and whose
/// run has ended without removing them.
fn sweep(tmp: &Path, own: &Path) {
    let Some(uid) = owner(own) else { return };
    let Ok(entries) = std::fs::read_dir(tmp) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else { continue };
        if path == own {
            continue;
        }
        // Not followed: a symlink named like a scratch folder is not one.
        let is_ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && owner_of(&m) == Some(uid));
        if is_ours && stale(&path, rest) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Has the run that made the scratch folder `path` (named `PREFIX` + `rest`)
/// ended? Its lock is free (locks end with their process, however it
/// ended), or, before it had one, its pid is not running.
fn stale(path: &Path, rest: &str) -> bool {
    match File::open(path.join(LOCK)) {
        Ok(lock) => lock.try_lock().is_ok(),
        Err(_) => {
            let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
            let proc = Path::new("/proc");
            pid.is_some_and(|pid| proc.join("self").exists() && !proc.join(pid.to_string()).exists())
        }
    }
}

fn owner(path: &Path) -> Option<u32> {
    owner_of(&std::fs::symlink_metadata(path).ok()?)
}

#[cfg(unix)]
fn owner_of(meta: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.uid())
}

#[cfg(not(unix))]
fn owner_of(_meta: &std::fs::Metadata) -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder whose lock is free is stale; one whose lock is held, or
    /// that has no lock yet and a running pid, is not.
    #[test]
    fn stale_folders_are_told_by_their_lock() {
        let tmp = tempfile::tempdir().unwrap();
        let dead = tmp.path().join(format!("{PREFIX}1-a"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(LOCK), "").unwrap();
        assert!(stale(&dead, "1-a"));
        let held = tmp.path().join(format!("{PREFIX}2-b"));
        std::fs::create_dir(&held).unwrap();
        std::fs::write(held.join(LOCK), "").unwrap();
        let lock = File::open(held.join(LOCK)).unwrap();
        lock.lock().unwrap();
        assert!(!stale(&held, "2-b"));
        let unlocked = tmp.path().join(format!("{PREFIX}{}-c", std::process::id()));
        std::fs::create_dir(&unlocked).unwrap();
        assert!(!stale(&unlocked, &format!("{}-c", std::process::id())), "this process runs");
        sweep(tmp.path(), &unlocked);
        assert!(!dead.exists() && held.exists() && unlocked.exists());
    }
}
