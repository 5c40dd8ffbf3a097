//! The HTTP server: the listener, the runtime, the per-request glue (token, body, blocking
//! handler, error responses, logging) and shutdown.
//!
//! The server runs on its own thread with a small tokio runtime; catalog and file work runs on
//! the runtime's blocking threads (the catalog and the table layer are synchronous).

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::auth;
use crate::cache::MetadataCache;
use crate::error::{Error, ErrorKind, Result};
use crate::pool::Served;
use crate::routes::{self, Reply, Request};
use crate::settings::ServeSettings;

/// The largest request body read (a commit of many snapshots stays far below).
pub const MAX_BODY_BYTES: usize = 32 << 20;

/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(10);

/// What every request handler sees.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) catalogs: Vec<Served>,
    pub(crate) token: Option<String>,
    pub(crate) read_only: bool,
    pub(crate) metadata: MetadataCache,
}

/// A server started by [`start`]: its address, and the way to stop it. Dropping it stops the
/// server too.
#[derive(Debug)]
pub struct RunningServer {
    address: SocketAddr,
    shutdown: ShutdownHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Stops a running server from anywhere (a signal handler, another thread): it stops
/// accepting, lets requests in flight finish (up to 10 s) and closes.
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

impl RunningServer {
    /// The address bound (with the actual port when the settings asked for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The base URI clients use: `http://<address>`.
    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// A handle that stops the server.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Stops the server and waits until it has closed.
    pub fn shutdown(mut self) {
        self.shutdown.shutdown();
        self.join();
    }

    /// Waits until the server stops (through a [`ShutdownHandle`]).
    pub fn wait(mut self) {
        self.join();
    }

    fn join(&mut self) {
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the catalog server thread panicked");
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown.shutdown();
        self.join();
    }
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(64)
        .thread_name("ldp-catalog-serve")
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime { source })?;
    let state = Arc::new(State {
        catalogs,
        token: settings.token.clone(),
        read_only: settings.read_only,
        metadata: MetadataCache::default(),
    });
    let (sender, receiver) = watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("ldp-catalog-serve".into())
        .spawn(move || {
            let kept = state.clone();
            runtime.block_on(accept(listener, state, receiver));
            runtime.shutdown_timeout(DRAIN);
            // The last reference goes here, outside the runtime: closing a PostgreSQL
            // connection blocks on the client's own runtime, which panics inside another one.
            drop(kept);
        })
        .map_err(|source| Error::Runtime { source })?;
    tracing::info!(
        address = %address,
        catalogs = settings.catalogs.len(),
        read_only = settings.read_only,
        token = settings.token.is_some(),
        "serving an Iceberg REST catalog on http://{address}"
    );
    Ok(RunningServer {
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
    tracing::info!("the catalog server stopped");
}

/// One request: answered, logged, never failing at the HTTP level.
async fn handle(
    state: Arc<State>,
    request: hyper::Request<Incoming>,
) -> std::result::Result<Response<Full<Bytes>>, Infallible> {
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
    Ok(response)
}

async fn respond(state: Arc<State>, request: hyper::Request<Incoming>) -> Result<Reply> {
    auth::check(state.token.as_deref(), request.headers())?;
    let (parts, body) = request.into_parts();
    let body = Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| Error::bad_request(format!("cannot read the request body: {e}")))?
        .to_bytes();
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
