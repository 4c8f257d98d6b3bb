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
        vector = service.embedder.embed_query(message)
        hits = standing_instructions(
            service.store, conditions, vector, scopes=scopes, allows=None, min_similarity=0.65
        )
        return [hit.memory.scope for hit in hits]

    assert found("Can you recommend some audiobooks?", ["agent:a"]) == ["agent:a"]
    assert found("How do I repot a cactus?", ["agent:a", "agent:b"]) == []
    assert found("Can you recommend some audiobooks?", ["agent:c"]) == []
    assert conditions.of(["audiobook recommendations"])[0].shape == (service.embedder.dimension,)
