//! Path resolution and the layout of a `local` catalog on real temporary folders.

use std::path::{Path, PathBuf};

use ldp_config::paths::{
    PathContext, catalog_database_file, local_catalog_layout, resolve_sql_uri, sqlite_file,
};
use ldp_config::{CatalogSpec, load};
use serde_json::json;

struct Setup {
    _root: tempfile::TempDir,
    root: PathBuf,
    config_dir: PathBuf,
    cwd: PathBuf,
}

fn setup() -> Setup {
    let root_dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(root_dir.path()).expect("canonical");
    let config_dir = root.join("project");
    let cwd = root.join("cwd");
    std::fs::create_dir_all(config_dir.join("data")).expect("mkdir");
    std::fs::create_dir_all(config_dir.join("ldp-legacy-folder")).expect("mkdir");
    std::fs::create_dir_all(&cwd).expect("mkdir");
    std::fs::write(config_dir.join("data/rides.csv"), "a\n1\n").expect("write");
    std::fs::write(config_dir.join("ldp-legacy-folder/rides.csv"), "a\n1\n").expect("write");
    Setup {
        _root: root_dir,
        root,
        config_dir,
        cwd,
    }
}

fn context(setup: &Setup) -> PathContext {
    PathContext {
        config_dir: Some(setup.config_dir.clone()),
        cwd: setup.cwd.clone(),
        home: Some(setup.root.join("home")),
    }
}

#[test]
fn relative_paths_resolve_against_the_config_folder() {
    let setup = setup();
    let context = context(&setup);
    let resolved = context.resolve("./data/../data/rides.csv");
    assert_eq!(resolved.path, setup.config_dir.join("data/rides.csv"));
    assert_eq!(resolved.warning, None);
    assert_eq!(
        context.resolve("out/new.csv").path,
        setup.config_dir.join("out/new.csv")
    );
    assert_eq!(
        context.resolve("~/x.csv").path,
        setup.root.join("home/x.csv")
    );
    let no_folder = PathContext {
        config_dir: None,
        ..context.clone()
    };
    assert_eq!(no_folder.resolve("a.csv").path, setup.cwd.join("a.csv"));
}

/// A `file://` URI is its local path, for sources and file targets alike (a file target once
/// wrote `./file:/...`).
#[test]
fn a_file_uri_is_its_local_path() {
    let setup = setup();
    let context = context(&setup);
    let file = setup.config_dir.join("data/rides.csv");
    assert_eq!(
        context.resolve(&format!("file://{}", file.display())).path,
        file
    );
    let new = setup.config_dir.join("out.csv");
    assert_eq!(
        context.resolve(&format!("file://{}", new.display())).path,
        new
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_resolved() {
    let setup = setup();
    std::os::unix::fs::symlink(setup.config_dir.join("data"), setup.config_dir.join("link"))
        .expect("symlink");
    let resolved = context(&setup).resolve("link/rides.csv");
    assert_eq!(resolved.path, setup.config_dir.join("data/rides.csv"));
}

#[test]
fn absolute_paths_and_the_legacy_fallback() {
    let setup = setup();
    let context = context(&setup);
    let existing = setup.config_dir.join("data/rides.csv");
    assert_eq!(context.resolve(&existing.to_string_lossy()).path, existing);
    // A legacy cwd-relative path written with a leading slash.
    let legacy = context.resolve("/ldp-legacy-folder/rides.csv");
    assert_eq!(
        legacy.path,
        setup.config_dir.join("ldp-legacy-folder/rides.csv")
    );
    let warning = legacy.warning.expect("warning");
    assert!(warning.starts_with("Path '/ldp-legacy-folder/rides.csv' is written as absolute but it only exists relative to "), "{warning}");
    assert!(
        warning.ends_with(
            "Write it without the leading slash; legacy support will be removed in 0.2.0."
        )
    );
    // A new output whose parent exists is kept as written.
    let output = setup.root.join("out.csv");
    assert_eq!(context.resolve(&output.to_string_lossy()).path, output);
    // A new output under `/` with a legacy relative folder that exists.
    let legacy_output = context.resolve("/ldp-legacy-folder/new.csv");
    assert_eq!(
        legacy_output.path,
        setup.config_dir.join("ldp-legacy-folder/new.csv")
    );
    assert!(
        legacy_output
            .warning
            .expect("warning")
            .contains("its folder only exists relative to")
    );
    // Otherwise unchanged.
    let nowhere = Path::new("/definitely/not/here.csv");
    assert_eq!(context.resolve("/definitely/not/here.csv").path, nowhere);
}

fn catalog(value: serde_json::Value) -> CatalogSpec {
    let document = json!({"identifier": "p", "metadata": {
        "source": {"name": "s", "format": "CSV", "path": "a.csv"},
        "target": {"name": "rides", "format": "ICEBERG", "catalog": value}}});
    load(&document)
        .expect("config")
        .metadata
        .target
        .catalog
        .expect("catalog")
}

#[test]
fn local_catalog_layout_under_the_config_folder() {
    let setup = setup();
    let context = context(&setup);
    let layout = local_catalog_layout(
        &catalog(json!({"identifier": "nyc", "warehouse_path": "warehouse"})),
        &context,
    )
    .expect("layout");
    let warehouse = setup.config_dir.join("warehouse");
    assert_eq!(layout.database, warehouse.join("nyc_catalog.db"));
    assert_eq!(
        layout.warehouse_uri,
        format!("file://{}", warehouse.display())
    );
    assert_eq!(
        (layout.catalog_name.as_str(), layout.namespace.as_str()),
        ("nyc", "nyc")
    );
    assert_eq!(layout.table_location("rides"), warehouse.join("nyc/rides"));
    assert!(!warehouse.exists(), "nothing is created");
    // A sql block in the local shape runs as local.
    let shaped = catalog(json!({"type": "sql", "identifier": "nyc", "warehouse_path": "w"}));
    assert_eq!(
        catalog_database_file(&shaped, &context),
        Some(setup.config_dir.join("w/nyc_catalog.db"))
    );
    let rest = catalog(json!({"type": "rest", "uri": "http://x", "namespace": "n"}));
    assert!(local_catalog_layout(&rest, &context).is_err());
    assert_eq!(catalog_database_file(&rest, &context), None);
}

/// The bug "catalog identifiers escape the warehouse": a spec whose `identifier` was changed
/// after the loader checked it still gives no layout outside the warehouse.
#[test]
fn a_local_layout_refuses_an_identifier_that_is_a_path() {
    let setup = setup();
    let context = context(&setup);
    let mut spec = catalog(json!({"identifier": "nyc", "warehouse_path": "warehouse"}));
    for bad in ["/tmp/nyc", "../nyc", "a/b", ".."] {
        spec.identifier = Some(bad.to_owned());
        let error = local_catalog_layout(&spec, &context)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("catalog identifier: '"), "{bad}: {error}");
        assert_eq!(catalog_database_file(&spec, &context), None, "{bad}");
    }
}

#[test]
fn sqlite_uris() {
    let setup = setup();
    let context = context(&setup);
    assert_eq!(
        sqlite_file("sqlite:///cat/c.db", &context),
        Some(setup.config_dir.join("cat/c.db"))
    );
    assert_eq!(
        sqlite_file("sqlite:////abs/c.db", &context),
        Some(PathBuf::from("/abs/c.db"))
    );
    assert_eq!(sqlite_file("sqlite:///:memory:", &context), None);
    assert_eq!(sqlite_file("postgresql://h/db", &context), None);
    assert_eq!(
        resolve_sql_uri("sqlite:///c.db?timeout=5", &context),
        format!(
            "sqlite:///{}?timeout=5",
            setup.config_dir.join("c.db").display()
        )
    );
    let sql = catalog(json!({"type": "sql", "uri": "sqlite:///c.db", "namespace": "n"}));
    assert_eq!(
        catalog_database_file(&sql, &context),
        Some(setup.config_dir.join("c.db"))
    );
}
