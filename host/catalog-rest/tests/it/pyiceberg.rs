//! Real data through the same server: pyiceberg 0.12 appends rows (Parquet file, manifest,
//! manifest list), this client loads the snapshot, commits a snapshot and a fence tag of its own
//! on top, and pyiceberg reads the table back through the catalog.
//!
//! The Python comes from `$LDP_PYTHON`, else `<repo>/.venv/bin/python`. Without it the test
//! fails (it never skips): run `scripts/test`, or `python3 -m venv .venv && .venv/bin/pip install
//! 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'` at the repository root.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use iceberg::spec::{Operation, Snapshot, SnapshotReference, SnapshotRetention, Summary};
use ldp_catalog_rest::{ErrorKind, TableRequirement, TableUpdate};
use serde_json::Value;

use crate::common::{local_path, table};
use crate::server::Clients as _;
use crate::server::{Rustberg, TOKEN};

const SETUP: &str =
    "run: python3 -m venv .venv && .venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'";

const SCRIPT: &str = r#"
import json, sys
import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog

uri, token, action = sys.argv[1], sys.argv[2], sys.argv[3]
catalog = RestCatalog("lake", uri=uri, token=token)
table = catalog.load_table(("nyc", "rides"))
if action == "append":
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    table.append(pa.Table.from_pylist(
        [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}], schema=schema))
    print(json.dumps({"snapshot": table.current_snapshot().snapshot_id}))
else:
    rows = table.scan().to_arrow()
    print(json.dumps({
        "snapshot": table.current_snapshot().snapshot_id,
        "ids": sorted(rows["id"].to_pylist()),
        "refs": sorted(table.metadata.refs),
    }))
"#;

fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("LDP_PYTHON") {
        return PathBuf::from(python);
    }
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    assert!(
        python.exists(),
        "no Python for the pyiceberg interop test at {}; {SETUP}",
        python.display()
    );
    python
}

/// Runs [`SCRIPT`] with `action` against the server; its JSON answer.
fn pyiceberg(server: &Rustberg, action: &str) -> Value {
    let output = Command::new(python())
        .args(["-c", SCRIPT, &server.uri, TOKEN, action])
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}; {SETUP}", python().display()));
    assert!(
        output.status.success(),
        "pyiceberg {action} failed: {}\nserver log:\n{}",
        String::from_utf8_lossy(&output.stderr),
        server.log()
    );
    serde_json::from_slice(&output.stdout).expect("the script's JSON")
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn a_pyiceberg_snapshot_is_loaded_and_one_of_ours_committed_on_top() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    table(&catalog, "nyc", "rides");

    let appended = pyiceberg(&server, "append")["snapshot"].as_i64().unwrap();
    let loaded = catalog.load_table("nyc", "rides").unwrap();
    let snapshot = loaded
        .metadata
        .current_snapshot()
        .expect("pyiceberg's snapshot");
    assert_eq!(snapshot.snapshot_id(), appended);
    assert_eq!(snapshot.summary().operation, Operation::Append);
    assert_eq!(
        snapshot.summary().additional_properties["added-records"],
        "3"
    );
    assert!(local_path(snapshot.manifest_list()).is_file());

    // ldp's own snapshot: same files (pyiceberg's manifest list), a fence tag on the parent.
    let ours = Snapshot::builder()
        .with_snapshot_id(appended.wrapping_add(1).max(1))
        .with_parent_snapshot_id(Some(appended))
        .with_sequence_number(loaded.metadata.last_sequence_number() + 1)
        .with_timestamp_ms(now_ms().max(loaded.metadata.last_updated_ms() + 1))
        .with_manifest_list(snapshot.manifest_list())
        .with_summary(Summary {
            operation: Operation::Replace,
            additional_properties: HashMap::from([("ldp.run".to_string(), "r1".to_string())]),
        })
        .with_schema_id(loaded.metadata.current_schema_id())
        .build();
    let ours_id = ours.snapshot_id();
    let requirements = [TableRequirement::RefSnapshotIdMatch {
        r#ref: "main".into(),
        snapshot_id: Some(appended),
    }];
    let updates = [
        TableUpdate::AddSnapshot { snapshot: ours },
        TableUpdate::SetSnapshotRef {
            ref_name: "main".into(),
            reference: SnapshotReference::new(ours_id, SnapshotRetention::branch(None, None, None)),
        },
        TableUpdate::SetSnapshotRef {
            ref_name: "ldp-fence".into(),
            reference: SnapshotReference::new(
                appended,
                SnapshotRetention::Tag {
                    max_ref_age_ms: None,
                },
            ),
        },
    ];
    let committed = catalog
        .commit_table("nyc", "rides", &requirements, &updates)
        .unwrap_or_else(|error| panic!("{error}\nserver log:\n{}", server.log()));
    assert_eq!(committed.metadata.current_snapshot_id(), Some(ours_id));
    assert_eq!(
        committed
            .metadata
            .snapshot_for_ref("ldp-fence")
            .map(|s| s.snapshot_id()),
        Some(appended)
    );

    // pyiceberg, through the catalog, reads our snapshot and the rows it appended.
    let read = pyiceberg(&server, "read");
    assert_eq!(read["snapshot"].as_i64(), Some(ours_id));
    assert_eq!(read["ids"], serde_json::json!([1, 2, 3]));
    assert_eq!(read["refs"], serde_json::json!(["ldp-fence", "main"]));

    // A writer that still believes main is at pyiceberg's snapshot loses.
    let error = catalog
        .commit_table(
            "nyc",
            "rides",
            &requirements,
            &[TableUpdate::RemoveSnapshotRef {
                ref_name: "ldp-fence".into(),
            }],
        )
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict, "{error}");
    assert!(error.is_retryable());
}
