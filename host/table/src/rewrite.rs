//! Copy-on-write, shared by the upsert and the window overwrite: reading one data file with a
//! mask of the rows to keep, writing the kept rows again when some rows go, and splitting the
//! base's manifests into those carried over unchanged and the entries deleted or kept as
//! `EXISTING`.
//!
//! A file is read once to work its masks out. Its batches are kept in memory meanwhile, up to a
//! budget; a file that loses rows is then written again without them, from memory, or by
//! reading it a second time when it was too large to keep. A file that loses no row stays as it
//! is.

use std::collections::HashSet;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::SchemaRef;
use arrow_select::filter::filter_record_batch;
use iceberg::spec::{ManifestEntry, ManifestFile};

use crate::error::{Error, Result};
use crate::schema::conform_batch;
use crate::table::Table;
use crate::writer::DataWriter;

/// Rows per batch when a data file is read.
const SCAN_BATCH_ROWS: usize = 64 * 1024;

/// Bytes of one file's batches kept in memory between working out its masks and writing the
/// kept rows; a larger file is read twice.
const BUFFER_BYTES: usize = 256 * 1024 * 1024;

/// One data file, read.
pub(crate) struct FileScan {
    uri: String,
    /// The rows to keep, batch by batch (`None`: every row of the batch).
    keep: Vec<Option<BooleanArray>>,
    /// The file's batches (conformed), when they fit in [`BUFFER_BYTES`].
    buffered: Option<Vec<RecordBatch>>,
    /// Rows that go (not kept).
    pub replaced: u64,
}

/// Reads the data file `uri` of `table`, its batches conformed to `target`; `select` gives the
/// rows of each batch to keep (`None`: all of them; a mask must hold no null).
pub(crate) fn scan_file(
    table: &Table,
    uri: &str,
    target: &SchemaRef,
    mut select: impl FnMut(&RecordBatch) -> Result<Option<BooleanArray>>,
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
        let keep = select(&batch)?.filter(|mask| {
            let gone = mask.len() - mask.true_count();
            scan.replaced += gone as u64;
            gone > 0
        });
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
    /// Writes the rows kept into `writer`; returns how many.
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

/// The base's data manifests split by the files a snapshot removes (`removed`, by path).
#[derive(Default)]
pub(crate) struct ManifestSplit {
    /// Entries of the removed files (to mark `DELETED`).
    pub deleted: Vec<ManifestEntry>,
    /// The other entries of manifests that list a removed file (carried over as `EXISTING`).
    pub existing: Vec<ManifestEntry>,
    /// Manifests that list no removed file (carried over unchanged).
    pub kept: Vec<ManifestFile>,
}

/// Splits the live data entries of the base, manifest by manifest (as
/// `Table::live_data_entries_by_manifest` gives them), by the files `removed`.
pub(crate) fn split_manifests(
    by_manifest: Vec<(ManifestFile, Vec<ManifestEntry>)>,
    removed: &HashSet<String>,
) -> ManifestSplit {
    let mut split = ManifestSplit::default();
    for (manifest, entries) in by_manifest {
        if !entries
            .iter()
            .any(|e| removed.contains(e.data_file.file_path()))
        {
            split.kept.push(manifest);
            continue;
        }
        for entry in entries {
            if removed.contains(entry.data_file.file_path()) {
                split.deleted.push(entry);
            } else {
                split.existing.push(entry);
            }
        }
    }
    split
}
