//! Exporting a version's rows to a file: Parquet (the manifest in the schema metadata under
//! `ldp.dataset`) or JSONL (one JSON object per row). The file is written next to its
//! destination under a temporary name and renamed into place, so a reader sees the old file or
//! the new one, never a part.
//!
//! An object destination (`s3://bucket/key`) is written the same way into a private local
//! folder, then uploaded whole ([`ldp_storage::upload_file`]): the object appears only when
//! the upload completes, and nothing is uploaded when writing fails. A `file://` URI is the
//! local path it names.
//!
//! Parquet is written with fixed writer properties, so exporting the same version twice gives
//! byte-identical files.

use std::fmt;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use serde_json::{Map, Number, Value};

use crate::error::{Error, Result};
use crate::load::{Rows, load};
use crate::manifest::DatasetVersion;

/// The key of the manifest in an exported Parquet file's schema metadata.
pub const PARQUET_METADATA_KEY: &str = "ldp.dataset";

/// The formats [`export`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportFormat {
    /// Apache Parquet (the default).
    #[default]
    Parquet,
    /// JSON Lines: one object per row.
    Jsonl,
    /// An Arrow IPC stream (the manifest in its schema metadata, as Parquet's).
    Arrow,
}

impl ExportFormat {
    /// Every format, as named on the command line.
    pub const NAMES: [&'static str; 3] = ["parquet", "jsonl", "arrow"];

    /// `parquet`, `jsonl` or `arrow`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Parquet => "parquet",
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Arrow => "arrow",
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ExportFormat {
    type Err = Error;

    fn from_str(text: &str) -> Result<ExportFormat> {
        match text.trim().to_ascii_lowercase().as_str() {
            "parquet" => Ok(ExportFormat::Parquet),
            "jsonl" => Ok(ExportFormat::Jsonl),
            "arrow" => Ok(ExportFormat::Arrow),
            _ => Err(Error::config(format!(
                "unknown export format {}; expected one of {}",
                ldp_pyrepr::repr_str(text),
                ldp_pyrepr::repr_list(&ExportFormat::NAMES)
            ))),
        }
    }
}

/// Writes the rows of `version` ([`load`], verified) to `dest`, replacing it atomically:
/// a local file (relative to the current folder; parent folders are created), or an object
/// (`s3://bucket/key`) uploaded once the file is whole. Returns the rows written.
///
/// # Errors
///
/// As [`load`]; file-system and Parquet errors (the temporary file is removed);
/// [`Error::Storage`] for an object URI that names no object or a store that refuses the
/// upload (checked before any row is read when the URI itself is wrong).
pub fn export(version: &DatasetVersion, dest: &Path, format: ExportFormat) -> Result<u64> {
    let destination = Destination::of(version, dest)?;
    let rows = load(version)?;
    match &destination {
        Destination::Local(path) => write_rows(version, &rows, path, format)?,
        Destination::Object(uri) => upload_rows(version, &rows, uri, format)?,
    }
    tracing::info!(
        dataset = version.reference(),
        rows = rows.num_rows(),
        dest = %dest.display(),
        format = format.as_str(),
        "exported a dataset version"
    );
    Ok(rows.num_rows())
}

/// Where an export goes.
enum Destination<'a> {
    /// A local file (`file://` removed).
    Local(&'a Path),
    /// An object in a store.
    Object(ldp_storage::ObjectUri),
}

impl Destination<'_> {
    /// An object when `dest` is a URI other than `file://`, else a local file.
    fn of<'a>(version: &DatasetVersion, dest: &'a Path) -> Result<Destination<'a>> {
        let Some(text) = dest.to_str() else {
            return Ok(Destination::Local(dest));
        };
        match ldp_storage::scheme_of(text).as_deref() {
            None => return Ok(Destination::Local(dest)),
            Some("file") => return Ok(Destination::Local(Path::new(&text["file://".len()..]))),
            Some(_) => {}
        }
        ldp_storage::ObjectUri::parse(text)
            .map(Destination::Object)
            .map_err(|source| storage_error(version, source))
    }
}

/// Writes `rows` into a private local folder, then uploads the file as `uri`.
fn upload_rows(
    version: &DatasetVersion,
    rows: &Rows,
    uri: &ldp_storage::ObjectUri,
    format: ExportFormat,
) -> Result<()> {
    let folder = tempfile::Builder::new()
        .prefix("ldp-export-")
        .tempdir()
        .map_err(|e| Error::io("create a private folder in", std::env::temp_dir(), e))?;
    let staged = folder.path().join(uri.file_name());
    write_rows(version, rows, &staged, format)?;
    let bytes =
        ldp_storage::upload_file(&staged, uri).map_err(|source| storage_error(version, source))?;
    tracing::debug!("uploaded {bytes} bytes to {uri}");
    Ok(())
}

fn storage_error(version: &DatasetVersion, source: ldp_storage::Error) -> Error {
    Error::Storage {
        dataset: version.reference(),
        source: Box::new(source),
    }
}

/// Writes `rows` (of `version`) to the local file `dest` as [`export`] does.
///
/// # Errors
///
/// File-system and Parquet errors (the temporary file is removed).
pub fn write_rows(
    version: &DatasetVersion,
    rows: &Rows,
    dest: &Path,
    format: ExportFormat,
) -> Result<()> {
    let dest = std::path::absolute(dest).map_err(|e| Error::io("resolve", dest, e))?;
    let folder = dest
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    fs::create_dir_all(&folder).map_err(|e| Error::io("create", &folder, e))?;
    let file_name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::config(format!("{} is not a file name", dest.display())))?;
    let tmp = folder.join(format!(
        ".{file_name}.{}.tmp",
        uuid::Uuid::new_v4().simple()
    ));
    let written = (|| {
        let file = fs::File::create(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
        match format {
            ExportFormat::Parquet => write_parquet(version, rows, file, &tmp)?,
            ExportFormat::Jsonl | ExportFormat::Arrow => {
                let mut out = BufWriter::new(file);
                match format {
                    ExportFormat::Jsonl => write_jsonl(rows, &mut out),
                    _ => write_arrow(version, rows, &mut out),
                }
                .map_err(|e| Error::io("write", &tmp, e))?;
                let file = out
                    .into_inner()
                    .map_err(|e| Error::io("write", &tmp, e.into_error()))?;
                file.sync_all().map_err(|e| Error::io("write", &tmp, e))?;
            }
        }
        fs::rename(&tmp, &dest).map_err(|e| Error::io("replace", &dest, e))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// The writer properties of every export: fixed, so the same rows give the same bytes. The
/// manifest is a key of the file's metadata too (readers that do not decode the Arrow schema,
/// such as DuckDB's `parquet_kv_metadata`, see it there).
fn writer_properties(manifest: &str) -> WriterProperties {
    WriterProperties::builder()
        .set_key_value_metadata(Some(vec![KeyValue::new(
            PARQUET_METADATA_KEY.to_string(),
            manifest.to_string(),
        )]))
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_max_row_group_row_count(Some(1024 * 1024))
        .build()
}

/// The rows' schema with the manifest as its only metadata (under [`PARQUET_METADATA_KEY`]):
/// the metadata is a map, and one key keeps an export's bytes fixed.
fn with_manifest(version: &DatasetVersion, rows: &Rows) -> Arc<Schema> {
    let metadata = [(PARQUET_METADATA_KEY.to_string(), version.inline_text())]
        .into_iter()
        .collect();
    Arc::new(Schema::new_with_metadata(
        rows.schema.fields().clone(),
        metadata,
    ))
}

fn write_parquet(version: &DatasetVersion, rows: &Rows, file: fs::File, path: &Path) -> Result<()> {
    let parquet = |source| Error::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let schema = with_manifest(version, rows);
    let mut writer = ArrowWriter::try_new(
        file,
        schema.clone(),
        Some(writer_properties(&version.inline_text())),
    )
    .map_err(parquet)?;
    for batch in &rows.batches {
        let batch = RecordBatch::try_new(schema.clone(), batch.columns().to_vec())
            .map_err(|e| parquet(e.into()))?;
        writer.write(&batch).map_err(parquet)?;
    }
    let file = writer.into_inner().map_err(parquet)?;
    file.sync_all().map_err(|e| Error::io("write", path, e))
}

/// The rows as an Arrow IPC stream, the manifest under [`PARQUET_METADATA_KEY`] in the schema's
/// metadata.
///
/// # Errors
///
/// The writer's.
pub fn write_arrow(
    version: &DatasetVersion,
    rows: &Rows,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let schema = with_manifest(version, rows);
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new(out, &schema).map_err(std::io::Error::other)?;
    for batch in &rows.batches {
        let batch = RecordBatch::try_new(schema.clone(), batch.columns().to_vec())
            .map_err(std::io::Error::other)?;
        writer.write(&batch).map_err(std::io::Error::other)?;
    }
    writer.finish().map_err(std::io::Error::other)
}

/// One JSON object per row, keys in column order, as Python's `json.dumps(row)` writes a row
/// pyarrow gives: dates and times in ISO 8601, NaN and infinities as `null`, binary as hex,
/// decimals as strings, maps as lists of `[key, value]`.
///
/// # Errors
///
/// The writer's.
pub fn write_jsonl(rows: &Rows, out: &mut impl Write) -> std::io::Result<()> {
    for batch in &rows.batches {
        let names: Vec<&String> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name())
            .collect();
        for row in 0..batch.num_rows() {
            let mut object = Map::new();
            for (name, column) in names.iter().zip(batch.columns()) {
                object.insert((*name).clone(), json_value(column.as_ref(), row));
            }
            out.write_all(crate::pyjson::row_line(&Value::Object(object)).as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

fn float(value: f64) -> Value {
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// One value as JSON.
fn json_value(array: &dyn Array, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => array.as_primitive::<Int8Type>().value(row).into(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(row).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(row).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).into(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(row).into(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(row).into(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(row).into(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(row).into(),
        DataType::Float16 => float(array.as_primitive::<Float16Type>().value(row).to_f64()),
        DataType::Float32 => float(f64::from(array.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
        DataType::Binary => Value::String(hex::encode(array.as_binary::<i32>().value(row))),
        DataType::LargeBinary => Value::String(hex::encode(array.as_binary::<i64>().value(row))),
        DataType::BinaryView => Value::String(hex::encode(array.as_binary_view().value(row))),
        DataType::FixedSizeBinary(_) => {
            Value::String(hex::encode(array.as_fixed_size_binary().value(row)))
        }
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(row);
            date_text(i64::from(days) * 86_400_000_000_000).map_or(Value::Null, Value::String)
        }
        DataType::Date64 => {
            let ms = array.as_primitive::<Date64Type>().value(row);
            date_text(
                i128::from(ms)
                    .saturating_mul(1_000_000)
                    .try_into()
                    .unwrap_or(i64::MAX),
            )
            .map_or(Value::Null, Value::String)
        }
        DataType::Timestamp(unit, tz) => {
            let nanos: i128 = match unit {
                TimeUnit::Second => {
                    i128::from(array.as_primitive::<TimestampSecondType>().value(row))
                        * 1_000_000_000
                }
                TimeUnit::Millisecond => {
                    i128::from(array.as_primitive::<TimestampMillisecondType>().value(row))
                        * 1_000_000
                }
                TimeUnit::Microsecond => {
                    i128::from(array.as_primitive::<TimestampMicrosecondType>().value(row)) * 1_000
                }
                TimeUnit::Nanosecond => {
                    i128::from(array.as_primitive::<TimestampNanosecondType>().value(row))
                }
            };
            timestamp_text(nanos, tz.as_deref()).map_or(Value::Null, Value::String)
        }
        DataType::Time32(TimeUnit::Second) => Value::String(time_text(
            i64::from(array.as_primitive::<Time32SecondType>().value(row)) * 1_000_000_000,
        )),
        DataType::Time32(_) => Value::String(time_text(
            i64::from(array.as_primitive::<Time32MillisecondType>().value(row)) * 1_000_000,
        )),
        DataType::Time64(TimeUnit::Microsecond) => Value::String(time_text(
            array.as_primitive::<Time64MicrosecondType>().value(row) * 1_000,
        )),
        DataType::Time64(_) => Value::String(time_text(
            array.as_primitive::<Time64NanosecondType>().value(row),
        )),
        DataType::Struct(_) => {
            let array = array.as_struct();
            let mut object = Map::new();
            for (field, column) in array.fields().iter().zip(array.columns()) {
                object.insert(field.name().clone(), json_value(column.as_ref(), row));
            }
            Value::Object(object)
        }
        DataType::List(_) => list(array.as_list::<i32>().value(row).as_ref()),
        DataType::LargeList(_) => list(array.as_list::<i64>().value(row).as_ref()),
        DataType::FixedSizeList(_, _) => list(array.as_fixed_size_list().value(row).as_ref()),
        DataType::Map(_, _) => {
            let entries = array.as_map().value(row);
            let pairs = (0..entries.len())
                .map(|i| {
                    Value::Array(vec![
                        json_value(entries.column(0).as_ref(), i),
                        json_value(entries.column(1).as_ref(), i),
                    ])
                })
                .collect();
            Value::Array(pairs)
        }
        // Decimals (`str(Decimal)`: `10.50`), durations, dictionaries, ...: their text.
        _ => arrow_cast::display::ArrayFormatter::try_new(array, &Default::default())
            .map(|f| Value::String(f.value(row).to_string()))
            .unwrap_or(Value::Null),
    }
}

fn list(values: &dyn Array) -> Value {
    Value::Array((0..values.len()).map(|i| json_value(values, i)).collect())
}

/// `.ffffff` (µs, Python's `isoformat`), `.fffffffff` when the nanoseconds need it, or nothing.
fn fraction(nanos: i64) -> String {
    if nanos == 0 {
        String::new()
    } else if nanos % 1_000 == 0 {
        format!(".{:06}", nanos / 1_000)
    } else {
        format!(".{nanos:09}")
    }
}

fn civil(nanos: i128) -> Option<jiff::civil::DateTime> {
    let at = jiff::Timestamp::from_nanosecond(nanos).ok()?;
    Some(at.to_zoned(jiff::tz::TimeZone::UTC).datetime())
}

fn date_text(nanos: i64) -> Option<String> {
    let dt = civil(i128::from(nanos))?;
    Some(format!(
        "{:04}-{:02}-{:02}",
        dt.year(),
        dt.month(),
        dt.day()
    ))
}

/// `2024-01-01T10:00:00` (naive), `2024-01-01T10:00:00+00:00` (with a time zone: in UTC, as
/// Iceberg's `timestamptz` is stored).
fn timestamp_text(nanos: i128, tz: Option<&str>) -> Option<String> {
    let (offset, dt) = match tz {
        None => ("", civil(nanos)?),
        Some(zone) => {
            let at = jiff::Timestamp::from_nanosecond(nanos).ok()?;
            let zone = fixed_offset(zone)
                .or_else(|| jiff::tz::TimeZone::get(zone).ok())
                .unwrap_or(jiff::tz::TimeZone::UTC);
            let zoned = at.to_zoned(zone);
            let seconds = zoned.offset().seconds();
            let sign = if seconds < 0 { '-' } else { '+' };
            let text = format!(
                "{sign}{:02}:{:02}",
                seconds.abs() / 3600,
                seconds.abs() % 3600 / 60
            );
            return Some(format!("{}{}", naive_text(zoned.datetime()), text));
        }
    };
    Some(format!("{}{offset}", naive_text(dt)))
}

/// A time zone written as an offset, `+00:00` or `-0530`.
fn fixed_offset(text: &str) -> Option<jiff::tz::TimeZone> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    let offset = jiff::tz::Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).ok()?;
    Some(jiff::tz::TimeZone::fixed(offset))
}

fn naive_text(dt: jiff::civil::DateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{}",
        dt.year(),
        dt.month(),
        dt.day(),
        time_text(
            i64::from(dt.hour()) * 3_600_000_000_000
                + i64::from(dt.minute()) * 60_000_000_000
                + i64::from(dt.second()) * 1_000_000_000
                + i64::from(dt.subsec_nanosecond())
        )
    )
}

/// `HH:MM:SS[.ffffff]` of nanoseconds since midnight.
fn time_text(nanos: i64) -> String {
    let seconds = nanos.div_euclid(1_000_000_000);
    format!(
        "{:02}:{:02}:{:02}{}",
        seconds / 3600,
        seconds % 3600 / 60,
        seconds % 60,
        fraction(nanos.rem_euclid(1_000_000_000))
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        Date32Array, Float64Array, Int64Array, StringArray, TimestampMicrosecondArray,
    };
    use arrow_schema::Field;

    use super::*;

    #[test]
    fn formats_parse_like_the_reference() {
        assert_eq!(
            "Parquet".parse::<ExportFormat>().unwrap(),
            ExportFormat::Parquet
        );
        assert_eq!(
            " jsonl ".parse::<ExportFormat>().unwrap(),
            ExportFormat::Jsonl
        );
        assert_eq!(
            "arrow".parse::<ExportFormat>().unwrap(),
            ExportFormat::Arrow
        );
        // The Python tool's message, with ldp's own format (arrow) in the list.
        assert_eq!(
            "csv".parse::<ExportFormat>().expect_err("csv").to_string(),
            "unknown export format 'csv'; expected one of ['parquet', 'jsonl', 'arrow']"
        );
    }

    #[test]
    fn rows_read_like_json_dumps() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("order_id", DataType::Int64, true),
            Field::new("amount", DataType::Float64, true),
            Field::new("city", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
            Field::new(
                "tstz",
                DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
                true,
            ),
            Field::new("day", DataType::Date32, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![Some(1), None])),
                Arc::new(Float64Array::from(vec![10.0, f64::NAN])),
                Arc::new(StringArray::from(vec![Some("Zürich"), Some("a\"b")])),
                Arc::new(TimestampMicrosecondArray::from(vec![
                    1_704_103_200_000_000,
                    1_704_103_200_123_456,
                ])),
                Arc::new(
                    TimestampMicrosecondArray::from(vec![1_704_103_200_000_000, 0])
                        .with_timezone("+00:00"),
                ),
                Arc::new(Date32Array::from(vec![19723, 0])),
            ],
        )
        .expect("batch");
        let rows = Rows {
            schema,
            batches: vec![batch],
        };
        let mut out = Vec::new();
        write_jsonl(&rows, &mut out).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "{\"order_id\": 1, \"amount\": 10.0, \"city\": \"Zürich\", \"ts\": \"2024-01-01T10:00:00\", \
             \"tstz\": \"2024-01-01T10:00:00+00:00\", \"day\": \"2024-01-01\"}\n\
             {\"order_id\": null, \"amount\": null, \"city\": \"a\\\"b\", \"ts\": \"2024-01-01T10:00:00.123456\", \
             \"tstz\": \"1970-01-01T00:00:00+00:00\", \"day\": \"1970-01-01\"}\n"
        );
    }
}
