//! One module per command.

mod plugins;

use crate::settings::{Settings, Task};
use ldp_plugin_runtime::{Runtime, RuntimeOptions};

/// Runs the command; returns the exit code of a run that did not fail.
pub fn run(settings: Settings) -> anyhow::Result<u8> {
    let runtime = || {
        Runtime::new(RuntimeOptions {
            cache_dir: settings.cache_dir.clone(),
        })
    };
    match &settings.task {
        Task::PluginsList { json } => plugins::list(&runtime()?, *json),
        Task::PluginsInspect { file, json } => plugins::inspect(&runtime()?, file, *json),
        Task::PluginsRun(run) => plugins::run(&runtime()?, run),
    }
}
