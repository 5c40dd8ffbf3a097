//! The end of a run: the checks' verdict, then one commit (direct append or overwrite, an
//! upsert, or the staged publish). On any failure the data files are deleted (the writer and
//! the uncommitted files delete theirs when dropped) and a table this run created is dropped
//! again.

use ldp_config::{OnFailure, WriteMode};
use ldp_events::payload::Stage;
use ldp_plugin_runtime::CheckContext;
use ldp_table::{Append, Overwrite, RetryPolicy, WindowFilter};

use super::stream::{Counts, Incoming, Stream, Streamed, WriteContext};
use super::{Pipeline, Written};
use crate::error::{Error, Result};
use crate::events::Recorder;
use crate::quality::{GateRun, QualityReport};
use crate::report::WriteResult;

impl Pipeline {
    /// Writes what reaches the writer and commits when the checks let it; drops a table this
    /// run created when anything fails.
    pub(super) fn write(
        &self,
        ctx: &WriteContext<'_>,
        incoming: Incoming<'_, '_>,
        rec: &mut Recorder,
    ) -> Result<Written> {
        let mut created = false;
        let outcome = self.stream_and_commit(ctx, incoming, rec, &mut created);
        if outcome.is_err() && created {
            self.drop_created(ctx.catalog);
        }
        outcome
    }

    fn stream_and_commit(
        &self,
        ctx: &WriteContext<'_>,
        incoming: Incoming<'_, '_>,
        rec: &mut Recorder,
        created: &mut bool,
    ) -> Result<Written> {
        let Incoming {
            receiver,
            chain,
            on_failure,
            mut gate,
        } = incoming;
        let mut stream = Stream::open(self, ctx)?;
        let consumed = stream.consume(receiver, chain, &mut gate);
        *created = stream.created;
        consumed?;
        let counts = stream.counts(chain);
        tracing::debug!(rows_read = counts.read, "source finished");
        let schema_seen = stream.schema_seen();
        rec.extracted(counts.read, counts.kept, &schema_seen);
        rec.stage(Stage::Validate);
        let null_counts = stream.null_counts().to_vec();
        // The files are closed while the checks give their verdicts; nothing commits before.
        let streamed = stream.finish()?;
        let quality = self.verdict(ctx, gate, &counts)?;
        rec.quality(
            counts.checked(),
            &schema_seen,
            &null_counts,
            on_failure.as_str(),
            &quality,
        );
        rec.stage(Stage::Write);
        let quality = self.enforce(quality, on_failure)?;
        self.keep_contract(&streamed)?;
        let write = self.commit(ctx, streamed, created)?;
        self.write_contract(ctx, &write);
        Ok(Written {
            rows_read: counts.read,
            rows_kept: counts.kept,
            write,
            quality,
        })
    }

    /// The checks' report (empty without checks). Freshness is judged at the end of the run's
    /// window.
    fn verdict(
        &self,
        ctx: &WriteContext<'_>,
        gate: Option<GateRun<'_>>,
        counts: &Counts,
    ) -> Result<QualityReport> {
        let Some(gate) = gate else {
            return Ok(QualityReport::default());
        };
        gate.finish(CheckContext {
            source_rows: Some(counts.checked()),
            now_micros: ctx.options.window().map(|w| w.end.as_microsecond()),
        })
    }

    /// Failed checks stop the run (`on_failure: fail`) or are logged (`warn`); the report goes
    /// on when the run may commit.
    fn enforce(&self, quality: QualityReport, on_failure: OnFailure) -> Result<QualityReport> {
        if quality.passed() {
            return Ok(quality);
        }
        match on_failure {
            OnFailure::Fail => {
                tracing::info!(
                    "{} quality checks failed; nothing was written to {}",
                    quality.failed(),
                    self.target.identifier()
                );
                Err(Error::Quality { report: quality })
            }
            OnFailure::Warn => {
                tracing::warn!(
                    "writing despite failed quality checks (on_failure=warn)\n{}",
                    quality.summary()
                );
                Ok(quality)
            }
        }
    }

    /// A gold table's contract holds for the columns the table will have: else the run stops
    /// before its commit, as a failed check does (exit 3).
    fn keep_contract(&self, streamed: &Streamed) -> Result<()> {
        let Some(contract) = &self.config.metadata.docs else {
            return Ok(());
        };
        let schema = match (&streamed.evolution, &streamed.table) {
            (Some(evolution), _) => Some(&evolution.schema),
            (None, Some(table)) => Some(table.schema().as_ref()),
            (None, None) => None,
        };
        let mut columns: Vec<String> = schema
            .into_iter()
            .flat_map(|schema| schema.as_struct().fields().iter())
            .map(|field| field.name.clone())
            .collect();
        if let Some(schema) = &streamed.schema {
            for field in schema.fields() {
                if !columns.contains(field.name()) {
                    columns.push(field.name().clone());
                }
            }
        }
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        let reasons = contract.gate(&names);
        if reasons.is_empty() {
            return Ok(());
        }
        Err(Error::Contract {
            table: self.target.identifier(),
            reasons,
        })
    }

    /// After a publish, the contract goes into the table in one metadata-only commit. A failure
    /// there does not undo the publish: it is logged with the command that writes it again.
    fn write_contract(&self, ctx: &WriteContext<'_>, write: &WriteResult) {
        let Some(contract) = &self.config.metadata.docs else {
            return;
        };
        if write.skipped_duplicate || write.snapshot_id.is_none() {
            return;
        }
        let update = ldp_table::ContractUpdate {
            properties: contract.properties(),
            column_docs: contract.columns.clone(),
        };
        let outcome =
            ldp_table::Table::load(ctx.catalog, &self.target.namespace, &self.target.name)
                .and_then(|mut table| {
                    ldp_table::apply_contract(ctx.catalog, &mut table, &update, true)
                });
        match outcome {
            Ok(done) if done.committed => tracing::info!(
                table = self.target.identifier(),
                properties = ?done.properties,
                columns = ?done.columns,
                "wrote the table's contract"
            ),
            Ok(_) => {}
            Err(error) => tracing::warn!(
                "published, but the contract of {} was not written: {error}; run 'ldp gold sync \
                 CONFIG' to write it",
                self.target.identifier()
            ),
        }
    }

    /// One commit of what the run streamed: the staged publish, an upsert, or a direct append
    /// or overwrite.
    fn commit(
        &self,
        ctx: &WriteContext<'_>,
        streamed: Streamed,
        created: &mut bool,
    ) -> Result<WriteResult> {
        let only_window = self.only_window(ctx, &streamed)?;
        if let Some(staging) = &ctx.options.staging {
            return self.publish_staged(ctx, streamed, only_window.as_ref(), staging, created);
        }
        if ctx.mode == WriteMode::Upsert {
            return self.upsert(ctx, streamed.table, &streamed.held, created);
        }
        let (Some(mut table), Some(files)) = (streamed.table, streamed.files) else {
            return Err(ldp_table::Error::EmptyInput.into());
        };
        let schema = streamed.evolution.map(|e| e.schema);
        let committed = match ctx.mode {
            WriteMode::Overwrite => {
                let overwrite = Overwrite::new(files).writer_options(ctx.options.writer.clone());
                let overwrite = match only_window {
                    Some(filter) => overwrite.only_window(filter),
                    None => overwrite,
                };
                match schema {
                    Some(schema) => overwrite.schema(schema),
                    None => overwrite,
                }
                .commit(ctx.catalog, &mut table)
            }
            _ => {
                let append = Append::new(files).retry(RetryPolicy::direct_append());
                match schema {
                    Some(schema) => append.schema(schema),
                    None => append,
                }
                .commit(ctx.catalog, &mut table)
            }
        }?;
        Ok(WriteResult {
            table_identifier: committed.table,
            mode: ctx.mode.as_str().to_string(),
            rows_written: committed.rows_written,
            rows_before: committed.rows_before,
            rows_after: committed.rows_after,
            snapshot_id: Some(committed.snapshot_id),
            branch: None,
            idempotency_key: None,
            attempts: committed.attempts,
            skipped_duplicate: false,
            upsert: None,
        })
    }

    /// With a window column, an overwrite replaces only the window's rows.
    fn only_window(
        &self,
        ctx: &WriteContext<'_>,
        streamed: &Streamed,
    ) -> Result<Option<WindowFilter>> {
        match (self.source_window(ctx.options), ctx.mode, &streamed.schema) {
            (Some(w), WriteMode::Overwrite, Some(schema)) => Ok(Some(
                WindowFilter::for_data_to_write(schema, &w.column, w.start, w.end, w.zone)?,
            )),
            _ => Ok(None),
        }
    }
}
