//! The embedded templates: (path in the project, text, executable).
//!
//! Every project has a `build.sh` that writes `NAME.wasm` into the project folder, a `test.sh`
//! that runs the project's own tests natively, a `README.md` and a `.gitignore`; the code files
//! depend on the language and the kind:
//!
//! - Rust: `src/lib.rs` (the plugin and its tests, with the SDK) and `Cargo.toml`;
//! - Python: `plugin.py` (the logic, over `ldp_arrow` tables), `app.py` (the component's export,
//!   for componentize-py) and `test_plugin.py` (unittest);
//! - JavaScript: `plugin.js` (the logic and the export, for componentize-js), `ldp.js` (errors,
//!   config and Arrow IPC messages, the same for every kind), `test/plugin.test.js`
//!   (`node --test`), `package.json` and `package-lock.json`.
//!
//! `js/package-lock.json.tmpl` pins the same versions as `examples/plugins/js` (apache-arrow as a
//! dependency, the build tools as devDependencies). To rebuild it after a change to
//! `js/package.json.tmpl`: scaffold a JavaScript project, run `npm install --package-lock-only`
//! in it, and copy its `package-lock.json` back with the project's name replaced by `{{name}}`.

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
        PluginLang::Python => {
            let (code, app, test) = match kind {
                PluginKindArg::Source => (
                    template!("python/source.py.tmpl"),
                    template!("python/source_app.py.tmpl"),
                    template!("python/source_test.py.tmpl"),
                ),
                PluginKindArg::Transform => (
                    template!("python/transform.py.tmpl"),
                    template!("python/transform_app.py.tmpl"),
                    template!("python/transform_test.py.tmpl"),
                ),
                PluginKindArg::Check => (
                    template!("python/check.py.tmpl"),
                    template!("python/check_app.py.tmpl"),
                    template!("python/check_test.py.tmpl"),
                ),
                PluginKindArg::Sink => (
                    template!("python/sink.py.tmpl"),
                    template!("python/sink_app.py.tmpl"),
                    template!("python/sink_test.py.tmpl"),
                ),
            };
            vec![
                ("plugin.py", code, false),
                ("app.py", app, false),
                ("test_plugin.py", test, false),
                ("build.sh", template!("python/build.sh.tmpl"), true),
                ("test.sh", template!("python/test.sh.tmpl"), true),
                ("README.md", template!("python/README.md.tmpl"), false),
                (
                    ".gitignore",
                    ".venv/\nbindings/\nbuild/\n__pycache__/\n*.wasm\n",
                    false,
                ),
            ]
        }
        PluginLang::Js => {
            let (code, test) = match kind {
                PluginKindArg::Source => (
                    template!("js/source.js.tmpl"),
                    template!("js/source.test.js.tmpl"),
                ),
                PluginKindArg::Transform => (
                    template!("js/transform.js.tmpl"),
                    template!("js/transform.test.js.tmpl"),
                ),
                PluginKindArg::Check => (
                    template!("js/check.js.tmpl"),
                    template!("js/check.test.js.tmpl"),
                ),
                PluginKindArg::Sink => (
                    template!("js/sink.js.tmpl"),
                    template!("js/sink.test.js.tmpl"),
                ),
            };
            vec![
                ("plugin.js", code, false),
                ("ldp.js", template!("js/ldp.js.tmpl"), false),
                ("test/plugin.test.js", test, false),
                ("package.json", template!("js/package.json.tmpl"), false),
                (
                    "package-lock.json",
                    template!("js/package-lock.json.tmpl"),
                    false,
                ),
                ("build.sh", template!("js/build.sh.tmpl"), true),
                ("test.sh", template!("js/test.sh.tmpl"), true),
                ("README.md", template!("js/README.md.tmpl"), false),
                (".gitignore", "node_modules/\nbuild/\n*.wasm\n", false),
            ]
        }
    }
}
