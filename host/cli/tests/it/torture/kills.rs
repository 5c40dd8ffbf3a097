//! `kill -9` at a random moment of every write kind. Each trial starts from a table in a known
//! state, starts `ldp run` on a generated CSV and kills it after a delay drawn between 0 and the
//! duration of an unkilled run or, every other trial, 0-50 ms after its commit began (a new file
//! in the table's `metadata/`). Then: pyiceberg loads the table and reads every row (a killed
//! first run leaves no table at all); the content is the old or the new one; a re-run gives the
//! final state with the rows written exactly once (a staged window is published once, and a
//! second re-run is `skipped_duplicate`); no staging branch and no empty table is left after the
//! re-run. Orphan data files (a killed run's files, which nothing references) are counted.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};

use super::check::{Checker, State, Target, difference, staged_branches};
use super::{
    Content, Part, Rng, config, content, keep_on_failure, plus, print_table, report, rows_of, run,
    size, spawn_run, write_csv,
};

/// Rows of the table before a trial.
const OLD_ROWS: i64 = 1_000;
/// The window published before a staged trial, and the one the trial writes.
const OLD_WINDOW: &str = "2026-07-01/2026-07-02";
const WINDOW: &str = "2026-08-01/2026-08-02";
const TEMPLATE: &str = "data/part_{window_start:%Y-%m-%d}.csv";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Append,
    Overwrite,
    Upsert,
    StagedWindow,
    FirstRun,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Append => "direct_append",
            Kind::Overwrite => "direct_overwrite",
            Kind::Upsert => "upsert",
            Kind::StagedWindow => "staged_window_append",
            Kind::FirstRun => "first_run",
        }
    }

    fn mode(self) -> &'static str {
        match self {
            Kind::Overwrite => "overwrite",
            Kind::Upsert => "upsert",
            _ => "append",
        }
    }

    /// The table before the killed run, and the rows the killed run writes.
    fn parts(self, rows: i64) -> (Vec<Part>, Part) {
        let old = vec![Part {
            start: 0,
            n: OLD_ROWS,
            v: 0,
        }];
        match self {
            Kind::FirstRun => (
                Vec::new(),
                Part {
                    start: 0,
                    n: rows,
                    v: 1,
                },
            ),
            // Half of the old keys get a new value, the rest of the rows are new keys.
            Kind::Upsert => (
                old,
                Part {
                    start: OLD_ROWS / 2,
                    n: rows,
                    v: 1,
                },
            ),
            _ => (
                old,
                Part {
                    start: OLD_ROWS,
                    n: rows,
                    v: 1,
                },
            ),
        }
    }

    /// The table after an unkilled run.
    fn new_content(self, old: &[Part], big: Part) -> Content {
        match self {
            Kind::Append | Kind::StagedWindow | Kind::FirstRun => {
                plus(&content(old), &content(&[big]))
            }
            Kind::Overwrite => content(&[big]),
            Kind::Upsert => content(&[
                Part {
                    start: 0,
                    n: big.start,
                    v: 0,
                },
                big,
            ]),
        }
    }

    /// The table after a re-run, from the table after the kill: an append adds its rows once
    /// more, the others reach the new content.
    fn after_rerun(self, after_kill: &Content, new: &Content, big: Part) -> Content {
        match self {
            Kind::Append | Kind::FirstRun => plus(after_kill, &content(&[big])),
            _ => new.clone(),
        }
    }
}

/// The files of one trial's folder: the CSVs (linked from the suite's folder) and the configs.
struct Layout {
    setup: std::path::PathBuf,
    config: std::path::PathBuf,
}

fn lay_out(kind: Kind, suite: &Path, dir: &Path) -> Layout {
    std::fs::create_dir_all(dir.join("data")).unwrap();
    let (small, big) = if kind == Kind::StagedWindow {
        ("data/part_2026-07-01.csv", "data/part_2026-08-01.csv")
    } else {
        ("data/small.csv", "data/big.csv")
    };
    std::fs::hard_link(suite.join("small.csv"), dir.join(small)).unwrap();
    std::fs::hard_link(suite.join("big.csv"), dir.join(big)).unwrap();
    let layout = Layout {
        setup: dir.join("setup.json"),
        config: dir.join("run.json"),
    };
    let (setup, source) = if kind == Kind::StagedWindow {
        (config("t", TEMPLATE, "append"), TEMPLATE)
    } else {
        (config("t", small, "append"), big)
    };
    std::fs::write(&layout.setup, setup).unwrap();
    std::fs::write(&layout.config, config("t", source, kind.mode())).unwrap();
    layout
}

/// Brings the table to its old state (nothing for a first run).
fn set_up(kind: Kind, layout: &Layout) {
    let out = match kind {
        Kind::FirstRun => return,
        Kind::StagedWindow => run(&layout.setup, &["--window", OLD_WINDOW]),
        _ => run(&layout.setup, &[]),
    };
    assert_eq!(out.code, 0, "the setup run failed: {}", out.stderr);
}

fn window_args(kind: Kind) -> Vec<&'static str> {
    if kind == Kind::StagedWindow {
        vec!["--window", WINDOW]
    } else {
        Vec::new()
    }
}

/// When a trial kills its run.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// This long after the start.
    After(Duration),
    /// This long after the first new file in the table's `metadata/`: its commit began.
    AtCommit(Duration),
}

fn files_in(folder: &Path) -> usize {
    std::fs::read_dir(folder).map_or(0, Iterator::count)
}

/// Starts the run and kills it with SIGKILL at `moment`: the exit code when it ended first, and
/// when it was killed or ended.
fn run_and_kill(
    config: &Path,
    extra: &[&str],
    moment: Moment,
    metadata: &Path,
) -> (Option<i32>, Duration) {
    let before = files_in(metadata);
    let started = Instant::now();
    let mut child = spawn_run(config, extra, false);
    let mut deadline = match moment {
        Moment::After(delay) => Some(started + delay),
        Moment::AtCommit(_) => None,
    };
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (Some(status.code().unwrap_or(-1)), started.elapsed());
        }
        let now = Instant::now();
        if let (None, Moment::AtCommit(delay)) = (deadline, moment)
            && files_in(metadata) > before
        {
            deadline = Some(now + delay);
        }
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
        let pause = deadline.map_or(Duration::from_millis(1), |d| d - now);
        std::thread::sleep(pause.min(Duration::from_millis(1)));
    }
    child.kill().unwrap();
    let at = started.elapsed();
    let status = child.wait().unwrap();
    match status.signal() {
        Some(9) => (None, at),
        _ => (Some(status.code().unwrap_or(-1)), at),
    }
}

/// One trial: what the kill left and what the re-run made of it.
struct Trial {
    /// `random` or `commit+N ms` (N ms after the commit began).
    moment: String,
    kill_ms: u64,
    /// `before_commit`, `after_commit` (the content after the kill is the new one), `finished`
    /// (the run ended before the kill), `left_table` (a killed first run left a table that is not
    /// the new one), `broken` (neither old nor new).
    outcome: &'static str,
    after_kill: State,
    rerun_status: String,
    rerun_ms: u64,
    after: State,
    /// Orphan data files left after `ldp maintain --orphans --apply`.
    orphans_after_maintain: usize,
    staging_branches: usize,
    /// Branches a run killed before staging its write left at a publish of `main`.
    unstaged_branches: usize,
    /// A killed first run left a table that is not the new one.
    left_table: bool,
    lost: bool,
    doubled: bool,
    unreadable: bool,
    violations: Vec<String>,
}

impl Trial {
    fn json(&self, n: usize) -> serde_json::Value {
        serde_json::json!({
            "trial": n, "moment": self.moment, "kill_ms": self.kill_ms, "outcome": self.outcome,
            "table_after_kill": self.after_kill.exists, "rows_after_kill": self.after_kill.rows,
            "orphans_after_kill": self.after_kill.orphans,
            "branches_after_kill": self.after_kill.branches.len(),
            "empty_tables_after_kill": self.after_kill.empty_tables,
            "rerun_status": self.rerun_status, "rows_after_rerun": self.after.rows,
            "orphans_after_rerun": self.after.orphans,
            "orphans_after_maintain": self.orphans_after_maintain,
            "staging_branches_after_rerun": self.staging_branches,
            "unstaged_branches_after_rerun": self.unstaged_branches,
            "empty_tables_after_rerun": self.after.empty_tables,
            "violations": self.violations,
        })
    }

    /// Records that `got` is not `want`.
    fn wrong(&mut self, when: &str, got: &Content, want: &Content) {
        match rows_of(got).cmp(&rows_of(want)) {
            std::cmp::Ordering::Less => self.lost = true,
            std::cmp::Ordering::Greater => self.doubled = true,
            std::cmp::Ordering::Equal => {}
        }
        self.violations
            .push(format!("{when}: {}", difference(got, want)));
    }
}

fn trial(
    kind: Kind,
    suite: &Path,
    dir: &Path,
    moment: Moment,
    rows: i64,
    checker: &mut Checker,
) -> Trial {
    let (old_parts, big) = kind.parts(rows);
    let old = content(&old_parts);
    let new = kind.new_content(&old_parts, big);
    let layout = lay_out(kind, suite, dir);
    set_up(kind, &layout);
    let target = Target::new(dir, "t");
    let args = window_args(kind);

    let metadata = target.warehouse.join("lake/t/metadata");
    let (ended, at) = run_and_kill(&layout.config, &args, moment, &metadata);
    let after_kill = checker.state(&target);
    let mut trial = Trial {
        moment: match moment {
            Moment::After(_) => "random".to_string(),
            Moment::AtCommit(delay) => format!("commit+{}", delay.as_millis()),
        },
        kill_ms: at.as_millis() as u64,
        rerun_ms: 0,
        outcome: "broken",
        after_kill: after_kill.clone(),
        rerun_status: String::new(),
        after: State::default(),
        orphans_after_maintain: 0,
        staging_branches: 0,
        unstaged_branches: 0,
        left_table: false,
        lost: false,
        doubled: false,
        unreadable: false,
        violations: Vec::new(),
    };
    if let Some(problem) = after_kill.unreadable() {
        trial.unreadable = true;
        trial.violations.push(format!("after the kill: {problem}"));
    }
    let got = &after_kill.content;
    match ended {
        Some(code) => {
            trial.outcome = "finished";
            if code != 0 {
                trial
                    .violations
                    .push(format!("the run ended by itself with exit {code}"));
            }
            if *got != new {
                trial.wrong("after a run that was not killed", got, &new);
            }
        }
        None if kind == Kind::FirstRun && !after_kill.exists => trial.outcome = "before_commit",
        None if kind == Kind::FirstRun && *got != new => {
            trial.left_table = true;
            trial.outcome = "left_table";
            trial.violations.push(format!(
                "a killed first run left a table with {} rows (none or the new rows expected)",
                after_kill.rows
            ));
            // An empty table is a leftover; rows other than the new ones are lost or doubled.
            if after_kill.rows > 0 {
                trial.wrong("after the kill", got, &new);
            }
        }
        None if *got == old => trial.outcome = "before_commit",
        None if *got == new => trial.outcome = "after_commit",
        None => {
            let want = if rows_of(got) < rows_of(&old) {
                &old
            } else {
                &new
            };
            trial.wrong("after the kill, neither old nor new", got, want);
        }
    }

    // The re-run, not killed.
    let rerun = run(&layout.config, &args);
    trial.rerun_status = rerun.status().to_string();
    trial.rerun_ms = rerun.elapsed.as_millis() as u64;
    if let Some(failure) = rerun.failure("the re-run") {
        trial.violations.push(failure);
    }
    let published = matches!(trial.outcome, "after_commit" | "finished");
    if kind == Kind::StagedWindow {
        let want = if published {
            "skipped_duplicate"
        } else {
            "published"
        };
        if trial.rerun_status != want {
            trial.violations.push(format!(
                "the re-run's status is {}, expected {want}",
                trial.rerun_status
            ));
        }
    }
    let after = checker.state(&target);
    if let Some(problem) = after.unreadable() {
        trial.unreadable = true;
        trial
            .violations
            .push(format!("after the re-run: {problem}"));
    }
    let want = kind.after_rerun(got, &new, big);
    if after.content != want {
        trial.wrong("after the re-run", &after.content, &want);
    }
    if matches!(kind, Kind::Overwrite | Kind::Upsert) && after.distinct_ids != after.rows {
        trial.doubled = true;
        trial.violations.push(format!(
            "after the re-run: {} rows but {} distinct ids",
            after.rows, after.distinct_ids
        ));
    }
    if !after.empty_tables.is_empty() {
        trial.violations.push(format!(
            "after the re-run: empty table(s) {:?}",
            after.empty_tables
        ));
    }
    // Branches after the re-run: the table's refs, and for a staged run `ldp commits` below.
    trial.staging_branches = after.branches.len();
    if kind != Kind::StagedWindow && !after.branches.is_empty() {
        trial
            .violations
            .push(format!("after the re-run: branch(es) {:?}", after.branches));
    }

    if kind == Kind::StagedWindow {
        // Published once, and a second re-run skips it.
        let key = rerun.doc["idempotency_key"].as_str().unwrap_or_default();
        let again = run(&layout.config, &args);
        if again.status() != "skipped_duplicate" {
            trial.violations.push(format!(
                "the second re-run's status is {} (exit {}), expected skipped_duplicate",
                again.status(),
                again.code
            ));
        }
        let (keys, branches, unstaged) = staged_branches(&layout.config);
        trial.unstaged_branches = unstaged;
        let publishes = keys.iter().filter(|k| *k == key).count();
        if publishes != 1 {
            trial.violations.push(format!(
                "the window's key {key} is published {publishes} times on main"
            ));
        }
        trial.staging_branches = branches.len();
        if !branches.is_empty() {
            trial.violations.push(format!(
                "staging branches left after the re-runs: {branches:?}"
            ));
        }
    }
    trial.after = after;
    sweep_orphans(&layout.config, &target, checker, &mut trial);
    trial
}

/// `ldp maintain --orphans --apply` after the re-runs, with every age allowed and no older
/// metadata version kept (no writer runs): every orphan a kill left goes, the rows stay, and
/// pyiceberg still reads every snapshot back.
fn sweep_orphans(config: &Path, target: &Target, checker: &mut Checker, trial: &mut Trial) {
    let out = crate::ldp(&[
        "maintain",
        config.to_str().unwrap(),
        "--orphans",
        "--orphan-age-hours",
        "0",
        "--allow-recent",
        "--keep-metadata-versions",
        "0",
        "--apply",
        "--json",
    ]);
    if !out.status.success() {
        trial.violations.push(format!(
            "ldp maintain --orphans --apply exited {:?}: {}",
            out.status.code(),
            crate::stderr(&out).trim_end()
        ));
        return;
    }
    let swept = checker.state(target);
    if let Some(problem) = swept.unreadable() {
        trial.unreadable = true;
        trial
            .violations
            .push(format!("after ldp maintain --orphans --apply: {problem}"));
    }
    if swept.content != trial.after.content {
        trial.lost = true;
        trial.violations.push(format!(
            "ldp maintain --orphans --apply changed the rows: {}",
            difference(&swept.content, &trial.after.content)
        ));
    }
    trial.orphans_after_maintain = swept.orphans;
    if swept.orphans > 0 {
        trial.violations.push(format!(
            "{} orphan data file(s) left after ldp maintain --orphans --apply",
            swept.orphans
        ));
    }
}

/// The trials of one write kind: a calibration run, then `LDP_TORTURE_TRIALS` kills.
fn suite(kind: Kind) {
    let size = size();
    let seed = size.seed ^ (kind as u64 + 1).wrapping_mul(0x51_7cc1_b727_220a);
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let (old_parts, big) = kind.parts(size.rows);
    write_csv(&dir.path().join("small.csv"), &old_parts, seed);
    write_csv(&dir.path().join("big.csv"), &[big], seed.wrapping_add(1));
    let mut checker = Checker::start();

    // An unkilled run from the same state: how long a run takes, and what it leaves.
    let calibration = dir.path().join("calibration");
    let layout = lay_out(kind, dir.path(), &calibration);
    set_up(kind, &layout);
    let unkilled = run(&layout.config, &window_args(kind));
    assert_eq!(
        unkilled.code, 0,
        "the unkilled run failed: {}",
        unkilled.stderr
    );
    let state = checker.state(&Target::new(&calibration, "t"));
    assert_eq!(state.unreadable(), None);
    let new = kind.new_content(&old_parts, big);
    assert_eq!(
        state.content,
        new,
        "the unkilled run: {}",
        difference(&state.content, &new)
    );
    let unkilled_orphans = state.orphans;
    std::fs::remove_dir_all(&calibration).unwrap();

    let mut duration = unkilled.elapsed;
    let mut trials = Vec::new();
    let mut violations = Vec::new();
    for n in 0..size.trials {
        // Every other kill falls 0-50 ms after the run's commit began; the others anywhere in
        // the duration of the latest unkilled run.
        let moment = if n % 2 == 1 {
            Moment::AtCommit(Duration::from_micros(rng.below(50_000)))
        } else {
            Moment::After(duration.mul_f64(rng.unit()))
        };
        let trial_dir = dir.path().join(format!("trial{n}"));
        let trial = trial(
            kind,
            dir.path(),
            &trial_dir,
            moment,
            size.rows,
            &mut checker,
        );
        if trial.rerun_status == "published" && trial.violations.is_empty() {
            duration = Duration::from_millis(trial.rerun_ms);
        }
        if trial.violations.is_empty() {
            std::fs::remove_dir_all(&trial_dir).unwrap();
        } else {
            violations.extend(trial.violations.iter().map(|v| {
                format!(
                    "{} trial {n} (kill at {} ms): {v}",
                    kind.name(),
                    trial.kill_ms
                )
            }));
        }
        trials.push(trial);
    }

    let count = |f: &dyn Fn(&Trial) -> bool| trials.iter().filter(|t| f(t)).count();
    let killed = count(&|t| t.outcome != "finished");
    let before = count(&|t| t.outcome == "before_commit");
    let after = count(&|t| t.outcome == "after_commit");
    let finished = count(&|t| t.outcome == "finished");
    let lost = count(&|t| t.lost);
    let doubled = count(&|t| t.doubled);
    let unreadable = count(&|t| t.unreadable);
    let orphans: usize = trials.iter().map(|t| t.after.orphans).sum();
    let swept: usize = trials.iter().map(|t| t.orphans_after_maintain).sum();
    let branches_after_kill: usize = trials.iter().map(|t| t.after_kill.branches.len()).sum();
    let stale_branches: usize = trials.iter().map(|t| t.staging_branches).sum();
    let empty_after_kill: usize = trials.iter().map(|t| t.after_kill.empty_tables.len()).sum();
    let empty_after: usize = trials.iter().map(|t| t.after.empty_tables.len()).sum();
    let tables_after_killed_first_run = count(&|t| t.left_table);

    let mut rows = vec![
        [
            "trial",
            "moment",
            "kill_ms",
            "outcome",
            "rows_after_kill",
            "orphans",
            "branches",
            "empty",
            "rerun",
            "rows_after",
            "orphans",
            "swept",
            "stale_branches",
            "empty",
            "violations",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (n, t) in trials.iter().enumerate() {
        rows.push(vec![
            n.to_string(),
            t.moment.clone(),
            t.kill_ms.to_string(),
            t.outcome.to_string(),
            if t.after_kill.exists || kind != Kind::FirstRun {
                t.after_kill.rows.to_string()
            } else {
                "no table".to_string()
            },
            t.after_kill.orphans.to_string(),
            t.after_kill.branches.len().to_string(),
            t.after_kill.empty_tables.len().to_string(),
            t.rerun_status.clone(),
            t.after.rows.to_string(),
            t.after.orphans.to_string(),
            t.orphans_after_maintain.to_string(),
            t.staging_branches.to_string(),
            t.after.empty_tables.len().to_string(),
            t.violations.len().to_string(),
        ]);
    }
    let footer = format!(
        "{}: {} trials, killed {killed} (before the commit {before}, after it {after}), ended \
         before the kill {finished}; lost {lost}, doubled {doubled}, unreadable {unreadable}; \
         left: {orphans} orphan data files after the re-runs ({unkilled_orphans} after an \
         unkilled run) and {swept} after ldp maintain --orphans --apply, {branches_after_kill} staging branches after the kills and \
         {stale_branches} after the re-runs, {empty_after_kill} empty tables after the kills and \
         {empty_after} after the re-runs; {} violations",
        kind.name(),
        trials.len(),
        violations.len()
    );
    print_table(
        &format!(
            "torture: kill -9 during {} (seed {seed}, {} rows, unkilled run {:.2} s)",
            kind.name(),
            size.rows,
            unkilled.elapsed.as_secs_f64()
        ),
        &rows,
        &footer,
    );
    report(
        "kills",
        kind.name(),
        serde_json::json!({
            "seed": seed, "rows": size.rows, "unkilled_ms": unkilled.elapsed.as_millis() as u64,
            "orphans_after_unkilled_run": unkilled_orphans,
            "trials": trials.len(), "killed": killed, "killed_before_commit": before,
            "killed_after_commit": after, "ended_before_kill": finished,
            "lost": lost, "doubled": doubled, "unreadable": unreadable,
            "tables_left_by_killed_first_runs": tables_after_killed_first_run,
            "orphans_after_reruns": orphans, "orphans_after_maintain": swept,
            "staging_branches_after_kills": branches_after_kill,
            "stale_branches_after_reruns": stale_branches,
            "empty_tables_after_kills": empty_after_kill,
            "empty_tables_after_reruns": empty_after,
            "violations": violations,
            "trial_list": trials.iter().enumerate().map(|(n, t)| t.json(n)).collect::<Vec<_>>(),
        }),
    );
    keep_on_failure(dir, &violations);
    assert!(
        violations.is_empty(),
        "{} violation(s):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn direct_append() {
    suite(Kind::Append);
}

#[test]
fn direct_overwrite() {
    suite(Kind::Overwrite);
}

#[test]
fn upsert() {
    suite(Kind::Upsert);
}

#[test]
fn staged_window_append() {
    suite(Kind::StagedWindow);
}

#[test]
fn first_run() {
    suite(Kind::FirstRun);
}
