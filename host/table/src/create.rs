//! Creating a table from an Iceberg table creation (what an Iceberg REST catalog's
//! `CreateTableRequest` carries): schema, partition spec, write order, properties, location.
//!
//! The schema, spec and order are taken as the client sends them, and their ids are assigned
//! afresh as every Iceberg catalog does for a new table. A location left out is
//! `<warehouse>/<namespace>/<name>`. The first metadata file is
//! `<location>/metadata/00000-<uuid>.metadata.json`; it is deleted again when the catalog
//! refuses the table (it exists, the namespace does not).
//!
//! A staged create ([`stage_table`]) only builds the metadata; the commit of the create
//! transaction, with the `assert-create` requirement, makes the table from its updates
//! ([`create_from_updates`]).

use std::collections::HashMap;

use iceberg::spec::{FormatVersion, SortOrder, TableMetadata, TableMetadataBuilder};
use iceberg::{TableCreation, TableRequirement, TableUpdate};
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
/// or `format-version` cannot make a table,
/// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for a relative location; I/O and
/// catalog errors. Nothing is left behind on failure.
pub fn create_table(
    catalog: &Catalog,
    namespace: &str,
    creation: TableCreation,
    warehouse: &str,
) -> Result<Table> {
    let name = creation.name.clone();
    let metadata = stage_table(catalog, namespace, creation, warehouse)?;
    register_new(catalog, namespace, &name, metadata, false)
}

/// The metadata [`create_table`] would create, without writing or registering anything: the
/// first step of a staged create (an Iceberg REST `stage-create`), which a commit with the
/// `assert-create` requirement completes ([`create_from_updates`]).
///
/// # Errors
///
/// As [`create_table`], but nothing is written.
pub fn stage_table(
    catalog: &Catalog,
    namespace: &str,
    creation: TableCreation,
    warehouse: &str,
) -> Result<TableMetadata> {
    let name = creation.name.clone();
    let identifier = qualified(namespace, &name);
    must_be_new(catalog, namespace, &name)?;
    let location = match &creation.location {
        Some(location) => location_uri(&identifier, location)?,
        None => default_table_location(warehouse, namespace, &name)?,
    };
    let mut properties = creation.properties;
    let format_version = match properties.remove(FORMAT_VERSION_PROPERTY) {
        None => creation.format_version,
        Some(version) => parse_format_version(&identifier, &version)?,
    };
    Ok(TableMetadataBuilder::from_table_creation(TableCreation {
        location: Some(location),
        properties,
        format_version,
        ..creation
    })
    .and_then(TableMetadataBuilder::build)
    .map_err(|e| Error::invalid_request(&identifier, format!("cannot create the table: {e}")))?
    .metadata)
}

/// Creates `namespace.name` from the updates of a create transaction: the commit that completes
/// a staged create, whose only requirement is `assert-create` and whose updates set the table up
/// (`add-schema`, `add-spec`, `add-sort-order`, `set-location`, `set-properties`,
/// `assign-uuid`, `upgrade-format-version`, then any snapshot). The first schema, spec and sort
/// order added start the table (ids assigned afresh, as at creation); then every update applies
/// in order. A location left out is `<warehouse>/<namespace>/<name>`.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when the namespace does not exist or a
/// requirement other than `assert-create` is given; a retryable
/// [`ErrorKind::CommitConflict`](crate::ErrorKind::CommitConflict) when the table exists (or
/// another writer created it meanwhile);
/// [`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest) when the updates add no schema
/// or the builder refuses one. Nothing is left behind on failure.
pub fn create_from_updates(
    catalog: &Catalog,
    namespace: &str,
    name: &str,
    requirements: &[TableRequirement],
    updates: Vec<TableUpdate>,
    warehouse: &str,
) -> Result<Table> {
    let identifier = qualified(namespace, name);
    if requirements
        .iter()
        .any(|r| !matches!(r, TableRequirement::NotExist))
    {
        // Every other requirement is about an existing table.
        return Err(ldp_catalog::Error::TableNotFound {
            file: catalog.file().to_path_buf(),
            table: identifier,
        }
        .into());
    }
    let exists = |e: Error| match e.kind() {
        crate::ErrorKind::AlreadyExists => Error::RequirementFailed {
            table: identifier.clone(),
            message: "assert-create: the table exists".into(),
        },
        _ => e,
    };
    must_be_new(catalog, namespace, name).map_err(exists)?;
    let metadata = initial_metadata(&identifier, namespace, name, updates, warehouse)?;
    register_new(catalog, namespace, name, metadata, false).map_err(exists)
}

/// The metadata a create transaction's updates describe.
fn initial_metadata(
    identifier: &str,
    namespace: &str,
    name: &str,
    updates: Vec<TableUpdate>,
    warehouse: &str,
) -> Result<TableMetadata> {
    let invalid = |e: iceberg::Error| Error::invalid_request(identifier, e.to_string());
    let mut schema = None;
    let mut spec = None;
    let mut order = None;
    let mut location = None;
    let mut format_version = FormatVersion::V2;
    for update in &updates {
        match update {
            TableUpdate::AddSchema { schema: s } if schema.is_none() => schema = Some(s.clone()),
            TableUpdate::AddSpec { spec: s } if spec.is_none() => spec = Some(s.clone()),
            TableUpdate::AddSortOrder { sort_order } if order.is_none() => {
                order = Some(sort_order.clone());
            }
            TableUpdate::SetLocation { location: l } => location = Some(l.clone()),
            TableUpdate::UpgradeFormatVersion { format_version: v } => format_version = *v,
            _ => {}
        }
    }
    let schema = schema.ok_or_else(|| {
        Error::invalid_request(identifier, "a create transaction must add a schema")
    })?;
    let location = match location {
        Some(location) => location_uri(identifier, &location)?,
        None => default_table_location(warehouse, namespace, name)?,
    };
    let mut builder = TableMetadataBuilder::new(
        schema,
        spec.unwrap_or_default(),
        order.unwrap_or_else(SortOrder::unsorted_order),
        location,
        format_version,
        HashMap::new(),
    )
    .map_err(invalid)?;
    for update in updates {
        builder = update.apply(builder).map_err(invalid)?;
    }
    Ok(builder.build().map_err(invalid)?.metadata)
}

/// The namespace must exist and the table must not.
fn must_be_new(catalog: &Catalog, namespace: &str, name: &str) -> Result<()> {
    if !catalog.namespace_exists(namespace)? {
        return Err(ldp_catalog::Error::NamespaceNotFound {
            file: catalog.file().to_path_buf(),
            namespace: namespace.to_string(),
        }
        .into());
    }
    if catalog.table_exists(namespace, name)? {
        return Err(ldp_catalog::Error::TableExists {
            file: catalog.file().to_path_buf(),
            table: qualified(namespace, name),
        }
        .into());
    }
    Ok(())
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
    let metadata_location = next_metadata_file(metadata.location(), None);
    register_new_at(
        catalog,
        namespace,
        name,
        metadata_location,
        metadata,
        create_namespace,
    )
}

/// [`register_new`] with the first metadata file at `metadata_location`.
pub(crate) fn register_new_at(
    catalog: &Catalog,
    namespace: &str,
    name: &str,
    metadata_location: String,
    metadata: TableMetadata,
    create_namespace: bool,
) -> Result<Table> {
    let identifier = qualified(namespace, name);
    let mut written = FileGuard::new(&identifier);
    written.push(metadata_location.clone());
    write_metadata(&identifier, &metadata, &metadata_location)?;
    if create_namespace {
        catalog.create_namespace_if_missing(namespace)?;
    }
    let table =
        crate::catalog_commit::create(catalog, namespace, name, metadata_location, metadata)?;
    written.keep();
    tracing::debug!(
        table = identifier,
        metadata_location = table.metadata_location(),
        "created table"
    );
    Ok(table)
}
