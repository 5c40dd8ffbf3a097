//! The Parquet source: streams a Parquet file, or a folder of Parquet files, as Arrow batches,
//! as the Python tool reads it with `pyarrow.parquet.read_table`.
//!
//! Config: `{"path": "/abs/file.parquet", "batch_size": 8192, "columns": ["a", "b"]}` (see
//! [`config`]). The host grants read access to the file's folder; the plugin reads it with
//! `std::fs`.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`read`]: opening, checking the footers, streaming row groups in bounded memory.
//!
//! Codecs: uncompressed, snappy, gzip, brotli, lz4 and lz4_raw. ZSTD is not built in (the
//! `zstd` crate binds C code that does not build for `wasm32-wasip2` without a WebAssembly C
//! toolchain): a file with a ZSTD column chunk to read fails when the source opens, with a
//! message that names the file, the column and the codec and says how to rewrite the file.

#![warn(missing_docs)]

pub mod config;
pub mod read;

use config::Config;
use ldp_plugin_sdk::prelude::*;
use read::ParquetReader;

/// The plugin: one open Parquet file or folder.
pub struct Parquet {
    reader: ParquetReader,
}

impl Source for Parquet {
    fn describe() -> PluginInfo {
        PluginInfo::new("parquet", env!("CARGO_PKG_VERSION"))
            .description("Reads a Parquet file (or a folder of them) row group by row group")
            .config_schema(config::SCHEMA)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        let reader =
            ParquetReader::open(&config.path, config.batch_size, config.columns.as_deref())?;
        Ok(Self { reader })
    }

    fn schema(&self) -> SchemaRef {
        self.reader.schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        self.reader.next_batch()
    }
}

ldp_plugin_sdk::export_source!(Parquet);

#[cfg(test)]
mod tests;
