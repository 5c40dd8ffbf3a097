//! DuckDB's iceberg extension attaches the server (`ATTACH … (TYPE iceberg, ENDPOINT …)`),
//! reads a table ldp wrote and inserts into it (a commit through the server); a read-only server
//! without token is attached with `AUTHORIZATION_TYPE 'none'` and refuses DuckDB's insert.
//!
//! DuckDB downloads extensions from its own site, which this project's machines cannot reach;
//! PyPI's `duckdb-ext-iceberg` ships DuckDB's signed build of the extension for DuckDB 1.4.4 (the
//! venv's DuckDB is 1.5.6, for which no such package exists), so the test runs DuckDB 1.4.4 from
//! a venv of its own, `$LDP_DUCKDB_PYTHON` (scripts/test makes it). It fails, never skips,
//! without it.

use std::path::PathBuf;
use std::process::Command;

use ldp_table::{Append, DataWriter, Table, WriterOptions};
use serde_json::json;

use crate::common::{Lake, batch, run_script};

const SETUP: &str = "python3 -m venv .venv-duckdb && .venv-duckdb/bin/pip install 'duckdb==1.4.4' \
     'duckdb-ext-iceberg==1.4.4.20260205' 'duckdb-ext-avro==1.4.4.20260205' \
     'duckdb-ext-httpfs==1.4.4.20260205' && export LDP_DUCKDB_PYTHON=$PWD/.venv-duckdb/bin/python \
     (scripts/test does it)";

const ATTACH: &str = r#"
import glob, json, os, sys
import duckdb

args = json.loads(sys.argv[1])
site = os.path.dirname(os.path.dirname(duckdb.__file__))
extensions = os.path.join(site, "duckdb_ext", "extensions")
con = duckdb.connect(config={"extension_directory": extensions, "autoinstall_known_extensions": False})
for extension in ("httpfs", "avro", "iceberg"):
    con.sql(f"LOAD {extension}")
con.sql(f"CREATE SECRET lake_token (TYPE iceberg, TOKEN '{args['token']}')")
con.sql(f"ATTACH 'lake' AS lake (TYPE iceberg, ENDPOINT '{args['uri']}', SECRET lake_token)")
out = {
    "tables": sorted(r[0] for r in con.sql("SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake'").fetchall()),
    "rows": con.sql("SELECT count(*), sum(id) FROM lake.nyc.rides").fetchone(),
}
con.sql("INSERT INTO lake.nyc.rides VALUES (100, 'duck')")
out["after_insert"] = con.sql("SELECT count(*), sum(id) FROM lake.nyc.rides").fetchone()

# The read-only server, without token.
con.sql(f"ATTACH 'lake' AS ro (TYPE iceberg, ENDPOINT '{args['read_only_uri']}', AUTHORIZATION_TYPE 'none')")
out["read_only_rows"] = con.sql("SELECT count(*) FROM ro.nyc.rides").fetchone()
try:
    con.sql("INSERT INTO ro.nyc.rides VALUES (200, 'no')")
    out["read_only_insert"] = "accepted"
except Exception as e:
    out["read_only_insert"] = str(e)
print(json.dumps(out))
"#;

fn duckdb_python() -> PathBuf {
    let python = std::env::var_os("LDP_DUCKDB_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("LDP_DUCKDB_PYTHON is not set; {SETUP}"));
    let probe = Command::new(&python)
        .args(["-c", "import duckdb; assert duckdb.__version__ == '1.4.4'"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run {} ({e}); {SETUP}", python.display()));
    assert!(
        probe.success(),
        "{} has no DuckDB 1.4.4; {SETUP}",
        python.display()
    );
    python
}

#[test]
fn duckdb_attaches_the_server_and_reads_an_ldp_table() {
    let python = duckdb_python();
    let lake = Lake::new();
    let mut settings = lake.settings();
    settings.token = Some("s3cr3t".into());
    let server = ldp_catalog_server::start(settings).unwrap();
    let catalog = lake.catalog();
    let rows = batch(1, 10);
    let location = lake.warehouse().join("nyc").join("rides");
    let mut table = Table::create(&catalog, "nyc", "rides", &rows.schema(), &location).unwrap();
    let mut writer = DataWriter::new(&table, &WriterOptions::default()).unwrap();
    writer.write(&rows).unwrap();
    Append::new(writer.finish().unwrap())
        .commit(&catalog, &mut table)
        .unwrap();

    let mut read_only = lake.settings();
    read_only.read_only = true;
    let read_only = ldp_catalog_server::start(read_only).unwrap();
    let args = json!({"uri": server.uri(), "token": "s3cr3t", "read_only_uri": read_only.uri()});
    let out = run_script(&python, ATTACH, &args);
    assert_eq!(out["tables"], json!(["rides"]), "{out}");
    assert_eq!(out["rows"], json!([10, 55]), "{out}");
    // DuckDB's INSERT commits through the server: the catalog points at its snapshot. (ldp's
    // reader, iceberg-rust 0.10.1, cannot read the manifests DuckDB 1.4.4 writes: their
    // `schema` metadata is the manifest entry's own schema, in Avro's form; pyiceberg reads them.)
    assert_eq!(out["after_insert"], json!([11, 155]), "{out}");
    assert_eq!(out["read_only_rows"], json!([11]), "{out}");
    let refused = out["read_only_insert"].as_str().unwrap();
    assert!(refused.contains("read-only"), "{refused}");
    let table = Table::load(&catalog, "nyc", "rides").unwrap();
    assert_eq!(table.snapshots().len(), 2);
    assert_eq!(
        table.snapshots()[1].parent_snapshot_id,
        Some(table.snapshots()[0].snapshot_id)
    );
}
