//! Errors a plugin returns to the host.

use crate::bindings::types as wit;
use arrow_schema::ArrowError;
use std::fmt;

/// Why a plugin call failed; the host maps it to an exit code and a retry decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The plugin's configuration is invalid.
    Config,
    /// The input data is invalid (a malformed row, a wrong type).
    Data,
    /// Reading or writing failed; another attempt may help.
    Io,
    /// A limit was reached.
    Limit,
    /// A bug in the plugin.
    Internal,
}

/// An error returned by a plugin: a kind and a message that names the file, line, column or
/// key at fault and says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// For the user.
    pub message: String,
}

impl PluginError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    /// The configuration is invalid.
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Config, message)
    }
    /// The input data is invalid.
    pub fn data(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Data, message)
    }
    /// Reading or writing failed.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }
    /// A limit was reached.
    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Limit, message)
    }
    /// A bug in the plugin.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PluginError {}

impl From<ArrowError> for PluginError {
    fn from(e: ArrowError) -> Self {
        let kind = match &e {
            ArrowError::IoError(..) => ErrorKind::Io,
            ArrowError::ParseError(_)
            | ArrowError::CsvError(_)
            | ArrowError::JsonError(_)
            | ArrowError::CastError(_)
            | ArrowError::InvalidArgumentError(_)
            | ArrowError::SchemaError(_)
            | ArrowError::ArithmeticOverflow(_)
            | ArrowError::DivideByZero
            | ArrowError::ComputeError(_) => ErrorKind::Data,
            _ => ErrorKind::Internal,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<std::io::Error> for PluginError {
    fn from(e: std::io::Error) -> Self {
        Self::io(e.to_string())
    }
}

impl From<PluginError> for wit::PluginError {
    fn from(e: PluginError) -> Self {
        let kind = match e.kind {
            ErrorKind::Config => wit::ErrorKind::Config,
            ErrorKind::Data => wit::ErrorKind::Data,
            ErrorKind::Io => wit::ErrorKind::Io,
            ErrorKind::Limit => wit::ErrorKind::Limit,
            ErrorKind::Internal => wit::ErrorKind::Internal,
        };
        wit::PluginError {
            kind,
            message: e.message,
        }
    }
}

/// Turns an error of the wire format into the error the host sees.
pub(crate) fn wire(e: ArrowError) -> wit::PluginError {
    PluginError::internal(format!("Arrow IPC: {e}")).into()
}
