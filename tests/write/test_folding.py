"""Folding: a session's expired episodes become one dated memory of what happened in it."""

from datetime import UTC, datetime, timedelta

from openclaw_tinmem.capture.episodes import EPISODE_TAG
from openclaw_tinmem.capture.extraction import RuleExtractor
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import FOLDED_TAG, Category, Memory, Provenance
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.write.folding import fold, fold_key, fold_sessions, line_of
from openclaw_tinmem.write.retention import expire_episodes

NOW = datetime(2026, 12, 1, tzinfo=UTC)
OLD = NOW - timedelta(days=60)
EXCHANGES = [
    ("We are planning the trip to Kyoto for the spring.", "Spring is a lovely time there."),
    ("The ryokan we booked is called Hoshinoya.", "That one is by the river, I think."),
    ("My sister Lena will join us for the second week.", "Great, so three travellers."),
]


def say(
    service: MemoryService,
    said: datetime,
    text: str,
    reply: str,
    *,
    session: str,
    scope: str,
    user: str | None = None,
) -> None:
    agent = scope.split(":", 1)[1]
    record = TurnRecord(
        messages=[
            Message("user", text, timestamp=said, id=f"{session}-{said:%H%M}-u"),
            Message("assistant", reply, timestamp=said, id=f"{session}-{said:%H%M}-a"),
        ],
        scope=scope,
        ctx=HookContext(agent_id=agent, session_id=session, user_id=user),
    )
    CapturePipeline(service, RuleExtractor()).process(record)


def conversation(
    service: MemoryService,
    start: datetime,
    *,
    session: str = "trip",
    scope: str = "agent:main",
    user: str | None = None,
) -> None:
    for minute, (text, reply) in enumerate(EXCHANGES):
        said = start + timedelta(minutes=minute)
        say(
            service,
            said,
            f"{text} ({user or 'me'})",
            reply,
            session=session,
            scope=scope,
            user=user,
        )


def tagged(service: MemoryService, tag: str) -> list[Memory]:
    return [m for m in service.store.list_memories(limit=None) if tag in m.tags]


def retained(settings: Settings, make_service, **changes: object) -> MemoryService:  # type: ignore[no-untyped-def]
    service: MemoryService = make_service(
        settings.model_copy(update={"episode_retention_days": 30, **changes})
    )
    return service


def test_a_sessions_expired_episodes_become_one_memory_of_what_was_said(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service)
    conversation(service, OLD)
    episodes = sorted(tagged(service, EPISODE_TAG), key=lambda m: m.created_at)
    assert len(episodes) == 3

    assert expire_episodes(service.store, service.settings, service.writer, NOW) == 3

    assert tagged(service, EPISODE_TAG) == []
    (session,) = tagged(service, FOLDED_TAG)
    assert session.category is Category.EVENTS and session.scope == "agent:main"
    assert session.content.splitlines() == [line_of(episode) for episode in episodes]
    assert session.content.startswith(f"[{OLD:%Y-%m-%d %H:%M}]")
    assert session.created_at == OLD
    assert "Hoshinoya" in session.content and "Lena" in session.content
    assert session.headline.startswith(f"Conversation on {OLD:%Y-%m-%d}")
    assert session.importance < min(episode.importance for episode in episodes)
    assert set(session.provenance.message_ids) == {
        key for episode in episodes for key in episode.provenance.message_ids
    }
    assert session.provenance.session_id == "trip"
    assert [event.action for event in service.history(session.id)] == [HistoryAction.CREATED]
    # found by what was said in it, and the forgotten episodes can still be restored
    hits = service.recall("Which ryokan did we book?", min_similarity=0)
    assert session.id in [hit.memory.id for hit in hits]
    assert service.restore(episodes[1].id).content == episodes[1].content


def test_sessions_and_scopes_are_folded_apart(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service)
    conversation(service, OLD, session="trip")
    conversation(service, OLD + timedelta(hours=2), session="trip", scope="agent:other")
    # two users of the agent under one session key: never one memory
    conversation(service, OLD + timedelta(hours=3), session="dm", user="alice")
    conversation(service, OLD + timedelta(hours=4), session="dm", user="bob")
    for minute in range(3):  # the same agent the next day: another session
        said = OLD + timedelta(days=1, minutes=minute)
        text = f"Day two, note {minute}: we should pack the rail passes and the adapters."
        say(service, said, text, "Noted.", session="later", scope="agent:main")
    expire_episodes(service.store, service.settings, service.writer, NOW)
    sessions = tagged(service, FOLDED_TAG)
    assert sorted((m.scope, m.provenance.session_id, m.provenance.user_id) for m in sessions) == [
        ("agent:main", "dm", "alice"),
        ("agent:main", "dm", "bob"),
        ("agent:main", "later", None),
        ("agent:main", "trip", None),
        ("agent:other", "trip", None),
    ]
    assert all(len(m.content.splitlines()) == 3 for m in sessions)
    (bob,) = [m for m in sessions if m.provenance.user_id == "bob"]
    assert "(alice)" not in bob.content


def test_folding_again_adds_nothing_twice_and_later_episodes_join_their_session(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service)
    conversation(service, OLD)
    first_two = sorted(tagged(service, EPISODE_TAG), key=lambda m: m.created_at)[:2]
    # an interrupted run: folded, not yet forgotten; then the whole session again
    fold_sessions(service.store, service.writer, first_two, NOW)
    fold_sessions(service.store, service.writer, first_two, NOW)
    expire_episodes(service.store, service.settings, service.writer, NOW)
    (session,) = tagged(service, FOLDED_TAG)
    assert len(session.content.splitlines()) == 3
    actions = [event.action for event in service.history(session.id)]
    assert actions == [HistoryAction.CREATED, HistoryAction.MERGED]


def test_without_folding_expired_episodes_are_only_forgotten(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service, fold_expired_episodes=False)
    conversation(service, OLD)
    assert expire_episodes(service.store, service.settings, service.writer, NOW) == 3
    assert tagged(service, FOLDED_TAG) == []


def episode(said: datetime, text: str, **provenance: object) -> Memory:
    return Memory(
        scope="agent:main",
        category=Category.EVENTS,
        headline=text,
        summary=text,
        content=text,
        tags=[EPISODE_TAG],
        created_at=said,
        provenance=Provenance(session_id="s", **provenance),  # type: ignore[arg-type]
    )


def test_untrusted_and_trusted_exchanges_are_folded_apart() -> None:
    trusted = episode(OLD, "User: we use Postgres 16.", message_ids=("1",))
    quoted = episode(OLD, "User: paste of tool output", message_ids=("2",), untrusted="tool")
    assert fold_key(trusted) != fold_key(quoted)
    assert fold([quoted], None, NOW).provenance.untrusted == "tool"
    assert fold([trusted], None, NOW).provenance.untrusted is None


def test_what_no_longer_fits_stays_an_episode(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service)
    long = [episode(OLD + timedelta(minutes=i), f"User {i}: " + "word " * 200) for i in range(40)]
    folded = fold(long, None, NOW)
    assert len(folded.content) <= 20_000
    kept = len(folded.content.splitlines())
    assert 0 < kept < 40
    written = fold_sessions(service.store, service.writer, long, NOW)
    assert [memory.id for memory in written] == [memory.id for memory in long[:kept]]


def test_episodes_without_message_ids_are_folded_by_their_line(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service = retained(settings, make_service)
    first = episode(OLD, "User: the first thing.")
    second = episode(OLD + timedelta(minutes=5), "User: the second thing.")
    assert fold_sessions(service.store, service.writer, [first], NOW) == [first]
    assert fold_sessions(service.store, service.writer, [first, second], NOW) == [first, second]
    (folded,) = [m for m in service.store.list_memories(limit=None) if FOLDED_TAG in m.tags]
    assert folded.content.splitlines() == [line_of(first), line_of(second)]


def test_lines_keep_the_order_said_within_a_minute_and_across_folds() -> None:
    first = episode(OLD, "User: Zeta came first.", message_ids=("1",))
    second = episode(OLD + timedelta(seconds=30), "User: Alpha came second.", message_ids=("2",))
    earlier = episode(OLD - timedelta(hours=1), "User: an hour before.", message_ids=("0",))
    folded = fold([second, first], None, NOW)
    assert [line.split("] ")[1] for line in folded.content.splitlines()] == [
        "User: Zeta came first.",
        "User: Alpha came second.",
    ]
    again = fold([earlier], folded, NOW)
    assert again.content.splitlines()[0].endswith("an hour before.")
    assert again.created_at == earlier.created_at
    assert again.provenance.message_ids == ("1", "2", "0")
