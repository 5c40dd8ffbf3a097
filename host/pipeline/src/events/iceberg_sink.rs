//! The `iceberg` event sink, in the host: a run's events appended to `_ldp.runs` (and its
//! quality verdicts to `_ldp.quality_results`) in the catalog of the run's Iceberg table, once
//! when the run ends (every `batch_size` events before that), each append retried on a lost
//! compare-and-swap. The tables are created on the first flush, partitioned by `day(ts)`, with
//! the Python tool's properties (`ldp.managed=true`, `ldp.system=events`, metadata files kept
//! to 50: `ldp_events::system_tables::SYSTEM_TABLE_PROPERTIES`).

use arrow_array::RecordBatch;
use ldp_catalog::{Catalog, Mode};
use ldp_events::system_tables::{
    APPEND_SUMMARY, COMMIT_TRIES, PARTITION_FIELD, PARTITION_SOURCE, QUALITY_TABLE, RUNS_TABLE,
    SYSTEM_NAMESPACE, SYSTEM_TABLE_PROPERTIES, quality_results_batch, runs_batch,
};
use ldp_events::{Event, EventSink, SinkError};
use ldp_table::{
    Append, DataWriter, PartitionColumn, RetryPolicy, Table, Transform, WriterOptions,
};

use crate::target::TargetTable;

/// A factory of `iceberg` sinks (one per attempt) writing to `_ldp` in the catalog of `table`:
/// the sink a gold build gives a config that names none of its own.
pub fn iceberg_sink_factory(table: &TargetTable) -> crate::run::SinkFactory {
    let table = table.clone();
    std::sync::Arc::new(move || {
        Box::new(IcebergEventSink::new(
            table.clone(),
            None,
            ldp_events::system_tables::DEFAULT_BATCH_SIZE,
        )) as Box<dyn EventSink>
    })
}

/// Buffers the events of a run and appends them to the `_ldp` tables.
pub(crate) struct IcebergEventSink {
    /// Where the `_ldp` tables live (the catalog of the run's table).
    catalog: TargetTable,
    namespace: String,
    batch_size: usize,
    pending: Vec<Event>,
}

impl IcebergEventSink {
    /// A sink writing to `namespace` (default `_ldp`) in the catalog of `catalog`.
    pub fn new(catalog: TargetTable, namespace: Option<&str>, batch_size: usize) -> Self {
        IcebergEventSink {
            catalog,
            namespace: namespace.unwrap_or(SYSTEM_NAMESPACE).to_string(),
            batch_size: batch_size.max(1),
            pending: Vec::new(),
        }
    }

    fn flush(&mut self) -> Result<(), SinkError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let events = std::mem::take(&mut self.pending);
        let catalog = Catalog::connect(
            &self.catalog.catalog,
            &self.catalog.catalog_name,
            Mode::Create,
        )
        .map_err(|e| SinkError::failed(e.to_string()))?;
        let runs = runs_batch(&events).map_err(|e| SinkError::failed(e.to_string()))?;
        self.append(&catalog, RUNS_TABLE, &runs)?;
        let quality =
            quality_results_batch(&events).map_err(|e| SinkError::failed(e.to_string()))?;
        if quality.num_rows() > 0 {
            self.append(&catalog, QUALITY_TABLE, &quality)?;
        }
        Ok(())
    }

    fn append(&self, catalog: &Catalog, name: &str, batch: &RecordBatch) -> Result<(), SinkError> {
        append_system_batch(catalog, &self.catalog, &self.namespace, name, batch)
    }
}

/// Appends `batch` to the system table `namespace.name` (created on first use, partitioned by
/// `day(ts)`, with [`ldp_events::system_tables::SYSTEM_TABLE_PROPERTIES`]) in the catalog of
/// `target`, retried on a lost compare-and-swap. Used by the `iceberg` event sink and the MCP
/// server's `_ldp.audit`.
///
/// # Errors
///
/// The table cannot be created, the batch written or the append committed.
pub fn append_system_batch(
    catalog: &Catalog,
    target: &TargetTable,
    namespace: &str,
    name: &str,
    batch: &RecordBatch,
) -> Result<(), SinkError> {
    let fail = |e: ldp_table::Error| SinkError::failed(format!("{namespace}.{name}: {e}"));
    let location = target.warehouse.join(namespace).join(name);
    let mut table = if catalog
        .table_exists(namespace, name)
        .map_err(|e| SinkError::failed(e.to_string()))?
    {
        Table::load(catalog, namespace, name).map_err(fail)?
    } else {
        let partition = [PartitionColumn {
            column: PARTITION_SOURCE.to_string(),
            transform: Transform::Day,
            name: Some(PARTITION_FIELD.to_string()),
        }];
        match Table::create_with_properties(
            catalog,
            namespace,
            name,
            &batch.schema(),
            &partition,
            &location,
            &SYSTEM_TABLE_PROPERTIES,
        ) {
            Ok(table) => table,
            Err(e) if e.kind() == ldp_table::ErrorKind::AlreadyExists => {
                Table::load(catalog, namespace, name).map_err(fail)?
            }
            Err(e) => return Err(fail(e)),
        }
    };
    let mut writer = DataWriter::new(&table, &WriterOptions::default()).map_err(fail)?;
    writer.write(batch).map_err(fail)?;
    let files = writer.finish().map_err(fail)?;
    let retry = RetryPolicy {
        max_attempts: COMMIT_TRIES,
        ..RetryPolicy::direct_append()
    };
    Append::new(files)
        .property(APPEND_SUMMARY.0, APPEND_SUMMARY.1)
        .retry(retry)
        .commit(catalog, &mut table)
        .map_err(fail)?;
    Ok(())
}

impl EventSink for IcebergEventSink {
    fn write(&mut self, event: &Event) -> Result<(), SinkError> {
        self.pending.push(event.clone());
        if self.pending.len() >= self.batch_size {
            self.flush()?;
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), SinkError> {
        self.flush()
    }

    fn describe(&self) -> String {
        format!(
            "iceberg {}.{RUNS_TABLE} ({})",
            self.namespace, self.catalog.catalog
        )
    }
}
