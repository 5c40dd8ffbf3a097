//! DUCKDB sources: a DuckDB file made by Python's duckdb, loaded into an Iceberg table
//! by `relation`, by `sql` and by `query_file`, each giving back the example rides byte for byte
//! when the table goes out to CSV; a second statement and write statements refused, with the
//! Python tool's messages, before anything is written; a missing relation named.
//!
//! The `duckdb` plugin asks the host to run the query (`ldp:plugin/duckdb`); the host loads
//! libduckdb from `LDP_DUCKDB_LIB`, which `scripts/test` fetches into `.venv/libduckdb`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::interop::python;
use super::{rides, stderr};

const SETUP: &str = "run scripts/test once: it fetches libduckdb into .venv/libduckdb and installs duckdb into .venv";

/// `ldp` with the libduckdb scripts/test fetched (when the environment names none).
pub(crate) fn ldp(args: &[&str]) -> Output {
    let library = std::env::var_os("LDP_DUCKDB_LIB").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/libduckdb/libduckdb.so"),
        PathBuf::from,
    );
    assert!(
        library.exists(),
        "no libduckdb at {}; {SETUP}",
        library.display()
    );
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    Command::new(env!("CARGO_BIN_EXE_ldp"))
        .env("LDP_DUCKDB_LIB", library)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .output()
        .expect("ldp runs")
}

/// `shop.duckdb` in `dir`, with the example rides as `sales.rides` (read by DuckDB's own CSV
/// reader, so the types are DuckDB's: BIGINT, TIMESTAMP, VARCHAR, DOUBLE).
fn shop(dir: &Path) -> PathBuf {
    let file = dir.join("shop.duckdb");
    let script = "import duckdb, sys\n\
        c = duckdb.connect(sys.argv[1])\n\
        c.execute(\"CREATE SCHEMA sales\")\n\
        c.execute(\"CREATE TABLE sales.rides AS SELECT * FROM read_csv(?)\", [sys.argv[2]])\n\
        c.close()\n";
    let out = Command::new(python())
        .args([
            "-c",
            script,
            file.to_str().unwrap(),
            rides().to_str().unwrap(),
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run Python: {e}; {SETUP}"));
    assert!(
        out.status.success(),
        "duckdb: {}; {SETUP}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

fn config(source: &str, target: &str) -> String {
    format!(r#"{{"identifier": "shop", "metadata": {{"source": {source}, "target": {target}}}}}"#)
}

const TABLE: &str = r#"{"name": "rides", "format": "ICEBERG",
  "catalog": {"identifier": "lake", "type": "local", "warehouse_path": "warehouse"}}"#;

fn run(dir: &Path, text: &str) -> Output {
    let file = dir.join("config.json");
    std::fs::write(&file, text).unwrap();
    ldp(&["run", file.to_str().unwrap()])
}

#[test]
fn a_duckdb_file_loads_by_relation_by_sql_and_by_query_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    shop(d);
    std::fs::write(
        d.join("rides.sql"),
        "-- every ride, oldest first\nWITH r AS (SELECT * FROM sales.rides)\nSELECT * FROM r ORDER BY ride_id\n",
    )
    .unwrap();
    let expected = std::fs::read_to_string(rides()).unwrap();
    for rows in [
        r#""relation": "sales.rides""#,
        r#""sql": "SELECT * FROM sales.rides ORDER BY ride_id""#,
        r#""query_file": "rides.sql""#,
    ] {
        let _ = std::fs::remove_dir_all(d.join("warehouse"));
        let source =
            format!(r#"{{"name": "rides", "format": "DUCKDB", "path": "shop.duckdb", {rows}}}"#);
        let out = run(d, &config(&source, TABLE));
        assert_eq!(out.status.code(), Some(0), "{rows}: {}", stderr(&out));
        let target = r#"{"name": "out", "format": "CSV", "path": "out/rides.csv"}"#;
        let out = run(d, &config(TABLE, target));
        assert_eq!(out.status.code(), Some(0), "{rows}: {}", stderr(&out));
        let got = std::fs::read_to_string(d.join("out/rides.csv")).unwrap();
        assert_eq!(got, expected, "DUCKDB {rows} -> Iceberg -> CSV");
    }
}

#[test]
fn only_one_read_only_query_runs_and_nothing_is_written_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    shop(d);
    for (sql, message) in [
        (
            "SELECT * FROM sales.rides; DROP TABLE sales.rides",
            "DuckDB source 'rides': exactly one statement is allowed; found 2",
        ),
        (
            "DELETE FROM sales.rides",
            "DuckDB source 'rides': only read-only SELECT or WITH queries are allowed; this statement starts with 'DELETE'",
        ),
        (
            "WITH x AS (SELECT 1) INSERT INTO sales.rides SELECT * FROM sales.rides",
            "DuckDB source 'rides': only read-only SELECT or WITH queries are allowed; this is a INSERT statement",
        ),
        (
            "SELECT * FROM read_csv('/etc/passwd')",
            "DuckDB source 'rides': the query failed on ",
        ),
        (
            "SELECT * FORM sales.rides",
            "DuckDB source 'rides': sql does not parse: Parser Error: syntax error at or near",
        ),
        (
            "SELECT tip FROM sales.rides",
            "DuckDB source 'rides': the query failed on ",
        ),
    ] {
        let source = format!(
            r#"{{"name": "rides", "format": "DUCKDB", "path": "shop.duckdb", "sql": {}}}"#,
            serde_json::Value::from(sql)
        );
        let out = run(d, &config(&source, TABLE));
        assert_eq!(out.status.code(), Some(1), "{sql}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{sql}: {}", stderr(&out));
        assert!(
            !d.join("warehouse/lake/rides").exists(),
            "{sql}: a table was made"
        );
    }
    let source =
        r#"{"name": "rides", "format": "DUCKDB", "path": "shop.duckdb", "relation": "sales.nope"}"#;
    let out = run(d, &config(source, TABLE));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let file = d.join("shop.duckdb").canonicalize().unwrap();
    assert!(
        stderr(&out).contains(&format!(
            "DuckDB relation sales.nope does not exist in {}",
            file.display()
        )),
        "{}",
        stderr(&out)
    );
    // The file is as it was: every ride still there.
    let out = Command::new(python())
        .args([
            "-c",
            "import duckdb, sys; print(duckdb.connect(sys.argv[1], read_only=True).execute('SELECT count(*) FROM sales.rides').fetchone()[0])",
            d.join("shop.duckdb").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let rows = std::fs::read_to_string(rides()).unwrap().lines().count() - 1;
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        rows.to_string()
    );
}
