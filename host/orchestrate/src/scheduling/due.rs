//! The windows of a workflow's fires: which window a fire owns, which windows are due at
//! a time, and the next fire.
//!
//! * **The window of a fire.** With a window size (`metadata.window.size`, or the day or hour an
//!   `@daily` or `@hourly` schedule means), the last complete window of that size ending at or
//!   before the fire: the fire is floored to the size in the workflow's time zone, and the
//!   window ends there (`5 2 * * *` on 5 August owns 4 August). Without a size, the time from
//!   the previous fire to this one.
//! * **Due windows.** Without `catchup`, the window of the latest fire at or before `now`,
//!   unless it starts before `metadata.start`. With `catchup`, the window of every fire since
//!   `metadata.start`, each once, none starting before `start`; more than [`MAX_ENUMERATED`]
//!   is refused.
//! * **Next fire.** The first fire after `now` whose window does not start before `start`,
//!   looked for among the next 1000 fires.

use jiff::Timestamp;

use super::fires::{CronClock, MINUTE, whole_minute};
use super::grid::{floor_boundary, window_ending_at};
use super::range::parse_boundary;
use ldp_config::ConfigError;
use ldp_config::WindowSize;
use ldp_config::Workflow;
use ldp_config::{Window, format_instant};

/// The most windows a catch-up or a listing goes through.
pub const MAX_ENUMERATED: usize = 100_000;

/// The fires a search for the next fire looks through when `start` rules some out.
const SEARCH_FIRES: usize = 1000;

/// A workflow's schedule, read for evaluation: its fires, window size, start and catch-up.
#[derive(Clone, Debug)]
pub struct WorkflowSchedule {
    /// The workflow's identifier, for messages.
    pub identifier: String,
    /// The fires of its cron expression in its time zone.
    pub clock: CronClock,
    /// The window size: `metadata.window.size`, or what `@daily`/`@hourly` means.
    pub size: Option<WindowSize>,
    /// `metadata.start`, read in the workflow's time zone.
    pub start: Option<Timestamp>,
    /// `metadata.catchup`.
    pub catchup: bool,
}

impl WorkflowSchedule {
    /// Reads the schedule of a workflow.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`]: `workflow nightly has no schedule`, or `metadata.start` is not
    /// an ISO-8601 date or datetime.
    pub fn of(workflow: &Workflow) -> Result<WorkflowSchedule, ConfigError> {
        let Some(schedule) = &workflow.schedule else {
            return Err(ConfigError::Window {
                message: format!("workflow {} has no schedule", workflow.identifier),
            });
        };
        let time_zone = workflow.time_zone();
        let start = match &workflow.start {
            Some(text) => Some(parse_boundary(text, &time_zone, "metadata.start")?),
            None => None,
        };
        Ok(WorkflowSchedule {
            identifier: workflow.identifier.clone(),
            clock: CronClock::new(&schedule.cron, &time_zone),
            size: workflow.window_size(),
            start,
            catchup: workflow.catchup,
        })
    }

    /// The latest fire at or before `moment`.
    pub fn fire_at_or_before(&self, moment: Timestamp) -> Option<Timestamp> {
        self.clock.at_or_before(moment)
    }

    /// The window a fire owns, or `None` without a size when there is no fire before it.
    pub fn window_of_fire(&self, fire: Timestamp) -> Option<Window> {
        let time_zone = self.clock.time_zone();
        if let Some(size) = self.size {
            return Some(window_ending_at(
                floor_boundary(fire, size, time_zone),
                size,
                time_zone,
            ));
        }
        let before = fire.checked_sub(MINUTE).ok()?;
        let previous = self.fire_at_or_before(before)?;
        Some(Window {
            start: previous,
            end: fire,
        })
    }

    /// The window of the latest fire at or before `now`, unless it starts before `start`.
    pub fn latest_window(&self, now: Timestamp) -> Option<Window> {
        let fire = self.fire_at_or_before(now)?;
        let window = self.window_of_fire(fire)?;
        match self.start {
            Some(start) if window.start < start => None,
            _ => Some(window),
        }
    }

    /// The windows of the fires after `since` up to `now`, oldest first, each once, none
    /// starting before `since`, at most `limit`. Empty without `since`.
    pub fn windows_since(
        &self,
        since: Option<Timestamp>,
        now: Timestamp,
        limit: usize,
    ) -> Vec<Window> {
        let Some(since) = since else {
            return Vec::new();
        };
        let mut found: Vec<Window> = Vec::new();
        let mut previous: Option<Timestamp> = None;
        for fire in self.clock.fires_after(whole_minute(since)) {
            if fire > now || found.len() >= limit {
                break;
            }
            let window = match (self.size, previous) {
                (None, Some(previous)) => Some(Window {
                    start: previous,
                    end: fire,
                }),
                _ => self.window_of_fire(fire),
            };
            previous = Some(fire);
            let Some(window) = window else {
                continue;
            };
            if window.start < since || found.last() == Some(&window) {
                continue;
            }
            found.push(window);
        }
        found
    }

    /// [`WorkflowSchedule::windows_since`] capped at [`MAX_ENUMERATED`].
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`]: `workflow nightly has more than 100000 windows since
    /// 2000-01-01T00:00:00Z. Set metadata.start to a later time, and fill the history before it
    /// with ldp backfill`.
    pub fn enumerate(
        &self,
        since: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<Vec<Window>, ConfigError> {
        let found = self.windows_since(since, now, MAX_ENUMERATED + 1);
        match since {
            Some(since) if found.len() > MAX_ENUMERATED => Err(ConfigError::Window {
                message: format!(
                    "workflow {} has more than {MAX_ENUMERATED} windows since {}. Set metadata.start to a later time, and fill the history before it with ldp backfill",
                    self.identifier,
                    format_instant(since)
                ),
            }),
            _ => Ok(found),
        }
    }

    /// The windows a tick at `now` looks at, oldest first, done or not: the latest fire's
    /// window, or with `catchup` every fire's window since `start`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] when a catch-up has more than [`MAX_ENUMERATED`] windows.
    pub fn due_windows(&self, now: Timestamp) -> Result<Vec<Window>, ConfigError> {
        if self.catchup {
            return self.enumerate(self.start, now);
        }
        Ok(self.latest_window(now).into_iter().collect())
    }

    /// The next fire after `now` whose window does not start before `start`.
    pub fn next_fire(&self, now: Timestamp) -> Option<Timestamp> {
        for fire in self.clock.fires_after(whole_minute(now)).take(SEARCH_FIRES) {
            let Some(start) = self.start else {
                return Some(fire);
            };
            if self
                .window_of_fire(fire)
                .is_some_and(|window| window.start >= start)
            {
                return Some(fire);
            }
        }
        None
    }
}
