//! From the cells of a sheet to a table: the column names, the type of each column, and the
//! batches.
//!
//! | The cells hold | The column is |
//! |---|---|
//! | only whole numbers (that fit) | `int64` |
//! | numbers, some not whole | `float64` |
//! | only dates and datetimes | `timestamp[us]`, no time zone |
//! | only times of day | `time64[us]` |
//! | only TRUE and FALSE | `bool` |
//! | only text, only durations, or nothing at all | `string` |
//! | more than one of those | `string`, and a warning names the column |

use crate::calendar::MICROS_PER_DAY;
use crate::cell::{self, Value, kind};
use crate::read::{SheetCells, cell_name};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, Time64MicrosecondBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use ldp_plugin_sdk::PluginError;
use ldp_pyrepr::repr_str;
use std::collections::HashMap;
use std::sync::Arc;

/// The Arrow type a column is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Bool,
    Int,
    Float,
    Text,
    Timestamp,
    Time,
}

impl Type {
    fn arrow(self) -> DataType {
        match self {
            Type::Bool => DataType::Boolean,
            Type::Int => DataType::Int64,
            Type::Float => DataType::Float64,
            Type::Text => DataType::Utf8,
            Type::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            Type::Time => DataType::Time64(TimeUnit::Microsecond),
        }
    }
}

/// One column: its cells (consumed as batches are built) and its type.
#[derive(Debug)]
struct Column {
    cells: Vec<(u32, Value)>,
    /// The first cell not yet in a batch.
    next: usize,
    ty: Type,
}

/// A sheet read as a table, giving its rows in batches.
#[derive(Debug)]
pub struct Table {
    schema: SchemaRef,
    columns: Vec<Column>,
    /// The next data row to give (0-based sheet row).
    next_row: u32,
    /// One past the last data row.
    end_row: u32,
    batch_size: u32,
    /// `"/path/book.xlsx (sheet 'Sales')"`: how messages name the sheet.
    pub place: String,
    /// The warnings to log: one for each column that mixes kinds of cells.
    pub warnings: Vec<String>,
}

impl Table {
    /// Names and types the columns of a sheet. `header_row` is counted from 1, as configured.
    pub fn new(sheet: SheetCells, header_row: u64, batch_size: usize) -> Result<Self, PluginError> {
        let place = &sheet.place;
        if !sheet.has_rows {
            return Err(PluginError::data(format!(
                "{place}: the sheet has no row {header_row}, so there is no header to read"
            )));
        }
        // The last column that has a name or data; empty columns at the right are dropped.
        let width = (0..sheet.header.len().max(sheet.columns.len()))
            .rev()
            .find(|&i| {
                sheet
                    .header
                    .get(i)
                    .is_some_and(|h| h.as_ref().is_some_and(|v| !v.is_blank()))
                    || sheet.columns.get(i).is_some_and(|c| !c.is_empty())
            })
            .map(|i| i + 1)
            .ok_or_else(|| {
                PluginError::data(format!(
                    "{place}: row {header_row}, the header row, is empty"
                ))
            })?;
        let names = names(&sheet, width)?;
        // Empty rows at the end are dropped: the data ends at the last cell with a value.
        let end_row = sheet
            .columns
            .iter()
            .filter_map(|c| c.last().map(|(row, _)| row + 1))
            .max()
            .unwrap_or(sheet.header_row + 1);
        let mut warnings = Vec::new();
        let mut fields = Vec::with_capacity(width);
        let mut cells_by_column = sheet.columns.into_iter();
        let mut columns = Vec::with_capacity(width);
        for name in names {
            let cells = cells_by_column.next().unwrap_or_default();
            let ty = column_type(&cells, &name, &sheet.place, &mut warnings);
            fields.push(Field::new(name, ty.arrow(), true));
            columns.push(Column { cells, next: 0, ty });
        }
        Ok(Self {
            schema: Arc::new(Schema::new(fields)),
            columns,
            next_row: sheet.header_row.saturating_add(1),
            end_row,
            batch_size: u32::try_from(batch_size).unwrap_or(u32::MAX),
            place: sheet.place,
            warnings,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The number of data rows.
    pub fn num_rows(&self) -> usize {
        self.end_row.saturating_sub(self.next_row) as usize
    }

    /// The next batch of up to `batch_size` rows, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.next_row >= self.end_row {
            return Ok(None);
        }
        let start = self.next_row;
        let end = start.saturating_add(self.batch_size).min(self.end_row);
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|column| column.build(start, end))
            .collect();
        self.next_row = end;
        let options =
            arrow_array::RecordBatchOptions::new().with_row_count(Some((end - start) as usize));
        Ok(Some(RecordBatch::try_new_with_options(
            self.schema.clone(),
            arrays,
            &options,
        )?))
    }
}

/// The column names: every header cell up to `width` must have one, and no two may be the same
/// whatever the case.
fn names(sheet: &SheetCells, width: usize) -> Result<Vec<String>, PluginError> {
    let place = &sheet.place;
    let mut names = Vec::with_capacity(width);
    let mut seen: HashMap<String, String> = HashMap::with_capacity(width);
    for col in 0..width {
        let position = cell_name(sheet.header_row, col as u32);
        let name = match sheet.header.get(col) {
            Some(Some(value)) if !value.is_blank() => cell::squeeze_spaces(&value.header_text()),
            _ => {
                return Err(PluginError::data(format!(
                    "{place}: the header cell {position} is empty; every column up to the last \
                     one that has data needs a name"
                )));
            }
        };
        if let Some(first) = seen.get(&cell::casefold(&name)) {
            return Err(PluginError::data(format!(
                "{place}: the header {} is in both {first} and {position}; every column needs \
                 its own name, whatever the case",
                repr_str(&name)
            )));
        }
        seen.insert(cell::casefold(&name), position);
        names.push(name);
    }
    Ok(names)
}

/// The type of a column: the one that fits all of its cells, or text when they do not agree
/// (with a warning that names the column).
fn column_type(
    cells: &[(u32, Value)],
    name: &str,
    place: &str,
    warnings: &mut Vec<String>,
) -> Type {
    let mut kinds = 0u8;
    let mut all_whole = true;
    for (_, value) in cells {
        kinds |= value.kind();
        if let Value::Number(n) = value {
            all_whole &= cell::is_whole(*n);
        }
    }
    match kinds {
        kind::BOOL => Type::Bool,
        kind::DATE => Type::Timestamp,
        kind::TIME => Type::Time,
        kind::NUMBER if all_whole => Type::Int,
        kind::NUMBER => Type::Float,
        0 | kind::TEXT | kind::OTHER => Type::Text,
        mixed => {
            warnings.push(format!(
                "{place}: column {} holds {}, so it is read as text",
                repr_str(name),
                kind::describe(mixed)
            ));
            Type::Text
        }
    }
}

impl Column {
    /// The array of rows `start..end`, taking the values out of the column.
    fn build(&mut self, start: u32, end: u32) -> ArrayRef {
        let rows = (end - start) as usize;
        let cells = &mut self.cells;
        let mut next = self.next;
        // The value of each row in turn, `None` for an empty cell.
        let values = (start..end).map(move |row| match cells.get_mut(next) {
            Some((at, value)) if *at == row => {
                next += 1;
                Some(std::mem::replace(value, Value::Bool(false)))
            }
            _ => None,
        });
        let array: ArrayRef = match self.ty {
            Type::Bool => {
                let mut b = BooleanBuilder::with_capacity(rows);
                values.for_each(|v| {
                    b.append_option(match v {
                        Some(Value::Bool(x)) => Some(x),
                        _ => None,
                    })
                });
                Arc::new(b.finish())
            }
            Type::Int => {
                let mut b = Int64Builder::with_capacity(rows);
                values.for_each(|v| {
                    b.append_option(match v {
                        Some(Value::Number(n)) => Some(n as i64),
                        _ => None,
                    })
                });
                Arc::new(b.finish())
            }
            Type::Float => {
                let mut b = Float64Builder::with_capacity(rows);
                values.for_each(|v| {
                    b.append_option(match v {
                        Some(Value::Number(n)) => Some(n),
                        _ => None,
                    })
                });
                Arc::new(b.finish())
            }
            Type::Timestamp => {
                let mut b = TimestampMicrosecondBuilder::with_capacity(rows);
                values.for_each(|v| {
                    b.append_option(match v {
                        Some(Value::DateTime(us)) => Some(us),
                        Some(Value::Date(days)) => Some(days * MICROS_PER_DAY),
                        _ => None,
                    })
                });
                Arc::new(b.finish())
            }
            Type::Time => {
                let mut b = Time64MicrosecondBuilder::with_capacity(rows);
                values.for_each(|v| {
                    b.append_option(match v {
                        Some(Value::Time(us)) => Some(us),
                        _ => None,
                    })
                });
                Arc::new(b.finish())
            }
            Type::Text => {
                let mut b = StringBuilder::with_capacity(rows, rows * 8);
                values.for_each(|v| b.append_option(v.map(Value::into_text)));
                Arc::new(b.finish())
            }
        };
        // Where the next batch starts: past every cell of this one.
        self.next += self.cells[self.next..]
            .iter()
            .take_while(|(row, _)| *row < end)
            .count();
        array
    }
}
