//! The SQL layer over real tables in a real SQLite catalog.

use std::sync::Arc;

use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use ldp_catalog::{Catalog, Mode};
use ldp_sql::{Error, Session, TableName};
use ldp_table::{Append, DataWriter, Overwrite, Table, WriterOptions};

fn batch(ids: &[i64]) -> RecordBatch {
    let fares: Vec<f64> = ids.iter().map(|i| *i as f64 * 1.5).collect();
    let cities: Vec<&str> = ids
        .iter()
        .map(|i| if i % 2 == 0 { "NYC" } else { "LDN" })
        .collect();
    RecordBatch::try_from_iter([
        ("ride_id", Arc::new(Int64Array::from(ids.to_vec())) as _),
        ("city", Arc::new(StringArray::from(cities)) as _),
        ("fare", Arc::new(Float64Array::from(fares)) as _),
    ])
    .unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    catalog: Catalog,
    table: Table,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let catalog = Catalog::open(
        ldp_catalog::catalog_file(&warehouse, "nyc"),
        "nyc",
        Mode::Create,
    )
    .unwrap();
    let table = Table::load_or_create(
        &catalog,
        "nyc",
        "rides",
        &batch(&[1]).schema(),
        &warehouse.join("nyc/rides"),
    )
    .unwrap();
    Fixture {
        _dir: dir,
        catalog,
        table,
    }
}

fn write(f: &mut Fixture, ids: &[i64], overwrite: bool) -> i64 {
    let mut writer = DataWriter::new(&f.table, &WriterOptions::default()).unwrap();
    writer.write(&batch(ids)).unwrap();
    let files = writer.finish().unwrap();
    let result = if overwrite {
        Overwrite::new(files).commit(&f.catalog, &mut f.table)
    } else {
        Append::new(files).commit(&f.catalog, &mut f.table)
    };
    result.unwrap().snapshot_id
}

fn count(session: &Session, sql: &str) -> i64 {
    let out = session.query(sql, 10).unwrap();
    let column = out.batches[0].column(0);
    column
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .value(0)
}

fn names() -> [TableName; 2] {
    [
        TableName::bare("rides"),
        TableName::qualified("nyc", "rides"),
    ]
}

#[test]
fn queries_the_current_snapshot_under_both_names() {
    let mut f = fixture();
    write(&mut f, &[1, 2, 3], false);
    write(&mut f, &[4, 5], false);
    let session = Session::new().unwrap();
    session.register(&f.table, None, &names()).unwrap();
    assert_eq!(count(&session, "SELECT count(*) FROM rides"), 5);
    assert_eq!(
        count(
            &session,
            "SELECT sum(ride_id) FROM nyc.rides WHERE city = 'NYC'"
        ),
        6
    );
}

#[test]
fn time_travel_reads_each_snapshot() {
    let mut f = fixture();
    let first = write(&mut f, &[1, 2, 3], false);
    let second = write(&mut f, &[4, 5], false);
    let third = write(&mut f, &[9], true);
    for (snapshot, expected) in [(first, 3), (second, 5), (third, 1)] {
        let session = Session::new().unwrap();
        session
            .register(&f.table, Some(snapshot), &names())
            .unwrap();
        assert_eq!(
            count(&session, "SELECT count(*) FROM rides"),
            expected,
            "snapshot {snapshot}"
        );
    }
    let session = Session::new().unwrap();
    let missing = session.register(&f.table, Some(42), &names()).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "snapshot 42 does not exist in Iceberg table nyc.rides"
    );
}

#[test]
fn a_table_without_snapshots_is_empty() {
    let f = fixture();
    let session = Session::new().unwrap();
    session.register(&f.table, None, &names()).unwrap();
    assert_eq!(count(&session, "SELECT count(*) FROM rides"), 0);
}

#[test]
fn keeps_max_rows_and_counts_the_rest() {
    let mut f = fixture();
    write(&mut f, &(1..=1000).collect::<Vec<_>>(), false);
    let session = Session::new().unwrap();
    session.register(&f.table, None, &names()).unwrap();
    let out = session
        .query("SELECT * FROM rides ORDER BY ride_id", 7)
        .unwrap();
    assert_eq!(out.total_rows, 1000);
    assert_eq!(
        out.batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
        7
    );
    assert_eq!(out.schema.field(0).name(), "ride_id");
}

#[test]
fn only_queries_run() {
    let mut f = fixture();
    write(&mut f, &[1], false);
    let session = Session::new().unwrap();
    session.register(&f.table, None, &names()).unwrap();
    for sql in [
        "DROP TABLE rides",
        "CREATE TABLE x AS SELECT 1",
        "INSERT INTO rides VALUES (1, 'a', 1.0)",
        "SET datafusion.execution.batch_size = 1",
        "SELEC 1",
        "SELECT nope FROM rides",
    ] {
        let err = session.query(sql, 10).unwrap_err();
        assert!(matches!(err, Error::Sql { .. }), "{sql}: {err}");
    }
    assert_eq!(count(&session, "SELECT count(*) FROM rides"), 1);
}

/// A table partitioned by `transform(column)` holding `batches` (one commit), registered in a
/// new session as `rides` and `nyc.rides`.
fn partitioned(
    column: &str,
    transform: ldp_table::Transform,
    batches: &[RecordBatch],
) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let catalog = Catalog::open(
        ldp_catalog::catalog_file(&warehouse, "nyc"),
        "nyc",
        Mode::Create,
    )
    .unwrap();
    let mut table = Table::create_partitioned(
        &catalog,
        "nyc",
        "rides",
        &batches[0].schema(),
        &[ldp_table::PartitionColumn {
            column: column.into(),
            transform,
            name: None,
        }],
        &warehouse.join("nyc/rides"),
    )
    .unwrap();
    let mut writer = DataWriter::new(&table, &WriterOptions::default()).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    Append::new(writer.finish().unwrap())
        .commit(&catalog, &mut table)
        .unwrap();
    let session = Session::new().unwrap();
    session.register(&table, None, &names()).unwrap();
    (dir, session)
}

/// Regression for file pruning: a filter on one day of a table partitioned by
/// `day(pickup_ts)` opens that day's file only; a filter on `ride_id` uses the files' bounds.
#[test]
fn a_scan_opens_only_the_files_its_filters_may_need() {
    use arrow_array::TimestampMicrosecondArray;

    const DAY_US: i64 = 86_400_000_000;
    const JAN_1_2024_US: i64 = 1_704_067_200_000_000;
    // 7 days x 3 rides; ride ids grow with the day.
    let ids: Vec<i64> = (0..21).collect();
    let times: Vec<i64> = ids
        .iter()
        .map(|i| JAN_1_2024_US + (i / 3) * DAY_US + (i % 3) * 3_600_000_000)
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("ride_id", Arc::new(Int64Array::from(ids)) as _),
        (
            "pickup_ts",
            Arc::new(TimestampMicrosecondArray::from(times)) as _,
        ),
    ])
    .unwrap();
    let (_dir, session) = partitioned("pickup_ts", ldp_table::Transform::Day, &[batch]);
    let run = |sql: &str| session.query(sql, 10).unwrap();
    let all = run("SELECT sum(ride_id) FROM rides");
    assert_eq!(all.files_scanned, 7);
    // count(*) alone is the files' row counts, from their footers: no file is scanned.
    let counted = run("SELECT count(*) AS n FROM rides");
    assert_eq!(counted.files_scanned, 0);
    let one_day = run(
        "SELECT count(*) AS n FROM rides WHERE pickup_ts >= '2024-01-03T00:00:00' AND pickup_ts < '2024-01-04T00:00:00'",
    );
    assert_eq!(one_day.files_scanned, 1, "1 of 7 files");
    assert_eq!(
        one_day.batches[0]
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0),
        3
    );
    let by_id = run("SELECT count(*) FROM rides WHERE ride_id > 17");
    assert_eq!(
        by_id.files_scanned, 1,
        "ids 18..20 are in the last day's file"
    );
    let none = run("SELECT count(*) FROM rides WHERE ride_id > 100");
    assert_eq!(none.files_scanned, 0);
}

/// Regression for NaN read as a number: DataFusion 53, given each file's Parquet statistics
/// (which leave NaN out), reads a float column whose bounds are equal and which has no nulls
/// as that one value, so `[10.0, NaN]` came back as `[10.0, 10.0]`. ldp withholds float bounds
/// from the planner (`statistics.rs`); this pins that the NaN is read.
#[test]
fn a_float_column_with_nan_reads_its_nan() {
    use arrow_array::{Float64Array, TimestampMicrosecondArray};

    let batch = RecordBatch::try_from_iter([
        ("ride_id", Arc::new(Int64Array::from(vec![1, 2])) as _),
        (
            "pickup_ts",
            Arc::new(TimestampMicrosecondArray::from(vec![
                1_704_067_200_000_000,
                1_704_067_200_000_001,
            ])) as _,
        ),
        (
            "fare",
            Arc::new(Float64Array::from(vec![10.0, f64::NAN])) as _,
        ),
    ])
    .unwrap();
    let (_dir, session) = partitioned("pickup_ts", ldp_table::Transform::Day, &[batch]);
    let out = session
        .query("SELECT fare FROM rides ORDER BY ride_id", 10)
        .unwrap();
    assert_eq!(out.files_scanned, 1);
    let fares = out.batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap();
    assert_eq!(fares.value(0), 10.0);
    assert!(fares.value(1).is_nan(), "{fares:?}");
}

/// More partitions than the writer keeps files open (32): every row is written, in at least one
/// file per partition.
#[test]
fn many_partitions_are_written_with_a_bounded_number_of_open_files() {
    let ids: Vec<i64> = (0..100).collect();
    let (_dir, session) = partitioned(
        "ride_id",
        ldp_table::Transform::Identity,
        &[batch(&ids), batch(&ids)],
    );
    assert_eq!(count(&session, "SELECT count(*) FROM rides"), 200);
    assert_eq!(
        count(&session, "SELECT count(DISTINCT ride_id) FROM rides"),
        100
    );
    let out = session
        .query("SELECT count(*) FROM rides WHERE ride_id = 42", 1)
        .unwrap();
    assert!(
        (1..=2).contains(&out.files_scanned),
        "{}",
        out.files_scanned
    );
}
