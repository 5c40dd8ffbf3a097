//! The plugins a config names, as `ldp plan` lists them: each source, sink, transform and check
//! plugin file with the sha256 it has on disk, the one the config pins, and what it is granted;
//! a file that is missing or does not have the pinned hash is a problem of the plan, as it
//! refuses the run.

use std::path::PathBuf;

use serde::Serialize;

use crate::canonical::sha256_hex;
use crate::model::Config;
use crate::paths::PathContext;
use crate::quality::Check;
use crate::transforms::{PluginGrants, TransformCode};

/// One plugin of a config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlanPlugin {
    /// Where in the config: `metadata.transforms[0]`, `metadata.quality.checks[2]`.
    pub at: String,
    /// `source`, `sink`, `transform` or `check`.
    pub role: String,
    /// `plugin` (a component file), `js` (inline JavaScript) or `js_file`.
    pub kind: String,
    /// The file, absolute (none for inline JavaScript).
    pub path: Option<String>,
    /// The sha256 of the file (or of the inline source) as it is now; none when unreadable.
    pub sha256: Option<String>,
    /// The sha256 the config pins.
    pub pinned: Option<String>,
    /// Folders it may read (absolute).
    pub read: Vec<String>,
    /// Environment variables it sees.
    pub env: Vec<String>,
    /// Hosts it may reach.
    pub net: Vec<String>,
}

impl PlanPlugin {
    /// `sha256 9f2c… (pinned)`, `grants read data, env SALT`, for the human plan.
    pub fn summary(&self) -> String {
        let what = match &self.path {
            Some(path) => path.clone(),
            None => "inline JavaScript".into(),
        };
        let hash = match (&self.sha256, &self.pinned) {
            (Some(hash), Some(_)) => format!("sha256 {hash} (pinned)"),
            (Some(hash), None) => format!("sha256 {hash} (not pinned)"),
            (None, _) => "unreadable".into(),
        };
        let mut grants = Vec::new();
        for (label, list) in [("read", &self.read), ("env", &self.env), ("net", &self.net)] {
            if !list.is_empty() {
                grants.push(format!("{label} {}", list.join(" ")));
            }
        }
        let grants = if grants.is_empty() {
            "no grants".to_string()
        } else {
            format!("grants: {}", grants.join("; "))
        };
        format!("{} {} {what}, {hash}, {grants}", self.role, self.at)
    }
}

/// The plugins of `config` and the problems they give (a missing file, a hash that is not the
/// pinned one).
pub(crate) fn plan_plugins(config: &Config) -> (Vec<PlanPlugin>, Vec<String>) {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let context = PathContext::new(config.base_dir.as_deref(), &cwd);
    let absolute = |relative: &str| context.resolve(relative).path;
    let mut plugins = Vec::new();
    let mut problems = Vec::new();
    let file = |at: String,
                role: &str,
                kind: &str,
                path: PathBuf,
                pinned: Option<String>,
                grants: &PluginGrants|
     -> (PlanPlugin, Vec<String>) {
        let mut problems = Vec::new();
        let sha256 = match std::fs::read(&path) {
            Ok(bytes) => Some(sha256_hex(&bytes)),
            Err(e) => {
                problems.push(format!("{at}: cannot read {}: {e}", path.display()));
                None
            }
        };
        if let (Some(actual), Some(pin)) = (&sha256, &pinned)
            && actual != pin
        {
            problems.push(format!(
                "{at}: {} has sha256 {actual}, but the config pins {pin}: the run would be refused",
                path.display()
            ));
        }
        let plugin = PlanPlugin {
            at,
            role: role.into(),
            kind: kind.into(),
            path: Some(path.display().to_string()),
            sha256,
            pinned,
            read: grants
                .read
                .iter()
                .map(|dir| absolute(dir).display().to_string())
                .collect(),
            env: grants.env.clone(),
            net: grants.net.clone(),
        };
        (plugin, problems)
    };
    let mut add = |(plugin, found): (PlanPlugin, Vec<String>)| {
        plugins.push(plugin);
        problems.extend(found);
    };
    let blocks = [
        (
            "metadata.source",
            "source",
            crate::transforms::source_plugin(&config.source().extra),
        ),
        (
            "metadata.target",
            "sink",
            // An Iceberg table is written by the host; `plugin` there is a stray key.
            match config.target().is_iceberg() {
                true => Ok(None),
                false => crate::transforms::target_plugin(&config.target().extra),
            },
        ),
    ];
    for (at, role, spec) in blocks {
        match spec {
            Ok(Some(spec)) => add(file(
                at.into(),
                role,
                "plugin",
                absolute(&spec.path),
                spec.sha256.clone(),
                &spec.grants,
            )),
            Ok(None) => {}
            Err(message) => add((
                PlanPlugin {
                    at: at.into(),
                    role: role.into(),
                    kind: "plugin".into(),
                    path: None,
                    sha256: None,
                    pinned: None,
                    read: Vec::new(),
                    env: Vec::new(),
                    net: Vec::new(),
                },
                vec![message],
            )),
        }
    }
    for spec in &config.metadata.transforms {
        match &spec.code {
            TransformCode::Plugin(path) => add(file(
                spec.at(),
                "transform",
                "plugin",
                absolute(path),
                spec.sha256.clone(),
                &spec.grants,
            )),
            TransformCode::JsFile(path) => add(file(
                spec.at(),
                "transform",
                "js_file",
                absolute(path),
                spec.sha256.clone(),
                &spec.grants,
            )),
            TransformCode::Js(source) => add((
                PlanPlugin {
                    at: spec.at(),
                    role: "transform".into(),
                    kind: "js".into(),
                    path: None,
                    sha256: Some(sha256_hex(source.as_bytes())),
                    pinned: None,
                    read: Vec::new(),
                    env: Vec::new(),
                    net: Vec::new(),
                },
                Vec::new(),
            )),
        }
    }
    for (index, check) in config.metadata.quality.checks.iter().enumerate() {
        if let Check::Plugin { path, sha256, .. } = &check.check {
            add(file(
                format!("metadata.quality.checks[{index}]"),
                "check",
                "plugin",
                absolute(path),
                sha256.clone(),
                &PluginGrants::default(),
            ));
        }
    }
    (plugins, problems)
}
