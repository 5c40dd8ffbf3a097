//! `ldp runs CONFIG|FILE.jsonl [--jsonl F] [--run ID] [--events] [--attempts] [--limit N]
//! [--json]`: the runs a pipeline recorded, from `_ldp.runs` or its JSONL events file.

use std::io::Write;

use ldp_events::runs::{RunsOptions, runs_json, runs_text};
use ldp_status::runs::RunsQuery;

use crate::settings::RunsSettings;

/// Prints the runs (or events) recorded for a config or in a JSONL file.
pub fn run(settings: &RunsSettings) -> anyhow::Result<u8> {
    let (events, location) = ldp_status::RunsReader::new().load(&RunsQuery {
        target: &settings.target,
        jsonl: settings.jsonl.as_deref(),
        run: settings.run.as_deref(),
    })?;
    let options = RunsOptions {
        run: settings.run.clone(),
        events: settings.events,
        attempts: settings.attempts,
        limit: settings.limit,
    };
    let mut stdout = std::io::stdout().lock();
    if settings.json {
        writeln!(
            stdout,
            "{}",
            super::json_text(&runs_json(&events, &location, &options))?
        )?;
    } else {
        write!(stdout, "{}", runs_text(&events, &location, &options))?;
    }
    Ok(0)
}
