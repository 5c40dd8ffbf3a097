"""Run a dataset config as an Apache Airflow 3 task, with Airflow's retries and backfills mapped
onto ldp's windows and keys.

::

    from datetime import datetime, timedelta

    from airflow.sdk import DAG
    from airflow.timetables.interval import CronDataIntervalTimetable
    from ldp.airflow import LdpRunOperator

    with DAG("orders", schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
             start_date=datetime(2026, 8, 1), catchup=True):
        LdpRunOperator(task_id="load", config="/data/shop/orders.json",
                       retries=2, retry_delay=timedelta(minutes=5))

The task runs ``ldp run CONFIG --window START/END --run-id RUN_ID --attempt N --json`` and the
three things Airflow knows become the three things ldp's exactly-once protocol needs:

* **The window** is ``[data_interval_start, data_interval_end)`` of the DAG run, in UTC
  (:func:`window_of`). Its idempotency key is the one ``ldp plan CONFIG --window START/END``
  prints, so a second DAG run over the same interval (a backfill, a re-run) finds the key
  published and writes nothing: a day is loaded once however Airflow got to it.
* **The run id** is the same for every try of a task instance: ``airflow:DAG_ID:RUN_ID:TASK_ID``,
  with ``:MAP_INDEX`` for a mapped task (:func:`run_id_of`).
* **The attempt** is ``ti.try_number`` (:func:`attempt_of`), so Airflow's retry is the next
  attempt of the same run, and its first commit fences every older try.

Failures: a data gate that holds the run back (:class:`~ldp.errors.QualityBlocked`) and a config
that cannot run (:class:`~ldp.errors.ConfigError`, which includes :class:`NoDataInterval`) fail
the task with ``AirflowFailException``, which Airflow does not retry. A skipped duplicate
succeeds. Any other error is raised as it is, for the task's ``retries``. The return value of
``execute``, so the task's XCom, is :meth:`ldp.RunResult.to_dict` (``ldp run --json``).

Give the DAG a ``CronDataIntervalTimetable`` as its schedule, not a cron string such as
``"@daily"``: Airflow 3 makes a trigger timetable of a cron string, whose runs have an empty
data interval, and the operator fails those runs and says why (or set
``[scheduler] create_cron_data_intervals = True``).

The mapping is plain Python (it takes the ``context`` Airflow passes to ``execute``, or anything
with the same keys and attributes). Airflow is imported only when :class:`LdpRunOperator` is
first used (``from airflow.sdk import BaseOperator``), so this module imports without Airflow.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from datetime import datetime, timezone
from typing import Any, Optional

from . import _run
from .errors import ConfigError, QualityBlocked
from ._run import PathLike, RunResult

INSTALL_HINT = (
    "LdpRunOperator needs Apache Airflow 3, which is not installed in this environment. Install "
    "it with the constraints file of its release, e.g. pip install 'apache-airflow==3.3.2' "
    "--constraint https://raw.githubusercontent.com/apache/airflow/constraints-3.3.2/"
    "constraints-3.11.txt (use your Python version), then install ldp into the same environment"
)


class NoDataInterval(ConfigError):
    """The DAG run has no data interval, or an empty one, so there is no window to load."""


def _get(context: Any, name: str) -> Any:
    """A key of the context: a mapping in Airflow, anything with the key or attribute in a test."""
    try:
        return context[name]
    except (KeyError, TypeError, IndexError):
        return getattr(context, name, None)


def _task_instance(context: Any) -> Any:
    ti = _get(context, "ti") or _get(context, "task_instance")
    if ti is None:
        raise ConfigError(
            "the context has no task instance (ti), so there is no run id and no attempt"
        )
    return ti


def _dag_run_id(context: Any) -> str:
    run_id = _get(context, "run_id") or getattr(_get(context, "ti"), "run_id", None)
    return str(run_id) if run_id is not None else "?"


def _as_utc(value: Any, what: str) -> datetime:
    """An aware datetime in UTC (a naive one is read as UTC, as ldp reads a window)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime):
        raise ConfigError(f"{what} is {value!r}, not a datetime")
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def interval_of(context: Any) -> tuple[datetime, datetime]:
    """The data interval of the task instance's DAG run, ``(start, end)``, as datetimes in UTC.

    Args:
        context: The ``context`` Airflow passes to ``execute`` (``data_interval_start``,
            ``data_interval_end``; else those attributes of ``dag_run``).

    Raises:
        NoDataInterval: The DAG run has no data interval (a run an asset event started), or an
            empty one, which Airflow 3 gives the runs of a cron string as ``schedule``.
    """
    start, end = _get(context, "data_interval_start"), _get(context, "data_interval_end")
    dag_run = _get(context, "dag_run")
    if start is None and dag_run is not None:
        start = getattr(dag_run, "data_interval_start", None)
    if end is None and dag_run is not None:
        end = getattr(dag_run, "data_interval_end", None)
    run = _dag_run_id(context)
    if start is None or end is None:
        raise NoDataInterval(
            f"the DAG run {run} has no data interval, so there is no window for the config to "
            "load. A run from a schedule has one, and so has a backfill"
        )
    start, end = _as_utc(start, "data_interval_start"), _as_utc(end, "data_interval_end")
    if start == end:
        raise NoDataInterval(
            f"the data interval of the DAG run {run} is empty: it starts and ends at "
            f"{start.isoformat()}, so there is no window for the config to load. Airflow 3 does "
            "this for a cron string as the schedule. Give the schedule as "
            'CronDataIntervalTimetable("@daily", timezone="UTC"), from '
            "airflow.timetables.interval, or set create_cron_data_intervals to True in the "
            "[scheduler] section of the Airflow configuration"
        )
    if end < start:
        raise NoDataInterval(
            f"the data interval of the DAG run {run} ends ({end.isoformat()}) before it starts "
            f"({start.isoformat()})"
        )
    return start, end


def _iso_utc(value: datetime) -> str:
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text + "Z"


def window_of(context: Any) -> str:
    """The window of a task instance, ``START/END`` in ISO 8601 UTC, as ``ldp run --window`` takes
    it: ``2026-08-01T00:00:00Z/2026-08-02T00:00:00Z`` for the daily run of 1 August.

    Raises:
        NoDataInterval: See :func:`interval_of`.
    """
    start, end = interval_of(context)
    return f"{_iso_utc(start)}/{_iso_utc(end)}"


def run_id_of(context: Any) -> str:
    """The ldp run id of a task instance: the same for every try of it, another for any other
    task instance: ``airflow:DAG_ID:RUN_ID:TASK_ID``, with ``:MAP_INDEX`` after the task id for a
    mapped task (two mapped instances stage their writes under two run ids)."""
    ti = _task_instance(context)
    run_id = f"airflow:{ti.dag_id}:{ti.run_id}:{ti.task_id}"
    index = getattr(ti, "map_index", -1)
    return run_id if index is None or index < 0 else f"{run_id}:{index}"


def attempt_of(context: Any) -> int:
    """The attempt of a task instance: its ``try_number`` (1 for the first try, counting up).

    Raises:
        ConfigError: The task instance has no ``try_number`` of 1 or more (every try would get
            the same attempt, and nothing would fence a try that is still running).
    """
    attempt = getattr(_task_instance(context), "try_number", None)
    if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        raise ConfigError(
            f"the task instance has try_number {attempt!r}, and a try needs a whole number from 1"
        )
    return attempt


def run_options(context: Any, mode: Optional[str] = None, strict: bool = False) -> dict[str, Any]:
    """The keyword arguments of :func:`ldp.run` for a task instance:
    ``{"window", "mode", "run_id", "attempt", "strict"}``.

    Args:
        context: The ``context`` Airflow passes to ``execute``.
        mode: ``append``, ``overwrite`` or ``upsert``, over the target's ``write_mode``.
        strict: Refuse a config holding a key ldp does not know.
    """
    return {
        "window": window_of(context),
        "mode": mode,
        "run_id": run_id_of(context),
        "attempt": attempt_of(context),
        "strict": strict,
    }


def run(
    config: PathLike, context: Any, mode: Optional[str] = None, strict: bool = False
) -> RunResult:
    """Run a config for a task instance (its window, run id and attempt) with :func:`ldp.run`.

    Returns:
        The :class:`ldp.RunResult` (``status`` ``published`` or ``skipped_duplicate``).

    Raises:
        NoDataInterval: The DAG run has no data interval.
        ldp.errors.QualityBlocked: A data gate held the run back.
        ldp.errors.LdpError: Any other failure, as :func:`ldp.run` raises it.
    """
    return _run.run(config, **run_options(context, mode, strict))


def key_for(config: PathLike, context: Any) -> str:
    """The idempotency key a task instance publishes under, without running anything: the key
    ``ldp plan CONFIG --window START/END`` prints for the DAG run's data interval."""
    doc = _run.plan(config, window=window_of(context))
    if not doc.get("valid", True) or not doc.get("idempotency_key"):
        problems = "; ".join(str(e) for e in doc.get("errors") or []) or "no idempotency key"
        raise ConfigError(f"{os.fspath(config)} cannot be planned for this window: {problems}")
    return str(doc["idempotency_key"])


def is_final(error: BaseException) -> bool:
    """Whether an error fails the task without a retry: a data gate (``QualityBlocked``) or a
    config that cannot run (``ConfigError``, ``UsageError``, :class:`NoDataInterval`)."""
    return isinstance(error, (QualityBlocked, ConfigError))


def _fail_exception() -> type[BaseException]:
    """``AirflowFailException``: in ``airflow.sdk.exceptions`` from Airflow 3.2, in
    ``airflow.exceptions`` before (deprecated where the new place exists)."""
    try:
        from airflow.sdk.exceptions import AirflowFailException
    except ImportError:
        from airflow.exceptions import AirflowFailException  # type: ignore[no-redef]
    return AirflowFailException


@functools.lru_cache(maxsize=None)
def _operator_class(base: type) -> type:
    """The operator class over an Airflow ``BaseOperator`` (one per base ever given)."""

    class LdpRunOperator(base):  # type: ignore[misc, valid-type]
        """Run an ldp dataset config for the data interval of the DAG run, as
        ``ldp run CONFIG --window START/END --run-id RUN_ID --attempt N`` would.

        The window is ``[data_interval_start, data_interval_end)`` in UTC, the run id is
        ``airflow:DAG_ID:RUN_ID:TASK_ID`` (the same for every try), the attempt is
        ``ti.try_number``: a retry fences the try before it, and a second DAG run over the same
        interval (a backfill) is a skipped duplicate that succeeds and writes nothing. A data gate
        that holds the run back, and a config that cannot run (also a DAG run without a data
        interval), fail the task with ``AirflowFailException``, which Airflow does not retry;
        any other error is left to the task's ``retries``. The return value, the task's XCom,
        is :meth:`ldp.RunResult.to_dict` (``ldp run --json``).

        Args:
            config: The path of a dataset config (``ldp/v1`` JSON). A relative path is read from
                the worker's working folder: give an absolute one. Templated.
            mode: ``append``, ``overwrite`` or ``upsert``, over the target's ``write_mode``.
                Templated.
            strict: Refuse a config holding a key ldp does not know, before reading anything.
            **kwargs: The arguments of Airflow's ``BaseOperator`` (``task_id``, ``retries``,
                ``retry_delay``, ...).
        """

        template_fields = ("config", "mode")

        def __init__(
            self,
            *,
            config: PathLike,
            mode: Optional[str] = None,
            strict: bool = False,
            **kwargs: Any,
        ) -> None:
            super().__init__(**kwargs)
            self.config = os.fspath(config)
            self.mode = mode
            self.strict = strict

        def execute(self, context: Any) -> dict[str, Any]:
            """Run the config for the DAG run's window; return ``RunResult.to_dict()``."""
            try:
                options = run_options(context, self.mode, self.strict)
                self.log.info(
                    "ldp run %s --window %s --run-id %s --attempt %d",
                    self.config, options["window"], options["run_id"], options["attempt"],
                )
                result = _run.run(self.config, **options)
            except QualityBlocked as error:
                raise _fail_exception()(
                    f"a data gate held back {self.config}, so the task fails and is not "
                    f"retried: {error}"
                ) from error
            except ConfigError as error:
                raise _fail_exception()(
                    f"{self.config} cannot run for this task, so the task fails and is not "
                    f"retried: {error}"
                ) from error
            self.log.info(
                "%s: %s, key %s, snapshot %s, %d rows written",
                self.config, result.status, result.idempotency_key, result.snapshot_id,
                result.rows_written,
            )
            return result.to_dict()

    LdpRunOperator.__module__ = __name__
    LdpRunOperator.__qualname__ = "LdpRunOperator"
    return LdpRunOperator


def operator_class() -> type:
    """:class:`LdpRunOperator`, built over ``airflow.sdk.BaseOperator`` (imported now).

    Raises:
        ImportError: Airflow 3 is not installed (the message says how to install it).
    """
    try:
        from airflow.sdk import BaseOperator
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return _operator_class(BaseOperator)


def _airflow_installed() -> bool:
    try:
        return importlib.util.find_spec("airflow") is not None
    except (ImportError, ValueError):
        return False


def __getattr__(name: str) -> Any:
    """``LdpRunOperator``, built over Airflow's ``BaseOperator`` the first time it is used."""
    if name == "LdpRunOperator":
        return operator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    # LdpRunOperator is listed only where Airflow is, so help() and dir() work without it.
    names = set(globals())
    if _airflow_installed():
        names.add("LdpRunOperator")
    return sorted(names)


__all__ = [
    "INSTALL_HINT",
    "NoDataInterval",
    "attempt_of",
    "interval_of",
    "is_final",
    "key_for",
    "operator_class",
    "run",
    "run_id_of",
    "run_options",
    "window_of",
]
if _airflow_installed():
    __all__.append("LdpRunOperator")
