//! The JSON source: streams a JSON file as Arrow batches. Two layouts are read:
//! newline-delimited JSON (`.jsonl`, `.ndjson`, or any file whose first non-blank character is
//! not `[`), one object per line, and a top-level array of objects.
//!
//! Column types are inferred as `pyarrow.json.read_json` infers them, from every record by
//! default: integers `int64`, other numbers `double` (a column of both is `double`), `bool`,
//! `string` (with dates and date-times typed as the CSV source types them), nested objects as
//! structs, arrays as lists; a key missing from a record is null there. See [`infer`].
//!
//! Config: `{"path": "/abs/data.jsonl", "batch_size": 8192, "infer_rows": "all"}` (see
//! [`config`]). The host grants read access to the file's folder.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`scan`]: splitting the file into records, with their lines and columns;
//! - [`infer`]: the types of the columns;
//! - [`read`]: decoding batches with arrow-json, and errors that name the line and column.

#![warn(missing_docs)]

pub mod config;
pub mod infer;
pub mod read;
pub mod scan;

use config::Config;
use ldp_plugin_sdk::prelude::*;
use read::JsonReader;

/// The plugin: one open JSON file.
pub struct Json {
    reader: JsonReader,
}

impl Source for Json {
    fn describe() -> PluginInfo {
        PluginInfo::new("json", env!("CARGO_PKG_VERSION"))
            .description(
                "Reads newline-delimited JSON or an array of objects, inferring types like pyarrow",
            )
            .config_schema(config::SCHEMA)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        Ok(Self {
            reader: JsonReader::open(&config)?,
        })
    }

    fn schema(&self) -> SchemaRef {
        self.reader.schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        self.reader.next_batch()
    }
}

// Exported from the component only: a native build (the rlib of the fuzz targets, and the cdylib
// cargo builds beside it) has no component world, and its linker refuses the export names.
#[cfg(target_arch = "wasm32")]
ldp_plugin_sdk::export_source!(Json);

#[cfg(test)]
mod tests;
