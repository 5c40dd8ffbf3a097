//! What a plugin says of itself.

use crate::bindings::types as wit;

/// A plugin's self-description, shown by `ldp plugins`. The kind is implied by the trait the
/// plugin implements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// Short name, lower-case `[a-z0-9_-]+`, e.g. `csv`.
    pub name: String,
    /// Semantic version, usually `env!("CARGO_PKG_VERSION")`.
    pub version: String,
    /// One line for `ldp plugins`.
    pub description: String,
    /// JSON Schema of the plugin's configuration object, as JSON text.
    pub config_schema: String,
}

impl PluginInfo {
    /// A plugin named `name` at `version`, with no description and a config schema that
    /// accepts any object.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            config_schema: r#"{"type":"object"}"#.to_string(),
        }
    }

    /// Sets the one-line description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the JSON Schema of the configuration.
    pub fn config_schema(mut self, schema: impl Into<String>) -> Self {
        self.config_schema = schema.into();
        self
    }

    pub(crate) fn into_wit(self, kind: wit::PluginKind) -> wit::PluginInfo {
        wit::PluginInfo {
            name: self.name,
            version: self.version,
            kind,
            description: self.description,
            config_schema: self.config_schema,
        }
    }
}
