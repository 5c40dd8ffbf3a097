//! The served catalogs and their connections: a small pool per catalog, since a [`Catalog`]
//! is `Send` but not `Sync` and every request runs on one of the runtime's blocking threads.
//!
//! A connection is taken for one catalog call and put back afterwards (up to [`MAX_IDLE`] are
//! kept); one that failed with a database or I/O error is dropped instead, and the next request
//! opens a fresh one. SQLite connections are cheap to open; PostgreSQL ones are worth keeping.

use std::sync::Mutex;

use ldp_catalog::{Catalog, CatalogAddress, Mode};

use crate::error::{Error, Result};
use crate::settings::ServedCatalog;

/// Connections kept open per catalog between requests.
pub(crate) const MAX_IDLE: usize = 16;

/// One served catalog.
#[derive(Debug)]
pub(crate) struct Served {
    /// The REST prefix and catalog name.
    pub(crate) name: String,
    /// The root of new tables' default locations.
    pub(crate) warehouse: String,
    address: CatalogAddress,
    mode: Mode,
    idle: Mutex<Vec<Catalog>>,
}

impl Served {
    /// Opens `catalog` once, to fail at startup rather than on the first request: read-only
    /// catalogs must exist; writable ones are created (file and catalog tables) when missing.
    pub(crate) fn open(catalog: &ServedCatalog, read_only: bool) -> Result<Served> {
        let mode = if read_only {
            Mode::ReadOnly
        } else {
            Mode::Create
        };
        let first = Catalog::connect(&catalog.address, &catalog.name, mode).map_err(|source| {
            Error::OpenCatalog {
                name: catalog.name.clone(),
                source: Box::new(source),
            }
        })?;
        Ok(Served {
            name: catalog.name.clone(),
            warehouse: catalog.warehouse.clone(),
            address: catalog.address.clone(),
            mode,
            idle: Mutex::new(vec![first]),
        })
    }

    /// Runs `f` on a connection of this catalog.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Catalog) -> Result<T>) -> Result<T> {
        let idle = self.idle.lock().map(|mut idle| idle.pop()).unwrap_or(None);
        let catalog = match idle {
            Some(catalog) => catalog,
            None => Catalog::connect(&self.address, &self.name, self.mode)?,
        };
        let result = f(&catalog);
        let spoiled = result.as_ref().is_err_and(Error::spoils_connection);
        if !spoiled
            && let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push(catalog);
        }
        result
    }
}
