//! `monitor.breached` and `monitor.recovered`: `ldp status --alert` found a monitor of a table
//! newly breached, or a breached one back within its bound. Not events of a run: each alert
//! has a run id of its own, and `ldp runs` leaves them out.

use serde_json::{Map, Value};

use super::EventPayload;

/// One alert of a table's monitor.
#[derive(Debug, Clone)]
pub struct MonitorAlert {
    /// Breached (else recovered).
    pub breached: bool,
    /// `freshness`, `volume`, `schema_drift`, `failure_streak`.
    pub monitor: String,
    /// What `ldp status` says of it.
    pub detail: String,
    /// The measure the monitor compared (an age in seconds, a row count, …), `null` for none.
    pub value: Value,
    /// The table's dataset reference ([`crate::DatasetRef::to_value`]).
    pub target: Value,
}

/// The type of a breach's event.
pub const MONITOR_BREACHED: &str = "monitor.breached";
/// The type of a recovery's event.
pub const MONITOR_RECOVERED: &str = "monitor.recovered";

/// Whether an event type is one of a monitor's, not of a run.
pub fn is_monitor_event(event_type: &str) -> bool {
    event_type.starts_with("monitor.")
}

impl EventPayload for MonitorAlert {
    fn event_type(&self) -> &'static str {
        if self.breached {
            MONITOR_BREACHED
        } else {
            MONITOR_RECOVERED
        }
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("monitor".into(), Value::from(self.monitor.clone()));
        payload.insert("detail".into(), Value::from(self.detail.clone()));
        payload.insert("value".into(), self.value.clone());
        payload.insert("target".into(), self.target.clone());
        payload
    }
}
