//! The state of each window of a backfill before anything runs, what `ldp backfill
//! --dry-run` prints:
//!
//! * `published`: every Iceberg pipeline task's key is already on its table (one walk of
//!   `main`'s history per table, however many windows), and, when the workflow has a `dbt` or
//!   `sql` task, a pipeline with a file target, or no keyed task at all, the ledger's last run
//!   of the window succeeded;
//! * `failed` / `blocked`: the ledger's last finished run of the window failed, or a data gate
//!   blocked it;
//! * `partial`: some of the keys are on their tables;
//! * `missing`: none are.
//!
//! A table that does not exist yet (or whose catalog file does not) holds no keys; nothing is
//! created to find that out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::scheduling::{WindowRecord, read_windows};
use jiff::Timestamp;
use ldp_catalog::{Catalog, Mode};
use ldp_config::workflow::TaskKind;
use ldp_config::{Window, Workflow, plan_loaded_workflow};
use ldp_table::Table;

use ldp_pipeline::Result;
use ldp_pipeline::{TargetTable, open_config};

/// The states of a window, in the order of the backfill's `states` counts.
pub const WINDOW_STATES: [&str; 5] = ["published", "partial", "missing", "failed", "blocked"];

/// One window of a backfill and what is known of it before anything runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowState {
    /// The window.
    pub window: Window,
    /// `published`, `partial`, `missing`, `failed` or `blocked`.
    pub state: &'static str,
    /// `(task id, idempotency key)` of each Iceberg pipeline task, in the order the tasks run.
    pub keys: Vec<(String, String)>,
}

/// The states of `windows` (a backfill range's windows, e.g.
/// [`BackfillRange::ordered`](crate::scheduling::BackfillRange::ordered)), in their order;
/// with `replace`, of the replace keys (a window replaced under the same spec is `published`).
///
/// # Errors
///
/// A pipeline task's config cannot be read, or its target's catalog cannot be opened.
pub fn backfill_states(
    workflow: &Workflow,
    windows: &[Window],
    replace: bool,
) -> Result<Vec<WindowState>> {
    let task_ids: Vec<&str> = workflow.tasks.iter().map(|t| t.id.as_str()).collect();
    let mut ledger: BTreeMap<(Timestamp, Timestamp), WindowRecord> = BTreeMap::new();
    for ((start, end), record) in read_windows(&workflow.ledger_path(), &workflow.identifier) {
        if let (Ok(start), Ok(end)) = (start.parse::<Timestamp>(), end.parse::<Timestamp>()) {
            ledger.insert((start, end), record);
        }
    }
    // Which tasks publish under a key to an Iceberg table, and whether the ledger must confirm.
    let mut keyed_tasks: Vec<(String, PathBuf)> = Vec::new();
    let mut needs_ledger = false;
    let plan = plan_loaded_workflow(workflow, None, replace);
    for task in workflow.order() {
        match &task.kind {
            TaskKind::Pipeline(pipeline) => {
                let staged = plan
                    .task(&task.id)
                    .and_then(|p| p.details.get("publish"))
                    .and_then(serde_json::Value::as_str)
                    == Some("staged");
                if staged {
                    keyed_tasks.push((task.id.clone(), workflow.resolve(&pipeline.config)));
                } else {
                    needs_ledger = true;
                }
            }
            TaskKind::Dbt(_) | TaskKind::Sql(_) => needs_ledger = true,
            TaskKind::Maintain(_) => {}
        }
    }
    if keyed_tasks.is_empty() {
        needs_ledger = true;
    }
    // One history walk per table.
    let mut tables: BTreeMap<(String, String, String), BTreeSet<String>> = BTreeMap::new();
    let mut table_of: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    for (id, config_path) in &keyed_tasks {
        let config = open_config(config_path)?;
        let target = TargetTable::resolve(&config, config.target())?;
        let identity = (
            target.catalog.to_string(),
            target.namespace.clone(),
            target.name.clone(),
        );
        if !tables.contains_key(&identity) {
            tables.insert(identity.clone(), keys_on(&target)?);
        }
        table_of.insert(id.clone(), identity);
    }
    let mut states = Vec::with_capacity(windows.len());
    for window in windows {
        let plan = plan_loaded_workflow(workflow, Some(window), replace);
        let mut keys = Vec::new();
        let mut present = 0usize;
        for (id, _) in &keyed_tasks {
            let Some(key) = plan
                .task(id)
                .and_then(|p| p.details.get("idempotency_key"))
                .and_then(serde_json::Value::as_str)
            else {
                continue;
            };
            let on_table = table_of
                .get(id)
                .and_then(|identity| tables.get(identity))
                .is_some_and(|found| found.contains(key));
            if on_table {
                present += 1;
            }
            keys.push((id.clone(), key.to_owned()));
        }
        let all_keyed = keys.len() == keyed_tasks.len();
        let status = ledger
            .get(&(window.start, window.end))
            .map(|record| record.status(&task_ids));
        let keys_done = all_keyed && present == keyed_tasks.len();
        let state = if keys_done && (!needs_ledger || status == Some("succeeded")) {
            "published"
        } else if status == Some("failed") {
            "failed"
        } else if status == Some("blocked") {
            "blocked"
        } else if present > 0 {
            "partial"
        } else {
            "missing"
        };
        states.push(WindowState {
            window: *window,
            state,
            keys,
        });
    }
    Ok(states)
}

/// The idempotency keys on `main`'s retained history of a table; none when the table (or its
/// catalog file) does not exist.
fn keys_on(target: &TargetTable) -> Result<BTreeSet<String>> {
    if !target.catalog_may_exist() {
        return Ok(BTreeSet::new());
    }
    let catalog: Catalog = target.open_catalog(Mode::ReadOnly)?;
    if !catalog.table_exists(&target.namespace, &target.name)? {
        return Ok(BTreeSet::new());
    }
    let table = Table::load(&catalog, &target.namespace, &target.name)?;
    Ok(ldp_table::refs::keyed_snapshots(&table)
        .into_iter()
        .filter_map(|s| s.summary.get(ldp_table::refs::IDEMPOTENCY_KEY).cloned())
        .collect())
}

/// The counts of each state, in the order of [`WINDOW_STATES`].
pub fn state_counts(states: &[WindowState]) -> Vec<(&'static str, usize)> {
    WINDOW_STATES
        .iter()
        .map(|name| (*name, states.iter().filter(|s| s.state == *name).count()))
        .collect()
}
