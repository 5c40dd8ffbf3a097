//! `ldp workflow plan FILE [--window W] [--json]` (§7.2): a workflow's tasks in the order they
//! run, each planned as `ldp plan` plans a config, without running anything.

use std::io::Write;

use crate::args::WorkflowPlanArgs;

/// Prints the plan; exits 1 when the workflow is not valid.
pub fn plan(args: &WorkflowPlanArgs) -> anyhow::Result<u8> {
    let plan =
        ldp_config::plan_workflow(&args.file, args.window.as_deref(), jiff::Timestamp::now());
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", plan.to_json_text())?;
    } else {
        let text = plan.render_lines();
        for line in &text.stdout {
            writeln!(stdout, "{line}")?;
        }
        stdout.flush()?;
        let mut stderr = std::io::stderr().lock();
        for line in &text.stderr {
            writeln!(stderr, "{line}")?;
        }
    }
    Ok(u8::try_from(plan.exit_code()).unwrap_or(1))
}
