"""The writer's merges: the merged text is what gets embedded, whoever decided the merge.

The similarity rule's merged text is embedded while the judge decides; these tests check
that a merge stores the embedding of the text it actually wrote, both when the judge agrees
with the rule and when it writes a text of its own.
"""

from collections.abc import Sequence

import numpy as np
import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Action, Category, Draft, Memory
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.write.dedup import LLMJudge
from tests.embedders import InterceptedEmbedder


@pytest.fixture
def judged_service(llm_settings: Settings, make_service) -> MemoryService:  # type: ignore[no-untyped-def]
    """A service whose judge is an LLM: the scripted one on loopback."""
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    return service


def stored_vector(service: MemoryService, memory_id: str) -> np.ndarray:
    ((_, vector),) = service.store.get_with_vectors([memory_id])
    return np.asarray(vector)


def merge_by_the_judge(service: MemoryService, fake_llm: FakeLLM, written: str) -> Memory:
    """Store a preference, then a second one the judge merges into it as ``written``; checks
    the merge landed and returns the merged memory as first stored."""
    first = service.remember("I prefer dark mode in every editor", Category.PREFERENCES).memory
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {"new": 1, "action": "merge", "target": 1, "merged_content": written},
                ]
            }
        )
    )
    outcome = service.remember("I prefer dark mode in terminals too", Category.PREFERENCES)
    assert outcome.action is Action.MERGED and service.get(first.id).content == written
    return first


def test_a_merge_by_the_rule_stores_the_embedding_of_the_merged_text(
    service: MemoryService, embedder: FastEmbedEmbedder
) -> None:
    first = service.remember("I prefer dark mode in every editor", Category.PREFERENCES).memory
    outcome = service.remember("I prefer dark mode in terminals too", Category.PREFERENCES)
    assert outcome.action is Action.MERGED and outcome.target_id == first.id
    merged = service.get(first.id).content
    assert merged.split("\n") == [first.content, "I prefer dark mode in terminals too"]
    expected = embedder.embed_documents([merged])[0]
    assert float(stored_vector(service, first.id) @ expected) > 0.999


def test_a_merged_text_the_judge_wrote_is_embedded_not_the_rules_guess(
    judged_service: MemoryService, fake_llm: FakeLLM, embedder: FastEmbedEmbedder
) -> None:
    service = judged_service
    written = "User prefers dark mode everywhere: editors, terminals and the browser."
    first = merge_by_the_judge(service, fake_llm, written)
    rules_guess = embedder.embed_documents(
        ["I prefer dark mode in every editor\nI prefer dark mode in terminals too"]
    )[0]
    vector = stored_vector(service, first.id)
    assert float(vector @ embedder.embed_documents([written])[0]) > 0.999
    assert float(vector @ rules_guess) < 0.999


def fail_on_several_lines(texts: Sequence[str]) -> None:
    """The rule's merged guesses are texts of several lines: the model fails on those."""
    if any("\n" in text for text in texts):
        raise RuntimeError("injected: cannot embed")


def test_a_guess_that_cannot_be_embedded_does_not_fail_the_write(
    llm_settings: Settings, make_service, fake_llm: FakeLLM, embedder: FastEmbedEmbedder
) -> None:  # type: ignore[no-untyped-def]
    failing = InterceptedEmbedder(embedder, before_documents=fail_on_several_lines)
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service = make_service(llm_settings, embedder=failing, judge=judge)
    written = "User prefers dark mode in editors and terminals."
    first = merge_by_the_judge(service, fake_llm, written)
    expected = embedder.embed_documents([written])[0]
    assert float(stored_vector(service, first.id) @ expected) > 0.999


def test_an_administrative_rewrite_keeps_the_state_it_replaced(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    first: MemoryService = make_service(settings)
    second: MemoryService = make_service(settings)
    memory = first.remember("The on-call phone is with Ana", Category.ENTITIES).memory
    second.update(memory.id, content="The on-call phone is with Bruno")
    rewritten = memory.model_copy(update={"content": "The on-call phone is with Carla"})
    first.writer.put([rewritten], action=HistoryAction.IMPORTED, actor="test", source="import")
    imported = first.history(memory.id)[-1]
    assert imported.before and imported.before["content"] == "The on-call phone is with Bruno"


def test_profile_facts_written_in_one_batch_make_one_profile_memory(
    service: MemoryService,
) -> None:
    drafts = [
        Draft("User is a senior backend engineer", Category.PROFILE),
        Draft("User speaks Portuguese and English", Category.PROFILE),
        Draft("User lives in Lisbon", Category.PROFILE),
    ]
    outcomes = service.remember_many(drafts)
    assert [outcome.action for outcome in outcomes] == [
        Action.CREATED,
        Action.MERGED,
        Action.MERGED,
    ]
    (profile,) = service.store.list_memories(categories=[Category.PROFILE])
    assert "Lisbon" in profile.content and "Portuguese" in profile.content


def test_a_memory_written_while_the_judge_decided_is_merged_into_not_doubled(
    llm_settings: Settings, fake_llm: FakeLLM, make_service
) -> None:  # type: ignore[no-untyped-def]
    """Another writer stores a preference while this one's judge says "create" for the same
    topic: under the write lock the decision is made again against the store as it is now."""
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    other: MemoryService = make_service(llm_settings)
    service.remember("I prefer dark mode in every editor", Category.PREFERENCES)
    written: list[str] = []

    def meanwhile(body: dict) -> Reply:  # type: ignore[type-arg]
        written.append(
            other.remember("I drink green tea every morning", Category.PREFERENCES).memory.id
        )
        return Reply({"decisions": [{"new": 1, "action": "create"}]})

    fake_llm.responder = meanwhile
    outcome = service.remember("I drink green tea each morning", Category.PREFERENCES)
    assert written and outcome.action in (Action.MERGED, Action.SKIPPED)
    assert outcome.target_id == written[0]
    teas = [m for m in service.store.list_memories() if "tea" in m.content]
    assert len(teas) == 1


def test_a_merge_chosen_before_a_scope_rename_is_decided_again_not_refused(
    llm_settings: Settings, fake_llm: FakeLLM, make_service
) -> None:  # type: ignore[no-untyped-def]
    """Another writer renames the target's scope while the judge decides to merge into it: the
    merge would move the memory back, so it is decided again against the store as it is now
    (the renamed memory is in another scope: a new memory), and the write lands."""
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    other: MemoryService = make_service(llm_settings)
    first = service.remember("I prefer dark mode in every editor", Category.PREFERENCES).memory

    def meanwhile(body: dict) -> Reply:  # type: ignore[type-arg]
        other.store.rename_scope(first.scope, "project:renamed")
        return Reply({"decisions": [{"new": 1, "action": "merge", "target": 1}]})

    fake_llm.responder = meanwhile
    outcome = service.remember("I prefer dark mode in my terminal too", Category.PREFERENCES)
    assert outcome.action is Action.CREATED
    stored = {memory.content: memory.scope for memory in service.store.list_memories()}
    assert stored == {
        "I prefer dark mode in every editor": "project:renamed",
        "I prefer dark mode in my terminal too": first.scope,
    }


def test_the_recheck_leaves_the_judges_create_against_what_it_saw(
    llm_settings: Settings, fake_llm: FakeLLM, make_service
) -> None:  # type: ignore[no-untyped-def]
    """A fact written earlier in the batch on another topic does not reopen what the judge
    decided about the memories it was shown."""
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    service.remember("I prefer my coffee with oat milk", Category.PREFERENCES)
    fake_llm.script(
        Reply({"decisions": [{"new": 1, "action": "create"}, {"new": 2, "action": "create"}]})
    )
    drafts = [
        Draft("I prefer hiking in the mountains on weekends", Category.PREFERENCES),
        Draft("I prefer my coffee with almond milk", Category.PREFERENCES),
    ]
    outcomes = service.remember_many(drafts)
    assert [outcome.action for outcome in outcomes] == [Action.CREATED, Action.CREATED]
