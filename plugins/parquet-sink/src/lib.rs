//! The `parquet-sink` plugin: the Parquet file target. It writes the batches it is given to one
//! Parquet file, as the Python tool writes a Parquet target (`pyarrow.parquet.write_table` with
//! its defaults): snappy-compressed, dictionary-encoded where it pays, with statistics and the
//! Arrow schema embedded (`ARROW:schema`), so pyarrow reads back the same types.
//!
//! Config: `{"path": "/abs/staging/name.parquet", "row_group_size": 1048576, "compression":
//! "snappy"}` (see [`config`]). Batches are encoded as they arrive; a row group is flushed at
//! `row_group_size` rows or once its encoded data passes [`write::ROW_GROUP_BYTES`], so memory
//! holds at most one row group. The host grants read-write access to the staging folder only
//! and moves the file into place once the sink closed cleanly; `close` reports the file's name
//! relative to that folder.
//!
//! Codecs: snappy (the default), gzip, brotli, lz4 (`LZ4_RAW`) and none; zstd is not built in
//! (the `zstd` crate binds C code that does not build for `wasm32-wasip2` here).
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`write`]: the file.

#![warn(missing_docs)]

pub mod config;
pub mod write;

use config::Config;
use ldp_plugin_sdk::prelude::*;
use write::ParquetFile;

/// The plugin: one Parquet file being written.
pub struct ParquetSink {
    file: ParquetFile,
}

impl Sink for ParquetSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("parquet-sink", env!("CARGO_PKG_VERSION"))
            .description("Writes batches to a Parquet file (snappy, bounded row groups)")
            .config_schema(config::SCHEMA)
    }

    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        Ok(Self {
            file: ParquetFile::create(
                &config.path,
                input,
                config.row_group_size,
                config.compression,
            )?,
        })
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        self.file.write_batch(batch)
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        self.file.close()
    }
}

ldp_plugin_sdk::export_sink!(ParquetSink);

#[cfg(test)]
mod tests;
