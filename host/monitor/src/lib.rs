//! A table's monitors (`metadata.monitors`, [`ldp_config::monitors`]) evaluated from what is
//! already recorded: the table's snapshots (their times, the rows each added, their schemas) and
//! the runs of its pipeline (their outcomes). Nothing here reads the table's data, opens a
//! catalog or looks at the clock: the caller gathers the [`Facts`], so every rule is a plain
//! function of them.

use ldp_config::monitors::{Monitors, Volume};
use serde::Serialize;
use serde_json::{Value, json};

/// What is known of one table.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Now, in milliseconds since the epoch.
    pub now_ms: i64,
    /// Its snapshots, oldest first.
    pub snapshots: Vec<SnapshotFact>,
    /// Its pipeline's runs (final attempts), oldest first.
    pub runs: Vec<RunFact>,
    /// The newest value of the freshness column (milliseconds since the epoch), from the
    /// column's upper bounds in the manifests, when the monitor names a column and they hold one.
    pub newest_row_ms: Option<i64>,
}

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFact {
    /// Commit time, milliseconds since the epoch.
    pub timestamp_ms: i64,
    /// The rows it added (`added-records`), when its summary says.
    pub added_rows: Option<u64>,
    /// Its schema: each column's name and type, in order. Only schema drift reads it, and
    /// only of the newest two snapshots; it may be left empty elsewhere.
    pub columns: Vec<(String, String)>,
}

/// One run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFact {
    /// Its outcome: `published`, `skipped_duplicate`, `blocked_quality`, `failed`, `running`.
    pub status: String,
}

/// The verdict of one monitor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// `freshness`, `volume`, `schema_drift` or `failure_streak`.
    pub monitor: &'static str,
    /// Whether the monitor is breached.
    pub breached: bool,
    /// One line for people.
    pub detail: String,
    /// The figures behind it, for scripts.
    pub value: Value,
}

/// The verdict of each monitor set, in the order of [`ldp_config::monitors::MONITOR_KEYS`].
pub fn evaluate(monitors: &Monitors, facts: &Facts) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    if let Some(max_age_s) = monitors.freshness_max_age_s {
        verdicts.push(freshness(
            max_age_s,
            monitors.freshness_column.as_deref(),
            facts,
        ));
    }
    if let Some(volume_rule) = &monitors.volume {
        verdicts.push(volume(volume_rule, &facts.snapshots));
    }
    if monitors.schema_drift {
        verdicts.push(schema_drift(&facts.snapshots));
    }
    if let Some(streak) = monitors.failure_streak {
        verdicts.push(failure_streak(streak, &facts.runs));
    }
    verdicts
}

/// `2d 3h`, `5h 12m`, `40s`: an age for people.
pub fn age_text(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m) = (s / 86_400, s % 86_400 / 3_600, s % 3_600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, m) => format!("{h}h {m}m"),
        (d, h, _) => format!("{d}d {h}h"),
    }
}

fn freshness(max_age_s: u64, column: Option<&str>, facts: &Facts) -> Verdict {
    let limit = i64::try_from(max_age_s).unwrap_or(i64::MAX);
    let Some(newest) = facts.snapshots.last() else {
        return Verdict {
            monitor: "freshness",
            breached: true,
            detail: format!("no snapshot yet (max age {})", age_text(limit)),
            value: json!({"age_s": null, "max_age_s": max_age_s}),
        };
    };
    let (age, detail) = match (column, facts.newest_row_ms) {
        (Some(column), Some(newest_row)) => {
            let age = (facts.now_ms - newest_row) / 1000;
            (age, format!("newest {column} {} ago", age_text(age)))
        }
        (column, _) => {
            let age = (facts.now_ms - newest.timestamp_ms) / 1000;
            let unknown = column.map_or(String::new(), |c| {
                format!(", as no file's statistics bound {c}")
            });
            (age, format!("published {} ago{unknown}", age_text(age)))
        }
    };
    Verdict {
        monitor: "freshness",
        breached: age > limit,
        detail: format!("{detail} (max {})", age_text(limit)),
        value: json!({"age_s": age, "max_age_s": max_age_s, "column": column}),
    }
}

fn volume(rule: &Volume, snapshots: &[SnapshotFact]) -> Verdict {
    let Some((newest, before)) = snapshots.split_last() else {
        return Verdict {
            monitor: "volume",
            breached: false,
            detail: "no snapshot yet".into(),
            value: json!({"rows": null}),
        };
    };
    let Some(rows) = newest.added_rows else {
        return Verdict {
            monitor: "volume",
            breached: false,
            detail: "the newest snapshot does not say how many rows it added".into(),
            value: json!({"rows": null}),
        };
    };
    let mut why = Vec::new();
    if let Some(min) = rule.min_rows.filter(|min| rows < *min) {
        why.push(format!("below min_rows {min}"));
    }
    if let Some(max) = rule.max_rows.filter(|max| rows > *max) {
        why.push(format!("above max_rows {max}"));
    }
    let trailing: Vec<u64> = before
        .iter()
        .rev()
        .filter_map(|s| s.added_rows)
        .take(usize::try_from(rule.trailing).unwrap_or(usize::MAX))
        .collect();
    let median = median(&trailing);
    let change_pct = median
        .filter(|m| *m > 0.0)
        .map(|m| (rows as f64 - m).abs() / m * 100.0);
    if let (Some(max), Some(change)) = (rule.max_change_pct, change_pct)
        && change > max
    {
        why.push(format!(
            "{change:.0}% off the median {} of the {} snapshots before (max {max}%)",
            median.unwrap_or_default(),
            trailing.len()
        ));
    }
    let detail = if why.is_empty() {
        format!("{rows} rows added")
    } else {
        format!("{rows} rows added: {}", why.join("; "))
    };
    Verdict {
        monitor: "volume",
        breached: !why.is_empty(),
        detail,
        value: json!({"rows": rows, "median": median, "change_pct": change_pct,
                      "min_rows": rule.min_rows, "max_rows": rule.max_rows,
                      "max_change_pct": rule.max_change_pct}),
    }
}

fn median(values: &[u64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some((sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0),
    }
}

fn schema_drift(snapshots: &[SnapshotFact]) -> Verdict {
    let [.., previous, newest] = snapshots else {
        return Verdict {
            monitor: "schema_drift",
            breached: false,
            detail: "no earlier snapshot to compare with".into(),
            value: json!({"added": [], "dropped": [], "retyped": []}),
        };
    };
    let find = |columns: &[(String, String)], name: &str| {
        columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    };
    let added: Vec<String> = newest
        .columns
        .iter()
        .filter(|(name, _)| find(&previous.columns, name).is_none())
        .map(|(name, _)| name.clone())
        .collect();
    let dropped: Vec<String> = previous
        .columns
        .iter()
        .filter(|(name, _)| find(&newest.columns, name).is_none())
        .map(|(name, _)| name.clone())
        .collect();
    let retyped: Vec<String> = newest
        .columns
        .iter()
        .filter_map(|(name, ty)| {
            let before = find(&previous.columns, name)?;
            (before != *ty).then(|| format!("{name} ({before} -> {ty})"))
        })
        .collect();
    let mut parts = Vec::new();
    for (what, names) in [
        ("added", &added),
        ("dropped", &dropped),
        ("retyped", &retyped),
    ] {
        if !names.is_empty() {
            parts.push(format!("{what} {}", names.join(", ")));
        }
    }
    Verdict {
        monitor: "schema_drift",
        breached: !parts.is_empty(),
        detail: if parts.is_empty() {
            "schema unchanged".into()
        } else {
            parts.join("; ")
        },
        value: json!({"added": added, "dropped": dropped, "retyped": retyped}),
    }
}

fn failure_streak(limit: u64, runs: &[RunFact]) -> Verdict {
    let streak = runs
        .iter()
        .rev()
        .filter(|r| r.status != "running")
        .take_while(|r| matches!(r.status.as_str(), "failed" | "blocked_quality"))
        .count() as u64;
    Verdict {
        monitor: "failure_streak",
        breached: streak >= limit,
        detail: format!(
            "{streak} failed or blocked run(s) in a row (max {})",
            limit - 1
        ),
        value: json!({"streak": streak, "limit": limit}),
    }
}

/// A change of a monitor's state, which `ldp status --alert` sends once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// `monitor.breached` or `monitor.recovered`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The monitor.
    pub monitor: String,
    /// Its verdict now (for a recovery: why it is well again), or `None` when the monitor is no
    /// longer set.
    pub detail: Option<String>,
    /// The figures behind it.
    pub value: Value,
}

/// What changed since the monitors `breached_before` were last alerted: a `monitor.breached`
/// for each monitor breached now and not before, a `monitor.recovered` for each breached before
/// and not now (also one no longer set). A breach that goes on sends nothing again.
pub fn alerts(breached_before: &[String], verdicts: &[Verdict]) -> Vec<Alert> {
    let mut alerts = Vec::new();
    for verdict in verdicts {
        let before = breached_before.iter().any(|m| m == verdict.monitor);
        if verdict.breached != before {
            alerts.push(Alert {
                kind: if verdict.breached {
                    "monitor.breached"
                } else {
                    "monitor.recovered"
                },
                monitor: verdict.monitor.to_string(),
                detail: Some(verdict.detail.clone()),
                value: verdict.value.clone(),
            });
        }
    }
    for monitor in breached_before {
        if !verdicts.iter().any(|v| v.monitor == monitor) {
            alerts.push(Alert {
                kind: "monitor.recovered",
                monitor: monitor.clone(),
                detail: None,
                value: Value::Null,
            });
        }
    }
    alerts
}

#[cfg(test)]
mod tests;
