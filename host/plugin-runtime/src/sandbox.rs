//! The state of one sandboxed plugin instance: its WASI context, limits and output.

use crate::limits::Sandbox;
use crate::output::{Channel, Output};
use crate::{Result, RuntimeError};
use std::future::Future;
use std::sync::{Arc, Mutex};
use wasmtime::component::ResourceTable;
use wasmtime::{ResourceLimiter, Store};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{
    Error as HttpError, RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks,
    WasiHttpView,
};

/// What the store of one plugin instance holds.
pub(crate) struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) output: Output,
    memory: MemoryGuard,
    http: WasiHttpCtx,
    net: NetGuard,
    /// The DuckDB query of a `duckdb-source-plugin` instance (made on first use).
    duckdb: Option<crate::host::duckdb::DuckdbState>,
    /// The DuckDB table of a `duckdb-sink-plugin` instance (made on first use).
    duckdb_write: Option<crate::host::duckdb_write::DuckdbWriteState>,
    /// The engine that answers DuckDB queries, when the runtime has one.
    duckdb_engine: Option<Arc<dyn crate::host::DuckdbEngine>>,
    sandbox: Sandbox,
}

/// Lets outgoing HTTP requests through to the granted `host:port` pairs only, and remembers
/// the first one it refused (the error the user sees names it).
pub(crate) struct NetGuard {
    granted: Vec<String>,
    pub(crate) refused: Arc<Mutex<Option<String>>>,
}

impl WasiHttpHooks for NetGuard {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<
        dyn Future<
                Output = Result<
                    (
                        http::Response<WasiBody>,
                        Box<dyn Future<Output = Result<(), HttpError>> + Send>,
                    ),
                    HttpError,
                >,
            > + Send,
    > {
        drop(fut);
        let uri = request.uri();
        let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
        let host = uri.host().unwrap_or_default().to_ascii_lowercase();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let asked = format!("{host}:{port}");
        if !self.granted.iter().any(|g| g.eq_ignore_ascii_case(&asked)) {
            if let Ok(mut refused) = self.refused.lock() {
                refused.get_or_insert(asked);
            }
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        Box::new(async move {
            use http_body_util::BodyExt;
            let (response, io) = wasmtime_wasi_http::default_send_request(request, options).await?;
            Ok((
                response.map(BodyExt::boxed_unsync),
                Box::new(io) as Box<dyn Future<Output = Result<(), HttpError>> + Send>,
            ))
        })
    }
}

/// Refuses linear memory beyond the limit and remembers that it did.
pub(crate) struct MemoryGuard {
    max_bytes: u64,
    pub(crate) refused: Option<u64>,
}

impl ResourceLimiter for MemoryGuard {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired as u64 > self.max_bytes {
            self.refused = Some(desired as u64);
            // An error (rather than `false`) traps at once, before the guest's allocator turns
            // the refusal into an abort with a less helpful message.
            return Err(wasmtime::format_err!("memory limit"));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

impl HostState {
    /// The sandbox for `plugin`: no environment, no network, no files but the grants.
    pub(crate) fn new(
        plugin: &Arc<str>,
        sandbox: &Sandbox,
        duckdb_engine: Option<Arc<dyn crate::host::DuckdbEngine>>,
    ) -> Result<Self> {
        let output = Output::new(plugin.clone(), sandbox.limits.max_output_bytes);
        let mut wasi = WasiCtxBuilder::new();
        wasi.stdout(output.stream(Channel::Stdout))
            .stderr(output.stream(Channel::Stderr))
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            // ldp calls plugins synchronously: file I/O on this thread, without a hop through
            // tokio's blocking pool for every read.
            .allow_blocking_current_thread(true);
        for (name, value) in &sandbox.grants.env {
            wasi.env(name, value);
        }
        let grant = |wasi: &mut WasiCtxBuilder, path: &std::path::Path, write: bool| {
            let guest = path.to_string_lossy().into_owned();
            let perms = if write {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            wasi.preopened_dir(path, guest, perms)
                .map(|_| ())
                .map_err(|e| RuntimeError::Grant {
                    plugin: plugin.to_string(),
                    path: path.to_path_buf(),
                    source: std::io::Error::other(format!("{e:#}")),
                })
        };
        for dir in &sandbox.grants.read_dirs {
            grant(&mut wasi, dir, false)?;
        }
        if let Some(dir) = &sandbox.grants.write_dir {
            grant(&mut wasi, dir, true)?;
        }
        Ok(Self {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            output,
            memory: MemoryGuard {
                max_bytes: sandbox.limits.max_memory_bytes,
                refused: None,
            },
            http: WasiHttpCtx::new(),
            net: NetGuard {
                granted: sandbox.grants.net.clone(),
                refused: Arc::new(Mutex::new(None)),
            },
            duckdb: None,
            duckdb_write: None,
            duckdb_engine,
            sandbox: sandbox.clone(),
        })
    }

    /// The instance's DuckDB state, made from its sandbox on first use.
    pub(crate) fn duckdb_mut(&mut self) -> &mut crate::host::duckdb::DuckdbState {
        let (sandbox, engine) = (&self.sandbox, &self.duckdb_engine);
        self.duckdb
            .get_or_insert_with(|| crate::host::duckdb::DuckdbState::new(sandbox, engine.clone()))
    }

    /// The instance's DuckDB table state, made from its sandbox on first use.
    pub(crate) fn duckdb_write_mut(&mut self) -> &mut crate::host::duckdb_write::DuckdbWriteState {
        let (sandbox, engine) = (&self.sandbox, &self.duckdb_engine);
        self.duckdb_write.get_or_insert_with(|| {
            crate::host::duckdb_write::DuckdbWriteState::new(sandbox, engine.clone())
        })
    }

    /// The first `host:port` the network guard refused, if it refused one.
    pub(crate) fn net_refused(&self) -> Option<String> {
        self.net.refused.lock().ok().and_then(|r| r.clone())
    }

    /// The memory size the guard refused, if it refused one.
    pub(crate) fn memory_refused(&self) -> Option<u64> {
        self.memory.refused
    }
}

/// Puts the limiter on a new store.
pub(crate) fn limit(store: &mut Store<HostState>) {
    store.limiter(|state| &mut state.memory);
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.net,
        }
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
