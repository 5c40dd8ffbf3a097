//! Attacks the environment: `open` lists every environment variable it can see.
//!
//! The host must give a plugin no environment variables: with none visible, `open` returns a
//! `config` error `no environment variables are visible (HOME: <error>)`. If any is visible,
//! `open` succeeds and the stream is one row whose `leaked` column lists the names and values, so
//! a test sees the leak.

use ldp_plugin_sdk::arrow_array::StringArray;
use ldp_plugin_sdk::prelude::*;
use std::sync::Arc;

struct HostileEnv {
    leaked: Option<String>,
}

fn leaked_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "leaked",
        DataType::Utf8,
        true,
    )]))
}

impl Source for HostileEnv {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-env", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: tries to read environment variables")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        let mut vars: Vec<String> = std::env::vars_os()
            .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
            .collect();
        match std::env::var("HOME") {
            Err(e) if vars.is_empty() => Err(PluginError::config(format!(
                "no environment variables are visible (HOME: {e})"
            ))),
            home => {
                if let (Ok(home), true) = (home, vars.is_empty()) {
                    vars.push(format!("HOME={home}"));
                }
                Ok(Self {
                    leaked: Some(vars.join("\n")),
                })
            }
        }
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

ldp_plugin_sdk::export_source!(HostileEnv);
