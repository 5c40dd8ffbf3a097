//! Reading one data file that may hold keys of an upsert batch: which of its rows the batch
//! replaces. The reading, buffering and writing again of the rows kept is
//! [`crate::rewrite`]'s copy-on-write, shared with the window overwrite.

use arrow_array::{BooleanArray, UInt32Array};
use arrow_schema::SchemaRef;
use arrow_select::take::take_record_batch;

use super::keys::KeyIndex;
use crate::error::{Error, Result};
use crate::rewrite::FileScan;
use crate::table::Table;

/// What the table holds of a batch row's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Found {
    /// No row with the key: the batch row is inserted.
    Nothing,
    /// A row with the key and the same values: nothing to do.
    Same,
    /// A row with the key and other values: the batch row replaces it.
    Changed,
}

/// Reads the data file `uri` of `table`, marking in `found` (one entry per batch row) what it
/// holds of each key; the rows the batch replaces are the ones the scan does not keep.
pub(crate) fn scan_file(
    table: &Table,
    uri: &str,
    index: &KeyIndex,
    join_cols: &[String],
    target: &SchemaRef,
    found: &mut [Found],
) -> Result<FileScan> {
    let identifier = table.identifier();
    crate::rewrite::scan_file(table, uri, target, |batch| {
        let keys = index.encode_keys(identifier, batch, join_cols)?;
        let mut file_rows = Vec::new();
        let mut batch_rows = Vec::new();
        for (row, key) in keys.iter().enumerate() {
            if let Some(at) = index.find(key.as_ref()) {
                file_rows.push(row as u32);
                batch_rows.push(at);
            }
        }
        if file_rows.is_empty() {
            return Ok(None);
        }
        let matched = take_record_batch(batch, &UInt32Array::from(file_rows.clone()))
            .map_err(|e| Error::schema(identifier, format!("cannot read {uri}: {e}")))?;
        let values = index.encode_values(identifier, &matched, join_cols)?;
        let mut bits: Option<Vec<bool>> = None;
        for (j, (&row, &at)) in file_rows.iter().zip(&batch_rows).enumerate() {
            if index.same_values(at, values.row(j).as_ref()) {
                found[at] = found[at].max(Found::Same);
            } else {
                found[at] = Found::Changed;
                let bits = bits.get_or_insert_with(|| vec![true; batch.num_rows()]);
                bits[row as usize] = false;
            }
        }
        Ok(bits.map(BooleanArray::from))
    })
}
