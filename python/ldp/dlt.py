"""ldp as a `dlt <https://dlthub.com>`_ destination: ``dlt.pipeline(..., destination="ldp")``
loads into ldp's Iceberg tables, through ``ldp run``, so every load gets ldp's quality gates,
run events and exactly-once publish.

>>> import dlt, ldp.dlt
>>> pipeline = dlt.pipeline("rides", destination=ldp.dlt.ldp(warehouse="lake"), dataset_name="nyc")
>>> pipeline.run(rides())                         # nyc.rides in lake/
>>> ldp.dlt.lake("lake")["nyc.rides"].snapshots()

Importing this module registers the destination under the name ``ldp`` (dlt resolves a bare
string only among destinations registered in the process): after ``import ldp.dlt``,
``destination="ldp"`` works and reads ``[destination.ldp] warehouse = ...`` from dlt's config.
``destination="ldp.dlt.ldp"`` works without the import (dlt imports it). docs/dlt.md says more.

How a load runs, per table of a dlt load package: the Parquet files dlt wrote for the table are
staged into one file in a private folder ``<warehouse>/.ldp-dlt/staging/<load id>/...`` (with one
schema: columns missing from a file are nulls), a config is generated next to it (source
``PARQUET`` = the staged file, target ``ICEBERG`` in the warehouse, namespace = the dlt dataset),
and ``ldp.run`` commits it under an idempotency key derived from the load id, the table and the
file ids of its jobs. The folder is removed when the run ends, however it ends. Every job of the
table computes the same key, so the first commits one snapshot for the table and the others
(and any retry) are skipped duplicates.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

import dlt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from dlt.common.destination.exceptions import (
    DestinationTerminalException,
    DestinationTransientException,
)
from dlt.common.destination.reference import DestinationReference
from dlt.common.schema import TTableSchema
from dlt.common.storages.load_storage import ParsedLoadJobFileName

from ._run import RunResult
from ._run import run as _ldp_run
from .errors import LdpError, QualityBlocked
from .lake import Lake

__all__ = ["ldp", "lake", "configs_dir", "LdpLoadBlocked"]

log = logging.getLogger("ldp.dlt")

#: The destination's private folder inside the warehouse.
PRIVATE_DIR = ".ldp-dlt"
#: The job folders of a dlt load package where a table's job files may be.
_JOB_FOLDERS = ("new_jobs", "started_jobs", "completed_jobs", "failed_jobs")
#: Keys of a user's config that the destination takes for a table.
_TARGET_KEYS = ("partition_by", "schema_evolution")


class LdpLoadBlocked(DestinationTerminalException):
    """A quality gate of ldp held a table's data back: nothing was written, and dlt does not
    retry the job (the data has to change). ``ldp_error`` is the :class:`ldp.errors.QualityBlocked`."""

    def __init__(self, message: str, ldp_error: LdpError) -> None:
        super().__init__(message)
        self.ldp_error = ldp_error


def configs_dir(warehouse: "str | os.PathLike[str]") -> Path:
    """The folder of read configs, one per table the destination loaded (``namespace.table.json``):
    give it to ``ldp query``, ``ldp snapshots``, ``ldp commits``, ``ldp runs`` or ``ldp.Lake``."""
    return Path(warehouse).resolve() / PRIVATE_DIR / "configs"


def lake(warehouse: "str | os.PathLike[str]") -> Lake:
    """The tables the destination loaded into ``warehouse``, as an :class:`ldp.Lake`."""
    return Lake(configs_dir(warehouse))


@dlt.destination(
    name="ldp",
    batch_size=0,  # one call per load job, with the path of its file
    loader_file_format="parquet",
    naming_convention="snake_case",
    max_table_nesting=0,  # nested data stays in its row as a JSON column
    skip_dlt_columns_and_tables=True,
    # One job of a table at a time: the first commits the table, the others skip at once.
    loader_parallelism_strategy="table-sequential",
)
def ldp(
    items: str,
    table: TTableSchema,
    warehouse: str = dlt.config.value,
    namespace: Optional[str] = None,
    quality: Optional[Dict[str, Any]] = None,
    configs: Optional[str] = None,
) -> None:
    """Loads one job of a dlt load package into ldp's Iceberg table ``namespace.<table>``.

    As a factory, ``ldp.dlt.ldp(warehouse=..., namespace=None, quality=None, configs=None)``:

    Args:
        warehouse: The warehouse folder (``warehouse_path`` of the tables' ``local`` catalogs).
        namespace: The Iceberg namespace (default: the pipeline's ``dataset_name``).
        quality: ``{table: quality block}``, each as ``metadata.quality`` of a config
            (docs/quality.md); it wins over the block of a config in ``configs``.
        configs: A folder of ``ldp/v1`` configs: the one whose target is the table (same name,
            and same namespace when several) gives its ``metadata.quality``,
            ``metadata.observability`` and its target's ``partition_by`` and
            ``schema_evolution``.
    """
    load_job(items, table, warehouse=warehouse, namespace=namespace, quality=quality, configs=configs)


# `destination="ldp"` resolves to `dlt.destinations.ldp` first: register the factory there.
DestinationReference.register(ldp._factory, "ldp")  # type: ignore[attr-defined]


def load_job(
    file_path: str,
    table: TTableSchema,
    *,
    warehouse: str,
    namespace: Optional[str] = None,
    quality: Optional[Dict[str, Any]] = None,
    configs: Optional[str] = None,
) -> Optional[RunResult]:
    """One load job: stage the table's files, run ldp, map its errors to dlt's. Returns the
    run's result (``None`` when the table had no rows to load)."""
    if not warehouse:
        raise DestinationTerminalException(
            "the ldp destination needs a warehouse: ldp.dlt.ldp(warehouse='lake'), or "
            "[destination.ldp] warehouse = \"lake\" in .dlt/config.toml, "
            "or DESTINATION__LDP__WAREHOUSE=lake"
        )
    name = table["name"]
    job = ParsedLoadJobFileName.parse(file_path)
    package = Path(file_path).resolve().parent.parent
    load_id = package.name
    ns = namespace or _dataset_name()
    if not ns:
        raise DestinationTerminalException(
            f"the ldp destination cannot tell the namespace of table {name!r}: give the pipeline "
            "a dataset_name, or ldp.dlt.ldp(namespace=...)"
        )
    mode, join_cols = _write_mode(table, ns)
    files = _table_files(package, name, job.file_format)
    if job.file_id not in files:  # the job's own file is always part of its table's set
        files[job.file_id] = Path(file_path)
    key = idempotency_key(load_id, ns, name, files)
    wh = Path(warehouse).resolve()
    base = wh / PRIVATE_DIR / "staging" / load_id
    stage = base / f"{ns}.{name}.{uuid.uuid4().hex[:12]}"
    stage.mkdir(parents=True, exist_ok=True)
    try:
        staged = stage / "data.parquet"
        # In the order dlt wrote them (a merge keeps the last row of a key).
        ordered = sorted(files.items(), key=lambda kv: (_mtime(kv[1]), kv[0]))
        rows = stage_files([p for _, p in ordered], staged, dedupe_on=join_cols)
        doc = table_config(wh, ns, name, mode=mode, join_cols=join_cols, source="data.parquet")
        extra = _table_settings(name, ns, quality, configs)
        _apply_settings(doc, extra)
        if rows == 0:
            log.info("ldp: %s.%s has no rows in load %s; nothing to write", ns, name, load_id)
            return None
        config = _write_json(stage / "config.json", doc)
        try:
            result = _ldp_run(config, mode=mode, idempotency_key=key)
        except QualityBlocked as e:
            raise LdpLoadBlocked(
                f"ldp's quality gate blocked {ns}.{name} in load {load_id}; nothing was written: "
                f"{e.message}",
                e,
            ) from e
        except LdpError as e:
            # A lost commit race (or another retryable failure) may pass on the next try; a bad
            # config, bad keys or a type ldp cannot write fail again.
            cls = DestinationTransientException if e.retryable else DestinationTerminalException
            raise cls(f"ldp could not load {ns}.{name} in load {load_id}: {e.message}") from e
        _write_json(configs_dir(wh) / f"{ns}.{name}.json", read_config(doc))
        log.info(
            "ldp: %s.%s %s (%s, key %s, snapshot %s, %d rows)",
            ns, name, result.status, mode, key[:12], result.snapshot_id, result.rows_written,
        )  # fmt: skip
        return result
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        for folder in (base, base.parent):
            try:
                folder.rmdir()  # only when empty: another table's job may still use it
            except OSError:
                pass


def idempotency_key(load_id: str, namespace: str, table: str, files: Iterable[str]) -> str:
    """The key of a table's load: sha256 of the load id, the table and its jobs' file ids."""
    text = "\n".join(["ldp.dlt/v1", load_id, f"{namespace}.{table}", *sorted(files)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _dataset_name() -> Optional[str]:
    """The dataset name of the pipeline that runs the load (dlt's active pipeline)."""
    try:
        from dlt.common.configuration.container import Container
        from dlt.common.pipeline import PipelineContext

        context = Container()[PipelineContext]
        if context.is_active():
            return context.pipeline().dataset_name
    except Exception:  # noqa: BLE001 - no pipeline: the caller says what to do
        return None
    return None


def _write_mode(table: TTableSchema, namespace: str) -> Tuple[str, Optional[List[str]]]:
    """ldp's write mode (and join columns) for the table's write disposition."""
    disposition = table.get("write_disposition") or "append"
    name = f"{namespace}.{table['name']}"
    if disposition == "append":
        return "append", None
    if disposition == "replace":
        return "overwrite", None
    if disposition == "merge":
        strategy = table.get("x-merge-strategy") or "delete-insert"  # type: ignore[typeddict-item]
        if strategy not in ("delete-insert", "upsert"):
            raise DestinationTerminalException(
                f"the ldp destination cannot merge {name} with strategy {strategy!r}: it upserts "
                "on the primary key (strategies 'delete-insert' and 'upsert'); use one of those, "
                "or write_disposition 'append' or 'replace'"
            )
        keys = [c for c, col in table["columns"].items() if col.get("primary_key")]
        if not keys:
            raise DestinationTerminalException(
                f"write_disposition 'merge' of {name} needs a primary key: ldp upserts on the "
                "primary key columns (join_cols). Give the resource primary_key=..., or use "
                "write_disposition 'append' or 'replace'"
            )
        return "upsert", keys
    raise DestinationTerminalException(
        f"the ldp destination does not know write_disposition {disposition!r} of {name}"
    )


def _table_files(package: Path, table: str, file_format: str) -> Dict[str, Path]:
    """Every job file of ``table`` in the load package, by file id (a retried job's file has
    another retry count in its name, and the same id)."""
    found: Dict[str, Path] = {}
    for folder in _JOB_FOLDERS:
        directory = package / folder
        if not directory.is_dir():
            continue
        for entry in directory.iterdir():
            try:
                parsed = ParsedLoadJobFileName.parse(entry.name)
            except Exception:  # noqa: BLE001 - not a job file
                continue
            if parsed.table_name == table and parsed.file_format == file_format:
                found.setdefault(parsed.file_id, entry)
    return found


def stage_files(files: List[Path], dest: Path, dedupe_on: Optional[List[str]] = None) -> int:
    """Writes ``files`` into one Parquet file ``dest`` with one schema (the union of theirs,
    every column nullable; a column missing from a file is null). With ``dedupe_on`` (a merge),
    the last row of each key wins, as later data replaces earlier data. Returns the row count."""
    schemas = [pq.read_schema(f) for f in files]
    unified = pa.unify_schemas(schemas)
    unified = pa.schema([f.with_nullable(True) for f in unified], metadata=None)

    def aligned(batch: pa.RecordBatch) -> pa.RecordBatch:
        columns = []
        for field in unified:
            index = batch.schema.get_field_index(field.name)
            if index < 0:
                columns.append(pa.nulls(batch.num_rows, field.type))
            else:
                columns.append(batch.column(index).cast(field.type))
        return pa.RecordBatch.from_arrays(columns, schema=unified)

    if dedupe_on:
        batches = [aligned(b) for f in files for b in pq.ParquetFile(f).iter_batches()]
        data = pa.Table.from_batches(batches, schema=unified)
        data = _last_per_key(data, dedupe_on)
        pq.write_table(data, dest, compression="snappy")
        return data.num_rows
    rows = 0
    with pq.ParquetWriter(dest, unified, compression="snappy") as writer:
        for f in files:
            for batch in pq.ParquetFile(f).iter_batches():
                writer.write_batch(aligned(batch))
                rows += batch.num_rows
    return rows


def _last_per_key(data: pa.Table, keys: List[str]) -> pa.Table:
    """The rows of ``data`` with the last row of each key only, in their order. A missing key
    column or null keys are left for ldp to refuse with its own message."""
    if data.num_rows == 0 or any(k not in data.column_names for k in keys):
        return data
    marker = "__ldp_dlt_row"
    indexed = data.append_column(marker, pa.array(range(data.num_rows), pa.int64()))
    last = indexed.group_by(keys).aggregate([(marker, "max")])[f"{marker}_max"]
    if len(last) == data.num_rows:
        return data
    return data.take(pc.sort_indices(last))  # type: ignore[arg-type]


def table_config(
    warehouse: Path,
    namespace: str,
    table: str,
    *,
    mode: str,
    join_cols: Optional[List[str]],
    source: str,
) -> Dict[str, Any]:
    """The ``ldp/v1`` config of one table's load: the staged Parquet file into the table."""
    target: Dict[str, Any] = {
        "name": table,
        "format": "ICEBERG",
        "catalog": {"identifier": namespace, "warehouse_path": str(warehouse)},
        "write_mode": mode,
    }
    if join_cols:
        target["join_cols"] = list(join_cols)
    events = warehouse / PRIVATE_DIR / "events.jsonl"
    return {
        "apiVersion": "ldp/v1",
        "kind": "Pipeline",
        "identifier": f"dlt_{namespace}_{table}",
        "who": "dlt",
        "what": f"dlt loads of {namespace}.{table}",
        "metadata": {
            "source": {"name": table, "format": "PARQUET", "path": source},
            "target": target,
            "observability": {"sinks": ["jsonl", "iceberg"], "jsonl": {"path": str(events)}},
        },
    }


def read_config(doc: Dict[str, Any]) -> Dict[str, Any]:
    """The config kept for reading the table (``ldp query``/``snapshots``/``runs``): the load's
    config without its write mode and checks; its source is a staged file that is gone."""
    out = json.loads(json.dumps(doc))
    meta = out["metadata"]
    meta.pop("quality", None)
    for k in ("write_mode", "join_cols"):
        meta["target"].pop(k, None)
    meta["source"]["path"] = "../staging/loaded.parquet"
    out["what"] = (
        f"{doc['what']}: kept by ldp.dlt for reading the table; its loads run from "
        "generated configs that are removed after each run"
    )
    return out


def _table_settings(
    table: str, namespace: str, quality: Optional[Dict[str, Any]], configs: Optional[str]
) -> Dict[str, Any]:
    """What a user gives for a table: from the config of ``configs`` whose target it is, then
    ``quality[table]`` over its quality block."""
    settings: Dict[str, Any] = {}
    if configs:
        settings = _from_user_config(Path(configs), table, namespace)
    if quality and table in quality and quality[table] is not None:
        settings["quality"] = quality[table]
    return settings


def _from_user_config(folder: Path, table: str, namespace: str) -> Dict[str, Any]:
    if not folder.exists():
        raise DestinationTerminalException(f"the configs folder {folder} does not exist")
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else [folder]
    matches: List[Tuple[Path, Dict[str, Any]]] = []
    for path in paths:
        try:
            doc = json.loads(path.read_text())
            target = doc["metadata"]["target"]
        except (ValueError, KeyError, TypeError, OSError):
            continue
        if isinstance(target, dict) and target.get("name") == table:
            matches.append((path, doc))
    if len(matches) > 1:
        same_ns = [
            m for m in matches
            if ((m[1]["metadata"]["target"].get("catalog") or {}).get("identifier") == namespace)
        ]  # fmt: skip
        matches = same_ns if same_ns else matches
    if len(matches) > 1:
        raise DestinationTerminalException(
            f"several configs in {folder} have target {table!r}: "
            + ", ".join(str(p) for p, _ in matches)
        )
    if not matches:
        return {}
    path, doc = matches[0]
    meta = doc["metadata"]
    out: Dict[str, Any] = {}
    if meta.get("quality") is not None:
        out["quality"] = meta["quality"]
    if meta.get("observability") is not None:
        out["observability"] = _absolute_paths(meta["observability"], path.parent)
    for k in _TARGET_KEYS:
        if k in meta["target"]:
            out.setdefault("target", {})[k] = meta["target"][k]
    return out


def _absolute_paths(observability: Any, base: Path) -> Any:
    """The sinks' ``path`` values, relative to the user's config, made absolute."""
    out = json.loads(json.dumps(observability))
    if isinstance(out, dict):
        for sink in out.values():
            if isinstance(sink, dict) and isinstance(sink.get("path"), str):
                sink["path"] = str((base / sink["path"]).resolve())
    return out


def _apply_settings(doc: Dict[str, Any], settings: Dict[str, Any]) -> None:
    meta = doc["metadata"]
    for k in ("quality", "observability"):
        if k in settings:
            meta[k] = settings[k]
    meta["target"].update(settings.get("target", {}))


def _write_json(path: Path, doc: Dict[str, Any]) -> Path:
    """Writes ``doc`` atomically (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_text(json.dumps(doc, indent=2))
    os.replace(tmp, path)
    return path
