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
        Cluster::start_with(|_| {})
    }

    /// A cluster whose processes get what `env` sets on their commands (the AWS environment).
    fn start_with(env: impl Fn(&mut Command)) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let url = format!("df://127.0.0.1:{port}");
        let mut servers = Vec::new();
        let mut scheduler = server(&["scheduler", "--bind", &format!("127.0.0.1:{port}")]);
        env(&mut scheduler);
        servers.push((
            "scheduler",
            Watched::spawn(&scheduler, &dir.path().join("scheduler.log")),
        ));
        wait_for(&mut servers, || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        for (name, n) in [("executor 1", 1), ("executor 2", 2)] {
            let work = dir.path().join(format!("work{n}"));
            let mut executor = server(&[
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
            env(&mut executor);
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

    /// Kills the server named `name` (kill -9).
    fn kill(&mut self, name: &str) {
        let (_, server) = self
            .servers
            .iter_mut()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no server named {name}"));
        server.kill();
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

/// A count over a five-way cross join of the rides (40^5 rows): long enough to be running when
/// a test stops it.
const CROSS_JOIN: &str = "SELECT count(*) AS n FROM rides a, rides b, rides c, rides d, rides e WHERE a.fare + b.fare + c.fare + d.fare + e.fare > 0";

/// The rows of [`CROSS_JOIN`]: every fare is positive.
const CROSS_JOIN_ROWS: u64 = 40 * 40 * 40 * 40 * 40;

/// A table on `s3://` (moto): the client reads its metadata, the scheduler and the executors
/// open the bucket from their own environment, and the plan carries only the files' names.
#[test]
fn a_cluster_query_over_a_table_on_s3_gives_the_local_rows() {
    let moto = super::s3::Moto::start();
    let dir = tempfile::tempdir().unwrap();
    moto.boto(&["put", "lake", "drops/rides.csv", rides().to_str().unwrap()]);
    super::s3::write(
        dir.path(),
        "load.json",
        serde_json::json!({"identifier": "rides", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "s3://lake/drops/rides.csv"},
            "target": super::s3::s3_table_block(dir.path(), "append")}}),
    );
    for _ in 0..2 {
        let out = moto.ldp(dir.path(), &["run", "load.json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let cluster = Cluster::start_with(|command| moto.aws_env(command));
    let sql = "SELECT city, count(*) AS n, round(sum(fare), 2) AS fares FROM rides GROUP BY city ORDER BY city";
    let local = json_of(
        &moto.ldp(dir.path(), &["query", "load.json", sql, "--json"]),
        "local",
    );
    let remote = json_of(
        &moto.ldp(
            dir.path(),
            &[
                "query",
                "load.json",
                sql,
                "--json",
                "--cluster",
                &cluster.url,
            ],
        ),
        "cluster",
    );
    assert_eq!(remote, local, "{}", cluster.logs());
    assert_eq!(remote["files_scanned"], 2, "{remote}");
    let rows: u64 = remote["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["n"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, 40, "{remote}");
}

/// `--timeout` on a cluster: the query stops within twice its limit with a timeout error, and
/// its jobs are cancelled on the scheduler, so the executors' task slots are free for the next
/// query.
#[test]
fn a_cluster_query_past_its_time_limit_stops_and_frees_the_executors() {
    let dir = tempfile::tempdir().unwrap();
    lake(dir.path());
    let cluster = Cluster::start();
    let config = dir.path().join("rides.json");
    let config = config.to_str().unwrap();
    let started = Instant::now();
    let out = ldp(&[
        "query",
        config,
        CROSS_JOIN,
        "--cluster",
        &cluster.url,
        "--timeout",
        "3",
    ]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("longer than its time limit of 3 s"),
        "{}",
        stderr(&out)
    );
    // 2x the limit, plus the client's start (reading the table's metadata) in a debug build.
    assert!(took < Duration::from_secs(6 + 4), "took {took:?}");
    let next = ldp(&[
        "query",
        config,
        "SELECT count(*) AS n FROM rides",
        "--json",
        "--cluster",
        &cluster.url,
        "--timeout",
        "60",
    ]);
    let next = json_of(&next, "the next query");
    assert_eq!(next["rows"][0]["n"], 40, "{next}\n{}", cluster.logs());
}

/// An executor killed (kill -9) while a query runs on it: the query completes on the other
/// executor with every row, or fails with a clear error; either way within its time limit.
#[test]
fn a_killed_executor_fails_the_query_or_it_completes_within_its_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    lake(dir.path());
    let mut cluster = Cluster::start();
    let config = dir.path().join("rides.json");
    let args = [
        "query".to_string(),
        config.to_str().unwrap().to_string(),
        CROSS_JOIN.to_string(),
        "--json".to_string(),
        "--cluster".to_string(),
        cluster.url.clone(),
        "--timeout".to_string(),
        "30".to_string(),
    ];
    let started = Instant::now();
    let query = std::thread::spawn(move || {
        Command::new(env!("CARGO_BIN_EXE_ldp"))
            .args(&args)
            .output()
            .expect("run ldp")
    });
    // Once the query's tasks run on both executors.
    std::thread::sleep(Duration::from_secs(3));
    cluster.kill("executor 2");
    let out = query.join().expect("the query's thread");
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(30 + 15),
        "took {took:?}\n{}",
        cluster.logs()
    );
    match out.status.code() {
        Some(0) => {
            let doc = json_of(&out, "the query");
            assert_eq!(doc["rows"][0]["n"], CROSS_JOIN_ROWS, "{doc}");
        }
        Some(1) => {
            let err = stderr(&out);
            assert!(
                (err.contains("query failed") || err.contains("time limit"))
                    && !err.contains("panicked"),
                "{err}"
            );
        }
        other => panic!("exit {other:?}\n{}\n{}", stderr(&out), cluster.logs()),
    }
}

/// The jobs the scheduler ran for `ldp` clients (`ldp cluster status --json`).
fn client_jobs(cluster: &Cluster) -> usize {
    let status = json_of(
        &ldp(&["cluster", "status", &cluster.url, "--json"]),
        "cluster status",
    );
    status["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs in {status}"))
        .iter()
        .filter(|job| {
            job["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("ldp-query-"))
        })
        .count()
}

/// `LDP_CLUSTER`, the lake's cluster: `ldp mcp` (or its `--cluster`) and a workflow's `sql`
/// task run their queries on it, as jobs of the scheduler, and give the local rows.
#[test]
fn ldp_cluster_runs_mcp_queries_and_sql_tasks_on_the_cluster() {
    let dir = super::mcp::lake();
    let cluster = Cluster::start();
    let calls = serde_json::json!([
        ["query", {"sql": "SELECT d.category, count(*) AS n, sum(o.amount) AS revenue FROM shop.orders o JOIN dishes d ON o.dish = d.dish GROUP BY d.category ORDER BY d.category"}],
    ]);
    let local = super::mcp::session(dir.path(), &calls, &["--config", "."]);
    assert_eq!(client_jobs(&cluster), 0);
    let remote = super::mcp::session(
        dir.path(),
        &calls,
        &["--config", ".", "--cluster", &cluster.url],
    );
    assert_eq!(
        remote["calls"][0]["result"]["rows"],
        local["calls"][0]["result"]["rows"],
        "{remote}\n{}",
        cluster.logs()
    );
    assert_eq!(remote["calls"][0]["is_error"], false, "{remote}");
    assert_eq!(client_jobs(&cluster), 1);

    // A sql task of a workflow (over the workflow's tables: the orders its pipeline task
    // loads, already published for this night), with the cluster in LDP_CLUSTER.
    std::fs::write(
        dir.path().join("revenue.json"),
        serde_json::to_vec(&serde_json::json!({"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "revenue",
            "metadata": {"window": {"size": "day", "timezone": "Europe/Paris"}},
            "tasks": [{"id": "orders", "pipeline": "daily_orders.json"},
                      {"id": "by_dish", "depends_on": ["orders"],
                "sql": {"query": "SELECT dish, count(*) AS orders, sum(amount) AS revenue FROM shop.orders GROUP BY dish",
                        "target": {"name": "revenue_by_dish", "format": "ICEBERG",
                                   "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}]}))
        .unwrap(),
    )
    .unwrap();
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
    let out = Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir.path())
        .env("LDP_CLUSTER", &cluster.url)
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args([
            "workflow",
            "run",
            "revenue.json",
            "--window",
            "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out, "workflow run");
    assert_eq!(doc["tasks"][0]["status"], "skipped_duplicate", "{doc}");
    assert_eq!(doc["tasks"][1]["status"], "published", "{doc}");
    assert_eq!(client_jobs(&cluster), 2, "{}", cluster.logs());
    std::fs::write(
        dir.path().join("model.json"),
        r#"{"identifier": "model", "metadata": {
            "source": {"name": "x", "format": "CSV", "path": "dishes.csv"},
            "target": {"name": "revenue_by_dish", "format": "ICEBERG",
                       "catalog": {"identifier": "shop", "warehouse_path": "warehouse"}}}}"#,
    )
    .unwrap();
    let model = ldp(&[
        "query",
        dir.path().join("model.json").to_str().unwrap(),
        "SELECT sum(orders) AS orders FROM revenue_by_dish",
        "--json",
        "--cluster",
        "local",
    ]);
    let model = json_of(&model, "the model");
    assert_eq!(model["rows"][0]["orders"], 9, "{model}");
    assert_eq!(client_jobs(&cluster), 2);

    // LDP_CLUSTER that is not a cluster URL stops a run before anything happens.
    let out = Command::new(env!("CARGO_BIN_EXE_ldp"))
        .current_dir(dir.path())
        .env("LDP_CLUSTER", "http://nope:1")
        .args([
            "workflow",
            "run",
            "revenue.json",
            "--window",
            "2026-08-01/2026-08-02",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("LDP_CLUSTER"), "{}", stderr(&out));
}
