//! [`RestCatalog`]: the catalog's operations, one HTTP request each (a listing follows its
//! pages).

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use iceberg::spec::TableMetadata;
use iceberg::{TableRequirement, TableUpdate};
use reqwest::Method;
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::http::{Answer, Effect, Http, Op, display_uri, encode_segment};
use crate::model::{
    CommitTableRequest, ConfigResponse, CreateNamespaceRequest, CreateTable, CreateTableRequest,
    ListNamespacesResponse, ListTablesResponse, LoadTableResponse, RenameTableRequest,
    TableIdentifier, config_string,
};
use crate::settings::RestSettings;

/// The most pages a listing follows (a catalog that hands out tokens forever is broken).
const MAX_PAGES: usize = 10_000;
/// How often a commit is sent again, with the same `Idempotency-Key`, when its outcome is
/// unknown, and the pause before each resend.
const COMMIT_RESENDS: [Duration; 2] = [Duration::from_millis(200), Duration::from_millis(1000)];

/// A table as the catalog holds it.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    /// Where the current metadata file is.
    pub metadata_location: String,
    /// The current metadata.
    pub metadata: TableMetadata,
    /// The table's config from the catalog (e.g. storage credentials); may hold secrets, do not
    /// print it.
    pub config: BTreeMap<String, String>,
}

/// A connected REST catalog. Each call is one blocking HTTP request (listings: one per page);
/// the client is `Send + Sync` and may be shared between threads.
pub struct RestCatalog {
    http: Http,
    /// `<uri>/v1/` plus the prefix and its `/`.
    base: String,
    properties: BTreeMap<String, String>,
    endpoints: Option<HashSet<String>>,
    /// Whether the catalog honours `Idempotency-Key` (its config has `idempotency-key-lifetime`).
    idempotent_commits: bool,
}

impl std::fmt::Debug for RestCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestCatalog")
            .field("catalog", &self.http.catalog)
            .finish_non_exhaustive()
    }
}

impl RestCatalog {
    /// Connects: reads `GET /v1/config` (with `?warehouse=` when set), merges the catalog's
    /// `defaults`, the settings' properties and the catalog's `overrides` (later wins), and
    /// takes the merged `prefix` for every later path. With client credentials and no token, a
    /// token is fetched first.
    pub fn connect(settings: RestSettings) -> Result<RestCatalog> {
        let uri = settings.uri.trim_end_matches('/').to_string();
        if !(uri.starts_with("http://") || uri.starts_with("https://")) {
            return Err(Error::InvalidSettings {
                catalog: format!("'{}' at {}", settings.name, display_uri(&uri)),
                problem: "`uri` must start with http:// or https://".to_string(),
            });
        }
        let token_uri = settings
            .properties
            .get("oauth2-server-uri")
            .cloned()
            .unwrap_or_else(|| format!("{uri}/v1/oauth/tokens"));
        let http = Http::new(&settings, token_uri)?;
        let op = Op {
            action: "read its configuration (GET /v1/config)".to_string(),
            effect: Effect::Read,
            namespace: None,
            table: None,
            creates_table: false,
        };
        let query: Vec<(&str, &str)> = settings
            .warehouse
            .iter()
            .map(|warehouse| ("warehouse", warehouse.as_str()))
            .collect();
        let answer = http.send(&op, Method::GET, &format!("{uri}/v1/config"), &query, None)?;
        if answer.status == 404 {
            return Err(Error::BadResponse {
                catalog: http.catalog.clone(),
                action: op.action,
                problem:
                    "404 Not Found: there is no Iceberg REST catalog at this URI (some catalogs \
                          live under a path, e.g. https://host/api/catalog)"
                        .to_string(),
            });
        }
        let config: ConfigResponse = http.json(&op, answer)?;
        let mut properties: BTreeMap<String, String> = config
            .defaults
            .iter()
            .map(|(key, value)| (key.clone(), config_string(value)))
            .collect();
        properties.extend(settings.properties.clone());
        properties.extend(
            config
                .overrides
                .iter()
                .map(|(key, value)| (key.clone(), config_string(value))),
        );
        let prefix = properties
            .get("prefix")
            .map(|prefix| prefix.trim_matches('/'))
            .filter(|prefix| !prefix.is_empty());
        let base = match prefix {
            Some(prefix) => format!("{uri}/v1/{prefix}/"),
            None => format!("{uri}/v1/"),
        };
        Ok(RestCatalog {
            http,
            base,
            properties,
            endpoints: config.endpoints.map(|list| list.into_iter().collect()),
            idempotent_commits: config.idempotency_key_lifetime.is_some(),
        })
    }

    /// The merged properties (`defaults`, the settings' properties, `overrides`); they may hold
    /// secrets, do not print them.
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }

    /// The catalog as messages name it: `'name' at <uri>`.
    pub fn describe(&self) -> &str {
        &self.http.catalog
    }

    /// The top-level namespaces, sorted (a multi-level one's levels are joined by `.`).
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        let op = op("list the namespaces", Effect::Read, None, None);
        let url = self.url(&["namespaces"]);
        let mut names = Vec::new();
        self.pages(&op, &url, |page: ListNamespacesResponse| {
            names.extend(page.namespaces.into_iter().map(|levels| levels.join(".")));
            page.next_page_token
        })?;
        names.sort();
        Ok(names)
    }

    /// Creates the namespace with `properties`; [`ErrorKind::AlreadyExists`](crate::ErrorKind)
    /// when it exists.
    pub fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<()> {
        let op = op(
            &format!("create namespace {namespace}"),
            Effect::Write,
            Some(namespace),
            None,
        );
        let body = serde_json::to_value(CreateNamespaceRequest {
            namespace: [namespace],
            properties,
        })
        .map_err(|error| self.unencodable(&op, &error))?;
        let answer = self.send(&op, Method::POST, &self.url(&["namespaces"]), Some(&body))?;
        self.expect_success(&op, answer)
    }

    /// Whether the namespace exists (`HEAD`, or `GET` where the catalog lists no `HEAD`).
    pub fn namespace_exists(&self, namespace: &str) -> Result<bool> {
        let op = op(
            &format!("look up namespace {namespace}"),
            Effect::Read,
            Some(namespace),
            None,
        );
        let url = self.url(&["namespaces", &encode_segment(namespace)]);
        self.exists(&op, &url, "HEAD /v1/{prefix}/namespaces/{namespace}")
    }

    /// The names of the namespace's tables, sorted; [`ErrorKind::NotFound`](crate::ErrorKind)
    /// when the namespace does not exist.
    pub fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        let op = op(
            &format!("list the tables of namespace {namespace}"),
            Effect::Read,
            Some(namespace),
            None,
        );
        let url = self.url(&["namespaces", &encode_segment(namespace), "tables"]);
        let mut names = Vec::new();
        self.pages(&op, &url, |page: ListTablesResponse| {
            names.extend(page.identifiers.into_iter().map(|id| id.name));
            page.next_page_token
        })?;
        names.sort();
        Ok(names)
    }

    /// Whether the table exists (`HEAD`, or `GET` where the catalog lists no `HEAD`).
    pub fn table_exists(&self, namespace: &str, table: &str) -> Result<bool> {
        let op = table_op("look up", Effect::Read, namespace, table);
        let url = self.table_url(namespace, table);
        self.exists(
            &op,
            &url,
            "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        )
    }

    /// Loads the table's current metadata.
    pub fn load_table(&self, namespace: &str, table: &str) -> Result<LoadedTable> {
        let op = table_op("load", Effect::Read, namespace, table);
        let answer = self.send(&op, Method::GET, &self.table_url(namespace, table), None)?;
        self.loaded(&op, answer)
    }

    /// Creates the table; the catalog writes its first metadata file.
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind) when it exists.
    pub fn create_table(
        &self,
        namespace: &str,
        table: &str,
        create: &CreateTable,
    ) -> Result<LoadedTable> {
        let mut op = table_op("create", Effect::Write, namespace, table);
        op.creates_table = true;
        let body = serde_json::to_value(CreateTableRequest {
            name: table,
            location: create.location.as_deref(),
            schema: &create.schema,
            partition_spec: create.partition_spec.as_ref(),
            stage_create: false,
            properties: &create.properties,
        })
        .map_err(|error| self.unencodable(&op, &error))?;
        let url = self.url(&["namespaces", &encode_segment(namespace), "tables"]);
        let answer = self.send(&op, Method::POST, &url, Some(&body))?;
        self.loaded(&op, answer)
    }

    /// Commits `updates` to the table if every one of `requirements` holds; the catalog writes
    /// the new metadata file and answers with it. A requirement that no longer holds is
    /// [`ErrorKind::Conflict`](crate::ErrorKind) (retryable: reload, re-apply, commit again); a
    /// 5xx or a connection lost after sending is
    /// [`ErrorKind::CommitStateUnknown`](crate::ErrorKind) (not retryable as is).
    ///
    /// When the catalog honours idempotency keys (`idempotency-key-lifetime` in its config), the
    /// commit carries a fresh `Idempotency-Key`, and an unknown outcome (or an unreachable
    /// catalog) is resolved by sending the same request with the same key again, twice at most:
    /// the catalog applies it once and answers a resend with the first outcome.
    pub fn commit_table(
        &self,
        namespace: &str,
        table: &str,
        requirements: &[TableRequirement],
        updates: &[TableUpdate],
    ) -> Result<LoadedTable> {
        let op = table_op("commit to", Effect::Commit, namespace, table);
        let body = serde_json::to_value(CommitTableRequest {
            identifier: TableIdentifier::new(namespace, table),
            requirements,
            updates,
        })
        .map_err(|error| self.unencodable(&op, &error))?;
        let url = self.table_url(namespace, table);
        let key = self
            .idempotent_commits
            .then(|| uuid::Uuid::now_v7().to_string());
        let mut resends = COMMIT_RESENDS.iter();
        // Once an attempt may have been applied, a later "unreachable" must not read as "never
        // sent": the caller would apply the change a second time.
        let mut unknown: Option<Error> = None;
        let mut loaded = loop {
            let outcome = self
                .http
                .send_keyed(&op, Method::POST, &url, &[], Some(&body), key.as_deref())
                .and_then(|answer| self.loaded(&op, answer));
            let error = match outcome {
                Err(error)
                    if key.is_some()
                        && matches!(
                            error.kind(),
                            ErrorKind::CommitStateUnknown | ErrorKind::Unreachable
                        ) =>
                {
                    error
                }
                outcome => break outcome?,
            };
            let error = match (error.kind(), unknown.take()) {
                (ErrorKind::CommitStateUnknown, _) | (_, None) => error,
                (_, Some(earlier)) => earlier,
            };
            let Some(pause) = resends.next() else {
                return Err(error);
            };
            if error.kind() == ErrorKind::CommitStateUnknown {
                unknown = Some(error);
            }
            std::thread::sleep(*pause);
        };
        // A commit response has no config: keep none rather than guess.
        loaded.config.clear();
        Ok(loaded)
    }

    /// Drops the table from the catalog; its files stay (`purgeRequested=false`).
    pub fn drop_table(&self, namespace: &str, table: &str) -> Result<()> {
        let op = table_op("drop", Effect::Write, namespace, table);
        let url = self.table_url(namespace, table);
        let query = [("purgeRequested", "false")];
        let answer = self.http.send(&op, Method::DELETE, &url, &query, None)?;
        self.expect_success(&op, answer)
    }

    /// Renames `namespace.table` to `to_namespace.to_table`.
    pub fn rename_table(
        &self,
        namespace: &str,
        table: &str,
        to_namespace: &str,
        to_table: &str,
    ) -> Result<()> {
        let mut op = table_op("rename", Effect::Write, namespace, table);
        op.action =
            format!("rename Iceberg table {namespace}.{table} to {to_namespace}.{to_table}");
        let body = serde_json::to_value(RenameTableRequest {
            source: TableIdentifier::new(namespace, table),
            destination: TableIdentifier::new(to_namespace, to_table),
        })
        .map_err(|error| self.unencodable(&op, &error))?;
        let answer = self.send(
            &op,
            Method::POST,
            &self.url(&["tables", "rename"]),
            Some(&body),
        )?;
        if answer.status == 409 {
            // The destination exists: name it, not the source.
            let mut error = self.http.failure(&op, &answer);
            if let Error::AlreadyExists { what, .. } = &mut error {
                *what = format!("Iceberg table {to_namespace}.{to_table}");
            }
            return Err(error);
        }
        self.expect_success(&op, answer)
    }

    fn url(&self, parts: &[&str]) -> String {
        format!("{}{}", self.base, parts.join("/"))
    }

    fn table_url(&self, namespace: &str, table: &str) -> String {
        self.url(&[
            "namespaces",
            &encode_segment(namespace),
            "tables",
            &encode_segment(table),
        ])
    }

    fn send(&self, op: &Op, method: Method, url: &str, body: Option<&Value>) -> Result<Answer> {
        self.http.send(op, method, url, &[], body)
    }

    fn expect_success(&self, op: &Op, answer: Answer) -> Result<()> {
        if (200..300).contains(&answer.status) {
            Ok(())
        } else {
            Err(self.http.failure(op, &answer))
        }
    }

    fn exists(&self, op: &Op, url: &str, head_endpoint: &str) -> Result<bool> {
        let method = match &self.endpoints {
            Some(endpoints) if !endpoints.contains(head_endpoint) => Method::GET,
            _ => Method::HEAD,
        };
        let answer = self.send(op, method, url, None)?;
        match answer.status {
            200..=299 => Ok(true),
            404 => Ok(false),
            _ => Err(self.http.failure(op, &answer)),
        }
    }

    fn loaded(&self, op: &Op, answer: Answer) -> Result<LoadedTable> {
        let response: LoadTableResponse = self.http.json(op, answer)?;
        let metadata_location = response
            .metadata_location
            .ok_or_else(|| Error::BadResponse {
                catalog: self.http.catalog.clone(),
                action: op.action.clone(),
                problem: "the answer has no metadata-location".to_string(),
            })?;
        Ok(LoadedTable {
            metadata_location,
            metadata: response.metadata,
            config: response
                .config
                .iter()
                .map(|(key, value)| (key.clone(), config_string(value)))
                .collect(),
        })
    }

    /// Follows a listing's `next-page-token`s; `take` keeps a page's items and returns its token.
    fn pages<T: serde::de::DeserializeOwned>(
        &self,
        op: &Op,
        url: &str,
        mut take: impl FnMut(T) -> Option<String>,
    ) -> Result<()> {
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let query: Vec<(&str, &str)> = token
                .iter()
                .map(|token| ("pageToken", token.as_str()))
                .collect();
            let answer = self.http.send(op, Method::GET, url, &query, None)?;
            let next = take(self.http.json(op, answer)?).filter(|next| !next.is_empty());
            if next.is_none() {
                return Ok(());
            }
            if next == token {
                break;
            }
            token = next;
        }
        Err(Error::BadResponse {
            catalog: self.http.catalog.clone(),
            action: op.action.clone(),
            problem: "its next-page-token never ends".to_string(),
        })
    }

    fn unencodable(&self, op: &Op, error: &serde_json::Error) -> Error {
        Error::InvalidSettings {
            catalog: self.http.catalog.clone(),
            problem: format!("the request to {} cannot be encoded: {error}", op.action),
        }
    }
}

fn op(action: &str, effect: Effect, namespace: Option<&str>, table: Option<&str>) -> Op {
    Op {
        action: action.to_string(),
        effect,
        namespace: namespace.map(str::to_string),
        table: table.map(str::to_string),
        creates_table: false,
    }
}

fn table_op(verb: &str, effect: Effect, namespace: &str, table: &str) -> Op {
    op(
        &format!("{verb} Iceberg table {namespace}.{table}"),
        effect,
        Some(namespace),
        Some(table),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalog_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<RestCatalog>();
        shareable::<crate::Error>();
    }
}
