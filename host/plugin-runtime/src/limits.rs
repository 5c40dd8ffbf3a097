//! What a plugin is allowed: the sandbox's limits and grants.

use std::path::PathBuf;
use std::time::Duration;

/// Bounds on one plugin instance. Breaking one ends the run with [`crate::Limit`]; the host
/// goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest linear memory, in bytes (default 1 GiB).
    pub max_memory_bytes: u64,
    /// Longest time one call into the plugin may run (default 60 s). Enforced by an epoch
    /// deadline, to within [`crate::EPOCH_TICK`].
    pub call_timeout: Duration,
    /// Most bytes the plugin may write to stdout, stderr and its log together (default 1 MiB).
    pub max_output_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_memory_bytes: 1 << 30,
            call_timeout: Duration::from_secs(60),
            max_output_bytes: 1 << 20,
        }
    }
}

/// What a plugin may reach besides its inputs. Nothing by default: no files, no environment
/// variables, no network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Folders the plugin may read, each visible in the plugin at its own absolute path.
    pub read_dirs: Vec<PathBuf>,
    /// A folder the plugin may read and write (a file sink's private staging folder), visible
    /// at its own absolute path.
    pub write_dir: Option<PathBuf>,
    /// Environment variables the plugin sees (name, value): only those a config grants, with
    /// the values the host read from its own environment.
    pub env: Vec<(String, String)>,
    /// `host:port` pairs the plugin may reach with outgoing HTTP requests (wasi:http); every
    /// other request is refused.
    pub net: Vec<String>,
}

/// The sandbox one plugin instance runs in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// Bounds.
    pub limits: Limits,
    /// Grants.
    pub grants: Grants,
}
