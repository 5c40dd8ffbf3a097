//! Attacks error handling: `next` panics, which traps the component.
//!
//! The host must turn the trap into an error for this run (with the panic message, the last
//! stderr line), drop the instance and call nothing else on it.

use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

struct HostileTrap;

impl Source for HostileTrap {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-trap", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: next panics")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        Ok(Self)
    }

    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        panic!("hostile-trap: deliberate panic");
    }
}

ldp_plugin_sdk::export_source!(HostileTrap);
