//! Writers racing on one table with read-modify-CAS loops, each on its own connection: every
//! commit lands exactly once and none is lost.
//!
//! Each writer reads the current metadata location, whose first field counts the commits so far,
//! and commits the next count. A lost update would make two commits share a count, so the final
//! count would fall short of the number of successful commits.

use ldp_catalog::{Catalog, CatalogAddress, ErrorKind, Mode, PostgresAddress};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Engine, Place};
use ldp_test_servers::postgres::PASSWORD;

on_both_engines!(eight_threads, two_processes, racing_creates);

const COMMITS_PER_WRITER: usize = 100;
/// The child's catalog: a SQLite file, or a PostgreSQL URI (the password is in `CHILD_PASSWORD`).
const CHILD_DB: &str = "LDP_CATALOG_TEST_CHILD_DB";
const CHILD_PASSWORD: &str = "LDP_CATALOG_TEST_CHILD_PASSWORD";
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
fn cas_loop(address: &CatalogAddress, writer: &str) -> (Vec<String>, usize) {
    let catalog = Catalog::connect(address, "c", Mode::ReadWrite).expect("open");
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

fn new_table(engine: Engine) -> Place {
    let place = Place::new(engine, "c");
    let c = place.open("c", Mode::Create).unwrap();
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", &location(0, "init", 0)).unwrap();
    place
}

fn check(address: &CatalogAddress, committed: &[String]) {
    let total = committed.len();
    let counts: BTreeSet<usize> = committed.iter().map(|l| count_of(l)).collect();
    assert_eq!(
        counts.len(),
        total,
        "two commits shared a count: an update was lost"
    );
    assert_eq!(counts, (1..=total).collect(), "counts are 1..=commits");
    let c = Catalog::connect(address, "c", Mode::ReadOnly).unwrap();
    let last = c.load_table("ns", "t").unwrap().unwrap();
    assert_eq!(count_of(&last.metadata_location), total);
    assert!(committed.contains(&last.metadata_location));
    let previous = last.previous_metadata_location.unwrap();
    assert_eq!(count_of(&previous), total - 1);
    assert!(committed.contains(&previous));
}

/// `writers` threads, each with its own connection, commit `COMMITS_PER_WRITER` times each.
fn threads(engine: Engine, writers: &[&'static str]) {
    let place = new_table(engine);
    let address = place.address();
    let handles: Vec<_> = writers
        .iter()
        .map(|&w| {
            let address = address.clone();
            std::thread::spawn(move || cas_loop(&address, w))
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
    check(&address, &committed);
    eprintln!(
        "{engine:?}, {} threads: {conflicts} conflicts retried",
        writers.len()
    );
    assert!(
        conflicts > 0,
        "the writers never raced; the test proves nothing"
    );
}

#[test]
fn two_threads() {
    threads(Engine::Sqlite, &["a", "b"]);
}

fn eight_threads(engine: Engine) {
    threads(engine, &["a", "b", "c", "d", "e", "f", "g", "h"]);
}

fn two_processes(engine: Engine) {
    let place = new_table(engine);
    let address = place.address();
    let child_db = match engine {
        Engine::Sqlite => place.file.display().to_string(),
        Engine::Postgres => place.uri(),
    };
    let exe = std::env::current_exe().unwrap();
    // The children start their loops together, once both are running and this file exists.
    let signals = tempfile::tempdir().unwrap();
    let go = signals.path().join("go");
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
                .env(CHILD_DB, &child_db)
                .env(CHILD_PASSWORD, PASSWORD)
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
    check(&address, &committed);
    eprintln!("{engine:?}, two processes: {conflicts} conflicts retried");
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
    let address = if PostgresAddress::is_postgres_uri(&file) {
        let password = std::env::var(CHILD_PASSWORD).expect("the password");
        CatalogAddress::Postgres(PostgresAddress::parse(&file, Some(&password)).unwrap())
    } else {
        CatalogAddress::Sqlite(PathBuf::from(file))
    };
    let (committed, conflicts) = cas_loop(&address, &writer);
    for l in committed {
        println!("COMMITTED {l}");
    }
    println!("CONFLICTS {conflicts}");
}

/// Four connections creating the same new catalog and namespace at once: one creates the
/// namespace, none fails.
fn racing_creates(engine: Engine) {
    let place = Place::new(engine, "c");
    let address = match engine {
        // In a folder that does not exist yet.
        Engine::Sqlite => CatalogAddress::Sqlite(
            place
                .file
                .parent()
                .unwrap()
                .join("new")
                .join("c_catalog.db"),
        ),
        Engine::Postgres => place.address(),
    };
    let created: Vec<bool> = (0..4)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                let c = Catalog::connect(&address, "c", Mode::Create).unwrap();
                c.create_namespace_if_missing("ns").unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert_eq!(created.iter().filter(|c| **c).count(), 1);
}
