//! A `pipeline` task: the dataset config run for the workflow's window. An Iceberg target is a
//! staged run under the window's idempotency key (the replace key with `--replace`, as a window
//! overwrite), so a window that published is skipped without reading its source; a file target
//! is replaced whole by a direct run whose window still picks the source path.

use std::path::Path;

use ldp_config::WriteMode;
use ldp_pipeline::{EventContext, Job, RunOptions, Staging};

use super::{Attempt, TaskRun};

/// Runs one attempt.
pub(crate) fn run(run: &TaskRun<'_>, config_path: &Path) -> Attempt {
    let job = match ldp_pipeline::open_config_for_run(config_path, false).and_then(Job::open) {
        Ok(job) => job,
        Err(error) => return Attempt::of_pipeline_error(&error, false),
    };
    let mut options = RunOptions {
        cancel: run.cancel,
        events: Some(EventContext {
            run_id: Some(run.run_id.to_owned()),
            attempt: u32::try_from(run.attempt).unwrap_or(u32::MAX),
            tags: run.tags(),
            sinks: vec![run.ledger.factory()],
        }),
        ..RunOptions::default()
    };
    match &job {
        Job::Table(_) => match staging(run, job.config()) {
            Ok(staging) => {
                options.staging = Some(staging);
                if run.replace {
                    options.mode = Some(WriteMode::Overwrite);
                }
            }
            Err(error) => return Attempt::of_pipeline_error(&error, false),
        },
        Job::File(_) => options.window = Some(run.window),
    }
    match job.run(run.runtime, &options) {
        Ok(report) => Attempt::of_report(&report),
        Err(error) => Attempt::of_pipeline_error(&error, true),
    }
}

/// The staging of the attempt: the key the plan computed for the window (the replace key with
/// `--replace`), the task's run id and attempt.
fn staging(run: &TaskRun<'_>, config: &ldp_config::Config) -> ldp_pipeline::Result<Staging> {
    let dir = config.base_dir.as_deref();
    let key = match run.planned("idempotency_key") {
        Some(key) => key.to_owned(),
        None => ldp_config::idempotency_key(
            &config.identifier,
            &ldp_config::target_identity(&config.raw, dir)?,
            Some(&run.window),
        )?,
    };
    Ok(Staging {
        run_id: run.run_id.to_owned(),
        attempt: u32::try_from(run.attempt).unwrap_or(u32::MAX),
        key,
        spec_hash: ldp_config::spec_hash(&config.raw, dir)?,
        window: Some(run.window),
        search_since_ms: run.search_since_ms,
    })
}
