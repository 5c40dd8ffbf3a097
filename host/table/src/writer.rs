//! Streaming Parquet data files into a table's `data/` folder.
//!
//! A [`DataWriter`] takes record batches as they arrive, conforms each to the table's schema
//! ([`crate::schema::conform_batch`]) and writes it with iceberg-rust's `ParquetWriter`, which
//! stores the Iceberg field ids in the Parquet schema and computes each file's statistics from
//! the Parquet footer (record count, file size, column sizes, value, null and NaN counts, lower
//! and upper bounds). A file rolls over to the next once it reaches the target size; a row group
//! is flushed once it holds [`WriterOptions::row_group_bytes`], so memory stays bounded
//! whatever the input size. On a partitioned table each batch is split by partition (iceberg-rust's
//! transforms compute the values) and every partition has its own open file, at most
//! `MAX_OPEN_FILES` (32) at once.
//!
//! [`DataWriter::finish`] hands back the written files as [`DataFiles`], which an
//! [`Append`](crate::Append) or [`Overwrite`](crate::Overwrite) commits. Files that are never
//! committed are deleted: by [`DataWriter::abort`] / [`DataFiles::abort`], or when either is
//! dropped.

use std::collections::HashMap;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use iceberg::arrow::RecordBatchPartitionSplitter;
use iceberg::io::FileIO;
use iceberg::spec::{DataFile, SchemaRef as IcebergSchemaRef, Struct};
use iceberg::writer::CurrentFileStatus;
use iceberg::writer::file_writer::{
    FileWriter, FileWriterBuilder, ParquetWriter, ParquetWriterBuilder,
};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::files::{block_on, delete_all};
use crate::location::data_file;
use crate::schema::conform_batch;
use crate::table::Table;

/// The default target size of a data file: 128 MiB (pyiceberg's `write.target-file-size-bytes`
/// default is 512 MiB; smaller files keep memory and retries cheap on a laptop).
pub const DEFAULT_TARGET_FILE_SIZE: u64 = 128 * 1024 * 1024;

/// The default bound on a row group held in memory before it is flushed: 64 MiB.
pub const DEFAULT_ROW_GROUP_BYTES: u64 = 64 * 1024 * 1024;

/// Rows written per slice of an incoming batch: a file may roll over between slices.
const SLICE_ROWS: usize = 64 * 1024;

/// Files open at once on a partitioned table. Each holds a row group in memory, so a write that
/// touches more partitions (hours over a year) closes the largest open file first: memory stays
/// bounded at the price of more, smaller files.
const MAX_OPEN_FILES: usize = 32;

/// How a [`DataWriter`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterOptions {
    /// Roll to a new file once the current one reaches this many bytes (written + buffered).
    pub target_file_size: u64,
    /// Flush a row group once it reaches this many (encoded) bytes.
    pub row_group_bytes: u64,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            target_file_size: DEFAULT_TARGET_FILE_SIZE,
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
        }
    }
}

/// Writes batches into Parquet data files of one table (see the module docs).
pub struct DataWriter {
    table: String,
    location: String,
    arrow_schema: SchemaRef,
    spec_id: i32,
    builder: ParquetWriterBuilder,
    file_io: FileIO,
    target_file_size: usize,
    write_uuid: Uuid,
    next_task: u64,
    /// Splits batches by partition; `None` for an unpartitioned table.
    splitter: Option<RecordBatchPartitionSplitter>,
    /// The open file of each partition (`None`: the table is unpartitioned), and its path.
    open: HashMap<Option<Struct>, (ParquetWriter, String)>,
    closed: Vec<DataFile>,
    created: Vec<String>,
    rows: u64,
    finished: bool,
}

impl std::fmt::Debug for DataWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataWriter")
            .field("table", &self.table)
            .field("files", &self.created)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl DataWriter {
    /// A writer for `table`'s current schema and default partition spec (which must be
    /// unpartitioned).
    pub fn new(table: &Table, options: &WriterOptions) -> Result<DataWriter> {
        DataWriter::with_schema(table, table.schema().clone(), options)
    }

    /// A writer for `table` that writes with `schema`: an [`Evolution`](crate::Evolution) of the
    /// table's current schema, which the commit then makes current (`Append::schema`).
    pub fn with_schema(
        table: &Table,
        schema: IcebergSchemaRef,
        options: &WriterOptions,
    ) -> Result<DataWriter> {
        let identifier = table.identifier().to_string();
        let spec = table.metadata().default_partition_spec();
        let splitter = if spec.is_unpartitioned() {
            None
        } else {
            Some(
                RecordBatchPartitionSplitter::try_new_with_computed_values(
                    schema.clone(),
                    spec.clone(),
                )
                .map_err(|source| {
                    Error::iceberg(&identifier, "cannot compute the partition values", source)
                })?,
            )
        };
        let arrow_schema = crate::schema::arrow_schema(&identifier, &schema)?;
        let row_group_bytes = usize::try_from(options.row_group_bytes.max(1)).unwrap_or(usize::MAX);
        let zstd = ZstdLevel::try_new(1).map_err(|source| Error::Parquet {
            table: identifier.clone(),
            action: "configure",
            path: table.location().to_string(),
            source: Box::new(source),
        })?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(zstd))
            .set_max_row_group_bytes(Some(row_group_bytes))
            .set_created_by(format!("ldp {}", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(DataWriter {
            location: table.location().to_string(),
            arrow_schema,
            spec_id: table.metadata().default_partition_spec_id(),
            builder: ParquetWriterBuilder::new(properties, schema),
            file_io: table.file_io().clone(),
            target_file_size: usize::try_from(options.target_file_size.max(1))
                .unwrap_or(usize::MAX),
            write_uuid: Uuid::new_v4(),
            next_task: 0,
            splitter,
            open: HashMap::new(),
            closed: Vec::new(),
            created: Vec::new(),
            rows: 0,
            finished: false,
            table: identifier,
        })
    }

    /// Conforms `batch` to the table's schema and writes it. On an error, call
    /// [`DataWriter::abort`] (or drop the writer) to delete what was written.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = conform_batch(&self.table, batch, &self.arrow_schema)?;
        let parts = match &self.splitter {
            None => vec![(None, batch)],
            Some(splitter) => splitter
                .split(&batch)
                .map_err(|source| {
                    Error::iceberg(&self.table, "cannot compute the partition values", source)
                })?
                .into_iter()
                .map(|(key, part)| (Some(key.data().clone()), part))
                .collect(),
        };
        for (partition, part) in parts {
            let mut offset = 0;
            while offset < part.num_rows() {
                let length = SLICE_ROWS.min(part.num_rows() - offset);
                self.write_slice(&partition, &part.slice(offset, length))?;
                offset += length;
            }
        }
        Ok(())
    }

    fn write_slice(&mut self, partition: &Option<Struct>, slice: &RecordBatch) -> Result<()> {
        if self
            .open
            .get(partition)
            .is_some_and(|(w, _)| w.current_written_size() >= self.target_file_size)
        {
            self.close(partition)?;
        }
        if !self.open.contains_key(partition) && self.open.len() >= MAX_OPEN_FILES {
            let largest = self
                .open
                .iter()
                .max_by_key(|(_, (w, _))| w.current_written_size())
                .map(|(key, _)| key.clone());
            if let Some(largest) = largest {
                self.close(&largest)?;
            }
        }
        if !self.open.contains_key(partition) {
            let path = data_file(&self.location, self.next_task, &self.write_uuid);
            self.next_task += 1;
            let output = self.file_io.new_output(&path).map_err(|source| {
                Error::iceberg(
                    &self.table,
                    format!("cannot open the data file {path}"),
                    source,
                )
            })?;
            self.created.push(path.clone());
            let writer = block_on(self.builder.build(output)).map_err(|source| {
                Error::iceberg(
                    &self.table,
                    format!("cannot start the data file {path}"),
                    source,
                )
            })?;
            self.open.insert(partition.clone(), (writer, path));
        }
        let Some((writer, path)) = self.open.get_mut(partition) else {
            return Ok(());
        };
        block_on(writer.write(slice)).map_err(|source| {
            Error::iceberg(
                &self.table,
                format!("cannot write the data file {path}"),
                source,
            )
        })?;
        self.rows += slice.num_rows() as u64;
        Ok(())
    }

    /// Closes the open file of `partition`, describing it with its partition values.
    fn close(&mut self, partition: &Option<Struct>) -> Result<()> {
        let Some((writer, path)) = self.open.remove(partition) else {
            return Ok(());
        };
        let builders = block_on(writer.close()).map_err(|source| {
            Error::iceberg(
                &self.table,
                format!("cannot finish the data file {path}"),
                source,
            )
        })?;
        for mut builder in builders {
            builder.partition_spec_id(self.spec_id);
            if let Some(values) = partition {
                builder.partition(values.clone());
            }
            let file = builder.build().map_err(|e| {
                Error::corrupt(
                    &self.table,
                    format!("cannot describe the data file {path}: {e}"),
                )
            })?;
            self.closed.push(file);
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows_written(&self) -> u64 {
        self.rows
    }

    /// Closes the last file and hands back every file written (none when no row was written).
    pub fn finish(mut self) -> Result<DataFiles> {
        let partitions: Vec<Option<Struct>> = self.open.keys().cloned().collect();
        for partition in &partitions {
            self.close(partition)?;
        }
        self.finished = true;
        Ok(DataFiles {
            table: self.table.clone(),
            files: std::mem::take(&mut self.closed),
            committed: false,
        })
    }

    /// Deletes every file written so far.
    pub fn abort(mut self) {
        self.discard();
    }

    fn discard(&mut self) {
        self.finished = true;
        self.open.clear();
        delete_all(&self.table, self.created.iter().map(String::as_str));
    }
}

impl Drop for DataWriter {
    fn drop(&mut self) {
        if !self.finished {
            self.discard();
        }
    }
}

/// Data files written but not committed yet. Dropping them (or [`DataFiles::abort`]) deletes
/// the files; a successful commit keeps them.
#[derive(Debug)]
pub struct DataFiles {
    table: String,
    files: Vec<DataFile>,
    committed: bool,
}

impl DataFiles {
    /// Data files written elsewhere (by this crate) for `table` (`ns.t`); they are deleted if
    /// they are never committed.
    pub fn from_files(table: &str, files: Vec<DataFile>) -> DataFiles {
        DataFiles {
            table: table.to_string(),
            files,
            committed: false,
        }
    }

    /// The files, with their statistics.
    pub fn files(&self) -> &[DataFile] {
        &self.files
    }

    /// The files' paths (`file://` URIs).
    pub fn paths(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|f| f.file_path().to_string())
            .collect()
    }

    /// Rows in all files.
    pub fn record_count(&self) -> u64 {
        self.files.iter().map(DataFile::record_count).sum()
    }

    /// Whether no file was written.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Deletes the files.
    pub fn abort(mut self) {
        self.discard();
    }

    /// The same files, in a handle that never deletes them: a staged write commits them to a
    /// staging branch, and again to a new branch when it is staged again, while this handle
    /// keeps deciding whether they are deleted in the end.
    pub fn borrowed(&self) -> DataFiles {
        DataFiles {
            table: self.table.clone(),
            files: self.files.clone(),
            committed: true,
        }
    }

    /// The files were published (through a [`DataFiles::borrowed`] handle): they belong to
    /// the table and are never deleted.
    pub fn published(mut self) {
        self.committed = true;
    }

    /// Marks the files committed: they belong to the table now.
    pub(crate) fn keep(&mut self) {
        self.committed = true;
    }

    fn discard(&mut self) {
        self.committed = true;
        delete_all(&self.table, self.files.iter().map(DataFile::file_path));
    }
}

impl Drop for DataFiles {
    fn drop(&mut self) {
        if !self.committed {
            self.discard();
        }
    }
}
