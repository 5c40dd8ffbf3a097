//! One end-to-end suite on every catalog type: the same runs, queries and maintenance through
//! `ldp`, on a local SQLite catalog, a `sql` catalog in a real PostgreSQL server (a database per
//! test), a `rest` catalog on rustberg (a third-party server) and on `ldp catalog serve`, and a
//! `glue` catalog on moto with its warehouse in moto's S3. Append, overwrite, upsert, a staged
//! window run twice that publishes once, schema evolution, a partitioned table, a time-travel
//! query, snapshot expiry and a dataset pin must give the same results on each.

mod failures;
mod lake;
mod serve;

use std::process::Command;

use serde_json::{Value, json};

use super::stderr;
use lake::{Kind, Lake};

/// Runs each listed suite step, which takes a [`Kind`], once per catalog type.
macro_rules! on_every_catalog {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn local() {
                super::$test(super::Kind::Local)
            }

            #[test]
            fn postgres() {
                super::$test(super::Kind::Postgres)
            }

            #[test]
            fn rest() {
                super::$test(super::Kind::Rest)
            }

            #[test]
            fn serve() {
                super::$test(super::Kind::Serve)
            }

            #[test]
            fn glue() {
                super::$test(super::Kind::Glue)
            }
        }
    )*};
}

on_every_catalog!(
    writes_and_time_travel,
    a_staged_window_publishes_once,
    schema_evolution_and_partitions,
    expiry_and_a_dataset_pin,
    pyiceberg_shares_the_catalog,
    racing_processes_lose_nothing,
    catalog_test_lists_what_runs_wrote,
);

/// Append twice, overwrite, upsert; every snapshot still reads as it was.
fn writes_and_time_travel(kind: Kind) {
    let lake = Lake::new(kind, "writes");
    let config = lake.config(
        "rides",
        "data/rides.csv",
        json!({"write_mode": "append", "join_cols": ["ride_id"]}),
    );
    lake.ok(&["run", &config]);
    lake.ok(&["run", &config]);
    assert_eq!(lake.count(&config, "rides", &[]), 40);
    let first = lake.snapshots(&config)[0]["snapshot_id"].as_i64().unwrap();

    lake.ok(&["run", &config, "--mode", "overwrite"]);
    assert_eq!(lake.count(&config, "rides", &[]), 20);

    // Upsert: ride 1's fare changes, ride 21 is new.
    let mut csv = std::fs::read_to_string(lake.path("data/rides.csv")).unwrap();
    csv = csv.replacen(",32.28\n", ",99.99\n", 1);
    csv.push_str("21,2024-01-09 10:00:00.000000,\"NYC\",1.5,7.25\n");
    std::fs::write(lake.path("data/changed.csv"), csv).unwrap();
    let changed = lake.config(
        "rides_changed",
        "data/changed.csv",
        json!({"name": "rides", "write_mode": "upsert", "join_cols": ["ride_id"]}),
    );
    let report = lake.json(&["run", &changed, "--json"]);
    assert_eq!(report["status"], "published", "{report}");
    let rows = lake.query(
        &config,
        "SELECT count(*) AS n, max(fare) AS top FROM rides",
        &[],
    );
    assert_eq!(rows[0]["n"], 21, "{rows:?}");
    assert_eq!(rows[0]["top"], 99.99, "{rows:?}");

    // Time travel: the first snapshot still has its 20 rows.
    assert_eq!(
        lake.count(&config, "rides", &["--snapshot", &first.to_string()]),
        20
    );
    assert_eq!(lake.snapshots(&config).len(), 4);
}

/// A window run twice publishes once; the second run is a skipped duplicate.
fn a_staged_window_publishes_once(kind: Kind) {
    let lake = Lake::new(kind, "staged");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let window = "2026-08-01/2026-08-02";
    let first = lake.json(&["run", &config, "--window", window, "--json"]);
    assert_eq!(first["status"], "published", "{first}");
    let second = lake.json(&["run", &config, "--window", window, "--json"]);
    assert_eq!(second["status"], "skipped_duplicate", "{second}");
    assert_eq!(lake.count(&config, "rides", &[]), 20);
    let commits = lake.json(&["commits", &config, "--json"]);
    assert_eq!(
        commits["publishes"].as_array().map(Vec::len),
        Some(1),
        "{commits}"
    );
}

/// A new column is added to the table; a partitioned table splits its files by day.
fn schema_evolution_and_partitions(kind: Kind) {
    let lake = Lake::new(kind, "evolve");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    let csv = std::fs::read_to_string(lake.path("data/rides.csv")).unwrap();
    let widened: String = csv
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                format!("{line},\"tip\"\n")
            } else {
                format!("{line},1.5\n")
            }
        })
        .collect();
    std::fs::write(lake.path("data/tipped.csv"), widened).unwrap();
    let tipped = lake.config("tipped", "data/tipped.csv", json!({"name": "rides"}));
    lake.ok(&["run", &tipped]);
    let rows = lake.query(
        &config,
        "SELECT count(*) AS n, count(tip) AS tips FROM rides",
        &[],
    );
    assert_eq!(
        (rows[0]["n"].as_u64(), rows[0]["tips"].as_u64()),
        (Some(40), Some(20))
    );

    let parted = lake.config(
        "by_day",
        "data/rides.csv",
        json!({"partition_by": [{"column": "pickup_ts", "transform": "day"}]}),
    );
    lake.ok(&["run", &parted]);
    let days = lake.query(
        &parted,
        "SELECT count(DISTINCT CAST(pickup_ts AS DATE)) AS days, count(*) AS n FROM by_day",
        &[],
    );
    let files = lake.data_files("by_day");
    assert_eq!(days[0]["n"], 20);
    assert_eq!(Some(files as u64), days[0]["days"].as_u64(), "{days:?}");
}

/// Expiry keeps only the last snapshot; a pinned version reads back its rows.
fn expiry_and_a_dataset_pin(kind: Kind) {
    let lake = Lake::new(kind, "expire");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    for _ in 0..3 {
        lake.ok(&["run", &config]);
    }
    lake.ok(&["datasets", "pin", &config, "rides_all"]);
    lake.ok(&["run", &config]);

    std::fs::write(
        lake.path("tidy.json"),
        json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "tidy",
               "tasks": [{"id": "tidy", "maintain": {"config": "rides.json", "expire": 0,
                          "retain_last": 1, "apply": true}}]})
        .to_string(),
    )
    .unwrap();
    lake.ok(&[
        "workflow",
        "run",
        "tidy.json",
        "--window",
        "2026-08-01/2026-08-02",
    ]);
    // The pin's tag keeps its snapshot; main keeps its last one.
    let left = lake.snapshots(&config).len();
    assert_eq!(left, 2, "{left} snapshots left");
    assert_eq!(lake.count(&config, "rides", &[]), 80);
    let export = lake.path("pinned.jsonl").display().to_string();
    let args = ["datasets", "export", "rides_all@v1", &export];
    lake.ok(&[&args[..], &["--format", "jsonl", "--config", &config]].concat());
    let exported = std::fs::read_to_string(&export).unwrap();
    assert_eq!(exported.lines().count(), 60);
}

/// pyiceberg, on the catalog ldp writes: reads ldp's table, creates one of its own and appends to
/// it (`argv[2]` = `read_and_create`), or reads its table back (`count`).
const PYICEBERG: &str = r#"
import json, os, sys
from pyiceberg.catalog import load_catalog
spec, step = json.loads(sys.argv[1]), sys.argv[2]
if spec["type"] == "rest":
    catalog = load_catalog(spec["name"], type="rest", uri=spec["uri"],
                           token=os.environ[spec["token_env"]])
elif spec["type"] == "glue":
    aws = {}
    for service in ("glue", "s3"):
        aws.update({f"{service}.endpoint": os.environ["AWS_ENDPOINT_URL"],
                    f"{service}.region": os.environ["AWS_REGION"],
                    f"{service}.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
                    f"{service}.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"]})
    catalog = load_catalog(spec["name"], type="glue", warehouse=spec["warehouse"], **aws)
else:
    uri = spec["uri"]
    password = os.environ.get(spec["password_env"])
    if password and "@" in uri:
        scheme, rest = uri.split("://", 1)
        user, host = rest.split("@", 1)
        uri = f"{scheme}://{user}:{password}@{host}"
    catalog = load_catalog(spec["name"], type="sql", uri=uri, warehouse=spec["warehouse"])
if step == "read_and_create":
    rides = catalog.load_table(("nyc", "rides")).scan().to_arrow()
    trips = catalog.create_table(("nyc", "trips"), schema=rides.schema)
    trips.append(rides)
    print(json.dumps({"rows": rides.num_rows, "fare_sum": round(sum(rides["fare"].to_pylist()), 2)}))
else:
    trips = catalog.load_table(("nyc", "trips"))
    print(json.dumps({"rows": trips.scan().to_arrow().num_rows, "snapshots": len(trips.snapshots())}))
"#;

fn pyiceberg(lake: &Lake, step: &str) -> Value {
    let python = crate::interop::python();
    let out = Command::new(&python)
        .args(["-c", PYICEBERG, &lake.pyiceberg_catalog().to_string(), step])
        .envs(lake.env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "pyiceberg failed (scripts/test installs what it needs: psycopg2-binary for PostgreSQL, boto3 for Glue): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// pyiceberg reads the table ldp wrote through the catalog; ldp reads and appends to a table
/// pyiceberg created in it.
fn pyiceberg_shares_the_catalog(kind: Kind) {
    let lake = Lake::new(kind, "pyiceberg");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    let read = pyiceberg(&lake, "read_and_create");
    let sum = lake.query(&config, "SELECT round(sum(fare), 2) AS s FROM rides", &[]);
    assert_eq!(read["rows"], 20);
    assert_eq!(read["fare_sum"], sum[0]["s"], "{read} {sum:?}");

    let trips = lake.config("trips", "data/rides.csv", json!({}));
    assert_eq!(lake.count(&trips, "trips", &[]), 20);
    lake.ok(&["run", &trips]);
    let back = pyiceberg(&lake, "count");
    assert_eq!(
        (back["rows"].as_u64(), back["snapshots"].as_u64()),
        (Some(40), Some(2))
    );
}

/// 8 appends at once lose nothing and double nothing; 4 staged runs of one window at once
/// publish it once. On a shared catalog each process has a working folder of its own.
fn racing_processes_lose_nothing(kind: Kind) {
    let lake = Lake::new(kind, "race");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    for out in lake.race(8, &["run", &config]) {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(lake.count(&config, "rides", &[]), 9 * 20);
    assert_eq!(lake.snapshots(&config).len(), 9);

    let staged = lake.config("staged", "data/rides.csv", json!({}));
    let window = [
        "run",
        &staged,
        "--window",
        "2026-08-01/2026-08-02",
        "--json",
    ];
    let outs = lake.race(4, &window);
    let statuses: Vec<String> = outs
        .iter()
        .map(|out| {
            let report: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("exit {:?}: {}", out.status.code(), stderr(out)));
            report["status"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    let published = statuses.iter().filter(|s| *s == "published").count();
    let logs: Vec<String> = outs.iter().map(stderr).collect();
    assert_eq!(published, 1, "{statuses:?}\n{}", logs.join("\n----\n"));
    assert_eq!(lake.count(&staged, "staged", &[]), 20);
}

/// `ldp catalog test` on the config and on the catalog block alone: the type, the spec, the
/// name, the namespaces and tables, `ok`; the password never shows.
fn catalog_test_lists_what_runs_wrote(kind: Kind) {
    let lake = Lake::new(kind, "cattest");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    let text = lake.ok(&["catalog", "test", &config]);
    let (kind_name, name) = match kind {
        Kind::Local => ("local", "nyc"),
        Kind::Postgres => ("sql", "lake"),
        Kind::Rest | Kind::Serve => ("rest", "lake"),
        Kind::Glue => ("glue", "lake"),
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("catalog type: {kind_name}"), "{text}");
    assert!(lines[1].starts_with("spec: {"), "{text}");
    assert_eq!(
        lines[2..],
        [
            format!("catalog name: {name}").as_str(),
            "namespaces (1): nyc",
            "tables in nyc (1): nyc.rides",
            "ok",
        ],
        "{text}"
    );
    for secret in lake.secrets() {
        assert!(!text.contains(secret), "a secret shows: {text}");
    }

    std::fs::write(lake.path("catalog.json"), lake.catalog.to_string()).unwrap();
    let doc = lake.json(&["catalog", "test", "catalog.json", "--json"]);
    assert_eq!(doc["tables"], json!(["nyc.rides"]), "{doc}");
    assert_eq!(doc["ok"], true);
}
