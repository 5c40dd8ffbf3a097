//! Interop with pyiceberg's `GlueCatalog` (`$LDP_PYTHON`, pyiceberg 0.12 with boto3) on the
//! same moto server: tables pyiceberg writes are loaded and committed to by this client, and
//! tables this client registers are read and appended to by pyiceberg.

use std::path::Path;
use std::process::Command;

use ldp_catalog_glue::TableDescriptor;
use serde_json::Value;

use crate::moto::{ACCESS_KEY_ID, Moto, OnMoto, REGION, SECRET_ACCESS_KEY, python, shared, unique};

/// `argv`: endpoint, warehouse folder, action, namespace, table. Prints one JSON object.
const SCRIPT: &str = r#"
import json, sys
import pyarrow as pa
from pyiceberg.catalog import load_catalog

endpoint, warehouse, action, ns, name = sys.argv[1:6]
catalog = load_catalog("glue", **{
    "type": "glue",
    "glue.endpoint": endpoint,
    "glue.region": sys.argv[6],
    "glue.access-key-id": sys.argv[7],
    "glue.secret-access-key": sys.argv[8],
    "warehouse": "file://" + warehouse,
})
rows = lambda ids: pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids])})
out = {}
if action == "create":
    catalog.create_namespace(ns)
    table = catalog.create_table(f"{ns}.{name}", schema=rows([0]).schema)
    table.append(rows([1, 2, 3]))
    out["after_first_append"] = table.metadata_location
    table.append(rows([4, 5]))
elif action == "append":
    table = catalog.load_table(f"{ns}.{name}")
    out["before"] = table.metadata_location
    table.append(rows([6]))
else:
    table = catalog.load_table(f"{ns}.{name}")
glue = catalog.glue.get_table(DatabaseName=ns, Name=name)["Table"]["Parameters"]
out["metadata_location"] = table.metadata_location
out["previous_metadata_location"] = glue.get("previous_metadata_location")
out["rows"] = table.scan().to_arrow().num_rows
out["tables"] = sorted(t[1] for t in catalog.list_tables(ns))
print(json.dumps(out))
"#;

fn pyiceberg(moto: &Moto, warehouse: &Path, action: &str, ns: &str, table: &str) -> Value {
    let output = Command::new(python())
        .args(["-c", SCRIPT, &moto.endpoint])
        .arg(warehouse)
        .args([action, ns, table, REGION, ACCESS_KEY_ID, SECRET_ACCESS_KEY])
        .output()
        .expect("run Python");
    assert!(
        output.status.success(),
        "pyiceberg {action} failed (install: {}):\n{}",
        crate::moto::INSTALL,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON from pyiceberg")
}

fn local_file(uri: &str) -> &str {
    uri.strip_prefix("file://").expect("a file:// location")
}

#[test]
fn tables_pass_both_ways_between_pyiceberg_and_this_client() {
    let moto = shared();
    let warehouse = tempfile::tempdir().unwrap();
    let ns = unique("interop");
    let catalog = moto.catalog();

    // pyiceberg creates and appends twice; this client sees its pointer and its previous one.
    let made = pyiceberg(moto, warehouse.path(), "create", &ns, "py");
    assert_eq!(made["rows"], 5, "{made}");
    let table = catalog.load_table(&ns, "py").unwrap().unwrap();
    assert_eq!(
        table.metadata_location,
        made["metadata_location"].as_str().unwrap()
    );
    assert_eq!(
        table.previous_metadata_location.as_deref(),
        made["after_first_append"].as_str()
    );
    assert_eq!(catalog.list_tables(&ns).unwrap(), vec!["py".to_string()]);
    let warehouse_uri = format!("file://{}", warehouse.path().display());
    assert_eq!(
        table.location,
        Some(
            catalog
                .default_table_location(&ns, "py", Some(&warehouse_uri))
                .unwrap()
        ),
        "pyiceberg put the table where default_table_location says"
    );

    // This client moves the pointer back to the first append's metadata; pyiceberg reads it.
    let first = made["after_first_append"].as_str().unwrap();
    catalog
        .commit(&ns, "py", &table.metadata_location, first)
        .unwrap();
    let rolled_back = pyiceberg(moto, warehouse.path(), "load", &ns, "py");
    assert_eq!(rolled_back["metadata_location"], first);
    assert_eq!(rolled_back["rows"], 3, "{rolled_back}");

    // This client registers a table on a metadata file pyiceberg wrote, with pyiceberg's
    // columns; pyiceberg lists it, reads it and commits to it.
    let current = made["metadata_location"].as_str().unwrap();
    let metadata: Value =
        serde_json::from_str(&std::fs::read_to_string(local_file(current)).unwrap()).unwrap();
    let descriptor = TableDescriptor::from_metadata(&metadata);
    assert_eq!(descriptor.columns.len(), 2);
    catalog
        .create_table_with(&ns, "ours", current, &descriptor)
        .unwrap();
    let records = crate::moto::boto(
        moto,
        &format!(
            "result = [glue.get_table(DatabaseName='{ns}', Name=n)['Table'] for n in ('py', 'ours')]"
        ),
    );
    for field in ["TableType", "StorageDescriptor"] {
        assert_eq!(records[0][field], records[1][field], "{field} differs");
    }
    let read = pyiceberg(moto, warehouse.path(), "load", &ns, "ours");
    assert_eq!(read["rows"], 5, "{read}");
    assert_eq!(read["tables"], serde_json::json!(["ours", "py"]));
    let appended = pyiceberg(moto, warehouse.path(), "append", &ns, "ours");
    assert_eq!(appended["rows"], 6, "{appended}");
    let after = catalog.load_table(&ns, "ours").unwrap().unwrap();
    assert_eq!(
        after.metadata_location,
        appended["metadata_location"].as_str().unwrap()
    );
    assert_eq!(after.previous_metadata_location.as_deref(), Some(current));
}
