//! Steps 6–8: SQL over the table (DataFusion), time travel to its first snapshot, the export
//! back to CSV and a check of what it wrote.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use ldp_pipeline::{Job, TargetTable};

use super::render::{money, row_count, table};
use super::{Demo, SummaryRow, configs};
use crate::output::cell::{Cell, cell};

/// Step 6's query, the Python tool's with `GROUP BY ALL` written `GROUP BY 1, 2` for DataFusion.
const REVENUE_SQL: &str = "SELECT CAST(pickup_ts AS DATE) AS day, city, count(*) AS rides, \
                           round(sum(fare), 2) AS revenue FROM rides GROUP BY 1, 2 ORDER BY day, city";

/// What step 7 says about the history: the Python tool's paragraph, with ldp's one snapshot per
/// upsert (the Python tool commits an overwrite and two appends).
const HISTORY: &str = "\
The first snapshot is the initial load. The upsert committed one overwrite snapshot that replaced the
changed rows and added the new rides: ldp writes each change as one snapshot, where the Python tool
commits three (an overwrite, then two appends). Re-running it changed nothing, so it added no snapshot.";

/// Where `rides.json` writes.
fn rides_table(d: &Demo<'_>) -> anyhow::Result<TargetTable> {
    let config = ldp_pipeline::open_config(&d.dir().join("rides.json"))?;
    Ok(TargetTable::resolve(&config, config.target())?)
}

/// Step 6: revenue per day and city, pivoted with one column per city.
pub(super) fn sql(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let target = rides_table(d)?;
    d.line(REVENUE_SQL)?;
    let out = d.query(&target, None, REVENUE_SQL)?;
    let mut cities: Vec<String> = ldp_demo::CITIES.iter().map(|c| c.to_string()).collect();
    let mut days: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let (mut rides, mut groups, mut revenue) = (0i64, 0usize, 0.0f64);
    for batch in &out.batches {
        for row in 0..batch.num_rows() {
            let value = |c: usize| cell(batch.column(c), row);
            let (day, city) = (value(0).display(), value(1).display());
            let (Cell::Int(count), Cell::Float(sum)) = (value(2), value(3)) else {
                bail!("{REVENUE_SQL} gave a row that is not (day, city, count, revenue)");
            };
            if !cities.contains(&city) {
                cities.push(city.clone());
            }
            days.entry(day).or_default().insert(city, sum);
            rides += count;
            groups += 1;
            revenue += sum;
        }
    }
    let mut header = vec!["day"];
    header.extend(cities.iter().map(String::as_str));
    header.push("total");
    let rows: Vec<Vec<String>> = days
        .iter()
        .map(|(day, by_city)| {
            let mut row = vec![day.clone()];
            row.extend(
                cities
                    .iter()
                    .map(|c| format!("{:.2}", by_city.get(c).copied().unwrap_or(0.0))),
            );
            row.push(format!("{:.2}", by_city.values().sum::<f64>()));
            row
        })
        .collect();
    let right: Vec<bool> = (0..header.len()).map(|c| c > 0).collect();
    for line in table(&header, &rows, &right) {
        d.line(format!("  {line}"))?;
    }
    d.line(format!("  {}", row_count(rows.len())))?;
    d.line(format!(
        "  {rides} rides, revenue {} ({groups} day x city groups)",
        money(revenue)
    ))?;
    Ok(vec![SummaryRow::new(
        "6 sql",
        format!("{groups} groups, revenue {}", money(revenue)),
    )])
}

/// Step 7: the table's snapshots, and its row count as of the first one.
pub(super) fn time_travel(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let target = rides_table(d)?;
    let snapshots = target.load()?.snapshots();
    let width = snapshots
        .iter()
        .map(|s| s.snapshot_id.to_string().len())
        .max()
        .unwrap_or(0);
    for s in &snapshots {
        d.line(format!(
            "  snapshot  {:<width$}  {:<9} total-records {}",
            s.snapshot_id,
            s.operation,
            s.count("total-records")
        ))?;
    }
    d.line(HISTORY)?;
    let first = snapshots.first().context("demo.rides has no snapshot")?;
    let sql = format!("SELECT count(*) AS n FROM {}", target.name);
    let then = d.query_int(&target, Some(first.snapshot_id), &sql)?;
    let now = d.query_int(&target, None, &sql)?;
    d.line(format!(
        "As of the first snapshot the table had {then} rows; now it has {now}"
    ))?;
    Ok(vec![SummaryRow::new(
        "7 time travel",
        format!(
            "first snapshot {then} rows, now {now} ({} snapshots)",
            snapshots.len()
        ),
    )])
}

/// Step 8: the table exported to CSV by the Iceberg → CSV route (its check: every row read
/// is written), then the file read back and compared with the table.
pub(super) fn export(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let job = Job::open(configs::load(&configs::export(), d.dir())?)?;
    let route = ldp_pipeline::routes::check(job.config())?;
    let Job::File(export) = &job else {
        bail!("the export's target is not a file");
    };
    let path = export.path().to_path_buf();
    let report = job.run(d.runtime, &d.options(None))?;
    d.line(format!(
        "{} wrote {} rows to {}",
        route.pipeline,
        report.rows_written,
        path.display()
    ))?;
    let (rows, ids, fares) = read_back(&path)?;
    let target = rides_table(d)?;
    let sql = format!(
        "SELECT count(*) AS n, sum(ride_id) AS ids, sum(fare) AS fares FROM {}",
        target.name
    );
    let row = d.query_row(&target, None, &sql)?;
    let [Cell::Int(n), Cell::Int(table_ids), Cell::Float(table_fares)] = row[..] else {
        bail!("{sql} gave no (count, ride ids, fares) row");
    };
    let matches = u64::try_from(n).is_ok_and(|n| n == rows)
        && ids == table_ids
        && (fares - table_fares).abs() < 0.005;
    if !matches {
        bail!(
            "{} does not match demo.rides: {rows} rows, ride ids summing to {ids}, fares to {fares:.2}; the table has {n}, {table_ids}, {table_fares:.2}",
            path.display()
        );
    }
    d.line(format!("Read back {rows} rows: matches the table"))?;
    Ok(vec![SummaryRow::new(
        "8 export",
        format!("{} rows to CSV, verified", report.rows_written),
    )])
}

/// Rows, the sum of `ride_id` and the sum of `fare` of an exported CSV file.
fn read_back(path: &Path) -> anyhow::Result<(u64, i64, f64)> {
    let open = || File::open(path).with_context(|| format!("cannot open {}", path.display()));
    let format = arrow_csv::reader::Format::default().with_header(true);
    let (schema, _) = format.infer_schema(open()?, None)?;
    let reader = arrow_csv::ReaderBuilder::new(Arc::new(schema))
        .with_format(format)
        .build(open()?)?;
    let (mut rows, mut ids, mut fares) = (0u64, 0i64, 0.0f64);
    for batch in reader {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        let id = batch
            .column_by_name("ride_id")
            .and_then(|c| c.as_primitive_opt::<Int64Type>())
            .context("the export has no integer ride_id column")?;
        let fare = batch
            .column_by_name("fare")
            .and_then(|c| c.as_primitive_opt::<Float64Type>())
            .context("the export has no float fare column")?;
        ids += id.iter().flatten().sum::<i64>();
        fares += fare.iter().flatten().sum::<f64>();
    }
    Ok((rows, ids, fares))
}
