//! Commits: `POST …/tables/{t}` applies a table's requirements and updates with
//! [`ldp_table::apply_commit`], whose compare-and-swap makes the requirement check and the
//! pointer move one atomic step. A failed requirement, a lost race or a locked catalog is a 409
//! `CommitFailedException` (the client reloads and retries) and changes nothing. A commit whose
//! requirements hold `assert-create` on a table that does not exist completes a staged create
//! ([`ldp_table::create_from_updates`]).
//!
//! `POST …/transactions/commit` is answered for one table (the same atomic commit); ldp's
//! catalogs move one table's pointer at a time, so changes to several tables cannot be made
//! atomic and are refused with 406 before anything is applied.

use bytes::Bytes;
use ldp_table::{TableRequirement, TableUpdate};
use serde::Deserialize;
use serde_json::json;

use crate::error::{Error, Result};
use crate::ident::{TableIdentifier, one_level, table_name};
use crate::pool::Served;
use crate::routes::{Reply, parse_body};
use crate::server::State;
use crate::tables::table_metadata;

#[derive(Deserialize)]
struct CommitTableRequest {
    identifier: Option<TableIdentifier>,
    requirements: Vec<TableRequirement>,
    updates: Vec<TableUpdate>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct CommitTransactionRequest {
    table_changes: Vec<CommitTableRequest>,
}

/// `POST …/namespaces/{ns}/tables/{t}`: the commit; answers the new metadata location and
/// metadata.
pub(crate) fn commit(
    state: &State,
    served: &Served,
    namespace: &str,
    name: &str,
    body: &Bytes,
) -> Result<Reply> {
    let request: CommitTableRequest = parse_body(body, "a CommitTableRequest")?;
    if let Some(identifier) = &request.identifier {
        let same = one_level(&identifier.namespace)? == namespace && identifier.name == name;
        if !same {
            return Err(Error::bad_request(format!(
                "the body commits to {}.{}, the path to {namespace}.{name}",
                identifier.namespace.join("."),
                identifier.name
            )));
        }
    }
    let (location, metadata) = apply(state, served, namespace, name, request)?;
    Ok(Reply::Json(
        format!(
            r#"{{"metadata-location":{},"metadata":{metadata}}}"#,
            json!(location)
        )
        .into_bytes(),
    ))
}

/// `POST …/transactions/commit`: one table's commit; several tables are refused (406).
pub(crate) fn transaction(state: &State, served: &Served, body: &Bytes) -> Result<Reply> {
    let request: CommitTransactionRequest = parse_body(body, "a CommitTransactionRequest")?;
    let mut changes = request.table_changes;
    if changes.len() > 1 {
        return Err(Error::unsupported(format!(
            "a transaction across {} tables cannot be atomic here: ldp's catalogs move one \
             table's pointer at a time; commit each table with POST …/tables/{{table}}",
            changes.len()
        )));
    }
    let Some(change) = changes.pop() else {
        return Ok(Reply::NoContent);
    };
    let Some(identifier) = &change.identifier else {
        return Err(Error::bad_request(
            "a transaction's table change must name its table (identifier)",
        ));
    };
    let namespace = one_level(&identifier.namespace)?;
    let name = table_name(&identifier.name)?;
    apply(state, served, &namespace, &name, change)?;
    Ok(Reply::NoContent)
}

/// Applies one table's commit; the new metadata location and metadata JSON.
fn apply(
    state: &State,
    served: &Served,
    namespace: &str,
    name: &str,
    request: CommitTableRequest,
) -> Result<(String, std::sync::Arc<str>)> {
    let creates = request
        .requirements
        .iter()
        .any(|r| matches!(r, TableRequirement::NotExist));
    let table = served.with(|c| {
        let committed = if creates && !c.table_exists(namespace, name)? {
            ldp_table::create_from_updates(
                c,
                namespace,
                name,
                &request.requirements,
                request.updates,
                &served.warehouse,
            )
        } else {
            ldp_table::apply_commit(c, namespace, name, &request.requirements, request.updates)
        };
        committed.map_err(|e| {
            if e.is_retryable() {
                Error::commit_failed(e.to_string())
            } else {
                Error::from(e)
            }
        })
    })?;
    let metadata = table_metadata(state, &table)?;
    Ok((table.metadata_location().to_string(), metadata))
}
