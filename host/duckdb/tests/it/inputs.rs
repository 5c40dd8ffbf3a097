//! Queries over inputs: Arrow streams copied into an in-memory database, read by name and by
//! nothing else.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchIterator, StringArray};
use arrow_array::{RecordBatchReader, TimestampMicrosecondArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use ldp_duckdb::{Error, Input, Query, QueryOptions};

use super::library;

fn orders() -> Box<dyn RecordBatchReader + Send> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("dish", DataType::Utf8, true),
        Field::new(
            "ordered_at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
    ]));
    let batches: Vec<Result<RecordBatch, ArrowError>> = (0..3)
        .map(|b| {
            let ids: Vec<i64> = (b * 1000..(b + 1) * 1000).collect();
            let dishes: Vec<String> = ids.iter().map(|i| format!("dish {}", i % 7)).collect();
            // 2026-08-01T23:30:00Z plus one minute per order: late orders fall on 2026-08-02.
            let at: Vec<i64> = ids
                .iter()
                .map(|i| 1_785_627_000_000_000 + i * 60_000_000)
                .collect();
            let columns: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from(dishes)),
                Arc::new(TimestampMicrosecondArray::from(at).with_timezone("UTC")),
            ];
            RecordBatch::try_new(schema.clone(), columns)
        })
        .collect();
    Box::new(RecordBatchIterator::new(batches, schema.clone()))
}

fn dishes() -> Box<dyn RecordBatchReader + Send> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("dish", DataType::Utf8, false),
        Field::new("price", DataType::Int64, false),
    ]));
    let names: Vec<String> = (0..7).map(|i| format!("dish {i}")).collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(names)),
            Arc::new(Int64Array::from_iter_values(10..17)),
        ],
    );
    Box::new(RecordBatchIterator::new(vec![batch], schema))
}

fn input(name: &str, reader: Box<dyn RecordBatchReader + Send>) -> Input {
    Input {
        name: name.to_string(),
        reader,
    }
}

fn run(inputs: Vec<Input>, sql: &str) -> ldp_duckdb::Result<Vec<RecordBatch>> {
    library();
    let mut query = Query::over_inputs(inputs, sql, QueryOptions::default())?;
    let mut batches = Vec::new();
    while let Some(batch) = query.next_batch()? {
        batches.push(batch);
    }
    Ok(batches)
}

fn column_i64(batches: &[RecordBatch], column: usize) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            b.column(column)
                .as_primitive::<Int64Type>()
                .values()
                .to_vec()
        })
        .collect()
}

#[test]
fn inputs_join_by_name_and_may_be_read_twice() {
    let sql = "SELECT count(*) AS orders, sum(price) AS revenue, \
        (SELECT count(*) FROM orders o2 WHERE o2.id < 10) AS early \
        FROM orders JOIN dishes USING (dish)";
    let batches = run(
        vec![input("orders", orders()), input("Dishes", dishes())],
        sql,
    )
    .unwrap();
    assert_eq!(column_i64(&batches, 0), vec![3000]);
    let revenue: i128 = (0..3000i128).map(|i| 10 + i % 7).sum();
    let got = batches[0]
        .column(1)
        .as_primitive::<arrow_array::types::Decimal128Type>();
    assert_eq!(got.value(0), revenue);
    assert_eq!(column_i64(&batches, 2), vec![10]);
}

#[test]
fn the_session_time_zone_is_utc() {
    let sql = "SELECT count(*) FROM orders WHERE CAST(ordered_at AS DATE) = DATE '2026-08-02'";
    let batches = run(vec![input("orders", orders())], sql).unwrap();
    // 30 orders fall on 2026-08-01 in UTC; the rest on the 2nd or later, whatever the
    // machine's zone.
    assert_eq!(column_i64(&batches, 0), vec![1440]);
}

#[test]
fn a_table_that_is_not_an_input_is_duckdbs_catalog_error() {
    let e = run(vec![input("orders", orders())], "SELECT * FROM customers").unwrap_err();
    assert!(matches!(e, Error::Catalog { .. }), "{e:?}");
    assert!(e.to_string().contains("customers"), "{e}");
}

#[test]
fn nothing_outside_the_inputs_is_reachable_and_only_one_query_runs() {
    let e = run(
        vec![input("orders", orders())],
        "SELECT * FROM read_csv('/etc/passwd')",
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("disabled") || e.to_string().contains("Permission"),
        "{e}"
    );
    for sql in [
        "SET lock_configuration = false",
        "DROP TABLE orders",
        "SELECT 1; SELECT 2",
        "ATTACH '/tmp/x.duckdb'",
    ] {
        let e = run(vec![input("orders", orders())], sql).unwrap_err();
        assert!(matches!(e, Error::Rejected { .. }), "{sql}: {e:?}");
    }
}

#[test]
fn two_inputs_of_one_name_are_refused() {
    let e = run(
        vec![input("orders", orders()), input("ORDERS", dishes())],
        "SELECT 1",
    )
    .unwrap_err();
    assert!(matches!(e, Error::Rejected { .. }), "{e:?}");
    assert!(
        e.to_string().contains("two inputs are both called ORDERS"),
        "{e}"
    );
}

#[test]
fn a_failing_input_stream_fails_the_query_with_its_message() {
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let batches: Vec<Result<RecordBatch, ArrowError>> = vec![Err(ArrowError::IoError(
        "data file s3://lake/orders/1.parquet is gone".into(),
        std::io::Error::other("gone"),
    ))];
    let reader = Box::new(RecordBatchIterator::new(batches, schema));
    let e = run(vec![input("orders", reader)], "SELECT * FROM orders").unwrap_err();
    assert!(e.to_string().contains("input orders"), "{e}");
    assert!(e.to_string().contains("is gone"), "{e}");
}

#[test]
fn tables_written_into_a_file_are_read_back_by_name_and_replaced() {
    library();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sources.duckdb");
    let options = QueryOptions::default();
    ldp_duckdb::write_tables(&file, "raw", vec![input("orders", orders())], &options).unwrap();
    ldp_duckdb::write_tables(
        &file,
        "raw",
        vec![input("dishes", dishes()), input("orders", dishes())],
        &options,
    )
    .unwrap();
    let mut query = Query::open(
        &file,
        "SELECT (SELECT count(*) FROM raw.orders), (SELECT count(*) FROM raw.dishes)",
        QueryOptions::default(),
    )
    .unwrap();
    let batch = query.next_batch().unwrap().unwrap();
    // The second write replaced raw.orders with the seven dishes.
    assert_eq!(column_i64(std::slice::from_ref(&batch), 0), vec![7]);
    assert_eq!(column_i64(std::slice::from_ref(&batch), 1), vec![7]);
}
