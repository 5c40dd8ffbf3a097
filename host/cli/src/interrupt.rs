//! Ctrl-C (or SIGTERM, how a container is stopped): the first one asks the running command to
//! stop cleanly (a run deletes what it wrote and exits 130 with `ldp: interrupted`; a workflow,
//! backfill or tick starts nothing new); a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only async-signal-safe work here: an atomic swap and _exit.
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe and ends the process without running destructors.
        unsafe { libc::_exit(130) };
    }
}

/// Installs the SIGINT and SIGTERM handler and returns the flag it sets.
pub fn install() -> &'static AtomicBool {
    let handler = on_sigint as extern "C" fn(libc::c_int);
    // SAFETY: the handler only touches an atomic and calls _exit, both async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
    &INTERRUPTED
}
