//! What the commands that serve (`ldp catalog serve`, `ldp ui`) share: they serve until
//! Ctrl-C or SIGTERM, then stop cleanly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ldp_http_serve::RunningServer;

/// Waits until `server` stops; `interrupted` (Ctrl-C, SIGTERM) stops it.
pub(crate) fn until_interrupted(server: RunningServer, interrupted: &'static AtomicBool) {
    let handle = server.shutdown_handle();
    std::thread::spawn(move || {
        while !interrupted.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        handle.shutdown();
    });
    server.wait();
}
