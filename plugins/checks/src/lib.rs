//! The built-in quality checks (`docs/quality.md`): `row_count`, `not_null`, `unique`,
//! `accepted_values`, `range`, `freshness`, `schema`, `monotonic`, `max_skew`, `rate_below` and
//! `max_gap`, as one check component.
//!
//! The host runs one instance per run with every built-in check of the config, so each batch
//! crosses the sandbox boundary once however many checks look at it. The plugin's config is
//! `{"checks": [ITEM, ...]}` where each item is the check's object exactly as the dataset config
//! writes it (`{"check": "range", "column": "fare", "min": 0, "name"?: ...}`). Items are read by
//! `ldp_check_params`, the rule the host validates configs with, so `ldp plan` has refused what
//! the plugin would; an invalid item is still a config error here. Verdicts come back in the
//! order of the items.
//!
//! Each check keeps only the state its meaning needs across batches (see each rule's docs):
//! counts for most, the set of keys for `unique`, the values per group for the temporal checks
//! that sort.
//!
//! - [`py`]: values printed as the Python tool prints them;
//! - [`types`]: Arrow types named and parsed as pyarrow does;
//! - [`time`]: ISO-8601 dates and instants as Python reads and prints them;
//! - [`arrow_value`]: Arrow values read as the Python tool sees them;
//! - [`coerce`]: config values cast to a column's type;
//! - [`keyset`]: the keys `unique` counts; [`extremes`]: the min and max `range` reports;
//! - [`rule`]: the [`Rule`](rule::Rule) trait every check implements, and its verdict;
//! - [`rules`]: one module per check, and [`rules::build`] that turns a config item into its rule.

pub mod arrow_value;
pub mod coerce;
pub mod extremes;
pub mod keyset;
pub mod py;
pub mod rule;
pub mod rules;
pub mod time;
pub mod types;

#[cfg(test)]
mod tests;

use ldp_plugin_sdk::ConfigObject;
use ldp_plugin_sdk::prelude::*;
use rule::Rule;

/// The plugin: the configured checks of one stream.
pub struct Checks {
    rules: Vec<Box<dyn Rule>>,
}

/// The JSON Schema of the plugin's configuration.
const SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["checks"],
  "properties": {
    "checks": {
      "type": "array",
      "description": "Quality check items as in a dataset config's metadata.quality.checks",
      "items": {"type": "object", "required": ["check"]}
    }
  },
  "additionalProperties": false
}"#;

impl Checks {
    /// Reads the plugin config and builds the rules for batches of `input`.
    pub fn new(config: &str, input: &SchemaRef) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(config, &["checks"])?;
        let items = object.required_array(
            "checks",
            "give the check items, as a dataset config's metadata.quality.checks lists them",
        )?;
        let rules = items
            .iter()
            .enumerate()
            .map(|(index, item)| rules::build(index, item, input))
            .collect::<Result<_, _>>()?;
        Ok(Self { rules })
    }
}

impl Check for Checks {
    fn describe() -> PluginInfo {
        PluginInfo::new("checks", env!("CARGO_PKG_VERSION"))
            .description("The built-in data quality checks (row_count, not_null, unique, ...)")
            .config_schema(SCHEMA)
    }

    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        Self::new(config, &input)
    }

    fn push(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        for rule in &mut self.rules {
            rule.push(batch);
        }
        Ok(())
    }

    fn finish(self, context: &CheckContext) -> Result<Vec<CheckResult>, PluginError> {
        Ok(self
            .rules
            .into_iter()
            .map(|rule| rule.finish(context))
            .collect())
    }
}

ldp_plugin_sdk::export_check!(Checks);
