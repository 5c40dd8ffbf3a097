//! Partitioned tables: rows are split into files per partition while streaming,
//! with partition values computed as the Iceberg spec says, and pyiceberg computes the same
//! value for every row of every file.

use std::path::Path;
use std::process::Command;

use super::interop::python;
use super::{ldp, stderr, stdout};

const CONFIG: &str = r#"{"apiVersion": "ldp/v1", "identifier": "rides", "metadata": {
  "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
  "target": {"name": "rides", "format": "ICEBERG",
             "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"},
             "partition_by": [{"column": "pickup_ts", "transform": "day"},
                              {"column": "city", "transform": "bucket[4]"}]}}}"#;

/// For every data file: its partition values, and pyiceberg's transforms of every row in it.
const CHECK: &str = r#"
import json, sys
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.transforms import DayTransform, BucketTransform
from pyiceberg.types import TimestampType, StringType
w = sys.argv[1]
t = SqlCatalog("nyc", uri=f"sqlite:///{w}/nyc_catalog.db", warehouse=f"file://{w}").load_table(("nyc", "rides"))
day, bucket = DayTransform().transform(TimestampType()), BucketTransform(4).transform(StringType())
files, mismatches = 0, []
for entry in t.inspect.entries().to_pylist():
    f = entry["data_file"]
    files += 1
    part = f["partition"]
    rows = pq.read_table(f["file_path"].removeprefix("file://")).to_pylist()
    for r in rows:
        got = (day(r["pickup_ts"]), bucket(r["city"]))
        want = (part["pickup_ts_day"], part["city_bucket_4"])
        if hasattr(want[0], "toordinal"):
            import datetime
            want = ((want[0] - datetime.date(1970, 1, 1)).days, want[1])
        if got != want:
            mismatches.append([str(r), str(got), str(want)])
spec = [[f.name, str(f.transform)] for f in t.spec().fields]
print(json.dumps({"files": files, "rows": t.scan().to_arrow().num_rows, "spec": spec, "mismatches": mismatches}))
"#;

#[test]
fn rows_are_split_by_partition_and_pyiceberg_agrees_on_every_value() {
    let dir = super::rides_workdir(CONFIG);
    let d = dir.path();
    let config = d.join("rides.json");
    let out = ldp(&["run", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = ldp(&[
        "query",
        config.to_str().unwrap(),
        "SELECT count(*) AS n, count(DISTINCT CAST(pickup_ts AS DATE)) AS days FROM rides",
        "--json",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("\"n\": 20") && text.contains("\"days\": 7"),
        "{text}"
    );
    let seen = pyiceberg(&d.join("warehouse"));
    assert_eq!(seen["rows"], 20);
    assert_eq!(
        seen["spec"],
        serde_json::json!([["pickup_ts_day", "day"], ["city_bucket_4", "bucket[4]"]])
    );
    assert_eq!(seen["mismatches"], serde_json::json!([]));
    let files = seen["files"].as_u64().unwrap();
    assert!(
        (7..=20).contains(&files),
        "one file per (day, bucket): {files}"
    );
}

fn pyiceberg(warehouse: &Path) -> serde_json::Value {
    let out = Command::new(python())
        .args(["-c", CHECK, warehouse.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
