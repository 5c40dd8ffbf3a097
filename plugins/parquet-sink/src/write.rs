//! Writing one Parquet file with the `parquet` crate's Arrow writer, row group by row group.

use arrow_array::{ArrayRef, RecordBatch, make_array};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};
use ldp_plugin_sdk::{PluginError, SinkSummary};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// A row group ends once its encoded, buffered data passes this size, whatever its rows.
pub const ROW_GROUP_BYTES: usize = 128 << 20;

/// The zone the host gives Iceberg's `timestamptz` columns, and the one pyiceberg (so the
/// Python tool) gives them: a Parquet file written from an Iceberg table carries `UTC`, as the
/// Python tool's does.
const HOST_UTC: &str = "+00:00";

/// An open Parquet file.
pub struct ParquetFile {
    writer: ArrowWriter<File>,
    path: String,
    name: String,
    /// The schema written (the input's, with `+00:00` zones named `UTC`).
    schema: SchemaRef,
    /// Whether batches need their `+00:00` zones renamed.
    rename_zones: bool,
    rows: u64,
}

impl ParquetFile {
    /// Creates (or truncates) `path` for batches of `input`.
    pub fn create(
        path: &str,
        input: SchemaRef,
        row_group_size: usize,
        compression: Compression,
    ) -> Result<Self, PluginError> {
        let name = Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| {
                PluginError::config(format!(
                    "config.path: {path:?} does not end with a file name"
                ))
            })?
            .to_string();
        for field in input.fields() {
            if has_union(field.data_type()) {
                return Err(PluginError::data(format!(
                    "{path}: cannot write column {:?} as Parquet: Parquet has no union type; \
                     split the column or turn it into a string with a transform first",
                    field.name()
                )));
            }
        }
        let fields: Vec<FieldRef> = input.fields().iter().map(|f| utc_field(f)).collect();
        let schema = Arc::new(Schema::new_with_metadata(fields, input.metadata().clone()));
        let rename_zones = schema.fields() != input.fields();
        let file = File::create(path).map_err(|e| {
            PluginError::io(format!(
                "{path}: cannot create the file: {e}; its folder must exist and be granted to \
                 the plugin"
            ))
        })?;
        let props = WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(row_group_size))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| {
            // Nothing was written; leave no empty file behind in the staging folder.
            let _ = std::fs::remove_file(path);
            PluginError::data(format!(
                "{path}: cannot write these columns as Parquet: {e}"
            ))
        })?;
        Ok(Self {
            writer,
            path: path.to_string(),
            name,
            schema,
            rename_zones,
            rows: 0,
        })
    }

    /// Writes `batch`; a row group is flushed when it reaches its rows or [`ROW_GROUP_BYTES`].
    pub fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        let renamed;
        let batch = if self.rename_zones {
            let columns = batch
                .columns()
                .iter()
                .zip(self.schema.fields())
                .map(|(column, field)| retype(column, field.data_type()))
                .collect::<Result<Vec<_>, _>>()
                .and_then(|columns| RecordBatch::try_new(self.schema.clone(), columns))
                .map_err(|e| PluginError::data(format!("{}: {e}", self.path)))?;
            renamed = columns;
            &renamed
        } else {
            batch
        };
        self.writer
            .write(batch)
            .map_err(|e| PluginError::data(format!("{}: cannot write a batch: {e}", self.path)))?;
        self.rows += batch.num_rows() as u64;
        if self.writer.in_progress_size() >= ROW_GROUP_BYTES {
            self.writer.flush().map_err(|e| {
                PluginError::io(format!("{}: cannot write a row group: {e}", self.path))
            })?;
        }
        Ok(())
    }

    /// Writes the last row group and the footer: rows and bytes written, and the file's name
    /// (relative to its folder, the staging folder the host granted).
    pub fn close(self) -> Result<SinkSummary, PluginError> {
        let Self {
            writer,
            path,
            name,
            rows,
            ..
        } = self;
        let file = writer
            .into_inner()
            .map_err(|e| PluginError::io(format!("{path}: cannot finish the file: {e}")))?;
        let bytes = file
            .metadata()
            .map_err(|e| PluginError::io(format!("{path}: cannot read its size: {e}")))?
            .len();
        Ok(SinkSummary {
            records: rows,
            bytes,
            files: vec![name],
        })
    }
}

/// Whether `data_type` holds a union, which the `parquet` crate's writer does not implement
/// (it panics on one).
fn has_union(data_type: &DataType) -> bool {
    match data_type {
        DataType::Union(..) => true,
        DataType::Struct(fields) => fields.iter().any(|f| has_union(f.data_type())),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::ListView(item)
        | DataType::LargeListView(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => has_union(item.data_type()),
        DataType::Dictionary(_, values) => has_union(values),
        DataType::RunEndEncoded(_, values) => has_union(values.data_type()),
        _ => false,
    }
}

/// `field` with its `+00:00` timestamps (at any depth) named `UTC`.
fn utc_field(field: &Field) -> FieldRef {
    Arc::new(field.clone().with_data_type(utc_type(field.data_type())))
}

fn utc_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Timestamp(unit, Some(zone)) if zone.as_ref() == HOST_UTC => {
            DataType::Timestamp(*unit, Some("UTC".into()))
        }
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(|f| utc_field(f)).collect()),
        DataType::List(item) => DataType::List(utc_field(item)),
        DataType::LargeList(item) => DataType::LargeList(utc_field(item)),
        DataType::FixedSizeList(item, n) => DataType::FixedSizeList(utc_field(item), *n),
        DataType::Map(entries, sorted) => DataType::Map(utc_field(entries), *sorted),
        other => other.clone(),
    }
}

/// `column` relabelled as `to`, a type that differs from its own only by zone names: the
/// buffers are shared, not copied.
fn retype(column: &ArrayRef, to: &DataType) -> Result<ArrayRef, arrow_schema::ArrowError> {
    if column.data_type() == to {
        return Ok(column.clone());
    }
    retype_data(column.to_data(), to).map(make_array)
}

fn retype_data(
    data: arrow_data::ArrayData,
    to: &DataType,
) -> Result<arrow_data::ArrayData, arrow_schema::ArrowError> {
    let children: Vec<&DataType> = match to {
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => vec![item.data_type()],
        _ => Vec::new(),
    };
    let child_data = data
        .child_data()
        .iter()
        .zip(&children)
        .map(|(child, to)| retype_data(child.clone(), to))
        .collect::<Result<Vec<_>, _>>()?;
    let mut builder = data.into_builder().data_type(to.clone());
    if !children.is_empty() {
        builder = builder.child_data(child_data);
    }
    builder.build()
}
