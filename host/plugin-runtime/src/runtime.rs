//! The runtime: one wasmtime engine, its linker, the epoch ticker and the compiled-code cache.

use crate::bindings;
use crate::cache::{DiskCache, sha256_hex};
use crate::host::DuckdbEngine;
use crate::plugin::Plugin;
use crate::sandbox::HostState;
use crate::{Result, RuntimeError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Config, Engine, OptLevel, ProfilingStrategy};

/// How often the epoch advances; call deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Settings of a [`Runtime`].
#[derive(Clone, Default)]
pub struct RuntimeOptions {
    /// Where compiled components are cached; `None` keeps nothing on disk.
    pub cache_dir: Option<PathBuf>,
    /// What answers DuckDB queries of `duckdb-source-plugin` components; `None` refuses them.
    pub duckdb: Option<Arc<dyn DuckdbEngine>>,
}

impl std::fmt::Debug for RuntimeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeOptions")
            .field("cache_dir", &self.cache_dir)
            .field("duckdb", &self.duckdb.is_some())
            .finish()
    }
}

impl RuntimeOptions {
    /// The default: cache in [`crate::default_cache_dir`].
    pub fn with_default_cache() -> Self {
        Self {
            cache_dir: crate::cache::default_cache_dir(),
            duckdb: None,
        }
    }
}

pub(crate) struct Inner {
    pub(crate) engine: Engine,
    pub(crate) linker: Linker<HostState>,
    pub(crate) duckdb: Option<Arc<dyn DuckdbEngine>>,
    cache: Option<DiskCache>,
    stop: Arc<AtomicBool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Loads and runs plugins. Cheap to clone; one per process is enough.
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime with `options`.
    pub fn new(options: RuntimeOptions) -> Result<Self> {
        let mut config = Config::new();
        config
            .wasm_component_model(true)
            .epoch_interruption(true)
            .cranelift_opt_level(OptLevel::Speed);
        if let Some(profiler) = profiler_from_env() {
            config.profiler(profiler);
        }
        let engine =
            Engine::new(&config).map_err(|e| RuntimeError::engine("cannot start wasmtime", e))?;

        let mut linker = Linker::new(&engine);
        wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)
            .map_err(|e| RuntimeError::engine("cannot link wasi:http", e))?;
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| RuntimeError::engine("cannot link WASI", e))?;
        bindings::wit_log::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(|e| RuntimeError::engine("cannot link ldp:plugin/log", e))?;
        bindings::wit::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(|e| RuntimeError::engine("cannot link ldp:plugin/types", e))?;
        bindings::wit_duckdb::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(|e| RuntimeError::engine("cannot link ldp:plugin/duckdb", e))?;
        bindings::wit_duckdb_write::add_to_linker::<HostState, HasSelf<HostState>>(
            &mut linker,
            |s| s,
        )
        .map_err(|e| RuntimeError::engine("cannot link ldp:plugin/duckdb-write", e))?;

        let stop = Arc::new(AtomicBool::new(false));
        spawn_ticker(engine.clone(), stop.clone());
        let cache = options.cache_dir.map(|dir| DiskCache::new(dir, &engine));
        Ok(Self {
            inner: Arc::new(Inner {
                engine,
                linker,
                duckdb: options.duckdb,
                cache,
                stop,
            }),
        })
    }

    /// Loads a plugin from a `.wasm` component file.
    pub fn load_file(&self, path: &Path) -> Result<Plugin> {
        let bytes = std::fs::read(path).map_err(|source| RuntimeError::ReadFile {
            path: path.to_path_buf(),
            source,
        })?;
        self.load_bytes(&path.display().to_string(), &bytes)
    }

    /// Loads a plugin from the bytes of a component; `what` names it in errors (a file path or
    /// `built-in plugin 'csv'`).
    pub fn load_bytes(&self, what: &str, bytes: &[u8]) -> Result<Plugin> {
        self.load_embedded(what, bytes, &sha256_hex(bytes))
    }

    /// Loads a plugin whose sha256 is already known: one embedded in the binary, hashed by the
    /// build. Saves hashing megabytes on every start.
    pub fn load_embedded(&self, what: &str, bytes: &[u8], sha256: &str) -> Result<Plugin> {
        crate::inspect::check_header(what, bytes)?;
        let component = self.compile(what, bytes, sha256)?;
        Plugin::new(self.clone(), what, sha256.to_string(), component)
    }

    /// The compiled component, from the disk cache when there is one.
    pub(crate) fn compile(&self, what: &str, bytes: &[u8], sha256: &str) -> Result<Component> {
        match &self.inner.cache {
            Some(cache) => cache.load_or_compile(&self.inner.engine, sha256, bytes, what),
            None => crate::cache::compile(&self.inner.engine, bytes, what),
        }
    }
}

/// `LDP_PLUGIN_PROFILER=perfmap` names the plugins' compiled functions to Linux
/// `perf`, so that `perf record`/`perf report` show where a plugin spends its time (see
/// `docs/plugins.md`). Unset, or any other value, profiles nothing.
fn profiler_from_env() -> Option<ProfilingStrategy> {
    match std::env::var("LDP_PLUGIN_PROFILER").ok()?.as_str() {
        "perfmap" => Some(ProfilingStrategy::PerfMap),
        other => {
            tracing::warn!("LDP_PLUGIN_PROFILER={other:?} is not perfmap; ignored");
            None
        }
    }
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until the runtime is dropped.
fn spawn_ticker(engine: Engine, stop: Arc<AtomicBool>) {
    let spawned = std::thread::Builder::new()
        .name("ldp-epoch".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(EPOCH_TICK);
                engine.increment_epoch();
            }
        });
    if let Err(e) = spawned {
        // Without a ticker no deadline fires; calls still run, unbounded in time.
        tracing::warn!("cannot start the plugin time-limit thread: {e}");
    }
}
