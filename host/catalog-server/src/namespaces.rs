//! Namespaces: list, create, load, exists, drop (when empty), update properties.

use std::collections::BTreeMap;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::json;

use crate::error::{Error, ErrorKind, Result};
use crate::ident::{namespace_of_segment, one_level, query_param};
use crate::pool::Served;
use crate::routes::{Reply, parse_body};

#[derive(Deserialize)]
struct CreateNamespaceRequest {
    namespace: Vec<String>,
    #[serde(default)]
    properties: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct UpdateNamespacePropertiesRequest {
    #[serde(default)]
    removals: Vec<String>,
    #[serde(default)]
    updates: BTreeMap<String, String>,
}

/// `GET …/namespaces[?parent=<ns>]`: the top-level namespaces, or those below `parent`, as
/// level lists. No paging: everything in one answer.
pub(crate) fn list(served: &Served, query: Option<&str>) -> Result<Reply> {
    let parent = match query_param(query, "parent")? {
        Some(parent) if !parent.is_empty() => Some(namespace_of_segment(&parent)?),
        _ => None,
    };
    let names = served.with(|c| Ok(c.list_namespaces(parent.as_deref())?))?;
    let levels: Vec<Vec<&str>> = names.iter().map(|n| n.split('.').collect()).collect();
    Ok(Reply::json(&json!({ "namespaces": levels })))
}

/// `POST …/namespaces`: creates a namespace with its properties; 409 when it exists.
pub(crate) fn create(served: &Served, body: &Bytes) -> Result<Reply> {
    let request: CreateNamespaceRequest = parse_body(body, "a CreateNamespaceRequest")?;
    let namespace = one_level(&request.namespace)?;
    let properties = served.with(|c| {
        c.create_namespace(&namespace, &request.properties)?;
        Ok(c.namespace_properties(&namespace)?)
    })?;
    Ok(Reply::json(
        &json!({ "namespace": [namespace], "properties": properties }),
    ))
}

/// `GET …/namespaces/{ns}`: the namespace's properties; 404 when it does not exist.
pub(crate) fn load(served: &Served, namespace: &str) -> Result<Reply> {
    let properties = served.with(|c| Ok(c.namespace_properties(namespace)?))?;
    Ok(Reply::json(
        &json!({ "namespace": [namespace], "properties": properties }),
    ))
}

/// `HEAD …/namespaces/{ns}`: 204 when it exists, 404 otherwise.
pub(crate) fn exists(served: &Served, namespace: &str) -> Result<Reply> {
    if served.with(|c| Ok(c.namespace_exists(namespace)?))? {
        Ok(Reply::NoContent)
    } else {
        Err(no_namespace(namespace))
    }
}

/// `DELETE …/namespaces/{ns}`: drops an empty namespace; 409 when it holds tables.
pub(crate) fn drop(served: &Served, namespace: &str) -> Result<Reply> {
    served.with(|c| Ok(c.drop_namespace(namespace)?))?;
    Ok(Reply::NoContent)
}

/// `POST …/namespaces/{ns}/properties`: removes and sets properties in one transaction; 422
/// when a key is both removed and set.
pub(crate) fn update_properties(served: &Served, namespace: &str, body: &Bytes) -> Result<Reply> {
    let request: UpdateNamespacePropertiesRequest =
        parse_body(body, "an UpdateNamespacePropertiesRequest")?;
    let both: Vec<&str> = request
        .removals
        .iter()
        .filter(|k| request.updates.contains_key(*k))
        .map(String::as_str)
        .collect();
    if !both.is_empty() {
        return Err(Error::request(
            ErrorKind::Unprocessable,
            "UnprocessableEntityException",
            format!("properties {} are both removed and set", both.join(", ")),
        ));
    }
    let done = served.with(|c| {
        Ok(c.update_namespace_properties(namespace, &request.removals, &request.updates)?)
    })?;
    Ok(Reply::json(&json!({
        "updated": done.updated,
        "removed": done.removed,
        "missing": done.missing,
    })))
}

pub(crate) fn no_namespace(namespace: &str) -> Error {
    Error::not_found(
        "NoSuchNamespaceException",
        format!("namespace {namespace} does not exist"),
    )
}
