//! The REST spec's request and response bodies this client sends and reads.

use std::collections::{BTreeMap, HashMap};

use iceberg::spec::{Schema, TableMetadata, UnboundPartitionSpec};
use iceberg::{TableRequirement, TableUpdate};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What [`RestCatalog::create_table`](crate::RestCatalog::create_table) creates: the catalog
/// assigns the field ids, the table UUID and (without `location`) the location.
#[derive(Debug, Clone)]
pub struct CreateTable {
    /// The table's schema.
    pub schema: Schema,
    /// Its partition spec (`None`: unpartitioned).
    pub partition_spec: Option<UnboundPartitionSpec>,
    /// Its location (`None`: the catalog picks one under its warehouse).
    pub location: Option<String>,
    /// Its properties.
    pub properties: BTreeMap<String, String>,
}

impl CreateTable {
    /// An unpartitioned table with `schema`, no location and no properties.
    pub fn new(schema: Schema) -> Self {
        CreateTable {
            schema,
            partition_spec: None,
            location: None,
            properties: BTreeMap::new(),
        }
    }
}

/// `GET /v1/config`.
#[derive(Deserialize)]
pub(crate) struct ConfigResponse {
    #[serde(default)]
    pub defaults: HashMap<String, Value>,
    #[serde(default)]
    pub overrides: HashMap<String, Value>,
    /// The endpoints the catalog serves (`"HEAD /v1/{prefix}/namespaces/{namespace}"`); absent
    /// from older catalogs.
    #[serde(default)]
    pub endpoints: Option<Vec<String>>,
    /// How long the catalog remembers an `Idempotency-Key` (ISO 8601, e.g. `PT24H`); absent
    /// when it does not honour them.
    #[serde(default, rename = "idempotency-key-lifetime")]
    pub idempotency_key_lifetime: Option<String>,
}

/// A config value as a string (the spec says strings; a number or a boolean is accepted).
pub(crate) fn config_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `GET /v1/{prefix}/namespaces`.
#[derive(Deserialize)]
pub(crate) struct ListNamespacesResponse {
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    #[serde(default, rename = "next-page-token")]
    pub next_page_token: Option<String>,
}

/// `POST /v1/{prefix}/namespaces`.
#[derive(Serialize)]
pub(crate) struct CreateNamespaceRequest<'a> {
    pub namespace: [&'a str; 1],
    pub properties: &'a BTreeMap<String, String>,
}

/// A table's identifier in request and response bodies.
#[derive(Serialize, Deserialize)]
pub(crate) struct TableIdentifier {
    pub namespace: Vec<String>,
    pub name: String,
}

impl TableIdentifier {
    pub fn new(namespace: &str, name: &str) -> Self {
        TableIdentifier {
            namespace: vec![namespace.to_string()],
            name: name.to_string(),
        }
    }
}

/// `GET /v1/{prefix}/namespaces/{namespace}/tables`.
#[derive(Deserialize)]
pub(crate) struct ListTablesResponse {
    #[serde(default)]
    pub identifiers: Vec<TableIdentifier>,
    #[serde(default, rename = "next-page-token")]
    pub next_page_token: Option<String>,
}

/// `POST /v1/{prefix}/namespaces/{namespace}/tables`.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct CreateTableRequest<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<&'a str>,
    pub schema: &'a Schema,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_spec: Option<&'a UnboundPartitionSpec>,
    pub stage_create: bool,
    pub properties: &'a BTreeMap<String, String>,
}

/// `LoadTableResult` and `CommitTableResponse`.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct LoadTableResponse {
    #[serde(default)]
    pub metadata_location: Option<String>,
    pub metadata: TableMetadata,
    #[serde(default)]
    pub config: HashMap<String, Value>,
}

/// `POST /v1/{prefix}/namespaces/{namespace}/tables/{table}`.
#[derive(Serialize)]
pub(crate) struct CommitTableRequest<'a> {
    pub identifier: TableIdentifier,
    pub requirements: &'a [TableRequirement],
    pub updates: &'a [TableUpdate],
}

/// `POST /v1/{prefix}/tables/rename`.
#[derive(Serialize)]
pub(crate) struct RenameTableRequest {
    pub source: TableIdentifier,
    pub destination: TableIdentifier,
}
