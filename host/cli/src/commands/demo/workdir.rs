//! The demo's folder: created when missing; a folder that is not empty is used only when it
//! holds the marker `.ldp_demo`, and then only the demo's own entries are deleted and written
//! again. Then the files of the first step: the rides as CSV and Parquet, the config, the marker.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;

/// The file that says a folder was made by `ldp demo`.
pub const MARKER: &str = ".ldp_demo";

/// What the demo owns in its folder: deleted before a new run, nothing else is.
/// (`plugins` holds step 9's transform; the Python tool has no such step.)
pub const ENTRIES: [&str; 6] = [
    "data",
    "exports",
    "plugins",
    "warehouse",
    "rides.json",
    MARKER,
];

/// Why the demo cannot use its folder.
#[derive(Debug, thiserror::Error)]
pub enum WorkdirError {
    /// A folder with other content.
    #[error(
        "--workdir {}: the folder is not empty and has no .ldp_demo file, so it was not made by \
         ldp demo and the demo will not write into it; give a new or empty folder (or one an \
         earlier ldp demo made)",
        path.display()
    )]
    NotADemoFolder {
        /// The folder.
        path: PathBuf,
    },
    /// The path exists and is not a folder.
    #[error("--workdir {}: it exists and is not a folder; give a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// A file system error.
    #[error("--workdir: cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> WorkdirError {
    let path = path.to_path_buf();
    move |source| WorkdirError::Io { what, path, source }
}

/// Makes `dir` ready: created when missing; refused when it has content but no marker; with
/// the marker, [`ENTRIES`] are deleted (and nothing else). Then `data/`, `exports/`,
/// `plugins/`, `warehouse/` and the marker are created.
pub fn prepare(dir: &Path) -> Result<(), WorkdirError> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(io("create", dir))?;
        }
        Err(e) => return Err(io("read", dir)(e)),
        Ok(meta) if !meta.is_dir() => {
            return Err(WorkdirError::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        Ok(_) => {
            if dir.join(MARKER).is_file() {
                for entry in ENTRIES {
                    remove(&dir.join(entry))?;
                }
            } else if std::fs::read_dir(dir)
                .map_err(io("list", dir))?
                .next()
                .is_some()
            {
                return Err(WorkdirError::NotADemoFolder {
                    path: dir.to_path_buf(),
                });
            }
        }
    }
    for folder in ["data", "exports", "plugins", "warehouse"] {
        let path = dir.join(folder);
        std::fs::create_dir(&path).map_err(io("create", &path))?;
    }
    let marker = dir.join(MARKER);
    std::fs::write(
        &marker,
        "This folder was made by `ldp demo`, which deletes and rewrites data, exports, \
         plugins, warehouse and rides.json here.\n",
    )
    .map_err(io("write", &marker))
}

/// Deletes a file, a folder (a symbolic link is removed, not followed), or nothing.
fn remove(path: &Path) -> Result<(), WorkdirError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io("read", path)(e)),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path).map_err(io("delete", path)),
        Ok(_) => std::fs::remove_file(path).map_err(io("delete", path)),
    }
}

/// Writes `data/rides.csv` (as pyarrow writes CSV), `data/rides.parquet`, step 9's
/// `plugins/fare_per_km.js` and `rides.json` (the Python tool's config, byte for byte).
pub fn write_files(dir: &Path, rides: &RecordBatch) -> Result<(), WorkdirError> {
    let csv = dir.join("data/rides.csv");
    ldp_demo::write_csv(rides, &csv).map_err(io("write", &csv))?;
    write_parquet(&dir.join("data/rides.parquet"), &[rides])?;
    let script = dir.join("plugins/fare_per_km.js");
    std::fs::write(&script, super::plugins::FARE_PER_KM_JS).map_err(io("write", &script))?;
    let config = dir.join("rides.json");
    let text = ldp_config::python_json_pretty(&super::configs::rides()) + "\n";
    std::fs::write(&config, text).map_err(io("write", &config))
}

/// Writes `batches` (one schema) as one Parquet file.
pub fn write_parquet(path: &Path, batches: &[&RecordBatch]) -> Result<(), WorkdirError> {
    let Some(first) = batches.first() else {
        return Ok(());
    };
    let parquet_err =
        |e: parquet::errors::ParquetError| io("write", path)(std::io::Error::other(e.to_string()));
    let file = File::create(path).map_err(io("create", path))?;
    let mut writer = ArrowWriter::try_new(file, first.schema(), None).map_err(parquet_err)?;
    for batch in batches {
        writer.write(batch).map_err(parquet_err)?;
    }
    writer.close().map_err(parquet_err)?;
    Ok(())
}
