//! Reading the rows of a version: the pinned snapshot of the table, through the row filter and
//! the column list, checked against the manifest's schema fingerprint and row count.
//!
//! The read is deterministic: a one-partition SQL session scans the snapshot's data files one
//! after the other in a fixed order and nothing repartitions the rows, so a version gives the
//! same rows in the same order every time, whatever was committed to the table since.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use iceberg::spec::NestedFieldRef;
use ldp_catalog::{Catalog, Mode};
use ldp_sql::{Session, TableName};
use ldp_table::Table;

use crate::error::{Error, Result};
use crate::filter::where_clause;
use crate::fingerprint::{project, schema_fingerprint};
use crate::manifest::DatasetVersion;

/// The name the pinned table is registered under in the session.
const TABLE: &str = "dataset";

/// The rows of a version, in order.
#[derive(Debug, Clone)]
pub struct Rows {
    /// The columns: the snapshot's, projected; fields carry their Iceberg field id
    /// (`PARQUET:field_id`) and are nullable unless the column is required.
    pub schema: SchemaRef,
    /// The rows, in batches.
    pub batches: Vec<RecordBatch>,
}

impl Rows {
    /// How many rows.
    pub fn num_rows(&self) -> u64 {
        self.batches.iter().map(|b| b.num_rows() as u64).sum()
    }
}

/// Opens the table of a version: through the catalog the manifest records, else through the
/// metadata file it records (a table whose catalog moved still reads).
///
/// # Errors
///
/// [`Error::Dataset`] naming every way tried, when none works.
pub fn open_table(version: &DatasetVersion) -> Result<Table> {
    let (namespace, name) = split_identifier(&version.table_identifier);
    let mut problems = Vec::new();
    if let Some((file, catalog_name)) = version.catalog.catalog_file() {
        let opened = Catalog::open(&file, catalog_name, Mode::ReadOnly)
            .map_err(|e| e.for_table(&version.table_identifier).to_string())
            .and_then(|catalog| Table::load(&catalog, namespace, name).map_err(|e| e.to_string()));
        match opened {
            Ok(table) => return Ok(table),
            Err(e) => problems.push(format!("catalog {}: {e}", file.display())),
        }
    }
    if let Some(location) = &version.metadata_location {
        match Table::from_metadata_location(namespace, name, location) {
            Ok(table) => return Ok(table),
            Err(e) => problems.push(format!("metadata file {location}: {e}")),
        }
    }
    if problems.is_empty() {
        problems.push("the manifest names no catalog or metadata file".into());
    }
    Err(Error::dataset(format!(
        "cannot open {} for dataset {}: {}",
        version.table_identifier,
        version.reference(),
        problems.join("; ")
    )))
}

/// Reads the rows `version` pinned, from the table its manifest names (see [`open_table`]),
/// and checks them ([`load_from`] with `verify`).
///
/// # Errors
///
/// As [`open_table`] and [`load_from`].
pub fn load(version: &DatasetVersion) -> Result<Rows> {
    let table = open_table(version)?;
    load_from(version, &table, true)
}

/// Reads the rows `version` pinned from `table`. With `verify`, the schema fingerprint and the
/// row count must be the manifest's.
///
/// # Errors
///
/// [`Error::Dataset`] when the snapshot no longer exists (expired) or, with `verify`, the
/// fingerprint or the row count differs; [`Error::Sql`] when the read fails.
pub fn load_from(version: &DatasetVersion, table: &Table, verify: bool) -> Result<Rows> {
    if table
        .metadata()
        .snapshot_by_id(version.snapshot_id)
        .is_none()
    {
        return Err(Error::dataset(format!(
            "dataset {}: snapshot {} of {} no longer exists (was it expired?)",
            version.reference(),
            version.snapshot_id,
            version.table_identifier
        )));
    }
    let fields = projected_fields(
        table,
        version.snapshot_id,
        version.selected_fields.as_deref(),
    )
    .map_err(|e| Error::dataset(format!("dataset {}: {e}", version.reference())))?;
    if verify {
        let actual = schema_fingerprint(&fields);
        if actual != version.schema_fingerprint {
            return Err(Error::dataset(format!(
                "dataset {}: schema fingerprint {actual} differs from the pinned {}",
                version.reference(),
                version.schema_fingerprint
            )));
        }
    }
    let session = session(table, version.snapshot_id)?;
    let sql = format!(
        "SELECT {} FROM {TABLE}{}",
        column_list(&fields),
        where_clause(version.row_filter.as_deref())
    );
    let output = session
        .query(&sql, usize::MAX)
        .map_err(|source| Error::Sql {
            context: format!(
                "cannot read dataset {} from {} at snapshot {}",
                version.reference(),
                version.table_identifier,
                version.snapshot_id
            ),
            source,
        })?;
    let rows = with_field_ids(table, version.snapshot_id, output.schema, output.batches)?;
    if verify && rows.num_rows() != version.row_count {
        return Err(Error::dataset(format!(
            "dataset {}: read {} rows, the manifest pinned {}",
            version.reference(),
            rows.num_rows(),
            version.row_count
        )));
    }
    tracing::info!(
        dataset = version.reference(),
        rows = rows.num_rows(),
        table = version.table_identifier,
        snapshot = version.snapshot_id,
        "loaded a dataset version"
    );
    Ok(rows)
}

/// The columns a version of `table` at `snapshot_id` reads, from the snapshot's own schema.
pub(crate) fn projected_fields(
    table: &Table,
    snapshot_id: i64,
    selected: Option<&[String]>,
) -> Result<Vec<NestedFieldRef>> {
    let snapshot = table
        .metadata()
        .snapshot_by_id(snapshot_id)
        .ok_or_else(|| {
            Error::dataset(format!(
                "Iceberg table {} has no snapshot {snapshot_id}",
                table.identifier()
            ))
        })?;
    let schema = snapshot
        .schema_id()
        .and_then(|id| table.metadata().schema_by_id(id))
        .unwrap_or_else(|| table.schema());
    project(schema, selected)
}

/// Counts the rows of a filter at a snapshot (what a pin records).
pub(crate) fn count_rows(table: &Table, snapshot_id: i64, filter: Option<&str>) -> Result<u64> {
    let session = session(table, snapshot_id)?;
    let sql = format!("SELECT count(*) AS n FROM {TABLE}{}", where_clause(filter));
    let output = session.query(&sql, 1).map_err(|source| Error::Sql {
        context: format!(
            "cannot count the rows of {} at snapshot {snapshot_id}",
            table.identifier()
        ),
        source,
    })?;
    let count = output
        .batches
        .first()
        .filter(|b| b.num_rows() == 1)
        .and_then(|b| {
            arrow_cast::cast(b.column(0), &arrow_schema::DataType::UInt64)
                .ok()
                .and_then(|c| {
                    c.as_any()
                        .downcast_ref::<arrow_array::UInt64Array>()
                        .map(|a| a.value(0))
                })
        });
    count.ok_or_else(|| {
        Error::dataset(format!(
            "counting the rows of {} at snapshot {snapshot_id} gave no count",
            table.identifier()
        ))
    })
}

/// A one-partition session (a fixed row order) with the table at the snapshot.
fn session(table: &Table, snapshot_id: i64) -> Result<Session> {
    let sql = |source| Error::Sql {
        context: format!(
            "cannot read {} at snapshot {snapshot_id}",
            table.identifier()
        ),
        source,
    };
    let session = Session::with_partitions(1).map_err(sql)?;
    session
        .register(table, Some(snapshot_id), &[TableName::bare(TABLE)])
        .map_err(sql)?;
    Ok(session)
}

/// `"a", "b"`: every column quoted, so names keep their case and may be keywords.
fn column_list(fields: &[NestedFieldRef]) -> String {
    if fields.is_empty() {
        return "*".into();
    }
    fields
        .iter()
        .map(|f| format!("\"{}\"", f.name.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rows with the snapshot's Arrow fields (field ids, required columns not nullable), as
/// pyiceberg gives them; the rows as read when they do not fit (they always should).
fn with_field_ids(
    table: &Table,
    snapshot_id: i64,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<Rows> {
    let snapshot_schema = table.arrow_schema_at(Some(snapshot_id))?;
    let fields: Option<Vec<_>> = schema
        .fields()
        .iter()
        .map(|f| {
            snapshot_schema
                .field_with_name(f.name())
                .ok()
                .filter(|s| s.data_type() == f.data_type())
                .cloned()
        })
        .collect();
    let Some(fields) = fields else {
        return Ok(Rows { schema, batches });
    };
    let typed: SchemaRef = Arc::new(Schema::new(fields));
    let rebuilt: std::result::Result<Vec<_>, _> = batches
        .iter()
        .map(|b| RecordBatch::try_new(typed.clone(), b.columns().to_vec()))
        .collect();
    Ok(match rebuilt {
        Ok(batches) => Rows {
            schema: typed,
            batches,
        },
        Err(_) => Rows { schema, batches },
    })
}

/// `ns.t` → (`ns`, `t`) (the namespace may hold dots; the table name does not).
pub(crate) fn split_identifier(identifier: &str) -> (&str, &str) {
    identifier.rsplit_once('.').unwrap_or(("", identifier))
}
