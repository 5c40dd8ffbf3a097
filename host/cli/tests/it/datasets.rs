//! `ldp datasets pin|list|export` end to end: a CSV loaded with `ldp run`, a version pinned
//! with a filter and columns, listed, exported to Parquet and JSONL, and still the same rows
//! after the table is overwritten.

use std::path::PathBuf;

use super::{ldp, stderr, stdout};

const CONFIG: &str = r#"{
  "apiVersion": "ldp/v1",
  "identifier": "orders",
  "metadata": {
    "source": {"name": "orders", "format": "CSV", "path": "data/orders.csv"},
    "target": {"name": "orders", "format": "ICEBERG",
               "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}
  }
}"#;

const ORDERS: &str =
    "order_id,customer,amount\n1,ann,10.0\n2,bob,2.0\n3,cy,7.5\n4,dee,5.0\n5,ed,12.0\n";

struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("data/orders.csv"), ORDERS).unwrap();
        std::fs::write(dir.path().join("shop.json"), CONFIG).unwrap();
        Shop { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn text(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }

    /// Runs `ldp ARGS`, expecting exit 0; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = ldp(args);
        assert_eq!(out.status.code(), Some(0), "ldp {args:?}: {}", stderr(&out));
        stdout(&out)
    }
}

#[test]
fn pin_list_and_export_a_version() {
    let shop = Shop::new();
    let config = shop.text("shop.json");
    shop.ok(&["run", &config]);

    let pinned = shop.ok(&[
        "datasets",
        "pin",
        &config,
        "orders_train",
        "--filter",
        "amount > 5",
        "--fields",
        "order_id,amount",
        "--property",
        "split=train",
    ]);
    let manifest = shop.path("warehouse/.ldp/datasets/orders_train/v000001.json");
    let mut lines = pinned.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("Pinned orders_train@v1: 3 rows of shop.orders at snapshot ")
            && first.ends_with(" (tag ldp_ds_orders_train_v1)"),
        "{pinned}"
    );
    assert_eq!(
        lines.next(),
        Some(format!("  manifest: {}", manifest.display()).as_str())
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(doc["row_filter"], "amount > 5");
    assert_eq!(doc["properties"]["split"], "train");
    assert_eq!(
        doc["schema_fingerprint"],
        // order_id (id 1, long) and amount (id 3, double): the Python tool's sample fingerprint.
        "sha256:cd3f0b924edd4ab1ffa4ce9e3182eff53e7a71eee82bd39ea08e4f4cccc0bd2c"
    );

    // The table is overwritten: the version still reads its rows.
    std::fs::write(
        shop.path("data/orders.csv"),
        "order_id,customer,amount\n9,zed,99.0\n",
    )
    .unwrap();
    shop.ok(&["run", &config, "--mode", "overwrite"]);

    let listed = shop.ok(&["datasets", "list", "--config", &config, "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let datasets = listed["datasets"].as_array().unwrap();
    assert_eq!(datasets.len(), 1, "{listed}");
    assert_eq!(datasets[0]["name"], "orders_train");
    assert_eq!(datasets[0]["version"], 1);
    assert_eq!(datasets[0]["rows"], 3);
    assert_eq!(datasets[0]["versions"], 1);
    assert_eq!(datasets[0]["table"], "shop.orders");
    let table = shop.ok(&[
        "datasets",
        "list",
        "orders_train",
        "--warehouse",
        &shop.text("warehouse"),
    ]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "name",
            "version",
            "table",
            "snapshot_id",
            "rows",
            "row_filter",
            "fields",
            "created_at_utc"
        ]
    );
    assert!(table.contains("order_id,amount"), "{table}");

    let jsonl = shop.text("out/train.jsonl");
    let exported = shop.ok(&[
        "datasets",
        "export",
        "orders_train@v1",
        &jsonl,
        "--format",
        "jsonl",
        "--config",
        &config,
    ]);
    assert!(
        exported.starts_with("Exported orders_train@v1 (3 rows, snapshot "),
        "{exported}"
    );
    assert_eq!(
        std::fs::read_to_string(&jsonl).unwrap(),
        "{\"order_id\": 1, \"amount\": 10.0}\n{\"order_id\": 3, \"amount\": 7.5}\n{\"order_id\": 5, \"amount\": 12.0}\n"
    );

    let first = shop.text("out/a.parquet");
    let second = shop.text("out/b.parquet");
    let json = shop.ok(&[
        "datasets",
        "export",
        "orders_train",
        &first,
        "--config",
        &config,
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (json["rows"].as_u64(), json["format"].as_str()),
        (Some(3), Some("parquet"))
    );
    shop.ok(&[
        "datasets",
        "export",
        "orders_train",
        &second,
        "--version",
        "1",
        "--warehouse",
        &shop.text("warehouse"),
    ]);
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap()
    );
    let bytes = std::fs::read(&first).unwrap();
    let key = b"ldp.dataset";
    assert!(
        bytes.windows(key.len()).any(|w| w == key),
        "no ldp.dataset metadata"
    );

    // Pinning again gives version 2, of the overwritten table.
    let again = shop.ok(&[
        "datasets",
        "pin",
        &config,
        "orders_train",
        "--no-tag",
        "--json",
    ]);
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        (again["version"].as_u64(), again["row_count"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(again["tag"], serde_json::Value::Null);
}

#[test]
fn bad_requests_fail_with_exit_1_and_write_nothing() {
    let shop = Shop::new();
    let config = shop.text("shop.json");
    shop.ok(&["run", &config]);
    for (args, message) in [
        (vec!["bad..name"], "dataset name must be 1-128"),
        (
            vec!["x", "--filter", "amount > 1; DROP TABLE orders"],
            "invalid row_filter",
        ),
        (
            vec!["x", "--filter", "nope > 1"],
            "cannot pin x from shop.orders",
        ),
        (vec!["x", "--fields", "nope"], "selected_fields ['nope']"),
        (
            vec!["x", "--property", "novalue"],
            "--property expects KEY=VALUE, got 'novalue'",
        ),
    ] {
        let mut all = vec!["datasets", "pin", config.as_str()];
        all.extend(args);
        let out = ldp(&all);
        assert_eq!(out.status.code(), Some(1), "{all:?}");
        assert!(stderr(&out).contains(message), "{all:?}: {}", stderr(&out));
    }
    assert!(!shop.path("warehouse/.ldp/datasets").exists());

    let out = ldp(&[
        "datasets",
        "export",
        "nothing",
        &shop.text("x.parquet"),
        "--config",
        &config,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("dataset 'nothing' has no versions in"),
        "{}",
        stderr(&out)
    );
    let out = ldp(&["datasets", "list", "--config", &config]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).starts_with("No datasets in "),
        "{}",
        stdout(&out)
    );
}

/// A `file://` DEST is the local file it names, as in the Python tool: it once became the
/// relative path `./file:/…` under the working folder.
#[test]
fn a_file_uri_dest_is_the_local_file_it_names() {
    let shop = Shop::new();
    let config = shop.text("shop.json");
    shop.ok(&["run", &config]);
    shop.ok(&["datasets", "pin", &config, "orders_all"]);
    let dest = shop.path("out/all.jsonl");
    let uri = format!("file://{}", dest.display());
    let work = tempfile::tempdir().unwrap();
    let out = super::backfill::in_dir(
        work.path(),
        &[
            "datasets",
            "export",
            "orders_all",
            &uri,
            "--format",
            "jsonl",
            "--config",
            &config,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&dest).unwrap().lines().count(), 5);
    assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 0);
}
