//! A source that loads a paged JSON API over wasi:http, as a REST loader would: it asks for
//! `{url}?page=1`, `?page=2`, … and stops at the first empty page. Each page is a JSON array of
//! objects; the config's `columns` (`{"id": "int64", "name": "string", …}`) give the schema.
//!
//! It reaches the network only through the host's wasi:http, which lets a request through only
//! to the `host:port` pairs the config grants.

use std::sync::Arc;

use arrow_json::ReaderBuilder;
use arrow_schema::{DataType, Field, Schema};
use ldp_plugin_sdk::prelude::*;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

struct Pages {
    authority: String,
    path: String,
    https: bool,
    page: u32,
    schema: SchemaRef,
    done: bool,
}

fn config_error(message: impl Into<String>) -> PluginError {
    PluginError::config(message)
}

impl Source for Pages {
    fn describe() -> PluginInfo {
        PluginInfo::new("http-pages", env!("CARGO_PKG_VERSION"))
            .description("Pages through a JSON API (needs a net grant)")
            .config_schema(r#"{"type": "object", "required": ["url", "columns"]}"#)
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config: serde_json::Value =
            serde_json::from_str(config).map_err(|e| config_error(e.to_string()))?;
        let url = config["url"]
            .as_str()
            .ok_or_else(|| config_error("url is required"))?;
        let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(config_error(format!(
                "url must start with http:// or https://, got {url}"
            )));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
            None => (rest.to_string(), "/".to_string()),
        };
        let columns = config["columns"]
            .as_object()
            .ok_or_else(|| config_error("columns must be an object of name: type"))?;
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, ty)| {
                let data_type = match ty.as_str() {
                    Some("int64") => DataType::Int64,
                    Some("double") => DataType::Float64,
                    Some("string") => DataType::Utf8,
                    Some("bool") => DataType::Boolean,
                    other => {
                        return Err(config_error(format!(
                            "column {name}: unknown type {other:?}"
                        )));
                    }
                };
                Ok(Field::new(name, data_type, true))
            })
            .collect::<Result<_, _>>()?;
        Ok(Pages {
            authority,
            path,
            https,
            page: 0,
            schema: Arc::new(Schema::new(fields)),
            done: false,
        })
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        if self.done {
            return Ok(None);
        }
        self.page += 1;
        let separator = if self.path.contains('?') { '&' } else { '?' };
        let path = format!("{}{separator}page={}", self.path, self.page);
        let body = get(&self.authority, &path, self.https)?;
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&body).map_err(|e| {
            PluginError::data(format!(
                "page {} of {}{} is not a JSON array: {e}",
                self.page, self.authority, self.path
            ))
        })?;
        if rows.is_empty() {
            self.done = true;
            return Ok(None);
        }
        let mut decoder = ReaderBuilder::new(self.schema.clone())
            .build_decoder()
            .map_err(|e| PluginError::internal(e.to_string()))?;
        decoder
            .serialize(&rows)
            .map_err(|e| PluginError::data(format!("page {}: {e}", self.page)))?;
        decoder
            .flush()
            .map_err(|e| PluginError::data(format!("page {}: {e}", self.page)))
    }
}

/// One GET, the whole body.
fn get(authority: &str, path: &str, https: bool) -> Result<Vec<u8>, PluginError> {
    let io = |what: &str, e: String| PluginError::io(format!("GET {authority}{path}: {what}: {e}"));
    let request = OutgoingRequest::new(Fields::new());
    let scheme = if https { Scheme::Https } else { Scheme::Http };
    request
        .set_method(&Method::Get)
        .and_then(|()| request.set_scheme(Some(&scheme)))
        .and_then(|()| request.set_authority(Some(authority)))
        .and_then(|()| request.set_path_with_query(Some(path)))
        .map_err(|()| io("invalid request", String::new()))?;
    let pending =
        outgoing_handler::handle(request, None).map_err(|e| io("request", format!("{e:?}")))?;
    pending.subscribe().block();
    let response = pending
        .get()
        .ok_or_else(|| io("no response", String::new()))?
        .map_err(|()| io("response taken", String::new()))?
        .map_err(|e| io("request failed", format!("{e:?}")))?;
    if response.status() != 200 {
        return Err(io("status", response.status().to_string()));
    }
    let body = response.consume().map_err(|()| io("body", String::new()))?;
    let stream = body
        .stream()
        .map_err(|()| io("body stream", String::new()))?;
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => bytes.extend(chunk),
            Err(StreamError::Closed) => break,
            Err(e) => return Err(io("reading the body", format!("{e:?}"))),
        }
    }
    Ok(bytes)
}

ldp_plugin_sdk::export_source!(Pages);
