//! One runtime for all tests, with a compiled-code cache under the target folder.

use ldp_plugin_runtime::{Plugin, Runtime, RuntimeOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache")
}

pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        Runtime::new(RuntimeOptions {
            cache_dir: Some(cache_dir()),
            duckdb: None,
        })
        .expect("the runtime starts")
    })
}

/// A test plugin from `plugins/testing/`.
pub fn testing(name: &str) -> Plugin {
    let path = ldp_builtin_plugins::testing::component_path(name);
    runtime().load_file(&path).expect("the test plugin loads")
}

/// A built-in plugin.
pub fn builtin(name: &str) -> Plugin {
    let b = ldp_builtin_plugins::get(name).expect("the built-in exists");
    assert_eq!(
        ldp_plugin_runtime::sha256_hex(b.bytes),
        b.sha256,
        "the build hashed it"
    );
    runtime()
        .load_embedded(&format!("built-in plugin '{name}'"), b.bytes, b.sha256)
        .expect("the built-in loads")
}
