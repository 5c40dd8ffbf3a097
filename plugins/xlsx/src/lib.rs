//! The XLSX source: reads one sheet of an `.xlsx` workbook and streams it as Arrow batches, with
//! the column types the Python tool (local-data-platform 0.1.3, openpyxl) gives them.
//!
//! Configuration: `{"path": "/abs/book.xlsx", "sheet": "Sales" | 0, "header_row": 1,
//! "batch_size": 8192}`. `sheet` is a name (case is ignored) or a position from 0, the first
//! sheet by default; `header_row` is the row of the column names, counted from 1, and the rows
//! above it are skipped.
//!
//! - Dates and datetimes are `timestamp[us]`, times of day `time64[us]`, whole numbers `int64`,
//!   other numbers `float64`, TRUE and FALSE `bool`, text `string`; a column that mixes kinds is
//!   `string`, and a warning names it.
//! - A formula cell gives the value Excel saved with it (empty if it was never calculated).
//! - Empty rows at the end of the sheet and empty columns at its right edge are dropped.
//! - A merged range gives its value to its first cell and nulls to the others.
//! - An old `.xls` file, a sheet that does not exist (the message lists the sheets), and an
//!   empty or repeated header cell fail with a message that names the file and the sheet.
//!
//! The modules:
//!
//! - [`config`]: the configuration and its JSON Schema;
//! - [`read`]: opening the workbook, choosing the sheet, reading its cells sparsely;
//! - [`cell`]: one cell's value and its texts;
//! - [`calendar`]: Excel's date serials, as openpyxl reads them;
//! - [`table`]: column names, column types and batches.
//!
//! calamine reads the sheet into memory (its cells, not the rectangle they span); the batches
//! are cut from it, and each value is moved into its batch, so the sheet's memory shrinks as it
//! streams.

#![warn(missing_docs)]

pub mod calendar;
pub mod cell;
pub mod config;
pub mod read;
pub mod table;

use config::Config;
use ldp_plugin_sdk::prelude::*;
use table::Table;

/// The plugin: one sheet, read and typed, giving its rows in batches.
pub struct XlsxSource {
    table: Table,
}

impl XlsxSource {
    /// Reads the sheet the configuration names. The warnings (columns read as text) are in
    /// [`Table::warnings`].
    pub fn read(config: &Config) -> Result<Table, PluginError> {
        let sheet = read::read_sheet(config)?;
        Table::new(sheet, config.header_row, config.batch_size)
    }
}

impl Source for XlsxSource {
    fn describe() -> PluginInfo {
        PluginInfo::new("xlsx", env!("CARGO_PKG_VERSION"))
            .description("Reads one sheet of an .xlsx workbook, typing columns like the reference")
            .config_schema(config::SCHEMA)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        let table = Self::read(&config)?;
        for warning in &table.warnings {
            ldp_plugin_sdk::warn!("{warning}");
        }
        ldp_plugin_sdk::info!(
            "Read {} rows and {} columns from Excel {}",
            table.num_rows(),
            table.schema().fields().len(),
            table.place
        );
        Ok(Self { table })
    }

    fn schema(&self) -> SchemaRef {
        self.table.schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        self.table.next_batch()
    }
}

ldp_plugin_sdk::export_source!(XlsxSource);

#[cfg(test)]
mod tests;
