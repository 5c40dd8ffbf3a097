//! `ldp gold build DIR`: the gold tables of a folder, one at a time in the order of their
//! inputs, each behind its quality gate and its contract; then a release.
//!
//! * A gold config with inputs is run as `ldp run` runs it. One with none is built elsewhere:
//!   its table must exist, its checks run over its current snapshot, and nothing is written.
//! * The build stops at the first table that a gate blocks (a failed check, a contract not
//!   kept) or that fails; the tables after it are not run, since they could read what it did
//!   not write.
//! * When every table was built or checked, a release is cut, unless the tables are at the
//!   snapshots of the current release already. A folder whose gold tables are not in one
//!   namespace of one local warehouse is refused before anything runs, unless the build cuts
//!   no release.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ldp_pipeline::{ErrorKind as RunErrorKind, EventContext, Job, RunOptions};
use ldp_plugin_runtime::Runtime;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::order::{GoldConfig, gold_configs};
use crate::release::{Release, ReleaseItem, current_release, cut_release};

/// What the build does besides building.
#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    /// Cut a release when every table passed (`--no-release` turns it off).
    pub release: bool,
}

/// What happened to one gold table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableStatus {
    /// Run and published.
    Built,
    /// Built elsewhere; its table exists and its checks passed.
    Checked,
    /// A gate held it back (exit 3).
    Blocked,
    /// It failed (exit 1).
    Failed,
    /// An earlier table stopped the build.
    NotRun,
}

impl TableStatus {
    /// `built`, `checked`, `blocked`, `failed`, `not run`.
    pub fn as_str(self) -> &'static str {
        match self {
            TableStatus::Built => "built",
            TableStatus::Checked => "checked",
            TableStatus::Blocked => "blocked",
            TableStatus::Failed => "failed",
            TableStatus::NotRun => "not run",
        }
    }
}

/// One gold table of a build.
#[derive(Debug, Clone)]
pub struct TableOutcome {
    /// The config file.
    pub config: PathBuf,
    /// The config's identifier.
    pub name: String,
    /// `ns.t`.
    pub table: String,
    /// What happened.
    pub status: TableStatus,
    /// The rows of the snapshot built or checked.
    pub rows: Option<u64>,
    /// That snapshot.
    pub snapshot_id: Option<i64>,
    /// Checks that passed, and checks run.
    pub checks: (usize, usize),
    /// The run that built it.
    pub run_id: Option<String>,
    /// Why it was blocked or failed.
    pub message: Option<String>,
}

/// The release part of a build.
#[derive(Debug, Clone)]
pub enum ReleaseOutcome {
    /// `--no-release`.
    Off,
    /// A new release.
    Cut(Release),
    /// The tables are at the snapshots of the current release: no new one.
    Unchanged(Release),
    /// A table did not pass: no release; readers still see the current one, if any.
    Held {
        /// The current release.
        current: Option<String>,
    },
}

/// A finished build.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// The folder.
    pub folder: PathBuf,
    /// Each gold table, in build order.
    pub tables: Vec<TableOutcome>,
    /// The release.
    pub release: ReleaseOutcome,
    /// Wall time, seconds.
    pub duration_s: f64,
}

impl BuildReport {
    /// How many tables ended with `status`.
    pub fn count(&self, status: TableStatus) -> usize {
        self.tables.iter().filter(|t| t.status == status).count()
    }

    /// 3 when a gate held a table back, 1 when one failed, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.count(TableStatus::Blocked) > 0 {
            3
        } else if self.count(TableStatus::Failed) > 0 {
            1
        } else {
            0
        }
    }

    /// One line per table: `daily_revenue  built  96 rows  snapshot 38…  4 of 4 checks passed`.
    pub fn table_lines(&self) -> Vec<String> {
        let width = self.tables.iter().map(|t| t.name.len()).max().unwrap_or(0);
        self.tables
            .iter()
            .map(|t| {
                let mut line = format!("{:width$}  {:<13}", t.name, t.status.as_str());
                if let Some(rows) = t.rows {
                    line.push_str(&format!("  {rows} rows"));
                }
                if let Some(snapshot) = t.snapshot_id {
                    line.push_str(&format!("  snapshot {snapshot}"));
                }
                if t.checks.1 > 0 {
                    line.push_str(&format!("  {} of {} checks passed", t.checks.0, t.checks.1));
                }
                if let Some(message) = &t.message {
                    line.push_str(&format!("  {message}"));
                }
                line.trim_end().to_string()
            })
            .collect()
    }

    /// `gold build DIR: 2 built, 0 checked, 0 blocked, 0 failed, 0 not run in 0.6s`.
    pub fn summary_line(&self) -> String {
        format!(
            "gold build {}: {} built, {} checked, {} blocked, {} failed, {} not run in {:.1}s",
            self.folder.display(),
            self.count(TableStatus::Built),
            self.count(TableStatus::Checked),
            self.count(TableStatus::Blocked),
            self.count(TableStatus::Failed),
            self.count(TableStatus::NotRun),
            self.duration_s
        )
    }

    /// What became of the release, as one line (none with `--no-release`).
    pub fn release_line(&self) -> Option<String> {
        match &self.release {
            ReleaseOutcome::Off => None,
            ReleaseOutcome::Cut(r) => Some(format!(
                "release {} cut with {} tables and {} rows in {}",
                r.name,
                r.tables.len(),
                r.rows(),
                r.namespace
            )),
            ReleaseOutcome::Unchanged(r) => Some(format!(
                "release {} stays current: the tables are at its snapshots",
                r.name
            )),
            ReleaseOutcome::Held {
                current: Some(name),
            } => Some(format!("no release cut; readers still see release {name}")),
            ReleaseOutcome::Held { current: None } => {
                Some("no release cut; there is no release yet".to_string())
            }
        }
    }

    /// `ldp gold build --json`.
    pub fn to_json(&self) -> Value {
        let release = match &self.release {
            ReleaseOutcome::Off => json!({"status": "off"}),
            ReleaseOutcome::Cut(r) => json!({"status": "cut", "release": r.to_json()}),
            ReleaseOutcome::Unchanged(r) => json!({"status": "unchanged", "release": r.to_json()}),
            ReleaseOutcome::Held { current } => json!({"status": "held", "current": current}),
        };
        json!({
            "folder": self.folder.display().to_string(),
            "tables": self.tables.iter().map(|t| json!({
                "config": t.config.display().to_string(),
                "name": t.name,
                "table": t.table,
                "status": t.status.as_str(),
                "rows": t.rows,
                "snapshot_id": t.snapshot_id,
                "checks_passed": t.checks.0,
                "checks": t.checks.1,
                "run_id": t.run_id,
                "message": t.message,
            })).collect::<Vec<_>>(),
            "built": self.count(TableStatus::Built),
            "checked": self.count(TableStatus::Checked),
            "blocked": self.count(TableStatus::Blocked),
            "failed": self.count(TableStatus::Failed),
            "not_run": self.count(TableStatus::NotRun),
            "release": release,
            "duration_s": (self.duration_s * 1000.0).round() / 1000.0,
            "exit_code": self.exit_code(),
        })
    }
}

/// Builds the gold tables of `folder`; `progress` is told each table's outcome as it ends.
///
/// # Errors
///
/// A cycle, a gold config that is invalid, tables that no release can hold (with releases
/// on), or a release that cannot be cut. A table that is blocked or fails is an outcome in
/// the report, not an error.
pub fn build_gold(
    folder: &Path,
    runtime: &Runtime,
    options: BuildOptions,
    progress: &mut dyn FnMut(&TableOutcome),
) -> Result<BuildReport> {
    let started = Instant::now();
    let configs = gold_configs(folder)?;
    if configs.is_empty() {
        return Err(Error::NoGold {
            folder: folder.to_path_buf(),
        });
    }
    let scope = if options.release {
        Some(release_scope(folder, &configs)?)
    } else {
        None
    };
    let mut tables: Vec<TableOutcome> = Vec::with_capacity(configs.len());
    let mut stopped = false;
    for gold in &configs {
        let outcome = if stopped {
            outcome(gold, TableStatus::NotRun)
        } else if gold.is_built_here() {
            build_one(gold, runtime)
        } else {
            check_one(gold, runtime)
        };
        stopped |= matches!(outcome.status, TableStatus::Blocked | TableStatus::Failed);
        progress(&outcome);
        tables.push(outcome);
    }
    let release = match scope {
        None => ReleaseOutcome::Off,
        Some((warehouse, namespace)) if stopped => ReleaseOutcome::Held {
            current: current_release(&warehouse, &namespace)?.map(|r| r.name),
        },
        Some((warehouse, namespace)) => release(&warehouse, &namespace, &configs, &tables)?,
    };
    Ok(BuildReport {
        folder: folder.to_path_buf(),
        tables,
        release,
        duration_s: started.elapsed().as_secs_f64(),
    })
}

/// The one namespace of one local warehouse that holds every gold table of the folder.
fn release_scope(folder: &Path, configs: &[GoldConfig]) -> Result<(PathBuf, String)> {
    let mut places: Vec<(PathBuf, String, String)> = Vec::new();
    for gold in configs {
        let t = &gold.table;
        if !t.local && t.object_location.is_some() {
            return Err(Error::ReleaseScope {
                message: format!(
                    "{}: the table {} is in the warehouse {}, and a release is a file of a local warehouse; build with --no-release",
                    gold.path.display(),
                    t.identifier(),
                    t.warehouse.display()
                ),
            });
        }
        let place = (t.warehouse.clone(), t.namespace.clone(), gold.file_name());
        if !places.iter().any(|p| p.0 == place.0 && p.1 == place.1) {
            places.push(place);
        }
    }
    match places.as_slice() {
        [(warehouse, namespace, _)] => Ok((warehouse.clone(), namespace.clone())),
        [first, second, ..] => Err(Error::ReleaseScope {
            message: format!(
                "the gold tables of {} are in more than one namespace or warehouse ({} writes {} in {}, {} writes {} in {}), and a release covers one namespace of one warehouse; give each its own folder, or build with --no-release",
                folder.display(),
                first.2,
                first.1,
                first.0.display(),
                second.2,
                second.1,
                second.0.display()
            ),
        }),
        [] => Err(Error::NoGold {
            folder: folder.to_path_buf(),
        }),
    }
}

fn outcome(gold: &GoldConfig, status: TableStatus) -> TableOutcome {
    TableOutcome {
        config: gold.path.clone(),
        name: gold.config.identifier.clone(),
        table: gold.table.identifier(),
        status,
        rows: None,
        snapshot_id: None,
        checks: (0, 0),
        run_id: None,
        message: None,
    }
}

/// The status of a run that failed: blocked when a gate held it back, else failed.
fn failure(gold: &GoldConfig, error: &ldp_pipeline::Error) -> TableOutcome {
    let status = if error.kind() == RunErrorKind::Quality {
        TableStatus::Blocked
    } else {
        TableStatus::Failed
    };
    let mut out = outcome(gold, status);
    if let ldp_pipeline::Error::Quality { report } = error {
        out.checks = (report.results.len() - report.failed(), report.results.len());
    }
    out.message = Some(error.to_string());
    out
}

/// Runs a gold config as `ldp run` does. Its events go to `_ldp.runs` and
/// `_ldp.quality_results` in its table's catalog (so `ldp mcp` shows the table's last run and
/// verdicts), unless the config names sinks of its own.
fn build_one(gold: &GoldConfig, runtime: &Runtime) -> TableOutcome {
    let own_sinks = gold
        .config
        .raw
        .get("metadata")
        .and_then(Value::as_object)
        .is_some_and(|metadata| {
            ldp_config::sink_specs(metadata).is_ok_and(|specs| !specs.is_empty())
        });
    let options = RunOptions {
        events: (!own_sinks).then(|| EventContext {
            run_id: None,
            attempt: 1,
            tags: Vec::new(),
            sinks: vec![ldp_pipeline::iceberg_sink_factory(&gold.table)],
        }),
        ..RunOptions::default()
    };
    let run = ldp_pipeline::open_config_for_run(&gold.path, false)
        .and_then(Job::open)
        .and_then(|job| job.run(runtime, &options));
    match run {
        Ok(report) => {
            let mut out = outcome(gold, TableStatus::Built);
            out.rows = Some(report.rows_written);
            out.snapshot_id = report.published_snapshot_id;
            out.checks = (
                report.quality.results.len() - report.quality.failed(),
                report.quality.results.len(),
            );
            out.run_id = report.run_id;
            out
        }
        Err(e) => failure(gold, &e),
    }
}

/// Checks a gold config that is built elsewhere.
fn check_one(gold: &GoldConfig, runtime: &Runtime) -> TableOutcome {
    match ldp_pipeline::check_table(&gold.config, runtime) {
        Ok(check) => {
            let mut out = outcome(gold, TableStatus::Checked);
            out.rows = Some(check.rows);
            out.snapshot_id = Some(check.snapshot_id);
            out.checks = (
                check.quality.results.len() - check.quality.failed(),
                check.quality.results.len(),
            );
            out
        }
        Err(e) => failure(gold, &e),
    }
}

/// Cuts the next release, unless the tables are at the current one's snapshots.
fn release(
    warehouse: &Path,
    namespace: &str,
    configs: &[GoldConfig],
    tables: &[TableOutcome],
) -> Result<ReleaseOutcome> {
    let items: Vec<ReleaseItem> = configs
        .iter()
        .zip(tables)
        .filter_map(|(gold, outcome)| {
            Some(ReleaseItem {
                table: gold.table.clone(),
                snapshot_id: outcome.snapshot_id?,
                run_id: outcome.run_id.clone(),
                rows: outcome.rows.unwrap_or(0),
            })
        })
        .collect();
    if let Some(current) = current_release(warehouse, namespace)? {
        let same = current.tables.len() == items.len()
            && items.iter().all(|item| {
                current.snapshot_for(&item.table.identifier()) == Some(item.snapshot_id)
            });
        if same {
            return Ok(ReleaseOutcome::Unchanged(current));
        }
    }
    Ok(ReleaseOutcome::Cut(cut_release(
        warehouse, namespace, &items,
    )?))
}
