//! A transform that gives back every batch unchanged: the cost of crossing the boundary.

use ldp_plugin_sdk::prelude::*;

struct Identity {
    schema: SchemaRef,
}

impl Transform for Identity {
    fn describe() -> PluginInfo {
        PluginInfo::new("identity", env!("CARGO_PKG_VERSION"))
            .description("Gives back every batch unchanged")
    }

    fn open(_config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        Ok(Self { schema: input })
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError> {
        Ok(vec![batch])
    }
}

ldp_plugin_sdk::export_transform!(Identity);
