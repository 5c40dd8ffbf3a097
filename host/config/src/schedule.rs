//! Schedules: `metadata.schedule` is a 5-field cron expression or `@hourly`, `@daily`,
//! `@weekly`, `@monthly` (other `@…` are rejected, blanks are collapsed); without it a `when` of
//! `hourly`/`daily`/`weekly`/`monthly` (trimmed, any case) means the alias.
//!
//! A cron expression is checked field by field: numbers in range, `*`, ranges `a-b`, steps
//! `*/n`, `a-b/n` and `a/n`, lists `a,b`, month names `JAN`–`DEC` and day names `SUN`–`SAT`
//! (day of week 0–7, 7 is Sunday). `L`, `W` and `#` are not supported.

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

/// A parsed 5-field cron expression (cronsim's semantics: when both day of month and day of
/// week are restricted, i.e. neither starts with `*`, either matches; otherwise both must).
/// `ldp_orchestrate::scheduling::CronClock` evaluates it in a time zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cron {
    /// The expression, blanks collapsed.
    pub expression: String,
    pub(crate) minutes: u64,
    pub(crate) hours: u64,
    days_of_month: u64,
    months: u64,
    days_of_week: u64,
    dom_restricted: bool,
    dow_restricted: bool,
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

    /// Whether a local time matches: `minute` 0–59, `hour` 0–23, `day` 1–31, `month` 1–12,
    /// `weekday` 0–6 with 0 = Sunday.
    pub fn matches(&self, minute: u32, hour: u32, day: u32, month: u32, weekday: u32) -> bool {
        let has = |set: u64, n: u32| n < 64 && set & (1 << n) != 0;
        if !(has(self.minutes, minute) && has(self.hours, hour) && has(self.months, month)) {
            return false;
        }
        self.matches_date(day, month, weekday)
    }

    /// Whether a local date matches the day-of-month, month and day-of-week fields (`weekday`
    /// 0–6, 0 = Sunday). As cronsim (Debian cron) reads them: when either day field starts with
    /// `*`, both must match; otherwise either does.
    pub fn matches_date(&self, day: u32, month: u32, weekday: u32) -> bool {
        let has = |set: u64, n: u32| n < 64 && set & (1 << n) != 0;
        if !has(self.months, month) {
            return false;
        }
        let dom = has(self.days_of_month, day);
        let dow = has(self.days_of_week, weekday);
        if self.dom_restricted && self.dow_restricted {
            dom || dow
        } else {
            dom && dow
        }
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
        name: "day-of-month",
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
        name: "day-of-week",
        low: 0,
        high: 7,
        names: &DAYS,
    },
];

fn parse_field(text: &str, spec: &FieldSpec) -> Result<u64, String> {
    let syntax = || {
        format!(
            "the {} field {} is not a number, a name, a range, a step or a list",
            spec.name,
            repr_str(text)
        )
    };
    let mut set = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let step: u32 = step.parse().map_err(|_| syntax())?;
                if step == 0 {
                    return Err(format!(
                        "the {} field {} has a step of 0",
                        spec.name,
                        repr_str(text)
                    ));
                }
                (range, Some(step))
            }
            None => (part, None),
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
        let mut n = low;
        while n <= high {
            set |= 1 << n;
            match n.checked_add(step) {
                Some(next) => n = next,
                None => break,
            }
        }
    }
    Ok(set)
}

fn value(text: &str, spec: &FieldSpec) -> Option<u32> {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        return text.parse().ok();
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
        let cron = parse("*/15 9-17 * JAN-mar mon-fri").unwrap().cron;
        assert!(cron.matches(30, 9, 14, 2, 3));
        assert!(!cron.matches(31, 9, 14, 2, 3));
        assert!(!cron.matches(30, 9, 14, 2, 0));
        let sunday = parse("0 0 * * 7").unwrap().cron;
        assert!(sunday.matches(0, 0, 2, 8, 0));
        let either = parse("0 0 1 * 1").unwrap().cron;
        assert!(either.matches(0, 0, 1, 8, 3) && either.matches(0, 0, 3, 8, 1));
        assert!(parse("5/20 * * * *").unwrap().cron.matches(45, 0, 1, 1, 1));
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
