from pathlib import Path

import lancedb
import pyarrow as pa

from openclaw_tinmem.store.snapshot import Snapshot, SnapshotCache
from openclaw_tinmem.store.versions import TableVersions


def _table(path: Path) -> lancedb.table.Table:
    rows = pa.table({"id": ["a"], "content": ["first"]})
    return lancedb.connect(path).create_table("memories", rows)


def _no_load(previous: Snapshot | None, version: int) -> Snapshot:
    raise AssertionError("nothing here reads the table's rows")


def test_the_version_is_asked_again_only_when_due_or_forgotten(tmp_path: Path) -> None:
    table = _table(tmp_path)
    seconds = [3600.0]
    versions = TableVersions(lambda: table, SnapshotCache(_no_load), lambda: seconds[0])
    first = versions.current()
    assert first == table.version

    table.add(pa.table({"id": ["b"], "content": ["second"]}))  # a commit the versions missed
    assert versions.current() == first  # asked within the hour: the known version stands
    versions.forget()
    assert versions.current() == first + 1

    table.add(pa.table({"id": ["c"], "content": ["third"]}))
    seconds[0] = 0.0  # every read is due
    assert versions.current() == first + 2


def test_the_schema_is_asked_again_after_another_process_committed(tmp_path: Path) -> None:
    table = _table(tmp_path)
    versions = TableVersions(lambda: table, SnapshotCache(_no_load), lambda: 0.0)
    versions.current()
    assert versions.schema().names == ["id", "content"]
    table.add_columns({"note": "'none'"})  # a migration by another writer
    assert versions.schema().names == ["id", "content"]  # no new commit seen yet
    versions.current()
    assert versions.schema().names == ["id", "content", "note"]


def _loaded(previous: Snapshot | None, version: int) -> Snapshot:
    rows = {"id": ["a"], "scope": ["global"], "category": ["cases"], "vector": [[1.0, 0.0]]}
    return Snapshot.from_arrow(version, pa.table(rows), 2)


def test_an_own_commit_right_after_the_known_version_advances_the_copy(tmp_path: Path) -> None:
    table = _table(tmp_path)
    snapshots = SnapshotCache(_loaded)
    versions = TableVersions(lambda: table, snapshots, lambda: 3600.0)
    before = versions.current()
    snapshots.snapshot(before)

    versions.published(before + 1)
    assert versions.current() == before + 1  # known without asking LanceDB
    assert snapshots.latest() is not None and snapshots.latest().version == before + 1

    versions.published(before + 5)  # other writers came between: the next read catches up
    assert versions.current() == before + 5
    assert snapshots.latest().version == before + 1
