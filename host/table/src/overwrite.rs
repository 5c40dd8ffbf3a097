//! Overwrite: every row of the table replaced in one snapshot (operation `overwrite`): the live
//! data files of the current snapshot are listed as `DELETED` in one manifest, the new files as
//! `ADDED` in another. On a table whose current snapshot has 0 rows it is an append.
//!
//! A **window overwrite** ([`Overwrite::only_window`]) deletes only the rows with
//! `low ≤ column < high` (typed as `window.rs` says), copy-on-write, still in one snapshot and
//! without delete files:
//!
//! * a data file whose bounds on the column (in the manifest) lie inside the window, with no
//!   null there, is deleted whole;
//! * a file whose bounds, or partition value on the column, lie outside the window (or whose
//!   values there are all null) is kept as it is, without being opened;
//! * any other file is read: when some of its rows are in the window, the others are written to
//!   new files and the file is replaced.
//!
//! The snapshot's operation is `overwrite` when files were deleted or replaced, `append` when
//! no row matched. A null is in no window: its row is kept.
//!
//! A lost compare-and-swap is retried on the new head as appends and upserts are (the Python
//! tool retries only direct appends, so its overwrite racing an append fails every time): the
//! files to delete, and a window overwrite's files to rewrite, are worked out again on each
//! head, so the result is the one of the other commit followed by this overwrite. When the
//! retries run out the error names the table and says to run again; nothing is left behind.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use iceberg::spec::{DataFile, ManifestContentType, ManifestFile, Operation};
use ldp_catalog::Catalog;

use crate::commit::{CommitResult, RetryPolicy, commit_with_retries};
use crate::error::{Error, Result};
use crate::rewrite::{scan_file, split_manifests};
use crate::snapshot::{SnapshotPlan, Staged, produce};
use crate::table::Table;
use crate::window::{Placement, WindowFilter, WindowRows};
use crate::writer::{DataFiles, DataWriter, WriterOptions};

/// Replaces every row of a table (or the rows of a window) with data files, in one snapshot.
#[derive(Debug)]
pub struct Overwrite {
    files: DataFiles,
    properties: BTreeMap<String, String>,
    allow_empty: bool,
    schema: Option<iceberg::spec::Schema>,
    window: Option<WindowFilter>,
    writer: WriterOptions,
    retry: RetryPolicy,
}

impl Overwrite {
    /// An overwrite with `files` (deleted again if the overwrite fails or is dropped).
    pub fn new(files: DataFiles) -> Overwrite {
        Overwrite {
            files,
            properties: BTreeMap::new(),
            allow_empty: false,
            schema: None,
            window: None,
            writer: WriterOptions::default(),
            retry: RetryPolicy::direct_append(),
        }
    }

    /// How lost races are retried (default [`RetryPolicy::direct_append`]).
    pub fn retry(mut self, policy: RetryPolicy) -> Overwrite {
        self.retry = policy;
        self
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

    /// Deletes only the rows of `window` (`low ≤ column < high`, as the filter reads the
    /// column) instead of every row: a window overwrite (see the module docs). The bounds are
    /// typed by the table's column when the commit is worked out, so the filter may come from
    /// the rows to write ([`WindowFilter::for_data_to_write`]).
    pub fn only_window(mut self, window: WindowFilter) -> Overwrite {
        self.window = Some(window);
        self
    }

    /// How a window overwrite writes the rows it keeps of the files it replaces.
    pub fn writer_options(mut self, options: WriterOptions) -> Overwrite {
        self.writer = options;
        self
    }

    /// Commits; `table` is moved to the new metadata. On failure every file written is deleted
    /// and the table is left as it was. The result's `rows_written` counts the overwrite's own
    /// rows (not those a window overwrite wrote again).
    ///
    /// # Errors
    ///
    /// [`Error::EmptyInput`] without rows (unless allowed); for a window overwrite, the
    /// [`WindowFilter`] errors when the table's column does not fit (missing: `... is not a
    /// column of the Iceberg table ns.t ...`); [`Error::Unsupported`] on a table with delete
    /// files; [`Error::RetriesExhausted`] when other writers won every try.
    pub fn commit(self, catalog: &Catalog, table: &mut Table) -> Result<CommitResult> {
        let Overwrite {
            mut files,
            properties,
            allow_empty,
            schema,
            window,
            writer,
            retry,
        } = self;
        if files.record_count() == 0 && !allow_empty {
            return Err(Error::EmptyInput);
        }
        let mut rewritten: Option<DataFiles> = None;
        let mut result = commit_with_retries(catalog, table, "overwrite", &retry, |base| {
            rewritten = None;
            let manifests = match base.current_snapshot() {
                Some(snapshot) => base.manifest_list(snapshot)?,
                None => Vec::new(),
            };
            if base.total_records() == 0 {
                let plan = SnapshotPlan {
                    operation: Operation::Append,
                    added: files.files(),
                    deleted: Vec::new(),
                    existing: Vec::new(),
                    kept: manifests,
                    properties: &properties,
                    schema: schema.as_ref(),
                };
                return produce(base, plan);
            }
            if !base
                .live_entries(&manifests, ManifestContentType::Deletes)?
                .is_empty()
            {
                return Err(Error::unsupported(
                    base.identifier(),
                    "the table has row-level delete files; ldp cannot overwrite such a table yet",
                ));
            }
            let Some(window) = &window else {
                let plan = SnapshotPlan {
                    operation: Operation::Overwrite,
                    added: files.files(),
                    deleted: base.live_entries(&manifests, ManifestContentType::Data)?,
                    existing: Vec::new(),
                    kept: Vec::new(),
                    properties: &properties,
                    schema: schema.as_ref(),
                };
                return produce(base, plan);
            };
            let work = WindowWork::new(base, window, schema.as_ref(), &writer)?;
            let (staged, again) = work.stage(base, manifests, files.files(), &properties)?;
            rewritten = again;
            Ok(staged)
        })?;
        files.keep();
        if let Some(mut again) = rewritten {
            again.keep();
        }
        result.rows_written = files.record_count();
        Ok(result)
    }
}

/// A window overwrite worked out on one base.
struct WindowWork<'a> {
    /// The filter on the table's schema (the evolved one when the commit evolves it).
    filter: WindowFilter,
    /// The column's field id.
    field_id: i32,
    schema: iceberg::spec::SchemaRef,
    /// The schema the commit makes current, if it evolves the table's.
    evolved: Option<&'a iceberg::spec::Schema>,
    target: arrow_schema::SchemaRef,
    options: &'a WriterOptions,
}

impl<'a> WindowWork<'a> {
    fn new(
        base: &Table,
        window: &WindowFilter,
        evolved: Option<&'a iceberg::spec::Schema>,
        options: &'a WriterOptions,
    ) -> Result<WindowWork<'a>> {
        let identifier = base.identifier();
        let schema = match evolved {
            Some(evolved) => Arc::new(evolved.clone()),
            None => base.schema().clone(),
        };
        let target = crate::schema::arrow_schema(identifier, &schema)?;
        let filter = window.on(&target, WindowRows::Table(identifier.to_string()))?;
        let field_id = schema
            .field_by_name(window.column())
            .map(|field| field.id)
            .ok_or_else(|| Error::WindowColumnMissing {
                column: window.column().to_string(),
                columns: target.fields().iter().map(|f| f.name().clone()).collect(),
                rows: WindowRows::Table(identifier.to_string()),
            })?;
        Ok(WindowWork {
            filter,
            field_id,
            schema,
            evolved,
            target,
            options,
        })
    }

    /// Places every live data file of `manifests`, rewrites those that straddle the window and
    /// hold rows of it, and stages the snapshot adding `new_files`. Returns the staged snapshot
    /// and the files written again (to keep once committed).
    fn stage(
        &self,
        base: &Table,
        manifests: Vec<ManifestFile>,
        new_files: &[DataFile],
        properties: &BTreeMap<String, String>,
    ) -> Result<(Staged, Option<DataFiles>)> {
        let by_manifest = base.live_data_entries_by_manifest(&manifests)?;
        let mut removed: HashSet<String> = HashSet::new();
        let mut writer: Option<DataWriter> = None;
        let (mut files_read, mut rows_deleted, mut rows_kept) = (0usize, 0u64, 0u64);
        for (manifest, entries) in &by_manifest {
            let spec = base
                .metadata()
                .partition_spec_by_id(manifest.partition_spec_id);
            for entry in entries {
                let file = &entry.data_file;
                match self
                    .filter
                    .place(file, self.field_id, spec.map(|s| s.as_ref()))
                {
                    Placement::Outside => {}
                    Placement::Inside => {
                        removed.insert(file.file_path().to_string());
                        rows_deleted += file.record_count();
                    }
                    Placement::Straddles => {
                        files_read += 1;
                        let uri = file.file_path();
                        let scan = scan_file(base, uri, &self.target, |batch| {
                            self.filter.mask(batch, false).map(Some)
                        })?;
                        if scan.replaced == 0 {
                            continue;
                        }
                        removed.insert(uri.to_string());
                        rows_deleted += scan.replaced;
                        let writer = match &mut writer {
                            Some(writer) => writer,
                            None => writer.insert(DataWriter::with_schema(
                                base,
                                self.schema.clone(),
                                self.options,
                            )?),
                        };
                        rows_kept += scan.rewrite(base, &self.target, writer)?;
                    }
                }
            }
        }
        tracing::debug!(
            table = base.identifier(),
            column = self.filter.column(),
            files_removed = removed.len(),
            files_read,
            rows_deleted,
            rows_kept,
            "window overwrite worked out"
        );
        let rewritten = writer.map(DataWriter::finish).transpose()?;
        let mut added = new_files.to_vec();
        if let Some(again) = &rewritten {
            added.extend(again.files().iter().cloned());
        }
        let mut plan = SnapshotPlan {
            operation: Operation::Append,
            added: &added,
            deleted: Vec::new(),
            existing: Vec::new(),
            kept: manifests,
            properties,
            schema: self.evolved,
        };
        if !removed.is_empty() {
            let split = split_manifests(by_manifest, &removed);
            plan.operation = Operation::Overwrite;
            plan.kept.retain(|m| m.content != ManifestContentType::Data);
            plan.kept.extend(split.kept);
            plan.deleted = split.deleted;
            plan.existing = split.existing;
        }
        Ok((produce(base, plan)?, rewritten))
    }
}
