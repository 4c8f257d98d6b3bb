"""The recall pipeline as a whole: of a long memory, the passage the query is about is what
the cross-encoder reads and what the hit shows."""

from openclaw_tinmem.models import Category
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
