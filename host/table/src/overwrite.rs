//! Overwrite: every row of the table replaced in one snapshot (operation `overwrite`): the live
//! data files of the current snapshot are listed as `DELETED` in one manifest, the new files as
//! `ADDED` in another. On a table whose current snapshot has 0 rows it is an append (§4.1).
//! A lost compare-and-swap is not retried (§4.2): the error is the catalog's retryable
//! conflict, and nothing is left behind.

use std::collections::BTreeMap;

use iceberg::spec::{ManifestContentType, Operation};
use ldp_catalog::Catalog;

use crate::commit::{CommitResult, RetryPolicy, commit_with_retries};
use crate::error::{Error, Result};
use crate::snapshot::{SnapshotPlan, produce};
use crate::table::Table;
use crate::writer::DataFiles;

/// Replaces every row of a table with data files, in one snapshot.
#[derive(Debug)]
pub struct Overwrite {
    files: DataFiles,
    properties: BTreeMap<String, String>,
    allow_empty: bool,
    schema: Option<iceberg::spec::Schema>,
}

impl Overwrite {
    /// An overwrite with `files` (deleted again if the overwrite fails or is dropped).
    pub fn new(files: DataFiles) -> Overwrite {
        Overwrite {
            files,
            properties: BTreeMap::new(),
            allow_empty: false,
            schema: None,
        }
    }

    /// Adds a summary property to the new snapshot.
    pub fn property(mut self, key: impl Into<String>, value: impl Into<String>) -> Overwrite {
        self.properties.insert(key.into(), value.into());
        self
    }

    /// Adds summary properties to the new snapshot.
    pub fn properties(
        mut self,
        properties: impl IntoIterator<Item = (String, String)>,
    ) -> Overwrite {
        self.properties.extend(properties);
        self
    }

    /// Whether an overwrite without rows (which empties the table) is allowed (default: it is
    /// [`Error::EmptyInput`]).
    pub fn allow_empty(mut self, allow: bool) -> Overwrite {
        self.allow_empty = allow;
        self
    }

    /// Makes `schema` (an [`Evolution`](crate::Evolution)'s, which the data files were written
    /// with) the table's current schema in the same commit.
    pub fn schema(mut self, schema: iceberg::spec::Schema) -> Overwrite {
        self.schema = Some(schema);
        self
    }

    /// Commits; `table` is moved to the new metadata. On failure every file written is deleted
    /// and the table is left as it was.
    pub fn commit(self, catalog: &Catalog, table: &mut Table) -> Result<CommitResult> {
        let Overwrite {
            mut files,
            properties,
            allow_empty,
            schema,
        } = self;
        if files.record_count() == 0 && !allow_empty {
            return Err(Error::EmptyInput);
        }
        let result = commit_with_retries(
            catalog,
            table,
            "overwrite",
            &RetryPolicy::no_retry(),
            |base| {
                let manifests = match base.current_snapshot() {
                    Some(snapshot) => base.manifest_list(snapshot)?,
                    None => Vec::new(),
                };
                let plan = if base.total_records() == 0 {
                    SnapshotPlan {
                        operation: Operation::Append,
                        added: files.files(),
                        deleted: Vec::new(),
                        existing: Vec::new(),
                        kept: manifests,
                        properties: &properties,
                        schema: schema.as_ref(),
                    }
                } else {
                    if !base
                        .live_entries(&manifests, ManifestContentType::Deletes)?
                        .is_empty()
                    {
                        return Err(Error::unsupported(
                            base.identifier(),
                            "the table has row-level delete files; ldp cannot overwrite such a table yet",
                        ));
                    }
                    SnapshotPlan {
                        operation: Operation::Overwrite,
                        added: files.files(),
                        deleted: base.live_entries(&manifests, ManifestContentType::Data)?,
                        existing: Vec::new(),
                        kept: Vec::new(),
                        properties: &properties,
                        schema: schema.as_ref(),
                    }
                };
                produce(base, plan)
            },
        )?;
        files.keep();
        Ok(result)
    }
}
