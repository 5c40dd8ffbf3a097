//! A `maintain` task: `ldp maintain` of a config's Iceberg table (`ldp_pipeline::maintain`), a
//! dry run unless `apply`. Its detail is the Python tool's (`table`, `dry_run`,
//! `snapshots_to_expire`|`snapshots_expired`, `orphan_files`|`orphan_files_deleted`) and, when
//! they ran, `files_compacted`|`files_to_compact` and `manifests_after`. A file that could not
//! be deleted fails the task.

use ldp_config::workflow::MaintainTask;
use ldp_pipeline::maintain::{MaintainReport, MaintainRequest, maintain};
use ldp_table::CompactOptions;
use serde_json::{Map, Value};

use super::{Attempt, TaskRun};

/// Runs one attempt.
pub(crate) fn run(run: &TaskRun<'_>, task: &MaintainTask) -> Attempt {
    let path = run.workflow.resolve(&task.config);
    let defaults = MaintainRequest::default();
    let request = MaintainRequest {
        expire: task.expire,
        orphans: task.orphans,
        compact: task.compact.then(|| CompactOptions {
            target_file_size: task
                .target_file_size
                .unwrap_or(CompactOptions::default().target_file_size),
            sort_by: task.sort_by.clone(),
            apply: task.apply,
        }),
        rewrite_manifests: task.rewrite_manifests,
        apply: task.apply,
        retain_last: task.retain_last.map_or(defaults.retain_last, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        }),
        orphan_age_hours: task.orphan_age_hours.unwrap_or(defaults.orphan_age_hours),
        keep_metadata_versions: task
            .keep_metadata_versions
            .map_or(defaults.keep_metadata_versions, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            }),
        allow_recent: task.allow_recent,
    };
    let now_ms = jiff::Timestamp::now().as_millisecond();
    match maintain(&path, &request, now_ms) {
        Ok(report) if report.failed() => {
            let failed = report.orphans.as_ref().map_or(0, |o| o.failed.len());
            let mut attempt = Attempt::failed(
                "RuntimeError",
                format!(
                    "{failed} orphan files of {} could not be deleted",
                    report.table
                ),
                false,
            );
            attempt.detail = detail(&report);
            attempt
        }
        Ok(report) => Attempt::done("succeeded", detail(&report), false),
        Err(error) => Attempt::of_pipeline_error(&error, false),
    }
}

/// The task's detail (see the module docs).
fn detail(report: &MaintainReport) -> Map<String, Value> {
    let dry = report.dry_run;
    let mut detail = Map::new();
    detail.insert("table".into(), report.table.clone().into());
    detail.insert("dry_run".into(), dry.into());
    if let Some(expire) = &report.expire {
        let key = if dry {
            "snapshots_to_expire"
        } else {
            "snapshots_expired"
        };
        detail.insert(key.into(), expire.expired_snapshot_ids.len().into());
    }
    if let Some(orphans) = &report.orphans {
        let (key, count) = if dry {
            ("orphan_files", orphans.orphans.len())
        } else {
            ("orphan_files_deleted", orphans.deleted.len())
        };
        detail.insert(key.into(), count.into());
    }
    if let Some(compact) = &report.compact {
        let key = if compact.committed {
            "files_compacted"
        } else {
            "files_to_compact"
        };
        detail.insert(key.into(), compact.files_rewritten.into());
        detail.insert("manifests_after".into(), compact.manifests_after.into());
    }
    if let Some(manifests) = &report.rewrite_manifests {
        detail.insert("manifests_after".into(), manifests.manifests_after.into());
    }
    detail
}
