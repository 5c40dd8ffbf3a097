//! `ldp dbt init|build|test|docs|exec` (`ldp_dbt`).

use std::io::Write;

use ldp_dbt::{DbtCommand, DbtRequest, Overrides};
use ldp_plugin_runtime::Runtime;

use crate::args::{DbtInitArgs, DbtRunArgs};

/// Writes the project's files; says which it wrote and which it kept.
pub fn init(args: &DbtInitArgs) -> anyhow::Result<u8> {
    let report = ldp_dbt::init(
        &args.project,
        &args.sources,
        &args.warehouse,
        Some(&args.namespace),
    )?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "dbt project {}", report.project.display())?;
    for file in &report.written {
        writeln!(out, "  wrote {file}")?;
    }
    for file in &report.kept {
        writeln!(out, "  kept {file} (it exists)")?;
    }
    writeln!(
        out,
        "next: ldp dbt build {} (runs once the source tables exist)",
        args.project.display()
    )?;
    Ok(0)
}

/// Registers the sources, runs dbt, publishes after a passing build; the exit code says how it
/// went (3: failing data tests or a gate that held a model back).
pub fn run(runtime: Runtime, command: DbtCommand, args: &DbtRunArgs) -> anyhow::Result<u8> {
    let request = DbtRequest {
        command,
        project: args.project.clone(),
        overrides: Overrides {
            sources: args.sources.clone(),
            warehouse: args.warehouse.clone(),
            namespace: args.namespace.clone(),
        },
        dbt_args: args.dbt_args.clone(),
        vars: None,
        run_options: ldp_pipeline::RunOptions::default(),
        dbt_output_to_stderr: args.json,
        dbt_program: None,
    };
    let report = ldp_dbt::run(&request, &runtime)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", super::json_text(&report.to_json())?)?;
    } else {
        for published in &report.published {
            writeln!(
                out,
                "published model {} to {} ({}): {} rows, snapshot {}",
                published.plan.model,
                published.plan.table,
                published.plan.mode,
                published.report.rows_written,
                published
                    .report
                    .published_snapshot_id
                    .map_or("none".to_string(), |s| s.to_string())
            )?;
        }
        if !report.tests_failed.is_empty() {
            writeln!(
                out,
                "{} data tests failed ({}); nothing was published",
                report.tests_failed.len(),
                report.tests_failed.join(", ")
            )?;
        } else if report.dbt_exit != 0 {
            writeln!(
                out,
                "dbt failed (exit {}); nothing was published",
                report.dbt_exit
            )?;
        }
    }
    if let Some(e) = &report.publish_error {
        eprintln!("ldp: error: {e}");
    }
    Ok(u8::try_from(report.exit_code()).unwrap_or(1))
}
