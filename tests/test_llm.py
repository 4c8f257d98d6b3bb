from datetime import UTC, datetime

import pytest

from openclaw_tinmem.capture.extraction import LLMExtractor
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import LLMError
from openclaw_tinmem.events import Message
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Action, Category, Memory
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.write.dedup import LLMJudge, Neighbour

TEA = {
    "category": "preferences",
    "headline": "User prefers green tea",
    "summary": "User prefers green tea.",
    "content": "User prefers green tea over coffee.",
    "importance": 0.7,
    "tags": ["tea"],
}


def _memory(content: str, category: Category = Category.PREFERENCES) -> Memory:
    return Memory(category=category, headline=content, summary=content, content=content)


def test_extraction_sends_the_turn_and_its_time(llm_settings: Settings, fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply({"memories": [TEA]}))
    extractor = LLMExtractor(LLMClient(llm_settings))
    when = datetime(2026, 3, 4, 15, 0, tzinfo=UTC)
    found = extractor.extract(
        [Message("user", "I drink green tea, never coffee")],
        [Message("assistant", "earlier")],
        when,
    )
    assert [(c.category, c.content) for c in found.facts] == [
        (Category.PREFERENCES, "User prefers green tea over coffee.")
    ]
    prompt = fake_llm.prompts()[0]
    assert "2026-03-04" in prompt and "I drink green tea" in prompt and "earlier" in prompt


def test_broken_json_is_asked_again(llm_settings: Settings, fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply(raw="Sure! Here you go: {not json"), Reply({"memories": [TEA]}))
    found = LLMExtractor(LLMClient(llm_settings)).extract(
        [Message("user", "x y z w")], [], datetime.now(UTC)
    )
    assert len(found.facts) == 1 and len(fake_llm.requests) == 2


@pytest.mark.faults
def test_schema_violations_are_asked_again_then_fail(
    llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    bad = {"memories": [{**TEA, "category": "hobbies"}]}
    fake_llm.script(Reply(bad), Reply(bad), Reply(bad))
    with pytest.raises(LLMError):
        LLMExtractor(LLMClient(llm_settings)).extract(
            [Message("user", "x y z w")], [], datetime.now(UTC)
        )


@pytest.mark.faults
def test_server_errors_and_timeouts_become_llm_errors(
    llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    fake_llm.script(*[Reply(status=503)] * 4)
    with pytest.raises(LLMError, match="503"):
        LLMExtractor(LLMClient(llm_settings)).extract(
            [Message("user", "x y z w")], [], datetime.now(UTC)
        )
    assert len(fake_llm.requests) == 2  # llm_max_retries=1: bounded, then a visible error
    fake_llm.replies.clear()
    slow = llm_settings.model_copy(update={"llm_timeout_seconds": 0.3, "llm_max_retries": 0})
    fake_llm.script(Reply({"memories": []}, delay=2))
    with pytest.raises(LLMError, match=r"[Tt]imeout|timed out"):
        LLMExtractor(LLMClient(slow)).extract([Message("user", "x y z w")], [], datetime.now(UTC))


def test_judge_maps_small_numbers_back_and_writes_merged_text(
    llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    existing = _memory("User likes tea")
    other = _memory("User likes hiking")
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {
                        "new": 1,
                        "action": "merge",
                        "target": 2,
                        "merged_headline": "Prefers green tea",
                        "merged_summary": "User prefers green tea.",
                        "merged_content": "User prefers green tea, not black tea.",
                    },
                ]
            }
        )
    )
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    (decision,) = judge.decide_batch(
        [(_memory("User prefers green tea"), [Neighbour(other, 0.7), Neighbour(existing, 0.9)])]
    )
    assert decision.action is Action.MERGED and decision.target is existing
    assert decision.content == "User prefers green tea, not black tea."
    prompt = fake_llm.prompts()[0]
    assert "EXISTING 2: User likes tea" in prompt and existing.id not in prompt


def test_judge_refuses_invented_targets_and_merging_events(
    llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {"new": 1, "action": "merge", "target": 99},
                    {"new": 2, "action": "merge", "target": 2},
                ]
            }
        )
    )
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    preference = (_memory("User likes chess"), [Neighbour(_memory("User plays go"), 0.5)])
    event = (
        _memory("Shipped v2", Category.EVENTS),
        [Neighbour(_memory("Shipped v1", Category.EVENTS), 0.9)],
    )
    invented, merged_event = judge.decide_batch([preference, event])
    assert invented.action is Action.CREATED and "unusable" in invented.reason
    assert merged_event.action is Action.CREATED


def test_no_neighbours_means_no_llm_call(llm_settings: Settings, fake_llm: FakeLLM) -> None:
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    assert [
        d.action for d in judge.decide_batch([(_memory("a b c"), []), (_memory("d e f"), [])])
    ] == [Action.CREATED] * 2
    assert fake_llm.requests == []
