//! The home page's document: every table's status, as `ldp status --json` gives it, with the
//! two flags the page shows first: `stale` (its freshness monitor is breached) and `blocked`
//! (its last run was stopped by a quality gate). A config whose table cannot be read is listed
//! with its error instead of failing the page.

use std::path::PathBuf;

use ldp_config::Config;
use ldp_status::{MetadataCache, RunsReader, TableStatus};
use serde_json::{Value, json};

use crate::error::UiError;
use crate::state::State;

pub(crate) fn home(state: &State) -> Result<Value, UiError> {
    let _one_at_a_time = state.home.lock().unwrap_or_else(|e| e.into_inner());
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let configs: Vec<(PathBuf, Config)> = ldp_status::lake_configs(&state.settings.paths)?
        .into_iter()
        .filter(|(_, config)| config.target().is_iceberg())
        .collect();
    let mut tables = Vec::new();
    let mut problems = Vec::new();
    for ((file, _), status) in configs
        .iter()
        .zip(gather_all(&configs, now_ms, &state.metadata))
    {
        match status {
            Ok(status) => tables.push(table_json(&status, now_ms)),
            Err(e) => {
                problems.push(json!({"config": file.display().to_string(), "error": e.to_string()}))
            }
        }
    }
    let breached = tables.iter().filter(|t| t["ok"] == false).count();
    Ok(json!({
        "now_ms": now_ms,
        "tables": tables,
        "breached": breached,
        "problems": problems,
    }))
}

/// Each config's table status, in order, gathered on up to four threads (each reads the
/// lake's `_ldp.runs` once).
fn gather_all(
    configs: &[(PathBuf, Config)],
    now_ms: i64,
    cache: &MetadataCache,
) -> Vec<ldp_status::Result<TableStatus>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let chunk = configs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = configs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut runs = RunsReader::new();
                    part.iter()
                        .map(|(file, config)| {
                            ldp_status::gather(file, config, now_ms, &mut runs, Some(cache))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

fn table_json(status: &TableStatus, now_ms: i64) -> Value {
    let mut doc = status.to_json(now_ms);
    let stale = status
        .verdicts
        .iter()
        .any(|v| v.monitor == "freshness" && v.breached);
    let last = status
        .last_run
        .as_ref()
        .and_then(|r| r["status"].as_str())
        .unwrap_or("");
    doc["stale"] = Value::from(stale);
    doc["blocked"] = Value::from(last == "blocked_quality");
    doc["failed"] = Value::from(last == "failed");
    doc
}
