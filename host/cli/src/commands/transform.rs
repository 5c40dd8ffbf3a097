//! `ldp transform test CONFIG --code FILE`: a transform tried on a sample of a config's source,
//! nothing written, so that an author or an agent can iterate on it safely.

use std::io::Write;

use ldp_pipeline::transform::Sample;
use ldp_plugin_runtime::Runtime;
use serde_json::json;

use crate::output::cell::{Cell, cell};
use crate::output::table;
use crate::settings::TransformTestSettings;

/// Runs the transform on the sample and prints its schema and rows.
pub fn test(runtime: &Runtime, settings: &TransformTestSettings) -> anyhow::Result<u8> {
    let config = ldp_pipeline::open_config(&settings.config)?;
    let sample = ldp_pipeline::transform::sample(
        &config,
        runtime,
        &settings.transform,
        settings.rows,
        settings.after_config,
    )?;
    let mut out = std::io::stdout().lock();
    if settings.json {
        writeln!(out, "{}", super::json_text(&to_json(&sample))?)?;
        return Ok(0);
    }
    let rows: usize = sample.output.iter().map(|b| b.num_rows()).sum();
    writeln!(
        out,
        "{} (sha256 {}): {} rows in, {rows} rows out; nothing was written",
        sample.name, sample.sha256, sample.input_rows
    )?;
    writeln!(out, "output schema:")?;
    for field in sample.output_schema.fields() {
        let was = sample.input_schema.field_with_name(field.name()).ok();
        let note = match was {
            None => "  (new)".to_string(),
            Some(f) if f.data_type() != field.data_type() => {
                format!("  (was {})", ldp_pyrepr::pyarrow_type_name(f.data_type()))
            }
            Some(_) => String::new(),
        };
        writeln!(
            out,
            "  {} {}{note}",
            field.name(),
            ldp_pyrepr::pyarrow_type_name(field.data_type())
        )?;
    }
    for field in sample.input_schema.fields() {
        if sample.output_schema.field_with_name(field.name()).is_err() {
            writeln!(out, "  (dropped {})", field.name())?;
        }
    }
    let header: Vec<String> = sample
        .output_schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let cells: Vec<Vec<Cell>> = sample
        .output
        .iter()
        .flat_map(|batch| {
            (0..batch.num_rows()).map(move |row| {
                batch
                    .columns()
                    .iter()
                    .map(|column| cell(column, row))
                    .collect()
            })
        })
        .collect();
    write!(
        out,
        "{}",
        table::render(&header, &cells, cells.len() as u64)
    )?;
    Ok(0)
}

fn to_json(sample: &Sample) -> serde_json::Value {
    let fields = |schema: &arrow_schema::Schema| -> Vec<serde_json::Value> {
        schema
            .fields()
            .iter()
            .map(|f| {
                json!({
                    "name": f.name(),
                    "type": ldp_pyrepr::pyarrow_type_name(f.data_type()),
                    "nullable": f.is_nullable(),
                })
            })
            .collect()
    };
    let rows: Vec<serde_json::Value> = sample
        .output
        .iter()
        .flat_map(|batch| {
            (0..batch.num_rows()).map(move |row| {
                let object: serde_json::Map<String, serde_json::Value> = batch
                    .schema()
                    .fields()
                    .iter()
                    .zip(batch.columns())
                    .map(|(f, column)| (f.name().clone(), cell(column, row).json()))
                    .collect();
                serde_json::Value::Object(object)
            })
        })
        .collect();
    json!({
        "transform": sample.name,
        "sha256": sample.sha256,
        "rows_in": sample.input_rows,
        "rows_out": rows.len(),
        "input_schema": fields(&sample.input_schema),
        "output_schema": fields(&sample.output_schema),
        "rows": rows,
        "written": false,
    })
}
