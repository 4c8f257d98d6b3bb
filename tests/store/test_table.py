import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
import pytest
from lance.dataset import DatasetOptimizer, LanceDataset

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.errors import InvalidArgumentError, ModelMismatchError
from openclaw_tinmem.models import Category, utc_now
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.schema import memory_schema
from openclaw_tinmem.store.table import MemoryStore


def test_opening_with_another_model_names_both_and_points_to_reembed(
    settings: Settings, service: MemoryService
) -> None:
    with pytest.raises(ModelMismatchError) as caught:
        MemoryStore(settings, model_name="other/model", dimension=768)
    message = caught.value.message
    assert "openclaw-tinmem/bge-small-en-int8" in message and "other/model" in message
    assert "tinmem reembed" in message


def test_embeddings_are_kept_as_float16_and_a_float32_table_keeps_its_own(
    settings: Settings,
    embedder: FastEmbedEmbedder,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    service = make_service(settings)
    text = "The staging cluster runs on Kubernetes 1.30"
    first = service.remember(text, Category.ENTITIES).memory
    assert service.store.table.schema.field("vector").type.value_type == pa.float16()
    ((_, vector),) = service.store.get_with_vectors([first.id])
    assert vector.dtype == np.float32
    assert np.abs(vector - embedder.embed_documents([text])[0]).max() < 1e-3
    # a store created with float32 embeddings (by an earlier version) keeps them
    older = settings.model_copy(update={"db_path": str(Path(settings.db_path).parent / "older")})
    current = memory_schema(embedder.model_name, embedder.dimension)
    float32 = pa.field("vector", pa.list_(pa.float32(), embedder.dimension))
    schema = current.set(current.get_field_index("vector"), float32)
    lancedb.connect(older.resolved_db_path()).create_table(older.table_name, schema=schema)
    service = make_service(older)
    kept = service.remember(text, Category.ENTITIES).memory
    assert service.store.table.schema.field("vector").type.value_type == pa.float32()
    assert service.recall("which Kubernetes version does staging run")[0].memory.id == kept.id


def test_a_new_store_keeps_its_text_and_token_vectors_compressed(service: MemoryService) -> None:
    service.remember("The staging cluster runs on Kubernetes 1.30", Category.ENTITIES)
    service.store.optimize()
    stored = LanceDataset(str(Path(service.settings.resolved_db_path()) / "memories.lance"))
    for column in (
        "headline",
        "summary",
        "content",
        "search_text",
        "context",
        "provenance",
        "token_vectors",
    ):
        metadata = stored.schema.field(column).metadata or {}
        assert metadata.get(b"lance-encoding:compression") == b"zstd", column
        assert metadata.get(b"lance-encoding:structural-encoding") == b"miniblock", column


def test_recording_access_keeps_vectors_and_other_fields(service: MemoryService) -> None:
    outcome = service.remember(
        "The staging cluster runs on Kubernetes 1.30", Category.ENTITIES, tags=["k8s"]
    )
    ((before, vector_before),) = service.store.get_with_vectors([outcome.memory.id])
    service.store.record_access([outcome.memory.id])
    service.store.record_access([outcome.memory.id])
    ((after, vector_after),) = service.store.get_with_vectors([outcome.memory.id])
    assert after.access_count == 2 and after.last_accessed_at is not None
    assert np.allclose(vector_before, vector_after)
    assert after.model_dump(exclude={"access_count", "last_accessed_at"}) == before.model_dump(
        exclude={"access_count", "last_accessed_at"}
    )


def test_optimize_keeps_the_version_count_bounded(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    service = make_service(
        settings.model_copy(update={"optimize_every_writes": 5, "version_retention_seconds": 0})
    )
    for number in range(30):
        service.remember(f"Release {number} shipped on day {number}", Category.EVENTS)
    service.store.wait_for_upkeep()
    assert service.store.count() == 30
    assert service.store.version_count() <= 12


def test_upkeep_runs_in_the_background_after_the_write_that_made_it_due(  # type: ignore[no-untyped-def]
    settings: Settings, make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()
    compact_files = DatasetOptimizer.compact_files

    def slow(optimizer, **options):  # type: ignore[no-untyped-def]
        started.set()  # Lance is asked to compact: hold it until the test has looked around
        assert release.wait(10)
        return compact_files(optimizer, **options)

    monkeypatch.setattr(DatasetOptimizer, "compact_files", slow)
    service = make_service(settings.model_copy(update={"optimize_every_writes": 2}))
    for number in range(2):  # the second write makes upkeep due, and returns without it
        service.remember(f"Release {number} shipped on day {number}", Category.EVENTS)
    assert started.wait(30) and not release.is_set()
    table = service.store.table
    assert table.index_stats("search_text_idx").num_unindexed_rows == 2  # not yet folded in
    hits = service.recall("release 1", limit=1)  # reading goes on meanwhile
    assert [hit.memory.content for hit in hits] == ["Release 1 shipped on day 1"]
    release.set()
    service.store.wait_for_upkeep()
    assert service.store.table.index_stats("search_text_idx").num_unindexed_rows == 0


def test_readers_keep_the_published_snapshot_while_upkeep_commits(  # type: ignore[no-untyped-def]
    settings: Settings, make_service, monkeypatch: pytest.MonkeyPatch
) -> None:
    committed, release = threading.Event(), threading.Event()
    cleanup_old_versions = LanceDataset.cleanup_old_versions

    def commit_then_hold(dataset, **options):  # type: ignore[no-untyped-def]
        removed = cleanup_old_versions(dataset, **options)  # upkeep's last step in Lance: the
        committed.set()  # compacted versions are committed...
        assert release.wait(10)  # ...but the store has not published them yet
        return removed

    monkeypatch.setattr(LanceDataset, "cleanup_old_versions", commit_then_hold)
    service = make_service(
        settings.model_copy(update={"optimize_every_writes": 2, "read_consistency_seconds": 0})
    )
    store = service.store
    for number in range(2):
        service.remember(f"Release {number} shipped on day {number}", Category.EVENTS)
    assert committed.wait(10)
    published = store.snapshot()
    assert int(store.table.version) > published.version
    hits = service.recall("release 1", limit=1)  # no reload of the whole table for it
    assert store.snapshot() is published
    assert [hit.memory.content for hit in hits] == ["Release 1 shipped on day 1"]
    release.set()
    store.wait_for_upkeep()
    assert store.snapshot().version == int(store.table.version)  # published, rows unchanged
    assert store.snapshot().size == published.size


@pytest.mark.faults
def test_writers_readers_and_background_upkeep_together_lose_nothing(  # type: ignore[no-untyped-def]
    settings: Settings, make_service
) -> None:
    # The default version retention: with none, upkeep may prune the version a concurrent
    # full-text search is reading, and that read fails (see version_retention_seconds).
    service = make_service(settings.model_copy(update={"optimize_every_writes": 4}))
    errors: list[BaseException] = []
    writing = threading.Event()

    def writer(number: int) -> None:
        try:
            for item in range(12):
                service.remember(f"Writer {number} logged item {item} today", Category.EVENTS)
        except BaseException as error:  # collected and re-raised by the test thread
            errors.append(error)

    def reader() -> None:
        try:
            while writing.is_set():
                service.recall("logged item", limit=5)
        except BaseException as error:
            errors.append(error)

    writing.set()
    readers = [threading.Thread(target=reader) for _ in range(2)]
    writers = [threading.Thread(target=writer, args=(number,)) for number in range(3)]
    for thread in [*readers, *writers]:
        thread.start()
    for thread in writers:
        thread.join(120)
    writing.clear()
    for thread in readers:
        thread.join(30)
    assert not any(thread.is_alive() for thread in [*readers, *writers])  # no deadlock
    assert errors == []
    service.store.wait_for_upkeep()
    stored = service.store.list_memories(limit=None)
    assert sorted(memory.content for memory in stored) == sorted(
        f"Writer {number} logged item {item} today" for number in range(3) for item in range(12)
    )
    assert len(service.store.get([memory.id for memory in stored])) == 36  # snapshot in step
    assert service.store.table.index_stats("search_text_idx").num_unindexed_rows <= 4


def test_failed_upkeep_does_not_fail_the_write_that_triggered_it(  # type: ignore[no-untyped-def]
    settings: Settings,
    make_service,
    lance_unavailable: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = make_service(settings.model_copy(update={"optimize_every_writes": 2}))
    for number in range(5):
        service.remember(f"Release {number} shipped on day {number}", Category.EVENTS)
        service.store.wait_for_upkeep()
    assert service.store.count() == 5
    assert caplog.text.count("table upkeep failed") == 2  # after writes 2 and 4, then retried
    monkeypatch.undo()
    service.store.optimize()  # the next upkeep catches up
    assert service.store.table.index_stats("search_text_idx").num_unindexed_rows == 0
    assert [hit.memory.content for hit in service.recall("release 3", limit=1)] == [
        "Release 3 shipped on day 3"
    ]


@pytest.mark.faults
def test_filter_injection_never_reaches_other_scopes(service: MemoryService) -> None:
    service.remember("Secret launch code is banana", Category.ENTITIES, scope="agent:other")
    service.remember("Public note about bananas", Category.ENTITIES, scope="global")
    hits = service.recall("banana launch code", scopes=["global"])
    assert {hit.memory.scope for hit in hits} == {"global"}
    for hostile in ["global') OR ('1'='1", "global' OR scope = 'agent:other", "agent:other'--"]:
        with pytest.raises(InvalidArgumentError):
            service.recall("banana", scopes=[hostile])
    # Full-text syntax in the query itself is matched as words, never parsed.
    hits = service.recall('scope:agent\\:other OR banana* "launch', scopes=["global"])
    assert all(hit.memory.scope == "global" for hit in hits)


WRITER = textwrap.dedent(
    """
    import sys
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.models import Category, Memory
    from openclaw_tinmem.service import MemoryService
    settings = Settings(db_path=sys.argv[1], model_dir=sys.argv[2], track_access=False)
    service = MemoryService.from_settings(settings)
    vector = service.embedder.embed_documents(["an event"])
    for number in range(15):
        text = f"Writer {sys.argv[3]} logged event number {number}"
        service.store.upsert([Memory(category=Category.EVENTS, headline=text, summary=text, content=text)], vector)
        service.remember("Both writers store this same sentence about the shared deploy", Category.EVENTS)
    service.store.upsert([service.store.get([sys.argv[4]])[sys.argv[4]]], service.embedder.embed_documents(["x"]))
    service.close()
    """
)


@pytest.mark.faults
def test_two_processes_lose_no_write_and_create_no_duplicate(
    settings: Settings, service: MemoryService, embedder: FastEmbedEmbedder
) -> None:
    shared = service.remember("A memory both processes upsert by id", Category.PROFILE).memory.id
    commands = [
        [
            sys.executable,
            "-c",
            WRITER,
            settings.db_path,
            str(settings.resolved_model_dir()),
            name,
            shared,
        ]
        for name in ("a", "b")
    ]
    processes = [
        subprocess.Popen(command, stderr=subprocess.PIPE, text=True) for command in commands
    ]
    for process in processes:
        _, errors = process.communicate(timeout=300)
        assert process.returncode == 0, errors
    fresh = MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
    ids = [row["id"] for batch in fresh.iterate() for row in batch.to_pylist()]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert len(ids) == 1 + 15 + 15 + 1  # shared + each writer's events + one shared sentence
    contents = [row["content"] for batch in fresh.iterate() for row in batch.to_pylist()]
    assert sum("shared deploy" in content for content in contents) == 1


def test_reads_follow_writes_from_another_handle(
    settings: Settings,
    make_service,
    embedder: FastEmbedEmbedder,  # type: ignore[no-untyped-def]
) -> None:
    # read_consistency_seconds bounds how stale a read may be; 0 means always current.
    service = make_service(settings.model_copy(update={"read_consistency_seconds": 0.0}))
    service.recall("warm the vector snapshot")
    other = MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
    vector = embedder.embed_documents(["The office moved to Lisbon"])
    from openclaw_tinmem.models import Memory

    memory = Memory(
        category=Category.EVENTS,
        headline="Office moved",
        summary="s",
        content="The office moved to Lisbon",
    )
    other.upsert([memory], vector)
    assert memory.id in [hit.memory.id for hit in service.recall("where is the office now")]


def test_store_path_is_created(tmp_path: Path, embedder: FastEmbedEmbedder) -> None:
    settings = Settings(db_path=str(tmp_path / "a" / "b"), model_dir=str(tmp_path))
    MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
    assert (tmp_path / "a" / "b").is_dir()


def test_full_text_search_reads_the_end_of_a_memory_s_context(service: MemoryService) -> None:
    from openclaw_tinmem.maintenance import import_memories

    padding = "filler " * 100  # pushes the start of the context out of what is indexed
    import_memories(
        service,
        [
            json.dumps(
                {
                    "content": "Three times a week.",
                    "category": "events",
                    "context": "Kangaroo sanctuary " + padding + "How often do you all swim?",
                }
            ),
            json.dumps({"content": "Mostly on weekends.", "category": "events"}),
        ],
    )
    found = {memory_id for memory_id, _ in service.store.text_search("swim", 10)}
    (memory,) = [m for m in service.store.list_memories() if m.content == "Three times a week."]
    assert found == {memory.id}
    assert service.store.text_search("kangaroo", 10) == []


def test_a_local_write_of_a_change_and_a_new_memory_is_one_conditional_commit(
    service: MemoryService,
) -> None:
    stored = service.remember("The build server is called hopper", Category.ENTITIES).memory
    memory, vector = service.store.get_with_vectors([stored.id])[0]
    changed = memory.model_copy(
        update={"content": "The build server is called lovelace", "updated_at": utc_now()}
    )
    fresh = service.remember("Deploys go out on Fridays", Category.EVENTS).memory
    other, other_vector = service.store.get_with_vectors([fresh.id])[0]
    new = other.model_copy(update={"id": "0b5a3f63-0000-4000-8000-000000000001"})
    before = service.store.table.version
    conflicted = service.store.upsert(
        [changed, new], [vector, other_vector], expected={memory.id: memory.updated_at}
    )
    assert conflicted == frozenset() and service.store.table.version == before + 1
    assert service.get(memory.id).content == "The build server is called lovelace"
    assert service.get(new.id).content == "Deploys go out on Fridays"
    stale = changed.model_copy(update={"content": "The build server is called turing"})
    assert service.store.upsert([stale], [vector], expected={memory.id: memory.updated_at}) == {
        memory.id
    }  # the change is conditional all the same


def test_a_memory_changed_without_checks_is_never_written(service: MemoryService) -> None:
    memory = service.remember("The nightly backup runs at 02:00", Category.PATTERNS).memory
    unchecked = memory.model_copy(update={"importance": 5.0})
    vector = service.embedder.embed_documents([memory.content])[0]
    with pytest.raises(InvalidArgumentError) as caught:
        service.store.upsert([unchecked], [vector])
    assert caught.value.field == "importance"
    assert service.get(memory.id).importance == memory.importance


def test_a_row_an_older_version_wrote_out_of_range_is_still_read(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    writer = make_service(settings)
    memory = writer.remember("The nightly backup runs at 02:00", Category.PATTERNS).memory
    writer.store.table.update(
        where=f"id = '{memory.id}'", values={"importance": 5.0, "access_count": -3}
    )
    service = make_service(settings)  # another process, opening the store afterwards
    read = service.get(memory.id)
    assert read.importance == 1.0 and read.access_count == 0
    assert [hit.memory.id for hit in service.recall("nightly backup")] == [memory.id]
    assert service.update(memory.id, importance=0.7).importance == 0.7


def test_a_write_read_before_a_scope_rename_does_not_move_the_memory_back(
    service: MemoryService,
) -> None:
    """Another host renames the scope between this host's read and its conditional write: the
    write is refused as changed meanwhile (to be decided again), not applied to the old scope."""
    store = service.store
    kept = service.remember("The staging cluster runs on Kubernetes 1.30", Category.ENTITIES)
    stale = store.get([kept.memory.id])[kept.memory.id]
    assert store.rename_scope(stale.scope, "project:renamed") == 1
    merged = stale.model_copy(update={"content": stale.content + "; upgraded in May"})
    ((_, vector),) = store.get_with_vectors([stale.id])
    conflicted = store.upsert([merged], [vector], expected={stale.id: stale.updated_at})
    assert conflicted == {stale.id}
    assert store.get([stale.id])[stale.id].scope == "project:renamed"
