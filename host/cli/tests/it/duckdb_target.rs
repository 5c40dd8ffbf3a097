//! DUCKDB targets: a table of a DuckDB file, written by the `duckdb-sink` plugin through the
//! host (`ldp:plugin/duckdb-write`) and read back by Python's duckdb with the table's rows and
//! types. Appends add rows, overwrites replace the table, other tables of the file stay, and
//! runs started together take turns; a blocked check, an upsert and a file another DuckDB
//! process holds leave the file as it was.

use std::path::Path;
use std::process::Command;

use super::duckdb::ldp;
use super::interop::python;
use super::sinks::{config, ldp_on_with, no_staging_left};
use super::{rides, rides_workdir};

const TABLE: &str = r#"{"name": "rides", "format": "ICEBERG",
  "catalog": {"identifier": "nyc", "type": "local", "warehouse_path": "warehouse"}}"#;
const CSV: &str = r#"{"name": "rides", "format": "CSV", "path": "data/rides.csv"}"#;

/// Writes `name` in `dir` and runs `ldp ARGS… name` with libduckdb found.
fn ldp_on(dir: &Path, name: &str, text: &str, args: &[&str]) -> (Option<i32>, String) {
    ldp_on_with(ldp, dir, name, text, args)
}

/// What DuckDB (Python's duckdb) reads in `file`: each line of `sql`'s result.
fn duckdb(file: &Path, sql: &str) -> String {
    let script = r#"
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
for row in con.sql(sys.argv[2]).fetchall():
    print("|".join(str(v) for v in row))
"#;
    let out = Command::new(python())
        .args(["-c", script])
        .arg(file)
        .arg(sql)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} (needs duckdb in .venv: run scripts/test once)",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_table_goes_into_a_duckdb_file_with_its_types_and_is_appended_to_or_overwritten() {
    let dir = rides_workdir(&config(CSV, TABLE, ""));
    let d = dir.path();
    let (code, out) = ldp_on(d, "rides.json", &config(CSV, TABLE, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    let file = d.join("out/shop.duckdb");
    let rows = std::fs::read_to_string(rides()).unwrap().lines().count() - 1;

    // ICEBERG -> DUCKDB: the table's rows and types, as DuckDB reads them.
    let target = r#"{"name": "rides", "format": "DUCKDB", "path": "out/shop.duckdb"}"#;
    let (code, out) = ldp_on(d, "export.json", &config(TABLE, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    no_staging_left(d);
    let types = duckdb(
        &file,
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'rides' ORDER BY ordinal_position",
    );
    assert_eq!(
        types,
        "ride_id|BIGINT\npickup_ts|TIMESTAMP\ncity|VARCHAR\ndistance_km|DOUBLE\nfare|DOUBLE\n"
    );
    assert_eq!(
        duckdb(&file, "SELECT * FROM rides ORDER BY ride_id LIMIT 1"),
        "1|2024-01-01 00:54:38|LDN|16.17|32.28\n"
    );
    assert_eq!(
        duckdb(&file, "SELECT count(*) FROM rides"),
        format!("{rows}\n")
    );

    // CSV -> DUCKDB into another table of the same file: both tables are there.
    let other = r#"{"name": "rides_csv", "format": "DUCKDB", "path": "out/shop.duckdb"}"#;
    let (code, out) = ldp_on(d, "csv.json", &config(CSV, other, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    let counts = "SELECT (SELECT count(*) FROM rides), (SELECT count(*) FROM rides_csv)";
    assert_eq!(duckdb(&file, counts), format!("{rows}|{rows}\n"));

    // Append (the default) adds the rows again; overwrite replaces the table, and only it.
    let (code, out) = ldp_on(d, "export.json", &config(TABLE, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(duckdb(&file, counts), format!("{}|{rows}\n", 2 * rows));
    let overwrite = r#"{"name": "rides", "format": "DUCKDB", "path": "out/shop.duckdb", "write_mode": "overwrite"}"#;
    let (code, out) = ldp_on(d, "over.json", &config(TABLE, overwrite, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(duckdb(&file, counts), format!("{rows}|{rows}\n"));
    let (code, out) = ldp_on(d, "over.json", &config(TABLE, overwrite, ""), &["plan"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("route       ICEBERG -> DUCKDB [IcebergToDuckDB]"),
        "{out}"
    );
    assert!(out.contains("write_mode  overwrite"), "{out}");

    // ldp's own DUCKDB source reads the table back to the CSV it was loaded from.
    let source = r#"{"name": "back", "format": "DUCKDB", "path": "out/shop.duckdb", "sql": "SELECT * FROM rides ORDER BY ride_id"}"#;
    let back = r#"{"name": "back", "format": "CSV", "path": "out/back.csv"}"#;
    let (code, out) = ldp_on(d, "back.json", &config(source, back, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        std::fs::read_to_string(d.join("out/back.csv")).unwrap(),
        std::fs::read_to_string(rides()).unwrap()
    );
}

#[test]
fn a_blocked_run_an_upsert_or_a_file_held_by_duckdb_leaves_the_file_as_it_was() {
    let dir = rides_workdir(&config(CSV, TABLE, ""));
    let d = dir.path();
    let target = r#"{"name": "rides", "format": "DUCKDB", "path": "shop.duckdb"}"#;
    let (code, out) = ldp_on(d, "load.json", &config(CSV, target, ""), &["run"]);
    assert_eq!(code, Some(0), "{out}");
    let file = d.join("shop.duckdb");
    let before = std::fs::read(&file).unwrap();

    // A failing check: exit 3, the file byte for byte as it was, nothing staged left.
    let gate = r#", "quality": {"checks": [{"check": "row_count", "min": 1000000}]}"#;
    let (code, out) = ldp_on(d, "load.json", &config(CSV, target, gate), &["run"]);
    assert_eq!(code, Some(3), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    no_staging_left(d);

    // An upsert is an Iceberg table's: `ldp plan` names the key, and --mode upsert is refused.
    let upsert =
        r#"{"name": "rides", "format": "DUCKDB", "path": "shop.duckdb", "write_mode": "upsert"}"#;
    let (code, out) = ldp_on(d, "upsert.json", &config(CSV, upsert, ""), &["plan"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("metadata.target.write_mode: a DUCKDB target is appended to or overwritten"),
        "{out}"
    );
    let (code, out) = ldp_on(
        d,
        "load.json",
        &config(CSV, target, ""),
        &["run", "--mode", "upsert"],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("write mode 'upsert' needs an Iceberg table's key"),
        "{out}"
    );

    // A .wal beside the file: another DuckDB process holds it; refused, the file untouched.
    std::fs::write(d.join("shop.duckdb.wal"), b"").unwrap();
    let (code, out) = ldp_on(d, "load.json", &config(CSV, target, ""), &["run"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("is open in another DuckDB process"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    no_staging_left(d);
}

#[test]
fn concurrent_runs_into_one_duckdb_file_take_turns_and_lose_no_rows() {
    let dir = rides_workdir(&config(CSV, TABLE, ""));
    let d = dir.path();
    let rows = std::fs::read_to_string(rides()).unwrap().lines().count() - 1;
    let library = std::env::var_os("LDP_DUCKDB_LIB").unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../.venv/libduckdb/libduckdb.so")
            .into()
    });
    // Four runs started together: three append to `rides`, one to `others`, all in one file.
    let children: Vec<_> = ["rides", "rides", "rides", "others"]
        .iter()
        .enumerate()
        .map(|(i, table)| {
            let target =
                format!(r#"{{"name": "{table}", "format": "DUCKDB", "path": "shop.duckdb"}}"#);
            let file = d.join(format!("load{i}.json"));
            std::fs::write(&file, config(CSV, &target, "")).unwrap();
            Command::new(env!("CARGO_BIN_EXE_ldp"))
                .env("LDP_DUCKDB_LIB", &library)
                .args(["run", file.to_str().unwrap()])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let counts = "SELECT (SELECT count(*) FROM rides), (SELECT count(*) FROM others)";
    assert_eq!(
        duckdb(&d.join("shop.duckdb"), counts),
        format!("{}|{rows}\n", 3 * rows)
    );
    no_staging_left(d);
}
