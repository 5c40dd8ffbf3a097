//! Tables: list, create (staged too), register, load, exists, drop (without purge), rename;
//! and the empty view listing (ldp's catalogs hold no views).
//!
//! A loaded table is answered with its `metadata-location`, its full `metadata` (the metadata
//! file's JSON) and an empty `config`: clients read and write the table's files themselves, with
//! their own storage settings.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use iceberg::spec::{Schema, SortOrder, UnboundPartitionSpec};
use ldp_table::{Table, TableCreation};
use serde::Deserialize;
use serde_json::json;

use crate::error::{Error, Result};
use crate::ident::{TableIdentifier, one_level, query_param, table_name};
use crate::namespaces::no_namespace;
use crate::pool::Served;
use crate::routes::{Reply, parse_body};
use crate::server::State;

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct CreateTableRequest {
    name: String,
    location: Option<String>,
    schema: Schema,
    partition_spec: Option<UnboundPartitionSpec>,
    write_order: Option<SortOrder>,
    #[serde(default)]
    stage_create: bool,
    #[serde(default)]
    properties: HashMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RegisterTableRequest {
    name: String,
    metadata_location: String,
    #[serde(default)]
    overwrite: bool,
}

#[derive(Deserialize)]
struct RenameTableRequest {
    source: TableIdentifier,
    destination: TableIdentifier,
}

/// `GET …/namespaces/{ns}/tables`: the namespace's tables; 404 when it does not exist.
pub(crate) fn list(served: &Served, namespace: &str) -> Result<Reply> {
    let names = served.with(|c| Ok(c.list_tables(namespace)?))?;
    let identifiers: Vec<TableIdentifier> = names
        .iter()
        .map(|name| TableIdentifier::new(namespace, name))
        .collect();
    Ok(Reply::json(&json!({ "identifiers": identifiers })))
}

/// `POST …/namespaces/{ns}/tables`: creates a table (at `location`, else
/// `<warehouse>/<ns>/<name>`); 404 without the namespace, 409 when the table exists. With
/// `stage-create`, only answers the metadata (`metadata-location` null): the commit with
/// `assert-create` creates the table.
pub(crate) fn create(
    state: &State,
    served: &Served,
    namespace: &str,
    body: &Bytes,
) -> Result<Reply> {
    let request: CreateTableRequest = parse_body(body, "a CreateTableRequest")?;
    let stage = request.stage_create;
    let creation = TableCreation {
        name: table_name(&request.name)?,
        location: request.location,
        schema: request.schema,
        partition_spec: request.partition_spec,
        sort_order: request.write_order,
        properties: request.properties,
        format_version: iceberg::spec::FormatVersion::V2,
    };
    if stage {
        let identifier = format!("{namespace}.{}", creation.name);
        let metadata = served.with(|c| {
            Ok(ldp_table::stage_table(
                c,
                namespace,
                creation,
                &served.warehouse,
            )?)
        })?;
        let metadata = ldp_table::metadata_to_json(&identifier, &metadata)?;
        return Ok(Reply::json(
            &json!({"metadata-location": null, "metadata": metadata, "config": {}}),
        ));
    }
    let table = served.with(|c| {
        Ok(ldp_table::create_table(
            c,
            namespace,
            creation,
            &served.warehouse,
        )?)
    })?;
    let metadata = table_metadata(state, &table)?;
    Ok(Reply::Json(load_result(
        table.metadata_location(),
        &metadata,
    )))
}

/// `POST …/namespaces/{ns}/register`: registers an existing metadata file as a new table
/// (the file must be readable); `overwrite` is refused with 406.
pub(crate) fn register(
    state: &State,
    served: &Served,
    namespace: &str,
    body: &Bytes,
) -> Result<Reply> {
    let request: RegisterTableRequest = parse_body(body, "a RegisterTableRequest")?;
    if request.overwrite {
        return Err(Error::unsupported(
            "register with overwrite is not supported: drop the table first",
        ));
    }
    let name = table_name(&request.name)?;
    let table = Table::from_metadata_location(namespace, &name, &request.metadata_location)
        .map_err(|e| {
            Error::bad_request(format!(
                "cannot register {}: {e}",
                request.metadata_location
            ))
        })?;
    served.with(|c| Ok(c.create_table(namespace, &name, &request.metadata_location)?))?;
    let metadata = table_metadata(state, &table)?;
    Ok(Reply::Json(load_result(
        table.metadata_location(),
        &metadata,
    )))
}

/// `GET …/tables/{t}`: the table's metadata location, metadata and (empty) config.
pub(crate) fn load(state: &State, served: &Served, namespace: &str, name: &str) -> Result<Reply> {
    let record = served
        .with(|c| Ok(c.load_table(namespace, name)?))?
        .ok_or_else(|| no_table(namespace, name))?;
    let location = record.metadata_location;
    let metadata = match state.metadata.get(&location) {
        Some(metadata) => metadata,
        None => {
            let table = Table::from_metadata_location(namespace, name, &location)?;
            table_metadata(state, &table)?
        }
    };
    Ok(Reply::Json(load_result(&location, &metadata)))
}

/// `HEAD …/tables/{t}`: 204 when the table exists, 404 otherwise.
pub(crate) fn exists(served: &Served, namespace: &str, name: &str) -> Result<Reply> {
    if served.with(|c| Ok(c.table_exists(namespace, name)?))? {
        Ok(Reply::NoContent)
    } else {
        Err(no_table(namespace, name))
    }
}

/// `DELETE …/tables/{t}`: removes the table from the catalog, its files stay; a purge is
/// refused with 406 (nothing is dropped).
pub(crate) fn drop(
    served: &Served,
    namespace: &str,
    name: &str,
    query: Option<&str>,
) -> Result<Reply> {
    let purge =
        query_param(query, "purgeRequested")?.is_some_and(|p| p.eq_ignore_ascii_case("true"));
    if purge {
        return Err(Error::unsupported(
            "purge is not supported: drop the table without purge, then delete its files",
        ));
    }
    served.with(|c| Ok(c.drop_table(namespace, name)?))?;
    Ok(Reply::NoContent)
}

/// `POST …/tables/rename`: renames a table, across namespaces too; 404 when the table or the
/// target namespace does not exist, 409 when the target exists.
pub(crate) fn rename(served: &Served, body: &Bytes) -> Result<Reply> {
    let request: RenameTableRequest = parse_body(body, "a RenameTableRequest")?;
    let from_ns = one_level(&request.source.namespace)?;
    let to_ns = one_level(&request.destination.namespace)?;
    let from = table_name(&request.source.name)?;
    let to = table_name(&request.destination.name)?;
    if (from_ns.as_str(), from.as_str()) == (to_ns.as_str(), to.as_str()) {
        return Err(Error::request(
            crate::error::ErrorKind::AlreadyExists,
            "AlreadyExistsException",
            format!("table {to_ns}.{to} already exists: it is the table to rename"),
        ));
    }
    served.with(|c| Ok(c.rename_table(&from_ns, &from, &to_ns, &to)?))?;
    Ok(Reply::NoContent)
}

/// `GET …/namespaces/{ns}/views`: none (404 without the namespace).
pub(crate) fn list_views(served: &Served, namespace: &str) -> Result<Reply> {
    if !served.with(|c| Ok(c.namespace_exists(namespace)?))? {
        return Err(no_namespace(namespace));
    }
    Ok(Reply::json(&json!({ "identifiers": [] })))
}

/// The 404 of any view: ldp's catalogs hold none.
pub(crate) fn no_view(namespace: &str, name: &str) -> Error {
    Error::not_found(
        "NoSuchViewException",
        format!("view {namespace}.{name} does not exist: ldp's catalogs hold no views"),
    )
}

pub(crate) fn no_table(namespace: &str, name: &str) -> Error {
    Error::not_found(
        "NoSuchTableException",
        format!("table {namespace}.{name} does not exist"),
    )
}

/// `table`'s metadata as JSON, remembered for later loads of the same metadata file.
pub(crate) fn table_metadata(state: &State, table: &Table) -> Result<Arc<str>> {
    let json: Arc<str> = table.metadata_json()?.to_string().into();
    state.metadata.put(table.metadata_location(), json.clone());
    Ok(json)
}

/// A `LoadTableResult`: `{"metadata-location", "metadata", "config"}`.
fn load_result(metadata_location: &str, metadata: &str) -> Vec<u8> {
    format!(
        r#"{{"metadata-location":{},"metadata":{metadata},"config":{{}}}}"#,
        json!(metadata_location)
    )
    .into_bytes()
}
