//! Interop through the binary: pyiceberg 0.12 reads the table `ldp run` wrote (same rows, same
//! types), creates a table of its own in the same catalog file, and `ldp query` reads it and
//! `ldp run` appends to it.
//!
//! The Python comes from `$LDP_PYTHON`, else `<repo>/.venv/bin/python` (`scripts/test` creates
//! it). Without it the test fails, never skips.

use std::path::PathBuf;
use std::process::Command;

use super::{ldp, rides, stderr, stdout};

const SETUP: &str =
    "run: python3 -m venv .venv && .venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'";

pub(super) fn python() -> PathBuf {
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

warehouse, step = sys.argv[1], sys.argv[2]
catalog = SqlCatalog("nyc", uri=f"sqlite:///{warehouse}/nyc_catalog.db", warehouse=f"file://{warehouse}")
if step == "read_and_create":
    rides = catalog.load_table(("nyc", "rides")).scan().to_arrow()
    trips = catalog.create_table(("nyc", "trips"), schema=rides.schema)
    trips.append(rides)
    print(json.dumps({
        "rows": rides.num_rows,
        "schema": [[f.name, str(f.type)] for f in rides.schema],
        "fare_sum": round(sum(rides["fare"].to_pylist()), 2),
    }))
else:
    trips = catalog.load_table(("nyc", "trips"))
    print(json.dumps({"rows": trips.scan().to_arrow().num_rows, "snapshots": len(trips.snapshots())}))
"#;

fn py(warehouse: &std::path::Path, step: &str) -> serde_json::Value {
    let out = Command::new(python())
        .args(["-c", SCRIPT, warehouse.to_str().unwrap(), step])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP}", python().display()));
    assert!(
        out.status.success(),
        "pyiceberg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn config(name: &str) -> String {
    format!(
        r#"{{"identifier": "{name}", "metadata": {{
            "source": {{"name": "rides", "format": "CSV", "path": "rides.csv"}},
            "target": {{"name": "{name}", "format": "ICEBERG",
                       "catalog": {{"identifier": "nyc", "warehouse_path": "warehouse"}}}}}}}}"#
    )
}

#[test]
fn ldp_and_pyiceberg_share_a_warehouse() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(rides(), dir.path().join("rides.csv")).unwrap();
    for name in ["rides", "trips"] {
        std::fs::write(dir.path().join(format!("{name}.json")), config(name)).unwrap();
    }
    let rides_json = dir.path().join("rides.json").display().to_string();
    let trips_json = dir.path().join("trips.json").display().to_string();
    let out = ldp(&["run", &rides_json]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let read = py(&dir.path().join("warehouse"), "read_and_create");
    assert_eq!(read["rows"], 20);
    assert_eq!(
        read["schema"],
        serde_json::json!([
            ["ride_id", "int64"],
            ["pickup_ts", "timestamp[us]"],
            ["city", "string"],
            ["distance_km", "double"],
            ["fare", "double"]
        ])
    );
    let out = ldp(&[
        "query",
        &rides_json,
        "SELECT round(sum(fare), 2) AS s FROM rides",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"][0]["s"], read["fare_sum"], "{}", stdout(&out));

    // The table pyiceberg created: ldp reads it, then appends to it.
    let out = ldp(&[
        "query",
        &trips_json,
        "SELECT count(*) AS n FROM trips",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"][0]["n"], 20);
    let out = ldp(&["run", &trips_json]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("target nyc.trips: append, 20 -> 40 rows"),
        "{}",
        stdout(&out)
    );

    let after = py(&dir.path().join("warehouse"), "read_after");
    assert_eq!(after, serde_json::json!({"rows": 40, "snapshots": 2}));
}
