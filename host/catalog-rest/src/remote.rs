//! The REST client behind ldp's catalog interface ([`ldp_catalog::RemoteCatalog`]), so a `rest`
//! catalog block runs every command a SQL catalog runs. The catalog creates tables from the
//! schema, partition spec and properties of ldp's first metadata (and picks their location),
//! and applies each write's updates and requirements itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use iceberg::spec::TableMetadata;
use iceberg::{TableRequirement, TableUpdate};
use ldp_catalog::{
    Failure, NewTable, RemoteCatalog, RemoteConnector, Subject, TableChange, TableRecord,
};
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
        let catalog = RestCatalog::connect(self.settings.clone())
            .map_err(|e| to_catalog_error(&self.describe(), e, Subject::Catalog))?;
        Ok(Box::new(Connected {
            catalog,
            name: self.describe(),
        }))
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

/// The body of a commit as the table layer gives it.
#[derive(Deserialize)]
struct Commit {
    requirements: Vec<TableRequirement>,
    updates: Vec<TableUpdate>,
}

impl Connected {
    fn err(&self, error: Error, subject: Subject<'_>) -> ldp_catalog::Error {
        to_catalog_error(&self.name, error, subject)
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
            .map_err(|e| to_catalog_error(&self.name, e, Subject::Catalog))
    }

    fn namespace_exists(&self, namespace: &str) -> ldp_catalog::Result<bool> {
        self.catalog
            .namespace_exists(namespace)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
    }

    fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> ldp_catalog::Result<()> {
        self.catalog
            .create_namespace(namespace, properties)
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))
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
            .map_err(|e| self.err(e, Subject::Namespace(namespace)))?;
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
            Err(e) => Err(self.err(e, Subject::Table(namespace, name))),
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
            .map_err(|e| self.err(e, Subject::Table(namespace, name)))?;
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
            .map_err(|e| {
                let subject = Subject::Commit {
                    namespace,
                    table: name,
                    expected: change.expected,
                };
                to_catalog_error(&self.name, e, subject)
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
            .map_err(|e| self.err(e, Subject::Table(namespace, name)))?;
        Ok(record)
    }

    fn rename_table(&self, from: (&str, &str), to: (&str, &str)) -> ldp_catalog::Result<()> {
        self.catalog
            .rename_table(from.0, from.1, to.0, to.1)
            .map_err(|e| self.err(e, Subject::Table(to.0, to.1)))
    }
}

/// The client's error as the catalog interface's ([`ldp_catalog::Error::remote`]).
///
/// The REST spec has no requirement on the last sequence number: a snapshot built before
/// another writer's commit to another branch (a staged window racing another) is refused with
/// 400 when applied. It is the same lost race as a failed requirement (rebuilt on the new head,
/// it commits), so it is a conflict too.
fn to_catalog_error(name: &str, error: Error, subject: Subject<'_>) -> ldp_catalog::Error {
    let message = error.to_string();
    let failure = match error.kind() {
        ErrorKind::NotFound => Failure::NotFound,
        ErrorKind::AlreadyExists => Failure::AlreadyExists,
        ErrorKind::Conflict => Failure::Conflict,
        ErrorKind::Rejected
            if matches!(subject, Subject::Commit { .. }) && message.contains("sequence number") =>
        {
            Failure::Conflict
        }
        ErrorKind::Unreachable | ErrorKind::ServerError => Failure::Unavailable,
        ErrorKind::CommitStateUnknown => Failure::CommitStateUnknown,
        ErrorKind::Unauthorized | ErrorKind::Forbidden => Failure::Unauthorized,
        ErrorKind::InvalidSettings | ErrorKind::Rejected | ErrorKind::BadResponse => Failure::Other,
    };
    ldp_catalog::Error::remote(name, failure, subject, message)
}
