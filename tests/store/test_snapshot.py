from datetime import UTC, datetime

import numpy as np
import pyarrow as pa

from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.snapshot import Snapshot, SnapshotCache


def _table(ids: list[str], scopes: list[str], vectors: list[list[float]]) -> pa.Table:
    matrix = np.asarray(vectors, dtype=np.float32)
    return pa.table(
        {
            "id": ids,
            "scope": scopes,
            "category": ["events"] * len(ids),
            "access_count": [0] * len(ids),
            "last_accessed_at": pa.array([None] * len(ids), pa.timestamp("us", tz="UTC")),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel(), pa.float32()), 2),
        }
    )


def test_search_filters_by_scope_and_orders_by_cosine() -> None:
    snapshot = Snapshot.from_arrow(
        1, _table(["a", "b", "c"], ["global", "global", "user:x"], [[1, 0], [0.8, 0.6], [0, 1]]), 2
    )
    query = np.array([0, 1], dtype=np.float32)
    assert [i for i, _ in snapshot.search(query, 5)] == ["c", "b", "a"]
    assert [i for i, _ in snapshot.search(query, 5, scopes=["global"])] == ["b", "a"]
    assert snapshot.search(query, 5, scopes=["user:y"]) == []
    assert snapshot.search(query, 5, scopes=["global"], categories=["cases"]) == []


def test_rows_come_in_the_order_asked_few_or_many_and_across_chunks() -> None:
    ids = [f"m{number:03d}" for number in range(60)]
    snapshot = Snapshot.from_arrow(1, _table(ids[:30], ["global"] * 30, [[1, 0]] * 30), 2)
    appended = _table(ids[30:], ["user:x"] * 30, [[0, 1]] * 30)
    vectors = np.array([[0, 1]] * 30, dtype=np.float32)
    snapshot = snapshot.changed(2, appended.drop_columns(["vector"]), vectors, [])
    assert snapshot.records.column("id").num_chunks == 2
    few = ["m045", "missing", "m003", "m031"]  # slices, one per row
    assert [row["id"] for row in snapshot.rows(few)] == ["m045", "m003", "m031"]
    many = [*reversed(ids), "missing"]  # more than FEW_ROWS: one take
    rows = snapshot.rows(many)
    assert [row["id"] for row in rows] == list(reversed(ids))
    assert rows[0]["scope"] == "user:x" and rows[-1]["scope"] == "global"


def test_changing_a_snapshot_equals_reloading_it() -> None:
    loads: list[int] = []

    def load(previous: Snapshot | None, version: int) -> Snapshot:
        loads.append(version)
        return Snapshot.from_arrow(1, _table(["a", "b"], ["global", "global"], [[1, 0], [0, 1]]), 2)

    cache = SnapshotCache(load)
    cache.snapshot(1)
    upserted = _table(["b", "c"], ["global", "user:z"], [[0.6, 0.8], [0.8, 0.6]]).drop_columns(
        ["vector"]
    )
    vectors = np.array([[0.6, 0.8], [0.8, 0.6]], dtype=np.float32)
    cache.advance(1, 2, lambda old: old.changed(2, upserted, vectors, ["a"]))
    advanced = cache.snapshot(2)
    assert len(loads) == 1
    assert sorted(advanced.positions) == ["b", "c"]
    assert advanced.search(np.array([1, 0], dtype=np.float32), 1, scopes=["user:z"])[0][0] == "c"
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    cache.advance(2, 3, lambda old: old.touched(3, ["c"], moment))
    (row,) = cache.snapshot(3).rows(["c"])
    assert row["access_count"] == 1 and row["last_accessed_at"] == moment
    cache.advance(7, 8)  # not on top of the held version: kept, brought up to date on read
    assert cache.latest() is not None and cache.latest().version == 3  # type: ignore[union-attr]
    cache.snapshot(1)
    assert len(loads) == 2


def test_writes_and_access_updates_do_not_reload(service: MemoryService) -> None:
    service.remember("The CI runs on Buildkite", Category.ENTITIES)
    service.recall("CI system")
    for number in range(3):
        service.remember(f"Incident {number} was resolved by restarting the queue", Category.CASES)
        service.store.record_access([service.recall("queue incident")[0].memory.id])
    service.store.optimize()
    assert service.recall("Buildkite")[0].memory.content == "The CI runs on Buildkite"
    assert service.store.snapshot_loads == {"whole": 1}
    from openclaw_tinmem.store.table import MemoryStore

    fresh = MemoryStore(
        service.settings, model_name=service.store.model_name, dimension=service.store.dimension
    )
    ids = sorted(fresh.snapshot().positions)
    assert ids == sorted(service.store.snapshot().positions)
    for memory_id in ids:  # the advanced copy equals what a fresh reader loads
        assert fresh.get([memory_id]) == service.store.get([memory_id])


def test_limit_beyond_the_rows_and_dead_rows() -> None:
    snapshot = Snapshot.from_arrow(1, _table(["a", "b"], ["global", "global"], [[1, 0], [0, 1]]), 2)
    assert len(snapshot.search(np.array([1, 0], dtype=np.float32), 50)) == 2
    rewritten = _table(["a"], ["global"], [[0, 1]]).drop_columns(["vector"])
    changed = snapshot.changed(2, rewritten, np.array([[0, 1]], dtype=np.float32), ["b"])
    hits = changed.search(np.array([0, 1], dtype=np.float32), 50)
    assert [i for i, _ in hits] == ["a"] and hits[0][1] == 1.0  # only the new version of "a"
    assert (
        snapshot.search(np.array([1, 0], dtype=np.float32), 1)[0][0] == "a"
    )  # the old view is intact


def test_tally_counts_live_rows_by_category_and_iso_week_of_creation() -> None:
    table = _table(["a", "b", "c"], ["global", "global", "user:x"], [[1, 0], [0, 1], [1, 0]])
    table = table.set_column(2, "category", pa.array(["events", "cases", "events"]))
    created = [datetime(2021, 1, 3, tzinfo=UTC), datetime(2021, 1, 4, tzinfo=UTC)] * 2
    table = table.append_column("created_at", pa.array(created[:3], pa.timestamp("us", tz="UTC")))
    snapshot = Snapshot.from_arrow(1, table, 2)
    # 3 January 2021 is a Sunday: ISO week 53 of 2020; the Monday after starts 2021's first
    assert snapshot.tally(None) == ({"events": 2, "cases": 1}, {"2020-W53": 2, "2021-W01": 1})
    assert snapshot.tally(["global"]) == ({"events": 1, "cases": 1}, {"2020-W53": 1, "2021-W01": 1})
    assert snapshot.tally(["user:y"]) == ({}, {})
    gone = snapshot.changed(2, None, None, ["b"])
    assert gone.tally(None) == ({"events": 2}, {"2020-W53": 2})
