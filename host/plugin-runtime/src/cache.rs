//! Compiled components cached on disk, keyed by the component's sha256, the wasmtime version
//! and the engine's settings, so a plugin is compiled once per machine, not once per run.

use crate::{Result, RuntimeError};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Where compiled components are kept: `LDP_CACHE_DIR`, else `$XDG_CACHE_HOME/ldp/components`,
/// else `$HOME/.cache/ldp/components`. `None` when no folder can be named.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("LDP_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("ldp").join("components"))
}

/// The on-disk cache of compiled components.
#[derive(Debug, Clone)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    engine_key: String,
}

impl DiskCache {
    pub(crate) fn new(dir: PathBuf, engine: &Engine) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = format!("wasmtime-{}-{:016x}", wasmtime_version(), hasher.finish());
        Self { dir, engine_key }
    }

    fn path(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}-{}.cwasm", self.engine_key))
    }

    /// The compiled component for `bytes` (whose sha256 is `sha256`): from the cache when it
    /// holds a usable copy, else compiled and stored.
    pub(crate) fn load_or_compile(
        &self,
        engine: &Engine,
        sha256: &str,
        bytes: &[u8],
        what: &str,
    ) -> Result<Component> {
        let path = self.path(sha256);
        if path.exists() {
            // SAFETY: the file was written by `store` below from `Component::serialize` of
            // this engine's configuration (the name holds the engine's compatibility hash);
            // wasmtime checks the header again and refuses an incompatible file, which is
            // then compiled anew. The cache folder is the user's own, like their ldp binary.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) => return Ok(component),
                Err(e) => tracing::debug!(
                    "compiled plugin {} is unusable ({e:#}); compiling again",
                    path.display()
                ),
            }
        }
        let component = compile(engine, bytes, what)?;
        if let Err(e) = self.store(&path, &component) {
            // A read-only or full cache folder only costs time.
            tracing::warn!("{e}");
        }
        Ok(component)
    }

    fn store(&self, path: &Path, component: &Component) -> Result<()> {
        let cache_err = |source| RuntimeError::Cache {
            path: path.to_path_buf(),
            source,
        };
        let serialized = component
            .serialize()
            .map_err(|e| cache_err(std::io::Error::other(format!("{e:#}"))))?;
        std::fs::create_dir_all(&self.dir).map_err(cache_err)?;
        // Written to a temporary file and renamed, so a reader never sees half a file.
        let mut tmp = tempfile_in(&self.dir).map_err(cache_err)?;
        tmp.1.write_all(&serialized).map_err(cache_err)?;
        tmp.1.sync_all().map_err(cache_err)?;
        drop(tmp.1);
        std::fs::rename(&tmp.0, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp.0);
            cache_err(e)
        })
    }
}

fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for attempt in 0..100u32 {
        let path = dir.join(format!(
            ".tmp-{}-{}-{attempt}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("cannot create a temporary file"))
}

/// Compiles a component without the cache.
pub(crate) fn compile(engine: &Engine, bytes: &[u8], what: &str) -> Result<Component> {
    Component::new(engine, bytes).map_err(|e| RuntimeError::NotAPlugin {
        what: what.to_string(),
        reason: format!("wasmtime cannot compile it: {e:#}"),
    })
}

/// The sha256 of a component, as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The wasmtime version this runtime was built with.
pub fn wasmtime_version() -> &'static str {
    "48.0.8"
}
