"""The skill's merge rules, with and without an LLM: profile always merges, entities by the
entity, preferences and patterns by topic, events and cases never."""

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Action, Category, Memory
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.tools.toolbox import build_toolbox
from openclaw_tinmem.write.dedup import LLMJudge, Neighbour, decide_by_similarity, merge_contents


def memory(category: Category, content: str = "c") -> Memory:
    return Memory(category=category, headline="h", summary="s", content=content)


def _neighbour(category: Category, similarity: float, content: str = "c") -> Neighbour:
    return Neighbour(memory(category, content), similarity)


def test_events_and_cases_never_merge_nor_skip_on_similarity() -> None:
    settings = Settings()
    for category in (Category.EVENTS, Category.CASES):
        for similarity in (0.9, 0.99):
            decision = decide_by_similarity(
                memory(category), [_neighbour(category, similarity)], settings
            )
            assert decision.action is Action.CREATED and "always append" in decision.reason


def test_near_identical_is_skipped_for_merging_categories() -> None:
    for category in (c for c in Category if c.policy.merges):
        decision = decide_by_similarity(memory(category), [_neighbour(category, 0.99)], Settings())
        assert decision.action is Action.SKIPPED


def test_profile_always_merges_whatever_the_similarity() -> None:
    for similarity in (0.2, 0.6, 0.9):
        decision = decide_by_similarity(
            memory(Category.PROFILE), [_neighbour(Category.PROFILE, similarity)], Settings()
        )
        assert decision.action is Action.MERGED and decision.reason.startswith("profile: always")
    first = decide_by_similarity(memory(Category.PROFILE), [], Settings())
    assert first.action is Action.CREATED and "first profile memory" in first.reason


def test_entities_merge_by_name_and_never_across_names() -> None:
    settings = Settings()
    alice = _neighbour(Category.ENTITIES, 0.55, "Alice works at Acme as a data engineer")
    beta = _neighbour(Category.ENTITIES, 0.95, "Project Beta runs on PostgreSQL 16")
    same = decide_by_similarity(
        memory(Category.ENTITIES, "Alice has a beagle called Biscuit"), [alice], settings
    )
    assert same.action is Action.MERGED and same.reason == "entities: the same entity, alice"
    other = decide_by_similarity(
        memory(Category.ENTITIES, "Project Alpha runs on PostgreSQL 16"), [beta], settings
    )
    assert other.action is Action.CREATED and "project alpha" in other.reason


def test_preferences_merge_on_the_same_topic_only() -> None:
    settings = Settings()
    close = decide_by_similarity(
        memory(Category.PREFERENCES), [_neighbour(Category.PREFERENCES, 0.9)], settings
    )
    far = decide_by_similarity(
        memory(Category.PREFERENCES), [_neighbour(Category.PREFERENCES, 0.7)], settings
    )
    assert close.action is Action.MERGED and "the same topic" in close.reason
    assert far.action is Action.CREATED


def test_merge_contents_does_not_repeat_contained_text() -> None:
    assert (
        merge_contents("Likes tea. Drinks it daily.", "likes tea.") == "Likes tea. Drinks it daily."
    )
    assert merge_contents("Likes tea.", "Also likes coffee.") == "Likes tea.\nAlso likes coffee."
    backend = "User prefers Python over JavaScript for backend work"
    assert merge_contents(backend, backend + ".") == backend  # punctuation aside, the same
    assert merge_contents("Likes tea", "tea!") == "Likes tea"
    assert merge_contents("Likes teal", "tea") == "Likes teal\ntea"  # whole words only


def test_every_profile_fact_lands_in_one_profile_memory(service: MemoryService) -> None:
    tools = build_toolbox(service)
    facts = [
        "User's name is Priya",
        "Priya works as a data engineer in Lisbon",
        "User is 34 years old",
        "User speaks Portuguese and English",
    ]
    results = [
        tools.call("memory_store", {"content": f, "category": "profile"}).data for f in facts
    ]
    assert [r["action"] for r in results] == ["created", "merged", "merged", "merged"]
    assert all("always merged" in r["reason"] for r in results[1:])  # action and reason agree
    (profile,) = service.list_memories(categories=[Category.PROFILE], limit=None)
    for fact in facts:
        assert fact in profile.content  # every distinct fact kept in L2
    assert profile.headline and profile.summary


@pytest.mark.parametrize("llm_action", ["create", "merge"])
def test_with_an_llm_profile_facts_merge_even_if_it_says_create(
    llm_settings: Settings, fake_llm: FakeLLM, make_service, llm_action: str
) -> None:  # type: ignore[no-untyped-def]
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    first = service.remember("User's name is Priya", Category.PROFILE).memory
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {
                        "new": 1,
                        "action": llm_action,
                        "target": 1,
                        "merged_content": "User is Priya, a data engineer",
                    }
                ]
            }
        )
    )
    outcome = service.remember("User works as a data engineer", Category.PROFILE)
    assert outcome.action is Action.MERGED and outcome.memory.id == first.id
    assert ("LLM said create" in outcome.reason) == (llm_action == "create")
