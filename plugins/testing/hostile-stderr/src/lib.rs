//! Attacks the output cap: `next` writes 100 MB to stderr in 64 KiB writes (ignoring failed
//! writes), then ends the stream with `Ok(None)`.
//!
//! The host must cap what it keeps of a plugin's stderr (and stdout): the flood must neither fill
//! the host's memory or disk nor reach the user's terminal uncut.

use ldp_plugin_sdk::prelude::*;
use std::io::Write;
use std::sync::Arc;

const TOTAL: usize = 100_000_000;
const WRITE: usize = 64 << 10;

struct HostileStderr;

impl Source for HostileStderr {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-stderr", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: writes 100 MB to stderr")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        Ok(Self)
    }

    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        // 64-byte lines, 1024 to a write.
        let line = format!("{:<63}\n", "hostile-stderr: flooding stderr");
        let chunk = line.repeat(WRITE / line.len());
        let mut stderr = std::io::stderr();
        let mut written = 0;
        while written < TOTAL {
            // A failed write (the host capped the stream) does not stop the flood: the host must
            // cope with a plugin that ignores it.
            let _ = stderr.write_all(chunk.as_bytes());
            written += chunk.len();
        }
        Ok(None)
    }
}

ldp_plugin_sdk::export_source!(HostileStderr);
