use super::*;

const HOUR_MS: i64 = 3_600_000;

fn snapshot(hours_ago: i64, rows: u64, columns: &[(&str, &str)]) -> SnapshotFact {
    SnapshotFact {
        timestamp_ms: 100 * HOUR_MS - hours_ago * HOUR_MS,
        added_rows: Some(rows),
        columns: columns
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
    }
}

fn run(status: &str) -> RunFact {
    RunFact {
        status: status.into(),
    }
}

fn monitors() -> Monitors {
    Monitors {
        freshness_max_age_s: Some(26 * 3_600),
        freshness_column: None,
        volume: Some(Volume {
            min_rows: Some(1),
            max_rows: None,
            max_change_pct: Some(50.0),
            trailing: 3,
        }),
        schema_drift: true,
        failure_streak: Some(2),
        webhook_env: None,
    }
}

#[test]
fn a_healthy_table_breaches_nothing() {
    let cols = [("id", "long"), ("fare", "double")];
    let facts = Facts {
        now_ms: 100 * HOUR_MS,
        snapshots: vec![
            snapshot(72, 100, &cols),
            snapshot(48, 110, &cols),
            snapshot(24, 90, &cols),
            snapshot(2, 105, &cols),
        ],
        runs: vec![run("failed"), run("published")],
        newest_row_ms: None,
    };
    let verdicts = evaluate(&monitors(), &facts);
    assert_eq!(verdicts.len(), 4);
    assert!(verdicts.iter().all(|v| !v.breached), "{verdicts:#?}");
    assert_eq!(verdicts[0].detail, "published 2h 0m ago (max 1d 2h)");
}

#[test]
fn each_monitor_breaches_on_its_own_fact() {
    let cols = [("id", "long"), ("fare", "double")];
    let drifted = [("id", "string"), ("city", "string")];
    let facts = Facts {
        now_ms: 100 * HOUR_MS,
        snapshots: vec![
            snapshot(72, 100, &cols),
            snapshot(50, 100, &cols),
            snapshot(30, 300, &drifted),
        ],
        runs: vec![run("published"), run("blocked_quality"), run("failed")],
        newest_row_ms: None,
    };
    let verdicts = evaluate(&monitors(), &facts);
    let breached: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.breached)
        .map(|v| v.monitor)
        .collect();
    assert_eq!(
        breached,
        ["freshness", "volume", "schema_drift", "failure_streak"]
    );
    assert_eq!(
        verdicts[1].detail,
        "300 rows added: 200% off the median 100 of the 2 snapshots before (max 50%)"
    );
    assert_eq!(
        verdicts[2].detail,
        "added city; dropped fare; retyped id (long -> string)"
    );
    assert_eq!(verdicts[3].value["streak"], 2);
}

#[test]
fn a_table_without_snapshots_is_stale_and_nothing_else() {
    let verdicts = evaluate(&monitors(), &Facts::default());
    let breached: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.breached)
        .map(|v| v.monitor)
        .collect();
    assert_eq!(breached, ["freshness"]);
}

#[test]
fn a_breach_is_alerted_once_and_its_recovery_once() {
    let verdict = |monitor: &'static str, breached: bool| Verdict {
        monitor,
        breached,
        detail: String::new(),
        value: Value::Null,
    };
    let kinds = |alerts: Vec<Alert>| -> Vec<(&'static str, String)> {
        alerts.into_iter().map(|a| (a.kind, a.monitor)).collect()
    };
    let now = [verdict("freshness", true), verdict("volume", false)];
    assert_eq!(
        kinds(alerts(&[], &now)),
        [("monitor.breached", "freshness".to_string())]
    );
    assert!(alerts(&["freshness".to_string()], &now).is_empty());
    let later = [verdict("freshness", false)];
    assert_eq!(
        kinds(alerts(
            &["freshness".to_string(), "volume".to_string()],
            &later
        )),
        [
            ("monitor.recovered", "freshness".to_string()),
            ("monitor.recovered", "volume".to_string())
        ]
    );
}

#[test]
fn freshness_of_a_column_is_its_newest_value_else_the_last_publish() {
    let rules = Monitors {
        freshness_max_age_s: Some(3_600),
        freshness_column: Some("pickup_ts".into()),
        ..Monitors::default()
    };
    let mut facts = Facts {
        now_ms: 100 * HOUR_MS,
        snapshots: vec![snapshot(0, 10, &[])],
        runs: Vec::new(),
        newest_row_ms: Some(98 * HOUR_MS),
    };
    let verdict = &evaluate(&rules, &facts)[0];
    assert!(verdict.breached);
    assert_eq!(verdict.detail, "newest pickup_ts 2h 0m ago (max 1h 0m)");
    facts.newest_row_ms = None;
    let verdict = &evaluate(&rules, &facts)[0];
    assert!(!verdict.breached);
    assert_eq!(
        verdict.detail,
        "published 0s ago, as no file's statistics bound pickup_ts (max 1h 0m)"
    );
}
