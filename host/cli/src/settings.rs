//! Validated settings ("high-level" arguments): everything the command line says, checked and
//! resolved before any work starts.

mod maintain;

pub use maintain::MaintainSettings;

use crate::args::{
    Cli, ClusterCommand, Command, DemoArgs, ModeArg, PlanArgs, PluginsCommand, QueryArgs, RunArgs,
    RunCmdArgs, RunOutput, RunsArgs, TransformCommand, TransformTestArgs,
};
use ldp_plugin_runtime::{Grants, Limits, Sandbox};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A command line that cannot be run, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// `--config` is not a JSON object.
    #[error("--config is not a JSON object: {0}")]
    ConfigJson(String),
    /// Options that do not go together, or an option's value that cannot be used; the message
    /// names the option.
    #[error("{0}")]
    Options(String),
    /// `--config-file` cannot be read or parsed.
    #[error("cannot read config file {}: {reason}", path.display())]
    ConfigFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A number out of range.
    #[error("{flag} must be {what}, got {value}")]
    OutOfRange {
        /// The flag.
        flag: &'static str,
        /// What it must be.
        what: &'static str,
        /// What it was.
        value: String,
    },
    /// A plugin name that is neither built in nor a file.
    #[error(
        "no built-in plugin is named '{name}' (built-in: {builtins}); give a path to a .wasm file to run another plugin"
    )]
    UnknownPlugin {
        /// The name.
        name: String,
        /// The built-in names.
        builtins: String,
    },
    /// `--as-of` is not a time.
    #[error(
        "--as-of: cannot read {0:?} as a time; give 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' (UTC) or one with an offset such as '2026-07-31T23:59:59+02:00'"
    )]
    AsOf(String),
    /// `--window`, `--idempotency-key`, `--run-id` and `--attempt` that do not go together.
    #[error("{0}")]
    Staged(&'static str),
    /// `--kind` names no kind of file.
    #[error("--kind: {0}")]
    Kind(String),
    /// A query argument list without a config.
    #[error("ldp query needs at least one CONFIG before the SQL")]
    QueryArgs,
    /// A cluster URL or executor setting that cannot work.
    #[error("{flag}: {source}")]
    Cluster {
        /// The option.
        flag: &'static str,
        /// What is wrong.
        source: ldp_cluster::Error,
    },
    /// A folder to grant that does not exist.
    #[error("cannot grant {}: {reason}", path.display())]
    Grant {
        /// The folder.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Everything a run of `ldp` needs.
#[derive(Debug)]
pub struct Settings {
    /// The tracing filter for stderr.
    pub log_filter: String,
    /// Where compiled plugins are cached.
    pub cache_dir: Option<PathBuf>,
    /// What to do.
    pub task: Task,
}

/// One command, validated.
#[derive(Debug)]
pub enum Task {
    /// `ldp run`.
    Run(RunCmdSettings),
    /// `ldp plan`.
    Plan(PlanArgs),
    /// `ldp schema`.
    Schema {
        /// The kind whose schema to print.
        kind: ldp_config::Kind,
    },
    /// `ldp runs`.
    Runs(RunsSettings),
    /// `ldp status`.
    Status(crate::args::StatusArgs),
    /// `ldp commits`.
    Commits {
        /// The config file.
        config: PathBuf,
        /// `--key`.
        key: Option<String>,
        /// `--branches`.
        branches: bool,
        /// JSON output.
        json: bool,
    },
    /// `ldp snapshots`.
    Snapshots {
        /// The config file.
        config: PathBuf,
        /// JSON output.
        json: bool,
    },
    /// `ldp maintain`.
    Maintain(MaintainSettings),
    /// `ldp gold sync`.
    GoldSync(crate::args::GoldSyncArgs),
    /// `ldp gold build`.
    GoldBuild(crate::args::GoldBuildArgs),
    /// `ldp gold releases`.
    GoldReleases(crate::args::GoldReleasesArgs),
    /// `ldp dbt init`.
    DbtInit(crate::args::DbtInitArgs),
    /// `ldp dbt build|test|docs|exec`.
    Dbt(ldp_dbt::DbtCommand, crate::args::DbtRunArgs),
    /// `ldp query`.
    Query(QuerySettings),
    /// `ldp pipelines`.
    Pipelines {
        /// JSON output.
        json: bool,
    },
    /// `ldp plugins`.
    PluginsList {
        /// JSON output.
        json: bool,
    },
    /// `ldp plugins inspect`.
    PluginsInspect {
        /// The file.
        file: PathBuf,
        /// JSON output.
        json: bool,
    },
    /// `ldp plugins run`.
    PluginsRun(RunSettings),
    /// `ldp demo` (its arguments are checked by clap; the demo resolves them).
    Demo(DemoArgs),
    /// `ldp transform test`.
    TransformTest(TransformTestSettings),
    /// `ldp plugin new`.
    PluginNew(crate::args::NewPluginArgs),
    /// `ldp plugin wit DIR`.
    PluginWit { dir: std::path::PathBuf },
    /// `ldp workflow plan`.
    WorkflowPlan(crate::args::WorkflowPlanArgs),
    /// `ldp backfill`.
    Backfill(crate::args::BackfillArgs),
    /// `ldp schedule list`.
    ScheduleList(crate::args::ScheduleListArgs),
    /// `ldp mcp`.
    Mcp(ldp_mcp::McpSettings),
    /// `ldp ui`.
    Ui(ldp_ui::UiSettings),
    /// `ldp workflow run`.
    WorkflowRun(crate::args::WorkflowRunArgs),
    /// `ldp schedule tick`.
    ScheduleTick(crate::args::ScheduleTickArgs),
    /// `ldp schedule run`.
    ScheduleRun(crate::args::ScheduleRunArgs),
    /// `ldp schedule install --print`.
    ScheduleInstall(crate::args::ScheduleInstallArgs),
    /// `ldp datasets pin|list|export` (checked by the datasets layer).
    Datasets(crate::args::DatasetsCommand),
    /// `ldp catalog test`.
    Catalog(crate::args::CatalogCommand),
    /// `ldp cluster scheduler`.
    ClusterScheduler(ldp_cluster::SchedulerSettings),
    /// `ldp cluster executor`.
    ClusterExecutor(ldp_cluster::ExecutorSettings),
    /// `ldp cluster status`.
    ClusterStatus {
        /// The scheduler.
        scheduler: ldp_cluster::ClusterUrl,
        /// JSON output.
        json: bool,
    },
}

/// `ldp run`, validated.
#[derive(Debug, Clone)]
pub struct RunCmdSettings {
    /// The config file.
    pub config: PathBuf,
    /// `--mode`.
    pub mode: Option<ldp_config::WriteMode>,
    /// A staged run's options, when it is one.
    pub staged: Option<StagedArgs>,
    /// `--strict`: keys ldp ignores are errors.
    pub strict: bool,
    /// JSON output.
    pub json: bool,
    /// `--pipe-transform TO,FROM`.
    pub pipe: Option<ldp_pipeline::transform::PipeTransform>,
}

/// What makes `ldp run` a staged run, checked against each other.
#[derive(Debug, Clone)]
pub struct StagedArgs {
    /// `--window`, as written (it is read in the config's time zone).
    pub window: Option<String>,
    /// `--idempotency-key`; `None` for `auto` (the window's key).
    pub key: Option<String>,
    /// `--run-id`.
    pub run_id: Option<String>,
    /// `--attempt` (1 by default).
    pub attempt: u32,
}

/// `ldp runs`, as given (every combination is valid).
pub type RunsSettings = RunsArgs;

/// Which version of a table a query reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeTravel {
    /// The current snapshot.
    Current,
    /// `--snapshot ID`.
    Snapshot(i64),
    /// `--as-of TIME`, in milliseconds since the epoch.
    AsOf(i64),
    /// `--release rN`: the release's number.
    Release(u32),
}

/// `ldp query`, validated.
#[derive(Debug)]
pub struct QuerySettings {
    /// Config files or folders.
    pub configs: Vec<PathBuf>,
    /// The SQL.
    pub sql: String,
    /// Rows to print.
    pub max_rows: usize,
    /// Which snapshot.
    pub at: TimeTravel,
    /// JSON output.
    pub json: bool,
    /// `--arrow`: every row as an Arrow IPC stream on stdout.
    pub arrow: bool,
    /// `--cluster`: the scheduler that runs the query.
    pub cluster: Option<ldp_cluster::ClusterUrl>,
    /// `--timeout`: when the query is stopped.
    pub timeout: Option<std::time::Duration>,
}

/// Which plugin to run.
#[derive(Debug, Clone)]
pub enum PluginRef {
    /// A built-in plugin, by crate name.
    Builtin(&'static ldp_builtin_plugins::Builtin),
    /// A component file.
    File(PathBuf),
}

/// `ldp transform test`, validated.
#[derive(Debug)]
pub struct TransformTestSettings {
    /// The config whose source gives the sample.
    pub config: PathBuf,
    /// The transform tried.
    pub transform: ldp_config::TransformSpec,
    /// Rows of the sample.
    pub rows: usize,
    /// After the config's own transforms.
    pub after_config: bool,
    /// `--json`.
    pub json: bool,
}

/// `--code FILE` (.js or .wasm, relative to the working folder) or `--js SOURCE`, as a
/// transform item.
fn transform_test_settings(
    args: TransformTestArgs,
) -> Result<TransformTestSettings, SettingsError> {
    let plugin_config = match &args.plugin_config {
        None => None,
        Some(text) => Some(
            serde_json::from_str::<serde_json::Value>(text)
                .map_err(|e| SettingsError::Options(format!("--plugin-config: {e}")))?,
        ),
    };
    let item = match (&args.code, &args.js) {
        (_, Some(source)) => serde_json::json!({"js": source, "name": "--js"}),
        (Some(file), None) => {
            let absolute = std::path::absolute(file).map_err(|e| SettingsError::Grant {
                path: file.clone(),
                reason: e.to_string(),
            })?;
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let path = absolute.display().to_string();
            if path.ends_with(".wasm") {
                let mut item = serde_json::json!({"plugin": path, "name": name});
                if let Some(config) = &plugin_config {
                    item["config"] = config.clone();
                }
                item
            } else {
                serde_json::json!({"js_file": path, "name": name})
            }
        }
        (None, None) => {
            return Err(SettingsError::Options(
                "give the transform with --code FILE (.js or .wasm) or --js SOURCE".into(),
            ));
        }
    };
    if plugin_config.is_some() && item.get("plugin").is_none() {
        return Err(SettingsError::Options(
            "--plugin-config goes with --code FILE.wasm; JavaScript transforms take no config"
                .into(),
        ));
    }
    let mut item = item;
    let mut limits = serde_json::Map::new();
    if let Some(seconds) = args.timeout {
        limits.insert("timeout_s".into(), serde_json::json!(seconds));
    }
    if let Some(mb) = args.max_memory_mb {
        limits.insert("memory_mb".into(), serde_json::json!(mb));
    }
    if !limits.is_empty() {
        item["limits"] = serde_json::Value::Object(limits);
    }
    let transform = ldp_config::parse_transform(0, &item).map_err(|message| {
        SettingsError::Options(
            message
                .replace("limits.timeout_s", "--timeout")
                .replace("limits.memory_mb", "--max-memory-mb"),
        )
    })?;
    Ok(TransformTestSettings {
        config: args.config,
        transform,
        rows: args.rows as usize,
        after_config: args.after_config,
        json: args.json,
    })
}

/// `ldp plugins run`, validated.
#[derive(Debug)]
pub struct RunSettings {
    /// The plugin.
    pub plugin: PluginRef,
    /// Its config, a JSON object text.
    pub config: String,
    /// Its sandbox.
    pub sandbox: Sandbox,
    /// Rows to print.
    pub head: Option<u64>,
    /// What to print.
    pub output: RunOutput,
    /// Transform plugins the batches go through, each with its config (a JSON object text).
    pub transforms: Vec<(PluginRef, String)>,
}

impl Settings {
    /// Validates the parsed command line.
    pub fn from_cli(cli: Cli) -> Result<Self, SettingsError> {
        let log_filter = std::env::var("LDP_LOG").ok().unwrap_or_else(|| {
            match cli.verbose {
                0 => "warn",
                1 => "debug",
                _ => "trace",
            }
            .to_string()
        });
        let cache_dir = if cli.no_cache {
            None
        } else {
            cli.cache_dir.or_else(ldp_plugin_runtime::default_cache_dir)
        };
        let task = match cli.command {
            Command::Run(args) => Task::Run(RunCmdSettings {
                staged: staged_args(&args)?,
                pipe: args
                    .pipe_transform
                    .as_deref()
                    .map(pipe_setting)
                    .transpose()?,
                config: args.config,
                mode: args.mode.map(|m| match m {
                    ModeArg::Append => ldp_config::WriteMode::Append,
                    ModeArg::Overwrite => ldp_config::WriteMode::Overwrite,
                    ModeArg::Upsert => ldp_config::WriteMode::Upsert,
                }),
                strict: args.strict,
                json: args.json,
            }),
            Command::Plan(args) => Task::Plan(args),
            Command::Schema { kind } => Task::Schema {
                kind: ldp_config::parse_kind(&kind).map_err(SettingsError::Kind)?,
            },
            Command::Runs(args) => Task::Runs(args),
            Command::Status(args) => Task::Status(args),
            Command::Commits {
                config,
                key,
                branches,
                json,
            } => Task::Commits {
                config,
                key,
                branches,
                json,
            },
            Command::Snapshots { config, json } => Task::Snapshots { config, json },
            Command::Maintain(args) => Task::Maintain(maintain::settings(args)?),
            Command::Gold(crate::args::GoldCommand::Sync(args)) => Task::GoldSync(args),
            Command::Gold(crate::args::GoldCommand::Build(args)) => Task::GoldBuild(args),
            Command::Dbt(command) => {
                use crate::args::DbtCommand as Args;
                match command {
                    Args::Init(args) => Task::DbtInit(args),
                    Args::Build(args) => Task::Dbt(ldp_dbt::DbtCommand::Build, args),
                    Args::Test(args) => Task::Dbt(ldp_dbt::DbtCommand::Test, args),
                    Args::Docs(args) => {
                        Task::Dbt(ldp_dbt::DbtCommand::Docs { serve: args.serve }, args.run)
                    }
                    Args::Exec(args) => Task::Dbt(ldp_dbt::DbtCommand::Exec, args),
                }
            }
            Command::Gold(crate::args::GoldCommand::Releases(args)) => {
                if let Some(name) = &args.show {
                    release_setting(name)?;
                }
                Task::GoldReleases(args)
            }
            Command::Query(args) => Task::Query(query_settings(args)?),
            Command::Pipelines { json } => Task::Pipelines { json },
            Command::Plugins(args) => match args.command {
                None => Task::PluginsList { json: args.json },
                Some(PluginsCommand::Inspect { file, json }) => Task::PluginsInspect {
                    file,
                    json: json || args.json,
                },
                Some(PluginsCommand::Run(run)) => Task::PluginsRun(run_settings(run)?),
                Some(PluginsCommand::New(args)) => Task::PluginNew(args),
                Some(PluginsCommand::Wit { dir }) => Task::PluginWit { dir },
            },
            Command::Demo(args) => Task::Demo(args),
            Command::Transform(TransformCommand::Test(args)) => {
                Task::TransformTest(transform_test_settings(args)?)
            }
            Command::Mcp(args) => Task::Mcp(mcp_settings(args)?),
            Command::Ui(args) => Task::Ui(ui_settings(args)?),
            Command::Workflow(crate::args::WorkflowCommand::Plan(args)) => Task::WorkflowPlan(args),
            Command::Workflow(crate::args::WorkflowCommand::Run(args)) => {
                check_jobs(args.jobs)?;
                Task::WorkflowRun(args)
            }
            Command::Backfill(args) => {
                check_jobs(args.jobs)?;
                Task::Backfill(args)
            }
            Command::Schedule(crate::args::ScheduleCommand::List(args)) => Task::ScheduleList(args),
            Command::Schedule(crate::args::ScheduleCommand::Tick(args)) => {
                check_jobs(args.jobs)?;
                Task::ScheduleTick(args)
            }
            Command::Schedule(crate::args::ScheduleCommand::Run(args)) => {
                check_jobs(args.jobs)?;
                Task::ScheduleRun(args)
            }
            Command::Schedule(crate::args::ScheduleCommand::Install(args)) => {
                Task::ScheduleInstall(args)
            }
            Command::Datasets(command) => Task::Datasets(command),
            Command::Catalog(command) => Task::Catalog(command),
            Command::Cluster(ClusterCommand::Scheduler(args)) => {
                Task::ClusterScheduler(ldp_cluster::SchedulerSettings { bind: args.bind })
            }
            Command::Cluster(ClusterCommand::Executor(args)) => {
                Task::ClusterExecutor(executor_settings(args)?)
            }
            Command::Cluster(ClusterCommand::Status(args)) => Task::ClusterStatus {
                scheduler: cluster_url("SCHEDULER", &args.scheduler)?,
                json: args.json,
            },
        };
        Ok(Self {
            log_filter,
            cache_dir,
            task,
        })
    }
}

/// The `--timeout` of a server's queries (`ldp mcp`, `ldp ui`): above 0, at most an hour.
fn served_query_timeout(seconds: f64) -> Result<std::time::Duration, SettingsError> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0) {
        return Err(SettingsError::OutOfRange {
            flag: "--timeout",
            what: "a number of seconds above 0 and at most 3600",
            value: seconds.to_string(),
        });
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// The settings of `ldp mcp`, checked.
fn mcp_settings(args: crate::args::McpArgs) -> Result<ldp_mcp::McpSettings, SettingsError> {
    Ok(ldp_mcp::McpSettings {
        configs: args.configs,
        catalogs: args.catalogs,
        allow: args
            .allow
            .into_iter()
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect(),
        max_rows: usize::try_from(args.max_rows).unwrap_or(500),
        timeout: served_query_timeout(args.timeout)?,
        audit: args.audit,
        iceberg_audit: !args.no_iceberg_audit,
        memory_limit: usize::try_from(args.max_memory_mb.saturating_mul(1024 * 1024)).ok(),
        engine: cluster_setting(args.cluster.as_deref())?.map(ldp_cluster::cluster_engine),
    })
}

/// The settings of `ldp ui`, checked: the token comes from `LDP_UI_TOKEN`.
fn ui_settings(args: crate::args::UiArgs) -> Result<ldp_ui::UiSettings, SettingsError> {
    let mut settings = ldp_ui::UiSettings::new(args.paths, args.listen);
    settings.token = std::env::var(ldp_ui::TOKEN_ENV)
        .ok()
        .filter(|t| !t.is_empty());
    settings.max_rows = usize::try_from(args.max_rows).unwrap_or(1000);
    settings.timeout = served_query_timeout(args.timeout)?;
    settings.memory_limit = usize::try_from(args.max_memory_mb.saturating_mul(1024 * 1024)).ok();
    settings
        .validate()
        .map_err(|e| SettingsError::Options(e.to_string()))?;
    Ok(settings)
}

/// `--jobs` is at least 1.
fn check_jobs(jobs: Option<usize>) -> Result<(), SettingsError> {
    if jobs == Some(0) {
        return Err(SettingsError::OutOfRange {
            flag: "--jobs",
            what: "at least 1 (how many tasks may run at once)",
            value: "0".into(),
        });
    }
    Ok(())
}

/// The Python tool's rules: `--attempt` needs `--run-id`, `--run-id` needs `--window` or a key,
/// `auto` needs `--window`.
fn staged_args(args: &RunCmdArgs) -> Result<Option<StagedArgs>, SettingsError> {
    if args.attempt.is_some() && args.run_id.is_none() {
        return Err(SettingsError::Staged(
            "--attempt needs --run-id: a retry reuses the run id of the attempt before it",
        ));
    }
    if args.run_id.is_some() && args.window.is_none() && args.idempotency_key.is_none() {
        return Err(SettingsError::Staged(
            "--run-id needs --window or --idempotency-key, because only a staged run has attempts",
        ));
    }
    let key = match args.idempotency_key.as_deref() {
        Some("auto") if args.window.is_none() => {
            return Err(SettingsError::Staged(
                "--idempotency-key auto needs --window, because the key is derived from the window",
            ));
        }
        Some("auto") | None => None,
        Some(key) if key.trim().is_empty() => {
            return Err(SettingsError::Staged(
                "--idempotency-key must not be empty; give a key, or 'auto' with --window",
            ));
        }
        Some(key) => Some(key.to_string()),
    };
    if args.window.is_none() && key.is_none() {
        return Ok(None);
    }
    Ok(Some(StagedArgs {
        window: args.window.clone(),
        key,
        run_id: args.run_id.clone(),
        attempt: args.attempt.unwrap_or(1),
    }))
}

fn query_settings(mut args: QueryArgs) -> Result<QuerySettings, SettingsError> {
    let sql = args.args.pop().ok_or(SettingsError::QueryArgs)?;
    if args.args.is_empty() {
        return Err(SettingsError::QueryArgs);
    }
    let at = match (args.snapshot, &args.as_of, &args.release) {
        (Some(id), _, _) => TimeTravel::Snapshot(id),
        (None, Some(text), _) => TimeTravel::AsOf(parse_as_of(text)?),
        (None, None, Some(name)) => TimeTravel::Release(release_setting(name)?),
        (None, None, None) => TimeTravel::Current,
    };
    Ok(QuerySettings {
        configs: args.args.into_iter().map(PathBuf::from).collect(),
        sql,
        max_rows: args.max_rows,
        at,
        json: args.json,
        arrow: args.arrow,
        cluster: cluster_setting(args.cluster.as_deref())?,
        timeout: args.timeout.map(query_timeout).transpose()?,
    })
}

/// `--pipe-transform TO,FROM`: two paths.
fn pipe_setting(text: &str) -> Result<ldp_pipeline::transform::PipeTransform, SettingsError> {
    match text.split_once(',') {
        Some((to, from)) if !to.is_empty() && !from.is_empty() && !from.contains(',') => {
            Ok(ldp_pipeline::transform::PipeTransform {
                to: PathBuf::from(to),
                from: PathBuf::from(from),
            })
        }
        _ => Err(SettingsError::Options(format!(
            "--pipe-transform takes two paths, TO,FROM (such as /dev/fd/5,/dev/fd/6), got {text:?}"
        ))),
    }
}

/// A release name (`r1`, `r2`, ...), as its number.
fn release_setting(name: &str) -> Result<u32, SettingsError> {
    ldp_gold::release::release_number(name).ok_or_else(|| {
        SettingsError::Options(format!(
            "a release is named r1, r2, ... (ldp gold releases DIR lists them), got {name:?}"
        ))
    })
}

/// `ldp query --timeout`: above 0, at most a day.
fn query_timeout(seconds: f64) -> Result<std::time::Duration, SettingsError> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
        return Err(SettingsError::OutOfRange {
            flag: "--timeout",
            what: "a number of seconds above 0 and at most 86400",
            value: seconds.to_string(),
        });
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// `--cluster` (or `LDP_CLUSTER`): a scheduler's URL; `local`, empty or unset: this process.
pub fn cluster_setting(
    text: Option<&str>,
) -> Result<Option<ldp_cluster::ClusterUrl>, SettingsError> {
    match text.map(str::trim) {
        None | Some("" | "local") => Ok(None),
        Some(url) => cluster_url("--cluster (or LDP_CLUSTER)", url).map(Some),
    }
}

fn cluster_url(flag: &'static str, text: &str) -> Result<ldp_cluster::ClusterUrl, SettingsError> {
    ldp_cluster::ClusterUrl::parse(text).map_err(|source| SettingsError::Cluster { flag, source })
}

fn executor_settings(
    args: crate::args::ClusterExecutorArgs,
) -> Result<ldp_cluster::ExecutorSettings, SettingsError> {
    let grpc_port = match args.grpc_port {
        Some(port) => port,
        None => args
            .bind
            .port()
            .checked_add(1)
            .ok_or(SettingsError::OutOfRange {
                flag: "--bind",
                what: "a port below 65535 when --grpc-port is not given",
                value: args.bind.port().to_string(),
            })?,
    };
    if grpc_port == args.bind.port() {
        return Err(SettingsError::Options(format!(
            "--grpc-port {grpc_port} is --bind's port too; the executor needs two ports"
        )));
    }
    if args.concurrent_tasks == Some(0) {
        return Err(SettingsError::OutOfRange {
            flag: "--concurrent-tasks",
            what: "at least 1",
            value: "0".into(),
        });
    }
    Ok(ldp_cluster::ExecutorSettings {
        scheduler: cluster_url("--scheduler", &args.scheduler)?,
        bind: args.bind,
        grpc_port,
        advertise: args.advertise,
        work_dir: args.work_dir,
        concurrent_tasks: args.concurrent_tasks,
    })
}

/// `--as-of TIME`: with an offset as given; without one, UTC; a date alone is midnight.
pub fn parse_as_of(text: &str) -> Result<i64, SettingsError> {
    let trimmed = text.trim();
    let fail = || SettingsError::AsOf(text.to_string());
    if let Ok(ts) = trimmed.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let civil = trimmed
        .parse::<jiff::civil::DateTime>()
        .or_else(|_| {
            trimmed
                .parse::<jiff::civil::Date>()
                .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
        })
        .map_err(|_| fail())?;
    civil
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map(|z| z.timestamp().as_millisecond())
        .map_err(|_| fail())
}

/// A plugin named on the command line: a path when it looks like one, else a built-in name.
fn plugin_ref(name: &str) -> Result<PluginRef, SettingsError> {
    if name.ends_with(".wasm") || name.contains('/') {
        return Ok(PluginRef::File(PathBuf::from(name)));
    }
    let builtin = ldp_builtin_plugins::get(name).ok_or_else(|| SettingsError::UnknownPlugin {
        name: name.to_string(),
        builtins: ldp_builtin_plugins::BUILTIN
            .iter()
            .map(|b| b.name)
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    Ok(PluginRef::Builtin(builtin))
}

/// `--transform` and `--transform-config`, paired by position.
fn transforms(run: &RunArgs) -> Result<Vec<(PluginRef, String)>, SettingsError> {
    if run.transform_config.len() > run.transform.len() {
        return Err(SettingsError::Options(format!(
            "{} --transform-config value(s) for {} --transform plugin(s): give each transform's config right after it",
            run.transform_config.len(),
            run.transform.len()
        )));
    }
    run.transform
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let config = match run.transform_config.get(i) {
                None => "{}".to_string(),
                Some(text) => {
                    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                        SettingsError::Options(format!("--transform-config #{}: {e}", i + 1))
                    })?;
                    if !value.is_object() {
                        return Err(SettingsError::Options(format!(
                            "--transform-config #{}: expected an object, got {value}",
                            i + 1
                        )));
                    }
                    value.to_string()
                }
            };
            Ok((plugin_ref(name)?, config))
        })
        .collect()
}

fn run_settings(run: RunArgs) -> Result<RunSettings, SettingsError> {
    let plugin = plugin_ref(&run.plugin)?;
    let transforms = transforms(&run)?;
    let mut config: serde_json::Value = match (&run.config, &run.config_file) {
        (Some(text), _) => {
            serde_json::from_str(text).map_err(|e| SettingsError::ConfigJson(e.to_string()))?
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| SettingsError::ConfigFile {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            serde_json::from_str(&text).map_err(|e| SettingsError::ConfigFile {
                path: path.clone(),
                reason: e.to_string(),
            })?
        }
        (None, None) => serde_json::json!({}),
    };
    let Some(object) = config.as_object_mut() else {
        return Err(SettingsError::ConfigJson(format!(
            "expected an object, got {config}"
        )));
    };
    let mut read_dirs = Vec::new();
    for dir in &run.grant {
        read_dirs.push(absolute_dir(dir)?);
    }
    // A config's "path" is made absolute, and its folder granted, so that the plugin sees the
    // file at the same path as the user.
    if let Some(serde_json::Value::String(path)) = object.get("path") {
        let absolute = std::path::absolute(Path::new(path)).map_err(|e| SettingsError::Grant {
            path: PathBuf::from(path),
            reason: e.to_string(),
        })?;
        if let Some(parent) = absolute.parent() {
            read_dirs.push(absolute_dir(parent)?);
        }
        object.insert(
            "path".into(),
            serde_json::Value::String(absolute.display().to_string()),
        );
    }
    if run.max_memory_mb == 0 || run.max_memory_mb > 4096 {
        return Err(SettingsError::OutOfRange {
            flag: "--max-memory-mb",
            what: "between 1 and 4096",
            value: run.max_memory_mb.to_string(),
        });
    }
    if !(run.timeout_s.is_finite() && run.timeout_s > 0.0) {
        return Err(SettingsError::OutOfRange {
            flag: "--timeout-s",
            what: "a positive number of seconds",
            value: run.timeout_s.to_string(),
        });
    }
    Ok(RunSettings {
        plugin,
        config: config.to_string(),
        sandbox: Sandbox {
            limits: Limits {
                max_memory_bytes: run.max_memory_mb << 20,
                call_timeout: Duration::from_secs_f64(run.timeout_s),
                ..Limits::default()
            },
            grants: Grants {
                read_dirs,
                write_dir: None,
                ..Grants::default()
            },
        },
        head: run.head,
        output: run.output,
        transforms,
    })
}

fn absolute_dir(dir: &Path) -> Result<PathBuf, SettingsError> {
    let grant_err = |reason: String| SettingsError::Grant {
        path: dir.to_path_buf(),
        reason,
    };
    let absolute = std::path::absolute(dir).map_err(|e| grant_err(e.to_string()))?;
    if !absolute.is_dir() {
        return Err(grant_err("no such folder".into()));
    }
    Ok(absolute)
}
