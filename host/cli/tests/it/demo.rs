//! `ldp demo` against the Python tool's output (seed 42, 1000 rides), line by line: every number
//! must be the Python tool's. Only ids, durations and the workdir are masked, and the few lines
//! where ldp differs on purpose are listed in [`DIFFERENCES`]. Then the workdir rules.

use std::path::Path;

use super::{ldp, stderr, stdout};

/// The Python tool's stdout of `ldp demo --workdir demo` (seed 42, 1000 rides), its workdir
/// written `<workdir>`.
const REFERENCE: &str = include_str!("../data/demo/demo_seed42_rows1000.stdout.txt");

/// The `rides.json` the Python tool's demo writes.
const REFERENCE_CONFIG: &str = include_str!("../data/upsert/demo_rides.json");

/// Where ldp's demo differs from the Python tool on purpose: (the Python tool's lines, ldp's lines),
/// after masking. Each reference sequence must occur exactly once.
const DIFFERENCES: &[(&[&str], &[&str])] = &[
    // The tool's name and version.
    (&["local-data-platform 0.1.3 demo"], &["ldp <version> demo"]),
    // ldp's upsert commits one snapshot, the Python tool's three (an overwrite, two appends).
    (
        &["Blocked before the write: demo.rides still has 1010 rows and 4 snapshots"],
        &["Blocked before the write: demo.rides still has 1010 rows and 2 snapshots"],
    ),
    // SQL is DataFusion's, which has no GROUP BY ALL for this select list.
    (
        &[
            "[6/N] DuckDB SQL: revenue by city per day",
            "-----------------------------------------",
            "SELECT CAST(pickup_ts AS DATE) AS day, city, count(*) AS rides, round(sum(fare), 2) AS revenue FROM rides GROUP BY ALL ORDER BY day, city",
        ],
        &[
            "[6/N] DataFusion SQL: revenue by city per day",
            "---------------------------------------------",
            "SELECT CAST(pickup_ts AS DATE) AS day, city, count(*) AS rides, round(sum(fare), 2) AS revenue FROM rides GROUP BY 1, 2 ORDER BY day, city",
        ],
    ),
    // The history: two snapshots, and why.
    (
        &[
            "  snapshot  <id>  append    total-records 1000",
            "  snapshot  <id>  overwrite total-records 950",
            "  snapshot  <id>  append    total-records 1000",
            "  snapshot  <id>  append    total-records 1010",
            "The first snapshot is the initial load. The upsert committed an overwrite that removed the changed rows,",
            "then appends with their new values and the new rides. Re-running it changed nothing, so it added no snapshot.",
        ],
        &[
            "  snapshot  <id>  append    total-records 1000",
            "  snapshot  <id>  overwrite total-records 1010",
            "The first snapshot is the initial load. The upsert committed one overwrite snapshot that replaced the",
            "changed rows and added the new rides: ldp writes each change as one snapshot, where the Python tool",
            "commits three (an overwrite, then two appends). Re-running it changed nothing, so it added no snapshot.",
        ],
    ),
    // Step 9, which the Python tool does not have: code ldp does not trust, in the sandbox.
    (
        &["Read back 1010 rows: matches the table"],
        &[
            "Read back 1010 rows: matches the table",
            "",
            "[9/N] Plugins: a third-party transform, and a hostile one stopped",
            "-----------------------------------------------------------------",
            "plugins/fare_per_km.js (sha256 6a2fe8a03016...) ran in the sandbox on the way to demo.rides_enriched:",
            "1010 rows, with the new column fare_per_km",
            "  city  avg_fare_per_km",
            "  ----  ---------------",
            "  BKK              2.62",
            "  LDN              2.58",
            "  NYC              2.54",
            "  SFO              2.47",
            "A hostile transform tried to take all the memory it could; the sandbox (64 MiB) stopped it:",
            "  metadata.transforms[0] (hoarder): plugin 'js' was stopped by the sandbox: memory limit: it asked for <n> MiB of linear memory, the limit is 64 MiB",
            "Nothing was written: demo.rides_enriched still has 1010 rows and 1 snapshot",
        ],
    ),
    (
        &["  8 export        1010 rows to CSV, verified"],
        &[
            "  8 export        1010 rows to CSV, verified",
            "  9 plugins       fare_per_km added to 1010 rows; hostile one stopped",
        ],
    ),
    (
        &[
            "  6 duckdb        28 groups, revenue 27,727.18",
            "  7 time travel   first snapshot 1000 rows, now 1010 (4 snapshots)",
        ],
        &[
            "  6 sql           28 groups, revenue 27,727.18",
            "  7 time travel   first snapshot 1000 rows, now 1010 (2 snapshots)",
        ],
    ),
];

/// Masks what varies between runs: snapshot ids, the duration, the workdir (`workdir` as ldp
/// printed it; `demo` in the Python tool's hints), ldp's version, the number of steps, the memory
/// the hostile plugin of step 9 asked for.
fn mask(text: &str, workdir: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let line = line
                .replace(workdir, "<workdir>")
                .replace(" demo/rides.json", " <workdir>/rides.json")
                .replace(
                    &format!("ldp {} demo", env!("CARGO_PKG_VERSION")),
                    "ldp <version> demo",
                );
            // `[6/8] …`: the step count, so that a step added to the demo changes only its
            // own lines (and the summary's).
            if let Some(rest) = line.strip_prefix('[')
                && let Some((k, tail)) = rest.split_once('/')
                && let Some((n, title)) = tail.split_once("] ")
                && k.parse::<u32>().is_ok()
                && n.parse::<u32>().is_ok()
            {
                return format!("[{k}/N] {title}");
            }
            if let Some(rest) = line.strip_prefix("  snapshot  ") {
                let after_id = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                return format!("  snapshot  <id>  {}", after_id.trim_start());
            }
            // How far past the limit the hostile plugin got depends on its allocator.
            if let Some((head, tail)) = line.split_once("it asked for ")
                && let Some((mib, rest)) = tail.split_once(" MiB")
                && mib.parse::<u32>().is_ok()
            {
                return format!("{head}it asked for <n> MiB{rest}");
            }
            if let Some(rest) = line.strip_prefix("Done in ")
                && let Some((seconds, tail)) = rest.split_once("s. ")
                && seconds.parse::<f64>().is_ok()
            {
                return format!("Done in <s>s. {tail}");
            }
            line
        })
        .collect()
}

/// The Python tool's output, masked, with [`DIFFERENCES`] applied.
fn expected() -> Vec<String> {
    let mut lines = mask(REFERENCE, "<workdir>");
    for (from, to) in DIFFERENCES {
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| {
                lines[i..].starts_with(&from.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            })
            .collect();
        assert_eq!(at.len(), 1, "{from:?} must occur once in the reference");
        lines.splice(at[0]..at[0] + from.len(), to.iter().map(|s| s.to_string()));
    }
    lines
}

#[test]
fn the_demo_prints_the_reference_numbers() {
    let dir = tempfile::tempdir().unwrap();
    // A folder that does not exist yet is created.
    let workdir = dir.path().join("demo");
    let out = ldp(&["demo", "--workdir", workdir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = mask(&stdout(&out), workdir.to_str().unwrap());
    let want = expected();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "line {} differs\n--- ldp's output:\n{}",
            i + 1,
            stdout(&out)
        );
    }
    assert_eq!(got.len(), want.len(), "{}", stdout(&out));

    assert_eq!(
        std::fs::read_to_string(workdir.join("rides.json")).unwrap(),
        REFERENCE_CONFIG
    );
    assert!(workdir.join(".ldp_demo").is_file());
    assert!(workdir.join("data/rides.parquet").is_file());
    let csv = std::fs::read_to_string(workdir.join("data/rides.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1001);
    assert!(
        csv.starts_with(
            "\"ride_id\",\"pickup_ts\",\"city\",\"distance_km\",\"fare\"\n\
             1,2024-01-01 00:54:38.000000,\"LDN\",16.17,32.28\n"
        ),
        "{}",
        &csv[..200]
    );
    let export = std::fs::read_to_string(workdir.join("exports/rides.csv")).unwrap();
    assert_eq!(export.lines().count(), 1011);
}

#[test]
fn a_folder_the_demo_did_not_make_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let out = ldp(&["demo", "--workdir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "ldp: error: --workdir {}: the folder is not empty and has no .ldp_demo file, so it \
             was not made by ldp demo and the demo will not write into it; give a new or empty \
             folder (or one an earlier ldp demo made)",
            dir.path().display()
        )
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "nothing was written");
}

#[test]
fn a_demo_folder_is_made_again_and_nothing_else_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |seed: &str| {
        let out = ldp(&[
            "demo",
            "--workdir",
            d.to_str().unwrap(),
            "--rows",
            "20",
            "--seed",
            seed,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    run("7");
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    std::fs::write(d.join("data/stale.csv"), "old").unwrap();
    let text = run("8");
    assert!(
        text.contains("data: 20 synthetic taxi rides over 7 days, seed 8 (same seed, same rides)"),
        "{text}"
    );
    // A new warehouse: the first load is again the first snapshot.
    assert!(
        text.contains("  7 time travel   first snapshot 20 rows, now 30 (2 snapshots)"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(!d.join("data/stale.csv").exists());
    assert!(has_only_demo_files(d));
}

fn has_only_demo_files(d: &Path) -> bool {
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        == [
            ".ldp_demo",
            "data",
            "exports",
            "notes.txt",
            "plugins",
            "rides.json",
            "warehouse",
        ]
}
