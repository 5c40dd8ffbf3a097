//! Attacks the memory limit: `next` allocates 64 MiB chunks, touches every page of each and
//! keeps them all, without bound.
//!
//! The host must cap a plugin's memory (1 GiB by default): growing past it must end the run with
//! an error of kind `limit`, never exhaust the host.

use ldp_plugin_sdk::prelude::*;
use std::hint::black_box;
use std::sync::Arc;

const CHUNK: usize = 64 << 20;
const PAGE: usize = 4096;

struct HostileAlloc {
    kept: Vec<Vec<u8>>,
}

impl Source for HostileAlloc {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-alloc", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: allocates memory without bound")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        Ok(Self { kept: Vec::new() })
    }

    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        loop {
            let mut chunk = vec![0u8; CHUNK];
            // One write per page, so the memory is really committed, not just reserved.
            for i in (0..CHUNK).step_by(PAGE) {
                chunk[i] = 1;
            }
            self.kept.push(black_box(chunk));
            eprintln!(
                "hostile-alloc: holding {} MiB",
                self.kept.len() * (CHUNK >> 20)
            );
        }
    }
}

ldp_plugin_sdk::export_source!(HostileAlloc);
