//! `ldp dbt` on the real dbt (dbt-core and dbt-duckdb, which `scripts/test` installs into
//! `.venv-dbt`): a project over the silver tables of examples/gold with a table model, an
//! incremental model with a `unique_key` and a failing data test. The build publishes nothing;
//! fixed, it publishes both, the incremental one as an upsert; `test`, `exec` and `docs` publish
//! nothing; a workflow's dbt task gets its window; a gold model missing a column description is
//! refused before anything is published.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use super::{stderr, stdout};

const SETUP: &str = "run scripts/test once: it installs dbt-core and dbt-duckdb into .venv-dbt (or: python3 -m venv .venv-dbt && .venv-dbt/bin/pip install dbt-core==1.10.15 dbt-duckdb==1.10.0 duckdb==1.5.6)";

fn dbt_program() -> PathBuf {
    let program = std::env::var_os("LDP_DBT").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv-dbt/bin/dbt"),
        PathBuf::from,
    );
    assert!(program.exists(), "no dbt at {}; {SETUP}", program.display());
    program
}

/// `ldp` with libduckdb and dbt, dbt kept offline.
fn ldp(dir: &Path, args: &[&str]) -> Output {
    let library = std::env::var_os("LDP_DUCKDB_LIB").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/libduckdb/libduckdb.so"),
        PathBuf::from,
    );
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir)
        .env("LDP_DUCKDB_LIB", library)
        .env("LDP_DBT", dbt_program())
        .env("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .output()
        .expect("ldp runs")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const REVENUE_SQL: &str = "{{ config(materialized='table', meta={'ldp_publish': true, 'owner': 'finance', 'grain': 'one row per restaurant'}) }}\n\
select o.restaurant_id, r.city, count(*) as orders, sum(o.amount) as revenue\n\
from {{ source('raw', 'orders') }} o join {{ source('raw', 'restaurants') }} r using (restaurant_id)\n\
group by all\n";

const LATEST_SQL: &str = "{{ config(materialized='incremental', unique_key='order_id', meta={'ldp_publish': true, 'ldp_namespace': 'mart'}) }}\n\
select order_id, restaurant_id, amount from {{ source('raw', 'orders') }}\n";

fn schema_yml(cities: &str, city_doc: &str) -> String {
    format!(
        "version: 2\nmodels:\n  - name: revenue_by_restaurant\n    description: Orders and revenue of each restaurant.\n    columns:\n      - name: restaurant_id\n        description: The restaurant.\n      - name: city\n        description: {city_doc}\n        data_tests:\n          - accepted_values:\n              values: [{cities}]\n      - name: orders\n        description: How many orders.\n      - name: revenue\n        description: What they came to.\n"
    )
}

#[test]
fn a_failing_test_publishes_nothing_and_a_passing_build_publishes_both_models() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gold");
    for sub in ["config", "drops", "models"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for entry in std::fs::read_dir(example.join(sub)).unwrap().flatten() {
            std::fs::copy(entry.path(), dir.join(sub).join(entry.file_name())).unwrap();
        }
    }
    // The project's sources: the two silver tables (their configs in a folder of their own).
    std::fs::create_dir_all(dir.join("silver")).unwrap();
    for config in ["orders.json", "restaurants.json"] {
        std::fs::copy(
            dir.join("config").join(config),
            dir.join("silver").join(config),
        )
        .unwrap();
        let out = ldp(dir, &["run", &format!("silver/{config}")]);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
    }
    let init = ldp(
        dir,
        &[
            "dbt",
            "init",
            "shop",
            "--sources",
            "silver",
            "--warehouse",
            "warehouse",
        ],
    );
    assert!(init.status.success(), "{}", stderr(&init));
    assert!(
        stdout(&init).contains("wrote models/stg_orders.sql"),
        "{}",
        stdout(&init)
    );
    let project = dir.join("shop");
    write(
        &project.join("models/revenue_by_restaurant.sql"),
        REVENUE_SQL,
    );
    write(&project.join("models/orders_latest.sql"), LATEST_SQL);
    // Marseille is missing from the accepted cities: the data test fails.
    write(
        &project.join("models/schema.yml"),
        &schema_yml("'Lyon', 'Paris'", "The city."),
    );

    let build = |args: &[&str]| -> (i32, Value) {
        let mut all = vec!["dbt", "build", "--json", "shop"];
        all.extend(args);
        let out = ldp(dir, &all);
        let report = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
        (out.status.code().unwrap(), report)
    };
    let (code, report) = build(&[]);
    assert_eq!(code, 3, "{report:#}");
    assert_eq!(report["published"], serde_json::json!([]));
    let failed = report["tests_failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{report:#}");
    assert!(
        failed[0].as_str().unwrap().contains("accepted_values"),
        "{report:#}"
    );
    assert!(!dir.join("warehouse/gold/revenue_by_restaurant").exists());
    assert!(!dir.join("warehouse/mart").exists());

    // Fixed: both published, the table model as an overwrite, the incremental one an upsert.
    write(
        &project.join("models/schema.yml"),
        &schema_yml("'Lyon', 'Paris', 'Marseille'", "The city."),
    );
    let (code, report) = build(&[]);
    assert_eq!(code, 0, "{report:#}");
    let published: Vec<(&str, &str, &str)> = report["published"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["model"].as_str().unwrap(),
                p["table"].as_str().unwrap(),
                p["mode"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        published.contains(&(
            "revenue_by_restaurant",
            "gold.revenue_by_restaurant",
            "overwrite"
        )),
        "{published:?}"
    );
    assert!(
        published.contains(&("orders_latest", "mart.orders_latest", "upsert")),
        "{published:?}"
    );
    let query = |sql: &str| -> Value {
        let out = ldp(dir, &["query", "shop/target/ldp_publish", sql, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
        doc["rows"][0].clone()
    };
    let rows = query("SELECT count(*) AS n FROM mart.orders_latest");
    assert!(rows.to_string().contains("55"), "{rows}");

    // A second build upserts the incremental model on order_id: no duplicate rows.
    let (code, report) = build(&["--select", "orders_latest"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["published"][0]["mode"], "upsert");
    let rows = query("SELECT count(*) AS n FROM mart.orders_latest");
    assert!(rows.to_string().contains("55"), "{rows}");

    // test, exec and docs run dbt with the sources registered, and publish nothing.
    let published_before = std::fs::read_dir(dir.join("warehouse/mart/orders_latest/metadata"))
        .unwrap()
        .count();
    for args in [
        vec!["dbt", "test", "shop"],
        vec![
            "dbt",
            "exec",
            "shop",
            "compile",
            "--select",
            "orders_latest",
        ],
        vec!["dbt", "docs", "shop"],
    ] {
        let out = ldp(dir, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert!(project.join("target/catalog.json").is_file());
    let published_after = std::fs::read_dir(dir.join("warehouse/mart/orders_latest/metadata"))
        .unwrap()
        .count();
    assert_eq!(published_before, published_after);
    let exec = ldp(dir, &["dbt", "exec", "shop"]);
    assert_eq!(exec.status.code(), Some(1));
    assert!(
        stderr(&exec).contains("ldp dbt exec needs the dbt command"),
        "{}",
        stderr(&exec)
    );

    // A workflow's dbt task builds the project for the window: window_start reaches dbt.
    write(
        &project.join("models/window_orders.sql"),
        "{{ config(materialized='table', meta={'ldp_publish': true, 'ldp_namespace': 'mart'}) }}\n\
         select order_id, '{{ var(\"window_start\", \"none\") }}' as window_start\n\
         from {{ source('raw', 'orders') }}\n\
         where ordered_at >= '{{ var(\"window_start\", \"2026-08-01T00:00:00Z\") }}'::timestamptz\n\
         and ordered_at < '{{ var(\"window_end\", \"2026-08-02T00:00:00Z\") }}'::timestamptz\n",
    );
    write(
        &dir.join("nightly.json"),
        r#"{"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "nightly",
            "metadata": {"window": {"size": "day", "timezone": "UTC"}},
            "tasks": [{"id": "models", "dbt": {"project": "shop", "select": "window_orders"}}]}"#,
    );
    let out = ldp(
        dir,
        &[
            "workflow",
            "run",
            "nightly.json",
            "--window",
            "2026-08-02T00:00:00Z/2026-08-03T00:00:00Z",
            "--json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let rows = query("SELECT count(*) AS n, min(window_start) AS w FROM mart.window_orders");
    assert!(rows.to_string().contains("2026-08-02T00:00:00Z"), "{rows}");

    // A gold model without a column's description is refused before anything is published.
    write(
        &project.join("models/schema.yml"),
        &schema_yml("'Lyon', 'Paris', 'Marseille'", "''"),
    );
    let before = std::fs::read_dir(dir.join("warehouse/gold/revenue_by_restaurant/metadata"))
        .unwrap()
        .count();
    let out = ldp(dir, &["dbt", "build", "shop"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("['city']"), "{}", stderr(&out));
    let after = std::fs::read_dir(dir.join("warehouse/gold/revenue_by_restaurant/metadata"))
        .unwrap()
        .count();
    assert_eq!(before, after);
}
