"""Episode retention: old episodes go, their facts and recent episodes stay, history keeps them."""

from datetime import UTC, datetime, timedelta

import pytest

from openclaw_tinmem.capture.episodes import EPISODE_TAG
from openclaw_tinmem.capture.extraction import RuleExtractor
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import NotFoundError
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import FOLDED_TAG, Memory
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.write.retention import expire_episodes, expired_episodes

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def capture(service: MemoryService, said: datetime, text: str) -> list[Memory]:
    """What one captured exchange said at ``said`` keeps (episode and facts), as stored."""
    record = TurnRecord(
        messages=[
            Message("user", text, timestamp=said, id=f"u{said:%j}"),
            Message("assistant", "Thanks, I will keep that in mind.", timestamp=said, id="a"),
        ],
        scope="agent:main",
        ctx=HookContext(agent_id="main", session_id=f"s{said:%j}"),
    )
    outcomes = CapturePipeline(service, RuleExtractor()).process(record)
    return [service.get(outcome.memory.id) for outcome in outcomes]


def episode_of(memories: list[Memory]) -> Memory:
    (episode,) = [memory for memory in memories if EPISODE_TAG in memory.tags]
    return episode


def test_episodes_older_than_the_retention_go_and_their_facts_stay(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service: MemoryService = make_service(
        settings.model_copy(update={"episode_retention_days": 30})
    )
    old = capture(service, NOW - timedelta(days=45), "My name is Ana and I prefer aisle seats.")
    recent = capture(service, NOW - timedelta(days=5), "We decided to fly to Lisbon in May.")
    old_facts = [memory for memory in old if EPISODE_TAG not in memory.tags]
    assert old_facts, "the rules keep the old exchange's facts"

    assert [m.id for m in expired_episodes(service.store, service.settings, NOW)] == [
        episode_of(old).id
    ]
    assert expire_episodes(service.store, service.settings, service.writer, NOW) == 1

    left = {memory.id for memory in service.store.list_memories(limit=None)}
    assert episode_of(old).id not in left
    assert episode_of(recent).id in left
    assert {fact.id for fact in old_facts} <= left
    events = service.history(episode_of(old).id)
    assert events[-1].action is HistoryAction.FORGOTTEN
    assert "episode retention" in events[-1].actor
    assert service.restore(episode_of(old).id).content == episode_of(old).content


def test_without_a_retention_every_episode_is_kept(service: MemoryService) -> None:
    assert service.settings.episode_retention_days == 0
    capture(service, NOW - timedelta(days=4000), "We decided to move to Porto next spring.")
    assert expire_episodes(service.store, service.settings, service.writer, NOW) == 0
    assert service.store.count() >= 1


def test_capture_forgets_expired_episodes_in_the_background(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    tuned = settings.model_copy(update={"episode_retention_days": 30, "optimize_every_writes": 1})
    service: MemoryService = make_service(tuned)
    old = episode_of(capture(service, datetime.now(UTC) - timedelta(days=45), "We moved to Porto."))
    capture(service, datetime.now(UTC), "We decided to fly to Lisbon in May.")
    service.store.upkeep.wait()
    assert old.id not in {memory.id for memory in service.store.list_memories(limit=None)}


def test_a_purged_folded_session_takes_its_episodes_history_with_it(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service: MemoryService = make_service(
        settings.model_copy(update={"episode_retention_days": 30})
    )
    episode = episode_of(capture(service, NOW - timedelta(days=45), "We moved the vault key."))
    assert expire_episodes(service.store, service.settings, service.writer, NOW) == 1
    (folded,) = [m for m in service.store.list_memories(limit=None) if FOLDED_TAG in m.tags]
    assert "vault key" in str(service.history(episode.id)[-1].before)  # restorable till now
    service.forget(memory_id=folded.id, purge=True)
    with pytest.raises(NotFoundError):
        service.history(episode.id)  # no event of the episode is left
    with pytest.raises(NotFoundError):
        service.restore(episode.id)
