//! The pointer-swap commit: a table's requirements checked, its updates applied with Iceberg's
//! metadata builder, the next metadata file written and the catalog's pointer moved by
//! compare-and-swap from the metadata the requirements were checked on.
//!
//! Because the swap only succeeds when the table still points at the metadata file the
//! requirements were checked against, the check and the swap are one atomic step: a writer that
//! committed in between makes the swap fail, and the caller reloads and tries again (both a
//! failed requirement and a lost swap are [`ErrorKind::CommitConflict`](crate::ErrorKind), and
//! retryable). This is what an Iceberg REST catalog's `POST …/tables/{table}` does, and every
//! kind of [`TableUpdate`] the builder knows applies: snapshots and refs, schemas, specs, sort
//! orders, properties, location, format version, UUID, statistics.

use iceberg::spec::TableMetadata;
use iceberg::{TableRequirement, TableUpdate};
use ldp_catalog::Catalog;

use crate::error::{Error, Result};
use crate::files::FileGuard;
use crate::location::next_metadata_file;
use crate::table::{Table, write_metadata};
use crate::table_commit::TableCommit;

/// Commits `updates` to `namespace.name` when every one of `requirements` holds on its current
/// metadata, and returns the committed table.
///
/// The updates apply in order to the current metadata; the result is written as the next
/// metadata file (`<location>/metadata/<version + 1>-<uuid>.metadata.json`, under the new
/// location when the updates move the table) and the catalog pointer moves to it by
/// compare-and-swap from the metadata file the requirements were checked on. When the builder
/// records no change (no update) nothing is written and the current table is returned.
///
/// # Errors
///
/// * [`ErrorKind::NotFound`](crate::ErrorKind::NotFound): the table does not exist;
/// * [`ErrorKind::CommitConflict`](crate::ErrorKind::CommitConflict), retryable: a requirement
///   does not hold, or another writer moved the table between the load and the swap;
/// * [`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest): the builder refuses an
///   update (an unknown schema id, a snapshot whose sequence number does not fit, ...);
/// * I/O, metadata and catalog errors.
///
/// On every failure the table is unchanged and the metadata file written for it (if any) is
/// deleted again.
pub fn apply_commit(
    catalog: &Catalog,
    namespace: &str,
    name: &str,
    requirements: &[TableRequirement],
    updates: Vec<TableUpdate>,
) -> Result<Table> {
    let table = Table::load(catalog, namespace, name)?;
    let identifier = table.identifier().to_string();
    check_requirements(&identifier, table.metadata(), requirements)?;
    let commit = TableCommit {
        requirements: requirements.to_vec(),
        updates: updates.clone(),
    };
    let Some(metadata) = updated_metadata(&table, updates)? else {
        return Ok(table);
    };
    let current = table.metadata_location();
    let next = next_metadata_file(metadata.location(), Some(current));
    let mut written = FileGuard::new(&identifier);
    written.push(next.clone());
    write_metadata(&identifier, &metadata, &next)?;
    let adopted = crate::catalog_commit::commit(catalog, &table, &next, &metadata, &commit)?;
    let (next, metadata) = adopted.unwrap_or((next, metadata));
    written.keep();
    tracing::debug!(
        table = identifier,
        metadata_location = next,
        "committed table updates"
    );
    Ok(Table::from_parts(namespace, name, next, metadata))
}

/// Fails with [`Error::RequirementFailed`] on the first requirement that does not hold.
fn check_requirements(
    table: &str,
    metadata: &TableMetadata,
    requirements: &[TableRequirement],
) -> Result<()> {
    for requirement in requirements {
        requirement
            .check(Some(metadata))
            .map_err(|e| Error::RequirementFailed {
                table: table.to_string(),
                message: e.to_string(),
            })?;
    }
    Ok(())
}

/// The metadata after `updates`, or `None` when they change nothing.
fn updated_metadata(table: &Table, updates: Vec<TableUpdate>) -> Result<Option<TableMetadata>> {
    let identifier = table.identifier();
    let invalid = |e: iceberg::Error| Error::invalid_request(identifier, e.to_string());
    let mut builder = table
        .metadata()
        .clone()
        .into_builder(Some(table.metadata_location().to_string()));
    for update in updates {
        builder = update.apply(builder).map_err(invalid)?;
    }
    let built = builder.build().map_err(invalid)?;
    if built.changes.is_empty() {
        return Ok(None);
    }
    Ok(Some(built.metadata))
}
