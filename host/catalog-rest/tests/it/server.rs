//! The third-party server the tests run (`ldp_test_servers::rustberg`), and clients of it.

use std::time::Duration;

use ldp_catalog_rest::{RestCatalog, RestSettings};
pub use ldp_test_servers::rustberg::{Rustberg, TOKEN, WRONG_TOKEN, free_port};

/// Clients of a running server.
pub trait Clients {
    /// Settings with the admin token, named `lake`.
    fn settings(&self) -> RestSettings;
    /// A client with the admin token.
    fn catalog(&self) -> RestCatalog;
}

impl Clients for Rustberg {
    fn settings(&self) -> RestSettings {
        let mut settings = RestSettings::new(&self.uri, "lake");
        settings.token = Some(TOKEN.to_string());
        settings.timeout = Duration::from_secs(20);
        settings
    }

    fn catalog(&self) -> RestCatalog {
        RestCatalog::connect(self.settings()).unwrap_or_else(|error| panic!("{error}"))
    }
}
