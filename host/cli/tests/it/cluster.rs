//! `ldp query --cluster`: a scheduler and two executors, each an `ldp cluster …` process on
//! loopback ports, give exactly the rows of the local query: joins, aggregates, ORDER BY, time
//! travel. Every server runs under a watchdog, so it stops with the test, even on a panic.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ldp_test_servers::watchdog::Watched;

use super::{ldp, rides, stderr, stdout};

/// How long the cluster may take to have both executors registered.
const STARTUP: Duration = Duration::from_secs(60);

const RIDES: &str = r#"{
  "apiVersion": "ldp/v1",
  "identifier": "rides",
  "metadata": {
    "source": {"name": "rides", "format": "CSV", "path": "data/rides.csv"},
    "target": {"name": "rides", "format": "ICEBERG",
               "catalog": {"identifier": "nyc", "warehouse_path": "warehouse"}}
  }
}"#;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// One scheduler and two executors; dropping it stops them.
struct Cluster {
    url: String,
    servers: Vec<(&'static str, Watched)>,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let url = format!("df://127.0.0.1:{port}");
        let mut servers = Vec::new();
        let scheduler = server(&["scheduler", "--bind", &format!("127.0.0.1:{port}")]);
        servers.push((
            "scheduler",
            Watched::spawn(&scheduler, &dir.path().join("scheduler.log")),
        ));
        wait_for(&mut servers, || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        for (name, n) in [("executor 1", 1), ("executor 2", 2)] {
            let work = dir.path().join(format!("work{n}"));
            let executor = server(&[
                "executor",
                "--scheduler",
                &url,
                "--bind",
                &format!("127.0.0.1:{}", free_port()),
                "--grpc-port",
                &free_port().to_string(),
                "--work-dir",
                work.to_str().unwrap(),
                "--concurrent-tasks",
                "2",
            ]);
            servers.push((
                name,
                Watched::spawn(&executor, &dir.path().join(format!("executor{n}.log"))),
            ));
        }
        let status_url = url.clone();
        wait_for(&mut servers, move || {
            let out = ldp(&["cluster", "status", &status_url, "--json"]);
            out.status.success()
                && serde_json::from_slice::<serde_json::Value>(&out.stdout)
                    .is_ok_and(|doc| doc["executors"].as_array().is_some_and(|e| e.len() == 2))
        });
        Cluster {
            url,
            servers,
            _dir: dir,
        }
    }

    fn logs(&self) -> String {
        logs(&self.servers)
    }
}

fn server(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
    command.arg("cluster").args(args);
    command
}

fn logs(servers: &[(&'static str, Watched)]) -> String {
    servers
        .iter()
        .map(|(name, server)| format!("--- {name}:\n{}", server.log()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until `ready`, failing with the servers' logs when one of them ended or after
/// [`STARTUP`].
fn wait_for(servers: &mut [(&'static str, Watched)], mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + STARTUP;
    loop {
        if ready() {
            return;
        }
        if let Some(name) = servers
            .iter_mut()
            .find_map(|(name, s)| s.ended().then_some(*name))
        {
            panic!("the {name} ended\n{}", logs(servers));
        }
        assert!(
            Instant::now() < deadline,
            "the cluster did not start within {STARTUP:?}\n{}",
            logs(servers)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn json_of(out: &Output, what: &str) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", stdout(out)))
}

/// A lake of two tables in `dir`: nyc.rides (the rides appended twice: two data files, two
/// snapshots) and nyc.copy (once).
fn lake(dir: &Path) {
    std::fs::create_dir(dir.join("data")).unwrap();
    std::fs::copy(rides(), dir.join("data/rides.csv")).unwrap();
    std::fs::write(dir.join("rides.json"), RIDES).unwrap();
    let copy = RIDES
        .replace("\"identifier\": \"rides\"", "\"identifier\": \"copy\"")
        .replace(
            "\"name\": \"rides\", \"format\": \"ICEBERG\"",
            "\"name\": \"copy\", \"format\": \"ICEBERG\"",
        );
    std::fs::write(dir.join("copy.json"), copy).unwrap();
    for config in ["rides.json", "rides.json", "copy.json"] {
        let out = ldp(&["run", dir.join(config).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

#[test]
fn a_cluster_query_gives_the_rows_of_the_local_query() {
    let dir = tempfile::tempdir().unwrap();
    lake(dir.path());
    let cluster = Cluster::start();
    let folder = dir.path().to_str().unwrap();
    let rides_config = dir.path().join("rides.json");
    let rides_config = rides_config.to_str().unwrap();

    let same = |args: &[&str], what: &str| -> serde_json::Value {
        let local = json_of(&ldp(args), what);
        let mut remote_args = args.to_vec();
        remote_args.extend(["--cluster", cluster.url.as_str()]);
        let remote = json_of(&ldp(&remote_args), what);
        assert_eq!(remote, local, "{what}\n{}", cluster.logs());
        local
    };

    // A join of two tables, aggregated.
    let join = same(
        &[
            "query",
            folder,
            "SELECT r.city, count(*) AS n, round(sum(c.fare), 2) AS fares FROM nyc.rides r JOIN copy c ON r.ride_id = c.ride_id GROUP BY r.city ORDER BY r.city",
            "--json",
        ],
        "join",
    );
    assert!(join["row_count"].as_u64().unwrap() > 1, "{join}");
    let pairs: u64 = join["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["n"].as_u64().unwrap())
        .sum();
    assert_eq!(
        pairs, 40,
        "each ride of copy meets its two rows of rides: {join}"
    );
    assert_eq!(join["files_scanned"], 3, "{join}");

    // An aggregate over both data files of one table.
    let aggregate = same(
        &[
            "query",
            folder,
            "SELECT city, count(*) AS rides, round(avg(fare), 2) AS avg_fare, min(pickup_ts) AS first, max(distance_km) AS longest FROM nyc.rides GROUP BY city ORDER BY city",
            "--json",
        ],
        "aggregate",
    );
    assert_eq!(
        aggregate["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rides"].as_u64().unwrap())
            .sum::<u64>(),
        40
    );

    // Rows in ORDER BY order, cut by --max-rows (the count still sees every row).
    let ordered = same(
        &[
            "query",
            folder,
            "SELECT ride_id, city, fare FROM nyc.rides ORDER BY fare DESC, ride_id",
            "--json",
            "--max-rows",
            "7",
        ],
        "order by",
    );
    assert_eq!(ordered["row_count"], 40);
    assert_eq!(ordered["truncated"], true);
    assert_eq!(ordered["rows"].as_array().unwrap().len(), 7);

    // Time travel: the first snapshot of rides has one data file and 20 rows.
    let snapshots = json_of(&ldp(&["snapshots", rides_config, "--json"]), "snapshots");
    let first = snapshots["snapshots"]
        .as_array()
        .and_then(|s| s.first())
        .and_then(|s| s["snapshot_id"].as_i64())
        .unwrap_or_else(|| panic!("no snapshot id in {snapshots}"))
        .to_string();
    let then = same(
        &[
            "query",
            rides_config,
            "SELECT count(*) AS n, round(sum(fare), 2) AS fares FROM rides",
            "--snapshot",
            &first,
            "--json",
        ],
        "--snapshot",
    );
    assert_eq!(then["rows"][0]["n"], 20, "{then}");
    assert_eq!(then["files_scanned"], 1, "{then}");

    // The table output is the local one too.
    let sql = "SELECT city, count(*) AS n FROM rides GROUP BY city ORDER BY n DESC, city";
    let local = ldp(&["query", rides_config, sql]);
    let remote = ldp(&["query", rides_config, sql, "--cluster", &cluster.url]);
    assert_eq!(remote.status.code(), Some(0), "{}", stderr(&remote));
    assert_eq!(stdout(&remote), stdout(&local));

    // The read-only guard holds on the cluster path.
    let refused = ldp(&[
        "query",
        rides_config,
        "DROP TABLE rides",
        "--cluster",
        &cluster.url,
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
}

#[test]
fn a_cluster_nobody_runs_is_an_error_that_says_what_to_start() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rides.json"), RIDES).unwrap();
    let url = format!("df://127.0.0.1:{}", free_port());
    let out = ldp(&[
        "query",
        dir.path().join("rides.json").to_str().unwrap(),
        "SELECT 1",
        "--cluster",
        &url,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("cannot reach the scheduler at {url}"))
            && err.contains("ldp cluster scheduler"),
        "{err}"
    );
    let out = ldp(&["query", "x.json", "SELECT 1", "--cluster", "http://h:1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("df://HOST:PORT"), "{}", stderr(&out));
}
