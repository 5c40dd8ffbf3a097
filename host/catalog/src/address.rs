//! Where a catalog lives: a SQLite file, or a PostgreSQL database named by a URI.
//!
//! A PostgreSQL URI is the one a `sql` catalog block gives pyiceberg (SQLAlchemy's form):
//! `postgresql://user@host:5432/db`, also spelled `postgres://`, or with the SQLAlchemy driver
//! `postgresql+psycopg://` / `postgresql+psycopg2://` (the driver is Python's; it is dropped
//! here). The password never comes in the URI: the caller reads it from the environment variable
//! the block names (`password_env`) and passes it apart, and a URI holding one is refused. The
//! URI without password is how every message names the catalog.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::remote::RemoteAddress;

/// The URI schemes of a PostgreSQL catalog, as SQLAlchemy spells them.
pub const POSTGRES_SCHEMES: [&str; 4] = [
    "postgresql",
    "postgres",
    "postgresql+psycopg",
    "postgresql+psycopg2",
];

/// How long connecting to a PostgreSQL server may take unless the URI sets `connect_timeout`.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a catalog lives. Two addresses are equal when they name the same file or the same
/// URI (passwords aside); it shows as the file or the URI without password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogAddress {
    /// A SQLite catalog file.
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres(PostgresAddress),
    /// A catalog behind a network API (REST, Glue), reached through its client.
    Remote(RemoteAddress),
}

/// A PostgreSQL catalog's connection settings and its URI without password. Its `Debug` shows
/// only that URI.
#[derive(Clone)]
pub struct PostgresAddress {
    /// Boxed: a `Config` is large, and [`CatalogAddress`] would be as large for a file too.
    config: Box<postgres::Config>,
    redacted: String,
}

impl CatalogAddress {
    /// The SQLite catalog file, if the catalog is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            CatalogAddress::Sqlite(file) => Some(file),
            CatalogAddress::Postgres(_) | CatalogAddress::Remote(_) => None,
        }
    }

    /// Whether there may be a catalog to read: a SQLite file must exist; a PostgreSQL database
    /// is asked when connecting.
    pub fn may_exist(&self) -> bool {
        match self {
            CatalogAddress::Sqlite(file) => file.is_file(),
            CatalogAddress::Postgres(_) | CatalogAddress::Remote(_) => true,
        }
    }
}

impl fmt::Display for CatalogAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogAddress::Sqlite(file) => write!(f, "{}", file.display()),
            CatalogAddress::Postgres(address) => f.write_str(address.redacted()),
            CatalogAddress::Remote(address) => f.write_str(&address.0.describe()),
        }
    }
}

/// The same URI is the same catalog, whatever password reaches it.
impl PartialEq for PostgresAddress {
    fn eq(&self, other: &Self) -> bool {
        self.redacted == other.redacted
    }
}

impl Eq for PostgresAddress {}

impl fmt::Debug for PostgresAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresAddress")
            .field("uri", &self.redacted)
            .finish_non_exhaustive()
    }
}

impl PostgresAddress {
    /// Whether `uri` names a PostgreSQL database (one of [`POSTGRES_SCHEMES`], in any case).
    pub fn is_postgres_uri(uri: &str) -> bool {
        scheme_of(uri).is_some_and(|scheme| {
            POSTGRES_SCHEMES
                .iter()
                .any(|s| s.eq_ignore_ascii_case(scheme))
        })
    }

    /// Reads a catalog URI; `password` is the one from the catalog's `password_env`, if any.
    ///
    /// Fails with [`Error::InvalidUri`] (naming the URI without password) when the scheme is not
    /// one of [`POSTGRES_SCHEMES`], when the URI embeds a password (`user:secret@`, or a
    /// `password=` parameter), or when it is not a valid connection URI.
    pub fn parse(uri: &str, password: Option<&str>) -> Result<PostgresAddress> {
        let redacted = redact(uri);
        let invalid = |reason: String| Error::InvalidUri {
            uri: redacted.clone(),
            reason,
        };
        if !Self::is_postgres_uri(uri) {
            return Err(invalid(format!(
                "a PostgreSQL catalog's uri starts with {}",
                POSTGRES_SCHEMES.map(|s| format!("{s}://")).join(", ")
            )));
        }
        if redacted != uri {
            return Err(invalid(
                "it embeds a password; put the password in an environment variable and name \
                 that variable with the catalog's password_env"
                    .into(),
            ));
        }
        let (_, rest) = uri.split_once("://").unwrap_or_default();
        let mut config: postgres::Config = format!("postgresql://{rest}")
            .parse()
            .map_err(|e: postgres::Error| invalid(e.to_string()))?;
        if config.get_password().is_some() {
            return Err(invalid("it embeds a password".into()));
        }
        if let Some(password) = password {
            config.password(password);
        }
        if config.get_application_name().is_none() {
            config.application_name("ldp");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(PostgresAddress {
            config: Box::new(config),
            redacted,
        })
    }

    /// The URI as given, without password: how messages name the catalog.
    pub fn redacted(&self) -> &str {
        &self.redacted
    }

    pub(crate) fn config(&self) -> &postgres::Config {
        &self.config
    }
}

/// The scheme of `scheme://…`.
fn scheme_of(uri: &str) -> Option<&str> {
    uri.split_once("://").map(|(scheme, _)| scheme)
}

/// `uri` without its password: the `:secret` of `user:secret@host`, and every `password=`
/// query parameter.
pub(crate) fn redact(uri: &str) -> String {
    let Some((scheme, rest)) = uri.split_once("://") else {
        return uri.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            format!("{user}@{hosts}")
        }
        None => authority.to_string(),
    };
    let (path, query_and_fragment) = tail.split_at(tail.find('?').unwrap_or(tail.len()));
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(query_and_fragment) = query_and_fragment.strip_prefix('?') {
        let (query, fragment) = query_and_fragment
            .split_once('#')
            .map_or((query_and_fragment, None), |(q, f)| (q, Some(f)));
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| pair.split('=').next() != Some("password"))
            .collect();
        if !kept.is_empty() && kept != [""] {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
        if let Some(fragment) = fragment {
            out.push('#');
            out.push_str(fragment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_drops_passwords_only() {
        for (given, shown) in [
            (
                "postgresql://ldp@127.0.0.1:54329/lake",
                "postgresql://ldp@127.0.0.1:54329/lake",
            ),
            (
                "postgresql+psycopg://ldp:s3cret@db:5432/lake",
                "postgresql+psycopg://ldp@db:5432/lake",
            ),
            ("postgres://a:b:c@h/d", "postgres://a@h/d"),
            (
                "postgresql://u@h/d?sslmode=disable&password=s3cret&application_name=x",
                "postgresql://u@h/d?sslmode=disable&application_name=x",
            ),
            ("postgresql://u@h/d?password=s3cret", "postgresql://u@h/d"),
            (
                "postgresql:///d?host=/run/pg",
                "postgresql:///d?host=/run/pg",
            ),
            ("postgresql://h", "postgresql://h"),
        ] {
            assert_eq!(redact(given), shown, "{given}");
        }
    }

    #[test]
    fn schemes() {
        for uri in [
            "postgresql://u@h/d",
            "postgres://u@h/d",
            "postgresql+psycopg://u@h/d",
            "postgresql+psycopg2://u@h/d",
            "PostgreSQL://u@h/d",
        ] {
            let address = PostgresAddress::parse(uri, Some("pw")).unwrap();
            assert_eq!(address.redacted(), uri);
            assert_eq!(address.config().get_user(), Some("u"));
            assert_eq!(address.config().get_dbname(), Some("d"));
            assert_eq!(address.config().get_password(), Some(&b"pw"[..]));
        }
        for uri in [
            "sqlite:///c.db",
            "postgresql+asyncpg://u@h/d",
            "mysql://u@h/d",
            "c.db",
        ] {
            let e = PostgresAddress::parse(uri, None).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidUri, "{uri}");
            assert!(e.to_string().contains("postgresql+psycopg2://"), "{e}");
        }
    }

    #[test]
    fn a_password_in_the_uri_is_refused_and_never_shown() {
        for uri in [
            "postgresql://ldp:s3cret@db/lake",
            "postgresql+psycopg2://ldp:s3cret@db/lake",
            "postgresql://ldp@db/lake?password=s3cret",
        ] {
            let e = PostgresAddress::parse(uri, Some("other")).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidUri);
            let message = e.to_string();
            assert!(!message.contains("s3cret"), "{message}");
            assert!(message.contains("@db/lake"), "{message}");
            assert!(message.contains("password_env"), "{message}");
        }
    }

    #[test]
    fn debug_shows_no_password() {
        let address = PostgresAddress::parse("postgresql://u@h/d", Some("s3cret")).unwrap();
        let shown = format!("{:?}", CatalogAddress::Postgres(address));
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("postgresql://u@h/d"), "{shown}");
    }
}
