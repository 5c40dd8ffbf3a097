//! The consumer of a run: writes what the source thread sends as it arrives, and shows it to the
//! checks. The target table is loaded when the stream opens and created from the first batch
//! with rows when it is missing; the schema change the data needs is found then, and applied
//! with the commit.

use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::thread::Scope;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use ldp_catalog::Catalog;
use ldp_config::{OnFailure, WriteMode};
use ldp_table::{DataFiles, DataWriter, Evolution, Table, WindowFilter};

use super::{Pipeline, RunOptions};
use crate::error::{Error, Result};
use crate::quality::{Gate, GateRun};
use crate::source::Message;
use crate::transform::Chain;

/// Where and how a run writes.
pub(crate) struct WriteContext<'a> {
    /// The target's catalog.
    pub(crate) catalog: &'a Catalog,
    /// The write mode (`--mode`, else the target's).
    pub(crate) mode: WriteMode,
    /// The run's options.
    pub(crate) options: &'a RunOptions,
}

/// What reaches the writer: the batches (after the transforms) and the checks watching them.
pub(crate) struct Incoming<'c, 'g> {
    /// The batches.
    pub(crate) receiver: Receiver<Result<Message>>,
    /// The transforms they came through (their counts are the source's rows).
    pub(crate) chain: &'c Chain,
    /// What failed checks do (`fail` without checks).
    pub(crate) on_failure: OnFailure,
    /// The checks, running on their own thread.
    pub(crate) gate: Option<GateRun<'g>>,
}

impl<'c, 'g> Incoming<'c, 'g> {
    /// The batches of `receiver`, which came through `chain`, with `gate`'s checks started in
    /// `scope`.
    pub(crate) fn start<'env>(
        scope: &'g Scope<'g, 'env>,
        receiver: Receiver<Result<Message>>,
        chain: &'c Chain,
        gate: Option<&'env Gate>,
    ) -> Self {
        Incoming {
            receiver,
            chain,
            on_failure: gate.map_or(OnFailure::Fail, |gate| gate.on_failure),
            gate: gate.map(|gate| gate.start(scope)),
        }
    }
}

/// The rows a run read and kept.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counts {
    /// Rows the source gave.
    pub(super) read: u64,
    /// Rows the run's window kept, when a window column filtered them.
    pub(super) kept: Option<u64>,
}

impl Counts {
    /// The rows the checks judge: those the window kept, else all read.
    pub(super) fn checked(&self) -> u64 {
        self.kept.unwrap_or(self.read)
    }
}

/// What a run streamed, ready to commit.
pub(crate) struct Streamed {
    /// The target as the run found or created it (none when the source gave no rows).
    pub(crate) table: Option<Table>,
    /// The data files written (appends and overwrites).
    pub(crate) files: Option<DataFiles>,
    /// The schema change the data needs, committed with it.
    pub(crate) evolution: Option<Evolution>,
    /// The rows of an upsert, held until the source ends.
    pub(crate) held: Vec<RecordBatch>,
    /// The source's schema, when it gave one.
    pub(crate) schema: Option<SchemaRef>,
}

/// The state of one run's consumer.
pub(super) struct Stream<'a> {
    pipeline: &'a Pipeline,
    ctx: &'a WriteContext<'a>,
    table: Option<Table>,
    /// Whether this run created the target table (dropped again if the run fails).
    pub(super) created: bool,
    writer: Option<DataWriter>,
    evolution: Option<Evolution>,
    rows_read: u64,
    rows_kept: u64,
    window_filter: Option<WindowFilter>,
    data_schema: Option<SchemaRef>,
    null_counts: Vec<u64>,
    held: Vec<RecordBatch>,
}

impl<'a> Stream<'a> {
    /// Loads the target table, when it exists.
    pub(super) fn open(pipeline: &'a Pipeline, ctx: &'a WriteContext<'a>) -> Result<Self> {
        let target = pipeline.target();
        let table = match Table::load(ctx.catalog, &target.namespace, &target.name) {
            Ok(table) => {
                pipeline.warn_if_spec_differs(&table);
                Some(table)
            }
            Err(e) if e.kind() == ldp_table::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        Ok(Stream {
            pipeline,
            ctx,
            table,
            created: false,
            writer: None,
            evolution: None,
            rows_read: 0,
            rows_kept: 0,
            window_filter: None,
            data_schema: None,
            null_counts: Vec::new(),
            held: Vec::new(),
        })
    }

    /// Takes every message of the source until it ends, or the run is cancelled.
    pub(super) fn consume(
        &mut self,
        receiver: Receiver<Result<Message>>,
        chain: &Chain,
        gate: &mut Option<GateRun<'_>>,
    ) -> Result<()> {
        for message in receiver.iter() {
            if self.ctx.options.cancelled() {
                return Err(Error::Interrupted);
            }
            match message? {
                Message::Schema(schema) => self.on_schema(schema, chain, gate)?,
                Message::Batch(batch) if batch.num_rows() == 0 => {}
                Message::Batch(batch) => self.on_batch(batch, gate)?,
            }
        }
        if self.ctx.options.cancelled() {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// The source's schema: starts the window filter (unless the transform chain filtered the
    /// window before the transforms) and the checks.
    fn on_schema(
        &mut self,
        schema: SchemaRef,
        chain: &Chain,
        gate: &mut Option<GateRun<'_>>,
    ) -> Result<()> {
        tracing::debug!(columns = schema.fields().len(), "source opened");
        self.data_schema = Some(schema.clone());
        // `metadata.window.column` keeps the rows of the run's window, before the checks see them.
        let window_column = self.pipeline.config.metadata.window.as_ref();
        let window_column = window_column.and_then(|w| w.column.as_ref());
        if !chain.is_active()
            && let (Some(column), Some(window)) = (window_column, self.ctx.options.window())
        {
            self.window_filter = Some(WindowFilter::new(
                &schema,
                column,
                window.start,
                window.end,
                self.pipeline.window_zone(),
            )?);
        }
        if let Some(gate) = gate.as_mut() {
            gate.schema(schema)?;
        }
        Ok(())
    }

    /// One batch with rows: filtered to the window, counted, shown to the checks, then held
    /// (an upsert compares the whole batch with the table) or written.
    fn on_batch(&mut self, batch: RecordBatch, gate: &mut Option<GateRun<'_>>) -> Result<()> {
        self.rows_read += batch.num_rows() as u64;
        let batch = match &self.window_filter {
            Some(filter) => {
                let kept = filter.keep(&batch)?;
                self.rows_kept += kept.num_rows() as u64;
                if kept.num_rows() == 0 {
                    return Ok(());
                }
                kept
            }
            None => batch,
        };
        self.null_counts.resize(batch.num_columns(), 0);
        for (count, column) in self.null_counts.iter_mut().zip(batch.columns()) {
            *count += column.null_count() as u64;
        }
        if let Some(gate) = gate.as_mut() {
            gate.batch(batch.clone())?;
        }
        let options = self.ctx.options;
        if self.ctx.mode == WriteMode::Upsert {
            self.held.push(batch);
            if let Some(progress) = &options.progress {
                progress(self.rows_read);
            }
            return Ok(());
        }
        let writer = self.writer(&batch.schema())?;
        writer.write(&batch)?;
        if let Some(progress) = &options.progress {
            progress(writer.rows_written());
        }
        Ok(())
    }

    /// The data writer, opened on the first batch: the table is created when missing, and the
    /// files are written in the evolved schema when the data needs one.
    fn writer(&mut self, schema: &SchemaRef) -> Result<&mut DataWriter> {
        if self.writer.is_none() {
            let table = match self.table.take() {
                Some(table) => table,
                None => {
                    let (table, created) = self.pipeline.create_table(self.ctx.catalog, schema)?;
                    self.created = created;
                    table
                }
            };
            let table = self.table.insert(table);
            let schema = match (self.created, self.pipeline.evolution(table, schema)?) {
                (false, Some(evolution)) => {
                    let schema = Arc::new(evolution.schema.clone());
                    self.evolution = Some(evolution);
                    schema
                }
                _ => table.schema().clone(),
            };
            let writer = DataWriter::with_schema(table, schema, &self.ctx.options.writer)?;
            self.writer = Some(writer);
        }
        Ok(self.writer.as_mut().expect("opened above"))
    }

    /// The rows read and kept: those the source gave, not those the transforms gave back.
    pub(super) fn counts(&self, chain: &Chain) -> Counts {
        if chain.is_active() {
            let (read, kept) = chain.counts();
            return Counts { read, kept };
        }
        Counts {
            read: self.rows_read,
            kept: self.window_filter.is_some().then_some(self.rows_kept),
        }
    }

    /// The schema the source gave (empty when it gave none).
    pub(super) fn schema_seen(&self) -> SchemaRef {
        self.data_schema
            .clone()
            .unwrap_or_else(|| Arc::new(Schema::empty()))
    }

    /// Null values per column, over the rows kept.
    pub(super) fn null_counts(&self) -> &[u64] {
        &self.null_counts
    }

    /// Closes the data files.
    pub(super) fn finish(self) -> Result<Streamed> {
        let files = self.writer.map(DataWriter::finish).transpose()?;
        Ok(Streamed {
            table: self.table,
            files,
            evolution: self.evolution,
            held: self.held,
            schema: self.data_schema,
        })
    }
}
