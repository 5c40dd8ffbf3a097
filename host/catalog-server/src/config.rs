//! `GET /v1/config`: which catalog a client talks to (`overrides.prefix`) and the endpoints
//! this server implements.
//!
//! A client names the catalog with `?warehouse=<name>` (pyiceberg's `warehouse`, DuckDB's
//! `ATTACH '<name>'`); with one catalog served the parameter may be left out.

use serde_json::json;

use crate::error::{Error, Result};
use crate::ident::query_param;
use crate::routes::Reply;
use crate::server::State;

/// The endpoints answered, as the spec lists them in `CatalogConfig.endpoints`. Clients such as
/// pyiceberg call only these. `POST /v1/{prefix}/transactions/commit` is answered for one table
/// only, so it is not listed. ldp's catalogs hold no views: the view routes list none and find
/// none.
pub(crate) const ENDPOINTS: [&str; 18] = [
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
];

pub(crate) fn get(state: &State, query: Option<&str>) -> Result<Reply> {
    let names = || {
        state
            .catalogs
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let warehouse = query_param(query, "warehouse")?.filter(|w| !w.is_empty());
    let served = match (warehouse, state.catalogs.as_slice()) {
        (Some(name), _) => state
            .catalogs
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| {
                Error::not_found(
                    "NoSuchWarehouseException",
                    format!("no catalog {name:?} is served here; served: {}", names()),
                )
            })?,
        (None, [only]) => only,
        (None, _) => {
            return Err(Error::bad_request(format!(
                "this server serves several catalogs ({}); name one with ?warehouse=<name> \
                 (pyiceberg: warehouse=..., DuckDB: ATTACH '<name>')",
                names()
            )));
        }
    };
    Ok(Reply::json(&json!({
        "defaults": {},
        "overrides": {"prefix": served.name},
        "endpoints": ENDPOINTS,
    })))
}
