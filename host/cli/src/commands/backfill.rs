//! `ldp backfill FILE --from START [--to END] [--dry-run] [--replace] [--run-backwards]
//! [--max-windows N] [--stop-on-failure] [--jobs N] [--json]`: the windows of a range,
//! the state of each decided before anything runs, then the windows that are not published
//! run oldest first (`ldp_orchestrate::backfill`).

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use ldp_config::format_instant;
use ldp_orchestrate::backfill::{
    WindowRun, WindowsOptions, outcome_counts, run_windows, seconds_since, status_of,
};
use ldp_orchestrate::scheduling::BackfillRange;
use ldp_orchestrate::window_state::{WindowState, backfill_states, state_counts};
use ldp_plugin_runtime::Runtime;
use serde_json::{Map, Value, json};

use crate::args::BackfillArgs;
use crate::output::table;

/// Runs (or with `--dry-run` lists) the windows; exit 1 when one failed, 3 when one was
/// blocked, else 0.
pub fn run(
    runtime: impl FnOnce() -> ldp_plugin_runtime::Result<Runtime>,
    args: &BackfillArgs,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let started = Instant::now();
    let workflow = ldp_config::load_workflow(&args.file, false)?;
    let range = BackfillRange::resolve(
        &workflow,
        &args.from,
        args.to.as_deref(),
        jiff::Timestamp::now(),
        args.max_windows,
    )?;
    let order = BackfillRange::order_label(args.run_backwards);
    let windows = range.ordered(args.run_backwards);
    if let Some(first) = windows.first() {
        let plan = ldp_config::workflow::plan_loaded_workflow(&workflow, Some(first), args.replace);
        if !plan.valid {
            return Err(ldp_orchestrate::Error::Invalid {
                workflow: workflow.identifier.clone(),
                problems: plan.errors,
            }
            .into());
        }
    }
    let states = backfill_states(&workflow, &windows, args.replace)?;
    if !args.dry_run {
        let settings = super::workflow::run_settings(runtime()?, args.jobs, args.replace, cancel)?;
        let options = WindowsOptions {
            stop_on_failure: args.stop_on_failure,
            max_pending: None,
            continue_runs: false,
        };
        let json = args.json;
        let runs = run_windows(
            &workflow,
            states,
            &settings,
            &options,
            |run, index, total| {
                if json || run.outcome == "skipped" {
                    return;
                }
                println!(
                    "[{index}/{total}] {}  {}",
                    run.state.window.label(),
                    run.outcome
                );
                for problem in run.problems() {
                    eprintln!("  {problem}");
                }
            },
        );
        let code = finish(&workflow, &range, order, args, &runs, started)?;
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("interrupted: run the same command again to resume");
            return Err(ldp_pipeline::Error::Interrupted.into());
        }
        return Ok(code);
    }
    let counts = state_counts(&states);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let windows: Vec<Value> = states.iter().map(window_json).collect();
        let counted: Map<String, Value> = counts
            .iter()
            .map(|(name, n)| ((*name).to_owned(), Value::from(*n)))
            .collect();
        let duration = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        let doc = json!({
            "workflow": workflow.identifier,
            "ledger": workflow.ledger_path().display().to_string(),
            "window_size": range.size.as_str(),
            "timezone": range.timezone,
            "from": format_instant(range.from),
            "to": format_instant(range.to),
            "order": order,
            "replace": args.replace,
            "dry_run": true,
            "status": "dry_run",
            "exit_code": 0,
            "duration_s": duration,
            "counts": {"published": 0, "skipped": 0, "blocked": 0, "failed": 0},
            "states": counted,
            "windows": windows,
        });
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    let rows: Vec<Vec<String>> = states
        .iter()
        .map(|s| vec![s.window.label(), key_cell(s), s.state.to_owned()])
        .collect();
    for line in table::lines(&["window", "key", "state"], &rows, &[]) {
        writeln!(stdout, "{line}")?;
    }
    let said: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{n} {name}"))
        .collect();
    writeln!(
        stdout,
        "{} windows of size {}, {order}: {}. Nothing was run.",
        states.len(),
        range.size.as_str(),
        said.join(", ")
    )?;
    Ok(0)
}

/// The first key's first 12 characters, `(+k)` when there are k more keys; `-` for none.
fn key_cell(state: &WindowState) -> String {
    let Some((_, first)) = state.keys.first() else {
        return "-".to_owned();
    };
    let short: String = first.chars().take(12).collect();
    match state.keys.len() {
        1 => short,
        n => format!("{short}(+{})", n - 1),
    }
}

/// A window of the JSON: its keys and state, and no outcome (nothing ran).
fn window_json(state: &WindowState) -> Value {
    let keys: Map<String, Value> = state
        .keys
        .iter()
        .map(|(task, key)| (task.clone(), Value::from(key.as_str())))
        .collect();
    json!({
        "window": state.window.label(),
        "state": state.state,
        "keys": keys,
        "outcome": null,
        "error": null,
        "attempt": null,
    })
}

/// Prints the end of a backfill that ran (its JSON, or the summary line).
fn finish(
    workflow: &ldp_config::Workflow,
    range: &BackfillRange,
    order: &str,
    args: &BackfillArgs,
    runs: &[WindowRun],
    started: Instant,
) -> anyhow::Result<u8> {
    let (status, exit_code) = status_of(runs);
    let counts = outcome_counts(runs);
    let states: Vec<WindowState> = runs.iter().map(|r| r.state.clone()).collect();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let counted: Map<String, Value> = counts
            .iter()
            .map(|(name, n)| ((*name).to_owned(), Value::from(*n)))
            .collect();
        let state_counted: Map<String, Value> = state_counts(&states)
            .iter()
            .map(|(name, n)| ((*name).to_owned(), Value::from(*n)))
            .collect();
        let doc = json!({
            "workflow": workflow.identifier,
            "ledger": workflow.ledger_path().display().to_string(),
            "window_size": range.size.as_str(),
            "timezone": range.timezone,
            "from": format_instant(range.from),
            "to": format_instant(range.to),
            "order": order,
            "replace": args.replace,
            "dry_run": false,
            "status": status,
            "exit_code": exit_code,
            "duration_s": seconds_since(started),
            "counts": counted,
            "states": state_counted,
            "windows": runs.iter().map(WindowRun::to_json).collect::<Vec<_>>(),
        });
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
    } else {
        writeln!(
            stdout,
            "backfill {}: {} in {:.1}s. Events: {}",
            workflow.identifier,
            counted_text(&counts),
            started.elapsed().as_secs_f64(),
            workflow.ledger_path().display()
        )?;
        if exit_code != 0 {
            stdout.flush()?;
            eprintln!(
                "Fix the cause and run the same command again: the windows that are done are skipped"
            );
        }
    }
    Ok(u8::try_from(exit_code).unwrap_or(1))
}

/// `1 published, 0 skipped, 1 blocked, 0 failed`, and `, 2 not run` when some were left.
pub fn counted_text(counts: &[(&str, usize)]) -> String {
    let mut out = counts
        .iter()
        .filter(|(name, _)| *name != "not_run")
        .map(|(name, n)| format!("{n} {name}"))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some((_, n)) = counts.iter().find(|(name, _)| *name == "not_run") {
        out.push_str(&format!(", {n} not run"));
    }
    out
}
