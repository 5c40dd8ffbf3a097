//! A table created by its first commit: [`Table::plan_at_location`] gives a handle on a table
//! that is not in the catalog yet, whose data files can be written as to any table; the first
//! commit that stages a snapshot registers it ([`register_for_commit`]) with that snapshot, in
//! one catalog insert on a SQL catalog. So a run that fails, or is killed, before or during its
//! commit leaves no empty table behind (its data files are orphans under the table's folder).
//!
//! When another writer created the table meanwhile, the handle becomes that table, if its
//! schema and partition spec are the planned ones (the data files fit it), and the commit is
//! worked out again on it; otherwise the commit fails with a retryable conflict.

use std::collections::HashMap;

use arrow_schema::Schema as ArrowSchema;
use iceberg::spec::{FormatVersion, SortOrder, TableMetadataBuilder};
use ldp_catalog::{Catalog, ErrorKind as CatalogErrorKind, qualified};

use crate::create::register_new_at;
use crate::error::{Error, Result};
use crate::files::FileGuard;
use crate::location::next_metadata_file;
use crate::partition::{PartitionColumn, unbound_spec};
use crate::schema::iceberg_schema;
use crate::snapshot::Staged;
use crate::table::{Table, write_metadata};

impl Table {
    /// The table [`Table::create_at_location`] would create, not in the catalog yet: nothing
    /// is written until the first commit ([`Table::is_pending`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind::AlreadyExists) when the table exists;
    /// schema and partition errors.
    pub fn plan_at_location(
        catalog: &Catalog,
        namespace: &str,
        name: &str,
        schema: &ArrowSchema,
        partition: &[PartitionColumn],
        location_uri: &str,
        properties: &[(&str, &str)],
    ) -> Result<Table> {
        let identifier = qualified(namespace, name);
        if catalog.table_exists(namespace, name)? {
            return Err(ldp_catalog::Error::TableExists {
                file: catalog.file().to_path_buf(),
                table: identifier,
            }
            .into());
        }
        let iceberg_schema = iceberg_schema(&identifier, schema)?;
        let spec = unbound_spec(&identifier, &iceberg_schema, partition)?;
        let metadata = TableMetadataBuilder::new(
            iceberg_schema,
            spec,
            SortOrder::unsorted_order(),
            location_uri.to_string(),
            FormatVersion::V2,
            properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<HashMap<_, _>>(),
        )
        .and_then(TableMetadataBuilder::build)
        .map_err(|source| {
            Error::iceberg(&identifier, "cannot build the new table's metadata", source)
        })?
        .metadata;
        let planned = next_metadata_file(metadata.location(), None);
        let mut table = Table::from_parts(namespace, name, planned, metadata);
        table.pending = true;
        Ok(table)
    }

    /// Whether the table is not in the catalog yet: its first commit creates it.
    pub fn is_pending(&self) -> bool {
        self.pending
    }
}

/// What registering a pending table at its first commit did.
pub(crate) enum Registered {
    /// The catalog's new row points at the staged metadata: the table and its first snapshot
    /// were created in one step (SQL catalogs).
    WithSnapshot,
    /// The table is in the catalog as planned, without a snapshot: commit the staged metadata
    /// as usual (remote catalogs, which create a table from its metadata without snapshots).
    AsPlanned,
    /// The handle is now the catalog's table (another writer's, or ours as a REST catalog
    /// wrote it): stage the snapshot again on it.
    Moved,
}

/// Puts a pending table in the catalog (its namespace too) at the compare-and-swap of its first
/// snapshot, `staged`: on a SQL catalog the new row points at the staged metadata at once, so
/// no moment shows the table without it; a remote catalog gets the planned table, then the
/// commit. The planned first metadata file is written either way (the staged one's log names
/// it).
///
/// # Errors
///
/// A retryable [`Error::RequirementFailed`] when another writer created the table with another
/// schema or partition spec; I/O and catalog errors.
pub(crate) fn register_for_commit(
    catalog: &Catalog,
    table: &mut Table,
    staged: &Staged,
) -> Result<Registered> {
    let (namespace, name) = (table.namespace().to_string(), table.name().to_string());
    let planned = table.metadata_location().to_string();
    let branch = table.branch().to_string();
    let created = if catalog.is_remote() {
        register_new_at(
            catalog,
            &namespace,
            &name,
            planned.clone(),
            table.metadata().clone(),
            true,
        )
        .map(|registered| (registered, Registered::AsPlanned))
    } else {
        create_at_staged(catalog, table, staged).map(|()| (table.clone(), Registered::WithSnapshot))
    };
    let (registered, how) = match created {
        Ok((registered, how)) => {
            tracing::info!(table = table.identifier(), "created the table");
            let how = match how {
                Registered::AsPlanned if registered.metadata_location() != planned => {
                    Registered::Moved
                }
                how => how,
            };
            (registered, how)
        }
        Err(Error::Catalog { source }) if source.kind() == CatalogErrorKind::AlreadyExists => {
            let theirs = Table::load(catalog, &namespace, &name)?;
            let fits = theirs.schema().as_struct() == table.schema().as_struct()
                && theirs.metadata().default_partition_spec()
                    == table.metadata().default_partition_spec();
            if !fits {
                return Err(Error::RequirementFailed {
                    table: table.identifier().to_string(),
                    message: "another writer created the table at the same time with another \
                              schema or partitioning; run again to write to it"
                        .to_string(),
                });
            }
            (theirs, Registered::Moved)
        }
        Err(e) => return Err(e),
    };
    if !matches!(how, Registered::WithSnapshot) {
        *table = registered.on_branch(branch);
    }
    table.pending = false;
    Ok(how)
}

/// Writes the planned first metadata file and inserts the catalog row at the staged metadata
/// file; the planned file is deleted again when the row cannot be inserted.
fn create_at_staged(catalog: &Catalog, table: &Table, staged: &Staged) -> Result<()> {
    let identifier = table.identifier().to_string();
    let planned = table.metadata_location().to_string();
    let mut written = FileGuard::new(&identifier);
    written.push(planned.clone());
    write_metadata(&identifier, table.metadata(), &planned)?;
    catalog.create_namespace_if_missing(table.namespace())?;
    catalog.create_table(table.namespace(), table.name(), &staged.metadata_location)?;
    written.keep();
    Ok(())
}
