//! Schedules: `metadata.schedule` is a 5-field cron expression or `@hourly`, `@daily`,
//! `@weekly`, `@monthly` (other `@…` are rejected, blanks are collapsed); without it a `when` of
//! `hourly`/`daily`/`weekly`/`monthly` (trimmed, any case) means the alias.
//!
//! A cron expression is checked field by field: numbers in range, `*`, ranges `a-b`, steps
//! `*/n`, `a-b/n` and `a/n`, lists `a,b`, month names `JAN`–`DEC` and day names `SUN`–`SAT` (day
//! of week 0–7, 7 is Sunday), and, as `cronsim` 2.9 (the Python tool's cron library) reads them,
//! each as one item of a list:
//!
//! * in day of month, `L`, the last day of the month, and `LW`, its last weekday (Monday to
//!   Friday); `L/n` and `LW/n` read as `L` and `LW`;
//! * in day of week, `nL`, the last day `n` (a number 0–7) of the month (`5L`, the last Friday),
//!   and `n#k`, the `k`-th (1–5) day `n` (a number or a name) of the month (`MON#2`).
//!
//! Nothing else: no `W` after a day (`15W`), no range or step with `L` or `#` (`1-5L`,
//! `MON-FRI#2`, `5L/2`, `5#L`), and no `L`, `W` or `#` in the minute, hour or month; each is
//! refused with the field it is in and what to write instead. Letters may be in any case.

use jiff::civil::{Date, DateTime, Weekday};
use serde_json::Value;

use crate::repr::{repr, repr_str};

/// The aliases and the cron expressions they mean.
pub const ALIASES: [(&str, &str); 4] = [
    ("@hourly", "0 * * * *"),
    ("@daily", "0 0 * * *"),
    ("@weekly", "0 0 * * 0"),
    ("@monthly", "0 0 1 * *"),
];

/// Where a schedule came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleFrom {
    /// `metadata.schedule`.
    Metadata,
    /// The top-level `when`.
    When,
}

impl ScheduleFrom {
    /// `metadata.schedule` or `when` (plan's `schedule_from`).
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleFrom::Metadata => "metadata.schedule",
            ScheduleFrom::When => "when",
        }
    }
}

/// A schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The expression as written with blanks collapsed (`5 2 * * *`, `@daily`); for a `when`,
    /// the alias it means.
    pub text: String,
    /// The 5-field cron expression.
    pub cron: Cron,
    /// Where it came from.
    pub from: ScheduleFrom,
}

/// The day-of-month bit of `L`, past the days 1–31.
const LAST_DAY: u32 = 32;
/// The day-of-month bit of `LW`.
const LAST_WEEKDAY: u32 = 33;
/// The day-of-week bit of `nL` is `LAST_OF + n` (n 0–6, 7 read as 0), past the days 0–6.
const LAST_OF: u32 = 8;
/// The day-of-week bit of `n#k` is `NTH_OF + 7 (k - 1) + n`.
const NTH_OF: u32 = 16;

/// A parsed 5-field cron expression (cronsim's semantics: when both day of month and day of
/// week are restricted, i.e. neither starts with `*`, either matches; otherwise both must).
/// `ldp_orchestrate::scheduling::CronClock` evaluates it in a time zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cron {
    /// The expression, blanks collapsed.
    pub expression: String,
    pub(crate) minutes: u64,
    pub(crate) hours: u64,
    /// Days 1–31, [`LAST_DAY`], [`LAST_WEEKDAY`].
    days_of_month: u64,
    months: u64,
    /// Days 0–6, [`LAST_OF`] + day, [`NTH_OF`] + 7 (k - 1) + day.
    days_of_week: u64,
    dom_restricted: bool,
    dow_restricted: bool,
}

fn has(set: u64, n: u32) -> bool {
    n < 64 && set & (1 << n) != 0
}

impl Cron {
    /// The hours (0–23) the hour field names, ascending.
    pub fn hours(&self) -> impl Iterator<Item = u32> + '_ {
        (0..24).filter(|hour| self.hours & (1 << hour) != 0)
    }

    /// The minutes (0–59) the minute field names, ascending.
    pub fn minutes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..60).filter(|minute| self.minutes & (1 << minute) != 0)
    }

    /// Whether the expression runs at fixed local times: neither the minute nor the hour field
    /// starts with `*` (`5 2 * * *`, `0 9-17 * * *`, not `*/15 * * * *`). Such a schedule fires
    /// once for a repeated local time and right after the gap for a skipped one; the others
    /// fire in both passes of a repeated hour and not in a gap (the Debian-cron rule).
    pub fn fixed_time(&self) -> bool {
        let mut fields = self.expression.split_whitespace();
        fields.next().is_some_and(|minute| !minute.starts_with('*'))
            && fields.next().is_some_and(|hour| !hour.starts_with('*'))
    }

    /// Whether a local time matches (its seconds are not looked at).
    pub fn matches(&self, time: DateTime) -> bool {
        has(self.minutes, time.minute().unsigned_abs().into())
            && has(self.hours, time.hour().unsigned_abs().into())
            && self.matches_date(time.date())
    }

    /// Whether a local date matches the day-of-month, month and day-of-week fields. As cronsim
    /// (Debian cron) reads them: when either day field starts with `*`, both must match;
    /// otherwise either does.
    pub fn matches_date(&self, date: Date) -> bool {
        if !has(self.months, date.month().unsigned_abs().into()) {
            return false;
        }
        let dom = self.matches_day_of_month(date);
        let dow = self.matches_day_of_week(date);
        if self.dom_restricted && self.dow_restricted {
            dom || dow
        } else {
            dom && dow
        }
    }

    fn matches_day_of_month(&self, date: Date) -> bool {
        let day = date.day();
        let last = date.days_in_month();
        let last_weekday = match date.last_of_month().weekday() {
            Weekday::Saturday => last - 1,
            Weekday::Sunday => last - 2,
            _ => last,
        };
        has(self.days_of_month, day.unsigned_abs().into())
            || (has(self.days_of_month, LAST_DAY) && day == last)
            || (has(self.days_of_month, LAST_WEEKDAY) && day == last_weekday)
    }

    fn matches_day_of_week(&self, date: Date) -> bool {
        let weekday = u32::from(date.weekday().to_sunday_zero_offset().unsigned_abs());
        let day = u32::from(date.day().unsigned_abs());
        let last = u32::from(date.days_in_month().unsigned_abs());
        let nth = (day - 1) / 7;
        has(self.days_of_week, weekday)
            || (has(self.days_of_week, LAST_OF + weekday) && day + 7 > last)
            || has(self.days_of_week, NTH_OF + 7 * nth + weekday)
    }

    /// Parses a 5-field expression.
    ///
    /// # Errors
    ///
    /// What is wrong, e.g. `the minute field '61' is out of range 0-59`.
    pub fn parse(expression: &str) -> Result<Cron, String> {
        let fields: Vec<&str> = expression.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!(
                "it has {} field(s), and a cron expression has 5 (minute hour day-of-month month day-of-week)",
                fields.len()
            ));
        }
        let minutes = parse_field(fields[0], &FIELDS[0])?;
        let hours = parse_field(fields[1], &FIELDS[1])?;
        let days_of_month = parse_field(fields[2], &FIELDS[2])?;
        let months = parse_field(fields[3], &FIELDS[3])?;
        let mut days_of_week = parse_field(fields[4], &FIELDS[4])?;
        if days_of_week & (1 << 7) != 0 {
            days_of_week = (days_of_week & !(1 << 7)) | 1;
        }
        Ok(Cron {
            expression: fields.join(" "),
            minutes,
            hours,
            days_of_month,
            months,
            days_of_week,
            dom_restricted: !is_unrestricted(fields[2]),
            dow_restricted: !is_unrestricted(fields[4]),
        })
    }
}

/// A day field that does not restrict the other one: it starts with `*` (`*`, `*/2`), as
/// cronsim reads it, or is `?`.
fn is_unrestricted(field: &str) -> bool {
    field.starts_with('*') || field == "?"
}

fn is_star(field: &str) -> bool {
    field == "*" || field == "?"
}

struct FieldSpec {
    name: &'static str,
    low: u32,
    high: u32,
    names: &'static [&'static str],
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const DAY_OF_MONTH: &str = "day-of-month";
const DAY_OF_WEEK: &str = "day-of-week";

const FIELDS: [FieldSpec; 5] = [
    FieldSpec {
        name: "minute",
        low: 0,
        high: 59,
        names: &[],
    },
    FieldSpec {
        name: "hour",
        low: 0,
        high: 23,
        names: &[],
    },
    FieldSpec {
        name: DAY_OF_MONTH,
        low: 1,
        high: 31,
        names: &[],
    },
    FieldSpec {
        name: "month",
        low: 1,
        high: 12,
        names: &MONTHS,
    },
    FieldSpec {
        name: DAY_OF_WEEK,
        low: 0,
        high: 7,
        names: &DAYS,
    },
];

fn parse_field(text: &str, spec: &FieldSpec) -> Result<u64, String> {
    let mut set = 0u64;
    for item in text.split(',') {
        let special = match spec.name {
            DAY_OF_MONTH => last_of_month(item),
            DAY_OF_WEEK => day_of_the_month(item, text)?,
            _ => None,
        };
        set |= match special {
            Some(bits) => bits,
            None => parse_item(item, text, spec)?,
        };
    }
    Ok(set)
}

/// `L` or `LW` (or `L/n`, `LW/n`, which cronsim reads as them) in day of month; `None` for
/// anything else.
fn last_of_month(item: &str) -> Option<u64> {
    let (term, step) = match item.split_once('/') {
        Some((term, step)) => (term, Some(step)),
        None => (item, None),
    };
    if step.is_some_and(|step| number(step).is_none_or(|step| step == 0)) {
        return None;
    }
    if term.eq_ignore_ascii_case("L") {
        Some(1 << LAST_DAY)
    } else if term.eq_ignore_ascii_case("LW") {
        Some(1 << LAST_WEEKDAY)
    } else {
        None
    }
}

/// `nL` or `n#k` in day of week; `None` for an item without `L` or `#`.
fn day_of_the_month(item: &str, text: &str) -> Result<Option<u64>, String> {
    let upper = item.to_ascii_uppercase();
    if upper.contains('L') {
        let day = upper
            .strip_suffix('L')
            .and_then(number)
            .filter(|day| *day <= 7)
            .ok_or_else(|| {
                format!(
                    "{} not a last day of the month: write one day number 0-7 before `L`, as in `5L`, the last Friday",
                    the_item(text, item)
                )
            })?;
        return Ok(Some(1 << (LAST_OF + day % 7)));
    }
    let Some((term, nth)) = upper.split_once('#') else {
        return Ok(None);
    };
    let day = value(term, &FIELDS[4]).filter(|day| *day <= 7);
    let nth = number(nth).filter(|nth| (1..=5).contains(nth));
    match (day, nth) {
        (Some(day), Some(nth)) => Ok(Some(1 << (NTH_OF + 7 * (nth - 1) + day % 7))),
        _ => Err(format!(
            "{} not an nth day of the month: write one day (0-7 or SUN-SAT), `#` and a week 1-5, as in `MON#2`, the second Monday",
            the_item(text, item)
        )),
    }
}

/// `the day-of-week field '8L' is`, or `the day-of-week field '1,8L' has '8L', which is`.
fn the_item(text: &str, item: &str) -> String {
    if item == text {
        format!("the {DAY_OF_WEEK} field {} is", repr_str(text))
    } else {
        format!(
            "the {DAY_OF_WEEK} field {} has {}, which is",
            repr_str(text),
            repr_str(item)
        )
    }
}

/// What to write instead of an item with `L`, `W` or `#` that is not a number, a name, a range
/// or a step; empty for any other.
fn hint(item: &str, spec: &FieldSpec) -> &'static str {
    let upper = item.to_ascii_uppercase();
    let marked = |c: char| upper.contains(c);
    match spec.name {
        DAY_OF_MONTH if marked('#') => {
            "; `#` is for the day-of-week field (`MON#2`, the second Monday of the month)"
        }
        DAY_OF_MONTH if marked('W') => {
            "; `W` is only in `LW`, the last weekday of the month (the weekday nearest a day, `15W`, is not supported)"
        }
        DAY_OF_MONTH if marked('L') => {
            "; `L` (the last day of the month) and `LW` (its last weekday) are items of their own, as in `L` or `1,15,L`"
        }
        DAY_OF_WEEK if upper.ends_with('W') => {
            "; `W` is only in `LW` in the day-of-month field, the last weekday of the month"
        }
        DAY_OF_MONTH | DAY_OF_WEEK => "",
        _ if marked('#') || upper.ends_with('L') || upper.ends_with('W') => {
            "; `L`, `W` and `#` are for the day-of-month (`L`, `LW`) and day-of-week (`5L`, `MON#2`) fields"
        }
        _ => "",
    }
}

/// One item of a list: a number, a name, `*`, a range, a step.
fn parse_item(item: &str, text: &str, spec: &FieldSpec) -> Result<u64, String> {
    let syntax = || {
        format!(
            "the {} field {} is not a number, a name, a range, a step or a list{}",
            spec.name,
            repr_str(text),
            hint(item, spec)
        )
    };
    let (range, step) = match item.split_once('/') {
        Some((range, step)) => {
            let step = number(step).ok_or_else(syntax)?;
            if step == 0 {
                return Err(format!(
                    "the {} field {} has a step of 0",
                    spec.name,
                    repr_str(text)
                ));
            }
            (range, Some(step))
        }
        None => (item, None),
    };
    let (low, high) = if is_star(range) {
        (spec.low, spec.high)
    } else if let Some((a, b)) = range.split_once('-') {
        let low = value(a, spec).ok_or_else(syntax)?;
        let high = value(b, spec).ok_or_else(syntax)?;
        if low > high {
            return Err(format!(
                "the {} field {} has a range from high to low",
                spec.name,
                repr_str(text)
            ));
        }
        (low, high)
    } else {
        let single = value(range, spec).ok_or_else(syntax)?;
        // `a/n` means from a to the end, every n.
        (single, if step.is_some() { spec.high } else { single })
    };
    for bound in [low, high] {
        if bound < spec.low || bound > spec.high {
            return Err(format!(
                "the {} field {} is out of range {}-{}",
                spec.name,
                repr_str(text),
                spec.low,
                spec.high
            ));
        }
    }
    let step = step.unwrap_or(1);
    let mut set = 0u64;
    let mut n = low;
    while n <= high {
        set |= 1 << n;
        match n.checked_add(step) {
            Some(next) => n = next,
            None => break,
        }
    }
    Ok(set)
}

/// A number written with digits only (no sign, no blank), as cronsim reads one.
fn number(text: &str) -> Option<u32> {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

fn value(text: &str, spec: &FieldSpec) -> Option<u32> {
    if let Some(n) = number(text) {
        return Some(n);
    }
    let lowered = text.to_ascii_lowercase();
    let offset = if spec.names.len() == 12 { 1 } else { 0 };
    spec.names
        .iter()
        .position(|name| *name == lowered)
        .map(|index| index as u32 + offset)
}

/// The alias a `when` means: `hourly`, `daily`, `weekly`, `monthly` (trimmed, any case).
pub fn alias_for_when(when: &str) -> Option<&'static str> {
    match when.trim().to_lowercase().as_str() {
        "hourly" => Some("@hourly"),
        "daily" => Some("@daily"),
        "weekly" => Some("@weekly"),
        "monthly" => Some("@monthly"),
        _ => None,
    }
}

/// Normalises a schedule expression: blanks collapsed, aliases mapped to their cron.
///
/// # Errors
///
/// The Python tool's message without the `metadata.schedule: ` prefix, e.g. `schedule '@yearly'
/// is not one of @hourly, @daily, @weekly, @monthly; write a 5-field cron expression for
/// anything else`.
pub fn parse_schedule(value: &Value, from: ScheduleFrom) -> Result<Schedule, String> {
    let text = value
        .as_str()
        .map(|raw| raw.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    if text.is_empty() {
        return Err(format!(
            "schedule must be a 5-field cron expression or one of @hourly, @daily, @weekly, @monthly, got {}",
            repr(value)
        ));
    }
    if text.starts_with('@') {
        let Some((_, cron)) = ALIASES.iter().find(|(alias, _)| *alias == text) else {
            return Err(format!(
                "schedule {} is not one of @hourly, @daily, @weekly, @monthly; write a 5-field cron expression for anything else",
                repr_str(&text)
            ));
        };
        let cron = Cron::parse(cron)?;
        return Ok(Schedule { text, cron, from });
    }
    let cron = Cron::parse(&text).map_err(|reason| {
        format!(
            "schedule {} is not a valid cron expression: {reason}",
            repr(value)
        )
    })?;
    Ok(Schedule { text, cron, from })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<Schedule, String> {
        parse_schedule(&json!(text), ScheduleFrom::Metadata)
    }

    #[test]
    fn aliases_and_cron() {
        let daily = parse("@daily").unwrap();
        assert_eq!(
            (daily.text.as_str(), daily.cron.expression.as_str()),
            ("@daily", "0 0 * * *")
        );
        assert_eq!(parse("  5   2 * *  * ").unwrap().text, "5 2 * * *");
        let at = |text: &str| text.parse::<DateTime>().unwrap();
        let cron = parse("*/15 9-17 * JAN-mar mon-fri").unwrap().cron;
        assert!(cron.matches(at("2024-02-14T09:30")));
        assert!(!cron.matches(at("2024-02-14T09:31")));
        assert!(!cron.matches(at("2024-02-18T09:30")));
        let sunday = parse("0 0 * * 7").unwrap().cron;
        assert!(sunday.matches(at("2026-08-02T00:00")));
        let either = parse("0 0 1 * 1").unwrap().cron;
        assert!(either.matches(at("2026-07-01T00:00")) && either.matches(at("2026-08-03T00:00")));
        assert!(!either.matches(at("2026-08-04T00:00")));
        assert!(
            parse("5/20 * * * *")
                .unwrap()
                .cron
                .matches(at("2026-01-01T00:45"))
        );
    }

    /// The days a day-of-month and day-of-week pair matches in a month, ascending.
    fn days(fields: &str, month: &str) -> Vec<i8> {
        let (dom, dow) = fields.split_once(' ').unwrap();
        let cron = Cron::parse(&format!("0 0 {dom} * {dow}")).unwrap();
        let first: Date = format!("{month}-01").parse().unwrap();
        (0..first.days_in_month())
            .map(|n| first.checked_add(jiff::Span::new().days(n)).unwrap())
            .filter(|date| cron.matches_date(*date))
            .map(|date| date.day())
            .collect()
    }

    #[test]
    fn last_and_nth() {
        // February 2026 starts on a Sunday and ends on a Saturday; 2028 is a leap year.
        assert_eq!(days("L *", "2026-02"), [28]);
        assert_eq!(days("l *", "2028-02"), [29]);
        assert_eq!(days("LW *", "2026-02"), [27]);
        assert_eq!(days("LW *", "2026-03"), [31]);
        assert_eq!(days("LW *", "2026-05"), [29]);
        assert_eq!(days("1,L,LW *", "2026-02"), [1, 27, 28]);
        assert_eq!(days("L/2 *", "2026-04"), [30]);
        assert_eq!(days("* 5L", "2026-02"), [27]);
        assert_eq!(days("* 0L", "2026-03"), [29]);
        assert_eq!(days("* 7L,1#1", "2026-03"), [2, 29]);
        assert_eq!(days("* MON#2", "2026-02"), [9]);
        assert_eq!(days("* sun#1,7#5", "2026-03"), [1, 29]);
        assert_eq!(days("* 1#5", "2026-02"), Vec::<i8>::new());
        // Both restricted: either; one starting with `*`: both.
        assert_eq!(days("L 5#1", "2026-02"), [6, 28]);
        assert_eq!(days("*/2 5L", "2026-02"), [27]);
        assert_eq!(days("*/2 5L", "2026-03"), [27]);
        assert_eq!(days("*/2 5L", "2026-04"), Vec::<i8>::new());
    }

    #[test]
    fn last_w_and_hash_refused() {
        let reason = |text: &str| Cron::parse(text).unwrap_err();
        for (text, says) in [
            (
                "0 0 15W * *",
                "the day-of-month field '15W' is not a number, a name, a range, a step or a list; `W` is only in `LW`",
            ),
            (
                "0 0 L-1 * *",
                "the day-of-month field 'L-1' is not a number, a name, a range, a step or a list; `L` (the last day of the month) and `LW` (its last weekday) are items of their own",
            ),
            (
                "0 0 1#2 * *",
                "the day-of-month field '1#2' is not a number, a name, a range, a step or a list; `#` is for the day-of-week field",
            ),
            (
                "0 0 L/0 * *",
                "the day-of-month field 'L/0' has a step of 0",
            ),
            (
                "0 0 * * 1-5L",
                "the day-of-week field '1-5L' is not a last day of the month: write one day number 0-7 before `L`, as in `5L`, the last Friday",
            ),
            (
                "0 0 * * 1,FRIL",
                "the day-of-week field '1,FRIL' has 'FRIL', which is not a last day of the month: write one day number 0-7 before `L`",
            ),
            ("0 0 * * 8L", "the day-of-week field '8L' is not a last day"),
            ("0 0 * * L", "the day-of-week field 'L' is not a last day"),
            (
                "0 0 * * 5#L",
                "the day-of-week field '5#L' is not a last day",
            ),
            (
                "0 0 * * 1#6",
                "the day-of-week field '1#6' is not an nth day of the month: write one day (0-7 or SUN-SAT), `#` and a week 1-5, as in `MON#2`, the second Monday",
            ),
            (
                "0 0 * * MON-FRI#2",
                "the day-of-week field 'MON-FRI#2' is not an nth day",
            ),
            (
                "0 0 * * 1#2/2",
                "the day-of-week field '1#2/2' is not an nth day",
            ),
            (
                "0 0 * * 1#0,2",
                "the day-of-week field '1#0,2' has '1#0', which is not an nth day",
            ),
            (
                "0 0 * * 1W",
                "the day-of-week field '1W' is not a number, a name, a range, a step or a list; `W` is only in `LW` in the day-of-month field",
            ),
            (
                "L 0 * * *",
                "the minute field 'L' is not a number, a name, a range, a step or a list; `L`, `W` and `#` are for the day-of-month (`L`, `LW`) and day-of-week (`5L`, `MON#2`) fields",
            ),
            (
                "0 1#2 * * *",
                "the hour field '1#2' is not a number, a name, a range, a step or a list; `L`, `W`",
            ),
            (
                "0 0 * L *",
                "the month field 'L' is not a number, a name, a range, a step or a list; `L`, `W`",
            ),
            (
                "*/+5 0 * * *",
                "the minute field '*/+5' is not a number, a name, a range, a step or a list",
            ),
        ] {
            assert!(reason(text).starts_with(says), "{text}: {}", reason(text));
        }
        assert!(reason("0 0 * * 1#2#3").contains("is not an nth day"));
    }

    #[test]
    fn messages() {
        assert_eq!(
            parse("@yearly").unwrap_err(),
            "schedule '@yearly' is not one of @hourly, @daily, @weekly, @monthly; write a 5-field cron expression for anything else"
        );
        assert_eq!(
            parse("61 2 * * *").unwrap_err(),
            "schedule '61 2 * * *' is not a valid cron expression: the minute field '61' is out of range 0-59"
        );
        assert_eq!(
            parse("5 2 * *").unwrap_err(),
            "schedule '5 2 * *' is not a valid cron expression: it has 4 field(s), and a cron expression has 5 (minute hour day-of-month month day-of-week)"
        );
        assert!(
            parse("x * * * *")
                .unwrap_err()
                .contains("the minute field 'x' is not a number")
        );
        assert!(
            parse("*/0 * * * *")
                .unwrap_err()
                .contains("has a step of 0")
        );
        assert!(
            parse("0 5-2 * * *")
                .unwrap_err()
                .contains("from high to low")
        );
        assert!(
            parse("0 0 0 * *")
                .unwrap_err()
                .contains("day-of-month field '0' is out of range 1-31")
        );
        assert_eq!(
            parse(" @yearly ").unwrap_err(),
            "schedule '@yearly' is not one of @hourly, @daily, @weekly, @monthly; write a 5-field cron expression for anything else"
        );
        for (value, got) in [
            (json!(3), "3"),
            (json!("  "), "'  '"),
            (json!(null), "None"),
        ] {
            assert_eq!(
                parse_schedule(&value, ScheduleFrom::Metadata).unwrap_err(),
                format!(
                    "schedule must be a 5-field cron expression or one of @hourly, @daily, @weekly, @monthly, got {got}"
                )
            );
        }
        assert_eq!(alias_for_when(" Daily "), Some("@daily"));
        assert_eq!(alias_for_when("nightly"), None);
    }
}
