//! `ldp backfill FILE --from START [--to END] [--max-windows N] [--run-backwards] --dry-run
//! [--json]` (§7.4): the windows of a range and the state of each before anything runs.
//! Running the windows is not built yet, so `--dry-run` is required and `--replace` refused.

use std::io::Write;
use std::time::Instant;

use anyhow::bail;
use ldp_config::format_instant;
use ldp_config::scheduling::BackfillRange;
use ldp_pipeline::backfill::{WindowState, backfill_states, state_counts};
use serde_json::{Map, Value, json};

use crate::args::BackfillArgs;
use crate::output::table;

/// Prints each window's state; exit 0 (a dry run).
pub fn run(args: &BackfillArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    if !args.dry_run {
        bail!(
            "ldp backfill runs only with --dry-run in this build: running the windows that are \
             not published is not built yet. Add --dry-run to see each window's state"
        );
    }
    if args.replace {
        bail!(
            "ldp backfill --replace is not built yet: this build only says which windows are \
             published (--dry-run without --replace)"
        );
    }
    let workflow = ldp_config::load_workflow(&args.file, false)?;
    let range = BackfillRange::resolve(
        &workflow,
        &args.from,
        args.to.as_deref(),
        jiff::Timestamp::now(),
        args.max_windows,
    )?;
    let order = BackfillRange::order_label(args.run_backwards);
    let states = backfill_states(&workflow, &range.ordered(args.run_backwards))?;
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
            "replace": false,
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
