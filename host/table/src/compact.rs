//! Compaction (`ldp maintain --compact`): the small data files of each partition rewritten into
//! files near a target size, optionally sorted, in one `replace` snapshot that readers see
//! whole.
//!
//! * A **small file** is a live data file of the default partition spec smaller than
//!   [`SMALL_FILE_FRACTION`] of the target size. A partition with at least two small files has
//!   them rewritten, read one batch at a time, into files that roll over at the target size.
//!   Files of older partition specs and files near the target size stay as they are. Files are
//!   read oldest first, so the rows keep the order they were written in.
//! * With `sort_by`, every file of a partition with more than one file is rewritten, its rows
//!   sorted by the columns (ascending, nulls first) within each [`SORT_BUFFER_BYTES`] of rows:
//!   a partition larger than that is sorted chunk by chunk.
//! * The snapshot marks the rewritten files `DELETED`, adds the new ones, and carries every
//!   other live entry of the default spec over into **one** manifest: the manifest list shrinks
//!   back to a few manifests (a table gains one per append).
//! * The rows are written once; the commit is a compare-and-swap on the head it is built on. When
//!   another writer committed first, the snapshot is built again on the new head: appends made
//!   meanwhile are carried over, so none is lost. When a file being compacted is no longer live
//!   on the new head (an overwrite or upsert replaced it), the compaction gives up, deletes what
//!   it wrote and says so ([`Error::CompactionConflict`]); nothing changes.
//! * A table with row-level delete files is refused ([`Error::Unsupported`]); ldp never writes
//!   them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_row::{RowConverter, SortField};
use arrow_schema::SchemaRef;
use iceberg::spec::{
    DataFile, ManifestContentType, ManifestEntry, ManifestFile, Operation, Struct,
};
use ldp_catalog::Catalog;
use serde_json::{Value, json};

use crate::commit::{RetryPolicy, commit_with_retries};
use crate::error::{Error, Result};
use crate::manifests::split_by_spec;
use crate::schema::conform_batch;
use crate::snapshot::{SnapshotPlan, Staged, produce};
use crate::table::Table;
use crate::writer::{DEFAULT_TARGET_FILE_SIZE, DataFiles, DataWriter, WriterOptions};

/// A file smaller than this fraction of the target size is small: it is compacted.
pub const SMALL_FILE_FRACTION: f64 = 0.75;

/// Rows of a partition held in memory to be sorted together (Arrow bytes).
pub const SORT_BUFFER_BYTES: usize = 512 * 1024 * 1024;

/// Commit tries: more than an append's, since a compaction is slower to rebuild than the appends
/// it races.
const MAX_ATTEMPTS: u32 = 20;

/// Rows per batch when a data file is read.
const READ_BATCH_ROWS: usize = 64 * 1024;

/// What to compact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactOptions {
    /// The size files are rewritten to (bytes; default [`DEFAULT_TARGET_FILE_SIZE`]).
    pub target_file_size: u64,
    /// Columns to sort the rewritten rows by (empty: kept in file order).
    pub sort_by: Vec<String>,
    /// Commit (`--apply`); otherwise plan only.
    pub apply: bool,
}

impl Default for CompactOptions {
    fn default() -> CompactOptions {
        CompactOptions {
            target_file_size: DEFAULT_TARGET_FILE_SIZE,
            sort_by: Vec::new(),
            apply: false,
        }
    }
}

/// What [`compact`] did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// A snapshot was committed.
    pub committed: bool,
    /// The target file size (bytes).
    pub target_file_size: u64,
    /// The sort columns.
    pub sort_by: Vec<String>,
    /// Partitions whose files are rewritten.
    pub partitions: usize,
    /// Live data files before.
    pub files_before: usize,
    /// Files rewritten (removed by the snapshot).
    pub files_rewritten: usize,
    /// Files written (on a dry run: the estimate, ⌈bytes / target⌉ per partition).
    pub files_written: usize,
    /// Live data files after.
    pub files_after: usize,
    /// Rows in the rewritten files.
    pub rows_rewritten: u64,
    /// Bytes of the rewritten files.
    pub bytes_rewritten: u64,
    /// Bytes of the files written (0 on a dry run).
    pub bytes_written: u64,
    /// Manifests in the manifest list before.
    pub manifests_before: usize,
    /// Manifests after (on a dry run: after the planned compaction).
    pub manifests_after: usize,
    /// The `replace` snapshot, when committed.
    pub snapshot_id: Option<i64>,
    /// Commit tries (0 when nothing was committed).
    pub attempts: u32,
    /// The table's metadata file (after the commit when there was one).
    pub metadata_location: String,
}

impl CompactReport {
    /// The report as JSON (the field names above).
    pub fn to_json(&self) -> Value {
        json!({
            "table": self.table,
            "dry_run": self.dry_run,
            "committed": self.committed,
            "target_file_size": self.target_file_size,
            "sort_by": self.sort_by,
            "partitions": self.partitions,
            "files_before": self.files_before,
            "files_rewritten": self.files_rewritten,
            "files_written": self.files_written,
            "files_after": self.files_after,
            "rows_rewritten": self.rows_rewritten,
            "bytes_rewritten": self.bytes_rewritten,
            "bytes_written": self.bytes_written,
            "manifests_before": self.manifests_before,
            "manifests_after": self.manifests_after,
            "snapshot_id": self.snapshot_id,
            "attempts": self.attempts,
            "metadata_location": self.metadata_location,
        })
    }
}

/// The files to rewrite, partition by partition.
struct CompactionPlan {
    groups: Vec<Vec<DataFile>>,
    files_before: usize,
    manifests_before: usize,
    /// Manifests the snapshot has besides its added and deleted ones: those kept untouched
    /// (other specs, delete manifests) and the one carrying over the files not rewritten.
    manifests_kept: usize,
}

/// Compacts `table` (see the module docs); `table` is moved to the new metadata when a snapshot
/// is committed.
///
/// # Errors
///
/// [`Error::Maintenance`] for a zero target size or a sort column the table does not have;
/// [`Error::Unsupported`] on a table with delete files; [`Error::CompactionConflict`] when
/// another writer removed a file being compacted; read, write and catalog errors. Whatever the
/// error, the files written are deleted and the table is unchanged.
pub fn compact(
    catalog: &Catalog,
    table: &mut Table,
    options: &CompactOptions,
) -> Result<CompactReport> {
    let identifier = table.identifier().to_string();
    check_options(table, options)?;
    let plan = plan_compaction(table, options)?;
    let files_rewritten: usize = plan.groups.iter().map(Vec::len).sum();
    let bytes_rewritten: u64 = plan.groups.iter().flatten().map(file_bytes).sum();
    let estimate: usize = plan
        .groups
        .iter()
        .map(|group| {
            let bytes: u64 = group.iter().map(file_bytes).sum();
            bytes.div_ceil(options.target_file_size.max(1)).max(1) as usize
        })
        .sum();
    let mut report = CompactReport {
        table: identifier.clone(),
        dry_run: !options.apply,
        committed: false,
        target_file_size: options.target_file_size,
        sort_by: options.sort_by.clone(),
        partitions: plan.groups.len(),
        files_before: plan.files_before,
        files_rewritten,
        files_written: estimate,
        files_after: plan.files_before - files_rewritten + estimate,
        rows_rewritten: plan
            .groups
            .iter()
            .flatten()
            .map(DataFile::record_count)
            .sum(),
        bytes_rewritten,
        bytes_written: 0,
        manifests_before: plan.manifests_before,
        manifests_after: if plan.groups.is_empty() {
            plan.manifests_before
        } else {
            plan.manifests_kept + 2
        },
        snapshot_id: None,
        attempts: 0,
        metadata_location: table.metadata_location().to_string(),
    };
    if !options.apply || plan.groups.is_empty() {
        return Ok(report);
    }
    let mut written = rewrite_groups(table, &plan.groups, options)?;
    let added: Vec<DataFile> = written
        .iter()
        .flat_map(|files| files.files().iter().cloned())
        .collect();
    let replaced: HashSet<String> = plan
        .groups
        .iter()
        .flatten()
        .map(|file| file.file_path().to_string())
        .collect();
    let properties = BTreeMap::new();
    let mut read = ManifestEntries::default();
    let result = commit_with_retries(
        catalog,
        table,
        "compaction",
        &RetryPolicy {
            max_attempts: MAX_ATTEMPTS,
            ..RetryPolicy::direct_append()
        },
        |base| stage_replace(base, &replaced, &added, &properties, &mut read),
    )?;
    for files in &mut written {
        files.keep();
    }
    report.committed = true;
    report.files_written = added.len();
    report.bytes_written = added.iter().map(file_bytes).sum();
    report.snapshot_id = Some(result.snapshot_id);
    report.attempts = result.attempts;
    report.metadata_location = result.metadata_location;
    let after = live_data_files(table)?;
    report.files_after = after.0;
    report.manifests_after = after.1;
    Ok(report)
}

fn file_bytes(file: &DataFile) -> u64 {
    file.file_size_in_bytes()
}

fn check_options(table: &Table, options: &CompactOptions) -> Result<()> {
    let maintenance = |message: String| Error::Maintenance {
        table: table.identifier().to_string(),
        message,
    };
    if options.target_file_size == 0 {
        return Err(maintenance(
            "the target file size must be more than 0 bytes".to_string(),
        ));
    }
    let schema = table.schema();
    for column in &options.sort_by {
        if schema.field_by_name(column).is_none() {
            let columns: Vec<&str> = schema
                .as_struct()
                .fields()
                .iter()
                .map(|f| f.name.as_str())
                .collect();
            return Err(maintenance(format!(
                "cannot sort by '{column}': it is not a column of {}; its columns are {}",
                table.identifier(),
                columns.join(", ")
            )));
        }
    }
    Ok(())
}

/// Live data files and manifests of the current snapshot.
fn live_data_files(table: &Table) -> Result<(usize, usize)> {
    let (merge, other) = split_by_spec(table)?;
    let live = table.live_entries(&merge, ManifestContentType::Data)?.len()
        + table.live_entries(&other, ManifestContentType::Data)?.len();
    Ok((live, merge.len() + other.len()))
}

fn plan_compaction(table: &Table, options: &CompactOptions) -> Result<CompactionPlan> {
    let (merge, other) = split_by_spec(table)?;
    if !table
        .live_entries(&other, ManifestContentType::Deletes)?
        .is_empty()
    {
        return Err(Error::unsupported(
            table.identifier(),
            "the table has row-level delete files; ldp cannot compact such a table yet",
        ));
    }
    let mut entries = table.live_entries(&merge, ManifestContentType::Data)?;
    // Oldest first, so the rewritten rows keep the order they were written in (a manifest list
    // names the newest manifest first).
    entries.sort_by(|a, b| {
        (a.sequence_number, a.data_file.file_path())
            .cmp(&(b.sequence_number, b.data_file.file_path()))
    });
    let merged_files = entries.len();
    let files_before = merged_files + table.live_entries(&other, ManifestContentType::Data)?.len();
    let small = (options.target_file_size as f64 * SMALL_FILE_FRACTION) as u64;
    let mut partitions: HashMap<Struct, Vec<DataFile>> = HashMap::new();
    let mut order: Vec<Struct> = Vec::new();
    for entry in entries {
        let file = entry.data_file;
        let group = partitions
            .entry(file.partition().clone())
            .or_insert_with(|| {
                order.push(file.partition().clone());
                Vec::new()
            });
        group.push(file);
    }
    let sorting = !options.sort_by.is_empty();
    let mut groups = Vec::new();
    for key in order {
        let Some(files) = partitions.remove(&key) else {
            continue;
        };
        let chosen: Vec<DataFile> = if sorting {
            if files.len() > 1 { files } else { Vec::new() }
        } else {
            files
                .into_iter()
                .filter(|f| f.file_size_in_bytes() < small)
                .collect()
        };
        if chosen.len() > 1 {
            groups.push(chosen);
        }
    }
    let rewritten: usize = groups.iter().map(Vec::len).sum();
    Ok(CompactionPlan {
        groups,
        files_before,
        manifests_before: merge.len() + other.len(),
        manifests_kept: other.len() + usize::from(merged_files > rewritten),
    })
}

/// Reads the files of each group and writes their rows again (sorted when asked), one writer
/// per group.
fn rewrite_groups(
    table: &Table,
    groups: &[Vec<DataFile>],
    options: &CompactOptions,
) -> Result<Vec<DataFiles>> {
    let target: SchemaRef = table.arrow_schema()?;
    let writer_options = WriterOptions {
        target_file_size: options.target_file_size,
        ..WriterOptions::default()
    };
    let mut written = Vec::with_capacity(groups.len());
    for group in groups {
        let mut writer = DataWriter::new(table, &writer_options)?;
        let mut sorter = (!options.sort_by.is_empty())
            .then(|| Sorter::new(table, &target, &options.sort_by))
            .transpose()?;
        for file in group {
            for raw in table.read_data_file(file.file_path(), Some(READ_BATCH_ROWS))? {
                let batch = conform_batch(table.identifier(), &raw?, &target)?;
                match &mut sorter {
                    Some(sorter) => sorter.push(batch, &mut writer)?,
                    None => writer.write(&batch)?,
                }
            }
        }
        if let Some(sorter) = &mut sorter {
            sorter.flush(&mut writer)?;
        }
        written.push(writer.finish()?);
    }
    Ok(written)
}

/// Buffers rows up to [`SORT_BUFFER_BYTES`] and writes them sorted.
struct Sorter {
    table: String,
    schema: SchemaRef,
    columns: Vec<usize>,
    converter: RowConverter,
    buffer: Vec<RecordBatch>,
    bytes: usize,
}

impl Sorter {
    fn new(table: &Table, schema: &SchemaRef, sort_by: &[String]) -> Result<Sorter> {
        let identifier = table.identifier().to_string();
        let mut columns = Vec::with_capacity(sort_by.len());
        let mut fields = Vec::with_capacity(sort_by.len());
        for name in sort_by {
            let index = schema
                .index_of(name)
                .map_err(|e| Error::schema(&identifier, format!("cannot sort by '{name}': {e}")))?;
            columns.push(index);
            fields.push(SortField::new(schema.field(index).data_type().clone()));
        }
        let converter = RowConverter::new(fields).map_err(|e| {
            Error::schema(
                &identifier,
                format!("cannot sort by {}: {e}", sort_by.join(", ")),
            )
        })?;
        Ok(Sorter {
            table: identifier,
            schema: schema.clone(),
            columns,
            converter,
            buffer: Vec::new(),
            bytes: 0,
        })
    }

    fn push(&mut self, batch: RecordBatch, writer: &mut DataWriter) -> Result<()> {
        self.bytes += batch.get_array_memory_size();
        self.buffer.push(batch);
        if self.bytes >= SORT_BUFFER_BYTES {
            self.flush(writer)?;
        }
        Ok(())
    }

    fn flush(&mut self, writer: &mut DataWriter) -> Result<()> {
        let batches = std::mem::take(&mut self.buffer);
        self.bytes = 0;
        if batches.is_empty() {
            return Ok(());
        }
        let failed = |e: arrow_schema::ArrowError| {
            Error::schema(&self.table, format!("cannot sort the rows: {e}"))
        };
        let all = arrow_select::concat::concat_batches(&self.schema, &batches).map_err(failed)?;
        drop(batches);
        let keys: Vec<_> = self
            .columns
            .iter()
            .map(|&i| Arc::clone(all.column(i)))
            .collect();
        let rows = self.converter.convert_columns(&keys).map_err(failed)?;
        let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
        order.sort_by(|&a, &b| rows.row(a as usize).cmp(&rows.row(b as usize)));
        let indices = arrow_array::UInt32Array::from(order);
        let sorted = arrow_select::take::take_record_batch(&all, &indices).map_err(failed)?;
        writer.write(&sorted)
    }
}

/// The live entries of manifests already read: a manifest never changes, so a retry on a new
/// head reads only the manifests the other writers added.
#[derive(Default)]
struct ManifestEntries {
    read: HashMap<String, Vec<ManifestEntry>>,
}

impl ManifestEntries {
    fn live(&mut self, table: &Table, manifests: &[ManifestFile]) -> Result<Vec<ManifestEntry>> {
        let mut entries = Vec::new();
        for manifest in manifests {
            if !self.read.contains_key(&manifest.manifest_path) {
                let live = table
                    .live_entries(std::slice::from_ref(manifest), ManifestContentType::Data)?;
                self.read.insert(manifest.manifest_path.clone(), live);
            }
            entries.extend(self.read[&manifest.manifest_path].iter().cloned());
        }
        Ok(entries)
    }
}

/// The `replace` snapshot on `base`: `replaced` marked deleted, `added` added, every other live
/// entry of the default spec carried over into one manifest.
fn stage_replace(
    base: &Table,
    replaced: &HashSet<String>,
    added: &[DataFile],
    properties: &BTreeMap<String, String>,
    read: &mut ManifestEntries,
) -> Result<Staged> {
    let (merge, kept) = split_by_spec(base)?;
    let mut deleted: Vec<ManifestEntry> = Vec::new();
    let mut existing: Vec<ManifestEntry> = Vec::new();
    for entry in read.live(base, &merge)? {
        if replaced.contains(entry.data_file.file_path()) {
            deleted.push(entry);
        } else {
            existing.push(entry);
        }
    }
    if deleted.len() != replaced.len() {
        let live: HashSet<&str> = deleted.iter().map(|e| e.data_file.file_path()).collect();
        let gone = replaced
            .iter()
            .find(|path| !live.contains(path.as_str()))
            .cloned()
            .unwrap_or_default();
        return Err(Error::CompactionConflict {
            table: base.identifier().to_string(),
            file: gone,
        });
    }
    produce(
        base,
        SnapshotPlan {
            operation: Operation::Replace,
            added,
            deleted,
            existing,
            kept,
            properties,
            schema: None,
        },
    )
}
