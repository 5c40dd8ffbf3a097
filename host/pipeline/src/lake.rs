//! A lake of configs: the Iceberg tables that dataset configs name (each config's Iceberg
//! target and source), for `ldp query DIR|CONFIG…` and the MCP server. A folder is read one level
//! deep (`*.json`, sorted); a file in it that is not a usable config is skipped with a warning,
//! a file named directly is an error. Each table is listed once (by catalog file and name).
//! A catalog spec file gives every table of its catalog ([`catalog_tables`]), for
//! `ldp mcp --catalog`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::target::{TargetTable, open_config};

/// The Iceberg tables the configs (files, or folders of `*.json` configs) name, once each, in
/// the order found.
///
/// # Errors
///
/// A folder cannot be listed, or a config named directly cannot be read or has a target that
/// cannot be resolved.
pub fn lake_tables(paths: &[PathBuf]) -> Result<Vec<TargetTable>> {
    let mut tables: Vec<TargetTable> = Vec::new();
    let mut add = |t: TargetTable| {
        if !tables
            .iter()
            .any(|o| o.catalog == t.catalog && o.identifier() == t.identifier())
        {
            tables.push(t);
        }
    };
    for path in paths {
        if path.is_dir() {
            for file in folder_configs(path)? {
                match config_tables(&file) {
                    Ok(found) => found.into_iter().for_each(&mut add),
                    Err(e) => tracing::warn!("skipping {}: {e:#}", file.display()),
                }
            }
        } else {
            config_tables(path)?.into_iter().for_each(&mut add);
        }
    }
    Ok(tables)
}

/// The config files of a lake folder: its `*.json` files, one level deep, sorted.
///
/// # Errors
///
/// The folder cannot be listed.
pub fn folder_configs(folder: &Path) -> Result<Vec<PathBuf>> {
    let listing = std::fs::read_dir(folder).map_err(|e| Error::Unsupported {
        message: format!("cannot list {}: {e}", folder.display()),
    })?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// The Iceberg target (and source) of one config.
///
/// # Errors
///
/// The config cannot be read, or a table of it cannot be resolved.
pub fn config_tables(file: &Path) -> Result<Vec<TargetTable>> {
    let config = open_config(file)?;
    let mut found = Vec::new();
    for block in [config.target(), config.source()] {
        if block.is_iceberg() {
            found.push(TargetTable::resolve(&config, block)?);
        }
    }
    Ok(found)
}

/// The catalog block a catalog spec file holds: the file itself (`{"identifier": "nyc",
/// "warehouse_path": "warehouse"}`, `{"type": "rest", ...}`), or a dataset config's target
/// catalog, else its source's. Relative paths resolve against the file's folder.
///
/// # Errors
///
/// The file cannot be read, is not JSON, is not a catalog block, or is a config without one.
pub fn read_catalog_spec(path: &Path) -> Result<ldp_config::CatalogSpec> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Unsupported {
        message: format!("cannot read the catalog spec {}: {e}", path.display()),
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ldp_config::ConfigError::Invalid {
            file: Some(path.to_path_buf()),
            message: format!(
                "not valid JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ),
        })?;
    if value.get("metadata").is_none() {
        return Ok(ldp_config::CatalogSpec::read(&value, Some(path))?);
    }
    let config = open_config(path)?;
    [config.target(), config.source()]
        .into_iter()
        .find_map(|block| block.catalog.clone())
        .ok_or_else(|| {
            ldp_config::ConfigError::Catalog {
                message: format!(
                    "{} has no catalog block in its target or its source",
                    path.display()
                ),
            }
            .into()
        })
}

/// Every table of every namespace of the catalog a spec file describes
/// ([`read_catalog_spec`]), opened read-only, in namespace and name order.
///
/// # Errors
///
/// The spec cannot be read, or the catalog cannot be opened or listed.
pub fn catalog_tables(spec_file: &Path) -> Result<Vec<TargetTable>> {
    let spec = read_catalog_spec(spec_file)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let context = ldp_config::paths::PathContext::new(spec_file.parent(), &cwd);
    let catalog = crate::ResolvedCatalog::resolve(&spec, &context)?;
    let opened = catalog.open(ldp_catalog::Mode::ReadOnly)?;
    let mut namespaces = opened.list_namespaces(None)?;
    namespaces.sort();
    let mut tables = Vec::new();
    for namespace in namespaces {
        let mut names = opened.list_tables(&namespace)?;
        names.sort();
        for name in names {
            let location = catalog.warehouse.join(&namespace).join(&name);
            tables.push(TargetTable {
                catalog: catalog.address.clone(),
                catalog_name: catalog.catalog_name.clone(),
                warehouse: catalog.warehouse.clone(),
                object_location: catalog
                    .object_warehouse
                    .as_ref()
                    .map(|w| format!("{w}/{namespace}/{name}")),
                namespace: namespace.clone(),
                name,
                location,
                local: catalog.local,
            });
        }
    }
    Ok(tables)
}
