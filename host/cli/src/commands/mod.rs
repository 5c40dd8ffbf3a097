//! One module per command.

mod backfill;
mod catalog;
mod catalog_serve;
mod cluster;
mod commits;
mod datasets;
mod dbt;
mod demo;
mod gold;
mod maintain;
mod pipelines;
mod plan;
mod plugins;
mod query;
mod run;
mod runs;
mod scaffold;
mod schedule;
mod schema;
mod serving;
mod snapshots;
mod status;
mod transform;
mod ui;
mod workflow;

use crate::settings::{Settings, Task};
use ldp_plugin_runtime::Runtime;

/// Runs the command; returns the exit code of a run that did not fail.
pub fn run(settings: Settings) -> anyhow::Result<u8> {
    let runtime = || Runtime::new(ldp_pipeline::runtime_options(settings.cache_dir.clone()));
    match &settings.task {
        Task::Run(settings) => run::run(&runtime()?, settings, crate::interrupt::install()),
        Task::Plan(args) => plan::run(args),
        Task::Schema { kind } => schema::run(*kind),
        Task::Runs(settings) => runs::run(settings),
        Task::Status(args) => status::run(args, runtime),
        Task::Commits {
            config,
            key,
            branches,
            json,
        } => commits::run(config, key.as_deref(), *branches, *json),
        Task::Snapshots { config, json } => snapshots::run(config, *json),
        Task::Maintain(settings) => maintain::run(settings),
        Task::GoldSync(args) => gold::sync(args),
        Task::GoldBuild(args) => gold::build(runtime()?, args),
        Task::GoldReleases(args) => gold::releases(args),
        Task::DbtInit(args) => dbt::init(args),
        Task::Dbt(command, args) => dbt::run(runtime()?, command.clone(), args),
        Task::Query(query) => query::run(query),
        Task::Pipelines { json } => pipelines::run(*json),
        Task::PluginsList { json } => plugins::list(&runtime()?, *json),
        Task::PluginsInspect { file, json } => plugins::inspect(&runtime()?, file, *json),
        Task::PluginsRun(run) => plugins::run(&runtime()?, run),
        Task::Demo(args) => demo::run(&runtime()?, args),
        Task::TransformTest(settings) => transform::test(&runtime()?, settings),
        Task::PluginNew(args) => scaffold::new(args),
        Task::PluginWit { dir } => scaffold::wit(dir),
        Task::WorkflowPlan(args) => workflow::plan(args),
        Task::Ui(settings) => ui::serve(settings, runtime()?, crate::interrupt::install()),
        Task::Mcp(settings) => {
            ldp_mcp::serve(settings, runtime()?)?;
            Ok(0)
        }
        Task::WorkflowRun(args) => workflow::run(runtime()?, args, crate::interrupt::install()),
        Task::Backfill(args) => backfill::run(runtime, args, crate::interrupt::install()),
        Task::ScheduleList(args) => schedule::list(args),
        Task::ScheduleTick(args) => schedule::tick(runtime()?, args, crate::interrupt::install()),
        Task::ScheduleRun(args) => {
            schedule::run_loop(runtime()?, args, crate::interrupt::install())
        }
        Task::ScheduleInstall(args) => schedule::install(args),
        Task::Datasets(crate::args::DatasetsCommand::Pin(args)) => datasets::pin(args),
        Task::Datasets(crate::args::DatasetsCommand::List(args)) => datasets::list(args),
        Task::Datasets(crate::args::DatasetsCommand::Export(args)) => datasets::export(args),
        Task::Catalog(crate::args::CatalogCommand::Test(args)) => catalog::test(args),
        Task::Catalog(crate::args::CatalogCommand::Serve(args)) => {
            catalog_serve::serve(args, crate::interrupt::install())
        }
        Task::ClusterScheduler(settings) => cluster::scheduler(settings),
        Task::ClusterExecutor(settings) => cluster::executor(settings),
        Task::ClusterStatus { scheduler, json } => cluster::status(scheduler, *json),
    }
}

/// JSON as the Python tool prints it: 2-space indent, keys in insertion order, non-ASCII escaped
/// as `\uXXXX`.
pub fn json_text<T: serde::Serialize>(value: &T) -> anyhow::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_ascii() {
            out.push(ch);
        } else {
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    Ok(out)
}
