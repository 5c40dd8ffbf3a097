//! Catalogs that cannot be used: an unreachable server, a wrong password or token, a commit the
//! server refuses. Each is exit 1 with a message that names the catalog and says what to do,
//! prints no secret and writes nothing.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use ldp_test_servers::rustberg::free_port;

use super::lake::{Kind, Lake, PASSWORD_ENV, SERVE_TOKEN, TOKEN_ENV};
use crate::{stderr, stdout};

/// A PostgreSQL catalog that cannot be used: exit 1, a message that names the catalog by its
/// URI and says what to do, no password printed, nothing written.
#[test]
fn a_postgres_catalog_that_cannot_be_reached_fails_cleanly() {
    let mut lake = Lake::new(Kind::Postgres, "bad");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let uri = lake.catalog["uri"].as_str().unwrap().to_string();

    lake.env = vec![(PASSWORD_ENV, "Wrong-Secret-77".to_string())];
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&uri), "{text}");
    assert!(text.contains("password"), "{text}");
    assert!(!text.contains("Wrong-Secret-77"), "{text}");

    lake.env.clear();
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(PASSWORD_ENV), "{text}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let unreachable = format!("postgresql://ldp@127.0.0.1:{port}/lake");
    lake.catalog["uri"] = unreachable.clone().into();
    lake.env = vec![(PASSWORD_ENV, "Some-Secret-78".to_string())];
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&unreachable), "{text}");
    assert!(!text.contains("Some-Secret-78"), "{text}");
    assert!(!lake.path("warehouse").exists(), "a failed run wrote files");
}

/// `ldp catalog test` on a `rest` catalog served by a third-party server (rustberg): the
/// namespaces and the table pyiceberg created, `ok`; a wrong token and an unreachable server
/// exit 1 naming the catalog, never the token.
#[test]
fn catalog_test_reaches_a_third_party_rest_catalog() {
    use ldp_test_servers::rustberg::{Rustberg, TOKEN, WRONG_TOKEN, free_port};
    let server = Rustberg::start();
    let python = crate::interop::python();
    let script = r#"
import sys
import pyarrow as pa
from pyiceberg.catalog import load_catalog
catalog = load_catalog("lake", type="rest", uri=sys.argv[1], token=sys.argv[2])
catalog.create_namespace("nyc")
catalog.create_table(("nyc", "rides"), schema=pa.schema([("ride_id", pa.int64())]))
"#;
    let out = Command::new(&python)
        .args(["-c", script, &server.uri, TOKEN])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let spec = |uri: &str| {
        json!({"type": "rest", "name": "lake", "namespace": "nyc", "uri": uri,
               "token_env": "LDP_TEST_REST_TOKEN"})
        .to_string()
    };
    std::fs::write(dir.path().join("rest.json"), spec(&server.uri)).unwrap();
    let run = |token: &str| {
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        Command::new(env!("CARGO_BIN_EXE_ldp"))
            .current_dir(dir.path())
            .args([
                "--cache-dir",
                cache.to_str().unwrap(),
                "catalog",
                "test",
                "rest.json",
            ])
            .env("LDP_TEST_REST_TOKEN", token)
            .output()
            .expect("ldp runs")
    };
    let out = run(TOKEN);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "catalog type: rest");
    assert_eq!(
        lines[2..],
        [
            "catalog name: lake",
            "namespaces (1): nyc",
            "tables in nyc (1): nyc.rides",
            "ok"
        ],
        "{text}"
    );
    assert!(!text.contains(TOKEN), "{text}");

    let out = run(WRONG_TOKEN);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&server.uri) && text.contains("token_env"),
        "{text}"
    );
    assert!(!text.contains(WRONG_TOKEN), "{text}");

    let closed = format!("http://127.0.0.1:{}", free_port());
    std::fs::write(dir.path().join("rest.json"), spec(&closed)).unwrap();
    let out = run(TOKEN);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&closed), "{text}");
}

/// A `rest` catalog that refuses: a wrong token, a server that refuses the commit (a read-only
/// `ldp catalog serve`), a server nobody runs. Each is exit 1 with a message naming the
/// catalog's URI and what to do, no token printed, the table as it was and no file of the
/// refused run left behind.
#[test]
fn a_rest_catalog_that_refuses_fails_cleanly() {
    let mut lake = Lake::new(Kind::Serve, "refuses");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    let uri = lake.catalog["uri"].as_str().unwrap().to_string();
    let files_before = lake.data_files("rides");
    let right = lake.env.clone();

    lake.env = vec![(TOKEN_ENV, "Wrong-Secret-Token-3".to_string())];
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&uri) && text.contains("token_env"), "{text}");
    assert!(!text.contains("Wrong-Secret-Token-3"), "{text}");
    lake.env = right;

    let (read_only, _server) = lake.serve(&["--read-only"]);
    lake.catalog["uri"] = read_only.clone().into();
    let refused = lake.config("refused", "data/rides.csv", json!({"name": "rides"}));
    let out = lake.ldp(&["run", &refused]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&read_only), "{text}");
    assert!(text.contains("read-only"), "{text}");
    assert!(!text.contains(SERVE_TOKEN), "{text}");

    let closed = format!("http://127.0.0.1:{}", free_port());
    lake.catalog["uri"] = closed.clone().into();
    let unreachable = lake.config("unreachable", "data/rides.csv", json!({"name": "rides"}));
    let out = lake.ldp(&["run", &unreachable]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&closed), "{text}");

    assert_eq!(lake.count(&config, "rides", &[]), 20);
    assert_eq!(lake.snapshots(&config).len(), 1);
    assert_eq!(
        lake.data_files("rides"),
        files_before,
        "a refused run left data files"
    );
}

/// `ldp maintain --apply` against a catalog that refuses writes (a read-only `ldp catalog
/// serve`): exit 1 naming the catalog, no commit, no file deleted and none left behind, though
/// orphan removal was asked for with every age allowed.
#[test]
fn maintain_on_a_read_only_catalog_changes_nothing() {
    let mut lake = Lake::new(Kind::Serve, "maintain");
    let config = lake.config("rides", "data/rides.csv", json!({}));
    lake.ok(&["run", &config]);
    lake.ok(&["run", &config]);
    let files_before = lake.data_files("rides");
    let snapshots_before = lake.snapshots(&config).len();

    let (read_only, _server) = lake.serve(&["--read-only"]);
    lake.catalog["uri"] = read_only.clone().into();
    let refused = lake.config("refused", "data/rides.csv", json!({"name": "rides"}));
    let out = lake.ldp(&[
        "maintain",
        &refused,
        "--compact",
        "--orphans",
        "--orphan-age-hours",
        "0",
        "--allow-recent",
        "--apply",
    ]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&read_only) && text.contains("read-only"),
        "{text}"
    );
    assert!(!text.contains(SERVE_TOKEN), "{text}");
    assert_eq!(lake.data_files("rides"), files_before);
    assert_eq!(lake.snapshots(&config).len(), snapshots_before);
}

/// A `glue` catalog whose endpoint nobody serves: exit 1 naming the endpoint, the secret key
/// never printed, nothing written to the bucket.
#[test]
fn a_glue_catalog_that_cannot_be_reached_fails_cleanly() {
    let mut lake = Lake::new(Kind::Glue, "unreachable");
    let closed = format!("http://127.0.0.1:{}", free_port());
    lake.catalog["properties"] = json!({"glue.endpoint": closed});
    let config = lake.config("rides", "data/rides.csv", json!({}));
    let out = lake.ldp(&["run", &config]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&closed), "{text}");
    for secret in lake.secrets() {
        assert!(!text.contains(secret), "{text}");
    }
    assert_eq!(lake.data_files("rides"), 0);
}
