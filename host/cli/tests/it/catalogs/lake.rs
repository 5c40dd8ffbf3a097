//! The working folder of one end-to-end test on one catalog type: the rides, the catalog block
//! every config of it uses, the environment `ldp` gets, and the server behind the catalog
//! (stopped with the lake).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ldp_test_servers::moto::{self, Moto};
use ldp_test_servers::rustberg::{Rustberg, free_port};
use ldp_test_servers::watchdog::Watched;
use serde_json::{Value, json};

use crate::{files_under, rides, stderr, stdout};

/// The variable the PostgreSQL catalogs' `password_env` names.
pub(crate) const PASSWORD_ENV: &str = "LDP_TEST_CATALOG_PASSWORD";
/// The variable the REST catalogs' `token_env` names.
pub(crate) const TOKEN_ENV: &str = "LDP_TEST_REST_TOKEN";
/// The token `ldp catalog serve` asks for.
pub(crate) const SERVE_TOKEN: &str = "serve-Secret-Token-9";
/// The bucket of a Glue lake's warehouse.
const BUCKET: &str = "lake";

/// A catalog type the suite runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `{"identifier": "nyc", "warehouse_path": "warehouse"}`.
    Local,
    /// `{"type": "sql", "uri": "postgresql://…", "password_env": …, "warehouse": "warehouse"}`.
    Postgres,
    /// `{"type": "rest", "uri": "http://…", "token_env": …}` on rustberg, a third-party Iceberg
    /// REST catalog (a server per test).
    Rest,
    /// A `rest` block on `ldp catalog serve` (a process per test) over a local catalog.
    Serve,
    /// `{"type": "glue", "warehouse": "s3://lake/wh"}` on moto (a server per test: Glue and the
    /// bucket).
    Glue,
}

/// The server a lake's catalog lives in, stopped with the lake.
enum Peer {
    None,
    Rustberg(Rustberg),
    Serve { _server: Watched },
    Moto(Moto),
}

/// A working folder with the rides and one catalog block every config of it uses.
pub(crate) struct Lake {
    dir: tempfile::TempDir,
    pub(crate) kind: Kind,
    pub(crate) catalog: Value,
    pub(crate) env: Vec<(&'static str, String)>,
    peer: Peer,
}

impl Lake {
    pub(crate) fn new(kind: Kind, label: &str) -> Lake {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::copy(rides(), dir.path().join("data/rides.csv")).unwrap();
        let mut lake = Lake {
            dir,
            kind,
            catalog: json!({"identifier": "nyc", "warehouse_path": "warehouse"}),
            env: Vec::new(),
            peer: Peer::None,
        };
        match kind {
            Kind::Local => {}
            Kind::Postgres => {
                let server = ldp_test_servers::postgres::server();
                let database = server.new_database(label);
                lake.catalog = json!({"type": "sql", "name": "lake", "namespace": "nyc",
                                      "uri": server.uri(&database),
                                      "password_env": PASSWORD_ENV, "warehouse": "warehouse"});
                let password = ldp_test_servers::postgres::PASSWORD.to_string();
                lake.env.push((PASSWORD_ENV, password));
            }
            Kind::Rest => {
                let server = Rustberg::start();
                lake.catalog = json!({"type": "rest", "name": "lake", "namespace": "nyc",
                                      "uri": server.uri, "token_env": TOKEN_ENV});
                let token = ldp_test_servers::rustberg::TOKEN.to_string();
                lake.env.push((TOKEN_ENV, token));
                lake.peer = Peer::Rustberg(server);
            }
            Kind::Serve => {
                lake.env.push((TOKEN_ENV, SERVE_TOKEN.to_string()));
                let (uri, server) = lake.serve(&[]);
                lake.catalog = json!({"type": "rest", "name": "lake", "namespace": "nyc",
                                      "uri": uri, "token_env": TOKEN_ENV});
                lake.peer = Peer::Serve { _server: server };
            }
            Kind::Glue => {
                let server = Moto::start(moto::Mode::GlueLock);
                moto::boto(&server, &format!("s3.create_bucket(Bucket='{BUCKET}')"));
                lake.catalog = json!({"type": "glue", "name": "lake", "namespace": "nyc",
                                      "warehouse": format!("s3://{BUCKET}/wh")});
                lake.env.extend(aws_env(&server));
                lake.peer = Peer::Moto(server);
            }
        }
        lake
    }

    /// Starts `ldp catalog serve` (with `extra` options) on the local catalog of
    /// `served/backing.json` (its tables go to `served/warehouse`), the token from
    /// [`TOKEN_ENV`]; its URI once it answers.
    pub(crate) fn serve(&self, extra: &[&str]) -> (String, Watched) {
        let local = json!({"identifier": "nyc", "warehouse_path": "warehouse"});
        self.serve_catalog(local, extra)
    }

    /// Starts `ldp catalog serve` (with `extra` options) on `catalog`, the catalog block of
    /// `served/backing.json`, with the lake's environment; its URI once it answers.
    pub(crate) fn serve_catalog(&self, catalog: Value, extra: &[&str]) -> (String, Watched) {
        let _ = std::fs::create_dir(self.path("served"));
        let backing = json!({"apiVersion": "ldp/v1", "identifier": "backing", "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": "rides.csv"},
            "target": {"name": "rides", "format": "ICEBERG", "catalog": catalog}}});
        std::fs::write(self.path("served/backing.json"), backing.to_string()).unwrap();
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let mut args = vec![
            "catalog",
            "serve",
            "served/backing.json",
            "--listen",
            &listen,
            "--token-env",
            TOKEN_ENV,
        ];
        args.extend_from_slice(extra);
        let command = self.command(&args);
        let mut server = Watched::spawn(&command, &self.path(&format!("serve-{port}.log")));
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                !server.ended() && Instant::now() < deadline,
                "ldp catalog serve did not listen on {listen}:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        (format!("http://{listen}"), server)
    }

    /// pyiceberg's catalog on the same catalog (the script reads secrets from the environment).
    pub(crate) fn pyiceberg_catalog(&self) -> Value {
        let warehouse = self.path("warehouse");
        let mut spec = json!({"type": "sql", "name": "lake",
                              "warehouse": format!("file://{}", warehouse.display()),
                              "password_env": PASSWORD_ENV, "token_env": TOKEN_ENV});
        match self.kind {
            Kind::Local => {
                spec["name"] = "nyc".into();
                spec["uri"] = format!("sqlite:///{}/nyc_catalog.db", warehouse.display()).into();
            }
            Kind::Postgres => {
                let uri = self.catalog["uri"].as_str().unwrap();
                spec["uri"] = uri
                    .replacen("postgresql://", "postgresql+psycopg2://", 1)
                    .into();
            }
            Kind::Rest | Kind::Serve => {
                spec["type"] = "rest".into();
                spec["uri"] = self.catalog["uri"].clone();
            }
            Kind::Glue => {
                spec["type"] = "glue".into();
                spec["warehouse"] = self.catalog["warehouse"].clone();
            }
        }
        spec
    }

    /// How many Parquet data files table `nyc.<table>` has in its folder: under the lake's
    /// warehouse, where `ldp catalog serve` or rustberg put it, or in the bucket.
    pub(crate) fn data_files(&self, table: &str) -> usize {
        let folder = match &self.peer {
            Peer::None => self.path(&format!("warehouse/nyc/{table}/data")),
            Peer::Serve { .. } => self.path(&format!("served/warehouse/nyc/{table}/data")),
            Peer::Rustberg(server) => find_data_folder(&server.warehouse, table)
                .unwrap_or_else(|| panic!("no folder of {table} under {:?}", server.warehouse)),
            Peer::Moto(server) => {
                let keys = moto::boto(
                    server,
                    &format!(
                        "result = [o['Key'] for o in s3.list_objects_v2(Bucket='{BUCKET}', \
                         Prefix='wh/nyc.db/{table}/data/').get('Contents', [])]"
                    ),
                );
                let keys = keys.as_array().cloned().unwrap_or_default();
                return keys
                    .iter()
                    .filter(|k| k.as_str().is_some_and(|k| k.ends_with(".parquet")))
                    .count();
            }
        };
        files_under(&folder)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
            .count()
    }

    /// The secrets `ldp` gets from the environment, which no output may show.
    pub(crate) fn secrets(&self) -> impl Iterator<Item = &str> {
        self.env
            .iter()
            .filter(|(key, _)| [PASSWORD_ENV, TOKEN_ENV, "AWS_SECRET_ACCESS_KEY"].contains(key))
            .map(|(_, value)| value.as_str())
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `<name>.json`: the rides CSV (or `source`) into table `name`, with `target`'s
    /// extra keys.
    pub(crate) fn config(&self, name: &str, source: &str, target: Value) -> String {
        let mut target_block = json!({"name": name, "format": "ICEBERG", "catalog": self.catalog});
        if let (Some(block), Value::Object(extra)) = (target_block.as_object_mut(), target) {
            block.extend(extra);
        }
        let config = json!({"apiVersion": "ldp/v1", "identifier": name, "metadata": {
            "source": {"name": "rides", "format": "CSV", "path": source},
            "target": target_block}});
        let file = self.path(&format!("{name}.json"));
        std::fs::write(&file, serde_json::to_string_pretty(&config).unwrap()).unwrap();
        file.display().to_string()
    }

    pub(crate) fn ldp(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("ldp runs")
    }

    /// `ldp args` in the lake's folder with the lake's environment and none of the test's own
    /// `AWS_` variables.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache");
        let mut command = Command::new(env!("CARGO_BIN_EXE_ldp"));
        command
            .current_dir(self.dir.path())
            .args(["--cache-dir", cache.to_str().unwrap()])
            .args(args);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("AWS_") {
                command.env_remove(key);
            }
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Starts `n` processes of `ldp args` at once and waits for them all. Where the catalog is
    /// shared (every type but a local one, whose file is in the warehouse folder), each process
    /// runs in a working folder of its own (`host-<i>`, a copy of the configs and the data, with
    /// its own local warehouse if the catalog has one): the processes share nothing but the
    /// catalog (and a bucket).
    pub(crate) fn race(&self, n: usize, args: &[&str]) -> Vec<Output> {
        let apart = self.kind != Kind::Local;
        let folders: Vec<Option<PathBuf>> = (0..n)
            .map(|i| apart.then(|| self.copy_configs_and_data(&format!("host-{i}"))))
            .collect();
        let here = self.dir.path().display().to_string();
        let children: Vec<_> = folders
            .iter()
            .map(|folder| {
                let mut command = match folder {
                    Some(folder) => {
                        let there = folder.display().to_string();
                        let args: Vec<String> =
                            args.iter().map(|a| a.replace(&here, &there)).collect();
                        let args: Vec<&str> = args.iter().map(String::as_str).collect();
                        let mut command = self.command(&args);
                        command.current_dir(folder);
                        command
                    }
                    None => self.command(args),
                };
                command
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("ldp starts")
            })
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().expect("ldp ends"))
            .collect()
    }

    /// A new folder `name` in the lake holding copies of the lake's configs and its `data`
    /// folder.
    pub(crate) fn copy_configs_and_data(&self, name: &str) -> PathBuf {
        let folder = self.path(name);
        std::fs::create_dir_all(folder.join("data")).unwrap();
        for entry in std::fs::read_dir(self.dir.path()).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "json") {
                std::fs::copy(&path, folder.join(entry.file_name())).unwrap();
            }
        }
        for entry in std::fs::read_dir(self.path("data")).unwrap().flatten() {
            std::fs::copy(entry.path(), folder.join("data").join(entry.file_name())).unwrap();
        }
        folder
    }

    /// Runs `args` and returns stdout; fails the test unless it exits 0.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.ldp(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "ldp {args:?}\nstdout: {}\nstderr: {}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    pub(crate) fn json(&self, args: &[&str]) -> Value {
        let text = self.ok(args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    /// The rows of `sql` over `config`'s tables, as JSON objects.
    pub(crate) fn query(&self, config: &str, sql: &str, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["query", config, sql, "--json"];
        args.extend_from_slice(extra);
        let doc = self.json(&args);
        doc.as_array()
            .or_else(|| doc["rows"].as_array())
            .unwrap_or_else(|| panic!("no rows in {doc}"))
            .clone()
    }

    pub(crate) fn count(&self, config: &str, table: &str, extra: &[&str]) -> u64 {
        let rows = self.query(config, &format!("SELECT count(*) AS n FROM {table}"), extra);
        rows[0]["n"].as_u64().unwrap_or_else(|| panic!("{rows:?}"))
    }

    pub(crate) fn snapshots(&self, config: &str) -> Vec<Value> {
        self.json(&["snapshots", config, "--json"])["snapshots"]
            .as_array()
            .unwrap()
            .clone()
    }
}

/// The AWS environment of `ldp` on a moto server (S3 and Glue).
pub(crate) fn aws_env(server: &Moto) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", server.endpoint.clone()),
        ("AWS_REGION", moto::REGION.to_string()),
        ("AWS_ACCESS_KEY_ID", moto::ACCESS_KEY_ID.to_string()),
        ("AWS_SECRET_ACCESS_KEY", moto::SECRET_ACCESS_KEY.to_string()),
        ("NO_PROXY", "127.0.0.1".to_string()),
    ]
}

/// The `data` folder of a table rustberg placed: under its warehouse, in a folder named after
/// the table (`<table>` or `<table>-<uuid>`).
fn find_data_folder(dir: &Path, table: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == table || n.starts_with(&format!("{table}-")));
        if named && path.join("data").is_dir() {
            return Some(path.join("data"));
        }
        if let Some(found) = find_data_folder(&path, table) {
            return Some(found);
        }
    }
    None
}
