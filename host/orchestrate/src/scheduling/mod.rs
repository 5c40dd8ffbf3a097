//! Schedule evaluation and window layout, as pure functions: when a workflow's
//! cron expression fires in its time zone, which window each fire owns, which windows are due
//! at a time, how a backfill's range is laid out, and what the ledger says about each window.
//! Nothing here runs a pipeline or takes a lock; `ldp schedule` and `ldp backfill` do.
//!
//! * [`CronClock`] ([`fires`]): the fires of a [`Cron`](ldp_config::Cron) in a time
//!   zone, clock changes included (a skipped fixed time fires right after the gap, a repeated
//!   one once; intervals fire in both passes): `docs/reference/schedules.md`.
//! * [`WorkflowSchedule`] (due): a workflow's fires, window of a fire, due windows (with and
//!   without catch-up), next fire.
//! * [`windows_between`], [`floor_boundary`], [`is_aligned`], [`window_ending_at`] (grid):
//!   windows of one size laid end to end, days by the local calendar.
//! * [`BackfillRange`], [`parse_boundary`], [`parse_now`] (range): `--from/--to` of a backfill
//!   and `--now` of a tick.
//! * [`read_windows`], [`run_status`], [`trace_runs`] (ledger): the ledger read.
//! * [`recipe`] (install): the cron, launchd and systemd recipes `ldp schedule install --print`
//!   prints, which call `ldp schedule tick` every [`INTERVAL_MINUTES`] minutes.
//!
//! **Why not the `cron` crate.** `cron` 0.17 reads 6–7 fields (seconds first, years last)
//! where a config has 5, works on `chrono` (this crate uses `jiff`, and chrono is not a
//! dependency), and skips a local time a clock change skips (`LocalResult::None => continue`)
//! where a schedule at a fixed time must fire right after the gap. So the
//! 5-field parser ldp-config validates with ([`ldp_config::Cron`]: lists, ranges, steps,
//! names, 7 = Sunday, `L`, `LW`, `nL` and `n#k`, and either day field matching when both are
//! restricted) is evaluated here over jiff's time zone database, day by day in the local
//! calendar. Neither does `croner` give the Python tool's fires ([`fires`] says where not).
//!
//! ```
//! use jiff::{Timestamp, tz::TimeZone};
//! use ldp_config::Cron;
//! use ldp_orchestrate::scheduling::CronClock;
//! let paris = TimeZone::get("Europe/Paris").unwrap();
//! let clock = CronClock::new(&Cron::parse("30 2 * * *").unwrap(), &paris);
//! // 29 March 2026: 02:30 does not exist in Paris, so the fire is at 03:00 local.
//! let fire = clock.next_after("2026-03-28T12:00:00Z".parse::<Timestamp>().unwrap()).unwrap();
//! assert_eq!(fire.to_string(), "2026-03-29T01:00:00Z");
//! ```

pub mod fires;

mod due;
mod grid;
mod install;
mod ledger;
mod range;

pub use due::{MAX_ENUMERATED, WorkflowSchedule};
pub use fires::{CronClock, FiresAfter, SEARCH_DAYS, whole_minute};
pub use grid::{
    WindowGrid, fixed_length, floor_boundary, is_aligned, local_midnight, window_ending_at,
    windows_between,
};
pub use install::{
    INTERVAL_MINUTES, RecipeKind, cron_recipe, launchd_label, launchd_recipe, recipe,
    systemd_recipe, systemd_unit_name,
};
pub use ledger::{
    Continuation, LedgerWindow, RunStatus, WindowRecord, read_windows, run_status, trace_runs,
};
pub use range::{BackfillRange, DEFAULT_MAX_WINDOWS, boundary_text, parse_boundary, parse_now};
