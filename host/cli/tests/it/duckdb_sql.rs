//! DuckDB's SQL in `ldp query`, compared with DuckDB itself: every statement of
//! `tests/data/duckdb_sql/cases.sql` (the Python tool's README SQL and DuckDB's spellings) runs
//! with `ldp query CONTEXT SQL --json` and with DuckDB (the `duckdb` package of the test venv)
//! over the same tables, read by pyiceberg, and gives the same rows.
//!
//! The Python comes from `$LDP_PYTHON`, else `<repo>/.venv/bin/python` (`scripts/test` creates
//! it with duckdb and pyiceberg). Without it the test fails, never skips.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::{ldp, rides, stderr, stdout};

const SETUP: &str =
    "run scripts/test, or: .venv/bin/pip install duckdb 'pyiceberg[sql-sqlite,pyarrow]==0.12.0'";

/// The tables of the lake: (config file, namespace, name, CSV). `orders.json` is `raw.orders`,
/// as the README's `ldp query orders.json "SELECT count(*) FROM orders"` reads it.
const TABLES: &[(&str, &str, &str, &str)] = &[
    (
        "orders.json",
        "raw",
        "orders",
        "id,customer_id,amount\n1,10,5.5\n2,11,7.25\n3,10,1.0\n4,99,3.0\n",
    ),
    (
        "customers.json",
        "raw",
        "customers",
        "id,label\n1,first\n2,second\n3,third\n10,ten\n",
    ),
    (
        "daily_sales.json",
        "gold",
        "daily_sales",
        "day,sales\n2026-08-01,120.5\n2026-08-02,99.0\n",
    ),
    (
        "episode_stats.json",
        "robots",
        "gold_episode_stats",
        "episode_id,robot_id,frames\n1,r1,300\n2,r1,120\n3,r2,80\n",
    ),
];

/// Reads every table with pyiceberg, registers it in DuckDB as `namespace.name` and by its
/// bare name, runs each statement and prints `[{columns, rows}]`, values as `ldp query --json`
/// writes them (timestamps `YYYY-MM-DD HH:MM:SS`, lists `[a, b]`).
const DUCKDB: &str = r#"
import datetime, json, sys
import duckdb
from pyiceberg.catalog.sql import SqlCatalog

warehouse, spec = sys.argv[1], json.loads(sys.argv[2])
con = duckdb.connect()
for namespace, name in spec["tables"]:
    catalog = SqlCatalog(namespace, uri=f"sqlite:///{warehouse}/{namespace}_catalog.db",
                         warehouse=f"file://{warehouse}")
    data = catalog.load_table((namespace, name)).scan().to_arrow()
    con.register(f"{namespace}__{name}", data)
    con.execute(f'CREATE SCHEMA IF NOT EXISTS "{namespace}"')
    con.execute(f'CREATE VIEW "{namespace}"."{name}" AS SELECT * FROM "{namespace}__{name}"')
    con.execute(f'CREATE VIEW main."{name}" AS SELECT * FROM "{namespace}__{name}"')

def text(v):
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S") + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(str(text(x)) for x in v) + "]"
    return v

out = []
for sql in spec["queries"]:
    try:
        cursor = con.execute(sql)
        rows = [[text(v) for v in row] for row in cursor.fetchall()]
        out.append({"columns": [d[0] for d in cursor.description], "rows": rows})
    except Exception as e:
        out.append({"error": str(e)})
print(json.dumps(out))
"#;

/// One statement of `cases.sql`.
struct Case {
    context: String,
    sql: String,
}

fn cases() -> Vec<Case> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duckdb_sql/cases.sql");
    std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with("--"))
        .map(|line| {
            let (context, sql) = line
                .split_once(" | ")
                .unwrap_or_else(|| panic!("{}: not CONTEXT | SQL: {line}", file.display()));
            Case {
                context: context.trim().to_owned(),
                sql: sql.trim().to_owned(),
            }
        })
        .collect()
}

/// The lake: the example rides as `nyc.rides` and the tables of [`TABLES`], each loaded by its
/// own config into `warehouse/`.
fn lake(dir: &Path) {
    std::fs::create_dir(dir.join("data")).unwrap();
    std::fs::copy(rides(), dir.join("data/rides.csv")).unwrap();
    let mut configs = vec![(
        "rides.json".to_owned(),
        json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
            "target": {"name": "rides", "format": "ICEBERG",
                       "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}}}),
    )];
    for (file, namespace, name, csv) in TABLES {
        let data = format!("data/{namespace}_{name}.csv");
        std::fs::write(dir.join(&data), csv).unwrap();
        configs.push((
            (*file).to_owned(),
            json!({"identifier": format!("{namespace}_{name}"), "metadata": {
                "source": {"name": name, "format": "CSV", "path": data},
                "target": {"name": name, "format": "ICEBERG",
                           "catalog": {"identifier": namespace, "warehouse_path": "warehouse"}}}}),
        ));
    }
    for (file, config) in configs {
        let path = dir.join(&file);
        std::fs::write(&path, config.to_string()).unwrap();
        let out = ldp(&["run", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
    }
}

/// The rows of `ldp query --json` as arrays in column order.
fn ldp_rows(dir: &Path, case: &Case) -> Result<Vec<Vec<Value>>, String> {
    let context = dir.join(&case.context);
    let out = ldp(&[
        "query",
        context.to_str().unwrap(),
        &case.sql,
        "--json",
        "--max-rows",
        "1000",
    ]);
    if out.status.code() != Some(0) {
        return Err(stderr(&out));
    }
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let columns: Vec<&str> = doc["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    Ok(doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| columns.iter().map(|c| row[*c].clone()).collect())
        .collect())
}

/// Whether two values are the same result: numbers within a relative 1e-9, others equal.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
        _ => a == b,
    }
}

fn same_rows(ours: &[Vec<Value>], theirs: &[Vec<Value>], ordered: bool) -> bool {
    let sorted = |rows: &[Vec<Value>]| {
        let mut rows = rows.to_vec();
        if !ordered {
            rows.sort_by_key(|row| serde_json::to_string(row).unwrap());
        }
        rows
    };
    let (ours, theirs) = (sorted(ours), sorted(theirs));
    ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)))
}

#[test]
fn duckdb_sql_gives_duckdbs_rows() {
    let dir = tempfile::tempdir().unwrap();
    lake(dir.path());
    let cases = cases();
    let mut tables = vec![json!(["nyc", "rides"])];
    tables.extend(TABLES.iter().map(|(_, ns, name, _)| json!([ns, name])));
    let spec = json!({"tables": tables,
                      "queries": cases.iter().map(|c| c.sql.as_str()).collect::<Vec<_>>()});
    let out = Command::new(super::interop::python())
        .args(["-c", DUCKDB])
        .arg(dir.path().join("warehouse").canonicalize().unwrap())
        .arg(spec.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run Python: {e}; {SETUP}"));
    assert!(out.status.success(), "duckdb: {}; {SETUP}", stderr(&out));
    let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();

    let mut failures = Vec::new();
    for (case, duckdb) in cases.iter().zip(&theirs) {
        let expected: Vec<Vec<Value>> = match duckdb.get("rows") {
            Some(rows) => serde_json::from_value(rows.clone()).unwrap(),
            None => {
                failures.push(format!(
                    "{}: DuckDB refused it: {}",
                    case.sql, duckdb["error"]
                ));
                continue;
            }
        };
        match ldp_rows(dir.path(), case) {
            Ok(rows) if same_rows(&rows, &expected, case.sql.contains("ORDER BY")) => {}
            Ok(rows) => failures.push(format!(
                "{}:\n  ldp:    {}\n  DuckDB: {}",
                case.sql,
                json!(rows),
                json!(expected)
            )),
            Err(e) => failures.push(format!("{}: ldp failed: {e}", case.sql)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} statements differ from DuckDB:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
