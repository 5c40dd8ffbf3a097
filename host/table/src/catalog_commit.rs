//! Where every write of the table layer reaches the catalog: a new table, and each commit of
//! new metadata. The SQL catalogs and Glue keep the metadata file the table layer wrote and move
//! their pointer to it; a REST catalog is sent the write as updates and requirements, writes a
//! metadata file of its own, and that file becomes the table's (the one written here is deleted).

use iceberg::spec::TableMetadata;
use ldp_catalog::{Catalog, NewTable, TableChange};

use crate::error::Result;
use crate::files::delete;
use crate::table::Table;
use crate::table_commit::TableCommit;

/// Registers a new table whose first metadata file (`metadata` at `location`) is written.
/// Returns the table as the catalog holds it.
pub(crate) fn create(
    catalog: &Catalog,
    namespace: &str,
    name: &str,
    location: String,
    metadata: TableMetadata,
) -> Result<Table> {
    if !catalog.is_remote() {
        catalog.create_table(namespace, name, &location)?;
        return Ok(Table::from_parts(namespace, name, location, metadata));
    }
    let json = metadata_json(namespace, name, &metadata)?;
    let new = NewTable {
        metadata_location: &location,
        metadata: &json,
    };
    let held = catalog.create_table_from(namespace, name, new)?;
    let (location, metadata) =
        adopt(namespace, name, &location, held)?.unwrap_or((location, metadata));
    Ok(Table::from_parts(namespace, name, location, metadata))
}

/// Moves `table` to `next` (written at `location`), the write being `commit`. Returns the
/// metadata file and metadata the catalog wrote in its place (a REST catalog), `None` when it
/// took `location`. Errors as [`Catalog::commit_change`]; on an error the caller deletes
/// `location`.
pub(crate) fn commit(
    catalog: &Catalog,
    table: &Table,
    location: &str,
    next: &TableMetadata,
    commit: &TableCommit,
) -> Result<Option<(String, TableMetadata)>> {
    let (namespace, name) = (table.namespace(), table.name());
    if !catalog.is_remote() {
        catalog.commit(namespace, name, table.metadata_location(), location)?;
        return Ok(None);
    }
    let json = metadata_json(namespace, name, next)?;
    let body = commit.request_body(namespace, name).to_string();
    let change = TableChange {
        expected: table.metadata_location(),
        new: location,
        metadata: &json,
        commit: &body,
    };
    let held = catalog.commit_change(namespace, name, change)?;
    adopt(namespace, name, location, held)
}

/// `None` when the catalog holds the prepared file `location`; else the catalog's own file and
/// its metadata (read), the prepared one deleted.
fn adopt(
    namespace: &str,
    name: &str,
    location: &str,
    held: String,
) -> Result<Option<(String, TableMetadata)>> {
    if held == location {
        return Ok(None);
    }
    let table = Table::from_metadata_location(namespace, name, &held)?;
    if let Err(error) = delete(table.identifier(), location) {
        tracing::warn!(%error, "cannot delete the metadata file the catalog did not take");
    }
    Ok(Some(table.into_parts()))
}

fn metadata_json(namespace: &str, name: &str, metadata: &TableMetadata) -> Result<String> {
    let table = ldp_catalog::qualified(namespace, name);
    Ok(crate::table::metadata_to_json(&table, metadata)?.to_string())
}
