//! The embedded templates: (path in the project, text, executable).

use crate::args::{PluginKindArg, PluginLang};

/// One file of a project.
pub type File = (&'static str, &'static str, bool);

macro_rules! template {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/templates/", $path))
    };
}

/// The files of a `lang` project of `kind`.
pub fn files(lang: PluginLang, kind: PluginKindArg) -> Vec<File> {
    match lang {
        PluginLang::Rust => {
            let code = match kind {
                PluginKindArg::Source => template!("rust/source.rs.tmpl"),
                PluginKindArg::Transform => template!("rust/transform.rs.tmpl"),
                PluginKindArg::Check => template!("rust/check.rs.tmpl"),
                PluginKindArg::Sink => template!("rust/sink.rs.tmpl"),
            };
            vec![
                ("Cargo.toml", template!("rust/Cargo.toml.tmpl"), false),
                ("src/lib.rs", code, false),
                ("build.sh", template!("rust/build.sh.tmpl"), true),
                ("test.sh", template!("rust/test.sh.tmpl"), true),
                ("README.md", template!("rust/README.md.tmpl"), false),
                (".gitignore", "target/\n*.wasm\n", false),
            ]
        }
        PluginLang::Python | PluginLang::Js => Vec::new(),
    }
}
