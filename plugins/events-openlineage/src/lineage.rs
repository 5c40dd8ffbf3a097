//! Folding the ldp events of a run into OpenLineage `RunEvent`s, as the Python tool's
//! `OpenLineageSink` does: a `START` at `run.started`, a `COMPLETE` (published, skipped
//! duplicate) or `FAIL` (blocked by checks, failed) at `run.finished`; the other events are
//! kept, by type, for the facets of those two. A monitor's alert is an event of its own
//! ([`crate::monitor`]).

use std::collections::HashMap;

use ldp_plugin_sdk::PluginError;
use serde_json::{Map, Value};

use crate::event::{LdpEvent, event_time};
use crate::facets::{LDP_RUN_SCHEMA_URL, RUN_EVENT_SCHEMA_URL, facet, facet_schema_url, object};
use crate::json::{or, py_int, py_str, truthy};
use crate::run_id::ol_run_id;

/// What an OpenLineage `RunEvent` is made of.
pub(crate) struct RunEvent<'a> {
    /// `START`, `COMPLETE`, `FAIL`.
    pub event_type: &'a str,
    /// The ldp event it comes from (its time and run id).
    pub event: &'a LdpEvent,
    pub run_facets: Map<String, Value>,
    /// The job's name.
    pub job: String,
    /// The job type facet's `jobType`.
    pub job_type: &'a str,
    pub inputs: Vec<Value>,
    pub outputs: Vec<Value>,
}

/// The runs seen so far, by `(run_id, attempt)`: each run's latest event of each type.
#[derive(Debug, Default)]
pub struct Lineage {
    namespace: String,
    producer: String,
    runs: HashMap<(String, i64), HashMap<String, LdpEvent>>,
}

impl Lineage {
    /// Lineage for the job namespace `namespace`, produced by `producer`.
    pub fn new(namespace: &str, producer: &str) -> Self {
        Self {
            namespace: namespace.to_owned(),
            producer: producer.to_owned(),
            runs: HashMap::new(),
        }
    }

    /// Folds one event in; gives the OpenLineage event it triggers, if any.
    pub fn fold(&mut self, event: LdpEvent) -> Result<Option<Value>, PluginError> {
        if matches!(
            event.event_type.as_str(),
            "monitor.breached" | "monitor.recovered"
        ) {
            return self.monitor_event(&event).map(Some);
        }
        let key = (event.run_id.clone(), event.attempt);
        let state = self.runs.entry(key.clone()).or_default();
        state.insert(event.event_type.clone(), event.clone());
        let lineage = match event.event_type.as_str() {
            "run.started" => self.to_openlineage(&key, "START", &event)?,
            "run.finished" => {
                let kind = self.final_type(&key, &event);
                let lineage = self.to_openlineage(&key, kind, &event);
                self.runs.remove(&key);
                lineage?
            }
            _ => return Ok(None),
        };
        Ok(Some(lineage))
    }

    /// The producer of every event and facet.
    pub(crate) fn producer(&self) -> &str {
        &self.producer
    }

    fn state(&self, key: &(String, i64)) -> Option<&HashMap<String, LdpEvent>> {
        self.runs.get(key)
    }

    fn final_type(&self, key: &(String, i64), finished: &LdpEvent) -> &'static str {
        let status = finished.payload.get("status").and_then(Value::as_str);
        let state = self.state(key);
        let seen = |t: &str| state.is_some_and(|s| s.contains_key(t));
        if matches!(status, Some("blocked_quality" | "failed"))
            || seen("run.failed")
            || seen("run.blocked_quality")
        {
            "FAIL"
        } else {
            "COMPLETE"
        }
    }

    /// One OpenLineage `RunEvent` from the events of the run seen so far.
    fn to_openlineage(
        &self,
        key: &(String, i64),
        event_type: &str,
        event: &LdpEvent,
    ) -> Result<Value, PluginError> {
        let state = self.state(key);
        let get = |t: &str| state.and_then(|s| s.get(t));
        let empty = Map::new();
        let start = get("run.started").map_or(&empty, |e| &e.payload);
        let context = &event.payload;
        let producer = self.producer.as_str();
        let fallback = Value::from("pipeline");
        let pipeline = py_str(or(
            start
                .get("pipeline")
                .filter(|v| truthy(v))
                .or(context.get("pipeline")),
            &fallback,
        ));

        let mut run_facets = Map::new();
        if let Some(Value::Array(window)) = start.get("logical_window")
            && window.len() == 2
            && truthy(&window[0])
        {
            let mut fields = object([("nominalStartTime", window[0].clone())]);
            if truthy(&window[1]) {
                fields.insert("nominalEndTime".into(), window[1].clone());
            }
            run_facets.insert("nominalTime".into(), facet("nominalTime", producer, fields));
        }
        if let Some(parent) = start.get("workflow_run_id").filter(|v| truthy(v)) {
            let workflow = or(start.get("workflow"), &Value::Null);
            let name = if truthy(workflow) {
                py_str(workflow)
            } else {
                "workflow".to_owned()
            };
            run_facets.insert(
                "parent".into(),
                Value::Object(object([
                    ("_producer", Value::from(producer)),
                    ("_schemaURL", Value::from(facet_schema_url("parent"))),
                    (
                        "run",
                        Value::Object(object([("runId", Value::from(ol_run_id(&py_str(parent))))])),
                    ),
                    (
                        "job",
                        Value::Object(object([
                            ("namespace", Value::from(self.namespace.clone())),
                            ("name", Value::from(name)),
                        ])),
                    ),
                ])),
            );
        }
        if event_type == "FAIL" {
            if let Some(failed) = get("run.failed") {
                let text = |key: &str, default: &str| {
                    failed
                        .payload
                        .get(key)
                        .map_or_else(|| default.to_owned(), py_str)
                };
                let message = format!("{}: {}", text("error_type", "Error"), text("message", ""));
                run_facets.insert("errorMessage".into(), error_message(producer, message));
            } else if let Some(blocked) = get("run.blocked_quality") {
                let names: Vec<String> = match blocked.payload.get("failures") {
                    Some(Value::Array(items)) => items.iter().map(py_str).collect(),
                    _ => Vec::new(),
                };
                let message = format!("blocked by failed quality checks: {}", names.join(", "));
                run_facets.insert("errorMessage".into(), error_message(producer, message));
            }
        }
        if event_type != "START" {
            let finish = context;
            let null = Value::Null;
            let key_of = or(
                finish.get("idempotency_key"),
                start.get("idempotency_key").unwrap_or(&null),
            );
            run_facets.insert(
                "ldp_run".into(),
                Value::Object(object([
                    ("_producer", Value::from(producer)),
                    ("_schemaURL", Value::from(LDP_RUN_SCHEMA_URL)),
                    ("attempt", Value::from(event.attempt)),
                    (
                        "status",
                        finish.get("status").cloned().unwrap_or(Value::Null),
                    ),
                    ("idempotencyKey", key_of.clone()),
                    (
                        "specHash",
                        start.get("spec_hash").cloned().unwrap_or(Value::Null),
                    ),
                    (
                        "snapshotId",
                        finish
                            .get("published_snapshot_id")
                            .cloned()
                            .unwrap_or(Value::Null),
                    ),
                ])),
            );
        }

        let quality = get("quality.evaluated");
        // A query over inputs reads the tables `inputs` lists (an ldp extension); their schemas
        // are not the query's, so they carry none.
        let inputs = match start.get("inputs") {
            Some(Value::Array(tables)) if !tables.is_empty() => {
                let mut inputs = Vec::with_capacity(tables.len());
                for table in tables {
                    inputs.extend(self.datasets(Some(table), None, None, None)?);
                }
                inputs
            }
            _ => self.datasets(start.get("source"), get("run.extracted"), None, None)?,
        };
        let outputs = self.datasets(start.get("target"), quality, quality, get("run.published"))?;
        Ok(self.run_event(RunEvent {
            event_type,
            event,
            run_facets,
            job: pipeline,
            job_type: "PIPELINE",
            inputs,
            outputs,
        }))
    }

    /// An OpenLineage `RunEvent` of this namespace and producer.
    pub(crate) fn run_event(&self, parts: RunEvent<'_>) -> Value {
        let producer = self.producer.as_str();
        let job_type = object([
            ("processingType", Value::from("BATCH")),
            ("integration", Value::from("LDP")),
            ("jobType", Value::from(parts.job_type)),
        ]);
        Value::Object(object([
            ("eventType", Value::from(parts.event_type)),
            ("eventTime", Value::from(event_time(parts.event.ts))),
            ("producer", Value::from(producer)),
            ("schemaURL", Value::from(RUN_EVENT_SCHEMA_URL)),
            (
                "run",
                Value::Object(object([
                    ("runId", Value::from(ol_run_id(&parts.event.run_id))),
                    ("facets", Value::Object(parts.run_facets)),
                ])),
            ),
            (
                "job",
                Value::Object(object([
                    ("namespace", Value::from(self.namespace.clone())),
                    ("name", Value::from(parts.job)),
                    (
                        "facets",
                        Value::Object(object([("jobType", facet("jobType", producer, job_type))])),
                    ),
                ])),
            ),
            ("inputs", Value::Array(parts.inputs)),
            ("outputs", Value::Array(parts.outputs)),
        ]))
    }

    /// The dataset of a source or target ref, with what the run learnt about it.
    pub(crate) fn datasets(
        &self,
        reference: Option<&Value>,
        schema_event: Option<&LdpEvent>,
        quality_event: Option<&LdpEvent>,
        published: Option<&LdpEvent>,
    ) -> Result<Vec<Value>, PluginError> {
        let Some(Value::Object(reference)) = reference else {
            return Ok(Vec::new());
        };
        let Some(name) = reference.get("name").filter(|v| truthy(v)) else {
            return Ok(Vec::new());
        };
        let producer = self.producer.as_str();
        let ldp = Value::from("ldp");
        let mut facets = Map::new();
        if let Some(schema) = schema_event
            .and_then(|e| e.payload.get("schema"))
            .filter(|v| truthy(v))
        {
            let fields = match schema {
                Value::Array(items) => items.iter().map(ol_field).collect(),
                _ => Vec::new(),
            };
            facets.insert(
                "schema".into(),
                facet(
                    "schema",
                    producer,
                    object([("fields", Value::Array(fields))]),
                ),
            );
        }
        if let Some(quality) = quality_event {
            let payload = &quality.payload;
            let rows = whole(or(payload.get("rows"), &Value::from(0)), "rows")?;
            let mut columns = Map::new();
            if let Some(Value::Object(nulls)) = payload.get("null_counts") {
                for (column, count) in nulls {
                    let count = whole(count, "null_counts")?;
                    columns.insert(
                        column.clone(),
                        Value::Object(object([("nullCount", Value::from(count))])),
                    );
                }
            }
            facets.insert(
                "dataQualityMetrics".into(),
                facet(
                    "dataQualityMetrics",
                    producer,
                    object([
                        ("rowCount", Value::from(rows)),
                        ("columnMetrics", Value::Object(columns)),
                    ]),
                ),
            );
            let mut assertions = Vec::new();
            if let Some(Value::Array(results)) = payload.get("results") {
                for result in results {
                    let (Some(name), Some(passed)) = (result.get("name"), result.get("passed"))
                    else {
                        return Err(PluginError::data(
                            "quality.evaluated has a result without a name or a verdict",
                        ));
                    };
                    let mut assertion = object([
                        ("assertion", name.clone()),
                        ("success", Value::from(truthy(passed))),
                    ]);
                    if let Some(column) = result.get("column").filter(|v| truthy(v)) {
                        assertion.insert("column".into(), column.clone());
                    }
                    assertions.push(Value::Object(assertion));
                }
            }
            if !assertions.is_empty() {
                facets.insert(
                    "dataQualityAssertions".into(),
                    facet(
                        "dataQualityAssertions",
                        producer,
                        object([("assertions", Value::Array(assertions))]),
                    ),
                );
            }
        }
        let mut dataset = object([
            (
                "namespace",
                Value::from(py_str(or(reference.get("namespace"), &ldp))),
            ),
            ("name", Value::from(py_str(name))),
            ("facets", Value::Object(facets)),
        ]);
        if let Some(published) = published {
            let payload = &published.payload;
            let rows = whole(
                or(payload.get("rows_written"), &Value::from(0)),
                "rows_written",
            )?;
            let mut stats = object([("rowCount", Value::from(rows))]);
            if let Some(Value::Object(summary)) = payload.get("snapshot_summary") {
                for (key, name) in [
                    ("added-files-size", "size"),
                    ("added-data-files", "fileCount"),
                ] {
                    if let Some(n) = summary.get(key).and_then(py_int) {
                        stats.insert(name.into(), Value::from(n));
                    }
                }
            }
            dataset.insert(
                "outputFacets".into(),
                Value::Object(object([(
                    "outputStatistics",
                    facet("outputStatistics", producer, stats),
                )])),
            );
        }
        Ok(vec![Value::Object(dataset)])
    }
}

pub(crate) fn error_message(producer: &str, message: String) -> Value {
    facet(
        "errorMessage",
        producer,
        object([
            ("message", Value::from(message)),
            ("programmingLanguage", Value::from("python")),
        ]),
    )
}

fn whole(value: &Value, key: &str) -> Result<i64, PluginError> {
    py_int(value).ok_or_else(|| PluginError::data(format!("{key} is not a whole number: {value}")))
}

/// A schema field: `{name, type}`, and `fields` for structs.
fn ol_field(item: &Value) -> Value {
    let text = |key: &str| py_str(item.get(key).unwrap_or(&Value::Null));
    let mut field = object([
        ("name", Value::from(text("name"))),
        ("type", Value::from(text("type"))),
    ]);
    if let Some(Value::Array(children)) = item.get("fields").filter(|v| truthy(v)) {
        field.insert(
            "fields".into(),
            Value::Array(children.iter().map(ol_field).collect()),
        );
    }
    Value::Object(field)
}
