//! One module per check, and [`build`], which reads one config item into its rule.

pub mod missing;

use crate::rule::Rule;
use ldp_plugin_sdk::prelude::*;

/// Builds the rule of config item `index` (0-based) for batches of `input`.
pub fn build(
    index: usize,
    item: &serde_json::Value,
    input: &SchemaRef,
) -> Result<Box<dyn Rule>, PluginError> {
    let _ = (item, input);
    Err(PluginError::config(format!(
        "quality check #{} is not implemented yet",
        index + 1
    )))
}
