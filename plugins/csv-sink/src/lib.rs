//! The `csv-sink` plugin: the CSV file target. It writes the batches it is given to one CSV
//! file, byte for byte as the Python tool writes a CSV target (`pyarrow.csv.write_csv` with its
//! default options): a header of quoted column names, `\n` line ends, strings always quoted,
//! numbers, booleans, dates and timestamps bare, nulls empty (see [`format`] for every type).
//!
//! Config: `{"path": "/abs/staging/name.csv"}` (see [`config`]). The host grants read-write
//! access to the staging folder only and moves the file into place once the sink closed
//! cleanly, so a reader never sees half a file; `close` reports the file's name relative to
//! that folder.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`format`]: the text of each value, as Arrow C++ writes it;
//! - [`write`]: the file: header, rows, summary.

#![warn(missing_docs)]

pub mod config;
pub mod format;
pub mod write;

use ldp_plugin_sdk::prelude::*;
use write::CsvFile;

/// The plugin: one CSV file being written.
pub struct CsvSink {
    file: CsvFile,
}

impl Sink for CsvSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("csv-sink", env!("CARGO_PKG_VERSION"))
            .description("Writes batches to a CSV file as pyarrow.csv.write_csv does")
            .config_schema(config::SCHEMA)
    }

    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = config::parse(config)?;
        Ok(Self {
            file: CsvFile::create(&config.path, input)?,
        })
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        self.file.write_batch(batch)
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        self.file.close()
    }
}

ldp_plugin_sdk::export_sink!(CsvSink);

#[cfg(test)]
mod tests;
