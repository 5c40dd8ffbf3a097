//! Windows: the rows a `metadata.window.column` keeps (start ≤ value < end), and the window
//! overwrite that deletes only them, copy-on-write, in one snapshot.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Date32Array, Date64Array, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray, TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use jiff::Timestamp;
use jiff::civil::{Date, DateTime, date};
use jiff::tz::TimeZone;
use ldp_table::{
    Append, ErrorKind, Overwrite, PartitionColumn, Table, Transform, WindowBounds, WindowFilter,
    WriterOptions,
};

use crate::common::{CATALOG, Warehouse, ids, write, write_with};

fn paris() -> TimeZone {
    TimeZone::get("Europe/Paris").expect("Europe/Paris")
}

fn at(text: &str) -> Timestamp {
    text.parse().expect("an instant")
}

/// Microseconds since the epoch of a naive date and time.
fn naive_micros(datetime: DateTime) -> i64 {
    datetime
        .to_zoned(TimeZone::UTC)
        .expect("in range")
        .timestamp()
        .as_microsecond()
}

fn days(day: Date) -> i32 {
    day.since(date(1970, 1, 1)).expect("span").get_days()
}

fn one_column(name: &str, array: ArrayRef) -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..array.len() as i64));
    RecordBatch::try_from_iter([("id", ids), (name, array)]).expect("batch")
}

fn kept_ids(filter: &WindowFilter, batch: &RecordBatch) -> Vec<i64> {
    ids(&[filter.keep(batch).expect("keep")])
}

#[test]
fn a_timestamp_with_a_time_zone_compares_instants() {
    let values = [
        Some("2026-08-01T23:59:59.999999Z"),
        Some("2026-08-02T00:00:00Z"),
        Some("2026-08-02T23:59:59.999999Z"),
        Some("2026-08-03T00:00:00Z"),
        None,
    ];
    let micros: Vec<Option<i64>> = values
        .iter()
        .map(|v| v.map(|t| at(t).as_microsecond()))
        .collect();
    let micros = TimestampMicrosecondArray::from(micros).with_timezone("+00:00");
    let batch = one_column("at", Arc::new(micros));
    // The window's time zone does not matter for instants.
    let filter = WindowFilter::new(
        &batch.schema(),
        "at",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        paris(),
    )
    .expect("filter");
    assert_eq!(kept_ids(&filter, &batch), [1, 2]);
    assert_eq!(
        filter.bounds(),
        WindowBounds::Instant {
            low: at("2026-08-02T00:00:00Z"),
            high: at("2026-08-03T00:00:00Z")
        }
    );
    // Nanoseconds labelled Europe/Paris are instants too.
    let nanos: Vec<Option<i64>> = values
        .iter()
        .map(|v| v.map(|t| i64::try_from(at(t).as_nanosecond()).expect("fits")))
        .collect();
    let nanos = TimestampNanosecondArray::from(nanos).with_timezone("Europe/Paris");
    let batch = one_column("at", Arc::new(nanos));
    assert_eq!(kept_ids(&filter, &batch), [1, 2]);
}

/// The Python tool's own example: the window 2026-08-02/2026-08-03 (UTC) in Europe/Paris runs from
/// 02:00 local to 02:00 local, so a naive 00:30 on August 2nd is outside.
#[test]
fn a_naive_timestamp_is_local_wall_time_in_the_window_zone() {
    let local = [
        Some(date(2026, 8, 2).at(0, 30, 0, 0)),
        Some(date(2026, 8, 2).at(2, 0, 0, 0)),
        Some(date(2026, 8, 3).at(1, 59, 59, 0)),
        Some(date(2026, 8, 3).at(2, 0, 0, 0)),
        None,
    ];
    let seconds: Vec<Option<i64>> = local
        .iter()
        .map(|v| v.map(|t| naive_micros(t) / 1_000_000))
        .collect();
    let batch = one_column("ordered_at", Arc::new(TimestampSecondArray::from(seconds)));
    let filter = WindowFilter::new(
        &batch.schema(),
        "ordered_at",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        paris(),
    )
    .expect("filter");
    assert_eq!(kept_ids(&filter, &batch), [1, 2]);
    assert_eq!(
        filter.bounds(),
        WindowBounds::LocalTime {
            low: date(2026, 8, 2).at(2, 0, 0, 0),
            high: date(2026, 8, 3).at(2, 0, 0, 0)
        }
    );
    // Another unit of the same column gives the same rows.
    let micros: Vec<Option<i64>> = local.iter().map(|v| v.map(naive_micros)).collect();
    let batch = one_column(
        "ordered_at",
        Arc::new(TimestampMicrosecondArray::from(micros)),
    );
    assert_eq!(kept_ids(&filter, &batch), [1, 2]);
    // In UTC the same rows are read as UTC wall time.
    let utc = WindowFilter::new(
        &batch.schema(),
        "ordered_at",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        TimeZone::UTC,
    )
    .expect("filter");
    assert_eq!(kept_ids(&utc, &batch), [0, 1]);
}

#[test]
fn a_date_column_compares_the_local_dates_of_midnight_bounds() {
    let day_values = [
        Some(date(2026, 8, 1)),
        Some(date(2026, 8, 2)),
        Some(date(2026, 8, 3)),
        None,
    ];
    let date32: Vec<Option<i32>> = day_values.iter().map(|d| d.map(days)).collect();
    let batch = one_column("day", Arc::new(Date32Array::from(date32)));
    // Midnight in Paris is 22:00 UTC the day before.
    let filter = WindowFilter::new(
        &batch.schema(),
        "day",
        at("2026-08-01T22:00:00Z"),
        at("2026-08-02T22:00:00Z"),
        paris(),
    )
    .expect("filter");
    assert_eq!(kept_ids(&filter, &batch), [1]);
    assert_eq!(
        filter.bounds(),
        WindowBounds::Date {
            low: date(2026, 8, 2),
            high: date(2026, 8, 3)
        }
    );
    let date64: Vec<Option<i64>> = day_values
        .iter()
        .map(|d| d.map(|d| i64::from(days(d)) * 86_400_000))
        .collect();
    let batch = one_column("day", Arc::new(Date64Array::from(date64)));
    assert_eq!(kept_ids(&filter, &batch), [1]);
}

#[test]
fn a_date_window_not_at_local_midnight_is_the_reference_config_error() {
    let batch = one_column(
        "day",
        Arc::new(Date32Array::from(vec![days(date(2026, 8, 2))])),
    );
    let error = WindowFilter::new(
        &batch.schema(),
        "day",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        paris(),
    )
    .expect_err("not midnight in Paris");
    assert_eq!(
        error.to_string(),
        "metadata.window.column 'day' is a date column, so a window must start and end at \
         midnight in Europe/Paris, got 2026-08-02T00:00:00+00:00/2026-08-03T00:00:00+00:00"
    );
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(error.exit_code(), 1);
    assert!(!error.is_retryable());
    let error = WindowFilter::new(
        &batch.schema(),
        "day",
        at("2026-08-02T00:00:00.25Z"),
        at("2026-08-03T00:00:00Z"),
        TimeZone::UTC,
    )
    .expect_err("not midnight in UTC");
    assert_eq!(
        error.to_string(),
        "metadata.window.column 'day' is a date column, so a window must start and end at \
         midnight in UTC, got 2026-08-02T00:00:00.250000+00:00/2026-08-03T00:00:00+00:00"
    );
}

#[test]
fn other_types_and_missing_columns_are_the_reference_config_errors() {
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
        ("s", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
        ("d", Arc::new(Float64Array::from(vec![1.5])) as ArrayRef),
    ])
    .expect("batch");
    let (start, end) = (at("2026-08-02T00:00:00Z"), at("2026-08-03T00:00:00Z"));
    for (column, expected) in [
        (
            "id",
            "metadata.window.column 'id' must be a date or timestamp column, but it is int64",
        ),
        (
            "s",
            "metadata.window.column 's' must be a date or timestamp column, but it is string",
        ),
        (
            "d",
            "metadata.window.column 'd' must be a date or timestamp column, but it is double",
        ),
        (
            "ordered_at",
            "metadata.window.column 'ordered_at' is not a column of the source (columns: id, s, d)",
        ),
    ] {
        let error = WindowFilter::new(&batch.schema(), column, start, end, paris())
            .expect_err("not a window column");
        assert_eq!(error.to_string(), expected);
        assert_eq!(error.kind(), ErrorKind::Config);
    }
    let error = WindowFilter::for_data_to_write(&batch.schema(), "ordered_at", start, end, paris())
        .expect_err("missing");
    assert_eq!(
        error.to_string(),
        "metadata.window.column 'ordered_at' is not a column of the data to write (columns: id, \
         s, d); a transform may have dropped or renamed it"
    );
    // A filter applied to a batch without its column says so too.
    let with = one_column("day", Arc::new(Date32Array::from(vec![1])));
    let filter = WindowFilter::new(
        &with.schema(),
        "day",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        TimeZone::UTC,
    )
    .expect("filter");
    let error = filter.keep(&batch).expect_err("no day column");
    assert_eq!(
        error.to_string(),
        "metadata.window.column 'day' is not a column of the source (columns: id, s, d)"
    );
}

// ------------------------------------------------------------------ window overwrite

/// Orders: id, ordered_at (naive, local wall time in Paris), amount.
fn orders_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new(
            "ordered_at",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("amount", DataType::Float64, true),
    ]))
}

/// Rows with ids `from..from+rows`, one every 10 minutes from local midnight of August `day`
/// (2026); `day` 0 gives null times.
fn orders(from: i64, rows: usize, day: i8) -> RecordBatch {
    let ids: Vec<i64> = (from..from + rows as i64).collect();
    let times: Vec<Option<i64>> = ids
        .iter()
        .enumerate()
        .map(|(i, _)| {
            (day > 0)
                .then(|| naive_micros(date(2026, 8, day).at(0, 0, 0, 0)) + i as i64 * 600_000_000)
        })
        .collect();
    let amounts: Vec<f64> = ids.iter().map(|i| *i as f64 * 2.5).collect();
    RecordBatch::try_new(
        orders_schema(),
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(TimestampMicrosecondArray::from(times)),
            Arc::new(Float64Array::from(amounts)),
        ],
    )
    .expect("batch")
}

/// The window of August `day` in Paris, on the column of `batch`.
fn day_window(batch: &RecordBatch, day: i8) -> WindowFilter {
    let start = date(2026, 8, day)
        .at(0, 0, 0, 0)
        .to_zoned(paris())
        .expect("midnight")
        .timestamp();
    let end = date(2026, 8, day + 1)
        .at(0, 0, 0, 0)
        .to_zoned(paris())
        .expect("midnight")
        .timestamp();
    WindowFilter::for_data_to_write(&batch.schema(), "ordered_at", start, end, paris())
        .expect("filter")
}

fn create(w: &Warehouse, name: &str) -> Table {
    Table::create(
        &w.catalog,
        CATALOG,
        name,
        &orders_schema(),
        &w.location(name),
    )
    .expect("create")
}

/// A table of three days, one append (one file) per day: ids 0..50 on August 1st, 100..150 on
/// the 2nd, 200..250 on the 3rd; with the file of each day.
fn three_days(w: &Warehouse) -> (Table, Vec<String>) {
    let mut table = create(w, "orders");
    let mut files = Vec::new();
    for day in 1..=3 {
        let rows = orders(i64::from(day - 1) * 100, 50, day);
        let written = write(&table, &[rows]);
        files.extend(written.paths());
        Append::new(written)
            .commit(&w.catalog, &mut table)
            .expect("append");
    }
    (table, files)
}

/// Every row of the table, sorted by id, as one batch of `orders_schema()`.
fn rows(table: &Table) -> Vec<(i64, Option<i64>, f64)> {
    let mut out = Vec::new();
    for batch in table.read_all(None).expect("read") {
        let id = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .expect("id");
        let time = batch
            .column(1)
            .as_any()
            .downcast_ref::<TimestampMicrosecondArray>()
            .expect("time");
        let amount = batch
            .column(2)
            .as_any()
            .downcast_ref::<Float64Array>()
            .expect("amount");
        for i in 0..batch.num_rows() {
            out.push((
                id.value(i),
                time.is_valid(i).then(|| time.value(i)),
                amount.value(i),
            ));
        }
    }
    out.sort_by_key(|row| row.0);
    out
}

/// Replaces the content of `paths` with garbage (a data file read meanwhile fails); gives back
/// what to restore.
fn spoil(paths: &[String]) -> Vec<(PathBuf, Vec<u8>)> {
    paths
        .iter()
        .map(|uri| {
            let path = PathBuf::from(uri.strip_prefix("file://").unwrap_or(uri));
            let bytes = std::fs::read(&path).expect("data file");
            std::fs::write(&path, b"not parquet").expect("spoil");
            (path, bytes)
        })
        .collect()
}

fn restore(spoiled: Vec<(PathBuf, Vec<u8>)>) {
    for (path, bytes) in spoiled {
        std::fs::write(path, bytes).expect("restore");
    }
}

#[test]
fn a_window_overwrite_replaces_one_day_without_opening_a_file() {
    let w = Warehouse::new();
    let (mut table, files) = three_days(&w);
    let before = rows(&table);
    let snapshots = table.snapshots().len();
    assert_eq!(files.len(), 3);

    let new_day = orders(1000, 20, 2);
    let filter = day_window(&new_day, 2);
    // No file needs reading: day 1 and 3 are outside by their bounds, day 2 inside.
    let spoiled = spoil(&files);
    assert!(
        table.read_all(None).is_err(),
        "a spoiled file cannot be read"
    );
    let result = Overwrite::new(write(&table, &[new_day]))
        .only_window(filter)
        .property("ldp.run-id", "r1")
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");
    restore(spoiled);

    assert_eq!(result.operation, "overwrite");
    assert_eq!((result.rows_before, result.rows_after), (150, 120));
    assert_eq!(result.rows_written, 20);
    let all = table.snapshots();
    assert_eq!(all.len(), snapshots + 1, "one snapshot");
    let last = &all[all.len() - 1];
    assert_eq!(last.operation, "overwrite");
    assert_eq!(
        last.summary.get("ldp.run-id").map(String::as_str),
        Some("r1")
    );
    assert_eq!(last.count("deleted-data-files"), 1);
    assert_eq!(last.count("deleted-records"), 50);
    assert_eq!(last.count("added-records"), 20);
    assert_eq!(last.count("total-records"), 120);
    assert_eq!(last.count("total-delete-files"), 0);

    let after_files = table.data_file_paths(None).expect("files");
    assert!(after_files.contains(&files[0]) && after_files.contains(&files[2]));
    assert!(!after_files.contains(&files[1]));
    let after = rows(&table);
    let other_days = |rows: &[(i64, Option<i64>, f64)]| -> Vec<(i64, Option<i64>, f64)> {
        rows.iter()
            .filter(|r| r.0 < 100 || (200..1000).contains(&r.0))
            .copied()
            .collect()
    };
    assert_eq!(other_days(&after), other_days(&before));
    let mut expected: Vec<i64> = (0..50).chain(200..250).chain(1000..1020).collect();
    expected.sort_unstable();
    assert_eq!(after.iter().map(|r| r.0).collect::<Vec<_>>(), expected);
}

#[test]
fn a_file_across_the_window_is_rewritten_without_its_rows_and_nulls_stay() {
    let w = Warehouse::new();
    let mut table = create(&w, "orders");
    // One file of three days and null times, and one file of day 3 only.
    let mixed = [
        orders(0, 30, 1),
        orders(100, 30, 2),
        orders(200, 30, 3),
        orders(900, 5, 0),
    ];
    let mixed = write(&table, &mixed);
    let mut files = mixed.paths();
    Append::new(mixed)
        .commit(&w.catalog, &mut table)
        .expect("append");
    let day3 = write(&table, &[orders(300, 10, 3)]);
    files.extend(day3.paths());
    Append::new(day3)
        .commit(&w.catalog, &mut table)
        .expect("append");
    assert_eq!(files.len(), 2);
    let before = rows(&table);

    let new_day = orders(1000, 7, 2);
    let filter = day_window(&new_day, 2);
    let spoiled = spoil(&files[1..]);
    let result = Overwrite::new(write(&table, &[new_day]))
        .only_window(filter)
        .writer_options(WriterOptions::default())
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");
    restore(spoiled);

    assert_eq!(result.operation, "overwrite");
    assert_eq!((result.rows_before, result.rows_after), (105, 82));
    assert_eq!(result.rows_written, 7);
    let last = table.snapshots().pop().expect("snapshot");
    assert_eq!(last.count("deleted-data-files"), 1);
    assert_eq!(last.count("deleted-records"), 95);
    assert_eq!(last.count("added-records"), 7 + 65);
    assert_eq!(last.count("added-data-files"), 2);
    let after_files = table.data_file_paths(None).expect("files");
    assert!(
        !after_files.contains(&files[0]),
        "the mixed file is replaced"
    );
    assert!(
        after_files.contains(&files[1]),
        "the day-3 file is untouched"
    );

    let after = rows(&table);
    let kept: Vec<_> = before
        .iter()
        .filter(|r| !(100..130).contains(&r.0))
        .copied()
        .collect();
    let unchanged: Vec<_> = after.iter().filter(|r| r.0 < 1000).copied().collect();
    assert_eq!(
        unchanged, kept,
        "rows outside the window, nulls included, are as they were"
    );
    assert_eq!(after.iter().filter(|r| r.1.is_none()).count(), 5);
    assert_eq!(after.iter().filter(|r| r.0 >= 1000).count(), 7);
}

#[test]
fn a_window_without_rows_in_the_table_appends() {
    let w = Warehouse::new();
    let (mut table, files) = three_days(&w);
    let new_day = orders(1000, 10, 5);
    let filter = day_window(&new_day, 5);
    let spoiled = spoil(&files);
    let result = Overwrite::new(write(&table, &[new_day]))
        .only_window(filter)
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");
    restore(spoiled);
    assert_eq!(result.operation, "append");
    assert_eq!((result.rows_before, result.rows_after), (150, 160));
    let after_files = table.data_file_paths(None).expect("files");
    assert_eq!(after_files.len(), 4);
    assert!(files.iter().all(|f| after_files.contains(f)));
    assert_eq!(rows(&table).len(), 160);
}

#[test]
fn a_window_overwrite_of_a_table_without_snapshot_appends() {
    let w = Warehouse::new();
    let mut table = create(&w, "orders");
    let batch = orders(0, 10, 2);
    let filter = day_window(&batch, 2);
    let result = Overwrite::new(write(&table, &[batch]))
        .only_window(filter)
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");
    assert_eq!(result.operation, "append");
    assert_eq!((result.rows_before, result.rows_after), (0, 10));
}

#[test]
fn a_window_column_missing_from_the_table_fails_and_leaves_nothing() {
    let w = Warehouse::new();
    let (mut table, _) = three_days(&w);
    let snapshots = table.snapshots().len();
    let data = w.location("orders").join("data");
    let files_before = std::fs::read_dir(&data).expect("data").count();
    let other = one_column("shipped_at", Arc::new(Date32Array::from(vec![1])));
    let filter = WindowFilter::for_data_to_write(
        &other.schema(),
        "shipped_at",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        TimeZone::UTC,
    )
    .expect("filter");
    let error = Overwrite::new(write(&table, &[orders(1000, 3, 2)]))
        .only_window(filter)
        .commit(&w.catalog, &mut table)
        .expect_err("no such column in the table");
    assert_eq!(
        error.to_string(),
        "metadata.window.column 'shipped_at' is not a column of the Iceberg table nyc.orders \
         (columns: id, ordered_at, amount)"
    );
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(table.snapshots().len(), snapshots);
    assert_eq!(
        std::fs::read_dir(&data).expect("data").count(),
        files_before
    );
}

/// A table partitioned by day of a `timestamptz` column: other days are kept by their partition
/// and bounds without being opened, and the window's instants are compared.
#[test]
fn a_partitioned_timestamptz_table_overwrites_one_utc_day() {
    let w = Warehouse::new();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
    ]));
    let batch = |from: i64, day: i8| {
        let start = date(2026, 8, day)
            .at(0, 0, 0, 0)
            .to_zoned(TimeZone::UTC)
            .expect("day");
        let base = start.timestamp().as_microsecond();
        let ids: Vec<i64> = (from..from + 24).collect();
        let times: Vec<i64> = (0..24).map(|h| base + h * 3_600_000_000).collect();
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(TimestampMicrosecondArray::from(times).with_timezone("UTC")),
            ],
        )
        .expect("batch")
    };
    let mut table = Table::create_partitioned(
        &w.catalog,
        CATALOG,
        "events",
        &schema,
        &[PartitionColumn {
            column: "at".into(),
            transform: Transform::Day,
            name: None,
        }],
        &w.location("events"),
    )
    .expect("create");
    Append::new(write_with(
        &table,
        &[batch(0, 1), batch(100, 2), batch(200, 3)],
        &WriterOptions::default(),
    ))
    .commit(&w.catalog, &mut table)
    .expect("append");
    let files = table.data_file_paths(None).expect("files");
    assert_eq!(files.len(), 3);
    let new_day = batch(1000, 2);
    let filter = WindowFilter::for_data_to_write(
        &new_day.schema(),
        "at",
        at("2026-08-02T00:00:00Z"),
        at("2026-08-03T00:00:00Z"),
        paris(),
    )
    .expect("filter");
    let spoiled = spoil(&files);
    let result = Overwrite::new(write(&table, &[new_day]))
        .only_window(filter)
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");
    restore(spoiled);
    assert_eq!(result.operation, "overwrite");
    assert_eq!((result.rows_before, result.rows_after), (72, 72));
    let mut expected: Vec<i64> = (0..24).chain(200..224).chain(1000..1024).collect();
    expected.sort_unstable();
    assert_eq!(ids(&table.read_all(None).expect("read")), expected);
}

// ------------------------------------------------------------------ pyiceberg

const SETUP: &str =
    "run: python3 -m venv .venv && .venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'";

fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("LDP_PYTHON") {
        return PathBuf::from(python);
    }
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    assert!(
        python.exists(),
        "no Python for the pyiceberg interop test at {}; {SETUP}",
        python.display()
    );
    python
}

const SCRIPT: &str = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog

db, warehouse = sys.argv[1], sys.argv[2]
catalog = SqlCatalog("nyc", uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}")
table = catalog.load_table(("nyc", "orders"))
data = table.scan().to_arrow().sort_by("id")
print(json.dumps({
    "ids": data["id"].to_pylist(),
    "nulls": data["ordered_at"].null_count,
    "operations": [s.summary.operation.value for s in table.snapshots()],
    "day2": table.scan(row_filter="ordered_at >= '2026-08-02T00:00:00' and ordered_at < '2026-08-03T00:00:00'")
        .to_arrow().num_rows,
}))
"#;

#[test]
fn pyiceberg_reads_a_window_overwrite() {
    let python = python();
    let w = Warehouse::new();
    let mut table = create(&w, "orders");
    let mixed = [
        orders(0, 30, 1),
        orders(100, 30, 2),
        orders(200, 30, 3),
        orders(900, 5, 0),
    ];
    Append::new(write(&table, &mixed))
        .commit(&w.catalog, &mut table)
        .expect("append");
    let new_day = orders(1000, 7, 2);
    let filter = day_window(&new_day, 2);
    Overwrite::new(write(&table, &[new_day]))
        .only_window(filter)
        .commit(&w.catalog, &mut table)
        .expect("window overwrite");

    let output = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(w.catalog_file())
        .arg(w.root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "pyiceberg failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: serde_json::Value = serde_json::from_str(stdout.trim()).expect("json");
    let expected: Vec<i64> = (0..30)
        .chain(200..230)
        .chain(900..905)
        .chain(1000..1007)
        .collect();
    assert_eq!(seen["ids"], serde_json::json!(expected));
    assert_eq!(seen["nulls"], 5);
    assert_eq!(
        seen["operations"],
        serde_json::json!(["append", "overwrite"])
    );
    assert_eq!(seen["day2"], 7);
}
