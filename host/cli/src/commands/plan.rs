//! `ldp plan CONFIG|FOLDER [--window W] [--strict] [--json]`: validate without running, and say
//! what a run would do. A workflow file (kind `Workflow`) is planned as `ldp workflow plan`
//! plans it, and a folder's workflow files are planned with its configs: an invalid one fails
//! the folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use ldp_config::{Plan, WorkflowPlan, plan_file, plan_workflow};

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
    if !args.config.is_dir() && is_workflow(&args.config) {
        return super::workflow::plan(&crate::args::WorkflowPlanArgs {
            file: args.config.clone(),
            window: args.window.clone(),
            json: args.json,
        });
    }
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
        if is_workflow(file) {
            plans.push(FolderPlan::Workflow(Box::new(plan_workflow(
                file, window, now,
            ))));
        } else {
            plans.push(FolderPlan::Dataset(Box::new(plan_file(file)?)));
        }
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let values = plans
            .iter()
            .map(|p| match p {
                FolderPlan::Dataset(plan) => serde_json::to_value(plan.as_ref()),
                FolderPlan::Workflow(plan) => serde_json::to_value(plan.as_ref()),
            })
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
            let file = name(Path::new(plan.file()));
            for error in plan.errors() {
                writeln!(stderr, "{file}: {error}")?;
            }
            for warning in plan.warnings() {
                writeln!(stderr, "{file}: warning: {warning}")?;
            }
        }
    }
    Ok(u8::from(!plans.iter().all(FolderPlan::valid)))
}

fn exit_code(plans: &[Plan]) -> u8 {
    if plans.iter().all(|p| p.valid) { 0 } else { 1 }
}

/// One file of a folder: a dataset config or a workflow file.
enum FolderPlan {
    Dataset(Box<Plan>),
    Workflow(Box<WorkflowPlan>),
}

impl FolderPlan {
    fn file(&self) -> &str {
        match self {
            FolderPlan::Dataset(plan) => plan.config.as_deref().unwrap_or(""),
            FolderPlan::Workflow(plan) => plan.file.as_deref().unwrap_or(""),
        }
    }

    fn valid(&self) -> bool {
        match self {
            FolderPlan::Dataset(plan) => plan.valid,
            FolderPlan::Workflow(plan) => plan.valid,
        }
    }

    fn errors(&self) -> &[String] {
        match self {
            FolderPlan::Dataset(plan) => &plan.errors,
            FolderPlan::Workflow(plan) => &plan.errors,
        }
    }

    fn warnings(&self) -> &[String] {
        match self {
            FolderPlan::Dataset(plan) => &plan.warnings,
            FolderPlan::Workflow(plan) => &plan.warnings,
        }
    }
}

/// Whether the file is a workflow file: a JSON object whose `kind` is `Workflow` (anything
/// else, unreadable files included, is planned as a dataset config, which reports why).
fn is_workflow(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|doc| doc.get("kind").and_then(|k| k.as_str()) == Some("Workflow"))
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

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One row per file of a folder: `config kind identifier valid route pipeline target
/// spec_hash` (the hash cut to 12 characters), in the common table format; a workflow file's
/// row has its id, its validity and nulls.
fn folder_table(plans: &[FolderPlan]) -> String {
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
    let rows: Vec<Vec<Cell>> = plans
        .iter()
        .map(|p| match p {
            FolderPlan::Dataset(p) => dataset_row(p),
            FolderPlan::Workflow(w) => vec![
                Cell::Text(name(Path::new(p.file()))),
                Cell::Text(w.kind.clone()),
                w.workflow.clone().map_or(Cell::Null, Cell::Text),
                Cell::Bool(w.valid),
                Cell::Null,
                Cell::Null,
                Cell::Null,
                Cell::Null,
            ],
        })
        .collect();
    table::render(&header, &rows, rows.len() as u64)
}

fn dataset_row(p: &Plan) -> Vec<Cell> {
    let text = |v: &Option<String>| v.clone().map_or(Cell::Null, Cell::Text);
    vec![
        Cell::Text(name(Path::new(p.config.as_deref().unwrap_or("")))),
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
}
