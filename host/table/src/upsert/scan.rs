//! Reading one data file that may hold keys of an upsert batch: which of its rows the batch
//! replaces, and writing the others again when it has any.
//!
//! A file is read once to find its rows whose key is in the batch and whose values differ (the
//! rows the batch replaces). Its batches are kept in memory meanwhile, up to a budget; a file
//! that holds such rows is then written again without them, from memory, or by reading it a
//! second time when it was too large to keep. A file without such rows stays as it is.

use arrow_array::{BooleanArray, RecordBatch, UInt32Array};
use arrow_schema::SchemaRef;
use arrow_select::filter::filter_record_batch;
use arrow_select::take::take_record_batch;

use super::keys::KeyIndex;
use crate::error::{Error, Result};
use crate::schema::conform_batch;
use crate::table::Table;
use crate::writer::DataWriter;

/// Rows per batch when a data file is read.
const SCAN_BATCH_ROWS: usize = 64 * 1024;

/// Bytes of one file's batches kept in memory between finding its replaced rows and writing the
/// others; a larger file is read twice.
const BUFFER_BYTES: usize = 256 * 1024 * 1024;

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

/// One data file, read.
pub(crate) struct FileScan {
    uri: String,
    /// The rows to keep, batch by batch (`None`: every row of the batch).
    keep: Vec<Option<BooleanArray>>,
    /// The file's batches (conformed), when they fit in [`BUFFER_BYTES`].
    buffered: Option<Vec<RecordBatch>>,
    /// Rows the batch replaces.
    pub replaced: u64,
}

/// Reads the data file `uri` of `table`, marking in `found` (one entry per batch row) what it
/// holds of each key.
pub(crate) fn scan_file(
    table: &Table,
    uri: &str,
    index: &KeyIndex,
    join_cols: &[String],
    target: &SchemaRef,
    found: &mut [Found],
) -> Result<FileScan> {
    let identifier = table.identifier();
    let mut scan = FileScan {
        uri: uri.to_string(),
        keep: Vec::new(),
        buffered: Some(Vec::new()),
        replaced: 0,
    };
    let mut buffered_bytes = 0usize;
    for raw in table.read_data_file(uri, Some(SCAN_BATCH_ROWS))? {
        let batch = conform_batch(identifier, &raw?, target)?;
        let keys = index.encode_keys(identifier, &batch, join_cols)?;
        let mut file_rows = Vec::new();
        let mut batch_rows = Vec::new();
        for (row, key) in keys.iter().enumerate() {
            if let Some(at) = index.find(key.as_ref()) {
                file_rows.push(row as u32);
                batch_rows.push(at);
            }
        }
        let mut keep = None;
        if !file_rows.is_empty() {
            let matched = take_record_batch(&batch, &UInt32Array::from(file_rows.clone()))
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
                    scan.replaced += 1;
                }
            }
            keep = bits.map(BooleanArray::from);
        }
        scan.keep.push(keep);
        if let Some(buffer) = scan.buffered.as_mut() {
            buffered_bytes += batch.get_array_memory_size();
            if buffered_bytes > BUFFER_BYTES {
                scan.buffered = None;
            } else {
                buffer.push(batch);
            }
        }
    }
    Ok(scan)
}

impl FileScan {
    /// Writes the rows the batch does not replace into `writer`; returns how many.
    pub(crate) fn rewrite(
        self,
        table: &Table,
        target: &SchemaRef,
        writer: &mut DataWriter,
    ) -> Result<u64> {
        let identifier = table.identifier();
        let mut kept = 0u64;
        let mut write = |batch: RecordBatch, keep: Option<&BooleanArray>| -> Result<()> {
            let rows = match keep {
                Some(mask) => filter_record_batch(&batch, mask).map_err(|e| {
                    Error::schema(identifier, format!("cannot rewrite {}: {e}", self.uri))
                })?,
                None => batch,
            };
            kept += rows.num_rows() as u64;
            writer.write(&rows)
        };
        match self.buffered {
            Some(batches) => {
                for (batch, keep) in batches.into_iter().zip(&self.keep) {
                    write(batch, keep.as_ref())?;
                }
            }
            None => {
                let mut masks = self.keep.iter();
                for raw in table.read_data_file(&self.uri, Some(SCAN_BATCH_ROWS))? {
                    let batch = conform_batch(identifier, &raw?, target)?;
                    let keep = masks.next().ok_or_else(|| {
                        Error::corrupt(
                            identifier,
                            format!("{} gave more rows on its second read", self.uri),
                        )
                    })?;
                    write(batch, keep.as_ref())?;
                }
            }
        }
        Ok(kept)
    }
}
