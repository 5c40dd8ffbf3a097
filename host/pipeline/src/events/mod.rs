//! The run events of a pipeline run (`docs/exactly-once.md#run-events-and-ldp-runs`): a
//! [`Recorder`] emits the sequence (`run.started` → [`run.skipped_duplicate`] |
//! [`run.extracted` → `quality.evaluated` → `run.published` | `run.blocked_quality` |
//! `run.failed`] → `run.finished`) to the sinks of `metadata.observability`: `jsonl` and
//! `openlineage` (built-in plugins, [`plugin_sink`]) and `iceberg` (the `_ldp` tables,
//! [`iceberg_sink`]). A sink that fails is logged and dropped; it never fails the run.

mod http_lineage;
pub(crate) mod iceberg_sink;
mod plugin_sink;

use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow_schema::Schema;
use ldp_config::{
    Config, DEFAULT_JSONL_PATH, DEFAULT_OPENLINEAGE_PATH, Format, SinkKind, WriteMode,
};
use ldp_events::payload::{
    BlockedQuality, CheckOutcome, Extracted, Failed, Finished, Outcome, Publish, QualityEvaluated,
    SchemaField, SnapshotSummary, Stage, Started, WriteFacts, Written,
};
use ldp_events::{DatasetRef, RunEvents};
use ldp_plugin_runtime::Runtime;

use crate::error::Error;
use crate::quality::QualityReport;
use crate::report::{RunReport, WriteResult};
use crate::staged::Staging;
use crate::target::TargetTable;

use iceberg_sink::IcebergEventSink;
use plugin_sink::PluginEventSink;

/// The events of one run attempt, and what `run.finished` reports.
pub(crate) struct Recorder {
    events: RunEvents,
    started: Instant,
    key: Option<String>,
    stage: Stage,
    rows_read: Option<u64>,
    rows_written: Option<u64>,
    quality_passed: Option<bool>,
    finished: bool,
}

impl Recorder {
    /// The recorder of a run of `config`, with the sinks its `metadata.observability` names.
    /// `table` is the run's Iceberg table (for the `iceberg` sink's default catalog), `label`
    /// the `table` of every payload (`ns.t`, or the target file).
    pub fn open(
        config: &Config,
        runtime: &Runtime,
        run_id: &str,
        attempt: u32,
        label: &str,
        table: Option<&TargetTable>,
        context: Option<&crate::run::EventContext>,
    ) -> Recorder {
        let mut events =
            RunEvents::for_pipeline(run_id, i64::from(attempt), &config.identifier, Some(label));
        for sink in sinks(config, runtime, table, true) {
            events.add_sink(sink);
        }
        if let Some(context) = context {
            for (key, value) in &context.tags {
                events = events.with_tag(key, value.as_str());
            }
            for open in &context.sinks {
                events.add_sink(open());
            }
        }
        Recorder {
            events,
            started: Instant::now(),
            key: None,
            stage: Stage::Start,
            rows_read: None,
            rows_written: None,
            quality_passed: None,
            finished: false,
        }
    }

    /// Where the run is (for `run.failed`).
    pub fn stage(&mut self, stage: Stage) {
        self.stage = stage;
    }

    /// `run.started`.
    pub fn started(
        &mut self,
        config: &Config,
        mode: Option<WriteMode>,
        staging: Option<&Staging>,
        target: DatasetRef,
        transforms: Vec<ldp_events::payload::TransformRef>,
    ) {
        self.key = staging.map(|s| s.key.clone());
        let spec_hash = ldp_config::spec_hash(&config.raw, config.base_dir.as_deref()).ok();
        self.events.record(&Started {
            mode: mode.map(|m| m.as_str().to_string()),
            publish: if staging.is_some() {
                Publish::Staged
            } else {
                Publish::Direct
            },
            idempotency_key: self.key.clone(),
            spec_hash,
            logical_window: staging
                .and_then(|s| s.window.as_ref())
                .map(|w| (w.start, w.end)),
            source: source_ref(config),
            inputs: input_refs(config),
            target,
            ldp_version: ldp_events::payload::LDP_VERSION.to_string(),
            transforms,
        });
    }

    /// `run.extracted`.
    pub fn extracted(&mut self, rows_read: u64, rows_kept: Option<u64>, schema: &Schema) {
        self.rows_read = Some(rows_read);
        self.events.record(&Extracted {
            rows_read,
            rows_kept,
            schema: SchemaField::from_schema(schema),
        });
    }

    /// `quality.evaluated` (also without checks, as the Python tool: an empty report passes).
    pub fn quality(
        &mut self,
        rows: u64,
        schema: &Schema,
        null_counts: &[u64],
        on_failure: &str,
        report: &QualityReport,
    ) {
        self.quality_passed = Some(report.passed());
        self.events.record(&QualityEvaluated {
            rows,
            schema: SchemaField::from_schema(schema),
            null_counts: schema
                .fields()
                .iter()
                .zip(null_counts.iter().copied().chain(std::iter::repeat(0)))
                .map(|(f, n)| (f.name().clone(), n))
                .collect(),
            on_failure: on_failure.to_string(),
            results: report
                .results
                .iter()
                .map(|r| CheckOutcome {
                    name: r.name.clone(),
                    passed: r.passed,
                    failing_rows: r.failing_rows,
                    details: r.details.clone(),
                    metrics: r.metrics.clone(),
                })
                .collect(),
        });
    }

    /// `run.published` or `run.skipped_duplicate`, then `run.finished`.
    pub fn written(
        &mut self,
        report: &RunReport,
        table_uuid: Option<String>,
        summary: Option<SnapshotSummary>,
    ) {
        let write = report.write_result.as_ref();
        let skipped = report.skipped_duplicate();
        self.rows_written = Some(report.rows_written);
        let payload = Written {
            skipped_duplicate: skipped,
            rows_written: report.rows_written,
            snapshot_id: report.published_snapshot_id,
            idempotency_key: report.idempotency_key.clone(),
            write: write.map(facts),
            snapshot_summary: summary,
        };
        self.events
            .record_with_table(&payload, table_uuid.as_deref());
        self.finish(Outcome::Written {
            skipped_duplicate: skipped,
            published_snapshot_id: report.published_snapshot_id,
            quality_passed: if skipped && report.rows_read == 0 {
                None
            } else {
                self.quality_passed
            },
        });
    }

    /// `run.blocked_quality` or `run.failed`, then `run.finished`.
    pub fn failed(&mut self, error: &Error) {
        if self.finished {
            return;
        }
        if let Error::Quality { report } = error {
            self.events.record(&BlockedQuality {
                failures: report.failures().map(|r| r.name.clone()).collect(),
                on_failure: "fail".into(),
            });
            self.finish(Outcome::BlockedQuality);
            return;
        }
        self.events.record(&Failed {
            stage: self.stage.clone(),
            error_type: error_type(error).to_string(),
            message: format!("{error:#}"),
        });
        self.finish(Outcome::Failed);
    }

    fn finish(&mut self, outcome: Outcome) {
        self.events.record(&Finished {
            outcome,
            duration_s: self.started.elapsed().as_secs_f64(),
            rows_read: self.rows_read,
            rows_written: self.rows_written,
            idempotency_key: self.key.clone(),
        });
        self.finished = true;
        self.events.close();
    }
}

/// The Python tool's `WriteResult` facts of a write.
fn facts(w: &WriteResult) -> WriteFacts {
    WriteFacts {
        table_identifier: w.table_identifier.clone(),
        mode: w.mode.clone(),
        rows_written: w.rows_written,
        rows_before: w.rows_before,
        rows_after: w.rows_after,
        snapshot_id: w.snapshot_id,
        branch: w.branch.clone(),
        idempotency_key: w.idempotency_key.clone(),
        attempts: w.attempts,
        skipped_duplicate: w.skipped_duplicate,
    }
}

/// The Python exception name the Python tool would report for `error`.
pub(crate) fn error_type(error: &Error) -> &'static str {
    match error {
        Error::Config(_)
        | Error::Unsupported { .. }
        | Error::FileTargetMode { .. }
        | Error::PluginFile { .. } => "ConfigError",
        Error::Transform { .. } | Error::External { .. } => "TransformError",
        Error::Source { .. } | Error::DuplicateColumn { .. } | Error::Duckdb { .. } => {
            "SourceError"
        }
        Error::SourceMissing { .. } => "FileNotFoundError",
        Error::BigQuery { .. } => "SourceError",
        Error::Storage { source, .. } if source.kind().is_config() => "ConfigError",
        Error::Storage { .. } => "OSError",
        Error::Sink { .. } => "SinkError",
        Error::Check { .. } => "CheckError",
        Error::Quality { .. } => "DataQualityError",
        Error::Contract { .. } => "DataContractError",
        Error::Interrupted => "KeyboardInterrupt",
        Error::SearchExhausted { .. } => "CommitSearchExhausted",
        Error::PublishExhausted { .. } => "CommitConflict",
        Error::Table(e) if e.is_retryable() || e.kind() == ldp_table::ErrorKind::Fenced => {
            "CommitConflict"
        }
        Error::Table(e) if e.kind() == ldp_table::ErrorKind::EmptyInput => "ValueError",
        Error::Rest(e) if e.kind() == ldp_catalog_rest::ErrorKind::Conflict => "CommitConflict",
        Error::Catalog(_) | Error::Table(_) | Error::Rest(_) | Error::Lock { .. } => "CatalogError",
    }
}

/// The dataset ref of the config's source.
fn source_ref(config: &Config) -> DatasetRef {
    let block = config.source();
    let base = base_dir(config);
    match (block.format, &block.path) {
        (Format::Iceberg, _) => match TargetTable::resolve(config, block) {
            Ok(t) => iceberg_ref(&t),
            Err(_) => DatasetRef::other(&block.name, Some("ICEBERG")),
        },
        (format, Some(path)) => DatasetRef::file(path, Some(format.as_str()), &base),
        (format, None) => DatasetRef::other(&block.name, Some(format.as_str())),
    }
}

/// The tables of the source's `inputs` (none for another source; an input that cannot be
/// resolved is left out, since the run fails on it with its own message).
fn input_refs(config: &Config) -> Vec<DatasetRef> {
    if config.source().inputs.is_empty() {
        return Vec::new();
    }
    crate::source::inputs::input_tables(config)
        .map(|tables| tables.iter().map(|t| iceberg_ref(&t.table)).collect())
        .unwrap_or_default()
}

/// The dataset ref of an Iceberg table.
pub fn iceberg_ref(table: &TargetTable) -> DatasetRef {
    DatasetRef::iceberg(
        &table.identifier(),
        Some(&match &table.object_location {
            Some(_) => table.warehouse.display().to_string(),
            None => ldp_events::file_uri(&table.warehouse),
        }),
        &table.catalog_name,
        None,
    )
}

fn base_dir(config: &Config) -> PathBuf {
    config
        .base_dir
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The sinks of `metadata.observability` that could be opened; the others are logged.
/// The event sinks of `metadata.observability` that take a monitor's alerts: `jsonl` and
/// `openlineage` (the `_ldp` tables hold runs only).
pub fn alert_sinks(config: &Config, runtime: &Runtime) -> Vec<Box<dyn ldp_events::EventSink>> {
    sinks(config, runtime, None, false)
}

/// Whether `metadata.observability` names a sink that takes a monitor's alerts
/// ([`alert_sinks`]).
pub fn has_alert_sinks(config: &Config) -> bool {
    config
        .raw
        .get("metadata")
        .and_then(|m| m.as_object())
        .and_then(|metadata| ldp_config::sink_specs(metadata).ok())
        .is_some_and(|specs| {
            specs
                .iter()
                .any(|spec| matches!(spec.kind, SinkKind::Jsonl | SinkKind::OpenLineage))
        })
}

fn sinks(
    config: &Config,
    runtime: &Runtime,
    table: Option<&TargetTable>,
    with_iceberg: bool,
) -> Vec<Box<dyn ldp_events::EventSink>> {
    let Some(metadata) = config.raw.get("metadata").and_then(|m| m.as_object()) else {
        return Vec::new();
    };
    let specs = match ldp_config::sink_specs(metadata) {
        Ok(specs) => specs,
        Err(message) => {
            tracing::warn!("metadata.observability: {message}; events are dropped");
            return Vec::new();
        }
    };
    let base = base_dir(config);
    let path_of = |option: Option<&serde_json::Value>, default: &str| -> PathBuf {
        let text = option.and_then(|v| v.as_str()).unwrap_or(default);
        let path = Path::new(text);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            base.join(path)
        }
    };
    let mut out: Vec<Box<dyn ldp_events::EventSink>> = Vec::new();
    for spec in specs {
        let opened: Result<Box<dyn ldp_events::EventSink>, String> = match spec.kind {
            SinkKind::Null => continue,
            SinkKind::Iceberg if !with_iceberg => continue,
            SinkKind::Jsonl => {
                let file = path_of(spec.options.get("path"), DEFAULT_JSONL_PATH);
                PluginEventSink::open(
                    runtime,
                    "events-jsonl",
                    &serde_json::json!({"path": file.display().to_string()}),
                    &file,
                )
                .map(|s| Box::new(s) as _)
            }
            SinkKind::OpenLineage => {
                if let Some(url) = spec.options.get("url").and_then(|v| v.as_str()) {
                    http_lineage::Endpoint::parse(
                        url,
                        spec.options.get("api_key_env").and_then(|v| v.as_str()),
                        spec.options
                            .get("timeout")
                            .and_then(serde_json::Value::as_f64),
                    )
                    .and_then(|endpoint| {
                        http_lineage::HttpLineageSink::open(runtime, &spec.options, endpoint)
                    })
                    .map(|s| Box::new(s) as _)
                } else {
                    let file = path_of(spec.options.get("path"), DEFAULT_OPENLINEAGE_PATH);
                    let mut options = spec.options.clone();
                    options.insert("path".into(), file.display().to_string().into());
                    PluginEventSink::open(
                        runtime,
                        "events-openlineage",
                        &serde_json::Value::Object(options),
                        &file,
                    )
                    .map(|s| Box::new(s) as _)
                }
            }
            SinkKind::Iceberg => match table {
                Some(table) => Ok(Box::new(IcebergEventSink::new(
                    table.clone(),
                    spec.options.get("namespace").and_then(|v| v.as_str()),
                    spec.options
                        .get("batch_size")
                        .and_then(serde_json::Value::as_u64)
                        .map_or(ldp_events::system_tables::DEFAULT_BATCH_SIZE, |n| {
                            n as usize
                        }),
                )) as _),
                None => Err(
                    "iceberg: the run has no Iceberg table whose catalog could hold _ldp.runs"
                        .into(),
                ),
            },
        };
        match opened {
            Ok(sink) => out.push(sink),
            Err(message) => tracing::warn!("event sink not opened: {message}"),
        }
    }
    out
}
