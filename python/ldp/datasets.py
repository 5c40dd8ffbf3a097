"""``ldp.datasets``: pinned, reproducible versions of a table (``ldp datasets``).

A version records a snapshot, a row filter and a column list under a name and a number; loading
it later gives the same rows in the same order, whatever was written to the table since.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import pyarrow as pa

from . import _cli
from ._query import read_stream

PathLike = Union[str, "os.PathLike[str]"]


def _place(config: Optional[PathLike], warehouse: Optional[PathLike]) -> list[str]:
    if config is not None:
        return ["--config", os.fspath(config)]
    if warehouse is not None:
        return ["--warehouse", os.fspath(warehouse)]
    return []


def pin(
    config: PathLike,
    name: str,
    *,
    row_filter: Optional[str] = None,
    fields: Optional[Sequence[str]] = None,
    snapshot: Optional[int] = None,
    properties: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """Pin the current snapshot (or ``snapshot``) of the config's table as the next version of
    ``name``; returns the version's manifest (``ldp datasets pin --json``)."""
    args: list[Any] = ["datasets", "pin", os.fspath(config), name]
    if row_filter:
        args += ["--filter", row_filter]
    if fields:
        args += ["--fields", ",".join(fields)]
    if snapshot is not None:
        args += ["--snapshot", str(snapshot)]
    for key, value in (properties or {}).items():
        args += ["--property", f"{key}={value}"]
    return _cli.run_json(args)


def list(  # noqa: A001 - named after the CLI's `ldp datasets list`
    name: Optional[str] = None,
    *,
    config: Optional[PathLike] = None,
    warehouse: Optional[PathLike] = None,
) -> Any:
    """The datasets (the latest version of each), or every version of ``name``."""
    args: list[Any] = ["datasets", "list"]
    if name:
        args.append(name)
    return _cli.run_json([*args, *_place(config, warehouse)])


def load(
    name: str,
    version: Optional[int] = None,
    *,
    config: Optional[PathLike] = None,
    warehouse: Optional[PathLike] = None,
) -> pa.Table:
    """The rows of a dataset version (``NAME``, ``NAME@vN``, or ``version=N``; default: the
    latest), checked against the manifest's row count and schema fingerprint. The manifest is in
    the schema metadata under ``ldp.dataset``.

    ``config`` (a config whose warehouse holds the dataset) or ``warehouse`` says where the
    manifests are; without either, ldp looks where ``ldp datasets`` does.
    """
    args: list[Any] = ["datasets", "export", name, "-", "--format", "arrow"]
    if version is not None:
        args += ["--version", str(version)]
    return read_stream([*args, *_place(config, warehouse)])
