//! The table contract: properties and column docs in one metadata-only commit, read back by
//! pyiceberg; no commit when the table already says it all.

use std::collections::BTreeMap;
use std::process::Command;

use ldp_table::{Append, ContractUpdate, Error, Table, apply_contract};
use serde_json::Value;

use crate::common::{CATALOG, Warehouse, rides, write};
use crate::pyiceberg::python;

fn contract() -> ContractUpdate {
    ContractUpdate {
        properties: BTreeMap::from([
            ("comment".to_string(), "Rides, one row each.".to_string()),
            ("ldp.owner".to_string(), "mobility team".to_string()),
            ("ldp.layer".to_string(), "gold".to_string()),
            ("ldp.grain".to_string(), "one row per ride".to_string()),
            ("ldp.primary-key".to_string(), "id".to_string()),
        ]),
        column_docs: BTreeMap::from([
            ("id".to_string(), "The ride.".to_string()),
            ("fare".to_string(), "What it cost, in dollars.".to_string()),
        ]),
    }
}

const READ: &str = r#"
import json, sys
from pyiceberg.catalog.sql import SqlCatalog
db, warehouse = sys.argv[1], sys.argv[2]
table = SqlCatalog("nyc", uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}").load_table(("nyc", "rides"))
print(json.dumps({"properties": table.properties,
                  "docs": {f.name: f.doc for f in table.schema().fields},
                  "rows": table.scan().to_arrow().num_rows}))
"#;

#[test]
fn the_contract_is_one_metadata_commit_that_pyiceberg_reads() {
    let w = Warehouse::new();
    let mut table = w.create("rides");
    Append::new(write(&table, &[rides(0, 10)]))
        .commit(&w.catalog, &mut table)
        .unwrap();
    let snapshots = table.snapshots().len();
    let planned = apply_contract(&w.catalog, &mut table, &contract(), false).unwrap();
    assert!(!planned.committed);
    assert_eq!(planned.columns, ["id", "fare"]);
    let done = apply_contract(&w.catalog, &mut table, &contract(), true).unwrap();
    assert!(done.committed, "{done:?}");
    let table = Table::load(&w.catalog, CATALOG, "rides").unwrap();
    assert_eq!(table.snapshots().len(), snapshots, "no new snapshot");
    assert_eq!(
        table.metadata().properties()["ldp.grain"],
        "one row per ride"
    );

    let out = Command::new(python())
        .args(["-c", READ])
        .arg(w.catalog_file())
        .arg(w.root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["properties"]["comment"], "Rides, one row each.");
    assert_eq!(read["properties"]["ldp.owner"], "mobility team");
    assert_eq!(read["docs"]["id"], "The ride.");
    assert_eq!(read["docs"]["fare"], "What it cost, in dollars.");
    assert_eq!(read["docs"]["vendor"], Value::Null);
    assert_eq!(read["rows"], 10);

    // The same contract again: nothing to write, no commit.
    let mut table = table;
    let location = table.metadata_location().to_string();
    let again = apply_contract(&w.catalog, &mut table, &contract(), true).unwrap();
    assert!(!again.committed && again.unchanged(), "{again:?}");
    assert_eq!(table.metadata_location(), location);

    let mut bad = contract();
    bad.column_docs.insert("nope".to_string(), "x".to_string());
    let error = apply_contract(&w.catalog, &mut table, &bad, true).unwrap_err();
    assert!(matches!(error, Error::Schema { .. }), "{error:?}");
    assert!(error.to_string().contains("column 'nope'"), "{error}");
}
