//! Namespaces, with pyiceberg's conventions.
//!
//! A namespace exists when a property row or a table row has it, or has a namespace below it
//! (`a` exists when `a.b` does). Creating a namespace without properties writes the one row
//! `exists` = `true` (pyiceberg's minimal properties); with properties, just those rows.

use std::collections::{BTreeMap, BTreeSet};

use crate::backend::Session;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::ident::{check_namespace, levels};
use crate::schema::SchemaVersion;
use crate::sql;

/// The property pyiceberg writes for a namespace created without properties.
pub const EXISTS_PROPERTY: (&str, &str) = ("exists", "true");

/// What [`Catalog::update_namespace_properties`] did, key by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropertiesUpdate {
    /// Keys set (added or changed), in the order given.
    pub updated: Vec<String>,
    /// Keys removed.
    pub removed: Vec<String>,
    /// Keys asked to be removed that the namespace did not have.
    pub missing: Vec<String>,
}

impl Catalog {
    /// Whether `namespace` exists (or a namespace below it does), like pyiceberg's
    /// `namespace_exists`.
    pub fn namespace_exists(&self, namespace: &str) -> Result<bool> {
        check_namespace(&self.file, namespace)?;
        if let Some(remote) = self.remote() {
            return remote.namespace_exists(namespace);
        }
        self.read(|s| self.namespace_exists_on(s, namespace))
    }

    pub(crate) fn namespace_exists_on(&self, s: &mut dyn Session, namespace: &str) -> Result<bool> {
        if self.schema == SchemaVersion::Empty {
            return Ok(false);
        }
        let below = format!("{namespace}.");
        s.flag(sql::NAMESPACE_EXISTS, &[&self.name, namespace, &below])
            .map_err(|e| self.db_err(format!("checking namespace {namespace}"), e))
    }

    fn namespace_must_exist(&self, namespace: &str) -> Result<()> {
        if self.namespace_exists(namespace)? {
            Ok(())
        } else {
            Err(Error::NamespaceNotFound {
                file: self.file.clone(),
                namespace: namespace.to_string(),
            })
        }
    }

    /// Creates `namespace` with `properties` (none: pyiceberg's `exists` = `true`). Fails with
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind::AlreadyExists) when it exists.
    pub fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<()> {
        if self.create_namespace_inner(namespace, properties)? {
            Ok(())
        } else {
            Err(Error::NamespaceExists {
                file: self.file.clone(),
                namespace: namespace.to_string(),
            })
        }
    }

    /// Creates `namespace` (with pyiceberg's `exists` = `true`) unless it exists; returns
    /// whether it created it. Safe against another process doing the same.
    pub fn create_namespace_if_missing(&self, namespace: &str) -> Result<bool> {
        self.create_namespace_inner(namespace, &BTreeMap::new())
    }

    fn create_namespace_inner(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<bool> {
        check_namespace(&self.file, namespace)?;
        self.writable(|| format!("create namespace {namespace}"))?;
        if let Some(remote) = self.remote() {
            if remote.namespace_exists(namespace)? {
                return Ok(false);
            }
            return match remote.create_namespace(namespace, properties) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == crate::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(e),
            };
        }
        let context = format!("creating namespace {namespace}");
        self.write(&context, |s| {
            if self.namespace_exists_on(s, namespace)? {
                return Ok(false);
            }
            let minimal = [(EXISTS_PROPERTY.0, EXISTS_PROPERTY.1)];
            let rows: Vec<(&str, &str)> = if properties.is_empty() {
                minimal.to_vec()
            } else {
                properties
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect()
            };
            for (key, value) in rows {
                s.execute(sql::INSERT_PROPERTY, &[&self.name, namespace, key, value])
                    .map_err(|e| self.db_err(&context, e))?;
            }
            Ok(true)
        })
    }

    /// The namespaces one level below `parent` (`None`: the top-level ones), as dotted names,
    /// sorted. Like pyiceberg, namespaces are found in both catalog tables.
    pub fn list_namespaces(&self, parent: Option<&str>) -> Result<Vec<String>> {
        if let Some(parent) = parent {
            self.namespace_must_exist(parent)?;
        }
        if let Some(remote) = self.remote() {
            // Remote catalogs here are one level deep (Glue; ldp's REST namespaces).
            return match parent {
                None => remote.list_namespaces(),
                Some(_) => Ok(Vec::new()),
            };
        }
        if self.schema == SchemaVersion::Empty {
            return Ok(Vec::new());
        }
        let all = self.read(|s| {
            s.rows(sql::ALL_NAMESPACES, &[&self.name])
                .map_err(|e| self.db_err("listing namespaces", e))
        })?;
        let prefix: Vec<&str> = parent.map(levels).unwrap_or_default();
        let depth = prefix.len() + 1;
        let found: BTreeSet<String> = all
            .iter()
            .filter_map(|row| row.first()?.as_deref())
            .map(levels)
            .filter(|l| l.len() >= depth && l[..prefix.len()] == prefix[..])
            .map(|l| l[..depth].join("."))
            .collect();
        Ok(found.into_iter().collect())
    }

    /// The properties of `namespace` (pyiceberg's `load_namespace_properties`). NULL values,
    /// which only a `JdbcCatalog`-made file could hold, are skipped.
    pub fn namespace_properties(&self, namespace: &str) -> Result<BTreeMap<String, String>> {
        if let Some(remote) = self.remote() {
            return remote.namespace_properties(namespace);
        }
        self.namespace_must_exist(namespace)?;
        let rows = self.read(|s| {
            s.rows(sql::NAMESPACE_PROPERTIES, &[&self.name, namespace])
                .map_err(|e| {
                    self.db_err(
                        format!("reading the properties of namespace {namespace}"),
                        e,
                    )
                })
        })?;
        Ok(rows
            .into_iter()
            .filter_map(|row| match <[Option<String>; 2]>::try_from(row) {
                Ok([Some(key), Some(value)]) => Some((key, value)),
                _ => None,
            })
            .collect())
    }

    /// Removes the properties `removals` of `namespace` and sets `updates`, in one transaction
    /// (pyiceberg's `update_namespace_properties`). A namespace left without any property row
    /// gets pyiceberg's `exists` = `true` again, so it keeps existing. A key both removed and
    /// set is set.
    ///
    /// Fails with [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when the namespace does
    /// not exist.
    pub fn update_namespace_properties(
        &self,
        namespace: &str,
        removals: &[String],
        updates: &BTreeMap<String, String>,
    ) -> Result<PropertiesUpdate> {
        check_namespace(&self.file, namespace)?;
        self.writable(|| format!("update the properties of namespace {namespace}"))?;
        let context = format!("updating the properties of namespace {namespace}");
        self.write(&context, |s| {
            if !self.namespace_exists_on(s, namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                });
            }
            let rows = s
                .rows(sql::NAMESPACE_PROPERTIES, &[&self.name, namespace])
                .map_err(|e| self.db_err(&context, e))?;
            let mut keys: BTreeSet<String> = rows
                .into_iter()
                .filter_map(|row| row.into_iter().next().flatten())
                .collect();
            let mut done = PropertiesUpdate::default();
            for key in removals {
                if keys.remove(key) {
                    s.execute(sql::DELETE_PROPERTY, &[&self.name, namespace, key])
                        .map_err(|e| self.db_err(&context, e))?;
                    done.removed.push(key.clone());
                } else {
                    done.missing.push(key.clone());
                }
            }
            for (key, value) in updates {
                let statement = if keys.contains(key) {
                    s.execute(sql::UPDATE_PROPERTY, &[value, &self.name, namespace, key])
                } else {
                    s.execute(sql::INSERT_PROPERTY, &[&self.name, namespace, key, value])
                };
                statement.map_err(|e| self.db_err(&context, e))?;
                keys.insert(key.clone());
                done.updated.push(key.clone());
            }
            if keys.is_empty() {
                let (key, value) = EXISTS_PROPERTY;
                s.execute(sql::INSERT_PROPERTY, &[&self.name, namespace, key, value])
                    .map_err(|e| self.db_err(&context, e))?;
            }
            Ok(done)
        })
    }

    /// The names of the tables directly in `namespace`, sorted (views are skipped).
    pub fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        if let Some(remote) = self.remote() {
            return remote.list_tables(namespace);
        }
        self.namespace_must_exist(namespace)?;
        self.read(|s| self.list_tables_on(s, namespace))
    }

    /// Sorted here rather than by `ORDER BY`: PostgreSQL's order follows the database's
    /// collation, SQLite's and Rust's follow the bytes.
    fn list_tables_on(&self, s: &mut dyn Session, namespace: &str) -> Result<Vec<String>> {
        let rows = s
            .rows(
                &sql::with_filter(sql::LIST_TABLES, self.schema),
                &[&self.name, namespace],
            )
            .map_err(|e| self.db_err(format!("listing the tables of namespace {namespace}"), e))?;
        let mut names: Vec<String> = rows
            .into_iter()
            .filter_map(|row| row.into_iter().next().flatten())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Drops an empty namespace (its property rows). Fails when it does not exist or holds
    /// tables.
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        check_namespace(&self.file, namespace)?;
        self.writable(|| format!("drop namespace {namespace}"))?;
        if let Some(remote) = self.remote() {
            return remote.drop_namespace(namespace);
        }
        let context = format!("dropping namespace {namespace}");
        self.write(&context, |s| {
            if !self.namespace_exists_on(s, namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                });
            }
            let tables = self.list_tables_on(s, namespace)?.len();
            if tables > 0 {
                return Err(Error::NamespaceNotEmpty {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                    tables,
                });
            }
            s.execute(sql::DROP_NAMESPACE, &[&self.name, namespace])
                .map_err(|e| self.db_err(&context, e))?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;

    #[test]
    fn properties_are_updated_and_removed_and_the_namespace_stays() {
        let dir = tempfile::tempdir().expect("temp dir");
        let catalog = Catalog::open(dir.path().join("c.db"), "c", Mode::Create).expect("open");
        catalog.create_namespace_if_missing("nyc").expect("create");
        let updates = BTreeMap::from([("owner".to_string(), "ann".to_string())]);
        let done = catalog
            .update_namespace_properties("nyc", &["nope".to_string()], &updates)
            .expect("update");
        assert_eq!(done.updated, ["owner"]);
        assert_eq!(done.missing, ["nope"]);
        let updates = BTreeMap::from([("owner".to_string(), "bob".to_string())]);
        catalog
            .update_namespace_properties("nyc", &["exists".to_string()], &updates)
            .expect("update");
        assert_eq!(
            catalog.namespace_properties("nyc").expect("read"),
            BTreeMap::from([("owner".to_string(), "bob".to_string())])
        );
        let done = catalog
            .update_namespace_properties("nyc", &["owner".to_string()], &BTreeMap::new())
            .expect("remove all");
        assert_eq!(done.removed, ["owner"]);
        assert!(catalog.namespace_exists("nyc").expect("exists"));
        let missing = catalog
            .update_namespace_properties("other", &[], &BTreeMap::new())
            .unwrap_err();
        assert_eq!(missing.kind(), crate::ErrorKind::NotFound);
    }
}
