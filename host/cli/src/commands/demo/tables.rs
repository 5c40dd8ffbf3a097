//! Steps 4–5: a day-partitioned table and the files a one-day filter reads; the quality gate
//! passing the initial load and blocking a bad batch.

use std::collections::BTreeSet;
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use ldp_pipeline::Pipeline;

use super::{Demo, SummaryRow, configs, workdir};

/// The day step 4 filters on, as the Python tool writes the filter.
const ONE_DAY_FILTER: &str =
    "pickup_ts >= '2024-01-03T00:00:00' and pickup_ts < '2024-01-04T00:00:00'";

/// Rows of the bad batch of step 5 (`generate(20, seed + 2, 1011)`), and what is wrong with
/// them.
const BAD_ROWS: usize = 20;
/// These rows lose their ride_id.
const NULL_IDS: std::ops::Range<usize> = 0..3;
/// These rows take the ride_id of row [`REPEATED_FROM`].
const REPEATED: std::ops::Range<usize> = 3..6;
const REPEATED_FROM: usize = 6;
/// This row's fare becomes negative.
const NEGATIVE_FARE_ROW: usize = 7;
const NEGATIVE_FARE: f64 = -12.5;

/// Step 4: the rides and their pickup date into a table partitioned by `day(pickup_ts)`; a
/// query for one day opens that day's file only.
pub(super) fn partitioned(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let path = "data/rides_by_day.parquet";
    workdir::write_parquet(&d.dir().join(path), &[&with_pickup_date(&d.rides)?])?;
    let pipeline = Pipeline::open(configs::load(&configs::by_day(path), d.dir())?)?;
    let report = pipeline.run(d.runtime, &d.options(None))?;
    let target = pipeline.target();
    let table = target.load()?;
    let spec = table
        .partition_columns()
        .iter()
        .map(|(column, transform)| format!("{transform}({column})"))
        .collect::<Vec<_>>()
        .join(", ");
    d.line(format!(
        "Wrote {} rows to {}, partitioned by {spec}",
        report.rows_written,
        target.identifier()
    ))?;
    d.line("  (a transform added the pickup_date column before the write)")?;
    let files = table.data_files(None)?;
    let partitions: BTreeSet<String> = files
        .iter()
        .map(|f| format!("{:?}", f.partition()))
        .collect();
    d.line(format!(
        "  {} partitions, {} data files",
        partitions.len(),
        files.len()
    ))?;
    let sql = format!(
        "SELECT count(*) AS rides FROM {} WHERE {ONE_DAY_FILTER}",
        target.name
    );
    let scanned = d.query(target, None, &sql)?.files_scanned;
    d.line(format!(
        "  a filter on one day ({ONE_DAY_FILTER}) reads {scanned} of {} data files",
        files.len()
    ))?;
    Ok(vec![SummaryRow::new(
        "4 partitions",
        format!(
            "{} by {spec}; one day reads {scanned}/{} files",
            partitions.len(),
            files.len()
        ),
    )])
}

/// `rides` with a `pickup_date` column (date32, the day of `pickup_ts`) at the end.
///
/// The Python tool's demo adds it with a transform before the write; here the host adds it, until
/// a transform plugin does.
fn with_pickup_date(rides: &RecordBatch) -> anyhow::Result<RecordBatch> {
    let pickup = rides
        .column_by_name("pickup_ts")
        .context("the rides have no pickup_ts column")?;
    let date = arrow_cast::cast(pickup, &DataType::Date32)?;
    let mut fields: Vec<Field> = rides
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("pickup_date", DataType::Date32, true));
    let mut columns = rides.columns().to_vec();
    columns.push(date);
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}

/// Step 5: the quality report of step 3's initial load, then a bad batch that the same checks
/// block before anything is written.
pub(super) fn quality(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let clean = d
        .initial_quality
        .clone()
        .context("step 3 (the initial load) has not run")?;
    d.line("The initial load in step 3 ran the config's checks before writing:")?;
    for line in clean.summary().lines() {
        d.line(format!("  {line}"))?;
    }
    let next_id = i64::try_from(d.rides.num_rows())? + 11;
    let bad = bad_batch(&ldp_demo::rides(BAD_ROWS, d.settings.seed_plus(2), next_id))?;
    let path = "data/rides_bad.parquet";
    workdir::write_parquet(&d.dir().join(path), &[&bad])?;
    d.line(format!(
        "A bad batch of {} rows ({} null ride_ids, a ride_id repeated, a negative fare):",
        bad.num_rows(),
        NULL_IDS.len()
    ))?;
    let pipeline = Pipeline::open(configs::load(&configs::rides_from_parquet(path), d.dir())?)?;
    let failed = match pipeline.run(d.runtime, &d.options(None)) {
        Err(ldp_pipeline::Error::Quality { report }) => {
            for line in report.failure_message().lines() {
                d.line(format!("  {line}"))?;
            }
            report.failed()
        }
        Err(e) => return Err(e.into()),
        Ok(_) => bail!("the bad batch was written: the config's checks should have blocked it"),
    };
    let target = pipeline.target();
    let table = target.load()?;
    d.line(format!(
        "Blocked before the write: {} still has {} rows and {} snapshots",
        target.identifier(),
        table.total_records(),
        table.snapshots().len()
    ))?;
    let total = clean.results.len();
    Ok(vec![SummaryRow::new(
        "5 quality",
        format!(
            "clean batch {}/{total} passed; bad batch blocked ({failed} checks failed)",
            total - clean.failed()
        ),
    )])
}

/// `rides` broken as the Python tool breaks them: null ride_ids, one ride_id repeated, a
/// negative fare.
fn bad_batch(rides: &RecordBatch) -> anyhow::Result<RecordBatch> {
    let schema = rides.schema();
    let (id_at, fare_at) = (schema.index_of("ride_id")?, schema.index_of("fare")?);
    let ids = rides
        .column(id_at)
        .as_primitive_opt::<Int64Type>()
        .context("ride_id is not int64")?;
    let repeated = ids.value(REPEATED_FROM);
    let ids: Int64Array = (0..ids.len())
        .map(|i| {
            if NULL_IDS.contains(&i) {
                None
            } else if REPEATED.contains(&i) {
                Some(repeated)
            } else {
                Some(ids.value(i))
            }
        })
        .collect();
    let fares: Float64Array = rides
        .column(fare_at)
        .as_primitive_opt::<Float64Type>()
        .context("fare is not a double")?
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if i == NEGATIVE_FARE_ROW {
                Some(NEGATIVE_FARE)
            } else {
                f
            }
        })
        .collect();
    let mut columns: Vec<ArrayRef> = rides.columns().to_vec();
    columns[id_at] = Arc::new(ids);
    columns[fare_at] = Arc::new(fares);
    Ok(RecordBatch::try_new(schema, columns)?)
}
