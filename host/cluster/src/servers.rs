//! `ldp cluster scheduler`, `ldp cluster executor` and `ldp cluster status`: Ballista's
//! scheduler and executor run in this process through their library API, and the executors a
//! scheduler knows, from its REST API.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ballista_core::config::TaskSchedulingPolicy;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;

use crate::error::{Error, Result};
use crate::url::ClusterUrl;

/// `ldp cluster scheduler`.
#[derive(Debug, Clone)]
pub struct SchedulerSettings {
    /// The address its gRPC service (and REST API) listens on.
    pub bind: SocketAddr,
}

/// `ldp cluster executor`.
#[derive(Debug, Clone)]
pub struct ExecutorSettings {
    /// The scheduler to register with.
    pub scheduler: ClusterUrl,
    /// The address of its Arrow Flight service (the shuffle data other executors and clients
    /// fetch).
    pub bind: SocketAddr,
    /// The port of its gRPC service (the scheduler pushes tasks to it), on `bind`'s address.
    pub grpc_port: u16,
    /// The host the scheduler and the other executors reach it at; `None`: the address it
    /// connects to the scheduler from.
    pub advertise: Option<String>,
    /// The folder for its shuffle files; `None`: a temporary folder deleted when it stops.
    pub work_dir: Option<PathBuf>,
    /// Tasks it runs at once; `None`: one per core.
    pub concurrent_tasks: Option<usize>,
}

/// An executor a scheduler knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorInfo {
    /// Its id.
    pub id: String,
    /// Its host and Flight port.
    pub host: String,
    /// Its Arrow Flight port.
    pub port: u16,
    /// Tasks it runs at once.
    pub task_slots: u64,
}

/// The threads' stack: DataFusion's planner recurses over deep plans on the scheduler too.
const STACK_BYTES: usize = 32 * 1024 * 1024;

fn runtime(name: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .thread_name(name)
        .thread_stack_size(STACK_BYTES)
        .enable_all()
        .build()
        .map_err(Error::Runtime)
}

/// Ballista logs through `log`: its records go to ldp's tracing output (`-v`, `LDP_LOG`).
fn forward_logs() {
    let _ = tracing_log::LogTracer::init();
}

/// Runs a scheduler until Ctrl-C or SIGTERM; `ready` is called with its URL once it is about to
/// accept connections.
///
/// # Errors
///
/// [`Error::Server`] when it cannot bind its address or stops on an error.
pub fn run_scheduler(settings: &SchedulerSettings, ready: impl FnOnce(&ClusterUrl)) -> Result<()> {
    forward_logs();
    let runtime = runtime("ldp-scheduler")?;
    let server_error = |e: ballista_core::error::BallistaError| Error::Server {
        role: "scheduler",
        message: e.to_string(),
    };
    runtime.block_on(async {
        // Bound here first, so a taken port fails before anything is announced.
        let probe = tokio::net::TcpListener::bind(settings.bind)
            .await
            .map_err(|e| Error::Server {
                role: "scheduler",
                message: format!("cannot listen on {}: {e}", settings.bind),
            })?;
        drop(probe);
        let config = SchedulerConfig::default()
            .with_hostname(settings.bind.ip().to_string())
            .with_port(settings.bind.port())
            .with_scheduler_policy(TaskSchedulingPolicy::PushStaged);
        let config = Arc::new(config);
        let cluster = BallistaCluster::new_from_config(&config)
            .await
            .map_err(server_error)?;
        let url = ClusterUrl::parse(&format!("df://{}", settings.bind))?;
        ready(&url);
        tokio::select! {
            served = start_server(cluster, settings.bind, config) => served.map_err(server_error),
            () = stop_signal() => Ok(()),
        }
    })
}

/// Runs an executor registered with its scheduler until Ctrl-C or SIGTERM (it then tells the
/// scheduler it stops); `ready` is called once it starts registering.
///
/// # Errors
///
/// [`Error::Unreachable`] when the scheduler does not answer, [`Error::Server`] when the
/// executor cannot start or stops on an error.
pub fn run_executor(settings: &ExecutorSettings, ready: impl FnOnce(&Path)) -> Result<()> {
    forward_logs();
    drop(settings.scheduler.connect()?);
    if settings.grpc_port == settings.bind.port() {
        return Err(Error::Settings(format!(
            "the executor's gRPC port {} is its Flight port too; give another with --grpc-port",
            settings.grpc_port
        )));
    }
    let temporary = match &settings.work_dir {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("ldp-executor-")
                .tempdir()
                .map_err(|e| Error::Settings(format!("cannot create a work folder: {e}")))?,
        ),
    };
    let work_dir = match (&settings.work_dir, &temporary) {
        (Some(dir), _) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::Settings(format!(
                    "cannot create the work folder {}: {e}",
                    dir.display()
                ))
            })?;
            dir.clone()
        }
        (None, Some(temp)) => temp.path().to_path_buf(),
        (None, None) => unreachable!("a temporary folder exists when none is given"),
    };
    let work_dir_text = work_dir.to_str().ok_or_else(|| {
        Error::Settings(format!(
            "the work folder {} is not valid UTF-8",
            work_dir.display()
        ))
    })?;
    let bind_ip = settings.bind.ip();
    let advertise = settings
        .advertise
        .clone()
        .or_else(|| (!bind_ip.is_unspecified()).then(|| bind_ip.to_string()));
    let config = ExecutorProcessConfig {
        bind_host: bind_ip.to_string(),
        external_host: advertise,
        port: settings.bind.port(),
        grpc_port: settings.grpc_port,
        scheduler_host: settings.scheduler.host().to_string(),
        scheduler_port: settings.scheduler.port(),
        scheduler_connect_timeout_seconds: 10,
        concurrent_tasks: settings.concurrent_tasks.unwrap_or(0),
        task_scheduling_policy: TaskSchedulingPolicy::PushStaged,
        work_dir: Some(work_dir_text.to_string()),
        print_thread_info: false,
        ..ExecutorProcessConfig::default()
    };
    let runtime = runtime("ldp-executor")?;
    ready(&work_dir);
    let outcome = runtime.block_on(start_executor_process(Arc::new(config)));
    drop(temporary);
    outcome.map_err(|e| Error::Server {
        role: "executor",
        message: e.to_string(),
    })
}

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The executors the scheduler at `url` knows (from its REST API, `GET /api/executors`).
///
/// # Errors
///
/// [`Error::Unreachable`] when nothing answers at `url` or the answer is not the scheduler's.
pub fn executors(url: &ClusterUrl) -> Result<Vec<ExecutorInfo>> {
    let unreachable = |reason: String| Error::Unreachable {
        url: url.to_string(),
        reason,
    };
    let mut stream = url.connect()?;
    let timeout = Some(Duration::from_secs(10));
    let _ = stream.set_read_timeout(timeout);
    let _ = stream.set_write_timeout(timeout);
    let request = format!(
        "GET /api/executors HTTP/1.1\r\nHost: {}:{}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        url.host(),
        url.port()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| unreachable(e.to_string()))?;
    let mut answer = Vec::new();
    stream
        .take(16 * 1024 * 1024)
        .read_to_end(&mut answer)
        .map_err(|e| unreachable(e.to_string()))?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| unreachable("it did not answer over HTTP".into()))?;
    if !head.starts_with("HTTP/1.1 200") {
        let status = head.lines().next().unwrap_or_default();
        return Err(unreachable(format!(
            "GET /api/executors answered '{status}', not a Ballista scheduler's list"
        )));
    }
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    let list: serde_json::Value = serde_json::from_str(&body)
        .map_err(|e| unreachable(format!("its executor list is not JSON: {e}")))?;
    let items = list
        .as_array()
        .ok_or_else(|| unreachable("its executor list is not a JSON array".into()))?;
    Ok(items
        .iter()
        .map(|item| ExecutorInfo {
            id: item["id"].as_str().unwrap_or_default().to_string(),
            host: item["host"].as_str().unwrap_or_default().to_string(),
            port: item["port"]
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or_default(),
            task_slots: item["specification"]["task_slots"].as_u64().unwrap_or(0),
        })
        .collect())
}

/// An HTTP/1.1 chunked body, joined.
fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(unchunk("3\r\n[{}\r\n1\r\n]\r\n0\r\n\r\n"), "[{}]");
    }
}
