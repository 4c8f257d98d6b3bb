from datetime import UTC, datetime, timedelta

from openclaw_tinmem.capture.episodes import (
    EPISODE_TAG,
    Exchange,
    is_substantive,
    says_something,
    speaker,
)
from openclaw_tinmem.capture.extraction import LLMExtractor, RuleExtractor
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Category, Source
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
REPLIED = datetime(2023, 5, 8, 13, 57, tzinfo=UTC)


def _turn(*, user_id: str = "", ids: tuple[str, str] = ("D1:1", "D1:2")) -> TurnRecord:
    return TurnRecord(
        messages=[
            Message(
                "user",
                "I went to the LGBTQ support group yesterday and it was so powerful.",
                name="Caroline",
                timestamp=SAID,
                id=ids[0],
            ),
            Message(
                "assistant",
                "That sounds moving! What stayed with you the most?",
                timestamp=REPLIED,
                id=ids[1],
            ),
        ],
        scope="agent:main",
        ctx=HookContext(agent_id="main", session_id="s1", user_id=user_id or None),
    )


def test_an_exchange_is_kept_as_an_episode_dated_and_attributed(service: MemoryService) -> None:
    outcomes = CapturePipeline(service, RuleExtractor()).process(_turn())
    (episode,) = [o.memory for o in outcomes if EPISODE_TAG in o.memory.tags]
    assert episode.category is Category.EVENTS
    assert episode.content.splitlines() == [
        "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
        "Assistant: That sounds moving! What stayed with you the most?",
    ]
    assert episode.created_at == SAID  # when it was said, not when it was captured
    assert episode.headline.startswith("Caroline: I went to the LGBTQ support group")
    assert episode.source is Source.AUTO_CAPTURE
    provenance = service.get(episode.id).provenance  # as stored, not only as written
    assert provenance.message_ids == ("D1:1", "D1:2")
    assert provenance.speakers == ("Caroline", "Assistant")
    assert (provenance.agent_id, provenance.session_id) == ("main", "s1")


def test_facts_the_llm_extracts_are_dated_by_when_their_words_were_said(
    service: MemoryService, llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply(
            {
                "episode": {
                    "headline": "Caroline went to a support group",
                    "summary": "It moved her.",
                },
                "memories": [
                    {
                        "category": "events",
                        "headline": "Caroline went to an LGBTQ support group",
                        "summary": "Caroline went to an LGBTQ support group on 7 May 2023.",
                        "content": "Caroline went to an LGBTQ support group on 7 May 2023.",
                    }
                ],
            }
        )
    )
    extractor = LLMExtractor(LLMClient(llm_settings))
    record = _turn()  # journalled now, long after the words were said
    outcomes = CapturePipeline(service, extractor).process(record)
    assert record.created > SAID + timedelta(days=1)
    assert len(outcomes) == 2
    assert {outcome.memory.created_at for outcome in outcomes} == {SAID}


def test_a_turn_captured_twice_is_one_episode_even_under_other_message_ids(
    service: MemoryService,
) -> None:
    pipeline = CapturePipeline(service, RuleExtractor())
    first = pipeline.process(_turn())
    again = pipeline.process(_turn(ids=("live-1", "live-2")))  # e.g. ingested after capture
    assert {o.memory.id for o in again} == {o.memory.id for o in first}
    assert service.store.count() == len(first)


def test_facts_name_the_episode_and_messages_they_came_from(service: MemoryService) -> None:
    record = TurnRecord(
        messages=[
            Message(
                "user", "My name is Ana and I really prefer aisle seats.", timestamp=SAID, id="m1"
            ),
            Message("assistant", "Noted, Ana.", timestamp=REPLIED, id="m2"),
        ],
        scope="global",
        ctx=HookContext(user_id="ana"),
    )
    outcomes = CapturePipeline(service, RuleExtractor()).process(record)
    memories = [service.get(outcome.memory.id) for outcome in outcomes]
    (episode,) = [m for m in memories if EPISODE_TAG in m.tags]
    facts = [m for m in memories if EPISODE_TAG not in m.tags]
    assert facts and all(fact.provenance.episode_id == episode.id for fact in facts)
    assert all(fact.provenance.message_ids == ("m1",) for fact in facts)  # never the reply
    assert all(fact.created_at == SAID for fact in facts)
    assert episode.content.startswith("ana: My name is Ana")  # the user's id names the user


def test_small_talk_keeps_nothing(service: MemoryService) -> None:
    record = TurnRecord(
        messages=[Message("user", "thanks!"), Message("assistant", "You're welcome!")],
        scope="global",
    )
    assert CapturePipeline(service, RuleExtractor()).process(record) == []
    assert not is_substantive([Message("user", "ok"), Message("assistant", "great")])
    assert is_substantive([Message("user", "ok"), Message("assistant", "The meeting is at 4.")])


def test_runs_that_are_not_conversations_are_not_captured(service: MemoryService) -> None:
    pipeline = CapturePipeline(service, RuleExtractor())
    said = [Message("user", "I really prefer aisle seats on trains."), Message("assistant", "ok")]
    for ctx in (
        HookContext(agent_id="main", session_key="agent:main:cron:nightly-digest"),
        HookContext(agent_id="main", session_key="agent:main:subagent:4f1c"),
        HookContext(agent_id="main", session_key="agent:main:main", trigger="heartbeat"),
    ):
        record = TurnRecord(messages=said, scope="agent:main", ctx=ctx)
        assert pipeline.process(record) == []
    person = HookContext(agent_id="main", session_key="agent:main:telegram:direct:42")
    record = TurnRecord(messages=said, scope="agent:main", ctx=person)
    assert pipeline.process(record)


def test_a_speaker_is_the_sender_then_the_user_id_then_the_role() -> None:
    ctx = HookContext(user_id="u-7")
    assert speaker(Message("user", "hi", name="Mel"), ctx) == "Mel"
    assert speaker(Message("user", "hi"), ctx) == "u-7"
    assert speaker(Message("user", "hi"), HookContext()) == "User"
    assert speaker(Message("assistant", "hi"), ctx) == "Assistant"
    exchange = Exchange.of([Message("assistant", "The build is green.")], ctx)
    headline, summary = exchange.levels()
    assert headline == "Assistant: The build is green." and summary.startswith("Assistant:")


def test_a_headline_skips_the_greeting_and_names_what_was_said() -> None:
    said = [
        Message("user", "Hi! Thanks. I moved to Lisbon in March for the new job."),
        Message("assistant", "Congratulations on the move!"),
    ]
    headline, summary = Exchange.of(said, HookContext()).levels()
    assert headline == "User: I moved to Lisbon in March for the new job."
    assert summary.startswith("User: Hi! Thanks. I moved to Lisbon")
    only_greeting = [Message("user", "Hello there!"), Message("assistant", "Hi!")]
    assert Exchange.of(only_greeting, HookContext()).levels()[0] == "User: Hello there!"


def test_a_headline_is_news_not_a_reaction_whoever_said_it() -> None:
    said = [
        Message(
            "user", "Wow, Caroline, that's so cool! Thanks, Mel! How about you?", name="Caroline"
        ),
        Message(
            "assistant", "Aww, Caro! We went camping in the mountains last weekend.", name="Melanie"
        ),
    ]
    headline, summary = Exchange.of(said, HookContext()).levels()
    assert headline == "Melanie: We went camping in the mountains last weekend."
    assert summary.startswith("Caroline: Wow, Caroline")
    assert says_something("Melanie, those bowls are amazing!", {"melanie"})
    assert not says_something("That's great news, Caroline!", {"caroline"})
    # short news, words that begin a name, and text without spaces are the user's news
    for news in (
        "I'm pregnant!",
        "Can you assist me with my taxes?",
        "Use Docker.",
        "我下周搬到柏林。",
    ):
        said = [Message("user", news), Message("assistant", "That is exciting! How do you feel?")]
        assert Exchange.of(said, HookContext()).levels()[0] == f"User: {news}"
    assert says_something("The car broke down, Caroline.", {"caroline"})
