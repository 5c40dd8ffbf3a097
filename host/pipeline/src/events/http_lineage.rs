//! The `openlineage` sink with a `url`: the plugin (which has no network) writes its lines into
//! a private file of the host's, and the host POSTs each new line to the endpoint, as the
//! Python tool does (`Content-Type: application/json`, `Authorization: Bearer $api_key_env` when
//! set, `/api/v1/lineage` when the URL has no path, HTTP ≥ 300 an error). Plain `http://` only:
//! lineage servers on a laptop (Marquez) speak it; `https://` is refused with a message.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use ldp_events::{Event, EventSink, SinkError};
use ldp_plugin_runtime::Runtime;

use super::plugin_sink::PluginEventSink;

/// Where and how to POST.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    host: String,
    port: u16,
    path: String,
    bearer: Option<String>,
    timeout: Duration,
}

impl Endpoint {
    /// Reads `url` (`http://host[:port][/path]`), the API key from the environment variable
    /// named `api_key_env`, and `timeout` seconds (default 10).
    pub fn parse(
        url: &str,
        api_key_env: Option<&str>,
        timeout_s: Option<f64>,
    ) -> Result<Endpoint, String> {
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!(
                "openlineage url {url:?}: only http:// endpoints are supported in this build"
            ));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let path = if path.is_empty() || path == "/" {
            "/api/v1/lineage".to_string()
        } else {
            path.to_string()
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (
                h.to_string(),
                p.parse()
                    .map_err(|_| format!("openlineage url {url:?}: bad port {p:?}"))?,
            ),
            None => (authority.to_string(), 80),
        };
        if host.is_empty() || host.contains('@') {
            return Err(format!(
                "openlineage url {url:?}: give a host, and no credentials in the URL (use api_key_env)"
            ));
        }
        let bearer = api_key_env.and_then(|name| std::env::var(name).ok());
        Ok(Endpoint {
            host,
            port,
            path,
            bearer,
            timeout: Duration::from_secs_f64(timeout_s.unwrap_or(10.0).max(0.1)),
        })
    }

    /// POSTs one JSON document; an HTTP status ≥ 300 is an error.
    fn post(&self, body: &str) -> Result<(), String> {
        let address = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| format!("{}: {e}", self.host))?
            .next()
            .ok_or_else(|| format!("{}: no address", self.host))?;
        let mut stream = TcpStream::connect_timeout(&address, self.timeout)
            .map_err(|e| format!("http://{}:{}: {e}", self.host, self.port))?;
        stream.set_read_timeout(Some(self.timeout)).ok();
        stream.set_write_timeout(Some(self.timeout)).ok();
        let auth = self
            .bearer
            .as_ref()
            .map(|key| format!("Authorization: Bearer {key}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.path,
            self.host,
            self.port,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("POST {}: {e}", self.path))?;
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .map_err(|e| format!("POST {}: {e}", self.path))?;
        let text = String::from_utf8_lossy(&response);
        let status: u16 = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("POST {}: no HTTP status in the answer", self.path))?;
        if status >= 300 {
            return Err(format!("POST {}: HTTP {status}", self.path));
        }
        Ok(())
    }
}

/// The plugin writing into a private file, and the host posting what it wrote.
pub(crate) struct HttpLineageSink {
    plugin: PluginEventSink,
    file: PathBuf,
    folder: PathBuf,
    posted: usize,
    endpoint: Endpoint,
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
                .post(lines[self.posted])
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
        format!(
            "openlineage http://{}:{}{}",
            self.endpoint.host, self.endpoint.port, self.endpoint.path
        )
    }
}
