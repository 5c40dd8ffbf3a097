//! The CSV source: streams one CSV file as Arrow batches, with the column types inferred as the
//! Python tool (pyarrow's CSV reader) infers them.
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`value`]: how one value is read (pyarrow's null markers, kinds and parsers);
//! - [`infer`]: type inference, as pyarrow infers;
//! - [`convert`]: a column of fields into an Arrow array;
//! - [`encoding`]: UTF-16, Latin-1 and Windows-1252 files decoded to UTF-8;
//! - [`read`]: opening, streaming in bounded memory, and error messages with line numbers;
//! - [`fast`]: the splitter of plain batches, faster than arrow-csv's in the sandbox;
//! - [`split`]: where the fields of such a batch lie;
//! - [`input`]: the file's bytes, buffered for both decoders;
//! - [`scan`]: a record scanner that splits records as arrow-csv does, for line numbers.

mod config;
mod convert;
mod encoding;
mod fast;
mod infer;
mod input;
mod read;
mod scan;
mod split;
mod value;

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

// Exported from the component only: a native build (the rlib of the fuzz targets, and the cdylib
// cargo builds beside it) has no component world, and its linker refuses the export names.
#[cfg(target_arch = "wasm32")]
ldp_plugin_sdk::export_source!(Csv);

#[cfg(test)]
mod tests;
