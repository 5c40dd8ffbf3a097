//! Attacks the time limit: `open` succeeds, then `next` spins forever.
//!
//! The host must bound the time of a call (epoch interruption or fuel): the run must end with an
//! error of kind `limit`, not hang.

use ldp_plugin_sdk::prelude::*;
use std::hint::black_box;
use std::sync::Arc;

struct HostileLoop;

impl Source for HostileLoop {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-loop", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: next never returns")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        Ok(Self)
    }

    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        // black_box keeps the optimizer from proving the loop has no effect.
        let mut counter = 0u64;
        loop {
            counter = black_box(counter.wrapping_add(1));
        }
    }
}

ldp_plugin_sdk::export_source!(HostileLoop);
