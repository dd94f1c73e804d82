//! `--exec CMD`: one `sh -c CMD` per event, in order, on a thread of its
//! own so a slow command never delays the next event's line. The event's
//! JSON goes to the command's standard input; its standard output goes to
//! watch's standard error (watch's own output stays the events). A command
//! that fails or outlives the timeout is reported and the next one runs.
//!
//! Each command runs in a process group of its own, and a command that is
//! stopped is stopped whole: `sh`, and what it started (a pipeline's `jq`
//! and `curl`). When watch is stopped (SIGINT, SIGTERM), no further
//! command starts, the one running is given `GRACE` to finish and is then
//! killed, and how many queued events were not run is said.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

/// How long the running command may go on once watch is stopped.
pub(super) const GRACE: Duration = Duration::from_secs(2);

/// Events waiting for the command, at most: past it, an event's command is
/// not run (said on stderr), so a command slower than the events never
/// grows watch's memory without bound.
pub(super) const QUEUE: usize = 10_000;

pub(super) struct Exec {
    tx: Option<Sender<(u64, String)>>,
    worker: Option<JoinHandle<()>>,
    /// What went wrong, for the main loop to print (it owns stderr).
    problems: Receiver<String>,
    /// Events whose command was not run because the queue was full, not said yet.
    dropped: AtomicU64,
}

impl Exec {
    /// Run `cmd` for each event sent; `stop` is watch's own (set by
    /// SIGINT and SIGTERM): once set, the queue is dropped.
    pub(super) fn start(cmd: String, timeout: Duration, stop: Arc<AtomicBool>) -> Exec {
        let (tx, rx) = crossbeam_channel::bounded::<(u64, String)>(QUEUE);
        let (ptx, prx) = crossbeam_channel::unbounded::<String>();
        let worker = std::thread::Builder::new()
            .name("falseok-exec".into())
            .spawn(move || {
                while let Ok((n, json)) = rx.recv() {
                    if stop.load(Ordering::SeqCst) {
                        let left = 1 + rx.try_iter().count();
                        let _ = ptx.send(format!(
                            "--exec: watch was stopped; the command was not run for {left} queued {}",
                            if left == 1 { "event" } else { "events" }
                        ));
                        continue;
                    }
                    if let Err(problem) = run_one(&cmd, &json, timeout, &stop) {
                        let _ = ptx.send(format!("--exec: event {n}: {problem}"));
                    }
                }
            })
            .ok();
        Exec { tx: Some(tx), worker, problems: prx, dropped: AtomicU64::new(0) }
    }

    /// Queue event number `n` (its JSON) for the command; never waits.
    pub(super) fn send(&self, n: u64, json: String) {
        if let Some(tx) = &self.tx
            && let Err(crossbeam_channel::TrySendError::Full(_)) = tx.try_send((n, json))
        {
            self.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// What went wrong since last asked, one line each, for stderr.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut said: Vec<String> = self.problems.try_iter().collect();
        let dropped = self.dropped.swap(0, Ordering::SeqCst);
        if dropped > 0 {
            said.push(format!(
                "--exec: the command was not run for {dropped} {}: {QUEUE} events were already waiting for it",
                if dropped == 1 { "event" } else { "events" }
            ));
        }
        said
    }

    /// Wait for the queued commands: each bounded by the timeout, or, once
    /// watch is stopped, none started and the running one cut after `GRACE`.
    pub(super) fn finish(&mut self) {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

fn run_one(cmd: &str, json: &str, timeout: Duration, stop: &AtomicBool) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let stdout = stderr_stdio();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(stdout)
        // A group of its own: stopped whole. (Ctrl-C in a terminal reaches
        // watch, which then stops it.)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    // Written aside: a command that does not read a large event must not
    // hold this thread past its timeout. A command that does not read its
    // input is not a failure; the writer ends when the pipe's last reader
    // does, so it is not waited for.
    if let Some(mut stdin) = child.stdin.take() {
        let event = format!("{json}\n");
        let _ = std::thread::Builder::new().name("falseok-exec-stdin".into()).spawn(move || {
            let _ = stdin.write_all(event.as_bytes());
        });
    }
    let start = Instant::now();
    let mut stopped_at: Option<Instant> = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break Ok(()),
            Ok(Some(status)) => break Err(format!("the command {status}")),
            Ok(None) => {
                if stopped_at.is_none() && stop.load(Ordering::SeqCst) {
                    stopped_at = Some(Instant::now());
                }
                if stopped_at.is_some_and(|at| at.elapsed() >= GRACE) {
                    kill(&mut child);
                    break Err(format!(
                        "watch was stopped; the command still ran {} s later and was killed",
                        GRACE.as_secs_f64()
                    ));
                }
                if start.elapsed() >= timeout {
                    kill(&mut child);
                    break Err(format!("the command ran longer than {} s and was stopped", timeout.as_secs_f64()));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => {
                kill(&mut child);
                break Err(format!("cannot wait for the command: {e}"));
            }
        }
    }
}

/// Kill the command's whole process group, then reap `sh`. Only for a
/// child not reaped yet: the group's id is its pid (`process_group(0)`),
/// which no other process can take before it is reaped.
fn kill(child: &mut Child) {
    let group = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// The command's standard output: watch's standard error.
fn stderr_stdio() -> Stdio {
    use std::os::fd::AsFd;
    std::io::stderr().as_fd().try_clone_to_owned().map(Stdio::from).unwrap_or_else(|_| Stdio::null())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command that does not read a large event is still stopped at its
    /// timeout: the event is written aside, not by the thread that keeps
    /// the time (which a full pipe would block until the command ends).
    #[test]
    fn a_command_that_does_not_read_a_large_event_is_stopped_at_its_timeout() {
        let (tx, rx) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let event = format!("{{\"message\":\"{}\"}}", "x".repeat(4 << 20));
            let _ = tx.send(run_one("sleep 120", &event, Duration::from_secs(1), &AtomicBool::new(false)));
        });
        // Far beyond the timeout; the command itself would take 120 s.
        let outcome = rx.recv_timeout(Duration::from_secs(60)).expect("the command was not stopped at its timeout");
        assert!(outcome.is_err_and(|e| e.contains("ran longer than 1 s")));
    }

    /// Events past the queue's bound are not run and are counted; once
    /// watch is stopped, the running command is cut after the grace and
    /// the queued ones are counted, not run.
    #[test]
    fn a_full_queue_and_a_stop_say_how_many_events_were_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        let stop = Arc::new(AtomicBool::new(false));
        let cmd = format!("touch '{}'; sleep 120", started.display());
        let mut exec = Exec::start(cmd, Duration::from_secs(1000), stop.clone());
        exec.send(0, "{}".into());
        let waited = Instant::now();
        while !started.exists() {
            assert!(waited.elapsed() < Duration::from_secs(60), "the first command never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        // The first event's command runs: the queue takes QUEUE more, no more.
        for n in 1..=QUEUE as u64 + 2 {
            exec.send(n, "{}".into());
        }
        let said = exec.problems().join("\n");
        assert_eq!(
            said,
            format!("--exec: the command was not run for 2 events: {QUEUE} events were already waiting for it")
        );
        stop.store(true, Ordering::SeqCst);
        exec.finish();
        let said = exec.problems().join("\n");
        assert_eq!(
            said,
            format!(
                "--exec: event 0: watch was stopped; the command still ran 2 s later and was killed\n\
                 --exec: watch was stopped; the command was not run for {QUEUE} queued events"
            )
        );
    }
}
