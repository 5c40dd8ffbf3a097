//! The `json-sink` plugin: the JSON file target. It writes the batches it is given to one
//! newline-delimited JSON file: one object per row, `\n` after each, every column a key in
//! column order, so that the `json` source reads the file back to the same rows and, where
//! JSON can tell them apart, the same types (see [`format`] for every type):
//!
//! - a null is `null` (the key is never left out, so every line lists the columns in order);
//! - integers are bare; a double always has a fraction or an exponent (`1.0`, `1.0e16`), so
//!   that a column of whole doubles comes back `double`, not `int64`; NaN and ±infinity have
//!   no JSON number and are written `null`;
//! - dates are `"YYYY-MM-DD"`, timestamps `"YYYY-MM-DD HH:MM:SS[.fff|.ffffff|.fffffffff]"`
//!   (the unit's fraction), with `Z` for UTC and `+HH:MM` for another zone, which the `json`
//!   source (like pyarrow) types as dates and timestamps;
//! - strings are JSON strings, binaries lowercase hex strings, lists arrays, structs and maps
//!   objects.
//!
//! Config: `{"path": "/abs/staging/name.jsonl"}` (see [`config`]). The host grants read-write
//! access to the staging folder only and moves the file into place once the sink closed
//! cleanly, so a reader never sees half a file; `close` reports the file's name relative to
//! that folder.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`format`]: the JSON of each type (arrow-json's writer, with dates, times and timestamps
//!   of our own);
//! - [`write`]: the file: rows, summary.

#![warn(missing_docs)]

pub mod config;
pub mod format;
pub mod write;

use ldp_plugin_sdk::prelude::*;
use write::JsonFile;

/// The plugin: one JSON file being written.
pub struct JsonSink {
    file: JsonFile,
}

impl Sink for JsonSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("json-sink", env!("CARGO_PKG_VERSION"))
            .description("Writes batches to a newline-delimited JSON file, one object per row")
            .config_schema(config::SCHEMA)
    }

    fn open_batches(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = config::parse(config)?;
        Ok(Self {
            file: JsonFile::create(&config.path, input)?,
        })
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        self.file.write_batch(batch)
    }

    fn close(self) -> Result<SinkSummary, PluginError> {
        self.file.close()
    }
}

ldp_plugin_sdk::export_sink!(JsonSink);

#[cfg(test)]
mod tests;
