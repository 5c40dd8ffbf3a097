//! The CSV source: streams one CSV file as Arrow batches, with the column types inferred as the
//! reference (pyarrow's CSV reader) infers them.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`infer`]: type inference (arrow-csv's, mapped to the reference's types);
//! - [`classify`]: arrow-csv's classification of values, without its regexes;
//! - [`read`]: opening, streaming in bounded memory, and error messages with line numbers;
//! - [`fast`]: the decoder of plain batches, faster than arrow-csv's in the sandbox;
//! - [`split`]: where the fields of such a batch lie;
//! - [`input`]: the file's bytes, buffered for both decoders;
//! - [`scan`]: a record scanner that splits records as arrow-csv does, for line numbers.

mod classify;
mod config;
mod fast;
mod infer;
mod input;
mod read;
mod scan;
mod split;
mod timestamp;

use config::Config;
use ldp_plugin_sdk::prelude::*;
use read::CsvReader;

/// The plugin: one open CSV file.
pub struct Csv {
    reader: CsvReader,
}

impl Source for Csv {
    fn describe() -> PluginInfo {
        PluginInfo::new("csv", env!("CARGO_PKG_VERSION"))
            .description("Reads a CSV file, inferring column types like pyarrow")
            .config_schema(config::SCHEMA)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        let reader = CsvReader::open(config)?;
        #[cfg(target_arch = "wasm32")]
        ldp_plugin_sdk::debug!("csv schema: {}", reader.schema());
        Ok(Self { reader })
    }

    fn schema(&self) -> SchemaRef {
        self.reader.schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        self.reader.next_batch()
    }
}

ldp_plugin_sdk::export_source!(Csv);

#[cfg(test)]
mod tests;
