//! Namespaces, with pyiceberg's conventions.
//!
//! A namespace exists when a property row or a table row has it, or has a namespace below it
//! (`a` exists when `a.b` does). Creating a namespace without properties writes the one row
//! `exists` = `true` (pyiceberg's minimal properties); with properties, just those rows.

use rusqlite::{Connection, params};
use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::ident::{check_namespace, levels};
use crate::schema::SchemaVersion;

/// The property pyiceberg writes for a namespace created without properties.
pub const EXISTS_PROPERTY: (&str, &str) = ("exists", "true");

impl Catalog {
    /// Whether `namespace` exists (or a namespace below it does), like pyiceberg's
    /// `namespace_exists`.
    pub fn namespace_exists(&self, namespace: &str) -> Result<bool> {
        check_namespace(&self.file, namespace)?;
        self.namespace_exists_on(&self.conn, namespace)
    }

    pub(crate) fn namespace_exists_on(&self, conn: &Connection, namespace: &str) -> Result<bool> {
        if self.schema == SchemaVersion::Empty {
            return Ok(false);
        }
        // pyiceberg matches children with `LIKE 'ns.%'`, which SQLite compares ignoring ASCII
        // case; comparing the prefix keeps namespaces case-sensitive.
        let below = format!("{namespace}.");
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 \
                 AND (table_namespace = ?2 OR substr(table_namespace, 1, length(?3)) = ?3)) \
             OR EXISTS (SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 \
                 AND (namespace = ?2 OR substr(namespace, 1, length(?3)) = ?3))",
            params![self.name, namespace, below],
            |row| row.get(0),
        )
        .map_err(|e| self.sql_err(format!("checking namespace {namespace}"), e))
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
        let context = format!("creating namespace {namespace}");
        self.write(&context, |tx| {
            if self.namespace_exists_on(tx, namespace)? {
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
                tx.execute(
                    "INSERT INTO iceberg_namespace_properties \
                     (catalog_name, namespace, property_key, property_value) VALUES (?1, ?2, ?3, ?4)",
                    params![self.name, namespace, key, value],
                )
                .map_err(|e| self.sql_err(&context, e))?;
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
        if self.schema == SchemaVersion::Empty {
            return Ok(Vec::new());
        }
        let context = "listing namespaces";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 \
                 UNION SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1",
            )
            .map_err(|e| self.sql_err(context, e))?;
        let all = stmt
            .query_map([&self.name], |row| row.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql_err(context, e))?;
        let prefix: Vec<&str> = parent.map(levels).unwrap_or_default();
        let depth = prefix.len() + 1;
        let found: BTreeSet<String> = all
            .iter()
            .map(|ns| levels(ns))
            .filter(|l| l.len() >= depth && l[..prefix.len()] == prefix[..])
            .map(|l| l[..depth].join("."))
            .collect();
        Ok(found.into_iter().collect())
    }

    /// The properties of `namespace` (pyiceberg's `load_namespace_properties`). NULL values,
    /// which only a `JdbcCatalog`-made file could hold, are skipped.
    pub fn namespace_properties(&self, namespace: &str) -> Result<BTreeMap<String, String>> {
        self.namespace_must_exist(namespace)?;
        let context = format!("reading the properties of namespace {namespace}");
        let mut stmt = self
            .conn
            .prepare(
                "SELECT property_key, property_value FROM iceberg_namespace_properties \
                 WHERE catalog_name = ?1 AND namespace = ?2",
            )
            .map_err(|e| self.sql_err(&context, e))?;
        let rows = stmt
            .query_map(params![self.name, namespace], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql_err(&context, e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect())
    }

    /// The names of the tables directly in `namespace`, sorted (views are skipped).
    pub fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        self.namespace_must_exist(namespace)?;
        self.list_tables_on(&self.conn, namespace)
    }

    fn list_tables_on(&self, conn: &Connection, namespace: &str) -> Result<Vec<String>> {
        let context = format!("listing the tables of namespace {namespace}");
        let sql = format!(
            "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 \
             AND {} ORDER BY table_name",
            self.schema.table_filter()
        );
        let mut stmt = conn.prepare(&sql).map_err(|e| self.sql_err(&context, e))?;
        stmt.query_map(params![self.name, namespace], |row| row.get(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql_err(&context, e))
    }

    /// Drops an empty namespace (its property rows). Fails when it does not exist or holds
    /// tables.
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        check_namespace(&self.file, namespace)?;
        self.writable(|| format!("drop namespace {namespace}"))?;
        let context = format!("dropping namespace {namespace}");
        self.write(&context, |tx| {
            if !self.namespace_exists_on(tx, namespace)? {
                return Err(Error::NamespaceNotFound {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                });
            }
            let tables = self.list_tables_on(tx, namespace)?.len();
            if tables > 0 {
                return Err(Error::NamespaceNotEmpty {
                    file: self.file.clone(),
                    namespace: namespace.to_string(),
                    tables,
                });
            }
            tx.execute(
                "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2",
                params![self.name, namespace],
            )
            .map_err(|e| self.sql_err(&context, e))?;
            Ok(())
        })
    }
}
