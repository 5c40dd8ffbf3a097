//! The `openlineage` sink with a `url`: the plugin (which has no network) writes its lines into
//! a private file of the host's, and the host POSTs each new line to the endpoint, as the
//! Python tool does (`Content-Type: application/json`, `Authorization: Bearer $api_key_env` when
//! set, `/api/v1/lineage` when the URL has no path, HTTP ≥ 300 an error). `http://` and
//! `https://` (TLS by rustls; the system's roots, or the file `SSL_CERT_FILE` names).

use std::path::PathBuf;
use std::time::Duration;

use ldp_events::{Event, EventSink, SinkError};
use ldp_plugin_runtime::Runtime;

use super::plugin_sink::PluginEventSink;

/// Where and how to POST.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    url: reqwest::Url,
    bearer: Option<String>,
    timeout: Duration,
}

impl Endpoint {
    /// Reads `url` (`http(s)://host[:port][/path]`), the API key from the environment variable
    /// named `api_key_env`, and `timeout` seconds (default 10).
    pub fn parse(
        url: &str,
        api_key_env: Option<&str>,
        timeout_s: Option<f64>,
    ) -> Result<Endpoint, String> {
        let mut parsed = reqwest::Url::parse(url).map_err(|e| {
            format!("openlineage url {url:?}: {e}; give http(s)://host[:port][/path]")
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "openlineage url {url:?}: only http:// and https:// endpoints are supported"
            ));
        }
        if parsed.host_str().is_none_or(str::is_empty)
            || !parsed.username().is_empty()
            || parsed.password().is_some()
        {
            return Err(format!(
                "openlineage url {url:?}: give a host, and no credentials in the URL (use api_key_env)"
            ));
        }
        if parsed.path().is_empty() || parsed.path() == "/" {
            parsed.set_path("/api/v1/lineage");
        }
        let bearer = api_key_env.and_then(|name| std::env::var(name).ok());
        Ok(Endpoint {
            url: parsed,
            bearer,
            timeout: Duration::from_secs_f64(timeout_s.unwrap_or(10.0).max(0.1)),
        })
    }

    /// A client for this endpoint: its time limit, TLS by rustls.
    fn client(&self) -> Result<reqwest::blocking::Client, String> {
        reqwest::blocking::Client::builder()
            .timeout(self.timeout)
            .build()
            .map_err(|e| format!("openlineage {}: cannot start an HTTP client: {e}", self.url))
    }

    /// POSTs one JSON document with `client`; an HTTP status ≥ 300 is an error.
    fn post(&self, client: &reqwest::blocking::Client, body: &str) -> Result<(), String> {
        let mut request = client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_owned());
        if let Some(key) = &self.bearer {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .map_err(|e| format!("POST {}: {}", self.url, error_chain(&e)))?;
        let status = response.status();
        if status.as_u16() >= 300 {
            return Err(format!("POST {}: HTTP {}", self.url, status.as_u16()));
        }
        Ok(())
    }
}

/// An error and its causes (reqwest's own message leaves out the TLS or connection cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

/// The plugin writing into a private file, and the host posting what it wrote.
pub(crate) struct HttpLineageSink {
    plugin: PluginEventSink,
    file: PathBuf,
    folder: PathBuf,
    posted: usize,
    endpoint: Endpoint,
    client: reqwest::blocking::Client,
}

impl HttpLineageSink {
    /// Opens the `events-openlineage` plugin on a private file for `endpoint`.
    pub fn open(
        runtime: &Runtime,
        options: &serde_json::Map<String, serde_json::Value>,
        endpoint: Endpoint,
    ) -> Result<HttpLineageSink, String> {
        let folder =
            std::env::temp_dir().join(format!("ldp-openlineage-{}", uuid::Uuid::new_v4().simple()));
        let file = folder.join("openlineage.jsonl");
        let mut config = options.clone();
        config.remove("url");
        config.remove("api_key_env");
        config.remove("timeout");
        config.insert("path".into(), file.display().to_string().into());
        let client = endpoint.client()?;
        let plugin = PluginEventSink::open(
            runtime,
            "events-openlineage",
            &serde_json::Value::Object(config),
            &file,
        )?;
        Ok(HttpLineageSink {
            plugin,
            file,
            folder,
            posted: 0,
            endpoint,
            client,
        })
    }

    /// POSTs the lines the plugin wrote since the last call.
    fn post_new(&mut self) -> Result<(), SinkError> {
        let Ok(text) = std::fs::read_to_string(&self.file) else {
            return Ok(());
        };
        let lines: Vec<&str> = text.lines().collect();
        while self.posted < lines.len() {
            self.endpoint
                .post(&self.client, lines[self.posted])
                .map_err(SinkError::failed)?;
            self.posted += 1;
        }
        Ok(())
    }
}

impl EventSink for HttpLineageSink {
    fn write(&mut self, event: &Event) -> Result<(), SinkError> {
        self.plugin.write(event)?;
        self.post_new()
    }

    fn close(&mut self) -> Result<(), SinkError> {
        let closed = self.plugin.close();
        let posted = self.post_new();
        let _ = std::fs::remove_dir_all(&self.folder);
        closed.and(posted)
    }

    fn describe(&self) -> String {
        format!("openlineage {}", self.endpoint.url)
    }
}
