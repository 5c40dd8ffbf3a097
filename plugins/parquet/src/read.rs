//! Opening Parquet files and streaming their rows as Arrow batches.
//!
//! Each file's footer is read when the source opens: the schema of every file is checked
//! against the first one's and the compression of every column chunk to be read is checked
//! against the codecs this build can decompress, so a folder that cannot be read fails before
//! its first batch. Rows are then decoded by the `parquet` crate's Arrow reader one row group
//! at a time, page by page from the file, so memory holds one batch and the pages behind it,
//! whatever the size of the file.
//!
//! Types are the ones pyarrow gives (`pyarrow.parquet.read_table`): the `parquet` crate reads
//! the Arrow schema pyarrow embeds in the file (`ARROW:schema`) and otherwise maps Parquet's
//! logical types as pyarrow does (a timestamp adjusted to UTC gets the zone `UTC`, `INT96` is
//! `timestamp[ns]`). Nanosecond timestamps are kept; the host stores microseconds.
//!
//! This module only depends on external crates, so that other plugins' tests can include it.

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use ldp_plugin_sdk::PluginError;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Whether this build decompresses ZSTD: no, the `zstd` crate binds C code that does not build
/// for `wasm32-wasip2` without a WebAssembly C toolchain.
pub const ZSTD_SUPPORTED: bool = false;

/// One file, ready to be read.
struct Pending {
    path: String,
    file: SharedFile,
    metadata: ArrowReaderMetadata,
}

/// The file being read.
struct Current {
    path: String,
    reader: ParquetRecordBatchReader,
    /// Output column `i` is column `order[i]` of the reader's batches.
    order: Vec<usize>,
}

/// An open Parquet file or folder, streaming batches.
pub struct ParquetReader {
    schema: SchemaRef,
    batch_size: usize,
    columns: Option<Vec<String>>,
    pending: VecDeque<Pending>,
    current: Option<Current>,
}

impl ParquetReader {
    /// Opens `path` (a file, or a folder of files), reading `columns` (all by default) in
    /// batches of `batch_size` rows.
    pub fn open(
        path: &str,
        batch_size: usize,
        columns: Option<&[String]>,
    ) -> Result<Self, PluginError> {
        let files = list_files(path)?;
        let mut pending = VecDeque::with_capacity(files.len());
        let mut schema: Option<(String, SchemaRef)> = None;
        for file_path in files {
            let file = File::open(&file_path)
                .and_then(SharedFile::new)
                .map_err(|e| PluginError::io(format!("{file_path}: cannot open the file: {e}")))?;
            let metadata =
                ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|e| {
                    PluginError::data(format!(
                        "{file_path}: cannot read it as a Parquet file: {e}"
                    ))
                })?;
            let (mask, _) = projection(&file_path, &metadata, columns)?;
            check_codecs(&file_path, &metadata, &mask)?;
            let file_schema = output_schema(&file_path, metadata.schema(), columns)?;
            match &schema {
                None => schema = Some((file_path.clone(), file_schema)),
                Some((first, expected)) => same_schema(first, expected, &file_path, &file_schema)?,
            }
            pending.push_back(Pending {
                path: file_path,
                file,
                metadata,
            });
        }
        let Some((_, schema)) = schema else {
            return Err(PluginError::data(format!(
                "{path}: the folder holds no Parquet file (names starting with '.' or '_' are \
                 skipped); point config.path at a file or a folder of Parquet files"
            )));
        };
        Ok(Self {
            schema,
            batch_size,
            columns: columns.map(<[String]>::to_vec),
            pending,
            current: None,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next batch, or `None` after the last row of the last file.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        loop {
            if let Some(current) = &mut self.current {
                match current.reader.next() {
                    Some(Ok(batch)) => {
                        let columns = current
                            .order
                            .iter()
                            .map(|&i| batch.column(i).clone())
                            .collect();
                        let batch = RecordBatch::try_new(self.schema.clone(), columns)
                            .map_err(|e| PluginError::data(format!("{}: {e}", current.path)))?;
                        return Ok(Some(batch));
                    }
                    Some(Err(e)) => {
                        return Err(PluginError::data(format!(
                            "{}: cannot decode the file: {e}",
                            current.path
                        )));
                    }
                    None => self.current = None,
                }
            }
            let Some(next) = self.pending.pop_front() else {
                return Ok(None);
            };
            self.current = Some(self.start(next)?);
        }
    }

    fn start(&self, pending: Pending) -> Result<Current, PluginError> {
        let Pending {
            path,
            file,
            metadata,
        } = pending;
        let (mask, order) = projection(&path, &metadata, self.columns.as_deref())?;
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
            .with_batch_size(self.batch_size)
            .with_projection(mask)
            .build()
            .map_err(|e| PluginError::data(format!("{path}: cannot read the file: {e}")))?;
        Ok(Current {
            path,
            reader,
            order,
        })
    }
}

/// The files to read: `path` itself, or the files under the folder `path`, recursively, in
/// name order, skipping names that start with `.` or `_` (as pyarrow's datasets do).
fn list_files(path: &str) -> Result<Vec<String>, PluginError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| PluginError::io(format!("{path}: cannot open the file: {e}")))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let mut files = Vec::new();
    walk(Path::new(path), &mut files)?;
    Ok(files)
}

fn walk(folder: &Path, files: &mut Vec<String>) -> Result<(), PluginError> {
    let listing_error = |e: std::io::Error| {
        PluginError::io(format!("{}: cannot list the folder: {e}", folder.display()))
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(listing_error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(listing_error)?;
    entries.sort();
    for entry in entries {
        let skipped = entry
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.') || n.starts_with('_'));
        if skipped {
            continue;
        }
        if entry.is_dir() {
            walk(&entry, files)?;
        } else {
            files.push(entry.to_string_lossy().into_owned());
        }
    }
    Ok(())
}

/// The projection mask of `columns` and the order of the output columns among the reader's.
fn projection(
    path: &str,
    metadata: &ArrowReaderMetadata,
    columns: Option<&[String]>,
) -> Result<(ProjectionMask, Vec<usize>), PluginError> {
    let fields = metadata.schema().fields();
    let Some(columns) = columns else {
        return Ok((ProjectionMask::all(), (0..fields.len()).collect()));
    };
    let mut roots = Vec::with_capacity(columns.len());
    for name in columns {
        let index = fields
            .iter()
            .position(|f| f.name() == name)
            .ok_or_else(|| {
                PluginError::config(format!(
                    "config.columns: {path} has no column {name:?}; its columns are {}",
                    names(fields)
                ))
            })?;
        roots.push(index);
    }
    // The reader gives the projected columns in file order.
    let mut sorted = roots.clone();
    sorted.sort_unstable();
    let order = roots
        .iter()
        .map(|r| sorted.iter().position(|s| s == r).unwrap_or(0))
        .collect();
    Ok((
        ProjectionMask::roots(metadata.parquet_schema(), roots),
        order,
    ))
}

fn names(fields: &arrow_schema::Fields) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("{:?}", f.name())).collect();
    names.join(", ")
}

/// The schema the stream announces for a file: the projected columns in the configured order,
/// without the file's metadata (pyarrow's `pandas` block, field ids).
fn output_schema(
    path: &str,
    file_schema: &SchemaRef,
    columns: Option<&[String]>,
) -> Result<SchemaRef, PluginError> {
    let plain = |f: &Field| Field::new(f.name(), f.data_type().clone(), f.is_nullable());
    let fields: Vec<Field> = match columns {
        None => file_schema.fields().iter().map(|f| plain(f)).collect(),
        Some(columns) => columns
            .iter()
            .map(|name| {
                file_schema.field_with_name(name).map(plain).map_err(|_| {
                    PluginError::config(format!("config.columns: {path} has no column {name:?}"))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(Arc::new(Schema::new(fields)))
}

/// Every file of a folder must have the first file's schema.
fn same_schema(
    first: &str,
    expected: &SchemaRef,
    path: &str,
    schema: &SchemaRef,
) -> Result<(), PluginError> {
    if expected.fields() == schema.fields() {
        return Ok(());
    }
    let difference = expected
        .fields()
        .iter()
        .zip(schema.fields())
        .find(|(a, b)| a != b)
        .map(|(a, b)| {
            format!(
                "column {:?} ({}) where {first} has {:?} ({})",
                b.name(),
                b.data_type(),
                a.name(),
                a.data_type()
            )
        })
        .unwrap_or_else(|| {
            format!(
                "{} columns where {first} has {}",
                schema.fields().len(),
                expected.fields().len()
            )
        });
    Err(PluginError::data(format!(
        "{path}: its schema differs from the first file's: {difference}; every file of a folder \
         must have the same columns and types"
    )))
}

/// Refuses a file with a column chunk to be read whose codec this build cannot decompress,
/// naming the file, the column and the codec, and saying what to do.
fn check_codecs(
    path: &str,
    metadata: &ArrowReaderMetadata,
    mask: &ProjectionMask,
) -> Result<(), PluginError> {
    for row_group in metadata.metadata().row_groups() {
        for (leaf, chunk) in row_group.columns().iter().enumerate() {
            if !mask.leaf_included(leaf) {
                continue;
            }
            let codec = match chunk.compression() {
                Compression::ZSTD(_) if !ZSTD_SUPPORTED => "ZSTD",
                Compression::LZO => "LZO",
                _ => continue,
            };
            return Err(PluginError::data(format!(
                "{path}: column {:?} is compressed with {codec}, which the parquet plugin cannot \
                 decompress (its decoder is C code that this WebAssembly build leaves out); \
                 rewrite the file with snappy, gzip, brotli, lz4 or no compression, for example \
                 pyarrow.parquet.write_table(table, path, compression=\"snappy\"), or load it \
                 into an Iceberg table with another tool",
                chunk.column_path().string()
            )));
        }
    }
    Ok(())
}

/// A file read at given offsets through one shared handle. The `parquet` crate's reader of a
/// `File` clones the handle for every read (`try_clone`), which WASI does not support; this
/// one seeks the shared handle instead.
struct SharedFile {
    file: Arc<Mutex<File>>,
    len: u64,
}

impl SharedFile {
    fn new(file: File) -> std::io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self {
            file: Arc::new(Mutex::new(file)),
            len,
        })
    }
}

impl Length for SharedFile {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for SharedFile {
    type T = BufReader<FileAt>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(BufReader::with_capacity(
            16 << 10,
            FileAt {
                file: self.file.clone(),
                position: start,
            },
        ))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        let mut buffer = vec![0; length];
        let mut reader = FileAt {
            file: self.file.clone(),
            position: start,
        };
        reader.read_exact(&mut buffer).map_err(|e| {
            ParquetError::General(format!(
                "cannot read {length} bytes at offset {start} (the file has {}): {e}",
                self.len
            ))
        })?;
        Ok(buffer.into())
    }
}

/// A reader of the shared file from its own position.
struct FileAt {
    file: Arc<Mutex<File>>,
    position: u64,
}

impl Read for FileAt {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("the file's lock is poisoned"))?;
        file.seek(SeekFrom::Start(self.position))?;
        let n = file.read(buf)?;
        self.position += n as u64;
        Ok(n)
    }
}
