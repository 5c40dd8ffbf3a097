#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod config;
mod convert_in;
mod convert_out;
mod engine;
mod schema;
mod time;
mod types;

pub use config::{CONFIG_SCHEMA, Config};
pub use engine::{LOOP_ITERATION_LIMIT, Limits, RECURSION_LIMIT, STACK_SIZE_LIMIT};

use convert_in::{InColumn, batch_to_js};
use convert_out::{OutColumns, js_to_batch};
use engine::Engine;
use ldp_plugin_sdk::prelude::*;

/// The JavaScript transform: one Boa context per stream, `transform(rows)` per batch.
pub struct JsTransform {
    engine: Engine,
    input: Vec<InColumn>,
    output: OutColumns,
    /// Batches pushed so far (messages count them from 1).
    batches: u64,
}

impl Transform for JsTransform {
    fn describe() -> PluginInfo {
        PluginInfo::new("js", env!("CARGO_PKG_VERSION"))
            .description(
                "Runs JavaScript on every batch: transform(rows) maps, filters or adds row \
                 objects (Boa engine, no I/O)",
            )
            .config_schema(CONFIG_SCHEMA)
    }

    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        Self::open_with_limits(config, input, Limits::default())
    }

    fn output_schema(&self) -> SchemaRef {
        self.output.schema().clone()
    }

    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError> {
        self.batches += 1;
        let engine = &mut self.engine;
        let rows = batch_to_js(
            &batch,
            &self.input,
            self.batches,
            &engine.label,
            &mut engine.ctx,
        )?;
        let result = engine.call_transform(rows, self.batches)?;
        let origin = format!("batch {}", self.batches);
        let out = js_to_batch(
            &result,
            &self.output,
            &origin,
            &engine.label,
            &mut engine.ctx,
        )?;
        Ok(out.into_iter().collect())
    }

    fn flush(&mut self) -> Result<Vec<RecordBatch>, PluginError> {
        let engine = &mut self.engine;
        let Some(result) = engine.call_flush()? else {
            return Ok(Vec::new());
        };
        let out = js_to_batch(
            &result,
            &self.output,
            "flush()",
            &engine.label,
            &mut engine.ctx,
        )?;
        Ok(out.into_iter().collect())
    }
}

impl JsTransform {
    /// [`Transform::open`] with other runtime limits than the defaults.
    pub fn open_with_limits(
        config: &str,
        input: SchemaRef,
        limits: Limits,
    ) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        schema::check_input(&input, &config.label())?;
        let mut engine = Engine::load(&config, limits)?;
        let fields = schema::fields_to_js(&input, &mut engine.ctx)?;
        let output = match engine.call_schema(fields)? {
            Some(value) => schema::fields_from_js(&value, &input, &engine.label, &mut engine.ctx)?,
            None => input.clone(),
        };
        Ok(Self {
            engine,
            input: input
                .fields()
                .iter()
                .map(|f| InColumn::new(f.name()))
                .collect(),
            output: OutColumns::new(output),
            batches: 0,
        })
    }
}

// Natively (unit tests, the rlib) there is no component to export, and the exported names
// (`ldp:plugin/transform@0.1.0#...`) do not link into a native shared library.
#[cfg(target_arch = "wasm32")]
ldp_plugin_sdk::export_transform!(JsTransform);
