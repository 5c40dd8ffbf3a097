//! `ldp status DIR|CONFIG… [--json]`: one line per table of a lake, with its freshness, its last
//! run and gates, and the verdicts of its monitors ([`ldp_monitor`]); exit 3 when a monitor is
//! breached. With `--alert`, each breach and recovery is sent once to the config's webhook and
//! event sinks ([`alerts`]).

mod alerts;

use std::io::Write;

use ldp_monitor::age_text;
use ldp_plugin_runtime::Runtime;
use ldp_status::{RunsReader, TableStatus};
use serde_json::{Value, json};

use crate::args::StatusArgs;

/// The exit code when a monitor is breached.
const BREACHED: u8 = 3;

/// One table's status, and the alerts `--alert` sent (or could not).
struct Status {
    table: TableStatus,
    alerts: Vec<Value>,
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
    let configs: Vec<_> = ldp_status::lake_configs(&args.paths)?
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
    let mut runs = RunsReader::new();
    let mut statuses = Vec::new();
    for (file, config) in &configs {
        let table = ldp_status::gather(file, config, now_ms, &mut runs, None)?;
        let alerts = match args.alert {
            true => alerts::send(
                &alerts::Table {
                    config,
                    name: &table.table,
                    target: &table.target,
                    verdicts: &table.verdicts,
                    now: &now,
                },
                runtime.as_ref(),
            ),
            false => Vec::new(),
        };
        statuses.push(Status { table, alerts });
    }
    let breached = statuses.iter().filter(|s| s.table.breached()).count();
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

/// `nyc.rides  BREACHED  published 2h 3m ago  last run published 2h ago (checks 3/3)  freshness
/// BREACHED: …; volume ok: …`.
fn line(status: &Status, now_ms: i64) -> String {
    let status = &status.table;
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
    let mut doc = status.table.to_json(now_ms);
    doc["alerts"] = Value::from(status.alerts.clone());
    doc
}
