//! The BigQuery source: one query's result, read from BigQuery's REST API.
//!
//! The host took the access token (it keeps the service-account key) and grants this plugin the
//! API's `host:port` only. The plugin starts the query with `jobs.query`
//! (`POST …/projects/{project}/queries`), waits with `jobs.getQueryResults`
//! (`GET …/queries/{jobId}`) while the job runs, and reads the result page by page
//! (`pageToken`), each page one batch; the API's JSON values become Arrow as `rows.rs` says.
//! An error the API gives (`{"error": {"code", "message"}}`) is a config error for a query or a
//! token it refuses, and an I/O error (retried by workflows) for 429 and 5xx.

mod http;
mod rows;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use http::Endpoint;
use ldp_plugin_sdk::prelude::*;
use serde_json::Value;

/// How long one API call may wait for the job (the API's `timeoutMs`).
const WAIT_MS: u64 = 10_000;

/// The keys of the configuration (the host writes it).
const KEYS: &[&str] = &["endpoint", "project", "query", "token", "batch_size"];

const SCHEMA: &str = r#"{
  "type": "object",
  "required": ["endpoint", "project", "query", "token"],
  "properties": {
    "endpoint": {"type": "string", "description": "the API's address, e.g. https://bigquery.googleapis.com"},
    "project": {"type": "string", "description": "the project that runs the query"},
    "query": {"type": "string", "description": "one GoogleSQL query"},
    "token": {"type": "string", "description": "an OAuth access token (the host takes it)"},
    "batch_size": {"type": "integer", "minimum": 1, "description": "rows per page"}
  },
  "additionalProperties": false
}"#;

struct BigQuery {
    endpoint: Endpoint,
    project: String,
    token: String,
    batch_size: u64,
    job_id: String,
    location: Option<String>,
    schema: SchemaRef,
    kinds: Vec<rows::Kind>,
    /// The page read and not yet given, and the token of the one after it.
    page: Option<Vec<Value>>,
    next_page: Option<String>,
}

impl Source for BigQuery {
    fn describe() -> PluginInfo {
        PluginInfo::new("bigquery", env!("CARGO_PKG_VERSION"))
            .description(
                "Reads one query's result from BigQuery's REST API (granted that API only)",
            )
            .config_schema(SCHEMA)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config = ConfigObject::parse(config, KEYS)?;
        let url = config.required_non_empty_string("endpoint", "the API's address")?;
        let endpoint = Endpoint::parse(url).ok_or_else(|| {
            PluginError::config(format!(
                "config.endpoint: expected http:// or https:// and a host, got {url:?}"
            ))
        })?;
        let project = config
            .required_non_empty_string("project", "the project")?
            .to_string();
        let query = config.required_non_empty_string("query", "the query")?;
        let token = config
            .required_non_empty_string("token", "an access token")?
            .to_string();
        let batch_size = config.u64_in("batch_size", 1..=100_000)?.unwrap_or(8_192);
        let body = serde_json::json!({
            "query": query,
            "useLegacySql": false,
            "maxResults": batch_size,
            "timeoutMs": WAIT_MS,
            "formatOptions": {"useInt64Timestamp": true},
        });
        let path = format!("/bigquery/v2/projects/{}/queries", http::encode(&project));
        let mut answer = call(&endpoint, &path, &token, Some(body.to_string().as_bytes()))?;
        let job = &answer["jobReference"];
        let job_id = job["jobId"].as_str().unwrap_or_default().to_string();
        let location = job["location"].as_str().map(str::to_string);
        let mut source = BigQuery {
            endpoint,
            project,
            token,
            batch_size,
            job_id,
            location,
            schema: SchemaRef::new(arrow_schema::Schema::empty()),
            kinds: Vec::new(),
            page: None,
            next_page: None,
        };
        while answer["jobComplete"] != Value::Bool(true) {
            answer = source.results(None)?;
        }
        let fields = answer["schema"]["fields"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        (source.schema, source.kinds) = rows::schema(&fields)?;
        source.take_page(answer);
        Ok(source)
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        loop {
            if let Some(page) = self.page.take() {
                if page.is_empty() {
                    continue;
                }
                return rows::batch(&self.schema, &self.kinds, &page).map(Some);
            }
            let Some(token) = self.next_page.take() else {
                return Ok(None);
            };
            let answer = self.results(Some(&token))?;
            self.take_page(answer);
        }
    }
}

impl BigQuery {
    /// `jobs.getQueryResults`: the job's state, and a page of its rows once it is done.
    fn results(&self, page_token: Option<&str>) -> Result<Value, PluginError> {
        let mut path = format!(
            "/bigquery/v2/projects/{}/queries/{}?maxResults={}&timeoutMs={WAIT_MS}&formatOptions.useInt64Timestamp=true",
            http::encode(&self.project),
            http::encode(&self.job_id),
            self.batch_size
        );
        if let Some(location) = &self.location {
            path.push_str(&format!("&location={}", http::encode(location)));
        }
        if let Some(token) = page_token {
            path.push_str(&format!("&pageToken={}", http::encode(token)));
        }
        call(&self.endpoint, &path, &self.token, None)
    }

    fn take_page(&mut self, mut answer: Value) {
        self.page = match answer["rows"].take() {
            Value::Array(rows) => Some(rows),
            _ => None,
        };
        self.next_page = answer["pageToken"]
            .as_str()
            .filter(|t| !t.is_empty())
            .map(str::to_string);
    }
}

/// One API call; its JSON answer, or the API's error as a plugin error.
fn call(
    endpoint: &Endpoint,
    path: &str,
    token: &str,
    body: Option<&[u8]>,
) -> Result<Value, PluginError> {
    let method = if body.is_some() { "POST" } else { "GET" };
    let response = http::send(endpoint, method, path, token, body)?;
    let answer: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    if response.status == 200 {
        return Ok(answer);
    }
    let error = &answer["error"];
    let why = error["message"].as_str().map_or_else(
        || {
            String::from_utf8_lossy(&response.body)
                .chars()
                .take(500)
                .collect()
        },
        str::to_string,
    );
    let message = format!(
        "BigQuery answered {} to {method} {path}: {why}",
        response.status
    );
    Err(match response.status {
        401 | 403 => PluginError::config(format!(
            "{message}; check that the service account may run queries in the project"
        )),
        429 | 500..=599 => PluginError::io(message),
        _ => PluginError::config(message),
    })
}

ldp_plugin_sdk::export_source!(BigQuery);
