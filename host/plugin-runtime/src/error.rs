//! Errors of the plugin runtime.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// What kind of failure an error is; maps to exit codes and retry decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A configuration is invalid (the plugin's, or a grant): fix it; retrying cannot help.
    Config,
    /// The input data is invalid.
    Data,
    /// Reading or writing failed; another attempt may help.
    Io,
    /// A plugin broke a sandbox limit (memory, time, output).
    Limit,
    /// The file is not an ldp plugin, or not the kind asked for.
    NotAPlugin,
    /// A plugin trapped or misbehaved, or the runtime failed.
    Internal,
}

impl ErrorKind {
    /// The process exit code for this kind (the Python tool's table: 1 for every runtime error;
    /// 3 is reserved for a failed data gate).
    pub fn exit_code(self) -> i32 {
        1
    }

    /// Whether another attempt of the same work may succeed.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::Io)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Config => "config",
            ErrorKind::Data => "data",
            ErrorKind::Io => "io",
            ErrorKind::Limit => "limit",
            ErrorKind::NotAPlugin => "not a plugin",
            ErrorKind::Internal => "internal",
        })
    }
}

/// A sandbox limit that a plugin broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Limit {
    /// Linear memory would have grown past `max_bytes`.
    Memory {
        /// The limit.
        max_bytes: u64,
        /// The size the plugin asked for.
        requested_bytes: u64,
    },
    /// An HTTP request to a host the plugin was not granted.
    Network {
        /// `host:port` it asked for.
        asked: String,
        /// What it was granted.
        granted: Vec<String>,
    },
    /// One call ran longer than `max`.
    Time {
        /// The limit per call.
        max: Duration,
    },
    /// The plugin wrote more than `max_bytes` to its stdout, stderr and log together.
    Output {
        /// The limit.
        max_bytes: u64,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Memory {
                max_bytes,
                requested_bytes,
            } => write!(
                f,
                "memory limit: it asked for {} MiB of linear memory, the limit is {} MiB",
                requested_bytes.div_ceil(1 << 20),
                max_bytes >> 20
            ),
            Limit::Network { asked, granted } => write!(
                f,
                "network: it sent an HTTP request to {asked}, which it was not granted ({}); add \"{asked}\" to the plugin's grants.net if it should reach it",
                if granted.is_empty() {
                    "it has no network grant".to_string()
                } else {
                    format!("grants.net: {}", granted.join(", "))
                }
            ),
            Limit::Time { max } => write!(
                f,
                "time limit: one call ran longer than {:.3} s",
                max.as_secs_f64()
            ),
            Limit::Output { max_bytes } => write!(
                f,
                "output limit: it wrote more than {} KiB to stdout, stderr and its log",
                max_bytes >> 10
            ),
        }
    }
}

/// An error of the plugin runtime. Messages name the plugin (or file) and say what to do.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// A plugin file could not be read.
    #[error("cannot read plugin file {}: {source}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not a WebAssembly component, or not an ldp plugin.
    #[error("{what} is not an ldp plugin: {reason}")]
    NotAPlugin {
        /// The file or built-in name.
        what: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The plugin is of another kind than the one asked for.
    #[error("plugin '{plugin}' is a {actual} plugin; a {expected} plugin is needed here")]
    WrongKind {
        /// The plugin.
        plugin: String,
        /// What it is.
        actual: crate::PluginKind,
        /// What was asked for.
        expected: crate::PluginKind,
    },
    /// A directory could not be granted to a plugin.
    #[error("cannot grant {} to plugin '{plugin}': {source}", path.display())]
    Grant {
        /// The plugin.
        plugin: String,
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The plugin returned an error.
    #[error("plugin '{plugin}' failed ({kind}): {message}")]
    Plugin {
        /// The plugin.
        plugin: String,
        /// The kind it gave.
        kind: ErrorKind,
        /// Its message.
        message: String,
    },
    /// The plugin broke a sandbox limit; the run ends, the host goes on.
    #[error("plugin '{plugin}' was stopped by the sandbox: {limit}")]
    Limit {
        /// The plugin.
        plugin: String,
        /// Which limit.
        limit: Limit,
    },
    /// The plugin trapped (a panic, an invalid operation).
    #[error("plugin '{plugin}' crashed: {message}")]
    Trap {
        /// The plugin.
        plugin: String,
        /// The trap and the plugin's last line of stderr, when it wrote one.
        message: String,
    },
    /// The plugin broke the contract (bad Arrow IPC, a call out of order, a wrong schema).
    #[error("plugin '{plugin}' broke the plugin contract: {message}")]
    Contract {
        /// The plugin.
        plugin: String,
        /// What it did.
        message: String,
    },
    /// Arrow data given to the runtime could not be encoded.
    #[error("cannot encode batch for plugin '{plugin}': {source}")]
    Encode {
        /// The plugin.
        plugin: String,
        /// Why.
        source: arrow_schema::ArrowError,
    },
    /// The compiled-code cache failed.
    #[error("plugin cache {}: {source}", path.display())]
    Cache {
        /// The cache file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// wasmtime failed for a reason that is not the plugin's (compiling, linking).
    #[error("{context}: {message}")]
    Engine {
        /// What the runtime was doing.
        context: String,
        /// wasmtime's error.
        message: String,
    },
}

impl RuntimeError {
    /// The kind of the error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RuntimeError::ReadFile { .. } | RuntimeError::Cache { .. } => ErrorKind::Io,
            RuntimeError::Grant { .. } => ErrorKind::Config,
            RuntimeError::NotAPlugin { .. } | RuntimeError::WrongKind { .. } => {
                ErrorKind::NotAPlugin
            }
            RuntimeError::Plugin { kind, .. } => *kind,
            RuntimeError::Limit { .. } => ErrorKind::Limit,
            RuntimeError::Trap { .. }
            | RuntimeError::Contract { .. }
            | RuntimeError::Encode { .. }
            | RuntimeError::Engine { .. } => ErrorKind::Internal,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }

    /// Whether another attempt of the same work may succeed.
    pub fn is_retryable(&self) -> bool {
        self.kind().is_retryable()
    }

    pub(crate) fn engine(context: impl Into<String>, e: wasmtime::Error) -> Self {
        RuntimeError::Engine {
            context: context.into(),
            message: format!("{e:#}"),
        }
    }
}

/// The most bytes of a plugin's own text (its error message, its last words on stderr) an
/// error carries, so a plugin cannot flood the host's stderr, logs or run events.
pub const MAX_PLUGIN_TEXT_BYTES: usize = 4096;

/// `text` cut to [`MAX_PLUGIN_TEXT_BYTES`] at a character boundary, saying how much was cut.
pub(crate) fn capped(mut text: String) -> String {
    if text.len() <= MAX_PLUGIN_TEXT_BYTES {
        return text;
    }
    let mut end = MAX_PLUGIN_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("... ({cut} more bytes)"));
    text
}

/// Result of the plugin runtime.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_text_is_capped_at_a_character_boundary() {
        assert_eq!(capped("short".into()), "short");
        let long = "é".repeat(MAX_PLUGIN_TEXT_BYTES);
        let cut = capped(long);
        assert!(cut.ends_with(&format!("... ({} more bytes)", MAX_PLUGIN_TEXT_BYTES)));
        assert!(cut.len() < MAX_PLUGIN_TEXT_BYTES + 40);
    }
}
