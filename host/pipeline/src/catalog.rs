//! A catalog block made usable: where the catalog lives (a SQLite file or a PostgreSQL
//! database), its name, the namespace its tables go to, and the warehouse their files go to.
//! The rules of each catalog type are written down in docs/catalogs.md.

use std::path::{Path, PathBuf};

use ldp_catalog::{Catalog, CatalogAddress, Mode, PostgresAddress, RemoteAddress};
use ldp_config::paths::{PathContext, local_catalog_layout, sqlite_file};
use ldp_config::{CatalogSpec, CatalogType, ConfigError};

use crate::error::{Error, Result};

/// A resolved catalog block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCatalog {
    /// Where the catalog lives.
    pub address: CatalogAddress,
    /// The catalog's name (the `catalog_name` column).
    pub catalog_name: String,
    /// The namespace tables live in.
    pub namespace: String,
    /// The namespace's folder under the warehouse: the namespace, or `<namespace>.db` on Glue
    /// (where pyiceberg's `GlueCatalog` puts tables).
    pub namespace_folder: String,
    /// The warehouse folder, or its `s3://` URI as written (see `object_warehouse`).
    pub warehouse: PathBuf,
    /// Whether the block is a `local` one.
    pub local: bool,
    /// The warehouse's `s3://` URI when it is on object storage.
    pub object_warehouse: Option<String>,
}

impl ResolvedCatalog {
    /// Resolves `spec`, its paths against `context`.
    ///
    /// * `local` (or `sql` in the local shape): `<warehouse_path>/<identifier>_catalog.db`.
    /// * `sql` on `sqlite:///file.db`: that file; the warehouse is `warehouse`, else the file's
    ///   folder.
    /// * `sql` on `postgresql://user@host:port/db` (also `postgres://`,
    ///   `postgresql+psycopg://`, `postgresql+psycopg2://`): that database, the password read
    ///   from the variable `password_env` names; `warehouse` is required.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for an incomplete block, an unset `password_env` variable or a secret
    /// written in the block; [`Error::Unsupported`] for a catalog type this build does not reach.
    pub fn resolve(spec: &CatalogSpec, context: &PathContext) -> Result<ResolvedCatalog> {
        // A catalog key naming a secret must end in `_env`, no password in a `uri`, no secret in
        // `properties`: checked on every run and read.
        ldp_config::secrets::check_catalog_secrets(&spec.raw)
            .map_err(|message| ConfigError::Catalog { message })?;
        match spec.effective_type() {
            CatalogType::Local => {
                let layout = local_catalog_layout(spec, context)?;
                if let Some(warning) = &layout.warning {
                    tracing::warn!("{warning}");
                }
                Ok(ResolvedCatalog {
                    address: CatalogAddress::Sqlite(layout.database),
                    catalog_name: layout.catalog_name,
                    namespace_folder: layout.namespace.clone(),
                    namespace: layout.namespace,
                    warehouse: layout.warehouse,
                    local: true,
                    object_warehouse: None,
                })
            }
            CatalogType::Sql => resolve_sql(spec, context),
            CatalogType::Rest => {
                let connector = ldp_catalog_rest::RestConnector::new(rest_settings(spec)?);
                resolve_remote(spec, context, RemoteAddress::new(connector), None)
            }
            CatalogType::Glue => {
                let properties = client_properties(spec)?;
                let settings =
                    ldp_catalog_glue::GlueSettings::from_env(&spec.catalog_name(), &properties)
                        .map_err(|e| ConfigError::Catalog {
                            message: e.to_string(),
                        })?;
                let warehouse = spec.warehouse.as_deref().ok_or_else(|| ConfigError::Catalog {
                    message: "a glue catalog needs 'warehouse': the s3:// prefix its tables' files go to"
                        .into(),
                })?;
                let connector = ldp_catalog_glue::GlueConnector::new(settings);
                resolve_remote(
                    spec,
                    context,
                    RemoteAddress::new(connector),
                    Some(warehouse),
                )
            }
        }
    }

    /// Opens the catalog (see [`Catalog::connect`]).
    ///
    /// # Errors
    ///
    /// The catalog cannot be opened, or does not exist and `mode` does not create it.
    pub fn open(&self, mode: Mode) -> Result<Catalog> {
        Ok(Catalog::connect(&self.address, &self.catalog_name, mode)?)
    }

    /// A table's location: `<warehouse>/<namespace folder>/<table>`. A REST catalog picks its
    /// tables' locations itself: the first metadata file is prepared under the local warehouse
    /// and deleted once the catalog has created the table.
    pub fn table_location(&self, table: &str) -> PathBuf {
        let folder = &self.namespace_folder;
        match &self.object_warehouse {
            Some(warehouse) => PathBuf::from(format!("{warehouse}/{folder}/{table}")),
            None => self.warehouse.join(folder).join(table),
        }
    }
}

/// A catalog behind a network API. `warehouse` is where new tables go (Glue, under
/// `<namespace>.db`, as pyiceberg's `GlueCatalog` puts them); a REST catalog
/// places them itself, and its local warehouse (`warehouse_path`, else `warehouse` beside the
/// config) holds only what ldp keeps beside the tables (dataset versions) and, for a moment, the
/// first metadata of a table it creates.
fn resolve_remote(
    spec: &CatalogSpec,
    context: &PathContext,
    address: RemoteAddress,
    warehouse: Option<&str>,
) -> Result<ResolvedCatalog> {
    let namespace = spec.table_namespace().ok_or_else(|| ConfigError::Catalog {
        message: format!(
            "{} catalog spec needs 'namespace' or 'identifier'",
            spec.effective_type().as_str()
        ),
    })?;
    let (warehouse, object_warehouse, namespace_folder) = match warehouse {
        Some(uri) => {
            let uri = uri.trim_end_matches('/').to_string();
            (PathBuf::from(&uri), Some(uri), format!("{namespace}.db"))
        }
        None => {
            let folder = spec.warehouse_path.as_deref().unwrap_or("warehouse");
            (context.resolve(folder).path, None, namespace.to_string())
        }
    };
    Ok(ResolvedCatalog {
        address: CatalogAddress::Remote(address),
        catalog_name: spec.catalog_name(),
        namespace: namespace.to_string(),
        namespace_folder,
        warehouse,
        local: false,
        object_warehouse,
    })
}

fn resolve_sql(spec: &CatalogSpec, context: &PathContext) -> Result<ResolvedCatalog> {
    let uri = spec.uri.as_deref().unwrap_or_default();
    let address = if PostgresAddress::is_postgres_uri(uri) {
        let password = password_from_env(spec)?;
        CatalogAddress::Postgres(PostgresAddress::parse(uri, password.as_deref())?)
    } else if let Some(file) = sqlite_file(uri, context) {
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
    let object_warehouse = ldp_config::paths::object_warehouse_uri(spec);
    let warehouse = match (&object_warehouse, spec.warehouse.as_deref(), address.file()) {
        (Some(uri), _, _) => PathBuf::from(uri),
        (None, Some(w), _) => context.resolve(w.strip_prefix("file://").unwrap_or(w)).path,
        (None, None, Some(file)) => file
            .parent()
            .map_or_else(|| context.base(), Path::to_path_buf),
        (None, None, None) => {
            return Err(ConfigError::Catalog {
                message: format!(
                    "the sql catalog at {address} needs 'warehouse': the folder (or s3://bucket/prefix) its tables' files go to"
                ),
            }
            .into());
        }
    };
    Ok(ResolvedCatalog {
        address,
        catalog_name: spec.catalog_name(),
        namespace: namespace.to_string(),
        namespace_folder: namespace.to_string(),
        warehouse,
        local: false,
        object_warehouse,
    })
}

/// The client settings of a `rest` catalog block: `uri`, `warehouse` (passed verbatim), `name`
/// (else `rest`), the token from the variable `token_env` names, OAuth2 client credentials
/// (`client_id:client_secret`) from the one `credential_env` names, and `properties` with
/// `properties_env` (property → variable) read over them.
///
/// # Errors
///
/// [`Error::Config`] for a secret written in the block or a named variable that is not set.
pub fn rest_settings(spec: &CatalogSpec) -> Result<ldp_catalog_rest::RestSettings> {
    ldp_config::secrets::check_catalog_secrets(&spec.raw)
        .map_err(|message| ConfigError::Catalog { message })?;
    let mut settings = ldp_catalog_rest::RestSettings::new(
        spec.uri.clone().unwrap_or_default(),
        spec.catalog_name(),
    );
    settings.warehouse = spec.warehouse.clone();
    settings.token = env_value("token_env", spec.token_env.as_deref())?;
    settings.credential = env_value("credential_env", spec.credential_env.as_deref())?
        .map(|value| ldp_catalog_rest::parse_credential(&value));
    settings.properties = client_properties(spec)?;
    Ok(settings)
}

/// A remote catalog's client properties: `properties`, with `properties_env` (property →
/// variable) read over them.
fn client_properties(spec: &CatalogSpec) -> Result<std::collections::BTreeMap<String, String>> {
    let mut properties = std::collections::BTreeMap::new();
    for (key, value) in &spec.properties {
        let value = match value {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        properties.insert(key.clone(), value);
    }
    for (key, variable) in &spec.properties_env {
        if let Some(value) = env_value(&format!("properties_env.{key}"), Some(variable))? {
            properties.insert(key.clone(), value);
        }
    }
    Ok(properties)
}

/// The value of the variable the catalog key `key` names (none without the key).
fn env_value(key: &str, variable: Option<&str>) -> Result<Option<String>> {
    let Some(variable) = variable.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(value) if !value.is_empty() => Ok(Some(value)),
        _ => Err(ConfigError::Catalog {
            message: format!(
                "catalog spec key '{key}' names environment variable '{variable}', which is not set"
            ),
        }
        .into()),
    }
}

/// The password of a `sql` catalog on PostgreSQL: the value of the variable its `password_env`
/// names (none without the key; a named variable that is not set is an error).
fn password_from_env(spec: &CatalogSpec) -> Result<Option<String>> {
    env_value("password_env", spec.password_env.as_deref())
}
