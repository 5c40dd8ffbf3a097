//! What the server serves and how: [`ServeSettings`], checked by [`ServeSettings::validate`]
//! before anything is opened or bound.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use ldp_catalog::CatalogAddress;

use crate::error::{Error, Result};

/// The settings of a catalog server.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The address to bind, exactly (port 0: any free port; [`RunningServer::address`]
    /// tells which). It must be a loopback address unless `allow_remote` is set.
    ///
    /// [`RunningServer::address`]: crate::RunningServer::address
    pub listen: SocketAddr,
    /// The catalogs served, each under its own REST prefix (at least one).
    pub catalogs: Vec<ServedCatalog>,
    /// When set, every request must carry `Authorization: Bearer <token>` (401 otherwise).
    pub token: Option<String>,
    /// When set, every write (create, commit, drop, rename, property update) is refused with
    /// 403 and the catalogs are opened read-only.
    pub read_only: bool,
    /// Allows a `listen` address other than loopback (127.0.0.0/8, ::1). Off by default: the
    /// server speaks plain HTTP, and anyone who reaches it can change the tables it serves
    /// unless a token is set.
    pub allow_remote: bool,
}

/// One catalog served.
#[derive(Debug, Clone)]
pub struct ServedCatalog {
    /// The REST prefix (`/v1/<name>/…`, what clients name as `warehouse`) and the catalog name
    /// (the `catalog_name` column). Letters, digits, `_`, `-` and `.` only.
    pub name: String,
    /// Where the catalog lives: a SQLite file or a PostgreSQL database.
    pub address: CatalogAddress,
    /// Where new tables go when their creator names no location,
    /// `<warehouse>/<namespace>/<table>`: an absolute local path, a `file://` or an `s3://` URI.
    pub warehouse: String,
}

impl ServeSettings {
    /// Settings serving `catalogs` on `listen`, writable, without token, loopback only.
    pub fn new(listen: SocketAddr, catalogs: Vec<ServedCatalog>) -> ServeSettings {
        ServeSettings {
            listen,
            catalogs,
            token: None,
            read_only: false,
            allow_remote: false,
        }
    }

    /// Checks the settings: at least one catalog, names usable as URL prefixes and distinct,
    /// warehouses absolute, a token without spaces, and a loopback `listen` address unless
    /// `allow_remote`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSettings`], saying what to change.
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| Err(Error::InvalidSettings { message });
        if self.catalogs.is_empty() {
            return invalid("no catalog to serve".into());
        }
        let mut names = BTreeSet::new();
        for catalog in &self.catalogs {
            check_name(&catalog.name)?;
            if !names.insert(catalog.name.as_str()) {
                return invalid(format!("catalog {:?} is served twice", catalog.name));
            }
            check_warehouse(catalog)?;
        }
        if let Some(token) = &self.token
            && (token.is_empty() || token.chars().any(char::is_whitespace))
        {
            return invalid("the token must be non-empty and hold no whitespace".into());
        }
        if !self.listen.ip().is_loopback() && !self.allow_remote {
            return invalid(format!(
                "{} is not a loopback address; the server speaks plain HTTP, so listening \
                 beyond this machine must be asked for explicitly (allow_remote), ideally with \
                 a token",
                self.listen
            ));
        }
        Ok(())
    }
}

/// A catalog name is a URL path segment as it stands: `[A-Za-z0-9_.-]+`, not `v1`, and not a
/// word the routes use after the prefix.
fn check_name(name: &str) -> Result<()> {
    let usable = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && !matches!(
            name,
            "." | ".." | "v1" | "config" | "namespaces" | "tables" | "transactions" | "oauth"
        );
    if usable {
        Ok(())
    } else {
        Err(Error::InvalidSettings {
            message: format!(
                "catalog name {name:?} cannot be a REST prefix: use letters, digits, '_', '-' \
                 and '.', and none of v1, config, namespaces, tables, transactions, oauth"
            ),
        })
    }
}

fn check_warehouse(catalog: &ServedCatalog) -> Result<()> {
    ldp_table::location::location_uri(&catalog.name, &catalog.warehouse)
        .map(|_| ())
        .map_err(|e| Error::InvalidSettings {
            message: format!("the warehouse of catalog {:?}: {e}", catalog.name),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(listen: &str, names: &[&str]) -> ServeSettings {
        ServeSettings::new(
            listen.parse().unwrap(),
            names
                .iter()
                .map(|name| ServedCatalog {
                    name: name.to_string(),
                    address: CatalogAddress::Sqlite("/w/c.db".into()),
                    warehouse: "/w".into(),
                })
                .collect(),
        )
    }

    #[test]
    fn loopback_unless_allowed() {
        assert!(settings("127.0.0.1:0", &["lake"]).validate().is_ok());
        assert!(settings("[::1]:8181", &["lake"]).validate().is_ok());
        let mut remote = settings("0.0.0.0:8181", &["lake"]);
        let e = remote.validate().unwrap_err();
        assert!(e.to_string().contains("allow_remote"), "{e}");
        remote.allow_remote = true;
        assert!(remote.validate().is_ok());
    }

    #[test]
    fn names_and_warehouses() {
        assert!(settings("127.0.0.1:0", &[]).validate().is_err());
        assert!(settings("127.0.0.1:0", &["a", "a"]).validate().is_err());
        for bad in ["", "a/b", "a b", "namespaces", "v1", "é"] {
            assert!(
                settings("127.0.0.1:0", &[bad]).validate().is_err(),
                "{bad:?}"
            );
        }
        let mut relative = settings("127.0.0.1:0", &["lake"]);
        relative.catalogs[0].warehouse = "warehouse".into();
        assert!(relative.validate().is_err());
        let mut token = settings("127.0.0.1:0", &["lake"]);
        token.token = Some("a b".into());
        assert!(token.validate().is_err());
    }
}
