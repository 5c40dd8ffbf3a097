//! A third-party check as a test plugin: `{"column": C, "max": M}` gives two verdicts, the rows
//! it saw (always passes, reports the host's source row count) and whether every value of the
//! float column C is at most M. With `"panic": true` it panics (traps) on its first batch, for
//! the tests of a check plugin that fails mid-stream.

use ldp_plugin_sdk::arrow_array::{Array, Float64Array};
use ldp_plugin_sdk::prelude::*;

struct MaxValue {
    column: Option<usize>,
    name: String,
    max: f64,
    rows: u64,
    over: u64,
    panic: bool,
}

impl Check for MaxValue {
    fn describe() -> PluginInfo {
        PluginInfo::new("custom_check", env!("CARGO_PKG_VERSION"))
            .description("Test check: every value of a float column is at most a limit")
    }

    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config: serde_json::Value = serde_json::from_str(config)
            .map_err(|e| PluginError::config(format!("config is not JSON: {e}")))?;
        let name = config["column"]
            .as_str()
            .ok_or_else(|| PluginError::config("config needs \"column\": a column name"))?
            .to_string();
        let max = config["max"]
            .as_f64()
            .ok_or_else(|| PluginError::config("config needs \"max\": a number"))?;
        Ok(Self {
            column: input.index_of(&name).ok(),
            name,
            max,
            rows: 0,
            over: 0,
            panic: config["panic"].as_bool().unwrap_or(false),
        })
    }

    fn push(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        assert!(!self.panic, "custom_check was told to panic");
        self.rows += batch.num_rows() as u64;
        if let Some(values) = self
            .column
            .and_then(|i| batch.column(i).as_any().downcast_ref::<Float64Array>())
        {
            self.over += values.iter().flatten().filter(|v| *v > self.max).count() as u64;
        }
        Ok(())
    }

    fn finish(self, context: &CheckContext) -> Result<Vec<CheckResult>, PluginError> {
        let seen = CheckResult {
            name: "rows_seen".into(),
            passed: true,
            details: format!(
                "{} rows seen, {} read from the source",
                self.rows,
                context.source_rows.map_or("?".into(), |n| n.to_string())
            ),
            failing_rows: 0,
            metrics: format!("{{\"rows\": {}}}", self.rows),
        };
        let limit = CheckResult {
            name: format!("max_value({})", self.name),
            passed: self.column.is_some() && self.over == 0,
            details: match self.column {
                None => format!("no column {}", self.name),
                Some(_) => format!("{} values above {}", self.over, self.max),
            },
            failing_rows: self.over,
            metrics: "{}".into(),
        };
        Ok(vec![seen, limit])
    }
}

ldp_plugin_sdk::export_check!(MaxValue);
