//! `--exec CMD`: one `sh -c CMD` per event, in order, on a thread of its
//! own so a slow command never delays the next event's line. The event's
//! JSON goes to the command's standard input; its standard output goes to
//! watch's standard error (watch's own output stays the events). A command
//! that fails or outlives the timeout is reported and the next one runs.

use std::io::Write;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

pub(super) struct Exec {
    tx: Option<Sender<(u64, String)>>,
    worker: Option<JoinHandle<()>>,
    /// What went wrong, for the main loop to print (it owns stderr).
    pub problems: Receiver<String>,
}

impl Exec {
    pub(super) fn start(cmd: String, timeout: Duration) -> Exec {
        let (tx, rx) = crossbeam_channel::unbounded::<(u64, String)>();
        let (ptx, prx) = crossbeam_channel::unbounded::<String>();
        let worker = std::thread::Builder::new()
            .name("falseok-exec".into())
            .spawn(move || {
                for (n, json) in rx {
                    if let Err(problem) = run_one(&cmd, &json, timeout) {
                        let _ = ptx.send(format!("--exec: event {n}: {problem}"));
                    }
                }
            })
            .ok();
        Exec { tx: Some(tx), worker, problems: prx }
    }

    /// Queue event number `n` (its JSON) for the command.
    pub(super) fn send(&self, n: u64, json: String) {
        if let Some(tx) = &self.tx {
            let _ = tx.send((n, json));
        }
    }

    /// Wait for the queued commands (each bounded by the timeout).
    pub(super) fn finish(&mut self) {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

fn run_one(cmd: &str, json: &str, timeout: Duration) -> Result<(), String> {
    let stdout = stderr_stdio();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .spawn()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input is not a failure.
        let _ = stdin.write_all(json.as_bytes()).and_then(|()| stdin.write_all(b"\n"));
    }
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("the command {status}")),
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the command ran longer than {} s and was stopped", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for the command: {e}")),
        }
    }
}

/// The command's standard output: watch's standard error.
fn stderr_stdio() -> Stdio {
    use std::os::fd::AsFd;
    std::io::stderr().as_fd().try_clone_to_owned().map(Stdio::from).unwrap_or_else(|_| Stdio::null())
}
