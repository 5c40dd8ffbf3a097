//! Schedule evaluation and window layout (`ldp_orchestrate::scheduling`) against the Python tool:
//! cron fires (DST included) from `gen_reference_fires.py`, fires → windows, due windows and
//! backfill ranges from `gen_reference_windows.py`, the sample `schedule list` and ledger.

mod cron;
mod ledger;
mod windows;

use std::path::Path;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use ldp_config::Window;
use ldp_config::workflow::{Workflow, workflow_from_document};
use serde_json::{Value, json};

const DATA: &str = "data/scheduling";

fn at(text: &str) -> Timestamp {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn label(window: &Window) -> String {
    window.label()
}

fn labels(windows: &[Window]) -> Vec<String> {
    windows.iter().map(label).collect()
}

/// A workflow of one maintain task with this `metadata`.
fn workflow(metadata: &Value) -> Workflow {
    let document = json!({"kind": "Workflow", "identifier": "w", "metadata": metadata,
        "tasks": [{"id": "a", "maintain": {"config": "x.json"}}]});
    workflow_from_document(&document, Path::new("/tmp"), None)
        .unwrap_or_else(|e| panic!("{metadata}: {e}"))
}
