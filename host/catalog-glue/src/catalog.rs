//! The catalog handle and its namespace (Glue database) operations.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::http::{Call, Effect, Transport};
use crate::settings::GlueSettings;

/// A Glue Data Catalog used as an Iceberg catalog: Glue databases are namespaces (one level),
/// and a Glue table with `Parameters.table_type = ICEBERG` points at an Iceberg table's current
/// metadata file. Blocking; cheap to share between threads (`&GlueCatalog` is `Sync`).
pub struct GlueCatalog {
    pub(crate) transport: Transport,
}

impl std::fmt::Debug for GlueCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlueCatalog")
            .field("settings", &self.transport.settings)
            .finish()
    }
}

impl GlueCatalog {
    /// A client of the catalog `settings` describe. Sends nothing: an unreachable endpoint or
    /// refused credentials show on the first call. Fails only on unusable settings (an
    /// endpoint that is not an `http(s)://` URL).
    pub fn connect(settings: GlueSettings) -> Result<Self> {
        Ok(GlueCatalog {
            transport: Transport::new(settings)?,
        })
    }

    /// The settings this catalog was connected with.
    pub fn settings(&self) -> &GlueSettings {
        &self.transport.settings
    }

    /// `Glue catalog 'name' in region R at endpoint E`, as messages name it.
    pub fn describe(&self) -> &str {
        &self.transport.catalog
    }

    pub(crate) fn call(&self, call: &Call<'_>, body: Value) -> Result<Value> {
        self.transport.call(call, body)
    }

    pub(crate) fn bad(&self, action: &str, problem: impl Into<String>) -> Error {
        Error::BadResponse {
            catalog: self.transport.catalog.clone(),
            action: action.to_string(),
            problem: problem.into(),
        }
    }

    /// A Glue database name: non-empty, one level (no `.`).
    pub(crate) fn check_name(&self, what: &str, name: &str) -> Result<()> {
        let problem = if name.is_empty() {
            "it is empty"
        } else if name.contains('.') {
            "it must not contain '.': Glue namespaces have one level"
        } else {
            return Ok(());
        };
        Err(Error::Rejected {
            catalog: self.transport.catalog.clone(),
            action: format!("use {what} {name:?}"),
            detail: problem.to_string(),
        })
    }

    /// Every page of a paginated Glue listing (`NextToken`), the items under `list_key`.
    pub(crate) fn paginate(
        &self,
        call: &Call<'_>,
        body: Value,
        list_key: &str,
    ) -> Result<Vec<Value>> {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut page_body = body.clone();
            if let (Some(token), Some(map)) = (&token, page_body.as_object_mut()) {
                map.insert("NextToken".into(), json!(token));
            }
            let mut page = self.call(call, page_body)?;
            match page.get_mut(list_key).map(Value::take) {
                Some(Value::Array(list)) => items.extend(list),
                None | Some(Value::Null) => {}
                Some(_) => return Err(self.bad(&call.action, format!("{list_key} is not a list"))),
            }
            token = page
                .get("NextToken")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            if token.is_none() {
                return Ok(items);
            }
        }
    }

    fn database_call(
        operation: &'static str,
        action: &str,
        ns: &str,
        effect: Effect,
    ) -> Call<'static> {
        Call {
            operation,
            action: format!("{action} namespace {ns}"),
            what: format!("namespace (Glue database) {ns}"),
            table: "",
            effect,
        }
    }

    /// The namespaces (Glue databases), sorted. Glue namespaces have one level, so there is no
    /// parent to list below.
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        let call = Call {
            operation: "GetDatabases",
            action: "list namespaces".into(),
            what: "the catalog".into(),
            table: "",
            effect: Effect::Read,
        };
        let databases = self.paginate(&call, json!({}), "DatabaseList")?;
        let names: BTreeSet<String> = databases
            .iter()
            .filter_map(|db| db.get("Name")?.as_str().map(str::to_string))
            .collect();
        Ok(names.into_iter().collect())
    }

    /// Whether the namespace (Glue database) exists.
    pub fn namespace_exists(&self, namespace: &str) -> Result<bool> {
        self.check_name("namespace", namespace)?;
        let call = Self::database_call("GetDatabase", "check", namespace, Effect::Read);
        match self.call(&call, json!({ "Name": namespace })) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == crate::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Creates the namespace with `properties` as pyiceberg's `GlueCatalog` does:
    /// `Description` becomes the database's description, `location` its `LocationUri`, the
    /// rest its `Parameters`. Fails with [`ErrorKind::AlreadyExists`](crate::ErrorKind) when
    /// it exists.
    pub fn create_namespace(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<()> {
        self.check_name("namespace", namespace)?;
        let mut input = Map::new();
        input.insert("Name".into(), json!(namespace));
        let mut parameters = Map::new();
        for (key, value) in properties {
            match key.as_str() {
                "Description" => input.insert("Description".into(), json!(value)),
                "location" => input.insert("LocationUri".into(), json!(value)),
                _ => parameters.insert(key.clone(), json!(value)),
            };
        }
        input.insert("Parameters".into(), Value::Object(parameters));
        let call = Self::database_call("CreateDatabase", "create", namespace, Effect::Write);
        self.call(&call, json!({ "DatabaseInput": input }))?;
        Ok(())
    }

    /// Creates the namespace (no properties) unless it exists; returns whether it created it.
    /// Safe against another client doing the same (Glue's `AlreadyExistsException` is the
    /// answer "exists").
    pub fn create_namespace_if_missing(&self, namespace: &str) -> Result<bool> {
        match self.create_namespace(namespace, &BTreeMap::new()) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == crate::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The namespace's properties as pyiceberg reads them: the database's `Parameters`, plus
    /// `location` (its `LocationUri`) and `Description` when set.
    pub fn namespace_properties(&self, namespace: &str) -> Result<BTreeMap<String, String>> {
        self.check_name("namespace", namespace)?;
        let call = Self::database_call("GetDatabase", "read", namespace, Effect::Read);
        let answer = self.call(&call, json!({ "Name": namespace }))?;
        let database = answer
            .get("Database")
            .ok_or_else(|| self.bad(&call.action, "no Database in the answer"))?;
        let mut properties = string_map(database.get("Parameters"));
        for (field, key) in [("LocationUri", "location"), ("Description", "Description")] {
            if let Some(value) = database.get(field).and_then(Value::as_str) {
                properties.insert(key.to_string(), value.to_string());
            }
        }
        Ok(properties)
    }

    /// Where a new table `namespace.name` goes, as pyiceberg's `GlueCatalog` decides (Hive
    /// style): `<the namespace's location>/<name>` when the database has a `LocationUri`, else
    /// `<warehouse>/<namespace>.db/<name>`. Without either, an [`ErrorKind::Rejected`] that
    /// says to set the catalog's `warehouse`.
    ///
    /// [`ErrorKind::Rejected`]: crate::ErrorKind::Rejected
    pub fn default_table_location(
        &self,
        namespace: &str,
        name: &str,
        warehouse: Option<&str>,
    ) -> Result<String> {
        let properties = self.namespace_properties(namespace)?;
        if let Some(location) = properties.get("location").filter(|l| !l.is_empty()) {
            return Ok(format!("{}/{name}", location.trim_end_matches('/')));
        }
        match warehouse.filter(|w| !w.is_empty()) {
            Some(warehouse) => Ok(format!(
                "{}/{namespace}.db/{name}",
                warehouse.trim_end_matches('/')
            )),
            None => Err(Error::Rejected {
                catalog: self.transport.catalog.clone(),
                action: format!("choose the location of new table {namespace}.{name}"),
                detail: format!(
                    "namespace {namespace} has no location and the catalog no warehouse; \
                     set the catalog's warehouse (e.g. s3://bucket/lake)"
                ),
            }),
        }
    }

    /// Drops an empty namespace. Fails with [`ErrorKind::NotFound`](crate::ErrorKind) when it
    /// does not exist, with [`ErrorKind::Rejected`](crate::ErrorKind) when it holds tables
    /// (Iceberg or not: Glue would drop them with it).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        let tables = self.glue_tables(namespace)?;
        if !tables.is_empty() {
            return Err(Error::Rejected {
                catalog: self.transport.catalog.clone(),
                action: format!("drop namespace {namespace}"),
                detail: format!(
                    "it holds {} table(s); drop them first (Glue would delete them with it)",
                    tables.len()
                ),
            });
        }
        let call = Self::database_call("DeleteDatabase", "drop", namespace, Effect::Write);
        self.call(&call, json!({ "Name": namespace }))?;
        Ok(())
    }

    /// Every Glue table of the namespace (Iceberg or not), all pages.
    pub(crate) fn glue_tables(&self, namespace: &str) -> Result<Vec<Value>> {
        self.check_name("namespace", namespace)?;
        let call = Self::database_call("GetTables", "list the tables of", namespace, Effect::Read);
        self.paginate(&call, json!({ "DatabaseName": namespace }), "TableList")
    }

    /// The names of the Iceberg tables in the namespace, sorted (Glue tables of other formats
    /// are skipped, as pyiceberg skips them). Fails with
    /// [`ErrorKind::NotFound`](crate::ErrorKind) when the namespace does not exist.
    pub fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        let tables = self.glue_tables(namespace)?;
        let mut names: Vec<String> = tables
            .iter()
            .filter(|t| crate::table::is_iceberg(t))
            .filter_map(|t| t.get("Name")?.as_str().map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }
}

/// A JSON object of strings as a map (other values are skipped).
pub(crate) fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}
