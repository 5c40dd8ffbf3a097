//! N `ldp run` processes started at once on one table, for every write kind. Every one exits 0
//! (appends, overwrites, upserts and staged publishes retry a lost commit race), pyiceberg reads
//! the table, and nothing is lost or doubled: appends add every writer's rows once, an overwrite
//! leaves exactly one writer's rows, upserts leave the union of the keys with one writer's
//! values on the keys they share, one window is published once (the others skip it) and
//! different windows are each published once.

use std::path::Path;
use std::process::Child;
use std::time::Instant;

use super::check::{Checker, Target, commits, difference};
use super::{
    Content, Part, RunOutput, config, content, finished, keep_on_failure, plus, print_table,
    report, run, size, spawn_run, write_csv,
};

/// Rows of the table before the writers start.
const OLD_ROWS: i64 = 1_000;
/// The keys every upsert writer changes.
const SHARED: i64 = OLD_ROWS / 2;
const OLD_WINDOW: &str = "2026-07-01/2026-07-02";
const TEMPLATE: &str = "data/part_{window_start:%Y-%m-%d}.csv";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Append,
    Overwrite,
    Upsert,
    StagedSameWindow,
    StagedWindows,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Append => "append",
            Kind::Overwrite => "overwrite",
            Kind::Upsert => "upsert",
            Kind::StagedSameWindow => "staged_same_window",
            Kind::StagedWindows => "staged_different_windows",
        }
    }

    fn staged(self) -> bool {
        matches!(self, Kind::StagedSameWindow | Kind::StagedWindows)
    }
}

/// Writer `w`'s own rows (version `w + 1`).
fn own(w: usize, rows: i64) -> Part {
    Part {
        start: OLD_ROWS + w as i64 * rows,
        n: rows,
        v: w as i64 + 1,
    }
}

/// Writer `w`'s window: August 1 of the year 2027 + `w` (any number of writers, each after
/// the table's earlier window).
fn window(w: usize) -> String {
    let year = 2027 + w;
    format!("{year}-08-01/{year}-08-02")
}

/// What each writer runs: its config and arguments, the rows it writes.
struct Writer {
    config: std::path::PathBuf,
    args: Vec<String>,
    parts: Vec<Part>,
}

fn writers(kind: Kind, dir: &Path, count: usize, rows: i64, seed: u64) -> Vec<Writer> {
    let data = dir.join("data");
    (0..count)
        .map(|w| {
            let seed = seed.wrapping_add(w as u64 + 2);
            let (parts, file, args) = match kind {
                Kind::Append | Kind::Overwrite => {
                    (vec![own(w, rows)], format!("w{w}.csv"), Vec::new())
                }
                Kind::Upsert => {
                    let shared = Part {
                        start: 0,
                        n: SHARED,
                        v: w as i64 + 1,
                    };
                    (vec![shared, own(w, rows)], format!("w{w}.csv"), Vec::new())
                }
                // Every writer runs the same window of the same file.
                Kind::StagedSameWindow => (
                    vec![own(0, rows)],
                    format!("part_{}.csv", &window(0)[..10]),
                    vec!["--window".to_string(), window(0)],
                ),
                Kind::StagedWindows => (
                    vec![own(w, rows)],
                    format!("part_{}.csv", &window(w)[..10]),
                    vec!["--window".to_string(), window(w)],
                ),
            };
            let config = if kind.staged() {
                dir.join("run.json")
            } else {
                let mode = match kind {
                    Kind::Overwrite => "overwrite",
                    Kind::Upsert => "upsert",
                    _ => "append",
                };
                let path = dir.join(format!("w{w}.json"));
                std::fs::write(&path, config("t", &format!("data/{file}"), mode)).unwrap();
                path
            };
            if !data.join(&file).exists() {
                write_csv(&data.join(&file), &parts, seed);
            }
            Writer {
                config,
                args,
                parts,
            }
        })
        .collect()
}

/// The content the writers may leave, and whether `got` is one of them.
fn verdict(kind: Kind, old: &Content, writers: &[Writer], got: &Content) -> Result<(), String> {
    let all = || {
        writers
            .iter()
            .fold(old.clone(), |acc, w| plus(&acc, &content(&w.parts)))
    };
    let want = match kind {
        Kind::Append | Kind::StagedWindows => all(),
        Kind::StagedSameWindow => plus(old, &content(&writers[0].parts)),
        Kind::Overwrite => {
            return writers
                .iter()
                .any(|w| content(&w.parts) == *got)
                .then_some(())
                .ok_or_else(|| {
                    format!(
                        "the table is no writer's rows: {got:?} (each writer wrote {:?})",
                        content(&writers[0].parts)
                    )
                });
        }
        Kind::Upsert => {
            // One writer's values on the shared keys, every writer's own keys.
            let rest = content(&[Part {
                start: SHARED,
                n: OLD_ROWS - SHARED,
                v: 0,
            }]);
            let candidates: Vec<Content> = (0..writers.len())
                .map(|winner| {
                    writers
                        .iter()
                        .enumerate()
                        .fold(rest.clone(), |acc, (w, writer)| {
                            let parts = if w == winner {
                                &writer.parts[..]
                            } else {
                                &writer.parts[1..]
                            };
                            plus(&acc, &content(parts))
                        })
                })
                .collect();
            return candidates
                .iter()
                .any(|c| c == got)
                .then_some(())
                .ok_or_else(|| difference(got, &candidates[0]));
        }
    };
    if *got == want {
        Ok(())
    } else {
        Err(difference(got, &want))
    }
}

fn suite(kind: Kind) {
    let size = size();
    let count = size.writers;
    let rows = (size.rows / count as i64).max(1_000);
    let seed = size.seed ^ (kind as u64 + 11).wrapping_mul(0x51_7cc1_b727_220a);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut checker = Checker::start();

    // The table before: OLD_ROWS rows (for the staged kinds, an earlier window).
    let old = [Part {
        start: 0,
        n: OLD_ROWS,
        v: 0,
    }];
    let setup = if kind.staged() {
        write_csv(&d.join("data/part_2026-07-01.csv"), &old, seed);
        std::fs::write(d.join("run.json"), config("t", TEMPLATE, "append")).unwrap();
        run(&d.join("run.json"), &["--window", OLD_WINDOW])
    } else {
        write_csv(&d.join("data/old.csv"), &old, seed);
        std::fs::write(d.join("setup.json"), config("t", "data/old.csv", "append")).unwrap();
        run(&d.join("setup.json"), &[])
    };
    assert_eq!(setup.code, 0, "the setup run failed: {}", setup.stderr);
    let writers = writers(kind, d, count, rows, seed);

    // All at once.
    let started = Instant::now();
    let children: Vec<(Child, Instant)> = writers
        .iter()
        .map(|w| {
            let args: Vec<&str> = w.args.iter().map(String::as_str).collect();
            (spawn_run(&w.config, &args, true), Instant::now())
        })
        .collect();
    let outputs: Vec<RunOutput> = children
        .into_iter()
        .map(|(child, at)| {
            let out = child.wait_with_output().unwrap();
            finished(out, at.elapsed())
        })
        .collect();
    let wall = started.elapsed();

    let mut violations = Vec::new();
    for (w, out) in outputs.iter().enumerate() {
        if let Some(failure) = out.failure(&format!("writer {w}")) {
            violations.push(failure);
        }
    }
    let mut statuses: Vec<&str> = outputs.iter().map(RunOutput::status).collect();
    statuses.sort_unstable();
    let published = statuses.iter().filter(|s| **s == "published").count();
    let skipped = statuses
        .iter()
        .filter(|s| **s == "skipped_duplicate")
        .count();
    match kind {
        Kind::StagedSameWindow if (published, skipped) != (1, count - 1) => {
            violations.push(format!(
                "{published} writers published and {skipped} skipped the window, expected 1 and {}",
                count - 1
            ))
        }
        Kind::StagedSameWindow => {}
        _ if published != count => violations.push(format!(
            "{published} of {count} writers published: {statuses:?}"
        )),
        _ => {}
    }

    let state = checker.state(&Target::new(d, "t"));
    if let Some(problem) = state.unreadable() {
        violations.push(problem);
    }
    if let Err(problem) = verdict(kind, &content(&old), &writers, &state.content) {
        violations.push(problem);
    }
    if state.distinct_ids != state.rows {
        violations.push(format!(
            "{} rows but {} distinct ids",
            state.rows, state.distinct_ids
        ));
    }
    if !state.empty_tables.is_empty() {
        violations.push(format!("empty table(s) {:?}", state.empty_tables));
    }
    let mut branches = state.branches.clone();
    if kind.staged() {
        let (keys, staging) = commits(&d.join("run.json"));
        branches.extend(staging);
        branches.sort();
        branches.dedup();
        let mut written: Vec<&str> = outputs
            .iter()
            .filter_map(|o| o.doc["idempotency_key"].as_str())
            .collect();
        written.sort_unstable();
        written.dedup();
        for key in written {
            let n = keys.iter().filter(|k| *k == key).count();
            if n != 1 {
                violations.push(format!("the key {key} is published {n} times on main"));
            }
        }
    }
    if !branches.is_empty() {
        violations.push(format!("branch(es) left: {branches:?}"));
    }

    let mut table = vec![
        ["writer", "exit", "status", "attempts", "rows_written", "ms"]
            .map(String::from)
            .to_vec(),
    ];
    for (w, out) in outputs.iter().enumerate() {
        table.push(vec![
            w.to_string(),
            out.code.to_string(),
            out.status().to_string(),
            out.doc["write_result"]["attempts"].to_string(),
            out.doc["rows_written"].to_string(),
            out.elapsed.as_millis().to_string(),
        ]);
    }
    let footer = format!(
        "{}: {count} writers in {:.2} s, {published} published, {skipped} skipped; table {} \
         rows ({} distinct ids), {} snapshots; left: {} orphan data files, {} branches, {} \
         empty tables; {} violations",
        kind.name(),
        wall.as_secs_f64(),
        state.rows,
        state.distinct_ids,
        state.snapshots,
        state.orphans,
        branches.len(),
        state.empty_tables.len(),
        violations.len()
    );
    print_table(
        &format!(
            "torture: {count} concurrent writers, {} (seed {seed}, {rows} rows each)",
            kind.name()
        ),
        &table,
        &footer,
    );
    let attempts: Vec<serde_json::Value> = outputs
        .iter()
        .map(|o| o.doc["write_result"]["attempts"].clone())
        .collect();
    report(
        "writers",
        kind.name(),
        serde_json::json!({
            "seed": seed, "writers": count, "rows_per_writer": rows,
            "wall_ms": wall.as_millis() as u64,
            "exit_codes": outputs.iter().map(|o| o.code).collect::<Vec<_>>(),
            "statuses": statuses, "attempts": attempts,
            "rows": state.rows, "distinct_ids": state.distinct_ids, "snapshots": state.snapshots,
            "orphans": state.orphans, "branches": branches, "empty_tables": state.empty_tables,
            "violations": violations,
        }),
    );
    let violations: Vec<String> = violations
        .into_iter()
        .map(|v| format!("{} writers: {v}", kind.name()))
        .collect();
    keep_on_failure(dir, &violations);
    assert!(
        violations.is_empty(),
        "{} violation(s):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn append() {
    suite(Kind::Append);
}

#[test]
fn overwrite() {
    suite(Kind::Overwrite);
}

#[test]
fn upsert() {
    suite(Kind::Upsert);
}

#[test]
fn staged_same_window() {
    suite(Kind::StagedSameWindow);
}

#[test]
fn staged_different_windows() {
    suite(Kind::StagedWindows);
}
