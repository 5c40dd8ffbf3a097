//! `ldp status --alert`: each breach and each recovery of a table's monitors, posted once to the
//! webhook its config names (`metadata.monitors.alert.webhook_env`: the variable holding the
//! URL), and remembered in `<config folder>/.ldp/monitors/<identifier>.json`, so a breach that
//! goes on is not posted again. A post that fails is said on stderr and not remembered: the next
//! `ldp status --alert` posts it again.
//!
//! The body of each post: `{"type": "monitor.breached" | "monitor.recovered", "table",
//! "pipeline", "monitor", "detail", "value", "at"}`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ldp_config::Config;
use ldp_monitor::Verdict;
use serde_json::{Value, json};

/// How long one post may take.
const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// Posts what changed for one table; returns each alert with whether it was sent.
pub(super) fn send(config: &Config, table: &str, verdicts: &[Verdict], now: &str) -> Vec<Value> {
    let Some(variable) = config.metadata.monitors.webhook_env.as_deref() else {
        return Vec::new();
    };
    let state = state_file(config);
    let before = read_state(&state);
    let alerts = ldp_monitor::alerts(&before, verdicts);
    if alerts.is_empty() {
        return Vec::new();
    }
    let url = std::env::var(variable).ok().filter(|u| !u.is_empty());
    if url.is_none() {
        tracing::warn!(
            "{variable} is not set: the {} alert(s) of {table} were not sent (set it to the webhook's URL)",
            alerts.len()
        );
    }
    let mut all_sent = url.is_some();
    let mut out = Vec::new();
    for alert in &alerts {
        let body = json!({"type": alert.kind, "table": table, "pipeline": config.identifier,
                          "monitor": alert.monitor, "detail": alert.detail, "value": alert.value,
                          "at": now});
        let sent = match &url {
            Some(url) => match post(url, &body) {
                Ok(()) => true,
                Err(why) => {
                    tracing::warn!(
                        "the {} alert of {table} ({}) was not sent to the webhook in {variable}: {why}",
                        alert.kind,
                        alert.monitor
                    );
                    false
                }
            },
            None => false,
        };
        all_sent &= sent;
        let mut shown = body;
        shown["sent"] = Value::Bool(sent);
        out.push(shown);
    }
    if all_sent {
        let breached: Vec<&str> = verdicts
            .iter()
            .filter(|v| v.breached)
            .map(|v| v.monitor)
            .collect();
        if let Err(e) = write_state(&state, &breached) {
            tracing::warn!(
                "cannot remember the alerts sent in {}: {e}",
                state.display()
            );
        }
    }
    out
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

/// The monitors breached when alerts were last sent (none when the file is missing or not ours).
fn read_state(file: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Vec::new();
    };
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["breached"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect()
}

/// Writes the state whole: a temporary file, then a rename.
fn write_state(file: &Path, breached: &[&str]) -> std::io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let temporary = folder.join(format!(
        ".{}.tmp",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("state")
    ));
    std::fs::write(&temporary, json!({"breached": breached}).to_string())?;
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
