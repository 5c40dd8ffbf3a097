//! `ldp runs CONFIG|FILE.jsonl [--jsonl F] [--run ID] [--events] [--attempts] [--limit N]
//! [--json]`: the runs a pipeline recorded, from `_ldp.runs` or its JSONL events file.

use std::io::Write;
use std::path::{Path, PathBuf};

use ldp_config::{DEFAULT_JSONL_PATH, SinkKind};
use ldp_events::runs::{RunsOptions, runs_json, runs_text, select_events};
use ldp_events::system_tables::{RUNS_TABLE, SYSTEM_NAMESPACE};
use ldp_events::{Event, events_from_runs_batch, read_events_file};
use ldp_pipeline::TargetTable;

use crate::settings::RunsSettings;

/// Prints the runs (or events) recorded for a config or in a JSONL file.
pub fn run(settings: &RunsSettings) -> anyhow::Result<u8> {
    let (events, location) = load(settings)?;
    let options = RunsOptions {
        run: settings.run.clone(),
        events: settings.events,
        attempts: settings.attempts,
        limit: settings.limit,
    };
    let mut stdout = std::io::stdout().lock();
    if settings.json {
        writeln!(
            stdout,
            "{}",
            super::json_text(&runs_json(&events, &location, &options))?
        )?;
    } else {
        write!(stdout, "{}", runs_text(&events, &location, &options))?;
    }
    Ok(0)
}

/// The events to show and where they were read, as the Python tool picks them: a `.jsonl`
/// file (or `--jsonl`) as given; for a config, `_ldp.runs` of its Iceberg catalog when that
/// catalog exists and the table has its events, or it lists an `iceberg` sink, or no `jsonl`
/// sink; else its JSONL file. Nothing is created while looking.
pub(crate) fn load(settings: &RunsSettings) -> anyhow::Result<(Vec<Event>, String)> {
    let run = settings.run.as_deref();
    let path = &settings.target;
    let is_jsonl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    if let Some(file) = settings
        .jsonl
        .as_deref()
        .or(is_jsonl.then_some(path.as_path()))
    {
        return Ok((read_file(file, None, run)?, file.display().to_string()));
    }
    let config = ldp_pipeline::open_config(path)?;
    let metadata = config
        .raw
        .get("metadata")
        .and_then(|m| m.as_object())
        .cloned()
        .unwrap_or_default();
    let specs = ldp_config::sink_specs(&metadata).unwrap_or_default();
    let iceberg = specs.iter().find(|s| s.kind == SinkKind::Iceberg);
    let jsonl = specs.iter().find(|s| s.kind == SinkKind::Jsonl);
    let namespace = iceberg
        .and_then(|s| s.options.get("namespace"))
        .and_then(|v| v.as_str())
        .unwrap_or(SYSTEM_NAMESPACE)
        .to_string();
    let table = [config.target(), config.source()]
        .into_iter()
        .find(|b| b.is_iceberg())
        .and_then(|block| TargetTable::resolve(&config, block).ok());
    if let Some(table) = table.filter(TargetTable::catalog_may_exist) {
        let events = read_table(&table, &namespace, &config.identifier, run)?;
        if !events.is_empty() || iceberg.is_some() || jsonl.is_none() {
            return Ok((events, format!("{namespace}.{RUNS_TABLE}")));
        }
    }
    let text = jsonl
        .and_then(|s| s.options.get("path"))
        .and_then(|v| v.as_str())
        .unwrap_or(DEFAULT_JSONL_PATH);
    let base = config
        .base_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let file = if Path::new(text).is_absolute() {
        PathBuf::from(text)
    } else {
        base.join(text)
    };
    Ok((
        read_file(&file, Some(&config.identifier), run)?,
        file.display().to_string(),
    ))
}

fn read_file(file: &Path, pipeline: Option<&str>, run: Option<&str>) -> anyhow::Result<Vec<Event>> {
    if !file.is_file() {
        return Ok(Vec::new());
    }
    let events = read_events_file(file)?;
    Ok(select_events(events, pipeline, run))
}

/// The events of `pipeline` in `<namespace>.runs` of the table's catalog (none when the table
/// does not exist).
fn read_table(
    table: &TargetTable,
    namespace: &str,
    pipeline: &str,
    run: Option<&str>,
) -> anyhow::Result<Vec<Event>> {
    let catalog = table.open_catalog(ldp_catalog::Mode::ReadOnly)?;
    if !catalog.table_exists(namespace, RUNS_TABLE)? {
        return Ok(Vec::new());
    }
    let runs = ldp_table::Table::load(&catalog, namespace, RUNS_TABLE)?;
    let mut events = Vec::new();
    for batch in runs.read_all(None)? {
        events.extend(events_from_runs_batch(&batch)?);
    }
    Ok(select_events(events, Some(pipeline), run))
}
