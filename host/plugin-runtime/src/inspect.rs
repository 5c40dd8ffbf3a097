//! Saying what a file is: a component, what it imports and exports, and whether it is an ldp
//! plugin (and if not, why not).

use crate::plugin::{Plugin, PluginInfo};
use crate::runtime::Runtime;
use crate::{Result, RuntimeError};
use serde::Serialize;

/// What kind of file a plugin candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// A WebAssembly component (what ldp runs).
    Component,
    /// A core WebAssembly module (not a component).
    CoreModule,
    /// Not WebAssembly.
    NotWasm,
}

/// What `ldp plugins inspect` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The file.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its sha256, lower-case hex (the value a config pins).
    pub sha256: String,
    /// What it is.
    pub format: FileFormat,
    /// The component's imports (interface names).
    pub imports: Vec<String>,
    /// The component's exports (interface names).
    pub exports: Vec<String>,
    /// What the plugin says of itself, when it is an ldp plugin.
    pub plugin: Option<PluginInfo>,
    /// Why it is not an ldp plugin, when it is not.
    pub problem: Option<String>,
}

/// The format of `bytes`, from the WebAssembly header.
pub fn file_format(bytes: &[u8]) -> FileFormat {
    match bytes.get(..8) {
        Some([0, b'a', b's', b'm', 1, 0, 0, 0]) => FileFormat::CoreModule,
        Some([0, b'a', b's', b'm', _, _, 1, 0]) => FileFormat::Component,
        _ => FileFormat::NotWasm,
    }
}

/// Refuses bytes that are not a component, with a reason that says what to do.
pub(crate) fn check_header(what: &str, bytes: &[u8]) -> Result<()> {
    let reason = match file_format(bytes) {
        FileFormat::Component => return Ok(()),
        FileFormat::CoreModule => {
            "it is a core WebAssembly module, not a component; build it for the wasm32-wasip2 \
             target (or wrap it with `wasm-tools component new`)"
        }
        FileFormat::NotWasm => "it is not a WebAssembly file (no `\\0asm` header)",
    };
    Err(RuntimeError::NotAPlugin {
        what: what.to_string(),
        reason: reason.to_string(),
    })
}

impl Runtime {
    /// Inspects the bytes of a candidate plugin. Only an unreadable or uncompilable file is an
    /// error; a file that is not an ldp plugin gives an [`Inspection`] with a `problem`.
    pub fn inspect(&self, file: &str, bytes: &[u8]) -> Inspection {
        let mut inspection = Inspection {
            file: file.to_string(),
            bytes: bytes.len() as u64,
            sha256: crate::cache::sha256_hex(bytes),
            format: file_format(bytes),
            imports: Vec::new(),
            exports: Vec::new(),
            plugin: None,
            problem: None,
        };
        if let Err(e) = check_header(file, bytes) {
            inspection.problem = Some(reason(e));
            return inspection;
        }
        // Compiled once (through the cache): listed here, then made a plugin.
        let component = match self.compile(file, bytes, &inspection.sha256) {
            Ok(component) => component,
            Err(e) => {
                inspection.problem = Some(reason(e));
                return inspection;
            }
        };
        let engine = &self.inner.engine;
        let ty = component.component_type();
        inspection.imports = ty
            .imports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        inspection.exports = ty
            .exports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        match Plugin::new(self.clone(), file, inspection.sha256.clone(), component) {
            Ok(plugin) => inspection.plugin = Some(plugin.info().clone()),
            Err(e) => inspection.problem = Some(reason(e)),
        }
        inspection
    }
}

fn reason(e: RuntimeError) -> String {
    match e {
        RuntimeError::NotAPlugin { reason, .. } => reason,
        other => other.to_string(),
    }
}
