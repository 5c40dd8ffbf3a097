//! Helpers shared by the tests: a fresh catalog location on either engine, and raw access to its
//! rows (as pyiceberg would see them).

use ldp_catalog::{Catalog, CatalogAddress, Mode, PostgresAddress};
use std::path::PathBuf;

use ldp_test_servers::postgres::{self as pg_server, PASSWORD};

/// The engine a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Where a fresh catalog lives: a file in a temporary folder, or a new database of the shared
/// test server. Nothing exists there yet (no SQLite file, no catalog tables).
pub struct Place {
    pub engine: Engine,
    /// Keeps the SQLite file's folder alive.
    _dir: Option<tempfile::TempDir>,
    /// The SQLite file.
    pub file: PathBuf,
    /// The PostgreSQL database.
    pub database: String,
}

impl Place {
    /// A place for the catalog `name` (SQLite: `<tmp>/warehouse/<name>_catalog.db`, in an
    /// existing folder).
    pub fn new(engine: Engine, name: &str) -> Place {
        match engine {
            Engine::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let warehouse = dir.path().join("warehouse");
                std::fs::create_dir(&warehouse).expect("warehouse folder");
                let file = ldp_catalog::catalog_file(&warehouse, name);
                Place {
                    engine,
                    _dir: Some(dir),
                    file,
                    database: String::new(),
                }
            }
            Engine::Postgres => Place {
                engine,
                _dir: None,
                file: PathBuf::new(),
                database: pg_server::server().new_database(name),
            },
        }
    }

    /// The PostgreSQL URI, without password.
    pub fn uri(&self) -> String {
        pg_server::server().uri(&self.database)
    }

    /// The catalog's address (with the role's password for PostgreSQL).
    pub fn address(&self) -> CatalogAddress {
        match self.engine {
            Engine::Sqlite => CatalogAddress::Sqlite(self.file.clone()),
            Engine::Postgres => CatalogAddress::Postgres(
                PostgresAddress::parse(&self.uri(), Some(PASSWORD)).expect("a valid uri"),
            ),
        }
    }

    /// Opens the catalog `name` here.
    pub fn open(&self, name: &str, mode: Mode) -> ldp_catalog::Result<Catalog> {
        Catalog::connect(&self.address(), name, mode)
    }

    /// How error messages name this catalog: the file, or the URI without password.
    pub fn shown(&self) -> String {
        match self.engine {
            Engine::Sqlite => self.file.display().to_string(),
            Engine::Postgres => self.uri(),
        }
    }

    /// Runs SQL statements directly, as another tool would.
    pub fn exec(&self, sql: &str) {
        match self.engine {
            Engine::Sqlite => rusqlite::Connection::open(&self.file)
                .expect("open")
                .execute_batch(sql)
                .expect(sql),
            Engine::Postgres => pg_server::server()
                .client(&self.database)
                .batch_execute(sql)
                .expect(sql),
        }
    }

    /// The rows of a query whose columns are all text.
    pub fn query(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        match self.engine {
            Engine::Sqlite => {
                let conn = rusqlite::Connection::open(&self.file).expect("open");
                let mut stmt = conn.prepare(sql).expect(sql);
                let columns = stmt.column_count();
                stmt.query_map([], |r| (0..columns).map(|i| r.get(i)).collect())
                    .expect(sql)
                    .collect::<Result<_, _>>()
                    .expect(sql)
            }
            Engine::Postgres => pg_server::server()
                .client(&self.database)
                .query(sql, &[])
                .expect(sql)
                .iter()
                .map(|r| (0..r.len()).map(|i| r.get(i)).collect())
                .collect(),
        }
    }

    /// Whether `iceberg_tables` has the column `column`.
    pub fn has_column(&self, column: &str) -> bool {
        let sql = match self.engine {
            Engine::Sqlite => format!(
                "SELECT name FROM pragma_table_info('iceberg_tables') WHERE name = '{column}'"
            ),
            Engine::Postgres => format!(
                "SELECT column_name::text FROM information_schema.columns \
                 WHERE table_name = 'iceberg_tables' AND column_name = '{column}'"
            ),
        };
        !self.query(&sql).is_empty()
    }

    /// The rows of `iceberg_tables`, as pyiceberg would see them.
    pub fn table_rows(&self) -> Vec<[Option<String>; 6]> {
        self.query(
            "SELECT catalog_name, table_namespace, table_name, metadata_location, \
             previous_metadata_location, iceberg_type FROM iceberg_tables \
             ORDER BY catalog_name, table_namespace, table_name",
        )
        .into_iter()
        .map(|row| row.try_into().expect("6 columns"))
        .collect()
    }

    /// The rows of `iceberg_namespace_properties`.
    pub fn property_rows(&self) -> Vec<[String; 4]> {
        self.query(
            "SELECT catalog_name, namespace, property_key, property_value \
             FROM iceberg_namespace_properties ORDER BY 1, 2, 3",
        )
        .into_iter()
        .map(|row| {
            let row: Vec<String> = row.into_iter().map(|v| v.expect("not null")).collect();
            row.try_into().expect("4 columns")
        })
        .collect()
    }
}

/// A new catalog `name` created on `engine`.
pub fn new_catalog(engine: Engine, name: &str) -> (Place, Catalog) {
    let place = Place::new(engine, name);
    let catalog = place.open(name, Mode::Create).expect("create catalog");
    (place, catalog)
}
