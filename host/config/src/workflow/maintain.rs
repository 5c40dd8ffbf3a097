//! The `maintain` task kind: the options of `ldp maintain` for a config's Iceberg table.
//!
//! ```json
//! {"id": "tidy", "depends_on": ["orders"], "maintain": {"config": "daily_orders.json", "expire": 7}}
//! ```
//!
//! `config` (required) is the path of a dataset config with an Iceberg table, relative to the
//! workflow file; `expire` (days, a number from 0), `orphans` (bool), `apply` (bool, false = a
//! dry run), `retain_last` (a whole number from 1), `orphan_age_hours` (a number from 0) and
//! `keep_metadata_versions` (a whole number from 0) are the options of `ldp maintain` written
//! with `_` for `-`, as in the Python tool. ldp adds `compact` (bool), `target_file_size`
//! (bytes, a whole number from 1; default 128 MiB), `sort_by` (a list of column names; needs
//! `compact`), `rewrite_manifests` (bool) and `allow_recent` (bool). A maintain task changes no
//! rows: compaction rewrites files, never their data.

use serde_json::Value;

use crate::problems::{Problems, as_number, as_whole, non_blank};
use crate::repr::repr;

/// The keys of a maintain task: the Python tool's, in its order, then ldp's.
pub const MAINTAIN_KEYS: [&str; 12] = [
    "config",
    "expire",
    "orphans",
    "apply",
    "retain_last",
    "orphan_age_hours",
    "keep_metadata_versions",
    "compact",
    "target_file_size",
    "sort_by",
    "rewrite_manifests",
    "allow_recent",
];

/// The value of a `maintain` task.
#[derive(Clone, Debug, PartialEq)]
pub struct MaintainTask {
    /// The dataset config whose table is maintained, as written.
    pub config: String,
    /// Expire snapshots older than this many days.
    pub expire: Option<f64>,
    /// Find (and with `apply`, delete) files no metadata references.
    pub orphans: bool,
    /// Change the table; `false` is a dry run.
    pub apply: bool,
    /// Keep at least this many snapshots.
    pub retain_last: Option<u64>,
    /// Only files older than this are orphans.
    pub orphan_age_hours: Option<f64>,
    /// Metadata files to keep.
    pub keep_metadata_versions: Option<u64>,
    /// Compact small data files.
    pub compact: bool,
    /// The size compaction writes files to (bytes).
    pub target_file_size: Option<u64>,
    /// Columns compaction sorts the rows by.
    pub sort_by: Vec<String>,
    /// Merge the data manifests.
    pub rewrite_manifests: bool,
    /// Allow deleting orphans younger than 24 hours.
    pub allow_recent: bool,
}

/// Checks the value of a `maintain` task at `at` (`tasks[2].maintain`).
pub(super) fn check_maintain(
    problems: &mut Problems,
    value: &Value,
    at: &str,
) -> Option<MaintainTask> {
    let Some(map) = value.as_object() else {
        problems.add(
            at,
            "must be an object with a 'config', the path of a dataset config with an Iceberg table",
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, map, &MAINTAIN_KEYS);
    let config = map.get("config").and_then(non_blank).map(str::to_owned);
    if config.is_none() {
        problems.add(
            &format!("{at}.config"),
            "is required: the path of a dataset config with an Iceberg table",
        );
    }
    let number = |problems: &mut Problems, key: &str| -> Option<f64> {
        let raw = map.get(key)?;
        match as_number(raw) {
            Some(n) if n >= 0.0 => Some(n),
            _ => {
                problems.add(
                    &format!("{at}.{key}"),
                    format!("must be a number from 0, got {}", repr(raw)),
                );
                None
            }
        }
    };
    let expire = number(problems, "expire");
    let orphan_age_hours = number(problems, "orphan_age_hours");
    let whole = |problems: &mut Problems, key: &str, least: i128| -> Option<u64> {
        let raw = map.get(key)?;
        match as_whole(raw) {
            Some(n) if n >= least => Some(u64::try_from(n).unwrap_or(u64::MAX)),
            _ => {
                problems.add(
                    &format!("{at}.{key}"),
                    format!("must be a whole number from {least}, got {}", repr(raw)),
                );
                None
            }
        }
    };
    let retain_last = whole(problems, "retain_last", 1);
    let keep_metadata_versions = whole(problems, "keep_metadata_versions", 0);
    let flag = |problems: &mut Problems, key: &str| -> bool {
        match map.get(key) {
            None => false,
            Some(Value::Bool(flag)) => *flag,
            Some(raw) => {
                problems.add(
                    &format!("{at}.{key}"),
                    format!("must be true or false, got {}", repr(raw)),
                );
                false
            }
        }
    };
    let orphans = flag(problems, "orphans");
    let apply = flag(problems, "apply");
    let compact = flag(problems, "compact");
    let rewrite_manifests = flag(problems, "rewrite_manifests");
    let allow_recent = flag(problems, "allow_recent");
    let target_file_size = whole(problems, "target_file_size", 1);
    let sort_by = sort_columns(problems, map.get("sort_by"), at);
    if !compact && (target_file_size.is_some() || !sort_by.is_empty()) {
        problems.add(
            at,
            "'target_file_size' and 'sort_by' are options of compaction: add \"compact\": true",
        );
    }
    if problems.len() > before {
        return None;
    }
    Some(MaintainTask {
        config: config?,
        expire,
        orphans,
        apply,
        retain_last,
        orphan_age_hours,
        keep_metadata_versions,
        compact,
        target_file_size,
        sort_by,
        rewrite_manifests,
        allow_recent,
    })
}

/// `sort_by`: a list of non-blank column names.
fn sort_columns(problems: &mut Problems, value: Option<&Value>, at: &str) -> Vec<String> {
    let Some(value) = value else {
        return Vec::new();
    };
    let columns: Option<Vec<String>> = value.as_array().and_then(|items| {
        items
            .iter()
            .map(|item| non_blank(item).map(str::to_owned))
            .collect()
    });
    match columns {
        Some(columns) if !columns.is_empty() => columns,
        _ => {
            problems.add(
                &format!("{at}.sort_by"),
                format!("must be a list of column names, got {}", repr(value)),
            );
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn maintain(value: Value) -> Result<MaintainTask, Vec<String>> {
        let mut problems = Problems::default();
        check_maintain(&mut problems, &value, "tasks[0].maintain")
            .ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn options() {
        let task =
            maintain(json!({"config": "a.json", "expire": 7, "apply": true, "retain_last": 3}))
                .expect("valid");
        assert_eq!(
            (task.expire, task.apply, task.orphans, task.retain_last),
            (Some(7.0), true, false, Some(3))
        );
    }

    #[test]
    fn messages() {
        assert_eq!(
            maintain(json!("a.json")).unwrap_err(),
            [
                "tasks[0].maintain: must be an object with a 'config', the path of a dataset config with an Iceberg table"
            ]
        );
        assert_eq!(
            maintain(json!({"expire": -1, "orphan_age_hours": "x", "retain_last": 0,
                            "keep_metadata_versions": 1.5, "orphans": "yes", "apply": null, "dry": 1}))
            .unwrap_err(),
            [
                "tasks[0].maintain: has unknown keys ['dry']; allowed: ['config', 'expire', 'orphans', 'apply', 'retain_last', 'orphan_age_hours', 'keep_metadata_versions', 'compact', 'target_file_size', 'sort_by', 'rewrite_manifests', 'allow_recent']",
                "tasks[0].maintain.config: is required: the path of a dataset config with an Iceberg table",
                "tasks[0].maintain.expire: must be a number from 0, got -1",
                "tasks[0].maintain.orphan_age_hours: must be a number from 0, got 'x'",
                "tasks[0].maintain.retain_last: must be a whole number from 1, got 0",
                "tasks[0].maintain.keep_metadata_versions: must be a whole number from 0, got 1.5",
                "tasks[0].maintain.orphans: must be true or false, got 'yes'",
                "tasks[0].maintain.apply: must be true or false, got None",
            ]
        );
        assert_eq!(
            maintain(json!({"config": "a.json", "sort_by": ["id"], "compact": 1})).unwrap_err(),
            [
                "tasks[0].maintain.compact: must be true or false, got 1",
                "tasks[0].maintain: 'target_file_size' and 'sort_by' are options of compaction: add \"compact\": true",
            ]
        );
        let task = maintain(
            json!({"config": "a.json", "compact": true, "sort_by": ["day", "id"],
                                   "target_file_size": 1024, "orphans": true}),
        )
        .expect("valid");
        assert_eq!(
            (
                task.compact,
                task.sort_by.clone(),
                task.target_file_size,
                task.orphans
            ),
            (
                true,
                vec!["day".to_string(), "id".to_string()],
                Some(1024),
                true
            )
        );
        assert_eq!(
            maintain(json!({"config": "a.json", "expire": true})).unwrap_err(),
            ["tasks[0].maintain.expire: must be a number from 0, got True"]
        );
    }
}
