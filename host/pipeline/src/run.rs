//! One direct run of a pipeline: the source streams on its own thread, the host writes data
//! files as batches arrive and commits one snapshot at the end.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use ldp_catalog::{Catalog, Mode};
use ldp_config::{Config, OnFailure, Transform as ConfigTransform, Window, WriteMode};
use ldp_plugin_runtime::{CheckContext, Runtime};
use ldp_table::{
    Append, DataWriter, Evolution, Overwrite, PartitionColumn, RetryPolicy, Table, Transform,
    WindowFilter, WriterOptions,
};

use crate::error::{Error, Result};
use crate::events::{Recorder, iceberg_ref};
use crate::lock::TableLock;
use crate::quality::{Gate, GateRun, QualityReport};
use crate::report::{RunReport, WriteResult};
use crate::source::{Loaded, Message, SourceSpec};
use crate::staged::{PublishPolicy, Staging};
use crate::target::TargetTable;
use crate::transform::{Chain, SourceWindow, Transforms};
use ldp_events::payload::{SnapshotSummary, Stage};

/// Batches in flight between the source thread and the writer.
const CHANNEL_BATCHES: usize = 4;

/// Called with the rows written so far, after each batch.
pub type ProgressFn = Arc<dyn Fn(u64) + Send + Sync>;

/// What `ldp run` may change about a run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// `--mode`: overrides the target's `write_mode`.
    pub mode: Option<WriteMode>,
    /// How data files are written.
    pub writer: WriterOptions,
    /// Set (by a Ctrl-C handler) to stop the run: it ends with [`Error::Interrupted`] after
    /// deleting what it wrote, and commits nothing.
    pub cancel: Option<&'static AtomicBool>,
    /// Told how many rows are written, after each batch (a progress display).
    pub progress: Option<ProgressFn>,
    /// A staged run (`--window`, `--idempotency-key`): published at most once per key.
    pub staging: Option<Staging>,
    /// Limits of a staged run's publish loop.
    pub publish: PublishPolicy,
    /// The window of a direct run (a file target in a workflow): it picks the source path and
    /// the rows a window column keeps. A staged run takes its window from [`Staging`].
    pub window: Option<Window>,
    /// Where the run's events also go and how they are tagged (a task of a workflow run).
    pub events: Option<EventContext>,
    /// Batches that stand in for the config's source (a workflow's sql task hands the rows of
    /// its query): the source block is not read.
    pub batches: Option<ProvidedBatches>,
}

/// The rows of a run whose source is not a file or table: a schema and its batches.
#[derive(Clone, Debug)]
pub struct ProvidedBatches {
    /// What the source is called in the events (`sql task revenue`).
    pub name: String,
    /// The schema of every batch.
    pub schema: SchemaRef,
    /// The batches, in order.
    pub batches: Arc<Vec<RecordBatch>>,
}

/// Opens an extra event sink for each attempt (the workflow's ledger).
pub type SinkFactory = Arc<dyn Fn() -> Box<dyn ldp_events::EventSink> + Send + Sync>;

/// The events of a run that is a task of a workflow run.
#[derive(Clone)]
pub struct EventContext {
    /// The run id of a direct run (a staged run's is its [`Staging`]'s); a new one when `None`.
    pub run_id: Option<String>,
    /// The attempt of a direct run (from 1).
    pub attempt: u32,
    /// `workflow`, `workflow_run_id` and `task_id`, set over every payload.
    pub tags: Vec<(String, String)>,
    /// Sinks every event also goes to, besides the config's own.
    pub sinks: Vec<SinkFactory>,
}

impl std::fmt::Debug for EventContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventContext")
            .field("run_id", &self.run_id)
            .field("attempt", &self.attempt)
            .field("tags", &self.tags)
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("mode", &self.mode)
            .field("writer", &self.writer)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("staging", &self.staging)
            .field("window", &self.window)
            .field("events", &self.events)
            .field("batches", &self.batches.as_ref().map(|b| b.batches.len()))
            .finish()
    }
}

impl RunOptions {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The run id and attempt: a staged run's, else the workflow's for a direct run, else a new
    /// run id and attempt 1.
    pub(crate) fn run_identity(&self) -> (String, u32) {
        if let Some(staging) = &self.staging {
            return (staging.run_id.clone(), staging.attempt);
        }
        match &self.events {
            Some(EventContext {
                run_id: Some(id),
                attempt,
                ..
            }) => (id.clone(), (*attempt).max(1)),
            _ => (crate::staged::new_run_id(), 1),
        }
    }

    /// The window of the run: a staged run's, else the direct run's, if it has one.
    pub fn window(&self) -> Option<&Window> {
        self.staging
            .as_ref()
            .and_then(|s| s.window.as_ref())
            .or(self.window.as_ref())
    }
}

/// A config ready to run: its route checked and its target resolved. The source is resolved
/// when the run starts (its path may depend on the run's window).
#[derive(Debug, Clone)]
pub struct Pipeline {
    config: Config,
    target: TargetTable,
}

impl Pipeline {
    /// Reads `config` and resolves its route and target table. Nothing is read or created.
    ///
    /// # Errors
    ///
    /// The config is invalid, or its route is not one this build runs.
    pub fn open(config: Config) -> Result<Pipeline> {
        crate::routes::check(&config)?;
        let target = TargetTable::resolve(&config, config.target())?;
        Ok(Pipeline { config, target })
    }

    /// The config.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where the target table lives.
    pub fn target(&self) -> &TargetTable {
        &self.target
    }

    /// Reads the source and commits one snapshot to the target.
    ///
    /// # Errors
    ///
    /// The source fails (the plugin's message names the file, line and column), the source is
    /// empty (`No data to write …`), the batches do not fit the table, or the commit fails. In
    /// every case the table is left as it was: the data files written are deleted and a table
    /// created by this run is dropped again.
    pub fn run(&self, runtime: &Runtime, options: &RunOptions) -> Result<RunReport> {
        let mode = options
            .mode
            .unwrap_or_else(|| self.config.target().write_mode());
        let (run_id, attempt) = options.run_identity();
        let mut rec = Recorder::open(
            &self.config,
            runtime,
            &run_id,
            attempt,
            &self.target.identifier(),
            Some(&self.target),
            options.events.as_ref(),
        );
        let transforms = Transforms::resolve(&self.config);
        rec.started(
            &self.config,
            Some(mode),
            options.staging.as_ref(),
            iceberg_ref(&self.target),
            transforms
                .as_ref()
                .map(Transforms::refs)
                .unwrap_or_default(),
        );
        let result = transforms.and_then(|transforms| {
            self.run_recorded(runtime, options, mode, &run_id, &transforms, &mut rec)
        });
        match &result {
            Ok(report) => {
                let (uuid, summary) = self.snapshot_facts(report.published_snapshot_id);
                rec.written(report, uuid, summary);
            }
            Err(e) => rec.failed(e),
        }
        result
    }

    /// The table's UUID and the summary of `snapshot`, for the events (none when unreadable).
    fn snapshot_facts(&self, snapshot: Option<i64>) -> (Option<String>, Option<SnapshotSummary>) {
        let Ok(table) = self.target.load() else {
            return (None, None);
        };
        let uuid = Some(table.metadata().uuid().to_string());
        let summary = snapshot
            .and_then(|id| table.snapshot(id).ok())
            .map(|s| SnapshotSummary {
                operation: s.operation.clone(),
                properties: s.summary.clone(),
            });
        (uuid, summary)
    }

    fn run_recorded(
        &self,
        runtime: &Runtime,
        options: &RunOptions,
        mode: WriteMode,
        run_id: &str,
        transforms: &Transforms,
        rec: &mut Recorder,
    ) -> Result<RunReport> {
        let started = Instant::now();
        if mode == WriteMode::Upsert && self.config.target().join_cols.is_empty() {
            return Err(Error::Unsupported {
                message: format!(
                    "write mode 'upsert' for Iceberg table {} needs join_cols: add \"join_cols\" to metadata.target",
                    self.target.identifier()
                ),
            });
        }
        rec.stage(Stage::Search);
        if let Some(staging) = &options.staging
            && let Some(report) = self.skip_if_published(staging, mode, started)?
        {
            return Ok(report);
        }
        rec.stage(Stage::Extract);
        let source = SourceSpec::for_run(&self.config, options)?;
        let loaded = source.load(runtime)?;
        let chain = Chain::new(
            transforms.load(runtime)?,
            CHANNEL_BATCHES,
            self.source_window(options),
        );
        let gate = Gate::load(&self.config, runtime)?;
        let catalog = self.target.open_catalog(Mode::Create)?;
        let _lock = if matches!(mode, WriteMode::Overwrite | WriteMode::Upsert) && self.target.local
        {
            Some(TableLock::acquire(
                &self.target.warehouse,
                &self.target.namespace,
                &self.target.name,
            )?)
        } else {
            None
        };
        let written = std::thread::scope(|scope| {
            let (sender, receiver) = sync_channel(CHANNEL_BATCHES);
            let source = &source;
            let loaded: &Loaded = &loaded;
            scope.spawn(move || source.produce(loaded, &sender));
            let receiver = chain.spawn(scope, receiver);
            let checks = gate
                .as_ref()
                .map(|gate| (gate.on_failure, gate.start(scope)));
            self.write(&catalog, receiver, &chain, checks, mode, options, rec)
        })?;
        let mut report = self.report(
            written.rows_read,
            written.write,
            written.quality,
            options.staging.as_ref(),
            run_id,
            started,
        );
        report.rows_kept = written.rows_kept;
        Ok(report)
    }

    /// The report of a finished run.
    fn report(
        &self,
        rows_read: u64,
        write: WriteResult,
        quality: QualityReport,
        staging: Option<&Staging>,
        run_id: &str,
        started: Instant,
    ) -> RunReport {
        let duration_s = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        // As the reference: every run has a run id and is `published` unless it was skipped.
        let snapshot_id = write.snapshot_id;
        let status = if write.skipped_duplicate {
            "skipped_duplicate"
        } else {
            "published"
        };
        RunReport {
            name: self.config.identifier.clone(),
            rows_read,
            rows_written: write.rows_written,
            quality,
            duration_s,
            run_id: Some(run_id.to_string()),
            idempotency_key: staging.map(|s| s.key.clone()),
            published_snapshot_id: snapshot_id,
            status: status.into(),
            rows_kept: None,
            write_result: Some(write),
        }
    }

    /// Step 0 of a staged run: when `main` of the target already holds the key, the run is a
    /// duplicate and reads nothing (not even the source file, which may be gone).
    fn skip_if_published(
        &self,
        staging: &Staging,
        mode: WriteMode,
        started: Instant,
    ) -> Result<Option<RunReport>> {
        if !self.target.catalog_file.is_file() {
            return Ok(None);
        }
        let catalog = self.target.open_catalog(Mode::ReadOnly)?;
        if !catalog.table_exists(&self.target.namespace, &self.target.name)? {
            return Ok(None);
        }
        let table = Table::load(&catalog, &self.target.namespace, &self.target.name)?;
        let found = crate::staged::already_published(&table, staging, mode.as_str());
        if found.is_none() && mode == WriteMode::Append {
            crate::staged::warn_if_the_key_may_have_expired(
                &table,
                staging,
                &self.config.identifier,
            );
        }
        Ok(found.map(|write| {
            self.report(
                0,
                write,
                QualityReport::default(),
                Some(staging),
                &staging.run_id,
                started,
            )
        }))
    }

    /// The consumer: writes what the source thread sends (and shows it to the checks), then
    /// commits when the checks let it. On any failure the data files are deleted (the writer and
    /// the uncommitted files delete theirs when dropped) and a table this run created is dropped
    /// again.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        catalog: &Catalog,
        receiver: Receiver<Result<Message>>,
        chain: &Chain,
        checks: Option<(OnFailure, GateRun<'_>)>,
        mode: WriteMode,
        options: &RunOptions,
        rec: &mut Recorder,
    ) -> Result<Written> {
        let mut created = false;
        let outcome = self.stream_and_commit(
            catalog,
            receiver,
            chain,
            checks,
            mode,
            options,
            rec,
            &mut created,
        );
        if outcome.is_err() && created {
            self.drop_created(catalog);
        }
        outcome
    }

    #[allow(clippy::too_many_arguments)]
    fn stream_and_commit(
        &self,
        catalog: &Catalog,
        receiver: Receiver<Result<Message>>,
        chain: &Chain,
        checks: Option<(OnFailure, GateRun<'_>)>,
        mode: WriteMode,
        options: &RunOptions,
        rec: &mut Recorder,
        created: &mut bool,
    ) -> Result<Written> {
        let (on_failure, mut gate) = match checks {
            Some((on_failure, gate)) => (on_failure, Some(gate)),
            None => (OnFailure::Fail, None),
        };
        let target = &self.target;
        let mut table = match Table::load(catalog, &target.namespace, &target.name) {
            Ok(table) => {
                self.warn_if_spec_differs(&table);
                Some(table)
            }
            Err(e) if e.kind() == ldp_table::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let mut writer: Option<DataWriter> = None;
        let mut evolution: Option<Evolution> = None;
        let mut rows_read = 0u64;
        // `metadata.window.column` keeps the rows of the run's window, before the checks see them.
        let window_column = self
            .config
            .metadata
            .window
            .as_ref()
            .and_then(|w| w.column.clone());
        let mut window_filter: Option<WindowFilter> = None;
        let mut data_schema: Option<SchemaRef> = None;
        let mut null_counts: Vec<u64> = Vec::new();
        let mut rows_kept = 0u64;
        // An upsert compares the whole batch with the table: it is held until the source ends.
        let mut held: Vec<RecordBatch> = Vec::new();
        for message in receiver.iter() {
            if options.cancelled() {
                return Err(Error::Interrupted);
            }
            let batch = match message? {
                Message::Schema(schema) => {
                    tracing::debug!(columns = schema.fields().len(), "source opened");
                    data_schema = Some(schema.clone());
                    // With transforms, the chain filtered the window before them.
                    if chain.is_active() {
                    } else if let (Some(column), Some(window)) = (&window_column, options.window())
                    {
                        window_filter = Some(WindowFilter::new(
                            &schema,
                            column,
                            window.start,
                            window.end,
                            self.window_zone(),
                        )?);
                    }
                    if let Some(gate) = gate.as_mut() {
                        gate.schema(schema)?;
                    }
                    continue;
                }
                Message::Batch(batch) if batch.num_rows() == 0 => continue,
                Message::Batch(batch) => batch,
            };
            rows_read += batch.num_rows() as u64;
            let batch = match &window_filter {
                Some(filter) => {
                    let kept = filter.keep(&batch)?;
                    rows_kept += kept.num_rows() as u64;
                    if kept.num_rows() == 0 {
                        continue;
                    }
                    kept
                }
                None => batch,
            };
            null_counts.resize(batch.num_columns(), 0);
            for (count, column) in null_counts.iter_mut().zip(batch.columns()) {
                *count += column.null_count() as u64;
            }
            if let Some(gate) = gate.as_mut() {
                gate.batch(batch.clone())?;
            }
            if mode == WriteMode::Upsert {
                held.push(batch);
                if let Some(progress) = &options.progress {
                    progress(rows_read);
                }
                continue;
            }
            let w = match writer.as_mut() {
                Some(w) => w,
                None => {
                    let t = match table.take() {
                        Some(t) => t,
                        None => {
                            let (t, c) = self.create_table(catalog, &batch.schema())?;
                            *created = c;
                            t
                        }
                    };
                    let t = table.insert(t);
                    let schema = match (*created, self.evolution(t, &batch.schema())?) {
                        (false, Some(e)) => {
                            let schema = Arc::new(e.schema.clone());
                            evolution = Some(e);
                            schema
                        }
                        _ => t.schema().clone(),
                    };
                    writer.insert(DataWriter::with_schema(t, schema, &options.writer)?)
                }
            };
            w.write(&batch)?;
            if let Some(progress) = &options.progress {
                progress(w.rows_written());
            }
        }
        if options.cancelled() {
            return Err(Error::Interrupted);
        }
        if chain.is_active() {
            // The rows the source gave (and kept), not those the transforms gave back.
            let (read, kept) = chain.counts();
            rows_read = read;
            if let Some(kept) = kept {
                rows_kept = kept;
            }
        }
        tracing::debug!(rows_read, "source finished");
        let window_filtered =
            window_filter.is_some() || (chain.is_active() && chain.counts().1.is_some());
        let checked_rows = if window_filtered {
            rows_kept
        } else {
            rows_read
        };
        let empty = Schema::empty();
        let schema_seen: &Schema = data_schema.as_deref().unwrap_or(&empty);
        rec.extracted(rows_read, window_filtered.then_some(rows_kept), schema_seen);
        rec.stage(Stage::Validate);
        // The files are closed while the checks give their verdicts; nothing commits before.
        let files = writer.map(DataWriter::finish).transpose()?;
        let quality = match gate {
            Some(gate) => gate.finish(CheckContext {
                source_rows: Some(checked_rows),
                // Freshness is judged at the end of the run's window.
                now_micros: options.window().map(|w| w.end.as_microsecond()),
            })?,
            None => QualityReport::default(),
        };
        rec.quality(
            checked_rows,
            schema_seen,
            &null_counts,
            on_failure.as_str(),
            &quality,
        );
        rec.stage(Stage::Write);
        if !quality.passed() {
            match on_failure {
                OnFailure::Fail => {
                    tracing::info!(
                        "{} quality checks failed; nothing was written to {}",
                        quality.failed(),
                        self.target.identifier()
                    );
                    return Err(Error::Quality { report: quality });
                }
                OnFailure::Warn => tracing::warn!(
                    "writing despite failed quality checks (on_failure=warn)\n{}",
                    quality.summary()
                ),
            }
        }
        let rows_kept = window_filtered.then_some(rows_kept);
        let written = |write| Written {
            rows_read,
            rows_kept,
            write,
            quality,
        };
        // With a window column, an overwrite replaces only the window's rows.
        let only_window = match (self.source_window(options), mode, &data_schema) {
            (Some(w), WriteMode::Overwrite, Some(schema)) => Some(WindowFilter::for_data_to_write(
                schema, &w.column, w.start, w.end, w.zone,
            )?),
            _ => None,
        };
        if let Some(staging) = &options.staging {
            let write = self.publish_staged(
                catalog,
                table,
                files,
                evolution.as_ref(),
                only_window.as_ref(),
                &held,
                mode,
                staging,
                options,
                created,
            )?;
            return Ok(written(write));
        }
        if mode == WriteMode::Upsert {
            let write = self.upsert(catalog, table, &held, options, created)?;
            return Ok(written(write));
        }
        let (Some(mut table), Some(files)) = (table, files) else {
            return Err(ldp_table::Error::EmptyInput.into());
        };
        let schema = evolution.map(|e| e.schema);
        let committed = match mode {
            WriteMode::Overwrite => {
                let overwrite = Overwrite::new(files).writer_options(options.writer.clone());
                let overwrite = match only_window {
                    Some(filter) => overwrite.only_window(filter),
                    None => overwrite,
                };
                match schema {
                    Some(schema) => overwrite.schema(schema),
                    None => overwrite,
                }
                .commit(catalog, &mut table)
            }
            _ => {
                let append = Append::new(files).retry(RetryPolicy::direct_append());
                match schema {
                    Some(schema) => append.schema(schema),
                    None => append,
                }
                .commit(catalog, &mut table)
            }
        }?;
        Ok(written(WriteResult {
            table_identifier: committed.table,
            mode: mode.as_str().to_string(),
            rows_written: committed.rows_written,
            rows_before: committed.rows_before,
            rows_after: committed.rows_after,
            snapshot_id: Some(committed.snapshot_id),
            branch: None,
            idempotency_key: None,
            attempts: committed.attempts,
            skipped_duplicate: false,
            upsert: None,
        }))
    }

    /// The time zone the config counts its windows' days in.
    /// `metadata.window.column` with the run's window, for the transform chain.
    fn source_window(&self, options: &RunOptions) -> Option<SourceWindow> {
        let column = self.config.metadata.window.as_ref()?.column.clone()?;
        let window = options.window()?;
        Some(SourceWindow {
            column,
            start: window.start,
            end: window.end,
            zone: self.window_zone(),
        })
    }

    fn window_zone(&self) -> jiff::tz::TimeZone {
        self.config
            .metadata
            .window
            .as_ref()
            .map_or(jiff::tz::TimeZone::UTC, |w| w.time_zone())
    }

    /// `partition_by` only applies when a run creates the table: say so when an existing table
    /// has another spec (the reference's warning).
    fn warn_if_spec_differs(&self, table: &Table) {
        let wanted: Vec<(String, String)> = self
            .config
            .target()
            .partition_by
            .iter()
            .map(|f| (f.column.clone(), f.transform.to_string()))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let actual = table.partition_columns();
        if actual != wanted {
            let show = |fields: &[(String, String)]| {
                let items: Vec<String> = fields
                    .iter()
                    .map(|(c, t)| format!("('{c}', '{t}')"))
                    .collect();
                format!("[{}]", items.join(", "))
            };
            tracing::warn!(
                "Iceberg table {} already exists with partition spec {}; partition_by {} only applies at creation",
                table.identifier(),
                show(&actual),
                show(&wanted)
            );
        }
    }

    /// How the table's schema must change for `data` (`schema_evolution`, default true): new
    /// columns added as optional and `int`/`float` widened, in the same commit as the data; with
    /// `schema_evolution: false` new columns fail the run, naming them.
    pub(crate) fn evolution(&self, table: &Table, data: &Schema) -> Result<Option<Evolution>> {
        let identifier = table.identifier();
        if !self.config.target().schema_evolution {
            ldp_table::refuse_new_columns(identifier, table.schema(), data)?;
            return Ok(None);
        }
        let evolution = ldp_table::evolve(
            identifier,
            table.schema(),
            table.metadata().last_column_id(),
            data,
        )?;
        if let Some(e) = &evolution {
            tracing::info!(
                "evolving the schema of {identifier}: new columns [{}], widened [{}]",
                quoted(&e.added),
                quoted(&e.widened)
            );
        }
        Ok(evolution)
    }

    /// Creates the target table from the first batch's schema; another writer creating it first
    /// is fine. Returns the table and whether this run created it.
    pub(crate) fn create_table(
        &self,
        catalog: &Catalog,
        schema: &SchemaRef,
    ) -> Result<(Table, bool)> {
        let t = &self.target;
        let partition = partition_columns(&self.config);
        let created = match &t.object_location {
            Some(location) => Table::create_at_location(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                location,
                &[],
            ),
            None => Table::create_partitioned(
                catalog,
                &t.namespace,
                &t.name,
                schema,
                &partition,
                &t.location,
            ),
        };
        match created {
            Ok(table) => {
                tracing::info!(table = %t.identifier(), "created the table");
                Ok((table, true))
            }
            Err(e) if e.kind() == ldp_table::ErrorKind::AlreadyExists => {
                Ok((Table::load(catalog, &t.namespace, &t.name)?, false))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Drops a table this run created, unless another writer committed to it meanwhile.
    fn drop_created(&self, catalog: &Catalog) {
        let t = &self.target;
        let Ok(table) = Table::load(catalog, &t.namespace, &t.name) else {
            return;
        };
        if table.current_snapshot_id().is_some() {
            return;
        }
        match catalog.drop_table(&t.namespace, &t.name) {
            Ok(record) if t.object_location.is_some() => {
                // On object storage the table's first metadata object stays (an orphan).
                tracing::debug!(
                    table = %t.identifier(),
                    metadata = record.metadata_location,
                    "dropped the table this run created"
                );
            }
            Ok(record) => {
                if let Some(path) = record.metadata_location.strip_prefix("file://") {
                    let _ = std::fs::remove_file(path);
                }
                for dir in ["metadata", "data", ""] {
                    let _ = std::fs::remove_dir(t.location.join(dir));
                }
                tracing::debug!(table = %t.identifier(), "dropped the table this run created");
            }
            Err(e) => tracing::warn!("cannot drop the empty table {}: {e}", t.identifier()),
        }
    }
}

/// The target's `partition_by` as the table layer's partition columns.
fn partition_columns(config: &Config) -> Vec<PartitionColumn> {
    config
        .target()
        .partition_by
        .iter()
        .map(|field| PartitionColumn {
            column: field.column.clone(),
            transform: match field.transform {
                ConfigTransform::Identity => Transform::Identity,
                ConfigTransform::Year => Transform::Year,
                ConfigTransform::Month => Transform::Month,
                ConfigTransform::Day => Transform::Day,
                ConfigTransform::Hour => Transform::Hour,
                ConfigTransform::Bucket(n) => Transform::Bucket(n),
                ConfigTransform::Truncate(w) => Transform::Truncate(w),
            },
            name: field.name.clone(),
        })
        .collect()
}

/// `'a', 'b'`.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the writer did with the stream.
pub(crate) struct Written {
    rows_read: u64,
    rows_kept: Option<u64>,
    write: WriteResult,
    quality: QualityReport,
}
