//! Logging into the host's log (the `ldp:plugin/log` import).
//!
//! Use the macros: `ldp_plugin_sdk::info!("read {} rows", n)`. Lines are attributed to the
//! plugin by the host and capped like its stdout and stderr.

use crate::bindings::wit_log as wit;

/// Severity of a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Very detailed.
    Trace,
    /// For debugging.
    Debug,
    /// Normal progress.
    Info,
    /// Something the user should look at.
    Warn,
    /// Something failed.
    Error,
}

/// Writes one line to the host's log.
pub fn log(level: Level, message: &str) {
    let level = match level {
        Level::Trace => wit::Level::Trace,
        Level::Debug => wit::Level::Debug,
        Level::Info => wit::Level::Info,
        Level::Warn => wit::Level::Warn,
        Level::Error => wit::Level::Error,
    };
    #[cfg(target_arch = "wasm32")]
    wit::log(level, message);
    // Natively (a plugin's unit tests) there is no host: the line goes to stderr.
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("[{level:?}] {message}");
}

/// Logs at info level, with `format!` arguments.
#[macro_export]
macro_rules! info {
    ($($arg:tt)*) => { $crate::log::log($crate::log::Level::Info, &::std::format!($($arg)*)) };
}

/// Logs at warn level, with `format!` arguments.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => { $crate::log::log($crate::log::Level::Warn, &::std::format!($($arg)*)) };
}

/// Logs at debug level, with `format!` arguments.
#[macro_export]
macro_rules! debug {
    ($($arg:tt)*) => { $crate::log::log($crate::log::Level::Debug, &::std::format!($($arg)*)) };
}
