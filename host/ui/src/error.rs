//! The errors of the page's server, each with the HTTP status it answers with.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UiError {
    kind: UiErrorKind,
    message: String,
}

/// The kind of a [`UiError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UiErrorKind {
    /// The settings cannot be served (before anything starts).
    Settings,
    /// The address cannot be bound, or the server cannot start.
    Start,
    /// A request the page never sends (400).
    BadRequest,
    /// No token, or a wrong one (401).
    Unauthorized,
    /// A `Host` that is not loopback on a loopback server (403).
    ForbiddenHost,
    /// No such page, table or snapshot (404).
    NotFound,
    /// SQL the guard refuses, or a query that fails (422): the user's to fix.
    Query,
    /// Reading the lake failed (500).
    Internal,
}

impl UiError {
    /// An error of `kind`.
    pub fn new(kind: UiErrorKind, message: impl Into<String>) -> UiError {
        UiError {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn settings(message: String) -> UiError {
        UiError::new(UiErrorKind::Settings, message)
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> UiError {
        UiError::new(UiErrorKind::BadRequest, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> UiError {
        UiError::new(UiErrorKind::NotFound, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> UiError {
        UiError::new(UiErrorKind::Internal, message)
    }

    /// The kind of error.
    pub fn kind(&self) -> UiErrorKind {
        self.kind
    }

    /// The HTTP status it answers with.
    pub fn status(&self) -> u16 {
        match self.kind {
            UiErrorKind::BadRequest => 400,
            UiErrorKind::Unauthorized => 401,
            UiErrorKind::ForbiddenHost => 403,
            UiErrorKind::NotFound => 404,
            UiErrorKind::Query => 422,
            UiErrorKind::Settings | UiErrorKind::Start | UiErrorKind::Internal => 500,
        }
    }
}

impl From<ldp_status::Error> for UiError {
    fn from(e: ldp_status::Error) -> UiError {
        match e.kind() {
            ldp_status::ErrorKind::NotFound => UiError::not_found(e.to_string()),
            _ => UiError::internal(e.to_string()),
        }
    }
}

impl From<ldp_mcp::ToolError> for UiError {
    fn from(e: ldp_mcp::ToolError) -> UiError {
        use ldp_mcp::ToolErrorKind as K;
        let kind = match e.kind {
            K::TableNotAllowed => UiErrorKind::NotFound,
            K::InvalidArguments => UiErrorKind::BadRequest,
            _ => UiErrorKind::Query,
        };
        UiError::new(kind, e.to_string())
    }
}
