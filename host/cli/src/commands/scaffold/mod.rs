//! `ldp plugin new --kind KIND --lang rust|python|js NAME`: a plugin project that builds as it
//! is and passes its own test, in every language the same way: `./test.sh` runs the project's
//! tests natively (`cargo test`, `python3 -m unittest`, `node --test`) and `./build.sh` writes
//! the component `NAME.wasm` into the project folder (cargo, componentize-py, componentize-js).
//! Each kind does the same in every language: the source gives `{"rows": N}` numbered rows in
//! column `n`, the transform adds `row_number`, the check wants `{"min_rows": N}` rows, the sink
//! counts rows or events.
//!
//! Templates live in `host/cli/templates/<lang>/` and are embedded in the binary (the list is
//! in `templates.rs`); `{{name}}`, `{{kind}}`, `{{crate}}`, `{{column}}` and `{{usage}}` are
//! filled in. A project stands alone: what it needs from ldp (the WIT package, the Rust SDK,
//! Python's Arrow IPC codec) is written into it from the binary (`sdk.rs`), never referenced in
//! the tree ldp was built from.

mod sdk;
mod templates;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::args::{NewPluginArgs, PluginKindArg, PluginLang};

/// Writes the project.
pub fn new(args: &NewPluginArgs) -> anyhow::Result<u8> {
    let name = &args.name;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.as_bytes()[0].is_ascii_lowercase()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !valid {
        bail!(
            "plugin name {name:?}: use lower-case letters, digits and _ and start with a letter (e.g. mask_emails)"
        );
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(name));
    if dir.exists()
        && std::fs::read_dir(&dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .next()
            .is_some()
    {
        bail!(
            "{} exists and is not empty: choose another --dir or remove it",
            dir.display()
        );
    }
    let kind = kind_name(args.kind);
    let files = templates::files(args.lang, args.kind);
    let vars = [
        ("{{name}}", name.clone()),
        ("{{kind}}", kind.to_string()),
        ("{{crate}}", name.replace('-', "_")),
        ("{{column}}", column(args.kind).to_string()),
        ("{{usage}}", usage(args.kind, name)),
    ];
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for (path, template, executable) in files {
        let mut text = template.to_string();
        for (key, value) in &vars {
            text = text.replace(key, value);
        }
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, text)
            .with_context(|| format!("cannot write {}", target.display()))?;
        if executable {
            set_executable(&target)?;
        }
        written.push(path.to_string());
    }
    written.extend(match args.lang {
        PluginLang::Rust => sdk::write_rust_sdk(&dir)?,
        PluginLang::Python => sdk::write_python_sdk(&dir)?,
        PluginLang::Js => sdk::write_js_sdk(&dir)?,
    });
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Created a {kind} plugin in {} ({}):",
        dir.display(),
        lang_name(args.lang)
    )?;
    for path in written {
        writeln!(out, "  {path}")?;
    }
    writeln!(
        out,
        "Next: cd {} && ./test.sh && ./build.sh && ldp plugins inspect {name}.wasm",
        dir.display()
    )?;
    Ok(0)
}

/// `ldp plugin wit DIR`: writes the WIT package this ldp implements into `DIR/plugin.wit`.
pub fn wit(dir: &Path) -> anyhow::Result<u8> {
    sdk::write_wit(dir)?;
    let path = dir.join("plugin.wit");
    writeln!(std::io::stdout().lock(), "wrote {}", path.display())?;
    Ok(0)
}

fn kind_name(kind: PluginKindArg) -> &'static str {
    match kind {
        PluginKindArg::Source => "source",
        PluginKindArg::Transform => "transform",
        PluginKindArg::Check => "check",
        PluginKindArg::Sink => "sink",
    }
}

fn lang_name(lang: PluginLang) -> &'static str {
    match lang {
        PluginLang::Rust => "Rust",
        PluginLang::Python => "Python",
        PluginLang::Js => "JavaScript",
    }
}

/// The column the example code adds or gives.
fn column(kind: PluginKindArg) -> &'static str {
    match kind {
        PluginKindArg::Source => "n",
        _ => "row_number",
    }
}

/// How a config names the plugin, for the README.
fn usage(kind: PluginKindArg, name: &str) -> String {
    match kind {
        PluginKindArg::Source => format!(
            "In a config: `\"source\": {{\"name\": \"numbers\", \"format\": \"JSON\", \"plugin\": \"{name}/{name}.wasm\", \"config\": {{\"rows\": 100}}}}`; alone: `ldp plugins run {name}.wasm --config '{{\"rows\": 5}}'`."
        ),
        PluginKindArg::Transform => format!(
            "In a config: `\"transforms\": [{{\"plugin\": \"{name}/{name}.wasm\"}}]`; on a sample of a config's source: `ldp transform test CONFIG --code {name}.wasm`."
        ),
        PluginKindArg::Check => format!(
            "In a config: `\"quality\": [{{\"check\": \"{name}/{name}.wasm\", \"config\": {{\"min_rows\": 1}}}}]`."
        ),
        PluginKindArg::Sink => "Sinks write a file target's batches or run events.".to_string(),
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(path, permissions)
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> anyhow::Result<()> {
    Ok(())
}
