//! Writing one workbook: a sheet opened with the header row, rows written as they come to a
//! temporary file beside the workbook (rust_xlsxwriter's constant-memory mode, so memory does
//! not grow with the rows), and the `.xlsx` file assembled when the sink closes.

use crate::cell::{self, Cell, Style};
use crate::config::Config;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use ldp_plugin_sdk::{PluginError, SinkSummary};
use ldp_sink_text::Zone;
use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};
use std::collections::HashMap;
use std::path::Path;

/// The rows a sheet holds, the header's included.
pub const MAX_ROWS: u64 = 1_048_576;
/// The columns a sheet holds.
pub const MAX_COLUMNS: usize = 16_384;
/// The characters (UTF-16 units) a cell holds.
pub const MAX_CELL_CHARS: usize = 32_767;

/// An open workbook.
pub struct XlsxFile {
    workbook: Workbook,
    path: String,
    name: String,
    sheet: String,
    schema: SchemaRef,
    /// The zone of each zoned timestamp column (`None` for the other columns).
    zones: Vec<Option<Zone>>,
    formats: HashMap<Style, Format>,
    /// The next row to write, from 0.
    next_row: u64,
    /// Data rows written.
    rows: u64,
}

impl std::fmt::Debug for XlsxFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XlsxFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl XlsxFile {
    /// Checks that every column of `schema` can be written, then opens the workbook's sheet
    /// and writes the header row when the config asks for one.
    pub fn create(config: &Config, schema: SchemaRef) -> Result<Self, PluginError> {
        let path = config.path.clone();
        let name = ldp_sink_text::file_name(&path)?;
        let folder = Path::new(&path).parent().unwrap_or(Path::new("/"));
        if schema.fields().len() > MAX_COLUMNS {
            return Err(PluginError::data(format!(
                "{path}: {} columns do not fit a sheet, which holds at most {MAX_COLUMNS}; \
                 select fewer columns, or write CSV or PARQUET",
                schema.fields().len()
            )));
        }
        let zones = ldp_sink_text::column_zones(&path, &schema, "XLSX", cell::check_type)?;
        let mut workbook = Workbook::new();
        workbook.set_tempdir(folder).map_err(|e| {
            io(
                &path,
                "cannot write a temporary file beside the workbook",
                e,
            )
        })?;
        let sheet = workbook
            .add_worksheet_with_constant_memory()
            .map_err(|e| io(&path, "cannot open the sheet", e))?;
        sheet
            .set_name(&config.options.sheet)
            .map_err(|e| PluginError::config(format!("config.sheet: {e}")))?;
        let mut this = Self {
            workbook,
            path,
            name,
            sheet: config.options.sheet.clone(),
            schema,
            zones,
            formats: HashMap::new(),
            next_row: 0,
            rows: 0,
        };
        if config.options.header {
            let names: Vec<String> = this
                .schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            let row = this.take_row()?;
            let sheet = this.sheet_mut()?;
            for (column, name) in names.iter().enumerate() {
                sheet
                    .write_string(row, column_number(column), name)
                    .map_err(|e| PluginError::data(format!("column name {name:?}: {e}")))?;
            }
        }
        Ok(this)
    }

    fn sheet_mut(&mut self) -> Result<&mut Worksheet, PluginError> {
        self.workbook
            .worksheet_from_index(0)
            .map_err(|e| PluginError::internal(format!("{}: the sheet is gone: {e}", self.path)))
    }

    /// The next row's number; an error once the sheet is full.
    fn take_row(&mut self) -> Result<u32, PluginError> {
        if self.next_row >= MAX_ROWS {
            return Err(PluginError::data(format!(
                "{}: a sheet holds at most {MAX_ROWS} rows (the header's included) and the \
                 target has more; filter or aggregate the rows, or write CSV or PARQUET",
                self.path
            )));
        }
        let row = u32::try_from(self.next_row).unwrap_or(u32::MAX);
        self.next_row += 1;
        Ok(row)
    }

    /// Appends the rows of `batch`.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(PluginError::internal(format!(
                "{}: a batch of {} columns for a sheet of {}",
                self.path,
                batch.num_columns(),
                self.schema.fields().len()
            )));
        }
        let columns = batch
            .columns()
            .iter()
            .map(decoded)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PluginError::internal(format!("{}: {e}", self.path)))?;
        for index in 0..batch.num_rows() {
            let row = self.take_row()?;
            self.rows += 1;
            for (column, values) in columns.iter().enumerate() {
                if values.is_null(index) || *values.data_type() == DataType::Null {
                    continue;
                }
                let value = cell::cell(values.as_ref(), index, self.zones[column].as_ref());
                self.write_cell(row, column, value)?;
            }
        }
        Ok(())
    }

    fn write_cell(&mut self, row: u32, column: usize, value: Cell) -> Result<(), PluginError> {
        let at = column_number(column);
        let sheet = self
            .workbook
            .worksheet_from_index(0)
            .map_err(|e| PluginError::internal(format!("{}: the sheet is gone: {e}", self.path)))?;
        let result = match &value {
            Cell::Bool(flag) => sheet.write_boolean(row, at, *flag).map(drop),
            Cell::Text(text) => sheet.write_string(row, at, text).map(drop),
            Cell::Number(number, Style::General) => sheet.write_number(row, at, *number).map(drop),
            Cell::Number(number, style) => {
                let format = self
                    .formats
                    .entry(*style)
                    .or_insert_with(|| Format::new().set_num_format(style.number_format()));
                sheet
                    .write_number_with_format(row, at, *number, format)
                    .map(drop)
            }
        };
        let name = self.schema.field(column).name();
        result.map_err(|e| match (e, &value) {
            // rust_xlsxwriter checks the length, in UTF-16 units as Excel counts them.
            (XlsxError::MaxStringLengthExceeded, Cell::Text(text)) => PluginError::data(format!(
                "{}: column {name:?}, row {}: {} characters do not fit a cell, which holds at \
                 most {MAX_CELL_CHARS}; shorten the text with a transform, or write CSV or PARQUET",
                self.path,
                self.rows,
                text.encode_utf16().count()
            )),
            (e, _) => PluginError::data(format!(
                "{}: column {name:?}, row {}: {e}",
                self.path, self.rows
            )),
        })
    }

    /// Assembles the workbook and closes it: rows and bytes written, and the file's name
    /// (relative to its folder, the staging folder the host granted).
    pub fn close(mut self) -> Result<SinkSummary, PluginError> {
        self.workbook
            .save(&self.path)
            .map_err(|e| io(&self.path, "cannot write the workbook", e))?;
        let bytes = std::fs::metadata(&self.path)
            .map_err(|e| {
                PluginError::io(format!("{}: cannot read the written file: {e}", self.path))
            })?
            .len();
        ldp_plugin_sdk::info!(
            "wrote {} rows to sheet {:?} of {}",
            self.rows,
            self.sheet,
            self.name
        );
        Ok(SinkSummary {
            records: self.rows,
            bytes,
            files: vec![self.name],
        })
    }
}

fn io(path: &str, what: &str, e: XlsxError) -> PluginError {
    PluginError::io(format!("{path}: {what}: {e}"))
}

/// A column index as the sheet's column number (checked against [`MAX_COLUMNS`] on open).
fn column_number(column: usize) -> u16 {
    u16::try_from(column).unwrap_or(u16::MAX)
}

/// A column with its dictionary looked up.
fn decoded(column: &ArrayRef) -> Result<ArrayRef, arrow_schema::ArrowError> {
    match column.as_any_dictionary_opt() {
        None => Ok(column.clone()),
        Some(dictionary) => {
            let values =
                arrow_select::take::take(dictionary.values().as_ref(), dictionary.keys(), None)?;
            decoded(&values)
        }
    }
}
