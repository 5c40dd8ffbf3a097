//! `ldp dbt init PROJECT --sources DIR --warehouse DIR`: a dbt project that builds as soon as its
//! sources exist: `dbt_project.yml`, `profiles.yml` (dbt-duckdb on the project's `ldp.duckdb`),
//! `ldp.json` (the settings), and one staging view per source table (`models/stg_<table>.sql`,
//! a `select *` from the source). Files that exist are left as they are.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::error::{Error, Result};
use crate::project::{DEFAULT_NAMESPACE, DUCKDB_FILE, Project, SETTINGS_FILE, SOURCE_SCHEMA};

/// What `init` wrote.
#[derive(Debug, Clone)]
pub struct InitReport {
    /// The project.
    pub project: PathBuf,
    /// The files written, relative to it.
    pub written: Vec<String>,
    /// The files left as they were.
    pub kept: Vec<String>,
}

/// Writes a new project (or completes one) at `dir`.
///
/// # Errors
///
/// A folder that cannot be created, a sources folder whose configs cannot be read.
pub fn init(
    dir: &Path,
    sources: &Path,
    warehouse: &Path,
    namespace: Option<&str>,
) -> Result<InitReport> {
    std::fs::create_dir_all(dir.join("models")).map_err(|e| Error::file("create", dir, e))?;
    let name: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "ldp_project".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) || name.is_empty() {
        format!("p_{name}")
    } else {
        name
    };
    let project_abs = crate::project::absolute(dir);
    let relative = |path: &Path| relative_to(&crate::project::absolute(path), &project_abs);
    let settings = json!({
        "sources": relative(sources),
        "warehouse": relative(warehouse),
        "namespace": namespace.unwrap_or(DEFAULT_NAMESPACE),
    });
    let mut files: Vec<(String, String)> = vec![
        (
            "dbt_project.yml".into(),
            format!(
                "# A dbt project that ldp dbt runs over the Iceberg tables of {src} (docs/dbt.md).\n\
                 name: {name}\nversion: \"1.0.0\"\nconfig-version: 2\nprofile: ldp\n\
                 model-paths: [\"models\"]\ntest-paths: [\"tests\"]\nclean-targets: [\"target\"]\n",
                src = settings["sources"].as_str().unwrap_or_default()
            ),
        ),
        (
            "profiles.yml".into(),
            format!(
                "# dbt-duckdb builds in {DUCKDB_FILE}, where ldp dbt copies the source tables (schema {SOURCE_SCHEMA}).\n\
                 ldp:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: {DUCKDB_FILE}\n      threads: 1\n"
            ),
        ),
        (
            SETTINGS_FILE.into(),
            serde_json::to_string_pretty(&settings).unwrap_or_default() + "\n",
        ),
    ];
    let project = Project {
        dir: project_abs.clone(),
        sources: crate::project::absolute(sources),
        warehouse: crate::project::absolute(warehouse),
        namespace: namespace.unwrap_or(DEFAULT_NAMESPACE).to_string(),
    };
    for table in crate::sources::source_tables(&project)?.keys() {
        files.push((
            format!("models/stg_{table}.sql"),
            format!(
                "-- Every row of the Iceberg table {table}, as ldp dbt copies it before each dbt command.\n\
                 select * from {{{{ source('{SOURCE_SCHEMA}', '{table}') }}}}\n"
            ),
        ));
    }
    let mut report = InitReport {
        project: project_abs,
        written: Vec::new(),
        kept: Vec::new(),
    };
    for (file, text) in files {
        let path = dir.join(&file);
        if path.exists() {
            report.kept.push(file);
            continue;
        }
        std::fs::write(&path, text).map_err(|e| Error::file("write", &path, e))?;
        report.written.push(file);
    }
    Ok(report)
}

/// `path` relative to `base` (both absolute), with `..` where needed.
fn relative_to(path: &Path, base: &Path) -> String {
    let path_parts: Vec<_> = path.components().collect();
    let base_parts: Vec<_> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..base_parts.len() {
        out.push("..");
    }
    for part in &path_parts[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        ".".to_string()
    } else {
        out.display().to_string()
    }
}
