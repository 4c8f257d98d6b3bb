from openclaw_tinmem.models import Category
from openclaw_tinmem.recall.instructions import (
    ConditionVectors,
    condition_of,
    standing_instructions,
)
from openclaw_tinmem.service import MemoryService


def test_the_condition_is_the_kind_of_request_else_the_whole_instruction() -> None:
    assert condition_of(
        "Always include data encryption details when I ask about data privacy."
    ) == ("data privacy")
    assert condition_of("Whenever I ask about trains, give me the Berlin times.") == "trains"
    # as an LLM writes it, in the third person
    assert condition_of("User wants prices included when they ask about hotels.") == "hotels"
    assert condition_of("Whenever the user asks for recipes, list the allergens.") == "recipes"
    assert condition_of("Never suggest pork dishes to me.") == "Never suggest pork dishes to me."


def test_instructions_close_to_the_request_by_their_condition_in_the_scopes_asked(
    service: MemoryService,
) -> None:
    for scope in ("agent:a", "agent:b"):
        service.remember(
            "Always include the narrator when I ask about audiobook recommendations.",
            Category.PREFERENCES,
            scope=scope,
            tags=["instruction"],
        )
    service.remember(
        "I prefer audiobooks narrated by the author.", Category.PREFERENCES, scope="agent:a"
    )
    conditions = ConditionVectors(service.embedder)

    def found(message: str, scopes: list[str]) -> list[str]:
        hits = standing_instructions(
            service.store,
            conditions,
            lambda: service.embedder.embed_query(message),
            scopes=scopes,
            allows=None,
            min_similarity=0.65,
        )
        return [hit.memory.scope for hit in hits]

    assert found("Can you recommend some audiobooks?", ["agent:a"]) == ["agent:a"]
    assert found("How do I repot a cactus?", ["agent:a", "agent:b"]) == []
    assert found("Can you recommend some audiobooks?", ["agent:c"]) == []
    assert conditions.of(["audiobook recommendations"])[0].shape == (service.embedder.dimension,)


def test_condition_vectors_are_kept_up_to_their_capacity_and_any_number_can_be_asked(
    service: MemoryService,
) -> None:
    conditions = ConditionVectors(service.embedder, capacity=2)
    texts = ["hotels", "recipes", "trains"]
    first = conditions.of(texts)  # more than it keeps at once
    assert len(first) == 3 and all(
        vector.shape == (service.embedder.dimension,) for vector in first
    )
    again = conditions.of(["trains", "hotels"])
    assert float(again[0] @ first[2]) > 0.99 and float(again[1] @ first[0]) > 0.99


def test_another_users_instructions_never_crowd_out_the_sessions_own(
    service: MemoryService,
) -> None:
    mine = service.remember(
        "Always include the narrator when I ask about audiobook recommendations.",
        Category.PREFERENCES,
        scope="agent:a",
        tags=["instruction"],
    ).memory
    for number in range(5):
        service.remember(
            f"Always quote price number {number} when I ask about audiobook recommendations.",
            Category.PREFERENCES,
            scope="agent:a",
            tags=["instruction"],
        )
    hits = standing_instructions(
        service.store,
        ConditionVectors(service.embedder),
        lambda: service.embedder.embed_query("Can you recommend some audiobooks?"),
        scopes=["agent:a"],
        allows=lambda memory: memory.id == mine.id,  # the session may see only its own
        min_similarity=0.65,
    )
    assert [hit.memory.id for hit in hits] == [mine.id]


def test_a_store_without_instructions_never_embeds_the_message_again(
    service: MemoryService,
) -> None:
    service.remember("User prefers audiobooks narrated by their authors.", Category.PREFERENCES)
    asked: list[str] = []

    def embed() -> object:
        asked.append("embedded")
        raise AssertionError("no instruction to compare the message with")

    found = standing_instructions(
        service.store,
        ConditionVectors(service.embedder),
        embed,  # type: ignore[arg-type]
        scopes=None,
        allows=None,
        min_similarity=0.65,
    )
    assert found == [] and asked == []
