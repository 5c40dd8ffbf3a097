//! Fires → windows, due windows, next fire, and backfill ranges.

use jiff::Timestamp;
use ldp_config::{WindowSize, format_instant};
use ldp_orchestrate::scheduling::{
    BackfillRange, DEFAULT_MAX_WINDOWS, WorkflowSchedule, boundary_text, floor_boundary,
    is_aligned, parse_boundary, parse_now, window_ending_at, windows_between,
};
use serde_json::{Value, json};

use super::{DATA, at, label, labels, workflow, zone};
use crate::read_json;

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn reference_due_windows() {
    let vectors = read_json(DATA, "reference_windows.json");
    let cases = vectors["due"].as_array().expect("due");
    assert!(cases.len() >= 10);
    for case in cases {
        let flow = workflow(&case["metadata"]);
        let schedule = WorkflowSchedule::of(&flow).expect("schedule");
        let now = at(case["now"].as_str().expect("now"));
        let context = format!("{} at {now}", case["metadata"]);
        assert_eq!(
            schedule.latest_window(now).map(|window| label(&window)),
            case["latest"].as_str().map(str::to_owned),
            "latest: {context}"
        );
        assert_eq!(
            labels(&schedule.due_windows(now).expect("due")),
            strings(&case["due"]),
            "due: {context}"
        );
        assert_eq!(
            schedule.next_fire(now).map(format_instant),
            case["next_fire"].as_str().map(str::to_owned),
            "next fire: {context}"
        );
        let since = schedule.start.or(Some(at("2026-07-31T22:00:00Z")));
        assert_eq!(
            labels(&schedule.windows_since(since, now, 20)),
            strings(&case["since_first"]),
            "since: {context}"
        );
    }
}

#[test]
fn reference_backfill_ranges() {
    let vectors = read_json(DATA, "reference_windows.json");
    let cases = vectors["range"].as_array().expect("range");
    assert!(cases.len() >= 19);
    for case in cases {
        let flow = workflow(&case["metadata"]);
        let from = case["from_arg"].as_str().expect("from");
        let to = case["to_arg"].as_str();
        let now = at(case["now"].as_str().expect("now"));
        let max = case["max"]
            .as_u64()
            .map_or(DEFAULT_MAX_WINDOWS, |max| max as usize);
        let context = format!("{} --from {from:?} --to {to:?}", case["metadata"]);
        match (
            BackfillRange::resolve(&flow, from, to, now, max),
            case["error"].as_str(),
        ) {
            (Ok(range), None) => {
                assert_eq!(
                    format_instant(range.from),
                    case["from"].as_str().expect("from"),
                    "{context}"
                );
                assert_eq!(
                    format_instant(range.to),
                    case["to"].as_str().expect("to"),
                    "{context}"
                );
                assert_eq!(
                    labels(&range.windows),
                    strings(&case["windows"]),
                    "{context}"
                );
            }
            (Err(error), Some(message)) => assert_eq!(error.to_string(), message, "{context}"),
            (got, expected) => panic!("{context}: got {got:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn sample_backfill_dry_run() {
    let expected = read_json(
        "../../config/tests/data/workflow",
        "backfill_dry_run.expected.json",
    );
    let flow = workflow(&json!({"schedule": "5 2 * * *",
        "window": {"size": "day", "timezone": "Europe/Paris"}}));
    let range = BackfillRange::resolve(
        &flow,
        "2026-08-01",
        Some("2026-08-05"),
        at("2026-12-01T00:00:00Z"),
        1000,
    )
    .expect("range");
    assert_eq!(
        format_instant(range.from),
        expected["from"].as_str().expect("from")
    );
    assert_eq!(
        format_instant(range.to),
        expected["to"].as_str().expect("to")
    );
    assert_eq!(
        (range.size.as_str(), range.timezone.as_str()),
        ("day", "Europe/Paris")
    );
    let windows: Vec<String> = expected["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .filter_map(|window| window["window"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(labels(&range.windows), windows);
    assert_eq!(
        BackfillRange::order_label(false),
        expected["order"].as_str().expect("order")
    );
    let backwards = range.ordered(true);
    assert_eq!(label(&backwards[0]), windows[3]);
}

#[test]
fn sample_schedule_list() {
    // `ldp schedule list shop --now 2026-08-05T00:10:00Z`: the next fire, the due window (the
    // latest fire's, which the sample shows as the last window and no longer due because it is
    // published) and the windows considered for `missed` since the ledger's first window.
    let listing = read_json(DATA, "schedule_list.json");
    let now = parse_now(listing["now"].as_str().expect("now")).expect("now");
    for item in listing["scheduled"].as_array().expect("scheduled") {
        let flow = workflow(&json!({"schedule": item["schedule"],
            "window": {"size": item["window_size"], "timezone": item["timezone"]}}));
        let schedule = WorkflowSchedule::of(&flow).expect("schedule");
        assert_eq!(
            schedule.next_fire(now).map(format_instant).as_deref(),
            item["next_fire"].as_str()
        );
        let due = schedule.due_windows(now).expect("due");
        assert_eq!(
            labels(&due),
            [item["last_window"].as_str().expect("last window")]
        );
        let considered = schedule.windows_since(Some(at("2026-07-31T22:00:00Z")), now, 100);
        let missed = strings(&item["missed"]);
        assert!(labels(&considered).contains(&missed[0]));
        // The fill command's bounds: local dates at midnight.
        let (first, last) = (considered[2].start, considered[2].end);
        let command = format!(
            "ldp backfill {} --from {} --to {}",
            item["file"].as_str().expect("file"),
            boundary_text(first, &flow.time_zone()),
            boundary_text(last, &flow.time_zone())
        );
        assert_eq!(strings(&item["commands"]), [command]);
    }
}

#[test]
fn window_of_a_fire() {
    let paris = zone("Europe/Paris");
    let nightly = WorkflowSchedule::of(&workflow(&json!({"schedule": "5 2 * * *",
        "window": {"size": "day", "timezone": "Europe/Paris"}})))
    .expect("schedule");
    // `5 2 * * *` on 5 August owns 4 August.
    let window = nightly
        .window_of_fire(at("2026-08-05T00:05:00Z"))
        .expect("window");
    assert_eq!(label(&window), "2026-08-03T22:00:00Z/2026-08-04T22:00:00Z");
    // The day across fall back is 25 hours, across spring forward 23.
    assert_eq!(
        label(&window_ending_at(
            at("2026-10-25T23:00:00Z"),
            WindowSize::Day,
            &paris
        )),
        "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"
    );
    assert_eq!(
        label(&window_ending_at(
            at("2026-03-29T22:00:00Z"),
            WindowSize::Day,
            &paris
        )),
        "2026-03-28T23:00:00Z/2026-03-29T22:00:00Z"
    );
    // Without a size: from the previous fire to this one.
    let six =
        WorkflowSchedule::of(&workflow(&json!({"schedule": "0 */6 * * *"}))).expect("schedule");
    assert_eq!(
        six.window_of_fire(at("2026-08-02T00:00:00Z"))
            .map(|w| label(&w))
            .as_deref(),
        Some("2026-08-01T18:00:00Z/2026-08-02T00:00:00Z")
    );
    assert!(
        WorkflowSchedule::of(&workflow(&json!({})))
            .is_err_and(|e| e.to_string() == "workflow w has no schedule")
    );
}

#[test]
fn catch_up_is_capped() {
    let every_minute = WorkflowSchedule::of(&workflow(&json!({"schedule": "* * * * *",
        "catchup": true, "start": "2026-01-01"})))
    .expect("schedule");
    let error = every_minute
        .due_windows(at("2026-12-01T00:00:00Z"))
        .expect_err("too many");
    assert_eq!(
        error.to_string(),
        "workflow w has more than 100000 windows since 2026-01-01T00:00:00Z. Set metadata.start to a later time, and fill the history before it with ldp backfill"
    );
    assert_eq!(
        every_minute.windows_since(None, at("2026-12-01T00:00:00Z"), 10),
        []
    );
}

#[test]
fn grid() {
    let paris = zone("Europe/Paris");
    let kolkata = zone("Asia/Kolkata");
    let moment = at("2026-08-01T10:47:12Z");
    assert_eq!(
        floor_boundary(moment, WindowSize::Day, &paris),
        at("2026-07-31T22:00:00Z")
    );
    assert_eq!(
        floor_boundary(moment, WindowSize::Hour, &paris),
        at("2026-08-01T10:00:00Z")
    );
    assert_eq!(
        floor_boundary(moment, WindowSize::Hour, &kolkata),
        at("2026-08-01T10:30:00Z")
    );
    assert_eq!(
        floor_boundary(moment, WindowSize::FifteenMinutes, &paris),
        at("2026-08-01T10:45:00Z")
    );
    assert!(is_aligned(
        at("2026-08-01T10:30:00Z"),
        WindowSize::Hour,
        &kolkata
    ));
    assert!(!is_aligned(
        at("2026-08-01T10:00:00Z"),
        WindowSize::Hour,
        &kolkata
    ));
    assert!(is_aligned(
        at("2026-10-25T23:00:00Z"),
        WindowSize::Day,
        &paris
    ));
    let days: Vec<String> = windows_between(
        at("2026-10-24T22:00:00Z"),
        at("2026-10-27T12:00:00Z"),
        WindowSize::Day,
        &paris,
    )
    .map(|w| label(&w))
    .collect();
    assert_eq!(
        days,
        [
            "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z",
            "2026-10-25T23:00:00Z/2026-10-26T23:00:00Z"
        ]
    );
    let quarters = windows_between(
        at("2026-08-01T00:00:00Z"),
        at("2026-08-01T01:10:00Z"),
        WindowSize::FifteenMinutes,
        &paris,
    );
    assert_eq!(quarters.count(), 4);
}

#[test]
fn bounds() {
    let paris = zone("Europe/Paris");
    let read = |text: &str| {
        parse_boundary(text, &paris, "the start of the range")
            .map(format_instant)
            .map_err(|e| e.to_string())
    };
    assert_eq!(read("2026-08-01").as_deref(), Ok("2026-07-31T22:00:00Z"));
    assert_eq!(
        read(" 2026-08-01T02:00 ").as_deref(),
        Ok("2026-08-01T00:00:00Z")
    );
    assert_eq!(
        read("2026-08-01T02:00:00z").as_deref(),
        Ok("2026-08-01T02:00:00Z")
    );
    assert_eq!(
        read("2026-08-01T02:00:00-01:00").as_deref(),
        Ok("2026-08-01T03:00:00Z")
    );
    // A skipped local time reads with the offset before the change; a repeated one as its
    // first occurrence.
    assert_eq!(
        read("2026-03-29T02:30").as_deref(),
        Ok("2026-03-29T01:30:00Z")
    );
    assert_eq!(
        read("2026-10-25T02:30").as_deref(),
        Ok("2026-10-25T00:30:00Z")
    );
    assert_eq!(
        read("2026-08-01/2026-08-02"),
        Err("the start of the range '2026-08-01/2026-08-02' is not an ISO-8601 date or datetime, such as 2026-06-01 or 2026-06-01T06:00:00+02:00".to_owned())
    );
    assert_eq!(
        parse_now("2026-08-05T02:05")
            .map(format_instant)
            .ok()
            .as_deref(),
        Some("2026-08-05T02:05:00Z")
    );
    assert_eq!(
        parse_now("soon").map_err(|e| e.to_string()),
        Err::<Timestamp, _>(
            "now 'soon' is not an ISO-8601 date or datetime, such as 2026-08-05T02:05:00Z"
                .to_owned()
        )
    );
    let flow = workflow(&json!({"schedule": "5 2 * * *", "window": {"size": "day"}}));
    assert_eq!(
        BackfillRange::resolve(&flow, "2026-08-01", None, at("2026-08-05T00:00:00Z"), 0)
            .map_err(|e| e.to_string()),
        Err("max_windows must be a whole number from 1, got 0".to_owned())
    );
}
