//! Attacks error reporting: `next` calls `exit(3)` (config `{}`), or returns an error whose
//! message is 20 MB long (config `{"attack": "error-flood"}`).
//!
//! The host must report the exit as the plugin's failure without a wasm backtrace, and carry
//! no more than a few KiB of a plugin's own text into its error.

use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

struct HostileExit {
    flood: bool,
}

impl Source for HostileExit {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-exit", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: next calls exit(3), or returns a 20 MB error")
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        Ok(Self {
            flood: config.contains("error-flood"),
        })
    }

    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.flood {
            return Err(PluginError::data("x".repeat(20 << 20)));
        }
        std::process::exit(3);
    }
}

ldp_plugin_sdk::export_source!(HostileExit);
