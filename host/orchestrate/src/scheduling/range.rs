//! The range of a backfill: `--from START [--to END]`, read in the workflow's time zone,
//! checked, and laid out as windows of the workflow's size.
//!
//! * A bound is an ISO-8601 date or datetime as Python 3.11's `fromisoformat` reads it (after
//!   `Z`/`z` became `+00:00`): a date is local midnight in the workflow's time zone, a naive
//!   datetime is read in that zone, an offset is honoured ([`parse_boundary`]).
//! * Each bound must start a window: `the start of the range, 2026-08-01T10:00:00Z, does not
//!   start a window of size day in Europe/Paris. Windows of that size start at midnight`.
//! * Without `--to` the range ends at the start of the window that `now` is in.
//! * The windows are laid end to end ([`super::windows_between`]); the one starting at the end
//!   is not in the range. An empty range, and one of more than `--max-windows` windows
//!   (default [`DEFAULT_MAX_WINDOWS`]), are refused with the Python tool's messages.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::grid::{floor_boundary, is_aligned, windows_between};
use ldp_config::ConfigError;
use ldp_config::WindowSize;
use ldp_config::Workflow;
use ldp_config::fromisoformat;
use ldp_config::py_strip;
use ldp_config::repr_str;
use ldp_config::{Window, format_instant};

/// The most windows a backfill takes unless `--max-windows` says otherwise.
pub const DEFAULT_MAX_WINDOWS: usize = 1000;

/// Where windows of each size start, as the Python tool's messages say it.
fn where_windows_start(size: WindowSize) -> &'static str {
    match size {
        WindowSize::Day => "midnight",
        WindowSize::Hour => "the start of an hour",
        WindowSize::FifteenMinutes => "the start of a quarter of an hour",
    }
}

fn error(message: String) -> ConfigError {
    ConfigError::Window { message }
}

/// Reads ISO-8601 text as the Python tool's `parse_boundary` does: a date is local midnight in
/// `time_zone`, a naive datetime is read in `time_zone` (a skipped time with the offset before
/// the change, a repeated one as its first occurrence), an offset is taken as written. `what`
/// names the value in the message (`the start of the range`, `metadata.start`).
///
/// # Errors
///
/// [`ConfigError::Window`]: `the start of the range 'x' is not an ISO-8601 date or datetime,
/// such as 2026-06-01 or 2026-06-01T06:00:00+02:00`, or `… must be a date, a datetime or
/// ISO-8601 text, got ''` for blank text.
pub fn parse_boundary(
    text: &str,
    time_zone: &TimeZone,
    what: &str,
) -> Result<Timestamp, ConfigError> {
    if py_strip(text).is_empty() {
        return Err(error(format!(
            "{what} must be a date, a datetime or ISO-8601 text, got {}",
            repr_str(text)
        )));
    }
    let invalid = || {
        error(format!(
            "{what} {} is not an ISO-8601 date or datetime, such as 2026-06-01 or 2026-06-01T06:00:00+02:00",
            repr_str(text)
        ))
    };
    iso_instant(text, time_zone).ok_or_else(invalid)
}

/// ISO-8601 text as an instant: with an offset (or `Z`) as written, naive in `time_zone`.
fn iso_instant(text: &str, time_zone: &TimeZone) -> Option<Timestamp> {
    let parsed = fromisoformat(&py_strip(text).replace(['Z', 'z'], "+00:00"))?;
    match parsed.offset_micros {
        None => parsed
            .datetime
            .to_zoned(time_zone.clone())
            .ok()
            .map(|zoned| zoned.timestamp()),
        Some(micros) => parsed
            .datetime
            .to_zoned(TimeZone::UTC)
            .ok()?
            .timestamp()
            .checked_sub(jiff::SignedDuration::from_micros(micros))
            .ok(),
    }
}

/// Reads the time of a tick or a listing (`--now`): ISO-8601, naive = UTC.
///
/// # Errors
///
/// [`ConfigError::Window`]: `now 'x' is not an ISO-8601 date or datetime, such as
/// 2026-08-05T02:05:00Z`.
pub fn parse_now(text: &str) -> Result<Timestamp, ConfigError> {
    let invalid = || {
        error(format!(
            "now {} is not an ISO-8601 date or datetime, such as 2026-08-05T02:05:00Z",
            repr_str(text)
        ))
    };
    iso_instant(text, &TimeZone::UTC).ok_or_else(invalid)
}

/// The windows of a backfill, checked, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackfillRange {
    /// The size of the windows.
    pub size: WindowSize,
    /// The name of the time zone (`Europe/Paris`, `UTC`), as the backfill's `timezone` field.
    pub timezone: String,
    /// Where the range starts (the backfill's `from`).
    pub from: Timestamp,
    /// Where it ends (`to`): the window that starts there is not in it.
    pub to: Timestamp,
    /// The windows, oldest first.
    pub windows: Vec<Window>,
}

impl BackfillRange {
    /// Reads and lays out the range of `ldp backfill FILE --from FROM [--to TO]` as the
    /// Python tool does, in its order of checks: `max_windows`, the size, the bounds and their
    /// alignment, an empty range, then the number of windows. `now` gives the default end.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] with the Python tool's messages, e.g. `nightly does not say how
    /// long a window is. …`, `the range is empty: its start … is not before its end …`, `the
    /// range from … to … holds more than 1000 windows of size day. …`.
    pub fn resolve(
        workflow: &Workflow,
        from: &str,
        to: Option<&str>,
        now: Timestamp,
        max_windows: usize,
    ) -> Result<BackfillRange, ConfigError> {
        if max_windows < 1 {
            return Err(error(format!(
                "max_windows must be a whole number from 1, got {max_windows}"
            )));
        }
        let time_zone = workflow.time_zone();
        let zone = workflow.timezone_name();
        let Some(size) = workflow.window_size() else {
            return Err(error(format!(
                "{} does not say how long a window is. Set metadata.window.size to day, hour, 15m. A schedule of @daily or @hourly means a day or an hour",
                workflow.identifier
            )));
        };
        let first = parse_boundary(from, &time_zone, "the start of the range")?;
        let last = match to {
            Some(text) => parse_boundary(text, &time_zone, "the end of the range")?,
            None => floor_boundary(now, size, &time_zone),
        };
        for (what, moment) in [("start", first), ("end", last)] {
            if !is_aligned(moment, size, &time_zone) {
                return Err(error(format!(
                    "the {what} of the range, {}, does not start a window of size {size} in {zone}. Windows of that size start at {}",
                    format_instant(moment),
                    where_windows_start(size)
                )));
            }
        }
        if first >= last {
            let by_default = if to.is_none() {
                " (the end is the last complete window, as no end was given)"
            } else {
                ""
            };
            return Err(error(format!(
                "the range is empty: its start {} is not before its end {}{by_default}",
                format_instant(first),
                format_instant(last)
            )));
        }
        let windows: Vec<Window> = windows_between(first, last, size, &time_zone)
            .take(max_windows.saturating_add(1))
            .collect();
        if windows.len() > max_windows {
            return Err(error(format!(
                "the range from {} to {} holds more than {max_windows} windows of size {size}. Check the start and the end, or pass a larger max_windows (--max-windows)",
                format_instant(first),
                format_instant(last)
            )));
        }
        Ok(BackfillRange {
            size,
            timezone: zone,
            from: first,
            to: last,
            windows,
        })
    }

    /// The windows newest first (`--run-backwards`), or oldest first.
    pub fn ordered(&self, run_backwards: bool) -> Vec<Window> {
        let mut windows = self.windows.clone();
        if run_backwards {
            windows.reverse();
        }
        windows
    }

    /// `newest first` or `oldest first`, the backfill's `order` field.
    pub fn order_label(run_backwards: bool) -> &'static str {
        if run_backwards {
            "newest first"
        } else {
            "oldest first"
        }
    }
}

/// A bound as `ldp schedule list` writes it in a fill command: the local date when it is a
/// local midnight, else the instant in UTC-Z (the Python tool's `_boundary_text`).
pub fn boundary_text(moment: Timestamp, time_zone: &TimeZone) -> String {
    let local = moment.to_zoned(time_zone.clone());
    let civil = local.datetime();
    if (
        civil.hour(),
        civil.minute(),
        civil.second(),
        civil.subsec_nanosecond(),
    ) == (0, 0, 0, 0)
    {
        return local.date().to_string();
    }
    format_instant(moment)
}
