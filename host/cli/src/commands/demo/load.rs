//! Steps 1–3: the config from JSON; append twice and overwrite twice; upsert changed and new
//! rides.

use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use ldp_config::{WriteMode, py_float, repr_list, repr_str};
use ldp_pipeline::{Job, Pipeline, RunReport, TargetTable, UpsertCounts, WriteResult};

use super::{Demo, SummaryRow, configs, workdir};
use crate::output::cell::{Cell, cell};

/// The rides of step 3's batch whose fare changes (the first ones), and by how much.
const CHANGED_RIDES: usize = 50;
const FARE_RAISE: f64 = 2.5;
/// New rides in step 3's batch.
const NEW_RIDES: usize = 10;

/// Step 1: `rides.json` read as `ldp run` reads it, and the route it takes.
pub(super) fn config(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let config = ldp_pipeline::open_config(&d.dir().join("rides.json"))?;
    let route = ldp_pipeline::routes::check(&config)?;
    let job = Job::open(config)?;
    let config = job.config();
    let target = TargetTable::resolve(config, config.target())?;
    let base = config
        .base_dir
        .clone()
        .unwrap_or_else(|| d.dir().to_path_buf());
    d.line(format!(
        "Loaded rides.json (identifier {}). Its paths resolve against {}",
        repr_str(&config.identifier),
        base.display()
    ))?;
    let (source, block) = (config.source(), config.target());
    d.line(format!(
        "  source  {} {}",
        source.format.as_str(),
        source.path.as_deref().unwrap_or_default()
    ))?;
    d.line(format!(
        "  target  {} {} (write_mode {}, join_cols {})",
        block.format.as_str(),
        target.identifier(),
        block.write_mode().as_str(),
        repr_list(&block.join_cols)
    ))?;
    let quality = &config.metadata.quality;
    d.line(format!(
        "  quality {} checks, on_failure={}",
        quality.checks.len(),
        quality.on_failure.as_str()
    ))?;
    d.line(format!(
        "create_pipeline(config) picked {} from the formats {} -> {}",
        route.pipeline,
        route.source.as_str(),
        route.target.as_str()
    ))?;
    Ok(vec![SummaryRow::new(
        "1 config",
        format!("{} from rides.json", route.pipeline),
    )])
}

/// Step 2: the rides Parquet file appended twice (every ride twice), then overwritten twice
/// (the same count each time).
pub(super) fn append_overwrite(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let pipeline = Pipeline::open(configs::load(&configs::scratch(), d.dir())?)?;
    let mut appended = Vec::new();
    for n in 1..=2 {
        let rows = write_result(&pipeline.run(d.runtime, &d.options(Some(WriteMode::Append)))?)?
            .rows_after;
        appended.push(rows);
        let mut line = format!("append    #{n} -> {rows:>6} rows");
        if n == 2 {
            let duplicated = duplicated_ids(d, pipeline.target())?;
            line.push_str(&format!(
                "   {duplicated} ride_ids now appear twice: append is not idempotent"
            ));
        }
        d.line(line)?;
    }
    let duplicates = appended[1].saturating_sub(appended[0]);
    let mut replaced = Vec::new();
    for n in 1..=2 {
        let report = pipeline.run(d.runtime, &d.options(Some(WriteMode::Overwrite)))?;
        let rows = write_result(&report)?.rows_after;
        replaced.push(rows);
        let mut line = format!("overwrite #{n} -> {rows:>6} rows");
        if n == 2 {
            line.push_str(if replaced[0] == rows {
                "   same count again: overwrite is idempotent"
            } else {
                "   the count changed"
            });
        }
        d.line(line)?;
    }
    let idempotent = if replaced[0] == replaced[1] {
        " (idempotent)"
    } else {
        ""
    };
    Ok(vec![
        SummaryRow::new(
            "2 append x2",
            format!(
                "{} -> {} rows ({duplicates} duplicates)",
                appended[0], appended[1]
            ),
        ),
        SummaryRow::new(
            "2 overwrite x2",
            format!("{} -> {} rows{idempotent}", replaced[0], replaced[1]),
        ),
    ])
}

/// Ride ids that appear more than once in `table`.
fn duplicated_ids(d: &Demo<'_>, table: &TargetTable) -> anyhow::Result<i64> {
    let sql = format!(
        "SELECT count(*) AS n FROM (SELECT ride_id FROM {} GROUP BY ride_id HAVING count(*) > 1)",
        table.name
    );
    d.query_int(table, None, &sql)
}

/// Step 3: the config's initial load (an upsert into a new table is an append), then a batch
/// of changed fares and new rides upserted on the key, twice.
pub(super) fn upsert(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let pipeline = Pipeline::open(ldp_pipeline::open_config(&d.dir().join("rides.json"))?)?;
    let initial = pipeline.run(d.runtime, &d.options(None))?;
    d.line(format!(
        "Initial load from the config (upsert into a new table): {} rows",
        write_result(&initial)?.rows_after
    ))?;
    d.initial_quality = Some(initial.quality);

    let changed = raised_fares(&d.rides.slice(0, CHANGED_RIDES.min(d.rides.num_rows())))?;
    let next_id = i64::try_from(d.rides.num_rows())? + 1;
    let new = ldp_demo::rides(NEW_RIDES, d.settings.seed_plus(1), next_id);
    let path = "data/rides_changes.parquet";
    workdir::write_parquet(&d.dir().join(path), &[&changed, &new])?;
    let batch = Pipeline::open(configs::load(&configs::rides_from_parquet(path), d.dir())?)?;
    let keys = repr_list(&batch.config().target().join_cols);
    d.line(format!(
        "Batch of {} rows ({} with a new fare, {} new rides), upserted on {keys}:",
        changed.num_rows() + new.num_rows(),
        changed.num_rows(),
        new.num_rows()
    ))?;
    let first = write_result(&batch.run(d.runtime, &d.options(None))?)?.clone();
    let counts = upsert_counts(&first)?;
    d.line(format!(
        "  {} updated, {} inserted: {} -> {} rows",
        counts.rows_updated, counts.rows_inserted, first.rows_before, first.rows_after
    ))?;
    let first_ride = |column: &str| d.rides.column_by_name(column).map(|c| cell(c, 0));
    let (Some(Cell::Int(ride)), Some(Cell::Float(old_fare))) =
        (first_ride("ride_id"), first_ride("fare"))
    else {
        bail!("the rides have no ride_id and fare of the first ride");
    };
    let sql = format!(
        "SELECT fare FROM {} WHERE ride_id = {ride}",
        batch.target().name
    );
    let Some(Cell::Float(new_fare)) = d.query_row(batch.target(), None, &sql)?.first().cloned()
    else {
        bail!("{sql} gave no fare");
    };
    d.line(format!(
        "  ride {ride}: fare {} -> {}",
        py_float(old_fare),
        py_float(new_fare)
    ))?;
    let again = write_result(&batch.run(d.runtime, &d.options(None))?)?.clone();
    let changes = upsert_counts(&again)?;
    let changed_rows = changes.rows_updated + changes.rows_inserted;
    let now = if again.rows_after == again.rows_before {
        "still"
    } else {
        "now"
    };
    d.line(format!(
        "The same batch again: {changed_rows} rows changed, {now} {} rows",
        again.rows_after
    ))?;
    Ok(vec![SummaryRow::new(
        "3 upsert",
        format!(
            "{} updated, {} inserted -> {} rows",
            counts.rows_updated, counts.rows_inserted, first.rows_after
        ),
    )])
}

/// `batch` with every fare raised by [`FARE_RAISE`], rounded to cents as Python's `round(x, 2)`
/// does ([`ldp_demo::round2`]).
fn raised_fares(batch: &RecordBatch) -> anyhow::Result<RecordBatch> {
    let at = batch.schema().index_of("fare")?;
    let fares: Float64Array = batch
        .column(at)
        .as_primitive_opt::<Float64Type>()
        .context("fare is not a double")?
        .iter()
        .map(|f| f.map(|f| ldp_demo::round2(f + FARE_RAISE)))
        .collect();
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    columns[at] = Arc::new(fares);
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// The write of a run into an Iceberg table.
pub(super) fn write_result(report: &RunReport) -> anyhow::Result<&WriteResult> {
    report
        .write_result
        .as_ref()
        .context("the run reported no write to an Iceberg table")
}

fn upsert_counts(write: &WriteResult) -> anyhow::Result<&UpsertCounts> {
    write
        .upsert
        .as_ref()
        .context("the upsert reported no counts")
}
