"""Standing instructions: what the user told the agent to do on requests of a kind.

"Always include the narrator when I ask about audiobook recommendations" is not an answer to
"Can you suggest some audiobooks?" — a question-answering cross-encoder scores it near 0, and
the whole sentence is only loosely close to the request in meaning — yet it is the memory
that request most needs. Capture keeps such a sentence as a preference tagged
``instruction`` (``capture.rules``; the LLM is asked to tag it so too). Before each turn,
automatic recall compares the message with the instruction's *condition* — "audiobook
recommendations", the words after "when I ask about" (the whole instruction when it names
none) — and injects the instruction when they are close (``memory_recall`` puts it ahead of
what it finds): on BEAM's chats, the condition
separates the requests an instruction is about from other conversations' questions far
better than the whole sentence does (docs/benchmarks.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from openclaw_tinmem.encoders.dense import Embedder, QueryCache, Vector, cosine
from openclaw_tinmem.models import INSTRUCTION_TAG, Category, Hit, MatchKind, Memory
from openclaw_tinmem.store.table import MemoryStore

MAX_INSTRUCTIONS = 200  # the most recently updated a recall reads, of those it may show
CONDITION_CACHE_SIZE = 1024  # conditions whose embeddings are kept between recalls
# "when I ask about X", and as an LLM writes it, "when they ask about X", "whenever the user
# asks for X"
_CONDITION = re.compile(
    r"\b(?:when(?:ever)?|every time|each time|any time|if) (?:the )?[\w'’-]+ (?:asks?|mentions?|"
    r"brings? up|talks?|requests?|needs? help)(?: you)? (?:about|for|with|on)?\s*"
    r"(?P<condition>[^.,;!?]+)",
    re.IGNORECASE,
)


def condition_of(instruction: str) -> str:
    """The kind of request an instruction is about: the words after "when I ask about",
    else the whole instruction."""
    match = _CONDITION.search(instruction)
    condition = match.group("condition").strip() if match else ""
    return condition or instruction.strip()


class ConditionVectors:
    """The embeddings of instructions' conditions, the most recently used kept (``QueryCache``)."""

    def __init__(self, embedder: Embedder, capacity: int = CONDITION_CACHE_SIZE) -> None:
        self.embedder = embedder
        self._cache = QueryCache(capacity)

    def of(self, conditions: Sequence[str]) -> list[Vector]:
        """The embedding of each condition (those not kept embedded now, in one batch)."""
        vectors: dict[str, Vector] = {}
        missing: list[str] = []
        for text in dict.fromkeys(conditions):
            cached = self._cache.get(text)
            if cached is None:
                missing.append(text)
            else:
                vectors[text] = cached
        if missing:
            for text, vector in zip(missing, self.embedder.embed_documents(missing), strict=True):
                vectors[text] = vector
                self._cache.put(text, vector)
        return [vectors[text] for text in conditions]


def standing_instructions(
    store: MemoryStore,
    conditions: ConditionVectors,
    query_vector: Callable[[], Vector],
    *,
    scopes: Sequence[str] | None,
    allows: Callable[[Memory], bool] | None,
    min_similarity: float,
) -> list[Hit]:
    """The standing instructions in ``scopes`` whose condition is at least ``min_similarity``
    close to the message (its embedding, from ``query_vector``: asked for only when there are
    instructions to compare it with), closest first."""
    _, every = store.page(
        scopes=scopes, categories=[Category.PREFERENCES], tags=[INSTRUCTION_TAG], limit=None
    )
    # what this session may be shown first, so that others' instructions never crowd it out
    found = [memory for memory in every if allows is None or allows(memory)][:MAX_INSTRUCTIONS]
    if not found:
        return []
    vectors = conditions.of([condition_of(memory.content) for memory in found])
    message = query_vector()
    scored = [
        (cosine(message, vector), memory) for memory, vector in zip(found, vectors, strict=True)
    ]
    return [
        Hit(memory, similarity, similarity, MatchKind.VECTOR, similarity)
        for similarity, memory in sorted(scored, key=lambda pair: -pair[0])
        if similarity >= min_similarity
    ]


def instructions_first(instructions: Sequence[Hit], hits: Sequence[Hit], limit: int) -> list[Hit]:
    """What a search returns: the standing instructions for the request, then the other hits,
    at most ``limit`` in all."""
    given = {hit.memory.id for hit in instructions}
    return [*instructions, *(hit for hit in hits if hit.memory.id not in given)][:limit]
