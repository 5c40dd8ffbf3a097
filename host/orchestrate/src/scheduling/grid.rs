//! Windows of one size laid end to end: a day runs from one local midnight to the
//! next in the workflow's time zone (23 or 25 hours across a clock change); an hour and a
//! quarter of an hour are as long as they say.
//!
//! A local midnight that a clock change skips is the moment of the change, and one that happens
//! twice is its first occurrence (Python's `fold=0`), as for the window shortcuts.

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use ldp_config::Window;
use ldp_config::WindowSize;

/// How long a window of a fixed size is: an hour or 15 minutes; `None` for a day, which is
/// counted in the local calendar.
pub fn fixed_length(size: WindowSize) -> Option<SignedDuration> {
    match size {
        WindowSize::Day => None,
        WindowSize::Hour => Some(SignedDuration::from_mins(60)),
        WindowSize::FifteenMinutes => Some(SignedDuration::from_mins(15)),
    }
}

fn step_minutes(size: WindowSize) -> i8 {
    match size {
        WindowSize::Day | WindowSize::Hour => 60,
        WindowSize::FifteenMinutes => 15,
    }
}

/// Local midnight of a date in `time_zone`: a midnight a clock change skips is the moment of
/// the change, a repeated one its first occurrence; `None` out of range.
pub fn local_midnight(date: Date, time_zone: &TimeZone) -> Option<Timestamp> {
    date.to_datetime(Time::midnight())
        .to_zoned(time_zone.clone())
        .ok()
        .map(|zoned| zoned.timestamp())
}

/// Whether `moment` starts a window of `size` in `time_zone`: a day at local midnight, an hour
/// at the start of a local hour, `15m` at a quarter of one.
pub fn is_aligned(moment: Timestamp, size: WindowSize, time_zone: &TimeZone) -> bool {
    let local = moment.to_zoned(time_zone.clone());
    if size == WindowSize::Day {
        return local_midnight(local.date(), time_zone) == Some(moment);
    }
    local.second() == 0
        && local.subsec_nanosecond() == 0
        && local.minute() % step_minutes(size) == 0
}

/// The start of the window of `size` that `moment` falls in (the Python tool's
/// `floor_boundary`). An hour or a quarter keeps the offset `moment` has.
pub fn floor_boundary(moment: Timestamp, size: WindowSize, time_zone: &TimeZone) -> Timestamp {
    let local = moment.to_zoned(time_zone.clone());
    if size == WindowSize::Day {
        return local_midnight(local.date(), time_zone).unwrap_or(moment);
    }
    let civil = local.datetime();
    let minute = civil.minute() - civil.minute() % step_minutes(size);
    civil
        .with()
        .minute(minute)
        .second(0)
        .subsec_nanosecond(0)
        .build()
        .ok()
        .and_then(|floored| local.offset().to_timestamp(floored).ok())
        .unwrap_or(moment)
}

/// The window of `size` that ends at `end` (which should start a window): a day starts at the
/// local midnight of the day before `end`'s local date.
pub fn window_ending_at(end: Timestamp, size: WindowSize, time_zone: &TimeZone) -> Window {
    let start = match fixed_length(size) {
        Some(length) => end.checked_sub(length).ok(),
        None => end
            .to_zoned(time_zone.clone())
            .date()
            .yesterday()
            .ok()
            .and_then(|day| local_midnight(day, time_zone)),
    };
    Window {
        start: start.unwrap_or(end),
        end,
    }
}

/// The windows of `size` from `start` to `end`, oldest first, laid end to end; each is whole,
/// so none ends after `end` (the Python tool's `iter_windows`). `start` should start a window.
pub fn windows_between(
    start: Timestamp,
    end: Timestamp,
    size: WindowSize,
    time_zone: &TimeZone,
) -> WindowGrid {
    WindowGrid {
        next: Some(start),
        day: (size == WindowSize::Day).then(|| start.to_zoned(time_zone.clone()).date()),
        end,
        length: fixed_length(size),
        time_zone: time_zone.clone(),
    }
}

/// The windows of a range ([`windows_between`]).
#[derive(Clone, Debug)]
pub struct WindowGrid {
    next: Option<Timestamp>,
    day: Option<Date>,
    end: Timestamp,
    length: Option<SignedDuration>,
    time_zone: TimeZone,
}

impl Iterator for WindowGrid {
    type Item = Window;

    fn next(&mut self) -> Option<Window> {
        let window = match (self.day, self.length) {
            (Some(day), _) => {
                let tomorrow = day.tomorrow().ok()?;
                self.day = Some(tomorrow);
                Window {
                    start: local_midnight(day, &self.time_zone)?,
                    end: local_midnight(tomorrow, &self.time_zone)?,
                }
            }
            (None, Some(length)) => {
                let start = self.next?;
                let end = start.checked_add(length).ok()?;
                self.next = Some(end);
                Window { start, end }
            }
            (None, None) => return None,
        };
        if window.end > self.end {
            self.day = None;
            self.length = None;
            return None;
        }
        Some(window)
    }
}
