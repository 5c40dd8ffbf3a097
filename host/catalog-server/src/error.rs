//! Errors of the server: one enum for the settings, the listener and every request, with an
//! [`ErrorKind`] that fixes a request error's HTTP status and the REST spec's error `type`.
//!
//! A request that fails is answered with the spec's error model,
//! `{"error": {"message", "type", "code"}}`, and changes nothing.

use std::net::SocketAddr;

/// What kind of failure an error is; for a request error, its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The settings cannot serve (no catalog, a repeated name, a remote address without
    /// `allow_remote`, ...).
    InvalidSettings,
    /// The listen address could not be bound, or the runtime could not start.
    Startup,
    /// A catalog could not be opened when the server started.
    Catalog,
    /// 400: the request is malformed (bad JSON, a nested namespace, an unknown update).
    BadRequest,
    /// 401: the bearer token is missing or wrong.
    Unauthorized,
    /// 403: a write to a read-only server.
    Forbidden,
    /// 404: no such namespace, table, warehouse or route.
    NotFound,
    /// 405: the route exists but not with this method.
    MethodNotAllowed,
    /// 406: an operation this server does not do (stage-create, purge, multi-table
    /// transactions).
    Unsupported,
    /// 409: the namespace or table exists already.
    AlreadyExists,
    /// 409: the namespace still holds tables.
    NotEmpty,
    /// 409: a requirement failed or another writer committed first; the client may retry.
    CommitFailed,
    /// 422: a namespace property both set and removed.
    Unprocessable,
    /// 503: the catalog stayed locked by another writer; try again.
    Unavailable,
    /// 500: anything else (I/O, an unreadable metadata file, the database failing).
    Internal,
}

impl ErrorKind {
    /// The HTTP status of a request failing with this kind (500 for the startup kinds).
    pub fn status(self) -> u16 {
        match self {
            ErrorKind::BadRequest => 400,
            ErrorKind::Unauthorized => 401,
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::MethodNotAllowed => 405,
            ErrorKind::Unsupported => 406,
            ErrorKind::AlreadyExists | ErrorKind::NotEmpty | ErrorKind::CommitFailed => 409,
            ErrorKind::Unprocessable => 422,
            ErrorKind::Unavailable => 503,
            ErrorKind::InvalidSettings
            | ErrorKind::Startup
            | ErrorKind::Catalog
            | ErrorKind::Internal => 500,
        }
    }
}

/// An error of the server. Request errors carry the REST error `type` their response names.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The settings cannot serve.
    #[error("invalid catalog server settings: {message}")]
    InvalidSettings {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Binding the listen address failed.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The server's runtime or thread could not start.
    #[error("cannot start the catalog server: {source}")]
    Runtime {
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A served catalog could not be opened at startup.
    #[error("cannot serve catalog {name}: {source}")]
    OpenCatalog {
        /// The catalog's name.
        name: String,
        /// The catalog's error.
        #[source]
        source: Box<ldp_catalog::Error>,
    },
    /// A request failed; `kind` gives its status, `error_type` the REST error type.
    #[error("{message}")]
    Request {
        /// The status.
        kind: ErrorKind,
        /// The REST spec's error type (`NoSuchTableException`, `CommitFailedException`, ...).
        error_type: &'static str,
        /// What went wrong, for the client.
        message: String,
    },
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidSettings { .. } => ErrorKind::InvalidSettings,
            Error::Bind { .. } | Error::Runtime { .. } => ErrorKind::Startup,
            Error::OpenCatalog { .. } => ErrorKind::Catalog,
            Error::Request { kind, .. } => *kind,
        }
    }

    /// The REST spec's error type of this error's response.
    pub fn error_type(&self) -> &'static str {
        match self {
            Error::Request { error_type, .. } => error_type,
            _ => "InternalServerError",
        }
    }

    /// The spec's error model: `{"error": {"message", "type", "code"}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": {
                "message": self.to_string(),
                "type": self.error_type(),
                "code": self.kind().status(),
            }
        })
    }

    pub(crate) fn request(
        kind: ErrorKind,
        error_type: &'static str,
        message: impl Into<String>,
    ) -> Error {
        Error::Request {
            kind,
            error_type,
            message: message.into(),
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Error {
        Error::request(ErrorKind::BadRequest, "BadRequestException", message)
    }

    pub(crate) fn not_found(error_type: &'static str, message: impl Into<String>) -> Error {
        Error::request(ErrorKind::NotFound, error_type, message)
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Error {
        Error::request(
            ErrorKind::Unsupported,
            "UnsupportedOperationException",
            message,
        )
    }

    pub(crate) fn commit_failed(message: impl Into<String>) -> Error {
        Error::request(ErrorKind::CommitFailed, "CommitFailedException", message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Error {
        Error::request(ErrorKind::Internal, "InternalServerError", message)
    }

    /// Whether the catalog connection that produced this error should be dropped rather than
    /// reused (the database or the connection itself failed).
    pub(crate) fn spoils_connection(&self) -> bool {
        matches!(self.kind(), ErrorKind::Internal | ErrorKind::Unavailable)
    }
}

impl From<ldp_catalog::Error> for Error {
    fn from(error: ldp_catalog::Error) -> Error {
        let (kind, error_type) = catalog_status(&error);
        Error::request(kind, error_type, error.to_string())
    }
}

impl From<ldp_table::Error> for Error {
    fn from(error: ldp_table::Error) -> Error {
        use ldp_table::{Error as T, ErrorKind as K};
        let (kind, error_type) = match &error {
            T::Catalog { source } => catalog_status(source),
            _ => match error.kind() {
                K::NotFound => (ErrorKind::NotFound, "NoSuchTableException"),
                K::CommitConflict => (ErrorKind::CommitFailed, "CommitFailedException"),
                K::InvalidRequest | K::Schema | K::Unsupported => {
                    (ErrorKind::BadRequest, "BadRequestException")
                }
                _ => (ErrorKind::Internal, "InternalServerError"),
            },
        };
        Error::request(kind, error_type, error.to_string())
    }
}

/// The status and REST error type of a catalog error.
fn catalog_status(error: &ldp_catalog::Error) -> (ErrorKind, &'static str) {
    use ldp_catalog::Error as C;
    match error {
        C::NamespaceNotFound { .. } => (ErrorKind::NotFound, "NoSuchNamespaceException"),
        C::TableNotFound { .. } => (ErrorKind::NotFound, "NoSuchTableException"),
        C::NamespaceExists { .. } | C::TableExists { .. } => {
            (ErrorKind::AlreadyExists, "AlreadyExistsException")
        }
        C::NamespaceNotEmpty { .. } => (ErrorKind::NotEmpty, "NamespaceNotEmptyException"),
        C::CommitConflict { .. } => (ErrorKind::CommitFailed, "CommitFailedException"),
        C::InvalidName { .. } => (ErrorKind::BadRequest, "BadRequestException"),
        C::ReadOnly { .. } => (ErrorKind::Forbidden, "ForbiddenException"),
        C::Busy { .. } => (ErrorKind::Unavailable, "ServiceUnavailableException"),
        _ => (ErrorKind::Internal, "InternalServerError"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn catalog_errors_map_to_statuses() {
        let file = PathBuf::from("c.db");
        let cases = [
            (
                ldp_catalog::Error::TableNotFound {
                    file: file.clone(),
                    table: "a.t".into(),
                },
                404,
                "NoSuchTableException",
            ),
            (
                ldp_catalog::Error::NamespaceNotEmpty {
                    file: file.clone(),
                    namespace: "a".into(),
                    tables: 1,
                },
                409,
                "NamespaceNotEmptyException",
            ),
            (
                ldp_catalog::Error::CommitConflict {
                    file: file.clone(),
                    table: "a.t".into(),
                    expected: "x".into(),
                    actual: "y".into(),
                },
                409,
                "CommitFailedException",
            ),
            (
                ldp_catalog::Error::ReadOnly {
                    file,
                    operation: "drop".into(),
                },
                403,
                "ForbiddenException",
            ),
        ];
        for (error, status, error_type) in cases {
            let json = Error::from(error).to_json();
            assert_eq!(json["error"]["code"], status, "{json}");
            assert_eq!(json["error"]["type"], error_type, "{json}");
            assert!(json["error"]["message"].as_str().unwrap().contains("c.db"));
        }
    }

    #[test]
    fn startup_errors_are_500s_without_a_rest_type() {
        let e = Error::InvalidSettings {
            message: "no catalog".into(),
        };
        assert_eq!(e.kind(), ErrorKind::InvalidSettings);
        assert_eq!(e.kind().status(), 500);
        assert_eq!(e.error_type(), "InternalServerError");
    }
}
