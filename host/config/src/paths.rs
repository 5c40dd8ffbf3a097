//! Path resolution relative to the config file's folder, and where a catalog lives on disk
//! (a `local` catalog is `<warehouse_path>/<identifier>_catalog.db`).
//!
//! 1. `~` is expanded. A relative path is `<config folder>/<path>`, normalised with symlinks
//!    resolved.
//! 2. An absolute path that exists is used as it is.
//! 3. Legacy: an absolute path that does not exist, but exists without its leading `/` under the
//!    config folder or the cwd, is that path (with a deprecation warning).
//! 4. A new output: an absolute path whose parent folder exists (and is not `/`) is kept; else the
//!    legacy relative form is used if its parent folder exists (with the warning).
//! 5. Otherwise the absolute path is returned unchanged, so callers can create it.
//!
//! A `file://` URI is the local path it names, resolved by the same rules.

use std::path::{Component, Path, PathBuf};

use crate::catalog::{CatalogSpec, CatalogType};
use crate::error::ConfigError;
use crate::names::NameKind;
use crate::repr::repr_str;

/// The folders relative paths resolve against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathContext {
    /// The config file's folder; `None` means the cwd.
    pub config_dir: Option<PathBuf>,
    /// The current working directory (for the legacy fallback).
    pub cwd: PathBuf,
    /// The home folder `~` expands to; `None` leaves `~` as written.
    pub home: Option<PathBuf>,
}

impl PathContext {
    /// A context for a config folder and a cwd, with `~` read from `$HOME`.
    pub fn new(config_dir: Option<&Path>, cwd: &Path) -> Self {
        PathContext {
            config_dir: config_dir.map(Path::to_path_buf),
            cwd: cwd.to_path_buf(),
            home: std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(PathBuf::from),
        }
    }

    fn expand_user(&self, path: &str) -> PathBuf {
        if let Some(home) = &self.home {
            if path == "~" {
                return home.clone();
            }
            if let Some(rest) = path.strip_prefix("~/") {
                return home.join(rest);
            }
        }
        PathBuf::from(path)
    }

    /// The folder relative paths resolve against: the config folder (`~` expanded, symlinks
    /// resolved), else the cwd.
    pub fn base(&self) -> PathBuf {
        match &self.config_dir {
            Some(dir) => resolve_lexically(&self.cwd, &self.expand_user(&dir.to_string_lossy())),
            None => self.cwd.clone(),
        }
    }

    /// Resolves a path from a config (rules 1–5 of the module docs).
    pub fn resolve(&self, path: &str) -> Resolved {
        let path = path.strip_prefix("file://").unwrap_or(path);
        let raw = self.expand_user(path);
        let base = self.base();
        if !raw.is_absolute() {
            return Resolved {
                path: resolve_lexically(&base, &raw),
                warning: None,
            };
        }
        if raw.exists() {
            return Resolved {
                path: raw,
                warning: None,
            };
        }
        let text = raw.to_string_lossy();
        let stripped = text.trim_start_matches(['/', '\\']);
        if stripped.is_empty() {
            return Resolved {
                path: raw,
                warning: None,
            };
        }
        let mut roots = vec![base];
        if !roots.contains(&self.cwd) {
            roots.push(self.cwd.clone());
        }
        for root in &roots {
            let candidate = resolve_lexically(root, Path::new(stripped));
            if candidate.exists() {
                return Resolved {
                    path: candidate,
                    warning: Some(legacy_warning(path, root, "it")),
                };
            }
        }
        if let Some(parent) = raw.parent()
            && parent.exists()
            && parent.parent().is_some()
        {
            return Resolved {
                path: raw,
                warning: None,
            };
        }
        for root in &roots {
            let candidate = resolve_lexically(root, Path::new(stripped));
            if candidate.parent().is_some_and(Path::is_dir) {
                return Resolved {
                    path: candidate,
                    warning: Some(legacy_warning(path, root, "its folder")),
                };
            }
        }
        Resolved {
            path: raw,
            warning: None,
        }
    }
}

/// A resolved path and, for the legacy leading-`/` fallback, the deprecation warning to log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute path.
    pub path: PathBuf,
    /// `Path '/rides.csv' is written as absolute but it only exists relative to ...`.
    pub warning: Option<String>,
}

fn legacy_warning(path: &str, root: &Path, what: &str) -> String {
    format!(
        "Path {} is written as absolute but {what} only exists relative to {}. \
         Write it without the leading slash; legacy support will be removed in 0.2.0.",
        repr_str(path),
        root.display()
    )
}

/// Resolves a path from a config against its folder (or the cwd when `config_dir` is `None`).
pub fn resolve_path(path: &str, config_dir: Option<&Path>, cwd: &Path) -> Resolved {
    PathContext::new(config_dir, cwd).resolve(path)
}

/// `base/path` made absolute like Python's `Path.resolve()`: symlinks of the existing part
/// resolved, `.` and `..` removed, the part that does not exist yet appended as written.
fn resolve_lexically(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut resolved = PathBuf::new();
    let mut existing = true;
    for component in joined.components() {
        match component {
            Component::Prefix(prefix) => resolved.push(prefix.as_os_str()),
            Component::RootDir => resolved.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                if existing {
                    match std::fs::canonicalize(&resolved) {
                        Ok(real) => resolved = real,
                        Err(_) => existing = false,
                    }
                }
            }
        }
    }
    resolved
}

/// The error for a `local` catalog (or a `sql` block in the local shape) whose warehouse is on
/// object storage (`s3://…`): its `warehouse_path` also holds the SQLite catalog file, which must
/// stay local; `role` is `source` or `target`. A `sql` catalog with a local `uri` may keep its
/// `warehouse` on `s3://` (see [`object_warehouse_uri`]). Other catalog types are refused for
/// their type elsewhere.
pub fn object_warehouse(role: &str, spec: &CatalogSpec) -> Option<String> {
    if let Some(warehouse) = object_warehouse_uri(spec) {
        let scheme = warehouse.split_once("://").map_or("", |(scheme, _)| scheme);
        if !["s3", "s3a", "s3n", "gs"]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(scheme))
        {
            return Some(format!(
                "metadata.{role}.catalog.warehouse {} is not on S3 or GCS; this ldp keeps an \
                 Iceberg warehouse in a local folder, on s3:// or on gs:// only",
                repr_str(&warehouse)
            ));
        }
        return None;
    }
    if spec.effective_type() != CatalogType::Local {
        return None;
    }
    [
        ("warehouse_path", spec.warehouse_path.as_deref()),
        ("warehouse", spec.warehouse.as_deref()),
    ]
    .into_iter()
    .find_map(|(key, value)| {
        let value = value.filter(|value| is_object_location(value))?;
        Some(format!(
            "metadata.{role}.catalog.{key} {} is on object storage; a local catalog keeps its \
             SQLite file in the warehouse folder, which must be local. For a warehouse on s3://, \
             use a sql catalog with a local SQLite uri and an s3 warehouse \
             (\"type\": \"sql\", \"uri\": \"sqlite:///catalog.db\", \"warehouse\": {})",
            repr_str(value),
            serde_json::Value::String(value.to_string())
        ))
    })
}

/// The `warehouse` of a `sql` catalog when it is on object storage (`s3://bucket/prefix`,
/// without a trailing `/`): its tables live at `<warehouse>/<namespace>/<table>` in the bucket.
/// `None` for any other catalog or a local warehouse.
pub fn object_warehouse_uri(spec: &CatalogSpec) -> Option<String> {
    if spec.effective_type() != CatalogType::Sql {
        return None;
    }
    spec.warehouse
        .as_deref()
        .filter(|value| is_object_location(value))
        .map(|value| value.trim_end_matches('/').to_string())
}

/// Whether `value` is a URL whose scheme is not `file` (`s3://…`, `gs://…`).
fn is_object_location(value: &str) -> bool {
    value.split_once("://").is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !scheme.eq_ignore_ascii_case("file")
    })
}

/// Where a `local` catalog (or a `sql` block in the local shape) lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalCatalogLayout {
    /// The warehouse folder (resolved `warehouse_path`).
    pub warehouse: PathBuf,
    /// The SQLite file: `<warehouse>/<identifier>_catalog.db`.
    pub database: PathBuf,
    /// `file://<abs warehouse>`.
    pub warehouse_uri: String,
    /// The catalog name (`identifier`).
    pub catalog_name: String,
    /// The namespace tables live in (`identifier`, else `namespace`).
    pub namespace: String,
    /// The deprecation warning of a legacy `warehouse_path`, if any.
    pub warning: Option<String>,
}

impl LocalCatalogLayout {
    /// A table's folder: `<warehouse>/<namespace>/<table>` (with `metadata/` and `data/` below).
    pub fn table_location(&self, table: &str) -> PathBuf {
        self.warehouse.join(&self.namespace).join(table)
    }
}

/// The on-disk layout of a local catalog. Nothing is created.
///
/// # Errors
///
/// [`ConfigError::Catalog`] when the block is not a local catalog, lacks `identifier` or
/// `warehouse_path`, or its `identifier` breaks the rules of [`crate::names`].
pub fn local_catalog_layout(
    spec: &CatalogSpec,
    context: &PathContext,
) -> Result<LocalCatalogLayout, ConfigError> {
    if spec.effective_type() != CatalogType::Local {
        return Err(ConfigError::Catalog {
            message: format!("a {} catalog has no local layout", spec.catalog_type),
        });
    }
    let (Some(identifier), Some(warehouse_path)) = (&spec.identifier, &spec.warehouse_path) else {
        let missing = if spec.identifier.is_none() {
            "identifier"
        } else {
            "warehouse_path"
        };
        return Err(ConfigError::Catalog {
            message: format!("local catalog spec is missing '{missing}'"),
        });
    };
    // Both readers check this; a spec built otherwise must not name a file outside the warehouse.
    if let Some(problem) = NameKind::Namespace.problem(identifier) {
        return Err(ConfigError::Catalog {
            message: format!("catalog identifier: {problem}"),
        });
    }
    let resolved = context.resolve(warehouse_path);
    let warehouse = resolved.path;
    Ok(LocalCatalogLayout {
        database: warehouse.join(format!("{identifier}_catalog.db")),
        warehouse_uri: format!("file://{}", warehouse.display()),
        catalog_name: identifier.clone(),
        namespace: spec.table_namespace().unwrap_or(identifier).to_owned(),
        warehouse,
        warning: resolved.warning,
    })
}

/// The database file of a `sqlite:///` URI: `sqlite:///rel.db` is relative to the config folder,
/// `sqlite:////abs.db` absolute (taken literally). `None` for other URIs and in-memory SQLite.
pub fn sqlite_file(uri: &str, context: &PathContext) -> Option<PathBuf> {
    let rest = uri.strip_prefix("sqlite:///")?;
    let database = rest.split_once('?').map_or(rest, |(database, _)| database);
    if database.is_empty() || database == ":memory:" || database.starts_with("file:") {
        return None;
    }
    let path = Path::new(database);
    if path.is_absolute() {
        Some(path.to_path_buf())
    } else {
        Some(context.resolve(database).path)
    }
}

/// A `sql` catalog's URI with a relative SQLite file made absolute (query string kept).
pub fn resolve_sql_uri(uri: &str, context: &PathContext) -> String {
    match sqlite_file(uri, context) {
        Some(path) => match uri.split_once('?') {
            Some((_, query)) => format!("sqlite:///{}?{query}", path.display()),
            None => format!("sqlite:///{}", path.display()),
        },
        None => uri.to_owned(),
    }
}

/// The SQLite file a catalog opens (local layout, or a `sql` catalog on a `sqlite:///` file);
/// `None` for other catalogs. Read-only commands check it exists before building the catalog.
pub fn catalog_database_file(spec: &CatalogSpec, context: &PathContext) -> Option<PathBuf> {
    match spec.effective_type() {
        CatalogType::Local => local_catalog_layout(spec, context)
            .ok()
            .map(|layout| layout.database),
        CatalogType::Sql => spec
            .uri
            .as_deref()
            .and_then(|uri| sqlite_file(uri, context)),
        _ => None,
    }
}
