//! `ldp catalog serve` as its users run it: a process on a loopback port that pyiceberg and
//! DuckDB attach.

use std::process::Command;

use serde_json::{Value, json};

use super::lake::{Kind, Lake};

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
    let out = Command::new(crate::interop::python())
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

/// DuckDB 1.4.4 (`$LDP_DUCKDB_PYTHON`, with the iceberg extension from PyPI) attaches the
/// catalog `ldp catalog serve` serves; ATTACH names the served catalog. Prints the rows of the
/// query in `argv[2]`.
const DUCKDB: &str = r#"
import json, os, sys
import duckdb
args = json.loads(sys.argv[1])
site = os.path.dirname(os.path.dirname(duckdb.__file__))
con = duckdb.connect(config={"extension_directory": os.path.join(site, "duckdb_ext", "extensions"),
                             "autoinstall_known_extensions": False})
for extension in ("httpfs", "avro", "iceberg"):
    con.sql(f"LOAD {extension}")
con.sql(f"CREATE SECRET served (TYPE iceberg, TOKEN '{os.environ[args['token_env']]}')")
con.sql(f"ATTACH '{args['catalog']}' AS lake (TYPE iceberg, ENDPOINT '{args['uri']}', SECRET served)")
print(json.dumps([list(row) for row in con.sql(args["sql"]).fetchall()]))
"#;

/// DuckDB's iceberg extension attaches `ldp catalog serve` and gives `ldp query`'s rows for a
/// table ldp wrote through the same server (two appends and an upsert).
#[test]
fn duckdb_attaches_ldp_catalog_serve_and_reads_what_ldp_query_reads() {
    let python = std::env::var_os("LDP_DUCKDB_PYTHON").unwrap_or_else(|| {
        panic!("LDP_DUCKDB_PYTHON is not set: run scripts/test, which makes .venv-duckdb")
    });
    let lake = Lake::new(Kind::Serve, "duckdb");
    let config = lake.config(
        "rides",
        "data/rides.csv",
        json!({"write_mode": "append", "join_cols": ["ride_id"]}),
    );
    lake.ok(&["run", &config]);
    lake.ok(&["run", &config, "--mode", "upsert"]);
    lake.ok(&["run", &config]);
    let sql = "SELECT city, count(*) AS n, round(sum(fare), 2) AS fares FROM rides \
               GROUP BY city ORDER BY city";
    let ldp: Vec<Value> = lake
        .query(&config, sql, &[])
        .iter()
        .map(|row| json!([row["city"], row["n"], row["fares"]]))
        .collect();
    assert!(ldp.len() > 1, "{ldp:?}");

    let args = json!({"uri": lake.catalog["uri"], "catalog": "nyc",
                      "token_env": super::lake::TOKEN_ENV,
                      "sql": sql.replace("FROM rides", "FROM lake.nyc.rides")});
    let out = Command::new(&python)
        .envs(lake.env.iter().map(|(k, v)| (k, v)))
        .args(["-c", DUCKDB, &args.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python:?}: {e}"));
    assert!(
        out.status.success(),
        "DuckDB failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let duckdb: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(duckdb, ldp);
}

/// `ldp catalog serve` over a `sql` catalog whose warehouse is `s3://` (moto): ldp appends
/// through it from one working folder and another working folder, sharing nothing but the
/// server and the bucket, reads every row; the data and metadata files are in the bucket.
#[test]
fn ldp_catalog_serve_over_an_s3_warehouse_shares_the_lake_between_working_folders() {
    use ldp_test_servers::moto::{self, Mode, Moto};
    let mut lake = Lake::new(Kind::Local, "s3serve");
    let bucket = Moto::start(Mode::Plain);
    moto::boto(&bucket, "s3.create_bucket(Bucket='lake')");
    lake.env = super::lake::aws_env(&bucket);
    lake.env
        .push((super::lake::TOKEN_ENV, super::lake::SERVE_TOKEN.to_string()));
    let served = json!({"type": "sql", "name": "lake", "namespace": "nyc",
                        "uri": format!("sqlite:///{}", lake.path("lake.db").display()),
                        "warehouse": "s3://lake/wh"});
    let (uri, _server) = lake.serve_catalog(served, &[]);
    lake.catalog = json!({"type": "rest", "name": "lake", "namespace": "nyc", "uri": uri,
                          "token_env": super::lake::TOKEN_ENV});
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    lake.ok(&["run", &config, "--window", "2026-08-01/2026-08-02"]);

    let elsewhere = lake.copy_configs_and_data("elsewhere");
    let mut query = lake.command(&[
        "query",
        "rides.json",
        "SELECT count(*) AS n FROM rides",
        "--json",
    ]);
    let out = query.current_dir(&elsewhere).output().expect("ldp runs");
    assert_eq!(out.status.code(), Some(0), "{}", crate::stderr(&out));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows["rows"][0]["n"], 40, "{rows}");

    let keys = moto::boto(
        &bucket,
        "result = [o['Key'] for o in s3.list_objects_v2(Bucket='lake').get('Contents', [])]",
    );
    let keys: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let under = |folder: &str| keys.iter().filter(|k| k.starts_with(folder)).count();
    assert_eq!(under("wh/nyc/rides/data/"), 2, "{keys:?}");
    assert!(under("wh/nyc/rides/metadata/") >= 3, "{keys:?}");
}

/// `ldp catalog serve` over a `glue` catalog (moto, the warehouse in its S3): pyiceberg's
/// `RestCatalog` reads the table ldp wrote through Glue and appends to it through the server,
/// and `ldp query` on the Glue config sees the append.
#[test]
fn ldp_catalog_serve_over_a_glue_catalog_lets_pyiceberg_append() {
    let mut lake = Lake::new(Kind::Glue, "serveglue");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    lake.env
        .push((super::lake::TOKEN_ENV, super::lake::SERVE_TOKEN.to_string()));
    let (uri, _server) = lake.serve_catalog(lake.catalog.clone(), &[]);
    let script = r#"
import json, os, sys
from pyiceberg.catalog import load_catalog
s3 = {"s3.endpoint": os.environ["AWS_ENDPOINT_URL"], "s3.region": os.environ["AWS_REGION"],
      "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
      "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"]}
catalog = load_catalog("lake", type="rest", uri=sys.argv[1], token=os.environ[sys.argv[2]], **s3)
table = catalog.load_table(("nyc", "rides"))
rows = table.scan().to_arrow()
table.append(rows.slice(0, 3))
print(json.dumps({"read": rows.num_rows, "after": table.scan().to_arrow().num_rows}))
"#;
    let out = Command::new(crate::interop::python())
        .envs(lake.env.iter().map(|(k, v)| (k, v)))
        .args(["-c", script, &uri, super::lake::TOKEN_ENV])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "pyiceberg: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (seen["read"].as_u64(), seen["after"].as_u64()),
        (Some(20), Some(23))
    );
    assert_eq!(lake.count(&config, "rides", &[]), 23);
}
