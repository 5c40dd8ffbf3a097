//! The transforms of `metadata.transforms`: resolved before anything is read (files found,
//! their sha256 checked against the pins, grants turned into a sandbox), then run as a chain on
//! their own thread between the source and the writer ([`chain`]).
//!
//! A plugin file runs in its own sandbox with only what its `grants` give; JavaScript runs in
//! the built-in `js` interpreter plugin, which gets nothing at all.

mod chain;
mod external;
mod pipe;
mod sample;

use std::path::{Path, PathBuf};
use std::time::Duration;

use ldp_config::{Config, TransformCode, TransformSpec};
use ldp_events::payload::TransformRef;
use ldp_plugin_runtime::{Limits, Plugin, Runtime, Sandbox};

pub(crate) use chain::{Chain, SourceWindow};
pub use external::{ExternalError, ExternalStream, ExternalTransform, SharedExternal};
pub use pipe::PipeTransform;
pub use sample::{Sample, sample, sample_batches};

use crate::error::{Error, Result};
use crate::plugin_file::ConfigFiles;

/// One transform, resolved: what it runs, pinned by its sha256, and its sandbox.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// `metadata.transforms[1] (mask.wasm)`, for messages.
    pub what: String,
    /// The name the config gives it.
    pub name: String,
    /// The component and the config it is opened with.
    pub code: Code,
    /// The sha256 of the plugin file or of the JavaScript source (what the events record).
    pub sha256: String,
    /// The sandbox it runs in.
    pub sandbox: Sandbox,
}

/// What a resolved transform runs.
#[derive(Debug, Clone)]
pub(crate) enum Code {
    /// A component file's bytes (already checked against the pin) and its config.
    Plugin {
        /// The file, absolute.
        path: PathBuf,
        /// Its bytes.
        bytes: std::sync::Arc<Vec<u8>>,
        /// Its config, a JSON object text.
        config: String,
    },
    /// JavaScript source for the built-in interpreter.
    Js {
        /// The `js` plugin's config (`{"code": ..., "name": ...}`), a JSON object text.
        config: String,
    },
}

/// The transforms of a config, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Transforms {
    pub list: Vec<Resolved>,
}

impl Transforms {
    /// Resolves `metadata.transforms`: reads each plugin or JavaScript file, checks its sha256
    /// against the config's pin, and builds its sandbox from its grants.
    ///
    /// # Errors
    ///
    /// [`Error::PluginFile`] naming the item: a missing file, a hash that is not the pinned one,
    /// a granted folder that does not exist, a granted environment variable that is not set, a
    /// network grant (a transform cannot have one).
    pub fn resolve(config: &Config) -> Result<Transforms> {
        let base = base_dir(config);
        let list = config
            .metadata
            .transforms
            .iter()
            .map(|spec| resolve_one(spec, &base, None))
            .collect::<Result<Vec<_>>>()?;
        Ok(Transforms { list })
    }

    /// What the run events record of each transform.
    pub fn refs(&self) -> Vec<TransformRef> {
        self.list
            .iter()
            .map(|t| TransformRef {
                name: t.name.clone(),
                kind: match t.code {
                    Code::Plugin { .. } => "plugin",
                    Code::Js { .. } => "js",
                }
                .to_string(),
                path: match &t.code {
                    Code::Plugin { path, .. } => Some(path.display().to_string()),
                    Code::Js { .. } => None,
                },
                sha256: t.sha256.clone(),
            })
            .collect()
    }

    /// Compiles (or takes from the cache) every transform's component.
    pub fn load(&self, runtime: &Runtime) -> Result<Vec<(Resolved, Plugin)>> {
        self.list
            .iter()
            .map(|t| {
                let plugin = match &t.code {
                    Code::Plugin { path, bytes, .. } => {
                        runtime.load_embedded(&path.display().to_string(), bytes, &t.sha256)
                    }
                    Code::Js { .. } => {
                        let js =
                            ldp_builtin_plugins::get("js").ok_or_else(|| Error::Unsupported {
                                message: format!(
                                    "{}: this build has no JavaScript interpreter plugin ('js')",
                                    t.what
                                ),
                            })?;
                        runtime.load_embedded("built-in plugin 'js'", js.bytes, js.sha256)
                    }
                };
                let plugin = plugin.map_err(|source| Error::Transform {
                    what: t.what.clone(),
                    source,
                })?;
                plugin
                    .expect(ldp_plugin_runtime::PluginKind::Transform)
                    .map_err(|source| Error::Transform {
                        what: t.what.clone(),
                        source,
                    })?;
                Ok((t.clone(), plugin))
            })
            .collect()
    }
}

/// The folder the config's relative paths resolve against.
fn base_dir(config: &Config) -> PathBuf {
    config
        .base_dir
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
}

/// Resolves one item; `what` names it in messages (default: `metadata.transforms[N] (name)`).
fn resolve_one(spec: &TransformSpec, base: &Path, what: Option<String>) -> Result<Resolved> {
    let what = what.unwrap_or_else(|| format!("{} ({})", spec.at(), spec.name));
    let files = ConfigFiles::new(Some(base), &what);
    let pin = spec.sha256.as_deref();
    let (code, sha256) = match &spec.code {
        TransformCode::Plugin(relative) => {
            let file = files.read_pinned(relative, "plugin file", pin)?;
            let config = serde_json::Value::Object(spec.config.clone()).to_string();
            (
                Code::Plugin {
                    path: file.path,
                    bytes: std::sync::Arc::new(file.bytes),
                    config,
                },
                file.sha256,
            )
        }
        TransformCode::Js(source) => (
            js_code(source, &spec.name),
            ldp_plugin_runtime::sha256_hex(source.as_bytes()),
        ),
        TransformCode::JsFile(relative) => {
            let file = files.read_pinned(relative, "JavaScript file", pin)?;
            let path = file.path;
            let source = String::from_utf8(file.bytes)
                .map_err(|_| files.refuse(format!("{} is not UTF-8 text", path.display())))?;
            (js_code(&source, &spec.name), file.sha256)
        }
    };
    if !spec.grants.net.is_empty() {
        return Err(files.refuse(format!(
            "a transform cannot be granted network access ({}); only a source plugin can",
            spec.grants.net.join(", ")
        )));
    }
    let sandbox = Sandbox {
        grants: files.grants(&spec.grants)?,
        limits: limits(spec),
    };
    Ok(Resolved {
        what,
        name: spec.name.clone(),
        code,
        sha256,
        sandbox,
    })
}

/// The sandbox's budget: the config's `limits`, else the default of the kind of code.
/// JavaScript gets a tighter one than a plugin file (an agent's loop should stop in seconds,
/// not in a minute); a plugin file gets the runtime's defaults.
fn limits(spec: &TransformSpec) -> Limits {
    let default = match spec.code {
        TransformCode::Js(_) | TransformCode::JsFile(_) => Limits {
            max_memory_bytes: JS_MEMORY_MB << 20,
            call_timeout: Duration::from_secs(JS_TIMEOUT_S),
            ..Limits::default()
        },
        TransformCode::Plugin(_) => Limits::default(),
    };
    ConfigFiles::limits(&spec.limits, default)
}

/// A JavaScript transform's default memory, in MiB.
pub const JS_MEMORY_MB: u64 = 512;
/// A JavaScript transform's default time per batch, in seconds.
pub const JS_TIMEOUT_S: u64 = 10;

/// The config of the `js` interpreter plugin for `source`.
fn js_code(source: &str, name: &str) -> Code {
    Code::Js {
        config: serde_json::json!({"code": source, "name": name}).to_string(),
    }
}

impl Resolved {
    /// The config the component is opened with.
    pub fn plugin_config(&self) -> &str {
        match &self.code {
            Code::Plugin { config, .. } | Code::Js { config } => config,
        }
    }
}
