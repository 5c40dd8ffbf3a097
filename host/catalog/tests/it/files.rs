//! Opening catalogs: modes, the exact schema, missing and foreign files, older schemas.

use crate::common::{Engine, Place, new_catalog};
use ldp_catalog::{Catalog, ErrorKind, Mode, SchemaVersion};

on_both_engines!(
    read_only_refuses_writes_and_reads_an_empty_catalog_as_empty,
    v0_catalog_is_used_without_migration,
    rows_carry_iceberg_type_table_and_views_are_not_tables,
);

/// `sqlite_master` as pyiceberg 0.12.0 (SQLAlchemy 2.1) left it in a new catalog.
const PYICEBERG_SQLITE_MASTER: &str = include_str!("fixtures/pyiceberg-0.12.0-sqlite_master.txt");

fn sqlite_master(file: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(file).unwrap();
    let mut stmt = conn
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
        .unwrap();
    let rows: Vec<String> = stmt
        .query_map([], |r| {
            let (t, n, tb, sql): (String, String, String, Option<String>) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            Ok(format!(
                "{t} {n} {tb}\n{}\n",
                sql.unwrap_or_else(|| "None".into())
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.join("\n")
}

#[test]
fn create_makes_pyicebergs_exact_schema() {
    let (place, catalog) = new_catalog(Engine::Sqlite, "nyc");
    let file = place.file.clone();
    assert!(file.ends_with("warehouse/nyc_catalog.db"));
    assert_eq!(catalog.schema_version(), SchemaVersion::V1);
    assert_eq!(sqlite_master(&file), PYICEBERG_SQLITE_MASTER);
    assert_eq!(catalog.journal_mode().unwrap().as_deref(), Some("delete"));
    drop(catalog);
    // Reopening in every mode changes nothing.
    for mode in [Mode::Create, Mode::ReadWrite, Mode::ReadOnly] {
        let c = Catalog::open(&file, "nyc", mode).unwrap();
        assert_eq!(c.schema_version(), SchemaVersion::V1);
    }
    assert_eq!(sqlite_master(&file), PYICEBERG_SQLITE_MASTER);
}

#[test]
fn missing_file_is_the_reference_error_and_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wh").join("nyc_catalog.db");
    for mode in [Mode::ReadOnly, Mode::ReadWrite] {
        let e = Catalog::open(&file, "nyc", mode).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(
            e.for_table("nyc.rides").to_string(),
            format!(
                "Iceberg table nyc.rides does not exist: there is no catalog at {}. \
                 Run 'ldp run CONFIG' first, or check the catalog's warehouse_path or uri.",
                file.display()
            )
        );
    }
    assert!(!file.exists());
    assert!(!file.parent().unwrap().exists());
}

/// Whether the catalog tables exist at `place`.
fn has_catalog_tables(place: &Place) -> bool {
    let sql = match place.engine {
        Engine::Sqlite => "SELECT name FROM sqlite_master WHERE name LIKE 'iceberg%'",
        Engine::Postgres => "SELECT to_regclass('iceberg_tables')::text",
    };
    place.query(sql).into_iter().flatten().any(|v| v.is_some())
}

fn read_only_refuses_writes_and_reads_an_empty_catalog_as_empty(engine: Engine) {
    let place = Place::new(engine, "c");
    if engine == Engine::Sqlite {
        std::fs::write(&place.file, b"").unwrap();
    }
    let c = place.open("c", Mode::ReadOnly).unwrap();
    assert_eq!(c.schema_version(), SchemaVersion::Empty);
    assert!(c.list_namespaces(None).unwrap().is_empty());
    assert!(!c.namespace_exists("c").unwrap());
    assert_eq!(c.load_table("c", "t").unwrap(), None);
    let e = c.create_namespace_if_missing("c").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(e.to_string().contains("create namespace c"), "{e}");
    assert!(e.to_string().contains(&place.shown()), "{e}");
    assert!(!has_catalog_tables(&place), "nothing written");
    if engine == Engine::Sqlite {
        assert_eq!(std::fs::metadata(&place.file).unwrap().len(), 0);
    }

    // ReadWrite on the same empty catalog creates the tables, like pyiceberg.
    let c = place.open("c", Mode::ReadWrite).unwrap();
    assert_eq!(c.schema_version(), SchemaVersion::V1);
    c.create_namespace_if_missing("c").unwrap();
    c.create_table("c", "t", "m0").unwrap();
    let ro = place.open("c", Mode::ReadOnly).unwrap();
    assert_eq!(ro.list_tables("c").unwrap(), ["t"]);
    for e in [
        ro.commit("c", "t", "m0", "m1").unwrap_err(),
        ro.create_table("c", "u", "m0").unwrap_err(),
        ro.drop_table("c", "t").unwrap_err(),
        ro.rename_table("c", "t", "c", "u").unwrap_err(),
        ro.drop_namespace("c").unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::ReadOnly, "{e}");
    }
}

#[test]
fn a_file_that_is_not_sqlite_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.db");
    std::fs::write(&file, b"this is not a SQLite database, not at all, no").unwrap();
    for mode in [Mode::ReadOnly, Mode::ReadWrite, Mode::Create] {
        let e = Catalog::open(&file, "c", mode).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
        assert!(e.to_string().contains("c.db"), "{e}");
    }
    let e = Catalog::open(dir.path(), "c", Mode::ReadOnly).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
}

/// A catalog made by `JdbcCatalog` in V0 mode (or an older pyiceberg) has no `iceberg_type`
/// column: it is used as it is, never migrated.
fn v0_catalog_is_used_without_migration(engine: Engine) {
    let place = Place::new(engine, "c");
    place.exec(
        "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL, \
           table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, \
           metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), \
           PRIMARY KEY (catalog_name, table_namespace, table_name));
         CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL, \
           namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL, \
           property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, property_key));
         INSERT INTO iceberg_tables VALUES ('c', 'old', 't', 'm0', NULL);",
    );
    let c = place.open("c", Mode::Create).unwrap();
    assert_eq!(c.schema_version(), SchemaVersion::V0);
    assert!(
        c.namespace_exists("old").unwrap(),
        "a table row makes its namespace exist"
    );
    c.create_table("old", "u", "n0").unwrap();
    c.commit("old", "t", "m0", "m1").unwrap();
    assert_eq!(c.list_tables("old").unwrap(), ["t", "u"]);
    assert_eq!(
        c.commit("old", "t", "m0", "m2").unwrap_err().kind(),
        ErrorKind::CommitConflict
    );
    assert!(!place.has_column("iceberg_type"));
    assert_eq!(
        place.open("c", Mode::ReadOnly).unwrap().schema_version(),
        SchemaVersion::V0
    );
}

fn rows_carry_iceberg_type_table_and_views_are_not_tables(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    assert_eq!(place.table_rows()[0][5].as_deref(), Some("TABLE"));
    // Rows other engines write: a view, and a table row from a writer without iceberg_type.
    place.exec(
        "INSERT INTO iceberg_tables VALUES ('c', 'ns', 'v', 'vm0', NULL, 'VIEW');
         INSERT INTO iceberg_tables VALUES ('c', 'ns', 'legacy', 'lm0', NULL, NULL);",
    );
    assert_eq!(c.list_tables("ns").unwrap(), ["legacy", "t"]);
    assert_eq!(c.load_table("ns", "v").unwrap(), None);
    assert_eq!(
        c.drop_table("ns", "v").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        c.commit("ns", "v", "vm0", "vm1").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    // The view's name is still taken.
    assert_eq!(
        c.create_table("ns", "v", "x").unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    assert!(c.load_table("ns", "legacy").unwrap().is_some());
}
