//! What the fuzz targets share: the clock plans are counted from, and a source plugin driven
//! as the host drives its component, natively.

use ldp_plugin_ipc::{Decoder, Validation};
use ldp_plugin_sdk::Source;
use ldp_plugin_sdk::source::{__next, __open};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The clock of plans and window shortcuts: 2026-08-01 07:15:00 UTC.
pub fn now() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_785_568_500).expect("a valid instant")
}

/// Writes `content` to `name` in this process's own temporary folder and returns its path.
/// Each run of a target writes over the same files.
pub fn temp_file(name: &str, content: &[u8]) -> String {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ldp-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    });
    let path = dir.join(name);
    std::fs::write(&path, content).expect("a temporary file");
    path.to_str().expect("a UTF-8 temporary path").to_owned()
}

/// Runs source `T` with `config` through the SDK's exports (what its component runs) and
/// decodes every message as the host does. A plugin error ends the stream; a message the host
/// cannot decode is a bug of the plugin or the SDK, so it panics.
pub fn drive_source<T: Source>(config: &str) {
    let Ok(schema_msg) = __open::<T>(config.to_owned()) else {
        return;
    };
    let mut decoder = Decoder::new(schema_msg, Validation::Full)
        .unwrap_or_else(|e| panic!("the host refuses the plugin's schema: {e}"));
    while let Ok(Some(msg)) = __next() {
        let batch = decoder
            .decode(msg)
            .unwrap_or_else(|e| panic!("the host refuses the plugin's batch: {e}"));
        assert_eq!(batch.schema_ref().fields(), decoder.schema().fields());
    }
}
