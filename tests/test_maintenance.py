import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from openclaw_tinmem.errors import InvalidArgumentError, StoreError
from openclaw_tinmem.maintenance import (
    export_memories,
    import_memories,
    parse_import_line,
    reembed,
    statistics,
    write_jsonl_file,
)
from openclaw_tinmem.models import MAX_CONTENT_CHARACTERS, Category, Draft, Provenance, Source
from openclaw_tinmem.service import MemoryService


def test_reembed_swaps_the_table_and_keeps_every_memory(service: MemoryService) -> None:
    first = service.remember(
        "The deploy pipeline uses Buildkite", Category.ENTITIES, tags=["ci"]
    ).memory
    service.remember("Coffee, never tea", Category.PREFERENCES)
    ((_, vector_before),) = service.store.get_with_vectors([first.id])
    assert reembed(service) == 2
    ((after, vector_after),) = service.store.get_with_vectors([first.id])
    assert after.tags == ["ci"] and after.created_at == first.created_at
    # Same model: vectors agree up to int8 batch-padding noise.
    assert float(np.dot(vector_before, vector_after)) > 0.99
    assert service.recall("Buildkite")[0].memory.id == first.id


def test_reembed_keeps_what_other_writers_did_while_it_embedded(
    service: MemoryService, settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    kept = service.remember("The deploy pipeline uses Buildkite", Category.ENTITIES).memory
    gone = service.remember("Coffee, never tea", Category.PREFERENCES).memory
    other = make_service(settings)  # another process on the same store
    written: list[str] = []

    def another_writer_meanwhile(done: int) -> None:
        if not written:
            written.append(
                other.remember("Staging runs Kubernetes 1.30", Category.ENTITIES).memory.id
            )
            other.update(kept.id, content="The deploy pipeline uses GitHub Actions")
            other.forget(memory_id=gone.id)

    assert reembed(service, progress=another_writer_meanwhile) == 2
    stored = {memory.id: memory for memory in service.store.list_memories(limit=None)}
    assert set(stored) == {kept.id, written[0]}
    assert stored[kept.id].content == "The deploy pipeline uses GitHub Actions"
    assert service.recall("GitHub Actions")[0].memory.id == kept.id  # embedded as it is now
    assert service.recall("Kubernetes staging")[0].memory.id == written[0]


def test_import_counts_progress_and_derives_stable_ids(service: MemoryService) -> None:
    lines = [
        '{"content": "Prefers metric units", "category": "preferences"}',
        "",
        '{"content": "Born in 1990", "category": "profile", "scope": "user:ana"}',
    ]
    seen: list[int] = []
    report = import_memories(service, lines, progress=seen.append)
    assert report.imported == 2 and sum(seen) == 2
    import_memories(service, lines)
    figures = statistics(service.store)
    assert figures["total"] == 2 and figures["by_scope"] == {"global": 1, "user:ana": 1}
    assert figures["by_source"] == {"import": 2}


def test_import_keeps_given_times_and_reads_times_without_offset_as_utc(
    service: MemoryService,
) -> None:
    lines = [
        '{"content": "Moved to Lisbon", "category": "events", "created_at": "2023-05-08T13:56:00"}',
        '{"content": "Started at Acme", "category": "events", "created_at": "2023-05-08T15:56:00+02:00"}',
        '{"content": "Likes tea", "category": "preferences"}',
    ]
    import_memories(service, lines)
    created = {m.content: m.created_at for m in service.store.list_memories(limit=10)}
    assert created["Moved to Lisbon"] == created["Started at Acme"]
    assert created["Moved to Lisbon"] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert created["Likes tea"] > datetime(2026, 1, 1, tzinfo=UTC)  # now


class CountingSummarizer:
    """The rule summarizer, counting how often it is asked (with an LLM each ask is a call)."""

    def __init__(self) -> None:
        from openclaw_tinmem.write.levels import RuleSummarizer

        self.inner = RuleSummarizer()
        self.calls = 0

    def levels(self, content: str) -> tuple[str, str]:
        self.calls += 1
        return self.inner.levels(content)


def test_import_writes_levels_only_where_a_line_lacks_them(settings, make_service) -> None:  # type: ignore[no-untyped-def]
    summarizer = CountingSummarizer()
    service = make_service(settings, summarizer=summarizer)
    lines = [
        '{"content": "Prefers metric units. Always.", "category": "preferences", "headline": "Metric", "summary": "Uses metric."}',
        '{"content": "Born in 1990 in Porto. Moved to Lisbon later.", "category": "profile"}',
    ]
    import_memories(service, lines)
    assert summarizer.calls == 1
    memories = {m.category.value: m for m in service.store.list_memories()}
    assert memories["preferences"].headline == "Metric"
    assert memories["profile"].headline == "Born in 1990 in Porto."


def test_context_survives_export_and_import_and_bad_context_names_the_field(
    service: MemoryService,
    settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    line = json.dumps(
        {"content": "Three times a week", "category": "events", "context": "How often?"}
    )
    import_memories(service, [line])
    (record,) = list(export_memories(service.store))
    assert record["context"] == "How often?"
    other = make_service(settings.model_copy(update={"db_path": settings.db_path + "-copy"}))
    import_memories(other, [json.dumps(record)])
    assert other.store.list_memories()[0].context == "How often?"
    bad = json.dumps({"content": "x", "category": "events", "context": ["not", "text"]})
    with pytest.raises(InvalidArgumentError) as caught:
        import_memories(other, [bad])
    assert caught.value.field == "context" and "line 1" in str(caught.value)


def test_every_invalid_line_is_reported_and_nothing_written_unless_asked(
    service: MemoryService,
) -> None:
    lines = [
        '{"content": "Prefers metric units", "category": "preferences"}',
        '{"content": "Bad category", "category": "moods"}',
        "not json at all",
        '{"category": "events"}',
        '{"content": "Likes tea", "category": "preferences", "importance": 7}',
        '{"content": "Likes \\ud800 coffee", "category": "preferences"}',  # a broken escape
        '{"content": "Secret", "category": "events", "scope": "../etc"}',
        '{"id": "00000000-0000-4000-8000-000000000001", "content": "A", "category": "events"}',
        '{"id": "00000000-0000-4000-8000-000000000001", "content": "B", "category": "events"}',
        '{"content": "Prefers metric units", "category": "preferences"}',  # the same line again
        '{"content": "Typo", "category": "events", "scpoe": "agent:alice"}',
        '{"content": "Tags", "category": "events", "tags": "ops"}',
        '{"content": "Count", "category": "events", "access_count": -3}',
    ]
    with pytest.raises(InvalidArgumentError) as caught:
        import_memories(service, lines)
    message = caught.value.message
    assert message.startswith("10 invalid line(s); nothing was written")
    for expected in (
        "line 2: category",
        "line 3: not valid JSON",
        "line 4: content is required",
        "line 5: importance",
        "line 6: content is not valid Unicode",
        "line 7: invalid scope",
        "line 9: id 00000000-0000-4000-8000-000000000001 is also the id of line 8",
        "line 11: unknown field 'scpoe'; allowed: id, scope, category",
        "line 12: tags must be a list of strings",
        "line 13: access_count",
    ):
        assert expected in message
    assert service.store.count() == 0
    report = import_memories(service, lines, skip_invalid=True)
    assert report.imported == 2 and len(report.problems) == 10 and service.store.count() == 2


def test_a_failed_export_leaves_the_file_that_was_there(tmp_path: Path) -> None:
    (tmp_path / "exports").mkdir()
    backup = tmp_path / "exports" / "backup.jsonl"
    backup.write_text('{"content": "kept"}\n')

    def failing() -> Iterator[dict[str, Any]]:
        yield {"content": "first"}
        raise StoreError("the store failed halfway")

    with pytest.raises(StoreError):
        write_jsonl_file(failing(), backup)
    assert backup.read_text() == '{"content": "kept"}\n'
    assert [path.name for path in backup.parent.iterdir()] == ["backup.jsonl"]
    assert write_jsonl_file(iter([{"content": "new"}]), backup) == 1
    assert backup.read_text() == '{"content": "new"}\n'


def test_an_export_keeps_the_files_permissions_and_links(tmp_path: Path) -> None:
    private = tmp_path / "private.jsonl"
    private.write_text("")
    private.chmod(0o600)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(private)
    assert write_jsonl_file(iter([{"content": "a"}]), link) == 1
    assert link.is_symlink() and private.read_text() == '{"content": "a"}\n'
    assert private.stat().st_mode & 0o777 == 0o600
    assert write_jsonl_file(iter([{"content": "b"}]), Path(os.devnull)) == 1


def test_unchanged_lines_are_recognised_and_skipped(settings, make_service) -> None:  # type: ignore[no-untyped-def]
    counting = CountingSummarizer()
    service = make_service(settings, summarizer=counting)
    lines = [
        json.dumps({"content": f"Note {n} about the roadmap", "category": "events"})
        for n in range(20)
    ]
    assert import_memories(service, lines).imported == 20
    asked, version = counting.calls, service.store.table.version
    assert asked == 20  # the first import wrote every line's levels
    again = import_memories(service, lines)
    assert (again.imported, again.unchanged) == (0, 20)
    assert counting.calls == asked and service.store.table.version == version  # nothing redone
    changed = [
        *lines[:19],
        json.dumps(
            {"content": "Note 19 about the roadmap", "category": "events", "importance": 0.9}
        ),
    ]
    assert import_memories(service, changed).imported == 1


def test_time_and_provenance_survive_export_and_import(
    service: MemoryService,
    settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    where = Provenance(speakers=("Ana",), session_id="s-9", message_ids=("m-1", "m-2"))
    said = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    service.remember_many(
        [
            Draft(
                content="Ana: I moved to Porto.",
                category=Category.EVENTS,
                source=Source.INGEST,
                provenance=where,
                created_at=said,
            )
        ]
    )
    (record,) = list(export_memories(service.store))
    assert record["provenance"]["message_ids"] == ["m-1", "m-2"] and record["source"] == "ingest"
    other = make_service(settings.model_copy(update={"db_path": settings.db_path + "-copy"}))
    import_memories(other, [json.dumps(record)])
    (copied,) = other.store.list_memories()
    assert (copied.provenance, copied.created_at, copied.source) == (where, said, Source.INGEST)
    bad = json.dumps({**record, "provenance": {"message_ids": "m-1"}})
    with pytest.raises(InvalidArgumentError) as caught:
        import_memories(other, [bad])
    assert "provenance" in str(caught.value)


def test_import_refuses_content_past_the_limit_and_writes_nothing(service: MemoryService) -> None:
    lines = [
        json.dumps({"content": "The deploy window is Tuesday.", "category": "events"}),
        json.dumps({"content": "x" * (MAX_CONTENT_CHARACTERS + 1), "category": "events"}),
    ]
    with pytest.raises(InvalidArgumentError, match="line 2: content is 20,001 characters"):
        import_memories(service, lines)
    assert service.store.count() == 0


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"content": ["a", "b"], "category": "events"}, "content"),
        ({"content": {"x": 1}, "category": "events"}, "content"),
        ({"content": 42, "category": "events"}, "content"),
        ({"content": True, "category": "events"}, "content"),
        ({"content": "fine", "headline": ["h"], "category": "events"}, "headline"),
        ({"content": "fine", "scope": 7, "category": "events"}, "scope"),
    ],
)
def test_an_import_line_with_other_than_text_where_text_goes_is_refused(
    record: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=f"line 3: {field} must be text") as caught:
        parse_import_line(json.dumps(record), 3)
    assert caught.value.field == field


def test_an_imported_headline_is_kept_when_only_the_summary_is_written(
    service: MemoryService,
) -> None:
    line = {
        "id": "5f0c6f1e-1111-4a4a-8b8b-000000000001",
        "content": "The API gateway is Kong, chosen in 2023 for its plugins.",
        "category": "entities",
        "headline": "Gateway: Kong",
    }
    assert import_memories(service, [json.dumps(line)]).imported == 1
    stored = service.get(line["id"])
    assert stored.headline == "Gateway: Kong" and stored.summary


@pytest.mark.parametrize(
    ("record", "field", "said"),
    [
        ({"provenance": {"user_Id": "ana"}}, "provenance.user_Id", "allowed: agent_id, user_id"),
        ({"provenance": "ana"}, "provenance", "must be an object, not text"),
        ({"importance": True}, "importance", "must be a number, not true or false"),
        ({"access_count": False}, "access_count", "must be a number, not true or false"),
        ({"created_at": "9999-01-01T00:00:00+00:00"}, "created_at", "in the future"),
        ({"updated_at": "yesterday"}, "updated_at", "'yesterday' is not a time"),
    ],
)
def test_an_import_line_the_tools_would_refuse_is_refused(
    record: dict[str, Any], field: str, said: str
) -> None:
    """A misspelt provenance key would make a user's memory everyone's: named, not dropped."""
    line = {
        "content": "I am allergic to peanuts.",
        "category": "profile",
        "scope": "agent:x",
        **record,
    }
    with pytest.raises(InvalidArgumentError) as raised:
        parse_import_line(json.dumps(line), 4)
    assert raised.value.field == field and said in raised.value.message
    assert raised.value.message.startswith("line 4: ")


def test_an_import_line_updated_but_not_made_is_made_when_last_updated() -> None:
    line = {
        "content": "Billing uses PostgreSQL.",
        "category": "events",
        "updated_at": "2020-01-01T00:00Z",
    }
    memory = parse_import_line(json.dumps(line), 1).memory
    assert memory.created_at == memory.updated_at == datetime(2020, 1, 1, tzinfo=UTC)


def test_what_an_export_may_hold_is_taken_as_a_memory_may_be() -> None:
    """A rule-written headline past 400 characters (one long URL), a message said a moment
    ahead of the clock that stored it, a time without offset: imported, not refused."""
    line = {
        "content": "See https://example.org/" + "a" * 600,
        "category": "entities",
        "headline": "See https://example.org/" + "a" * 600,
        "created_at": "2024-02-01T00:00:30+00:00",
        "updated_at": "2024-02-01T00:00:00",
    }
    memory = parse_import_line(json.dumps(line), 1).memory
    assert len(memory.headline) == 400 and memory.headline.endswith("…")
    assert memory.created_at == memory.updated_at == datetime(2024, 2, 1, 0, 0, 30, tzinfo=UTC)
    numeric = {"content": "x", "category": "events", "created_at": 1_700_000_000}
    numeric["updated_at"] = "2025-01-01T00:00:00Z"
    assert parse_import_line(json.dumps(numeric), 1).memory.created_at.year == 2023


def test_an_import_time_of_null_is_a_missing_time() -> None:
    line = {"content": "x", "category": "events", "created_at": None, "last_accessed_at": None}
    memory = parse_import_line(json.dumps(line), 1).memory
    assert memory.created_at.year >= 2026 and memory.last_accessed_at is None
