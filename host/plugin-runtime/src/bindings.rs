//! Host bindings generated from `wit/plugin.wit`, one module per world.
//!
//! Everything generated stays in this module; the rest of the crate converts to and from its own
//! types. The `types` and `log` interfaces are generated once (in `source`) and shared.

/// The `source-plugin` world; also holds the shared `types` and `log` interfaces.
pub(crate) mod source {
    wasmtime::component::bindgen!({
        world: "source-plugin",
        path: "../../wit",
    });
}

/// The `transform-plugin` world.
pub(crate) mod transform {
    wasmtime::component::bindgen!({
        world: "transform-plugin",
        path: "../../wit",
        with: {
            "ldp:plugin/types": crate::bindings::source::ldp::plugin::types,
            "ldp:plugin/log": crate::bindings::source::ldp::plugin::log,
        },
    });
}

/// The `check-plugin` world.
pub(crate) mod check {
    wasmtime::component::bindgen!({
        world: "check-plugin",
        path: "../../wit",
        with: {
            "ldp:plugin/types": crate::bindings::source::ldp::plugin::types,
            "ldp:plugin/log": crate::bindings::source::ldp::plugin::log,
        },
    });
}

/// The `sink-plugin` world.
pub(crate) mod sink {
    wasmtime::component::bindgen!({
        world: "sink-plugin",
        path: "../../wit",
        with: {
            "ldp:plugin/types": crate::bindings::source::ldp::plugin::types,
            "ldp:plugin/log": crate::bindings::source::ldp::plugin::log,
        },
    });
}

pub(crate) use source::ldp::plugin::log as wit_log;
pub(crate) use source::ldp::plugin::types as wit;

/// The `duckdb-source-plugin` world: a source that imports the host's `duckdb` interface.
pub(crate) mod duckdb {
    wasmtime::component::bindgen!({
        world: "duckdb-source-plugin",
        path: "../../wit",
        with: {
            "ldp:plugin/types": crate::bindings::source::ldp::plugin::types,
            "ldp:plugin/log": crate::bindings::source::ldp::plugin::log,
        },
    });
}

pub(crate) use duckdb::ldp::plugin::duckdb as wit_duckdb;

/// The `duckdb-sink-plugin` world: a sink that imports the host's `duckdb-write` interface.
pub(crate) mod duckdb_sink {
    wasmtime::component::bindgen!({
        world: "duckdb-sink-plugin",
        path: "../../wit",
        with: {
            "ldp:plugin/types": crate::bindings::source::ldp::plugin::types,
            "ldp:plugin/log": crate::bindings::source::ldp::plugin::log,
        },
    });
}

pub(crate) use duckdb_sink::ldp::plugin::duckdb_write as wit_duckdb_write;
