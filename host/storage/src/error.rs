//! Errors of object storage, with the kind each is.

use std::path::PathBuf;

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The URI is malformed (no bucket, no key, a key object storage cannot hold).
    InvalidUri,
    /// The URI carries a user name or password: refused, credentials come from the environment.
    CredentialsInUri,
    /// A scheme this build does not reach (`az://`).
    Unsupported,
    /// The store cannot be configured from the environment (a half-set key pair, a bad
    /// endpoint).
    Config,
    /// The object does not exist.
    NotFound,
    /// A local file could not be read or written.
    Io,
    /// The store refused a request or could not be reached.
    Store,
}

impl ErrorKind {
    /// Whether another attempt may succeed: the object may land later, the network may come
    /// back. A bad URI or configuration never passes on retry.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::NotFound | ErrorKind::Store)
    }

    /// Whether the config or the environment must change (a URI, a scheme, the store's
    /// settings), as opposed to a failure of the store or a local file.
    pub fn is_config(self) -> bool {
        matches!(
            self,
            ErrorKind::InvalidUri
                | ErrorKind::CredentialsInUri
                | ErrorKind::Unsupported
                | ErrorKind::Config
        )
    }
}

/// An object storage failure. The message names the URI (never its credentials) and says what
/// to do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The URI cannot name an object.
    #[error("{uri}: {message}")]
    InvalidUri {
        /// The URI as written.
        uri: String,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// The URI has a user name (and maybe a password) in it.
    #[error(
        "{uri}: a storage URI must not carry credentials (user name or password before '@'); \
         remove them from the path and set them in the environment instead ({hint})"
    )]
    CredentialsInUri {
        /// The URI with its credentials masked (`s3://***@bucket/key`).
        uri: String,
        /// Where the store's credentials come from.
        hint: &'static str,
    },
    /// A scheme this build does not reach.
    #[error("{uri}: {message}")]
    Unsupported {
        /// The URI.
        uri: String,
        /// What this build reaches instead.
        message: String,
    },
    /// The store cannot be built from the environment.
    #[error("{uri}: cannot configure object storage from the environment: {source}; check {hint}")]
    Config {
        /// The URI.
        uri: String,
        /// The variables that configure the store.
        hint: &'static str,
        /// object_store's error.
        #[source]
        source: object_store::Error,
    },
    /// The AWS profile named in the environment does not exist.
    #[error("{uri}: {message}")]
    Profile {
        /// The URI.
        uri: String,
        /// Which profile, and what to do.
        message: String,
    },
    /// The object does not exist.
    #[error("{uri} does not exist")]
    NotFound {
        /// The URI.
        uri: String,
    },
    /// A local file failed.
    #[error("cannot {action} {} (for {uri}): {source}", path.display())]
    Io {
        /// `create`, `write`, `read`.
        action: &'static str,
        /// The local file.
        path: PathBuf,
        /// The object it was for.
        uri: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A request to the store failed.
    #[error("cannot {action} {uri}: {source}")]
    Store {
        /// `download`, `upload`, `check`.
        action: &'static str,
        /// The URI.
        uri: String,
        /// object_store's error.
        #[source]
        source: object_store::Error,
    },
    /// The I/O runtime that drives requests could not start.
    #[error("cannot start the object storage runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Error {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidUri { .. } => ErrorKind::InvalidUri,
            Error::CredentialsInUri { .. } => ErrorKind::CredentialsInUri,
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::Config { .. } | Error::Profile { .. } => ErrorKind::Config,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Io { .. } | Error::Runtime(_) => ErrorKind::Io,
            Error::Store { .. } => ErrorKind::Store,
        }
    }

    /// Whether another attempt may succeed ([`ErrorKind::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        self.kind().is_retryable()
    }

    /// A store error for `uri`: a missing object is [`Error::NotFound`].
    pub(crate) fn store(action: &'static str, uri: &str, source: object_store::Error) -> Error {
        match source {
            object_store::Error::NotFound { .. } => Error::NotFound {
                uri: uri.to_string(),
            },
            source => Error::Store {
                action,
                uri: uri.to_string(),
                source,
            },
        }
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
