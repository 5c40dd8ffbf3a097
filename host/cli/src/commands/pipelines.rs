//! `ldp pipelines`.

use std::io::Write;

use ldp_pipeline::routes::ROUTES;
use serde_json::json;

use crate::output::cell::Cell;
use crate::output::table;

/// Lists the routes.
pub fn run(json: bool) -> anyhow::Result<u8> {
    let mut stdout = std::io::stdout().lock();
    if json {
        let list: Vec<_> = ROUTES
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "source": r.source.as_str(),
                    "target": r.target.as_str(),
                    "engine": r.engine,
                    "pipeline": r.pipeline,
                    "plugin": r.plugin,
                    "available": r.plugin.is_some(),
                    "reference": i < ldp_pipeline::routes::REFERENCE_ROUTES,
                })
            })
            .collect();
        writeln!(stdout, "{}", super::json_text(&list)?)?;
        return Ok(0);
    }
    let header: Vec<String> = ["source", "target", "engine", "pipeline", "plugin"]
        .map(String::from)
        .to_vec();
    let rows: Vec<Vec<Cell>> = ROUTES
        .iter()
        .map(|r| {
            vec![
                Cell::Text(r.source.as_str().into()),
                Cell::Text(r.target.as_str().into()),
                Cell::Text(r.engine.unwrap_or("-").into()),
                Cell::Text(r.pipeline.into()),
                Cell::Text(r.plugin.map_or_else(|| "(not yet)".into(), String::from)),
            ]
        })
        .collect();
    write!(
        stdout,
        "{}",
        table::render(&header, &rows, rows.len() as u64)
    )?;
    Ok(0)
}
