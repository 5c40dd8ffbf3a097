//! Finding and loading `libduckdb`, once per process.
//!
//! ldp does not link DuckDB: building its C++ from source takes longer than the rest of ldp
//! together (docs/duckdb.md). The library is loaded the first time a DUCKDB source runs, from
//! `LDP_DUCKDB_LIB` (the file, or a folder holding it), else from the dynamic loader's search
//! path, else from next to the `ldp` executable.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

use crate::error::{Error, Result};
use crate::ffi::{Api, text};

/// The environment variable that names the library (a file or a folder).
pub const LIBRARY_ENV: &str = "LDP_DUCKDB_LIB";

/// The library's file name on this platform.
pub const LIBRARY_FILE: &str = if cfg!(target_os = "macos") {
    "libduckdb.dylib"
} else if cfg!(windows) {
    "duckdb.dll"
} else {
    "libduckdb.so"
};

/// Where to get the library, for the error that says it is missing.
const INSTALL_HINT: &str = "get DuckDB's C library (1.4 or later) from https://github.com/duckdb/duckdb/releases (libduckdb-<os>-<arch>.zip) or from npm (`npm pack @duckdb/node-bindings-linux-x64`, then package/libduckdb.so), and set LDP_DUCKDB_LIB to the file";

/// A loaded `libduckdb`.
#[derive(Debug)]
pub struct Duckdb {
    pub(crate) api: Api,
    file: String,
    version: String,
}

impl Duckdb {
    /// The library, loaded on first use.
    ///
    /// # Errors
    ///
    /// [`Error::Library`] when no usable library is found; the message says where ldp looked
    /// and how to get one.
    pub fn get() -> Result<&'static Duckdb> {
        static LOADED: OnceLock<std::result::Result<Duckdb, String>> = OnceLock::new();
        LOADED
            .get_or_init(|| load().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| Error::Library {
                message: message.clone(),
            })
    }

    /// The file it was loaded from (or the bare name the loader found).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// DuckDB's version, such as `v1.5.6`.
    pub fn version(&self) -> &str {
        &self.version
    }
}

fn load() -> Result<Duckdb> {
    let (library, file) = match std::env::var_os(LIBRARY_ENV) {
        Some(value) if !value.is_empty() => {
            let mut path = PathBuf::from(&value);
            if path.is_dir() {
                path.push(LIBRARY_FILE);
            }
            let library = open(&path).map_err(|e| Error::Library {
                message: format!(
                    "{LIBRARY_ENV}={} does not load as libduckdb: {e}; {INSTALL_HINT}",
                    Path::new(&value).display()
                ),
            })?;
            (library, path.display().to_string())
        }
        _ => search()?,
    };
    let library: &'static Library = Box::leak(Box::new(library));
    let api = Api::resolve(library, &file)?;
    // SAFETY: takes no arguments and returns a static string.
    let version = text(unsafe { (api.library_version)() });
    tracing::debug!(file, version, "loaded libduckdb");
    Ok(Duckdb { api, file, version })
}

/// The loader's search path, then the folder of the executable (and its `../lib`).
fn search() -> Result<(Library, String)> {
    let mut tried = vec![format!("{LIBRARY_FILE} on the library path")];
    if let Ok(library) = open(Path::new(LIBRARY_FILE)) {
        return Ok((library, LIBRARY_FILE.to_string()));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        for candidate in [
            dir.join(LIBRARY_FILE),
            dir.join("../lib").join(LIBRARY_FILE),
        ] {
            if candidate.is_file()
                && let Ok(library) = open(&candidate)
            {
                return Ok((library, candidate.display().to_string()));
            }
            tried.push(candidate.display().to_string());
        }
    }
    Err(Error::Library {
        message: format!(
            "a DUCKDB source needs libduckdb, which ldp loads when it runs one, and none was found (looked for {}); {INSTALL_HINT}",
            tried.join(", ")
        ),
    })
}

fn open(path: &Path) -> std::result::Result<Library, libloading::Error> {
    // SAFETY: loading libduckdb runs its static initialisers, which have no preconditions.
    unsafe { Library::new(path.as_os_str()) }
}
