//! Fast append: one new manifest for the new data files, plus every manifest of the current
//! snapshot carried over unchanged (operation `append`). A lost compare-and-swap is retried on
//! the new head with the same data files ([`RetryPolicy::direct_append`]).

use std::collections::BTreeMap;

use iceberg::spec::Operation;
use ldp_catalog::Catalog;

use crate::commit::{CommitResult, RetryPolicy, commit_with_retries};
use crate::error::{Error, Result};
use crate::snapshot::{SnapshotPlan, produce};
use crate::table::Table;
use crate::writer::DataFiles;

/// Appends data files to a table in one snapshot.
///
/// ```no_run
/// # fn demo(catalog: &ldp_catalog::Catalog, table: &mut ldp_table::Table,
/// #         batch: &arrow_array::RecordBatch) -> ldp_table::Result<()> {
/// use ldp_table::{Append, DataWriter, WriterOptions};
///
/// let mut writer = DataWriter::new(table, &WriterOptions::default())?;
/// writer.write(batch)?;
/// let result = Append::new(writer.finish()?)
///     .property("ldp.run-id", "run-1")
///     .commit(catalog, table)?;
/// println!("snapshot {} after {} attempt(s)", result.snapshot_id, result.attempts);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Append {
    files: DataFiles,
    properties: BTreeMap<String, String>,
    allow_empty: bool,
    schema: Option<iceberg::spec::Schema>,
    retry: RetryPolicy,
}

impl Append {
    /// An append of `files` (deleted again if the append fails or is dropped).
    pub fn new(files: DataFiles) -> Append {
        Append {
            files,
            properties: BTreeMap::new(),
            allow_empty: false,
            schema: None,
            retry: RetryPolicy::direct_append(),
        }
    }

    /// Adds a summary property to the new snapshot.
    pub fn property(mut self, key: impl Into<String>, value: impl Into<String>) -> Append {
        self.properties.insert(key.into(), value.into());
        self
    }

    /// Adds summary properties to the new snapshot.
    pub fn properties(mut self, properties: impl IntoIterator<Item = (String, String)>) -> Append {
        self.properties.extend(properties);
        self
    }

    /// Whether an append without rows still commits a snapshot (default: it is
    /// [`Error::EmptyInput`]).
    pub fn allow_empty(mut self, allow: bool) -> Append {
        self.allow_empty = allow;
        self
    }

    /// How lost races are retried (default [`RetryPolicy::direct_append`]).
    pub fn retry(mut self, policy: RetryPolicy) -> Append {
        self.retry = policy;
        self
    }

    /// Makes `schema` (an [`Evolution`](crate::Evolution)'s, which the data files were written
    /// with) the table's current schema in the same commit.
    pub fn schema(mut self, schema: iceberg::spec::Schema) -> Append {
        self.schema = Some(schema);
        self
    }

    /// Commits; `table` is moved to the new metadata. On failure the data files and every
    /// file staged for the snapshot are deleted and the table is left as it was.
    pub fn commit(self, catalog: &Catalog, table: &mut Table) -> Result<CommitResult> {
        let Append {
            mut files,
            properties,
            allow_empty,
            schema,
            retry,
        } = self;
        if files.record_count() == 0 && !allow_empty {
            return Err(Error::EmptyInput);
        }
        let result = commit_with_retries(catalog, table, "direct append", &retry, |base| {
            let kept = match base.current_snapshot() {
                Some(snapshot) => base.manifest_list(snapshot)?,
                None => Vec::new(),
            };
            produce(
                base,
                SnapshotPlan {
                    operation: Operation::Append,
                    added: files.files(),
                    deleted: Vec::new(),
                    existing: Vec::new(),
                    kept,
                    properties: &properties,
                    schema: schema.as_ref(),
                },
            )
        })?;
        files.keep();
        Ok(result)
    }
}
