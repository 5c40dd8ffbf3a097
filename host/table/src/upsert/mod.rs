//! Upsert: the rows of a batch replace the table's rows with the same key (`join_cols`), and the
//! rows with new keys are added, in **one** snapshot, copy-on-write.
//!
//! 1. The batch's keys are checked as the Python tool checks them ([`Upsert::new`]): every join
//!    column present, no null key, no two rows with one key. On a table with rows, the batch
//!    must also hold every column of the table (an upsert replaces whole rows).
//! 2. The manifests say which data files may hold a batch key (bounds of the join columns,
//!    partition values of partition fields on join columns); only those are read.
//! 3. A file read is kept as it is unless it holds a row whose key is in the batch and whose
//!    values differ (NaN equals NaN, −0.0 equals 0.0, null equals null): such a file is
//!    written again without those rows and marked deleted.
//! 4. The batch rows that replace a row, and those whose key is new, are written; a batch row
//!    equal to the table's row is not. When nothing changed no snapshot is added.
//! 5. One snapshot commits it all: operation `overwrite` when files were replaced, `append`
//!    when rows were only added. The Python tool leaves a `delete` then an `append` snapshot, and
//!    the first shows the table without the changed rows.
//!
//! On a table without rows an upsert is an append of the batch. A commit that loses the
//! compare-and-swap to another writer is worked out again on the new head, so a concurrent
//! append is never lost (the Python tool does not retry; on a local catalog the pipeline's lock
//! keeps overwrites and upserts apart anyway).
//!
//! Memory: the batch is held (as in the Python tool), with its encoded keys and values; the
//! table is read one file at a time.

mod keys;
mod prune;
mod scan;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use iceberg::spec::{ManifestContentType, Operation};
use ldp_catalog::Catalog;

use crate::commit::{CommitResult, RetryPolicy, commit_unless_unchanged};
use crate::error::{Error, Result};
use crate::schema::conform_batch;
use crate::snapshot::{SnapshotPlan, produce};
use crate::table::Table;
use crate::writer::{DataFiles, DataWriter, WriterOptions};
use keys::{KeyIndex, key_columns};
use prune::KeyFilter;
use scan::{Found, scan_file};

/// Replaces rows by key and adds new ones, in one snapshot (see the module docs).
#[derive(Debug)]
pub struct Upsert {
    table: String,
    join_cols: Vec<String>,
    batch: RecordBatch,
    properties: BTreeMap<String, String>,
    schema: Option<iceberg::spec::Schema>,
    writer: WriterOptions,
    retry: RetryPolicy,
}

/// What an upsert did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpsertResult {
    /// The commit; `None` when nothing changed and no snapshot was added.
    pub commit: Option<CommitResult>,
    /// `total-records` before.
    pub rows_before: u64,
    /// `total-records` after.
    pub rows_after: u64,
    /// Batch rows that replaced a row with other values.
    pub rows_updated: u64,
    /// Batch rows with a new key.
    pub rows_inserted: u64,
    /// Batch rows equal to the table's row with their key (not written).
    pub rows_unchanged: u64,
    /// Data files of the table before.
    pub files_before: usize,
    /// Data files read because their statistics or partition say they may hold a key.
    pub files_read: usize,
    /// Data files written again without the replaced rows (and marked deleted).
    pub files_rewritten: usize,
    /// Rows of the rewritten files written again.
    pub rows_rewritten: u64,
}

impl UpsertResult {
    /// Rows the upsert wrote of the batch: updated + inserted (the Python tool's `rows_written`).
    pub fn rows_written(&self) -> u64 {
        self.rows_updated + self.rows_inserted
    }
}

impl Upsert {
    /// An upsert of `batches` into the table `table` (`ns.t`, for messages) on `join_cols`.
    ///
    /// # Errors
    ///
    /// The Python tool's key checks: [`Error::UpsertKeysMissing`], [`Error::UpsertNullKeys`],
    /// [`Error::UpsertDuplicateKeys`]; [`Error::EmptyInput`] without rows.
    pub fn new(table: &str, batches: &[RecordBatch], join_cols: &[String]) -> Result<Upsert> {
        let Some(first) = batches.first() else {
            return Err(Error::EmptyInput);
        };
        let batch = concat_batches(&first.schema(), batches)
            .map_err(|e| Error::schema(table, format!("cannot join the upsert batches: {e}")))?;
        if batch.num_rows() == 0 {
            return Err(Error::EmptyInput);
        }
        keys::check_keys(table, &batch, join_cols)?;
        Ok(Upsert {
            table: table.to_string(),
            join_cols: join_cols.to_vec(),
            batch,
            properties: BTreeMap::new(),
            schema: None,
            writer: WriterOptions::default(),
            retry: RetryPolicy::direct_append(),
        })
    }

    /// Rows of the batch.
    pub fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The batch's schema.
    pub fn batch_schema(&self) -> arrow_schema::SchemaRef {
        self.batch.schema()
    }

    /// Adds summary properties to the new snapshot.
    pub fn properties(mut self, properties: impl IntoIterator<Item = (String, String)>) -> Upsert {
        self.properties.extend(properties);
        self
    }

    /// Makes `schema` (an [`Evolution`](crate::Evolution)'s) the table's current schema in the
    /// same commit.
    pub fn schema(mut self, schema: iceberg::spec::Schema) -> Upsert {
        self.schema = Some(schema);
        self
    }

    /// How data files are written.
    pub fn writer_options(mut self, options: WriterOptions) -> Upsert {
        self.writer = options;
        self
    }

    /// How lost races are retried (default [`RetryPolicy::direct_append`]).
    pub fn retry(mut self, policy: RetryPolicy) -> Upsert {
        self.retry = policy;
        self
    }

    /// Commits; `table` is moved to the new metadata. On failure every file written is deleted
    /// and the table is left as it was.
    pub fn commit(self, catalog: &Catalog, table: &mut Table) -> Result<UpsertResult> {
        let mut outcome: Option<(UpsertResult, Option<DataFiles>)> = None;
        let committed = commit_unless_unchanged(catalog, table, "upsert", &self.retry, |base| {
            outcome = None;
            let (plan, files) = match self.stage(base)? {
                Staged::Unchanged(result) => {
                    outcome = Some((result, None));
                    return Ok(None);
                }
                Staged::Changed(plan, files) => (plan, files),
            };
            let staged = produce(
                base,
                SnapshotPlan {
                    operation: plan.operation.clone(),
                    added: files.files(),
                    deleted: plan.deleted,
                    existing: plan.existing,
                    kept: plan.kept,
                    properties: &self.properties,
                    schema: self.schema.as_ref(),
                },
            )?;
            outcome = Some((plan.result, Some(files)));
            Ok(Some(staged))
        })?;
        let Some((mut result, files)) = outcome else {
            return Err(Error::corrupt(&self.table, "the upsert was not worked out"));
        };
        match committed {
            Some(commit) => {
                if let Some(mut files) = files {
                    files.keep();
                }
                result.rows_before = commit.rows_before;
                result.rows_after = commit.rows_after;
                result.commit = Some(commit);
            }
            None => {
                result.rows_before = table.total_records();
                result.rows_after = table.total_records();
            }
        }
        tracing::debug!(
            table = %self.table,
            updated = result.rows_updated,
            inserted = result.rows_inserted,
            unchanged = result.rows_unchanged,
            files_read = result.files_read,
            files_rewritten = result.files_rewritten,
            "upserted"
        );
        Ok(result)
    }

    /// Works the upsert out on `base`: the files to write and the snapshot plan, or `None`
    /// when nothing changes.
    fn stage(&self, base: &Table) -> Result<Staged> {
        let identifier = base.identifier();
        let schema = match &self.schema {
            Some(evolved) => Arc::new(evolved.clone()),
            None => base.schema().clone(),
        };
        let target = crate::schema::arrow_schema(identifier, &schema)?;
        let mut writer = DataWriter::with_schema(base, schema.clone(), &self.writer)?;
        let manifests = match base.current_snapshot() {
            Some(snapshot) => base.manifest_list(snapshot)?,
            None => Vec::new(),
        };
        if base.total_records() == 0 {
            writer.write(&self.batch)?;
            let files = writer.finish()?;
            let rows = self.batch.num_rows() as u64;
            return Ok(Staged::Changed(
                Plan {
                    operation: Operation::Append,
                    deleted: Vec::new(),
                    existing: Vec::new(),
                    kept: manifests,
                    result: UpsertResult {
                        commit: None,
                        rows_before: 0,
                        rows_after: 0,
                        rows_updated: 0,
                        rows_inserted: rows,
                        rows_unchanged: 0,
                        files_before: 0,
                        files_read: 0,
                        files_rewritten: 0,
                        rows_rewritten: 0,
                    },
                },
                files,
            ));
        }
        self.check_columns(base)?;
        if !base
            .live_entries(&manifests, ManifestContentType::Deletes)?
            .is_empty()
        {
            return Err(Error::unsupported(
                identifier,
                "the table has row-level delete files; ldp cannot upsert into such a table yet",
            ));
        }
        let batch = conform_batch(identifier, &self.batch, &target)?;
        let index = KeyIndex::new(identifier, &batch, &self.join_cols)?.with_values(
            identifier,
            &batch,
            &self.join_cols,
        )?;
        let filter = KeyFilter::new(
            identifier,
            &schema,
            base.metadata().default_partition_spec(),
            &self.join_cols,
            &key_columns(&batch, &self.join_cols),
        )?;
        let mut found = vec![Found::Nothing; batch.num_rows()];
        let mut rewritten: HashSet<String> = HashSet::new();
        let mut result = UpsertResult {
            commit: None,
            rows_before: base.total_records(),
            rows_after: 0,
            rows_updated: 0,
            rows_inserted: 0,
            rows_unchanged: 0,
            files_before: 0,
            files_read: 0,
            files_rewritten: 0,
            rows_rewritten: 0,
        };
        let by_manifest = base.live_data_entries_by_manifest(&manifests)?;
        for (manifest, entries) in &by_manifest {
            for entry in entries {
                result.files_before += 1;
                if !filter.may_hold(&entry.data_file, manifest.partition_spec_id) {
                    continue;
                }
                result.files_read += 1;
                let uri = entry.data_file.file_path();
                let scan = scan_file(base, uri, &index, &self.join_cols, &target, &mut found)?;
                if scan.replaced > 0 {
                    rewritten.insert(uri.to_string());
                    result.rows_rewritten += scan.rewrite(base, &target, &mut writer)?;
                }
            }
        }
        let write: Vec<bool> = found.iter().map(|f| *f != Found::Same).collect();
        for f in &found {
            match f {
                Found::Nothing => result.rows_inserted += 1,
                Found::Same => result.rows_unchanged += 1,
                Found::Changed => result.rows_updated += 1,
            }
        }
        if result.rows_updated + result.rows_inserted == 0 {
            writer.abort();
            return Ok(Staged::Unchanged(result));
        }
        let rows = filter_record_batch(&batch, &BooleanArray::from(write)).map_err(|e| {
            Error::schema(identifier, format!("cannot select the upsert rows: {e}"))
        })?;
        writer.write(&rows)?;
        let files = writer.finish()?;
        result.files_rewritten = rewritten.len();

        let mut plan = Plan {
            operation: if rewritten.is_empty() {
                Operation::Append
            } else {
                Operation::Overwrite
            },
            deleted: Vec::new(),
            existing: Vec::new(),
            kept: manifests
                .iter()
                .filter(|m| m.content != ManifestContentType::Data)
                .cloned()
                .collect(),
            result,
        };
        let split = crate::rewrite::split_manifests(by_manifest, &rewritten);
        plan.kept.extend(split.kept);
        plan.deleted = split.deleted;
        plan.existing = split.existing;
        Ok(Staged::Changed(plan, files))
    }

    /// An upsert on a table with rows needs every column of the table (the Python tool's check).
    fn check_columns(&self, base: &Table) -> Result<()> {
        let batch_schema = self.batch.schema();
        let missing: Vec<String> = base
            .schema()
            .as_struct()
            .fields()
            .iter()
            .filter(|f| batch_schema.index_of(&f.name).is_err())
            .map(|f| f.name.clone())
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::UpsertMissingColumns {
                table: base.identifier().to_string(),
                columns: missing,
            })
        }
    }
}

/// An upsert worked out on a base.
enum Staged {
    /// Every batch row is in the table already.
    Unchanged(UpsertResult),
    /// The snapshot to make, with the files written for it.
    Changed(Plan, DataFiles),
}

/// The snapshot of an upsert.
struct Plan {
    operation: Operation,
    deleted: Vec<iceberg::spec::ManifestEntry>,
    existing: Vec<iceberg::spec::ManifestEntry>,
    kept: Vec<iceberg::spec::ManifestFile>,
    result: UpsertResult,
}
