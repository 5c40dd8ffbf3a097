//! The fires of a cron expression in a time zone: a fire is a whole local minute that the
//! expression matches (the same fires as the Python tool, which uses `cronsim`; the rules are
//! written out in `docs/reference/schedules.md`).
//!
//! Clock changes follow the Debian-cron rule, by [`Cron::fixed_time`]:
//!
//! * a schedule at fixed times (neither the minute nor the hour field starts with `*`, such as
//!   `5 2 * * *` or `30 1,2 * * *`) fires once at a local time that happens twice (its first
//!   occurrence), and a local time that a clock change skips fires right after the gap (the
//!   first whole minute that exists, `03:00` for a skipped `02:30` in Europe/Paris);
//! * any other schedule (`*/30 * * * *`, `0 * * * *`) fires at every instant whose local time
//!   matches: in both passes of a repeated hour, and not at all in a gap.
//!
//! Looking back ([`CronClock::at_or_before`]) is the exact inverse of looking forward. The
//! Python tool's backward walk differs in one corner: it reads a moment in the second pass of a
//! repeated hour as the first pass, so from `2026-10-25T01:10Z` (02:10 CET, Paris) the latest
//! fire of `30 2 * * *` is the day before's for it, though its own forward walk fired at
//! `2026-10-25T00:30Z` (02:30 CEST). ldp returns that fire.
//!
//! The fires are computed day by day in the local calendar: a day that the day and month
//! fields match (`L`, `LW`, `5L` and `MON#2` included, [`Cron::matches_date`]) gives its
//! matching hours and minutes, each turned into instants by the rules above. A search gives up
//! after [`SEARCH_DAYS`] days (50 years) without a fire (a schedule such as `0 0 30 2 *` never
//! fires).
//!
//! **Why not the `croner` crate.** croner 4.0 parses `L`, `#` and `W` and has DST rules, but
//! fails 16 of the 98 checks of the Python tool's vectors (`reference_fires.json`,
//! `reference_cron_syntax.json`): it takes only a single minute and hour for a fixed time, so
//! `0,30 2 * * *` and `15 1-3 * * *` skip a gap and fire in both passes of a repeated hour; it
//! reads a day field starting with `*` (`*/10`) as a restriction, so either day field matches
//! where cronsim needs both; it refuses `L/2`, reads `L,LW` as `LW`, and finds no fire for
//! `0,30 2 * 3 SUN#5` in Europe/Paris. So the evaluator here stays.

use std::collections::VecDeque;

use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Time};
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::{SignedDuration, ToSpan};

use ldp_config::Cron;

/// How many local days a search for a fire goes through before it gives up: 50 years.
pub const SEARCH_DAYS: u32 = 50 * 366;

/// The longest gap a skipped local time is moved across, in minutes (clock changes are at most
/// a day).
const LONGEST_GAP_MINUTES: u32 = 24 * 60;

/// A cron expression evaluated in a time zone.
#[derive(Clone, Debug)]
pub struct CronClock {
    cron: Cron,
    time_zone: TimeZone,
    fixed_time: bool,
}

impl CronClock {
    /// The fires of `cron` in `time_zone`.
    pub fn new(cron: &Cron, time_zone: &TimeZone) -> CronClock {
        CronClock {
            cron: cron.clone(),
            time_zone: time_zone.clone(),
            fixed_time: cron.fixed_time(),
        }
    }

    /// The expression.
    pub fn cron(&self) -> &Cron {
        &self.cron
    }

    /// The time zone the expression is read in.
    pub fn time_zone(&self) -> &TimeZone {
        &self.time_zone
    }

    /// The fires of one local calendar day, oldest first, each once. A fire moved across a gap
    /// may be on the next day.
    pub fn fires_on(&self, date: Date) -> Vec<Timestamp> {
        if !self.cron.matches_date(date) {
            return Vec::new();
        }
        let mut fires = Vec::new();
        for hour in self.cron.hours() {
            for minute in self.cron.minutes() {
                let Ok(time) = Time::new(hour as i8, minute as i8, 0, 0) else {
                    continue;
                };
                self.instants(date.to_datetime(time), &mut fires);
            }
        }
        fires.sort_unstable();
        fires.dedup();
        fires
    }

    /// The instants of one matching local minute.
    fn instants(&self, civil: DateTime, fires: &mut Vec<Timestamp>) {
        match self.time_zone.to_ambiguous_timestamp(civil).offset() {
            AmbiguousOffset::Unambiguous { offset } => {
                fires.extend(offset.to_timestamp(civil).ok())
            }
            AmbiguousOffset::Fold { before, after } => {
                fires.extend(before.to_timestamp(civil).ok());
                if !self.fixed_time {
                    fires.extend(after.to_timestamp(civil).ok());
                }
            }
            AmbiguousOffset::Gap { .. } => {
                if self.fixed_time {
                    fires.extend(self.after_gap(civil));
                }
            }
        }
    }

    /// The first whole local minute after `civil` that exists, as an instant (its first
    /// occurrence): where a fixed time that a clock change skips fires.
    fn after_gap(&self, civil: DateTime) -> Option<Timestamp> {
        let mut minute = civil;
        for _ in 0..LONGEST_GAP_MINUTES {
            minute = minute.checked_add(1.minute()).ok()?;
            match self.time_zone.to_ambiguous_timestamp(minute).offset() {
                AmbiguousOffset::Unambiguous { offset } => return offset.to_timestamp(minute).ok(),
                AmbiguousOffset::Fold { before, .. } => return before.to_timestamp(minute).ok(),
                AmbiguousOffset::Gap { .. } => {}
            }
        }
        None
    }

    fn local_date(&self, instant: Timestamp) -> Date {
        instant.to_zoned(self.time_zone.clone()).date()
    }

    /// The fires after `after` (strictly), oldest first. The iterator ends when no fire comes
    /// within [`SEARCH_DAYS`] days.
    pub fn fires_after(&self, after: Timestamp) -> FiresAfter<'_> {
        let date = self.local_date(after);
        FiresAfter {
            clock: self,
            after,
            date: date.yesterday().unwrap_or(date),
            pending: VecDeque::new(),
            days_left: SEARCH_DAYS,
        }
    }

    /// The first fire after `after` (strictly), or `None` when there is none within
    /// [`SEARCH_DAYS`] days.
    pub fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        self.fires_after(after).next()
    }

    /// The latest fire at or before `moment`, or `None` when there is none within
    /// [`SEARCH_DAYS`] days before it.
    pub fn at_or_before(&self, moment: Timestamp) -> Option<Timestamp> {
        let start = self.local_date(moment);
        let mut date = start.tomorrow().unwrap_or(start);
        for _ in 0..SEARCH_DAYS {
            let fires = self.fires_on(date);
            if let Some(fire) = fires.iter().rev().find(|fire| **fire <= moment) {
                return Some(*fire);
            }
            date = date.yesterday().ok()?;
        }
        None
    }

    /// The fires in `(after, until]`, oldest first, at most `limit` of them.
    pub fn fires_between(
        &self,
        after: Timestamp,
        until: Timestamp,
        limit: usize,
    ) -> Vec<Timestamp> {
        self.fires_after(after)
            .take_while(|fire| *fire <= until)
            .take(limit)
            .collect()
    }
}

/// The fires after an instant, oldest first ([`CronClock::fires_after`]).
#[derive(Debug)]
pub struct FiresAfter<'a> {
    clock: &'a CronClock,
    after: Timestamp,
    date: Date,
    pending: VecDeque<Timestamp>,
    days_left: u32,
}

impl Iterator for FiresAfter<'_> {
    type Item = Timestamp;

    fn next(&mut self) -> Option<Timestamp> {
        loop {
            while let Some(fire) = self.pending.pop_front() {
                if fire > self.after {
                    self.after = fire;
                    self.days_left = SEARCH_DAYS;
                    return Some(fire);
                }
            }
            if self.days_left == 0 {
                return None;
            }
            self.days_left -= 1;
            self.pending = self.clock.fires_on(self.date).into();
            self.date = self.date.tomorrow().ok()?;
        }
    }
}

/// An instant cut to its whole minute (UTC): seconds and fractions dropped, towards the past.
pub fn whole_minute(instant: Timestamp) -> Timestamp {
    let seconds = instant.as_second().div_euclid(60) * 60;
    Timestamp::from_second(seconds).unwrap_or(instant)
}

/// One minute, the step between a fire and the search for the fire before it.
pub(crate) const MINUTE: SignedDuration = SignedDuration::from_secs(60);
