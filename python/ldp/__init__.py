"""ldp from Python: Iceberg tables on a laptop that behave like production.

The functions are named after the ``ldp`` commands and run the ``ldp`` binary that the wheel
installs next to this package; results come back as Python objects, and rows as Arrow
(``pyarrow.Table``) through an Arrow IPC stream, without a CSV or JSON hop.

>>> import ldp
>>> result = ldp.run("examples/rides.json", mode="overwrite")
>>> ldp.query("examples/rides.json", "SELECT city, count(*) AS n FROM rides GROUP BY city").to_pandas()

Errors are exceptions of :mod:`ldp.errors`, one per kind (``ConfigError``, ``QualityBlocked``,
``CommitConflict``, ``NotFound``, ...), with the CLI's message.
"""

from __future__ import annotations

from . import datasets, errors, workflow
from ._maintain import maintain
from ._query import query
from ._run import RunResult, plan, run
from .errors import (
    CommitConflict,
    ConfigError,
    LdpError,
    NotFound,
    QualityBlocked,
    QueryError,
)
from .lake import Lake, Snapshot, Table


def version() -> str:
    """The version of the ldp binary (``ldp --version``), with the Python tool it follows."""
    from . import _cli

    return _cli.run(["--version"]).stdout.strip()


__all__ = [
    "CommitConflict",
    "ConfigError",
    "Lake",
    "LdpError",
    "NotFound",
    "QualityBlocked",
    "QueryError",
    "RunResult",
    "Snapshot",
    "Table",
    "datasets",
    "errors",
    "maintain",
    "plan",
    "query",
    "run",
    "version",
    "workflow",
]
