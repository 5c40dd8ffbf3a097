//! The built-in ldp plugins, compiled to WebAssembly components by this crate's build script
//! and embedded as bytes, so `ldp` needs no plugin files.
//!
//! The build script builds the `plugins/` workspace for `wasm32-wasip2` in release into
//! `<target>/wasm-plugins` (adding the target with rustup when it is missing). Plugins under
//! `plugins/testing/` are built too, for tests and benchmarks, but never embedded: tests find
//! them with [`testing::component_path`].

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// One embedded plugin.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// The plugin's name: the component `plugins/` built as `<name>.wasm`.
    pub name: &'static str,
    /// The sha256 of `bytes`, computed by the build (lower-case hex).
    pub sha256: &'static str,
    /// The component's bytes.
    pub bytes: &'static [u8],
}

/// The embedded plugin named `name`.
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTIN.iter().find(|b| b.name == name)
}

/// Plugins built for tests and benchmarks; not shipped.
pub mod testing {
    use std::path::PathBuf;

    /// The path of the component built from `plugins/testing/<name>`.
    ///
    /// # Panics
    /// When no such test plugin exists (a bug in the test).
    pub fn component_path(name: &str) -> PathBuf {
        assert!(
            super::TESTING.contains(&name),
            "no test plugin {name}; they are {:?}",
            super::TESTING
        );
        PathBuf::from(super::WASM_DIR).join(format!("{}.wasm", name.replace('-', "_")))
    }
}
