//! Scan progress, published by the input stage as the readers report it and
//! drawn (or not) by `main`. The library only stores numbers; it never
//! prints.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static DONE: AtomicU64 = AtomicU64::new(0);
static TOTAL: AtomicU64 = AtomicU64::new(0);
static FINISHED: AtomicBool = AtomicBool::new(false);
static LABEL: Mutex<String> = Mutex::new(String::new());

/// A new source starts; its size is not known yet.
pub(crate) fn begin(label: &str) {
    if let Ok(mut l) = LABEL.lock() {
        // A file named after a token is shown redacted, even under
        // --no-redact: the line is a passing display, not an output.
        *l = crate::sanitize::one_line(&crate::redact::redact(label));
    }
    DONE.store(0, Ordering::Relaxed);
    TOTAL.store(0, Ordering::Relaxed);
}

/// The reader got `done` of `total`, in a unit of its own (sessions; for
/// Peri, rowids).
pub(crate) fn set(done: u64, total: u64) {
    DONE.store(done, Ordering::Relaxed);
    TOTAL.store(total, Ordering::Relaxed);
}

/// The scan is over (or failed).
pub fn finish() {
    FINISHED.store(true, Ordering::Relaxed);
}

pub fn is_finished() -> bool {
    FINISHED.load(Ordering::Relaxed)
}

/// (done, total, label) right now.
pub fn snapshot() -> (u64, u64, String) {
    let label = LABEL.lock().map(|l| l.clone()).unwrap_or_default();
    (DONE.load(Ordering::Relaxed), TOTAL.load(Ordering::Relaxed), label)
}
