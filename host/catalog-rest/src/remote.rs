//! The REST client behind ldp's catalog interface ([`ldp_catalog::RemoteCatalog`]), so a `rest`
//! catalog block runs every command a SQL catalog runs. The catalog creates tables from the
//! schema, partition spec and properties of ldp's first metadata (and picks their location),
//! and applies each write's updates and requirements itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use iceberg::spec::TableMetadata;
use iceberg::{TableRequirement, TableUpdate};
use ldp_catalog::{NewTable, RemoteCatalog, RemoteConnector, TableChange, TableRecord};
use serde::Deserialize;

use crate::error::{Error, ErrorKind};
use crate::model::CreateTable;
use crate::{RestCatalog, RestSettings};

/// Reaches a REST catalog with `settings` when a catalog is opened on it.
#[derive(Clone)]
pub struct RestConnector {
    settings: RestSettings,
}

impl RestConnector {
    /// A connector for the catalog `settings` name.
    pub fn new(settings: RestSettings) -> Self {
        RestConnector { settings }
    }
}

impl std::fmt::Debug for RestConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl RemoteConnector for RestConnector {
    fn describe(&self) -> String {
        let warehouse = match &self.settings.warehouse {
            Some(warehouse) => format!(" (warehouse {warehouse})"),
            None => String::new(),
        };
        format!(
            "REST catalog '{}' at {}{warehouse}",
            self.settings.name,
            crate::http::display_uri(&self.settings.uri)
        )
    }

    fn connect(&self) -> ldp_catalog::Result<Box<dyn RemoteCatalog>> {
        let catalog =
            RestCatalog::connect(self.settings.clone()).map_err(|e| self.error(e, None))?;
        Ok(Box::new(Connected {
            catalog,
            name: self.describe(),
        }))
    }
}

impl RestConnector {
    fn error(&self, error: Error, what: Option<What<'_>>) -> ldp_catalog::Error {
        to_catalog_error(&self.describe(), error, what)
    }
}

/// A connected REST catalog.
struct Connected {
    catalog: RestCatalog,
    name: String,
}

impl std::fmt::Debug for Connected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// What an operation was about, to name a missing or existing one.
#[derive(Clone, Copy)]
enum What<'a> {
    Namespace(&'a str),
    Table(&'a str, &'a str),
}

/// The body of a commit as the table layer gives it.
#[derive(Deserialize)]
struct Commit {
    requirements: Vec<TableRequirement>,
    updates: Vec<TableUpdate>,
}

impl Connected {
    fn err(&self, error: Error, what: What<'_>) -> ldp_catalog::Error {
        to_catalog_error(&self.name, error, Some(what))
    }

    fn invalid(&self, what: &str, reason: impl std::fmt::Display) -> ldp_catalog::Error {
        ldp_catalog::Error::Remote {
            file: PathBuf::from(&self.name),
            kind: ldp_catalog::ErrorKind::Remote,
            message: format!("{}: cannot {what}: {reason}", self.name),
        }
    }
}

impl RemoteCatalog for Connected {
    fn list_namespaces(&self) -> ldp_catalog::Result<Vec<String>> {
        self.catalog
            .list_namespaces()
            .map_err(|e| to_catalog_error(&self.name, e, None))
    }

    fn namespace_exists(&self, namespace: &str) -> ldp_catalog::Result<bool> {
        self.catalog
            .namespace_exists(namespace)
            .map_err(|e| self.err(e, What::Namespace(namespace)))
    }

    fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> ldp_catalog::Result<()> {
        self.catalog
            .create_namespace(namespace, properties)
            .map_err(|e| self.err(e, What::Namespace(namespace)))
    }

    fn namespace_properties(
        &self,
        namespace: &str,
    ) -> ldp_catalog::Result<BTreeMap<String, String>> {
        // ldp reads no namespace property of a REST catalog: the namespace only has to exist.
        if self.namespace_exists(namespace)? {
            Ok(BTreeMap::new())
        } else {
            Err(ldp_catalog::Error::NamespaceNotFound {
                file: PathBuf::from(&self.name),
                namespace: namespace.to_string(),
            })
        }
    }

    fn drop_namespace(&self, namespace: &str) -> ldp_catalog::Result<()> {
        Err(self.invalid(
            &format!("drop namespace {namespace}"),
            "ldp does not drop the namespaces of a REST catalog; drop it with the catalog's own tools",
        ))
    }

    fn list_tables(&self, namespace: &str) -> ldp_catalog::Result<Vec<String>> {
        let mut names = self
            .catalog
            .list_tables(namespace)
            .map_err(|e| self.err(e, What::Namespace(namespace)))?;
        names.sort();
        Ok(names)
    }

    fn load_table(&self, namespace: &str, name: &str) -> ldp_catalog::Result<Option<TableRecord>> {
        match self.catalog.load_table(namespace, name) {
            Ok(loaded) => Ok(Some(TableRecord {
                metadata_location: loaded.metadata_location,
                previous_metadata_location: None,
            })),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.err(e, What::Table(namespace, name))),
        }
    }

    fn create_table(
        &self,
        namespace: &str,
        name: &str,
        new: NewTable<'_>,
    ) -> ldp_catalog::Result<String> {
        let what = format!("create table {namespace}.{name}");
        let metadata: TableMetadata =
            serde_json::from_str(new.metadata).map_err(|e| self.invalid(&what, e))?;
        let spec = metadata.default_partition_spec();
        let create = CreateTable {
            schema: metadata.current_schema().as_ref().clone(),
            partition_spec: (!spec.is_unpartitioned())
                .then(|| spec.as_ref().clone().into_unbound()),
            location: None,
            properties: metadata.properties().clone().into_iter().collect(),
        };
        let loaded = self
            .catalog
            .create_table(namespace, name, &create)
            .map_err(|e| self.err(e, What::Table(namespace, name)))?;
        Ok(loaded.metadata_location)
    }

    fn commit(
        &self,
        namespace: &str,
        name: &str,
        change: TableChange<'_>,
    ) -> ldp_catalog::Result<String> {
        let what = format!("commit to table {namespace}.{name}");
        let commit: Commit =
            serde_json::from_str(change.commit).map_err(|e| self.invalid(&what, e))?;
        let loaded = self
            .catalog
            .commit_table(namespace, name, &commit.requirements, &commit.updates)
            .map_err(|e| match e.kind() {
                // The REST spec has no requirement on the last sequence number: a snapshot
                // built before another writer's commit to another branch (a staged window
                // racing another) is refused with 400 when applied. It is the same lost race
                // as a failed requirement: rebuilt on the new head, it commits.
                ErrorKind::Conflict => ldp_catalog::Error::CommitConflict {
                    file: PathBuf::from(&self.name),
                    table: format!("{namespace}.{name}"),
                    expected: change.expected.to_string(),
                    actual: e.to_string(),
                },
                ErrorKind::Rejected if e.to_string().contains("sequence number") => {
                    ldp_catalog::Error::CommitConflict {
                        file: PathBuf::from(&self.name),
                        table: format!("{namespace}.{name}"),
                        expected: change.expected.to_string(),
                        actual: e.to_string(),
                    }
                }
                _ => self.err(e, What::Table(namespace, name)),
            })?;
        Ok(loaded.metadata_location)
    }

    fn drop_table(&self, namespace: &str, name: &str) -> ldp_catalog::Result<TableRecord> {
        let record =
            self.load_table(namespace, name)?
                .ok_or_else(|| ldp_catalog::Error::TableNotFound {
                    file: PathBuf::from(&self.name),
                    table: format!("{namespace}.{name}"),
                })?;
        self.catalog
            .drop_table(namespace, name)
            .map_err(|e| self.err(e, What::Table(namespace, name)))?;
        Ok(record)
    }

    fn rename_table(&self, from: (&str, &str), to: (&str, &str)) -> ldp_catalog::Result<()> {
        self.catalog
            .rename_table(from.0, from.1, to.0, to.1)
            .map_err(|e| self.err(e, What::Table(to.0, to.1)))
    }
}

/// The client's error as the catalog interface's: missing and existing namespaces and tables
/// as the SQL catalogs name them, the rest with the client's message and a kind.
fn to_catalog_error(name: &str, error: Error, what: Option<What<'_>>) -> ldp_catalog::Error {
    let file = PathBuf::from(name);
    match (error.kind(), what) {
        (ErrorKind::NotFound, Some(What::Table(ns, t))) => ldp_catalog::Error::TableNotFound {
            file,
            table: format!("{ns}.{t}"),
        },
        (ErrorKind::NotFound, Some(What::Namespace(ns))) => ldp_catalog::Error::NamespaceNotFound {
            file,
            namespace: ns.to_string(),
        },
        (ErrorKind::AlreadyExists, Some(What::Table(ns, t))) => ldp_catalog::Error::TableExists {
            file,
            table: format!("{ns}.{t}"),
        },
        (ErrorKind::AlreadyExists, Some(What::Namespace(ns))) => {
            ldp_catalog::Error::NamespaceExists {
                file,
                namespace: ns.to_string(),
            }
        }
        (kind, _) => ldp_catalog::Error::Remote {
            file,
            kind: match kind {
                ErrorKind::Unreachable | ErrorKind::ServerError => {
                    ldp_catalog::ErrorKind::Unavailable
                }
                ErrorKind::CommitStateUnknown => ldp_catalog::ErrorKind::CommitStateUnknown,
                ErrorKind::Unauthorized | ErrorKind::Forbidden => {
                    ldp_catalog::ErrorKind::Unauthorized
                }
                ErrorKind::Conflict => ldp_catalog::ErrorKind::CommitConflict,
                _ => ldp_catalog::ErrorKind::Remote,
            },
            message: error.to_string(),
        },
    }
}
