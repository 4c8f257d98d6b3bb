import json

import pytest

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Action, Category, MatchKind
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.write.dedup import LLMJudge


def test_recall_finds_by_meaning_and_by_words(service: MemoryService) -> None:
    python = service.remember("I prefer Python for backend services", Category.PREFERENCES).memory
    service.remember("Our cat is called Miso", Category.ENTITIES)
    service.remember("We deploy with ArgoCD on Fridays", Category.PATTERNS)
    hits = service.recall("which programming language does the user like")
    assert hits[0].memory.id == python.id
    word_hits = service.recall("ArgoCD")
    assert word_hits[0].match is MatchKind.BOTH


def test_greetings_return_nothing(service: MemoryService) -> None:
    service.remember("I prefer Python", Category.PREFERENCES)
    assert service.recall("thanks!") == []


def test_scopes_never_leak(service: MemoryService) -> None:
    service.remember("Agent A's user lives in Oslo", Category.PROFILE, scope="agent:a")
    service.remember("Agent B's user lives in Rome", Category.PROFILE, scope="agent:b")
    hits = service.recall("where does the user live", scopes=["agent:a"])
    assert [hit.memory.scope for hit in hits] == ["agent:a"]
    both = service.recall("where does the user live", scopes=["agent:a", "agent:b"])
    assert {hit.memory.scope for hit in both} == {"agent:a", "agent:b"}


def test_identical_content_is_skipped_and_events_append(service: MemoryService) -> None:
    first = service.remember("Deployed version 2.0 to production", Category.EVENTS)
    again = service.remember("deployed version 2.0 to  production", Category.EVENTS)
    assert again.action is Action.SKIPPED and again.target_id == first.memory.id
    related = service.remember("Deployed version 2.1 to production", Category.EVENTS)
    assert related.action is Action.CREATED


def test_preferences_on_the_same_topic_merge(service: MemoryService) -> None:
    first = service.remember(
        "I prefer dark mode in every editor", Category.PREFERENCES, tags=["ui"]
    )
    second = service.remember(
        "I prefer dark mode in all my editors and terminals",
        Category.PREFERENCES,
        tags=["editor"],
        importance=0.8,
    )
    assert second.action is Action.MERGED and second.target_id == first.memory.id
    merged = service.get(first.memory.id)
    assert (
        "terminals" in merged.content
        and merged.tags == ["ui", "editor"]
        and merged.importance == 0.8
    )
    assert service.store.count() == 1


GREEN_TEA = [
    f"I prefer green tea in the {moment}"
    for moment in ("morning", "afternoon", "evening", "early morning", "late afternoon")
]


def test_appending_merges_stop_at_the_length_limit(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    roomy = make_service(settings.model_copy(update={"db_path": f"{settings.db_path}-roomy"}))
    assert [roomy.remember(text, Category.PREFERENCES).action for text in GREEN_TEA[1:]] == [
        Action.CREATED,
        Action.MERGED,
        Action.MERGED,
        Action.MERGED,
    ]
    limit = 80
    tight = make_service(settings.model_copy(update={"merge_max_characters": limit}))
    outcomes = [tight.remember(text, Category.PREFERENCES) for text in GREEN_TEA]
    stored = tight.store.list_memories(limit=None)
    assert Action.MERGED in [o.action for o in outcomes] and len(stored) > 1
    assert all(len(memory.content) <= limit for memory in stored)
    for text in GREEN_TEA:  # nothing was dropped to stay short
        assert any(text in memory.content.split("\n") for memory in stored)
    kept_apart = [o for o in outcomes if "length limit" in o.reason]
    assert kept_apart and all(o.action is Action.CREATED for o in kept_apart)


def test_merged_text_from_the_judge_is_kept_whatever_its_length(
    llm_settings: Settings,
    fake_llm: FakeLLM,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service = make_service(
        llm_settings.model_copy(update={"merge_max_characters": 20}), judge=judge
    )
    first = service.remember("User prefers green tea", Category.PREFERENCES)
    merged_text = "User prefers green tea in the morning and rooibos after dinner."
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {"new": 1, "action": "merge", "target": 1, "merged_content": merged_text},
                ]
            }
        )
    )
    outcome = service.remember("User drinks rooibos after dinner", Category.PREFERENCES)
    assert outcome.action is Action.MERGED and outcome.target_id == first.memory.id
    assert service.get(first.memory.id).content == merged_text
    encoded = service.late_interaction.encode([service.get(first.memory.id)])[0]
    rows = service.store.token_rows([first.memory.id])
    assert encoded and rows[0]["token_vectors"] == encoded  # the judge's text is encoded anew


def test_update_changes_only_given_fields_and_reembeds_content(service: MemoryService) -> None:
    memory = service.remember(
        "The team uses Jenkins for CI", Category.ENTITIES, tags=["ci"], importance=0.4
    ).memory
    updated = service.update(memory.id, content="The team moved CI from Jenkins to GitHub Actions")
    assert updated.importance == 0.4 and updated.tags == ["ci"]
    assert updated.headline.startswith("The team moved CI")
    assert service.recall("GitHub Actions")[0].memory.id == memory.id
    kept = service.update(memory.id, headline="CI: GitHub Actions", tags=["GitHub"])
    assert kept.headline == "CI: GitHub Actions" and kept.tags == ["github"]
    assert kept.content == updated.content and kept.summary == updated.summary


def test_update_unknown_id_is_not_found(service: MemoryService) -> None:
    with pytest.raises(NotFoundError):
        service.update("123e4567-e89b-12d3-a456-426614174000", importance=0.2)


def test_forget_by_query_deletes_only_confident_matches(service: MemoryService) -> None:
    job = service.remember("User worked at Initech as a backend engineer", Category.PROFILE).memory
    service.remember("User enjoys climbing on weekends", Category.PREFERENCES)
    vague = service.forget(query="something about hobbies maybe")
    assert vague.deleted == [] and vague.candidates
    confident = service.forget(query="User worked at Initech as a backend engineer")
    assert [memory.id for memory in confident.deleted] == [job.id]
    assert service.store.count() == 1


def test_forget_by_its_own_text_finds_a_memory_with_hyphenated_codes(
    service: MemoryService,
) -> None:
    code = "The vault code for team AGENT-A is V-AGENT-A-991."
    kept = service.remember(code, Category.ENTITIES).memory
    other = service.remember(
        "The vault code for team AGENT-B is V-AGENT-B-992.", Category.ENTITIES
    ).memory
    assert [memory.id for memory in service.forget(query=code).deleted] == [kept.id]
    assert [memory.id for memory in service.list_memories()] == [other.id]  # its near copy stays


def test_forget_by_id_respects_scope(service: MemoryService) -> None:
    memory = service.remember("Private fact", Category.PROFILE, scope="user:ana").memory
    with pytest.raises(NotFoundError):
        service.forget(memory_id=memory.id, scopes=["global"])
    assert service.forget(memory_id=memory.id).deleted[0].id == memory.id
    with pytest.raises(InvalidArgumentError):
        service.forget()


EPISODE_MEMORIES = [
    (
        "The billing service moved from MySQL to Postgres 16 last sprint",
        "2026-03-02T10:00:00+00:00",
    ),
    ("Ravi said the new connection pool needs 40 connections", "2026-03-02T10:04:00+00:00"),
    (
        "The search cluster keeps its connection settings in the helm values file",
        "2026-02-10T15:00:00+00:00",
    ),
    ("Lunch on Fridays is usually at the ramen place", "2026-02-10T15:02:00+00:00"),
]


@pytest.mark.parametrize("late_interaction", [True, False], ids=["late-interaction", "fast"])
def test_a_memory_from_the_best_matchs_episode_moves_up(
    settings: Settings,
    make_service,
    late_interaction: bool,  # type: ignore[no-untyped-def]
) -> None:
    def relevances(weight: float) -> dict[str, float]:
        options = {"episode_weight": weight, "late_interaction": late_interaction, "rerank": False}
        service = make_service(
            settings.model_copy(update={**options, "db_path": f"{settings.db_path}-{weight}"})
        )
        lines = [
            json.dumps({"content": content, "category": "events", "created_at": created})
            for content, created in EPISODE_MEMORIES
        ]
        import_memories(service, lines)
        hits = service.recall(
            "What changed with the billing database migration?", min_similarity=0.0
        )
        assert hits[0].memory.content.startswith("The billing service")
        return {hit.memory.content.split()[1]: hit.relevance for hit in hits}

    alone, with_episodes = relevances(0.0), relevances(0.75)
    # "Ravi ..." was written four minutes after the best match; "The search cluster ..." weeks before
    assert with_episodes["said"] > with_episodes["search"]
    assert (with_episodes["said"] - with_episodes["search"]) - (
        alone["said"] - alone["search"]
    ) > 0.03


def test_an_unrelated_query_gets_nothing_and_a_related_one_its_memory(
    service: MemoryService,
) -> None:
    for text, category in (
        ("User prefers pytest over unittest and likes type hints", Category.PREFERENCES),
        ("User's dog is called Biscuit, a beagle", Category.ENTITIES),
        ("Decided to move billing from Heroku to Fly.io", Category.EVENTS),
    ):
        service.remember(text, category)
    assert service.recall("How tall is Mount Everest?") == []
    assert service.recall("Explain quantum entanglement simply") == []
    assert "Biscuit" in service.recall("what is my dog's name")[0].memory.content
    everything = service.recall("How tall is Mount Everest?", min_similarity=0.0)
    assert len(everything) == 3  # without the floor, ranking fills its list whatever it holds


def test_an_id_prefix_of_eight_or_more_characters_names_a_memory(service: MemoryService) -> None:
    lines = [
        json.dumps(
            {"id": f"aaaaaaaa-0000-4000-8000-00000000000{n}", "content": text, "category": "events"}
        )
        for n, text in ((1, "First note about the move"), (2, "Second note about the move"))
    ]
    import_memories(service, lines)
    unique = service.remember("A note of its own", Category.EVENTS).memory
    assert service.get(unique.id[:8]).id == unique.id
    assert service.update(unique.id[:12], importance=0.9).importance == 0.9
    with pytest.raises(InvalidArgumentError) as ambiguous:
        service.get("aaaaaaaa")
    assert "matches 2 memories" in ambiguous.value.message
    assert "aaaaaaaa-0000-4000-8000-000000000001" in ambiguous.value.message
    with pytest.raises(InvalidArgumentError, match="first 8 or more characters"):
        service.get("aaaa")
    with pytest.raises(NotFoundError):
        service.get("bbbbbbbb")
    assert service.forget(memory_id="aaaaaaaa-0000-4000-8000-000000000002").deleted
    assert service.get("aaaaaaaa").id.endswith("1")  # unique again


def test_a_history_prefix_never_names_another_scopes_memories(service: MemoryService) -> None:
    lines = [
        json.dumps(
            {
                "id": f"aaaaaaaa-0000-4000-8000-00000000000{n}",
                "content": f"A note of agent {name}",
                "category": "events",
                "scope": f"agent:{name}",
            }
        )
        for n, name in ((1, "alice"), (2, "bob"))
    ]
    import_memories(service, lines)
    bob = Identity(agent_id="bob")
    service.forget(memory_id="aaaaaaaa-0000-4000-8000-000000000002", identity=bob)
    for step in (
        lambda: service.history("aaaaaaaa", identity=bob),
        lambda: service.restore("aaaaaaaa", identity=bob),
    ):
        events = step()
        assert "000000000001" not in json.dumps(events, default=str)
    assert service.get("aaaaaaaa", identity=bob).id.endswith("2")  # restored
    with pytest.raises(InvalidArgumentError, match="matches 2 memories"):
        service.history("aaaaaaaa")  # the administrator reads both


def test_an_update_a_memory_cannot_hold_is_refused_before_anything_is_written(
    service: MemoryService,
) -> None:
    memory = service.remember("The release train leaves on Thursdays", Category.PATTERNS).memory
    for changes, field in (
        ({"importance": 5.0}, "importance"),
        ({"importance": float("nan")}, "importance"),
        ({"content": ""}, "content"),
        ({"headline": 3}, "headline"),
        ({"summary": "   "}, "summary"),
        ({"tags": "ops"}, "tags"),
        ({"content": "x" * 20_001}, "content"),
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            service.update(memory.id, **changes)  # type: ignore[arg-type]
        assert caught.value.field == field
    assert service.get(memory.id) == memory
    assert [event.action.value for event in service.history(memory.id)] == ["created"]


def test_listing_returns_the_most_recently_updated_first(service: MemoryService) -> None:
    memories = [
        service.remember(f"Note {n} about the release", Category.EVENTS).memory for n in range(8)
    ]
    service.update(memories[2].id, importance=0.9)  # now the most recently updated
    listed = service.list_memories(limit=3)
    assert [m.id for m in listed] == [memories[2].id, memories[7].id, memories[6].id]
