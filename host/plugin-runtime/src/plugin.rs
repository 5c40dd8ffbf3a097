//! A loaded plugin: a compiled component, its kind and what it says of itself.

use crate::bindings::{self, wit};
use crate::instance::Instance;
use crate::limits::Sandbox;
use crate::runtime::Runtime;
use crate::{Result, RuntimeError};
use serde::Serialize;
use std::fmt;
use wasmtime::component::Component;

/// What a plugin does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginKind {
    /// Produces batches from its configuration.
    Source,
    /// Turns batches into batches.
    Transform,
    /// Gives verdicts on batches.
    Check,
    /// Writes batches or run events.
    Sink,
}

impl PluginKind {
    /// Every kind, in the contract's order.
    pub const ALL: [PluginKind; 4] = [
        PluginKind::Source,
        PluginKind::Transform,
        PluginKind::Check,
        PluginKind::Sink,
    ];

    /// The interface a component of this kind exports.
    pub fn interface(self) -> &'static str {
        match self {
            PluginKind::Source => "ldp:plugin/source@0.1.0",
            PluginKind::Transform => "ldp:plugin/transform@0.1.0",
            PluginKind::Check => "ldp:plugin/check@0.1.0",
            PluginKind::Sink => "ldp:plugin/sink@0.1.0",
        }
    }

    fn from_wit(kind: wit::PluginKind) -> Self {
        match kind {
            wit::PluginKind::Source => PluginKind::Source,
            wit::PluginKind::Transform => PluginKind::Transform,
            wit::PluginKind::Check => PluginKind::Check,
            wit::PluginKind::Sink => PluginKind::Sink,
        }
    }
}

impl fmt::Display for PluginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PluginKind::Source => "source",
            PluginKind::Transform => "transform",
            PluginKind::Check => "check",
            PluginKind::Sink => "sink",
        })
    }
}

/// What a plugin says of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginInfo {
    /// Short name, e.g. `csv`.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its kind.
    pub kind: PluginKind,
    /// One line.
    pub description: String,
    /// JSON Schema of its configuration, as JSON text.
    pub config_schema: String,
}

pub(crate) enum Pre {
    Source(bindings::source::SourcePluginPre<crate::sandbox::HostState>),
    Transform(bindings::transform::TransformPluginPre<crate::sandbox::HostState>),
    Check(bindings::check::CheckPluginPre<crate::sandbox::HostState>),
    Sink(bindings::sink::SinkPluginPre<crate::sandbox::HostState>),
}

/// A compiled plugin, ready to be instantiated once per stream.
pub struct Plugin {
    pub(crate) runtime: Runtime,
    what: String,
    sha256: String,
    info: PluginInfo,
    pub(crate) pre: Pre,
}

impl fmt::Debug for Plugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plugin")
            .field("what", &self.what)
            .field("sha256", &self.sha256)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Plugin {
    pub(crate) fn new(
        runtime: Runtime,
        what: &str,
        sha256: String,
        component: Component,
    ) -> Result<Self> {
        let not_a_plugin = |reason: String| RuntimeError::NotAPlugin {
            what: what.to_string(),
            reason,
        };
        let engine = &runtime.inner.engine;
        let ty = component.component_type();
        let exported: Vec<PluginKind> = PluginKind::ALL
            .into_iter()
            .filter(|kind| ty.get_export(engine, kind.interface()).is_some())
            .collect();
        let kind = match exported.as_slice() {
            [kind] => *kind,
            [] => {
                return Err(not_a_plugin(format!(
                    "it exports none of the ldp plugin interfaces ({}); build it against \
                     wit/plugin.wit, for example with the ldp plugin SDK",
                    PluginKind::ALL.map(PluginKind::interface).join(", ")
                )));
            }
            several => {
                return Err(not_a_plugin(format!(
                    "it exports {} plugin interfaces; a plugin is of one kind",
                    several.len()
                )));
            }
        };
        let pre = runtime
            .inner
            .linker
            .instantiate_pre(&component)
            .map_err(|e| {
                not_a_plugin(format!(
                    "it needs imports that ldp does not provide (ldp gives WASI 0.2, \
                     ldp:plugin/log, ldp:plugin/duckdb and ldp:plugin/duckdb-write): {e:#}"
                ))
            })?;
        let contract = |e: wasmtime::Error| {
            not_a_plugin(format!(
                "its exports do not match {}: {e:#}",
                kind.interface()
            ))
        };
        let pre = match kind {
            PluginKind::Source => {
                Pre::Source(bindings::source::SourcePluginPre::new(pre).map_err(contract)?)
            }
            PluginKind::Transform => {
                Pre::Transform(bindings::transform::TransformPluginPre::new(pre).map_err(contract)?)
            }
            PluginKind::Check => {
                Pre::Check(bindings::check::CheckPluginPre::new(pre).map_err(contract)?)
            }
            PluginKind::Sink => {
                Pre::Sink(bindings::sink::SinkPluginPre::new(pre).map_err(contract)?)
            }
        };
        let mut plugin = Self {
            runtime,
            what: what.to_string(),
            sha256,
            info: PluginInfo {
                name: what.to_string(),
                version: String::new(),
                kind,
                description: String::new(),
                config_schema: String::new(),
            },
            pre,
        };
        let info = plugin.describe()?;
        if info.kind != kind {
            return Err(not_a_plugin(format!(
                "it exports {} but describes itself as a {} plugin",
                kind.interface(),
                info.kind
            )));
        }
        if info.name.is_empty()
            || !info
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        {
            return Err(not_a_plugin(format!(
                "its name {:?} is not lower-case [a-z0-9_-]+",
                info.name
            )));
        }
        plugin.info = info;
        Ok(plugin)
    }

    /// What the plugin says of itself.
    pub fn info(&self) -> &PluginInfo {
        &self.info
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// Its kind.
    pub fn kind(&self) -> PluginKind {
        self.info.kind
    }

    /// The sha256 of the component's bytes, lower-case hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Where it came from (a file path or a built-in's name).
    pub fn origin(&self) -> &str {
        &self.what
    }

    /// Refuses a plugin of another kind than `kind` (`WrongKind`, naming both).
    pub fn expect(&self, kind: PluginKind) -> Result<()> {
        if self.info.kind == kind {
            Ok(())
        } else {
            Err(RuntimeError::WrongKind {
                plugin: self.info.name.clone(),
                actual: self.info.kind,
                expected: kind,
            })
        }
    }

    fn describe(&self) -> Result<PluginInfo> {
        let sandbox = Sandbox::default();
        let info = match &self.pre {
            Pre::Source(pre) => {
                let mut i = Instance::new(self, &sandbox, |s| pre.instantiate(s))?;
                i.call_infallible(|w, s| w.ldp_plugin_source().call_describe(s))?
            }
            Pre::Transform(pre) => {
                let mut i = Instance::new(self, &sandbox, |s| pre.instantiate(s))?;
                i.call_infallible(|w, s| w.ldp_plugin_transform().call_describe(s))?
            }
            Pre::Check(pre) => {
                let mut i = Instance::new(self, &sandbox, |s| pre.instantiate(s))?;
                i.call_infallible(|w, s| w.ldp_plugin_check().call_describe(s))?
            }
            Pre::Sink(pre) => {
                let mut i = Instance::new(self, &sandbox, |s| pre.instantiate(s))?;
                i.call_infallible(|w, s| w.ldp_plugin_sink().call_describe(s))?
            }
        };
        Ok(PluginInfo {
            name: info.name,
            version: info.version,
            kind: PluginKind::from_wit(info.kind),
            description: info.description,
            config_schema: info.config_schema,
        })
    }
}
