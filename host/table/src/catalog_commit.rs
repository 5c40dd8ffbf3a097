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
    adopt(namespace, name, location, metadata, held)
}

/// Moves `table` to `next` (written at `location`), the write being `commit`. Returns the
/// table's metadata file and metadata after the commit. Errors as
/// [`Catalog::commit_change`]; on an error the caller deletes `location`.
pub(crate) fn commit(
    catalog: &Catalog,
    table: &Table,
    location: String,
    next: TableMetadata,
    commit: &TableCommit,
) -> Result<(String, TableMetadata)> {
    let (namespace, name) = (table.namespace(), table.name());
    if !catalog.is_remote() {
        catalog.commit(namespace, name, table.metadata_location(), &location)?;
        return Ok((location, next));
    }
    let json = metadata_json(namespace, name, &next)?;
    let body = serde_json::json!({
        "requirements": commit.requirements,
        "updates": commit.updates,
    })
    .to_string();
    let change = TableChange {
        expected: table.metadata_location(),
        new: &location,
        metadata: &json,
        commit: &body,
    };
    let held = catalog.commit_change(namespace, name, change)?;
    let adopted = adopt(namespace, name, location, next, held)?;
    Ok((
        adopted.metadata_location().to_string(),
        adopted.metadata().clone(),
    ))
}

/// The table at `held`: the prepared metadata when the catalog kept it, else the catalog's own
/// file (read, and the prepared one deleted).
fn adopt(
    namespace: &str,
    name: &str,
    location: String,
    metadata: TableMetadata,
    held: String,
) -> Result<Table> {
    if held == location {
        return Ok(Table::from_parts(namespace, name, location, metadata));
    }
    let table = Table::from_metadata_location(namespace, name, &held)?;
    if let Err(error) = delete(table.identifier(), &location) {
        tracing::warn!(%error, "cannot delete the metadata file the catalog did not take");
    }
    Ok(table)
}

fn metadata_json(namespace: &str, name: &str, metadata: &TableMetadata) -> Result<String> {
    let table = ldp_catalog::qualified(namespace, name);
    Ok(crate::table::metadata_to_json(&table, metadata)?.to_string())
}
