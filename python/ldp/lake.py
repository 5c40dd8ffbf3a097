"""``ldp.Lake``: the tables of a folder of dataset configs, their snapshots, schema and history."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

import pyarrow as pa

from . import _cli
from ._query import query as _query
from ._run import plan as _plan
from .errors import NotFound

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Snapshot:
    """One snapshot of a table, oldest first in :meth:`Table.snapshots`."""

    snapshot_id: int
    parent_id: Optional[int]
    committed_at_utc: str
    timestamp_ms: int
    operation: str
    total_records: int
    added_records: int
    deleted_records: int
    summary: dict[str, str]

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Snapshot":
        return cls(
            snapshot_id=int(doc["snapshot_id"]),
            parent_id=doc.get("parent_id"),
            committed_at_utc=doc.get("committed_at_utc", ""),
            timestamp_ms=int(doc.get("timestamp_ms") or 0),
            operation=doc.get("operation", ""),
            total_records=int(doc.get("total_records") or 0),
            added_records=int(doc.get("added_records") or 0),
            deleted_records=int(doc.get("deleted_records") or 0),
            summary=dict(doc.get("summary") or {}),
        )


class Table:
    """An Iceberg table of the lake, by the config that writes it."""

    def __init__(self, config: Path, identifier: str) -> None:
        self.config = config
        #: ``namespace.table``.
        self.identifier = identifier
        #: The table's name without its namespace (how SQL over its config names it).
        self.name = identifier.rsplit(".", 1)[-1]

    def __repr__(self) -> str:
        return f"Table({self.identifier!r}, config={str(self.config)!r})"

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot of the table, oldest first."""
        doc = _cli.run_json(["snapshots", self.config])
        return [Snapshot.from_json(s) for s in doc.get("snapshots", [])]

    def history(self) -> pa.Table:
        """The snapshots as a table (one row each, oldest first), for pandas or a chart."""
        rows = [
            {
                "snapshot_id": s.snapshot_id,
                "parent_id": s.parent_id,
                "committed_at": pa.scalar(s.timestamp_ms, pa.timestamp("ms", tz="UTC")).as_py(),
                "operation": s.operation,
                "added_records": s.added_records,
                "deleted_records": s.deleted_records,
                "total_records": s.total_records,
            }
            for s in self.snapshots()
        ]
        schema = pa.schema(
            [
                ("snapshot_id", pa.int64()),
                ("parent_id", pa.int64()),
                ("committed_at", pa.timestamp("ms", tz="UTC")),
                ("operation", pa.string()),
                ("added_records", pa.int64()),
                ("deleted_records", pa.int64()),
                ("total_records", pa.int64()),
            ]
        )
        return pa.Table.from_pylist(rows, schema=schema)

    @property
    def schema(self) -> pa.Schema:
        """The table's current schema, as Arrow."""
        return self.read(sql_suffix=" LIMIT 0").schema

    def read(
        self,
        snapshot: Optional[int] = None,
        as_of: Optional[str] = None,
        *,
        sql_suffix: str = "",
    ) -> pa.Table:
        """Every row of the table, as it is now, at ``snapshot``, or as it was at ``as_of``."""
        return _query(
            self.config,
            f'SELECT * FROM "{self.name}"{sql_suffix}',
            snapshot=snapshot,
            as_of=as_of,
        )

    def query(self, sql: str, snapshot: Optional[int] = None, as_of: Optional[str] = None) -> pa.Table:
        """SQL over this table alone, named by its bare name."""
        return _query(self.config, sql, snapshot=snapshot, as_of=as_of)


class Lake:
    """The Iceberg tables that a folder of dataset configs (or one config) write.

    >>> lake = ldp.Lake("config")
    >>> lake.tables()                       # every table, by identifier
    >>> lake["nyc.rides"].snapshots()       # its history
    >>> lake.query("SELECT count(*) FROM rides").to_pandas()
    """

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise NotFound(f"{self.path} does not exist: give a dataset config or a folder of them")

    def __repr__(self) -> str:
        return f"Lake({str(self.path)!r})"

    def tables(self) -> dict[str, Table]:
        """The Iceberg tables of the configs, by ``namespace.table``."""
        plans = _plan(self.path)
        if isinstance(plans, dict):
            plans = [plans]
        tables: dict[str, Table] = {}
        for p in plans:
            route = p.get("route") or ""
            target = p.get("target")
            if p.get("kind") == "Pipeline" and target and route.endswith("ICEBERG"):
                tables.setdefault(target, Table(Path(p["config"]), target))
        return tables

    def __getitem__(self, identifier: str) -> Table:
        tables = self.tables()
        if identifier in tables:
            return tables[identifier]
        by_name = [t for t in tables.values() if t.name == identifier]
        if len(by_name) == 1:
            return by_name[0]
        raise NotFound(
            f"no table {identifier!r} in {self.path}; the tables are: {', '.join(sorted(tables)) or 'none'}"
        )

    def __iter__(self) -> Iterator[Table]:
        return iter(self.tables().values())

    def query(self, sql: str, as_of: Optional[str] = None, release: Optional[str] = None) -> pa.Table:
        """SQL over every table of the lake (``namespace.table``, and bare names when unique)."""
        return _query(self.path, sql, as_of=as_of, release=release)
