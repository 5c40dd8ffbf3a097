//! Upsert through the binary: the Python tool's demo step 3 with its generator, the
//! same batch again, the key checks, four processes at once, and pyiceberg reading the result.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch};

use super::interop::python;
use super::{ldp, stderr, stdout};

/// The demo's config (the Python tool's `rides.json`, byte for byte): upsert on `ride_id`
/// into `demo.rides`, seven quality checks.
const DEMO_CONFIG: &str = include_str!("../data/upsert/demo_rides.json");

/// A folder with `rides.json` (the demo's config) and `data/rides.csv` = `batch`.
fn demo_workdir(batch: &RecordBatch) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("rides.json"), DEMO_CONFIG).unwrap();
    ldp_demo::write_csv(batch, &dir.path().join("data/rides.csv")).unwrap();
    dir
}

/// The demo's change batch: the first 50 rides with fare + 2.5, and 10 new rides
/// (`generate(10, seed + 1, start 1001)`).
fn demo_changes(rides: &RecordBatch) -> RecordBatch {
    let changed = rides.slice(0, 50);
    let fare_at = changed.schema().index_of("fare").unwrap();
    let fares = changed
        .column(fare_at)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap()
        .iter()
        .map(|f| f.map(|f| ldp_demo::round2(f + 2.5)))
        .collect::<Float64Array>();
    let mut columns: Vec<ArrayRef> = changed.columns().to_vec();
    columns[fare_at] = Arc::new(fares);
    let changed = RecordBatch::try_new(changed.schema(), columns).unwrap();
    let new = ldp_demo::rides(10, 43, 1001);
    arrow_select_concat(&[changed, new])
}

fn arrow_select_concat(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    let columns = (0..schema.fields().len())
        .map(|i| {
            let arrays: Vec<&dyn arrow_array::Array> =
                batches.iter().map(|b| b.column(i).as_ref()).collect();
            arrow_array_concat(&arrays)
        })
        .collect();
    RecordBatch::try_new(schema, columns).unwrap()
}

fn arrow_array_concat(arrays: &[&dyn arrow_array::Array]) -> ArrayRef {
    arrow_select::concat::concat(arrays).unwrap()
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    let config = dir.join("rides.json");
    let mut args = vec!["run", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    ldp(&args)
}

fn query(dir: &Path, sql: &str) -> serde_json::Value {
    let config = dir.join("rides.json");
    let out = ldp(&["query", config.to_str().unwrap(), sql, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["rows"][0].clone()
}

fn snapshot_count(dir: &Path) -> usize {
    let config = dir.join("rides.json");
    let out = ldp(&["snapshots", config.to_str().unwrap(), "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["snapshots"].as_array().unwrap().len()
}

/// The Python tool's demo step 3, with its generator: `50 updated, 10 inserted: 1000 -> 1010
/// rows`, ride 1's fare `32.28 -> 34.78`, and the same batch again changes nothing.
#[test]
fn the_reference_demo_upsert() {
    let rides = ldp_demo::rides(1000, 42, 1);
    let dir = demo_workdir(&rides);
    let d = dir.path();

    let first = run(d, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        stdout(&first).contains(
            "  target demo.rides: upsert, 0 -> 1000 rows (0 updated, 1000 inserted), snapshot "
        ),
        "{}",
        stdout(&first)
    );
    assert_eq!(
        query(d, "SELECT fare FROM rides WHERE ride_id = 1")["fare"],
        32.28
    );

    ldp_demo::write_csv(&demo_changes(&rides), &d.join("data/rides.csv")).unwrap();
    let second = run(d, &["--json"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let report: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    let write = &report["write_result"];
    let (before, after, written) = (
        write["rows_before"].as_u64().unwrap(),
        write["rows_after"].as_u64().unwrap(),
        write["rows_written"].as_u64().unwrap(),
    );
    // The demo's arithmetic: inserted = after - before, updated = written - inserted.
    let inserted = after - before;
    assert_eq!(
        format!(
            "{} updated, {inserted} inserted: {before} -> {after} rows",
            written - inserted
        ),
        "50 updated, 10 inserted: 1000 -> 1010 rows"
    );
    assert_eq!(write["upsert"]["rows_updated"], 50);
    assert_eq!(write["upsert"]["rows_inserted"], 10);
    assert_eq!(report["quality"]["passed"], true, "{report}");
    assert_eq!(
        query(d, "SELECT fare FROM rides WHERE ride_id = 1")["fare"],
        34.78
    );
    let snapshots = snapshot_count(d);
    assert_eq!(snapshots, 2, "one snapshot per write");

    let third = run(d, &[]);
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    assert!(
        stdout(&third).contains(
            "  target demo.rides: upsert, 1010 -> 1010 rows (0 rows changed, no snapshot added), snapshot "
        ),
        "{}",
        stdout(&third)
    );
    assert_eq!(snapshot_count(d), snapshots, "no snapshot added");

    // pyiceberg sees the same table: no delete files, the new fare, every ride once.
    let script = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
t = SqlCatalog("demo", uri=f"sqlite:///{w}/demo_catalog.db", warehouse=f"file://{w}").load_table(("demo", "rides"))
rows = t.scan().to_arrow()
fares = dict(zip(rows["ride_id"].to_pylist(), rows["fare"].to_pylist()))
tasks = list(t.scan().plan_files())
print(json.dumps({"rows": rows.num_rows, "distinct": len(fares), "fare_1": fares[1],
                  "fare_sum": round(sum(fares.values()), 2),
                  "delete_files": sum(len(task.delete_files) for task in tasks),
                  "operation": t.current_snapshot().summary.operation.value}))
"#;
    let out = Command::new(python())
        .args(["-c", script, d.join("warehouse").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = query(
        d,
        "SELECT count(*) AS n, count(DISTINCT ride_id) AS distinct_ids, round(sum(fare), 2) AS fare_sum FROM rides",
    );
    assert_eq!(py["rows"], ours["n"]);
    assert_eq!(py["distinct"], ours["distinct_ids"]);
    assert_eq!(py["fare_sum"], ours["fare_sum"]);
    assert_eq!(py["fare_1"], 34.78);
    assert_eq!(py["delete_files"], 0);
    assert_eq!(py["operation"], "overwrite");
}

/// The demo's config without its checks, so the key checks of the write are what stops a bad
/// batch.
fn unchecked_config() -> String {
    let mut config: serde_json::Value = serde_json::from_str(DEMO_CONFIG).unwrap();
    config["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("quality");
    config.to_string()
}

#[test]
fn bad_keys_fail_with_the_reference_messages_and_change_nothing() {
    let rides = ldp_demo::rides(20, 42, 1);
    let dir = demo_workdir(&rides);
    let d = dir.path();
    std::fs::write(d.join("rides.json"), unchecked_config()).unwrap();
    assert_eq!(run(d, &[]).status.code(), Some(0));
    let snapshots = snapshot_count(d);

    let csv = d.join("data/rides.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    // Ride 3 twice: a duplicate key.
    lines.push(lines[3]);
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let out = run(d, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "upsert data for demo.rides has 1 duplicate rows on join_cols ['ride_id']; keys must be unique"
        ),
        "{}",
        stderr(&out)
    );

    // A row without a key.
    let header = "\"ride_id\",\"pickup_ts\",\"city\",\"distance_km\",\"fare\"";
    std::fs::write(
        &csv,
        format!("{header}\n,2024-01-01 00:00:00,\"NYC\",1.5,9.5\n"),
    )
    .unwrap();
    let out = run(d, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("join column 'ride_id' has null values; upsert keys must be non-null"),
        "{}",
        stderr(&out)
    );

    // A batch without a column of the table.
    std::fs::write(&csv, "\"ride_id\",\"fare\"\n1,1.0\n").unwrap();
    let out = run(d, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "upsert data for demo.rides is missing columns ['pickup_ts', 'city', 'distance_km'] of the table"
        ),
        "{}",
        stderr(&out)
    );

    assert_eq!(snapshot_count(d), snapshots);
    assert_eq!(query(d, "SELECT count(*) AS n FROM rides")["n"], 20);
    let data_files = std::fs::read_dir(d.join("warehouse/demo/rides/data"))
        .unwrap()
        .count();
    assert_eq!(data_files, 1, "nothing left behind");
}

/// Four processes upsert disjoint keys into one table at once: the table lock serializes them
/// and every change is there.
#[test]
fn four_processes_upserting_at_once_lose_nothing() {
    let rides = ldp_demo::rides(1000, 42, 1);
    let dir = demo_workdir(&rides);
    let d = dir.path();
    std::fs::write(d.join("rides.json"), unchecked_config()).unwrap();
    assert_eq!(run(d, &[]).status.code(), Some(0));

    // Process k changes the fare of rides k, k+4, ... below 400 to 1000 + id, and adds 25 new
    // rides from 2001 + 25k.
    let mut children = Vec::new();
    for k in 0..4usize {
        let ids: Vec<u32> = (k..400).step_by(4).map(|i| i as u32).collect();
        let changed = arrow_select::take::take_record_batch(
            &rides,
            &arrow_array::UInt32Array::from(ids.clone()),
        )
        .unwrap();
        let fare_at = changed.schema().index_of("fare").unwrap();
        let mut columns: Vec<ArrayRef> = changed.columns().to_vec();
        columns[fare_at] = Arc::new(Float64Array::from(
            ids.iter()
                .map(|i| 1001.0 + f64::from(*i))
                .collect::<Vec<_>>(),
        ));
        let changed = RecordBatch::try_new(changed.schema(), columns).unwrap();
        let new = ldp_demo::rides(25, 100 + k as u64, 2001 + 25 * k as i64);
        let batch = arrow_select_concat(&[changed, new]);
        let csv = d.join(format!("data/part{k}.csv"));
        ldp_demo::write_csv(&batch, &csv).unwrap();
        let config = unchecked_config().replace("data/rides.csv", &format!("data/part{k}.csv"));
        let config_path = d.join(format!("part{k}.json"));
        std::fs::write(&config_path, config).unwrap();
        let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        children.push(
            Command::new(env!("CARGO_BIN_EXE_ldp"))
                .args(["--cache-dir", cache.to_str().unwrap(), "run"])
                .arg(&config_path)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("(100 updated, 25 inserted)"),
            "{}",
            stdout(&out)
        );
    }
    let totals = query(
        d,
        "SELECT count(*) AS n, count(DISTINCT ride_id) AS ids, \
         sum(CASE WHEN fare > 1000 THEN 1 ELSE 0 END) AS changed, \
         sum(CASE WHEN fare > 1000 AND fare = 1000 + ride_id THEN 1 ELSE 0 END) AS right_fare \
         FROM rides",
    );
    assert_eq!(totals["n"], 1100);
    assert_eq!(totals["ids"], 1100);
    assert_eq!(totals["changed"], 400);
    assert_eq!(totals["right_fare"], 400);
    assert_eq!(snapshot_count(d), 5, "one snapshot per upsert");
}

/// An upsert into a table partitioned by `day(pickup_ts)`: only the days of the changed rides
/// are rewritten, and pyiceberg reads the rows `ldp query` reads.
#[test]
fn an_upsert_into_a_day_partitioned_table_reads_the_same_in_pyiceberg() {
    let rides = ldp_demo::rides(1000, 42, 1);
    let dir = demo_workdir(&rides);
    let d = dir.path();
    let mut config: serde_json::Value = serde_json::from_str(&unchecked_config()).unwrap();
    config["metadata"]["target"]["partition_by"] =
        serde_json::json!([{"column": "pickup_ts", "transform": "day"}]);
    std::fs::write(d.join("rides.json"), config.to_string()).unwrap();
    assert_eq!(run(d, &[]).status.code(), Some(0));

    // Rides 1..=3 fall on three different days (ride i is on day i mod 7).
    let changed = rides.slice(0, 3);
    let fare_at = changed.schema().index_of("fare").unwrap();
    let mut columns: Vec<ArrayRef> = changed.columns().to_vec();
    columns[fare_at] = Arc::new(Float64Array::from(vec![1.25, 2.5, 3.75]));
    let changed = RecordBatch::try_new(changed.schema(), columns).unwrap();
    ldp_demo::write_csv(
        &arrow_select_concat(&[changed, ldp_demo::rides(2, 7, 5001)]),
        &d.join("data/rides.csv"),
    )
    .unwrap();
    let out = run(d, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let upsert = &report["write_result"]["upsert"];
    assert_eq!(upsert["rows_updated"], 3, "{report}");
    assert_eq!(upsert["rows_inserted"], 2);
    assert_eq!(upsert["files_before"], 7);
    assert_eq!(upsert["files_rewritten"], 3, "one file per changed day");

    let script = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog
w = sys.argv[1]
t = SqlCatalog("demo", uri=f"sqlite:///{w}/demo_catalog.db", warehouse=f"file://{w}").load_table(("demo", "rides"))
rows = t.scan().to_arrow()
fares = dict(zip(rows["ride_id"].to_pylist(), rows["fare"].to_pylist()))
print(json.dumps({"rows": rows.num_rows, "distinct": len(fares),
                  "fare_sum": round(sum(fares.values()), 2),
                  "changed": [fares[1], fares[2], fares[3]]}))
"#;
    let out = Command::new(python())
        .args(["-c", script, d.join("warehouse").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = query(
        d,
        "SELECT count(*) AS n, count(DISTINCT ride_id) AS distinct_ids, round(sum(fare), 2) AS fare_sum FROM rides",
    );
    assert_eq!(py["rows"], 1002);
    assert_eq!(py["rows"], ours["n"]);
    assert_eq!(py["distinct"], ours["distinct_ids"]);
    assert_eq!(py["fare_sum"], ours["fare_sum"]);
    assert_eq!(py["changed"], serde_json::json!([1.25, 2.5, 3.75]));
}
