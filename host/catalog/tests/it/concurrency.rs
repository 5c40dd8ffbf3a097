//! Writers racing on one table with read-modify-CAS loops: every commit lands exactly once and
//! none is lost.
//!
//! Each writer reads the current metadata location, whose first field counts the commits so far,
//! and commits the next count. A lost update would make two commits share a count, so the final
//! count would fall short of the number of successful commits.

use ldp_catalog::{Catalog, ErrorKind, Mode};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const COMMITS_PER_WRITER: usize = 100;
const CHILD_DB: &str = "LDP_CATALOG_TEST_CHILD_DB";
const CHILD_WRITER: &str = "LDP_CATALOG_TEST_CHILD_WRITER";
const CHILD_GO: &str = "LDP_CATALOG_TEST_CHILD_GO";

fn location(count: usize, writer: &str, i: usize) -> String {
    format!("file:///w/ns/t/metadata/{count:06}-{writer}-{i}.metadata.json")
}

fn count_of(location: &str) -> usize {
    let name = location.rsplit('/').next().unwrap_or_default();
    name.split('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{location}"))
}

/// Commits `COMMITS_PER_WRITER` times, retrying conflicts and busy errors; returns the locations
/// it committed and how many conflicts it saw.
fn cas_loop(file: &Path, writer: &str) -> (Vec<String>, usize) {
    let catalog = Catalog::open(file, "c", Mode::ReadWrite).expect("open");
    let mut committed = Vec::new();
    let mut conflicts = 0;
    for i in 0..COMMITS_PER_WRITER {
        loop {
            let current = match catalog.load_table("ns", "t") {
                Ok(Some(record)) => record.metadata_location,
                Ok(None) => panic!("table vanished"),
                Err(e) if e.is_retryable() => continue,
                Err(e) => panic!("{e}"),
            };
            let next = location(count_of(&current) + 1, writer, i);
            // Where the table layer writes the new metadata file: widens the race window.
            std::thread::sleep(std::time::Duration::from_micros(
                2000 * ((i + usize::from(writer.as_bytes()[0])) % 4) as u64,
            ));
            match catalog.commit("ns", "t", &current, &next) {
                Ok(()) => {
                    committed.push(next);
                    break;
                }
                Err(e) if e.kind() == ErrorKind::CommitConflict => conflicts += 1,
                Err(e) if e.is_retryable() => {}
                Err(e) => panic!("{e}"),
            }
        }
    }
    (committed, conflicts)
}

fn new_table() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c_catalog.db");
    let c = Catalog::open(&file, "c", Mode::Create).unwrap();
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", &location(0, "init", 0)).unwrap();
    (dir, file)
}

fn check(file: &Path, committed: &[String]) {
    let total = committed.len();
    let counts: BTreeSet<usize> = committed.iter().map(|l| count_of(l)).collect();
    assert_eq!(
        counts.len(),
        total,
        "two commits shared a count: an update was lost"
    );
    assert_eq!(counts, (1..=total).collect(), "counts are 1..=commits");
    let c = Catalog::open(file, "c", Mode::ReadOnly).unwrap();
    let last = c.load_table("ns", "t").unwrap().unwrap();
    assert_eq!(count_of(&last.metadata_location), total);
    assert!(committed.contains(&last.metadata_location));
    let previous = last.previous_metadata_location.unwrap();
    assert_eq!(count_of(&previous), total - 1);
    assert!(committed.contains(&previous));
}

#[test]
fn two_threads() {
    let (_dir, file) = new_table();
    let handles: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|w| {
            let file = file.clone();
            std::thread::spawn(move || cas_loop(&file, w))
        })
        .collect();
    let mut committed = Vec::new();
    let mut conflicts = 0;
    for h in handles {
        let (mine, theirs) = h.join().unwrap();
        assert_eq!(mine.len(), COMMITS_PER_WRITER);
        committed.extend(mine);
        conflicts += theirs;
    }
    check(&file, &committed);
    eprintln!("two threads: {conflicts} conflicts retried");
    assert!(
        conflicts > 0,
        "the writers never raced; the test proves nothing"
    );
}

#[test]
fn two_processes() {
    let (_dir, file) = new_table();
    let exe = std::env::current_exe().unwrap();
    // The children start their loops together, once both are running and this file exists.
    let go = file.with_file_name("go");
    let children: Vec<_> = ["p", "q"]
        .into_iter()
        .map(|w| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "concurrency::child_cas_loop",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_DB, &file)
                .env(CHILD_WRITER, w)
                .env(CHILD_GO, &go)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::fs::write(&go, b"").unwrap();
    let mut committed = Vec::new();
    let mut conflicts = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "child failed");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let mine: Vec<String> = stdout
            .lines()
            // libtest may print its "test … " prefix on the first line.
            .filter_map(|l| l.split_once("COMMITTED ").map(|(_, loc)| loc.to_string()))
            .collect();
        assert_eq!(mine.len(), COMMITS_PER_WRITER, "{stdout}");
        conflicts += stdout
            .lines()
            .find_map(|l| {
                l.split_once("CONFLICTS ")
                    .map(|(_, n)| n.trim().parse::<usize>())
            })
            .expect("the child reports its conflicts")
            .unwrap();
        committed.extend(mine);
    }
    check(&file, &committed);
    eprintln!("two processes: {conflicts} conflicts retried");
    assert!(
        conflicts > 0,
        "the processes never raced; the test proves nothing"
    );
}

/// The body of one process of [`two_processes`]; does nothing in a normal test run.
#[test]
fn child_cas_loop() {
    let (Ok(file), Ok(writer), Ok(go)) = (
        std::env::var(CHILD_DB),
        std::env::var(CHILD_WRITER),
        std::env::var(CHILD_GO),
    ) else {
        return;
    };
    let started = std::time::Instant::now();
    while !Path::new(&go).exists() {
        assert!(started.elapsed().as_secs() < 60, "no go signal");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let (committed, conflicts) = cas_loop(Path::new(&file), &writer);
    for l in committed {
        println!("COMMITTED {l}");
    }
    println!("CONFLICTS {conflicts}");
}

/// Two processes creating the same new catalog and namespace at once: one creates, neither fails.
#[test]
fn racing_creates() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("new").join("c_catalog.db");
    let created: Vec<bool> = (0..4)
        .map(|_| {
            let file = file.clone();
            std::thread::spawn(move || {
                let c = Catalog::open(&file, "c", Mode::Create).unwrap();
                c.create_namespace_if_missing("ns").unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert_eq!(created.iter().filter(|c| **c).count(), 1);
}
