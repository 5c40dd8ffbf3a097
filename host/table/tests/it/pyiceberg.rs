//! Interop: pyiceberg 0.12 reads the tables ldp writes (and ldp reads what pyiceberg appends).
//!
//! The Python comes from `$LDP_PYTHON`, else `<repo>/.venv/bin/python`. Without it the test
//! fails (it never skips): run `python3 -m venv .venv && .venv/bin/pip install
//! 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'` at the repository root.

use std::path::PathBuf;
use std::process::Command;

use ldp_table::{Append, Overwrite, Table};
use serde_json::Value;

use crate::common::{CATALOG, Warehouse, ids, rides, row_count, write};

const SETUP: &str =
    "run: python3 -m venv .venv && .venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'";

pub(crate) fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("LDP_PYTHON") {
        return PathBuf::from(python);
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = repo.join(".venv/bin/python");
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

db, warehouse, name, first_snapshot = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
catalog = SqlCatalog("nyc", uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}")
table = catalog.load_table(("nyc", name))
data = table.scan().to_arrow()
out = {
    "rows": data.num_rows,
    "schema": [[f.name, str(f.type), f.nullable] for f in data.schema],
    "iceberg_schema": [[f.field_id, f.name, str(f.field_type), f.required] for f in table.schema().fields],
    "ids": sorted(data["id"].to_pylist()),
    "snapshots": [
        {"id": s.snapshot_id, "parent": s.parent_snapshot_id, "operation": s.summary.operation.value,
         "summary": {k: v for k, v in s.summary.additional_properties.items()}}
        for s in table.snapshots()
    ],
    "first_snapshot_rows": table.scan(snapshot_id=first_snapshot).to_arrow().num_rows,
    "filtered_rows": table.scan(row_filter="id >= 1000 and borough == 'Queens'").to_arrow().num_rows,
    "files": [task.file.file_path for task in table.scan().plan_files()],
    "file_stats": [[r["record_count"], r["null_value_counts"] is not None, r["lower_bounds"] is not None]
                   for r in table.inspect.files().to_pylist()],
    "format_version": table.format_version,
    "location": table.location(),
}
# pyiceberg appends 5 rows on top of ldp's snapshot.
table.append(data.slice(0, 5))
out["after_python_append"] = catalog.load_table(("nyc", name)).scan().to_arrow().num_rows
print(json.dumps(out))
"#;

#[test]
fn pyiceberg_reads_what_ldp_writes() {
    let python = python();
    let w = Warehouse::new();
    let mut table = w.create("rides");
    let first = Append::new(write(&table, &[rides(0, 100)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    Append::new(write(&table, &[rides(100, 100)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    Overwrite::new(write(&table, &[rides(1000, 80), rides(1080, 70)]))
        .property("ldp.run-id", "r1")
        .commit(&w.catalog, &mut table)
        .unwrap();

    let output = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(w.catalog_file())
        .arg(w.root())
        .arg("rides")
        .arg(first.snapshot_id.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "pyiceberg failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("pyiceberg saw: {stdout}");
    let seen: Value = serde_json::from_str(stdout.trim()).expect("json from the script");

    assert_eq!(seen["rows"], 150);
    assert_eq!(
        seen["ids"],
        serde_json::json!((1000..1150).collect::<Vec<i64>>())
    );
    assert_eq!(
        seen["schema"],
        serde_json::json!([
            ["id", "int64", true],
            ["vendor", "int32", true],
            ["fare", "double", true],
            ["borough", "string", true],
            ["pickup", "timestamp[us, tz=UTC]", true],
            ["dropoff", "timestamp[us]", true],
            ["day", "date32[day]", true],
            ["paid", "bool", true],
        ])
    );
    assert_eq!(
        seen["iceberg_schema"],
        serde_json::json!([
            [1, "id", "long", false],
            [2, "vendor", "int", false],
            [3, "fare", "double", false],
            [4, "borough", "string", false],
            [5, "pickup", "timestamptz", false],
            [6, "dropoff", "timestamp", false],
            [7, "day", "date", false],
            [8, "paid", "boolean", false],
        ])
    );
    let snapshots = seen["snapshots"].as_array().unwrap();
    assert_eq!(snapshots.len(), 3);
    let operations: Vec<&str> = snapshots
        .iter()
        .map(|s| s["operation"].as_str().unwrap())
        .collect();
    assert_eq!(operations, ["append", "append", "overwrite"]);
    assert_eq!(snapshots[2]["summary"]["total-records"], "150");
    assert_eq!(snapshots[2]["summary"]["deleted-records"], "200");
    assert_eq!(snapshots[2]["summary"]["ldp.run-id"], "r1");
    assert_eq!(seen["first_snapshot_rows"], 100);
    let queens = rides(1000, 150);
    let borough = queens.column_by_name("borough").unwrap();
    let borough = borough
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    let expected_queens = borough.iter().filter(|b| *b == Some("Queens")).count();
    assert_eq!(seen["filtered_rows"], expected_queens);
    assert_eq!(seen["files"].as_array().unwrap().len(), 1);
    assert_eq!(seen["file_stats"], serde_json::json!([[150, true, true]]));
    assert_eq!(seen["format_version"], 2);
    assert_eq!(seen["location"], table.location());
    assert_eq!(seen["after_python_append"], 155);

    // ldp reads pyiceberg's append, and appends on top of it.
    let mut table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.total_records(), 155);
    assert_eq!(row_count(&table.read_all(None).unwrap()), 155);
    Append::new(write(&table, &[rides(5000, 10)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.total_records(), 165);
    let all = ids(&table.read_all(None).unwrap());
    assert_eq!(all.len(), 165);
    assert!(all.ends_with(&(5000..5010).collect::<Vec<_>>()));
}
