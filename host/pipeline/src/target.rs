//! Reading a config for a run, and where its Iceberg target lives.

use std::path::{Path, PathBuf};

use ldp_catalog::{Catalog, CatalogAddress, Mode, PostgresAddress};
use ldp_config::paths::{PathContext, local_catalog_layout, sqlite_file};
use ldp_config::{Block, CatalogType, Config, ConfigError, Document, Kind};
use ldp_table::Table;

use crate::error::{Error, Result};

/// Reads a dataset config file as `ldp run` does. When the strict loader stops at a problem,
/// the full validator runs too, so a config with several problems reports them all at once,
/// each with its JSON path.
///
/// # Errors
///
/// [`Error::Config`]: the file is missing, not JSON, not a `Pipeline`, or invalid.
pub fn open_config(path: &Path) -> Result<Config> {
    let document = Document::read(path)?;
    if let Ok(Kind::Workflow) = document.kind() {
        return Err(Error::Unsupported {
            message: format!(
                "{} is a Workflow file, not a dataset config; run it with 'ldp workflow run'",
                path.display()
            ),
        });
    }
    match document.load() {
        Ok(config) => Ok(config),
        Err(loaded) => {
            let validation = document.validate();
            if validation.problems.len() > 1 {
                Err(ConfigError::Validation {
                    file: Some(path.to_path_buf()),
                    problems: validation.problems,
                }
                .into())
            } else {
                Err(loaded.into())
            }
        }
    }
}

/// Where an Iceberg block's table lives: its catalog, namespace, name and folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetTable {
    /// The catalog: a SQLite file, or a PostgreSQL database (a `sql` catalog whose `uri` is
    /// `postgresql://…`, its password from `password_env`).
    pub catalog: CatalogAddress,
    /// The catalog's name (the `catalog_name` column).
    pub catalog_name: String,
    /// The warehouse folder.
    pub warehouse: PathBuf,
    /// The namespace.
    pub namespace: String,
    /// The table's name.
    pub name: String,
    /// The table's folder, `<warehouse>/<namespace>/<table>`.
    pub location: PathBuf,
    /// Whether the catalog is a `local` one (only a local catalog takes the table write lock).
    pub local: bool,
    /// The table's `s3://` location when a `sql` catalog's warehouse is on object storage;
    /// `warehouse` and `location` then hold the `s3://` URIs as they are (not local folders).
    pub object_location: Option<String>,
}

impl TargetTable {
    /// Resolves an Iceberg block of `config` (paths against the config's folder).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a block that is not Iceberg or a catalog type this build does
    /// not reach (`rest`, `glue`, `sql` on a server); [`Error::Config`] for an incomplete block.
    pub fn resolve(config: &Config, block: &Block) -> Result<TargetTable> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let context = PathContext::new(config.base_dir.as_deref(), &cwd);
        let Some(spec) = block.catalog.as_ref().filter(|_| block.is_iceberg()) else {
            return Err(Error::Unsupported {
                message: format!(
                    "{} block '{}' is not an Iceberg table (format {})",
                    if std::ptr::eq(block, config.target()) {
                        "the target"
                    } else {
                        "the source"
                    },
                    block.name,
                    block.format.as_str()
                ),
            });
        };
        // A catalog key naming a secret must end in `_env`, no password in a `uri`, no secret in
        // `properties`: checked on every run and read.
        ldp_config::secrets::check_catalog_secrets(&spec.raw)
            .map_err(|message| ConfigError::Catalog { message })?;
        check_local_warehouse(config, block, spec)?;
        match spec.effective_type() {
            CatalogType::Local => {
                let layout = local_catalog_layout(spec, &context)?;
                if let Some(warning) = &layout.warning {
                    tracing::warn!("{warning}");
                }
                Ok(TargetTable {
                    location: layout.table_location(&block.name),
                    catalog: CatalogAddress::Sqlite(layout.database),
                    catalog_name: layout.catalog_name,
                    warehouse: layout.warehouse,
                    namespace: layout.namespace,
                    name: block.name.clone(),
                    local: true,
                    object_location: None,
                })
            }
            CatalogType::Sql => {
                let uri = spec.uri.as_deref().unwrap_or_default();
                let catalog = if PostgresAddress::is_postgres_uri(uri) {
                    let password = password_from_env(spec)?;
                    CatalogAddress::Postgres(PostgresAddress::parse(uri, password.as_deref())?)
                } else if let Some(file) = sqlite_file(uri, &context) {
                    CatalogAddress::Sqlite(file)
                } else {
                    return Err(Error::Unsupported {
                        message: format!(
                            "catalog uri {:?}: a sql catalog is a SQLite file (sqlite:///path.db) or a PostgreSQL database (postgresql://user@host:5432/db)",
                            ldp_config::secrets::redact_uri(uri)
                        ),
                    });
                };
                let namespace = spec.table_namespace().ok_or_else(|| ConfigError::Catalog {
                    message: "sql catalog spec needs 'namespace' or 'identifier'".into(),
                })?;
                if let Some(warehouse) = ldp_config::paths::object_warehouse_uri(spec) {
                    let location = format!("{warehouse}/{namespace}/{}", block.name);
                    return Ok(TargetTable {
                        location: PathBuf::from(&location),
                        catalog,
                        catalog_name: spec.catalog_name(),
                        namespace: namespace.to_string(),
                        warehouse: PathBuf::from(warehouse),
                        name: block.name.clone(),
                        local: false,
                        object_location: Some(location),
                    });
                }
                let warehouse = match (spec.warehouse.as_deref(), catalog.file()) {
                    (Some(w), _) => context.resolve(w.strip_prefix("file://").unwrap_or(w)).path,
                    (None, Some(file)) => {
                        file.parent().map_or_else(|| cwd.clone(), Path::to_path_buf)
                    }
                    (None, None) => {
                        return Err(ConfigError::Catalog {
                            message: format!(
                                "the sql catalog at {catalog} needs 'warehouse': the folder (or s3://bucket/prefix) its tables' files go to"
                            ),
                        }
                        .into());
                    }
                };
                Ok(TargetTable {
                    location: warehouse.join(namespace).join(&block.name),
                    catalog,
                    catalog_name: spec.catalog_name(),
                    namespace: namespace.to_string(),
                    warehouse,
                    name: block.name.clone(),
                    local: false,
                    object_location: None,
                })
            }
            other => Err(Error::Unsupported {
                message: format!(
                    "catalog type '{}' is not supported by this ldp yet; use a local catalog (identifier + warehouse_path), or sql on a sqlite:/// file or a postgresql:// database",
                    other.as_str()
                ),
            }),
        }
    }

    /// `ns.t`.
    pub fn identifier(&self) -> String {
        ldp_catalog::qualified(&self.namespace, &self.name)
    }

    /// Opens the catalog: [`Mode::Create`] for writers, [`Mode::ReadOnly`] for commands that only
    /// read, which fail when the catalog file does not exist (`Iceberg table ns.t does not
    /// exist: there is no catalog at <file>. Run 'ldp run CONFIG' first, …`).
    ///
    /// # Errors
    ///
    /// The catalog cannot be opened (or does not exist, read-only).
    pub fn open_catalog(&self, mode: Mode) -> Result<Catalog> {
        Catalog::connect(&self.catalog, &self.catalog_name, mode)
            .map_err(|e| e.for_table(&self.identifier()).into())
    }

    /// Whether the catalog may hold the table: false when a SQLite catalog file does not exist
    /// (commands that only read then report "no table" without opening anything).
    pub fn catalog_may_exist(&self) -> bool {
        self.catalog.may_exist()
    }

    /// Opens the catalog read-only and loads the table.
    ///
    /// # Errors
    ///
    /// No catalog, no table, or unreadable metadata.
    pub fn load(&self) -> Result<Table> {
        let catalog = self.open_catalog(Mode::ReadOnly)?;
        if !catalog.table_exists(&self.namespace, &self.name)? {
            return Err(ldp_catalog::Error::TableNotFound {
                file: catalog.file().to_path_buf(),
                table: self.identifier(),
            }
            .into());
        }
        Ok(Table::load(&catalog, &self.namespace, &self.name)?)
    }
}

/// The password of a `sql` catalog on PostgreSQL: the value of the variable its `password_env`
/// names (none without the key; a named variable that is not set is an error).
fn password_from_env(spec: &ldp_config::CatalogSpec) -> Result<Option<String>> {
    let Some(variable) = spec.password_env.as_deref().filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(password) if !password.is_empty() => Ok(Some(password)),
        _ => Err(ConfigError::Catalog {
            message: format!(
                "catalog spec key 'password_env' names environment variable '{variable}', which is not set; set it to the database password"
            ),
        }
        .into()),
    }
}

/// Refuses a `local` catalog's warehouse on object storage, and a `sql` one's that is not on
/// S3 ([`ldp_config::paths::object_warehouse`]).
fn check_local_warehouse(
    config: &Config,
    block: &Block,
    spec: &ldp_config::CatalogSpec,
) -> Result<()> {
    let role = if std::ptr::eq(block, config.target()) {
        "target"
    } else {
        "source"
    };
    match ldp_config::paths::object_warehouse(role, spec) {
        Some(message) => Err(Error::Unsupported { message }),
        None => Ok(()),
    }
}
