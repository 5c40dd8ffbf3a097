//! The HTTP server: the listener, and the per-request glue (token, body, blocking handler,
//! error responses, logging) on the server loop of [`ldp_http_serve`].
//!
//! Catalog and file work runs on the runtime's blocking threads (the catalog and the table
//! layer are synchronous).

use std::net::TcpListener as StdListener;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Method, Response, StatusCode};
use ldp_http_serve::ServerOptions;
pub use ldp_http_serve::{RunningServer, ShutdownHandle};

use crate::auth;
use crate::cache::MetadataCache;
use crate::error::{Error, ErrorKind, Result};
use crate::pool::Served;
use crate::routes::{self, Reply, Request};
use crate::settings::ServeSettings;

/// The largest request body read (a commit of many snapshots stays far below).
pub const MAX_BODY_BYTES: usize = 32 << 20;

/// What every request handler sees.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) catalogs: Vec<Served>,
    pub(crate) token: Option<String>,
    pub(crate) read_only: bool,
    pub(crate) metadata: MetadataCache,
}

/// Serves `settings` until the process ends or the server is stopped: [`start`], then
/// [`RunningServer::wait`].
///
/// # Errors
///
/// As [`start`].
pub fn serve(settings: ServeSettings) -> Result<()> {
    start(settings)?.wait();
    Ok(())
}

/// Checks `settings`, opens every catalog once, binds `settings.listen` and serves on a
/// thread of its own; returns once the address is bound. Call it from synchronous code, not
/// from inside an async runtime (the catalogs' PostgreSQL client blocks).
///
/// # Errors
///
/// [`Error::InvalidSettings`] (see [`ServeSettings::validate`]), [`Error::OpenCatalog`] when a
/// catalog cannot be opened (a read-only one must exist), [`Error::Bind`] when the address is
/// taken or not local, [`Error::Runtime`] when the runtime cannot start.
pub fn start(settings: ServeSettings) -> Result<RunningServer> {
    settings.validate()?;
    let catalogs = settings
        .catalogs
        .iter()
        .map(|c| Served::open(c, settings.read_only))
        .collect::<Result<Vec<_>>>()?;
    let listener = StdListener::bind(settings.listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|source| Error::Bind {
            address: settings.listen,
            source,
        })?;
    let address = listener.local_addr().map_err(|source| Error::Bind {
        address: settings.listen,
        source,
    })?;
    let state = Arc::new(State {
        catalogs,
        token: settings.token.clone(),
        read_only: settings.read_only,
        metadata: MetadataCache::default(),
    });
    let options = ServerOptions {
        name: "ldp-catalog-serve",
        worker_threads: 2,
        max_blocking_threads: 64,
    };
    let server = ldp_http_serve::start(listener, options, state, handle)
        .map_err(|source| Error::Runtime { source })?;
    tracing::info!(
        address = %address,
        catalogs = settings.catalogs.len(),
        read_only = settings.read_only,
        token = settings.token.is_some(),
        "serving an Iceberg REST catalog on http://{address}"
    );
    Ok(server)
}

/// One request: answered, logged, never failing at the HTTP level.
async fn handle(state: Arc<State>, request: hyper::Request<Incoming>) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = match respond(state, request).await {
        Ok(reply) => reply_response(reply),
        Err(error) => error_response(&error, method == Method::HEAD),
    };
    tracing::debug!(
        method = %method,
        path,
        status = response.status().as_u16(),
        elapsed_us = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

async fn respond(state: Arc<State>, request: hyper::Request<Incoming>) -> Result<Reply> {
    auth::check(state.token.as_deref(), request.headers())?;
    let (parts, body) = request.into_parts();
    let body = ldp_http_serve::read_body(body, MAX_BODY_BYTES)
        .await
        .map_err(Error::bad_request)?;
    let request = Request {
        method: parts.method,
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        body,
    };
    tokio::task::spawn_blocking(move || routes::dispatch(&state, &request))
        .await
        .map_err(|e| Error::internal(format!("the request handler failed: {e}")))?
}

fn reply_response(reply: Reply) -> Response<Full<Bytes>> {
    match reply {
        Reply::Json(body) => json_response(StatusCode::OK, body),
        Reply::NoContent => {
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        }
    }
}

/// The spec's error model with the error's status (no body for HEAD).
fn error_response(error: &Error, head: bool) -> Response<Full<Bytes>> {
    let status =
        StatusCode::from_u16(error.kind().status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if status.is_server_error() {
        tracing::warn!(%error, "request failed");
    }
    let body = if head {
        Vec::new()
    } else {
        error.to_json().to_string().into_bytes()
    };
    let mut response = json_response(status, body);
    if error.kind() == ErrorKind::Unauthorized {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
