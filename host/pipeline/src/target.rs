//! Reading a config for a run, and where its Iceberg target lives.

use std::path::{Path, PathBuf};

use ldp_catalog::{Catalog, CatalogAddress, Mode};
use ldp_config::paths::PathContext;
use ldp_config::{Block, Config, ConfigError, Document, Kind};
use ldp_table::Table;

use crate::catalog::ResolvedCatalog;

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

/// Reads a dataset config file for a run, as [`open_config`] does, and reports each key ldp
/// ignores ([`ldp_config::stray_keys`]): a warning with a "did you mean", or under `strict`
/// an error naming them all, before anything is read or written.
///
/// # Errors
///
/// As [`open_config`]; [`Error::Config`] with every ignored key under `strict`.
pub fn open_config_for_run(path: &Path, strict: bool) -> Result<Config> {
    let config = open_config(path)?;
    let stray: Vec<String> = ldp_config::stray_keys(&config.raw)
        .iter()
        .map(ToString::to_string)
        .collect();
    if strict && !stray.is_empty() {
        return Err(ConfigError::Validation {
            file: Some(path.to_path_buf()),
            problems: stray,
        }
        .into());
    }
    for warning in &stray {
        tracing::warn!("{}: {warning}", path.display());
    }
    Ok(config)
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
    /// The config's Iceberg table: its target when that is Iceberg, else its source.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] when neither is an Iceberg table, naming the config and both formats.
    pub fn of_config(config: &Config, path: &Path) -> Result<TargetTable> {
        for block in [config.target(), config.source()] {
            if block.is_iceberg() {
                return TargetTable::resolve(config, block);
            }
        }
        Err(Error::Unsupported {
            message: format!(
                "config {} ({}) has no Iceberg table: its source is '{}' and its target is '{}'",
                config.identifier,
                path.display(),
                config.source().format.as_str(),
                config.target().format.as_str()
            ),
        })
    }

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
        check_local_warehouse(config, block, spec)?;
        let catalog = ResolvedCatalog::resolve(spec, &context)?;
        Ok(TargetTable {
            location: catalog.table_location(&block.name),
            object_location: catalog
                .object_warehouse
                .as_ref()
                .map(|_| catalog.table_location(&block.name).display().to_string()),
            catalog: catalog.address,
            catalog_name: catalog.catalog_name,
            warehouse: catalog.warehouse,
            namespace: catalog.namespace,
            name: block.name.clone(),
            local: catalog.local,
        })
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
