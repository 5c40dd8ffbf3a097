//! `ldp cluster scheduler` and `ldp cluster executor`: Ballista's scheduler and executor run in
//! this process through their library API.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::extension::{
    ballista_aggregate_functions, ballista_scalar_functions, ballista_window_functions,
};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::object_store::ObjectStoreRegistry;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;

use crate::error::{Error, Result};
use crate::stores::EnvObjectStores;
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
        // The scheduler lists the files a plan names (their sizes split the scans), through
        // the stores of this process's environment.
        let stores: Arc<dyn ObjectStoreRegistry> = Arc::new(EnvObjectStores::new());
        let config = SchedulerConfig::default()
            .with_hostname(settings.bind.ip().to_string())
            .with_port(settings.bind.port())
            .with_scheduler_policy(TaskSchedulingPolicy::PushStaged)
            .with_override_session_builder(Arc::new(move |config| {
                let runtime = RuntimeEnvBuilder::new()
                    .with_object_store_registry(Arc::clone(&stores))
                    .build_arc()?;
                Ok(SessionStateBuilder::new()
                    .with_default_features()
                    .with_config(config)
                    .with_runtime_env(runtime)
                    .with_scalar_functions(ballista_scalar_functions())
                    .with_aggregate_functions(ballista_aggregate_functions())
                    .with_window_functions(ballista_window_functions())
                    .build())
            }));
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
    // Every task's runtime reads data files through the stores of this process's environment;
    // spills go to the work folder, as Ballista's default runtime puts them.
    let stores: Arc<dyn ObjectStoreRegistry> = Arc::new(EnvObjectStores::new());
    let spill_dir = work_dir_text.to_string();
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
        override_runtime_producer: Some(Arc::new(move |_config| {
            RuntimeEnvBuilder::new()
                .with_temp_file_path(spill_dir.clone())
                .with_object_store_registry(Arc::clone(&stores))
                .build_arc()
        })),
        ..ExecutorProcessConfig::default()
    };
    let runtime = runtime("ldp-executor")?;
    ready(&work_dir);
    let config = Arc::new(config);
    let outcome = runtime.block_on(async {
        let mut attempt = 1;
        loop {
            match start_executor_process(Arc::clone(&config)).await {
                Err(e) if attempt < REGISTRATION_ATTEMPTS && lost_registration_race(&e) => {
                    tracing::warn!(
                        "the scheduler could not reach this executor's gRPC port yet ({e}); \
                         registering again"
                    );
                    tokio::time::sleep(Duration::from_millis(300 * u64::from(attempt))).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    });
    drop(temporary);
    outcome.map_err(|e| Error::Server {
        role: "executor",
        message: e.to_string(),
    })
}

/// How many times an executor registers before it gives up.
const REGISTRATION_ATTEMPTS: u32 = 5;

/// Whether a failed start is Ballista's registration race: the executor registers while its
/// gRPC server is still starting, and the scheduler, which calls that server back to accept
/// it, finds the port closed (a busy machine loses it). Ballista reports it only as text.
fn lost_registration_race(e: &ballista_core::error::BallistaError) -> bool {
    let text = e.to_string();
    text.contains("Failed to register executor") && text.contains("Connection refused")
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

#[cfg(test)]
mod tests {
    use ballista_core::error::BallistaError;

    use super::lost_registration_race;

    /// Pins a CI failure: an executor started on a busy machine exited because the scheduler
    /// called its gRPC port back before it listened.
    #[test]
    fn the_registration_race_is_told_from_other_failures() {
        let race = BallistaError::Internal(
            "Failed to register executor at 127.0.0.1:46441, could not connect: \
             tonic::transport::Error(Transport, ConnectError(\"tcp connect error\", Os { code: \
             111, kind: ConnectionRefused, message: \"Connection refused\" }))"
                .into(),
        );
        assert!(lost_registration_race(&race));
        let other = BallistaError::General("Unable to bind work dir".into());
        assert!(!lost_registration_race(&other));
    }
}
