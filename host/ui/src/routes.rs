//! Which request goes where: the page's files, and the JSON API under `/api/`.
//!
//! | request | answer |
//! |---|---|
//! | `GET /`, `/app.js`, `/style.css`, `/favicon.svg` | the page ([`crate::assets`]) |
//! | `GET /?token=T` | sets the token cookie, then sends the browser to `/` |
//! | `GET /api/home` | every table's status ([`crate::home`]) |
//! | `GET /api/table?name=NS.T` | one table ([`crate::table`]) |
//! | `GET /api/rows?name=NS.T&snapshot=ID&n=N` | its rows at a snapshot ([`crate::rows`]) |
//! | `POST /api/query` `{"sql": …, "max_rows": N}` | a read-only query ([`crate::query`]) |

use bytes::Bytes;
use hyper::Method;
use serde_json::Value;

use crate::error::{UiError, UiErrorKind};
use crate::state::State;

/// A request, read whole.
pub(crate) struct Request {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    pub(crate) body: Bytes,
    /// Whether the body was declared `application/json`.
    pub(crate) json_body: bool,
}

/// What a route answers.
pub(crate) enum Reply {
    /// A JSON document (200).
    Json(Value),
    /// An embedded file.
    Asset {
        content_type: &'static str,
        body: &'static [u8],
    },
    /// The token cookie, and a redirect to `/` (303).
    SetToken(String),
}

/// Answers `request`.
pub(crate) fn dispatch(state: &State, request: &Request) -> Result<Reply, UiError> {
    let params = params(request.query.as_deref());
    match (&request.method, request.path.as_str()) {
        (&Method::GET | &Method::HEAD, "/api/home") => crate::home::home(state).map(Reply::Json),
        (&Method::GET | &Method::HEAD, "/api/table") => {
            crate::table::table(state, required(&params, "name")?).map(Reply::Json)
        }
        (&Method::GET | &Method::HEAD, "/api/rows") => {
            let snapshot = optional_number(&params, "snapshot")?;
            let n = optional_number(&params, "n")?.map_or(Ok(50), usize::try_from);
            let n = n.map_err(|_| UiError::bad_request("n must be a positive whole number"))?;
            crate::rows::rows(state, required(&params, "name")?, snapshot, n).map(Reply::Json)
        }
        (&Method::POST, "/api/query") => {
            if !request.json_body {
                return Err(UiError::bad_request(
                    "send the query as Content-Type: application/json",
                ));
            }
            let body: Value = serde_json::from_slice(&request.body)
                .map_err(|e| UiError::bad_request(format!("the body is not JSON: {e}")))?;
            crate::query::query(state, &body).map(Reply::Json)
        }
        (&Method::GET | &Method::HEAD, path) => {
            if path == "/"
                && state.settings.token.is_some()
                && let Some(token) = param(&params, "token")
            {
                return Ok(Reply::SetToken(token.to_string()));
            }
            crate::assets::get(path)
                .map(|(content_type, body)| Reply::Asset { content_type, body })
                .ok_or_else(|| UiError::not_found(format!("no page at {path}")))
        }
        (method, path) => Err(UiError::new(
            UiErrorKind::BadRequest,
            format!("{method} {path}: the page only reads (GET), and posts queries to /api/query"),
        )),
    }
}

/// The query string's pairs, percent-decoded (`+` as a space).
pub(crate) fn params(query: Option<&str>) -> Vec<(String, String)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    query
        .unwrap_or("")
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(pair), String::new()),
        })
        .collect()
}

fn param<'a>(params: &'a [(String, String)], key: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

fn required<'a>(params: &'a [(String, String)], key: &str) -> Result<&'a str, UiError> {
    param(params, key).ok_or_else(|| UiError::bad_request(format!("{key} is required")))
}

fn optional_number(params: &[(String, String)], key: &str) -> Result<Option<i64>, UiError> {
    param(params, key)
        .map(|v| {
            v.parse::<i64>().map_err(|_| {
                UiError::bad_request(format!("{key} must be a whole number, got '{v}'"))
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_are_decoded() {
        let p = params(Some("name=shop.orders&sql=SELECT+1%2C2&empty"));
        assert_eq!(param(&p, "name"), Some("shop.orders"));
        assert_eq!(param(&p, "sql"), Some("SELECT 1,2"));
        assert_eq!(param(&p, "empty"), None);
        assert_eq!(optional_number(&p, "n").unwrap(), None);
        let p = params(Some("n=x"));
        assert!(optional_number(&p, "n").is_err());
    }
}
