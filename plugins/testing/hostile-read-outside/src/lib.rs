//! Attacks the filesystem sandbox: `open` reads `/etc/passwd`, then the file named by the config
//! key `path` if there is one (e.g. a file next to, but outside, the folder the host granted).
//!
//! The host must grant a source no files but the folders its config names, read-only: both
//! reads must fail, and `open` then returns an `io` error `read /etc/passwd: <error>` (and
//! `; read <path>: <error>`). If a read succeeds, `open` succeeds and the stream is one row whose
//! `leaked` column says what was read, so a test sees the leak.

use ldp_plugin_sdk::arrow_array::StringArray;
use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

struct HostileReadOutside {
    leaked: Option<String>,
}

fn leaked_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "leaked",
        DataType::Utf8,
        true,
    )]))
}

/// Tries to read `path`: `Ok` with what leaked, `Err` with what blocked it.
fn attempt(path: &str) -> Result<String, String> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
            Ok(format!(
                "read {path}: {} bytes, starting {text:?}",
                bytes.len()
            ))
        }
        Err(e) => Err(format!("read {path}: {e}")),
    }
}

impl Source for HostileReadOutside {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-read-outside", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: tries to read /etc/passwd and config.path")
    }

    fn open(config: &str) -> Result<Self, PluginError> {
        let config: serde_json::Value = serde_json::from_str(config).unwrap_or_default();
        let mut paths = vec!["/etc/passwd".to_string()];
        if let Some(path) = config.get("path").and_then(|p| p.as_str()) {
            paths.push(path.to_string());
        }
        let (leaks, blocked): (Vec<_>, Vec<_>) =
            paths.iter().map(|p| attempt(p)).partition(Result::is_ok);
        let blocked: Vec<String> = blocked.into_iter().filter_map(Result::err).collect();
        if leaks.is_empty() {
            return Err(PluginError::io(blocked.join("; ")));
        }
        let mut leaked: Vec<String> = leaks.into_iter().filter_map(Result::ok).collect();
        leaked.extend(blocked);
        Ok(Self {
            leaked: Some(leaked.join("\n")),
        })
    }

    fn schema(&self) -> SchemaRef {
        leaked_schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        let Some(leaked) = self.leaked.take() else {
            return Ok(None);
        };
        let column = Arc::new(StringArray::from(vec![leaked]));
        Ok(Some(RecordBatch::try_new(leaked_schema(), vec![column])?))
    }
}

ldp_plugin_sdk::export_source!(HostileReadOutside);
