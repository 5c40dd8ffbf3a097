//! Builds the plugin workspace (`plugins/`) for `wasm32-wasip2` in release, once, and embeds the
//! built-in components.
//!
//! The plugins are built by a nested `cargo build` into `<target>/wasm-plugins`, a target
//! folder of their own, so the host's build and the plugins' build never wait on each other's
//! lock, and debug and release builds of the host share one build of the plugins. The
//! `wasm32-wasip2` target is added with rustup when it is missing.

use sha2::Digest;
use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Plugins embedded in the `ldp` binary, by plugin name (the component file stem is the name
/// with `-` as `_`: `events-jsonl` is `events_jsonl.wasm`).
const BUILTIN: &[&str] = &[
    "bigquery",
    "checks",
    "csv",
    "csv-sink",
    "duckdb",
    "duckdb-sink",
    "events-jsonl",
    "events-openlineage",
    "js",
    "json",
    "json-sink",
    "parquet",
    "parquet-sink",
    "xlsx",
    "xlsx-sink",
];

/// Plugins built for tests and benchmarks, never embedded (crate names in `plugins/testing/`).
const TESTING: &[&str] = &[
    "identity",
    "custom-check",
    "hostile-read-outside",
    "hostile-socket",
    "hostile-env",
    "hostile-loop",
    "hostile-alloc",
    "hostile-stderr",
    "hostile-trap",
    "hostile-exit",
    "hostile-schema",
    "http-pages",
    "markdown-sink",
];

const WASM_TARGET: &str = "wasm32-wasip2";

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest_dir
        .join("../..")
        .canonicalize()
        .expect("the repository root exists");
    for watched in [
        "plugins/Cargo.toml",
        "plugins/Cargo.lock",
        "plugins/.cargo/config.toml",
        "plugins/bigquery",
        "plugins/checks",
        "plugins/csv",
        "plugins/xlsx",
        "plugins/xlsx-sink",
        "plugins/parquet-sink",
        "plugins/parquet",
        "plugins/json",
        "plugins/json-sink",
        "plugins/csv-sink",
        "plugins/sink-text",
        "plugins/duckdb",
        "plugins/duckdb-sink",
        "plugins/events-jsonl",
        "plugins/events-openlineage",
        "plugins/js",
        "plugins/testing",
        "sdk/rust",
        "sdk/ipc",
        "sdk/pyrepr",
        "sdk/source-options",
        "sdk/check-params",
        "sdk/target-options",
        "wit",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=LDP_PLUGIN_TARGET_DIR");

    let target_dir = match env::var_os("LDP_PLUGIN_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map(|d| if d.is_relative() { root.join(d) } else { d })
            .unwrap_or_else(|| root.join("target"))
            .join("wasm-plugins"),
    };

    ensure_wasm_target();
    build_plugins(&root.join("plugins/Cargo.toml"), &target_dir);

    let wasm_dir = target_dir.join(WASM_TARGET).join("release");
    let mut out = String::new();
    writeln!(out, "/// Where the build put the plugin components.").unwrap();
    writeln!(
        out,
        "pub const WASM_DIR: &str = {:?};",
        wasm_dir.display().to_string()
    )
    .unwrap();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    writeln!(out, "/// The built-in plugins, embedded.").unwrap();
    writeln!(out, "pub static BUILTIN: &[Builtin] = &[").unwrap();
    for name in BUILTIN {
        let file = component_file(&wasm_dir, name);
        let bytes = std::fs::read(&file).expect("the component was just built");
        let sha256 = hex::encode(sha2::Sha256::digest(&bytes));
        // The bytes embedded are the bytes hashed: a copy of this build's own, since another
        // checkout sharing the target folder may build the same component again meanwhile.
        let copy = out_dir.join(format!("{}.wasm", name.replace('-', "_")));
        std::fs::write(&copy, &bytes).expect("OUT_DIR is writable");
        writeln!(
            out,
            "    Builtin {{ name: {name:?}, sha256: {sha256:?}, bytes: include_bytes!({:?}) }},",
            copy.display().to_string()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "/// The plugins built for tests, by crate name.").unwrap();
    writeln!(out, "pub const TESTING: &[&str] = &{TESTING:?};").unwrap();
    for name in TESTING {
        component_file(&wasm_dir, name);
    }
    std::fs::write(out_dir.join("builtin.rs"), out).expect("OUT_DIR is writable");
}

fn component_file(wasm_dir: &Path, name: &str) -> PathBuf {
    let file = wasm_dir.join(format!("{}.wasm", name.replace('-', "_")));
    assert!(
        file.exists(),
        "the plugin build did not produce {}",
        file.display()
    );
    file
}

/// Adds the wasm32-wasip2 target when the toolchain lacks it (toolchain auto-install may be off).
fn ensure_wasm_target() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if let Some(sysroot) = &sysroot
        && sysroot.join("lib/rustlib").join(WASM_TARGET).exists()
    {
        return;
    }
    let status = Command::new("rustup")
        .args(["target", "add", WASM_TARGET])
        .status();
    match status {
        Ok(s) if s.success() => {}
        _ => panic!(
            "the {WASM_TARGET} target is missing and `rustup target add {WASM_TARGET}` failed; \
             run it by hand, then build again"
        ),
    }
}

fn build_plugins(manifest: &Path, target_dir: &Path) {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // From the plugins' folder, so that plugins/.cargo/config.toml applies.
    cmd.current_dir(manifest.parent().expect("plugins/Cargo.toml has a folder"));
    cmd.args([
        "build",
        "--release",
        "--target",
        WASM_TARGET,
        "--manifest-path",
    ])
    .arg(manifest)
    .arg("--target-dir")
    .arg(target_dir);
    // The outer build's settings are for the host, not for the plugins.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_CFG_")
            || key.starts_with("CARGO_FEATURE_")
            || matches!(
                &*key,
                "RUSTFLAGS"
                    | "CARGO_ENCODED_RUSTFLAGS"
                    | "CARGO_BUILD_TARGET"
                    | "CARGO_TARGET_DIR"
                    | "CARGO_BUILD_RUSTFLAGS"
                    | "RUSTC_WORKSPACE_WRAPPER"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "PROFILE"
                    | "OPT_LEVEL"
                    | "DEBUG"
                    | "TARGET"
                    | "HOST"
            )
        {
            cmd.env_remove(&*key);
        }
    }
    let output = cmd.output().expect("cargo can be started");
    if !output.status.success() {
        panic!(
            "building the plugins (plugins/Cargo.toml) for {WASM_TARGET} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
