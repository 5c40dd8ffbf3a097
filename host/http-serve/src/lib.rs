//! The HTTP/1.1 server loop ldp's servers share (`ldp catalog serve`, `ldp ui`).
//!
//! The caller binds the listener (so it reports a taken address its own way) and gives a
//! state and a handler; [`start`] runs a small tokio runtime on a thread of its own, serves
//! each connection on a task, and stops when asked: it stops accepting, lets requests in
//! flight finish (up to [`DRAIN`]) and closes. The handler never fails at the HTTP level: it
//! answers every request, errors included. The last reference to the state is dropped on the
//! server's thread after the runtime has stopped, outside it (closing some clients, such as
//! PostgreSQL's, blocks on a runtime of their own, which panics inside another one).

use std::future::Future;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long a stop waits for requests in flight.
pub const DRAIN: Duration = Duration::from_secs(10);

/// How a server runs.
#[derive(Debug, Clone, Copy)]
pub struct ServerOptions {
    /// The name of its threads, and of the server in its logs.
    pub name: &'static str,
    /// The runtime's worker threads (they only move bytes; handlers block elsewhere).
    pub worker_threads: usize,
    /// The most threads `tokio::task::spawn_blocking` runs at once.
    pub max_blocking_threads: usize,
}

/// A server started by [`start`]: its address, and the way to stop it. Dropping it stops the
/// server too.
#[derive(Debug)]
pub struct RunningServer {
    address: SocketAddr,
    name: &'static str,
    shutdown: ShutdownHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Stops a running server from anywhere (a signal handler, another thread): it stops
/// accepting, lets requests in flight finish (up to [`DRAIN`]) and closes.
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
    /// The address bound (with the actual port when port 0 was asked for).
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
            tracing::error!("the {} server thread panicked", self.name);
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown.shutdown();
        self.join();
    }
}

/// Serves `listener` (bound, in blocking mode or not) on a thread of its own: each request is
/// answered by `handle(state, request)`. Returns once the thread runs.
///
/// # Errors
///
/// The runtime or the thread cannot start.
pub fn start<S, H, F>(
    listener: StdListener,
    options: ServerOptions,
    state: Arc<S>,
    handle: H,
) -> std::io::Result<RunningServer>
where
    S: Send + Sync + 'static,
    H: Fn(Arc<S>, Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.worker_threads)
        .max_blocking_threads(options.max_blocking_threads)
        .thread_name(options.name)
        .enable_all()
        .build()?;
    let (sender, receiver) = watch::channel(false);
    let name = options.name;
    let thread = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let kept = Arc::clone(&state);
            runtime.block_on(accept(listener, state, handle, receiver, name));
            runtime.shutdown_timeout(DRAIN);
            drop(kept);
        })?;
    Ok(RunningServer {
        address,
        name,
        shutdown: ShutdownHandle {
            sender: Arc::new(sender),
        },
        thread: Some(thread),
    })
}

/// Accepts connections until shutdown, then drains them.
async fn accept<S, H, F>(
    listener: StdListener,
    state: Arc<S>,
    handle: H,
    mut shutdown: watch::Receiver<bool>,
    name: &'static str,
) where
    S: Send + Sync + 'static,
    H: Fn(Arc<S>, Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = match TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(%error, "the {name} server cannot listen");
            return;
        }
    };
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let state = Arc::clone(&state);
                    let handle = handle.clone();
                    let service = service_fn(move |request| {
                        let answer = handle(Arc::clone(&state), request);
                        async move { Ok::<_, std::convert::Infallible>(answer.await) }
                    });
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
    tracing::info!("the {name} server stopped");
}

/// A request's body, whole, when it is at most `limit` bytes.
///
/// # Errors
///
/// The body is longer, or the connection failed while it was read: the message says which.
pub async fn read_body(body: Incoming, limit: usize) -> Result<Bytes, String> {
    use http_body_util::{BodyExt, Limited};
    Limited::new(body, limit)
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .map_err(|e| format!("cannot read the request body: {e}"))
}
