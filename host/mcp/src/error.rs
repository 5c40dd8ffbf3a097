//! What a tool reports back to the agent when a call cannot give a result, with the type name
//! the Python tool uses and the audit status it is recorded with.

/// The kind of a tool error (the Python tool's exception names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolErrorKind {
    /// Arguments missing, of the wrong type or out of range.
    InvalidArguments,
    /// The SQL is not exactly one read-only query.
    QueryRejected,
    /// The table is unknown or not served (the same message either way).
    TableNotAllowed,
    /// No pinned dataset by that name or version.
    DatasetNotFound,
    /// The query reached for something outside the served tables (a file, a URL).
    AccessDenied,
    /// The query ran past the time limit.
    QueryTimeout,
    /// The query or tool failed.
    QueryFailed,
}

impl ToolErrorKind {
    /// The type name in `{"error": {"type": …}}`.
    pub fn name(self) -> &'static str {
        match self {
            ToolErrorKind::InvalidArguments => "InvalidArguments",
            ToolErrorKind::QueryRejected => "QueryRejected",
            ToolErrorKind::TableNotAllowed => "TableNotAllowed",
            ToolErrorKind::DatasetNotFound => "DatasetNotFound",
            ToolErrorKind::AccessDenied => "AccessDenied",
            ToolErrorKind::QueryTimeout => "QueryTimeout",
            ToolErrorKind::QueryFailed => "QueryFailed",
        }
    }

    /// The audit status of a call that ended with it.
    pub fn audit_status(self) -> &'static str {
        match self {
            ToolErrorKind::InvalidArguments
            | ToolErrorKind::QueryRejected
            | ToolErrorKind::TableNotAllowed
            | ToolErrorKind::DatasetNotFound => "rejected",
            ToolErrorKind::AccessDenied => "denied",
            ToolErrorKind::QueryTimeout => "timeout",
            ToolErrorKind::QueryFailed => "error",
        }
    }
}

/// A tool call that gives an error result (`isError: true`).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {message}", kind.name())]
pub struct ToolError {
    /// What kind.
    pub kind: ToolErrorKind,
    /// What went wrong, and what to do.
    pub message: String,
}

impl ToolError {
    /// An error of `kind`.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> ToolError {
        ToolError {
            kind,
            message: message.into(),
        }
    }

    /// Bad arguments.
    pub fn arguments(message: impl Into<String>) -> ToolError {
        ToolError::new(ToolErrorKind::InvalidArguments, message)
    }

    /// The error of a query that the SQL layer refused or could not run.
    pub fn of_sql(error: ldp_sql::Error) -> ToolError {
        match error {
            ldp_sql::Error::Rejected { message } => {
                ToolError::new(ToolErrorKind::QueryRejected, message)
            }
            ldp_sql::Error::Timeout { seconds } => ToolError::new(
                ToolErrorKind::QueryTimeout,
                format!(
                    "the query ran longer than the server's limit of {seconds} s and was stopped"
                ),
            ),
            ldp_sql::Error::Sql { message } if is_table_function(&message) => ToolError::new(
                ToolErrorKind::AccessDenied,
                format!(
                    "blocked by the sandbox: {message}; only the served tables can be read (list_tables)"
                ),
            ),
            ldp_sql::Error::Sql { message } if message.contains("not found") => ToolError::new(
                ToolErrorKind::TableNotAllowed,
                format!("{message}; the tables this server serves are listed by list_tables"),
            ),
            other => ToolError::new(ToolErrorKind::QueryFailed, other.to_string()),
        }
    }
}

/// Whether DataFusion's message says the query called a table function (`read_csv(…)`), which
/// this server's sessions do not have.
fn is_table_function(message: &str) -> bool {
    message.contains("table function")
}

/// The Python tool's error document: `{"error": {"type", "message"}}`.
pub fn error_document(error: &ToolError) -> serde_json::Value {
    serde_json::json!({"error": {"type": error.kind.name(), "message": error.message}})
}
