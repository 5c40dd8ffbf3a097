//! `ldp status --alert`: each breach and each recovery of a table's monitors, delivered once to
//! each channel the config has:
//!
//! * `webhook`: a POST to the URL in the variable `metadata.monitors.alert.webhook_env` names;
//! * `events`: a `monitor.breached` or `monitor.recovered` event to the `jsonl` and
//!   `openlineage` sinks of `metadata.observability` (one event, with a run id of its own, per
//!   alert; `ldp runs` leaves them out).
//!
//! What each channel was last told is remembered in
//! `<config folder>/.ldp/monitors/<identifier>.json` (`{"webhook": [...], "events": [...]}`: the
//! monitors breached when it was last told), so a breach that goes on is not sent again. A
//! channel that fails is said on stderr and not remembered: the next `ldp status --alert` sends
//! its alerts again.
//!
//! The body of each post: `{"type": "monitor.breached" | "monitor.recovered", "table",
//! "pipeline", "monitor", "detail", "value", "at"}`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ldp_config::Config;
use ldp_events::RunEvents;
use ldp_events::payload::MonitorAlert;
use ldp_monitor::{Alert, Verdict};
use ldp_plugin_runtime::Runtime;
use serde_json::{Map, Value, json};

/// How long one post may take.
const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// The channels, as named in the state file and in `--json`'s alerts.
const WEBHOOK: &str = "webhook";
const EVENTS: &str = "events";

/// One table's monitors, for delivering its alerts.
pub(super) struct Table<'a> {
    pub config: &'a Config,
    /// `ns.t`.
    pub name: &'a str,
    /// The table's dataset reference, as run events carry it.
    pub target: &'a Value,
    pub verdicts: &'a [Verdict],
    /// Now, as an RFC 3339 time.
    pub now: &'a str,
}

/// Sends what changed for one table on each of its channels; returns each alert with its
/// channel and whether it was delivered. `runtime` runs the event sink plugins (`None` when
/// the config has no event sink).
pub(super) fn send(table: &Table<'_>, runtime: Option<&Runtime>) -> Vec<Value> {
    let state_path = state_file(table.config);
    let mut state = read_state(&state_path);
    let mut out = Vec::new();
    let mut changed = false;
    if let Some(variable) = table.config.metadata.monitors.webhook_env.as_deref() {
        changed |= deliver(table, &mut state, WEBHOOK, &mut out, |alerts| {
            post_all(table, variable, alerts)
        });
    }
    if let Some(runtime) = runtime.filter(|_| ldp_pipeline::has_alert_sinks(table.config)) {
        changed |= deliver(table, &mut state, EVENTS, &mut out, |alerts| {
            emit_all(table, runtime, alerts)
        });
    }
    if changed && let Err(e) = write_state(&state_path, &state) {
        tracing::warn!(
            "cannot remember the alerts sent in {}: {e}",
            state_path.display()
        );
    }
    out
}

/// Sends one channel's alerts with `send_all` (whether each was delivered); remembers the
/// breaches in `state` when all were. Returns whether `state` changed.
fn deliver(
    table: &Table<'_>,
    state: &mut Map<String, Value>,
    channel: &str,
    out: &mut Vec<Value>,
    send_all: impl FnOnce(&[Alert]) -> Vec<bool>,
) -> bool {
    let before = breached_in(state, channel);
    let alerts = ldp_monitor::alerts(&before, table.verdicts);
    if alerts.is_empty() {
        return false;
    }
    let delivered = send_all(&alerts);
    for (alert, sent) in alerts.iter().zip(&delivered) {
        let mut shown = body(table, alert);
        shown["channel"] = Value::from(channel);
        shown["sent"] = Value::Bool(*sent);
        out.push(shown);
    }
    if !delivered.iter().all(|sent| *sent) {
        return false;
    }
    let breached: Vec<Value> = table
        .verdicts
        .iter()
        .filter(|v| v.breached)
        .map(|v| Value::from(v.monitor))
        .collect();
    state.insert(channel.to_string(), Value::Array(breached));
    true
}

fn body(table: &Table<'_>, alert: &Alert) -> Value {
    json!({"type": alert.kind, "table": table.name, "pipeline": table.config.identifier,
           "monitor": alert.monitor, "detail": alert.detail, "value": alert.value,
           "at": table.now})
}

/// Posts each alert to the webhook; a missing URL or a failed post is said on stderr.
fn post_all(table: &Table<'_>, variable: &str, alerts: &[Alert]) -> Vec<bool> {
    let Some(url) = std::env::var(variable).ok().filter(|u| !u.is_empty()) else {
        tracing::warn!(
            "{variable} is not set: the {} alert(s) of {} were not sent (set it to the webhook's URL)",
            alerts.len(),
            table.name
        );
        return vec![false; alerts.len()];
    };
    alerts
        .iter()
        .map(|alert| match post(&url, &body(table, alert)) {
            Ok(()) => true,
            Err(why) => {
                tracing::warn!(
                    "the {} alert of {} ({}) was not sent to the webhook in {variable}: {why}",
                    alert.kind,
                    table.name,
                    alert.monitor
                );
                false
            }
        })
        .collect()
}

/// Emits each alert to the config's event sinks, one event (and run id) per alert.
fn emit_all(table: &Table<'_>, runtime: &Runtime, alerts: &[Alert]) -> Vec<bool> {
    alerts
        .iter()
        .map(|alert| {
            let sinks = ldp_pipeline::alert_sinks(table.config, runtime);
            if sinks.is_empty() {
                return false;
            }
            let mut events = RunEvents::for_pipeline(
                ldp_events::uuid7(),
                1,
                &table.config.identifier,
                Some(table.name),
            );
            for sink in sinks {
                events.add_sink(sink);
            }
            events.record(&MonitorAlert {
                breached: alert.kind == ldp_events::payload::MONITOR_BREACHED,
                monitor: alert.monitor.clone(),
                detail: alert.detail.clone().unwrap_or_default(),
                value: alert.value.clone(),
                target: table.target.clone(),
            });
            events.close();
            true
        })
        .collect()
}

/// `<config folder>/.ldp/monitors/<identifier>.json`.
fn state_file(config: &Config) -> PathBuf {
    config
        .base_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".ldp/monitors")
        .join(format!("{}.json", config.identifier))
}

/// The state: each channel's breached monitors when it was last told (empty when the file is
/// missing or not ours). The first version's `{"breached": [...]}` was the webhook's.
fn read_state(file: &Path) -> Map<String, Value> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Map::new();
    };
    let mut state = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(state)) => state,
        _ => return Map::new(),
    };
    if let Some(breached) = state.remove("breached") {
        state.entry(WEBHOOK).or_insert(breached);
    }
    state
}

fn breached_in(state: &Map<String, Value>, channel: &str) -> Vec<String> {
    state
        .get(channel)
        .and_then(Value::as_array)
        .map(|monitors| {
            monitors
                .iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the state whole: a temporary file, then a rename.
fn write_state(file: &Path, state: &Map<String, Value>) -> std::io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let temporary = folder.join(format!(
        ".{}.tmp",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("state")
    ));
    std::fs::write(&temporary, Value::Object(state.clone()).to_string())?;
    std::fs::rename(&temporary, file)
}

fn post(url: &str, body: &Value) -> Result<(), String> {
    let client = reqwest::blocking::Client::builder()
        .timeout(POST_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    // The URL is not shown: it often carries a secret.
    let response = client
        .post(url)
        .json(body)
        .send()
        .map_err(|e| e.without_url().to_string())?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("the webhook answered {}", response.status()))
    }
}
