//! Errors of the REST client: one enum, an [`ErrorKind`] for exit codes and retry decisions.
//!
//! Every message names the catalog (`'name' at <uri>`, the URI without user info), says what the
//! client was doing and what to do about it. Text that comes from the server or the network is
//! scrubbed of the client's token, client secret and header values before it is stored.

use std::fmt;

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The settings cannot be used (a URI that is not `http(s)://`, a bad header property).
    InvalidSettings,
    /// The catalog (or its token endpoint) could not be reached, or the connection broke or
    /// timed out.
    Unreachable,
    /// The catalog refused the client's credentials (401, 419; or the token endpoint refused
    /// the client credentials).
    Unauthorized,
    /// The client is authenticated but not permitted (403).
    Forbidden,
    /// The namespace or table does not exist (404).
    NotFound,
    /// The namespace or table already exists (409 on a create or rename).
    AlreadyExists,
    /// A commit's requirement no longer holds (409): another writer committed first; the same
    /// meaning as a lost compare-and-swap in a SQL catalog.
    Conflict,
    /// A commit failed in a way that leaves its outcome unknown (5xx, or the connection broke
    /// after the request was sent): the catalog may have applied it.
    CommitStateUnknown,
    /// The catalog rejected the request as invalid (400, 405, 406, 409 other than the above,
    /// 422, ...).
    Rejected,
    /// The catalog failed (5xx) or asked the client to slow down (429).
    ServerError,
    /// The catalog answered with a status or a body this client cannot read.
    BadResponse,
}

impl ErrorKind {
    /// The process exit code for this kind: 1 for every runtime error, as ldp's other catalogs.
    pub fn exit_code(self) -> i32 {
        1
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::InvalidSettings => "invalid settings",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::NotFound => "not found",
            ErrorKind::AlreadyExists => "already exists",
            ErrorKind::Conflict => "commit conflict",
            ErrorKind::CommitStateUnknown => "commit state unknown",
            ErrorKind::Rejected => "rejected",
            ErrorKind::ServerError => "server error",
            ErrorKind::BadResponse => "bad response",
        })
    }
}

/// How the client authenticated; decides what an [`Error::Unauthorized`] tells the user to
/// check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// No token and no credential.
    None,
    /// A bearer token ([`RestSettings::token`](crate::RestSettings::token)).
    Token,
    /// OAuth2 client credentials ([`RestSettings::credential`](crate::RestSettings::credential)).
    Credential,
}

/// A REST catalog error. `catalog` is `'name' at <uri>`; `action` says what the client was doing
/// (`load Iceberg table nyc.rides`); `detail` is the server's error type and message.
///
/// Retryable ([`Error::is_retryable`]): [`Conflict`](Error::Conflict) (reload, re-apply, commit
/// again); [`Unreachable`](Error::Unreachable) when the connection was never made, or when a read
/// failed; [`ServerError`](Error::ServerError) on a read, on a 503 or a 429. Not retryable: a
/// write other than a commit whose connection broke or that got a 5xx other than 503 (the
/// catalog may have applied it), and [`CommitStateUnknown`](Error::CommitStateUnknown).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The settings cannot be used.
    #[error("the settings of the Iceberg REST catalog {catalog} are not usable: {problem}")]
    InvalidSettings {
        /// The catalog.
        catalog: String,
        /// What is wrong and what to write instead.
        problem: String,
    },
    /// The catalog could not be reached, or the connection failed.
    #[error(
        "could not reach the Iceberg REST catalog {catalog} to {action}: {cause}; {}",
        unreachable_hint(*sent, *retryable)
    )]
    Unreachable {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The network error.
        cause: String,
        /// Whether the request may have reached the catalog.
        sent: bool,
        /// Whether repeating the call is safe.
        retryable: bool,
    },
    /// The catalog (or its token endpoint) refused the credentials.
    #[error(
        "the Iceberg REST catalog {catalog} refused to {action} ({status} {detail}): {}",
        unauthorized_hint(*auth)
    )]
    Unauthorized {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The HTTP status.
        status: u16,
        /// How the client authenticated.
        auth: AuthMethod,
        /// The server's error.
        detail: String,
    },
    /// The client may not do this.
    #[error(
        "the Iceberg REST catalog {catalog} does not permit this client to {action} (403 {detail}); \
         ask the catalog's administrators for the grant, or use another token"
    )]
    Forbidden {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The server's error.
        detail: String,
    },
    /// The namespace or table does not exist.
    #[error(
        "{what} does not exist in the Iceberg REST catalog {catalog} (404 {detail}); check the name, or create it first"
    )]
    NotFound {
        /// The catalog.
        catalog: String,
        /// `Iceberg table ns.name` or `namespace ns`.
        what: String,
        /// The server's error.
        detail: String,
    },
    /// The namespace or table already exists.
    #[error("{what} already exists in the Iceberg REST catalog {catalog} (409 {detail})")]
    AlreadyExists {
        /// The catalog.
        catalog: String,
        /// `Iceberg table ns.name` or `namespace ns`.
        what: String,
        /// The server's error.
        detail: String,
    },
    /// A commit's requirement no longer holds.
    #[error(
        "commit to Iceberg table {table} lost a race in the Iceberg REST catalog {catalog} (409 {detail}): \
         another writer changed the table first; reload the table and retry"
    )]
    Conflict {
        /// The catalog.
        catalog: String,
        /// `ns.name`.
        table: String,
        /// The server's error (which requirement failed).
        detail: String,
    },
    /// A commit's outcome is unknown.
    #[error(
        "commit to Iceberg table {table} in the Iceberg REST catalog {catalog} has an unknown outcome ({cause}): \
         the catalog may have applied it; reload the table and look for the commit's snapshot before retrying"
    )]
    CommitStateUnknown {
        /// The catalog.
        catalog: String,
        /// `ns.name`.
        table: String,
        /// The status and the server's error, or the network error.
        cause: String,
    },
    /// The catalog rejected the request.
    #[error(
        "the Iceberg REST catalog {catalog} rejected the request to {action} ({status} {detail})"
    )]
    Rejected {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The HTTP status.
        status: u16,
        /// The server's error.
        detail: String,
    },
    /// The catalog failed, or throttled the client.
    #[error(
        "the Iceberg REST catalog {catalog} failed to {action} ({status} {detail}); {}",
        if *retryable { "try again later" } else { "it may have applied the change: check before retrying" }
    )]
    ServerError {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The HTTP status.
        status: u16,
        /// The server's error.
        detail: String,
        /// Whether repeating the call is safe.
        retryable: bool,
    },
    /// The answer cannot be read.
    #[error(
        "the Iceberg REST catalog {catalog} answered the request to {action} with something this client \
         cannot read: {problem}; check that `uri` points at an Iceberg REST catalog"
    )]
    BadResponse {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// What was wrong with the answer.
        problem: String,
    },
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidSettings { .. } => ErrorKind::InvalidSettings,
            Error::Unreachable { .. } => ErrorKind::Unreachable,
            Error::Unauthorized { .. } => ErrorKind::Unauthorized,
            Error::Forbidden { .. } => ErrorKind::Forbidden,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::AlreadyExists { .. } => ErrorKind::AlreadyExists,
            Error::Conflict { .. } => ErrorKind::Conflict,
            Error::CommitStateUnknown { .. } => ErrorKind::CommitStateUnknown,
            Error::Rejected { .. } => ErrorKind::Rejected,
            Error::ServerError { .. } => ErrorKind::ServerError,
            Error::BadResponse { .. } => ErrorKind::BadResponse,
        }
    }

    /// Whether repeating the same call may succeed and is safe (see [`Error`]). For a
    /// [`Conflict`](Error::Conflict) the call is repeated after reloading the table and
    /// re-applying the change.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Conflict { .. } => true,
            Error::Unreachable { retryable, .. } | Error::ServerError { retryable, .. } => {
                *retryable
            }
            _ => false,
        }
    }
}

fn unreachable_hint(sent: bool, retryable: bool) -> &'static str {
    match (sent, retryable) {
        (false, _) => "check that the catalog runs and that `uri` is right",
        (true, true) => "check the network and the catalog, then try again",
        (true, false) => {
            "the catalog may have applied the change: check before retrying, and check the network"
        }
    }
}

fn unauthorized_hint(auth: AuthMethod) -> &'static str {
    match auth {
        AuthMethod::Token => "the token is wrong or expired; check the variable token_env names",
        AuthMethod::Credential => {
            "the client credentials were refused; check client_id:client_secret in the variable credential_env names"
        }
        AuthMethod::None => {
            "the catalog wants authentication; set token_env (a bearer token) or credential_env (client_id:client_secret)"
        }
    }
}
