"""``ldp.airflow``: the mapping of a task instance onto a window, a run id and an attempt (plain
Python, no Airflow), and ``LdpRunOperator`` run by the real Apache Airflow 3
(``airflow dags test``) over three daily windows, with a retry, a re-run and a blocked gate.

The Airflow tests run the ``airflow`` command of the venv ``$LDP_AIRFLOW_VENV`` (default
/var/tmp/ldp-airflow-venv; ``scripts/test-python setup`` makes it). With ``LDP_WHEEL`` set, that
venv must hold that wheel (``scripts/test-python run`` installs it); without it, the ``ldp``
package these tests import is put on Airflow's ``PYTHONPATH`` and its binary passed as
``LDP_BINARY``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Optional

import pytest
from conftest import EXAMPLES

import ldp
import ldp.airflow as la
from ldp import _cli
from ldp.errors import ConfigError, NotFound, QualityBlocked, SourceError

AIRFLOW_VENV = Path(os.environ.get("LDP_AIRFLOW_VENV", "/var/tmp/ldp-airflow-venv"))
AIRFLOW_INSTALL = (
    f"python3 -m venv {AIRFLOW_VENV} && {AIRFLOW_VENV}/bin/pip install 'apache-airflow==3.3.2' "
    "'pyarrow==22.0.0' 'pytest==8.4.2' (or: scripts/test-python setup; set LDP_AIRFLOW_VENV "
    "to use another venv)"
)
# Every Airflow command is bounded: `db migrate` takes ~8 s, one `dags test` ~15 s.
AIRFLOW_TIMEOUT = 300


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def context(
    start: Any = None,
    end: Any = None,
    *,
    try_number: Any = 1,
    map_index: Optional[int] = -1,
    dag_id: str = "shop",
    run_id: str = "scheduled__2026-08-01T00:00:00+00:00",
    task_id: str = "orders",
) -> dict[str, Any]:
    """A context as Airflow passes it to ``execute``: the keys the mapping reads."""
    ti = SimpleNamespace(
        dag_id=dag_id, run_id=run_id, task_id=task_id, try_number=try_number, map_index=map_index
    )
    return {"ti": ti, "run_id": run_id, "data_interval_start": start, "data_interval_end": end}


DAY = (utc(2026, 8, 1), utc(2026, 8, 2))


# --- The mapping, without Airflow --------------------------------------------------------------


def test_the_window_is_the_data_interval_in_utc():
    assert la.window_of(context(*DAY)) == "2026-08-01T00:00:00Z/2026-08-02T00:00:00Z"
    from zoneinfo import ZoneInfo

    paris = ZoneInfo("Europe/Paris")
    start, end = datetime(2026, 8, 2, tzinfo=paris), datetime(2026, 8, 3, tzinfo=paris)
    assert la.window_of(context(start, end)) == "2026-08-01T22:00:00Z/2026-08-02T22:00:00Z"
    assert la.interval_of(context(start, end)) == (utc(2026, 8, 1, 22), utc(2026, 8, 2, 22))
    # A naive bound is UTC (as ldp reads a window); fractions of a second are kept.
    naive = datetime(2026, 8, 1, 6, 30, 0, 250000)
    assert la.window_of(context(naive, naive + timedelta(hours=1))) == (
        "2026-08-01T06:30:00.250000Z/2026-08-01T07:30:00.250000Z"
    )
    # The dag_run's interval when the context has no keys of its own.
    ctx = context()
    ctx["dag_run"] = SimpleNamespace(data_interval_start=DAY[0], data_interval_end=DAY[1])
    assert la.window_of(ctx) == "2026-08-01T00:00:00Z/2026-08-02T00:00:00Z"


def test_no_data_interval_or_an_empty_one_is_a_config_error_that_names_the_timetable():
    with pytest.raises(la.NoDataInterval, match="has no data interval"):
        la.window_of(context())
    with pytest.raises(la.NoDataInterval) as empty:
        la.window_of(context(DAY[0], DAY[0]))
    assert isinstance(empty.value, ConfigError) and not empty.value.retryable
    assert 'CronDataIntervalTimetable("@daily", timezone="UTC")' in str(empty.value)
    assert "create_cron_data_intervals" in str(empty.value)
    with pytest.raises(la.NoDataInterval, match="before it starts"):
        la.window_of(context(DAY[1], DAY[0]))


def test_the_run_id_is_the_same_for_every_try_and_the_attempt_is_the_try_number():
    first, second = context(*DAY, try_number=1), context(*DAY, try_number=2)
    assert la.run_id_of(first) == la.run_id_of(second) == (
        "airflow:shop:scheduled__2026-08-01T00:00:00+00:00:orders"
    )
    assert (la.attempt_of(first), la.attempt_of(second)) == (1, 2)
    assert la.run_id_of(context(*DAY, map_index=3)).endswith(":orders:3")
    assert la.run_id_of(context(*DAY, map_index=None)).endswith(":orders")
    assert la.run_id_of(context(*DAY, run_id="backfill__x")) != la.run_id_of(first)
    for bad in (0, None, True, "1"):
        with pytest.raises(ConfigError, match="try_number"):
            la.attempt_of(context(*DAY, try_number=bad))
    with pytest.raises(ConfigError, match="no task instance"):
        la.run_id_of({"data_interval_start": DAY[0], "data_interval_end": DAY[1]})


def test_run_options_are_the_keyword_arguments_of_ldp_run():
    assert la.run_options(context(*DAY, try_number=3), mode="overwrite", strict=True) == {
        "window": "2026-08-01T00:00:00Z/2026-08-02T00:00:00Z",
        "mode": "overwrite",
        "run_id": "airflow:shop:scheduled__2026-08-01T00:00:00+00:00:orders",
        "attempt": 3,
        "strict": True,
    }
    assert la.is_final(QualityBlocked("gate")) and la.is_final(la.NoDataInterval("none"))
    assert not la.is_final(SourceError("late file", retryable=True))


def test_the_module_imports_and_documents_itself_without_airflow():
    # Airflow blocked in a fresh interpreter: the module, dir() and help() work; the operator
    # raises ImportError with the install command.
    code = textwrap.dedent(
        """
        import sys, pydoc
        sys.modules["airflow"] = None
        import ldp.airflow as la
        assert "LdpRunOperator" not in dir(la)
        text = pydoc.render_doc(la, renderer=pydoc.plaintext)
        assert "window_of" in text and "CronDataIntervalTimetable" in text
        try:
            from ldp.airflow import LdpRunOperator
        except ImportError as e:
            print(e)
        else:
            raise SystemExit("imported the operator without Airflow")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "needs Apache Airflow 3" in done.stdout and "pip install" in done.stdout


# --- The operator's execute, over a stand-in BaseOperator, with the real binary ------------------


class FailTask(Exception):
    """Stands in for AirflowFailException."""


@pytest.fixture()
def operator(monkeypatch):
    """The LdpRunOperator class over a minimal BaseOperator, with ``airflow.sdk.exceptions``
    stood in for, so ``execute`` runs without Airflow."""

    class Base:
        def __init__(self, task_id: str, **kwargs: Any) -> None:
            self.task_id = task_id
            self.log = SimpleNamespace(info=lambda *a, **k: None)

    exceptions = ModuleType("airflow.sdk.exceptions")
    exceptions.AirflowFailException = FailTask  # type: ignore[attr-defined]
    for name in ("airflow", "airflow.sdk"):
        monkeypatch.setitem(sys.modules, name, ModuleType(name))
    monkeypatch.setitem(sys.modules, "airflow.sdk.exceptions", exceptions)
    return la._operator_class(Base)


def orders_config(make_config, quality_min: float = 0) -> Path:
    """A daily-windowed CSV -> Iceberg config reading ``drops/orders_YYYY-MM-DD.csv``."""
    return make_config(
        "orders",
        source={"name": "orders", "format": "CSV", "path": "drops/orders_{window_start:%Y-%m-%d}.csv"},
        target={
            "name": "orders",
            "format": "ICEBERG",
            "write_mode": "append",
            "catalog": {"identifier": "shop", "warehouse_path": "warehouse"},
        },
        window={"size": "day", "timezone": "UTC"},
        quality={
            "on_failure": "fail",
            "checks": [
                {"check": "row_count", "min": 1},
                {"check": "range", "column": "amount", "min": quality_min},
            ],
        },
    )


def drop(folder: Path, day: str, amounts: tuple[float, ...] = (5.0, 7.5)) -> Path:
    """Writes ``orders_DAY.csv`` (one row per amount) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"{i},{day}T{10 + i:02d}:00:00,{a}" for i, a in enumerate(amounts, 1)]
    path = folder / f"orders_{day}.csv"
    path.write_text("order_id,ordered_at,amount\n" + "\n".join(rows) + "\n")
    return path


def test_execute_publishes_once_returns_the_run_json_and_maps_failures(operator, make_config):
    config = orders_config(make_config)
    drops = config.parent / "drops"
    drop(drops, "2026-08-01")
    op = operator(task_id="orders", config=config)
    assert op.config == str(config) and op.template_fields == ("config", "mode")

    first = op.execute(context(*DAY))
    assert first["status"] == "published" and first["rows_written"] == 2
    assert first["idempotency_key"] == la.key_for(config, context(*DAY))
    assert first["run_id"] == la.run_id_of(context(*DAY))
    json.dumps(first)  # an XCom is JSON

    # Another DAG run over the same interval (a backfill): a skipped duplicate that succeeds.
    again = op.execute(context(*DAY, run_id="backfill__2026-08-01T00:00:00+00:00"))
    assert again["status"] == "skipped_duplicate" and again["rows_written"] == 0

    # A file that is not there yet: raised as it is, for Airflow's retries.
    with pytest.raises(SourceError) as late:
        op.execute(context(utc(2026, 8, 2), utc(2026, 8, 3)))
    assert late.value.retryable

    # A data gate, an empty interval, a bad mode: the task fails without a retry.
    drop(drops, "2026-08-03", amounts=(-1.0,))
    with pytest.raises(FailTask, match="a data gate held back") as gate:
        op.execute(context(utc(2026, 8, 3), utc(2026, 8, 4)))
    assert isinstance(gate.value.__cause__, QualityBlocked)
    with pytest.raises(FailTask, match="CronDataIntervalTimetable"):
        op.execute(context(DAY[0], DAY[0]))
    with pytest.raises(FailTask, match="cannot run for this task"):
        operator(task_id="orders", config=config, mode="sideways").execute(context(*DAY))

    assert len(_cli.run_json(["commits", config])["publishes"]) == 1


# --- The real Airflow ------------------------------------------------------------------------------


class Airflow:
    """An Airflow home (sqlite, migrated) and the environment that runs ``airflow`` in it."""

    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.home = home
        self.env = env
        self.dags = home / "dags"

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(AIRFLOW_VENV / "bin" / "airflow"), *args],
            capture_output=True, text=True, env=self.env, cwd=self.home, timeout=AIRFLOW_TIMEOUT,
        )
        if ok and done.returncode != 0:
            pytest.fail(
                f"airflow {' '.join(args)} exited {done.returncode}:\n"
                f"{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
            )
        return done

    def dags_test(self, dag_id: str, logical_date: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        """``airflow dags test DAG_ID DATE``: one manual DAG run, its tasks run in this process,
        retries honoured (the loop waits out ``retry_delay``). The run of a
        ``CronDataIntervalTimetable`` with logical date D covers the interval that ends at D."""
        return self.run("dags", "test", dag_id, logical_date, ok=ok)

    def task_instances(self, dag_id: str) -> list[dict[str, Any]]:
        """The task instances of a DAG, oldest run first, with their XCom return value."""
        with sqlite3.connect(f"file:{self.home / 'airflow.db'}?mode=ro", uri=True) as db:
            rows = db.execute(
                "SELECT r.run_id, r.data_interval_start, ti.state, ti.try_number, x.value "
                "FROM task_instance ti JOIN dag_run r ON r.dag_id = ti.dag_id AND r.run_id = ti.run_id "
                "LEFT JOIN xcom x ON x.dag_id = ti.dag_id AND x.run_id = ti.run_id "
                "AND x.task_id = ti.task_id AND x.key = 'return_value' "
                "WHERE ti.dag_id = ? ORDER BY r.id",
                (dag_id,),
            ).fetchall()
        return [
            {"run_id": r[0], "interval_start": r[1], "state": r[2], "try_number": r[3],
             "xcom": json.loads(r[4]) if r[4] else None}
            for r in rows
        ]


def _wheel_version(wheel: Path) -> str:
    return wheel.name.split("-")[1]


@pytest.fixture(scope="module")
def airflow(tmp_path_factory) -> Airflow:
    """A migrated Airflow home whose ``airflow`` finds the ``ldp`` package under test."""
    airflow_bin = AIRFLOW_VENV / "bin" / "airflow"
    if not airflow_bin.is_file():
        pytest.fail(f"Apache Airflow 3 is not installed at {AIRFLOW_VENV}: {AIRFLOW_INSTALL}")
    python = str(AIRFLOW_VENV / "bin" / "python")
    home = tmp_path_factory.mktemp("airflow_home")
    (home / "dags").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__DAGS_FOLDER=str(home / "dags"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=f"sqlite:///{home / 'airflow.db'}",
        AIRFLOW__USAGE_DATA_COLLECTION__ENABLED="False",
        SCARF_ANALYTICS="false",
        DO_NOT_TRACK="1",
    )
    wheel = os.environ.get("LDP_WHEEL")
    if wheel:
        # scripts/test-python run installed the wheel into the Airflow venv: test that one, with
        # the binary it put next to Airflow.
        env.pop("PYTHONPATH", None)
        env.pop("LDP_BINARY", None)
        reinstall = f"{AIRFLOW_VENV}/bin/pip install --force-reinstall --no-deps {wheel}"
        done = subprocess.run(
            [python, "-c", "import importlib.metadata as m, ldp._cli as c; "
             "print(m.version('ldp-lakehouse')); print(c.binary())"],
            capture_output=True, text=True, env=env, timeout=60,
        )
        if done.returncode != 0:
            pytest.fail(f"the Airflow venv has no ldp wheel ({done.stderr.strip()[-300:]}): {reinstall}")
        version, binary = done.stdout.split()
        if version != _wheel_version(Path(wheel)):
            pytest.fail(f"the Airflow venv has ldp-lakehouse {version}, not {Path(wheel).name}: {reinstall}")
        assert Path(binary).parent == AIRFLOW_VENV / "bin", binary
    else:
        # The package these tests import, alone on Airflow's path (a link to it, so nothing
        # else of this venv shadows Airflow's packages), and its binary.
        shim = home / "ldp-path"
        shim.mkdir()
        (shim / "ldp").symlink_to(Path(ldp.__file__).resolve().parent, target_is_directory=True)
        env["PYTHONPATH"] = str(shim)
        env["LDP_BINARY"] = _cli.binary()
        done = subprocess.run(
            [python, "-c", "import pyarrow, ldp.airflow"], capture_output=True, text=True,
            env=env, timeout=60,
        )
        if done.returncode != 0:
            pytest.fail(
                f"the Airflow venv cannot import ldp ({done.stderr.strip()[-300:]}): "
                f"{AIRFLOW_VENV}/bin/pip install 'pyarrow==22.0.0'"
            )
    af = Airflow(home, env)
    af.run("db", "migrate")
    return af


DAG_FILE = '''\
"""{doc}"""
import os
import shutil
from datetime import datetime, timedelta

from airflow.sdk import DAG
from airflow.timetables.interval import CronDataIntervalTimetable
from ldp.airflow import LdpRunOperator

PENDING, DROPS, RETRIES = {pending!r}, {drops!r}, {retries!r}


def land(context):
    """A retry: the files still pending land, as a late drop would."""
    with open(RETRIES, "a") as log:
        log.write(context["ti"].run_id + "\\n")
    for name in os.listdir(PENDING):
        shutil.move(os.path.join(PENDING, name), os.path.join(DROPS, name))


with DAG({dag_id!r}, schedule={schedule}, start_date=datetime(2026, 8, 1), catchup=False):
    LdpRunOperator(task_id="load", config={config!r}, retries=1,
                   retry_delay=timedelta(seconds=1), on_retry_callback=land)
'''


def write_dag(af: Airflow, dag_id: str, config: Path, schedule: str) -> Path:
    drops, pending = config.parent / "drops", config.parent / "pending"
    drops.mkdir(exist_ok=True)
    pending.mkdir(exist_ok=True)
    retries = config.parent / "retries.log"
    retries.touch()
    path = af.dags / f"{dag_id}.py"
    path.write_text(DAG_FILE.format(
        doc=f"{dag_id}: ldp airflow test DAG", pending=str(pending), drops=str(drops),
        retries=str(retries), dag_id=dag_id, config=str(config), schedule=schedule,
    ))
    return retries


DAILY = 'CronDataIntervalTimetable("@daily", timezone="UTC")'


def publishes(config: Path) -> list[dict[str, Any]]:
    """The keyed publishes on main of the config's table (none when no run created it)."""
    try:
        found = _cli.run_json(["commits", config])["publishes"]
    except NotFound:
        return []
    return sorted(found, key=lambda p: p["logical_window"])


def test_airflow_loads_three_days_once_each_with_a_retry_and_a_skipped_rerun(airflow, make_config):
    config = orders_config(make_config)
    retries = write_dag(airflow, "ldp_orders", config, DAILY)
    drop(config.parent / "drops", "2026-08-01")
    drop(config.parent / "pending", "2026-08-02")  # lands only when Airflow retries its task
    drop(config.parent / "drops", "2026-08-03")

    # `dags test DAG D` runs the interval that ends at D: 1, 2 and 3 August.
    for date in ("2026-08-02", "2026-08-03", "2026-08-04"):
        airflow.dags_test("ldp_orders", date)

    runs = airflow.task_instances("ldp_orders")
    assert [(r["state"], r["try_number"]) for r in runs] == [("success", 1), ("success", 2), ("success", 1)], runs
    assert len(retries.read_text().splitlines()) == 1  # one retry, by Airflow, of 2 August
    windows = [f"2026-08-0{d}T00:00:00+00:00/2026-08-0{d + 1}T00:00:00+00:00" for d in (1, 2, 3)]
    done = publishes(config)
    assert [p["logical_window"] for p in done] == windows, done
    assert [p["attempt"] for p in done] == ["1", "2", "1"]  # the retry is attempt 2 of its run
    for run, publish in zip(runs, done):
        xcom = run["xcom"]
        assert xcom["status"] == "published" and xcom["rows_written"] == 2
        assert xcom["idempotency_key"] == publish["idempotency_key"]
        assert publish["run_id"] == xcom["run_id"] == f"airflow:ldp_orders:{run['run_id']}:load"
        start = datetime.fromisoformat(publish["logical_window"].split("/")[0])
        assert publish["idempotency_key"] == ldp.plan(config, window=f"{start:%Y-%m-%d}/{start + timedelta(days=1):%Y-%m-%d}")["idempotency_key"]
    assert ldp.query(config, "SELECT count(*) AS n FROM orders").to_pylist() == [{"n": 6}]

    # 2 August again (another DAG run, as a backfill would be): skipped, succeeds, writes nothing.
    (config.parent / "drops" / "orders_2026-08-02.csv").unlink()  # not even read
    airflow.dags_test("ldp_orders", "2026-08-03")
    rerun = airflow.task_instances("ldp_orders")[-1]
    assert (rerun["state"], rerun["try_number"]) == ("success", 1)
    assert rerun["xcom"]["status"] == "skipped_duplicate"
    assert rerun["xcom"]["idempotency_key"] == done[1]["idempotency_key"]
    assert publishes(config) == done
    assert len(retries.read_text().splitlines()) == 1


def test_airflow_fails_a_blocked_gate_without_a_retry(airflow, make_config):
    config = orders_config(make_config)
    retries = write_dag(airflow, "ldp_gate", config, DAILY)
    drop(config.parent / "drops", "2026-08-01", amounts=(5.0, -2.0))  # range(amount) >= 0 fails

    done = airflow.dags_test("ldp_gate", "2026-08-02", ok=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-4000:]
    assert "AirflowFailException" in output and "a data gate held back" in output
    [run] = airflow.task_instances("ldp_gate")
    assert (run["state"], run["try_number"], run["xcom"]) == ("failed", 1, None)
    assert retries.read_text() == ""  # retries=1, and Airflow did not retry
    assert publishes(config) == []


def test_airflow_fails_a_cron_string_schedule_and_says_why(airflow, make_config):
    config = orders_config(make_config)
    retries = write_dag(airflow, "ldp_cron_string", config, '"@daily"')
    drop(config.parent / "drops", "2026-08-01")

    done = airflow.dags_test("ldp_cron_string", "2026-08-02", ok=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-4000:]
    assert "data interval of the DAG run" in output and "CronDataIntervalTimetable" in output
    [run] = airflow.task_instances("ldp_cron_string")
    assert (run["state"], run["try_number"]) == ("failed", 1)
    assert retries.read_text() == ""
    assert publishes(config) == []


def test_the_example_dag_parses_with_the_operator_and_a_data_interval_timetable(airflow):
    code = textwrap.dedent(
        f"""
        import runpy
        from airflow.timetables.interval import CronDataIntervalTimetable
        from airflow.sdk import DAG
        from ldp.airflow import LdpRunOperator
        dag = runpy.run_path({str(EXAMPLES / "airflow_dag.py")!r})["dag"]
        assert isinstance(dag, DAG), dag
        [task] = dag.tasks
        assert isinstance(task, LdpRunOperator) and task.retries == 2, task
        assert isinstance(dag.timetable, CronDataIntervalTimetable), dag.timetable
        print(dag.dag_id, task.config)
        """
    )
    done = subprocess.run(
        [str(AIRFLOW_VENV / "bin" / "python"), "-c", code], capture_output=True, text=True,
        env=airflow.env, timeout=AIRFLOW_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.split() == ["daily_orders", str(EXAMPLES / "workflows" / "daily_orders.json")]
