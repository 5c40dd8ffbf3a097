//! The invariant checks the suites share, made by pyiceberg (a Python process kept open for a
//! whole suite, one JSON request a line) and by `ldp commits`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::{CATALOG, Content};
use crate::interop::python;
use crate::{ldp, stderr};

/// For each request `{warehouse, catalog, namespace, table}`: whether the table exists; every
/// row of it read (columns `id` and `v`: every data file opened) and summed per `v`; the data
/// files every snapshot's manifests reference and how many are missing; the Parquet files under
/// the table's `data/` that no snapshot references (orphans; every one of them when the table
/// does not exist); its branches other than `main`; the catalog's tables without rows; and how
/// many snapshots do not read back (every snapshot is scanned: an error, or not its
/// `total-records` rows).
const CHECKER: &str = r#"
import json, os, sys
from pyiceberg.catalog.sql import SqlCatalog

def local(p):
    return p[len("file://"):] if p.startswith("file://") else p

def parquet_under(folder):
    return {os.path.join(root, f) for root, _, files in os.walk(folder) for f in files
            if f.endswith(".parquet")}

def check(req):
    w, name, ns, table = req["warehouse"], req["catalog"], req["namespace"], req["table"]
    out = {"exists": False, "rows": 0, "groups": {}, "distinct_ids": 0, "snapshots": 0,
           "referenced": 0, "missing": 0, "orphans": 0, "branches": [], "tables": [],
           "empty_tables": [], "unreadable_snapshots": 0, "error": None}
    db = os.path.join(w, f"{name}_catalog.db")
    data = os.path.join(w, ns, table, "data")
    if not os.path.exists(db):
        out["orphans"] = len(parquet_under(data))
        return out
    catalog = SqlCatalog(name, uri=f"sqlite:///{db}", warehouse=f"file://{w}")
    try:
        for n in catalog.list_namespaces():
            for ident in catalog.list_tables(n):
                label = ".".join(ident)
                out["tables"].append(label)
                snap = catalog.load_table(ident).current_snapshot()
                if snap is None or int(snap.summary.get("total-records") or 0) == 0:
                    out["empty_tables"].append(label)
        if not catalog.table_exists((ns, table)):
            out["orphans"] = len(parquet_under(data))
            return out
        t = catalog.load_table((ns, table))
        out["exists"] = True
        out["snapshots"] = len(t.metadata.snapshots)
        out["branches"] = sorted(r for r, ref in t.metadata.refs.items()
                                 if r != "main" and ref.snapshot_ref_type == "branch")
        referenced = set()
        for snap in t.metadata.snapshots:
            for manifest in snap.manifests(t.io):
                for entry in manifest.fetch_manifest_entry(t.io, discard_deleted=False):
                    referenced.add(local(entry.data_file.file_path))
        out["referenced"] = len(referenced)
        out["missing"] = sum(1 for p in referenced if not os.path.exists(p))
        out["orphans"] = len(parquet_under(os.path.join(local(t.metadata.location), "data")) - referenced)
        for snap in t.metadata.snapshots:
            try:
                read = t.scan(snapshot_id=snap.snapshot_id, selected_fields=("id",)).to_arrow().num_rows
                if read != int(snap.summary.get("total-records") or 0):
                    out["unreadable_snapshots"] += 1
            except Exception:
                out["unreadable_snapshots"] += 1
        rows = t.scan(selected_fields=("id", "v")).to_arrow()
        out["rows"] = rows.num_rows
        if rows.num_rows:
            g = rows.group_by("v").aggregate([("id", "count"), ("id", "sum")])
            for v, c, s in zip(g["v"].to_pylist(), g["id_count"].to_pylist(), g["id_sum"].to_pylist()):
                out["groups"][str(v)] = [c, s]
            out["distinct_ids"] = len(rows.column("id").unique())
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        catalog.engine.dispose()
    return out

for line in sys.stdin:
    try:
        answer = check(json.loads(line))
    except Exception as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(answer), flush=True)
"#;

/// A table of the torture catalog: `<dir>/warehouse`, `lake.<name>`.
pub(super) struct Target {
    pub warehouse: PathBuf,
    pub name: String,
}

impl Target {
    pub fn new(dir: &Path, name: &str) -> Target {
        Target {
            warehouse: dir.join("warehouse"),
            name: name.to_string(),
        }
    }
}

/// What pyiceberg found.
#[derive(Clone, Debug, Default)]
pub(super) struct State {
    pub exists: bool,
    pub rows: i64,
    pub content: Content,
    pub distinct_ids: i64,
    pub snapshots: usize,
    pub missing: usize,
    pub orphans: usize,
    pub branches: Vec<String>,
    pub empty_tables: Vec<String>,
    /// Snapshots pyiceberg cannot read back whole.
    pub unreadable_snapshots: usize,
    /// pyiceberg could not load or read the table.
    pub error: Option<String>,
}

impl State {
    /// Why the table is not readable, if it is not: pyiceberg failed, or a referenced data file
    /// is missing.
    pub fn unreadable(&self) -> Option<String> {
        if let Some(error) = &self.error {
            return Some(format!("pyiceberg cannot read it: {error}"));
        }
        if self.unreadable_snapshots > 0 {
            return Some(format!(
                "{} snapshot(s) do not read back their rows",
                self.unreadable_snapshots
            ));
        }
        (self.missing > 0).then(|| {
            format!(
                "{} data file(s) its snapshots reference are missing",
                self.missing
            )
        })
    }
}

/// The pyiceberg process of one suite.
pub(super) struct Checker {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Checker {
    pub fn start() -> Checker {
        let mut child = Command::new(python())
            .args(["-c", CHECKER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Checker {
            child,
            input,
            output,
        }
    }

    pub fn state(&mut self, target: &Target) -> State {
        let request = serde_json::json!({
            "warehouse": target.warehouse, "catalog": CATALOG, "namespace": CATALOG,
            "table": target.name,
        });
        writeln!(self.input, "{request}").expect("the pyiceberg checker reads");
        self.input.flush().unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the pyiceberg checker answered {line:?}: {e}"));
        let count = |key: &str| doc[key].as_u64().unwrap_or(0);
        let names = |key: &str| -> Vec<String> {
            doc[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        };
        let mut content = Content::new();
        for (v, pair) in doc["groups"].as_object().into_iter().flatten() {
            content.insert(
                v.parse().unwrap(),
                (pair[0].as_i64().unwrap(), pair[1].as_i64().unwrap()),
            );
        }
        State {
            exists: doc["exists"].as_bool().unwrap_or(false),
            rows: count("rows") as i64,
            content,
            distinct_ids: count("distinct_ids") as i64,
            snapshots: count("snapshots") as usize,
            missing: count("missing") as usize,
            orphans: count("orphans") as usize,
            branches: names("branches"),
            empty_tables: names("empty_tables"),
            unreadable_snapshots: count("unreadable_snapshots") as usize,
            error: doc["error"].as_str().map(String::from),
        }
    }
}

impl Drop for Checker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ldp commits CONFIG --branches --json`: the keys of the publishes on `main` and the staging
/// branches.
pub(super) fn commits(config: &Path) -> (Vec<String>, Vec<String>) {
    let (keys, branches) = commits_with_heads(config);
    (keys, branches.into_iter().map(|(name, _)| name).collect())
}

/// As [`commits`], with each staging branch's head, and only the branches that hold a staged
/// write: a branch whose head is one of `main`'s publishes was cut by a run killed before it
/// staged its write, which carries no key of its own and is left for maintenance.
pub(super) fn staged_branches(config: &Path) -> (Vec<String>, Vec<String>, usize) {
    let out = ldp(&["commits", config.to_str().unwrap(), "--branches", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let published: Vec<i64> = doc["publishes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["snapshot_id"].as_i64())
        .collect();
    let (keys, branches) = commits_with_heads(config);
    let (unstaged, staged): (Vec<_>, Vec<_>) = branches
        .into_iter()
        .partition(|(_, head)| head.is_some_and(|h| published.contains(&h)));
    (
        keys,
        staged.into_iter().map(|(name, _)| name).collect(),
        unstaged.len(),
    )
}

fn commits_with_heads(config: &Path) -> (Vec<String>, Vec<(String, Option<i64>)>) {
    let out = ldp(&["commits", config.to_str().unwrap(), "--branches", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = doc["publishes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["idempotency_key"].as_str().map(String::from))
        .collect();
    let branches = doc["branches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| Some((v["branch"].as_str()?.to_string(), v["snapshot_id"].as_i64())))
        .collect();
    (keys, branches)
}

/// How `got` differs from `want`, in words: rows lost, doubled or changed.
pub(super) fn difference(got: &Content, want: &Content) -> String {
    let (got_rows, want_rows) = (super::rows_of(got), super::rows_of(want));
    let verdict = match got_rows.cmp(&want_rows) {
        std::cmp::Ordering::Less => "lost",
        std::cmp::Ordering::Greater => "doubled",
        std::cmp::Ordering::Equal => "changed",
    };
    format!("{verdict}: {got_rows} rows {got:?}, expected {want_rows} rows {want:?}")
}
