//! An Iceberg table as a source (`"format": "ICEBERG"` in `metadata.source`): the host reads
//! the table's data files at its current snapshot, one file at a time, so tables feed tables
//! and files in bounded memory. Nothing is written to it.

use std::sync::mpsc::SyncSender;

use arrow_array::{RecordBatch, new_null_array};
use arrow_schema::SchemaRef;
use ldp_config::Config;

use super::Message;
use crate::error::{Error, Result};
use crate::target::TargetTable;

/// Rows per batch read from a data file.
const BATCH_ROWS: usize = 8_192;

/// The table to read.
#[derive(Debug, Clone)]
pub(crate) struct IcebergSource {
    table: TargetTable,
}

impl IcebergSource {
    /// The source block's table.
    pub fn resolve(config: &Config) -> Result<IcebergSource> {
        Ok(IcebergSource {
            table: TargetTable::resolve(config, config.source())?,
        })
    }

    /// Sends the table's schema, then the batches of every live data file of its current
    /// snapshot.
    pub fn produce(&self, sender: &SyncSender<Result<Message>>) {
        if let Err(e) = self.stream(sender) {
            let _ = sender.send(Err(e));
        }
    }

    fn stream(&self, sender: &SyncSender<Result<Message>>) -> Result<()> {
        let table = self.table.load()?;
        let schema = table.arrow_schema()?;
        if sender.send(Ok(Message::Schema(schema.clone()))).is_err() {
            return Ok(());
        }
        let files = table.data_files(None)?;
        tracing::debug!(
            table = %self.table.identifier(),
            files = files.len(),
            snapshot = ?table.current_snapshot_id(),
            "reading the source table"
        );
        for file in files {
            for batch in table.read_data_file(file.file_path(), Some(BATCH_ROWS))? {
                let batch = conform(&batch?, &schema, self.table.identifier())?;
                if sender.send(Ok(Message::Batch(batch))).is_err() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// A batch of an older data file in the table's current schema: columns by name, a column the
/// file predates as nulls, a narrower type (int before a widening) cast.
fn conform(batch: &RecordBatch, schema: &SchemaRef, table: String) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| match batch.column_by_name(field.name()) {
            Some(column) if column.data_type() == field.data_type() => Ok(column.clone()),
            Some(column) => {
                arrow_cast::cast(column, field.data_type()).map_err(|e| Error::Unsupported {
                    message: format!(
                        "Iceberg table {table}: cannot read column {} as {}: {e}",
                        field.name(),
                        field.data_type()
                    ),
                })
            }
            None => Ok(new_null_array(field.data_type(), batch.num_rows())),
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| Error::Unsupported {
        message: format!("Iceberg table {table}: a data file does not fit the table's schema: {e}"),
    })
}
