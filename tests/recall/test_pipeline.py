"""The recall pipeline as a whole: of a long memory, the passage the query is about is what
the cross-encoder reads and what the hit shows."""

import pytest

from openclaw_tinmem.models import Category, Draft
from openclaw_tinmem.recall.pipeline import about_something_stored, neighbourhood
from openclaw_tinmem.recall.scoring import STANDING_KNOWLEDGE
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.memory import MemoryTools
from openclaw_tinmem.tools.toolbox import Toolbox

BREAD = (
    "Sourdough needs a lively starter and some patience. Proofing the dough overnight in the "
    "fridge gives a deeper flavour and a more open crumb. A hot Dutch oven helps the crust. "
)
DETAIL = "The backup server in the Frankfurt office answers on port 8443 since the migration. "
LONG_REPLY = BREAD * 10 + DETAIL + BREAD * 2
QUERY = "Which port does the Frankfurt backup server answer on?"


def stored_with_distractors(service: MemoryService) -> str:
    memory = service.remember(LONG_REPLY, Category.CASES).memory
    for text in (
        "The staging database listens on the default port",
        "Our Frankfurt team meets on Tuesdays",
        "Backups run every night at two",
        "The office printer is on the second floor",
    ):
        service.remember(text, Category.ENTITIES)
    return memory.id


def test_a_detail_deep_in_a_long_memory_is_found_and_shown(
    service: MemoryService,
) -> None:
    memory_id = stored_with_distractors(service)
    hits = service.recall(QUERY, limit=3)
    assert hits[0].memory.id == memory_id
    assert hits[0].passage is not None and "8443" in hits[0].passage
    assert len(hits[0].passage) < len(LONG_REPLY) / 4
    assert all(hit.passage is None for hit in hits[1:])  # short memories are read whole

    result = Toolbox(MemoryTools(service).handlers()).call(
        "memory_recall", {"query": QUERY, "limit": 3, "level": "L0"}
    )
    assert result.data["results"][0]["passage"] == hits[0].passage
    assert "[matched: " in result.text and "8443" in result.text.splitlines()[0]


def test_the_cross_encoder_reads_the_passage_the_query_is_about(service: MemoryService) -> None:
    memory_id = stored_with_distractors(service)
    hit = next(hit for hit in service.recall(QUERY, limit=5) if hit.memory.id == memory_id)
    # read from its beginning, the long reply is about bread: the cross-encoder would put it
    # near zero (it reads 128 tokens); read at its passage, it is the answer
    assert hit.relevance > 0.5


ROOMS = ("kitchen", "bathroom", "hallway", "attic", "bedroom", "garage")
WORK = (
    "tiled the floor",
    "painted the walls sage green",
    "replaced the light fittings",
    "sanded the window frames",
    "fixed a leaking pipe",
    "fitted new shelves",
    "sealed the skirting boards",
    "installed a heated towel rail",
    "patched the plaster",
    "ordered oak worktops",
)


def renovation_diary(service: MemoryService, days: int) -> None:
    """One memory per day of a house renovation: a store with one subject."""
    service.remember_many(
        [
            Draft(f"Day {day}: we {WORK[day % 10]} in the {ROOMS[day % 6]}.", Category.EVENTS)
            for day in range(days)
        ]
    )


def test_a_query_about_nothing_stored_gets_only_what_the_cross_encoder_finds_relevant(
    service: MemoryService,
) -> None:
    renovation_diary(service, 60)
    service.remember("User is vegetarian and allergic to peanuts", Category.PREFERENCES)
    query = "Which film should we watch on Friday evening?"
    everything = service.recall(query, min_similarity=0.0, min_relevance=0.02, limit=61)
    assert any(hit.relevance < 0.02 for hit in everything)  # close enough, about nothing
    gated = service.recall(
        query, min_similarity=0.0, min_relevance=0.02, limit=61, min_neighbourhood=0.99
    )
    assert gated and all(
        hit.relevance >= 0.02 or hit.memory.category in STANDING_KNOWLEDGE for hit in gated
    )
    assert "User is vegetarian and allergic to peanuts" in [hit.memory.content for hit in gated]
    best_ten = service.recall(query, min_similarity=0.0, min_relevance=0.02, limit=10)
    gated_ten = service.recall(
        query, min_similarity=0.0, min_relevance=0.02, limit=10, min_neighbourhood=0.99
    )  # fewer of the same, never others from further down
    assert {hit.memory.id for hit in gated_ten} <= {hit.memory.id for hit in best_ten}
    assert len(gated_ten) < len(best_ten)
    on_topic = service.recall(
        "When did we tile the kitchen floor?", min_relevance=0.02, min_neighbourhood=0.62
    )
    assert "we tiled the floor in the kitchen" in on_topic[0].memory.content


def test_a_store_too_small_to_tell_is_never_gated(service: MemoryService) -> None:
    renovation_diary(service, 20)
    query = "Which film should we watch on Friday evening?"
    gated = service.recall(query, min_similarity=0.0, limit=20, min_neighbourhood=0.99)
    assert len(gated) == 20
    assert [hit.memory.id for hit in gated] == [
        hit.memory.id for hit in service.recall(query, min_similarity=0.0, limit=20)
    ]


def test_the_neighbourhood_is_the_mean_closeness_of_the_ten_nearest() -> None:
    ranked = [(str(n), 0.9 - n * 0.01) for n in range(60)]
    assert neighbourhood(ranked) == pytest.approx(0.855)
    assert neighbourhood(ranked[:49]) is None
    assert about_something_stored(0.7, 0.62) and not about_something_stored(0.6, 0.62)
    assert about_something_stored(None, 0.62) and about_something_stored(0.1, 0.0)
