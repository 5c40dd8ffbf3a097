//! The HTTP server: the listener, and the per-request glue (access, body, blocking handler,
//! headers, errors, logging) on the server loop of [`ldp_http_serve`].
//!
//! Reading the lake runs on the runtime's blocking threads (the catalog and table layers are
//! synchronous).

use std::net::TcpListener as StdListener;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue, LOCATION, REFERRER_POLICY,
    SET_COOKIE, WWW_AUTHENTICATE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use hyper::{Method, Response, StatusCode};
use ldp_http_serve::{RunningServer, ServerOptions};
use ldp_plugin_runtime::Runtime;

use crate::auth;
use crate::error::{UiError, UiErrorKind};
use crate::routes::{self, Reply, Request};
use crate::settings::UiSettings;
use crate::state::State;

/// The largest request body read (a query of 100,000 characters stays far below).
const MAX_BODY_BYTES: usize = 1 << 20;

/// The page loads its own script and style and nothing else; it cannot be framed.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Checks `settings`, binds `settings.listen` and serves the page on a thread of its own;
/// returns once the address is bound. `runtime` is the plugin runtime the lake's tools hold.
///
/// # Errors
///
/// [`UiErrorKind::Settings`] (see [`UiSettings::validate`]), [`UiErrorKind::Start`] when the
/// address is taken or the runtime cannot start.
pub fn start(settings: UiSettings, runtime: Runtime) -> Result<RunningServer, UiError> {
    settings.validate()?;
    let bind_error = |e: std::io::Error| {
        UiError::new(
            UiErrorKind::Start,
            format!(
                "cannot listen on {}: {e}; pick another with --listen",
                settings.listen
            ),
        )
    };
    let listener = StdListener::bind(settings.listen).map_err(bind_error)?;
    let state = Arc::new(State::new(settings, runtime));
    // The home page's first load reads every table's metadata: start reading now, so the
    // browser opened next finds it read.
    let warm = Arc::clone(&state);
    let _ = std::thread::Builder::new()
        .name("ldp-ui-warm".into())
        .spawn(move || {
            if let Err(error) = crate::home::home(&warm) {
                tracing::debug!(%error, "reading the lake ahead failed");
            }
        });
    let options = ServerOptions {
        name: "ldp-ui",
        worker_threads: 1,
        max_blocking_threads: 8,
    };
    ldp_http_serve::start(listener, options, state, handle)
        .map_err(|e| UiError::new(UiErrorKind::Start, format!("cannot start the server: {e}")))
}

/// One request: answered, logged, never failing at the HTTP level.
async fn handle(state: Arc<State>, request: hyper::Request<Incoming>) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let head = method == Method::HEAD;
    let mut response = match respond(state, request).await {
        Ok(reply) => reply_response(reply, head),
        Err(error) => error_response(&error, head),
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (CONTENT_SECURITY_POLICY, CSP),
        (X_FRAME_OPTIONS, "DENY"),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "no-referrer"),
        (CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    tracing::debug!(
        method = %method,
        path,
        status = response.status().as_u16(),
        elapsed_us = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

async fn respond(state: Arc<State>, request: hyper::Request<Incoming>) -> Result<Reply, UiError> {
    // `/?token=T` is how a browser gets the cookie: that token counts as a bearer.
    let query_token = (request.uri().path() == "/")
        .then(|| routes::params(request.uri().query()))
        .and_then(|params| params.into_iter().find(|(k, _)| k == "token"))
        .map(|(_, v)| v);
    auth::check(
        state.settings.token.as_deref(),
        request.headers(),
        query_token.as_deref(),
    )?;
    let json_body = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let (parts, body) = request.into_parts();
    let body = ldp_http_serve::read_body(body, MAX_BODY_BYTES)
        .await
        .map_err(UiError::bad_request)?;
    let request = Request {
        method: parts.method,
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        body,
        json_body,
    };
    tokio::task::spawn_blocking(move || routes::dispatch(&state, &request))
        .await
        .map_err(|e| UiError::internal(format!("the request handler failed: {e}")))?
}

fn reply_response(reply: Reply, head: bool) -> Response<Full<Bytes>> {
    match reply {
        Reply::Json(value) => body_response(
            StatusCode::OK,
            "application/json",
            value.to_string().into_bytes(),
            head,
        ),
        Reply::Asset { content_type, body } => {
            body_response(StatusCode::OK, content_type, body.to_vec(), head)
        }
        Reply::SetToken(token) => {
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = StatusCode::SEE_OTHER;
            let headers = response.headers_mut();
            headers.insert(LOCATION, HeaderValue::from_static("/"));
            if let Ok(cookie) = HeaderValue::from_str(&format!(
                "{}={token}; HttpOnly; SameSite=Strict; Path=/",
                auth::COOKIE_NAME
            )) {
                headers.insert(SET_COOKIE, cookie);
            }
            response
        }
    }
}

/// `{"error": {"type": …, "message": …}}` with the error's status.
fn error_response(error: &UiError, head: bool) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if status.is_server_error() {
        tracing::warn!(%error, "request failed");
    }
    let body = serde_json::json!({"error": {"type": format!("{:?}", error.kind()), "message": error.to_string()}});
    let mut response = body_response(
        status,
        "application/json",
        body.to_string().into_bytes(),
        head,
    );
    if error.kind() == UiErrorKind::Unauthorized {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

fn body_response(
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
    head: bool,
) -> Response<Full<Bytes>> {
    let body = if head { Vec::new() } else { body };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
