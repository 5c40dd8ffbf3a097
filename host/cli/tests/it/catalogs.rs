//! One end-to-end suite on every catalog type: the same runs, queries and maintenance through
//! `ldp`, on a local SQLite catalog and on a `sql` catalog in a real PostgreSQL server (a
//! database per test). Append, overwrite, upsert, a staged window run twice that publishes once,
//! schema evolution, a partitioned table, a time-travel query, snapshot expiry and a dataset pin
//! must give the same results on each.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::{rides, stderr, stdout};

/// The variable the PostgreSQL catalogs' `password_env` names.
const PASSWORD_ENV: &str = "LDP_TEST_CATALOG_PASSWORD";

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

/// A catalog type the suite runs on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// `{"identifier": "nyc", "warehouse_path": "warehouse"}`.
    Local,
    /// `{"type": "sql", "uri": "postgresql://…", "password_env": …, "warehouse": "warehouse"}`.
    Postgres,
    /// `{"type": "rest", "uri": "http://…", "token_env": …}` on rustberg, a third-party Iceberg
    /// REST catalog (a server per test).
    Rest,
}

/// The variable the REST catalogs' `token_env` names.
const TOKEN_ENV: &str = "LDP_TEST_REST_TOKEN";

/// A working folder with the rides and one catalog block every config of it uses.
pub(crate) struct Lake {
    dir: tempfile::TempDir,
    kind: Kind,
    catalog: Value,
    env: Vec<(&'static str, String)>,
    /// The REST server, stopped with the lake.
    _rest: Option<ldp_test_servers::rustberg::Rustberg>,
}

impl Lake {
    pub(crate) fn new(kind: Kind, label: &str) -> Lake {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
        let mut rest = None;
        let (catalog, env) = match kind {
            Kind::Local => (
                json!({"identifier": "nyc", "warehouse_path": "warehouse"}),
                Vec::new(),
            ),
            Kind::Postgres => {
                let server = ldp_test_servers::postgres::server();
                let database = server.new_database(label);
                (
                    json!({"type": "sql", "name": "lake", "namespace": "nyc",
                           "uri": server.uri(&database),
                           "password_env": PASSWORD_ENV, "warehouse": "warehouse"}),
                    vec![(
                        PASSWORD_ENV,
                        ldp_test_servers::postgres::PASSWORD.to_string(),
                    )],
                )
            }
            Kind::Rest => {
                let server = ldp_test_servers::rustberg::Rustberg::start();
                let block = json!({"type": "rest", "name": "lake", "namespace": "nyc",
                                   "uri": server.uri, "token_env": TOKEN_ENV});
                rest = Some(server);
                (
                    block,
                    vec![(TOKEN_ENV, ldp_test_servers::rustberg::TOKEN.to_string())],
                )
            }
        };
        Lake {
            dir,
            kind,
            catalog,
            env,
            _rest: rest,
        }
    }

    /// pyiceberg's `SqlCatalog` on the same catalog: its name, SQLAlchemy URI (the password is
    /// put in by the script, from the environment) and warehouse.
    fn pyiceberg_catalog(&self) -> Value {
        let warehouse = self.path("warehouse");
        let (name, uri) = match self.kind {
            Kind::Local => (
                "nyc".to_string(),
                format!("sqlite:///{}/nyc_catalog.db", warehouse.display()),
            ),
            Kind::Postgres | Kind::Rest => (
                "lake".to_string(),
                self.catalog["uri"].as_str().unwrap().replacen(
                    "postgresql://",
                    "postgresql+psycopg2://",
                    1,
                ),
            ),
        };
        let rest = matches!(self.kind, Kind::Rest);
        json!({"name": name, "uri": uri, "warehouse": format!("file://{}", warehouse.display()),
               "password_env": PASSWORD_ENV, "rest": rest, "token_env": TOKEN_ENV})
    }

    /// The data folder of table `nyc.<table>`: under the lake's warehouse, or where the REST
    /// server put the table (under its own warehouse, the folder named after the table).
    fn data_folder(&self, table: &str) -> PathBuf {
        let Some(server) = &self._rest else {
            return self.path(&format!("warehouse/nyc/{table}/data"));
        };
        fn find(dir: &Path, table: &str) -> Option<PathBuf> {
            for entry in std::fs::read_dir(dir).ok()?.flatten() {
                let path = entry.path();
                if !path.is_dir() {
                    continue;
                }
                let named = path.file_name().is_some_and(|n| {
                    n.to_str()
                        .is_some_and(|n| n == table || n.starts_with(&format!("{table}-")))
                });
                if named && path.join("data").is_dir() {
                    return Some(path.join("data"));
                }
                if let Some(found) = find(&path, table) {
                    return Some(found);
                }
            }
            None
        }
        find(&server.warehouse, table).unwrap_or_else(|| {
            panic!(
                "no data folder of {table} under {}",
                server.warehouse.display()
            )
        })
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `<name>.json`: the rides CSV (or `source`) into table `name`, with `target`'s
    /// extra keys.
    pub(crate) fn config(&self, name: &str, source: &str, target: Value) -> String {
        let mut target_block = json!({"name": name, "format": "ICEBERG", "catalog": self.catalog});
        if let (Some(block), Value::Object(extra)) = (target_block.as_object_mut(), target) {
            block.extend(extra);
        }
        let config = json!({"apiVersion": "ldp/v1", "identifier": name, "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": source},
            "target": target_block}});
        let file = self.path(&format!("{name}.json"));
        std::fs::write(&file, serde_json::to_string_pretty(&config).unwrap()).unwrap();
        file.display().to_string()
    }

    pub(crate) fn ldp(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("ldp runs")
    }

    fn command(&self, args: &[&str]) -> Command {
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
        command
            .current_dir(self.dir.path())
            .args(["--cache-dir", cache.to_str().unwrap()])
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Starts `n` processes of `ldp args` at once and waits for them all.
    fn race(&self, n: usize, args: &[&str]) -> Vec<Output> {
        let children: Vec<_> = (0..n)
            .map(|_| {
                self.command(args)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("ldp starts")
            })
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().expect("ldp ends"))
            .collect()
    }

    /// Runs `args` and returns stdout; fails the test unless it exits 0.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.ldp(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "ldp {args:?}\nstdout: {}\nstderr: {}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    pub(crate) fn json(&self, args: &[&str]) -> Value {
        let text = self.ok(args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    /// The rows of `sql` over `config`'s tables, as JSON objects.
    pub(crate) fn query(&self, config: &str, sql: &str, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["query", config, sql, "--json"];
        args.extend_from_slice(extra);
        let doc = self.json(&args);
        doc.as_array()
            .or_else(|| doc["rows"].as_array())
            .unwrap_or_else(|| panic!("no rows in {doc}"))
            .clone()
    }

    pub(crate) fn count(&self, config: &str, table: &str, extra: &[&str]) -> u64 {
        let rows = self.query(config, &format!("SELECT count(*) AS n FROM {table}"), extra);
        rows[0]["n"].as_u64().unwrap_or_else(|| panic!("{rows:?}"))
    }

    pub(crate) fn snapshots(&self, config: &str) -> Vec<Value> {
        self.json(&["snapshots", config, "--json"])["snapshots"]
            .as_array()
            .unwrap()
            .clone()
    }
}

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
    let files = data_files(&lake.data_folder("by_day"));
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
from pyiceberg.catalog.sql import SqlCatalog
spec, step = json.loads(sys.argv[1]), sys.argv[2]
uri = spec["uri"]
password = os.environ.get(spec["password_env"])
if password and "@" in uri:
    scheme, rest = uri.split("://", 1)
    user, host = rest.split("@", 1)
    uri = f"{scheme}://{user}:{password}@{host}"
if spec["rest"]:
    from pyiceberg.catalog.rest import RestCatalog
    catalog = RestCatalog(spec["name"], uri=uri, token=os.environ[spec["token_env"]])
else:
    catalog = SqlCatalog(spec["name"], uri=uri, warehouse=spec["warehouse"])
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
    let python = super::interop::python();
    let out = Command::new(&python)
        .args(["-c", PYICEBERG, &lake.pyiceberg_catalog().to_string(), step])
        .envs(lake.env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "pyiceberg failed (it needs psycopg2 for PostgreSQL: .venv/bin/pip install psycopg2-binary): {}",
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
/// publish it once.
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
    let statuses: Vec<String> = lake
        .race(4, &window)
        .iter()
        .map(|out| {
            let report: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("exit {:?}: {}", out.status.code(), stderr(out)));
            report["status"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    let published = statuses.iter().filter(|s| *s == "published").count();
    assert_eq!(published, 1, "{statuses:?}");
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
        Kind::Rest => ("rest", "lake"),
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
    assert!(
        !text.contains(ldp_test_servers::postgres::PASSWORD),
        "{text}"
    );

    std::fs::write(lake.path("catalog.json"), lake.catalog.to_string()).unwrap();
    let doc = lake.json(&["catalog", "test", "catalog.json", "--json"]);
    assert_eq!(doc["tables"], json!(["nyc.rides"]), "{doc}");
    assert_eq!(doc["ok"], true);
}

fn data_files(dir: &Path) -> usize {
    walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .count()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A PostgreSQL catalog that cannot be used: exit 1, a message that names the catalog by its
/// URI and says what to do, no password printed, nothing written.
#[test]
fn a_postgres_catalog_that_cannot_be_reached_fails_cleanly() {
    let mut lake = Lake::new(Kind::Postgres, "bad");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let uri = lake.catalog["uri"].as_str().unwrap().to_string();

    lake.env = vec![(PASSWORD_ENV, "Wrong-Secret-77".to_string())];
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&uri), "{text}");
    assert!(text.contains("password"), "{text}");
    assert!(!text.contains("Wrong-Secret-77"), "{text}");

    lake.env.clear();
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(PASSWORD_ENV), "{text}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let unreachable = format!("postgresql://ldp@127.0.0.1:{port}/lake");
    lake.catalog["uri"] = unreachable.clone().into();
    lake.env = vec![(PASSWORD_ENV, "Some-Secret-78".to_string())];
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&unreachable), "{text}");
    assert!(!text.contains("Some-Secret-78"), "{text}");
    assert!(!lake.path("warehouse").exists(), "a failed run wrote files");
}

/// `ldp catalog test` on a `rest` catalog served by a third-party server (rustberg): the
/// namespaces and the table pyiceberg created, `ok`; a wrong token and an unreachable server
/// exit 1 naming the catalog, never the token.
#[test]
fn catalog_test_reaches_a_third_party_rest_catalog() {
    use ldp_test_servers::rustberg::{Rustberg, TOKEN, WRONG_TOKEN, free_port};
    let server = Rustberg::start();
    let python = super::interop::python();
    let script = r#"
import sys
import pyarrow as pa
from pyiceberg.catalog import load_catalog
catalog = load_catalog("lake", type="rest", uri=sys.argv[1], token=sys.argv[2])
catalog.create_namespace("nyc")
catalog.create_table(("nyc", "rides"), schema=pa.schema([("ride_id", pa.int64())]))
"#;
    let out = Command::new(&python)
        .args(["-c", script, &server.uri, TOKEN])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let spec = |uri: &str| {
        json!({"type": "rest", "name": "lake", "namespace": "nyc", "uri": uri,
               "token_env": "LDP_TEST_REST_TOKEN"})
        .to_string()
    };
    std::fs::write(dir.path().join("rest.json"), spec(&server.uri)).unwrap();
    let run = |token: &str| {
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        Command::new(env!("CARGO_BIN_EXE_ldp"))
            .current_dir(dir.path())
            .args([
                "--cache-dir",
                cache.to_str().unwrap(),
                "catalog",
                "test",
                "rest.json",
            ])
            .env("LDP_TEST_REST_TOKEN", token)
            .output()
            .expect("ldp runs")
    };
    let out = run(TOKEN);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "catalog type: rest");
    assert_eq!(
        lines[2..],
        [
            "catalog name: lake",
            "namespaces (1): nyc",
            "tables in nyc (1): nyc.rides",
            "ok"
        ],
        "{text}"
    );
    assert!(!text.contains(TOKEN), "{text}");

    let out = run(WRONG_TOKEN);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&server.uri) && text.contains("token_env"),
        "{text}"
    );
    assert!(!text.contains(WRONG_TOKEN), "{text}");

    let closed = format!("http://127.0.0.1:{}", free_port());
    std::fs::write(dir.path().join("rest.json"), spec(&closed)).unwrap();
    let out = run(TOKEN);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&closed), "{text}");
}

/// `ldp catalog serve` as users run it: a process serving the catalog of a config on a loopback
/// port; pyiceberg's `RestCatalog` reads the table ldp wrote and appends to it, `ldp query` sees
/// the append, and SIGTERM stops the server with exit 0.
#[test]
fn ldp_catalog_serve_lets_pyiceberg_append_to_an_ldp_table() {
    use std::io::{BufRead, BufReader};
    let lake = Lake::new(Kind::Local, "serve");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    let port = ldp_test_servers::rustberg::free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut server = lake
        .command(&[
            "catalog",
            "serve",
            &config,
            "--listen",
            &listen,
            "--token-env",
            "LDP_TEST_SERVE_TOKEN",
        ])
        .env("LDP_TEST_SERVE_TOKEN", "serve-Secret-9")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ldp catalog serve starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let uri = format!("http://{listen}");
    assert!(first.contains(&uri), "{first}");
    assert!(!first.contains("serve-Secret-9"), "{first}");

    let script = r#"
import json, sys
from pyiceberg.catalog import load_catalog
catalog = load_catalog("lake", type="rest", uri=sys.argv[1], token=sys.argv[2], warehouse="nyc")
table = catalog.load_table(("nyc", "rides"))
rows = table.scan().to_arrow()
table.append(rows.slice(0, 5))
print(json.dumps({"read": rows.num_rows, "after": table.scan().to_arrow().num_rows}))
"#;
    let out = Command::new(super::interop::python())
        .args(["-c", script, &uri, "serve-Secret-9"])
        .output()
        .expect("python runs");
    let stop = |mut server: std::process::Child| {
        // SAFETY: kill(2) with a child's pid and SIGTERM has no memory effects.
        unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
        server.wait().expect("the server stops")
    };
    if !out.status.success() {
        stop(server);
        panic!("pyiceberg: {}", String::from_utf8_lossy(&out.stderr));
    }
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (seen["read"].as_u64(), seen["after"].as_u64()),
        (Some(20), Some(25)),
        "{seen}"
    );
    assert_eq!(lake.count(&config, "rides", &[]), 25);
    let status = stop(server);
    assert_eq!(status.code(), Some(0), "{status:?}");
}
