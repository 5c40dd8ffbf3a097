//! `ldp run CONFIG`.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use ldp_config::WriteMode;
use ldp_pipeline::{Pipeline, RunOptions};
use ldp_plugin_runtime::Runtime;

use crate::progress::Progress;

/// Runs the config; prints the reference's summary (or `--json`).
pub fn run(
    runtime: &Runtime,
    config: &Path,
    mode: Option<WriteMode>,
    json: bool,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let pipeline = Pipeline::open(ldp_pipeline::open_config(config)?)?;
    let progress = Progress::rows(&pipeline.config().source().name);
    let options = RunOptions {
        mode,
        cancel: Some(cancel),
        progress: progress.clone().map(|p| -> ldp_pipeline::ProgressFn {
            std::sync::Arc::new(move |rows| p.update(rows))
        }),
        ..RunOptions::default()
    };
    let result = pipeline.run(runtime, &options);
    if let Some(p) = &progress {
        p.finish();
    }
    let report = result?;
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", super::json_text(&report)?)?;
    } else {
        writeln!(stdout, "{}", report.summary_line())?;
        writeln!(stdout, "{}", report.target_line())?;
        if !report.quality.results.is_empty() {
            for line in report.quality.summary().lines() {
                writeln!(stdout, "  {line}")?;
            }
        }
    }
    Ok(0)
}
