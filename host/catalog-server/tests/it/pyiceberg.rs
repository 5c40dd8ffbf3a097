//! pyiceberg's `RestCatalog` against the server: namespaces, tables, appends (commits through
//! the server), schema and property changes, rename, drop, a staged create (create transaction); ldp reads what pyiceberg wrote and
//! pyiceberg reads what ldp wrote.

use ldp_table::{Append, DataWriter, Table, WriterOptions};
use serde_json::json;

use crate::common::{Lake, batch, ldp_rows, python, run_script};

const FLOW: &str = r#"
import json, sys
import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (NamespaceNotEmptyError, NoSuchTableError, TableAlreadyExistsError,
    NamespaceAlreadyExistsError, UnauthorizedError, BadRequestError)
from pyiceberg.types import StringType

args = json.loads(sys.argv[1])
cat = load_catalog("lake", type="rest", uri=args["uri"], token=args["token"], warehouse="lake")
out = {}

try:
    load_catalog("bad", type="rest", uri=args["uri"], token="wrong", warehouse="lake")
    out["wrong_token"] = "accepted"
except UnauthorizedError as e:
    out["wrong_token"] = str(e)

cat.create_namespace("sales", {"owner": "ann"})
try:
    cat.create_namespace("sales")
except NamespaceAlreadyExistsError:
    out["namespace_twice"] = True
out["namespaces"] = sorted(list(n) for n in cat.list_namespaces())
out["ns_props"] = cat.load_namespace_properties("sales")
upd = cat.update_namespace_properties("sales", removals={"owner", "nope"}, updates={"team": "b"})
out["ns_update"] = {"updated": upd.updated, "removed": upd.removed, "missing": upd.missing}
out["ns_props_after"] = cat.load_namespace_properties("sales")
try:
    cat.list_tables(("a", "b"))
except BadRequestError as e:
    out["nested"] = str(e)

data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", "c"])})
t = cat.create_table("sales.orders", schema=data.schema, properties={"k": "v"})
out["location"] = t.location()
t.append(data)
t.append(data)
try:
    cat.create_table("sales.orders", schema=data.schema)
except TableAlreadyExistsError:
    out["table_twice"] = True

with t.update_schema() as update:
    update.add_column("note", StringType())
with t.transaction() as tx:
    tx.set_properties(stage="2")
t.append(pa.table({"id": pa.array([4], pa.int64()), "name": pa.array(["d"]), "note": pa.array(["x"])}))

back = cat.load_table("sales.orders")
rows = back.scan().to_arrow()
out["rows"] = rows.num_rows
out["ids"] = sorted(rows["id"].to_pylist())
out["snapshots"] = len(back.snapshots())
out["columns"] = [f.name for f in back.schema().fields]
out["properties"] = {k: back.properties[k] for k in ("k", "stage")}
out["exists"] = [cat.table_exists("sales.orders"), cat.table_exists("sales.nope")]
out["tables"] = sorted(list(i) for i in cat.list_tables("sales"))

cat.rename_table("sales.orders", "sales.orders_renamed")
out["renamed"] = sorted(list(i) for i in cat.list_tables("sales"))
cat.rename_table("sales.orders_renamed", "sales.orders")
try:
    cat.drop_namespace("sales")
except NamespaceNotEmptyError:
    out["not_empty"] = True
cat.create_table("sales.scratch", schema=data.schema)
cat.drop_table("sales.scratch")
try:
    cat.load_table("sales.scratch")
except NoSuchTableError:
    out["dropped"] = True
cat.create_namespace("empty")
cat.drop_namespace("empty")

with cat.create_table_transaction("sales.ctas", schema=data.schema, properties={"made": "ctas"}) as tx:
    tx.append(data)
ctas = cat.load_table("sales.ctas")
out["ctas"] = [ctas.scan().to_arrow().num_rows, ctas.properties.get("made"), len(ctas.snapshots())]
try:
    cat.create_table_transaction("sales.ctas", schema=data.schema)
except TableAlreadyExistsError:
    out["ctas_twice"] = True

ldp = cat.load_table("ldp.events")
out["ldp_rows"] = ldp.scan().to_arrow().num_rows
out["ldp_ids"] = sorted(ldp.scan().to_arrow()["id"].to_pylist())
ldp.append(pa.table({"id": pa.array([100], pa.int64()), "name": pa.array(["py"])}))
print(json.dumps(out))
"#;

#[test]
fn pyiceberg_and_ldp_share_tables_through_the_server() {
    let python = python();
    let lake = Lake::new();
    let mut settings = lake.settings();
    settings.token = Some("s3cr3t".into());
    let server = ldp_catalog_server::start(settings).expect("start");
    let catalog = lake.catalog();

    // A table ldp writes, for pyiceberg to read.
    let first = batch(0, 5);
    let location = lake.warehouse().join("ldp").join("events");
    let mut events = Table::create(&catalog, "ldp", "events", &first.schema(), &location).unwrap();
    let mut writer = DataWriter::new(&events, &WriterOptions::default()).unwrap();
    writer.write(&first).unwrap();
    Append::new(writer.finish().unwrap())
        .commit(&catalog, &mut events)
        .unwrap();

    let out = run_script(
        &python,
        FLOW,
        &json!({"uri": server.uri(), "token": "s3cr3t"}),
    );
    let wrong = out["wrong_token"].as_str().unwrap();
    assert!(wrong.contains("NotAuthorizedException"), "{wrong}");
    assert_eq!(out["namespace_twice"], true);
    assert_eq!(out["namespaces"], json!([["ldp"], ["sales"]]));
    assert_eq!(out["ns_props"], json!({"owner": "ann"}));
    assert_eq!(
        out["ns_update"],
        json!({"updated": ["team"], "removed": ["owner"], "missing": ["nope"]})
    );
    assert_eq!(out["ns_props_after"], json!({"team": "b"}));
    assert!(
        out["nested"]
            .as_str()
            .unwrap()
            .contains("nested namespace a.b"),
        "{out}"
    );
    let expected_location = format!("file://{}", lake.warehouse().join("sales/orders").display());
    assert_eq!(out["location"], expected_location);
    assert_eq!(out["table_twice"], true);
    assert_eq!(out["rows"], 7);
    assert_eq!(out["ids"], json!([1, 1, 2, 2, 3, 3, 4]));
    assert_eq!(out["snapshots"], 3);
    assert_eq!(out["columns"], json!(["id", "name", "note"]));
    assert_eq!(out["properties"], json!({"k": "v", "stage": "2"}));
    assert_eq!(out["exists"], json!([true, false]));
    assert_eq!(out["tables"], json!([["sales", "orders"]]));
    assert_eq!(out["renamed"], json!([["sales", "orders_renamed"]]));
    assert_eq!(out["not_empty"], true);
    assert_eq!(out["dropped"], true);
    assert_eq!(out["ldp_rows"], 5);
    assert_eq!(out["ldp_ids"], json!([0, 1, 2, 3, 4]));

    // ldp reads what pyiceberg wrote through the server, and the append pyiceberg made to
    // ldp's table.
    assert_eq!(ldp_rows(&catalog, "sales", "orders"), 7);
    let orders = Table::load(&catalog, "sales", "orders").unwrap();
    assert_eq!(orders.snapshots().len(), 3);
    assert!(orders.schema().field_by_name("note").is_some());
    assert_eq!(ldp_rows(&catalog, "ldp", "events"), 6);
    assert!(!catalog.namespace_exists("empty").unwrap());
    assert_eq!(catalog.list_tables("sales").unwrap(), ["ctas", "orders"]);
    // The staged create (pyiceberg's create_table_transaction) made a table ldp reads.
    assert_eq!(out["ctas"], json!([3, "ctas", 1]));
    assert_eq!(out["ctas_twice"], true);
    assert_eq!(ldp_rows(&catalog, "sales", "ctas"), 3);
}
