//! What `ldp ui` serves and how.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::UiError;

/// Where the page listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8765";

/// The variable that holds the token of a page listening beyond loopback.
pub const TOKEN_ENV: &str = "LDP_UI_TOKEN";

/// How `ldp ui` serves.
#[derive(Debug, Clone)]
pub struct UiSettings {
    /// Lake folders or configs.
    pub paths: Vec<PathBuf>,
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The token requests must carry; required when `listen` is not loopback.
    pub token: Option<String>,
    /// The most rows a query result holds.
    pub max_rows: usize,
    /// The longest a query may run.
    pub timeout: Duration,
    /// The most memory one query may hold (bytes).
    pub memory_limit: Option<usize>,
}

impl UiSettings {
    /// Settings for `paths` on the default address, with the SQL box's defaults (1,000 rows,
    /// 30 s, 2 GiB).
    pub fn new(paths: Vec<PathBuf>, listen: SocketAddr) -> UiSettings {
        UiSettings {
            paths,
            listen,
            token: None,
            max_rows: 1000,
            timeout: Duration::from_secs(30),
            memory_limit: Some(2 << 30),
        }
    }

    /// Checks the settings before anything is opened.
    ///
    /// # Errors
    ///
    /// [`UiError`] of kind `Settings`: no path, a path that does not exist, an address beyond
    /// loopback without a token, a token shorter than 16 characters.
    pub fn validate(&self) -> Result<(), UiError> {
        if self.paths.is_empty() {
            return Err(UiError::settings(
                "name a lake folder or a config: ldp ui DIR".to_string(),
            ));
        }
        if let Some(missing) = self.paths.iter().find(|p| !p.exists()) {
            return Err(UiError::settings(format!(
                "{} does not exist; name a lake folder or a config",
                missing.display()
            )));
        }
        match &self.token {
            None if !self.listen.ip().is_loopback() => Err(UiError::settings(format!(
                "--listen {} is beyond loopback: set {TOKEN_ENV} to a token of 16 characters or more (the page then asks for it)",
                self.listen
            ))),
            Some(token) if token.chars().count() < 16 => Err(UiError::settings(format!(
                "{TOKEN_ENV} is {} characters; use 16 or more",
                token.chars().count()
            ))),
            _ => Ok(()),
        }
    }
}
