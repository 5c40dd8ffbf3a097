//! One sandboxed instance of a plugin and the guard around every call into it. Each instance is
//! the span `ldp.plugin` from its start to its drop, with its calls, the rows and bytes it took
//! and gave, and its error as attributes.

use crate::bindings::wit;
use crate::error::Limit;
use crate::limits::Sandbox;
use crate::plugin::Plugin;
use crate::runtime::EPOCH_TICK;
use crate::sandbox::{self, HostState};
use crate::{ErrorKind, Result, RuntimeError};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::{Store, Trap};

/// A plugin instance: its store, its exports (`W`, the world's generated bindings) and its
/// limits. After a failed call the instance is poisoned and refuses further calls.
pub(crate) struct Instance<W> {
    store: Store<HostState>,
    world: W,
    plugin: Arc<str>,
    sandbox: Sandbox,
    poisoned: bool,
    span: tracing::Span,
    traffic: Traffic,
}

/// What crossed the boundary of one instance.
#[derive(Debug, Default)]
struct Traffic {
    calls: u64,
    rows_in: u64,
    bytes_in: u64,
    rows_out: u64,
    bytes_out: u64,
}

impl<W> Instance<W> {
    pub(crate) fn new(
        plugin: &Plugin,
        sandbox: &Sandbox,
        instantiate: impl FnOnce(&mut Store<HostState>) -> wasmtime::Result<W>,
    ) -> Result<Self> {
        let name: Arc<str> = Arc::from(plugin.name());
        let span = tracing::info_span!(
            "ldp.plugin",
            "ldp.plugin" = %name,
            "ldp.plugin_kind" = %plugin.kind(),
            "ldp.calls" = tracing::field::Empty,
            "ldp.rows_in" = tracing::field::Empty,
            "ldp.bytes_in" = tracing::field::Empty,
            "ldp.rows_out" = tracing::field::Empty,
            "ldp.bytes_out" = tracing::field::Empty,
            "otel.status_code" = tracing::field::Empty,
            "otel.status_message" = tracing::field::Empty,
        );
        let inner = &plugin.runtime.inner;
        let state = HostState::new(&name, sandbox, inner.duckdb.clone())?;
        let mut store = Store::new(&inner.engine, state);
        sandbox::limit(&mut store);
        set_deadline(&mut store, sandbox.limits.call_timeout);
        let world = match instantiate(&mut store) {
            Ok(world) => world,
            Err(e) => {
                let error = classify(&name, sandbox, &store, e);
                span.record("otel.status_code", "ERROR");
                span.record("otel.status_message", error.to_string().as_str());
                return Err(error);
            }
        };
        Ok(Self {
            store,
            world,
            plugin: name,
            sandbox: sandbox.clone(),
            poisoned: false,
            span,
            traffic: Traffic::default(),
        })
    }

    /// Counts a batch of `rows` sent to the plugin as `bytes` of Arrow IPC.
    pub(crate) fn sent(&mut self, rows: usize, bytes: usize) {
        self.traffic.rows_in += rows as u64;
        self.traffic.bytes_in += bytes as u64;
    }

    /// Counts a batch of `rows` the plugin gave as `bytes` of Arrow IPC.
    pub(crate) fn received(&mut self, rows: usize, bytes: usize) {
        self.traffic.rows_out += rows as u64;
        self.traffic.bytes_out += bytes as u64;
    }

    /// The plugin's name.
    pub(crate) fn plugin(&self) -> &Arc<str> {
        &self.plugin
    }

    /// Calls a fallible export: a trap, a broken limit or the plugin's own error become a
    /// [`RuntimeError`] that names the plugin.
    pub(crate) fn call<R>(
        &mut self,
        f: impl FnOnce(&W, &mut Store<HostState>) -> wasmtime::Result<Result<R, wit::PluginError>>,
    ) -> Result<R> {
        let result = self.call_unrecorded(f);
        if let Err(e) = &result {
            self.span.record("otel.status_code", "ERROR");
            self.span
                .record("otel.status_message", e.to_string().as_str());
        }
        result
    }

    fn call_unrecorded<R>(
        &mut self,
        f: impl FnOnce(&W, &mut Store<HostState>) -> wasmtime::Result<Result<R, wit::PluginError>>,
    ) -> Result<R> {
        match self.call_infallible(f)? {
            Ok(value) => Ok(value),
            Err(_) if self.store.data().net_refused().is_some() => {
                // The plugin's own error follows from the refused request: name the request.
                self.poisoned = true;
                Err(RuntimeError::Limit {
                    plugin: self.plugin.to_string(),
                    limit: Limit::Network {
                        asked: self.store.data().net_refused().unwrap_or_default(),
                        granted: self.sandbox.grants.net.clone(),
                    },
                })
            }
            Err(e) => {
                self.poisoned = true;
                Err(RuntimeError::Plugin {
                    plugin: self.plugin.to_string(),
                    kind: match e.kind {
                        wit::ErrorKind::Config => ErrorKind::Config,
                        wit::ErrorKind::Data => ErrorKind::Data,
                        wit::ErrorKind::Io => ErrorKind::Io,
                        wit::ErrorKind::Limit => ErrorKind::Limit,
                        wit::ErrorKind::Internal => ErrorKind::Internal,
                    },
                    message: crate::error::capped(e.message),
                })
            }
        }
    }

    /// Calls an export that cannot return an error of its own.
    pub(crate) fn call_infallible<R>(
        &mut self,
        f: impl FnOnce(&W, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R> {
        if self.poisoned {
            return Err(self.contract("it was called again after it failed"));
        }
        self.traffic.calls += 1;
        set_deadline(&mut self.store, self.sandbox.limits.call_timeout);
        let result = f(&self.world, &mut self.store);
        // The log import cannot trap: an output budget broken through it shows here.
        let result = match result {
            Ok(_) if self.store.data().output.exceeded() => {
                Err(wasmtime::format_err!("output limit"))
            }
            other => other,
        };
        result.map_err(|e| {
            self.poisoned = true;
            classify(&self.plugin, &self.sandbox, &self.store, e)
        })
    }

    /// An error for a plugin that broke the contract; poisons the instance.
    pub(crate) fn contract(&mut self, message: impl Into<String>) -> RuntimeError {
        self.poisoned = true;
        RuntimeError::Contract {
            plugin: self.plugin.to_string(),
            message: message.into(),
        }
    }
}

impl<W> Drop for Instance<W> {
    /// Closes the span with what crossed the boundary.
    fn drop(&mut self) {
        if self.span.is_disabled() {
            return;
        }
        // As i64: OpenTelemetry's integers are signed, and a u64 would reach it as text.
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let t = &self.traffic;
        self.span.record("ldp.calls", count(t.calls));
        self.span.record("ldp.rows_in", count(t.rows_in));
        self.span.record("ldp.bytes_in", count(t.bytes_in));
        self.span.record("ldp.rows_out", count(t.rows_out));
        self.span.record("ldp.bytes_out", count(t.bytes_out));
    }
}

fn set_deadline(store: &mut Store<HostState>, timeout: Duration) {
    let ticks = timeout.as_nanos().div_ceil(EPOCH_TICK.as_nanos()) + 1;
    store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
}

/// The chain of `e`'s messages (`context: cause`) without wasmtime's wasm backtrace.
fn without_backtrace(e: &wasmtime::Error) -> String {
    let backtrace = e
        .downcast_ref::<wasmtime::WasmBacktrace>()
        .map(ToString::to_string);
    let parts: Vec<String> = e
        .chain()
        .map(ToString::to_string)
        .filter(|part| Some(part) != backtrace.as_ref())
        .collect();
    parts.join(": ")
}

/// Turns a failed call into the error the user sees: a broken limit, or a trap with the
/// plugin's last line of stderr (a Rust panic message lands there).
fn classify(
    plugin: &Arc<str>,
    sandbox: &Sandbox,
    store: &Store<HostState>,
    e: wasmtime::Error,
) -> RuntimeError {
    let state = store.data();
    let limit = if let Some(asked) = state.net_refused() {
        Some(Limit::Network {
            asked,
            granted: sandbox.grants.net.clone(),
        })
    } else if state.output.exceeded() {
        Some(Limit::Output {
            max_bytes: sandbox.limits.max_output_bytes,
        })
    } else if let Some(requested_bytes) = state.memory_refused() {
        Some(Limit::Memory {
            max_bytes: sandbox.limits.max_memory_bytes,
            requested_bytes,
        })
    } else if matches!(e.downcast_ref::<Trap>(), Some(Trap::Interrupt)) {
        Some(Limit::Time {
            max: sandbox.limits.call_timeout,
        })
    } else {
        None
    };
    if let Some(limit) = limit {
        return RuntimeError::Limit {
            plugin: plugin.to_string(),
            limit,
        };
    }
    // The trap or exit alone: wasmtime's wasm backtrace is for the plugin's author, who gets
    // it with RUST_LOG=debug, not for the user of the run.
    tracing::debug!("plugin '{plugin}' failed: {e:?}");
    // WASI's exit carries only success or failure, so the plugin's own code is not known.
    let what = if e.downcast_ref::<wasmtime_wasi::I32Exit>().is_some() {
        "it called exit() instead of returning an error, so it said nothing of why".to_string()
    } else if let Some(trap) = e.downcast_ref::<Trap>() {
        trap.to_string()
    } else {
        without_backtrace(&e)
    };
    let message = match state.output.last_words() {
        Some(words) => format!("{what}; on stderr it said: {}", crate::error::capped(words)),
        None => what,
    };
    RuntimeError::Trap {
        plugin: plugin.to_string(),
        message,
    }
}
