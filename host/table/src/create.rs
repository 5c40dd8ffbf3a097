//! Creating a table from an Iceberg table creation (what an Iceberg REST catalog's
//! `CreateTableRequest` carries): schema, partition spec, write order, properties, location.
//!
//! The schema, spec and order are taken as the client sends them, and their ids are assigned
//! afresh as every Iceberg catalog does for a new table. A location left out is
//! `<warehouse>/<namespace>/<name>`. The first metadata file is
//! `<location>/metadata/00000-<uuid>.metadata.json`; it is deleted again when the catalog
//! refuses the table (it exists, the namespace does not).

use iceberg::TableCreation;
use iceberg::spec::{FormatVersion, TableMetadata, TableMetadataBuilder};
use ldp_catalog::{Catalog, qualified};

use crate::error::{Error, Result};
use crate::files::FileGuard;
use crate::location::{default_table_location, location_uri, next_metadata_file};
use crate::table::{Table, write_metadata};

/// The table property that picks the format version at creation (`1`, `2` or `3`; default 2).
/// Like Iceberg's catalogs, it is taken out of the properties stored.
pub const FORMAT_VERSION_PROPERTY: &str = "format-version";

/// Creates `namespace.<creation.name>` from `creation`, at `creation.location` or else
/// `<warehouse>/<namespace>/<name>` (`warehouse`: an absolute path, a `file://` or an `s3://`
/// URI). The namespace must exist (unlike [`Table::create`], which creates it).
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when the namespace does not exist,
/// [`ErrorKind::AlreadyExists`](crate::ErrorKind::AlreadyExists) when the table does,
/// [`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest) when the schema, spec, order
/// or `format-version` cannot make a table, [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported)
/// for a relative location; I/O and catalog errors. Nothing is left behind on failure.
pub fn create_table(
    catalog: &Catalog,
    namespace: &str,
    creation: TableCreation,
    warehouse: &str,
) -> Result<Table> {
    let name = creation.name.clone();
    let identifier = qualified(namespace, &name);
    if !catalog.namespace_exists(namespace)? {
        return Err(ldp_catalog::Error::NamespaceNotFound {
            file: catalog.file().to_path_buf(),
            namespace: namespace.to_string(),
        }
        .into());
    }
    if catalog.table_exists(namespace, &name)? {
        return Err(ldp_catalog::Error::TableExists {
            file: catalog.file().to_path_buf(),
            table: identifier,
        }
        .into());
    }
    let location = match &creation.location {
        Some(location) => location_uri(&identifier, location)?,
        None => default_table_location(warehouse, namespace, &name)?,
    };
    let mut properties = creation.properties;
    let format_version = match properties.remove(FORMAT_VERSION_PROPERTY) {
        None => creation.format_version,
        Some(version) => parse_format_version(&identifier, &version)?,
    };
    let metadata = TableMetadataBuilder::from_table_creation(TableCreation {
        location: Some(location),
        properties,
        format_version,
        ..creation
    })
    .and_then(TableMetadataBuilder::build)
    .map_err(|e| Error::invalid_request(&identifier, format!("cannot create the table: {e}")))?
    .metadata;
    register_new(catalog, namespace, &name, metadata, false)
}

fn parse_format_version(table: &str, version: &str) -> Result<FormatVersion> {
    match version.trim() {
        "1" => Ok(FormatVersion::V1),
        "2" => Ok(FormatVersion::V2),
        "3" => Ok(FormatVersion::V3),
        other => Err(Error::invalid_request(
            table,
            format!("{FORMAT_VERSION_PROPERTY} {other:?} is not 1, 2 or 3"),
        )),
    }
}

/// Writes `metadata` as the table's first metadata file and registers the table (creating the
/// namespace first when `create_namespace`); the file is deleted again when registering fails.
pub(crate) fn register_new(
    catalog: &Catalog,
    namespace: &str,
    name: &str,
    metadata: TableMetadata,
    create_namespace: bool,
) -> Result<Table> {
    let identifier = qualified(namespace, name);
    let metadata_location = next_metadata_file(metadata.location(), None);
    let mut written = FileGuard::new(&identifier);
    written.push(metadata_location.clone());
    write_metadata(&identifier, &metadata, &metadata_location)?;
    if create_namespace {
        catalog.create_namespace_if_missing(namespace)?;
    }
    catalog.create_table(namespace, name, &metadata_location)?;
    written.keep();
    tracing::debug!(table = identifier, metadata_location, "created table");
    Ok(Table::from_parts(
        namespace,
        name,
        metadata_location,
        metadata,
    ))
}
