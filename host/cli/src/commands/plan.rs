//! `ldp plan CONFIG|FOLDER [--window W] [--strict] [--json]`: validate without running, and say
//! what a run would do.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use ldp_config::{ConfigError, Plan, plan_file};

use crate::args::PlanArgs;
use crate::output::cell::Cell;
use crate::output::table;

/// Plans a config or every `*.json` file of a folder; exits 1 when any is invalid.
pub fn run(args: &PlanArgs) -> anyhow::Result<u8> {
    let now = jiff::Timestamp::now();
    let window = args.window.as_deref();
    let plan_file = |file: &Path| {
        plan_file(file, window, now).map(|plan| if args.strict { plan.strict() } else { plan })
    };
    if !args.config.is_dir() {
        let plan = plan_file(&args.config)?;
        let mut stdout = std::io::stdout().lock();
        if args.json {
            writeln!(stdout, "{}", plan.to_json_text())?;
        } else {
            let text = plan.render_text();
            stdout.write_all(text.stdout.as_bytes())?;
            std::io::stderr().lock().write_all(text.stderr.as_bytes())?;
        }
        return Ok(exit_code(std::slice::from_ref(&plan)));
    }
    let files = json_files(&args.config)?;
    if files.is_empty() {
        anyhow::bail!("no *.json configs in {}", args.config.display());
    }
    let mut plans = Vec::with_capacity(files.len());
    for file in &files {
        match plan_file(file) {
            Ok(plan) => plans.push(plan),
            // Workflow files are planned by `ldp workflow plan`.
            Err(ConfigError::Invalid { message, .. }) if message.contains("is a Workflow") => {
                tracing::warn!("{}: skipped: {message}", name(file));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let values = plans
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<_>, _>>()?;
        writeln!(
            stdout,
            "{}",
            ldp_config::python_json_pretty(&serde_json::Value::Array(values))
        )?;
    } else {
        write!(stdout, "{}", folder_table(&plans))?;
        let mut stderr = std::io::stderr().lock();
        for plan in &plans {
            let file = name(Path::new(label(plan)));
            for error in &plan.errors {
                writeln!(stderr, "{file}: {error}")?;
            }
            for warning in &plan.warnings {
                writeln!(stderr, "{file}: warning: {warning}")?;
            }
        }
    }
    Ok(exit_code(&plans))
}

fn exit_code(plans: &[Plan]) -> u8 {
    if plans.iter().all(|p| p.valid) { 0 } else { 1 }
}

/// The `*.json` files of a folder, sorted.
fn json_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn label(plan: &Plan) -> &str {
    plan.config.as_deref().unwrap_or("")
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One row per file of a folder: `config kind identifier valid route pipeline target
/// spec_hash` (the hash cut to 12 characters), in the common table format.
fn folder_table(plans: &[Plan]) -> String {
    let header: Vec<String> = [
        "config",
        "kind",
        "identifier",
        "valid",
        "route",
        "pipeline",
        "target",
        "spec_hash",
    ]
    .map(String::from)
    .to_vec();
    let text = |v: &Option<String>| v.clone().map_or(Cell::Null, Cell::Text);
    let rows: Vec<Vec<Cell>> = plans
        .iter()
        .map(|p| {
            vec![
                Cell::Text(name(Path::new(label(p)))),
                text(&p.kind),
                match &p.identifier {
                    serde_json::Value::Null => Cell::Null,
                    serde_json::Value::String(s) => Cell::Text(s.clone()),
                    other => Cell::Text(other.to_string()),
                },
                Cell::Bool(p.valid),
                text(&p.route),
                text(&p.pipeline),
                text(&p.target),
                text(&p.spec_hash.as_ref().map(|h| h.chars().take(12).collect())),
            ]
        })
        .collect();
    table::render(&header, &rows, rows.len() as u64)
}
