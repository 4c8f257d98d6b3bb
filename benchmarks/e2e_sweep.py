"""The injection floors of ``locomo_e2e --sweep``: every combination scored in one run, and
the combination each conversation's held-out choice would make.

For each question the hook's recall runs once without the floors; each combination of
``injection_min_similarity`` × ``injection_word_match_min_similarity`` ×
``injection_min_relevance`` × ``injection_similarity_min_relevance`` in ``GRID`` is then
applied and the block rendered, so coverage, tokens and off-topic silence are known for all
of them. Leave-one-conversation-out: for each conversation, the other conversations choose the
combination with the best block coverage among those that keep at least ``OFF_TOPIC_TARGET``
of their off-topic prompts without a block and inject the memory of at least
``PROBE_RELATED_TARGET`` of the assistant probe's related messages (else the quietest), and
the held-out conversation is scored with it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from openclaw_tinmem.access import Identity
from openclaw_tinmem.events import HookContext
from openclaw_tinmem.models import Memory
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.recall.injection import estimate_tokens, render_block
from openclaw_tinmem.recall.scoring import InjectionFloors, is_worth_injecting, worth_injecting

SIMILARITY_FLOORS = (0.55, 0.6, 0.65, 0.7)
WORD_MATCH_FLOORS = (0.0, 0.45, 0.5, 0.55)
RELEVANCE_FLOORS = (0.02, 0.05, 0.1, 0.3, 1.01)  # 1.01: the cross-encoder never suffices
# the relevance a memory close in meaning must still have (0: closeness alone suffices)
SIMILARITY_RELEVANCE_FLOORS = (0.0, 0.0003, 0.001, 0.003)
GRID = [
    InjectionFloors(similarity, word, relevance, similarity_relevance)
    for similarity in SIMILARITY_FLOORS
    for word in WORD_MATCH_FLOORS
    for relevance in RELEVANCE_FLOORS
    for similarity_relevance in SIMILARITY_RELEVANCE_FLOORS
    if word <= similarity
]
PROBE_RELATED_TARGET = 0.85  # the share of the assistant probe's related messages to keep
OFF_TOPIC_TARGET = 0.9  # the share of off-topic prompts that must get no block


class Scored(Protocol):
    conversation: int
    by_floor: list[Any]


def floor_sweep(
    plugin: TinmemPlugin,
    agent_id: str,
    question: str,
    evidence: Sequence[str],
    coverage: Callable[[Sequence[Memory], Sequence[str]], float],
) -> list[tuple[float, int]]:
    """(coverage, tokens) of the block each combination of ``GRID`` would inject."""
    settings = plugin.settings
    ctx = HookContext(agent_id=agent_id, session_id="questions")
    hits = plugin.service.recall(
        question[: settings.max_query_characters],
        identity=Identity.from_context(ctx),
        limit=settings.injection_limit,
        min_similarity=settings.injection_min_similarity,
        min_relevance=min(RELEVANCE_FLOORS) if settings.rerank else None,
        min_neighbourhood=settings.injection_min_neighbourhood if settings.rerank else None,
    )
    found = []
    for floors in GRID:
        block = render_block(
            worth_injecting(question, hits, floors),
            token_budget=settings.injection_token_budget,
            detailed_items=settings.injection_detail_items,
            query=question,
        )
        if block is None:
            found.append((0.0, 0))
            continue
        shown = [hit.memory for hit in hits if hit.memory.id in set(block.memory_ids)]
        found.append((coverage(shown, evidence) if evidence else 0.0, estimate_tokens(block.text)))
    return found


def _scores(asked: Sequence[Scored], off_topic: Sequence[Scored], index: int) -> dict[str, Any]:
    tokens = [a.by_floor[index][1] for a in asked if a.by_floor[index][1]]
    return {
        "block": round(100 * statistics.fmean(a.by_floor[index][0] for a in asked), 1),
        "tokens_mean": round(statistics.fmean(tokens), 1) if tokens else 0,
        "off_topic_without_block": round(
            100 * statistics.fmean(not item.by_floor[index] for item in off_topic), 1
        )
        if off_topic
        else None,
    }


def _choice(asked: Sequence[Scored], off_topic: Sequence[Scored], probe: Sequence[float]) -> int:
    """The combination with the best coverage among those quiet enough off topic that keep
    enough of the assistant probe's related memories (else the quietest)."""
    scored = [_scores(asked, off_topic, index) for index in range(len(GRID))]
    quiet = [
        i
        for i, s in enumerate(scored)
        if s["off_topic_without_block"] >= 100 * OFF_TOPIC_TARGET
        and probe[i] >= 100 * PROBE_RELATED_TARGET
    ]
    if not quiet:
        return max(range(len(GRID)), key=lambda i: scored[i]["off_topic_without_block"])
    return max(quiet, key=lambda i: scored[i]["block"])


def _named(floors: InjectionFloors) -> dict[str, float]:
    return {
        "similarity": floors.similarity,
        "word_match_similarity": floors.word_match_similarity,
        "relevance": floors.relevance,
        "similarity_relevance": floors.similarity_relevance,
    }


def sweep_summary(
    asked: Sequence[Scored], off_topic: Sequence[Scored], probe: dict[str, Any]
) -> dict[str, Any]:
    related = [row["related_kept"] for row in probe["grid"]]
    rows = [
        {
            **_named(floors),
            **_scores(asked, off_topic, i),
            "probe_related_kept": related[i],
            "probe_unrelated_without_block": probe["grid"][i]["unrelated_without_block"],
        }
        for i, floors in enumerate(GRID)
    ]
    held_out = []
    for held in sorted({a.conversation for a in asked}):
        others = [a for a in asked if a.conversation != held]
        others_off = [a for a in off_topic if a.conversation != held]
        index = _choice(others, others_off, related)
        mine = [a for a in asked if a.conversation == held]
        mine_off = [a for a in off_topic if a.conversation == held]
        held_out.append(
            {"conversation": held, **_named(GRID[index]), **_scores(mine, mine_off, index)}
        )
    return {"grid": rows, "leave_one_conversation_out": held_out}


PROBE_AGENT = "assistant-probe"


def assistant_probe(plugin: TinmemPlugin) -> dict[str, Any]:
    """The assistant store of ``injection_gate`` (a dozen memories of the kind an assistant
    keeps) in an agent of its own; for each combination of ``GRID``, the share of messages
    about a memory that get it injected, and of messages about nothing stored that get
    nothing."""
    from benchmarks.injection_gate import ASSISTANT_MEMORIES, RELATED_MESSAGES, UNRELATED_MESSAGES

    settings = plugin.settings
    ctx = HookContext(agent_id=PROBE_AGENT, session_id="probe")
    identity = Identity.from_context(ctx)
    scope = f"agent:{PROBE_AGENT}"
    for content, category in ASSISTANT_MEMORIES:
        plugin.service.remember(content, category, scope=scope, identity=identity)

    def hits(message: str) -> list[Any]:
        return plugin.service.recall(
            message,
            identity=identity,
            limit=settings.injection_limit,
            min_similarity=settings.injection_min_similarity,
            min_relevance=min(RELEVANCE_FLOORS) if settings.rerank else None,
        )

    related = [(hits(message), ASSISTANT_MEMORIES[index][0]) for message, index in RELATED_MESSAGES]
    unrelated = [hits(message) for message in UNRELATED_MESSAGES]
    rows = []
    for floors in GRID:
        kept = [  # "in": the category's merge rule may have joined it to another memory
            any(wanted in hit.memory.content and is_worth_injecting(hit, floors) for hit in found)
            for found, wanted in related
        ]
        quiet = [not any(is_worth_injecting(hit, floors) for hit in found) for found in unrelated]
        rows.append(
            {
                **_named(floors),
                "related_kept": round(100 * statistics.fmean(kept), 1),
                "unrelated_without_block": round(100 * statistics.fmean(quiet), 1),
            }
        )
    return {"grid": rows}
