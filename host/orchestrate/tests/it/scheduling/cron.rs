//! Fires of a cron expression in a time zone.

use ldp_config::{Cron, ScheduleFrom};
use ldp_orchestrate::scheduling::CronClock;
use serde_json::{Value, json};

use super::{DATA, at, zone};
use crate::read_json;

fn clock(expression: &str, time_zone: &str) -> CronClock {
    CronClock::new(
        &Cron::parse(expression).unwrap_or_else(|e| panic!("{expression}: {e}")),
        &zone(time_zone),
    )
}

fn fires(clock: &CronClock, after: &str, count: usize) -> Vec<String> {
    clock
        .fires_after(at(after))
        .take(count)
        .map(|fire| fire.to_string())
        .collect()
}

/// Each case's first fires after `at` and its latest fire at or before `at`, as the Python tool
/// gave them, compared one by one.
fn check_fires(cases: &[Value]) {
    for case in cases {
        let (expression, time_zone, moment) = (
            case["cron"].as_str().expect("cron"),
            case["tz"].as_str().expect("tz"),
            case["at"].as_str().expect("at"),
        );
        let clock = clock(expression, time_zone);
        let expected: Vec<String> = case["after"]
            .as_array()
            .expect("after")
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        assert_eq!(
            fires(&clock, moment, expected.len()),
            expected,
            "{expression} in {time_zone} after {moment}"
        );
        assert_eq!(
            clock.at_or_before(at(moment)).map(|fire| fire.to_string()),
            case["at_or_before"].as_str().map(str::to_owned),
            "{expression} in {time_zone} at or before {moment}"
        );
    }
}

#[test]
fn reference_fires() {
    let cases = read_json(DATA, "reference_fires.json");
    let cases = cases.as_array().expect("cases");
    assert!(cases.len() >= 14);
    check_fires(cases);
}

/// `L`, `LW` and `#`: the fires of what the Python tool accepts, and a refusal naming the same
/// field for what it refuses (its message is `Bad day-of-week`, ldp's says what to write).
#[test]
fn reference_cron_syntax() {
    let reference = read_json(DATA, "reference_cron_syntax.json");
    let cases = reference["fires"].as_array().expect("fires");
    assert!(cases.len() >= 30);
    check_fires(cases);
    let refused = reference["refused"].as_array().expect("refused");
    assert!(refused.len() >= 30);
    for case in refused {
        let expression = case["cron"].as_str().expect("cron");
        let python = case["error"].as_str().expect("error");
        let field = python
            .rsplit_once(": Bad ")
            .map(|(_, field)| field)
            .unwrap_or_else(|| panic!("{python}"));
        let ours = ldp_config::parse_schedule(&json!(expression), ScheduleFrom::Metadata)
            .expect_err(expression);
        assert!(
            ours.starts_with(&format!(
                "schedule '{expression}' is not a valid cron expression: the {field} field "
            )),
            "{expression}: {ours} (the Python tool: {python})"
        );
    }
}

#[test]
fn fields() {
    let utc = |expression: &str, after: &str, count: usize| {
        fires(&clock(expression, "UTC"), after, count)
    };
    assert_eq!(
        utc("*/20 9-10 * * *", "2026-08-01T10:30:00Z", 3),
        [
            "2026-08-01T10:40:00Z",
            "2026-08-02T09:00:00Z",
            "2026-08-02T09:20:00Z"
        ]
    );
    // Names and 7 = Sunday; 2026-08-02 is a Sunday.
    assert_eq!(
        utc("0 6 * aug 7", "2026-08-01T00:00:00Z", 2),
        ["2026-08-02T06:00:00Z", "2026-08-09T06:00:00Z"]
    );
    assert_eq!(
        utc("0 6 * * SUN", "2026-08-01T00:00:00Z", 1),
        ["2026-08-02T06:00:00Z"]
    );
    // Both day fields restricted: either matches (the 1st, and Mondays).
    assert_eq!(
        utc("0 0 1 * mon", "2026-07-30T00:00:00Z", 3),
        [
            "2026-08-01T00:00:00Z",
            "2026-08-03T00:00:00Z",
            "2026-08-10T00:00:00Z"
        ]
    );
    // A day field that starts with `*` makes both necessary: Mondays that are 1, 11, 21, 31.
    assert_eq!(
        utc("0 0 */10 * 1", "2026-01-01T00:00:00Z", 1),
        ["2026-05-11T00:00:00Z"]
    );
    // `a/n` is from a to the end; lists and ranges with steps.
    assert_eq!(
        utc("50/5 0 * * *", "2026-08-01T00:00:00Z", 3),
        [
            "2026-08-01T00:50:00Z",
            "2026-08-01T00:55:00Z",
            "2026-08-02T00:50:00Z"
        ]
    );
    assert_eq!(
        utc("1,2,10-20/5 3 * * *", "2026-08-01T00:00:00Z", 5).len(),
        5
    );
    // Fires are strictly after the instant; at or before includes it.
    let daily = clock("0 0 * * *", "UTC");
    assert_eq!(
        daily.next_after(at("2026-08-01T00:00:00Z")),
        Some(at("2026-08-02T00:00:00Z"))
    );
    assert_eq!(
        daily.at_or_before(at("2026-08-01T00:00:00Z")),
        Some(at("2026-08-01T00:00:00Z"))
    );
    assert_eq!(
        daily.at_or_before(at("2026-08-01T00:00:59.5Z")),
        Some(at("2026-08-01T00:00:00Z"))
    );
    assert_eq!(
        daily
            .fires_between(at("2026-08-01T00:00:00Z"), at("2026-08-04T00:00:00Z"), 10)
            .len(),
        3
    );
    // A schedule that never fires gives up instead of searching forever.
    let never = clock("0 0 31 2 *", "UTC");
    assert_eq!(never.next_after(at("2026-01-01T00:00:00Z")), None);
    assert_eq!(never.at_or_before(at("2026-01-01T00:00:00Z")), None);
}

#[test]
fn paris_clock_changes() {
    // Spring forward, 29 March 2026: 02:00-03:00 local does not exist.
    let fixed = clock("30 2 * * *", "Europe/Paris");
    assert_eq!(
        fires(&fixed, "2026-03-28T12:00:00Z", 2),
        ["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]
    );
    // Two skipped fixed times fire once, right after the gap.
    let two = clock("0,30 2 * * *", "Europe/Paris");
    assert_eq!(
        fires(&two, "2026-03-28T12:00:00Z", 2),
        ["2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"]
    );
    // An interval skips the gap.
    let every = clock("*/30 * * * *", "Europe/Paris");
    assert_eq!(
        fires(&every, "2026-03-29T00:00:00Z", 3),
        [
            "2026-03-29T00:30:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-29T01:30:00Z"
        ]
    );
    // Fall back, 25 October 2026: 02:00-03:00 local happens twice. A fixed time fires once
    // (its first occurrence, 00:30Z); an interval fires in both passes.
    assert_eq!(
        fires(&fixed, "2026-10-24T12:00:00Z", 2),
        ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]
    );
    let hourly = clock("0 * * * *", "Europe/Paris");
    assert_eq!(
        fires(&hourly, "2026-10-24T23:30:00Z", 3),
        [
            "2026-10-25T00:00:00Z",
            "2026-10-25T01:00:00Z",
            "2026-10-25T02:00:00Z"
        ]
    );
    // Looking back from the second pass finds the first pass of a fixed time.
    assert_eq!(
        fixed.at_or_before(at("2026-10-25T01:45:00Z")),
        Some(at("2026-10-25T00:30:00Z"))
    );
    assert_eq!(
        hourly.at_or_before(at("2026-10-25T01:45:00Z")),
        Some(at("2026-10-25T01:00:00Z"))
    );
    assert_eq!(
        fixed.at_or_before(at("2026-03-29T01:00:00Z")),
        Some(at("2026-03-29T01:00:00Z"))
    );
    // Deliberately not the Python tool's `2026-10-24T00:30:00Z` (see the `fires` module docs).
    assert_eq!(
        fixed.at_or_before(at("2026-10-25T01:10:00Z")),
        Some(at("2026-10-25T00:30:00Z"))
    );
}
