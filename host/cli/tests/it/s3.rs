//! `s3://` sources and file targets against a local moto server (`moto[server]`, installed into
//! `.venv` by `scripts/test`), started on 127.0.0.1 for each test and killed when it ends. The
//! bucket is made and read back with boto3 (which comes with moto). The `ldp` child alone gets
//! the AWS environment (endpoint, region, keys): the host downloads and uploads, the plugins
//! see local files only.
//!
//! Without moto the tests fail, never skip, naming the install command.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::{rides, stderr, stdout};

const SETUP: &str = "run scripts/test, or: .venv/bin/pip install 'moto[server]==5.2.5'";

/// A moto server on a free port of 127.0.0.1, killed on drop.
pub(super) struct Moto {
    child: Child,
    endpoint: String,
}

impl Moto {
    pub(super) fn start() -> Moto {
        let python = super::interop::python();
        let server = python.with_file_name("moto_server");
        assert!(
            server.exists(),
            "no moto_server next to {}; {SETUP}",
            python.display()
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(&server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}; {SETUP}", server.display()));
        let mut moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto_server exited ({status}) before it answered; {SETUP}");
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer on port {port} within 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        moto.boto(&["mkbucket", "lake"]);
        moto
    }

    /// Runs one boto3 step against the server (`mkbucket B`, `put B KEY FILE`, `get B KEY`,
    /// `keys B`, `uploads B`); its stdout.
    pub(super) fn boto(&self, args: &[&str]) -> Vec<u8> {
        let out = Command::new(super::interop::python())
            .args(["-c", BOTO, &self.endpoint])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "boto3 {args:?} failed: {}\n({SETUP})",
            stderr(&out)
        );
        out.stdout
    }

    fn keys(&self) -> Vec<String> {
        serde_json::from_slice(&self.boto(&["keys", "lake"])).unwrap()
    }

    /// `ldp ARGS` in `dir` with the AWS environment of this server (on the child only).
    pub(super) fn ldp(&self, dir: &Path, args: &[&str]) -> Output {
        ldp_with(dir, args, |command| self.aws_env(command))
    }

    /// Gives `command` the AWS environment of this server.
    pub(super) fn aws_env(&self, command: &mut Command) {
        command
            .env("AWS_ENDPOINT_URL", &self.endpoint)
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("NO_PROXY", "127.0.0.1");
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const BOTO: &str = r#"
import json, sys
import boto3
endpoint, op, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id="testing", aws_secret_access_key="testing")
if op == "mkbucket":
    s3.create_bucket(Bucket=bucket)
elif op == "put":
    with open(sys.argv[5], "rb") as f:
        s3.put_object(Bucket=bucket, Key=sys.argv[4], Body=f.read())
elif op == "get":
    sys.stdout.buffer.write(s3.get_object(Bucket=bucket, Key=sys.argv[4])["Body"].read())
elif op == "keys":
    print(json.dumps(sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []))))
elif op == "uploads":
    print(len(s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])))
"#;

/// `ldp ARGS` in `dir`, without any AWS variable of the test's own environment.
fn ldp_with(dir: &Path, args: &[&str], env: impl FnOnce(&mut Command)) -> Output {
    super::ldp_in_env(dir, args, &["AWS_"], env)
}

pub(super) fn write(dir: &Path, name: &str, config: serde_json::Value) {
    std::fs::write(dir.join(name), config.to_string()).unwrap();
}

fn table_block() -> serde_json::Value {
    serde_json::json!({"name": "rides", "format": "ICEBERG", "write_mode": "overwrite",
        "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}})
}

fn export(target: &str, quality: Option<serde_json::Value>) -> serde_json::Value {
    let mut config = serde_json::json!({"identifier": "rides_export", "metadata": {
        "source": table_block(),
        "target": {"name": "rides_csv", "format": "CSV", "path": target}}});
    if let Some(quality) = quality {
        config["metadata"]["quality"] = quality;
    }
    config
}

/// The first column of a CSV's rows, sorted.
pub(super) fn ids(csv: &[u8]) -> Vec<String> {
    let mut ids: Vec<String> = String::from_utf8_lossy(csv)
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .next()
                .unwrap()
                .trim_matches('"')
                .to_string()
        })
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_csv_on_s3_goes_into_iceberg_and_back_out_to_s3() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://lake/drops/rides.csv"},
            "target": table_block()}}),
    );
    let out = moto.ldp(dir.path(), &["run", "load.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    write(
        dir.path(),
        "export.json",
        export("s3a://lake/exports/rides.csv", None),
    );
    let out = moto.ldp(dir.path(), &["run", "export.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The same export to a local file: the object holds the same bytes.
    write(dir.path(), "local.json", export("rides_local.csv", None));
    let out = moto.ldp(dir.path(), &["run", "local.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let object = moto.boto(&["get", "lake", "exports/rides.csv"]);
    let local = std::fs::read(dir.path().join("rides_local.csv")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&object),
        String::from_utf8_lossy(&local)
    );
    let original = std::fs::read(rides()).unwrap();
    assert_eq!(ids(&object), ids(&original));
    assert_eq!(ids(&object).len(), 20);
    // Nothing else in the bucket: no staged or partial objects, no open uploads.
    assert_eq!(moto.keys(), ["drops/rides.csv", "exports/rides.csv"]);
    assert_eq!(moto.boto(&["uploads", "lake"]), b"0\n");
}

#[test]
fn a_windowed_s3_source_a_missing_object_and_a_blocked_export() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows/drops");
    moto.boto(&[
        "put",
        "lake",
        "drops/orders_2026-08-01.csv",
        drops.join("orders_2026-08-01.csv").to_str().unwrap(),
    ]);
    let mut daily: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples/workflows/daily_orders.json"),
        )
        .unwrap(),
    )
    .unwrap();
    daily["metadata"]["source"]["path"] =
        "s3://lake/drops/orders_{window_start:%Y-%m-%d}.csv".into();
    write(dir.path(), "daily.json", daily);
    // The placeholder is filled before the download.
    let out = moto.ldp(
        dir.path(),
        &[
            "run",
            "daily.json",
            "--window",
            "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The next day's drop has not landed: a missing source, named by its URI.
    let out = moto.ldp(
        dir.path(),
        &[
            "run",
            "daily.json",
            "--window",
            "2026-08-01T22:00:00Z/2026-08-02T22:00:00Z",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("the source object s3://lake/drops/orders_2026-08-02.csv does not exist"),
        "{}",
        stderr(&out)
    );

    // A check that blocks the export uploads nothing.
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3n://lake/drops/rides.csv"},
            "target": table_block()}}),
    );
    let out = moto.ldp(dir.path(), &["run", "load.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let blocking =
        serde_json::json!({"on_failure": "fail", "checks": [{"check": "row_count", "min": 1000}]});
    write(
        dir.path(),
        "export.json",
        export("s3://lake/exports/rides.csv", Some(blocking)),
    );
    let out = moto.ldp(dir.path(), &["run", "export.json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        moto.keys(),
        ["drops/orders_2026-08-01.csv", "drops/rides.csv"]
    );
    assert_eq!(moto.boto(&["uploads", "lake"]), b"0\n");
}

#[test]
fn credentials_in_a_uri_and_a_warehouse_on_s3_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let no_env = |args: &[&str]| ldp_with(dir.path(), args, |_| {});
    write(
        dir.path(),
        "source.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://someone:hunter2@lake/drops/rides.csv"},
            "target": table_block()}}),
    );
    write(
        dir.path(),
        "target.json",
        export("s3://someone@lake/exports/rides.csv", None),
    );
    for config in ["source.json", "target.json"] {
        let out = no_env(&["run", config]);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains("must not carry credentials")
                && text.contains("AWS_ACCESS_KEY_ID")
                && text.contains("s3://***@lake/"),
            "{config}: {text}"
        );
        assert!(
            !text.contains("hunter2") && !text.contains("someone"),
            "{text}"
        );
    }

    let mut table = table_block();
    table["catalog"]["warehouse_path"] = "s3://lake/warehouse".into();
    write(
        dir.path(),
        "warehouse.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": rides().to_str().unwrap()},
            "target": table}}),
    );
    let says = "metadata.target.catalog.warehouse_path 's3://lake/warehouse' is on object storage; \
                a local catalog keeps its SQLite file in the warehouse folder, which must be local";
    for command in ["run", "plan"] {
        let out = no_env(&[command, "warehouse.json"]);
        let text = format!("{}{}", super::stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(1), "{command}: {text}");
        assert!(text.contains(says), "{command}: {text}");
        assert!(
            text.contains("use a sql catalog with a local SQLite uri and an s3 warehouse"),
            "{command}: {text}"
        );
    }
    assert!(!dir.path().join("s3:").exists());
}

/// The Iceberg block of a `sql` catalog on a local SQLite file whose warehouse is on S3.
pub(super) fn s3_table_block(dir: &Path, write_mode: &str) -> serde_json::Value {
    let uri = format!("sqlite:///{}", dir.join("catalog.db").display());
    serde_json::json!({"name": "rides", "format": "ICEBERG", "write_mode": write_mode,
        "catalog": {"type": "sql", "name": "lakecat", "namespace": "nyc", "uri": uri,
            "warehouse": "s3://lake/wh"}})
}

const PYICEBERG: &str = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog
endpoint, db = sys.argv[1], sys.argv[2]
catalog = SqlCatalog("lakecat", uri=f"sqlite:///{db}", warehouse="s3://lake/wh", **{
    "s3.endpoint": endpoint, "s3.access-key-id": "testing",
    "s3.secret-access-key": "testing", "s3.region": "us-east-1"})
table = catalog.load_table(("nyc", "rides"))
data = table.scan().to_arrow()
print(json.dumps({"rows": data.num_rows, "columns": data.column_names,
                  "location": table.metadata_location,
                  "snapshots": len(table.metadata.snapshots)}))
"#;

#[test]
fn a_warehouse_on_s3_in_a_sql_catalog() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://lake/drops/rides.csv"},
            "target": s3_table_block(dir.path(), "append")}}),
    );
    let out = moto.ldp(dir.path(), &["plan", "load.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Two loads: two commits on S3.
    for _ in 0..2 {
        let out = moto.ldp(dir.path(), &["run", "load.json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    // Nothing of the table on the local disk: only the catalog file.
    assert!(!dir.path().join("wh").exists() && !dir.path().join("s3:").exists());
    let keys = moto.keys();
    let under = |prefix: &str, suffix: &str| {
        keys.iter()
            .filter(|k| k.starts_with(prefix) && k.ends_with(suffix))
            .count()
    };
    assert_eq!(under("wh/nyc/rides/data/", ".parquet"), 2, "{keys:?}");
    assert_eq!(
        under("wh/nyc/rides/metadata/", ".metadata.json"),
        3,
        "{keys:?}"
    );
    assert!(
        under("wh/nyc/rides/metadata/snap-", ".avro") == 2,
        "{keys:?}"
    );

    // ldp query reads the table from the bucket.
    let out = moto.ldp(
        dir.path(),
        &[
            "query",
            "load.json",
            "SELECT count(*) AS n FROM rides",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"][0]["n"], 40, "{}", super::stdout(&out));

    // The table feeds an export to S3.
    write(
        dir.path(),
        "export.json",
        serde_json::json!({"identifier": "rides_export", "metadata": {
            "source": s3_table_block(dir.path(), "append"),
            "target": {"name": "rides_csv", "format": "CSV", "path": "s3://lake/exports/rides.csv"}}}),
    );
    let out = moto.ldp(dir.path(), &["run", "export.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let object = moto.boto(&["get", "lake", "exports/rides.csv"]);
    let original = std::fs::read(rides()).unwrap();
    let mut twice = ids(&original);
    twice.extend(ids(&original));
    twice.sort();
    assert_eq!(ids(&object), twice);

    // pyiceberg's SqlCatalog reads the same table from the same bucket.
    let db = dir.path().join("catalog.db");
    let out = Command::new(super::interop::python())
        .args(["-c", PYICEBERG, &moto.endpoint, db.to_str().unwrap()])
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .unwrap();
    assert!(out.status.success(), "pyiceberg: {}", stderr(&out));
    let read: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let header = String::from_utf8_lossy(&original)
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(|c| c.trim_matches('"').to_string())
        .collect::<Vec<_>>();
    assert_eq!(read["rows"], 40, "{read}");
    assert_eq!(read["columns"], serde_json::json!(header), "{read}");
    assert_eq!(read["snapshots"], 2, "{read}");
    assert!(
        read["location"]
            .as_str()
            .unwrap()
            .starts_with("s3://lake/wh/nyc/rides/metadata/00002-"),
        "{read}"
    );
}

/// `ldp datasets export NAME s3://…` uploads the object, as a file target does. It once wrote a
/// local file `./s3:/BUCKET/KEY` while printing that it exported to `s3://`. The object holds
/// the bytes of a local export of the same version, nothing else is left in the bucket, nothing
/// lands in the working folder, and a scheme this build does not reach is refused.
#[test]
fn a_dataset_export_to_s3_uploads_the_object_and_writes_nothing_locally() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": rides().to_str().unwrap()},
            "target": table_block()}}),
    );
    let ok = |args: &[&str]| {
        let out = moto.ldp(dir.path(), args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        super::stdout(&out)
    };
    ok(&["run", "load.json"]);
    ok(&["datasets", "pin", "load.json", "rides_v"]);

    let uri = "s3://lake/exports/rides.parquet";
    let said = ok(&[
        "datasets",
        "export",
        "rides_v",
        uri,
        "--config",
        "load.json",
    ]);
    assert!(
        said.starts_with("Exported rides_v@v1 (20 rows, snapshot ")
            && said.ends_with(&format!(") to {uri} as parquet\n")),
        "{said}"
    );
    let json = ok(&[
        "datasets",
        "export",
        "rides_v",
        "s3a://lake/exports/rides.jsonl",
        "--format",
        "jsonl",
        "--config",
        "load.json",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["dest"], "s3a://lake/exports/rides.jsonl", "{json}");
    assert_eq!(json["rows"], 20, "{json}");
    ok(&[
        "datasets",
        "export",
        "rides_v",
        "local.parquet",
        "--config",
        "load.json",
    ]);

    let object = moto.boto(&["get", "lake", "exports/rides.parquet"]);
    let local = std::fs::read(dir.path().join("local.parquet")).unwrap();
    assert!(
        object == local,
        "the object is not the local export's bytes"
    );
    let jsonl = moto.boto(&["get", "lake", "exports/rides.jsonl"]);
    assert_eq!(String::from_utf8_lossy(&jsonl).lines().count(), 20);
    assert_eq!(
        moto.keys(),
        ["exports/rides.jsonl", "exports/rides.parquet"]
    );
    assert_eq!(moto.boto(&["uploads", "lake"]), b"0\n");

    let out = moto.ldp(
        dir.path(),
        &[
            "datasets",
            "export",
            "rides_v",
            "az://lake/exports/rides.parquet",
            "--config",
            "load.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "dataset rides_v@v1: az://lake/exports/rides.parquet: this ldp reads and writes \
             objects on S3 (s3://, s3a://, s3n://) and Google Cloud Storage (gs://) only, not az://"
        ),
        "{}",
        stderr(&out)
    );
    let mut entries: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(entries, ["load.json", "local.parquet", "warehouse"]);
}

/// A team's lake: a `sql` catalog in PostgreSQL and the warehouse on `s3://`. Two working
/// folders that share nothing but the database and the bucket: what one writes, the other
/// reads and appends to.
#[test]
fn a_postgres_catalog_with_an_s3_warehouse_is_shared_by_two_working_folders() {
    let moto = Moto::start();
    let server = ldp_test_servers::postgres::server();
    let uri = server.uri(&server.new_database("s3_team"));
    let config = serde_json::json!({"identifier": "rides", "metadata": {
        "source": {"name": "rides", "format": "CSV", "path": "rides.csv"},
        "target": {"name": "rides", "format": "ICEBERG", "catalog": {
            "type": "sql", "name": "team", "namespace": "nyc", "uri": uri,
            "password_env": "LDP_PG_PASSWORD", "warehouse": "s3://lake/team"}}}});
    let hosts: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    for host in &hosts {
        std::fs::copy(rides(), host.path().join("rides.csv")).unwrap();
        write(host.path(), "rides.json", config.clone());
    }
    let ldp = |host: &tempfile::TempDir, args: &[&str]| {
        let out = ldp_with(host.path(), args, |command| {
            command
                .env("AWS_ENDPOINT_URL", &moto.endpoint)
                .env("AWS_REGION", "us-east-1")
                .env("AWS_ACCESS_KEY_ID", "testing")
                .env("AWS_SECRET_ACCESS_KEY", "testing")
                .env("NO_PROXY", "127.0.0.1")
                .env("LDP_PG_PASSWORD", ldp_test_servers::postgres::PASSWORD);
        });
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let count = "SELECT count(*) AS n FROM rides";
    ldp(&hosts[0], &["run", "rides.json"]);
    assert!(ldp(&hosts[1], &["query", "rides.json", count]).contains("20"));
    ldp(&hosts[1], &["run", "rides.json"]);
    let seen = ldp(&hosts[0], &["query", "rides.json", count, "--json"]);
    assert!(seen.contains("40"), "{seen}");
    assert!(
        moto.keys()
            .iter()
            .any(|k| k.starts_with("team/nyc/rides/data/")),
        "{:?}",
        moto.keys()
    );
    for host in &hosts {
        assert!(!host.path().join("team").exists());
    }
}

/// `ldp maintain` on a table whose warehouse is on S3: the bucket is listed for orphans (a stray
/// object is found, then deleted), compaction rewrites the files in the bucket, and the table
/// still reads every row.
#[test]
fn maintain_lists_and_compacts_a_table_on_s3() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://lake/drops/rides.csv"},
            "target": s3_table_block(dir.path(), "append")}}),
    );
    for _ in 0..3 {
        let out = moto.ldp(dir.path(), &["run", "load.json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    moto.boto(&[
        "put",
        "lake",
        "wh/nyc/rides/data/stray.parquet",
        rides().to_str().unwrap(),
    ]);
    let json = |out: Output| -> serde_json::Value {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plan = json(moto.ldp(
        dir.path(),
        &[
            "maintain",
            "load.json",
            "--orphans",
            "--orphan-age-hours",
            "0",
            "--json",
        ],
    ));
    assert_eq!(
        plan["orphans"]["orphans"],
        serde_json::json!(["s3://lake/wh/nyc/rides/data/stray.parquet"]),
        "{plan:#}"
    );
    assert!(
        plan["orphans"]["stats"]["referenced"].as_u64().unwrap() > 3,
        "{plan:#}"
    );

    let done = json(moto.ldp(
        dir.path(),
        &[
            "maintain",
            "load.json",
            "--compact",
            "--orphans",
            "--orphan-age-hours",
            "0",
            "--allow-recent",
            "--apply",
            "--json",
        ],
    ));
    assert_eq!(done["compact"]["committed"], true, "{done:#}");
    assert_eq!(done["compact"]["files_after"], 1, "{done:#}");
    assert_eq!(
        done["orphans"]["deleted"],
        serde_json::json!(["s3://lake/wh/nyc/rides/data/stray.parquet"]),
        "{done:#}"
    );
    assert!(!moto.keys().iter().any(|k| k.ends_with("stray.parquet")));
    let out = moto.ldp(
        dir.path(),
        &[
            "query",
            "load.json",
            "SELECT count(*) AS n FROM rides",
            "--json",
        ],
    );
    let doc = json(out);
    assert_eq!(doc["rows"][0]["n"], 60, "{doc}");
}

/// An AWS profile, as boto3 reads it: no `AWS_*` keys in the environment, only `AWS_PROFILE`
/// and the shared files (keys in `credentials`, the region and the `s3` endpoint in `config`).
/// A profile that does not exist is refused, naming it.
#[test]
fn an_aws_profile_in_the_shared_files_reaches_the_bucket() {
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    let (credentials, config) = (dir.path().join("credentials"), dir.path().join("config"));
    std::fs::write(
        &credentials,
        "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n\
         [moto]\naws_access_key_id = testing\naws_secret_access_key = testing\n",
    )
    .unwrap();
    std::fs::write(
        &config,
        format!(
            "[profile moto]\nregion = us-east-1\ns3 =\n    endpoint_url = {}\n",
            moto.endpoint
        ),
    )
    .unwrap();
    write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://lake/drops/rides.csv"},
            "target": table_block()}}),
    );
    let with_profile = |profile: &'static str| {
        let (credentials, config) = (credentials.clone(), config.clone());
        move |command: &mut Command| {
            command
                .env("AWS_PROFILE", profile)
                .env("AWS_SHARED_CREDENTIALS_FILE", &credentials)
                .env("AWS_CONFIG_FILE", &config)
                .env("NO_PROXY", "127.0.0.1");
        }
    };
    let out = ldp_with(dir.path(), &["run", "load.json"], with_profile("moto"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = ldp_with(dir.path(), &["run", "load.json"], with_profile("prod"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the AWS profile \"prod\" (AWS_PROFILE)"),
        "{}",
        stderr(&out)
    );
}
