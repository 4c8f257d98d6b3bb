"""Importers from mem0 and OpenClaw's memory-lancedb, on fixtures built from their formats."""

import json
from pathlib import Path

import lancedb
import pyarrow as pa
import pytest

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.importers import mem0_lines, memory_lancedb_lines
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService

MEM0_EXPORT = {
    "results": [
        {
            "id": "0b2f8c1e-3d4a-4b5c-8d6e-7f8091a2b3c4",
            "memory": "Is a vegetarian",
            "hash": "abc",
            "metadata": {"category": "food"},
            "user_id": "alice",
            "created_at": "2024-07-20T10:15:00-07:00",
            "updated_at": "2024-07-21T08:00:00-07:00",
        },
        {
            "id": "1c3f9d2e-4e5b-4c6d-9e7f-8091a2b3c4d5",
            "memory": "I prefer window seats on flights",
            "categories": ["travel"],
            "agent_id": "travel-bot",
        },
        {"id": "mem-42", "memory": "Works on Project Atlas", "categories": ["entities"]},
    ]
}


def test_mem0_memories_come_over_with_their_scopes_times_and_tags(
    service: MemoryService,
) -> None:
    lines = mem0_lines(json.dumps(MEM0_EXPORT))
    report = import_memories(service, lines)
    assert report.imported == 3
    vegetarian = service.get("0b2f8c1e-3d4a-4b5c-8d6e-7f8091a2b3c4")
    assert vegetarian.scope == "user:alice" and vegetarian.tags == ["food"]
    assert vegetarian.created_at.isoformat().startswith("2024-07-20T17:15:00")
    window = service.get("1c3f9d2e-4e5b-4c6d-9e7f-8091a2b3c4d5")
    assert window.scope == "agent:travel-bot" and window.category is Category.PREFERENCES
    (atlas,) = [
        m for m in service.list_memories(scopes=["global"], limit=None) if "Atlas" in m.content
    ]
    assert atlas.category is Category.ENTITIES  # a non-UUID id gets a stable one of its own
    assert import_memories(service, mem0_lines(json.dumps(MEM0_EXPORT))).unchanged == 3


def test_mem0_fields_of_other_kinds_are_named_or_read_as_meant() -> None:
    (line,) = mem0_lines(
        json.dumps([{"memory": "Likes hiking", "categories": "hobbies", "user_id": 5}])
    )
    read = json.loads(line)
    assert read["tags"] == ["hobbies"] and read["scope"] == "user:5"
    for field, value in (("metadata", "food"), ("categories", {"a": 1}), ("user_id", True)):
        with pytest.raises(InvalidArgumentError, match=f"memory 1: {field} must be") as caught:
            mem0_lines(json.dumps([{"memory": "Likes hiking", field: value}]))
        assert caught.value.field == field


def test_memory_lancedb_rows_come_over_with_their_agents(
    service: MemoryService, tmp_path: Path
) -> None:
    database = lancedb.connect(str(tmp_path / "openclaw-memory"))
    rows = [
        {
            "id": "2d4e0a3f-5f6c-4d7e-8f90-a1b2c3d4e5f6",
            "text": "User prefers dark mode",
            "vector": [0.1, 0.2, 0.3, 0.4],
            "importance": 0.9,
            "category": "preference",
            "createdAt": 1_700_000_000_000,
            "agentId": "main",
            "scope": "",
        },
        {
            "id": "3e5f1b40-6a7d-4e8f-9a01-b2c3d4e5f607",
            "text": "We decided to ship on Fridays",
            "vector": [0.4, 0.3, 0.2, 0.1],
            "importance": 0.7,
            "category": "decision",
            "createdAt": 1_700_000_100_000,
            "agentId": "ops",
            "scope": "team",
        },
    ]
    database.create_table("memories", data=pa.Table.from_pylist(rows))
    lines = memory_lancedb_lines(tmp_path / "openclaw-memory")
    assert import_memories(service, lines).imported == 2
    dark = service.get("2d4e0a3f")
    assert (dark.scope, dark.category, dark.importance) == ("agent:main", Category.PREFERENCES, 0.9)
    friday = service.get("3e5f1b40")
    assert friday.scope == "agent:ops" and friday.category is Category.EVENTS
    assert friday.tags == ["scope-team"] and friday.created_at.year == 2023


def test_a_memory_lancedb_row_that_is_no_memory_is_named_and_can_be_skipped(
    service: MemoryService, tmp_path: Path
) -> None:
    database = lancedb.connect(str(tmp_path / "openclaw-memory"))
    good = {"id": "good", "text": "User prefers dark mode", "createdAt": 1_700_000_000_000}
    bad = {"id": "bad", "text": "User lives in Porto", "createdAt": 9_000_000_000_000_000_000}
    database.create_table("memories", data=pa.Table.from_pylist([good, bad]))
    lines = memory_lancedb_lines(tmp_path / "openclaw-memory")
    with pytest.raises(InvalidArgumentError) as refused:
        import_memories(service, lines)
    assert refused.value.field == "created_at" and "9000000000000000000" in refused.value.message
    assert service.store.count() == 0  # nothing half-written
    report = import_memories(service, lines, skip_invalid=True)
    assert report.imported == 1 and len(report.problems) == 1
    database.create_table("notes", data=pa.Table.from_pylist([{"id": "x", "body": "y"}]))
    with pytest.raises(InvalidArgumentError, match="no text column") as missing:
        memory_lancedb_lines(tmp_path / "openclaw-memory", table="notes")
    assert missing.value.field == "source"
