//! The `xlsx-sink` plugin: the XLSX file target. It writes the batches it is given to one sheet
//! of an `.xlsx` workbook: a header row of column names (unless `header` is false), then one
//! row per record, each value as the Excel type that holds it ([`cell`]: numbers, booleans,
//! text, dates and timestamps as dates).
//!
//! Config: `{"path": "/abs/staging/name.xlsx", "sheet": "Rides", "header": true}` (see
//! [`config`]). The host grants read-write access to the staging folder only and moves the
//! workbook into place once the sink closed cleanly, so a reader never sees half a file; rows
//! wait in a temporary file of that folder until then, so memory does not grow with them.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`cell`]: the cell of each value;
//! - [`write`]: the workbook: header, rows, limits, summary.

#![warn(missing_docs)]

pub mod cell;
pub mod config;
pub mod write;

use ldp_plugin_sdk::prelude::*;
use write::XlsxFile;

/// The plugin: one workbook being written.
#[derive(Debug)]
pub struct XlsxSink {
    file: XlsxFile,
}

impl Sink for XlsxSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("xlsx-sink", env!("CARGO_PKG_VERSION"))
            .description("Writes batches to one sheet of an .xlsx workbook, dates as dates")
            .config_schema(config::SCHEMA)
    }

    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = config::parse(config)?;
        Ok(Self {
            file: XlsxFile::create(&config, input)?,
        })
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        self.file.write_batch(batch)
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        self.file.close()
    }
}

ldp_plugin_sdk::export_sink!(XlsxSink);

#[cfg(test)]
mod tests;
