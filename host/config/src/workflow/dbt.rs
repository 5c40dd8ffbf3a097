//! The `dbt` task kind, read as the Python tool reads it:
//!
//! ```json
//! {"id": "gold", "depends_on": ["orders"], "dbt": {"project": "dbt", "select": "+daily_revenue"}}
//! ```
//!
//! `project` (required: a dbt project folder, relative to the workflow file), `command`
//! (`build`, the default, or `test`), `select` and `exclude` (a string split at blanks, or a
//! non-empty list of them; no `-` options), `vars` (an object; `window_start` and
//! `window_end` are set by the run), `skip_unchanged` (bool, default true) and `dbt_bin`.
//!
//! A run does what `ldp dbt build` (or `test`) does for the window (docs/dbt.md).

use serde_json::{Map, Value};

use crate::problems::{Problems, non_blank};
use crate::repr::{repr, repr_list};

/// The keys of a dbt task, in the Python tool's order.
pub const DBT_KEYS: [&str; 7] = [
    "project",
    "command",
    "select",
    "exclude",
    "vars",
    "skip_unchanged",
    "dbt_bin",
];

/// The dbt commands a task can run.
pub const DBT_COMMANDS: [&str; 2] = ["build", "test"];

/// The dbt variables every run sets from its window.
pub const DBT_WINDOW_VARS: [&str; 2] = ["window_start", "window_end"];

/// The value of a `dbt` task.
#[derive(Clone, Debug, PartialEq)]
pub struct DbtTask {
    /// The project folder, as written.
    pub project: String,
    /// `build` or `test`.
    pub command: String,
    /// The selectors of `select`, split at blanks.
    pub select: Vec<String>,
    /// The selectors of `exclude`, split at blanks.
    pub exclude: Vec<String>,
    /// `vars`.
    pub vars: Map<String, Value>,
    /// `skip_unchanged` (default true).
    pub skip_unchanged: bool,
    /// `dbt_bin`.
    pub dbt_bin: Option<String>,
}

/// The selectors a `select` or `exclude` value means (a string is split at blanks).
fn selectors(value: Option<&Value>) -> Vec<String> {
    let items: Vec<&str> = match value {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    items
        .iter()
        .flat_map(|item| item.split_whitespace())
        .map(str::to_owned)
        .collect()
}

fn check_selectors(problems: &mut Problems, value: &Value, at: &str) {
    let (items, listed) = match value {
        Value::String(_) => (std::slice::from_ref(value), false),
        Value::Array(items) if !items.is_empty() => (items.as_slice(), true),
        _ => {
            problems.add(
                at,
                format!(
                    "must be a dbt selector such as 'gold+', or a non-empty list of them, got {}",
                    repr(value)
                ),
            );
            return;
        }
    };
    for (number, item) in items.iter().enumerate() {
        let here = if listed {
            format!("{at}[{number}]")
        } else {
            at.to_owned()
        };
        match non_blank(item) {
            None => problems.add(
                &here,
                format!("must be a non-empty dbt selector, got {}", repr(item)),
            ),
            Some(text) if text.split_whitespace().any(|token| token.starts_with('-')) => problems
                .add(
                    &here,
                    format!("must be dbt selectors, not options, got {}", repr(item)),
                ),
            Some(_) => {}
        }
    }
}

/// Checks the value of a `dbt` task at `at` (`tasks[1].dbt`).
pub(super) fn check_dbt(problems: &mut Problems, value: &Value, at: &str) -> Option<DbtTask> {
    let Some(map) = value.as_object() else {
        problems.add(
            at,
            "must be an object with a 'project', the path of a dbt project folder with an ldp_dbt.json",
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, map, &DBT_KEYS);
    let project = map.get("project").and_then(non_blank).map(str::to_owned);
    if project.is_none() {
        problems.add(
            &format!("{at}.project"),
            "is required: the path of a dbt project folder with an ldp_dbt.json",
        );
    }
    if let Some(command) = map.get("command")
        && !command.as_str().is_some_and(|c| DBT_COMMANDS.contains(&c))
    {
        problems.add(
            &format!("{at}.command"),
            format!(
                "must be one of {}, got {}",
                repr_list(&DBT_COMMANDS),
                repr(command)
            ),
        );
    }
    for key in ["select", "exclude"] {
        if let Some(value) = map.get(key) {
            check_selectors(problems, value, &format!("{at}.{key}"));
        }
    }
    if let Some(vars) = map.get("vars") {
        match vars.as_object() {
            None => problems.add(
                &format!("{at}.vars"),
                format!("must be an object of dbt variables, got {}", repr(vars)),
            ),
            Some(vars) => {
                for name in DBT_WINDOW_VARS {
                    if vars.contains_key(name) {
                        problems.add(
                            &format!("{at}.vars.{name}"),
                            "is set by the run from its window, so a task cannot set it",
                        );
                    }
                }
            }
        }
    }
    if let Some(flag) = map.get("skip_unchanged")
        && !flag.is_boolean()
    {
        problems.add(
            &format!("{at}.skip_unchanged"),
            format!("must be true or false, got {}", repr(flag)),
        );
    }
    if let Some(bin) = map.get("dbt_bin")
        && non_blank(bin).is_none()
    {
        problems.add(
            &format!("{at}.dbt_bin"),
            format!(
                "must be the path of a dbt, or a name to look up on PATH, got {}",
                repr(bin)
            ),
        );
    }
    if problems.len() > before {
        return None;
    }
    Some(DbtTask {
        project: project?,
        command: map
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("build")
            .to_owned(),
        select: selectors(map.get("select")),
        exclude: selectors(map.get("exclude")),
        vars: map
            .get("vars")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        skip_unchanged: map
            .get("skip_unchanged")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        dbt_bin: map
            .get("dbt_bin")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dbt(value: Value) -> Result<DbtTask, Vec<String>> {
        let mut problems = Problems::default();
        check_dbt(&mut problems, &value, "tasks[1].dbt").ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn options() {
        let task = dbt(json!({"project": "dbt", "select": "+daily_revenue  orders",
                               "exclude": ["a b", "c"], "vars": {"x": 1}}))
        .expect("valid");
        assert_eq!(task.command, "build");
        assert_eq!(task.select, ["+daily_revenue", "orders"]);
        assert_eq!(task.exclude, ["a", "b", "c"]);
        assert!(task.skip_unchanged);
    }

    #[test]
    fn messages() {
        assert_eq!(
            dbt(json!(["dbt"])).unwrap_err(),
            [
                "tasks[1].dbt: must be an object with a 'project', the path of a dbt project folder with an ldp_dbt.json"
            ]
        );
        assert_eq!(
            dbt(json!({"command": "run", "select": [], "exclude": ["ok", " ", "--full-refresh"],
                       "vars": {"window_start": "x"}, "skip_unchanged": 1, "dbt_bin": "", "profile": "p"}))
            .unwrap_err(),
            [
                "tasks[1].dbt: has unknown keys ['profile']; allowed: ['project', 'command', 'select', 'exclude', 'vars', 'skip_unchanged', 'dbt_bin']",
                "tasks[1].dbt.project: is required: the path of a dbt project folder with an ldp_dbt.json",
                "tasks[1].dbt.command: must be one of ['build', 'test'], got 'run'",
                "tasks[1].dbt.select: must be a dbt selector such as 'gold+', or a non-empty list of them, got []",
                "tasks[1].dbt.exclude[1]: must be a non-empty dbt selector, got ' '",
                "tasks[1].dbt.exclude[2]: must be dbt selectors, not options, got '--full-refresh'",
                "tasks[1].dbt.vars.window_start: is set by the run from its window, so a task cannot set it",
                "tasks[1].dbt.skip_unchanged: must be true or false, got 1",
                "tasks[1].dbt.dbt_bin: must be the path of a dbt, or a name to look up on PATH, got ''",
            ]
        );
        assert_eq!(
            dbt(json!({"project": "p", "select": "a -x", "vars": [1]})).unwrap_err(),
            [
                "tasks[1].dbt.select: must be dbt selectors, not options, got 'a -x'",
                "tasks[1].dbt.vars: must be an object of dbt variables, got [1]",
            ]
        );
    }
}
