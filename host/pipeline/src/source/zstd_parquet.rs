//! Parquet sources compressed with zstd.
//!
//! The `parquet` plugin cannot decompress zstd: the zstd library is C, and this build has no
//! WebAssembly C toolchain to compile it for the sandbox (docs/formats.md). The host has it (it
//! reads Iceberg tables, which pyiceberg and Spark write with zstd), so when a Parquet source
//! has a zstd column chunk the host rewrites the file, uncompressed, into a private folder, one
//! batch at a time, and the plugin reads that copy as it reads any file. The copy keeps the
//! file's Arrow schema (the writer stores it), so the plugin gives the same types it would have
//! given the original; other files go to the plugin untouched.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::object::Downloaded;

/// Whether the Parquet file at `file` has a zstd-compressed column chunk. A file whose footer
/// does not read is left to the plugin, whose messages name what is wrong.
pub(crate) fn has_zstd(file: &Path) -> bool {
    let Ok(handle) = File::open(file) else {
        return false;
    };
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(handle) else {
        return false;
    };
    builder.metadata().row_groups().iter().any(|group| {
        group
            .columns()
            .iter()
            .any(|column| matches!(column.compression(), Compression::ZSTD(_)))
    })
}

/// Rewrites `file` uncompressed into a private folder (removed when the last clone of the
/// result is dropped); `what` names the source in errors.
pub(crate) fn decompress(what: &str, file: &Path) -> Result<Downloaded> {
    let failed = |e: &dyn std::fmt::Display| Error::Unsupported {
        message: format!(
            "{what}: cannot decompress the zstd Parquet file {} for the sandbox: {e}",
            file.display()
        ),
    };
    let folder = tempfile::Builder::new()
        .prefix("ldp-source-")
        .tempdir()
        .map_err(|e| failed(&e))?;
    let name = file.file_name().map_or_else(
        || std::ffi::OsString::from("source.parquet"),
        std::ffi::OsStr::to_os_string,
    );
    let copy = folder.path().join(name);
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(File::open(file).map_err(|e| failed(&e))?)
            .and_then(|builder| builder.with_batch_size(8_192).build())
            .map_err(|e| failed(&e))?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .build();
    let out = File::create(&copy).map_err(|e| failed(&e))?;
    let mut writer = ArrowWriter::try_new(
        out,
        arrow_array::RecordBatchReader::schema(&reader),
        Some(properties),
    )
    .map_err(|e| failed(&e))?;
    let mut rows = 0;
    for batch in reader {
        let batch = batch.map_err(|e| failed(&e))?;
        rows += batch.num_rows();
        writer.write(&batch).map_err(|e| failed(&e))?;
    }
    writer.close().map_err(|e| failed(&e))?;
    tracing::info!(
        "{what}: {} has zstd column chunks, which the sandbox cannot decompress; the host gave the plugin an uncompressed copy ({rows} rows)",
        file.display()
    );
    Ok(Downloaded {
        folder: Arc::new(folder),
        file: copy,
    })
}
