//! The component's stack: Boa's parser and bytecompiler recurse once per nesting level of the
//! script (brackets, `else if` chains) and use about 10 KiB of stack per level in wasm32. Rust's
//! default 1 MiB stack in linear memory traps ("out of bounds memory access") at about 60 nested
//! brackets; 8 MiB holds several hundred. (The host's wasmtime `max_wasm_stack`, 512 KiB by
//! default, bounds the native part of the same recursion.)

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-cdylib=-zstack-size={}", 8 << 20);
    }
    println!("cargo::rerun-if-changed=build.rs");
}
