//! An open catalog: its connection, its name, and how it was opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::address::{CatalogAddress, PostgresAddress};
use crate::backend::{Backend, DbError, Session, postgres, sqlite};
use crate::error::{Error, ErrorKind, Result};
use crate::remote::{RemoteAddress, RemoteCatalog};
use crate::schema::{self, SchemaVersion};

/// How long a statement waits for another connection's lock before failing with
/// [`ErrorKind::Busy`](crate::ErrorKind::Busy). Python's `sqlite3` (so pyiceberg through
/// SQLAlchemy) waits 5 s too; on PostgreSQL this is the session's `lock_timeout`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The catalog file of a `local` catalog block: `<warehouse_path>/<identifier>_catalog.db`.
pub fn catalog_file(warehouse_path: &Path, identifier: &str) -> PathBuf {
    warehouse_path.join(format!("{identifier}_catalog.db"))
}

/// How to open a catalog file or database.
///
/// On PostgreSQL the database itself must exist in every mode (like pyiceberg, this crate never
/// creates one); [`Mode::ReadWrite`] and [`Mode::Create`] both create missing catalog tables, and
/// a [`Mode::ReadOnly`] session is also read-only on the server
/// (`default_transaction_read_only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The file must exist ([`Error::NoCatalog`] otherwise) and is opened read-only: nothing is
    /// created, and writes fail with [`ErrorKind::ReadOnly`](crate::ErrorKind::ReadOnly). A file
    /// without the catalog tables reads as an empty catalog.
    ReadOnly,
    /// The file must exist ([`Error::NoCatalog`] otherwise); missing catalog tables are created,
    /// like pyiceberg does. For commands that refuse to create a catalog but write to one
    /// (maintenance, dataset pins).
    ReadWrite,
    /// Creates the folder, the file and the catalog tables when missing, like pyiceberg
    /// (`CREATE TABLE IF NOT EXISTS`).
    Create,
}

/// An open catalog: one connection to one SQLite file or PostgreSQL database, scoped to one
/// catalog name (the `catalog_name` column; several catalogs may share a file or database).
///
/// `Catalog` is `Send` but not `Sync`: give each thread its own (opening is cheap). A SQLite
/// file's journal mode is left as it is (pyiceberg leaves SQLite's default, `delete`); writes
/// take the write lock up front (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: a `SHARE ROW EXCLUSIVE`
/// lock on both catalog tables) and every statement waits up to [`BUSY_TIMEOUT`] for a lock.
#[derive(Debug)]
pub struct Catalog {
    store: Store,
    pub(crate) file: PathBuf,
    pub(crate) name: String,
    pub(crate) mode: Mode,
    pub(crate) schema: SchemaVersion,
}

/// Where the catalog's operations go. One per open catalog, so the SQL connection's size is
/// not worth a box.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per open catalog; boxing the connection gains nothing"
)]
enum Store {
    /// The catalog tables in SQLite or PostgreSQL, run by this crate's SQL.
    Sql(Backend),
    /// A catalog behind a network API, run by its client.
    Remote(Box<dyn RemoteCatalog>),
}

impl Catalog {
    /// Opens the catalog file `path` for the catalog named `catalog_name`.
    ///
    /// With [`Mode::ReadOnly`] or [`Mode::ReadWrite`] a missing file is an [`Error::NoCatalog`];
    /// name the table the caller wanted with [`Error::for_table`] to get the message `Iceberg
    /// table ns.t does not exist: there is no catalog at <file>. …`.
    pub fn open(path: impl AsRef<Path>, catalog_name: &str, mode: Mode) -> Result<Catalog> {
        let file = path.as_ref().to_path_buf();
        check_catalog_name(&file, catalog_name)?;
        let conn = sqlite::open(&file, mode)?;
        Catalog::on(Backend::Sqlite(conn), file, catalog_name, mode)
    }

    /// Connects to the PostgreSQL catalog at `uri` (see [`PostgresAddress::parse`]) with
    /// `password` (read by the caller from the variable the catalog's `password_env` names).
    ///
    /// Errors name the catalog by its URI without password: [`Error::InvalidUri`] for an
    /// unusable URI or one that embeds a password, [`Error::Connect`] when the server cannot be
    /// reached or refuses the login or the database.
    pub fn open_postgres(
        uri: &str,
        password: Option<&str>,
        catalog_name: &str,
        mode: Mode,
    ) -> Result<Catalog> {
        let address = PostgresAddress::parse(uri, password)?;
        Catalog::open_postgres_at(&address, catalog_name, mode)
    }

    /// Opens the catalog at `address`: [`Catalog::open`] for a SQLite file,
    /// [`Catalog::open_postgres`] for a PostgreSQL database.
    pub fn connect(address: &CatalogAddress, catalog_name: &str, mode: Mode) -> Result<Catalog> {
        match address {
            CatalogAddress::Sqlite(file) => Catalog::open(file, catalog_name, mode),
            CatalogAddress::Postgres(address) => {
                Catalog::open_postgres_at(address, catalog_name, mode)
            }
            CatalogAddress::Remote(address) => Catalog::open_remote(address, catalog_name, mode),
        }
    }

    /// Connects to a remote catalog (REST, Glue) through its client. Its tables are its own;
    /// [`Mode::ReadOnly`] refuses writes here as on any catalog, and the other modes are the
    /// same (a remote catalog is never created by connecting).
    pub fn open_remote(address: &RemoteAddress, catalog_name: &str, mode: Mode) -> Result<Catalog> {
        let file = PathBuf::from(address.0.describe());
        check_catalog_name(&file, catalog_name)?;
        let client = address.0.connect()?;
        Ok(Catalog {
            store: Store::Remote(client),
            file,
            name: catalog_name.to_string(),
            mode,
            schema: SchemaVersion::V1,
        })
    }

    /// Whether the catalog is a remote one (REST, Glue), whose commits need the table's
    /// metadata and updates and not only its metadata file ([`Catalog::commit_change`]).
    pub fn is_remote(&self) -> bool {
        self.remote().is_some()
    }

    /// The remote catalog's client, when the catalog is one.
    pub(crate) fn remote(&self) -> Option<&dyn RemoteCatalog> {
        match &self.store {
            Store::Remote(client) => Some(client.as_ref()),
            Store::Sql(_) => None,
        }
    }

    fn open_postgres_at(
        address: &PostgresAddress,
        catalog_name: &str,
        mode: Mode,
    ) -> Result<Catalog> {
        let file = PathBuf::from(address.redacted());
        check_catalog_name(&file, catalog_name)?;
        let client = postgres::connect(address, mode)?;
        Catalog::on(Backend::Postgres(client), file, catalog_name, mode)
    }

    /// Reads (or, unless read-only, completes) the catalog tables of a fresh connection.
    fn on(backend: Backend, file: PathBuf, catalog_name: &str, mode: Mode) -> Result<Catalog> {
        let schema = match mode {
            Mode::ReadOnly => schema::detect(&backend, &file)?,
            Mode::ReadWrite | Mode::Create => schema::ensure(&backend, &file)?,
        };
        Ok(Catalog {
            store: Store::Sql(backend),
            file,
            name: catalog_name.to_string(),
            mode,
            schema,
        })
    }

    /// The catalog file; for a PostgreSQL catalog, its URI without password (what the errors'
    /// `file` field holds).
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The catalog name (the `catalog_name` column).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How the catalog was opened.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The layout of the catalog tables.
    pub fn schema_version(&self) -> SchemaVersion {
        self.schema
    }

    /// Whether the catalog lives in PostgreSQL (else in a SQLite file).
    pub fn is_postgres(&self) -> bool {
        matches!(self.store, Store::Sql(Backend::Postgres(_)))
    }

    /// The file's SQLite journal mode (`delete` unless some tool changed it); this crate never
    /// changes it. `None` for a PostgreSQL catalog, which has none.
    pub fn journal_mode(&self) -> Result<Option<String>> {
        match &self.store {
            Store::Sql(Backend::Sqlite(conn)) => sqlite::journal_mode(conn)
                .map(Some)
                .map_err(|e| Error::sqlite(&self.file, "reading the journal mode", e)),
            Store::Sql(Backend::Postgres(_)) | Store::Remote(_) => Ok(None),
        }
    }

    /// Names an engine error after this catalog and what was being done.
    pub(crate) fn db_err(&self, context: impl Into<String>, e: DbError) -> Error {
        Error::db(&self.file, context, e)
    }

    /// Fails on a read-only catalog.
    pub(crate) fn writable(&self, operation: impl FnOnce() -> String) -> Result<()> {
        match self.mode {
            Mode::ReadOnly => Err(Error::ReadOnly {
                file: self.file.clone(),
                operation: operation(),
            }),
            Mode::ReadWrite | Mode::Create => Ok(()),
        }
    }

    /// Runs `f` on the connection, outside any explicit transaction.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Session) -> Result<T>) -> Result<T> {
        match &self.store {
            Store::Sql(backend) => backend.read(f),
            Store::Remote(_) => Err(self.not_sql()),
        }
    }

    /// Runs `f` in a write transaction that holds the catalog's write lock from its start, so a
    /// read-then-write cannot interleave with another writer; commits when `f` succeeds, rolls
    /// back otherwise.
    pub(crate) fn write<T>(
        &self,
        context: &str,
        f: impl FnOnce(&mut dyn Session) -> Result<T>,
    ) -> Result<T> {
        match &self.store {
            Store::Sql(backend) => backend.write(|e| self.db_err(context, e), f),
            Store::Remote(_) => Err(self.not_sql()),
        }
    }

    /// Every public operation hands a remote catalog to its client first; reaching the SQL of
    /// one is a bug of this crate.
    fn not_sql(&self) -> Error {
        Error::Remote {
            file: self.file.clone(),
            kind: ErrorKind::Remote,
            message: format!(
                "{}: an operation of the SQL catalogs reached a remote catalog (a bug of ldp)",
                self.file.display()
            ),
        }
    }
}

/// A catalog name must not be empty.
fn check_catalog_name(file: &Path, catalog_name: &str) -> Result<()> {
    if catalog_name.is_empty() {
        return Err(Error::InvalidName {
            file: file.to_path_buf(),
            what: "catalog name",
            name: String::new(),
            reason: "it is empty",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_file_is_identifier_catalog_db() {
        assert_eq!(
            catalog_file(Path::new("/w"), "nyc"),
            PathBuf::from("/w/nyc_catalog.db")
        );
    }

    #[test]
    fn empty_catalog_name_is_rejected() {
        let e = Catalog::open("/nonexistent/x.db", "", Mode::ReadOnly).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidName);
        // Before any connection is tried.
        let e = Catalog::open_postgres("postgresql://u@127.0.0.1:1/d", None, "", Mode::ReadOnly)
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidName);
        assert!(
            e.to_string().contains("postgresql://u@127.0.0.1:1/d"),
            "{e}"
        );
    }

    #[test]
    fn a_catalog_is_send() {
        fn send<T: Send>() {}
        send::<Catalog>();
        send::<Error>();
    }
}
