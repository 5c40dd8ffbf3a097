//! Network as a capability: a source plugin file granted `"net":
//! ["127.0.0.1:PORT"]` pages through a JSON API served here and loads every page into an Iceberg
//! table; the same plugin without the grant, or granted another host, is refused with an error
//! that names the host it asked for, and nothing is written.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{ldp, stderr, stdout};

/// Serves `GET /users?page=N` on 127.0.0.1: three pages of 2 users, then `[]`. Returns the port
/// and the count of requests served.
fn serve_pages() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let counter = served.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let page: u32 = request_line
                .split("page=")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let body = if (1..=3).contains(&page) {
                let first = (page - 1) * 2 + 1;
                format!(
                    r#"[{{"id": {first}, "name": "user {first}", "score": {}.5}}, {{"id": {}, "name": "user {}", "score": null}}]"#,
                    first * 10,
                    first + 1,
                    first + 1
                )
            } else {
                "[]".to_string()
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, served)
}

fn workdir(port: u16, grant: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("plugins")).unwrap();
    std::fs::copy(
        ldp_builtin_plugins::testing::component_path("http-pages"),
        dir.path().join("plugins/pages.wasm"),
    )
    .unwrap();
    let config = format!(
        r#"{{"identifier": "users", "metadata": {{
  "source": {{"name": "users", "format": "JSON", "plugin": "plugins/pages.wasm",
              "config": {{"url": "http://127.0.0.1:{port}/users",
                          "columns": {{"id": "int64", "name": "string", "score": "double"}}}},
              "grants": {{"net": [{grant}]}}}},
  "target": {{"name": "users", "format": "ICEBERG",
             "catalog": {{"identifier": "api", "warehouse_path": "warehouse"}}}}}}}}"#
    );
    std::fs::write(dir.path().join("users.json"), config).unwrap();
    dir
}

fn config(dir: &Path) -> String {
    dir.join("users.json").display().to_string()
}

#[test]
fn a_source_plugin_granted_the_host_loads_every_page() {
    let (port, served) = serve_pages();
    let dir = workdir(port, &format!("\"127.0.0.1:{port}\""));
    let plan = ldp(&["plan", &config(dir.path())]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    assert!(
        stdout(&plan).contains(&format!(
            "source metadata.source {}",
            dir.path().join("plugins/pages.wasm").display()
        )) && stdout(&plan).contains(&format!("grants: net 127.0.0.1:{port}")),
        "{}",
        stdout(&plan)
    );
    let out = ldp(&["run", &config(dir.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("read 6 rows, wrote 6 rows"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        served.load(Ordering::SeqCst),
        4,
        "three pages and the empty one"
    );
    let query = ldp(&[
        "query",
        &config(dir.path()),
        "SELECT count(*) AS n, sum(id) AS ids, sum(score) AS scores FROM users",
    ]);
    let text = stdout(&query);
    assert!(
        text.contains("6") && text.contains("21") && text.contains("91.5"),
        "{text}"
    );
}

#[test]
fn without_the_grant_the_request_is_refused_and_nothing_is_written() {
    let (port, served) = serve_pages();
    for grant in ["", "\"api.example.com:443\""] {
        let dir = workdir(port, grant);
        let out = ldp(&["run", &config(dir.path())]);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "network: it sent an HTTP request to 127.0.0.1:{port}, which it was not granted"
            )),
            "{err}"
        );
        assert!(!dir.path().join("warehouse/api/users").exists());
    }
    assert_eq!(
        served.load(Ordering::SeqCst),
        0,
        "no request reached the server"
    );
}
