"""The dlt destination (``ldp.dlt``): real dlt pipelines reading a paginated JSON API served on
127.0.0.1 (dlt's ``RESTClient`` with a ``JSONLinkPaginator``) and loading it into a lake.

Every ``ldp`` subprocess gets a time limit (``ldp._cli.subprocess.run`` is wrapped), every test
an alarm, and the HTTP server is shut down after each test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List
from urllib.parse import parse_qs, urlparse

import pytest

dlt = pytest.importorskip("dlt")

import ldp  # noqa: E402
import ldp.dlt  # noqa: E402
from dlt.common.destination.exceptions import (  # noqa: E402
    DestinationTerminalException,
    DestinationTransientException,
)
from dlt.pipeline.exceptions import PipelineStepFailed  # noqa: E402
from dlt.sources.helpers.rest_client import RESTClient  # noqa: E402
from dlt.sources.helpers.rest_client.paginators import JSONLinkPaginator  # noqa: E402

SUBPROCESS_TIMEOUT_S = 180
TEST_TIMEOUT_S = 600
PAGE_SIZE = 10


# --- bounds ---------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def bounded(monkeypatch):
    """Each ldp subprocess is killed after SUBPROCESS_TIMEOUT_S; each test fails after
    TEST_TIMEOUT_S (an alarm in the main thread)."""
    real_run = subprocess.run

    def run_with_timeout(*args: Any, **kwargs: Any):
        kwargs.setdefault("timeout", SUBPROCESS_TIMEOUT_S)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(ldp._cli.subprocess, "run", run_with_timeout)

    def expired(signum, frame):  # noqa: ARG001
        raise TimeoutError(f"the test ran longer than {TEST_TIMEOUT_S}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_TIMEOUT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture()
def dlt_env(tmp_path: Path, monkeypatch):
    """A dlt run isolated in tmp_path: its own working folder (no .dlt/ config of the repo), no
    telemetry, no proxy for 127.0.0.1."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


# --- the paginated API ----------------------------------------------------------------------


class Api:
    """Rides served as paged JSON: ``GET /rides?page=N`` gives
    ``{"data": [...], "next": URL or null}``. ``rows`` may be replaced between loads."""

    def __init__(self) -> None:
        self.rows: List[Dict[str, Any]] = []
        self.requests = 0
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                url = urlparse(self.path)
                if url.path != "/rides":
                    self.send_error(404)
                    return
                page = int(parse_qs(url.query).get("page", ["1"])[0])
                chunk = api.rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
                more = page * PAGE_SIZE < len(api.rows)
                body = json.dumps(
                    {"data": chunk, "next": f"{api.base_url}/rides?page={page + 1}" if more else None}
                ).encode()
                api.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 5
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def resource(self, name: str, **hints: Any):
        """A dlt resource reading every page of /rides."""
        client = RESTClient(base_url=self.base_url, paginator=JSONLinkPaginator(next_url_path="next"))

        @dlt.resource(name=name, **hints)
        def rides():
            for page in client.paginate("/rides", params={"page": 1}, data_selector="data"):
                yield page

        return rides()


@pytest.fixture()
def api():
    server = Api()
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()
        server.thread.join(timeout=10)


def rides(n: int, start: int = 1, fare: float = 10.0) -> List[Dict[str, Any]]:
    return [
        {"ride_id": i, "city": ["NYC", "BKK", "LDN"][i % 3], "fare": fare + i,
         "pickup_ts": f"2024-01-0{1 + i % 7}T10:00:00Z"}
        for i in range(start, start + n)
    ]  # fmt: skip


# --- helpers --------------------------------------------------------------------------------


def pipeline(tmp_path: Path, destination: Any, name: str = "rides_api"):
    return dlt.pipeline(
        pipeline_name=name,
        destination=destination,
        dataset_name="nyc",
        pipelines_dir=str(tmp_path / "dlt_pipelines"),
    )


def keyed(table: "ldp.Table") -> List["ldp.Snapshot"]:
    """The snapshots a keyed (staged) run published, oldest first."""
    return [s for s in table.snapshots() if "ldp.idempotency-key" in s.summary]


def column(table: "ldp.Table", sql: str) -> List[Any]:
    return table.query(sql).column(0).to_pylist()


# --- tests ----------------------------------------------------------------------------------


def test_append_replace_merge_from_a_paginated_api(dlt_env: Path, api: Api, monkeypatch):
    """Three tables from one API, one per write disposition; the files of a table are rotated
    every 10 rows, so a table arrives as several load jobs and still gets one snapshot."""
    monkeypatch.setenv("NORMALIZE__DATA_WRITER__FILE_MAX_ITEMS", "10")
    warehouse = dlt_env / "lake"
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse)))

    def load():
        return p.run(
            [
                api.resource("rides_log", write_disposition="append"),
                api.resource("rides_now", write_disposition="replace"),
                api.resource("rides", write_disposition="merge", primary_key="ride_id"),
            ]
        )

    api.rows = rides(25)
    info = load()
    assert not info.has_failed_jobs
    assert api.requests == 9  # 3 pages x 3 resources
    jobs = [j for j in info.load_packages[0].jobs["completed_jobs"] if j.job_file_info.table_name == "rides"]
    assert len(jobs) >= 2, "the rotation should have split the table into several jobs"

    lake = ldp.dlt.lake(warehouse)
    assert set(lake.tables()) == {"nyc.rides_log", "nyc.rides_now", "nyc.rides"}
    for name in ("rides_log", "rides_now", "rides"):
        table = lake[f"nyc.{name}"]
        assert column(table, f"SELECT count(*) FROM {name}") == [25]
        assert len(keyed(table)) == 1, name

    # The API changes: 5 rides get a new fare, 5 new rides.
    api.rows = rides(20) + rides(5, start=21, fare=100.0) + rides(5, start=26)
    info = load()
    assert not info.has_failed_jobs

    log, now, merged = lake["nyc.rides_log"], lake["nyc.rides_now"], lake["nyc.rides"]
    assert column(log, "SELECT count(*) FROM rides_log") == [55]
    assert [s.operation for s in keyed(log)] == ["append", "append"]

    assert column(now, "SELECT count(*) FROM rides_now") == [30]
    assert [s.operation for s in keyed(now)] == ["append", "overwrite"]
    assert keyed(now)[-1].total_records == 30

    assert column(merged, "SELECT count(*) FROM rides") == [30]
    assert column(merged, "SELECT count(DISTINCT ride_id) FROM rides") == [30]
    assert column(merged, "SELECT fare FROM rides WHERE ride_id = 22") == [122.0]
    assert column(merged, "SELECT fare FROM rides WHERE ride_id = 27") == [37.0]
    assert len(keyed(merged)) == 2
    # The staging folders are gone; the read configs stay.
    assert not (warehouse / ".ldp-dlt" / "staging").exists()
    assert sorted(p.name for p in ldp.dlt.configs_dir(warehouse).iterdir()) == [
        "nyc.rides.json", "nyc.rides_log.json", "nyc.rides_now.json",
    ]  # fmt: skip


def test_a_retried_load_publishes_once(dlt_env: Path, api: Api, monkeypatch):
    """The first attempt of the job fails after ldp committed (as if the process died before dlt
    recorded the job): dlt retries the job, whose run is a skipped duplicate. Then the same
    load package's job is run once more by hand: skipped again."""
    warehouse = dlt_env / "lake"
    api.rows = rides(25)
    calls: List[ldp.RunResult] = []
    real_run = ldp.dlt._ldp_run

    def crash_after_first_commit(*args: Any, **kwargs: Any):
        result = real_run(*args, **kwargs)
        calls.append(result)
        if len(calls) == 1:
            raise DestinationTransientException("simulated crash after ldp committed")
        return result

    monkeypatch.setattr(ldp.dlt, "_ldp_run", crash_after_first_commit)
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse)))
    info = p.run(api.resource("rides", write_disposition="append"))
    assert not info.has_failed_jobs
    assert [c.status for c in calls] == ["published", "skipped_duplicate"]
    assert calls[0].idempotency_key == calls[1].idempotency_key
    assert calls[1].snapshot_id == calls[0].snapshot_id

    table = ldp.dlt.lake(warehouse)["nyc.rides"]
    assert len(keyed(table)) == 1
    assert column(table, "SELECT count(*) FROM rides") == [25]

    # The load package's job again, as dlt would run it on a restart.
    package = p.get_load_package_info(info.loads_ids[0])
    job = next(j for j in package.jobs["completed_jobs"] if j.job_file_info.table_name == "rides")
    again = ldp.dlt.load_job(
        job.file_path, p.default_schema.get_table("rides"), warehouse=str(warehouse), namespace="nyc"
    )
    assert again is not None and again.status == "skipped_duplicate"
    assert again.idempotency_key == calls[0].idempotency_key
    assert len(keyed(table)) == 1
    assert column(table, "SELECT count(*) FROM rides") == [25]


def test_a_new_column_evolves_the_schema(dlt_env: Path, api: Api):
    warehouse = dlt_env / "lake"
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse)))
    api.rows = rides(15)
    p.run(api.resource("rides", write_disposition="append"))
    table = ldp.dlt.lake(warehouse)["nyc.rides"]
    first = keyed(table)[-1].snapshot_id
    assert "tip" not in table.schema.names

    # The second load: a tip on the rides of page 2 only (the first page has none).
    api.rows = rides(10, start=16) + [dict(r, tip=1.5) for r in rides(10, start=26)]
    info = p.run(api.resource("rides", write_disposition="append"))
    assert not info.has_failed_jobs
    assert "tip" in table.schema.names
    assert column(table, "SELECT count(*) FROM rides") == [35]
    assert column(table, "SELECT count(tip) FROM rides") == [10]
    assert column(table, "SELECT sum(tip) FROM rides") == [15.0]
    # The older snapshot keeps its columns for time travel.
    assert "tip" not in table.read(snapshot=first).schema.names


def test_a_failing_quality_gate_blocks_the_load(dlt_env: Path, api: Api, monkeypatch):
    """A check of the destination's `quality` blocks the first load: dlt reports the job
    failed (terminal, not retried), the pipeline raises with ldp's message, no table exists."""
    warehouse = dlt_env / "lake"
    gate = {"rides": {"on_failure": "fail", "checks": [{"check": "range", "column": "fare", "min": 0}]}}
    calls: List[Any] = []
    real_run = ldp.dlt._ldp_run

    def counted(*args: Any, **kwargs: Any):
        calls.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(ldp.dlt, "_ldp_run", counted)
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse), quality=gate))
    api.rows = rides(12)
    api.rows[11]["fare"] = -5.0
    with pytest.raises(PipelineStepFailed) as failed:
        p.run(api.resource("rides", write_disposition="append"))
    text = str(failed.value)
    assert "quality gate blocked nyc.rides" in text
    assert "range(fare)" in text
    # Nothing written: no table, no read config, no staging left.
    assert not (ldp.dlt.configs_dir(warehouse) / "nyc.rides.json").exists()
    with pytest.raises(ldp.LdpError):
        ldp.query(_probe_config(warehouse, dlt_env), "SELECT count(*) FROM rides")
    assert not (warehouse / ".ldp-dlt" / "staging").exists()
    # dlt failed the job terminally: ldp ran once, no retry. (dlt 1.31 keeps the package
    # pending; `pipeline.load()` would run the job again, and the gate block it again.)
    assert isinstance(failed.value.exception, DestinationTerminalException)
    assert len(calls) == 1


def _probe_config(warehouse: Path, folder: Path) -> Path:
    """A config naming nyc.rides in the warehouse, for reading it (or finding it missing)."""
    doc = ldp.dlt.read_config(
        ldp.dlt.table_config(warehouse.resolve(), "nyc", "rides", mode="append", join_cols=None, source="x")
    )
    path = folder / "probe.json"
    path.write_text(json.dumps(doc))
    return path


def test_quality_from_a_user_config_blocks_a_later_load(dlt_env: Path, api: Api, make_config):
    """The checks of the user's config for the table apply; a blocked load leaves the table as
    it was."""
    warehouse = dlt_env / "lake"
    user = make_config(
        "rides",
        source={"name": "rides", "format": "CSV", "path": "unused.csv"},
        target={"name": "rides", "format": "ICEBERG",
                "catalog": {"identifier": "nyc", "warehouse_path": "elsewhere"}},
        quality={"checks": [{"check": "not_null", "columns": ["city"]},
                            {"check": "unique", "columns": ["ride_id"]}]},
    )  # fmt: skip
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse), configs=str(user.parent)))
    api.rows = rides(12)
    p.run(api.resource("rides", write_disposition="append"))
    table = ldp.dlt.lake(warehouse)["nyc.rides"]
    before = table.snapshots()
    assert column(table, "SELECT count(*) FROM rides") == [12]

    api.rows = rides(12, start=13) + rides(1, start=13)  # ride 13 twice
    with pytest.raises(PipelineStepFailed) as failed:
        p.run(api.resource("rides", write_disposition="append"))
    assert "unique(ride_id)" in str(failed.value)
    assert table.snapshots() == before
    assert column(table, "SELECT count(*) FROM rides") == [12]


def test_merge_needs_a_primary_key(dlt_env: Path, api: Api):
    warehouse = dlt_env / "lake"
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse)))
    api.rows = rides(3)
    with pytest.raises(PipelineStepFailed) as failed:
        p.run(api.resource("rides", write_disposition="merge"))
    assert "needs a primary key" in str(failed.value)


def test_dlt_types_reach_iceberg(dlt_env: Path):
    """dlt's types, through Parquet, as the table's Arrow schema reads them."""
    import datetime as dt
    import decimal

    warehouse = dlt_env / "lake"
    p = pipeline(dlt_env, ldp.dlt.ldp(warehouse=str(warehouse)), name="types")

    @dlt.resource(name="typed")
    def typed():
        yield {
            "Text Col": "a",
            "big": 2**40,
            "dbl": 1.5,
            "flag": True,
            "ts": dt.datetime(2024, 1, 1, 10, tzinfo=dt.timezone.utc),
            "day": dt.date(2024, 1, 1),
            "amount": decimal.Decimal("12.345"),
            "doc": {"a": [1, 2]},
            "tags": ["x", "y"],
        }

    p.run(typed())
    table = ldp.dlt.lake(warehouse)["nyc.typed"]
    types = {f.name: str(f.type) for f in table.schema}
    assert types["text_col"] == "string"
    assert types["big"] == "int64"
    assert types["dbl"] == "double"
    assert types["flag"] == "bool"
    assert types["ts"].startswith("timestamp[us, tz=")
    assert types["day"] == "date32[day]"
    assert types["amount"] == "decimal128(38, 9)"
    assert types["doc"] == "string" and types["tags"] == "string"
    row = table.read().to_pylist()[0]
    assert json.loads(row["doc"]) == {"a": [1, 2]} and json.loads(row["tags"]) == ["x", "y"]
    assert row["amount"] == decimal.Decimal("12.345")
    assert types["_dlt_load_id"] == "string" and types["_dlt_id"] == "string"


def test_destination_ldp_by_name(dlt_env: Path, api: Api, monkeypatch):
    """``destination="ldp"`` after ``import ldp.dlt``, its warehouse from dlt's config."""
    warehouse = dlt_env / "lake"
    monkeypatch.setenv("DESTINATION__LDP__WAREHOUSE", str(warehouse))
    p = pipeline(dlt_env, "ldp")
    assert p.destination.destination_name == "ldp"
    api.rows = rides(3)
    p.run(api.resource("rides"))
    assert column(ldp.dlt.lake(warehouse)["nyc.rides"], "SELECT count(*) FROM rides") == [3]


def test_entry_point_resolves_the_bare_name_without_an_import(tmp_path: Path):
    """With the entry point ``[project.entry-points.dlt] ldp = "ldp.dlt"`` (the installed wheel's,
    or a stand-in distribution on the path), a fresh process resolves ``destination="ldp"``
    without importing ldp; without it, dlt does not know the name."""
    dist = tmp_path / "ep" / "ldp_entry_point_probe-0.0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ldp-entry-point-probe\nVersion: 0.0.0\n")
    (dist / "entry_points.txt").write_text("[dlt]\nldp = ldp.dlt\n")
    code = (
        "import dlt, sys\n"
        "p = dlt.pipeline('probe', destination='ldp', dataset_name='x', pipelines_dir=sys.argv[1])\n"
        "print(type(p.destination).__module__, p.destination.destination_name)\n"
    )
    package_root = str(Path(ldp.__file__).resolve().parents[1])
    env = dict(os.environ, RUNTIME__DLTHUB_TELEMETRY="false")

    def probe(paths: List[str]) -> subprocess.CompletedProcess:
        env["PYTHONPATH"] = os.pathsep.join(paths)
        return subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "p")],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
        )  # fmt: skip

    with_ep = probe([package_root, str(tmp_path / "ep")])
    assert with_ep.returncode == 0, with_ep.stderr
    assert with_ep.stdout.split() == ["ldp.dlt", "ldp"]
    without = probe([package_root])
    if os.environ.get("LDP_WHEEL"):
        # The wheel is installed in this venv: its own entry point resolves the name.
        assert without.returncode == 0, without.stderr
        assert without.stdout.split() == ["ldp.dlt", "ldp"]
    else:
        assert without.returncode != 0 and "UnknownDestinationModule" in without.stderr
