//! A dbt project as `ldp dbt` runs it: its folder, and the settings `ldp dbt init` records in
//! `ldp.json` next to `dbt_project.yml`.
//!
//! * `ldp.json`: `{"sources": DIR, "warehouse": DIR, "namespace": NAME}`, the folders relative
//!   to the project. `sources` is the folder of dataset configs whose Iceberg tables the models
//!   read; `warehouse` and `namespace` say where a published model's table goes (a model's
//!   `meta.ldp_namespace` overrides the namespace). The options of `ldp dbt` override each.
//! * The project's DuckDB file is `ldp.duckdb` (its `profiles.yml` points dbt-duckdb at it):
//!   the sources are tables of schema `raw` in it, and dbt builds the models there.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The settings file of a project.
pub const SETTINGS_FILE: &str = "ldp.json";
/// The DuckDB file dbt builds in.
pub const DUCKDB_FILE: &str = "ldp.duckdb";
/// The schema of the source tables in it, and the name of the dbt source.
pub const SOURCE_SCHEMA: &str = "raw";
/// The namespace of published models when nothing says otherwise.
pub const DEFAULT_NAMESPACE: &str = "gold";

/// What `ldp dbt` overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--sources DIR`.
    pub sources: Option<PathBuf>,
    /// `--warehouse DIR`.
    pub warehouse: Option<PathBuf>,
    /// `--namespace NAME`.
    pub namespace: Option<String>,
}

/// A project and its settings, resolved.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project folder (holds `dbt_project.yml`).
    pub dir: PathBuf,
    /// The folder of dataset configs whose tables are the sources.
    pub sources: PathBuf,
    /// The warehouse published models go to.
    pub warehouse: PathBuf,
    /// The namespace they go to.
    pub namespace: String,
}

impl Project {
    /// Reads the project at `dir`: `dbt_project.yml` must be there; `ldp.json` and `overrides`
    /// give the settings (`sources` and `warehouse` are required from one of them).
    ///
    /// # Errors
    ///
    /// [`Error::Project`] naming what is missing.
    pub fn open(dir: &Path, overrides: &Overrides) -> Result<Project> {
        if !dir.join("dbt_project.yml").is_file() {
            return Err(Error::Project {
                message: format!(
                    "{} is not a dbt project (it has no dbt_project.yml); ldp dbt init {} makes one",
                    dir.display(),
                    dir.display()
                ),
            });
        }
        let settings_path = dir.join(SETTINGS_FILE);
        let settings: Value = match std::fs::read_to_string(&settings_path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| Error::Project {
                message: format!("{}: not JSON: {e}", settings_path.display()),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
            Err(e) => return Err(Error::file("read", &settings_path, e)),
        };
        let folder = |over: &Option<PathBuf>, key: &str, flag: &str| -> Result<PathBuf> {
            if let Some(path) = over {
                return Ok(absolute(path));
            }
            match settings[key].as_str() {
                Some(rel) => Ok(absolute(&dir.join(rel))),
                None => Err(Error::Project {
                    message: format!(
                        "{}: no '{key}' folder; give {flag} DIR, or record it with ldp dbt init",
                        settings_path.display()
                    ),
                }),
            }
        };
        Ok(Project {
            dir: absolute(dir),
            sources: folder(&overrides.sources, "sources", "--sources")?,
            warehouse: folder(&overrides.warehouse, "warehouse", "--warehouse")?,
            namespace: overrides
                .namespace
                .clone()
                .or_else(|| settings["namespace"].as_str().map(str::to_owned))
                .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string()),
        })
    }

    /// The DuckDB file dbt builds in.
    pub fn duckdb_file(&self) -> PathBuf {
        self.dir.join(DUCKDB_FILE)
    }

    /// dbt's `target/` folder.
    pub fn target_dir(&self) -> PathBuf {
        self.dir.join("target")
    }
}

/// `path` made absolute against the working folder (not resolving links).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
