//! One run of a pipeline: the source streams on its own thread, the host writes data files as
//! batches arrive ([`stream`]), the quality gate decides and one snapshot commits at the end
//! ([`commit`]); or a staged run publishes through its branch.
//!
//! - `options.rs`: what `ldp run` may change about a run;
//! - `stream.rs`: the consumer of the source's batches (window filter, checks, data writer);
//! - `commit.rs`: the verdict of the checks, then the commit (direct, staged or upsert);
//! - `table.rs`: the target table as the run finds, creates, evolves or drops it.

mod commit;
mod options;
mod stream;
mod table;

use std::sync::mpsc::sync_channel;
use std::time::Instant;

use ldp_catalog::Mode;
use ldp_config::{Config, WriteMode};
use ldp_plugin_runtime::Runtime;
use ldp_table::Table;

pub use options::{EventContext, ProgressFn, ProvidedBatches, RunOptions, SinkFactory};
pub(crate) use stream::{Incoming, Streamed, WriteContext};

use crate::error::{Error, Result};
use crate::events::{Recorder, iceberg_ref};
use crate::lock::TableLock;
use crate::quality::{Gate, QualityReport};
use crate::report::{RunReport, WriteResult};
use crate::source::{Loaded, SourceSpec};
use crate::staged::Staging;
use crate::target::TargetTable;
use crate::transform::{Chain, SourceWindow, Transforms};
use ldp_events::payload::{SnapshotSummary, Stage};

/// Batches in flight between the source thread and the writer.
const CHANNEL_BATCHES: usize = 4;

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
        )
        .with_external(options.external_transform.clone());
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
            scope.spawn(crate::span::in_current_span(move || {
                source.produce(loaded, &sender)
            }));
            let receiver = chain.spawn(scope, receiver);
            let incoming = Incoming::start(scope, receiver, &chain, gate.as_ref());
            let ctx = WriteContext {
                catalog: &catalog,
                mode,
                options,
            };
            self.write(&ctx, incoming, rec)
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
        // As the Python tool: every run has a run id and is `published` unless it was skipped.
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
        if !self.target.catalog_may_exist() {
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

    /// The time zone the config counts its windows' days in.
    fn window_zone(&self) -> jiff::tz::TimeZone {
        self.config
            .metadata
            .window
            .as_ref()
            .map_or(jiff::tz::TimeZone::UTC, |w| w.time_zone())
    }
}

/// What the writer did with the stream.
pub(crate) struct Written {
    pub(crate) rows_read: u64,
    pub(crate) rows_kept: Option<u64>,
    pub(crate) write: WriteResult,
    pub(crate) quality: QualityReport,
}
