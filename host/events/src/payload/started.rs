//! `run.started`.

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::{EventPayload, opt_str};
use crate::dataset::DatasetRef;
use crate::time::isoformat;

/// ldp's own version: what `ldp --version` says first, and what a run's and a workflow's
/// events report as `ldp_version`.
pub const LDP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The version of the Python tool (local-data-platform) whose configs, catalogs, keys and
/// events ldp keeps; its own events report it as `ldp_version`.
pub const COMPATIBLE_VERSION: &str = "0.1.3";

/// How a run writes its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publish {
    /// Through the staged publish protocol (a window, a key, a workflow or backfill run).
    Staged,
    /// Straight to `main`.
    Direct,
}

impl Publish {
    /// `staged` or `direct`.
    pub fn as_str(self) -> &'static str {
        match self {
            Publish::Staged => "staged",
            Publish::Direct => "direct",
        }
    }
}

/// `run.started`: `{mode, publish, idempotency_key, spec_hash, logical_window, source, target,
/// ldp_version}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Started {
    /// The write mode (`append`, `overwrite`, `upsert`); `null` for targets without one.
    pub mode: Option<String>,
    /// Staged or direct.
    pub publish: Publish,
    /// The run's idempotency key (staged runs).
    pub idempotency_key: Option<String>,
    /// The config's spec hash.
    pub spec_hash: Option<String>,
    /// The logical window `[start, end)`, written ISO+00.
    pub logical_window: Option<(Timestamp, Timestamp)>,
    /// The source.
    pub source: DatasetRef,
    /// The tables a query over inputs reads (an ldp extension, recorded only when there are
    /// some): the run's input datasets in place of `source`.
    pub inputs: Vec<DatasetRef>,
    /// The target.
    pub target: DatasetRef,
    /// ldp's version, [`LDP_VERSION`] ([`COMPATIBLE_VERSION`] in the Python tool's events).
    pub ldp_version: String,
    /// The run's transforms (an ldp extension, recorded only when there are some), each with
    /// the sha256 of the code it ran.
    pub transforms: Vec<TransformRef>,
}

/// A transform as `run.started` records it: `{name, kind, path, sha256}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformRef {
    /// The name the config gives it.
    pub name: String,
    /// `plugin` (a component file) or `js` (JavaScript in the built-in interpreter).
    pub kind: String,
    /// The plugin file (none for JavaScript given inline).
    pub path: Option<String>,
    /// The sha256 of the component file or of the JavaScript source.
    pub sha256: String,
}

impl TransformRef {
    fn to_value(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "kind": self.kind,
            "path": self.path,
            "sha256": self.sha256,
        })
    }
}

impl EventPayload for Started {
    fn event_type(&self) -> &'static str {
        "run.started"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("mode".into(), opt_str(self.mode.as_deref()));
        payload.insert("publish".into(), Value::from(self.publish.as_str()));
        payload.insert(
            "idempotency_key".into(),
            opt_str(self.idempotency_key.as_deref()),
        );
        payload.insert("spec_hash".into(), opt_str(self.spec_hash.as_deref()));
        payload.insert(
            "logical_window".into(),
            self.logical_window.map_or(Value::Null, |(start, end)| {
                Value::from(vec![isoformat(start), isoformat(end)])
            }),
        );
        payload.insert("source".into(), self.source.to_value());
        if !self.inputs.is_empty() {
            payload.insert(
                "inputs".into(),
                Value::from(
                    self.inputs
                        .iter()
                        .map(DatasetRef::to_value)
                        .collect::<Vec<_>>(),
                ),
            );
        }
        payload.insert("target".into(), self.target.to_value());
        payload.insert("ldp_version".into(), Value::from(self.ldp_version.clone()));
        if !self.transforms.is_empty() {
            payload.insert(
                "transforms".into(),
                Value::from(
                    self.transforms
                        .iter()
                        .map(TransformRef::to_value)
                        .collect::<Vec<_>>(),
                ),
            );
        }
        payload
    }
}
