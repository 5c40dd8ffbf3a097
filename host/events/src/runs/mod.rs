//! `ldp runs`, as pure functions of the events read: [`summarize_runs`] folds them into
//! one [`RunSummary`] per run attempt, [`runs_text`] renders exactly what the Python tool prints
//! (summary table, event table, or the no-runs message), [`runs_json`] the same rows for
//! `--json`. Reading the events (a JSONL file with [`crate::read_events_file`] and
//! [`select_events`], or `_ldp.runs` with [`crate::events_from_runs_batch`]) is the caller's.

mod render;
mod select;
mod summary;
mod table;

pub use render::{
    RunsOptions, event_detail, events_table, no_runs_message, runs_json, runs_text, summary_table,
};
pub use select::{is_selected, select_events};
pub use summary::{RunSummary, summarize_runs};
