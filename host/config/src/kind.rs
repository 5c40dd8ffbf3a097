//! What a JSON file is: the `kind` key, written exactly (case counts). `Pipeline` (the default)
//! and `Workflow` are registered; `Metrics`, `Report` and `Profiles` are reserved for later
//! releases.

use serde_json::Value;

use crate::repr::{repr, repr_list};

/// The registered kinds, in the order the Python tool lists them.
pub const KINDS: [&str; 2] = ["Pipeline", "Workflow"];

/// Kinds reserved for later releases, with the release that brings them.
pub const RESERVED_KINDS: [(&str, &str); 3] = [
    ("Metrics", "0.1.4"),
    ("Report", "0.1.6"),
    ("Profiles", "0.2.0"),
];

/// A registered kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A dataset config (the default).
    Pipeline,
    /// A workflow file, validated by [`crate::validate_workflow`].
    Workflow,
}

impl Kind {
    /// The name as written in a file.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Pipeline => "Pipeline",
            Kind::Workflow => "Workflow",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of a document: its `kind` key, `Pipeline` when it has none (or is not an object).
///
/// # Errors
///
/// The Python tool's message, without the `kind: ` prefix the validator adds: a wrong case
/// (`unknown kind 'workflow'; did you mean 'Workflow'? ...`), a reserved kind
/// (`kind 'Metrics' is reserved for 0.1.4 ...`) or an unknown one.
pub fn kind_of(document: &Value) -> Result<Kind, String> {
    let Some(raw) = document.as_object().and_then(|map| map.get("kind")) else {
        return Ok(Kind::Pipeline);
    };
    let kinds = repr_list(&KINDS);
    let Some(text) = raw.as_str() else {
        return Err(format!("unknown kind {}; the kinds are {kinds}", repr(raw)));
    };
    match text {
        "Pipeline" => return Ok(Kind::Pipeline),
        "Workflow" => return Ok(Kind::Workflow),
        _ => {}
    }
    if let Some(known) = KINDS.iter().find(|known| known.eq_ignore_ascii_case(text)) {
        return Err(format!(
            "unknown kind {}; did you mean {}? Kind names are written exactly as in {kinds}",
            repr(raw),
            repr(&Value::from(*known))
        ));
    }
    if let Some((_, release)) = RESERVED_KINDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(text))
    {
        return Err(format!(
            "kind {} is reserved for {release} and is not available yet. The kinds are {kinds}",
            repr(raw)
        ));
    }
    Err(format!("unknown kind {}; the kinds are {kinds}", repr(raw)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_and_their_messages() {
        assert_eq!(kind_of(&json!({})), Ok(Kind::Pipeline));
        assert_eq!(kind_of(&json!({"kind": "Workflow"})), Ok(Kind::Workflow));
        assert_eq!(
            kind_of(&json!({"kind": "workflow"})).unwrap_err(),
            "unknown kind 'workflow'; did you mean 'Workflow'? Kind names are written exactly as in ['Pipeline', 'Workflow']"
        );
        assert_eq!(
            kind_of(&json!({"kind": "Metrics"})).unwrap_err(),
            "kind 'Metrics' is reserved for 0.1.4 and is not available yet. The kinds are ['Pipeline', 'Workflow']"
        );
        assert_eq!(
            kind_of(&json!({"kind": "Dag"})).unwrap_err(),
            "unknown kind 'Dag'; the kinds are ['Pipeline', 'Workflow']"
        );
    }
}
