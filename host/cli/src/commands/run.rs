//! `ldp run CONFIG`.

use std::io::Write;
use std::path::Path;

use ldp_config::WriteMode;
use ldp_pipeline::{Pipeline, RunOptions};
use ldp_plugin_runtime::Runtime;

/// Runs the config; prints the reference's summary (or `--json`).
pub fn run(
    runtime: &Runtime,
    config: &Path,
    mode: Option<WriteMode>,
    json: bool,
) -> anyhow::Result<u8> {
    let pipeline = Pipeline::open(ldp_pipeline::open_config(config)?)?;
    let options = RunOptions {
        mode,
        ..RunOptions::default()
    };
    let report = pipeline.run(runtime, &options)?;
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", super::json_text(&report)?)?;
    } else {
        writeln!(stdout, "{}", report.summary_line())?;
        writeln!(stdout, "{}", report.target_line())?;
    }
    Ok(0)
}
