//! Which tables feed which, from three records of a lake:
//!
//! * `config`: a dataset config whose source is an Iceberg table feeds its target;
//! * `workflow`: in a workflow file of the lake folder, a task's reads feed its writes, and
//!   the tables a task writes feed those of each task that depends on it;
//! * `run`: a recorded run's `run.started` event names its source and inputs (an Iceberg
//!   table read, a query's tables), which fed the run's target.
//!
//! Each edge is kept once per kind.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ldp_config::Config;
use ldp_pipeline::TargetTable;
use ldp_status::RunsReader;
use serde_json::{Value, json};

/// `from` feeds `to`, as `via` records it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Edge {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) via: &'static str,
}

/// Every edge of the lake of `paths` (its configs, and its folders' workflow files).
pub(crate) fn edges(
    paths: &[PathBuf],
    configs: &[(PathBuf, Config)],
    runs: &mut RunsReader,
) -> BTreeSet<Edge> {
    let mut edges = BTreeSet::new();
    for (_, config) in configs {
        let Ok(target) = TargetTable::resolve(config, config.target()) else {
            continue;
        };
        let to = target.identifier();
        if config.source().is_iceberg()
            && let Ok(source) = TargetTable::resolve(config, config.source())
        {
            edges.insert(Edge {
                from: source.identifier(),
                to: to.clone(),
                via: "config",
            });
        }
        if let Ok((events, _)) = runs.config_events(config, None) {
            for event in events.iter().filter(|e| e.event_type == "run.started") {
                let inputs = event.payload.get("inputs").and_then(Value::as_array);
                let source = event.payload.get("source");
                for input in inputs.into_iter().flatten().chain(source) {
                    if let Some(from) = input.get("table_identifier").and_then(Value::as_str)
                        && from != to
                    {
                        edges.insert(Edge {
                            from: from.to_string(),
                            to: to.clone(),
                            via: "run",
                        });
                    }
                }
            }
        }
    }
    for folder in paths.iter().filter(|p| p.is_dir()) {
        for file in ldp_pipeline::lake::folder_configs(folder).unwrap_or_default() {
            workflow_edges(&file, &mut edges);
        }
    }
    edges
}

/// The edges of one workflow file (nothing for a file that is not a workflow).
fn workflow_edges(file: &std::path::Path, edges: &mut BTreeSet<Edge>) {
    let is_workflow = std::fs::read_to_string(file)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|doc| doc["kind"] == "Workflow");
    if !is_workflow {
        return;
    }
    let plan = ldp_config::workflow::plan_workflow(file, None, jiff::Timestamp::now());
    for task in &plan.tasks {
        for write in &task.writes {
            for read in &task.reads {
                add(edges, &read.name, &write.name);
            }
            for dependency in plan
                .tasks
                .iter()
                .filter(|t| task.depends_on.contains(&t.id))
            {
                for upstream in &dependency.writes {
                    add(edges, &upstream.name, &write.name);
                }
            }
        }
    }
}

fn add(edges: &mut BTreeSet<Edge>, from: &str, to: &str) {
    if from != to {
        edges.insert(Edge {
            from: from.to_string(),
            to: to.to_string(),
            via: "workflow",
        });
    }
}

/// The tables upstream and downstream of `table`: `{"upstream": [{table, via: [...]}],
/// "downstream": [...]}`.
pub(crate) fn around(edges: &BTreeSet<Edge>, table: &str) -> Value {
    let side = |pick: &dyn Fn(&Edge) -> Option<&str>| {
        let mut found: Vec<(String, Vec<&'static str>)> = Vec::new();
        for edge in edges {
            if let Some(other) = pick(edge) {
                match found.iter_mut().find(|(t, _)| t == other) {
                    Some((_, via)) => via.push(edge.via),
                    None => found.push((other.to_string(), vec![edge.via])),
                }
            }
        }
        found
            .into_iter()
            .map(|(table, via)| json!({"table": table, "via": via}))
            .collect::<Vec<_>>()
    };
    json!({
        "upstream": side(&|e: &Edge| (e.to == table).then_some(e.from.as_str())),
        "downstream": side(&|e: &Edge| (e.from == table).then_some(e.to.as_str())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_sees_each_neighbour_once_with_every_record_of_the_link() {
        let edge = |from: &str, to: &str, via| Edge {
            from: from.into(),
            to: to.into(),
            via,
        };
        let edges: BTreeSet<Edge> = [
            edge("shop.orders", "shop.revenue", "workflow"),
            edge("shop.orders", "shop.revenue", "run"),
            edge("shop.raw", "shop.orders", "config"),
            edge("shop.revenue", "shop.report", "run"),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            around(&edges, "shop.revenue"),
            json!({"upstream": [{"table": "shop.orders", "via": ["run", "workflow"]}],
                   "downstream": [{"table": "shop.report", "via": ["run"]}]})
        );
        assert_eq!(
            around(&edges, "shop.raw"),
            json!({"upstream": [], "downstream": [{"table": "shop.orders", "via": ["config"]}]})
        );
    }
}
