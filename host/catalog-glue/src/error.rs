//! Errors of the Glue client: one enum, an [`ErrorKind`] for exit codes and retry decisions.
//!
//! Every message names the catalog (`Glue catalog 'name' in region R at endpoint E`), says
//! what the client was doing and what to do about it. Text from Glue or the network is scrubbed
//! of the secret access key and the session token before it is stored.

use std::fmt;

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The settings cannot be used (no region, no credentials, a bad endpoint).
    InvalidSettings,
    /// Glue could not be reached, or the connection broke or timed out.
    Unreachable,
    /// Glue refused the credentials or the signature.
    Unauthorized,
    /// The credentials are valid but not permitted (`AccessDeniedException`).
    Forbidden,
    /// The database or table does not exist (`EntityNotFoundException`).
    NotFound,
    /// The database or table already exists (`AlreadyExistsException`).
    AlreadyExists,
    /// A commit lost the compare-and-swap: another writer committed first.
    Conflict,
    /// A commit failed in a way that leaves its outcome unknown.
    CommitStateUnknown,
    /// The Glue table exists but is not an Iceberg table (or lacks its metadata location).
    NotIceberg,
    /// Glue rejected the request as invalid (`InvalidInputException`, a database not empty...).
    Rejected,
    /// Glue failed or throttled the client.
    ServerError,
    /// Glue answered with something this client cannot read.
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
            ErrorKind::NotIceberg => "not an Iceberg table",
            ErrorKind::Rejected => "rejected",
            ErrorKind::ServerError => "server error",
            ErrorKind::BadResponse => "bad response",
        })
    }
}

/// A Glue catalog error. `catalog` is [`GlueSettings::describe`](crate::GlueSettings::describe);
/// `action` says what the client was doing (`load table nyc.rides`); `detail` is Glue's error
/// type and message.
///
/// Retryable ([`Error::is_retryable`]): [`Conflict`](Error::Conflict) (reload, re-apply, commit
/// again); [`Unreachable`](Error::Unreachable) when the connection was never made or a read
/// failed; [`ServerError`](Error::ServerError) on a read or on throttling. Not retryable: a
/// write whose connection broke or that got a 5xx (Glue may have applied it), and
/// [`CommitStateUnknown`](Error::CommitStateUnknown).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The settings cannot be used.
    #[error("the settings of the {catalog} are not usable: {problem}")]
    InvalidSettings {
        /// The catalog.
        catalog: String,
        /// What is wrong and what to write instead.
        problem: String,
    },
    /// Glue could not be reached, or the connection failed.
    #[error("could not reach the {catalog} to {action}: {cause}; {}", unreachable_hint(*sent, *retryable))]
    Unreachable {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The network error.
        cause: String,
        /// Whether the request may have reached Glue.
        sent: bool,
        /// Whether repeating the call is safe.
        retryable: bool,
    },
    /// Glue refused the credentials.
    #[error(
        "the {catalog} refused the credentials to {action} ({detail}); check AWS_ACCESS_KEY_ID, \
         AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (temporary credentials expire), the region, \
         and the machine's clock"
    )]
    Unauthorized {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// Glue's error.
        detail: String,
    },
    /// The credentials may not do this.
    #[error(
        "the {catalog} does not permit these credentials to {action} ({detail}); grant the \
         IAM principal the Glue action (and Lake Formation permissions if the catalog uses them)"
    )]
    Forbidden {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// Glue's error.
        detail: String,
    },
    /// The database or table does not exist.
    #[error(
        "{what} does not exist in the {catalog} ({detail}); check the name, or create it first"
    )]
    NotFound {
        /// The catalog.
        catalog: String,
        /// `table ns.name` or `database ns`.
        what: String,
        /// Glue's error.
        detail: String,
    },
    /// The database or table already exists.
    #[error("{what} already exists in the {catalog} ({detail})")]
    AlreadyExists {
        /// The catalog.
        catalog: String,
        /// `table ns.name` or `database ns`.
        what: String,
        /// Glue's error.
        detail: String,
    },
    /// A commit lost the compare-and-swap.
    #[error(
        "commit to table {table} lost a race in the {catalog}: {detail}; another writer changed \
         the table first; reload the table and retry"
    )]
    Conflict {
        /// The catalog.
        catalog: String,
        /// `ns.name`.
        table: String,
        /// What differed: the expected and the current metadata location, or Glue's
        /// `ConcurrentModificationException`.
        detail: String,
    },
    /// A commit's outcome is unknown.
    #[error(
        "commit to table {table} in the {catalog} has an unknown outcome ({cause}): Glue may \
         have applied it; reload the table and compare its metadata_location with the one \
         committed before retrying"
    )]
    CommitStateUnknown {
        /// The catalog.
        catalog: String,
        /// `ns.name`.
        table: String,
        /// The status and Glue's error, or the network error.
        cause: String,
    },
    /// The Glue table is not an Iceberg table.
    #[error(
        "table {table} in the {catalog} is not an Iceberg table ({problem}); it was made by \
         another tool: choose another name"
    )]
    NotIceberg {
        /// The catalog.
        catalog: String,
        /// `ns.name`.
        table: String,
        /// What is missing or different.
        problem: String,
    },
    /// Glue rejected the request.
    #[error("the {catalog} rejected the request to {action} ({detail})")]
    Rejected {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// Glue's error, or why the client refused.
        detail: String,
    },
    /// Glue failed or throttled the client.
    #[error(
        "the {catalog} failed to {action} ({status} {detail}); {}",
        if *retryable { "try again later" } else { "it may have applied the change: check before retrying" }
    )]
    ServerError {
        /// The catalog.
        catalog: String,
        /// What the client was doing.
        action: String,
        /// The HTTP status.
        status: u16,
        /// Glue's error.
        detail: String,
        /// Whether repeating the call is safe.
        retryable: bool,
    },
    /// The answer cannot be read.
    #[error(
        "the {catalog} answered the request to {action} with something this client cannot \
         read: {problem}; check that the endpoint is an AWS Glue endpoint"
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
            Error::NotIceberg { .. } => ErrorKind::NotIceberg,
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
        (false, _) => {
            "check the network, the region, and the endpoint (glue.endpoint or AWS_ENDPOINT_URL)"
        }
        (true, true) => "check the network and try again",
        (true, false) => {
            "Glue may have applied the change: check before retrying, and check the network"
        }
    }
}
