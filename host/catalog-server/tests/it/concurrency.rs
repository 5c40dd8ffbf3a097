//! Eight pyiceberg processes append at once through the server: every append lands exactly
//! once. pyiceberg retries a commit answered 409 by itself (4 times by default, rebuilding its
//! snapshot on the new head); a process whose retries all lose reloads the table and appends
//! again, which is safe because a 409 means nothing of it was committed.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::{Array, Int64Array};
use ldp_table::Table;
use serde_json::{Value, json};

use crate::common::{Lake, batch, python};

const WRITERS: i64 = 8;
const ROWS: i64 = 10;

const APPEND: &str = r#"
import json, sys, time
import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import CommitFailedException

args = json.loads(sys.argv[1])
cat = load_catalog("lake", type="rest", uri=args["uri"], warehouse="lake")
start = args["start"]
ids = list(range(start, start + args["rows"]))
data = pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids])})
table = cat.load_table("race.events")
time.sleep(max(0.0, args["at"] - time.time()))
outer = 0
while True:
    try:
        table.append(data)
        break
    except CommitFailedException:
        outer += 1
        if outer > 20:
            raise
        table = cat.load_table("race.events")
print(json.dumps({"outer_retries": outer}))
"#;

#[test]
fn eight_concurrent_pyiceberg_appends_lose_and_double_nothing() {
    let python = python();
    let lake = Lake::new();
    let server = lake.serve();
    let catalog = lake.catalog();
    let location = lake.warehouse().join("race").join("events");
    Table::create(&catalog, "race", "events", &batch(0, 1).schema(), &location).unwrap();

    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 4.0;
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            let args = json!({"uri": server.uri(), "start": i * ROWS, "rows": ROWS, "at": at});
            Command::new(&python)
                .args(["-c", APPEND, &args.to_string()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start python")
        })
        .collect();
    let mut pyiceberg_retries = 0;
    let mut outer_retries = 0;
    for child in children {
        let output = child.wait_with_output().expect("python");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        let out: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        outer_retries += out["outer_retries"].as_i64().unwrap();
        pyiceberg_retries += stderr.matches("retrying (").count();
    }
    eprintln!(
        "pyiceberg retried {pyiceberg_retries} commits itself; the writers reloaded {outer_retries} times"
    );

    let table = Table::load(&catalog, "race", "events").unwrap();
    assert_eq!(table.snapshots().len() as i64, WRITERS);
    let mut ids = Vec::new();
    for batch in table.read_all(None).unwrap() {
        let column = batch.column_by_name("id").unwrap();
        let column = column.as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend((0..column.len()).map(|i| column.value(i)));
    }
    assert_eq!(ids.len() as i64, WRITERS * ROWS, "rows lost or doubled");
    let distinct: BTreeSet<i64> = ids.into_iter().collect();
    assert_eq!(distinct, (0..WRITERS * ROWS).collect());
}
