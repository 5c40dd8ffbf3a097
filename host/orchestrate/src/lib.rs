//! Orchestration: ldp's workflows run window by window, in dependency order, retried when a
//! retry can help, never twice for the same window (`docs/workflows.md`).
//!
//! * [`run_workflow`]: one window of a workflow. Tasks that do not depend on each other run in
//!   parallel (`jobs`), writes to one table stay serialized, a failed or blocked task marks its
//!   dependants `upstream_failed`, and retries are next attempts of the same run.
//! * [`backfill`]: the windows of a range, each decided before anything runs, the ones not
//!   published run oldest first; a finished backfill run again does nothing.
//! * [`tick`]: `ldp schedule tick`: the due windows of every scheduled workflow under a folder,
//!   under a lock, continuing a failed window as the next attempt of its run.
//! * [`window_state`]: what each window of a backfill is before anything runs (`published`,
//!   `partial`, `missing`, `failed`, `blocked`), what `ldp backfill --dry-run` prints.
//! * [`schedule_list`]: what `ldp schedule list` shows: the scheduled files under a folder and,
//!   for each, its next fire, last window, due and missed windows.
//! * [`scheduling`]: when a workflow's cron fires in its time zone, the window each fire owns,
//!   the windows due at a time, a backfill's range and what the ledger says of each window, as
//!   pure functions; and the recipes `ldp schedule install` prints.
//! * [`Ledger`]: `<workflow folder>/.ldp/events.jsonl`, where every event of every run goes.
//!
//! The task kinds are in [`task`]: `pipeline` (a dataset config for the window), `sql` (a SQL
//! model run by DataFusion and published to an Iceberg table) and `maintain` (snapshot
//! expiry).

pub mod backfill;
mod error;
mod ledger;
mod result;
mod runner;
pub mod schedule_list;
pub mod scheduling;
mod task;
pub mod tick;
pub mod window_state;

pub use error::{Error, ErrorKind, Result};
pub use ledger::Ledger;
pub use result::{TaskResult, WorkflowResult};
pub use runner::{RunSettings, Sleep, default_jobs, run_workflow};
