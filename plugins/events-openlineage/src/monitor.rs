//! A monitor's alert (`monitor.breached`, `monitor.recovered`, from `ldp status --alert`) as one
//! OpenLineage `RunEvent` of its own: the job `<pipeline>.monitor.<monitor>` (job type
//! `MONITOR`), `FAIL` for a breach (with the detail as its error message) and `COMPLETE` for a
//! recovery, the table as its input, and the custom run facet `ldp_monitor`
//! (`{monitor, status, detail, value}`). A lineage UI then shows a breached monitor as a
//! failed run next to the table's loads.

use ldp_plugin_sdk::PluginError;
use serde_json::Value;

use crate::event::LdpEvent;
use crate::facets::{LDP_MONITOR_SCHEMA_URL, object};
use crate::json::py_str;
use crate::lineage::{Lineage, RunEvent, error_message};

impl Lineage {
    /// The OpenLineage event of one alert.
    pub(crate) fn monitor_event(&self, event: &LdpEvent) -> Result<Value, PluginError> {
        let breached = event.event_type == "monitor.breached";
        let payload = &event.payload;
        let text = |key: &str| payload.get(key).map(py_str).unwrap_or_default();
        let producer = self.producer();
        let monitor = text("monitor");
        let mut run_facets = object([(
            "ldp_monitor",
            Value::Object(object([
                ("_producer", Value::from(producer)),
                ("_schemaURL", Value::from(LDP_MONITOR_SCHEMA_URL)),
                ("monitor", Value::from(monitor.clone())),
                (
                    "status",
                    Value::from(if breached { "breached" } else { "recovered" }),
                ),
                (
                    "detail",
                    payload.get("detail").cloned().unwrap_or(Value::Null),
                ),
                (
                    "value",
                    payload.get("value").cloned().unwrap_or(Value::Null),
                ),
            ])),
        )]);
        if breached {
            run_facets.insert(
                "errorMessage".into(),
                error_message(
                    producer,
                    format!("monitor {monitor} breached: {}", text("detail")),
                ),
            );
        }
        let pipeline = text("pipeline");
        let inputs = self.datasets(payload.get("target"), None, None, None)?;
        Ok(self.run_event(RunEvent {
            event_type: if breached { "FAIL" } else { "COMPLETE" },
            event,
            run_facets,
            job: format!("{pipeline}.monitor.{monitor}"),
            job_type: "MONITOR",
            inputs,
            outputs: Vec::new(),
        }))
    }
}
