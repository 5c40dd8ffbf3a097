//! moto's Glue server (`ldp_test_servers::moto`, shared by the tests of this binary with Glue's
//! lock patched in) and a Glue catalog on it.

use ldp_catalog_glue::{GlueCatalog, GlueSettings};
pub use ldp_test_servers::moto::*;

/// A Glue catalog named `lake` on a moto server.
pub trait OnMoto {
    /// Settings for a catalog named `lake` on this server.
    fn settings(&self) -> GlueSettings;
    /// A catalog on this server.
    fn catalog(&self) -> GlueCatalog;
}

impl OnMoto for Moto {
    fn settings(&self) -> GlueSettings {
        let mut settings = GlueSettings::new("lake", REGION, ACCESS_KEY_ID, SECRET_ACCESS_KEY);
        settings.endpoint = Some(self.endpoint.clone());
        settings
    }

    fn catalog(&self) -> GlueCatalog {
        GlueCatalog::connect(self.settings()).expect("usable settings")
    }
}
