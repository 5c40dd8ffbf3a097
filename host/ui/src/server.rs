//! The HTTP server: the listener, the runtime, the per-request glue (access, body, blocking
//! handler, headers, errors, logging) and shutdown.
//!
//! The server runs on its own thread with a small tokio runtime; reading the lake runs on the
//! runtime's blocking threads (the catalog and table layers are synchronous).

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue, LOCATION, REFERRER_POLICY,
    SET_COOKIE, WWW_AUTHENTICATE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use ldp_plugin_runtime::Runtime;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::auth;
use crate::error::{UiError, UiErrorKind};
use crate::routes::{self, Reply, Request};
use crate::settings::UiSettings;
use crate::state::State;

/// The largest request body read (a query of 100,000 characters stays far below).
const MAX_BODY_BYTES: usize = 1 << 20;

/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// The page loads its own script and style and nothing else; it cannot be framed.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// A server started by [`start`]. Dropping it stops the server.
#[derive(Debug)]
pub struct RunningUi {
    address: SocketAddr,
    shutdown: ShutdownHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Stops a running server from anywhere (a signal handler, another thread).
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    sender: Arc<watch::Sender<bool>>,
}

impl ShutdownHandle {
    /// Asks the server to stop; returns at once.
    pub fn shutdown(&self) {
        self.sender.send_replace(true);
    }
}

impl RunningUi {
    /// The address bound (with the actual port when the settings asked for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The page's address: `http://<address>/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// A handle that stops the server.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Waits until the server stops (through a [`ShutdownHandle`]).
    pub fn wait(mut self) {
        self.join();
    }

    fn join(&mut self) {
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the ui server thread panicked");
        }
    }
}

impl Drop for RunningUi {
    fn drop(&mut self) {
        self.shutdown.shutdown();
        self.join();
    }
}

/// Checks `settings`, binds `settings.listen` and serves the page on a thread of its own;
/// returns once the address is bound. `runtime` is the plugin runtime the lake's tools hold.
///
/// # Errors
///
/// [`UiErrorKind::Settings`] (see [`UiSettings::validate`]), [`UiErrorKind::Start`] when the
/// address is taken or the runtime cannot start.
pub fn start(settings: UiSettings, runtime: Runtime) -> Result<RunningUi, UiError> {
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
    let listener = StdListener::bind(settings.listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(bind_error)?;
    let address = listener.local_addr().map_err(bind_error)?;
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(8)
        .thread_name("ldp-ui")
        .enable_all()
        .build()
        .map_err(|e| UiError::new(UiErrorKind::Start, format!("cannot start the server: {e}")))?;
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
    let (sender, receiver) = watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("ldp-ui".into())
        .spawn(move || {
            tokio.block_on(accept(listener, state, receiver));
            tokio.shutdown_timeout(DRAIN);
        })
        .map_err(|e| UiError::new(UiErrorKind::Start, format!("cannot start the server: {e}")))?;
    Ok(RunningUi {
        address,
        shutdown: ShutdownHandle {
            sender: Arc::new(sender),
        },
        thread: Some(thread),
    })
}

/// Accepts connections until shutdown, then drains them.
async fn accept(listener: StdListener, state: Arc<State>, mut shutdown: watch::Receiver<bool>) {
    let listener = match TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(%error, "cannot listen");
            return;
        }
    };
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let state = state.clone();
                    let service = service_fn(move |request| handle(state.clone(), request));
                    let connection = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service);
                    let connection = graceful.watch(connection);
                    tokio::spawn(async move {
                        if let Err(error) = connection.await {
                            tracing::debug!(%peer, %error, "connection ended with an error");
                        }
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = shutdown.wait_for(|stop| *stop) => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => tracing::warn!("connections still open at shutdown"),
    }
}

/// One request: answered, logged, never failing at the HTTP level.
async fn handle(
    state: Arc<State>,
    request: hyper::Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
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
    Ok(response)
}

async fn respond(state: Arc<State>, request: hyper::Request<Incoming>) -> Result<Reply, UiError> {
    let setting_token = request.uri().path() == "/"
        && request
            .uri()
            .query()
            .is_some_and(|q| routes::params(Some(q)).iter().any(|(k, _)| k == "token"));
    let token = state.settings.token.clone();
    if setting_token {
        // `/?token=T` is how a browser gets the cookie: the token is checked here instead.
        let given = routes::params(request.uri().query())
            .into_iter()
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v);
        let mut headers = hyper::HeaderMap::new();
        if let Some(given) = &given
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {given}"))
        {
            headers.insert(hyper::header::AUTHORIZATION, value);
        }
        headers.extend(request.headers().clone());
        auth::check(token.as_deref(), &headers)?;
    } else {
        auth::check(token.as_deref(), request.headers())?;
    }
    let json_body = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let (parts, body) = request.into_parts();
    let body = Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| UiError::bad_request(format!("cannot read the request body: {e}")))?
        .to_bytes();
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
