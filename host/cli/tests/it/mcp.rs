//! `ldp mcp` driven by a real client: the official Python MCP SDK (`mcp` from PyPI, installed
//! by `scripts/test`) over stdio, through `tests/data/mcp/client.py`. A session lists the
//! tables, describes one, joins two, reads the history and tries a transform; the refused
//! calls (`COPY … TO`, `ATTACH`, two statements, `read_csv('/etc/passwd')`, a path as a table,
//! a table not allowed, a query past the time limit) each give a clear error; and every call,
//! refused or not, is in the audit log, which never holds result data.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::backfill::{in_dir, workdir};
use super::{files_under, stderr};

const SETUP: &str = "run scripts/test, or: .venv/bin/pip install 'mcp==1.22.0'";

/// The restaurant's orders for two nights, and a table of dishes to join them with.
pub(super) fn lake() -> tempfile::TempDir {
    let dir = workdir();
    let out = in_dir(
        dir.path(),
        &[
            "backfill",
            "nightly.json",
            "--from",
            "2026-08-01",
            "--to",
            "2026-08-03",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(
        dir.path().join("dishes.csv"),
        "dish,category,price\nmargherita,pizza,12.5\ncarbonara,pasta,14.0\ntiramisu,dessert,6.5\nlasagne,pasta,15.5\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("dishes.json"),
        r#"{"identifier": "dishes", "metadata": {"source": {"name": "dishes", "format": "CSV", "path": "dishes.csv"},
            "target": {"name": "dishes", "format": "ICEBERG", "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}"#,
    )
    .unwrap();
    let out = in_dir(dir.path(), &["run", "dishes.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir
}

/// Runs the calls through the Python client; the session's document.
pub(super) fn session(dir: &Path, calls: &Value, args: &[&str]) -> Value {
    let python = super::interop::python();
    let check = Command::new(&python).args(["-c", "import mcp"]).output();
    assert!(
        check.as_ref().is_ok_and(|o| o.status.success()),
        "the Python MCP client is missing from {}; {SETUP}",
        python.display()
    );
    let calls_file = dir.join("calls.json");
    std::fs::write(&calls_file, serde_json::to_vec(calls).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp/client.py");
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let out = Command::new(python)
        .current_dir(dir)
        .env("LDP_CACHE_DIR", &cache)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_ldp"))
        .arg(&calls_file)
        .arg("--")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn error_type(call: &Value) -> &str {
    assert_eq!(call["is_error"], true, "{call}");
    call["result"]["error"]["type"].as_str().unwrap()
}

#[test]
fn an_agent_lists_describes_joins_and_reads_history_and_everything_is_audited() {
    let dir = lake();
    let calls = json!([
        ["list_tables", {}],
        ["describe_table", {"table": "shop.orders"}],
        // DuckDB's GROUP BY ALL and ORDER BY ALL, as the Python tool's agents wrote them.
        ["query", {"sql": "SELECT d.category, count(*) AS n, sum(o.amount) AS revenue FROM shop.orders o JOIN dishes d ON o.dish = d.dish GROUP BY ALL ORDER BY ALL"}],
        ["table_history", {"table": "orders"}],
        ["sample_rows", {"table": "dishes", "n": 2}],
        ["run_transform", {"table": "dishes", "n": 2,
          "js": "function schema(fields) { return [...fields, {name: 'price_eur', type: 'double'}]; }\nfunction transform(rows) { return rows.map(r => ({...r, price_eur: Math.round(r.price * 110) / 100})); }"}],
        ["query", {"sql": "SELECT * FROM orders", "max_rows": 2}],
    ]);
    let doc = session(dir.path(), &calls, &["--config", "."]);
    assert_eq!(doc["server"]["name"], "local-data-platform");
    assert_eq!(doc["server"]["title"], "Local Data Platform (read-only)");
    assert_eq!(
        doc["tools"],
        json!([
            "list_tables",
            "describe_table",
            "query",
            "sample_rows",
            "table_history",
            "get_dataset",
            "run_transform"
        ])
    );
    assert_eq!(doc["read_only"], true);
    let results: Vec<&Value> = doc["calls"].as_array().unwrap().iter().collect();
    for call in &results {
        assert_eq!(call["is_error"], false, "{call}");
    }
    let tables: Vec<&str> = results[0]["result"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_str().unwrap())
        .collect();
    assert_eq!(tables, ["shop.orders", "shop.dishes"]);
    assert_eq!(results[0]["result"]["tables"][0]["row_count"], 9);
    let described = &results[1]["result"];
    assert_eq!(described["schema"]["fields"][0]["name"], "order_id");
    assert_eq!(described["schema"]["fields"][0]["type"], "long");
    assert_eq!(described["row_count"], 9);
    assert_eq!(
        results[2]["result"]["rows"],
        json!([["dessert", 1, 6.5], ["pasta", 3, 43.5], ["pizza", 3, 37.5]])
    );
    assert_eq!(results[3]["result"]["snapshot_count"], 3);
    assert_eq!(results[3]["result"]["history"][0]["is_current"], true);
    assert_eq!(results[4]["result"]["table"], "shop.dishes");
    assert_eq!(results[4]["result"]["row_count"], 2);
    let transformed = &results[5]["result"];
    assert_eq!(transformed["written"], false);
    assert_eq!(
        transformed["rows"][0],
        json!(["margherita", "pizza", 12.5, 13.75])
    );
    assert_eq!(results[6]["result"]["truncated"], true);
    assert_eq!(results[6]["result"]["row_count"], 2);

    // The audit log: one line per call, no result data.
    let audit =
        std::fs::read_to_string(dir.path().join("warehouse/.ldp/audit/mcp_audit.jsonl")).unwrap();
    let records: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 7);
    assert_eq!(records[2]["tool"], "query");
    assert_eq!(records[2]["status"], "ok");
    assert_eq!(records[2]["rows"], 3);
    assert!(records[2]["sql"].as_str().unwrap().contains("JOIN dishes"));
    assert!(!audit.contains("dessert"), "result data in the audit log");
    assert_eq!(records[6]["arguments"], json!({"max_rows": 2}));
    assert_eq!(records[6]["truncated"], true);
    // And the `_ldp.audit` table got them when the server stopped: one append of the batch.
    let data = dir.path().join("warehouse/_ldp/audit/data");
    let files = files_under(&data);
    assert!(
        files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "parquet")),
        "{files:?}"
    );
}

#[test]
fn refused_calls_say_why_and_are_audited() {
    let dir = lake();
    let calls = json!([
        ["query", {"sql": "COPY orders TO '/tmp/x.csv'"}],
        ["query", {"sql": "ATTACH '/tmp/x.db' AS x"}],
        ["query", {"sql": "SELECT 1; SELECT 2"}],
        ["query", {"sql": "SELECT * FROM read_csv('/etc/passwd')"}],
        ["query", {"sql": "SELECT * FROM '/etc/passwd'"}],
        ["query", {"sql": "SELECT * FROM shop.dishes"}],
        ["sample_rows", {"table": "dishes"}],
        // Not count(*): the planner answers that from the files' row counts without a scan.
        ["query", {"sql": "SELECT max(a.amount + j.amount) FROM shop.orders a, shop.orders b, shop.orders c, shop.orders d, shop.orders e, shop.orders f, shop.orders g, shop.orders h, shop.orders i, shop.orders j"}],
        ["query", {"sql": "SELECT 1", "max_rows": 0}],
        ["get_dataset", {"name": "nope"}],
    ]);
    let doc = session(
        dir.path(),
        &calls,
        &["--config", ".", "--allow", "shop.orders", "--timeout", "1"],
    );
    let calls: Vec<&Value> = doc["calls"].as_array().unwrap().iter().collect();
    assert_eq!(error_type(calls[0]), "QueryRejected");
    assert!(
        calls[0]["result"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this statement starts with 'COPY'")
    );
    assert_eq!(error_type(calls[1]), "QueryRejected");
    assert_eq!(
        calls[2]["result"]["error"]["message"],
        "exactly one statement is allowed; found 2"
    );
    assert_eq!(error_type(calls[3]), "AccessDenied");
    assert_eq!(error_type(calls[4]), "TableNotAllowed");
    // dishes exists, but --allow serves only shop.orders: the same error as a missing table.
    assert_eq!(error_type(calls[5]), "TableNotAllowed");
    assert_eq!(error_type(calls[6]), "TableNotAllowed");
    assert_eq!(error_type(calls[7]), "QueryTimeout");
    assert_eq!(error_type(calls[8]), "InvalidArguments");
    assert_eq!(error_type(calls[9]), "DatasetNotFound");

    let audit =
        std::fs::read_to_string(dir.path().join("warehouse/.ldp/audit/mcp_audit.jsonl")).unwrap();
    let statuses: Vec<String> = audit
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["status"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        statuses,
        [
            "rejected", "rejected", "rejected", "denied", "rejected", "rejected", "rejected",
            "timeout", "rejected", "rejected"
        ]
    );
}

/// The three bugs of a hostile session, each stopped and audited while the server keeps
/// serving: 5,000 `UNION ALL`s overflowed the server's stack (now refused before they plan); a
/// 4-way cross join of 3,000 rows ran for minutes past `--timeout 2` (now stopped within twice
/// the limit, and its work with it: the server's CPU time stops growing); `repeat('x',
/// 2000000000)` under `--max-memory-mb 256` grew the server to 7.7 GB (now refused before it
/// allocates: the server's peak stays under 1 GB).
#[test]
fn hostile_queries_are_refused_or_stopped_audited_and_the_server_serves_on() {
    let dir = lake();
    let numbers: String = std::iter::once("n".to_owned())
        .chain((0..3_000).map(|n| n.to_string()))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.path().join("numbers.csv"), numbers + "\n").unwrap();
    std::fs::write(
        dir.path().join("numbers.json"),
        r#"{"identifier": "numbers", "metadata": {"source": {"name": "numbers", "format": "CSV", "path": "numbers.csv"},
            "target": {"name": "numbers", "format": "ICEBERG", "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}"#,
    )
    .unwrap();
    let out = in_dir(dir.path(), &["run", "numbers.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let unions = vec!["SELECT 1"; 5_000].join(" UNION ALL ");
    let calls = json!([
        ["query", {"sql": unions}],
        // Not count(*): the planner answers that from the files' row counts without a scan.
        ["query", {"sql": "SELECT sum(a.n + b.n + c.n + d.n) FROM numbers a, numbers b, numbers c, numbers d"}],
        ["__server__", {}],
        ["__sleep__", {"seconds": 1.5}],
        ["__server__", {}],
        ["query", {"sql": "SELECT length(repeat('x', 2000000000))"}],
        ["__server__", {}],
        ["query", {"sql": "SELECT count(*) AS n FROM shop.orders"}],
    ]);
    let args = ["--config", ".", "--timeout", "2", "--max-memory-mb", "256"];
    let doc = session(dir.path(), &calls, &args);
    let calls: Vec<&Value> = doc["calls"].as_array().unwrap().iter().collect();
    let message = |call: &Value| {
        call["result"]["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    assert_eq!(error_type(calls[0]), "QueryRejected");
    assert!(
        message(calls[0]).contains("the limit is 2000: split it into several queries"),
        "{}",
        message(calls[0])
    );

    assert_eq!(error_type(calls[1]), "QueryTimeout");
    let took = calls[1]["elapsed_s"].as_f64().unwrap();
    // Within twice the limit, and a little more for a busy machine.
    assert!(took < 2.0 * 2.0 + 1.0, "the bomb stopped after {took} s");
    let cpu = |call: &Value| call["server"]["cpu_s"].as_f64().unwrap();
    let idle = cpu(calls[4]) - cpu(calls[2]);
    assert!(
        idle < 0.5,
        "the server used {idle} s of CPU in 1.5 s after the timeout"
    );

    assert_eq!(error_type(calls[5]), "QueryFailed");
    assert!(
        message(calls[5])
            .contains("repeat(…) would build 1907.3 MiB in one result, more than the 256.0 MiB"),
        "{}",
        message(calls[5])
    );
    let peak_kb = calls[6]["server"]["vm_hwm_kb"].as_u64().unwrap();
    assert!(peak_kb < 1024 * 1024, "the server peaked at {peak_kb} kB");

    assert_eq!(calls[7]["is_error"], false, "{}", calls[7]);
    assert_eq!(calls[7]["result"]["rows"], json!([[9]]));
    eprintln!(
        "cross join bomb stopped after {took} s (limit 2 s); CPU after it {idle:.3} s in 1.5 s; \
         server peak {peak_kb} kB after the repeat bomb"
    );

    let audit =
        std::fs::read_to_string(dir.path().join("warehouse/.ldp/audit/mcp_audit.jsonl")).unwrap();
    let records: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let statuses: Vec<&str> = records
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["rejected", "timeout", "error", "ok"]);
    assert!(
        records[0]["error"]
            .as_str()
            .unwrap()
            .contains("the limit is 2000")
    );
    assert!(records[1]["sql"].as_str().unwrap().contains("numbers d"));
    assert!(records[2]["error"].as_str().unwrap().contains("repeat(…)"));
}

/// `ldp mcp --catalog SPEC.json` serves every table of a catalog without configs: a spec file
/// holding the catalog block, and a dataset config naming it, each give both tables.
#[test]
fn a_catalog_spec_serves_every_table_of_its_catalog() {
    let dir = lake();
    let specs = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let spec = specs.path().join("shop.json");
    std::fs::write(
        &spec,
        json!({"identifier": "shop", "warehouse_path": warehouse}).to_string(),
    )
    .unwrap();
    let calls = json!([
        ["list_tables", {}],
        ["query", {"sql": "SELECT count(*) AS n FROM dishes"}],
    ]);
    for args in [
        vec!["--catalog", spec.to_str().unwrap()],
        vec!["--catalog", "dishes.json"],
    ] {
        let doc = session(dir.path(), &calls, &args);
        let tables: Vec<&str> = doc["calls"][0]["result"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["table"].as_str().unwrap())
            .collect();
        assert_eq!(tables, ["shop.dishes", "shop.orders"], "{args:?}: {doc}");
        assert_eq!(doc["calls"][1]["result"]["rows"][0][0], 4, "{doc}");
    }
}
