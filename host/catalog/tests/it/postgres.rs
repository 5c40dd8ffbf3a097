//! What only the PostgreSQL engine has: pyiceberg's tables as PostgreSQL stores them, URIs,
//! passwords and connection failures, and the lock timeout.

use ldp_catalog::{Catalog, ErrorKind, Mode, SchemaVersion};
use std::time::{Duration, Instant};

use crate::common::{Engine, Place, new_catalog};
use ldp_test_servers::postgres::{PASSWORD, PgServer, ROLE, server};

/// The columns pyiceberg 0.12's `SqlCatalog` declares (`pyiceberg/catalog/sql.py`:
/// `mapped_column(String(255), nullable=False, primary_key=True)` and so on), as PostgreSQL's
/// `information_schema.columns` shows the tables SQLAlchemy creates from them:
/// `(table, column, data type, length, nullable)`, in column order.
const PYICEBERG_COLUMNS: [(&str, &str, &str, i32, &str); 10] = [
    (
        "iceberg_namespace_properties",
        "catalog_name",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_namespace_properties",
        "namespace",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_namespace_properties",
        "property_key",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_namespace_properties",
        "property_value",
        "character varying",
        1000,
        "NO",
    ),
    (
        "iceberg_tables",
        "catalog_name",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_tables",
        "table_namespace",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_tables",
        "table_name",
        "character varying",
        255,
        "NO",
    ),
    (
        "iceberg_tables",
        "metadata_location",
        "character varying",
        1000,
        "YES",
    ),
    (
        "iceberg_tables",
        "previous_metadata_location",
        "character varying",
        1000,
        "YES",
    ),
    (
        "iceberg_tables",
        "iceberg_type",
        "character varying",
        5,
        "YES",
    ),
];

/// The primary keys SQLAlchemy declares (unnamed, so PostgreSQL names them `<table>_pkey`):
/// `(table, constraint, column)` in key order.
const PYICEBERG_KEYS: [(&str, &str, &str); 6] = [
    (
        "iceberg_namespace_properties",
        "iceberg_namespace_properties_pkey",
        "catalog_name",
    ),
    (
        "iceberg_namespace_properties",
        "iceberg_namespace_properties_pkey",
        "namespace",
    ),
    (
        "iceberg_namespace_properties",
        "iceberg_namespace_properties_pkey",
        "property_key",
    ),
    ("iceberg_tables", "iceberg_tables_pkey", "catalog_name"),
    ("iceberg_tables", "iceberg_tables_pkey", "table_namespace"),
    ("iceberg_tables", "iceberg_tables_pkey", "table_name"),
];

fn columns(place: &Place) -> Vec<(String, String, String, i32, String)> {
    server()
        .client(&place.database)
        .query(
            "SELECT table_name::text, column_name::text, data_type::text, \
                    character_maximum_length::int, is_nullable::text \
             FROM information_schema.columns WHERE table_schema = 'public' \
             ORDER BY table_name, ordinal_position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
}

fn keys(place: &Place) -> Vec<(String, String, String)> {
    server()
        .client(&place.database)
        .query(
            "SELECT k.table_name::text, k.constraint_name::text, k.column_name::text \
             FROM information_schema.key_column_usage k \
             JOIN information_schema.table_constraints c \
               ON c.constraint_name = k.constraint_name AND c.table_schema = k.table_schema \
             WHERE c.constraint_type = 'PRIMARY KEY' AND k.table_schema = 'public' \
             ORDER BY k.table_name, k.ordinal_position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

#[test]
fn create_makes_pyicebergs_tables() {
    let (place, catalog) = new_catalog(Engine::Postgres, "nyc");
    assert!(catalog.is_postgres());
    assert_eq!(catalog.schema_version(), SchemaVersion::V1);
    assert_eq!(catalog.journal_mode().unwrap(), None);
    let expected_columns: Vec<_> = PYICEBERG_COLUMNS
        .iter()
        .map(|&(t, c, d, l, n)| (t.into(), c.into(), d.into(), l, n.into()))
        .collect();
    let expected_keys: Vec<_> = PYICEBERG_KEYS
        .iter()
        .map(|&(t, k, c)| (t.into(), k.into(), c.into()))
        .collect();
    assert_eq!(columns(&place), expected_columns);
    assert_eq!(keys(&place), expected_keys);
    drop(catalog);
    // Reopening in every mode changes nothing.
    for mode in [Mode::Create, Mode::ReadWrite, Mode::ReadOnly] {
        let c = place.open("nyc", mode).unwrap();
        assert_eq!(c.schema_version(), SchemaVersion::V1);
    }
    assert_eq!(columns(&place), expected_columns);
    assert_eq!(keys(&place), expected_keys);
}

#[test]
fn the_role_logs_in_with_a_scram_password() {
    server();
    let rows = server().admin_query(&format!(
        "SELECT rolpassword FROM pg_authid WHERE rolname = '{ROLE}'"
    ));
    let stored: String = rows[0].get(0);
    assert!(stored.starts_with("SCRAM-SHA-256$"), "{stored}");
}

#[test]
fn every_spelling_of_the_scheme_connects() {
    let place = Place::new(Engine::Postgres, "schemes");
    let rest = place.uri();
    let rest = rest.strip_prefix("postgresql://").unwrap();
    for scheme in ldp_catalog::POSTGRES_SCHEMES {
        let uri = format!("{scheme}://{rest}");
        let c = Catalog::open_postgres(&uri, Some(PASSWORD), "c", Mode::Create)
            .unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert_eq!(c.file().to_str(), Some(uri.as_str()));
        c.create_namespace_if_missing(scheme).unwrap();
    }
    let c = place.open("c", Mode::ReadOnly).unwrap();
    assert_eq!(c.list_namespaces(None).unwrap().len(), 4);
}

/// Asserts that `e` is a connection error naming `uri` and `hint`, and not the password.
fn assert_connect_error(e: &ldp_catalog::Error, uri: &str, hint: &str, password: &str) {
    let message = e.to_string();
    eprintln!("{message}");
    assert_eq!(e.kind(), ErrorKind::Connect, "{message}");
    assert!(!e.is_retryable());
    assert!(
        message.starts_with(&format!("cannot connect to the catalog at {uri}: ")),
        "{message}"
    );
    assert!(message.contains(hint), "{message}");
    assert!(!message.contains(password), "{message}");
    assert!(!format!("{e:?}").contains(password), "{e:?}");
}

#[test]
fn a_wrong_password_names_the_uri_and_the_password_env_but_not_the_password() {
    let place = Place::new(Engine::Postgres, "wrongpw");
    let uri = place.uri();
    let wrong = "Not-The-Password-7";
    let e = Catalog::open_postgres(&uri, Some(wrong), "c", Mode::ReadWrite).unwrap_err();
    assert_connect_error(&e, &uri, "password_env", wrong);
    assert!(
        e.to_string().contains("password authentication failed"),
        "{e}"
    );
    assert!(e.to_string().contains("check the user"), "{e}");

    let e = Catalog::open_postgres(&uri, None, "c", Mode::ReadWrite).unwrap_err();
    assert_connect_error(&e, &uri, "password_env", PASSWORD);
    assert!(e.to_string().contains("none was given"), "{e}");
}

#[test]
fn an_unreachable_server_names_the_uri_and_says_what_to_check() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let uri = format!("postgresql://{ROLE}@127.0.0.1:{port}/lake");
    let started = Instant::now();
    let e = Catalog::open_postgres(&uri, Some(PASSWORD), "c", Mode::ReadOnly).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_connect_error(&e, &uri, "check the host and port", PASSWORD);
    assert!(e.to_string().contains("PostgreSQL runs there"), "{e}");
}

#[test]
fn a_missing_database_says_so() {
    let uri = format!(
        "postgresql://{ROLE}@127.0.0.1:{}/no_such_db",
        server().port()
    );
    let e = Catalog::open_postgres(&uri, Some(PASSWORD), "c", Mode::Create).unwrap_err();
    assert_connect_error(&e, &uri, "create the database", PASSWORD);
    assert!(
        e.to_string().contains("\"no_such_db\" does not exist"),
        "{e}"
    );
}

#[test]
fn a_password_in_the_uri_is_refused_without_connecting() {
    let place = Place::new(Engine::Postgres, "inuri");
    let plain = place.uri();
    let with_password = plain.replace(&format!("{ROLE}@"), &format!("{ROLE}:{PASSWORD}@"));
    for uri in [with_password, format!("{plain}?password={PASSWORD}")] {
        let e = Catalog::open_postgres(&uri, None, "c", Mode::Create).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidUri, "{e}");
        assert!(!e.to_string().contains(PASSWORD), "{e}");
        assert!(e.to_string().contains(&plain), "{e}");
    }
    assert!(
        place.query("SELECT to_regclass('iceberg_tables')::text")[0][0].is_none(),
        "nothing was created"
    );
}

/// A writer that holds a lock longer than the busy timeout makes a commit fail with a retryable
/// `Busy` naming the catalog, as SQLite's busy timeout does.
#[test]
fn a_lock_held_too_long_is_busy_and_retryable() {
    let (place, c) = new_catalog(Engine::Postgres, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    let mut other = server().client(&place.database);
    let mut tx = other.transaction().unwrap();
    tx.batch_execute("LOCK TABLE iceberg_tables IN EXCLUSIVE MODE")
        .unwrap();
    let started = Instant::now();
    let e = c.commit("ns", "t", "m0", "m1").unwrap_err();
    let waited = started.elapsed();
    assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
    assert!(e.is_retryable());
    assert!(e.to_string().contains(&place.uri()), "{e}");
    assert!(e.to_string().contains("committing to table ns.t"), "{e}");
    assert!(waited >= ldp_catalog::BUSY_TIMEOUT, "{waited:?}");
    // Readers are not blocked by a writer's lock; the commit works once the lock is gone.
    assert_eq!(
        c.load_table("ns", "t").unwrap().unwrap().metadata_location,
        "m0"
    );
    tx.rollback().unwrap();
    c.commit("ns", "t", "m0", "m1").unwrap();
    assert_eq!(
        c.load_table("ns", "t").unwrap().unwrap().metadata_location,
        "m1"
    );
}

/// Any other failure names the catalog, the operation and the server's own message.
#[test]
fn a_server_error_names_the_catalog_the_operation_and_the_cause() {
    let (place, c) = new_catalog(Engine::Postgres, "c");
    c.create_namespace_if_missing("ns").unwrap();
    place.exec("DROP TABLE iceberg_tables");
    let e = c.load_table("ns", "t").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Postgres, "{e}");
    assert!(!e.is_retryable());
    assert_eq!(
        e.to_string(),
        format!(
            "PostgreSQL failed on the catalog at {} while loading table ns.t: db error: \
             ERROR: relation \"iceberg_tables\" does not exist",
            place.uri()
        )
    );
}

/// The test server's guard: dropping it stops the server and removes its folder.
#[test]
fn a_dropped_server_stops_and_leaves_nothing() {
    let own = PgServer::start();
    let (dir, port) = (own.dir().to_path_buf(), own.port());
    let database = own.new_database("guard");
    own.client(&database).batch_execute("SELECT 1").unwrap();
    drop(own);
    assert!(!dir.exists(), "{} is left", dir.display());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}
