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
