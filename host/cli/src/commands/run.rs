//! `ldp run CONFIG [--mode M] [--window W] [--idempotency-key K|auto] [--run-id ID]
//! [--attempt N] [--strict] [--json]`.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use ldp_config::Config;
use ldp_pipeline::{Job, RunOptions, Staging};
use ldp_plugin_runtime::Runtime;

use crate::progress::Progress;
use crate::settings::{RunCmdSettings, StagedArgs};

/// Runs the config; prints the summary line, the target line, the quality report and, for a
/// staged run, the window, key, run id, attempt, status and snapshot (or `--json`).
pub fn run(
    runtime: &Runtime,
    settings: &RunCmdSettings,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let pipeline = Job::open(ldp_pipeline::open_config_for_run(
        &settings.config,
        settings.strict,
    )?)?;
    let staging = settings
        .staged
        .as_ref()
        .map(|args| staging(pipeline.config(), args))
        .transpose()?;
    let progress = Progress::rows(&pipeline.config().identifier);
    let options = RunOptions {
        mode: settings.mode,
        external_transform: settings
            .pipe
            .clone()
            .map(|pipe| -> ldp_pipeline::transform::SharedExternal { std::sync::Arc::new(pipe) }),
        cancel: Some(cancel),
        progress: progress.clone().map(|p| -> ldp_pipeline::ProgressFn {
            std::sync::Arc::new(move |rows| p.update(rows))
        }),
        staging: staging.clone(),
        ..RunOptions::default()
    };
    let result = pipeline.run(runtime, &options);
    if let Some(p) = &progress {
        p.finish();
    }
    let report = result?;
    let mut stdout = std::io::stdout().lock();
    if settings.json {
        writeln!(stdout, "{}", super::json_text(&report)?)?;
    } else {
        writeln!(stdout, "{}", report.summary_line())?;
        if let Some(line) = report.target_line() {
            writeln!(stdout, "{line}")?;
        }
        if !report.quality.results.is_empty() {
            for line in report.quality.summary().lines() {
                writeln!(stdout, "  {line}")?;
            }
        }
        if let Some(staging) = &staging {
            let window = staging.window.as_ref().map(|w| w.label());
            for line in report.staged_lines(window.as_deref(), staging.attempt) {
                writeln!(stdout, "{line}")?;
            }
        }
    }
    Ok(0)
}

/// The staging of a run: its window read in the config's time zone, its key (given, or the
/// window's), a run id, the spec hash.
fn staging(config: &Config, args: &StagedArgs) -> anyhow::Result<Staging> {
    let now = jiff::Timestamp::now();
    let zone = config
        .metadata
        .window
        .as_ref()
        .map_or(jiff::tz::TimeZone::UTC, |w| w.time_zone());
    let window = args
        .window
        .as_deref()
        .map(|text| ldp_config::Window::parse(text, &zone, now))
        .transpose()?;
    let dir = config.base_dir.as_deref();
    let key = match &args.key {
        Some(key) => key.clone(),
        None => ldp_config::idempotency_key(
            &config.identifier,
            &ldp_config::target_identity(&config.raw, dir)?,
            window.as_ref(),
        )?,
    };
    Ok(Staging {
        run_id: args
            .run_id
            .clone()
            .unwrap_or_else(ldp_pipeline::staged::new_run_id),
        attempt: args.attempt,
        key,
        spec_hash: ldp_config::spec_hash(&config.raw, dir)?,
        window,
        search_since_ms: Staging::search_since(now.as_millisecond()),
    })
}
