//! The routes of the REST catalog: a request's path parsed into a [`Route`], checked against
//! read-only mode, and handed to the module that answers it.
//!
//! Every route but `/v1/config` is under `/v1/<prefix>/`, the prefix naming the served catalog
//! (`GET /v1/config` tells clients which). With one catalog, the unprefixed paths
//! (`/v1/namespaces`, ...) reach it too.

use bytes::Bytes;
use hyper::Method;
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind, Result};
use crate::ident::{decode, namespace_of_segment, table_name};
use crate::pool::Served;
use crate::server::State;
use crate::{commit, config, namespaces, tables};

/// A request, read whole, as the handlers take it.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    pub(crate) body: Bytes,
}

/// A successful answer.
#[derive(Debug)]
pub(crate) enum Reply {
    /// 200 with a JSON body.
    Json(Vec<u8>),
    /// 204 without body.
    NoContent,
}

impl Reply {
    /// 200 with `value` as JSON.
    pub(crate) fn json(value: &serde_json::Value) -> Reply {
        Reply::Json(value.to_string().into_bytes())
    }
}

/// What a path names, below the catalog prefix.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Namespaces,
    Namespace(String),
    Properties(String),
    Tables(String),
    Register(String),
    Table(String, String),
    Metrics(String, String),
    Views(String),
    View(String, String),
    Rename,
    Transactions,
}

impl Route {
    /// Parses the decoded segments after the prefix.
    fn parse(segments: &[String]) -> Result<Route> {
        let strs: Vec<&str> = segments.iter().map(String::as_str).collect();
        let ns = |s: &str| namespace_of_segment(s);
        Ok(match strs.as_slice() {
            ["namespaces"] => Route::Namespaces,
            ["namespaces", n] => Route::Namespace(ns(n)?),
            ["namespaces", n, "properties"] => Route::Properties(ns(n)?),
            ["namespaces", n, "tables"] => Route::Tables(ns(n)?),
            ["namespaces", n, "register"] => Route::Register(ns(n)?),
            ["namespaces", n, "tables", t] => Route::Table(ns(n)?, table_name(t)?),
            ["namespaces", n, "tables", t, "metrics"] => Route::Metrics(ns(n)?, table_name(t)?),
            ["namespaces", n, "views"] => Route::Views(ns(n)?),
            ["namespaces", n, "views", v] => Route::View(ns(n)?, table_name(v)?),
            ["tables", "rename"] => Route::Rename,
            ["transactions", "commit"] => Route::Transactions,
            _ => return Err(no_route(segments)),
        })
    }

    /// Whether the route changes the catalog with `method` (refused when read-only).
    fn writes(&self, method: &Method) -> bool {
        let changes = *method == Method::POST || *method == Method::DELETE;
        changes && !matches!(self, Route::Metrics(..))
    }
}

fn no_route(segments: &[String]) -> Error {
    Error::not_found(
        "NotFoundException",
        format!(
            "no route /v1/{} in the Iceberg REST catalog API this server implements",
            segments.join("/")
        ),
    )
}

/// Answers `request` (already authenticated).
pub(crate) fn dispatch(state: &State, request: &Request) -> Result<Reply> {
    let path = request.path.trim_end_matches('/');
    let Some(rest) = path.strip_prefix("/v1/") else {
        return Err(no_route(&[path.trim_start_matches('/').to_string()]));
    };
    let segments = rest.split('/').map(decode).collect::<Result<Vec<_>>>()?;
    if segments == ["config"] {
        return match request.method {
            Method::GET => config::get(state, request.query.as_deref()),
            _ => Err(method_not_allowed(&request.method, path)),
        };
    }
    let (served, below) = catalog_of(state, &segments)?;
    let route = Route::parse(below)?;
    if state.read_only && route.writes(&request.method) {
        return Err(Error::request(
            ErrorKind::Forbidden,
            "ForbiddenException",
            format!(
                "this catalog server is read-only: {} {path} is refused",
                request.method
            ),
        ));
    }
    answer(state, served, route, request)
}

/// The served catalog a path's first segment names, and the segments below it.
fn catalog_of<'a>(state: &'a State, segments: &'a [String]) -> Result<(&'a Served, &'a [String])> {
    let first = segments.first().map(String::as_str).unwrap_or_default();
    if let Some(served) = state.catalogs.iter().find(|c| c.name == first) {
        return Ok((served, &segments[1..]));
    }
    if let [only] = state.catalogs.as_slice()
        && matches!(first, "namespaces" | "tables" | "transactions")
    {
        return Ok((only, segments));
    }
    Err(Error::not_found(
        "NoSuchWarehouseException",
        format!(
            "no catalog {first:?} is served here; served: {}",
            state
                .catalogs
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

fn answer(state: &State, served: &Served, route: Route, request: &Request) -> Result<Reply> {
    let body = &request.body;
    let query = request.query.as_deref();
    match (&request.method, route) {
        (&Method::GET, Route::Namespaces) => namespaces::list(served, query),
        (&Method::POST, Route::Namespaces) => namespaces::create(served, body),
        (&Method::GET, Route::Namespace(ns)) => namespaces::load(served, &ns),
        (&Method::HEAD, Route::Namespace(ns)) => namespaces::exists(served, &ns),
        (&Method::DELETE, Route::Namespace(ns)) => namespaces::drop(served, &ns),
        (&Method::POST, Route::Properties(ns)) => namespaces::update_properties(served, &ns, body),
        (&Method::GET, Route::Tables(ns)) => tables::list(served, &ns),
        (&Method::POST, Route::Tables(ns)) => tables::create(state, served, &ns, body),
        (&Method::POST, Route::Register(ns)) => tables::register(state, served, &ns, body),
        (&Method::GET, Route::Table(ns, t)) => tables::load(state, served, &ns, &t),
        (&Method::HEAD, Route::Table(ns, t)) => tables::exists(served, &ns, &t),
        (&Method::POST, Route::Table(ns, t)) => commit::commit(state, served, &ns, &t, body),
        (&Method::DELETE, Route::Table(ns, t)) => tables::drop(served, &ns, &t, query),
        (&Method::POST, Route::Metrics(..)) => Ok(Reply::NoContent),
        (&Method::GET, Route::Views(ns)) => tables::list_views(served, &ns),
        (&Method::GET | &Method::HEAD, Route::View(ns, v)) => Err(tables::no_view(&ns, &v)),
        (&Method::POST, Route::Rename) => tables::rename(served, body),
        (&Method::POST, Route::Transactions) => commit::transaction(state, served, body),
        _ => Err(method_not_allowed(&request.method, &request.path)),
    }
}

fn method_not_allowed(method: &Method, path: &str) -> Error {
    Error::request(
        ErrorKind::MethodNotAllowed,
        "MethodNotAllowedException",
        format!("{method} is not allowed on {path}"),
    )
}

/// The request body as `T`; `what` names it in the 400 error (`a CreateTableRequest`).
pub(crate) fn parse_body<T: DeserializeOwned>(body: &Bytes, what: &str) -> Result<T> {
    serde_json::from_slice(body)
        .map_err(|e| Error::bad_request(format!("the request body is not {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(path: &str) -> Result<Route> {
        let segments: Vec<String> = path.split('/').map(|s| decode(s).unwrap()).collect();
        Route::parse(&segments)
    }

    #[test]
    fn routes() {
        assert_eq!(route("namespaces").unwrap(), Route::Namespaces);
        assert_eq!(
            route("namespaces/nyc/tables/rides").unwrap(),
            Route::Table("nyc".into(), "rides".into())
        );
        assert_eq!(
            route("namespaces/n%20y/tables/caf%C3%A9").unwrap(),
            Route::Table("n y".into(), "café".into())
        );
        // A table name that is a path (`a/b` inside table `a`'s folder) is refused.
        let path = route("namespaces/nyc/tables/a%2Fb").unwrap_err();
        assert_eq!(path.kind(), ErrorKind::BadRequest);
        assert_eq!(route("tables/rename").unwrap(), Route::Rename);
        let nested = route("namespaces/a%1Fb/tables").unwrap_err();
        assert_eq!(nested.kind(), ErrorKind::BadRequest);
        assert_eq!(route("views").unwrap_err().kind(), ErrorKind::NotFound);
    }

    #[test]
    fn writes() {
        assert!(Route::Rename.writes(&Method::POST));
        assert!(Route::Namespace("a".into()).writes(&Method::DELETE));
        assert!(!Route::Namespace("a".into()).writes(&Method::GET));
        assert!(!Route::Metrics("a".into(), "t".into()).writes(&Method::POST));
    }
}
