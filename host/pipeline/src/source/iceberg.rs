//! An Iceberg table as a source (`"format": "ICEBERG"` in `metadata.source`): the host reads
//! the table's data files at its current snapshot, one file at a time, so tables feed tables
//! and files in bounded memory. Nothing is written to it.
//!
//! A source may be pinned (ldp's own keys): `"snapshot_id": 123` reads that snapshot, `"ref":
//! "NAME"` the snapshot a tag or branch points at (a dataset version's tag
//! `ldp_ds_<name>_v<N>`, say), each in the schema it was written with.

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
    pin: Option<Pin>,
}

/// A snapshot the source is pinned to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pin {
    /// `snapshot_id`.
    Snapshot(i64),
    /// `ref`: a tag or a branch.
    Ref(String),
}

impl IcebergSource {
    /// The source block's table, and the snapshot it is pinned to, if any.
    pub fn resolve(config: &Config) -> Result<IcebergSource> {
        Ok(IcebergSource {
            table: TargetTable::resolve(config, config.source())?,
            pin: pin(config)?,
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
        let snapshot = match &self.pin {
            None => None,
            Some(Pin::Snapshot(id)) => Some(table.snapshot(*id)?.snapshot_id),
            Some(Pin::Ref(name)) => Some(
                table
                    .metadata()
                    .snapshot_for_ref(name)
                    .map(|snapshot| snapshot.snapshot_id())
                    .ok_or_else(|| Error::Unsupported {
                        message: format!(
                            "metadata.source.ref: the Iceberg table {} has no tag or branch {}",
                            self.table.identifier(),
                            ldp_config::repr_str(name)
                        ),
                    })?,
            ),
        };
        let mut reader = SnapshotReader::open(table, snapshot)?;
        if sender
            .send(Ok(Message::Schema(reader.schema.clone())))
            .is_err()
        {
            return Ok(());
        }
        while let Some(batch) = reader.next_batch()? {
            if sender.send(Ok(Message::Batch(batch))).is_err() {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The rows of one snapshot of a table (its current one by default), one data file after the
/// other, each batch in the snapshot's schema ([`conform`]).
pub struct SnapshotReader {
    table: ldp_table::Table,
    schema: SchemaRef,
    files: std::vec::IntoIter<String>,
    current: Option<Box<dyn Iterator<Item = ldp_table::Result<RecordBatch>> + Send>>,
}

impl SnapshotReader {
    /// Lists the live data files of `snapshot` (`None`: the current one); reads nothing yet.
    pub fn open(table: ldp_table::Table, snapshot: Option<i64>) -> Result<SnapshotReader> {
        let schema = match snapshot {
            Some(id) => table.arrow_schema_at(Some(id))?,
            None => table.arrow_schema()?,
        };
        let files: Vec<String> = table
            .data_files(snapshot)?
            .iter()
            .map(|file| file.file_path().to_string())
            .collect();
        tracing::debug!(
            table = %table.identifier(),
            files = files.len(),
            snapshot = ?snapshot.or(table.current_snapshot_id()),
            "reading a table"
        );
        Ok(SnapshotReader {
            table,
            schema,
            files: files.into_iter(),
            current: None,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The next batch, `None` after the last file.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if let Some(batches) = &mut self.current {
                match batches.next() {
                    Some(batch) => {
                        let identifier = self.table.identifier().to_string();
                        return conform(&batch?, &self.schema, identifier).map(Some);
                    }
                    None => self.current = None,
                }
            }
            let Some(file) = self.files.next() else {
                return Ok(None);
            };
            self.current = Some(Box::new(
                self.table.read_data_file(&file, Some(BATCH_ROWS))?,
            ));
        }
    }
}

impl Iterator for SnapshotReader {
    type Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map_err(|e| arrow_schema::ArrowError::ExternalError(Box::new(e)))
            .transpose()
    }
}

impl arrow_array::RecordBatchReader for SnapshotReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// The pin of the source block: `snapshot_id` (an integer) or `ref` (a string), not both.
fn pin(config: &Config) -> Result<Option<Pin>> {
    let extra = &config.source().extra;
    let invalid = |message: String| {
        Error::Config(ldp_config::ConfigError::Invalid {
            file: None,
            message,
        })
    };
    match (extra.get("snapshot_id"), extra.get("ref")) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(invalid(
            "metadata.source: an Iceberg source is pinned by 'snapshot_id' or by 'ref', not both"
                .to_string(),
        )),
        (Some(id), None) => id
            .as_i64()
            .map(|id| Some(Pin::Snapshot(id)))
            .ok_or_else(|| {
                invalid(format!(
                    "metadata.source.snapshot_id must be a snapshot id (an integer), got {id}"
                ))
            }),
        (None, Some(name)) => match name.as_str() {
            Some(name) if !name.trim().is_empty() => Ok(Some(Pin::Ref(name.to_string()))),
            _ => Err(invalid(format!(
                "metadata.source.ref must be the name of a tag or branch, got {name}"
            ))),
        },
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
