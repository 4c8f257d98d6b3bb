"""Access statistics are gathered in memory and written now and then, not on each recall."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.write.access_stats import AccessCount, AccessTally, by_times

MOMENT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_counts_are_due_once_the_interval_has_passed_and_said_due_once() -> None:
    clock = Clock()
    tally = AccessTally(300, clock=clock)
    assert not tally.note(["a", "b"], MOMENT)
    clock.now = 299
    assert not tally.note(["a"], MOMENT + timedelta(seconds=1))
    clock.now = 300
    assert tally.note(["c"], MOMENT)
    assert not tally.note(["c"], MOMENT)  # already announced: one write queued, not two
    taken = tally.take()
    assert taken == {
        "a": AccessCount(2, MOMENT + timedelta(seconds=1)),
        "b": AccessCount(1, MOMENT),
        "c": AccessCount(2, MOMENT),
    }
    assert len(tally) == 0
    assert not tally.note(["a"], MOMENT)  # the interval starts again at the take


def test_counts_are_due_when_too_many_memories_wait() -> None:
    tally = AccessTally(3600, max_pending=3, clock=Clock())
    assert not tally.note(["a", "b"], MOMENT)
    assert tally.note(["c"], MOMENT)


def test_zero_seconds_makes_every_recall_due() -> None:
    tally = AccessTally(0, clock=Clock())
    assert tally.note(["a"], MOMENT)
    tally.take()
    assert tally.note(["a"], MOMENT)


def test_writes_group_memories_by_their_number_of_recalls() -> None:
    later = MOMENT + timedelta(minutes=1)
    counts = {
        "a": AccessCount(1, MOMENT),
        "b": AccessCount(2, MOMENT),
        "c": AccessCount(1, later),
    }
    assert by_times(counts) == [(1, ["a", "c"], later), (2, ["b"], MOMENT)]


def test_recalls_commit_nothing_until_the_counts_are_written_at_close(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    tracked = settings.model_copy(update={"track_access": True, "access_write_seconds": 3600})
    service = make_service(tracked)
    kept = service.remember("The backup server is called Nimbus", Category.ENTITIES)
    other = service.remember("Deployments happen on Tuesdays after standup", Category.PATTERNS)
    version = service.store.table.version
    for _ in range(5):
        assert service.recall("backup server Nimbus", limit=1)[0].memory.id == kept.memory.id
    service.recall("when do deployments happen", limit=1)
    assert service.store.table.version == version
    service.close()
    reopened = make_service(settings)
    stored = reopened.store.get([kept.memory.id, other.memory.id])
    assert stored[kept.memory.id].access_count == 5
    assert stored[other.memory.id].access_count == 1
    assert stored[kept.memory.id].last_accessed_at is not None
    # two groups (recalled five times, once): two commits for six recalls
    assert reopened.store.table.version == version + 2


def test_without_an_interval_each_recall_writes_in_the_background(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    tracked = settings.model_copy(update={"track_access": True, "access_write_seconds": 0})
    service = make_service(tracked)
    kept = service.remember("The backup server is called Nimbus", Category.ENTITIES)
    service.recall("backup server Nimbus", limit=1)
    service.recall("backup server Nimbus", limit=1)
    service.close()
    assert make_service(settings).store.get([kept.memory.id])[kept.memory.id].access_count == 2
