//! `ldp status DIR|CONFIG… [--json]`: one line per table of a lake, with its freshness, its last
//! run and gates, and the verdicts of its monitors ([`ldp_monitor`]); exit 3 when a monitor is
//! breached. With `--alert`, each breach and recovery is sent once to the config's webhook and
//! event sinks ([`alerts`]).

mod alerts;

use std::io::Write;
use std::path::{Path, PathBuf};

use ldp_config::Config;
use ldp_events::runs::summarize_runs;
use ldp_monitor::{Facts, RunFact, SnapshotFact, Verdict, age_text};
use ldp_pipeline::TargetTable;
use ldp_plugin_runtime::Runtime;
use serde_json::{Value, json};

use crate::args::StatusArgs;

/// The exit code when a monitor is breached.
const BREACHED: u8 = 3;

/// One table's status.
struct Status {
    config: PathBuf,
    table: String,
    snapshots: usize,
    last_snapshot_ms: Option<i64>,
    last_run: Option<Value>,
    verdicts: Vec<Verdict>,
    /// The table's dataset reference, as run events carry it.
    target: Value,
    /// The alerts `--alert` sent (or could not).
    alerts: Vec<Value>,
}

impl Status {
    fn breached(&self) -> bool {
        self.verdicts.iter().any(|v| v.breached)
    }
}

/// Prints the status of each table; 3 when a monitor is breached. `runtime` makes the plugin
/// runtime the event sinks of `--alert` run in (only when a config has one).
pub fn run<E>(args: &StatusArgs, runtime: impl FnOnce() -> Result<Runtime, E>) -> anyhow::Result<u8>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let now = jiff::Timestamp::from_millisecond(now_ms)
        .map(|t| t.to_string())
        .unwrap_or_default();
    let configs: Vec<(PathBuf, Config)> = configs(&args.paths)?
        .into_iter()
        .filter(|(_, config)| config.target().is_iceberg())
        .collect();
    let runtime = match args.alert
        && configs
            .iter()
            .any(|(_, c)| ldp_pipeline::has_alert_sinks(c))
    {
        true => Some(runtime()?),
        false => None,
    };
    let mut statuses = Vec::new();
    for (file, config) in &configs {
        let mut status = status(file, config, now_ms)?;
        if args.alert {
            let table = alerts::Table {
                config,
                name: &status.table,
                target: &status.target,
                verdicts: &status.verdicts,
                now: &now,
            };
            status.alerts = alerts::send(&table, runtime.as_ref());
        }
        statuses.push(status);
    }
    let breached = statuses.iter().filter(|s| s.breached()).count();
    let mut out = std::io::stdout().lock();
    if args.json {
        let tables: Vec<Value> = statuses.iter().map(|s| to_json(s, now_ms)).collect();
        let doc = json!({"ok": breached == 0, "breached": breached, "tables": tables});
        writeln!(out, "{}", super::json_text(&doc)?)?;
    } else {
        for status in &statuses {
            writeln!(out, "{}", line(status, now_ms))?;
        }
        writeln!(
            out,
            "{} table(s), {breached} with a breached monitor",
            statuses.len()
        )?;
    }
    Ok(if breached > 0 { BREACHED } else { 0 })
}

/// The configs of `paths`: a lake folder's (one that is not a config is skipped with a warning),
/// a file as named (an error when it is not a config).
fn configs(paths: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, Config)>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            for file in ldp_pipeline::lake::folder_configs(path)? {
                match ldp_pipeline::open_config(&file) {
                    Ok(config) => found.push((file, config)),
                    Err(e) => tracing::warn!("skipping {}: {e}", file.display()),
                }
            }
        } else {
            found.push((path.clone(), ldp_pipeline::open_config(path)?));
        }
    }
    Ok(found)
}

fn status(file: &Path, config: &Config, now_ms: i64) -> anyhow::Result<Status> {
    let target = TargetTable::resolve(config, config.target())?;
    let mut facts = Facts {
        now_ms,
        ..Facts::default()
    };
    if target.catalog_may_exist()
        && let Ok(table) = target.load()
    {
        if let Some(column) = &config.metadata.monitors.freshness_column {
            facts.newest_row_ms = table
                .newest_value_micros(column)?
                .map(|micros| micros.div_euclid(1_000));
        }
        let snapshots = table.snapshots();
        // Schema drift compares the newest two snapshots' schemas: no other is converted.
        let compared = if config.metadata.monitors.schema_drift {
            snapshots.len().saturating_sub(2)
        } else {
            snapshots.len()
        };
        for (position, snapshot) in snapshots.iter().enumerate() {
            let columns = match position >= compared {
                true => table
                    .arrow_schema_at(Some(snapshot.snapshot_id))
                    .map(|schema| {
                        schema
                            .fields()
                            .iter()
                            .map(|f| (f.name().clone(), f.data_type().to_string()))
                            .collect()
                    })
                    .unwrap_or_default(),
                false => Vec::new(),
            };
            facts.snapshots.push(SnapshotFact {
                timestamp_ms: snapshot.timestamp_ms,
                added_rows: snapshot
                    .summary
                    .get("added-records")
                    .and_then(|v| v.parse().ok()),
                columns,
            });
        }
    }
    let settings = crate::settings::RunsSettings {
        target: file.to_path_buf(),
        jsonl: None,
        run: None,
        events: false,
        attempts: false,
        limit: usize::MAX,
        json: false,
    };
    let (events, _) = super::runs::load(&settings)?;
    let mut runs = summarize_runs(&events, true);
    runs.retain(|r| !r.is_workflow);
    runs.sort_by_key(|r| r.started_at);
    facts.runs = runs
        .iter()
        .map(|r| RunFact {
            status: r.status.as_str().unwrap_or("running").to_string(),
        })
        .collect();
    let last_run = runs.last().map(|r| {
        json!({"run_id": r.run_id, "status": r.status, "started_at": r.started_at.to_string(),
               "started_at_ms": r.started_at.as_millisecond(), "checks": r.checks,
               "rows_written": r.rows_written})
    });
    Ok(Status {
        config: file.to_path_buf(),
        table: target.identifier(),
        snapshots: facts.snapshots.len(),
        last_snapshot_ms: facts.snapshots.last().map(|s| s.timestamp_ms),
        last_run,
        verdicts: ldp_monitor::evaluate(&config.metadata.monitors, &facts),
        target: ldp_pipeline::iceberg_ref(&target).to_value(),
        alerts: Vec::new(),
    })
}

/// `nyc.rides  BREACHED  published 2h 3m ago  last run published 2h ago (checks 3/3)  freshness
/// BREACHED: …; volume ok: …`.
fn line(status: &Status, now_ms: i64) -> String {
    let state = if status.breached() { "BREACHED" } else { "ok" };
    let published = match status.last_snapshot_ms {
        Some(ms) => format!("published {} ago", age_text((now_ms - ms) / 1000)),
        None => "no snapshot".to_string(),
    };
    let run = match &status.last_run {
        Some(run) => {
            let age = run["started_at_ms"].as_i64().map_or(String::new(), |ms| {
                format!(" {} ago", age_text((now_ms - ms) / 1000))
            });
            let checks = run["checks"]
                .as_str()
                .filter(|c| !c.ends_with("/0"))
                .map_or(String::new(), |c| format!(" (checks {c})"));
            format!(
                "last run {}{age}{checks}",
                run["status"].as_str().unwrap_or("?")
            )
        }
        None => "no run recorded".to_string(),
    };
    let monitors: Vec<String> = status
        .verdicts
        .iter()
        .map(|v| {
            let verdict = if v.breached { "BREACHED" } else { "ok" };
            format!("{} {verdict}: {}", v.monitor, v.detail)
        })
        .collect();
    let monitors = if monitors.is_empty() {
        "no monitors".to_string()
    } else {
        monitors.join("; ")
    };
    format!("{}  {state}  {published}  {run}  {monitors}", status.table)
}

fn to_json(status: &Status, now_ms: i64) -> Value {
    json!({
        "table": status.table,
        "config": status.config.display().to_string(),
        "ok": !status.breached(),
        "snapshots": status.snapshots,
        "last_snapshot_ms": status.last_snapshot_ms,
        "age_s": status.last_snapshot_ms.map(|ms| (now_ms - ms) / 1000),
        "last_run": status.last_run,
        "monitors": status.verdicts,
        "alerts": status.alerts,
    })
}
