"""``import ldp``: run, plan, query, time travel, the lake, datasets, maintenance, errors with
their kinds, and a Python transform, against the binary the package finds."""

from __future__ import annotations

import json
import time

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ldp
from ldp import errors


def test_run_then_query_gives_the_rows_as_arrow(rides_config):
    result = ldp.run(rides_config, mode="overwrite")
    assert result.rows_written == 20 and result.rows_read == 20
    assert result.snapshot_id is not None
    assert result.quality["passed"] is True and result.quality["checks_run"] == 7
    table = ldp.query(rides_config, "SELECT city, count(*) AS n FROM rides GROUP BY city ORDER BY city")
    assert isinstance(table, pa.Table)
    assert table.to_pydict() == {"city": ["BKK", "LDN", "NYC", "SFO"], "n": [10, 5, 3, 2]}
    assert table.to_pandas()["n"].sum() == 20


def test_a_result_reaches_pandas_with_its_types(rides_config):
    ldp.run(rides_config)
    frame = ldp.query(rides_config, "SELECT ride_id, pickup_ts, fare FROM rides ORDER BY ride_id").to_pandas()
    assert str(frame["pickup_ts"].dtype).startswith("datetime64")
    assert frame["fare"].dtype == "float64" and len(frame) == 20


def test_time_travel_by_snapshot_and_by_time(rides_config):
    first = ldp.run(rides_config)
    time.sleep(1.1)
    cut = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    time.sleep(1.1)
    second = ldp.run(rides_config)
    count = "SELECT count(*) AS n FROM rides"
    assert ldp.query(rides_config, count).column("n")[0].as_py() == 40
    assert ldp.query(rides_config, count, snapshot=first.snapshot_id).column("n")[0].as_py() == 20
    assert ldp.query(rides_config, count, as_of=cut).column("n")[0].as_py() == 20
    assert second.snapshot_id != first.snapshot_id


def test_a_window_publishes_once_and_the_second_run_is_a_skipped_duplicate(rides_config):
    first = ldp.run(rides_config, window="2024-01-01/2024-01-02")
    again = ldp.run(rides_config, window="2024-01-01/2024-01-02")
    assert first.status == "published" and first.idempotency_key
    assert again.skipped and again.idempotency_key == first.idempotency_key
    assert again.rows_written == 0


def test_plan_reports_the_route_and_the_window_key(rides_config):
    plan = ldp.plan(rides_config, window="2024-01-01/2024-01-02")
    assert plan["valid"] is True and plan["route"] == "CSV -> ICEBERG"
    assert plan["target"] == "nyc.rides" and len(plan["idempotency_key"]) == 64


def test_the_lake_lists_tables_snapshots_schema_and_history(rides_config):
    ldp.run(rides_config)
    ldp.run(rides_config, mode="overwrite")
    lake = ldp.Lake(rides_config.parent)
    assert list(lake.tables()) == ["nyc.rides"]
    table = lake["rides"]
    assert [s.operation for s in table.snapshots()] == ["append", "overwrite"]
    assert table.schema.names == ["ride_id", "pickup_ts", "city", "distance_km", "fare"]
    history = table.history()
    assert history.num_rows == 2 and history.column("total_records").to_pylist() == [20, 20]
    assert table.read(snapshot=table.snapshots()[0].snapshot_id).num_rows == 20
    assert lake.query("SELECT count(*) AS n FROM nyc.rides").column("n")[0].as_py() == 20


def test_a_dataset_version_loads_the_pinned_rows_with_its_manifest(rides_config):
    ldp.run(rides_config)
    pinned = ldp.datasets.pin(rides_config, "expensive", row_filter="fare > 20", fields=["ride_id", "fare"])
    ldp.run(rides_config)  # the table changes; the version does not
    rows = ldp.datasets.load("expensive", config=rides_config)
    assert rows.schema.names == ["ride_id", "fare"]
    assert rows.num_rows == pinned["row_count"] and all(f > 20 for f in rows.column("fare").to_pylist())
    manifest = json.loads(rows.schema.metadata[b"ldp.dataset"])
    assert manifest["snapshot_id"] == pinned["snapshot_id"]
    assert ldp.datasets.load("expensive@v1", config=rides_config).equals(rows)


def test_maintain_is_a_dry_run_unless_applied(rides_config):
    ldp.run(rides_config)
    ldp.run(rides_config)
    report = ldp.maintain(rides_config, expire_days=0, retain_last=1)
    assert report["dry_run"] is True


def test_a_python_transform_runs_on_every_batch_before_the_gate(rides_config):
    seen = []

    def add_fare_per_km(batch: pa.RecordBatch) -> pa.RecordBatch:
        seen.append(batch.num_rows)
        return batch.append_column("fare_per_km", pc.divide(batch.column("fare"), batch.column("distance_km")))

    result = ldp.run(rides_config, transform=add_fare_per_km)
    assert result.rows_written == 20
    assert seen[0] == 0 and sum(seen) == 20  # the empty batch first: it gives the output schema
    columns = ldp.query(rides_config, "SELECT * FROM rides LIMIT 1").schema.names
    assert columns[-1] == "fare_per_km"


def test_a_transform_that_raises_fails_the_run_and_writes_nothing(rides_config):
    ldp.run(rides_config)

    def broken(batch):
        if batch.num_rows:
            raise ValueError("no fares today")
        return batch

    with pytest.raises(errors.SourceError, match="no fares today") as caught:
        ldp.run(rides_config, transform=broken)
    assert isinstance(caught.value.__cause__, ValueError)
    assert len(ldp.Lake(rides_config)["rides"].snapshots()) == 1


def test_a_transform_may_drop_rows_and_the_gate_still_sees_the_result(rides_config):
    # Every ride dropped: the row_count check (min 1) holds the write back.
    with pytest.raises(ldp.QualityBlocked) as caught:
        ldp.run(rides_config, transform=lambda b: b.slice(0, 0))
    assert caught.value.exit_code == 3 and caught.value.python_type == "DataQualityError"
    assert not caught.value.retryable


def test_errors_are_exceptions_of_their_kind_with_the_cli_message(rides_config, tmp_path):
    with pytest.raises(ldp.ConfigError, match="config file not found") as missing:
        ldp.run(tmp_path / "missing.json")
    assert missing.value.kind == "config" and missing.value.exit_code == 1

    with pytest.raises(ldp.NotFound, match="Run 'ldp run CONFIG' first"):
        ldp.query(rides_config, "SELECT 1")

    ldp.run(rides_config)
    with pytest.raises(ldp.QueryError, match="No field named nope"):
        ldp.query(rides_config, "SELECT nope FROM rides")
    with pytest.raises(ldp.QueryError):
        ldp.query(rides_config, "DELETE FROM rides")
    with pytest.raises(ldp.NotFound):
        ldp.query(rides_config, "SELECT 1", snapshot=12345)
    with pytest.raises(ldp.ConfigError, match="must be an ISO-8601 interval"):
        ldp.run(rides_config, window="not a window")
    with pytest.raises(errors.UsageError, match="--attempt needs --run-id"):
        ldp.run(rides_config, attempt=2)
    with pytest.raises(errors.UsageError):
        ldp.run(rides_config, mode="sideways")

    bad = json.loads(rides_config.read_text())
    bad["metadata"]["quality"]["checks"].append({"check": "range", "column": "fare", "max": 1})
    rides_config.write_text(json.dumps(bad))
    with pytest.raises(ldp.QualityBlocked, match="range"):
        ldp.run(rides_config)


def test_help_documents_the_api():
    assert "not sandboxed" in ldp.run.__doc__
    assert "pyarrow.Table" in ldp.query.__doc__
    assert ldp.version().startswith("ldp ")


def test_a_workflow_plans_and_runs_a_window_once(tmp_path):
    import shutil

    from conftest import EXAMPLES

    shop = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "workflows", shop)
    window = "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z"  # 1 August in Paris
    plan = ldp.workflow.plan(shop / "nightly.json", window=window)
    assert [t["id"] for t in plan["tasks"]] == ["orders", "tidy"]
    first = ldp.workflow.run(shop / "nightly.json", window=window)
    again = ldp.workflow.run(shop / "nightly.json", window=window)
    assert first["status"] == "succeeded" and first["counts"]["published"] == 1, first
    assert again["status"] == "succeeded" and "published" not in again["counts"], again
    table = ldp.Lake(shop / "daily_orders.json")["orders"]
    keyed = [s for s in table.snapshots() if s.summary.get("ldp.idempotency-key")]
    assert len(keyed) == 1  # the second run of the window published nothing
