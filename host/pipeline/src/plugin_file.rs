//! Files a config names for plugins (a source, sink or transform plugin, a JavaScript file):
//! read relative to the config, checked against their pinned sha256 before anything else is
//! read, and their grants turned into the sandbox's [`Grants`].

use std::path::{Path, PathBuf};

use ldp_config::PluginGrants;
use ldp_config::paths::PathContext;
use ldp_plugin_runtime::{Grants, Limits};

use crate::error::{Error, Result};

/// A file read and checked against its pin.
pub(crate) struct PinnedFile {
    /// The file, absolute.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Their sha256.
    pub sha256: String,
}

/// Resolves paths against the config's folder and names the config item in errors.
pub(crate) struct ConfigFiles<'a> {
    context: PathContext,
    /// `metadata.transforms[1] (mask.wasm)`, `metadata.source.plugin (api.wasm)`.
    what: &'a str,
}

impl<'a> ConfigFiles<'a> {
    /// Files of the config in `base`, for the item `what`.
    pub fn new(base: Option<&Path>, what: &'a str) -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        ConfigFiles {
            context: PathContext::new(base, &cwd),
            what,
        }
    }

    /// The error for this item.
    pub fn refuse(&self, message: String) -> Error {
        Error::PluginFile {
            message: format!("{}: {message}", self.what),
        }
    }

    /// Reads `relative` (a `kind`: `plugin file`, `JavaScript file`) and checks it against
    /// `pinned`.
    pub fn read_pinned(
        &self,
        relative: &str,
        kind: &str,
        pinned: Option<&str>,
    ) -> Result<PinnedFile> {
        let path = self.context.resolve(relative).path;
        let bytes = std::fs::read(&path).map_err(|e| {
            self.refuse(format!(
                "cannot read the {kind} {}: {e}; the path is relative to the config's folder",
                path.display()
            ))
        })?;
        let sha256 = ldp_plugin_runtime::sha256_hex(&bytes);
        if let Some(pinned) = pinned
            && pinned != sha256
        {
            return Err(self.refuse(format!(
                "{} has sha256 {sha256}, but the config pins {pinned}: the file changed since it was pinned. Nothing was read. If the change is expected, set \"sha256\": \"{sha256}\"",
                path.display()
            )));
        }
        Ok(PinnedFile {
            path,
            bytes,
            sha256,
        })
    }

    /// `default` with what the config's `limits` override.
    pub fn limits(limits: &ldp_config::PluginLimits, default: Limits) -> Limits {
        let mut out = default;
        if let Some(seconds) = limits.timeout_s {
            out.call_timeout = std::time::Duration::from_secs_f64(seconds);
        }
        if let Some(mb) = limits.memory_mb {
            out.max_memory_bytes = mb << 20;
        }
        out
    }

    /// The sandbox grants of `grants`: folders resolved and checked, environment variables
    /// read from the host's environment (one that is not set refuses the run), hosts as given.
    pub fn grants(&self, grants: &PluginGrants) -> Result<Grants> {
        let mut sandbox = Grants {
            net: grants.net.clone(),
            ..Grants::default()
        };
        for dir in &grants.read {
            let path = self.context.resolve(dir).path;
            if !path.is_dir() {
                return Err(self.refuse(format!(
                    "grants.read: {} is not a folder; the path is relative to the config's folder",
                    path.display()
                )));
            }
            sandbox.read_dirs.push(path);
        }
        for name in &grants.env {
            let value = std::env::var(name).map_err(|_| {
                self.refuse(format!(
                    "grants.env: the environment variable {name} is not set; set it before the run, or remove the grant"
                ))
            })?;
            sandbox.env.push((name.clone(), value));
        }
        Ok(sandbox)
    }
}
