//! `ldp ui`: a lake with a stale table, a run blocked by its gate and a table fed by another,
//! served by `ldp ui` and driven in a real headless Chromium (`ui/browser.py`: Debian's chromium
//! and chromium-driver through Selenium, installed by `scripts/test`). The page must flag the
//! stale table and the blocked run, draw a table's snapshots, show its rows at an older
//! snapshot, run a query, and refuse one that writes. The API's access rules (loopback `Host`,
//! token, JSON posts) are checked over plain HTTP.
//!
//! The screenshots go to a temporary folder; with `LDP_BLESS=1` they replace `docs/ui/*.png`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::interop::python;
use super::{ldp, rides_workdir, stderr, stdout};

const SETUP: &str = "run scripts/test, or: apt-get install chromium chromium-driver && .venv/bin/pip install 'selenium==4.50.0'";

/// `ldp ui` on a free loopback port, stopped on drop.
struct Ui {
    child: Child,
    address: String,
}

impl Ui {
    fn start(folder: &Path, token: Option<&str>) -> Ui {
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
        command
            .args(["--cache-dir", cache.to_str().unwrap(), "ui"])
            .arg(folder)
            .args(["--listen", "127.0.0.1:0"])
            .env_remove("LDP_UI_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(token) = token {
            command.env("LDP_UI_TOKEN", token);
        }
        let mut child = command.spawn().expect("ldp ui starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Ui { child, address }
    }

    /// One request; the status, the headers and the body.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String, String) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut text = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            text.push_str(&format!("Host: {}\r\n", self.address));
        }
        for (k, v) in headers {
            text.push_str(&format!("{k}: {v}\r\n"));
        }
        text.push_str("\r\n");
        text.push_str(body);
        stream.write_all(text.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, head.to_string(), body.to_string())
    }

    fn get(&self, path: &str) -> (u16, Value) {
        let (status, _, body) = self.request("GET", path, &[], "");
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A config of `nyc.<name>` loading `source` (a block) with `extra` metadata; runs recorded in
/// the JSONL sink.
fn config(name: &str, source: &str, extra: &str) -> String {
    format!(
        r#"{{"identifier": "{name}", "metadata": {{
  "source": {source},
  "target": {{"name": "{name}", "format": "ICEBERG", "catalog": {{"identifier": "nyc", "warehouse_path": "../warehouse"}}}},
  "observability": {{"sinks": [{{"type": "jsonl", "path": "../.ldp/{name}.jsonl"}}]}}{extra}}}}}"#
    )
}

const CSV: &str = r#"{"name": "rides", "format": "CSV", "path": "../data/rides.csv"}"#;

fn run(file: &Path, code: i32) {
    let out = ldp(&["run", file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The lake: `rides` loaded twice (documented, partitioned by day, fresh), `stale` (its newest
/// row is of 2024), `gated` (its second run blocked by its gate) and `daily`, read from
/// `nyc.rides`.
fn lake() -> tempfile::TempDir {
    let dir = rides_workdir("{}");
    let lake = dir.path().join("lake");
    std::fs::create_dir(&lake).unwrap();
    let write = |file: &str, text: String| {
        let path = lake.join(file);
        std::fs::write(&path, text).unwrap();
        path
    };
    let rides = write(
        "rides.json",
        config("rides", CSV, r#", "monitors": {"freshness": {"max_age": "1h"}},
  "docs": {"description": "Taxi rides, one row per ride.", "columns": {"ride_id": "The ride.", "fare": "What the rider paid, in dollars."}}"#)
            .replace(r#""format": "ICEBERG","#, r#""format": "ICEBERG", "partition_by": [{"column": "pickup_ts", "transform": "month"}],"#),
    );
    run(&rides, 0);
    run(&rides, 0);
    let stale = write(
        "stale.json",
        config(
            "stale",
            CSV,
            r#", "monitors": {"freshness": {"max_age": "26h", "column": "pickup_ts"}}"#,
        ),
    );
    run(&stale, 0);
    let gated = |min: u32| {
        config(
            "gated",
            CSV,
            &format!(
                r#", "quality": {{"on_failure": "fail", "checks": [{{"check": "row_count", "min": {min}}}]}}"#
            ),
        )
    };
    let gated_file = write("gated.json", gated(1));
    run(&gated_file, 0);
    write("gated.json", gated(1000));
    run(&gated_file, 3);
    let daily = write(
        "daily.json",
        config(
            "daily",
            r#"{"name": "rides", "format": "ICEBERG", "catalog": {"identifier": "nyc", "warehouse_path": "../warehouse"}}"#,
            "",
        ),
    );
    run(&daily, 0);
    dir
}

#[test]
fn the_page_flags_a_stale_table_and_a_blocked_run_time_travels_and_refuses_writes() {
    let dir = lake();
    let ui = Ui::start(&dir.path().join("lake"), None);
    let shots = match std::env::var_os("LDP_BLESS") {
        Some(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ui"),
        None => dir.path().join("screenshots"),
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/ui/browser.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(format!("http://{}/", ui.address))
        .arg(&shots)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {SETUP}", script.display()));
    assert!(
        out.status.success(),
        "the browser run failed: {}\n{SETUP}",
        stderr(&out)
    );
    let seen: Value = serde_json::from_str(stdout(&out).trim()).unwrap();

    let flags = |table: &str| seen["home"][table].as_array().cloned().unwrap_or_default();
    assert_eq!(flags("nyc.stale"), ["STALE"], "{seen}");
    assert_eq!(flags("nyc.gated"), ["BLOCKED"], "{seen}");
    assert_eq!(flags("nyc.rides"), ["OK"], "{seen}");
    assert_eq!(flags("nyc.daily"), ["OK"], "{seen}");
    assert_eq!(seen["home_breached"], "1", "{seen}");

    assert_eq!(seen["chart_snapshots"], 2, "{seen}");
    assert_eq!(seen["chart_added_bars"], 2, "{seen}");
    assert_eq!(seen["schema"][0], "ride_id", "{seen}");
    assert_eq!(seen["docs"][0], "The ride.", "{seen}");
    assert_eq!(
        seen["partitions"],
        serde_json::json!(["pickup_ts_month=2024-01"]),
        "{seen}"
    );
    assert_eq!(
        seen["runs"],
        serde_json::json!(["published", "published"]),
        "{seen}"
    );
    assert!(
        seen["downstream"].as_str().unwrap().contains("nyc.daily"),
        "{seen}"
    );
    // The older snapshot had the first load's 20 rows; the table now has 40.
    let oldest = seen["oldest_snapshot"].as_str().unwrap();
    assert!(
        seen["rows_title"].as_str().unwrap().contains(oldest),
        "{seen}"
    );
    assert_eq!(seen["rows_total"], "20", "{seen}");
    assert_eq!(seen["rows_shown"], 20, "{seen}");

    assert!(
        seen["query_summary"]
            .as_str()
            .unwrap()
            .starts_with("4 row(s)"),
        "{seen}"
    );
    assert_eq!(seen["query_rows"][0][0], "BKK", "{seen}");
    assert_eq!(seen["query_chart_bars"], 4, "{seen}");
    let refused = seen["write_refused"].as_str().unwrap();
    assert!(
        refused.contains(
            "only read-only SELECT or WITH queries are allowed; this statement starts with 'DELETE'"
        ),
        "{refused}"
    );
    for shot in ["home.png", "table.png", "sql.png", "sql-refused.png"] {
        let bytes = std::fs::read(shots.join(shot)).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
            "{shot}"
        );
    }
    // Nothing was written: the table still has both loads.
    let (status, table) = ui.get("/api/table?name=nyc.rides");
    assert_eq!(status, 200);
    assert_eq!(table["describe"]["row_count"], 40, "{table}");
    assert_eq!(
        table["lineage"]["downstream"][0]["via"],
        serde_json::json!(["config", "run"]),
        "{table}"
    );
}

#[test]
fn the_api_answers_loopback_hosts_json_posts_and_its_token_only() {
    let dir = lake();
    let folder = dir.path().join("lake");
    let ui = Ui::start(&folder, None);
    let (status, home) = ui.get("/api/home");
    assert_eq!(status, 200, "{home}");
    assert_eq!(home["tables"].as_array().unwrap().len(), 4, "{home}");
    // DNS rebinding: a page elsewhere that names 127.0.0.1 by a name of its own.
    let (status, _, body) = ui.request("GET", "/api/home", &[("Host", "evil.example:80")], "");
    assert_eq!(status, 403, "{body}");
    // A query comes as JSON (a form post from another site cannot).
    let sql = r#"{"sql": "SELECT count(*) AS n FROM nyc.rides"}"#;
    let (status, _, body) =
        ui.request("POST", "/api/query", &[("Content-Type", "text/plain")], sql);
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = ui.request(
        "POST",
        "/api/query",
        &[("Content-Type", "application/json")],
        sql,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""rows":[[40]]"#), "{body}");
    let drop_sql = r#"{"sql": "DROP TABLE nyc.rides"}"#;
    let (status, _, body) = ui.request(
        "POST",
        "/api/query",
        &[("Content-Type", "application/json")],
        drop_sql,
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("QueryRejected"), "{body}");
    let (status, body) = ui.get("/api/table?name=nyc.nope");
    assert_eq!(status, 404, "{body}");
    let (status, body) = ui.get("/api/rows?name=nyc.rides&snapshot=1");
    assert_eq!(status, 404, "{body}");
    let (status, rows) = ui.get("/api/rows?name=nyc.rides&n=5");
    assert_eq!(status, 200, "{rows}");
    assert_eq!(rows["rows"].as_array().unwrap().len(), 5, "{rows}");
    assert_eq!(rows["total_records"], 40, "{rows}");
    let (status, head, _) = ui.request("PUT", "/api/home", &[], "");
    assert_eq!(status, 400, "{head}");
    let (status, head, page) = ui.request("GET", "/", &[], "");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("content-security-policy: default-src 'none'"),
        "{head}"
    );
    assert!(
        page.contains(r#"<script src="/app.js" defer></script>"#),
        "{page}"
    );
    // A load while the page is up shows on the next request: the metadata read before is kept
    // only while the catalog points at the same file.
    run(&folder.join("rides.json"), 0);
    let (_, home) = ui.get("/api/home");
    let rides = home["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "nyc.rides")
        .cloned()
        .unwrap();
    assert_eq!(rides["snapshots"], 3, "{rides}");
    assert_eq!(rides["rows"], 60, "{rides}");
    drop(ui);

    // With a token: nothing without it, a bearer header or the cookie that /?token= sets.
    let token = "a-token-of-20-chars!";
    let ui = Ui::start(&folder, Some(token));
    assert_eq!(ui.get("/api/home").0, 401);
    assert_eq!(ui.get("/").0, 401);
    let bearer = format!("Bearer {token}");
    let (status, _, _) = ui.request("GET", "/api/home", &[("Authorization", &bearer)], "");
    assert_eq!(status, 200);
    let (status, _, _) = ui.request("GET", "/?token=wrong-token-of-20-chars", &[], "");
    assert_eq!(status, 401);
    let (status, head, _) = ui.request(
        "GET",
        &format!("/?token={}", token.replace('!', "%21")),
        &[],
        "",
    );
    assert_eq!(status, 303, "{head}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_else(|| panic!("no cookie: {head}"));
    assert!(cookie.contains("HttpOnly; SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().unwrap();
    let (status, _, _) = ui.request("GET", "/api/home", &[("Cookie", pair)], "");
    assert_eq!(status, 200);
    drop(ui);

    // Beyond loopback without a token: refused before anything is served.
    let out = ldp(&["ui", folder.to_str().unwrap(), "--listen", "0.0.0.0:0"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("LDP_UI_TOKEN"), "{}", stderr(&out));
}
