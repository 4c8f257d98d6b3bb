"""A reader brought up to another writer's commits by what changed equals one that reloads."""

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lance.fragment import LanceFragment

from benchmarks.s3_server import MOTO_SERVER
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, Memory
from openclaw_tinmem.store.table import MemoryStore

DIMENSION = 4


@pytest.fixture(params=["local", "s3"])
def store_settings(request: pytest.FixtureRequest) -> Settings:
    """A local store, and one in a bucket of moto's S3 server (hosts without a shared lock)."""
    if request.param == "s3" and not Path(MOTO_SERVER).exists():
        pytest.skip("moto is not installed")
    settings = request.getfixturevalue("settings" if request.param == "local" else "s3_settings")
    # every read asks for the version, so each step below sees the commit before it
    return settings.model_copy(update={"read_consistency_seconds": 0.0, "history": False})


def _open(settings: Settings) -> MemoryStore:
    return MemoryStore(settings, model_name="test/catch-up", dimension=DIMENSION)


def _vectors(rng: random.Random, count: int) -> np.ndarray:
    matrix = np.array([[rng.gauss(0, 1) for _ in range(DIMENSION)] for _ in range(count)])
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


def _memories(rng: random.Random, count: int) -> list[Memory]:
    scope = rng.choice(["global", "agent:a", "agent:b"])
    texts = [f"note {rng.randrange(10**6)}" for _ in range(count)]
    return [
        Memory(category=Category.EVENTS, headline=t, summary=t, content=t, scope=scope)
        for t in texts
    ]


def _contents(store: MemoryStore) -> dict[str, Any]:
    """Every live row and its vector, as the store's snapshot holds them."""
    snapshot = store.snapshot()
    rows = snapshot.live_records().to_pylist()
    ids = [row["id"] for row in rows]
    vectors = snapshot.vectors_of(ids)
    return {row["id"]: (row, vector.tolist()) for row, vector in zip(rows, vectors, strict=True)}


def _ids(store: MemoryStore) -> list[str]:
    return sorted(_contents(store))


def test_another_writers_commits_are_read_without_reloading_the_table(
    store_settings: Settings,
) -> None:
    rng = random.Random(1)
    _open(store_settings).upsert(_memories(rng, 40), _vectors(rng, 40))
    ours, theirs = _open(store_settings), _open(store_settings)
    ours.snapshot()
    loads_before = ours.snapshot_loads["whole"]

    kept = _ids(theirs)
    changed = theirs.get([kept[0]])[kept[0]].model_copy(update={"content": "rewritten"})
    theirs.upsert([changed], _vectors(rng, 1))  # a merge: same id, new row
    theirs.delete([kept[1]])
    theirs.record_access([kept[2]])
    added = _memories(rng, 3)
    theirs.upsert(added, _vectors(rng, 3))

    assert _contents(ours) == _contents(_open(store_settings))
    assert ours.get([kept[0]])[kept[0]].content == "rewritten"
    assert kept[1] not in ours.get([kept[1]])
    assert ours.get([kept[2]])[kept[2]].access_count == 1
    assert ours.snapshot_loads["whole"] == loads_before and ours.snapshot_loads["caught up"] == 1


def test_a_fragment_emptied_by_another_writer_is_caught_up(store_settings: Settings) -> None:
    rng = random.Random(5)
    _open(store_settings).upsert(_memories(rng, 30), _vectors(rng, 30))
    ours, theirs = _open(store_settings), _open(store_settings)
    ours.snapshot()
    (added,) = _memories(rng, 1)
    theirs.upsert([added], _vectors(rng, 1))  # a fragment of its own
    ours.snapshot()
    fragments = {fragment.fragment_id for fragment in theirs.table.to_lance().get_fragments()}
    theirs.upsert([added.model_copy(update={"content": "changed"})], _vectors(rng, 1))
    now = {fragment.fragment_id for fragment in theirs.table.to_lance().get_fragments()}
    assert fragments - now  # Lance dropped the fragment whose only row was rewritten
    assert _contents(ours) == _contents(_open(store_settings))
    assert ours.get([added.id])[added.id].content == "changed"
    assert ours.snapshot_loads == {"whole": 1, "caught up": 2}


def test_a_scope_rename_is_read_back_at_once_by_the_store_that_made_it(
    store_settings: Settings,
) -> None:
    rng = random.Random(6)
    store = _open(store_settings)
    memories = _memories(rng, 6)
    store.upsert(memories, _vectors(rng, 6))
    old = memories[0].scope
    query = _vectors(rng, 1)[0]
    assert store.rename_scope(old, "project:renamed") == 6
    assert {memory.scope for memory in store.get([m.id for m in memories]).values()} == {
        "project:renamed"
    }
    assert store.vector_search(query, 10, scopes=[old]) == []
    assert len(store.vector_search(query, 10, scopes=["project:renamed"])) == 6
    assert _contents(store) == _contents(_open(store_settings))


def test_compaction_by_another_writer_reloads_the_whole_table(store_settings: Settings) -> None:
    rng = random.Random(2)
    ours, theirs = _open(store_settings), _open(store_settings)
    for _ in range(4):
        ours.upsert(_memories(rng, 5), _vectors(rng, 5))
    ours.snapshot()
    theirs.delete(_ids(theirs)[:3])
    theirs.optimize()  # data files rewritten: row addresses tell nothing any more
    loads_before = ours.snapshot_loads["whole"]
    assert _contents(ours) == _contents(_open(store_settings))
    assert ours.snapshot_loads["whole"] == loads_before + 1


def test_interleaved_writers_always_match_a_fresh_reader(store_settings: Settings) -> None:
    rng = random.Random(3)
    writers = [_open(store_settings), _open(store_settings)]
    writers[0].upsert(_memories(rng, 30), _vectors(rng, 30))
    for step in range(50):
        writer = rng.choice(writers)
        ids = _ids(writer)
        action = rng.choice(["insert", "insert", "update", "update", "delete", "access", "upkeep"])
        if action == "insert" or not ids:
            count = rng.choice([1, 2, 5])
            writer.upsert(_memories(rng, count), _vectors(rng, count))
        elif action == "update":
            chosen = rng.sample(ids, min(len(ids), rng.choice([1, 3])))
            stored = writer.get(chosen)
            updates = [
                stored[i].model_copy(update={"content": f"step {step}", "scope": "agent:b"})
                for i in chosen
            ]
            writer.upsert(updates, _vectors(rng, len(updates)))
        elif action == "delete":
            writer.delete(rng.sample(ids, min(len(ids), rng.choice([1, 2]))))
        elif action == "access":
            writer.record_access(rng.sample(ids, min(len(ids), 2)))
        else:
            writer.optimize()
        fresh = _contents(_open(store_settings))
        for reader in writers:
            assert _contents(reader) == fresh, f"step {step}: {action}"
    assert all(writer.snapshot_loads["caught up"] > 10 for writer in writers)


def test_a_catch_up_that_cannot_read_a_fragment_loads_the_whole_table(
    store_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(4)
    _open(store_settings).upsert(_memories(rng, 10), _vectors(rng, 10))
    ours, theirs = _open(store_settings), _open(store_settings)
    ours.snapshot()
    theirs.delete(_ids(theirs)[:2])  # thins the fragment: a catch-up reads its row addresses

    def unreadable(*arguments: Any, **options: Any) -> None:
        raise OSError("a data file vanished")

    with monkeypatch.context() as patched:
        patched.setattr(LanceFragment, "to_table", unreadable)
        contents = _contents(ours)
    assert contents == _contents(_open(store_settings))
    assert ours.snapshot_loads == {"whole": 2}
