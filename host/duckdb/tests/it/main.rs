//! ldp-duckdb against a real libduckdb (`LDP_DUCKDB_LIB`, which `scripts/test` fetches) on
//! database files made by Python's duckdb (`$LDP_PYTHON`, else `<repo>/.venv/bin/python`).
//! Without either the tests fail with the command that installs it; they never skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use ldp_duckdb::{Error, ErrorKind, Query, QueryOptions};

mod inputs;

const SETUP: &str = "run scripts/test once (it installs duckdb into .venv and fetches libduckdb into .venv/libduckdb), or: python3 -m venv .venv && .venv/bin/pip install duckdb==1.5.6";

fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("LDP_PYTHON") {
        return PathBuf::from(python);
    }
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    assert!(
        python.exists(),
        "no Python at {}; {SETUP}",
        python.display()
    );
    python
}

/// Finds the library the way scripts/test leaves it when the variable is not set.
fn library() {
    if std::env::var_os(ldp_duckdb::LIBRARY_ENV).is_some() {
        return;
    }
    let fetched =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/libduckdb/libduckdb.so");
    assert!(
        fetched.exists(),
        "no libduckdb: set {} or {SETUP}",
        ldp_duckdb::LIBRARY_ENV
    );
    // SAFETY: set once, before the library is loaded, by every test (same value).
    unsafe { std::env::set_var(ldp_duckdb::LIBRARY_ENV, fetched) };
}

/// A database file made by Python's duckdb with `statements`.
fn database(dir: &Path, statements: &str) -> PathBuf {
    let file = dir.join("shop.duckdb");
    let script = format!(
        "import duckdb, sys\nc = duckdb.connect(sys.argv[1])\nc.execute({statements:?})\nc.close()\n"
    );
    let out = Command::new(python())
        .args(["-c", &script, file.to_str().unwrap()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP}", python().display()));
    assert!(
        out.status.success(),
        "duckdb failed: {}; {SETUP}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

const SHOP: &str = "CREATE SCHEMA sales; \
    CREATE TABLE sales.orders AS SELECT i::INTEGER AS id, i * 1.5 AS amount, 'dish ' || (i % 7) AS dish, \
    TIMESTAMP '2026-08-01 18:00:00' + INTERVAL (i) MINUTE AS ordered_at, i % 2 = 0 AS paid \
    FROM range(10000) t(i);";

fn open(file: &Path, sql: &str) -> ldp_duckdb::Result<Query> {
    library();
    Query::open(file, sql, QueryOptions::default())
}

#[test]
fn a_relation_streams_in_batches_with_duckdbs_arrow_types() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    let mut query = open(&file, "SELECT * FROM \"sales\".\"orders\" ORDER BY id").unwrap();
    let fields: Vec<String> = query
        .schema()
        .fields()
        .iter()
        .map(|f| format!("{}:{}", f.name(), f.data_type()))
        .collect();
    assert_eq!(
        fields,
        [
            "id:Int32",
            "amount:Decimal128(21, 1)",
            "dish:Utf8",
            "ordered_at:Timestamp(µs)",
            "paid:Boolean"
        ]
    );
    let mut sizes = Vec::new();
    let mut ids = 0i64;
    while let Some(batch) = query.next_batch().unwrap() {
        sizes.push(batch.num_rows());
        ids += batch
            .column(0)
            .as_primitive::<Int32Type>()
            .values()
            .iter()
            .map(|v| i64::from(*v))
            .sum::<i64>();
    }
    assert_eq!(sizes, [8192, 1808]);
    assert_eq!(ids, (0..10_000).sum::<i64>());
}

#[test]
fn a_with_query_runs_and_aggregates() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    let mut query = open(
        &file,
        "-- paid orders per dish\nWITH paid AS (SELECT * FROM sales.orders WHERE paid) \
         SELECT dish, count(*) AS n, sum(amount)::DOUBLE AS total FROM paid GROUP BY dish ORDER BY dish",
    )
    .unwrap();
    let batch = query.next_batch().unwrap().unwrap();
    assert_eq!(batch.num_rows(), 7);
    assert_eq!(batch.column(1).as_primitive::<Int64Type>().value(0), 715);
    assert!(batch.column(2).as_primitive::<Float64Type>().value(0) > 0.0);
    assert!(query.next_batch().unwrap().is_none());
}

#[test]
fn only_one_read_only_query_gets_through() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    for (sql, message) in [
        (
            "SELECT 1; SELECT 2",
            "exactly one statement is allowed; found 2",
        ),
        (
            "SELECT 1; DROP TABLE sales.orders",
            "exactly one statement is allowed; found 2",
        ),
        (
            "DELETE FROM sales.orders",
            "only read-only SELECT or WITH queries are allowed; this statement starts with 'DELETE'",
        ),
        (
            "WITH x AS (SELECT 1) INSERT INTO sales.orders SELECT * FROM sales.orders",
            "only read-only SELECT or WITH queries are allowed; this is a INSERT statement",
        ),
        (
            "/* hidden */ PRAGMA database_list",
            "only read-only SELECT or WITH queries are allowed; this statement starts with 'PRAGMA'",
        ),
        ("", "sql is empty"),
    ] {
        let error = open(&file, sql).unwrap_err();
        assert!(matches!(error, Error::Rejected { .. }), "{sql}: {error:?}");
        assert_eq!(error.to_string(), message, "{sql}");
        assert_eq!(error.kind(), ErrorKind::Config);
    }
    // The file is untouched and opens again.
    assert!(open(&file, "SELECT count(*) FROM sales.orders").is_ok());
}

#[test]
fn nothing_beyond_the_file_is_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    std::fs::write(dir.path().join("secret.csv"), "a\n1\n").unwrap();
    let secret = dir.path().join("secret.csv").display().to_string();
    for sql in [
        format!("SELECT * FROM read_csv('{secret}')"),
        format!("SELECT * FROM '{secret}'"),
    ] {
        let error = open(&file, &sql)
            .and_then(|mut q| q.next_batch().map(|_| q))
            .unwrap_err();
        assert!(
            error.to_string().contains("disabled") || error.to_string().contains("Permission"),
            "{sql}: {error}"
        );
    }
}

#[test]
fn a_missing_table_is_a_catalog_error_and_a_bad_file_an_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    let error = open(&file, "SELECT * FROM sales.nope").unwrap_err();
    assert!(matches!(error, Error::Catalog { .. }), "{error:?}");
    assert!(error.to_string().starts_with("Catalog Error"), "{error}");

    let not_duckdb = dir.path().join("notes.duckdb");
    std::fs::write(&not_duckdb, "this is not a database").unwrap();
    let error = open(&not_duckdb, "SELECT 1").unwrap_err();
    assert!(matches!(error, Error::Open { .. }), "{error:?}");
    assert_eq!(error.kind(), ErrorKind::Io);
    assert!(error.to_string().contains("notes.duckdb"), "{error}");
}

#[test]
fn a_query_past_its_time_limit_is_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let file = database(dir.path(), SHOP);
    library();
    let options = QueryOptions {
        time_limit: Some(Duration::from_millis(300)),
        ..QueryOptions::default()
    };
    let started = std::time::Instant::now();
    let error = Query::open(
        &file,
        "SELECT count(*) FROM range(100000000000) a, range(10) b WHERE a.range % 7 = b.range",
        options,
    )
    .and_then(|mut q| q.next_batch().map(|_| q))
    .unwrap_err();
    assert!(matches!(error, Error::TimedOut { .. }), "{error:?}");
    assert_eq!(error.kind(), ErrorKind::Limit);
    assert!(started.elapsed() < Duration::from_secs(20));
}
