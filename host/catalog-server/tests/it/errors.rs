//! Statuses and error bodies, over raw HTTP: every error is the spec's
//! `{"error": {"message", "type", "code"}}` and changes nothing.

use std::path::Path;

use ldp_table::{Append, DataWriter, Table, WriterOptions};
use serde_json::json;

use crate::common::{Lake, NAME, batch, http};

/// `ns.t` created by ldp with two appended snapshots: (first, second) snapshot ids.
fn table_with_two_snapshots(lake: &Lake, namespace: &str, name: &str) -> (i64, i64) {
    let catalog = lake.catalog();
    let rows = batch(0, 3);
    let location = lake.warehouse().join(namespace).join(name);
    let mut table = Table::create(&catalog, namespace, name, &rows.schema(), &location).unwrap();
    let mut ids = Vec::new();
    for start in [0, 3] {
        let mut writer = DataWriter::new(&table, &WriterOptions::default()).unwrap();
        writer.write(&batch(start, 3)).unwrap();
        let done = Append::new(writer.finish().unwrap())
            .commit(&catalog, &mut table)
            .unwrap();
        ids.push(done.snapshot_id);
    }
    (ids[0], ids[1])
}

fn metadata_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("metadata"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
            })
            .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_stale_commit_is_a_409_and_changes_nothing() {
    let lake = Lake::new();
    let server = lake.serve();
    let (first, second) = table_with_two_snapshots(&lake, "nyc", "rides");
    let catalog = lake.catalog();
    let before = catalog.load_table("nyc", "rides").unwrap().unwrap();
    let dir = lake.warehouse().join("nyc/rides");
    let files = metadata_files(&dir);
    let path = "/v1/lake/namespaces/nyc/tables/rides";
    let commit = |snapshot: i64| {
        json!({
            "identifier": {"namespace": ["nyc"], "name": "rides"},
            "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": snapshot}],
            "updates": [{"action": "set-properties", "updates": {"owner": "ann"}}],
        })
        .to_string()
    };

    let stale = http(server.address(), "POST", path, None, Some(&commit(first)));
    let message = stale.error(409, "CommitFailedException");
    assert!(message.contains("main"), "{message}");
    assert_eq!(catalog.load_table("nyc", "rides").unwrap().unwrap(), before);
    assert_eq!(metadata_files(&dir), files);

    let fresh = http(server.address(), "POST", path, None, Some(&commit(second)));
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    let body = fresh.json();
    let location = body["metadata-location"].as_str().unwrap();
    assert_eq!(
        catalog
            .load_table("nyc", "rides")
            .unwrap()
            .unwrap()
            .metadata_location,
        location
    );
    assert_eq!(body["metadata"]["properties"]["owner"], "ann");
    assert_eq!(metadata_files(&dir), files + 1);

    // Loading answers the same metadata, with the metadata location and a config.
    let loaded = http(server.address(), "GET", path, None, None).json();
    assert_eq!(loaded["metadata-location"], location);
    assert_eq!(loaded["metadata"], body["metadata"]);
    assert_eq!(loaded["config"], json!({}));
    assert_eq!(loaded["metadata"]["snapshots"].as_array().unwrap().len(), 2);
}

#[test]
fn tokens_are_checked_first() {
    let lake = Lake::new();
    let mut settings = lake.settings();
    settings.token = Some("s3cr3t".into());
    let server = ldp_catalog_server::start(settings).unwrap();
    let address = server.address();
    for token in [None, Some("wrong")] {
        for (method, path) in [
            ("GET", "/v1/config"),
            ("GET", "/v1/lake/namespaces"),
            ("POST", "/v1/lake/namespaces"),
            ("GET", "/v1/nowhere"),
        ] {
            let answer = http(address, method, path, token, Some("{}"));
            answer.error(401, "NotAuthorizedException");
        }
    }
    let config = http(
        address,
        "GET",
        "/v1/config?warehouse=lake",
        Some("s3cr3t"),
        None,
    );
    assert_eq!(config.status, 200, "{}", config.body);
    assert_eq!(config.json()["overrides"], json!({"prefix": NAME}));
    assert!(lake.catalog().list_namespaces(None).unwrap().is_empty());
}

#[test]
fn a_read_only_server_refuses_every_write_with_403() {
    let lake = Lake::new();
    table_with_two_snapshots(&lake, "nyc", "rides");
    let mut settings = lake.settings();
    settings.read_only = true;
    let server = ldp_catalog_server::start(settings).unwrap();
    let address = server.address();
    let before = lake.catalog().load_table("nyc", "rides").unwrap();
    for (method, path, body) in [
        ("POST", "/v1/lake/namespaces", r#"{"namespace": ["x"]}"#),
        ("DELETE", "/v1/lake/namespaces/nyc", ""),
        (
            "POST",
            "/v1/lake/namespaces/nyc/properties",
            r#"{"updates": {"a": "b"}}"#,
        ),
        (
            "POST",
            "/v1/lake/namespaces/nyc/tables",
            r#"{"name": "t", "schema": {"type": "struct", "fields": []}}"#,
        ),
        (
            "POST",
            "/v1/lake/namespaces/nyc/tables/rides",
            r#"{"requirements": [], "updates": []}"#,
        ),
        ("DELETE", "/v1/lake/namespaces/nyc/tables/rides", ""),
        ("POST", "/v1/lake/tables/rename", "{}"),
        ("POST", "/v1/lake/transactions/commit", "{}"),
    ] {
        let message =
            http(address, method, path, None, Some(body)).error(403, "ForbiddenException");
        assert!(message.contains("read-only"), "{message}");
    }
    assert_eq!(lake.catalog().load_table("nyc", "rides").unwrap(), before);
    assert_eq!(lake.catalog().list_namespaces(None).unwrap(), ["nyc"]);
    let loaded = http(
        address,
        "GET",
        "/v1/lake/namespaces/nyc/tables/rides",
        None,
        None,
    );
    assert_eq!(loaded.status, 200);
    let metrics = http(
        address,
        "POST",
        "/v1/lake/namespaces/nyc/tables/rides/metrics",
        None,
        Some("{}"),
    );
    assert_eq!(metrics.status, 204);
}

#[test]
fn bad_requests_missing_things_and_conflicts() {
    let lake = Lake::new();
    let server = lake.serve();
    let a = server.address();
    table_with_two_snapshots(&lake, "nyc", "rides");
    table_with_two_snapshots(&lake, "nyc", "other");

    let bad = http(a, "POST", "/v1/lake/namespaces", None, Some("{not json"));
    let message = bad.error(400, "BadRequestException");
    assert!(message.contains("CreateNamespaceRequest"), "{message}");
    let unknown = json!({"requirements": [], "updates": [{"action": "frobnicate"}]}).to_string();
    http(
        a,
        "POST",
        "/v1/lake/namespaces/nyc/tables/rides",
        None,
        Some(&unknown),
    )
    .error(400, "BadRequestException");
    let nested = http(a, "GET", "/v1/lake/namespaces/nyc%1Fsub/tables", None, None);
    assert!(
        nested
            .error(400, "BadRequestException")
            .contains("nested namespace nyc.sub")
    );
    http(
        a,
        "POST",
        "/v1/lake/namespaces",
        None,
        Some(r#"{"namespace": ["a", "b"]}"#),
    )
    .error(400, "BadRequestException");
    let invalid =
        json!({"requirements": [], "updates": [{"action": "set-current-schema", "schema-id": 42}]});
    http(
        a,
        "POST",
        "/v1/lake/namespaces/nyc/tables/rides",
        None,
        Some(&invalid.to_string()),
    )
    .error(400, "BadRequestException");

    http(a, "GET", "/v1/lake/namespaces/nope", None, None).error(404, "NoSuchNamespaceException");
    http(a, "GET", "/v1/lake/namespaces/nope/tables", None, None)
        .error(404, "NoSuchNamespaceException");
    http(a, "GET", "/v1/lake/namespaces/nyc/tables/nope", None, None)
        .error(404, "NoSuchTableException");
    http(a, "GET", "/v1/other/namespaces", None, None).error(404, "NoSuchWarehouseException");
    http(a, "GET", "/v1/config?warehouse=other", None, None).error(404, "NoSuchWarehouseException");
    assert_eq!(
        http(a, "HEAD", "/v1/lake/namespaces/nyc/tables/nope", None, None).status,
        404
    );
    assert_eq!(
        http(
            a,
            "HEAD",
            "/v1/lake/namespaces/nyc/tables/rides",
            None,
            None
        )
        .status,
        204
    );
    assert_eq!(
        http(a, "HEAD", "/v1/lake/namespaces/nyc", None, None).status,
        204
    );
    let staged =
        json!({"name": "t2", "schema": {"type": "struct", "fields": []}, "stage-create": true});
    http(
        a,
        "POST",
        "/v1/lake/namespaces/nope/tables",
        None,
        Some(&staged.to_string()),
    )
    .error(404, "NoSuchNamespaceException");
    let create = json!({"name": "t2", "schema": {"type": "struct", "fields": [{"id": 1, "name": "x", "required": false, "type": "int"}]}});
    http(
        a,
        "POST",
        "/v1/lake/namespaces/nope/tables",
        None,
        Some(&create.to_string()),
    )
    .error(404, "NoSuchNamespaceException");

    http(
        a,
        "POST",
        "/v1/lake/namespaces",
        None,
        Some(r#"{"namespace": ["nyc"]}"#),
    )
    .error(409, "AlreadyExistsException");
    http(a, "DELETE", "/v1/lake/namespaces/nyc", None, None)
        .error(409, "NamespaceNotEmptyException");
    for to in ["rides", "other"] {
        let rename = json!({"source": {"namespace": ["nyc"], "name": "rides"}, "destination": {"namespace": ["nyc"], "name": to}});
        http(
            a,
            "POST",
            "/v1/lake/tables/rename",
            None,
            Some(&rename.to_string()),
        )
        .error(409, "AlreadyExistsException");
    }
    let rename = json!({"source": {"namespace": ["nyc"], "name": "rides"}, "destination": {"namespace": ["nope"], "name": "x"}});
    http(
        a,
        "POST",
        "/v1/lake/tables/rename",
        None,
        Some(&rename.to_string()),
    )
    .error(404, "NoSuchNamespaceException");
    let rename = json!({"source": {"namespace": ["nyc"], "name": "nope"}, "destination": {"namespace": ["nyc"], "name": "x"}});
    http(
        a,
        "POST",
        "/v1/lake/tables/rename",
        None,
        Some(&rename.to_string()),
    )
    .error(404, "NoSuchTableException");
    http(
        a,
        "DELETE",
        "/v1/lake/namespaces/nyc/tables/rides?purgeRequested=true",
        None,
        None,
    )
    .error(406, "UnsupportedOperationException");
    let both = json!({"removals": ["a"], "updates": {"a": "1"}});
    http(
        a,
        "POST",
        "/v1/lake/namespaces/nyc/properties",
        None,
        Some(&both.to_string()),
    )
    .error(422, "UnprocessableEntityException");
    let change = |name: &str| json!({"identifier": {"namespace": ["nyc"], "name": name}, "requirements": [], "updates": []});
    let two = json!({"table-changes": [change("rides"), change("other")]});
    http(
        a,
        "POST",
        "/v1/lake/transactions/commit",
        None,
        Some(&two.to_string()),
    )
    .error(406, "UnsupportedOperationException");
    let one = json!({"table-changes": [change("rides")]});
    assert_eq!(
        http(
            a,
            "POST",
            "/v1/lake/transactions/commit",
            None,
            Some(&one.to_string())
        )
        .status,
        204
    );
    http(a, "PUT", "/v1/lake/namespaces", None, None).error(405, "MethodNotAllowedException");
    http(a, "GET", "/v2/x", None, None).error(404, "NotFoundException");

    // Nothing of the above changed the catalog.
    let catalog = lake.catalog();
    assert_eq!(catalog.list_namespaces(None).unwrap(), ["nyc"]);
    assert_eq!(catalog.list_tables("nyc").unwrap(), ["other", "rides"]);
    assert!(
        !catalog
            .namespace_properties("nyc")
            .unwrap()
            .contains_key("a")
    );
}
