//! `inspect`: what a file is, and why it is not an ldp plugin.

use crate::common::runtime;
use ldp_plugin_runtime::{FileFormat, PluginKind, RuntimeError};

#[test]
fn a_plugin_is_described() {
    let path = ldp_builtin_plugins::testing::component_path("identity");
    let bytes = std::fs::read(&path).unwrap();
    let inspection = runtime().inspect("identity.wasm", &bytes);
    assert_eq!(inspection.format, FileFormat::Component);
    assert_eq!(inspection.problem, None);
    let info = inspection.plugin.unwrap();
    assert_eq!(
        (info.name.as_str(), info.kind),
        ("identity", PluginKind::Transform)
    );
    assert!(
        inspection
            .exports
            .contains(&"ldp:plugin/transform@0.1.0".to_string())
    );
    // Only WASI and the contract's own interfaces (unused imports are dropped by the linker).
    assert!(
        inspection
            .imports
            .iter()
            .all(|i| i.starts_with("wasi:") || i.starts_with("ldp:plugin/")),
        "{:?}",
        inspection.imports
    );
    assert_eq!(inspection.sha256.len(), 64);
}

#[test]
fn a_core_module_is_not_a_plugin() {
    let core_module = b"\0asm\x01\0\0\0";
    let inspection = runtime().inspect("core.wasm", core_module);
    assert_eq!(inspection.format, FileFormat::CoreModule);
    assert!(inspection.problem.unwrap().contains("wasm32-wasip2"));
    let err = runtime().load_bytes("core.wasm", core_module).unwrap_err();
    assert!(matches!(err, RuntimeError::NotAPlugin { .. }));
    assert!(
        err.to_string()
            .starts_with("core.wasm is not an ldp plugin: it is a core WebAssembly module")
    );
}

#[test]
fn text_is_not_webassembly() {
    let inspection = runtime().inspect("notes.txt", b"hello, world");
    assert_eq!(inspection.format, FileFormat::NotWasm);
    assert!(inspection.plugin.is_none());
}

#[test]
fn a_component_that_exports_no_ldp_interface_is_not_a_plugin() {
    // The smallest component: exports nothing.
    let empty_component = b"\0asm\x0d\0\x01\0";
    let inspection = runtime().inspect("empty.wasm", empty_component);
    assert_eq!(inspection.format, FileFormat::Component);
    let problem = inspection.problem.unwrap();
    assert!(
        problem.contains("exports none of the ldp plugin interfaces"),
        "{problem}"
    );
}
