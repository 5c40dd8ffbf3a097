//! A `sql` task: a SQL model over the workflow's Iceberg tables, run by DataFusion and published
//! to an Iceberg table as a staged run under the window's key (where the Python tool delegates
//! models to dbt).
//!
//! The session holds every Iceberg table the workflow's tasks read or write that exists (each as
//! `namespace.table`, and by its bare name when that is unique), at its current snapshot, so a
//! model sees what the tasks it depends on published. The query's rows are published through
//! the same writer, quality gate and staged publish as a pipeline: the task is the pipeline
//! `<workflow>.<task id>` whose source is the query.

use std::collections::BTreeMap;
use std::sync::Arc;

use ldp_config::workflow::{SqlQuery, SqlTask, TaskKind, sql_identifier};
use ldp_config::{Config, Document, Format};
use ldp_pipeline::{EventContext, Job, ProvidedBatches, RunOptions, Staging, TargetTable};
use ldp_sql::{Engine, Session, TableName};
use serde_json::{Map, Value, json};

use super::{Attempt, TaskRun};

/// Runs one attempt.
pub(crate) fn run(run: &TaskRun<'_>, sql: &SqlTask) -> Attempt {
    let query = match &sql.query {
        SqlQuery::Inline(text) => text.clone(),
        SqlQuery::File(file) => {
            let path = run.workflow.resolve(file);
            match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => {
                    return Attempt::failed(
                        "OSError",
                        format!("cannot read the SQL file {}: {e}", path.display()),
                        true,
                    );
                }
            }
        }
    };
    let config = match model_config(run, sql, &query) {
        Ok(config) => config,
        Err(error) => return Attempt::of_pipeline_error(&error, false),
    };
    let batches = match evaluate(run, &query) {
        Ok(batches) => batches,
        Err(attempt) => return *attempt,
    };
    let job = match Job::open(config) {
        Ok(job) => job,
        Err(error) => return Attempt::of_pipeline_error(&error, false),
    };
    let spec_hash =
        ldp_config::spec_hash(&job.config().raw, Some(&run.workflow.base_dir)).unwrap_or_default();
    let Some(key) = run.planned("idempotency_key").map(str::to_owned) else {
        return Attempt::failed(
            "ConfigError",
            format!(
                "task '{}' has no idempotency key for the window",
                run.task.id
            ),
            false,
        );
    };
    let options = RunOptions {
        cancel: run.cancel,
        events: Some(EventContext {
            run_id: Some(run.run_id.to_owned()),
            attempt: u32::try_from(run.attempt).unwrap_or(u32::MAX),
            tags: run.tags(),
            sinks: vec![run.ledger.factory()],
        }),
        staging: Some(Staging {
            run_id: run.run_id.to_owned(),
            attempt: u32::try_from(run.attempt).unwrap_or(u32::MAX),
            key,
            spec_hash,
            window: Some(run.window),
            search_since_ms: run.search_since_ms,
        }),
        batches: Some(batches),
        ..RunOptions::default()
    };
    match job.run(run.runtime, &options) {
        Ok(report) => Attempt::of_report(&report),
        Err(error) => Attempt::of_pipeline_error(&error, true),
    }
}

/// The dataset config the model publishes as: pipeline `<workflow>.<task id>`, its target the
/// task's, its source the target's table (never read: the query's rows stand in), and the query
/// in `how`, so a changed query changes the spec hash.
fn model_config(run: &TaskRun<'_>, sql: &SqlTask, query: &str) -> ldp_pipeline::Result<Config> {
    let mut target = sql.raw_target.as_object().cloned().unwrap_or_default();
    target.insert("write_mode".into(), sql.write_mode.as_str().into());
    let mut source = Map::new();
    source.insert(
        "name".into(),
        target.get("name").cloned().unwrap_or(Value::Null),
    );
    source.insert("format".into(), "ICEBERG".into());
    if let Some(catalog) = target.get("catalog") {
        source.insert("catalog".into(), catalog.clone());
    }
    let document = json!({
        "apiVersion": "ldp/v1",
        "identifier": sql_identifier(&run.workflow.identifier, &run.task.id),
        "how": format!("sql: {}", query.trim()),
        "metadata": {"source": source, "target": target},
    });
    let path = run.workflow.base_dir.join(format!(
        "{}.{}.sql.json",
        run.workflow.identifier, run.task.id
    ));
    let text = serde_json::to_string(&document).unwrap_or_default();
    Ok(Document::parse(&text, path)?.load()?)
}

/// Runs the query over the workflow's tables and keeps its rows.
fn evaluate(run: &TaskRun<'_>, query: &str) -> Result<ProvidedBatches, Box<Attempt>> {
    let sql_error =
        |e: ldp_sql::Error| Box::new(Attempt::failed("SqlError", format!("{e:#}"), false));
    let session: Box<dyn Engine> = match run.engine {
        Some(make) => make.open().map_err(sql_error)?,
        None => Box::new(Session::new().map_err(sql_error)?),
    };
    let tables = workflow_tables(run);
    let mut bare: BTreeMap<&str, usize> = BTreeMap::new();
    for table in tables.values() {
        *bare.entry(table.name.as_str()).or_default() += 1;
    }
    for table in tables.values() {
        let Ok(loaded) = table.load() else {
            continue; // not created yet: a query that names it fails to plan, naming it
        };
        let mut names = vec![TableName::qualified(&table.namespace, &table.name)];
        if bare.get(table.name.as_str()) == Some(&1) {
            names.push(TableName::bare(&table.name));
        }
        session.register(&loaded, None, &names).map_err(sql_error)?;
    }
    let out = session.query(query, usize::MAX, None).map_err(|e| {
        Box::new(Attempt::failed(
            "SqlError",
            format!("task '{}': {e:#}", run.task.id),
            false,
        ))
    })?;
    Ok(ProvidedBatches {
        name: format!("sql task {}", run.task.id),
        schema: out.schema,
        batches: Arc::new(out.batches),
    })
}

/// Every Iceberg table a task of the workflow reads or writes, by catalog file and name.
fn workflow_tables(run: &TaskRun<'_>) -> BTreeMap<(String, String, String), TargetTable> {
    let mut tables = BTreeMap::new();
    let mut add = |table: TargetTable| {
        tables.insert(
            (
                table.catalog.to_string(),
                table.namespace.clone(),
                table.name.clone(),
            ),
            table,
        );
    };
    for task in &run.workflow.tasks {
        match &task.kind {
            TaskKind::Pipeline(pipeline) => {
                let Ok(config) = ldp_pipeline::open_config(&run.workflow.resolve(&pipeline.config))
                else {
                    continue;
                };
                for block in [config.source(), config.target()] {
                    if block.format == Format::Iceberg
                        && let Ok(table) = TargetTable::resolve(&config, block)
                    {
                        add(table);
                    }
                }
            }
            TaskKind::Sql(sql) => {
                if let Ok(config) = model_config(run, sql, "")
                    && let Ok(table) = TargetTable::resolve(&config, config.target())
                {
                    add(table);
                }
            }
            TaskKind::Maintain(_) | TaskKind::Dbt(_) => {}
        }
    }
    tables
}
