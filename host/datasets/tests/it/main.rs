//! The datasets layer on real tables: a version pinned with a filter and a column list reads
//! the same rows, in the same order, after appends, overwrites and upserts; exports are
//! byte-identical; the manifest and the tag are what the Python tool writes.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use ldp_catalog::{Catalog, Mode};
use ldp_datasets::{
    CatalogSpec, DatasetVersion, ErrorKind, ExportFormat, PinRequest, Rows, export, get_version,
    list_datasets, list_versions, load, pin, write_jsonl,
};
use ldp_table::{Append, DataWriter, Overwrite, Table, Upsert, WriterOptions};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

/// A warehouse with the `shop` catalog and the table `shop.orders`.
struct Shop {
    dir: tempfile::TempDir,
    catalog: Catalog,
    table: Table,
}

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().expect("temp dir");
        let warehouse = dir.path().join("warehouse");
        let catalog = Catalog::open(
            ldp_catalog::catalog_file(&warehouse, "shop"),
            "shop",
            Mode::Create,
        )
        .expect("catalog");
        let table = Table::create(
            &catalog,
            "shop",
            "orders",
            &orders(&[], &[], &[]).schema(),
            &warehouse.join("shop").join("orders"),
        )
        .expect("create");
        Shop {
            dir,
            catalog,
            table,
        }
    }

    fn warehouse(&self) -> PathBuf {
        self.dir.path().join("warehouse")
    }

    fn spec(&self) -> CatalogSpec {
        CatalogSpec::Local {
            identifier: "shop".into(),
            warehouse_path: self.warehouse(),
        }
    }

    fn request(&self, name: &str) -> PinRequest {
        PinRequest::new(name, self.warehouse(), self.spec())
    }

    /// One data file per batch.
    fn files(&self, batches: &[RecordBatch]) -> ldp_table::DataFiles {
        let mut writer = DataWriter::new(&self.table, &WriterOptions::default()).expect("writer");
        for batch in batches {
            writer.write(batch).expect("write");
        }
        writer.finish().expect("finish")
    }

    fn append(&mut self, batch: RecordBatch) {
        let files = self.files(&[batch]);
        Append::new(files)
            .commit(&self.catalog, &mut self.table)
            .expect("append");
    }

    fn overwrite(&mut self, batch: RecordBatch) {
        let files = self.files(&[batch]);
        Overwrite::new(files)
            .commit(&self.catalog, &mut self.table)
            .expect("overwrite");
    }

    fn upsert(&mut self, batch: RecordBatch) {
        Upsert::new("shop.orders", &[batch], &["order_id".to_string()])
            .expect("keys")
            .commit(&self.catalog, &mut self.table)
            .expect("upsert");
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

fn orders(ids: &[i64], customers: &[&str], amounts: &[f64]) -> RecordBatch {
    RecordBatch::try_from_iter([
        ("order_id", Arc::new(Int64Array::from(ids.to_vec())) as _),
        (
            "customer",
            Arc::new(StringArray::from(customers.to_vec())) as _,
        ),
        (
            "amount",
            Arc::new(Float64Array::from(amounts.to_vec())) as _,
        ),
    ])
    .expect("batch")
}

/// The rows as JSONL text (order and values).
fn text(rows: &Rows) -> String {
    let mut out = Vec::new();
    write_jsonl(rows, &mut out).expect("jsonl");
    String::from_utf8(out).expect("utf-8")
}

/// Three appends (three data files), 9 rows, 6 of them with amount > 5.
fn seeded() -> Shop {
    let mut shop = Shop::new();
    shop.append(orders(&[1, 2, 3], &["ann", "bob", "cy"], &[10.0, 2.0, 7.5]));
    shop.append(orders(&[4, 5, 6], &["dee", "ed", "flo"], &[5.0, 12.0, 6.0]));
    shop.append(orders(
        &[7, 8, 9],
        &["gus", "hal", "ivy"],
        &[100.0, 1.0, 8.25],
    ));
    shop
}

fn pin_train(shop: &mut Shop) -> DatasetVersion {
    let mut request = shop.request("orders_train");
    request.row_filter = Some("amount > 5".into());
    // Asked in another order than the table's: read (and fingerprinted) in the table's order.
    request.selected_fields = Some(vec!["amount".into(), "order_id".into()]);
    request.properties = BTreeMap::from([("split".to_string(), "train".to_string())]);
    pin(&shop.catalog, &mut shop.table, &request).expect("pin")
}

#[test]
fn a_pinned_version_reads_the_same_rows_whatever_the_table_became() {
    let mut shop = seeded();
    let pinned_snapshot = shop.table.current_snapshot_id().expect("snapshot");
    let version = pin_train(&mut shop);
    assert_eq!((version.version, version.row_count), (1, 6));
    assert_eq!(version.snapshot_id, pinned_snapshot);

    let rows = load(&version).expect("load");
    let names: Vec<&str> = rows
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["order_id", "amount"]);
    assert_eq!(
        rows.schema
            .field(0)
            .metadata()
            .get("PARQUET:field_id")
            .map(String::as_str),
        Some("1")
    );
    let pinned = text(&rows);
    let mut ids: Vec<i64> = pinned
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("json")["order_id"]
                .as_i64()
                .expect("id")
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 3, 5, 6, 7, 9]);

    let first = shop.path("first.parquet");
    export(&version, &first, ExportFormat::Parquet).expect("export");
    let first_bytes = fs::read(&first).expect("read");

    // The table moves on (the case: two upserts and an overwrite, and an append).
    shop.append(orders(&[10, 11], &["jo", "kim"], &[50.0, 60.0]));
    assert_eq!(text(&load(&version).expect("after append")), pinned);
    shop.upsert(orders(&[3, 20], &["cy", "dee"], &[-1.0, 20.0]));
    assert_eq!(
        text(&load(&version).expect("after the first upsert")),
        pinned
    );
    shop.overwrite(orders(&[1, 2], &["ann", "bob"], &[999.0, 998.0]));
    assert_eq!(text(&load(&version).expect("after overwrite")), pinned);
    shop.upsert(orders(&[1, 3], &["ann", "cy"], &[0.5, 77.0]));
    assert_eq!(
        text(&load(&version).expect("after the second upsert")),
        pinned
    );
    assert_eq!(shop.table.snapshots().len(), 7);

    // Exported again after all that, and again: the same bytes.
    for name in ["second.parquet", "third.parquet"] {
        let again = shop.path(name);
        assert_eq!(
            export(&version, &again, ExportFormat::Parquet).expect("export"),
            6
        );
        assert_eq!(fs::read(&again).expect("read"), first_bytes, "{name}");
    }

    // The Parquet file carries the manifest and the pinned rows.
    let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&first).expect("open"))
        .expect("parquet");
    let metadata = reader
        .schema()
        .metadata()
        .get("ldp.dataset")
        .cloned()
        .expect("ldp.dataset");
    assert_eq!(metadata, version.inline_text());
    assert!(metadata.starts_with("{\"catalog\": {\"identifier\": \"shop\", \"type\": \"local\""));
    let schema = reader.schema().clone();
    let batches: Vec<RecordBatch> = reader
        .build()
        .expect("reader")
        .collect::<Result<_, _>>()
        .expect("batches");
    assert_eq!(text(&Rows { schema, batches }), pinned);

    // A second version pins the table as it is now.
    let request = shop.request("orders_train");
    let now = pin(&shop.catalog, &mut shop.table, &request).expect("pin v2");
    assert_eq!((now.version, now.row_count), (2, 3));
    assert_eq!(now.row_filter, None);
    assert_eq!(now.selected_fields, None);
    assert_eq!(
        list_datasets(&shop.warehouse()).expect("list"),
        ["orders_train"]
    );
    let versions = list_versions("orders_train", &shop.warehouse()).expect("versions");
    assert_eq!(
        versions.iter().map(|v| v.version).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(
        get_version("orders_train", None, &shop.warehouse())
            .expect("latest")
            .version,
        2
    );
    let v1 = get_version("orders_train@v1", None, &shop.warehouse()).expect("v1");
    assert_eq!(text(&load(&v1).expect("load v1")), pinned);
    let missing = get_version("orders_train", Some(9), &shop.warehouse()).expect_err("v9");
    assert_eq!(
        missing.to_string(),
        "dataset 'orders_train' has no version 9; versions: [1, 2]"
    );
    let none = get_version("nothing", None, &shop.warehouse()).expect_err("none");
    assert_eq!(none.kind(), ErrorKind::Dataset);
}

#[test]
fn the_manifest_and_the_tag_are_the_reference_ones() {
    let mut shop = seeded();
    let version = pin_train(&mut shop);
    let path = shop
        .warehouse()
        .join(".ldp/datasets/orders_train/v000001.json");
    assert_eq!(version.manifest_path.as_deref(), Some(path.as_path()));
    let text = fs::read_to_string(&path).expect("manifest");
    assert!(text.ends_with("}\n"));
    let manifest: Value = serde_json::from_str(&text).expect("json");
    let keys: Vec<&String> = manifest.as_object().expect("object").keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "sorted keys");
    assert_eq!(manifest["ldp_dataset"], 1);
    assert_eq!(manifest["name"], "orders_train");
    assert_eq!(manifest["version"], 1);
    assert_eq!(manifest["table_identifier"], "shop.orders");
    assert_eq!(manifest["row_filter"], "amount > 5");
    assert_eq!(
        manifest["selected_fields"],
        serde_json::json!(["amount", "order_id"])
    );
    assert_eq!(manifest["row_count"], 6);
    // The same columns (ids 1 and 3) as the Python tool's sample manifest: the same fingerprint.
    assert_eq!(
        manifest["schema_fingerprint"],
        "sha256:cd3f0b924edd4ab1ffa4ce9e3182eff53e7a71eee82bd39ea08e4f4cccc0bd2c"
    );
    assert_eq!(
        manifest["catalog"],
        serde_json::json!({
            "type": "local",
            "identifier": "shop",
            "warehouse_path": shop.warehouse().display().to_string(),
        })
    );
    assert_eq!(manifest["tag"], "ldp_ds_orders_train_v1");
    assert_eq!(
        manifest["properties"],
        serde_json::json!({"split": "train"})
    );
    let created = manifest["created_at"].as_str().expect("created_at");
    assert!(
        created.ends_with("+00:00") && created.len() >= 25,
        "{created}"
    );
    assert_eq!(manifest["snapshot_id"], version.snapshot_id);

    // The tag is on the pinned snapshot, and the manifest names the metadata file that has it.
    shop.table.refresh(&shop.catalog).expect("refresh");
    let refs = shop.table.refs();
    let tag = refs.get("ldp_ds_orders_train_v1").expect("tag");
    assert_eq!(
        (tag.snapshot_id, tag.is_branch),
        (version.snapshot_id, false)
    );
    assert_eq!(
        manifest["metadata_location"],
        shop.table.metadata_location()
    );
    assert_eq!(DatasetVersion::read(&path).expect("read"), version);
}

#[test]
fn a_version_reads_through_its_metadata_file_when_the_catalog_is_gone() {
    let mut shop = seeded();
    let version = pin_train(&mut shop);
    let pinned = text(&load(&version).expect("load"));
    fs::remove_file(ldp_catalog::catalog_file(&shop.warehouse(), "shop")).expect("remove");
    assert_eq!(text(&load(&version).expect("load without catalog")), pinned);

    let mut broken = version.clone();
    broken.metadata_location = None;
    let error = load(&broken).expect_err("no way to open");
    assert!(
        error
            .to_string()
            .starts_with("cannot open shop.orders for dataset orders_train@v1: catalog "),
        "{error}"
    );
}

#[test]
fn loads_are_checked_against_the_manifest() {
    let mut shop = seeded();
    let version = pin_train(&mut shop);
    let mut count = version.clone();
    count.row_count = 7;
    assert_eq!(
        load(&count).expect_err("count").to_string(),
        "dataset orders_train@v1: read 6 rows, the manifest pinned 7"
    );
    let mut fingerprint = version.clone();
    fingerprint.schema_fingerprint = "sha256:00".into();
    let error = load(&fingerprint).expect_err("fingerprint");
    assert!(
        error
            .to_string()
            .contains("differs from the pinned sha256:00"),
        "{error}"
    );
    let mut gone = version;
    gone.snapshot_id = 42;
    assert_eq!(
        load(&gone).expect_err("gone").to_string(),
        "dataset orders_train@v1: snapshot 42 of shop.orders no longer exists (was it expired?)"
    );
}

#[test]
fn jsonl_exports_one_object_per_row() {
    let mut shop = Shop::new();
    shop.append(orders(&[1, 2], &["Zoë", "bob"], &[10.0, f64::NAN]));
    let mut request = shop.request("all.rows");
    request.selected_fields = Some(vec!["order_id".into(), "amount".into()]);
    let version = pin(&shop.catalog, &mut shop.table, &request).expect("pin");
    assert!(
        version
            .tag
            .as_deref()
            .is_some_and(|t| t.starts_with("ldp_ds_all_rows_") && t.ends_with("_v1"))
    );
    let dest = shop.path("out/rows.jsonl");
    assert_eq!(
        export(&version, &dest, ExportFormat::Jsonl).expect("export"),
        2
    );
    assert_eq!(
        fs::read_to_string(&dest).expect("read"),
        "{\"order_id\": 1, \"amount\": 10.0}\n{\"order_id\": 2, \"amount\": null}\n"
    );
    let leftovers: Vec<_> = fs::read_dir(dest.parent().expect("parent"))
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(leftovers, ["rows.jsonl"]);
}

/// A pin request that fails: name, filter, fields, snapshot, the message's start.
type Case = (
    &'static str,
    Option<&'static str>,
    Option<Vec<String>>,
    Option<i64>,
    &'static str,
);

#[test]
fn bad_requests_are_refused_before_anything_is_written() {
    let mut shop = Shop::new();
    let request = shop.request("early");
    let empty = pin(&shop.catalog, &mut shop.table, &request).expect_err("empty");
    assert_eq!(
        empty.to_string(),
        "Iceberg table shop.orders has no snapshots yet; write data before pinning"
    );
    shop.append(orders(&[1], &["ann"], &[1.0]));
    let cases: [Case; 5] = [
        ("bad name", None, None, None, "dataset name must be"),
        (
            "ok",
            Some("amount > 1; DROP TABLE x"),
            None,
            None,
            "invalid row_filter",
        ),
        (
            "ok",
            Some("nope > 1"),
            None,
            None,
            "cannot pin ok from shop.orders: SQL error",
        ),
        (
            "ok",
            None,
            Some(vec!["nope".into()]),
            None,
            "cannot pin ok from shop.orders: selected_fields ['nope']",
        ),
        (
            "ok",
            None,
            None,
            Some(42),
            "Iceberg table shop.orders has no snapshot 42",
        ),
    ];
    for (name, filter, fields, snapshot, message) in cases {
        let mut request = shop.request(name);
        request.row_filter = filter.map(str::to_string);
        request.selected_fields = fields;
        request.snapshot_id = snapshot;
        let error = pin(&shop.catalog, &mut shop.table, &request).expect_err(message);
        assert!(error.to_string().starts_with(message), "{error}");
    }
    assert!(!shop.warehouse().join(".ldp").exists());

    // --no-tag: no tag, and the manifest says so.
    let mut request = shop.request("untagged");
    request.tag = false;
    request.snapshot_id = shop.table.current_snapshot_id();
    let version = pin(&shop.catalog, &mut shop.table, &request).expect("pin");
    assert_eq!(version.tag, None);
    shop.table.refresh(&shop.catalog).expect("refresh");
    assert!(
        shop.table
            .refs()
            .keys()
            .all(|name| !name.starts_with("ldp_ds_"))
    );
}

#[test]
fn a_read_only_catalog_pins_without_a_tag() {
    let mut shop = seeded();
    let read_only = Catalog::open(
        ldp_catalog::catalog_file(&shop.warehouse(), "shop"),
        "shop",
        Mode::ReadOnly,
    )
    .expect("open");
    let request = shop.request("ro");
    let version = pin(&read_only, &mut shop.table, &request).expect("pin");
    assert_eq!(version.tag, None);
    let manifest =
        DatasetVersion::read(version.manifest_path.as_deref().expect("path")).expect("read");
    assert_eq!(manifest.tag, None);
    assert_eq!(load(&manifest).expect("load").num_rows(), 9);
}
