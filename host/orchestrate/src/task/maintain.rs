//! A `maintain` task: snapshot expiry of a config's Iceberg table (`ldp maintain`'s rules), a
//! dry run unless `apply`. It changes no data.

use ldp_catalog::Mode;
use ldp_config::workflow::MaintainTask;
use ldp_pipeline::TargetTable;
use ldp_table::{ExpireOptions, Table, expire_snapshots};
use serde_json::{Map, Value};

use super::{Attempt, TaskRun};

/// Snapshots older than this many days expire when the task does not say (`expire`).
const DEFAULT_EXPIRE_DAYS: f64 = 7.0;
/// The newest snapshots of `main` kept whatever their age (`retain_last`).
const DEFAULT_RETAIN_LAST: u64 = 20;

/// Runs one attempt.
pub(crate) fn run(run: &TaskRun<'_>, task: &MaintainTask) -> Attempt {
    let path = run.workflow.resolve(&task.config);
    let target = match ldp_pipeline::open_config(&path)
        .and_then(|config| TargetTable::resolve(&config, config.target()))
    {
        Ok(target) => target,
        Err(error) => return Attempt::of_pipeline_error(&error, false),
    };
    let mut detail = Map::new();
    detail.insert("table".into(), target.identifier().into());
    detail.insert("dry_run".into(), (!task.apply).into());
    if task.orphans {
        return Attempt::failed(
            "ConfigError",
            format!(
                "task '{}': orphan file removal ('orphans': true) is not built in this version of ldp; \
                 remove the key to expire snapshots only",
                run.task.id
            ),
            false,
        );
    }
    let outcome = (|| -> ldp_pipeline::Result<usize> {
        let mode = if task.apply {
            Mode::Create
        } else {
            Mode::ReadOnly
        };
        let catalog = target.open_catalog(mode)?;
        let mut table = Table::load(&catalog, &target.namespace, &target.name)?;
        let options = ExpireOptions {
            older_than_days: task.expire.unwrap_or(DEFAULT_EXPIRE_DAYS),
            retain_last: usize::try_from(task.retain_last.unwrap_or(DEFAULT_RETAIN_LAST))
                .unwrap_or(usize::MAX),
            apply: task.apply,
        };
        let now_ms = jiff::Timestamp::now().as_millisecond();
        let report = expire_snapshots(&catalog, &mut table, &options, now_ms)?;
        Ok(report.expired_snapshot_ids.len())
    })();
    match outcome {
        Ok(n) => {
            let key = if task.apply {
                "snapshots_expired"
            } else {
                "snapshots_to_expire"
            };
            detail.insert(key.into(), Value::from(n));
            Attempt::done("succeeded", detail, false)
        }
        Err(error) => {
            let mut attempt = Attempt::of_pipeline_error(&error, false);
            attempt.detail = detail;
            attempt
        }
    }
}
