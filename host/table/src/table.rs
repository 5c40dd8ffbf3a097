//! A loaded table: its catalog name, its current metadata file and the metadata in it; loading
//! and creating tables.

use std::path::Path;

use arrow_schema::{Schema as ArrowSchema, SchemaRef};
use iceberg::io::FileIO;
use iceberg::spec::{SchemaRef as IcebergSchemaRef, SnapshotRef, TableMetadata};
use ldp_catalog::{Catalog, ErrorKind as CatalogErrorKind, qualified};

use crate::create::register_new;
use crate::error::{Error, Result};
use crate::files::{block_on, write_new};
use crate::io::file_io_for;
use crate::location::file_uri;
use crate::partition::PartitionColumn;
use crate::schema::arrow_schema;
use crate::table_commit::TableCommit;

/// The summary key of a snapshot's row count.
pub const TOTAL_RECORDS: &str = "total-records";

/// An Iceberg table as of one metadata file.
///
/// A `Table` is a snapshot of the catalog's pointer: [`Table::refresh`] reloads it, and a
/// commit ([`Append`](crate::Append), [`Overwrite`](crate::Overwrite)) moves it forward.
#[derive(Debug, Clone)]
pub struct Table {
    namespace: String,
    name: String,
    identifier: String,
    metadata_location: String,
    metadata: TableMetadata,
    file_io: FileIO,
    /// The branch this handle reads and writes (`None`: `main`).
    branch: Option<String>,
    /// The commit this handle made to reach its current version, if it made one.
    last_commit: Option<TableCommit>,
    /// Not in the catalog yet: the first commit creates it ([`Table::plan_at_location`]).
    pub(crate) pending: bool,
}

/// A branch or a tag of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableRef {
    /// The snapshot it points at.
    pub snapshot_id: i64,
    /// A branch (else a tag).
    pub is_branch: bool,
}

impl Table {
    /// Loads `namespace.name` from the catalog and reads its current metadata file.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when the table does not exist; a
    /// catalog, I/O or metadata error otherwise.
    pub fn load(catalog: &Catalog, namespace: &str, name: &str) -> Result<Table> {
        let identifier = qualified(namespace, name);
        let Some(record) = catalog.load_table(namespace, name)? else {
            return Err(ldp_catalog::Error::TableNotFound {
                file: catalog.file().to_path_buf(),
                table: identifier,
            }
            .into());
        };
        Table::from_metadata_location(namespace, name, &record.metadata_location)
    }

    /// The table whose metadata file is `metadata_location` (a `file://` URI).
    pub fn from_metadata_location(
        namespace: &str,
        name: &str,
        metadata_location: &str,
    ) -> Result<Table> {
        let identifier = qualified(namespace, name);
        let file_io = file_io_for(metadata_location);
        let metadata =
            block_on(TableMetadata::read_from(&file_io, metadata_location)).map_err(|source| {
                Error::iceberg(
                    &identifier,
                    format!("cannot read the metadata file {metadata_location}"),
                    source,
                )
            })?;
        Ok(Table {
            namespace: namespace.to_string(),
            name: name.to_string(),
            identifier,
            metadata_location: metadata_location.to_string(),
            metadata,
            file_io,
            branch: None,
            last_commit: None,
            pending: false,
        })
    }

    /// Creates `namespace.name` with the schema of `schema` (see [`crate::schema`]: all fields
    /// optional, timestamps in µs), unpartitioned, format version 2, at `location` (an absolute
    /// folder, `<warehouse>/<namespace>/<table>` — for a `local` catalog block,
    /// `ldp_config::paths::LocalCatalogLayout::table_location` — which gets `metadata/` and
    /// `data/`). The first metadata file is `metadata/00000-<uuid>.metadata.json`.
    /// The namespace is created when missing. No snapshot is written.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind::AlreadyExists) when the table exists (the
    /// metadata file written for it is deleted again); schema, I/O and catalog errors.
    pub fn create(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        location: &Path,
    ) -> Result<Table> {
        Table::create_partitioned(catalog, namespace, name, schema, &[], location)
    }

    /// As [`Table::create`], partitioned by `partition` (unpartitioned when it is empty).
    ///
    /// # Errors
    ///
    /// As [`Table::create`], and a partition column that is not in `schema` or a transform that
    /// cannot apply to its type.
    pub fn create_partitioned(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        partition: &[PartitionColumn],
        location: &Path,
    ) -> Result<Table> {
        Table::create_with_properties(catalog, namespace, name, schema, partition, location, &[])
    }

    /// As [`Table::create_partitioned`], with table properties (the `_ldp` system tables'
    /// `ldp.managed=true`, ...).
    ///
    /// # Errors
    ///
    /// As [`Table::create_partitioned`].
    pub fn create_with_properties(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        partition: &[PartitionColumn],
        location: &Path,
        properties: &[(&str, &str)],
    ) -> Result<Table> {
        let identifier = qualified(namespace, name);
        if !location.is_absolute() {
            return Err(Error::unsupported(
                &identifier,
                format!(
                    "the table location {} is not an absolute path",
                    location.display()
                ),
            ));
        }
        Table::create_at_location(
            catalog,
            namespace,
            name,
            schema,
            partition,
            &file_uri(location),
            properties,
        )
    }

    /// As [`Table::create_with_properties`], at `location_uri`: a `file://` URI, or an
    /// `s3://bucket/prefix/<namespace>/<table>` URI for a warehouse on object storage (metadata,
    /// manifests and data files then go to the bucket, and the catalog row points at the
    /// `s3://` metadata file, as pyiceberg's `SqlCatalog` expects).
    ///
    /// # Errors
    ///
    /// As [`Table::create_partitioned`].
    pub fn create_at_location(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        partition: &[PartitionColumn],
        location_uri: &str,
        properties: &[(&str, &str)],
    ) -> Result<Table> {
        let planned = Table::plan_at_location(
            catalog,
            namespace,
            name,
            schema,
            partition,
            location_uri,
            properties,
        )?;
        register_new(catalog, namespace, name, planned.metadata, true)
    }

    /// Loads the table, creating it as [`Table::create`] does when it does not exist (another
    /// process creating it at the same moment is fine: its table is loaded).
    pub fn load_or_create(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        location: &Path,
    ) -> Result<Table> {
        if catalog.table_exists(namespace, name)? {
            return Table::load(catalog, namespace, name);
        }
        match Table::create(catalog, namespace, name, schema, location) {
            Err(Error::Catalog { source }) if source.kind() == CatalogErrorKind::AlreadyExists => {
                Table::load(catalog, namespace, name)
            }
            other => other,
        }
    }

    /// Reloads the table from the catalog; returns whether its metadata file changed.
    /// A table not in the catalog yet ([`Table::is_pending`]) stays as it is.
    pub fn refresh(&mut self, catalog: &Catalog) -> Result<bool> {
        if self.pending {
            return Ok(false);
        }
        let mut fresh = Table::load(catalog, &self.namespace, &self.name)?;
        let changed = fresh.metadata_location != self.metadata_location;
        fresh.branch = self.branch.take();
        *self = fresh;
        Ok(changed)
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The table's name within its namespace.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `namespace.name`, as messages name the table.
    pub fn identifier(&self) -> &str {
        &self.identifier
    }

    /// The table folder (`file://…/<namespace>/<table>`).
    pub fn location(&self) -> &str {
        self.metadata.location()
    }

    /// The current metadata file (`file://…/metadata/00001-<uuid>.metadata.json`).
    pub fn metadata_location(&self) -> &str {
        &self.metadata_location
    }

    /// The Iceberg metadata.
    pub fn metadata(&self) -> &TableMetadata {
        &self.metadata
    }

    /// The current Iceberg schema.
    pub fn schema(&self) -> &IcebergSchemaRef {
        self.metadata.current_schema()
    }

    /// The current schema in Arrow, with `PARQUET:field_id` metadata on every field.
    pub fn arrow_schema(&self) -> Result<SchemaRef> {
        arrow_schema(&self.identifier, self.schema())
    }

    /// The default partition spec as `(source column, transform)` pairs (`[]` when
    /// unpartitioned), with transforms written as configs write them (`day`, `bucket[4]`).
    pub fn partition_columns(&self) -> Vec<(String, String)> {
        let schema = self.schema();
        self.metadata
            .default_partition_spec()
            .fields()
            .iter()
            .map(|f| {
                let column = schema
                    .name_by_field_id(f.source_id)
                    .unwrap_or_default()
                    .to_string();
                (column, f.transform.to_string())
            })
            .collect()
    }

    /// The head of the branch this handle works on ([`Table::on_branch`]; `main` by default),
    /// if any. Reads and writes through this handle start from it.
    pub fn current_snapshot(&self) -> Option<&SnapshotRef> {
        match &self.branch {
            None => self.metadata.current_snapshot(),
            Some(branch) => self
                .ref_snapshot_id(branch)
                .and_then(|id| self.metadata.snapshot_by_id(id)),
        }
    }

    /// The id of [`Table::current_snapshot`], if any.
    pub fn current_snapshot_id(&self) -> Option<i64> {
        self.current_snapshot().map(|s| s.snapshot_id())
    }

    /// The head of `main`, whatever branch this handle works on.
    pub fn main_snapshot(&self) -> Option<&SnapshotRef> {
        self.metadata.current_snapshot()
    }

    /// The id of the snapshot the ref `name` (a branch or a tag) points at, if it exists.
    pub fn ref_snapshot_id(&self, name: &str) -> Option<i64> {
        self.refs().remove(name).map(|r| r.snapshot_id)
    }

    /// Every ref of the table (branches and tags, `main` included), by name.
    pub fn refs(&self) -> std::collections::BTreeMap<String, TableRef> {
        // iceberg-rust keeps the refs private; they are read from the metadata's JSON form.
        let Ok(value) = serde_json::to_value(&self.metadata) else {
            return Default::default();
        };
        let Some(refs) = value.get("refs").and_then(|r| r.as_object()) else {
            return Default::default();
        };
        refs.iter()
            .filter_map(|(name, r)| {
                Some((
                    name.clone(),
                    TableRef {
                        snapshot_id: r.get("snapshot-id")?.as_i64()?,
                        is_branch: r.get("type")?.as_str()? == "branch",
                    },
                ))
            })
            .collect()
    }

    /// This handle, working on `branch` instead of `main`: reads start from its head and
    /// commits (append, overwrite, upsert) move it, not `main`. The branch is created by the
    /// first commit when it does not exist ([`crate::create_branch`] creates it explicitly).
    pub fn on_branch(mut self, branch: impl Into<String>) -> Table {
        let branch = branch.into();
        self.branch = (branch != iceberg::spec::MAIN_BRANCH).then_some(branch);
        self
    }

    /// The branch this handle works on (`main` by default).
    pub fn branch(&self) -> &str {
        self.branch.as_deref().unwrap_or(iceberg::spec::MAIN_BRANCH)
    }

    /// The row count of the current snapshot (`total-records` of its summary; 0 without one).
    pub fn total_records(&self) -> u64 {
        self.current_snapshot()
            .map_or(0, |s| summary_count(s, TOTAL_RECORDS))
    }

    pub(crate) fn file_io(&self) -> &FileIO {
        &self.file_io
    }

    /// The metadata file and the metadata, taken out of the handle.
    pub(crate) fn into_parts(self) -> (String, TableMetadata) {
        (self.metadata_location, self.metadata)
    }

    /// A handle on `namespace.name` as of `metadata_location`, whose content is `metadata`.
    pub(crate) fn from_parts(
        namespace: &str,
        name: &str,
        metadata_location: String,
        metadata: TableMetadata,
    ) -> Table {
        Table {
            namespace: namespace.to_string(),
            name: name.to_string(),
            identifier: qualified(namespace, name),
            file_io: file_io_for(&metadata_location),
            metadata_location,
            metadata,
            branch: None,
            last_commit: None,
            pending: false,
        }
    }

    /// The metadata as the JSON of a metadata file (what [`Table::metadata_location`] holds,
    /// and what an Iceberg REST catalog returns as a table's `metadata`): snapshots, schemas,
    /// specs and sort orders listed in commit / id order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt) when the metadata cannot be serialised.
    pub fn metadata_json(&self) -> Result<serde_json::Value> {
        metadata_value(&self.identifier, &self.metadata, &self.metadata_location)
    }

    /// Moves this handle to a newly committed metadata file.
    /// The commit this handle made to reach its current version (`None` after a load or a
    /// refresh): the updates and requirements a REST catalog is sent.
    pub fn last_commit(&self) -> Option<&TableCommit> {
        self.last_commit.as_ref()
    }

    pub(crate) fn advance(
        &mut self,
        metadata_location: String,
        metadata: TableMetadata,
        commit: TableCommit,
    ) {
        self.metadata_location = metadata_location;
        self.metadata = metadata;
        self.last_commit = Some(commit);
    }
}

/// A count in a snapshot summary (0 when absent or not a number).
pub(crate) fn summary_count(snapshot: &SnapshotRef, key: &str) -> u64 {
    snapshot
        .summary()
        .additional_properties
        .get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Writes `metadata` as JSON to the new file `location` (see [`metadata_value`]).
pub(crate) fn write_metadata(table: &str, metadata: &TableMetadata, location: &str) -> Result<()> {
    let value = metadata_value(table, metadata, location)?;
    let json = serde_json::to_vec(&value).map_err(|e| serialise_error(table, location, e))?;
    write_new(table, location, &json)
}

fn serialise_error(table: &str, location: &str, e: serde_json::Error) -> Error {
    Error::corrupt(
        table,
        format!("cannot serialise the metadata for {location}: {e}"),
    )
}

/// `metadata` as the JSON of a metadata file (as [`Table::metadata_json`]), for metadata not
/// written yet (a staged create's); `table` (`ns.t`) names it in errors.
///
/// # Errors
///
/// [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt) when the metadata cannot be serialised.
pub fn metadata_to_json(table: &str, metadata: &TableMetadata) -> Result<serde_json::Value> {
    metadata_value(table, metadata, "the staged metadata")
}

/// `metadata` as JSON, for the file `location`. Snapshots, schemas, specs and sort orders are
/// listed in commit / id order (iceberg-rust keeps them in hash maps), as Iceberg's other writers
/// list them and as readers that show the list in file order expect.
fn metadata_value(
    table: &str,
    metadata: &TableMetadata,
    location: &str,
) -> Result<serde_json::Value> {
    let mut value =
        serde_json::to_value(metadata).map_err(|e| serialise_error(table, location, e))?;
    let sort = |value: &mut serde_json::Value, list: &str, keys: &[&str]| {
        if let Some(items) = value
            .get_mut(list)
            .and_then(serde_json::Value::as_array_mut)
        {
            items.sort_by_key(|item| {
                keys.iter()
                    .map(|k| item.get(*k).and_then(serde_json::Value::as_i64))
                    .collect::<Vec<_>>()
            });
        }
    };
    sort(
        &mut value,
        "snapshots",
        &["sequence-number", "timestamp-ms"],
    );
    sort(&mut value, "schemas", &["schema-id"]);
    sort(&mut value, "partition-specs", &["spec-id"]);
    sort(&mut value, "sort-orders", &["order-id"]);
    Ok(value)
}
